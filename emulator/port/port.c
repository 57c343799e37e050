// SPDX-License-Identifier: GPL-2.0
/*
 * The adapter's Ethernet port: one thread that moves frames between the
 * guest's virtio-net backend (QEMU "-netdev dgram" over a unix socket) and
 * the wire switch, and diverts RoCEv2 frames for this port to the engine.
 *
 * The guest side is an AF_UNIX datagram socket, one frame per datagram, as
 * QEMU wants it.  The kernel bounds a unix datagram receive queue to a few
 * frames, so a sender must either wait for the receiver or drop: we wait,
 * but only as long as wire_link_policy_dgram says (a guest whose driver is not
 * up yet makes QEMU stop reading for good).
 *
 * The wire side is a shared-memory link to the switch (wire_link.h) when
 * the configuration asks for one and the switch accepts it: frames go
 * through two rings with one copy in and none out, a full ring is
 * backpressure (the sender waits, nothing is dropped) unless the switch
 * stops draining for seconds (wire_link_policy_ring_tx), and a switch that
 * exits is seen at once.  Otherwise it is a datagram socket like the guest
 * side.
 *
 * The engine never waits in a send, on either wire: it sends under the
 * DMA lock, which a guest's memory map change waits for.  A full ring, or
 * a datagram switch whose queue is full, is -EBUSY: the engine keeps the
 * frame and is called back (tx_ready) to try again.  A ring says when it
 * has room; a datagram socket that is not connected to its peer is told
 * nothing by the kernel, so the port thread calls back after
 * DGRAM_TX_RETRY_MS.  A peer full for longer than its policy allows is
 * dropped to, and counted, as on the guest side; RoCE's retransmission
 * recovers the frames.
 *
 * On a shared-memory wire the engine's RoCE frames bypass this thread
 * when the port has a RoCE lane (port.h): the switch puts them in a ring
 * of their own, which the engine reads in place, and the engine builds
 * into its own ring to the switch; the engine sleeps on the lane's kick
 * itself, and this thread only passes on the kick for room (tx_ready).
 * Without a lane, and on
 * datagrams, this thread hands RoCE frames to the engine's receive
 * queue, which pushes back too (port_roce_rx_fn): a RoCE frame it has no
 * room for stays where it is, in the ring or the datagram buffer, and the
 * port takes nothing more from the wire until the engine has drained its
 * queue (port_roce_rx_ready()).  Frames for
 * the guest's virtio-net behind it wait as well, as behind a NIC's shared
 * receive buffer.  The engine never waits for the wire itself (engine.h),
 * so this wait always ends: roce_qp.c explains why nothing can deadlock.
 *
 * Like a NIC's anti-spoofing check, only frames whose source MAC is the
 * port's own leave for the wire: from the guest's virtio-net and from the
 * engine alike (the engine takes the source MAC from a GID entry the
 * driver wrote).  Others are dropped and counted.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "util/clock.h"
#include "port.h"
#include "roce/roce.h"
#include "wire/wire_link.h"

#define PORT_MAX_FRAME		9018	/* jumbo 9000 + Ethernet + VLAN tag */
#define ETH_HLEN		14
#define ATTACH_TIMEOUT_MS	5000	/* the switch answers at once if alive */
#define RX_BATCH		64	/* ring frames between two poll()s */
#define DGRAM_TX_RETRY_MS	1	/* a full datagram switch asked again */

/* One datagram link: the socket we send from and where to. */
struct port_link {
	int fd;
	struct sockaddr_un peer;
	socklen_t peer_len;
	bool has_peer;
	struct link_state ls;		/* under lock */
	pthread_mutex_t lock;		/* serialises senders' stall state */
};

/*
 * The shared-memory wire.  The port thread produces the guest's frames
 * into the up ring, the engine thread its own into roce_up; both take
 * tx_lock for the link's state.  The port thread consumes the down ring
 * and polls the eventfds, and it wakes an engine thread waiting for room
 * through tx_space (and tx_ready).  roce_down is consumed by the engine
 * thread itself when the port was started with roce_lane (port.h), else
 * by the port thread, like down.
 */
struct port_shm {
	struct wire_link link;
	bool up;			/* the link is attached */
	bool dead;			/* the switch is gone: under tx_lock */
	struct link_state ls;		/* the up ring: under tx_lock */
	struct link_state roce_ls;	/* the roce_up ring: under tx_lock */
	pthread_mutex_t tx_lock;
	pthread_cond_t tx_space;	/* CLOCK_MONOTONIC */
	uint8_t *tx_slot;		/* reserved in roce_up: tx_lock held */
};

struct emu_port {
	struct port_link nic;		/* fd bound to nic_path, sends to QEMU */
	struct port_link wire;		/* fd bound to wire_path, to switch */
	char *nic_path;
	char *wire_path;
	uint8_t mac[6];
	port_roce_rx_fn rx;
	void (*tx_ready)(void *ctx);
	void (*pfc_pause)(void *ctx, uint8_t enable, const uint64_t *pause_ns);
	bool roce_lane;			/* the engine consumes roce_down */
	void *ctx;
	int stop_fd;			/* eventfd: wakes the thread to exit */
	int rx_ready_fd;		/* eventfd: the rx callback has room */
	int tx_retry_fd;		/* eventfd: a datagram send was busy */
	bool rx_blocked;		/* it refused the wire's next frame */
	uint64_t rx_blocked_ms;		/* when: offered again at least */
	size_t wire_pending;		/* wbuf holds that frame (datagrams) */
	pthread_t thread;
	struct port_shm shm;
	struct emu_port_stats stats;	/* updated with __atomic ops */
	size_t nic_pending;		/* buf holds a frame for a full ring */
	uint8_t buf[PORT_MAX_FRAME + 1];	/* from the guest */
	uint8_t wbuf[PORT_MAX_FRAME + 1];	/* from a datagram wire */
};

static void stat_inc(uint64_t *counter)
{
	__atomic_fetch_add(counter, 1, __ATOMIC_RELAXED);
}

/* For us: our unicast MAC, or the group bit (broadcast and multicast). */
static bool frame_is_for_port(const struct emu_port *port, const uint8_t *f)
{
	return (f[0] & 1) || memcmp(f, port->mac, 6) == 0;
}

/* Ours: only such frames may leave for the wire. */
static bool frame_is_from_port(const struct emu_port *port, const uint8_t *f)
{
	return memcmp(f + 6, port->mac, 6) == 0;
}

/*
 * Send one frame on @link, from the port thread.  Returns 0 or -errno.  A
 * full receiver gets wire_link_policy_dgram.wait_ms (the socket's SO_SNDTIMEO)
 * to make room unless it is stalled already.  The wait is not under the
 * lock: the engine's link_try_send() takes it and must never wait.
 */
static int link_send(struct port_link *link, const uint8_t *f, size_t len)
{
	int flags = MSG_NOSIGNAL;
	ssize_t n;
	int err;

	if (!link->has_peer)
		return -ENOTCONN;
	pthread_mutex_lock(&link->lock);
	if (!link_may_wait(&link->ls, now_ms()))
		flags |= MSG_DONTWAIT;
	pthread_mutex_unlock(&link->lock);
	n = sendto(link->fd, f, len, flags,
		   (const struct sockaddr *)&link->peer, link->peer_len);
	err = n < 0 ? errno : 0;
	pthread_mutex_lock(&link->lock);
	if (err == EAGAIN || err == EWOULDBLOCK) {
		if (!(flags & MSG_DONTWAIT))
			wire_link_timed_out(&link->ls,
					    &wire_link_policy_dgram, now_ms());
	} else if (!err) {
		link_taken(&link->ls);
	}
	pthread_mutex_unlock(&link->lock);
	if (err)
		return -err;
	return (size_t)n == len ? 0 : -EMSGSIZE;
}

/*
 * Send one frame on @link without waiting, for the engine.  0: sent;
 * -EBUSY: the receiver is full but may still be waited for (it has been
 * full for less than wire_link_policy_dgram.wait_ms), try again later; any
 * other -errno: drop the frame (the receiver stayed full, or is stalled).
 * Like a full ring to a switch that stopped draining (shm_try_send()).
 */
static int link_try_send(struct port_link *link, const uint8_t *f,
			 size_t len)
{
	ssize_t n;
	int err;

	if (!link->has_peer)
		return -ENOTCONN;
	n = sendto(link->fd, f, len, MSG_DONTWAIT | MSG_NOSIGNAL,
		   (const struct sockaddr *)&link->peer, link->peer_len);
	err = n < 0 ? errno : 0;
	pthread_mutex_lock(&link->lock);
	if (err == EAGAIN || err == EWOULDBLOCK) {
		if (wire_link_full(&link->ls, &wire_link_policy_dgram,
				   now_ms()))
			err = EBUSY;
	} else if (!err) {
		link_taken(&link->ls);
	}
	pthread_mutex_unlock(&link->lock);
	if (err)
		return -err;
	return (size_t)n == len ? 0 : -EMSGSIZE;
}

/*
 * One attempt to put a frame in an up ring (@roce: the engine's, else the
 * port's), under tx_lock.  0: sent; -EBUSY: the ring is full and the
 * switch has been asked for a space_fd kick, wait at most *left_ms; any
 * other -errno: drop the frame.
 */
static int shm_try_send(struct port_shm *shm, bool roce, const uint8_t *f,
			size_t len, uint32_t *left_ms)
{
	struct frame_ring *up = roce ? &shm->link.roce_up : &shm->link.up;
	struct link_state *ls = roce ? &shm->roce_ls : &shm->ls;

	for (;;) {
		if (shm->dead)
			return -ENOTCONN;
		if (wire_frame_ring_push(up, f, len)) {
			link_taken(ls);
			return 0;
		}
		if (up->broken) {
			shm->dead = true;
			continue;
		}
		*left_ms = wire_link_full(ls, &wire_link_policy_ring_tx,
					  now_ms());
		if (!*left_ms)
			return -EAGAIN;
		if (!wire_frame_ring_want_space(up))
			return -EBUSY;
	}
}

/* From the engine's thread: wait for room (backpressure), within policy. */
static int shm_send(struct port_shm *shm, const uint8_t *f, size_t len)
{
	uint32_t left;
	int ret;

	pthread_mutex_lock(&shm->tx_lock);
	for (;;) {
		struct timespec ts;

		ret = shm_try_send(shm, true, f, len, &left);
		if (ret != -EBUSY)
			break;
		ts = mono_deadline((uint64_t)left * 1000000);
		pthread_cond_timedwait(&shm->tx_space, &shm->tx_lock, &ts);
	}
	pthread_mutex_unlock(&shm->tx_lock);
	return ret;
}

/*
 * Read one datagram into @buf: its length, 0 if there was none, -1 if it
 * cannot be an Ethernet frame (shorter than a header, or longer than a
 * jumbo frame).
 */
static ssize_t read_frame(int fd, uint8_t *buf)
{
	ssize_t n = recv(fd, buf, PORT_MAX_FRAME + 1, MSG_DONTWAIT | MSG_TRUNC);

	if (n < 0)
		return 0;
	if (n < ETH_HLEN || n > PORT_MAX_FRAME)
		return -1;
	return n;
}

/*
 * Counters move before the frame does, so whoever receives a frame also
 * sees it counted; a failed send moves it to "dropped".
 */
static void count_failed(struct emu_port *port, uint64_t *counter)
{
	__atomic_fetch_sub(counter, 1, __ATOMIC_RELAXED);
	stat_inc(&port->stats.dropped);
	if (counter != &port->stats.wire_to_nic)
		stat_inc(&port->stats.drop_to_wire);
}

/*
 * Frames the guest did not take are counted apart too: a guest that boots
 * later than its peers misses their first broadcasts, and one that has
 * powered off their last ones, which is no loss on the wire.
 */
static void to_nic(struct emu_port *port, const uint8_t *f, size_t len)
{
	stat_inc(&port->stats.wire_to_nic);
	if (link_send(&port->nic, f, len)) {
		count_failed(port, &port->stats.wire_to_nic);
		stat_inc(&port->stats.to_nic_dropped);
	}
}

/*
 * The guest's frame in port->buf to the wire.  On a shared-memory wire
 * whose ring is full it stays there (nic_pending) and the guest's socket
 * is not read until it has gone: backpressure towards QEMU too.
 */
static void nic_to_wire(struct emu_port *port, size_t len,
			uint32_t *wait_ms)
{
	uint32_t left = 0;
	int ret;

	if (!port->shm.up) {
		stat_inc(&port->stats.nic_to_wire);
		if (link_send(&port->wire, port->buf, len))
			count_failed(port, &port->stats.nic_to_wire);
		return;
	}
	stat_inc(&port->stats.nic_to_wire);
	pthread_mutex_lock(&port->shm.tx_lock);
	ret = shm_try_send(&port->shm, false, port->buf, len, &left);
	pthread_mutex_unlock(&port->shm.tx_lock);
	port->nic_pending = 0;
	if (ret == -EBUSY) {
		__atomic_fetch_sub(&port->stats.nic_to_wire, 1,
				   __ATOMIC_RELAXED);
		port->nic_pending = len;
		*wait_ms = left;
	} else if (ret) {
		count_failed(port, &port->stats.nic_to_wire);
	}
}

static void from_nic(struct emu_port *port, uint32_t *wait_ms)
{
	ssize_t n = read_frame(port->nic.fd, port->buf);

	if (n == 0)
		return;
	if (n < 0) {
		stat_inc(&port->stats.dropped);
		return;
	}
	if (!frame_is_from_port(port, port->buf)) {
		stat_inc(&port->stats.bad_src_mac);
		stat_inc(&port->stats.dropped);
		return;
	}
	nic_to_wire(port, n, wait_ms);
}

/*
 * A MAC Control frame from the wire: the MAC's, never the guest's.  A PFC
 * frame's pause quanta become nanoseconds at the link's rate.
 */
static void mac_control(struct emu_port *port, const uint8_t *f, size_t len)
{
	uint16_t quanta[PFC_PRIOS];
	uint64_t pause_ns[PFC_PRIOS];
	uint32_t rate = 0;
	uint8_t enable;

	if (!pfc_frame_parse(f, len, &enable, quanta)) {
		stat_inc(&port->stats.mac_control_rx);
		return;
	}
	stat_inc(&port->stats.pfc_rx);
	if (port->shm.up)
		rate = wire_link_rate(&port->shm.link);
	if (!rate)
		rate = PORT_DEFAULT_RATE_MBPS;
	for (int p = 0; p < PFC_PRIOS; p++)
		pause_ns[p] = pfc_quanta_ns(quanta[p], rate);
	if (port->pfc_pause && enable)
		port->pfc_pause(port->ctx, enable, pause_ns);
}

/*
 * A frame from the wire: to the engine if it is RoCE for us, else the
 * guest.  False if the engine had no room: the caller keeps the frame,
 * and the port is rx_blocked.
 */
static bool wire_frame(struct emu_port *port, const uint8_t *f, size_t len)
{
	struct roce_frame_hdrs hdrs;

	if (frame_is_for_port(port, f) &&
	    roce_classify(f, len, &hdrs) == ROCE_RX_OK) {
		stat_inc(&port->stats.roce_rx);
		if (port->rx && !port->rx(port->ctx, f, len)) {
			__atomic_fetch_sub(&port->stats.roce_rx, 1,
					   __ATOMIC_RELAXED);
			stat_inc(&port->stats.rx_held);
			port->rx_blocked = true;
			port->rx_blocked_ms = now_ms();
			return false;
		}
		return true;
	}
	if (pfc_is_mac_control(f, len)) {
		mac_control(port, f, len);
		return true;
	}
	to_nic(port, f, len);
	return true;
}

/*
 * Offer the held frame again if the engine said it has room (or the
 * retry time has passed); false if the port stays blocked.
 */
static bool rx_unblock(struct emu_port *port, bool ready)
{
	if (!port->rx_blocked)
		return true;
	if (!ready && now_ms() - port->rx_blocked_ms < PORT_RX_RETRY_MS)
		return false;
	port->rx_blocked = false;
	return true;
}

/* How long poll() may sleep for a blocked port's retry. */
static int rx_retry_timeout(struct emu_port *port, int timeout)
{
	uint64_t waited;
	int left;

	if (!port->rx_blocked)
		return timeout;
	waited = now_ms() - port->rx_blocked_ms;
	left = waited >= PORT_RX_RETRY_MS ? 0 :
	       (int)(PORT_RX_RETRY_MS - waited);
	return timeout < 0 || left < timeout ? left : timeout;
}

static void from_wire(struct emu_port *port)
{
	ssize_t n;

	if (port->wire_pending) {
		if (!wire_frame(port, port->wbuf, port->wire_pending))
			return;
		port->wire_pending = 0;
	}
	n = read_frame(port->wire.fd, port->wbuf);
	if (n == 0)
		return;
	if (n < 0) {
		stat_inc(&port->stats.dropped);
		return;
	}
	if (!wire_frame(port, port->wbuf, n))
		port->wire_pending = n;
}

/*
 * Frames from a ring from the switch (down, or roce_down without a RoCE
 * lane), read in place.  Returns true if more are waiting (the caller
 * polls without sleeping, then comes back).
 */
static bool from_ring(struct emu_port *port, struct frame_ring *down)
{
	const uint8_t *f;
	size_t len;
	int i;

	for (i = 0; i < RX_BATCH; i++) {
		f = wire_frame_ring_peek(down, &len);
		if (!f)
			return false;
		if (!len)
			stat_inc(&port->stats.dropped);
		else if (!wire_frame(port, f, len))
			return false;	/* it stays in the ring */
		wire_frame_ring_pop(down);
	}
	return true;
}

/* The switch went away (or broke the ring): frames to it are dropped. */
static void shm_gone(struct emu_port *port)
{
	pthread_mutex_lock(&port->shm.tx_lock);
	port->shm.dead = true;
	pthread_cond_broadcast(&port->shm.tx_space);
	pthread_mutex_unlock(&port->shm.tx_lock);
	if (port->tx_ready)
		port->tx_ready(port->ctx);
}

/* The switch made room in the up ring: wake the engine, retry our own. */
static void shm_space(struct emu_port *port, uint32_t *wait_ms)
{
	pthread_mutex_lock(&port->shm.tx_lock);
	pthread_cond_broadcast(&port->shm.tx_space);
	pthread_mutex_unlock(&port->shm.tx_lock);
	if (port->tx_ready)
		port->tx_ready(port->ctx);
	if (port->nic_pending)
		nic_to_wire(port, port->nic_pending, wait_ms);
}

/*
 * How long poll() may sleep before the engine is to be asked to send again
 * (@retry_ms: when, 0: it is not waiting).
 */
static int tx_retry_timeout(uint64_t retry_ms, int timeout)
{
	uint64_t now = now_ms();
	int left;

	if (!retry_ms)
		return timeout;
	left = retry_ms <= now ? 0 : (int)(retry_ms - now);
	return timeout < 0 || left < timeout ? left : timeout;
}

static void *dgram_thread(struct emu_port *port)
{
	struct pollfd pfd[5] = {
		{ .fd = port->nic.fd, .events = POLLIN },
		{ .fd = port->wire.fd, .events = POLLIN },
		{ .fd = port->stop_fd, .events = POLLIN },
		{ .fd = port->rx_ready_fd, .events = POLLIN },
		{ .fd = port->tx_retry_fd, .events = POLLIN },
	};
	uint64_t retry_ms = 0;
	uint32_t unused;

	for (;;) {
		bool ready;
		int timeout;

		/* A held frame holds the wire back: backpressure. */
		pfd[1].fd = port->rx_blocked ? -1 : port->wire.fd;
		timeout = rx_retry_timeout(port, -1);
		timeout = tx_retry_timeout(retry_ms, timeout);
		if (poll(pfd, 5, timeout) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (pfd[2].revents)
			break;
		/* The engine found the switch full: ask it again soon. */
		if (pfd[4].revents) {
			wire_frame_ring_clear_fd(port->tx_retry_fd);
			if (!retry_ms)
				retry_ms = now_ms() + DGRAM_TX_RETRY_MS;
		}
		if (retry_ms && now_ms() >= retry_ms) {
			retry_ms = 0;
			if (port->tx_ready)
				port->tx_ready(port->ctx);
		}
		ready = pfd[3].revents;
		if (ready)
			wire_frame_ring_clear_fd(port->rx_ready_fd);
		if (pfd[0].revents)
			from_nic(port, &unused);
		if (port->rx_blocked && rx_unblock(port, ready))
			from_wire(port);
		else if (pfd[1].revents)
			from_wire(port);
	}
	return NULL;
}

enum { PFD_STOP, PFD_NIC, PFD_CTL, PFD_DATA, PFD_SPACE, PFD_RX_READY,
       PFD_RDATA, PFD_RSPACE, NR_PFD };

/* The rings from the switch the port thread reads: one, or both. */
static bool from_rings(struct emu_port *port)
{
	struct wire_link *l = &port->shm.link;
	bool busy = from_ring(port, &l->down);

	if (!port->roce_lane && !port->rx_blocked &&
	    from_ring(port, &l->roce_down))
		busy = true;
	return busy;
}

/* Before sleeping: a kick for each ring the port thread reads. */
static bool want_rings(struct emu_port *port)
{
	struct wire_link *l = &port->shm.link;
	bool busy = wire_frame_ring_want_data(&l->down);

	if (!port->roce_lane && wire_frame_ring_want_data(&l->roce_down))
		busy = true;
	return busy;
}

/*
 * The shared-memory wire's loop.  It sleeps in poll() only when the rings
 * it reads are empty and the switch has been told so; while frames keep
 * coming it only polls (without waiting) once per RX_BATCH frames, for the
 * guest and for stop.  With a RoCE lane it reads no RoCE frame and
 * leaves the lane's kick for a frame to the engine, which polls it
 * (port_roce_rx_fd()); it passes on the switch's kick for room
 * (tx_ready).
 */
static void *shm_thread(struct emu_port *port)
{
	struct wire_link *l = &port->shm.link;
	struct pollfd pfd[NR_PFD] = {
		[PFD_STOP] = { .fd = port->stop_fd, .events = POLLIN },
		[PFD_NIC] = { .fd = port->nic.fd, .events = POLLIN },
		[PFD_CTL] = { .fd = l->ctl, .events = POLLIN },
		[PFD_DATA] = { .fd = l->down.data_fd, .events = POLLIN },
		[PFD_SPACE] = { .fd = l->up.space_fd, .events = POLLIN },
		[PFD_RX_READY] = { .fd = port->rx_ready_fd, .events = POLLIN },
		[PFD_RDATA] = { .fd = port->roce_lane ? -1 :
				l->roce_down.data_fd, .events = POLLIN },
		[PFD_RSPACE] = { .fd = l->roce_up.space_fd, .events = POLLIN },
	};
	uint32_t wait_ms = 0;
	bool gone = false, ready = false;

	for (;;) {
		bool busy = false;
		int timeout = -1;

		/* A frame the engine refused stays first in the ring. */
		if (!gone && rx_unblock(port, ready)) {
			busy = from_rings(port);
			if (!busy && !port->rx_blocked && want_rings(port))
				busy = true;
		}
		if (busy)
			timeout = 0;
		else if (port->nic_pending)
			timeout = (int)wait_ms;
		if (!gone)
			timeout = rx_retry_timeout(port, timeout);
		/* Do not read the guest while its last frame waits for room. */
		pfd[PFD_NIC].fd = port->nic_pending ? -1 : port->nic.fd;
		if (poll(pfd, NR_PFD, timeout) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (pfd[PFD_STOP].revents)
			break;
		if (!gone && (pfd[PFD_CTL].revents || l->down.broken ||
			      l->roce_down.broken)) {
			gone = true;
			shm_gone(port);
			pfd[PFD_CTL].fd = pfd[PFD_DATA].fd = -1;
			pfd[PFD_SPACE].fd = pfd[PFD_RSPACE].fd = -1;
			pfd[PFD_RDATA].fd = -1;
		}
		if (pfd[PFD_DATA].revents)
			wire_frame_ring_clear_fd(l->down.data_fd);
		if (pfd[PFD_RDATA].revents)
			wire_frame_ring_clear_fd(l->roce_down.data_fd);
		ready = pfd[PFD_RX_READY].revents;
		if (ready)
			wire_frame_ring_clear_fd(port->rx_ready_fd);
		if (pfd[PFD_SPACE].revents)
			wire_frame_ring_clear_fd(l->up.space_fd);
		if (pfd[PFD_RSPACE].revents)
			wire_frame_ring_clear_fd(l->roce_up.space_fd);
		/* Room, a dead switch, or the wait is over: retry it. */
		if (port->nic_pending || pfd[PFD_SPACE].revents ||
		    pfd[PFD_RSPACE].revents)
			shm_space(port, &wait_ms);
		if (pfd[PFD_NIC].revents && !port->nic_pending)
			from_nic(port, &wait_ms);
	}
	return NULL;
}

static void *port_thread(void *arg)
{
	struct emu_port *port = arg;

	return port->shm.up ? shm_thread(port) : dgram_thread(port);
}

static int fill_addr(struct sockaddr_un *sa, socklen_t *sa_len,
		     const char *path)
{
	size_t len = strlen(path);

	if (len == 0 || len >= sizeof(sa->sun_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	memcpy(sa->sun_path, path, len);
	*sa_len = offsetof(struct sockaddr_un, sun_path) + len + 1;
	return 0;
}

/* Remove a socket file left by a previous run; never remove other files. */
static void unlink_stale_socket(const char *path)
{
	struct stat st;

	if (lstat(path, &st) == 0 && S_ISSOCK(st.st_mode))
		unlink(path);
}

/* Bind a datagram socket at @path (replacing a stale socket file). */
static int link_open(struct port_link *link, const char *path,
		     const char *peer)
{
	struct timeval tv = {
		.tv_usec = wire_link_policy_dgram.wait_ms * 1000,
	};
	struct sockaddr_un sa;
	socklen_t sa_len;
	int sndbuf = 1 << 20;

	link->fd = -1;
	pthread_mutex_init(&link->lock, NULL);
	if (fill_addr(&sa, &sa_len, path))
		return -1;
	if (peer) {
		if (fill_addr(&link->peer, &link->peer_len, peer))
			return -1;
		link->has_peer = true;
	}
	link->fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (link->fd < 0)
		return -1;
	setsockopt(link->fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	setsockopt(link->fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
	unlink_stale_socket(path);
	return bind(link->fd, (struct sockaddr *)&sa, sa_len);
}

static void shm_init_sync(struct port_shm *shm)
{
	pthread_condattr_t ca;

	pthread_mutex_init(&shm->tx_lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&shm->tx_space, &ca);
	pthread_condattr_destroy(&ca);
}

static void port_free(struct emu_port *port)
{
	int err = errno;

	if (port->nic.fd >= 0) {
		close(port->nic.fd);
		unlink(port->nic_path);
	}
	if (port->wire.fd >= 0) {
		close(port->wire.fd);
		unlink(port->wire_path);
	}
	if (port->stop_fd >= 0)
		close(port->stop_fd);
	if (port->rx_ready_fd >= 0)
		close(port->rx_ready_fd);
	if (port->tx_retry_fd >= 0)
		close(port->tx_retry_fd);
	if (port->shm.up)
		wire_link_close(&port->shm.link);
	pthread_mutex_destroy(&port->shm.tx_lock);
	pthread_cond_destroy(&port->shm.tx_space);
	pthread_mutex_destroy(&port->nic.lock);
	pthread_mutex_destroy(&port->wire.lock);
	free(port->nic_path);
	free(port->wire_path);
	free(port);
	errno = err;
}

/* The peer's attach message on our wire socket, within the time left. */
static int peer_accept(struct emu_port *port, uint64_t deadline)
{
	struct pollfd pfd = { .fd = port->wire.fd, .events = POLLIN };
	int fds[WIRE_LINK_NR_FDS], nfds;
	uint8_t msg[WIRE_LINK_MSG_LEN];
	struct sockaddr_un from;
	socklen_t from_len;
	uint64_t now;
	ssize_t n;

	while ((now = now_ms()) < deadline) {
		if (poll(&pfd, 1, (int)(deadline - now)) < 0 && errno != EINTR)
			return -errno;
		from_len = sizeof(from);
		n = wire_link_recv(port->wire.fd, msg, sizeof(msg), &from,
				   &from_len, fds, &nfds);
		if (n < 0)
			continue;	/* EAGAIN: nothing yet */
		/* Anything else on the socket is not the peer's link: drop. */
		/* A point-to-point link models no rate (0). */
		if (!wire_link_accept(&port->shm.link, msg, (size_t)n, fds,
				      nfds, true, 0))
			return 0;
	}
	return -ETIMEDOUT;
}

/*
 * A point-to-point link to the peer adapter's port (wire_peer): the port
 * whose socket path sorts first creates the link and attaches it, as to a
 * switch; the other takes it, mirrored.  Either may start first.
 */
static int peer_link(struct emu_port *port, const struct emu_port_config *cfg)
{
	int cmp;

	if (!cfg->switch_path)
		return -EINVAL;
	cmp = strcmp(cfg->wire_path, cfg->switch_path);
	if (!cmp)
		return -EINVAL;
	if (cmp < 0)
		return wire_link_attach(&port->shm.link, port->wire.fd,
					(struct sockaddr *)&port->wire.peer,
					port->wire.peer_len,
					PORT_PEER_TIMEOUT_MS, true);
	return peer_accept(port, now_ms() + PORT_PEER_TIMEOUT_MS);
}

struct emu_port *port_start(const struct emu_port_config *cfg,
			    port_roce_rx_fn rx, void *ctx)
{
	struct emu_port *port;
	int err;

	if (!cfg || !cfg->nic_path || !cfg->nic_peer || !cfg->wire_path) {
		errno = EINVAL;
		return NULL;
	}
	port = calloc(1, sizeof(*port));
	if (!port)
		return NULL;
	port->nic.fd = port->wire.fd = port->stop_fd = port->rx_ready_fd = -1;
	port->tx_retry_fd = -1;
	shm_init_sync(&port->shm);
	memcpy(port->mac, cfg->mac, sizeof(port->mac));
	port->rx = rx;
	port->tx_ready = cfg->tx_ready;
	port->pfc_pause = cfg->pfc_pause;
	port->roce_lane = cfg->roce_lane;
	port->ctx = ctx;
	port->nic_path = strdup(cfg->nic_path);
	port->wire_path = strdup(cfg->wire_path);
	if (!port->nic_path || !port->wire_path)
		goto fail;
	if (link_open(&port->nic, cfg->nic_path, cfg->nic_peer))
		goto fail;
	if (link_open(&port->wire, cfg->wire_path, cfg->switch_path))
		goto fail;
	if (cfg->wire_peer) {
		err = peer_link(port, cfg);
		if (err) {
			errno = -err;
			goto fail;
		}
		port->shm.up = true;
	} else if (cfg->wire_shm && cfg->switch_path &&
		   !wire_link_attach(&port->shm.link, port->wire.fd,
				     (struct sockaddr *)&port->wire.peer,
				     port->wire.peer_len, ATTACH_TIMEOUT_MS,
				     false)) {
		/* Without a shared-memory switch: datagrams, as an older one. */
		port->shm.up = true;
	}
	port->stop_fd = eventfd(0, EFD_CLOEXEC);
	port->rx_ready_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	port->tx_retry_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (port->stop_fd < 0 || port->rx_ready_fd < 0 ||
	    port->tx_retry_fd < 0)
		goto fail;
	err = pthread_create(&port->thread, NULL, port_thread, port);
	if (err) {
		errno = err;
		goto fail;
	}
	return port;
fail:
	port_free(port);
	return NULL;
}

void port_stop(struct emu_port *port)
{
	uint64_t one = 1;

	if (!port)
		return;
	if (write(port->stop_fd, &one, sizeof(one)) != sizeof(one))
		abort();	/* an eventfd write of 1 cannot fail */
	pthread_join(port->thread, NULL);
	port_free(port);
}

int port_send_roce(struct emu_port *port, const uint8_t *frame, size_t len)
{
	int ret;

	if (!port || !frame || len < ETH_HLEN || len > PORT_MAX_FRAME)
		return -EINVAL;
	if (!frame_is_from_port(port, frame)) {
		stat_inc(&port->stats.bad_src_mac);
		stat_inc(&port->stats.dropped);
		return -EPERM;
	}
	stat_inc(&port->stats.roce_tx);
	if (port->shm.up)
		ret = shm_send(&port->shm, frame, len);
	else
		ret = link_send(&port->wire, frame, len);
	if (ret)
		count_failed(port, &port->stats.roce_tx);
	return ret;
}

/* The engine's datagram send was -EBUSY: the port thread calls back. */
static void dgram_tx_retry(struct emu_port *port)
{
	uint64_t one = 1;

	/* EAGAIN: the counter is full of kicks already; one is enough. */
	if (write(port->tx_retry_fd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		abort();
}

int port_send_roce_nowait(struct emu_port *port, const uint8_t *frame,
			  size_t len)
{
	uint32_t left;
	int ret;

	if (!port || !frame || len < ETH_HLEN || len > PORT_MAX_FRAME)
		return -EINVAL;
	if (!frame_is_from_port(port, frame)) {
		stat_inc(&port->stats.bad_src_mac);
		stat_inc(&port->stats.dropped);
		return -EPERM;
	}
	stat_inc(&port->stats.roce_tx);
	if (port->shm.up) {
		pthread_mutex_lock(&port->shm.tx_lock);
		ret = shm_try_send(&port->shm, true, frame, len, &left);
		pthread_mutex_unlock(&port->shm.tx_lock);
	} else {
		ret = link_try_send(&port->wire, frame, len);
		if (ret == -EBUSY)
			dgram_tx_retry(port);
	}
	if (ret == -EBUSY)
		__atomic_fetch_sub(&port->stats.roce_tx, 1, __ATOMIC_RELAXED);
	else if (ret)
		count_failed(port, &port->stats.roce_tx);
	return ret;
}

uint8_t *port_roce_tx_slot(struct emu_port *port, size_t *cap)
{
	struct port_shm *shm = &port->shm;

	if (!port->shm.up)
		return NULL;
	pthread_mutex_lock(&shm->tx_lock);
	shm->tx_slot = shm->dead ? NULL :
		       wire_frame_ring_reserve(&shm->link.roce_up);
	if (!shm->tx_slot) {
		pthread_mutex_unlock(&shm->tx_lock);
		return NULL;
	}
	*cap = FRAME_RING_MTU < PORT_MAX_FRAME ? FRAME_RING_MTU :
						PORT_MAX_FRAME;
	return shm->tx_slot;
}

int port_roce_tx_commit(struct emu_port *port, size_t len)
{
	struct port_shm *shm = &port->shm;
	int ret = 0;

	/* As port_send_roce_nowait(): counted before the peer can see it. */
	if (len < ETH_HLEN || len > FRAME_RING_MTU || len > PORT_MAX_FRAME) {
		ret = -EINVAL;
	} else if (!frame_is_from_port(port, shm->tx_slot)) {
		stat_inc(&port->stats.bad_src_mac);
		stat_inc(&port->stats.dropped);
		ret = -EPERM;
	} else {
		stat_inc(&port->stats.roce_tx);
		wire_frame_ring_commit(&shm->link.roce_up, len);
		link_taken(&shm->roce_ls);
	}
	shm->tx_slot = NULL;
	pthread_mutex_unlock(&shm->tx_lock);
	return ret;
}

void port_roce_tx_abort(struct emu_port *port)
{
	port->shm.tx_slot = NULL;
	pthread_mutex_unlock(&port->shm.tx_lock);
}

void port_roce_rx_ready(struct emu_port *port)
{
	uint64_t one = 1;

	/* EAGAIN: the counter is full of kicks already; one is enough. */
	if (write(port->rx_ready_fd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		abort();
}

uint32_t port_link_rate(struct emu_port *port)
{
	return port->shm.up ? wire_link_rate(&port->shm.link) : 0;
}

bool port_wire_is_shm(struct emu_port *port)
{
	return port->shm.up;
}

bool port_has_roce_lane(struct emu_port *port)
{
	return port->shm.up && port->roce_lane;
}

/*
 * The RoCE lane's consumer side, on the engine thread.  Frames the switch
 * flooded to us (another port's unicast MAC) and impossible lengths are
 * dropped here, as the port thread drops what is for neither its guest nor
 * its engine; the switch classified the rest as RoCEv2 already.
 */
const uint8_t *port_roce_peek(struct emu_port *port, size_t *len)
{
	struct frame_ring *r = &port->shm.link.roce_down;
	const uint8_t *f;

	if (!port_has_roce_lane(port))
		return NULL;
	while ((f = wire_frame_ring_peek(r, len))) {
		if (*len && frame_is_for_port(port, f)) {
			stat_inc(&port->stats.roce_rx);
			return f;
		}
		stat_inc(&port->stats.dropped);
		wire_frame_ring_pop(r);
	}
	return NULL;
}

void port_roce_pop(struct emu_port *port)
{
	wire_frame_ring_pop(&port->shm.link.roce_down);
}

bool port_roce_want(struct emu_port *port)
{
	return port_has_roce_lane(port) &&
	       wire_frame_ring_want_data(&port->shm.link.roce_down);
}

int port_roce_rx_fd(struct emu_port *port)
{
	return port_has_roce_lane(port) ? port->shm.link.roce_down.data_fd : -1;
}

void port_roce_tx_busy(struct emu_port *port, bool busy)
{
	struct port_shm *shm = &port->shm;

	if (!shm->up)
		return;
	pthread_mutex_lock(&shm->tx_lock);
	if (!shm->dead)
		wire_frame_ring_set_busy(&shm->link.roce_up, busy);
	pthread_mutex_unlock(&shm->tx_lock);
}

bool port_roce_peer_busy(struct emu_port *port)
{
	return port_has_roce_lane(port) &&
	       wire_frame_ring_producer_busy(&port->shm.link.roce_down);
}

void port_get_stats(struct emu_port *port, struct emu_port_stats *st)
{
	st->nic_to_wire = __atomic_load_n(&port->stats.nic_to_wire,
					  __ATOMIC_RELAXED);
	st->wire_to_nic = __atomic_load_n(&port->stats.wire_to_nic,
					  __ATOMIC_RELAXED);
	st->roce_rx = __atomic_load_n(&port->stats.roce_rx, __ATOMIC_RELAXED);
	st->roce_tx = __atomic_load_n(&port->stats.roce_tx, __ATOMIC_RELAXED);
	st->dropped = __atomic_load_n(&port->stats.dropped, __ATOMIC_RELAXED);
	st->bad_src_mac = __atomic_load_n(&port->stats.bad_src_mac,
					  __ATOMIC_RELAXED);
	st->to_nic_dropped = __atomic_load_n(&port->stats.to_nic_dropped,
					     __ATOMIC_RELAXED);
	st->rx_held = __atomic_load_n(&port->stats.rx_held, __ATOMIC_RELAXED);
	st->drop_to_wire = __atomic_load_n(&port->stats.drop_to_wire,
					   __ATOMIC_RELAXED);
	st->pfc_rx = __atomic_load_n(&port->stats.pfc_rx, __ATOMIC_RELAXED);
	st->mac_control_rx = __atomic_load_n(&port->stats.mac_control_rx,
					     __ATOMIC_RELAXED);
	st->roce_tx_kicks = port->shm.up ?
		__atomic_load_n(&port->shm.link.roce_up.data_kicks,
				__ATOMIC_RELAXED) : 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The adapter's Ethernet port: one thread that moves frames between the
 * guest's virtio-net backend (QEMU "-netdev dgram" over a unix socket) and
 * the wire switch, and diverts RoCEv2 frames for this port to the engine.
 *
 * Both links are AF_UNIX datagram sockets, one frame per datagram.  The
 * kernel bounds a unix datagram receive queue to a few frames
 * (net.unix.max_dgram_qlen, 10 here), so a sender must either wait for the
 * receiver or drop.  We wait, but only briefly (SEND_TIMEOUT_MS): a peer
 * that stays full (a guest whose driver is not up yet makes QEMU stop
 * reading) is then treated as stalled for STALL_MS and frames to it are
 * dropped without waiting, so one dead peer never stops the other direction.
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

#include "clock.h"
#include "port.h"
#include "roce_wire.h"

#define PORT_MAX_FRAME		9018	/* jumbo 9000 + Ethernet + VLAN tag */
#define ETH_HLEN		14
#define SEND_TIMEOUT_MS		20
#define STALL_MS		200

/* One outgoing link: the socket we send from and where to. */
struct port_link {
	int fd;
	struct sockaddr_un peer;
	socklen_t peer_len;
	bool has_peer;
	uint64_t stalled_until_ms;	/* under lock */
	pthread_mutex_t lock;		/* serialises senders' stall state */
};

struct emu_port {
	struct port_link nic;		/* fd bound to nic_path, sends to QEMU */
	struct port_link wire;		/* fd bound to wire_path, to switch */
	char *nic_path;
	char *wire_path;
	uint8_t mac[6];
	port_roce_rx_fn rx;
	void *ctx;
	int stop_fd;			/* eventfd: wakes the thread to exit */
	pthread_t thread;
	struct emu_port_stats stats;	/* updated with __atomic ops */
	uint8_t buf[PORT_MAX_FRAME + 1];
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
 * Send one frame on @link.  Returns 0 or -errno.  A full receiver gets
 * SEND_TIMEOUT_MS (the socket's SO_SNDTIMEO) to make room; after that it
 * is stalled and we do not wait for it again for STALL_MS.
 */
static int link_send(struct port_link *link, const uint8_t *f, size_t len)
{
	uint64_t now = now_ms();
	int flags = MSG_NOSIGNAL;
	ssize_t n;
	int err;

	if (!link->has_peer)
		return -ENOTCONN;
	pthread_mutex_lock(&link->lock);
	if (link->stalled_until_ms > now)
		flags |= MSG_DONTWAIT;
	n = sendto(link->fd, f, len, flags,
		   (const struct sockaddr *)&link->peer, link->peer_len);
	err = n < 0 ? errno : 0;
	if (err == EAGAIN || err == EWOULDBLOCK) {
		if (!(flags & MSG_DONTWAIT))
			link->stalled_until_ms = now_ms() + STALL_MS;
	} else if (!err) {
		link->stalled_until_ms = 0;
	}
	pthread_mutex_unlock(&link->lock);
	if (err)
		return -err;
	return (size_t)n == len ? 0 : -EMSGSIZE;
}

/*
 * Read one datagram: its length, 0 if there was none, -1 if it cannot be an
 * Ethernet frame (shorter than a header, or longer than a jumbo frame).
 */
static ssize_t read_frame(struct emu_port *port, int fd)
{
	ssize_t n = recv(fd, port->buf, sizeof(port->buf),
			 MSG_DONTWAIT | MSG_TRUNC);

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
static void forward(struct emu_port *port, struct port_link *to,
		    uint64_t *counter, size_t len)
{
	stat_inc(counter);
	if (link_send(to, port->buf, len)) {
		__atomic_fetch_sub(counter, 1, __ATOMIC_RELAXED);
		stat_inc(&port->stats.dropped);
	}
}

static void from_nic(struct emu_port *port)
{
	ssize_t n = read_frame(port, port->nic.fd);

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
	forward(port, &port->wire, &port->stats.nic_to_wire, n);
}

static void from_wire(struct emu_port *port)
{
	struct roce_frame_hdrs hdrs;
	ssize_t n = read_frame(port, port->wire.fd);

	if (n == 0)
		return;
	if (n < 0) {
		stat_inc(&port->stats.dropped);
		return;
	}
	if (frame_is_for_port(port, port->buf) &&
	    roce_classify(port->buf, n, &hdrs) == ROCE_RX_OK) {
		stat_inc(&port->stats.roce_rx);
		if (port->rx)
			port->rx(port->ctx, port->buf, n);
		return;
	}
	forward(port, &port->nic, &port->stats.wire_to_nic, n);
}

static void *port_thread(void *arg)
{
	struct emu_port *port = arg;
	struct pollfd pfd[3] = {
		{ .fd = port->nic.fd, .events = POLLIN },
		{ .fd = port->wire.fd, .events = POLLIN },
		{ .fd = port->stop_fd, .events = POLLIN },
	};

	for (;;) {
		if (poll(pfd, 3, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (pfd[2].revents)
			break;
		if (pfd[0].revents)
			from_nic(port);
		if (pfd[1].revents)
			from_wire(port);
	}
	return NULL;
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
	struct timeval tv = { .tv_usec = SEND_TIMEOUT_MS * 1000 };
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
	pthread_mutex_destroy(&port->nic.lock);
	pthread_mutex_destroy(&port->wire.lock);
	free(port->nic_path);
	free(port->wire_path);
	free(port);
	errno = err;
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
	port->nic.fd = port->wire.fd = port->stop_fd = -1;
	memcpy(port->mac, cfg->mac, sizeof(port->mac));
	port->rx = rx;
	port->ctx = ctx;
	port->nic_path = strdup(cfg->nic_path);
	port->wire_path = strdup(cfg->wire_path);
	if (!port->nic_path || !port->wire_path)
		goto fail;
	if (link_open(&port->nic, cfg->nic_path, cfg->nic_peer))
		goto fail;
	if (link_open(&port->wire, cfg->wire_path, cfg->switch_path))
		goto fail;
	port->stop_fd = eventfd(0, EFD_CLOEXEC);
	if (port->stop_fd < 0)
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
	ret = link_send(&port->wire, frame, len);
	if (ret) {
		__atomic_fetch_sub(&port->stats.roce_tx, 1, __ATOMIC_RELAXED);
		stat_inc(&port->stats.dropped);
	}
	return ret;
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
}

// SPDX-License-Identifier: GPL-2.0
/*
 * orca-wire: the virtual Ethernet wire between test guests.  A learning L2
 * switch on one unix datagram socket: every client (an adapter's port, or
 * a plain QEMU -netdev dgram) sends frames to it from its own bound socket,
 * and the sender's socket address is the switch port.  The switch learns
 * source MAC -> port, forwards known unicast to its port, and floods unknown
 * unicast, broadcast and multicast to every known port but the sender.
 *
 * An adapter's port attaches instead with a shared-memory link
 * (wire_link.h) passed over that socket: two frame rings, one copy per
 * hop, no system call per frame while both sides are busy.  A full ring
 * towards an adapter is backpressure: the frame waits in its input (a
 * ring, or the datagram socket) until there is room, and only an adapter
 * that has not drained its ring for wire_link_policy_ring_switch.wait_ms is
 * dropped to.  A frame for a datagram client (QEMU) waits the same way,
 * for wire_link_policy_qemu: the switch sends to each such client on a socket
 * of its own, connected to it, whose poll() says when the client's queue
 * has room.  A QEMU carries its guest's whole Ethernet, so what one did
 * not take is counted in two: RoCEv2 frames (send_errors, a loss of the
 * RDMA wire) and the guest's other traffic (not_roce_dropped); RoCEv2
 * frames to a QEMU that has exited (its socket is gone: the guest powered
 * off before the last ACK or CM message of a peer reached it) are a third
 * count, departed_dropped, which no guest could have missed.  The log
 * says when and for how long a client was given up on, and at exit the
 * longest any client made the switch wait.
 *
 * It can record every frame it forwards in a classic pcap file, and inject
 * faults (drop, reorder) to exercise the RoCE transport's recovery.  With
 * --faults-rc-only the faults hit only RoCEv2 packets of the reliable
 * connected transport: a test of RC recovery then keeps ARP, neighbour
 * discovery and datagrams (UD, and the CM's MADs on QP1), which no transport
 * retransmits, intact.
 *
 * With --isolate it forwards nothing from one port to another (counted as
 * isolated): guests that each run a test of their own, at the same time
 * on one wire (79-pyverbs: one on ORCA, one on rxe), cannot see each
 * other's broadcast, multicast or RoCE traffic, so one test's multicast
 * group is not the other's.
 *
 * Usage: orca-wire --socket PATH [--pcap FILE] [--pcap-snaplen N]
 *                  [--drop-pct N] [--reorder-pct N] [--faults-rc-only]
 *                  [--isolate] [--seed S] [--qemu-wait-scale N]
 *                  [--link-rate MBPS [--queue-bytes N]
 *                   [--ecn MIN,MAX,PCT [--ecn-at enqueue|dequeue]]
 *                   [--pfc CLASS[,CLASS...] [--pfc-xoff BYTES] [--pfc-storm-ms MS]]]
 *                  [--port-rate WHO=MBPS ...] [--uplink IFNAME] [--log FILE]
 *
 * --link-rate models each port's link (egress.h, issue 33): frames for a
 * port wait in its egress queues, one per traffic class (the IP DSCP's top
 * three bits) of --queue-bytes each (256 KiB by default), and leave at
 * MBPS Mb/s; --port-rate WHO=MBPS gives the port of client WHO (its
 * socket's path, as the log names ports) or the uplink ("uplink") a rate
 * of its own, which its adapter is told as the link's.  A full queue drops (a lossy class; counted per port and at
 * exit), and nothing is held back at its input: the wire is a congested
 * fabric then, not the loss-free one.  --ecn marks ECN-capable IP packets
 * Congestion Experienced when their queue holds more than MIN bytes, with
 * a probability rising to PCT% at MAX bytes, and every one above MAX;
 * by the depth a packet finds as it enters its queue, or with --ecn-at
 * dequeue by the depth it leaves behind as it goes (the mark then does
 * not wait out the queue it reports: at 200 Mb/s 64 KiB are 2.6 ms).
 * SIGUSR1 logs the egress counters so far ("stats: egress: ...") and
 * starts the deepest-queue watermark afresh.
 *
 * --pfc makes the listed classes lossless (802.1Qbb, pfc.h): a port whose
 * frames in the lossless queues exceed --pfc-xoff bytes of a class (a
 * quarter of a queue by default) is sent a PFC pause for it, refreshed
 * while it stays above half of that, and a resume below; a lossless queue
 * drops only beyond twice its size (its headroom).  Adapters' ports honour
 * the pause per priority; a QEMU's virtio-net ignores it (rxe cannot be
 * paused).  The storm watchdog flushes a lossless queue that sent nothing
 * for --pfc-storm-ms (2000 by default; 0: never) and lets it drop until it
 * sends again.  The quanta are 512 bit times at --link-rate, which each
 * adapter's port reads from its link.
 *
 * --uplink IFNAME makes a host network interface one more port (uplink.h,
 * AF_PACKET, promiscuous): what the interface receives comes in there,
 * what the switch forwards to it goes out there.  Two switches, on one
 * machine or two, join through their uplinks and whatever Ethernet lies
 * between (a veth pair and a bridge, VXLAN, a real link): the switches
 * learn the MACs behind it like any other port's.  It needs CAP_NET_RAW.
 *
 * --qemu-wait-scale multiplies wire_link_policy_qemu's wait for a QEMU whose
 * queue is full: guests that run N times slower (a debug kernel under TCG)
 * are given N times as long before the switch gives up on them.
 *
 * --pcap-snaplen keeps the first N bytes of each frame: a test that only
 * reads headers (and the start of a CM MAD) then neither writes nor parses
 * hundreds of MB of payload.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "util/clock.h"
#include "egress.h"
#include "link_policy.h"
#include "pfc.h"
#include "roce/roce.h"
#include "uplink.h"
#include "wire_link.h"

#include "switch.h"

/* Lines look like the emulators': "2026-12-04 03:40:30.361 orca-wire: text". */
void wlog(struct wire *w, const char *fmt, ...)
{
	struct timespec ts = wall_time();
	struct tm tm;
	va_list ap;

	gmtime_r(&ts.tv_sec, &tm);
	va_start(ap, fmt);
	fprintf(w->log, "%04d-%02d-%02d %02d:%02d:%02d.%03ld orca-wire: ",
		tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
		tm.tm_min, tm.tm_sec, ts.tv_nsec / 1000000);
	vfprintf(w->log, fmt, ap);
	fputc('\n', w->log);
	fflush(w->log);
	va_end(ap);
}

/* xorshift64*: reproducible fault patterns from --seed. */
static unsigned int rand_pct(struct wire *w)
{
	w->rng ^= w->rng >> 12;
	w->rng ^= w->rng << 25;
	w->rng ^= w->rng >> 27;
	return (unsigned int)((w->rng * 0x2545F4914F6CDD1DULL) >> 32) % 100;
}

/* Classic pcap: microsecond timestamps, LINKTYPE_ETHERNET. */
static int pcap_open(struct wire *w, const char *file)
{
	struct {
		uint32_t magic;
		uint16_t major, minor;
		int32_t thiszone;
		uint32_t sigfigs, snaplen, linktype;
	} hdr = { 0xa1b2c3d4, 2, 4, 0, 0, PCAP_MAX_SNAPLEN, 1 };

	if (w->snaplen)
		hdr.snaplen = w->snaplen;

	w->pcap = fopen(file, "wb");
	if (!w->pcap)
		return -1;
	if (fwrite(&hdr, sizeof(hdr), 1, w->pcap) != 1 || fflush(w->pcap))
		return -1;
	return 0;
}

/* One record per forwarded frame, flushed so readers see it at once. */
static void pcap_write(struct wire *w, const struct frame *f)
{
	struct timespec ts;
	uint32_t rec[4];
	size_t caplen = f->len;

	if (!w->pcap)
		return;
	if (w->snaplen && caplen > w->snaplen)
		caplen = w->snaplen;
	ts = wall_time();
	rec[0] = (uint32_t)ts.tv_sec;
	rec[1] = (uint32_t)(ts.tv_nsec / 1000);
	rec[2] = (uint32_t)caplen;
	rec[3] = (uint32_t)f->len;
	if (fwrite(rec, sizeof(rec), 1, w->pcap) != 1 ||
	    fwrite(f->data, 1, caplen, w->pcap) != caplen || fflush(w->pcap)) {
		wlog(w, "pcap write failed: %s; capture stopped",
		     strerror(errno));
		fclose(w->pcap);
		w->pcap = NULL;
	}
}

static const char *port_name(struct wire *w, int port)
{
	const char *name = w->ports[port].addr.sun_path;

	return name[0] ? name : name + 1;	/* the uplink's is abstract */
}

/*
 * A new port's egress: the switch's configuration, at the rate that
 * --port-rate gives @who (its socket path, or "uplink") if it does.
 */
static void port_egress_init(struct wire *w, int port, const char *who)
{
	struct wire_port *p = &w->ports[port];

	if (!w->eg_cfg.rate_mbps)
		return;
	p->eg_cfg = w->eg_cfg;
	for (int i = 0; i < w->nr_port_rates; i++)
		if (!strcmp(w->port_rate[i].who, who))
			p->eg_cfg.rate_mbps = w->port_rate[i].mbps;
	egress_init(&p->eg, &p->eg_cfg, w->rng + (uint64_t)port);
	token_bucket_init(&p->in_bucket, p->eg_cfg.rate_mbps);
	if (p->eg_cfg.rate_mbps != w->eg_cfg.rate_mbps)
		wlog(w, "port %d: link rate %u Mb/s (--port-rate)", port,
		     p->eg_cfg.rate_mbps);
}

/* The switch port of a sender address; -1 for an unbound sender. */
static int port_lookup(struct wire *w, const struct sockaddr_un *sa,
		       socklen_t len)
{
	int i, free_slot = -1;

	if (len <= offsetof(struct sockaddr_un, sun_path) || !sa->sun_path[0])
		return -1;
	for (i = 0; i < MAX_PORTS; i++) {
		if (!w->ports[i].used) {
			if (free_slot < 0)
				free_slot = i;
			continue;
		}
		if (w->ports[i].addr_len == len &&
		    !memcmp(&w->ports[i].addr, sa, len))
			return i;
	}
	if (free_slot < 0)
		return -1;
	memset(&w->ports[free_slot], 0, sizeof(w->ports[free_slot]));
	memcpy(&w->ports[free_slot].addr, sa, len);
	w->ports[free_slot].addr_len = len;
	w->ports[free_slot].tx_fd = -1;
	w->ports[free_slot].used = true;
	wlog(w, "port %d: %s", free_slot, port_name(w, free_slot));
	port_egress_init(w, free_slot, port_name(w, free_slot));
	return free_slot;
}

/* How long a datagram client that is still read made the switch wait. */
static void log_longest_wait(struct wire *w, int port)
{
	if (w->ports[port].longest_full_ms)
		wlog(w, "port %d: %s: longest wait for room %llu ms", port,
		     port_name(w, port),
		     (unsigned long long)w->ports[port].longest_full_ms);
}

/* Its egress's counters, logged and kept; what it still queued is dropped. */
static void egress_gone(struct wire *w, int port)
{
	struct egress *e = &w->ports[port].eg;
	struct egress_stats *t = &w->st.eg;

	sw_pfc_forget_queued(w, port);
	egress_fini(e);
	wlog(w, "port %d: egress: enqueued %llu sent %llu dropped %llu marked %llu not_ect %llu deepest %u",
	     port, (unsigned long long)e->st.enqueued,
	     (unsigned long long)e->st.sent,
	     (unsigned long long)e->st.dropped,
	     (unsigned long long)e->st.marked,
	     (unsigned long long)e->st.not_ect, e->st.deepest);
	if (w->pfc.lossless)
		wlog(w, "port %d: pfc: pause %llu resume %llu; lossless drops %llu, flushed by the storm watchdog %llu",
		     port, (unsigned long long)w->ports[port].pfc.xoff_tx,
		     (unsigned long long)w->ports[port].pfc.xon_tx,
		     (unsigned long long)e->st.lossless_dropped,
		     (unsigned long long)e->st.storm_dropped);
	t->enqueued += e->st.enqueued;
	t->sent += e->st.sent;
	t->dropped += e->st.dropped;
	t->lossless_dropped += e->st.lossless_dropped;
	t->storm_dropped += e->st.storm_dropped;
	t->marked += e->st.marked;
	t->not_ect += e->st.not_ect;
	for (int c = 0; c < EGRESS_CLASSES; c++)
		t->class_enqueued[c] += e->st.class_enqueued[c];
	if (e->st.deepest > t->deepest)
		t->deepest = e->st.deepest;
	memset(&e->st, 0, sizeof(e->st));
}

/*
 * SIGUSR1: the egress counters so far, all ports (those gone too), and the
 * deepest any queue got since the last SIGUSR1, which starts afresh (a
 * switch's watermark, read and cleared): what a test measures over a
 * window of a run, the exit line being the whole run's.
 */
static void log_egress_now(struct wire *w)
{
	struct egress_stats t = w->st.eg;

	t.deepest = 0;
	for (int i = 0; i < MAX_PORTS; i++) {
		struct egress_stats *s = &w->ports[i].eg.st;

		if (!w->ports[i].used)
			continue;
		t.enqueued += s->enqueued;
		t.sent += s->sent;
		t.dropped += s->dropped;
		t.marked += s->marked;
		t.not_ect += s->not_ect;
		if (s->deepest_since > t.deepest)
			t.deepest = s->deepest_since;
		s->deepest_since = 0;
	}
	wlog(w, "stats: egress: enqueued %llu sent %llu dropped %llu marked %llu not_ect %llu deepest %u",
	     (unsigned long long)t.enqueued, (unsigned long long)t.sent,
	     (unsigned long long)t.dropped, (unsigned long long)t.marked,
	     (unsigned long long)t.not_ect, t.deepest);
}

/*
 * What every port queued, by traffic class (the DSCP's top three bits:
 * an AH's traffic class, rdma_cm's TOS), the classes that saw a frame.
 */
static void log_classes(struct wire *w)
{
	char line[256];
	int n = 0;

	for (int c = 0; c < EGRESS_CLASSES; c++)
		if (w->st.eg.class_enqueued[c])
			n += snprintf(line + n, sizeof(line) - n, " %d:%llu", c,
				      (unsigned long long)w->st.eg.class_enqueued[c]);
	wlog(w, "exit: egress by class (class:frames):%s", n ? line : " none");
}

/* A port whose socket is gone: forget it and every MAC behind it. */
static void port_remove(struct wire *w, int port)
{
	int i;

	log_longest_wait(w, port);
	wlog(w, "port %d gone: %s", port, port_name(w, port));
	if (w->eg_cfg.rate_mbps) {
		egress_gone(w, port);
		sw_pfc_forget_ingress(w, port);
	}
	w->ports[port].used = false;
	if (w->ports[port].tx_fd >= 0)
		close(w->ports[port].tx_fd);
	w->ports[port].tx_fd = -1;
	if (w->ports[port].shm) {
		wire_link_close(w->ports[port].shm);
		free(w->ports[port].shm);
		w->ports[port].shm = NULL;
	}
	if (w->has_held && w->held.src_port == port)
		w->held.src_port = -1;	/* its frame stays; it has no port */
	for (i = 0; i < w->nr_macs; ) {
		if (w->macs[i].port == port)
			w->macs[i] = w->macs[--w->nr_macs];
		else
			i++;
	}
}

static struct mac_entry *mac_find(struct wire *w, const uint8_t *mac)
{
	int i;

	for (i = 0; i < w->nr_macs; i++)
		if (!memcmp(w->macs[i].mac, mac, 6))
			return &w->macs[i];
	return NULL;
}

static void mac_learn(struct wire *w, const uint8_t *mac, int port)
{
	struct mac_entry *e;

	if (port < 0 || (mac[0] & 1))	/* a group address is never a source */
		return;
	e = mac_find(w, mac);
	if (e) {
		if (e->port != port)
			wlog(w, "%02x:%02x:%02x:%02x:%02x:%02x moved to port %d",
			     mac[0], mac[1], mac[2], mac[3], mac[4], mac[5],
			     port);
		e->port = port;
		return;
	}
	if (w->nr_macs == MAX_MACS)
		return;		/* full: unknown MACs are flooded, still correct */
	e = &w->macs[w->nr_macs++];
	memcpy(e->mac, mac, 6);
	e->port = port;
	wlog(w, "learned %02x:%02x:%02x:%02x:%02x:%02x on port %d",
	     mac[0], mac[1], mac[2], mac[3], mac[4], mac[5], port);
}

/* True if @f is a RoCEv2 packet (UDP to port 4791), as a port sees one. */
static bool frame_is_roce(const struct frame *f)
{
	struct roce_frame_hdrs h;

	return roce_classify(f->data, f->len, &h) == ROCE_RX_OK;
}

/*
 * A datagram client's send socket.  Connected, unlike the switch's own,
 * so that poll() reports whether the client's queue has room and wakes
 * us when it gets some: Linux does that for a connected sender only.
 * QEMU reads its socket without looking at who sent a datagram.
 */
static int dgram_tx_fd(struct wire *w, int port)
{
	struct wire_port *p = &w->ports[port];
	int sndbuf = 1 << 20;
	int fd;

	if (p->tx_fd >= 0)
		return p->tx_fd;
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
	if (connect(fd, (struct sockaddr *)&p->addr, p->addr_len)) {
		close(fd);
		return -1;
	}
	p->tx_fd = fd;
	return fd;
}

/* True if a send to datagram client @port would not find its queue full. */
static bool dgram_has_room(struct wire *w, int port)
{
	struct pollfd pfd = { .fd = dgram_tx_fd(w, port), .events = POLLOUT };

	/* No socket, or an error: the send finds out and removes the port. */
	return pfd.fd < 0 || poll(&pfd, 1, 0) != 0;
}

/*
 * Send a copy to one datagram port (QEMU), which frame_wait() found with
 * room or stalled: a full queue now means a drop.
 */
static void send_to_dgram(struct wire *w, int port, const struct frame *f)
{
	struct wire_port *p = &w->ports[port];
	int fd = dgram_tx_fd(w, port);

	if (fd >= 0 && send(fd, f->data, f->len, MSG_DONTWAIT | MSG_NOSIGNAL) ==
	    (ssize_t)f->len) {
		if (p->ls.full_since_ms) {
			uint64_t full = now_ms() - p->ls.full_since_ms;

			if (full > p->longest_full_ms)
				p->longest_full_ms = full;
		}
		link_taken(&p->ls);
		w->st.copies_sent++;
		return;
	}
	/*
	 * A QEMU carries its guest's whole Ethernet: a lost ARP, neighbour
	 * discovery or TCP segment is recovered by the guest's IP stack and
	 * is no loss of the RDMA wire that the tests assert on.
	 */
	if (fd < 0 || errno == ECONNREFUSED || errno == ENOENT ||
	    errno == ENOTCONN) {
		/* The QEMU exited: its guest is done, nothing to lose there. */
		if (frame_is_roce(f))
			w->st.departed_dropped++;
		else
			w->st.not_roce_dropped++;
		port_remove(w, port);
		return;
	}
	if (frame_is_roce(f))
		w->st.send_errors++;
	else
		w->st.not_roce_dropped++;
}

/*
 * Send a copy to one port.  A ring port was asked first (frame_wait()):
 * it has room, or it is stalled and the copy is dropped.
 */
static struct frame_ring *out_ring(struct wire_link *l, const struct frame *f)
{
	return f->roce ? &l->roce_down : &l->down;
}

void send_copy(struct wire *w, int port, const struct frame *f)
{
	struct wire_port *p = &w->ports[port];
	struct frame_ring *r;

	if (port == w->uplink_port) {
		if (uplink_send(&w->uplink, f->data, f->len)) {
			w->st.uplink_dropped++;
			return;
		}
		w->st.uplink_tx++;
		w->st.copies_sent++;
		return;
	}
	if (!p->shm) {
		send_to_dgram(w, port, f);
		return;
	}
	r = out_ring(p->shm, f);
	if (wire_frame_ring_push(r, f->data, f->len)) {
		link_taken(&p->ls);
		w->st.copies_sent++;
		return;
	}
	w->st.stall_dropped++;
	if (r->broken)
		port_remove(w, port);
}

static void send_to_port(struct wire *w, int port, const struct frame *f)
{
	struct egress *e = &w->ports[port].eg;
	unsigned int c;
	bool lossless;

	if (!w->eg_cfg.rate_mbps) {
		send_copy(w, port, f);
		return;
	}
	/*
	 * A modelled link: into its class's queue, or dropped (counted).  A
	 * lossless class's frame counts against its ingress port's PFC
	 * account until it leaves.
	 */
	c = egress_class(f->data, f->len);
	lossless = egress_lossless(e, c) && f->src_port >= 0;
	if (egress_enqueue_from(e, f->data, f->len, f->src_port, now_ns()) &&
	    lossless)
		w->ports[f->src_port].pfc.bytes[c] += (uint32_t)f->len;
}

/* The one port @f goes to, or -1: every port but its sender. */
static int frame_dest(struct wire *w, const struct frame *f)
{
	struct mac_entry *e = NULL;

	if (!(f->data[0] & 1))
		e = mac_find(w, f->data);
	return e ? e->port : -1;
}

/*
 * How long @f must wait for room at @port: 0 if it need not (room in the
 * ring or the client's queue, or a peer stalled by the policy).
 */
static uint32_t port_wait(struct wire *w, int port, const struct frame *f,
			  uint64_t now)
{
	struct wire_port *p = &w->ports[port];
	struct frame_ring *r;
	uint32_t left;

	/* An interface's queue is the host's: never waited for. */
	if (!p->used || port == w->uplink_port)
		return 0;
	if (!p->shm) {
		uint64_t since = p->ls.full_since_ms;

		if (dgram_has_room(w, port))
			return 0;
		left = wire_link_full(&p->ls, &w->qemu_policy, now);
		p->want_out = left != 0;
		if (!left && since && p->stall_logs < STALL_LOG_LINES) {
			p->stall_logs++;
			wlog(w, "port %d: %s took no frame for %llu ms: given up on for %u ms (or until it reads)",
			     port, port_name(w, port),
			     (unsigned long long)(now - since),
			     w->qemu_policy.stall_ms);
		}
		return left;
	}
	r = out_ring(p->shm, f);
	if (wire_frame_ring_has_space(r))
		return 0;
	left = wire_link_full(&p->ls, &wire_link_policy_ring_switch, now);
	if (left && wire_frame_ring_want_space(r))
		return 0;	/* room appeared as we asked for a kick */
	return left;
}

/*
 * --pfc: 1 (ms) if @f is for a lossless queue without room for it (at
 * @dest, or any port it floods to), else 0.  It waits in its input, and
 * is offered again each round: after a drain, or the poll's millisecond.
 */
static uint32_t lossless_wait(struct wire *w, const struct frame *f,
			      int dest)
{
	unsigned int c;

	if (!w->pfc.lossless || w->isolate)
		return 0;
	c = egress_class(f->data, f->len);
	for (int i = 0; i < MAX_PORTS; i++) {
		struct egress *e = &w->ports[i].eg;

		if (!w->ports[i].used || i == f->src_port ||
		    (dest >= 0 && i != dest))
			continue;
		if (egress_lossless(e, c) && !egress_has_room(e, c, f->len))
			return 1;
	}
	return 0;
}

/*
 * Backpressure: 0 if @f can go to all its ports now, else the longest any
 * full one may still be waited for (the caller keeps the frame and polls).
 */
static uint32_t frame_wait(struct wire *w, const struct frame *f)
{
	uint64_t now = now_ms();
	int dest = frame_dest(w, f);
	uint32_t wait = 0, left;
	int i;

	/*
	 * A modelled link's queues take a frame or drop it, but a lossless
	 * class's full queue makes it wait in its input (PFC's headroom).
	 */
	if (w->eg_cfg.rate_mbps)
		return lossless_wait(w, f, dest);
	if (dest >= 0)
		return dest == f->src_port ? 0 : port_wait(w, dest, f, now);
	for (i = 0; i < MAX_PORTS; i++) {
		if (i == f->src_port)
			continue;
		left = port_wait(w, i, f, now);
		if (left > wait)
			wait = left;
	}
	return wait;
}

static void forward(struct wire *w, const struct frame *f)
{
	int dest = frame_dest(w, f);
	int i;

	if (w->isolate) {
		w->st.isolated++;
		return;
	}
	pcap_write(w, f);
	w->st.forwarded++;
	if (dest >= 0) {
		if (dest != f->src_port && w->ports[dest].used)
			send_to_port(w, dest, f);
		return;
	}
	w->st.flooded++;
	for (i = 0; i < MAX_PORTS; i++)
		if (w->ports[i].used && i != f->src_port)
			send_to_port(w, i, f);
}

/* The reordered frame goes when its ports have room; *wait if not yet. */
static void flush_held(struct wire *w, uint32_t *wait)
{
	uint32_t left;

	if (!w->has_held)
		return;
	left = frame_wait(w, &w->held);
	if (left) {
		if (left < *wait)
			*wait = left;
		return;
	}
	w->has_held = false;
	forward(w, &w->held);
}

/*
 * True if @f is a RoCEv2 packet (as the adapters' ports see it) of an RC
 * QP: its BTH opcode has the RC transport bits.
 */
static bool frame_is_roce_rc(const struct frame *f)
{
	struct roce_frame_hdrs h;
	size_t bth;

	if (roce_classify(f->data, f->len, &h) != ROCE_RX_OK)
		return false;
	bth = (size_t)h.udp_off + ROCE_UDP_HLEN;
	if (f->len < bth + ROCE_BTH_LEN)
		return false;
	return !(f->data[bth] & BTH_OPCODE_TRANSPORT);
}

/* Fault injection, then forwarding: drop, hold for reorder, or send. */
static void handle_frame(struct wire *w, const struct frame *f,
			 uint32_t *wait)
{
	if (w->faults_rc_only && !frame_is_roce_rc(f)) {
		forward(w, f);
		return;
	}
	if (w->drop_pct && rand_pct(w) < w->drop_pct) {
		w->st.fault_dropped++;
		return;
	}
	if (w->has_held) {
		forward(w, f);
		flush_held(w, wait);
		return;
	}
	if (w->reorder_pct && rand_pct(w) < w->reorder_pct) {
		memcpy(w->held_buf, f->data, f->len);
		w->held = *f;
		w->held.data = w->held_buf;
		w->has_held = true;
		w->held_since_ms = now_ms();
		w->st.fault_reordered++;
		return;
	}
	forward(w, f);
}

/*
 * Switch one frame from an input, or leave it there: false if one of its
 * ports is a full ring worth waiting for (*wait: how long at most).  It is
 * then offered again, with the same verdict on faults still to be drawn,
 * so backpressure neither drops nor reorders.
 */
static bool switch_frame(struct wire *w, const struct frame *f,
			 uint32_t *wait)
{
	static const uint8_t link_local[5] = { 0x01, 0x80, 0xc2, 0x00, 0x00 };
	uint32_t left;

	/*
	 * 01:80:C2:00:00:00-0F (802.1Q's reserved addresses: PAUSE and PFC,
	 * LACP, LLDP, STP) are for the link's other end, never forwarded:
	 * a PFC frame from a peer switch's uplink must not pause our ports'
	 * adapters.  Taken here and counted.
	 */
	if (!memcmp(f->data, link_local, 5) && f->data[5] < 0x10) {
		w->st.link_local++;
		return true;
	}
	mac_learn(w, f->data + 6, f->src_port);
	left = frame_wait(w, f);
	if (left) {
		w->st.backpressured++;
		if (left < *wait)
			*wait = left;
		return false;
	}
	handle_frame(w, f, wait);
	return true;
}

/* An adapter's attach message (its fds came with it) on the socket. */
static void attach_port(struct wire *w, const struct sockaddr_un *sa,
			socklen_t sa_len, size_t len, int *fds, int nfds)
{
	struct wire_link *l = calloc(1, sizeof(*l));
	int port = port_lookup(w, sa, sa_len);
	int err;

	if (!l || port < 0) {
		for (int i = 0; i < nfds; i++)
			close(fds[i]);
		free(l);
		wlog(w, "attach from %s refused: %s", sa->sun_path,
		     l ? "no free port" : "out of memory");
		return;
	}
	/* Its link's rate, its own if --port-rate set one. */
	err = wire_link_accept(l, w->dgram_buf, len, fds, nfds, false,
			       w->ports[port].eg_cfg.rate_mbps);
	if (err) {
		free(l);
		wlog(w, "attach from %s refused: %s", sa->sun_path,
		     strerror(-err));
		return;
	}
	if (w->ports[port].shm) {
		/* The same client again: its old link is dead. */
		port_remove(w, port);
		port = port_lookup(w, sa, sa_len);
	}
	w->ports[port].shm = l;
	w->ports[port].hung_up = false;
	w->ports[port].in_blocked[0] = false;
	w->ports[port].in_blocked[1] = false;
	link_taken(&w->ports[port].ls);
	wlog(w, "port %d: shared-memory link", port);
}

/* Datagrams until one has to wait for room (dgram_pending) or none left. */
static void receive_dgrams(struct wire *w, uint32_t *wait)
{
	struct frame *f = &w->dgram_in;
	int n;

	for (n = 0; n < DGRAM_BATCH && !w->dgram_pending; n++) {
		struct sockaddr_un sa;
		socklen_t sa_len = sizeof(sa);
		int fds[WIRE_LINK_NR_FDS], nfds;
		ssize_t len;

		memset(&sa, 0, sizeof(sa));
		len = wire_link_recv(w->fd, w->dgram_buf, sizeof(w->dgram_buf),
				     &sa, &sa_len, fds, &nfds);
		if (len < 0)
			return;
		if (nfds) {
			attach_port(w, &sa, sa_len, len, fds, nfds);
			continue;
		}
		w->st.received++;
		if (len < 14 || len > MAX_FRAME) {
			w->st.invalid++;
			continue;
		}
		f->data = w->dgram_buf;
		f->len = len;
		f->src_port = port_lookup(w, &sa, sa_len);
		f->roce = frame_is_roce(f);
		if (!switch_frame(w, f, wait))
			w->dgram_pending = true;
	}
}

/*
 * --uplink: the interface's frames until one has to wait for room
 * (uplink_pending, offered again first) or none is left.
 */
static void receive_uplink(struct wire *w, uint32_t *wait)
{
	struct frame *f = &w->uplink_in;

	if (w->uplink_port < 0)
		return;
	if (w->uplink_pending) {
		if (!switch_frame(w, f, wait))
			return;
		w->uplink_pending = false;
	}
	for (int n = 0; n < DGRAM_BATCH; n++) {
		ssize_t len = uplink_recv(&w->uplink, w->uplink_buf,
					  sizeof(w->uplink_buf));

		if (!len)
			return;
		w->st.received++;
		w->st.uplink_rx++;
		if (len < 0) {
			w->st.invalid++;
			continue;
		}
		f->data = w->uplink_buf;
		f->len = (size_t)len;
		f->src_port = w->uplink_port;
		f->roce = frame_is_roce(f);
		if (!switch_frame(w, f, wait)) {
			w->uplink_pending = true;
			return;
		}
	}
}

/* An adapter's input ring @lane: 0 its port's (up), 1 its engine's. */
static struct frame_ring *in_ring(struct wire_link *l, int lane)
{
	return lane ? &l->roce_up : &l->up;
}

/*
 * Frames from one of an adapter's input rings, switched in place.  Returns
 * true if it has more ready (the loop polls without sleeping).  Frames are
 * classified whichever ring they came in: a guest's virtio-net may send
 * RoCEv2 (rxe over it), and the engine's ring is checked, not trusted.
 */
/*
 * --link-rate: whether an adapter's next frame of @len bytes has arrived
 * over its link by now; if not, w->in_wait_ns says when it will have.
 */
static bool input_due(struct wire *w, struct wire_port *p, size_t len)
{
	uint32_t rate = p->eg_cfg.rate_mbps;
	uint64_t wait;

	if (!rate)
		return true;
	token_bucket_refill(&p->in_bucket, rate, now_ns());
	wait = token_bucket_wait(&p->in_bucket, rate, len);
	if (!wait)
		return true;
	if (!w->in_wait_ns || wait < w->in_wait_ns)
		w->in_wait_ns = wait;
	return false;
}

static bool receive_ring(struct wire *w, int port, int lane, uint32_t *wait)
{
	struct wire_port *p = &w->ports[port];
	struct frame f = { .src_port = port };
	int n;

	p->in_blocked[lane] = false;
	for (n = 0; n < RING_BATCH; n++) {
		f.data = wire_frame_ring_peek(in_ring(p->shm, lane), &f.len);
		if (!f.data)
			return false;
		if (!input_due(w, p, f.len)) {
			p->in_blocked[lane] = true;	/* a timed wait */
			return false;
		}
		if (!f.len) {
			w->st.received++;
			w->st.invalid++;
		} else {
			f.roce = frame_is_roce(&f);
			if (!switch_frame(w, &f, wait)) {
				p->in_blocked[lane] = true;
				return false;
			}
			w->st.received++;
		}
		/* forward() may have removed this very port. */
		if (!p->shm)
			return false;
		if (p->eg_cfg.rate_mbps)
			token_bucket_take(&p->in_bucket, f.len);
		wire_frame_ring_pop(in_ring(p->shm, lane));
	}
	return true;
}

/*
 * --link-rate: each port's queued frames leave at its rate, while its ring
 * (or its QEMU's queue) has room; a full one is asked for a kick (or
 * polled for room) and the frames wait in their queues, which then fill
 * and drop.  w->eg_wait_ns: when the next one's tokens are there.
 */
static bool egress_drain(struct wire *w)
{
	uint64_t now = now_ns();
	bool sent = false;

	w->eg_wait_ns = 0;
	for (int i = 0; i < MAX_PORTS; i++) {
		struct wire_port *p = &w->ports[i];
		const struct egress_frame *ef;
		uint64_t wait = 0;

		while (p->used && p->eg.queued &&
		       (ef = egress_peek(&p->eg, now, &wait))) {
			struct frame f = { .data = ef->data, .len = ef->len,
					   .src_port = -1 };

			f.roce = frame_is_roce(&f);
			if (p->shm) {
				struct frame_ring *r = out_ring(p->shm, &f);

				if (!wire_frame_ring_has_space(r) &&
				    !wire_frame_ring_want_space(r))
					break;
			} else if (i != w->uplink_port &&
				   !dgram_has_room(w, i)) {
				p->want_out = true;
				break;
			}
			send_copy(w, i, &f);
			sw_pfc_unaccount(w, ef);
			egress_pop(&p->eg);
			sent = true;
		}
		if (wait && (!w->eg_wait_ns || wait < w->eg_wait_ns))
			w->eg_wait_ns = wait;
	}
	return sent;
}

/*
 * One round over every input.  Returns true if an input has more ready;
 * *wait is how long a waiting frame may still wait (UINT32_MAX: none).
 */
static bool switch_round(struct wire *w, uint32_t *wait)
{
	bool busy = false;
	int i;

	w->in_wait_ns = 0;
	for (i = 0; i < MAX_PORTS; i++)
		w->ports[i].want_out = false;
	if (w->has_held) {
		if (now_ms() - w->held_since_ms >= HOLD_MS)
			flush_held(w, wait);
		else if (HOLD_MS - (now_ms() - w->held_since_ms) < *wait)
			*wait = (uint32_t)(HOLD_MS - (now_ms() - w->held_since_ms));
	}
	if (w->dgram_pending && switch_frame(w, &w->dgram_in, wait))
		w->dgram_pending = false;
	receive_uplink(w, wait);
	/*
	 * Each round starts at the next port: when a full lossless queue
	 * takes a few frames a round, every input gets its turn at them.
	 */
	for (int n = 1; n <= MAX_PORTS; n++) {
		i = (w->first_port + n) % MAX_PORTS;
		if (w->ports[i].used) {
			w->first_port = i;
			break;
		}
	}
	for (int n = 0; n < MAX_PORTS; n++) {
		struct wire_port *p = &w->ports[(w->first_port + n) % MAX_PORTS];

		i = (w->first_port + n) % MAX_PORTS;
		if (!p->used || !p->shm)
			continue;
		if (p->shm->up.broken || p->shm->roce_up.broken ||
		    p->hung_up) {
			port_remove(w, i);
			continue;
		}
		for (int lane = 0; lane < 2 && p->shm; lane++)
			if (receive_ring(w, i, lane, wait))
				busy = true;
	}
	/*
	 * Last, so that what this round queued leaves now or sets the wait
	 * the loop sleeps for: drained first, a frame queued behind an empty
	 * queue waited for the next frame in, however late that came.
	 */
	if (w->eg_cfg.rate_mbps && egress_drain(w))
		busy = true;
	/* The loop also wakes for the first input whose link delivers. */
	if (w->in_wait_ns && (!w->eg_wait_ns || w->in_wait_ns < w->eg_wait_ns))
		w->eg_wait_ns = w->in_wait_ns;
	if (w->pfc.lossless)
		sw_pfc_round(w);
	return busy;
}

/*
 * Before sleeping: every idle ring is asked for a kick when a frame comes.
 * Returns true if one came meanwhile.  Inputs that wait for room are woken
 * by the space eventfd of the ring they wait for, which is always polled.
 */
static bool want_data(struct wire *w)
{
	bool busy = false;
	int i;

	for (i = 0; i < MAX_PORTS; i++) {
		struct wire_port *p = &w->ports[i];

		if (!p->used || !p->shm)
			continue;
		for (int lane = 0; lane < 2; lane++)
			if (!p->in_blocked[lane] &&
			    wire_frame_ring_want_data(in_ring(p->shm, lane)))
				busy = true;
	}
	return busy;
}

/*
 * The poll set: [0] signals, [1] the socket, then RING_PFDS per ring port
 * (its index in @ports): control socket, up data, down space, roce_up
 * data, roce_down space; *nr_ring is where they end.  Then the send
 * sockets of datagram clients a frame waits for.
 */
static int build_pollfds(struct wire *w, struct pollfd *pfd, int *ports,
			 int sfd, int *nr_ring)
{
	int i, n = 2;

	pfd[0] = (struct pollfd){ .fd = sfd, .events = POLLIN };
	/* A frame waiting for room holds the socket back: backpressure. */
	pfd[1] = (struct pollfd){ .fd = w->dgram_pending ? -1 : w->fd,
				  .events = POLLIN };
	for (i = 0; i < MAX_PORTS; i++) {
		struct wire_link *l = w->ports[i].shm;

		if (!w->ports[i].used || !l)
			continue;
		ports[(n - 2) / RING_PFDS] = i;
		pfd[n++] = (struct pollfd){ .fd = l->ctl, .events = POLLIN };
		pfd[n++] = (struct pollfd){ .fd = l->up.data_fd,
					    .events = POLLIN };
		pfd[n++] = (struct pollfd){ .fd = l->down.space_fd,
					    .events = POLLIN };
		pfd[n++] = (struct pollfd){ .fd = l->roce_up.data_fd,
					    .events = POLLIN };
		pfd[n++] = (struct pollfd){ .fd = l->roce_down.space_fd,
					    .events = POLLIN };
	}
	*nr_ring = n;
	for (i = 0; i < MAX_PORTS; i++)
		if (w->ports[i].used && w->ports[i].want_out)
			pfd[n++] = (struct pollfd){ .fd = w->ports[i].tx_fd,
						    .events = POLLOUT };
	/* The uplink's frames are read each round (switch_round()). */
	if (w->uplink_port >= 0 && !w->uplink_pending)
		pfd[n++] = (struct pollfd){ .fd = w->uplink.fd,
					    .events = POLLIN };
	return n;
}

/*
 * Reset the eventfds that fired; note hang-ups for switch_round().  Only
 * the attach answer is ever sent on a control socket: readable means gone.
 */
static void clear_pollfds(struct wire *w, struct pollfd *pfd, int n,
			  const int *ports)
{
	for (int i = 2; i < n; i++) {
		if (!pfd[i].revents)
			continue;
		if ((i - 2) % RING_PFDS)
			wire_frame_ring_clear_fd(pfd[i].fd);
		else
			w->ports[ports[(i - 2) / RING_PFDS]].hung_up = true;
	}
}

/*
 * poll() for at most @timeout_ms (-1: no limit), or @ns if that is sooner
 * and not 0: a modelled link's next frame is due in microseconds.
 */
static int poll_until(struct pollfd *pfd, int n, int timeout_ms, uint64_t ns)
{
	struct timespec ts;

	if (!ns || (timeout_ms >= 0 && (uint64_t)timeout_ms * 1000000 <= ns))
		return poll(pfd, n, timeout_ms);
	ts.tv_sec = ns / 1000000000;
	ts.tv_nsec = ns % 1000000000;
	return ppoll(pfd, n, &ts, NULL);
}

/*
 * --uplink IFNAME: the interface is a port of its own, whose address no
 * client can have (an abstract name: port_lookup() takes bound senders
 * only).  0, or 1 with the reason logged.
 */
static int uplink_attach(struct wire *w, const char *ifname)
{
	struct wire_port *p;
	int err = uplink_open(&w->uplink, ifname);
	int i;

	if (err) {
		wlog(w, "uplink %s: %s", ifname, strerror(-err));
		return 1;
	}
	for (i = 0; i < MAX_PORTS && w->ports[i].used; i++)
		;
	p = &w->ports[i];
	memset(p, 0, sizeof(*p));
	p->addr.sun_family = AF_UNIX;
	snprintf(p->addr.sun_path + 1, sizeof(p->addr.sun_path) - 1,
		 "uplink %s", ifname);
	p->addr_len = sizeof(p->addr);
	p->tx_fd = -1;
	p->used = true;
	port_egress_init(w, i, "uplink");
	w->uplink_port = i;
	wlog(w, "port %d: uplink on %s (ifindex %d)", i, ifname,
	     w->uplink.ifindex);
	return 0;
}

/* The switch's socket only receives: it sends on ports' own sockets. */
static int open_socket(struct wire *w)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct stat st;

	if (strlen(w->path) >= sizeof(sa.sun_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(sa.sun_path, w->path, strlen(w->path) + 1);
	w->fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (w->fd < 0)
		return -1;
	if (lstat(w->path, &st) == 0 && S_ISSOCK(st.st_mode))
		unlink(w->path);	/* stale, from a killed run */
	return bind(w->fd, (struct sockaddr *)&sa, sizeof(sa));
}

/*
 * Read the signal @sfd has: true if it was SIGUSR1 (the counters are
 * logged, the loop goes on), false for any other (the switch exits).
 */
static bool took_usr1(struct wire *w, int sfd)
{
	struct signalfd_siginfo si;

	if (read(sfd, &si, sizeof(si)) != sizeof(si) ||
	    si.ssi_signo != SIGUSR1)
		return false;
	if (w->eg_cfg.rate_mbps)
		log_egress_now(w);
	return true;
}

int main(int argc, char **argv)
{
	static struct wire wire;
	static struct pollfd pfd[2 + (RING_PFDS + 1) * MAX_PORTS + 1];
	static int pfd_port[MAX_PORTS];
	struct wire *w = &wire;
	const char *pcap = NULL, *logfile = NULL, *uplink = NULL;
	sigset_t sigs;
	int sfd, i;

	w->log = stderr;
	w->uplink_port = -1;
	w->uplink.fd = -1;
	parse_args(w, argc, argv, &pcap, &logfile, &uplink);
	if (logfile) {
		w->log = fopen(logfile, "a");
		if (!w->log) {
			perror(logfile);
			return 1;
		}
	}
	/* Signals arrive as readable data: no handler races with the loop. */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGHUP);
	sigaddset(&sigs, SIGUSR1);
	sigprocmask(SIG_BLOCK, &sigs, NULL);
	sfd = signalfd(-1, &sigs, SFD_CLOEXEC);
	if (sfd < 0 || open_socket(w)) {
		wlog(w, "%s: %s", w->path, strerror(errno));
		return 1;
	}
	if (pcap && pcap_open(w, pcap)) {
		wlog(w, "%s: %s", pcap, strerror(errno));
		unlink(w->path);
		return 1;
	}
	if (uplink && uplink_attach(w, uplink)) {
		unlink(w->path);
		return 1;
	}
	wlog(w, "listening on %s (drop %u%%, reorder %u%%%s; a full QEMU is waited for %u ms)",
	     w->path, w->drop_pct, w->reorder_pct,
	     w->faults_rc_only ? ", RoCE RC packets only" : "",
	     w->qemu_policy.wait_ms);

	/*
	 * While any input has frames the loop only glances at its file
	 * descriptors (poll with no timeout) once a round; it sleeps when all
	 * rings are empty, or full towards where their frames go.
	 */
	for (;;) {
		uint32_t wait = UINT32_MAX;
		bool busy = switch_round(w, &wait);
		int n, nr_ring, timeout;

		if (!busy)
			busy = want_data(w);
		n = build_pollfds(w, pfd, pfd_port, sfd, &nr_ring);
		timeout = busy ? 0 : wait == UINT32_MAX ? -1 : (int)wait;
		if (poll_until(pfd, n, timeout, w->eg_wait_ns) < 0 &&
		    errno != EINTR)
			break;
		if (pfd[0].revents && !took_usr1(w, sfd))
			break;
		clear_pollfds(w, pfd, nr_ring, pfd_port);
		if (pfd[1].revents)
			receive_dgrams(w, &wait);
	}

	for (i = 0; i < MAX_PORTS; i++) {
		if (w->ports[i].used && w->eg_cfg.rate_mbps)
			egress_gone(w, i);
		if (w->ports[i].used)
			log_longest_wait(w, i);
		if (w->ports[i].shm) {
			wire_link_close(w->ports[i].shm);
			free(w->ports[i].shm);
		}
		if (w->ports[i].used && w->ports[i].tx_fd >= 0)
			close(w->ports[i].tx_fd);
	}
	close(w->fd);
	unlink(w->path);
	if (w->pcap)
		fclose(w->pcap);
	wlog(w, "exit: received %llu forwarded %llu flooded %llu copies %llu send_errors %llu stall_dropped %llu backpressured %llu invalid %llu fault_dropped %llu fault_reordered %llu held_unsent %d not_roce_dropped %llu departed_dropped %llu isolated %llu link_local %llu",
	     (unsigned long long)w->st.received,
	     (unsigned long long)w->st.forwarded,
	     (unsigned long long)w->st.flooded,
	     (unsigned long long)w->st.copies_sent,
	     (unsigned long long)w->st.send_errors,
	     (unsigned long long)w->st.stall_dropped,
	     (unsigned long long)w->st.backpressured,
	     (unsigned long long)w->st.invalid,
	     (unsigned long long)w->st.fault_dropped,
	     (unsigned long long)w->st.fault_reordered, w->has_held,
	     (unsigned long long)w->st.not_roce_dropped,
	     (unsigned long long)w->st.departed_dropped,
	     (unsigned long long)w->st.isolated,
	     (unsigned long long)w->st.link_local);
	if (w->eg_cfg.rate_mbps)
		wlog(w, "exit: egress at %u Mb/s, queues of %u bytes: enqueued %llu sent %llu dropped %llu marked %llu not_ect %llu deepest %u",
		     w->eg_cfg.rate_mbps, w->eg_cfg.queue_bytes,
		     (unsigned long long)w->st.eg.enqueued,
		     (unsigned long long)w->st.eg.sent,
		     (unsigned long long)w->st.eg.dropped,
		     (unsigned long long)w->st.eg.marked,
		     (unsigned long long)w->st.eg.not_ect, w->st.eg.deepest);
	if (w->eg_cfg.rate_mbps)
		log_classes(w);
	if (w->uplink_port >= 0) {
		wlog(w, "exit: uplink %s: rx %llu tx %llu uplink_dropped %llu uplink_rx_dropped %llu",
		     w->uplink.name, (unsigned long long)w->st.uplink_rx,
		     (unsigned long long)w->st.uplink_tx,
		     (unsigned long long)w->st.uplink_dropped,
		     (unsigned long long)uplink_rx_dropped(&w->uplink));
		uplink_close(&w->uplink);
	}
	if (w->pfc.lossless)
		wlog(w, "exit: pfc: lossless classes 0x%02x, xoff %u xon %u bytes, watchdog %u ms: frames %llu pause %llu resume %llu storms %llu; lossless drops %llu, flushed %llu",
		     w->pfc.lossless, w->pfc.xoff, w->pfc.xon, w->pfc.storm_ms,
		     (unsigned long long)w->st.pfc_frames,
		     (unsigned long long)w->st.pfc_xoff,
		     (unsigned long long)w->st.pfc_xon,
		     (unsigned long long)w->st.pfc_storms,
		     (unsigned long long)w->st.eg.lossless_dropped,
		     (unsigned long long)w->st.eg.storm_dropped);
	return 0;
}

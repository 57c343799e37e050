// SPDX-License-Identifier: GPL-2.0
/*
 * orca-wire: the virtual Ethernet wire between test guests.  A learning L2
 * switch on one unix datagram socket: every client (an adapter's port, or
 * a plain QEMU -netdev dgram) sends frames to it from its own bound socket,
 * and the sender's socket address is the switch port.  The switch learns
 * source MAC -> port, forwards known unicast to its port, and floods unknown
 * unicast, broadcast and multicast to every known port but the sender.
 *
 * It can record every frame it forwards in a classic pcap file, and inject
 * faults (drop, reorder) to exercise the RoCE transport's recovery.  With
 * --faults-rc-only the faults hit only RoCEv2 packets of the reliable
 * connected transport: a test of RC recovery then keeps ARP, neighbour
 * discovery and datagrams (UD, and the CM's MADs on QP1), which no transport
 * retransmits, intact.
 *
 * Usage: orca-wire --socket PATH [--pcap FILE] [--pcap-snaplen N]
 *                  [--drop-pct N] [--reorder-pct N] [--faults-rc-only]
 *                  [--seed S] [--log FILE]
 *
 * --pcap-snaplen keeps the first N bytes of each frame: a test that only
 * reads headers (and the start of a CM MAD) then neither writes nor parses
 * hundreds of MB of payload.
 */
#include <errno.h>
#include <getopt.h>
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
#include <sys/time.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "roce_wire.h"

#define MAX_FRAME		9018
#define PCAP_MAX_SNAPLEN	65535
#define MAX_PORTS		64
#define MAX_MACS		1024
#define SEND_TIMEOUT_MS		10	/* wait this long for a full port */
#define STALL_MS		200	/* then do not wait for it again */
#define HOLD_MS			100	/* a reordered frame waits at most */
#define BTH_OPCODE_TRANSPORT	0xe0	/* top three bits: RC is 000 */

struct wire_port {
	struct sockaddr_un addr;
	socklen_t addr_len;
	uint64_t stalled_until_ms;
	bool used;
};

struct mac_entry {
	uint8_t mac[6];
	int port;
};

struct frame {
	uint8_t data[MAX_FRAME];
	size_t len;
	int src_port;
};

struct wire_stats {
	uint64_t received;
	uint64_t forwarded;
	uint64_t flooded;
	uint64_t copies_sent;
	uint64_t send_errors;
	uint64_t invalid;
	uint64_t fault_dropped;
	uint64_t fault_reordered;
};

struct wire {
	int fd;
	const char *path;
	FILE *pcap;
	uint32_t snaplen;
	FILE *log;
	unsigned int drop_pct;
	unsigned int reorder_pct;
	bool faults_rc_only;
	uint64_t rng;
	struct wire_port ports[MAX_PORTS];
	struct mac_entry macs[MAX_MACS];
	int nr_macs;
	struct frame held;
	bool has_held;
	uint64_t held_since_ms;
	struct wire_stats st;
};

static void wlog(struct wire *w, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(w->log, "orca-wire: ");
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
	return w->ports[port].addr.sun_path;
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
	w->ports[free_slot].used = true;
	wlog(w, "port %d: %s", free_slot, port_name(w, free_slot));
	return free_slot;
}

/* A port whose socket is gone: forget it and every MAC behind it. */
static void port_remove(struct wire *w, int port)
{
	int i;

	wlog(w, "port %d gone: %s", port, port_name(w, port));
	w->ports[port].used = false;
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

/*
 * Send a copy to one port.  A port that stays full for SEND_TIMEOUT_MS
 * (its reader is slow or stopped) is not waited for again during STALL_MS:
 * one stuck guest must not slow the whole wire down.
 */
static void send_to_port(struct wire *w, int port, const struct frame *f)
{
	struct wire_port *p = &w->ports[port];
	int flags = MSG_NOSIGNAL;
	uint64_t now = now_ms();

	if (p->stalled_until_ms > now)
		flags |= MSG_DONTWAIT;
	if (sendto(w->fd, f->data, f->len, flags,
		   (struct sockaddr *)&p->addr, p->addr_len) == (ssize_t)f->len) {
		p->stalled_until_ms = 0;
		w->st.copies_sent++;
		return;
	}
	w->st.send_errors++;
	if (errno == ECONNREFUSED || errno == ENOENT)
		port_remove(w, port);
	else if ((errno == EAGAIN || errno == EWOULDBLOCK) &&
		 !(flags & MSG_DONTWAIT))
		p->stalled_until_ms = now_ms() + STALL_MS;
}

static void forward(struct wire *w, const struct frame *f)
{
	const uint8_t *dst = f->data;
	struct mac_entry *e = NULL;
	int i;

	if (!(dst[0] & 1))
		e = mac_find(w, dst);
	pcap_write(w, f);
	w->st.forwarded++;
	if (e) {
		if (e->port != f->src_port && w->ports[e->port].used)
			send_to_port(w, e->port, f);
		return;
	}
	w->st.flooded++;
	for (i = 0; i < MAX_PORTS; i++)
		if (w->ports[i].used && i != f->src_port)
			send_to_port(w, i, f);
}

static void flush_held(struct wire *w)
{
	if (!w->has_held)
		return;
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
static void handle_frame(struct wire *w, struct frame *f)
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
		flush_held(w);
		return;
	}
	if (w->reorder_pct && rand_pct(w) < w->reorder_pct) {
		w->held = *f;
		w->has_held = true;
		w->held_since_ms = now_ms();
		w->st.fault_reordered++;
		return;
	}
	forward(w, f);
}

static void receive_one(struct wire *w, struct frame *f)
{
	struct sockaddr_un sa;
	socklen_t sa_len = sizeof(sa);
	ssize_t n;

	memset(&sa, 0, sizeof(sa));
	n = recvfrom(w->fd, f->data, sizeof(f->data), MSG_DONTWAIT | MSG_TRUNC,
		     (struct sockaddr *)&sa, &sa_len);
	if (n < 0)
		return;
	w->st.received++;
	if (n < 14 || n > MAX_FRAME) {
		w->st.invalid++;
		return;
	}
	f->len = n;
	f->src_port = port_lookup(w, &sa, sa_len);
	mac_learn(w, f->data + 6, f->src_port);
	handle_frame(w, f);
}

static int open_socket(struct wire *w)
{
	struct timeval tv = { .tv_usec = SEND_TIMEOUT_MS * 1000 };
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int sndbuf = 1 << 20;
	struct stat st;

	if (strlen(w->path) >= sizeof(sa.sun_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(sa.sun_path, w->path, strlen(w->path) + 1);
	w->fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (w->fd < 0)
		return -1;
	setsockopt(w->fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	setsockopt(w->fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
	if (lstat(w->path, &st) == 0 && S_ISSOCK(st.st_mode))
		unlink(w->path);	/* stale, from a killed run */
	return bind(w->fd, (struct sockaddr *)&sa, sizeof(sa));
}

static void usage(void)
{
	fprintf(stderr,
		"usage: orca-wire --socket PATH [--pcap FILE] [--pcap-snaplen N]\n"
		"                 [--drop-pct N] [--reorder-pct N] [--faults-rc-only]\n"
		"                 [--seed S] [--log FILE]\n");
	exit(2);
}

static unsigned int parse_pct(const char *s)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);

	if (!*s || *end || v > 100)
		usage();
	return (unsigned int)v;
}

/* At least an Ethernet header, at most what the pcap header can say. */
static uint32_t parse_snaplen(const char *s)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);

	if (!*s || *end || v < 14 || v > PCAP_MAX_SNAPLEN)
		usage();
	return (uint32_t)v;
}

static void parse_args(struct wire *w, int argc, char **argv,
		       const char **pcap, const char **logfile)
{
	static const struct option opts[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "pcap", required_argument, NULL, 'p' },
		{ "pcap-snaplen", required_argument, NULL, 'n' },
		{ "drop-pct", required_argument, NULL, 'd' },
		{ "reorder-pct", required_argument, NULL, 'r' },
		{ "faults-rc-only", no_argument, NULL, 'R' },
		{ "seed", required_argument, NULL, 'S' },
		{ "log", required_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	int c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			w->path = optarg;
			break;
		case 'p':
			*pcap = optarg;
			break;
		case 'n':
			w->snaplen = parse_snaplen(optarg);
			break;
		case 'd':
			w->drop_pct = parse_pct(optarg);
			break;
		case 'r':
			w->reorder_pct = parse_pct(optarg);
			break;
		case 'R':
			w->faults_rc_only = true;
			break;
		case 'S':
			w->rng = strtoull(optarg, NULL, 0);
			break;
		case 'l':
			*logfile = optarg;
			break;
		default:
			usage();
		}
	}
	if (!w->path || optind != argc)
		usage();
	if (!w->rng)
		w->rng = 0x9e3779b97f4a7c15ULL;	/* xorshift needs non-zero */
}

int main(int argc, char **argv)
{
	static struct wire wire;
	static struct frame frame;
	struct wire *w = &wire;
	const char *pcap = NULL, *logfile = NULL;
	struct pollfd pfd[2];
	sigset_t sigs;
	int sfd;

	w->log = stderr;
	parse_args(w, argc, argv, &pcap, &logfile);
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
	wlog(w, "listening on %s (drop %u%%, reorder %u%%%s)", w->path,
	     w->drop_pct, w->reorder_pct,
	     w->faults_rc_only ? ", RoCE RC packets only" : "");

	pfd[0] = (struct pollfd){ .fd = w->fd, .events = POLLIN };
	pfd[1] = (struct pollfd){ .fd = sfd, .events = POLLIN };
	for (;;) {
		int timeout = -1;

		/* Only a held frame needs a timer: it must not wait forever. */
		if (w->has_held) {
			uint64_t age = now_ms() - w->held_since_ms;

			if (age >= HOLD_MS) {
				flush_held(w);
				continue;
			}
			timeout = (int)(HOLD_MS - age);
		}
		if (poll(pfd, 2, timeout) < 0 && errno != EINTR)
			break;
		if (pfd[1].revents)
			break;
		if (pfd[0].revents)
			receive_one(w, &frame);
	}

	close(w->fd);
	unlink(w->path);
	if (w->pcap)
		fclose(w->pcap);
	wlog(w, "exit: received %llu forwarded %llu flooded %llu copies %llu send_errors %llu invalid %llu fault_dropped %llu fault_reordered %llu held_unsent %d",
	     (unsigned long long)w->st.received,
	     (unsigned long long)w->st.forwarded,
	     (unsigned long long)w->st.flooded,
	     (unsigned long long)w->st.copies_sent,
	     (unsigned long long)w->st.send_errors,
	     (unsigned long long)w->st.invalid,
	     (unsigned long long)w->st.fault_dropped,
	     (unsigned long long)w->st.fault_reordered, w->has_held);
	return 0;
}

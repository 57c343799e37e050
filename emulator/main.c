// SPDX-License-Identifier: GPL-2.0
/*
 * orca-emu: one ORCA adapter as a vfio-user server process.
 *
 * Wires the pieces together: command line, log, the adapter (engine + PCI
 * function + DMA + MSI-X, vfio_user.c), the Ethernet port (port.c), and the
 * control file that injects faults.  The main thread is the vfio-user
 * socket thread; it also watches the control file and the termination
 * signals, all through one poll() so it never spins.  The engine and the
 * port run their own threads.
 *
 * Exit status: 0 when the client disconnects or on SIGTERM/SIGINT, 1 on a
 * setup failure or a client that broke the protocol.
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/inotify.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "orca_hw.h"

#include "engine/engine.h"
#include "roce/roce.h"
#include "util/log.h"
#include "port/port.h"
#include "vfio/vfio_user.h"

struct emu_opts {
	const char *socket_path;
	const char *nic_path;
	const char *nic_peer;
	const char *wire_path;
	const char *switch_path;
	const char *peer_path;
	const char *ctl_path;
	const char *log_path;
	uint8_t mac[6];
	bool mac_set;
	unsigned int num_msix;
	bool ecn;
};

/* The control file: new lines appended to it are fault injections. */
struct emu_ctl {
	int fd;			/* the file, read from @off */
	int ino;		/* inotify instance, -1 if not watching */
	off_t off;		/* first byte not yet consumed */
};

static atomic_ulong roce_rx_frames;

/*
 * RDMA transport hooks: RoCEv2 frames the port received for us go to the
 * engine's transport (queued for its thread); frames it sends go out
 * through the port.  Both ways push back instead of dropping (engine.h).
 */
static bool emu_roce_rx_hook(void *ctx, const uint8_t *frame, size_t len)
{
	struct vfu_device *dev = ctx;

	if (!engine_roce_rx_try(dev->eng, frame, len))
		return false;
	atomic_fetch_add(&roce_rx_frames, 1);
	return true;
}

static void emu_roce_tx_ready(void *ctx)
{
	struct vfu_device *dev = ctx;

	engine_roce_tx_ready(dev->eng);
}

/* The link's switch paused or resumed priorities (PFC, 802.1Qbb). */
static void emu_pfc_pause(void *ctx, uint8_t enable, const uint64_t *pause_ns)
{
	struct vfu_device *dev = ctx;

	engine_pfc_pause(dev->eng, enable, pause_ns);
}

static int emu_roce_tx(void *ctx, const uint8_t *frame, size_t len)
{
	return port_send_roce_nowait(ctx, frame, len);
}

/* A frame built in the port's ring itself: one copy fewer. */
static uint8_t *emu_roce_tx_slot(void *ctx, size_t *cap)
{
	return port_roce_tx_slot(ctx, cap);
}

static int emu_roce_tx_commit(void *ctx, size_t len)
{
	return port_roce_tx_commit(ctx, len);
}

static void emu_roce_tx_abort(void *ctx)
{
	port_roce_tx_abort(ctx);
}

static void emu_roce_rx_ready(void *ctx)
{
	port_roce_rx_ready(ctx);
}

/* The RoCE lane: the engine reads the port's ring from the switch. */
static const uint8_t *emu_roce_peek(void *ctx, size_t *len)
{
	return port_roce_peek(ctx, len);
}

static void emu_roce_pop(void *ctx)
{
	port_roce_pop(ctx);
}

static bool emu_roce_want(void *ctx)
{
	return port_roce_want(ctx);
}

static void emu_roce_tx_busy(void *ctx, bool busy)
{
	port_roce_tx_busy(ctx, busy);
}

static bool emu_roce_rx_busy(void *ctx)
{
	return port_roce_peer_busy(ctx);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: orca-emu --socket PATH [--mac 52:54:00:xx:xx:xx]\n"
		"                [--nic PATH --nic-peer PATH]\n"
		"                [--wire PATH (--switch PATH | --peer PATH)]\n"
		"                [--ctl PATH] [--log PATH] [--msix N] [--ecn]\n");
}

static int parse_mac(const char *s, uint8_t mac[6])
{
	unsigned int b[6];
	char end;
	int i;

	if (sscanf(s, "%2x:%2x:%2x:%2x:%2x:%2x%c", &b[0], &b[1], &b[2],
		   &b[3], &b[4], &b[5], &end) != 6)
		return -EINVAL;
	for (i = 0; i < 6; i++)
		mac[i] = b[i];
	/* A port MAC must be a unicast address. */
	return (mac[0] & 1) ? -EINVAL : 0;
}

/* A stable locally administered MAC per socket path (FNV-1a). */
static void mac_from_path(const char *path, uint8_t mac[6])
{
	uint32_t h = 2166136261u;

	for (; *path; path++)
		h = (h ^ (uint8_t)*path) * 16777619u;
	mac[0] = 0x52;
	mac[1] = 0x54;
	mac[2] = 0x00;
	mac[3] = h >> 16;
	mac[4] = h >> 8;
	mac[5] = h;
}

static int parse_args(int argc, char **argv, struct emu_opts *o)
{
	static const struct option longopts[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "mac", required_argument, NULL, 'm' },
		{ "nic", required_argument, NULL, 'n' },
		{ "nic-peer", required_argument, NULL, 'p' },
		{ "wire", required_argument, NULL, 'w' },
		{ "switch", required_argument, NULL, 'S' },
		{ "peer", required_argument, NULL, 'P' },
		{ "ctl", required_argument, NULL, 'c' },
		{ "log", required_argument, NULL, 'l' },
		{ "msix", required_argument, NULL, 'x' },
		{ "ecn", no_argument, NULL, 'E' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	long v;
	int c;

	memset(o, 0, sizeof(*o));
	o->num_msix = 16;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 's': o->socket_path = optarg; break;
		case 'n': o->nic_path = optarg; break;
		case 'p': o->nic_peer = optarg; break;
		case 'w': o->wire_path = optarg; break;
		case 'S': o->switch_path = optarg; break;
		case 'P': o->peer_path = optarg; break;
		case 'c': o->ctl_path = optarg; break;
		case 'l': o->log_path = optarg; break;
		case 'E': o->ecn = true; break;
		case 'm':
			if (parse_mac(optarg, o->mac)) {
				fprintf(stderr, "orca-emu: bad --mac %s\n",
					optarg);
				return -EINVAL;
			}
			o->mac_set = true;
			break;
		case 'x':
			errno = 0;
			v = strtol(optarg, &end, 0);
			if (errno || *end || v < 1 || v > ORCA_MAX_MSIX) {
				fprintf(stderr,
					"orca-emu: --msix must be 1..%d\n",
					ORCA_MAX_MSIX);
				return -EINVAL;
			}
			o->num_msix = v;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return -EINVAL;
		}
	}
	if (optind != argc || !o->socket_path) {
		usage(stderr);
		return -EINVAL;
	}
	if (!o->nic_path != !o->nic_peer) {
		fprintf(stderr, "orca-emu: --nic and --nic-peer go together\n");
		return -EINVAL;
	}
	if ((o->switch_path || o->peer_path) && !o->wire_path) {
		fprintf(stderr, "orca-emu: --switch and --peer need --wire\n");
		return -EINVAL;
	}
	if (o->switch_path && o->peer_path) {
		fprintf(stderr, "orca-emu: --switch or --peer, not both\n");
		return -EINVAL;
	}
	if (!o->mac_set)
		mac_from_path(o->socket_path, o->mac);
	return 0;
}

static int ctl_open(struct emu_ctl *ctl, const char *path)
{
	struct stat st;

	ctl->fd = -1;
	ctl->ino = -1;
	if (!path)
		return 0;
	ctl->fd = open(path, O_RDONLY | O_CREAT | O_CLOEXEC, 0644);
	if (ctl->fd < 0)
		return -errno;
	/* Only lines written from now on count. */
	ctl->off = fstat(ctl->fd, &st) ? 0 : st.st_size;
	ctl->ino = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (ctl->ino < 0 ||
	    inotify_add_watch(ctl->ino, path, IN_MODIFY | IN_CLOSE_WRITE) < 0)
		return -errno;
	return 0;
}

static void ctl_close(struct emu_ctl *ctl)
{
	if (ctl->ino >= 0)
		close(ctl->ino);
	if (ctl->fd >= 0)
		close(ctl->fd);
}

/* Run every complete new line of the control file through the engine. */
static void ctl_process(struct emu_ctl *ctl, struct orca_engine *eng)
{
	char ev[4096], buf[512];
	struct stat st;
	ssize_t n;

	while (read(ctl->ino, ev, sizeof(ev)) > 0)
		;	/* drain events: the file itself says what is new */
	if (!fstat(ctl->fd, &st) && st.st_size < ctl->off)
		ctl->off = 0;	/* truncated: start over */

	while ((n = pread(ctl->fd, buf, sizeof(buf) - 1, ctl->off)) > 0) {
		char *line = buf, *nl;
		size_t used = 0;

		buf[n] = '\0';
		while ((nl = memchr(line, '\n', buf + n - line))) {
			char *w = line, *e = nl;
			int ret;

			*nl = '\0';
			while (*w == ' ' || *w == '\t')
				w++;
			while (e > w && (e[-1] == ' ' || e[-1] == '\t' ||
					 e[-1] == '\r'))
				*--e = '\0';
			if (*w) {
				ret = engine_inject(eng, w);
				emu_log("ctl: %s%s", w,
					ret ? " (unknown, ignored)" : "");
			}
			line = nl + 1;
			used = line - buf;
		}
		if (!used) {
			/* A partial line, or one longer than the buffer. */
			if (n == (ssize_t)sizeof(buf) - 1) {
				emu_log("ctl: line too long, skipped");
				ctl->off += n;
				continue;
			}
			break;
		}
		ctl->off += used;
	}
}

/* Block the termination signals in every thread; read them via a signalfd. */
static int signals_setup(void)
{
	sigset_t set;

	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	if (pthread_sigmask(SIG_BLOCK, &set, NULL))
		return -1;
	return signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
}

/*
 * Wait for the listening socket (or the connection) to be readable while
 * serving the signal and control descriptors.  Returns 1 when @fd is ready,
 * 0 on a termination signal.
 */
static int wait_ready(int fd, int sigfd, struct emu_ctl *ctl,
		      struct orca_engine *eng)
{
	for (;;) {
		struct pollfd pfd[3] = {
			{ .fd = fd, .events = POLLIN },
			{ .fd = sigfd, .events = POLLIN },
			{ .fd = ctl->ino, .events = POLLIN },
		};

		if (poll(pfd, 3, -1) < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (pfd[1].revents & POLLIN) {
			struct signalfd_siginfo si;

			if (read(sigfd, &si, sizeof(si)) == sizeof(si))
				emu_log("signal %u, shutting down",
					si.ssi_signo);
			return 0;
		}
		if (pfd[2].revents & POLLIN)
			ctl_process(ctl, eng);
		if (pfd[0].revents)
			return 1;
	}
}

int main(int argc, char **argv)
{
	struct emu_ctl ctl = { .fd = -1, .ino = -1 };
	struct vfu_device *dev = NULL;
	struct emu_port *port = NULL;
	struct vfu_conn conn = { .fd = -1 };
	struct emu_config cfg = { .eth_mtu = 1500 };
	struct timeval stall_timeout = { .tv_sec = 5 };
	struct emu_opts o;
	int sigfd, lfd = -1, cfd, ret, status = 1;
	bool have_conn = false;

	if (parse_args(argc, argv, &o))
		return 1;
	ret = emu_log_open(o.log_path);
	if (ret) {
		fprintf(stderr, "orca-emu: cannot open log %s: %s\n",
			o.log_path, strerror(-ret));
		return 1;
	}
	sigfd = signals_setup();
	if (sigfd < 0) {
		emu_log("signalfd: %s", strerror(errno));
		goto out;
	}

	memcpy(cfg.mac, o.mac, sizeof(cfg.mac));
	cfg.num_msix = o.num_msix;
	dev = calloc(1, sizeof(*dev));
	if (!dev)
		goto out;
	ret = vfio_device_init(dev, &cfg);
	if (ret) {
		emu_log("cannot create the adapter: %s", strerror(-ret));
		free(dev);
		dev = NULL;
		goto out;
	}
	emu_log("adapter %02x:%02x:%02x:%02x:%02x:%02x, %u MSI-X vectors",
		o.mac[0], o.mac[1], o.mac[2], o.mac[3], o.mac[4], o.mac[5],
		o.num_msix);
	/*
	 * --ecn, as a ConnectX ships: ECN-capable packets, CNPs for CE marks
	 * (at most one per QP per 4 us) and DCQCN's reaction to CNPs.
	 */
	if (o.ecn) {
		static const struct roce_ecn_cfg ecn = {
			.ect = true, .np = true, .rp = true,
			.cnp_interval_us = 4,
		};

		roce_set_ecn(dev->eng, &ecn);
		emu_log("ECN: ECT on, CNPs for CE marks, DCQCN on CNPs");
	}

	if (o.nic_path || o.wire_path) {
		struct emu_port_config pc = {
			.nic_path = o.nic_path,
			.nic_peer = o.nic_peer,
			.wire_path = o.wire_path,
			.switch_path = o.peer_path ? o.peer_path :
				       o.switch_path,
			.wire_shm = true,
			.wire_peer = o.peer_path != NULL,
			.tx_ready = emu_roce_tx_ready,
			.roce_lane = true,
			.pfc_pause = emu_pfc_pause,
		};
		struct engine_roce_link link = {
			.tx = emu_roce_tx,
			.tx_slot = emu_roce_tx_slot,
			.tx_commit = emu_roce_tx_commit,
			.tx_abort = emu_roce_tx_abort,
			.rx_ready = emu_roce_rx_ready,
			.rx_peek = emu_roce_peek,
			.rx_pop = emu_roce_pop,
			.rx_want = emu_roce_want,
			.tx_busy = emu_roce_tx_busy,
			.rx_busy = emu_roce_rx_busy,
		};

		memcpy(pc.mac, o.mac, sizeof(pc.mac));
		port = port_start(&pc, emu_roce_rx_hook, dev);
		if (!port) {
			emu_log("cannot start the port: %s", strerror(errno));
			goto out;
		}
		if (o.peer_path)
			emu_log("port: point-to-point wire to %s, shared-memory rings, RoCE lane to the engine",
				o.peer_path);
		else if (o.switch_path)
			emu_log("port: wire to %s over %s", o.switch_path,
				port_wire_is_shm(port) ?
				"shared-memory rings, RoCE lane to the engine" :
				"datagrams");
		/* The switch's link rate is DCQCN's line rate (issue 33). */
		if (port_link_rate(port)) {
			emu_log("port: link rate %u Mb/s (the switch's)",
				port_link_rate(port));
			engine_set_line_rate(dev->eng, port_link_rate(port));
		}
		link.ctx = port;
		link.rx_fd = port_roce_rx_fd(port);
		engine_set_roce_link(dev->eng, &link);
	}

	ret = ctl_open(&ctl, o.ctl_path);
	if (ret) {
		emu_log("control file %s: %s", o.ctl_path, strerror(-ret));
		goto out;
	}

	lfd = vfio_listen(o.socket_path);
	if (lfd < 0) {
		emu_log("cannot listen on %s: %s", o.socket_path,
			strerror(-lfd));
		goto out;
	}
	emu_log("listening on %s", o.socket_path);

	ret = wait_ready(lfd, sigfd, &ctl, dev->eng);
	if (ret <= 0) {
		status = ret ? 1 : 0;
		goto out;
	}
	cfd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	if (cfd < 0) {
		emu_log("accept: %s", strerror(errno));
		goto out;
	}
	/* QEMU connects once and never reconnects: stop listening. */
	close(lfd);
	lfd = -1;
	/*
	 * We read a message only once poll() saw its start; a client that
	 * then stalls mid-message is dropped instead of wedging this thread
	 * (where SIGTERM is also served).
	 */
	if (setsockopt(cfd, SOL_SOCKET, SO_RCVTIMEO, &stall_timeout,
		       sizeof(stall_timeout)))
		emu_log("SO_RCVTIMEO: %s", strerror(errno));
	if (vfio_conn_init(&conn, dev, cfd)) {
		close(cfd);
		goto out;
	}
	have_conn = true;
	emu_log("client connected");

	for (;;) {
		ret = wait_ready(conn.fd, sigfd, &ctl, dev->eng);
		if (ret <= 0) {
			status = ret ? 1 : 0;
			break;
		}
		ret = vfio_handle_message(&conn);
		if (ret == 0) {
			emu_log("client disconnected after %llu messages",
				(unsigned long long)conn.nr_msgs);
			status = 0;
			break;
		}
		if (ret < 0) {
			emu_log("dropping the client: %s", strerror(-ret));
			status = 1;
			break;
		}
	}

out:
	if (have_conn)
		vfio_conn_destroy(&conn);
	if (lfd >= 0)
		close(lfd);
	if (port) {
		/* The engine must stop sending before the port goes away. */
		struct emu_port_stats ps;

		engine_set_roce_tx(dev->eng, NULL, NULL);
		port_get_stats(port, &ps);
		emu_log("port: nic->wire %llu, wire->nic %llu, roce rx %llu, roce tx %llu, dropped %llu (foreign source MAC %llu, not taken by the guest %llu, to the wire %llu), rx held for the engine %llu",
			(unsigned long long)ps.nic_to_wire,
			(unsigned long long)ps.wire_to_nic,
			(unsigned long long)ps.roce_rx,
			(unsigned long long)ps.roce_tx,
			(unsigned long long)ps.dropped,
			(unsigned long long)ps.bad_src_mac,
			(unsigned long long)ps.to_nic_dropped,
			(unsigned long long)ps.drop_to_wire,
			(unsigned long long)ps.rx_held);
		if (ps.pfc_rx || ps.mac_control_rx)
			emu_log("port: PFC frames taken %llu, other MAC Control frames %llu",
				(unsigned long long)ps.pfc_rx,
				(unsigned long long)ps.mac_control_rx);
		port_stop(port);
	}
	if (dev) {
		vfio_device_destroy(dev);
		free(dev);
	}
	ctl_close(&ctl);
	unlink(o.socket_path);
	if (roce_rx_frames)
		emu_log("roce rx: %lu frames in total",
			(unsigned long)roce_rx_frames);
	emu_log("exit %d", status);
	emu_log_close();
	return status;
}

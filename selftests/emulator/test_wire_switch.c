// SPDX-License-Identifier: GPL-2.0
/*
 * Test of the orca-wire program (emulator/wire/wire_switch.c) as a black box:
 * it runs the switch binary, exchanges frames between three client sockets and
 * checks learning, flooding, the pcap file, fault injection and a clean exit
 * on SIGTERM, and a modelled link (--link-rate, --queue-bytes, --ecn): its
 * rate, its queue's drops and its ECN marks.
 *
 * The binary is $ORCA_WIRE_BIN if set, else orca-wire next to the tests'
 * directory (build/tests/test_wire_switch -> build/orca-wire).
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ktap.h"
#include "wire_harness.h"

#define WAIT_MS		2000
#define QUIET_MS	150
#define NCLIENTS	3
#define NCASES		19

static char wire_bin[PATH_MAX];
static char dir[40];
static char sw_path[100], pcap_path[100], log_path[100];
static char cl_path[NCLIENTS][100];
static int cl_fd[NCLIENTS];
static pid_t sw_pid;

static const uint8_t mac[NCLIENTS][6] = {
	{ 0x52, 0x54, 0x00, 0x0d, 0xca, 0xa0 },
	{ 0x52, 0x54, 0x00, 0x0d, 0xca, 0xb0 },
	{ 0x52, 0x54, 0x00, 0x0d, 0xca, 0xc0 },
};
static const uint8_t unknown_mac[6] = { 0x52, 0x54, 0x00, 0x0d, 0xca, 0xee };
static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
static const uint8_t mcast[6] = { 0x33, 0x33, 0x00, 0x00, 0x00, 0x01 };
static const uint8_t mcast4[6] = { 0x01, 0x00, 0x5e, 0x01, 0x02, 0x03 };

/* Every frame the switch should have forwarded, in order, for the pcap. */
#define MAX_LOG 64
static uint8_t sent_log[MAX_LOG][128];
static size_t sent_len[MAX_LOG];
static int nr_sent;
static int seq;

/*
 * A client's socket.  Close-on-exec: the switch, forked from here, must not
 * keep a client's socket alive after the client closed it (as no QEMU's
 * socket lives on in the switch): the switch sends on a socket connected
 * to the client's, so only the socket's end, not its name's, tells it the
 * client has gone.
 */
static int bind_dgram(const char *path)
{
	return wire_bind_dgram(path, SOCK_CLOEXEC);
}

/* Start the switch with extra options; wait for its socket to appear. */
static bool start_switch3(const char *opt1, const char *opt2,
			  const char *opt3)
{
	const char *argv[] = {
		wire_bin, "--socket", sw_path, "--pcap", pcap_path,
		"--log", log_path, "--seed", "7", opt1, opt2, opt3, NULL,
	};

	return wire_start(&sw_pid, sw_path, WAIT_MS, argv);
}

static bool start_switch(const char *opt1, const char *opt2)
{
	return start_switch3(opt1, opt2, NULL);
}

/* SIGTERM; true if it exited 0 and removed its socket. */
static bool stop_switch(void)
{
	struct stat st;

	return wire_stop(sw_pid) && stat(sw_path, &st) < 0;
}

/* Send a small frame from client @c to @dst; remembered for the pcap. */
static void send_frame(int c, const uint8_t *dst, bool expect_forward)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	uint8_t f[64] = { 0 };

	memcpy(f, dst, 6);
	memcpy(f + 6, mac[c], 6);
	f[12] = 0x88;
	f[13] = 0xb5;			/* local experimental ethertype */
	seq++;
	f[14] = (uint8_t)seq;
	f[15] = (uint8_t)c;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", sw_path);
	if (sendto(cl_fd[c], f, sizeof(f), 0, (struct sockaddr *)&sa,
		   sizeof(sa)) != sizeof(f))
		CHECK(!"sendto switch");
	if (expect_forward && nr_sent < MAX_LOG) {
		memcpy(sent_log[nr_sent], f, sizeof(f));
		sent_len[nr_sent++] = sizeof(f);
	}
}

/*
 * Send a RoCEv2 packet (IPv4, UDP 4791, BTH @opcode) from client @c to
 * @dst; its sequence number is the last byte of the BTH's PSN.
 */
static void send_roce(int c, const uint8_t *dst, uint8_t opcode)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	uint8_t f[64] = { 0 };

	memcpy(f, dst, 6);
	memcpy(f + 6, mac[c], 6);
	f[12] = 0x08;			/* IPv4 */
	f[14] = 0x45;
	f[14 + 9] = 17;			/* UDP */
	f[34 + 2] = 4791 >> 8;		/* destination port */
	f[34 + 3] = 4791 & 0xff;
	f[42] = opcode;			/* BTH */
	seq++;
	f[42 + 11] = (uint8_t)seq;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", sw_path);
	if (sendto(cl_fd[c], f, sizeof(f), 0, (struct sockaddr *)&sa,
		   sizeof(sa)) != sizeof(f))
		CHECK(!"sendto switch");
}

/*
 * The same with an Ethernet tag (TPID @tpid, VLAN 5) in front of the IP
 * header; its sequence number is the frame's last byte.
 */
static void send_roce_tagged(int c, const uint8_t *dst, uint8_t opcode,
			     uint16_t tpid)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	uint8_t f[68] = { 0 };

	memcpy(f, dst, 6);
	memcpy(f + 6, mac[c], 6);
	f[12] = tpid >> 8;
	f[13] = tpid & 0xff;
	f[15] = 5;
	f[16] = 0x08;			/* IPv4 */
	f[18] = 0x45;
	f[18 + 9] = 17;			/* UDP */
	f[38 + 2] = 4791 >> 8;		/* destination port */
	f[38 + 3] = 4791 & 0xff;
	f[46] = opcode;			/* BTH */
	seq++;
	f[67] = (uint8_t)seq;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", sw_path);
	if (sendto(cl_fd[c], f, sizeof(f), 0, (struct sockaddr *)&sa,
		   sizeof(sa)) != sizeof(f))
		CHECK(!"sendto switch");
}

/* The last byte of the next frame client @c receives, or -1. */
static int recv_last_byte(int c, int ms)
{
	struct pollfd pfd = { .fd = cl_fd[c], .events = POLLIN };
	uint8_t f[9100];
	ssize_t n;

	if (poll(&pfd, 1, ms) != 1 || !(pfd.revents & POLLIN))
		return -1;
	n = recv(cl_fd[c], f, sizeof(f), 0);
	return n > 0 ? f[n - 1] : -1;
}

/* The PSN byte of the next RoCE packet client @c receives, or -1. */
static int recv_roce_seq(int c, int ms)
{
	struct pollfd pfd = { .fd = cl_fd[c], .events = POLLIN };
	uint8_t f[9100];
	ssize_t n;

	if (poll(&pfd, 1, ms) != 1 || !(pfd.revents & POLLIN))
		return -1;
	n = recv(cl_fd[c], f, sizeof(f), 0);
	return n >= 54 && f[12] == 0x08 ? f[42 + 11] : -1;
}

/* The sequence number of the next frame client @c receives, or -1. */
static int recv_seq(int c, int ms)
{
	struct pollfd pfd = { .fd = cl_fd[c], .events = POLLIN };
	uint8_t f[9100];
	ssize_t n;

	if (poll(&pfd, 1, ms) != 1 || !(pfd.revents & POLLIN))
		return -1;
	n = recv(cl_fd[c], f, sizeof(f), 0);
	return n >= 16 ? f[14] : -1;
}

/*
 * Which clients get the last frame sent, as a bitmask (0x100: someone got
 * a frame other than the last one).  Collects until the wire is quiet.
 */
static unsigned int receivers(void)
{
	struct pollfd pfd[NCLIENTS];
	unsigned int mask = 0;
	uint8_t f[9100];
	int c, rounds;

	for (c = 0; c < NCLIENTS; c++)
		pfd[c] = (struct pollfd){ .fd = cl_fd[c], .events = POLLIN };
	/* bounded: a client that never goes quiet must not hang the test */
	for (rounds = 0; rounds < 100 && poll(pfd, NCLIENTS, QUIET_MS) > 0;
	     rounds++) {
		for (c = 0; c < NCLIENTS; c++) {
			ssize_t n;

			if (!(pfd[c].revents & POLLIN))
				continue;
			n = recv(cl_fd[c], f, sizeof(f), MSG_DONTWAIT);
			if (n >= 16 && f[14] == (uint8_t)seq)
				mask |= 1u << c;
			else if (n >= 0)
				mask |= 0x100;
		}
	}
	return mask;
}

static void drain_all(void)
{
	int c;

	for (c = 0; c < NCLIENTS; c++)
		while (recv_seq(c, 0) >= 0)
			;
}

static void test_learning_and_flooding(void)
{
	/* A's broadcast: nobody else is known yet, so nobody gets it */
	send_frame(0, bcast, true);
	CHECK(receivers() == 0);
	/* B says hello: A is known */
	send_frame(1, bcast, true);
	CHECK(receivers() == 0x1);
	send_frame(2, bcast, true);
	CHECK(receivers() == 0x3);
	ktap_case_end("broadcast_floods_known_ports_but_sender");

	send_frame(0, mac[1], true);
	CHECK(receivers() == 0x2);
	send_frame(2, mac[0], true);
	CHECK(receivers() == 0x1);
	send_frame(1, mac[2], true);
	CHECK(receivers() == 0x4);
	ktap_case_end("learned_unicast_goes_to_one_port");

	send_frame(0, unknown_mac, true);
	CHECK(receivers() == 0x6);
	send_frame(1, mcast, true);
	CHECK(receivers() == 0x5);
	/* to the sender's own MAC: never reflected back */
	send_frame(0, mac[0], true);
	CHECK(receivers() == 0);
	ktap_case_end("unknown_unicast_and_multicast_flood");
}

static void test_mac_move(void)
{
	uint8_t moved[6];

	/* B's MAC shows up behind C (a VM moved): unicast follows it */
	memcpy(moved, mac[1], 6);
	{
		struct sockaddr_un sa = { .sun_family = AF_UNIX };
		uint8_t f[64] = { 0 };

		memcpy(f, mac[0], 6);
		memcpy(f + 6, moved, 6);
		f[12] = 0x88;
		f[13] = 0xb5;
		seq++;
	f[14] = (uint8_t)seq;
		snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", sw_path);
		CHECK(sendto(cl_fd[2], f, sizeof(f), 0,
			     (struct sockaddr *)&sa, sizeof(sa)) == sizeof(f));
		memcpy(sent_log[nr_sent], f, sizeof(f));
		sent_len[nr_sent++] = sizeof(f);
	}
	CHECK(receivers() == 0x1);
	send_frame(0, mac[1], true);
	CHECK(receivers() == 0x4);
	ktap_case_end("mac_move_relearned");
}

static void test_gone_port(void)
{
	/* a client whose socket vanished is forgotten, the others still work */
	close(cl_fd[2]);
	cl_fd[2] = -1;		/* poll() skips it */
	unlink(cl_path[2]);
	send_frame(0, bcast, true);
	CHECK(receivers() == 0x2);	/* C's recv fails: fd closed */
	cl_fd[2] = bind_dgram(cl_path[2]);
	send_frame(2, bcast, true);	/* C comes back and is relearned */
	CHECK(receivers() == 0x3);
	send_frame(0, mac[2], true);
	CHECK(receivers() == 0x4);
	ktap_case_end("vanished_port_forgotten_and_relearned");
}

static uint32_t rd32(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static void test_pcap(void)
{
	static uint8_t buf[1 << 16];
	size_t n, off;
	int fd, i = 0;

	fd = open(pcap_path, O_RDONLY);
	CHECK(fd >= 0);
	n = fd >= 0 ? (size_t)read(fd, buf, sizeof(buf)) : 0;
	if (fd >= 0)
		close(fd);
	CHECK(n >= 24);
	if (n >= 24) {
		CHECK(rd32(buf) == 0xa1b2c3d4);
		CHECK(rd32(buf + 20) == 1);	/* LINKTYPE_ETHERNET */
	}
	for (off = 24; off + 16 <= n; i++) {
		uint32_t caplen = rd32(buf + off + 8);

		CHECK(caplen == rd32(buf + off + 12));
		CHECK(off + 16 + caplen <= n);
		CHECK(i < nr_sent && caplen == sent_len[i] &&
		      !memcmp(buf + off + 16, sent_log[i], caplen));
		off += 16 + caplen;
	}
	CHECK(off == n);
	CHECK(i == nr_sent);
	ktap_case_end("pcap_has_every_forwarded_frame");
}

static bool log_contains(const char *what)
{
	char line[512];
	bool found = false;
	FILE *f = fopen(log_path, "r");

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, what))
			found = true;
	fclose(f);
	return found;
}

/* Say hello from every client so the switch knows all ports. */
static void hello_all(void)
{
	int c;

	for (c = 0; c < NCLIENTS; c++)
		send_frame(c, bcast, false);
	usleep(QUIET_MS * 1000 * 2);	/* let any held frame go */
	drain_all();
}

/* --pcap-snaplen 40: every record holds the frame's first 40 bytes. */
static void test_pcap_snaplen(void)
{
	static uint8_t buf[1 << 16];
	size_t n, off;
	int fd, records = 0;

	unlink(pcap_path);
	CHECK(start_switch("--pcap-snaplen", "40"));
	hello_all();
	send_frame(0, mac[1], false);
	CHECK(recv_seq(1, WAIT_MS) == seq);
	CHECK(stop_switch());
	fd = open(pcap_path, O_RDONLY);
	CHECK(fd >= 0);
	n = fd >= 0 ? (size_t)read(fd, buf, sizeof(buf)) : 0;
	if (fd >= 0)
		close(fd);
	CHECK(n >= 24 && rd32(buf + 16) == 40);
	for (off = 24; off + 16 <= n; records++) {
		CHECK(rd32(buf + off + 8) == 40 && rd32(buf + off + 12) == 64);
		off += 16 + 40;
	}
	CHECK(off == n && records >= NCLIENTS + 1);
	ktap_case_end("pcap_snaplen_truncates_records");
}

static void test_drop(void)
{
	int i;

	unlink(log_path);
	CHECK(start_switch("--drop-pct", "100"));
	for (i = 0; i < 10; i++) {
		send_frame(0, bcast, false);
		CHECK(receivers() == 0);
	}
	CHECK(stop_switch());
	CHECK(log_contains("fault_dropped 10"));
	ktap_case_end("drop_pct_100_drops_everything");
}

/* --isolate: nothing from one port reaches another, and it is counted. */
static void test_isolate(void)
{
	unlink(log_path);
	CHECK(start_switch("--isolate", NULL));
	hello_all();
	send_frame(0, bcast, false);
	CHECK(receivers() == 0);
	send_frame(1, mcast4, false);
	CHECK(receivers() == 0);
	send_frame(2, mac[0], false);
	CHECK(receivers() == 0);
	send_roce(0, mac[1], 0x04);
	CHECK(recv_roce_seq(1, QUIET_MS) < 0);
	CHECK(stop_switch());
	CHECK(log_contains("isolated 7"));
	ktap_case_end("isolate_forwards_nothing_between_ports");
}

static void test_reorder(void)
{
	int first, second;

	unlink(log_path);
	CHECK(start_switch("--reorder-pct", "100"));
	hello_all();
	/* the first is held and follows the second */
	send_frame(0, mac[1], false);
	send_frame(0, mac[1], false);
	first = recv_seq(1, WAIT_MS);
	second = recv_seq(1, WAIT_MS);
	CHECK(first == seq && second == seq - 1);
	/* a held frame with no successor still goes out after a while */
	send_frame(0, mac[1], false);
	CHECK(recv_seq(1, WAIT_MS) == seq);
	CHECK(stop_switch());
	CHECK(log_contains("fault_reordered"));
	ktap_case_end("reorder_pct_100_swaps_neighbours");
}

/* --faults-rc-only: RC packets are dropped, UD and non-RoCE frames pass. */
static void test_faults_rc_only(void)
{
	unlink(log_path);
	CHECK(start_switch3("--drop-pct", "100", "--faults-rc-only"));
	hello_all();
	send_roce(0, mac[1], 0x04);	/* RC SEND Only */
	CHECK(recv_roce_seq(1, QUIET_MS * 2) == -1);
	send_roce(0, mac[1], 0x0a);	/* RC RDMA WRITE Only */
	CHECK(recv_roce_seq(1, QUIET_MS * 2) == -1);
	send_roce(0, mac[1], 0x64);	/* UD SEND Only */
	CHECK(recv_roce_seq(1, WAIT_MS) == seq);
	/* UD multicast (IPv4 and IPv6 group MACs): every port but its own */
	send_roce(0, mcast4, 0x64);
	CHECK(recv_roce_seq(1, WAIT_MS) == seq);
	CHECK(recv_roce_seq(2, WAIT_MS) == seq);
	CHECK(recv_roce_seq(0, QUIET_MS) == -1);
	send_roce(2, mcast, 0x64);
	CHECK(recv_roce_seq(0, WAIT_MS) == seq);
	CHECK(recv_roce_seq(1, WAIT_MS) == seq);
	send_frame(0, mac[1], false);
	CHECK(recv_seq(1, WAIT_MS) == seq);
	/* RC behind one 802.1Q tag is RoCE to the ports, so faults hit it */
	send_roce_tagged(0, mac[1], 0x04, 0x8100);
	CHECK(recv_last_byte(1, QUIET_MS * 2) == -1);
	/* behind an 802.1ad tag it is not RoCE to them: it passes */
	send_roce_tagged(0, mac[1], 0x04, 0x88a8);
	CHECK(recv_last_byte(1, WAIT_MS) == seq);
	CHECK(stop_switch());
	CHECK(log_contains("fault_dropped 3 "));
	ktap_case_end("faults_rc_only_spare_ud_and_other_frames");
}

struct burst {
	int from;
	const uint8_t *to;
	int n;
};

/* Client @from sends @n frames to @to (its sendto waits while the switch
 * holds a frame back for a full client: the test thread must not). */
static void *send_burst(void *arg)
{
	struct burst *b = arg;

	for (int i = 0; i < b->n; i++)
		send_frame(b->from, b->to, false);
	return NULL;
}

/*
 * A slow datagram client (QEMU of a slow guest) is waited for: a burst
 * far larger than its socket's queue arrives whole and in order.  One
 * that stops reading is given up on, and the others keep the wire.
 */
static void test_slow_and_stopped_dgram(void)
{
	struct burst b = { .from = 0, .to = mac[1], .n = 100 };
	int first, i, got, last;
	pthread_t t;

	unlink(log_path);
	CHECK(start_switch(NULL, NULL));
	hello_all();
	first = seq + 1;
	pthread_create(&t, NULL, send_burst, &b);
	for (i = 0; i < b.n; i++) {
		got = recv_seq(1, WAIT_MS);
		if (got != (uint8_t)(first + i))
			break;
		if (i % 10 == 0)
			usleep(20000);	/* longer than a blocking wait */
	}
	CHECK(i == b.n);
	pthread_join(t, NULL);

	/* Client 2 stops reading; client 1 still gets all of its frames. */
	b = (struct burst){ .from = 0, .to = mac[2], .n = 40 };
	pthread_create(&t, NULL, send_burst, &b);
	pthread_join(t, NULL);
	b = (struct burst){ .from = 0, .to = mac[1], .n = 5 };
	pthread_create(&t, NULL, send_burst, &b);
	pthread_join(t, NULL);
	last = seq;
	for (i = 0; i < 5; i++)
		got = recv_seq(1, WAIT_MS);
	CHECK(got == (uint8_t)last);
	/* RoCE packets to the stopped client are dropped at once (stalled). */
	for (i = 0; i < 8; i++)
		send_roce(0, mac[2], 0x04);
	send_frame(0, mac[1], false);
	CHECK(recv_seq(1, WAIT_MS) == (uint8_t)seq);
	CHECK(stop_switch());
	/*
	 * Frames to the stopped client were dropped (and only those: above),
	 * counted apart: its guest's own Ethernet (40 frames, less the ones
	 * its queue still took) and the 8 RoCE packets, a loss of the RDMA
	 * wire.  It was logged as given up on, client 1 as waited for.
	 */
	printf("# send_errors %llu not_roce_dropped %llu\n",
	       wire_exit_count(log_path, "send_errors"),
	       wire_exit_count(log_path, "not_roce_dropped"));
	CHECK(wire_exit_count(log_path, "send_errors") == 8);
	CHECK(wire_exit_count(log_path, "not_roce_dropped") > 0 &&
	      wire_exit_count(log_path, "not_roce_dropped") <= 40);
	CHECK(log_contains("took no frame for "));
	CHECK(log_contains("longest wait for room "));
	drain_all();
	ktap_case_end("slow_dgram_client_waited_for_stopped_one_given_up");
}

/*
 * A client that exits (its QEMU's guest powered off) while a peer still
 * sends it RoCE (the last ACK, a CM DREP): not a loss of the RDMA wire.
 * Counted apart from send_errors, and the port is forgotten.
 */
static void test_departed_dgram(void)
{
	unlink(log_path);
	CHECK(start_switch(NULL, NULL));
	hello_all();
	close(cl_fd[2]);
	cl_fd[2] = -1;
	unlink(cl_path[2]);
	send_roce(0, mac[2], 0x11);	/* RC ACK */
	usleep(QUIET_MS * 1000 * 2);
	CHECK(stop_switch());
	CHECK(wire_exit_count(log_path, "departed_dropped") == 1);
	CHECK(wire_exit_count(log_path, "send_errors") == 0);
	CHECK(log_contains("port 2 gone"));
	cl_fd[2] = bind_dgram(cl_path[2]);
	drain_all();
	ktap_case_end("roce_to_departed_dgram_client_not_a_send_error");
}

/*
 * --qemu-wait-scale 4: a client that reads nothing for 1 s (twice the
 * usual wait) loses nothing, and the log says how long it was waited for.
 */
static void test_scaled_qemu_wait(void)
{
	struct burst b = { .from = 0, .to = mac[1], .n = 30 };
	int first, i;
	pthread_t t;

	unlink(log_path);
	CHECK(start_switch("--qemu-wait-scale", "4"));
	hello_all();
	first = seq + 1;
	pthread_create(&t, NULL, send_burst, &b);
	usleep(1000 * 1000);
	for (i = 0; i < b.n; i++)
		if (recv_seq(1, WAIT_MS) != (uint8_t)(first + i))
			break;
	CHECK(i == b.n);
	pthread_join(t, NULL);
	CHECK(stop_switch());
	CHECK(wire_exit_count(log_path, "not_roce_dropped") == 0);
	CHECK(wire_exit_count(log_path, "send_errors") == 0);
	CHECK(log_contains("a full QEMU is waited for 2000 ms"));
	CHECK(!log_contains("took no frame for "));
	drain_all();
	ktap_case_end("qemu_wait_scaled_for_slow_guests");
}

/* True if orca-wire refuses these options with its usage (exit 2). */
static bool refused(const char *o1, const char *v1, const char *o2,
		    const char *v2)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, 2);
		execl(wire_bin, wire_bin, "--socket", sw_path, o1, v1, o2, v2,
		      (char *)NULL);
		_exit(127);
	}
	return pid > 0 && waitpid(pid, &status, 0) == pid &&
	       WIFEXITED(status) && WEXITSTATUS(status) == 2;
}

static void test_bad_args(void)
{
	CHECK(refused("--drop-pct", "101", NULL, NULL));
	CHECK(refused("--qemu-wait-scale", "0", NULL, NULL));
	ktap_case_end("bad_arguments_rejected");
}

/*
 * --link-rate with --ecn: a burst of ECT(0) IPv4 frames from client 0 to
 * client 1, far more than the port's 64 KiB class queue holds.  The queue
 * takes what fits (the ones above its threshold marked CE), the rest is
 * dropped and counted; what was queued leaves at the link's 20 Mb/s (after
 * the bucket's first 18 KiB), one 1000-byte frame every 400 us; the exit
 * log counts them all in class 0 (DSCP 0).
 */
#define BURST		400
#define BURST_LEN	1000

static void burst_frame(uint8_t *f, int n)
{
	memset(f, 0, BURST_LEN);
	memcpy(f, mac[1], 6);
	memcpy(f + 6, mac[0], 6);
	f[12] = 0x08;
	f[14] = 0x45;
	f[15] = 0x02;				/* ECT(0) */
	f[16] = (BURST_LEN - 14) >> 8;
	f[17] = (BURST_LEN - 14) & 0xff;
	f[22] = 64;
	f[23] = 17;
	wire_ipv4_csum(f + 14);
	f[BURST_LEN - 2] = (uint8_t)(n >> 8);
	f[BURST_LEN - 1] = (uint8_t)n;
}

/* The numbers of the switch's egress exit line, or false. */
static bool egress_totals(unsigned long long *enq, unsigned long long *sent,
			  unsigned long long *drop, unsigned long long *mark)
{
	char line[512];
	bool found = false;
	FILE *f = fopen(log_path, "r");
	const char *p;

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		p = strstr(line, "exit: egress at ");
		if (p && (p = strstr(p, "enqueued ")))
			found = sscanf(p, "enqueued %llu sent %llu dropped %llu marked %llu",
				       enq, sent, drop, mark) == 4;
	}
	fclose(f);
	return found;
}

static void test_link_rate(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	static uint8_t f[BURST_LEN], r[9100];
	unsigned long long enq = 0, sent = 0, drop = 0, mark = 0;
	unsigned int got = 0, ce = 0, last = 0, bad = 0;
	struct timespec t0 = { 0 }, t1 = { 0 };
	double secs, mbps;
	ssize_t n;

	unlink(log_path);
	{
		const char *argv[] = {
			wire_bin, "--socket", sw_path, "--log", log_path,
			"--seed", "7", "--link-rate", "20", "--queue-bytes",
			"65536", "--ecn", "16384,32768,100", NULL,
		};

		CHECK(wire_start(&sw_pid, sw_path, WAIT_MS, argv));
	}
	hello_all();
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", sw_path);
	for (int i = 0; i < BURST; i++) {
		burst_frame(f, i);
		if (sendto(cl_fd[0], f, BURST_LEN, 0, (struct sockaddr *)&sa,
			   sizeof(sa)) != BURST_LEN)
			CHECK(!"sendto switch");
	}
	for (;;) {
		struct pollfd pfd = { .fd = cl_fd[1], .events = POLLIN };

		if (poll(&pfd, 1, 300) != 1)
			break;
		n = recv(cl_fd[1], r, sizeof(r), 0);
		if (n != BURST_LEN || r[12] != 0x08) {
			bad++;
			continue;
		}
		/* In order, and each CE mark with a valid IPv4 checksum. */
		if (got && (unsigned int)(r[BURST_LEN - 2] << 8 |
					  r[BURST_LEN - 1]) <= last)
			bad++;
		last = r[BURST_LEN - 2] << 8 | r[BURST_LEN - 1];
		ce += (r[15] & 3) == 3;
		got++;
		/* The rate: from the 30th frame, past the bucket's burst. */
		clock_gettime(CLOCK_MONOTONIC, got == 30 ? &t0 : &t1);
	}
	CHECK(stop_switch());
	CHECK(egress_totals(&enq, &sent, &drop, &mark));
	secs = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	mbps = got > 40 && secs > 0 ? (got - 30) * BURST_LEN * 8 / secs / 1e6 :
	       0;
	printf("# %u of %d frames came, %u marked CE, %u bad; %.1f Mb/s; switch: enqueued %llu sent %llu dropped %llu marked %llu\n",
	       got, BURST, ce, bad, mbps, enq, sent, drop, mark);
	CHECK(bad == 0);
	CHECK(got >= 60 && got < BURST);
	/* Every frame of the burst was sent or dropped, none lost unseen. */
	CHECK(drop == BURST - got);
	CHECK(ce > 0 && ce == mark && ce < got);
	CHECK(mbps > 15 && mbps < 26);
	/* DSCP 0: every frame queued was class 0's. */
	snprintf((char *)r, sizeof(r),
		 "exit: egress by class (class:frames): 0:%llu\n", enq);
	CHECK(log_contains((char *)r));
	ktap_case_end("link_rate_queues_drop_and_mark_ce");

	/* Queues or marking without a rate, or thresholds upside down. */
	CHECK(refused("--ecn", "1000,2000,10", NULL, NULL));
	CHECK(refused("--queue-bytes", "65536", NULL, NULL));
	CHECK(refused("--link-rate", "100", "--ecn", "2000,1000,10"));
	CHECK(refused("--link-rate", "0", NULL, NULL));
	ktap_case_end("link_rate_options_checked");
}

/*
 * Client 0 sends a burst to client 1 (the switch's link rate 200 Mb/s,
 * client 1's port --port-rate 20) and client 2's: they come at 20 Mb/s
 * and at least five times that.
 */
static double burst_rate(int to)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	static uint8_t f[BURST_LEN], r[9100];
	struct timespec t0 = { 0 }, t1 = { 0 };
	unsigned int got = 0;
	double secs;

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", sw_path);
	for (int i = 0; i < 200; i++) {
		burst_frame(f, i);
		memcpy(f, mac[to], 6);
		if (sendto(cl_fd[0], f, BURST_LEN, 0, (struct sockaddr *)&sa,
			   sizeof(sa)) != BURST_LEN)
			CHECK(!"sendto switch");
	}
	for (;;) {
		struct pollfd pfd = { .fd = cl_fd[to], .events = POLLIN };

		if (poll(&pfd, 1, 300) != 1)
			break;
		if (recv(cl_fd[to], r, sizeof(r), 0) != BURST_LEN)
			continue;
		got++;
		/* From the 30th frame, past the bucket's burst. */
		clock_gettime(CLOCK_MONOTONIC, got == 30 ? &t0 : &t1);
	}
	secs = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	printf("# to client %d: %u of 200 frames\n", to, got);
	return got == 200 && secs > 0 ? (got - 30) * BURST_LEN * 8 / secs / 1e6 :
	       0;
}

static void test_port_rate(void)
{
	char opt[160];
	double slow, fast;

	unlink(log_path);
	snprintf(opt, sizeof(opt), "%s=20", cl_path[1]);
	{
		const char *argv[] = {
			wire_bin, "--socket", sw_path, "--log", log_path,
			"--link-rate", "200", "--queue-bytes", "1048576",
			"--port-rate", opt, NULL,
		};

		CHECK(wire_start(&sw_pid, sw_path, WAIT_MS, argv));
	}
	hello_all();
	slow = burst_rate(1);
	fast = burst_rate(2);
	CHECK(stop_switch());
	printf("# client 1's port (--port-rate 20): %.1f Mb/s; client 2's (200): %.1f Mb/s\n",
	       slow, fast);
	CHECK(slow > 15 && slow < 26);
	CHECK(fast > 5 * slow);
	CHECK(log_contains("link rate 20 Mb/s (--port-rate)"));
	CHECK(refused("--port-rate", "x=10", NULL, NULL));	/* no model */
	CHECK(refused("--link-rate", "100", "--port-rate", "x"));
	ktap_case_end("port_rate_gives_one_port_its_own_link_rate");
}

int main(void)
{
	int c;

	wire_find_binary(wire_bin, sizeof(wire_bin));
	ktap_plan(NCASES);
	if (access(wire_bin, X_OK)) {
		printf("# %s: not built\n", wire_bin);
		for (c = 0; c < NCASES; c++)
			ktap_skip("orca-wire", "binary missing");
		ktap_finish();
		return 4;
	}
	snprintf(dir, sizeof(dir), "/tmp/orca-test-wire.XXXXXX");
	if (!mkdtemp(dir))
		return 2;
	snprintf(sw_path, sizeof(sw_path), "%s/switch", dir);
	snprintf(pcap_path, sizeof(pcap_path), "%s/wire.pcap", dir);
	snprintf(log_path, sizeof(log_path), "%s/wire.log", dir);
	for (c = 0; c < NCLIENTS; c++) {
		snprintf(cl_path[c], sizeof(cl_path[c]), "%s/client%d", dir, c);
		cl_fd[c] = bind_dgram(cl_path[c]);
	}

	if (!start_switch(NULL, NULL)) {
		printf("Bail out! orca-wire did not start\n");
		return 1;
	}
	test_learning_and_flooding();
	test_mac_move();
	test_gone_port();
	CHECK(stop_switch());
	CHECK(log_contains("exit: received"));
	ktap_case_end("sigterm_exits_cleanly_removes_socket");
	test_pcap();
	test_pcap_snaplen();
	test_drop();
	test_isolate();
	test_reorder();
	test_faults_rc_only();
	test_slow_and_stopped_dgram();
	test_scaled_qemu_wait();
	test_departed_dgram();
	test_bad_args();
	test_link_rate();
	test_port_rate();

	for (c = 0; c < NCLIENTS; c++) {
		if (cl_fd[c] >= 0)
			close(cl_fd[c]);
		unlink(cl_path[c]);
	}
	unlink(pcap_path);
	unlink(log_path);
	rmdir(dir);
	return ktap_finish();
}

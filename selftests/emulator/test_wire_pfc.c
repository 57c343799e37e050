// SPDX-License-Identifier: GPL-2.0
/*
 * Priority flow control in orca-wire (issue 33, wire/pfc.h):
 *
 * - the PFC frame as 802.1Qbb lays it out, built and parsed back, and its
 *   pause quanta in time at a link's rate;
 * - the switch's decision: pause above xoff, refresh before the pause runs
 *   out, resume at xon, nothing for a lossy class;
 * - the switch itself, with datagram clients: a sender feeding a lossless
 *   queue towards a client that reads nothing is sent a pause for that
 *   class, loses no frame while the queue has room, and once the queue
 *   has sent nothing for the storm watchdog's time, the queue is flushed,
 *   the storm logged and counted, and the sender resumed;
 * - a PFC frame that comes in (a peer switch's, on an uplink) is not
 *   forwarded: 01:80:C2:00:00:0x is the link's.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "ktap.h"
#include "wire/pfc.h"
#include "wire_harness.h"

#define WAIT_MS		5000
#define FRAME_LEN	1000

static char wire_bin[PATH_MAX], dir[40], sw_path[100], log_path[100];
static char cl_path[2][100];
static const uint8_t mac[2][6] = {
	{ 0x52, 0x54, 0x00, 0x0d, 0xca, 0x01 },
	{ 0x52, 0x54, 0x00, 0x0d, 0xca, 0x02 },
};

static void test_frame(void)
{
	uint16_t q[PFC_PRIOS] = { 1, 2, 3, 0xffff, 5, 6, 7, 0 }, got[PFC_PRIOS];
	uint8_t f[PFC_FRAME_LEN], en = 0;

	CHECK(pfc_frame_build(f, mac[0], 0x88, q) == PFC_FRAME_LEN);
	/* 01:80:C2:00:00:01, EtherType 0x8808, opcode 0x0101 */
	CHECK(f[0] == 0x01 && f[1] == 0x80 && f[2] == 0xc2 && f[5] == 0x01);
	CHECK(!memcmp(f + 6, mac[0], 6));
	CHECK(f[12] == 0x88 && f[13] == 0x08 && f[14] == 0x01 && f[15] == 0x01);
	CHECK(f[16] == 0 && f[17] == 0x88);
	/* Only enabled priorities carry a time. */
	CHECK(f[18 + 6] == 0xff && f[19 + 6] == 0xff && f[18] == 0 && f[19] == 0);
	CHECK(pfc_is_mac_control(f, sizeof(f)));
	CHECK(pfc_frame_parse(f, sizeof(f), &en, got));
	CHECK(en == 0x88 && got[3] == 0xffff && got[7] == 0 && got[0] == 0);
	/* Not PFC: another opcode (802.3x PAUSE), another type, too short. */
	f[15] = 0x01;
	f[14] = 0x00;
	CHECK(pfc_is_mac_control(f, sizeof(f)));
	CHECK(!pfc_frame_parse(f, sizeof(f), &en, got));
	f[14] = 0x01;
	CHECK(!pfc_frame_parse(f, 30, &en, got));
	f[13] = 0x00;
	CHECK(!pfc_is_mac_control(f, sizeof(f)));
	CHECK(!pfc_frame_parse(f, sizeof(f), &en, got));
	/* 512 bit times: at 100 Gb/s 5.12 ns (rounded down), at 1000 Mb/s 512. */
	CHECK(pfc_quanta_ns(0xffff, 100000) == 335539);
	CHECK(pfc_quanta_ns(1, 1000) == 512);
	CHECK(pfc_quanta_ns(0, 1000) == 0);
	CHECK(pfc_quanta_ns(5, 0) == 0);
	ktap_case_end("pfc_frame_built_and_parsed_as_802_1qbb");
}

static void test_decision(void)
{
	struct pfc_cfg cfg = { .lossless = 1u << 3, .xoff = 4000, .xon = 2000 };
	struct pfc_ingress in = { 0 };
	uint64_t refresh = pfc_quanta_ns(PFC_QUANTA_MAX, 1000) / 2;
	uint16_t q[PFC_PRIOS];
	uint64_t next = 0;

	/* At xoff: nothing yet; above it: a pause for class 3 only. */
	in.bytes[3] = 4000;
	CHECK(pfc_due(&cfg, &in, 1000, 1000, q, &next) == 0);
	in.bytes[3] = 4001;
	in.bytes[5] = 1u << 20;		/* a lossy class is never paused */
	CHECK(pfc_due(&cfg, &in, 1000, 1000, q, &next) == 1u << 3);
	CHECK(q[3] == PFC_QUANTA_MAX && q[5] == 0 && in.xoff_tx == 1);
	CHECK(next == 1000 + refresh);
	/* Still above xon: nothing until half the pause has run out. */
	in.bytes[3] = 3000;
	next = 0;
	CHECK(pfc_due(&cfg, &in, 1000 + refresh - 1, 1000, q, &next) == 0);
	CHECK(next == 1000 + refresh);
	CHECK(pfc_due(&cfg, &in, 1000 + refresh, 1000, q, &next) == 1u << 3);
	CHECK(q[3] == PFC_QUANTA_MAX && in.xoff_tx == 2);
	/* At xon: resumed (quanta 0), once. */
	in.bytes[3] = 2000;
	CHECK(pfc_due(&cfg, &in, 2 * refresh, 1000, q, &next) == 1u << 3);
	CHECK(q[3] == 0 && in.xon_tx == 1 && !(in.paused & (1u << 3)));
	CHECK(pfc_due(&cfg, &in, 3 * refresh, 1000, q, &next) == 0);
	ktap_case_end("pause_above_xoff_refreshed_resumed_at_xon");
}

/* A frame of @len bytes, IPv4 with DSCP @dscp (not RoCE), from @c to @dst. */
static void build_ip(uint8_t *f, size_t len, int c, const uint8_t *dst,
		     unsigned int dscp)
{
	memset(f, 0, len);
	memcpy(f, dst, 6);
	memcpy(f + 6, mac[c], 6);
	f[12] = 0x08;
	f[14] = 0x45;
	f[15] = (uint8_t)(dscp << 2);
	f[16] = (uint8_t)((len - 14) >> 8);
	f[17] = (uint8_t)(len - 14);
	f[22] = 64;
	f[23] = 17;			/* UDP, to a port no one serves */
	f[26] = 10;
	f[29] = (uint8_t)(c + 1);
	f[30] = 10;
	f[33] = 9;
	wire_ipv4_csum(f + 14);
}

static bool send_to_switch(int fd, const uint8_t *f, size_t len, int flags)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", sw_path);
	return sendto(fd, f, len, flags, (struct sockaddr *)&sa, sizeof(sa)) ==
	       (ssize_t)len;
}

/* The next PFC frame client @fd gets within @ms: its class 3 quanta, or -1. */
static int next_pfc(int fd, int ms)
{
	struct timeval tv = { .tv_sec = ms / 1000, .tv_usec = ms % 1000 * 1000 };
	uint16_t q[PFC_PRIOS];
	uint8_t f[2048], en;
	ssize_t n;

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	while ((n = recv(fd, f, sizeof(f), 0)) > 0)
		if (pfc_frame_parse(f, (size_t)n, &en, q) && (en & (1u << 3)))
			return q[3];
	return -1;
}

static bool log_has(const char *what)
{
	char line[1024];
	FILE *f = fopen(log_path, "r");
	bool found = false;

	while (f && !found && fgets(line, sizeof(line), f))
		found = strstr(line, what) != NULL;
	if (f)
		fclose(f);
	return found;
}

static void test_switch_storm(void)
{
	const char *argv[] = {
		wire_bin, "--socket", sw_path, "--log", log_path,
		"--link-rate", "100", "--queue-bytes", "16384",
		"--pfc", "3", "--pfc-storm-ms", "300", NULL,
	};
	uint8_t f[FRAME_LEN];
	int fd[2], sent = 0, q3, resumed = -1;
	pid_t sw = -1;
	bool ok;

	unlink(log_path);
	for (int c = 0; c < 2; c++)
		fd[c] = wire_bind_dgram(cl_path[c], SOCK_CLOEXEC);
	ok = wire_start(&sw, sw_path, WAIT_MS, argv);
	CHECK(ok);
	/* Each says hello: the switch learns both. */
	for (int c = 0; ok && c < 2; c++) {
		build_ip(f, 64, c, (const uint8_t *)"\xff\xff\xff\xff\xff\xff", 0);
		CHECK(send_to_switch(fd[c], f, 64, 0));
	}
	usleep(100000);
	/*
	 * Client 0 sends class 3 (DSCP 24) to client 1, which reads nothing,
	 * as long as the switch takes them: once the queue is full it keeps
	 * them in its input, and 0's sends find the socket full.
	 */
	build_ip(f, sizeof(f), 0, mac[1], 24);
	for (int i = 0; ok && i < 4000; i++) {
		if (!send_to_switch(fd[0], f, sizeof(f), MSG_DONTWAIT)) {
			if (errno != EAGAIN)
				CHECK(!"sendto");
			usleep(1000);
			continue;
		}
		sent++;
	}
	/* A pause for class 3, then, after the watchdog's flush, a resume. */
	q3 = next_pfc(fd[0], WAIT_MS);
	CHECK(q3 == PFC_QUANTA_MAX);
	for (int i = 0; i < 20 && resumed != 0; i++)
		resumed = next_pfc(fd[0], WAIT_MS);
	CHECK(resumed == 0);
	CHECK(wire_stop(sw));
	printf("# sent %d; switch: pause %llu resume %llu storms %llu, lossless drops %llu, flushed %llu\n",
	       sent, wire_exit_count(log_path, "pause"),
	       wire_exit_count(log_path, "resume"),
	       wire_exit_count(log_path, "storms"),
	       wire_exit_count(log_path, "drops"),
	       wire_exit_count(log_path, "flushed"));
	CHECK(wire_exit_count(log_path, "pause") >= 1);
	CHECK(wire_exit_count(log_path, "resume") >= 1);
	CHECK(wire_exit_count(log_path, "storms") >= 1);
	CHECK(wire_exit_count(log_path, "flushed") > 0);
	/* Nothing was dropped for want of room while the class was lossless. */
	CHECK(wire_exit_count(log_path, "drops") == 0);
	CHECK(log_has("pfc storm: class 3 sent nothing for"));
	for (int c = 0; c < 2; c++) {
		close(fd[c]);
		unlink(cl_path[c]);
	}
	ktap_case_end("stuck_lossless_queue_pauses_its_sender_watchdog_flushes_and_resumes");
}

/* A PFC frame from a client reaches no other client; a broadcast does. */
static void test_link_local(void)
{
	const char *argv[] = {
		wire_bin, "--socket", sw_path, "--log", log_path, NULL,
	};
	uint16_t q[PFC_PRIOS] = { 0, 0, 0, 0xffff };
	uint8_t f[PFC_FRAME_LEN], b[64], got[2048];
	struct timeval tv = { .tv_sec = 2 };
	int fd[2], pfc_seen = 0, bcast_seen = 0;
	pid_t sw = -1;
	ssize_t n;

	unlink(log_path);
	for (int c = 0; c < 2; c++)
		fd[c] = wire_bind_dgram(cl_path[c], SOCK_CLOEXEC);
	CHECK(wire_start(&sw, sw_path, WAIT_MS, argv));
	build_ip(b, sizeof(b), 1, (const uint8_t *)"\xff\xff\xff\xff\xff\xff", 0);
	CHECK(send_to_switch(fd[1], b, sizeof(b), 0));	/* 1 is known */
	usleep(100000);
	pfc_frame_build(f, mac[0], 1u << 3, q);
	CHECK(send_to_switch(fd[0], f, sizeof(f), 0));
	build_ip(b, sizeof(b), 0, (const uint8_t *)"\xff\xff\xff\xff\xff\xff", 0);
	CHECK(send_to_switch(fd[0], b, sizeof(b), 0));
	setsockopt(fd[1], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	while (!bcast_seen && (n = recv(fd[1], got, sizeof(got), 0)) > 0) {
		pfc_seen += pfc_is_mac_control(got, (size_t)n);
		bcast_seen += !memcmp(got + 6, mac[0], 6) && got[12] == 0x08;
	}
	CHECK(bcast_seen == 1 && pfc_seen == 0);
	CHECK(wire_stop(sw));
	CHECK(wire_exit_count(log_path, "link_local") == 1);
	for (int c = 0; c < 2; c++) {
		close(fd[c]);
		unlink(cl_path[c]);
	}
	ktap_case_end("pfc_frame_from_a_port_is_not_forwarded");
}

int main(void)
{
	ktap_plan(4);
	test_frame();
	test_decision();
	wire_find_binary(wire_bin, sizeof(wire_bin));
	snprintf(dir, sizeof(dir), "/tmp/orca-pfc.XXXXXX");
	if (access(wire_bin, X_OK) || !mkdtemp(dir)) {
		printf("# %s: no orca-wire, or no temporary directory\n",
		       wire_bin);
		CHECK(false);
		ktap_case_end("stuck_lossless_queue_pauses_its_sender_watchdog_flushes_and_resumes");
		CHECK(false);
		ktap_case_end("pfc_frame_from_a_port_is_not_forwarded");
		return ktap_finish();
	}
	snprintf(sw_path, sizeof(sw_path), "%s/switch", dir);
	snprintf(log_path, sizeof(log_path), "%s/wire.log", dir);
	for (int c = 0; c < 2; c++)
		snprintf(cl_path[c], sizeof(cl_path[c]), "%s/client%d", dir, c);
	test_switch_storm();
	test_link_local();
	if (!getenv("ORCA_KEEP_LOG"))
		unlink(log_path);
	rmdir(dir);
	return ktap_finish();
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The wire does not lose frames on its own: adapters' ports (port.c) on
 * shared-memory links to the orca-wire switch process.
 *
 *  - A fast sender and a deliberately slow receiver: every frame arrives,
 *    in order, byte for byte, and nothing is dropped anywhere (the ports'
 *    and the switch's drop counters stay 0): a full ring is backpressure.
 *  - A receiver that stops reading is given up on (its frames dropped)
 *    without stopping the rest of the wire; one that exits is forgotten;
 *    a switch that exits does not leave a sender waiting.
 *  - With --link-rate, an adapter's frames enter the switch no faster
 *    than its link: to two ports at once they share that rate.
 *
 * The switch binary is $ORCA_WIRE_BIN if set, else orca-wire next to the
 * tests' directory; the cases are skipped when it cannot be run.
 * ORCA_TEST_WIRE_DGRAM=1 runs the ports on datagram sockets instead (the
 * old wire), to show that the first case fails there.
 */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
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
#include "port/port.h"

#define NPORTS		3
#define QUIET_S		10	/* no frame for this long: no more come */
#define MAX_LEN		4200
#define N_SLOW		6000	/* frames to the slow receiver */
#define N_STUCK		2000	/* frames to a receiver that stopped */
#define N_AFTER		500

static char wire_bin[PATH_MAX];
static char dir[64], sw_path[128], log_path[128];
static char qemu_path[NPORTS][128];
static int qemu_fd[NPORTS];
static pid_t sw_pid;
static bool use_shm = true;

static const uint8_t macs[NPORTS][6] = {
	{ 0x52, 0x54, 0x00, 0x0d, 0xcb, 0x01 },
	{ 0x52, 0x54, 0x00, 0x0d, 0xcb, 0x02 },
	{ 0x52, 0x54, 0x00, 0x0d, 0xcb, 0x03 },
};

/* What one port's engine hook saw. */
struct sink {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned int next;	/* sequence number expected next */
	unsigned int got;	/* frames in order and intact */
	unsigned int bad;	/* out of order or corrupted */
	unsigned int slow_every;	/* sleep after this many */
	bool stuck;		/* hold the port thread until released */
	int src;		/* the sender's port */
};

static struct sink sinks[NPORTS];
static struct emu_port *ports[NPORTS];

/* The switch; with @rate (Mb/s) its links modelled (--link-rate). */
static bool start_switch_at(const char *rate)
{
	const char *argv[] = {
		wire_bin, "--socket", sw_path, "--log", log_path,
		rate ? "--link-rate" : NULL, rate, "--queue-bytes", "16777216",
		NULL,
	};

	unlink(log_path);
	return wire_start(&sw_pid, sw_path, 10000, argv);
}

static bool start_switch(void)
{
	return start_switch_at(NULL);
}

static void stop_switch(void)
{
	wire_stop(sw_pid);
}

static bool log_contains(const char *what)
{
	char line[1024];
	bool found = false;
	FILE *f = fopen(log_path, "r");

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, what) != NULL;
	fclose(f);
	return found;
}

static void print_exit_line(void)
{
	char line[1024];
	FILE *f = fopen(log_path, "r");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "exit:") || strstr(line, "gone"))
			printf("# %s", line);
	fclose(f);
}

/*
 * Frame @seq from port @src to @dst: Ethernet + IPv4 + UDP 4791 + a BTH's
 * worth of zeros (the port diverts it to the engine by that alone), then a
 * payload that depends on @seq, of a length that does too.
 */
static size_t build(uint8_t *f, int src, const uint8_t *dst, unsigned int seq)
{
	size_t len = 60 + (seq * 97u) % (MAX_LEN - 60);
	size_t i;

	memset(f, 0, 42 + 12);
	memcpy(f, dst, 6);
	memcpy(f + 6, macs[src], 6);
	f[12] = 0x08;				/* IPv4 */
	f[14] = 0x45;
	f[16] = (uint8_t)((len - 14) >> 8);
	f[17] = (uint8_t)(len - 14);
	f[22] = 64;
	f[23] = 17;				/* UDP */
	f[36] = 4791 >> 8;
	f[37] = 4791 & 0xff;
	f[38] = (uint8_t)((len - 34) >> 8);
	f[39] = (uint8_t)(len - 34);
	memcpy(f + 54, &seq, sizeof(seq));
	for (i = 58; i < len; i++)
		f[i] = (uint8_t)(seq * 31 + i);
	return len;
}

static bool port_rx(void *ctx, const uint8_t *frame, size_t len)
{
	struct sink *s = ctx;
	static __thread uint8_t want[MAX_LEN];
	unsigned int seq;

	if (len < 58)
		return true;
	memcpy(&seq, frame + 54, sizeof(seq));
	pthread_mutex_lock(&s->lock);
	while (s->stuck)
		pthread_cond_wait(&s->cond, &s->lock);
	if (seq == s->next &&
	    build(want, s->src, frame, seq) == len && !memcmp(want, frame, len))
		s->got++;
	else
		s->bad++;
	s->next = seq + 1;
	pthread_cond_broadcast(&s->cond);
	pthread_mutex_unlock(&s->lock);
	/*
	 * Slow: a short pause often, and now and then one as long as a
	 * descheduled emulator's (longer than any datagram send timeout).
	 */
	if (s->slow_every && seq % s->slow_every == 0)
		usleep(seq % 1000 ? 1000 : 50000);
	return true;
}

/*
 * Wait until sink @i has seen @n frames, or none for QUIET_S (a hang
 * guard: frames that were lost never come, and nothing here is timed).
 */
static bool wait_got(int i, unsigned int n)
{
	struct sink *s = &sinks[i];
	unsigned int seen = 0;
	struct timespec ts;
	bool ok;

	pthread_mutex_lock(&s->lock);
	while (s->got + s->bad < n) {
		seen = s->got + s->bad;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += QUIET_S;
		while (s->got + s->bad == seen &&
		       pthread_cond_timedwait(&s->cond, &s->lock, &ts) == 0)
			;
		if (s->got + s->bad == seen)
			break;
	}
	ok = s->got == n && s->bad == 0;
	if (!ok)
		printf("# port %d: %u of %u in order and intact, %u bad\n",
		       i, s->got, n, s->bad);
	pthread_mutex_unlock(&s->lock);
	return ok;
}

static void reset_sink(int i, int src, unsigned int slow_every)
{
	struct sink *s = &sinks[i];

	pthread_mutex_lock(&s->lock);
	s->next = s->got = s->bad = 0;
	s->src = src;
	s->slow_every = slow_every;
	pthread_mutex_unlock(&s->lock);
}

/* The switch knows a port once it has sent something: say hello. */
static void hello(int i)
{
	uint8_t f[60] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

	memcpy(f + 6, macs[i], 6);
	f[12] = 0x88;
	f[13] = 0xb5;				/* local experimental */
	port_send_roce(ports[i], f, sizeof(f));
}

/*
 * Port @i with a stand-in for QEMU (a bound socket nobody needs to read:
 * only the hello broadcasts go there).
 */
static struct emu_port *port_up(int i)
{
	char nic[128], wire[128];
	struct emu_port_config pc = {
		.nic_path = nic, .nic_peer = qemu_path[i], .wire_path = wire,
		.switch_path = sw_path, .wire_shm = use_shm,
	};

	snprintf(nic, sizeof(nic), "%s/nic%d", dir, i);
	snprintf(wire, sizeof(wire), "%s/wire%d", dir, i);
	memcpy(pc.mac, macs[i], 6);
	return port_start(&pc, port_rx, &sinks[i]);
}

static bool ports_up(int n)
{
	for (int i = 0; i < n; i++) {
		ports[i] = port_up(i);
		if (!ports[i])
			return false;
		if (use_shm && !port_wire_is_shm(ports[i]))
			return false;
	}
	for (int i = 0; i < n; i++)
		hello(i);
	/* Every MAC is learnt once each port has seen the others' hellos. */
	for (int i = 0; i < n; i++) {
		struct emu_port_stats st;
		int tries = 0;

		do {
			usleep(10000);
			port_get_stats(ports[i], &st);
		} while (st.wire_to_nic < (uint64_t)n - 1 && ++tries < 1000);
	}
	return true;
}

static void ports_down(int n)
{
	for (int i = 0; i < n; i++) {
		if (ports[i])
			port_stop(ports[i]);
		ports[i] = NULL;
	}
}

static uint64_t dropped(int i)
{
	struct emu_port_stats st;

	port_get_stats(ports[i], &st);
	return st.dropped;
}

static unsigned int send_n(int src, int dst, unsigned int n)
{
	static uint8_t f[MAX_LEN];
	unsigned int i, fails = 0;

	for (i = 0; i < n; i++) {
		size_t len = build(f, src, macs[dst], i);

		if (port_send_roce(ports[src], f, len))
			fails++;
	}
	return fails;
}

static void test_slow_receiver(void)
{
	bool ok = start_switch() && ports_up(2);

	CHECK(ok);
	if (ok) {
		reset_sink(1, 0, 8);
		CHECK(send_n(0, 1, N_SLOW) == 0);
		CHECK(wait_got(1, N_SLOW));
		CHECK(dropped(0) == 0 && dropped(1) == 0);
	}
	ports_down(2);
	stop_switch();
	print_exit_line();
	CHECK(log_contains("exit: received"));
	CHECK(log_contains(" send_errors 0 stall_dropped 0 ") ||
	      (!use_shm && log_contains(" send_errors 0 ")));
	CHECK(log_contains(" fault_dropped 0 "));
	ktap_case_end("slow_receiver_loses_nothing_in_order_byte_for_byte");
}

static void set_stuck(int i, bool stuck)
{
	pthread_mutex_lock(&sinks[i].lock);
	sinks[i].stuck = stuck;
	pthread_cond_broadcast(&sinks[i].cond);
	pthread_mutex_unlock(&sinks[i].lock);
}

static void test_dead_peers(void)
{
	bool ok = start_switch() && ports_up(3);
	unsigned int fails;

	CHECK(ok);
	if (ok) {
		/* Port 2 stops reading: frames to it are dropped, in time. */
		reset_sink(2, 0, 0);
		set_stuck(2, true);
		send_n(0, 2, N_STUCK);
		/* ... and the wire still works for the others, losslessly. */
		reset_sink(1, 0, 0);
		CHECK(send_n(0, 1, N_AFTER) == 0);
		CHECK(wait_got(1, N_AFTER));
		set_stuck(2, false);

		/* Port 2 goes away: forgotten, its MAC flooded again. */
		port_stop(ports[2]);
		ports[2] = NULL;
		send_n(0, 2, 10);
		reset_sink(1, 0, 0);
		CHECK(send_n(0, 1, N_AFTER) == 0);
		CHECK(wait_got(1, N_AFTER));

		/* The switch goes away: a sender gets an error, not a hang. */
		stop_switch();
		fails = 0;
		for (int i = 0; i < 100000 && !fails; i++)
			fails = send_n(0, 1, 1);
		CHECK(fails == 1);
	} else {
		stop_switch();
	}
	ports_down(3);
	print_exit_line();
	CHECK(log_contains("gone"));
	CHECK(!log_contains(" stall_dropped 0 "));
	ktap_case_end("stopped_or_gone_peers_do_not_stall_the_wire");
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * --link-rate 100: port 0's frames (no engine behind it to pace them) go
 * to ports 1 and 2 in turn, each port's egress at 100 Mb/s.  The switch
 * takes port 0's frames no faster than its own link's 100 Mb/s, so both
 * together get 100 Mb/s, not 200; every frame arrives, in order, intact.
 */
static void test_ingress_rate(void)
{
	static uint8_t f[MAX_LEN];
	bool ok = start_switch_at("100") && ports_up(3);
	unsigned int fails = 0;
	double t0, secs, mbps;
	uint64_t bytes = 0;

	CHECK(ok);
	if (ok) {
		reset_sink(1, 0, 0);
		reset_sink(2, 0, 0);
		t0 = now_s();
		for (unsigned int i = 0; i < 2 * N_AFTER; i++) {
			size_t len = build(f, 0, macs[1 + i % 2], i / 2);

			fails += port_send_roce(ports[0], f, len) != 0;
			bytes += len;
		}
		CHECK(fails == 0);
		CHECK(wait_got(1, N_AFTER) && wait_got(2, N_AFTER));
		secs = now_s() - t0;
		/* Less the bucket's burst of 1 ms, 12.5 KB at 100 Mb/s. */
		mbps = (bytes - 12500) * 8 / secs / 1e6;
		printf("# %llu bytes to two ports in %.3f s: %.1f Mb/s through a 100 Mb/s link\n",
		       (unsigned long long)bytes, secs, mbps);
		CHECK(mbps > 60 && mbps < 110);
	}
	ports_down(3);
	stop_switch();
	CHECK(log_contains(" stall_dropped 0 "));
	ktap_case_end("an_adapters_frames_enter_at_its_links_rate");
}

int main(void)
{
	int i;

	ktap_plan(3);
	wire_find_binary(wire_bin, sizeof(wire_bin));
	if (getenv("ORCA_TEST_WIRE_DGRAM"))
		use_shm = false;
	snprintf(dir, sizeof(dir), "/tmp/orca-wire-lossless.XXXXXX");
	if (access(wire_bin, X_OK) || !mkdtemp(dir)) {
		ktap_skip("slow_receiver_loses_nothing", "no orca-wire");
		ktap_skip("stopped_or_gone_peers", "no orca-wire");
		ktap_skip("frames_enter_at_the_links_rate", "no orca-wire");
		return ktap_finish();
	}
	snprintf(sw_path, sizeof(sw_path), "%s/switch", dir);
	snprintf(log_path, sizeof(log_path), "%s/wire.log", dir);
	for (i = 0; i < NPORTS; i++) {
		pthread_mutex_init(&sinks[i].lock, NULL);
		pthread_cond_init(&sinks[i].cond, NULL);
		snprintf(qemu_path[i], sizeof(qemu_path[i]), "%s/qemu%d",
			 dir, i);
		qemu_fd[i] = wire_bind_dgram(qemu_path[i], 0);
	}

	test_slow_receiver();
	if (use_shm)
		test_dead_peers();
	else
		ktap_skip("stopped_or_gone_peers", "datagram wire");
	if (use_shm)
		test_ingress_rate();
	else
		ktap_skip("frames_enter_at_the_links_rate", "datagram wire");

	for (i = 0; i < NPORTS; i++) {
		close(qemu_fd[i]);
		unlink(qemu_path[i]);
	}
	unlink(log_path);
	rmdir(dir);
	return ktap_finish();
}

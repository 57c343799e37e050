// SPDX-License-Identifier: GPL-2.0
/*
 * The engine's sends on a datagram wire never wait (emulator/port/port.c).  The
 * engine sends under the DMA lock, so a send that sleeps in sendto() until
 * the switch makes room (it once did, up to wire_link_policy_dgram.wait_ms)
 * holds up a guest's memory map change and the engine's own receive path.
 * Here the switch is a datagram socket that never reads, and the test is
 * the engine: it calls port_send_roce_nowait() as the engine's backlog
 * does, again after each tx_ready call back.  Every call must return at
 * once; a full switch is -EBUSY (the frame kept, as with a full ring) until
 * it has been full for wait_ms, then the frame is dropped and counted for
 * RoCE's retransmission to recover, and while the switch is stalled frames
 * are dropped at once; the stall ends with the first frame it takes.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "util/clock.h"
#include "ktap.h"
#include "wire_harness.h"
#include "wire/link_policy.h"
#include "port/port.h"

#define FRAME_LEN	1000
#define MAX_SENDS	100000	/* far more than any unix socket queues */
#define CALLBACK_MS	1000	/* a tx_ready call back comes within */
/*
 * A call that took this long and slept (the thread gave up the CPU of its
 * own: a voluntary context switch) waited for the switch.  Half of the
 * wait the old sendto() slept, which is far more than a sendto() that
 * does not wait takes even on a loaded machine; preemption is not sleep.
 */
#define SLEPT_NS	(wire_link_policy_dgram.wait_ms * 1000000ull / 2)

static const uint8_t port_mac[6] = { 0x52, 0x54, 0x00, 0x0d, 0xca, 0x01 };
static const uint8_t peer_mac[6] = { 0x52, 0x54, 0x00, 0x0d, 0xca, 0x02 };

static char dir[64];
static char nic_path[128], qemu_path[128], wire_path[128], switch_path[128];
static int qemu_fd, switch_fd;
static struct emu_port *port;
static uint8_t frame[FRAME_LEN];

/* The engine's side of the call back (engine_roce_tx_ready()). */
static pthread_mutex_t cb_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cb_cond = PTHREAD_COND_INITIALIZER;
static unsigned int callbacks;

/* What the sends cost the caller: the longest, and the ones that slept. */
static uint64_t longest_ns;
static unsigned int slept;

static void tx_ready(void *ctx)
{
	pthread_mutex_lock(&cb_lock);
	callbacks++;
	pthread_cond_broadcast(&cb_cond);
	pthread_mutex_unlock(&cb_lock);
}

static unsigned int callbacks_seen(void)
{
	unsigned int n;

	pthread_mutex_lock(&cb_lock);
	n = callbacks;
	pthread_mutex_unlock(&cb_lock);
	return n;
}

/* Wait for a call back after the @seen-th; false if none came. */
static bool wait_callback(unsigned int seen)
{
	struct timespec ts;
	bool ok;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += CALLBACK_MS / 1000;
	pthread_mutex_lock(&cb_lock);
	while (callbacks == seen &&
	       pthread_cond_timedwait(&cb_cond, &cb_lock, &ts) == 0)
		;
	ok = callbacks != seen;
	pthread_mutex_unlock(&cb_lock);
	return ok;
}

static long voluntary_switches(void)
{
	struct rusage ru;

	getrusage(RUSAGE_THREAD, &ru);
	return ru.ru_nvcsw;
}

/* One engine send, timed. */
static int send_one(void)
{
	long vcsw = voluntary_switches();
	uint64_t t0 = now_ns(), ns;
	int ret;

	ret = port_send_roce_nowait(port, frame, sizeof(frame));
	ns = now_ns() - t0;
	if (ns > longest_ns)
		longest_ns = ns;
	if (ns >= SLEPT_NS && voluntary_switches() != vcsw) {
		printf("# a send slept %llu us (returned %d)\n",
		       (unsigned long long)(ns / 1000), ret);
		slept++;
	}
	return ret;
}

static void put_be16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v & 0xff;
}

/* A RoCEv2 frame (UDP to 4791) from the port to its peer. */
static void build_frame(void)
{
	uint8_t *ip = frame + 14, *udp = ip + 20;

	memcpy(frame, peer_mac, 6);
	memcpy(frame + 6, port_mac, 6);
	put_be16(frame + 12, 0x0800);
	ip[0] = 0x45;
	put_be16(ip + 2, FRAME_LEN - 14);
	ip[8] = 64;
	ip[9] = 17;
	put_be16(udp, 0xc001);
	put_be16(udp + 2, 4791);
	put_be16(udp + 4, FRAME_LEN - 34);
}

static unsigned int drain_switch(void)
{
	uint8_t buf[FRAME_LEN + 1];
	unsigned int n = 0;

	while (recv(switch_fd, buf, sizeof(buf), MSG_DONTWAIT) >= 0)
		n++;
	return n;
}

/*
 * Fill the switch's queue, then keep offering the frame it has no room
 * for, as the engine would: at first it is kept (-EBUSY) and the port
 * calls back; once the switch has been full for wait_ms it is dropped.
 */
static void test_full_switch(void)
{
	struct emu_port_stats before, after;
	unsigned int sent = 0, busy = 0, seen;
	uint64_t t_full, waited_ms;
	int ret = 0;

	port_get_stats(port, &before);
	for (;;) {
		/* Before the send: the port saw the switch full after it. */
		t_full = now_ms();
		ret = send_one();
		if (ret || ++sent == MAX_SENDS)
			break;
	}
	printf("# the switch took %u frames, then %d\n", sent, ret);
	CHECK(sent > 0 && sent < MAX_SENDS);
	CHECK(ret == -EBUSY);
	while (ret == -EBUSY && busy < MAX_SENDS) {
		busy++;
		seen = callbacks_seen();
		if (!wait_callback(seen)) {
			CHECK(!"the port called back after -EBUSY");
			break;
		}
		ret = send_one();
	}
	waited_ms = now_ms() - t_full;
	printf("# -EBUSY %u times, then %d after %llu ms, %u call backs\n",
	       busy, ret, (unsigned long long)waited_ms, callbacks_seen());
	/* Dropped: not taken, not kept, and the wait was the policy's. */
	CHECK(ret != 0 && ret != -EBUSY);
	CHECK(waited_ms >= wire_link_policy_dgram.wait_ms);
	CHECK(waited_ms < 10ull * wire_link_policy_dgram.wait_ms + CALLBACK_MS);
	port_get_stats(port, &after);
	CHECK(after.roce_tx == before.roce_tx + sent);
	CHECK(after.dropped == before.dropped + 1);
	CHECK(after.drop_to_wire == before.drop_to_wire + 1);
	ktap_case_end("full_datagram_switch_is_busy_then_dropped_to");
}

/* Stalled: dropped at once, counted; a frame taken ends the stall. */
static void test_stalled_switch(void)
{
	struct emu_port_stats before, after;
	int ret;

	port_get_stats(port, &before);
	ret = send_one();
	CHECK(ret != 0 && ret != -EBUSY);
	port_get_stats(port, &after);
	CHECK(after.dropped == before.dropped + 1);
	CHECK(after.drop_to_wire == before.drop_to_wire + 1);
	CHECK(drain_switch() > 0);
	CHECK(send_one() == 0);
	/* Not stalled any more: full again is -EBUSY, not a drop. */
	while ((ret = send_one()) == 0)
		;
	CHECK(ret == -EBUSY);
	drain_switch();
	ktap_case_end("stalled_switch_dropped_to_until_it_takes_a_frame");
}

static void test_never_slept(void)
{
	printf("# longest send %llu us, %u slept\n",
	       (unsigned long long)(longest_ns / 1000), slept);
	CHECK(slept == 0);
	ktap_case_end("engine_sends_never_sleep");
}

int main(void)
{
	struct emu_port_config cfg = { 0 };

	snprintf(dir, sizeof(dir), "/tmp/orca-test-dgram-tx.XXXXXX");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 2;
	}
	snprintf(nic_path, sizeof(nic_path), "%s/nic", dir);
	snprintf(qemu_path, sizeof(qemu_path), "%s/qemu", dir);
	snprintf(wire_path, sizeof(wire_path), "%s/wire", dir);
	snprintf(switch_path, sizeof(switch_path), "%s/switch", dir);
	qemu_fd = wire_bind_dgram(qemu_path, 0);
	switch_fd = wire_bind_dgram(switch_path, 0);
	build_frame();

	cfg.nic_path = nic_path;
	cfg.nic_peer = qemu_path;
	cfg.wire_path = wire_path;
	cfg.switch_path = switch_path;
	cfg.tx_ready = tx_ready;
	memcpy(cfg.mac, port_mac, 6);

	ktap_plan(3);
	port = port_start(&cfg, NULL, NULL);
	if (!port) {
		perror("port_start");
		return 1;
	}
	CHECK(!port_wire_is_shm(port));
	test_full_switch();
	test_stalled_switch();
	test_never_slept();
	port_stop(port);

	close(qemu_fd);
	close(switch_fd);
	unlink(qemu_path);
	unlink(switch_path);
	rmdir(dir);
	return ktap_finish();
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Unit test of the adapter's Ethernet port (emulator/port/port.c): the test
 * plays QEMU's virtio-net backend and the wire switch with two datagram
 * sockets in a temporary directory and checks what the port forwards where.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "ktap.h"
#include "wire_harness.h"
#include "port/port.h"

#define MAX_FRAME	9018
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define WAIT_MS		2000
#define QUIET_MS	100

static const uint8_t port_mac[6] = { 0x52, 0x54, 0x00, 0x0d, 0xca, 0x01 };
static const uint8_t peer_mac[6] = { 0x52, 0x54, 0x00, 0x0d, 0xca, 0x02 };
static const uint8_t other_mac[6] = { 0x52, 0x54, 0x00, 0x0d, 0xca, 0x03 };
static const uint8_t bcast_mac[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
/* build_udp()'s source: the peer's for frames from the wire, ours outward. */
static const uint8_t *udp_src = peer_mac;

static char dir[64];
static char nic_path[128], qemu_path[128], wire_path[128], switch_path[128];
static int qemu_fd, switch_fd;
static struct emu_port *port;

/* What the RDMA engine callback saw. */
static pthread_mutex_t rx_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t rx_cond = PTHREAD_COND_INITIALIZER;
static uint8_t rx_frame[MAX_FRAME];
static size_t rx_len;
static int rx_count;

static bool roce_rx(void *ctx, const uint8_t *frame, size_t len)
{
	pthread_mutex_lock(&rx_lock);
	memcpy(rx_frame, frame, len < MAX_FRAME ? len : MAX_FRAME);
	rx_len = len;
	rx_count++;
	pthread_cond_broadcast(&rx_cond);
	pthread_mutex_unlock(&rx_lock);
	CHECK(ctx == &rx_count);
	return true;
}

static int rx_seen(void)
{
	int n;

	pthread_mutex_lock(&rx_lock);
	n = rx_count;
	pthread_mutex_unlock(&rx_lock);
	return n;
}

/* Wait until the callback has run @n times in total (or time out). */
static bool wait_rx(int n)
{
	struct timespec ts;
	bool ok;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += WAIT_MS / 1000;
	pthread_mutex_lock(&rx_lock);
	while (rx_count < n &&
	       pthread_cond_timedwait(&rx_cond, &rx_lock, &ts) == 0)
		;
	ok = rx_count >= n;
	pthread_mutex_unlock(&rx_lock);
	return ok;
}

static int send_to(int fd, const char *path, const void *buf, size_t len)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	return sendto(fd, buf, len, 0, (struct sockaddr *)&sa, sizeof(sa)) ==
	       (ssize_t)len ? 0 : -1;
}

/* Receive one datagram within @ms; its length or -1. */
static ssize_t recv_within(int fd, void *buf, size_t size, int ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	if (poll(&pfd, 1, ms) != 1)
		return -1;
	return recv(fd, buf, size, MSG_DONTWAIT);
}

/* Drop anything queued on the test's sockets between cases. */
static void drain(void)
{
	uint8_t buf[MAX_FRAME];

	while (recv_within(qemu_fd, buf, sizeof(buf), 0) >= 0)
		;
	while (recv_within(switch_fd, buf, sizeof(buf), 0) >= 0)
		;
}

static void put_be16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v & 0xff;
}

/*
 * Build Ethernet [+ VLAN] + IPv4/IPv6 + UDP(dport) + a patterned payload.
 * Returns the frame length.
 */
static size_t build_udp(uint8_t *f, const uint8_t *dst, bool ipv6, bool vlan,
			uint16_t dport, size_t payload)
{
	size_t off = 12, l3, i;

	memset(f, 0, (vlan ? 4 : 0) + 14 + 48 + payload);
	memcpy(f, dst, 6);
	memcpy(f + 6, udp_src, 6);
	if (vlan) {
		put_be16(f + off, 0x8100);
		put_be16(f + off + 2, 5);
		off += 4;
	}
	put_be16(f + off, ipv6 ? 0x86dd : 0x0800);
	l3 = off + 2;
	if (ipv6) {
		f[l3] = 0x60;
		put_be16(f + l3 + 4, 8 + payload);
		f[l3 + 6] = 17;
		f[l3 + 7] = 64;
		off = l3 + 40;
	} else {
		f[l3] = 0x45;
		put_be16(f + l3 + 2, 28 + payload);
		put_be16(f + l3 + 6, 0x4000);	/* DF */
		f[l3 + 8] = 64;
		f[l3 + 9] = 17;
		off = l3 + 20;
	}
	put_be16(f + off, 0xc001);
	put_be16(f + off + 2, dport);
	put_be16(f + off + 4, 8 + payload);
	off += 8;
	for (i = 0; i < payload; i++)
		f[off + i] = (uint8_t)(i * 7 + 3);
	return off + payload;
}

/* Send @f from the wire side; expect it byte-for-byte at virtio-net. */
static bool wire_frame_reaches_nic(const uint8_t *f, size_t len)
{
	uint8_t got[MAX_FRAME + 1];
	ssize_t n;

	if (send_to(switch_fd, wire_path, f, len))
		return false;
	n = recv_within(qemu_fd, got, sizeof(got), WAIT_MS);
	return n == (ssize_t)len && memcmp(got, f, len) == 0;
}

/* Send @f from the wire side; expect the engine callback to get it. */
static bool wire_frame_reaches_engine(const uint8_t *f, size_t len)
{
	uint8_t got[MAX_FRAME];
	int seen = rx_seen();
	bool same;

	if (send_to(switch_fd, wire_path, f, len) || !wait_rx(seen + 1))
		return false;
	pthread_mutex_lock(&rx_lock);
	same = rx_len == len && memcmp(rx_frame, f, len) == 0;
	pthread_mutex_unlock(&rx_lock);
	/* and nothing leaked to virtio-net */
	return same && recv_within(qemu_fd, got, sizeof(got), QUIET_MS) < 0;
}

/* Drops counted as "not taken by the guest" so far, for later cases. */
static uint64_t to_nic_drops;

/*
 * Before the guest's virtio-net driver is up QEMU does not read: what the
 * port cannot deliver to the guest is dropped and counted apart (as
 * to_nic_dropped, and in dropped).
 */
static void test_nic_not_up(void)
{
	static uint8_t f[MAX_FRAME];
	struct emu_port_stats st;
	size_t len;
	int i;

	len = build_udp(f, bcast_mac, false, false, 67, 300);
	for (i = 0; i < 64; i++)
		send_to(switch_fd, wire_path, f, len);
	/* The port is done with them when a RoCE frame behind them arrives. */
	len = build_udp(f, port_mac, false, false, 4791, 16);
	i = rx_seen();
	CHECK(send_to(switch_fd, wire_path, f, len) == 0);
	CHECK(wait_rx(i + 1));
	port_get_stats(port, &st);
	CHECK(st.dropped > 0 && st.to_nic_dropped == st.dropped);
	CHECK(st.wire_to_nic + st.dropped == 64);
	to_nic_drops = st.to_nic_dropped;
	drain();
	ktap_case_end("frames_the_guest_does_not_take_counted_apart");
}

static void test_nic_to_wire(void)
{
	static uint8_t f[MAX_FRAME], got[MAX_FRAME + 1];
	size_t sizes[] = { 14, 60, 1514, MAX_FRAME };
	struct emu_port_stats st;
	size_t i, len;
	ssize_t n;

	udp_src = port_mac;
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		len = build_udp(f, other_mac, false, false, 53, 0);
		for (len = 14; len < sizes[i]; len++)
			f[len] = (uint8_t)(len ^ i);
		CHECK(send_to(qemu_fd, nic_path, f, len) == 0);
		n = recv_within(switch_fd, got, sizeof(got), WAIT_MS);
		CHECK(n == (ssize_t)len);
		CHECK(n == (ssize_t)len && memcmp(got, f, len) == 0);
	}
	/* RoCE from the guest's own stack (rxe on virtio-net) is not ours. */
	len = build_udp(f, peer_mac, false, false, 4791, 32);
	CHECK(send_to(qemu_fd, nic_path, f, len) == 0);
	n = recv_within(switch_fd, got, sizeof(got), WAIT_MS);
	CHECK(n == (ssize_t)len && memcmp(got, f, len) == 0);
	port_get_stats(port, &st);
	CHECK(st.nic_to_wire == 5);
	/* Another source MAC (a spoofing guest) never reaches the wire. */
	udp_src = other_mac;
	len = build_udp(f, peer_mac, false, false, 53, 32);
	CHECK(send_to(qemu_fd, nic_path, f, len) == 0);
	CHECK(recv_within(switch_fd, got, sizeof(got), QUIET_MS) < 0);
	port_get_stats(port, &st);
	CHECK(st.nic_to_wire == 5 && st.bad_src_mac == 1);
	udp_src = peer_mac;
	ktap_case_end("nic_to_wire_byte_for_byte");
}

static void test_wire_to_nic(void)
{
	static uint8_t f[MAX_FRAME];
	size_t len;

	len = build_udp(f, port_mac, false, false, 80, 1000);
	CHECK(wire_frame_reaches_nic(f, len));
	len = build_udp(f, bcast_mac, false, false, 67, 300);
	CHECK(wire_frame_reaches_nic(f, len));
	/* a flooded unicast for someone else: virtio-net filters it */
	len = build_udp(f, other_mac, true, false, 443, 8900);
	CHECK(wire_frame_reaches_nic(f, len));
	ktap_case_end("wire_to_nic_byte_for_byte");
}

static void test_roce_ipv4(void)
{
	static uint8_t f[MAX_FRAME];
	struct emu_port_stats before, after;
	size_t len;

	port_get_stats(port, &before);
	len = build_udp(f, port_mac, false, false, 4791, 12 + 4);
	CHECK(wire_frame_reaches_engine(f, len));
	len = build_udp(f, port_mac, false, true, 4791, 1024 + 16);
	CHECK(wire_frame_reaches_engine(f, len));
	port_get_stats(port, &after);
	CHECK(after.roce_rx == before.roce_rx + 2);
	CHECK(after.wire_to_nic == before.wire_to_nic);
	ktap_case_end("roce_ipv4_to_engine");
}

static void test_roce_ipv6(void)
{
	static uint8_t f[MAX_FRAME];
	size_t len;

	len = build_udp(f, port_mac, true, false, 4791, 28);
	CHECK(wire_frame_reaches_engine(f, len));
	len = build_udp(f, port_mac, true, true, 4791, 4096 + 28);
	CHECK(wire_frame_reaches_engine(f, len));
	ktap_case_end("roce_ipv6_to_engine");
}

static void test_roce_group_and_foreign(void)
{
	static uint8_t f[MAX_FRAME];
	uint8_t mcast[6] = { 0x33, 0x33, 0, 0, 0, 1 };
	size_t len;

	len = build_udp(f, bcast_mac, false, false, 4791, 16);
	CHECK(wire_frame_reaches_engine(f, len));
	len = build_udp(f, mcast, true, false, 4791, 16);
	CHECK(wire_frame_reaches_engine(f, len));
	/* RoCE for another MAC (flooded) is not ours: virtio-net gets it */
	len = build_udp(f, other_mac, false, false, 4791, 16);
	CHECK(wire_frame_reaches_nic(f, len));
	ktap_case_end("roce_broadcast_multicast_and_foreign");
}

static void test_non_roce_udp(void)
{
	static uint8_t f[MAX_FRAME];
	size_t len;
	int before = rx_seen();

	len = build_udp(f, port_mac, false, false, 4790, 64);
	CHECK(wire_frame_reaches_nic(f, len));
	len = build_udp(f, port_mac, true, false, 4792, 64);
	CHECK(wire_frame_reaches_nic(f, len));
	/* source port 4791 is not RoCE */
	len = build_udp(f, port_mac, false, false, 9, 64);
	put_be16(f + 34, 4791);
	CHECK(wire_frame_reaches_nic(f, len));
	/* TCP to port 4791 is not RoCE */
	len = build_udp(f, port_mac, false, false, 4791, 64);
	f[23] = 6;
	CHECK(wire_frame_reaches_nic(f, len));
	/* a non-first IPv4 fragment has no UDP header */
	len = build_udp(f, port_mac, false, false, 4791, 64);
	put_be16(f + 20, 0x0010);
	CHECK(wire_frame_reaches_nic(f, len));
	CHECK(rx_seen() == before);
	ktap_case_end("non_roce_udp_passed_to_nic");
}

static void test_short_and_malformed(void)
{
	static uint8_t f[MAX_FRAME + 100], got[MAX_FRAME + 1];
	struct emu_port_stats before, after;
	size_t len, cut;
	int before_rx = rx_seen();

	port_get_stats(port, &before);
	/* not even an Ethernet header: dropped on both sides */
	CHECK(send_to(switch_fd, wire_path, f, 0) == 0);
	CHECK(send_to(switch_fd, wire_path, f, 1) == 0);
	CHECK(send_to(switch_fd, wire_path, f, 13) == 0);
	CHECK(send_to(qemu_fd, nic_path, f, 5) == 0);
	/* larger than a jumbo frame: dropped */
	memset(f, 0xab, sizeof(f));
	CHECK(send_to(switch_fd, wire_path, f, MAX_FRAME + 1) == 0);
	CHECK(send_to(qemu_fd, nic_path, f, MAX_FRAME + 100) == 0);
	CHECK(recv_within(qemu_fd, got, sizeof(got), QUIET_MS) < 0);
	CHECK(recv_within(switch_fd, got, sizeof(got), QUIET_MS) < 0);

	/* RoCE headers cut anywhere: passed on as plain frames, never RoCE */
	len = build_udp(f, port_mac, false, true, 4791, 0);
	for (cut = 14; cut < len; cut++)
		CHECK(wire_frame_reaches_nic(f, cut));
	len = build_udp(f, port_mac, true, false, 4791, 0);
	for (cut = 14; cut < len; cut++)
		CHECK(wire_frame_reaches_nic(f, cut));
	/* IPv4 header length below 20 and a wrong IP version */
	len = build_udp(f, port_mac, false, false, 4791, 8);
	f[14] = 0x44;
	CHECK(wire_frame_reaches_nic(f, len));
	f[14] = 0x65;
	CHECK(wire_frame_reaches_nic(f, len));
	/* IHL pointing past the frame */
	f[14] = 0x4f;
	CHECK(wire_frame_reaches_nic(f, 14 + 40));
	/* three stacked VLAN tags: more than we parse */
	len = build_udp(f, port_mac, false, false, 4791, 8);
	memmove(f + 24, f + 12, len - 12);
	put_be16(f + 12, 0x8100);
	put_be16(f + 16, 0x8100);
	put_be16(f + 20, 0x8100);
	CHECK(wire_frame_reaches_nic(f, len + 12));

	port_get_stats(port, &after);
	CHECK(after.dropped == before.dropped + 6);
	CHECK(after.to_nic_dropped == before.to_nic_dropped);
	CHECK(rx_seen() == before_rx);
	/* still alive */
	len = build_udp(f, port_mac, false, false, 4791, 16);
	CHECK(wire_frame_reaches_engine(f, len));
	ktap_case_end("short_and_malformed_frames");
}

/*
 * The VLAN rules are roce_classify()'s, as the parser's: RoCE behind one
 * 802.1Q tag goes to the engine; behind an 802.1ad tag or two tags it is
 * not RoCE to the adapter (the parser would drop it), so virtio-net gets it.
 */
static void test_roce_vlan_rules(void)
{
	static uint8_t f[MAX_FRAME];
	int before = rx_seen();
	size_t len;

	len = build_udp(f, port_mac, false, true, 4791, 16);
	CHECK(wire_frame_reaches_engine(f, len));
	put_be16(f + 12, 0x88a8);
	CHECK(wire_frame_reaches_nic(f, len));
	/* QinQ: 802.1ad outer tag, 802.1Q inner tag */
	memmove(f + 16, f + 12, len - 12);
	put_be16(f + 12, 0x88a8);
	put_be16(f + 14, 7);
	put_be16(f + 16, 0x8100);
	CHECK(wire_frame_reaches_nic(f, len + 4));
	/* two 802.1Q tags */
	put_be16(f + 12, 0x8100);
	CHECK(wire_frame_reaches_nic(f, len + 4));
	CHECK(rx_seen() == before + 1);
	len = build_udp(f, port_mac, true, true, 4791, 16);
	CHECK(wire_frame_reaches_engine(f, len));
	ktap_case_end("roce_vlan_rules_match_the_parser");
}

struct sender_arg {
	int id;
	int fails;
};

#define SENDS_PER_THREAD 200

static void *roce_sender(void *p)
{
	struct sender_arg *a = p;
	uint8_t f[256];
	int i;

	for (i = 0; i < SENDS_PER_THREAD; i++) {
		size_t len = build_udp(f, peer_mac, false, false, 4791, 64);

		f[len - 2] = (uint8_t)a->id;
		f[len - 1] = (uint8_t)i;
		if (port_send_roce(port, f, len))
			a->fails++;
	}
	return NULL;
}

/* Drain the switch side until @want frames or a quiet period. */
static void *switch_reader(void *p)
{
	int *count = p;
	uint8_t got[MAX_FRAME];

	while (*count < 2 * SENDS_PER_THREAD &&
	       recv_within(switch_fd, got, sizeof(got), WAIT_MS) > 0)
		(*count)++;
	return NULL;
}

static void test_send_roce(void)
{
	static uint8_t f[MAX_FRAME + 1], got[MAX_FRAME + 1];
	struct sender_arg a[2] = { { .id = 1 }, { .id = 2 } };
	struct emu_port_stats before, after;
	pthread_t t[2], r;
	int received = 0;
	size_t len;
	ssize_t n;

	port_get_stats(port, &before);
	udp_src = port_mac;
	len = build_udp(f, peer_mac, true, false, 4791, 100);
	CHECK(port_send_roce(port, f, len) == 0);
	n = recv_within(switch_fd, got, sizeof(got), WAIT_MS);
	CHECK(n == (ssize_t)len && memcmp(got, f, len) == 0);
	/* Whatever MAC the driver put in a GID, only ours leaves. */
	memcpy(f + 6, other_mac, 6);
	CHECK(port_send_roce(port, f, len) == -EPERM);
	CHECK(recv_within(switch_fd, got, sizeof(got), QUIET_MS) < 0);
	port_get_stats(port, &after);
	CHECK(after.bad_src_mac == before.bad_src_mac + 1);
	CHECK(after.roce_tx == before.roce_tx + 1);
	CHECK(port_send_roce(port, f, 13) == -EINVAL);
	CHECK(port_send_roce(port, f, MAX_FRAME + 1) == -EINVAL);
	CHECK(port_send_roce(port, NULL, 60) == -EINVAL);

	/* two engine threads at once, with the wire side reading */
	pthread_create(&r, NULL, switch_reader, &received);
	pthread_create(&t[0], NULL, roce_sender, &a[0]);
	pthread_create(&t[1], NULL, roce_sender, &a[1]);
	pthread_join(t[0], NULL);
	pthread_join(t[1], NULL);
	pthread_join(r, NULL);
	CHECK(a[0].fails == 0 && a[1].fails == 0);
	CHECK(received == 2 * SENDS_PER_THREAD);
	port_get_stats(port, &after);
	CHECK(after.roce_tx == before.roce_tx + 1 + 2 * SENDS_PER_THREAD);
	udp_src = peer_mac;
	ktap_case_end("port_send_roce_thread_safe");
}

/* A peer that stops reading must not stall the other direction. */
static void test_stalled_nic(void)
{
	static uint8_t f[MAX_FRAME], got[MAX_FRAME + 1];
	struct emu_port_stats st;
	size_t len;
	ssize_t n;
	int i;

	len = build_udp(f, port_mac, false, false, 80, 100);
	for (i = 0; i < 64; i++)
		send_to(switch_fd, wire_path, f, len);
	/* QEMU's socket is full and nobody reads it; the wire still works */
	len = build_udp(f, port_mac, false, false, 4791, 16);
	i = rx_seen();
	CHECK(send_to(switch_fd, wire_path, f, len) == 0);
	CHECK(wait_rx(i + 1));
	udp_src = port_mac;
	len = build_udp(f, other_mac, false, false, 80, 100);
	udp_src = peer_mac;
	CHECK(send_to(qemu_fd, nic_path, f, len) == 0);
	do {
		n = recv_within(switch_fd, got, sizeof(got), WAIT_MS);
	} while (n > 0 && memcmp(got, f, len));
	CHECK(n == (ssize_t)len);
	port_get_stats(port, &st);
	CHECK(st.dropped > 0);
	CHECK(st.to_nic_dropped > to_nic_drops);
	drain();
	ktap_case_end("stalled_nic_does_not_block_wire");
}

static void test_no_switch_and_stop(void)
{
	struct emu_port_config cfg = { 0 };
	struct emu_port_stats st;
	char n2[160], w2[160];
	uint8_t f[64] = { 0 };
	struct stat sb;
	struct emu_port *p2;

	snprintf(n2, sizeof(n2), "%s/nic2", dir);
	snprintf(w2, sizeof(w2), "%s/wire2", dir);
	cfg.nic_path = n2;
	cfg.nic_peer = qemu_path;
	cfg.wire_path = w2;
	p2 = port_start(&cfg, NULL, NULL);
	CHECK(p2);
	if (p2) {
		CHECK(send_to(qemu_fd, n2, f, sizeof(f)) == 0);
		CHECK(port_send_roce(p2, f, sizeof(f)) < 0);
		usleep(QUIET_MS * 1000);
		port_get_stats(p2, &st);
		CHECK(st.dropped == 2 && st.nic_to_wire == 0);
		port_stop(p2);
	}
	CHECK(stat(n2, &sb) < 0 && errno == ENOENT);
	CHECK(stat(w2, &sb) < 0 && errno == ENOENT);

	/* bad configurations fail cleanly */
	cfg.wire_path = NULL;
	CHECK(port_start(&cfg, NULL, NULL) == NULL && errno == EINVAL);
	cfg.wire_path = "/nonexistent-dir/orca/wire";
	CHECK(port_start(&cfg, NULL, NULL) == NULL);
	ktap_case_end("no_switch_bad_config_and_clean_stop");
}

int main(void)
{
	struct emu_port_config cfg = { 0 };
	struct stat sb;

	snprintf(dir, sizeof(dir), "/tmp/orca-test-port.XXXXXX");
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

	cfg.nic_path = nic_path;
	cfg.nic_peer = qemu_path;
	cfg.wire_path = wire_path;
	cfg.switch_path = switch_path;
	memcpy(cfg.mac, port_mac, 6);

	ktap_plan(12);
	port = port_start(&cfg, roce_rx, &rx_count);
	if (!port) {
		perror("port_start");
		return 1;
	}
	test_nic_not_up();
	test_nic_to_wire();
	test_wire_to_nic();
	test_roce_ipv4();
	test_roce_ipv6();
	test_roce_group_and_foreign();
	test_non_roce_udp();
	test_short_and_malformed();
	test_roce_vlan_rules();
	test_send_roce();
	test_stalled_nic();
	port_stop(port);
	CHECK(stat(nic_path, &sb) < 0 && stat(wire_path, &sb) < 0);
	test_no_switch_and_stop();

	close(qemu_fd);
	close(switch_fd);
	unlink(qemu_path);
	unlink(switch_path);
	rmdir(dir);
	return ktap_finish();
}

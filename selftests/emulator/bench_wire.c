// SPDX-License-Identifier: GPL-2.0
/*
 * bench_wire: frames per second through the wire, run by hand.  Starts an
 * orca-wire process, two adapters' ports (port.c) attached to it, and
 * sends frames from one port's engine side to the other's as fast as
 * port_send_roce() takes them; reports what arrived, how fast, and what
 * was lost.
 *
 * Usage: bench_wire [--dgram] [--wire PATH] [--frames N] [--size BYTES]
 *                   [--one-by-one]
 *
 * --one-by-one sends each frame only once the previous one has arrived
 * and reports the latency (mean and worst) instead: a lost wake-up shows
 * there as a frame that arrives late, or never.
 * --dgram keeps the ports on datagram sockets (the wire before shared-
 * memory links); --wire names the orca-wire binary (default: next to this
 * one), e.g. an older build to compare with.
 */
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/clock.h"
#include "wire_harness.h"
#include "port/port.h"

static const uint8_t mac[2][6] = {
	{ 0x52, 0x54, 0x00, 0x0d, 0xcc, 0x01 },
	{ 0x52, 0x54, 0x00, 0x0d, 0xcc, 0x02 },
};

static atomic_ulong received;
static atomic_ullong last_rx_ns;

static bool rx(void *ctx, const uint8_t *frame, size_t len)
{
	/* The time first: whoever sees the count sees its time too. */
	atomic_store(&last_rx_ns, now_ns());
	atomic_fetch_add(&received, 1);
	return true;
}

static void usage(void)
{
	fprintf(stderr, "usage: bench_wire [--dgram] [--wire PATH] "
		"[--frames N] [--size BYTES] [--one-by-one]\n");
	exit(2);
}

/* A RoCEv2-looking frame (UDP 4791) from port 0 to port 1. */
static void build(uint8_t *f, size_t len)
{
	memset(f, 0, len);
	memcpy(f, mac[1], 6);
	memcpy(f + 6, mac[0], 6);
	f[12] = 0x08;
	f[14] = 0x45;
	f[16] = (uint8_t)((len - 14) >> 8);
	f[17] = (uint8_t)(len - 14);
	f[22] = 64;
	f[23] = 17;
	f[36] = 4791 >> 8;
	f[37] = 4791 & 0xff;
	f[38] = (uint8_t)((len - 34) >> 8);
	f[39] = (uint8_t)(len - 34);
}

/* Send a frame, wait for it to arrive, again: latency, and lost wake-ups. */
static void one_by_one(struct emu_port *p, const uint8_t *f, size_t size,
		       unsigned long frames, bool shm)
{
	uint64_t sum = 0, worst = 0, t, dt;
	unsigned long i, late = 0;

	for (i = 0; i < frames; i++) {
		unsigned long want = atomic_load(&received) + 1;

		t = now_ns();
		if (port_send_roce(p, f, size))
			break;
		while (atomic_load(&received) < want &&
		       now_ns() - t < NSEC_PER_SEC)
			sched_yield();
		if (atomic_load(&received) < want)
			break;
		dt = atomic_load(&last_rx_ns) - t;
		sum += dt;
		if (dt > worst)
			worst = dt;
		if (dt > 10000000)
			late++;
	}
	printf("%s wire, %zu-byte frames one by one: %lu of %lu arrived, "
	       "mean %.1f us, worst %.1f us, %lu later than 10 ms\n",
	       shm ? "shared-memory" : "datagram", size, i, frames,
	       i ? sum / 1e3 / (double)i : 0.0, worst / 1e3, late);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "dgram", no_argument, NULL, 'd' },
		{ "wire", required_argument, NULL, 'w' },
		{ "frames", required_argument, NULL, 'n' },
		{ "size", required_argument, NULL, 's' },
		{ "one-by-one", no_argument, NULL, '1' },
		{ 0 }
	};
	char wire_bin[PATH_MAX], dir[64], sw[128];
	char nic[2][128], peer[2][128], wire[2][128];
	unsigned long frames = 200000, size = 1100, sent = 0, i;
	struct emu_port *p[2] = { NULL, NULL };
	bool shm = true, one = false;
	uint64_t t0, t1;
	uint8_t *f;
	pid_t pid;
	int c;

	wire_bin_beside_self(wire_bin, sizeof(wire_bin), "orca-wire");
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'd': shm = false; break;
		case 'w': snprintf(wire_bin, sizeof(wire_bin), "%s", optarg);
			break;
		case 'n': frames = strtoul(optarg, NULL, 0); break;
		case 's': size = strtoul(optarg, NULL, 0); break;
		case '1': one = true; break;
		default: usage();
		}
	}
	if (size < 60 || size > 9018 || !frames)
		usage();
	snprintf(dir, sizeof(dir), "/tmp/orca-bench-wire.XXXXXX");
	if (!mkdtemp(dir))
		return 1;
	snprintf(sw, sizeof(sw), "%s/switch", dir);
	{
		const char *sw_argv[] = {
			wire_bin, "--socket", sw, "--log", "/dev/null", NULL,
		};

		/* No socket: the ports fail to attach, and say so. */
		wire_start(&pid, sw, 5000, sw_argv);
	}
	for (i = 0; i < 2; i++) {
		struct emu_port_config pc = {
			.nic_path = nic[i], .nic_peer = peer[i],
			.wire_path = wire[i], .switch_path = sw,
			.wire_shm = shm,
		};
		uint8_t hello[60] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

		snprintf(nic[i], sizeof(nic[i]), "%s/nic%lu", dir, i);
		snprintf(peer[i], sizeof(peer[i]), "%s/qemu%lu", dir, i);
		snprintf(wire[i], sizeof(wire[i]), "%s/wire%lu", dir, i);
		memcpy(pc.mac, mac[i], 6);
		p[i] = port_start(&pc, rx, NULL);
		if (!p[i]) {
			perror("port_start");
			return 1;
		}
		memcpy(hello + 6, mac[i], 6);
		hello[12] = 0x88;
		hello[13] = 0xb5;
		port_send_roce(p[i], hello, sizeof(hello));
	}
	usleep(200000);		/* both MACs learnt */
	f = malloc(size);
	build(f, size);
	if (one) {
		one_by_one(p[0], f, size, frames, shm);
		goto out;
	}
	t0 = now_ns();
	for (i = 0; i < frames; i++)
		if (!port_send_roce(p[0], f, size))
			sent++;
	/* Wait for the stragglers: until all came, or none for a second. */
	while (atomic_load(&received) < frames &&
	       now_ns() - atomic_load(&last_rx_ns) < NSEC_PER_SEC &&
	       now_ns() - t0 < 60 * NSEC_PER_SEC)
		usleep(1000);
	t1 = atomic_load(&last_rx_ns);
	printf("%s wire, %lu-byte frames: sent %lu of %lu, received %lu "
	       "(lost %lu): %.0f frames/s, %.1f MiB/s\n",
	       shm ? "shared-memory" : "datagram", size, sent, frames,
	       atomic_load(&received), frames - atomic_load(&received),
	       atomic_load(&received) * 1e9 / (double)(t1 - t0),
	       atomic_load(&received) * (double)size * 1e9 /
	       (double)(t1 - t0) / (1 << 20));
out:
	for (i = 0; i < 2; i++)
		port_stop(p[i]);
	wire_stop(pid);
	free(f);
	rmdir(dir);
	return 0;
}

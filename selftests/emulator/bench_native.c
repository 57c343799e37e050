// SPDX-License-Identifier: GPL-2.0
/*
 * bench_native: the adapter natively, no guests, against this host's
 * memcpy.  Two engines with fake hosts (roce_node.h), each with its port
 * (port.c) on a shared-memory link to an orca-wire switch process, the
 * wire every guest test uses; RC QPs at the largest path MTU the ports'
 * Ethernet MTU carries (-m, default 1500 as the guests': 1024; 9000
 * gives 4096).  Measures:
 *   - RDMA WRITE of 64 KiB messages, DEPTH outstanding: MiB/s;
 *   - RDMA WRITE of 64 B messages, DEPTH outstanding: messages/s;
 *   - memcpy of 64 KiB blocks between two 8 MiB buffers: MiB/s (what one
 *     core of this host copies; the engine copies every byte once on the
 *     way out and once on the way in), and the ICRC's CRC-32 on 4 KiB
 *     blocks: MiB/s;
 *   - the CPU time of each engine thread and of the poster over the 64 KiB
 *     WRITEs, per GiB written, against an engine's floor: one memcpy and
 *     one CRC of each byte at the two rates above (what=cpu64k), and how
 *     much of each engine's was spent in the kernel (its system calls:
 *     kicks, sleeps; /proc's stime, in clock ticks); the same per 64 B
 *     WRITE in microseconds (what=cpu64);
 *   - request packets both engines sent again on this loss-free wire
 *     (after early retries or timeouts), and frames the ports dropped.
 * With -l PCT the switch drops and reorders PCT% of the frames on purpose
 * (orca-wire --drop-pct --reorder-pct, fixed seed), what the lossy NVMe-oF
 * test does: the same WRITEs show what loss recovery costs, and the
 * packets sent again are the price of go-back-N.  The lines then say
 * what=lossy-write64k, lossy-write64, lossy-retransmits (with pct=PCT).
 * With -p the two ports are joined by a point-to-point link instead (port.h:
 * wire_peer), no switch process between them: what=p2p-write64k, ....
 * Built by the emulator Makefile without sanitizers; not a test.  For
 * scripts/bench/bench.sh it prints one line per figure:
 *   bench-native what=NAME key=value ...
 *
 *   bench_native [-d DEPTH] [-l PCT] [-m ETH_MTU] [-p] [-s SECONDS]
 *		  [-w ORCA_WIRE]
 */
#include <libgen.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ktap.h"
#include "port_glue.h"
#include "roce/roce_crc32.h"
#include "roce_node.h"
#include "wire_harness.h"
#include "port/port.h"

#define IOVA_A		0x7f0000000000ull
#define IOVA_B		0x7e0000000000ull
#define BUF_LEN		(4u << 20)
#define BIG		(64u << 10)
#define SMALL		64u
#define COPY_LEN	(8u << 20)

static struct node a, b;
static struct tcq acq, bcq;
static struct tqp aqp, bqp;
static struct tbuf abuf, bbuf;
static struct emu_port *port[2];

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Busy-polls the next CQE, yielding the CPU to the engines meanwhile. */
/*
 * WRITEs of @len bytes, @depth outstanding, for about @secs seconds;
 * returns messages per second (0 on a failed WRITE).
 */
static double writes(uint32_t len, unsigned int depth, double secs,
		     uint64_t *count)
{
	unsigned int out = 0, slots = BUF_LEN / len;
	uint64_t posted = 0, done = 0;
	double t0 = now_s(), stop = t0 + secs, t1;
	struct orca_cqe c;

	for (;;) {
		while (out < depth && now_s() < stop) {
			struct orca_send_wqe_hdr h =
				wqe(ORCA_WQE_RDMA_WRITE, posted);
			uint64_t off = (uint64_t)len * (posted % slots);
			struct tsge s = { IOVA_A + off, len, abuf.key };

			h.remote_addr = htole64(IOVA_B + off);
			h.rkey = htole32(bbuf.key);
			post_send(&a, &aqp, &h, &s, 1);
			posted++;
			out++;
		}
		if (!out)
			break;
		if (!spin_cq(&a, &acq, &c) || c.status != ORCA_CQE_ST_SUCCESS ||
		    cqe_wr_id(&c) != done) {
			printf("# WRITE %llu of %u bytes failed (status %u)\n",
			       (unsigned long long)done, len, c.status);
			return 0;
		}
		done++;
		out--;
	}
	t1 = now_s();
	*count = done;
	return done / (t1 - t0);
}

/*
 * CPU seconds of the threads a phase keeps busy: the two engines (each
 * moves every byte once: a copy and a CRC) and this thread, the poster.
 */
struct cpu_mark {
	double eng[2], poster;
	double eng_sys[2];	/* of eng[], in the kernel */
};

/* A thread's system time (stime, field 15 of its stat): seconds. */
static double thread_sys_s(pid_t tid)
{
	char path[64], line[512], *p;
	unsigned long long stime = 0;
	FILE *f;
	int n = 0;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)tid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	p = fgets(line, sizeof(line), f) ? strrchr(line, ')') : NULL;
	fclose(f);
	/* after the name: state (field 3) ... utime (14), stime (15) */
	while (p && (p = strchr(p + 1, ' ')) && ++n < 13)
		;
	if (!p || sscanf(p, " %llu", &stime) != 1)
		return 0;
	return (double)stime / sysconf(_SC_CLK_TCK);
}

static double clock_s(clockid_t clk)
{
	struct timespec ts;

	if (clock_gettime(clk, &ts))
		return 0;
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void cpu_mark(struct cpu_mark *m, struct node *const nodes[2])
{
	for (int i = 0; i < 2; i++) {
		clockid_t clk;

		m->eng[i] = pthread_getcpuclockid(nodes[i]->t.eng->thread,
						  &clk) ? 0 : clock_s(clk);
		m->eng_sys[i] = thread_sys_s(__atomic_load_n(
			&nodes[i]->t.eng->tid, __ATOMIC_ACQUIRE));
	}
	m->poster = clock_s(CLOCK_THREAD_CPUTIME_ID);
}

/*
 * CPU seconds between two marks per @units of work done (GiB, or
 * millions of messages for microseconds per message): the engines',
 * the poster's, then the engines' kernel parts.
 */
static void cpu_per(const struct cpu_mark *from, const struct cpu_mark *to,
		    double units, double out[5])
{
	for (int i = 0; i < 2; i++) {
		out[i] = units ? (to->eng[i] - from->eng[i]) / units : 0;
		out[3 + i] = units ?
			     (to->eng_sys[i] - from->eng_sys[i]) / units : 0;
	}
	out[2] = units ? (to->poster - from->poster) / units : 0;
}

/* The adapter's CRC-32 (the ICRC's) over 4 KiB blocks: MiB/s. */
static double crc_mibs(double secs)
{
	static uint8_t blk[4096];
	double t0 = now_s(), t1, stop = t0 + secs;
	uint64_t bytes = 0;
	uint32_t crc = 0;

	memset(blk, 0x3c, sizeof(blk));
	do {
		for (unsigned int k = 0; k < 64; k++) {
			crc = roce_crc32(crc, blk, sizeof(blk));
			bytes += sizeof(blk);
		}
	} while ((t1 = now_s()) < stop);
	__asm__ volatile("" : : "r"(crc));
	return bytes / (t1 - t0) / (1 << 20);
}

/* memcpy of 64 KiB blocks through two 8 MiB buffers: MiB/s. */
static double memcpy_mibs(double secs)
{
	uint8_t *src = malloc(COPY_LEN), *dst = malloc(COPY_LEN);
	double t0, t1, stop;
	uint64_t bytes = 0;
	unsigned int i = 0;

	if (!src || !dst)
		abort();
	memset(src, 0x5a, COPY_LEN);
	memset(dst, 0xa5, COPY_LEN);
	t0 = now_s();
	stop = t0 + secs;
	do {
		for (unsigned int k = 0; k < 16; k++, i++) {
			uint64_t off = (uint64_t)BIG * (i % (COPY_LEN / BIG));

			memcpy(dst + off, src + off, BIG);
			bytes += BIG;
		}
		/* Keep the copies: the compiler must not drop them. */
		__asm__ volatile("" : : "r"(dst) : "memory");
	} while ((t1 = now_s()) < stop);
	free(src);
	free(dst);
	return bytes / (t1 - t0) / (1 << 20);
}

/* Request packets sent again; adds the retries' causes to @timeouts, @early. */
static uint64_t sent_again(struct node *n, uint64_t *timeouts,
			   uint64_t *early)
{
	struct roce_stats st;

	engine_flush(n->t.eng);
	roce_get_stats(n->t.eng, &st);
	*timeouts += st.timeouts;
	*early += st.fast_retries;
	return st.retransmits;
}

/*
 * The port's Ethernet MTU, as the driver sets it from its netdev's
 * (SET_PORT): the path MTU of the QPs is the largest IB MTU it carries.
 */
static bool set_port_mtu(struct node *n, uint32_t eth_mtu)
{
	struct orca_cmd_set_port sp = { .port = 1,
					.eth_mtu = htole32(eth_mtu) };

	return th_cmd(&n->t, ORCA_CMD_SET_PORT, &sp, sizeof(sp)) ==
	       ORCA_CMD_ST_OK;
}

static bool connect_pair(uint32_t eth_mtu)
{
	struct rc_opts o = {
		.path_mtu = 5, .timeout = 14, .retry_cnt = 7, .rnr_retry = 7,
		.min_rnr_timer = 1, .access = ORCA_QP_ACCESS_ALL,
	};

	return set_port_mtu(&a, eth_mtu) && set_port_mtu(&b, eth_mtu) &&
	       node_cq(&a, &acq, 10) && node_cq(&b, &bcq, 10) &&
	       node_buf(&a, &abuf, IOVA_A, BUF_LEN, ORCA_ACCESS_ALL) &&
	       node_buf(&b, &bbuf, IOVA_B, BUF_LEN, ORCA_ACCESS_ALL) &&
	       node_qp(&a, &aqp, ORCA_QPT_RC, &acq, &acq) &&
	       node_qp(&b, &bqp, ORCA_QPT_RC, &bcq, &bcq) &&
	       node_connect(&a, &aqp, &b, bqp.qpn, &o) &&
	       node_connect(&b, &bqp, &a, aqp.qpn, &o);
}

/* port_start() on a thread of its own: the two ends of a point-to-point
 * link wait for each other. */
struct port_starter {
	struct emu_port_config pc;
	void *eng;
	struct emu_port *port;
	pthread_t thread;
};

static void *port_starter_run(void *arg)
{
	struct port_starter *ps = arg;

	ps->port = port_start(&ps->pc, glue_port_rx, ps->eng);
	return NULL;
}

int main(int argc, char **argv)
{
	char wire_bin[PATH_MAX], dir[64], sw[128] = "";
	char nic[2][128] = { "" }, peer[2][128], wire[2][128] = { "" };
	char pct_arg[16] = "0";
	const char *pfx = "";
	unsigned int loss_pct = 0;
	struct node *nodes[2] = { &a, &b };
	unsigned int depth = 16, up = 0, eth_mtu = 1500;
	uint64_t n_big = 0, n_small = 0, again = 0, timeouts = 0, early = 0;
	uint64_t dropped = 0, kicks[2];
	struct emu_port_stats ps;
	double secs = 3, big, small, copy, crc, cpu_big[5], cpu_small[5];
	double floor_gib;
	struct cpu_mark m0, m1;
	struct port_starter start[2] = { 0 };
	bool p2p = false;
	int opt, rc = 1;
	pid_t pid = 0;

	wire_bin_beside_self(wire_bin, sizeof(wire_bin), "orca-wire");
	while ((opt = getopt(argc, argv, "d:l:m:ps:w:")) != -1) {
		switch (opt) {
		case 'p':
			p2p = true;
			break;
		case 'd':
			depth = strtoul(optarg, NULL, 0);
			break;
		case 'l':
			loss_pct = strtoul(optarg, NULL, 0);
			break;
		case 'm':
			eth_mtu = strtoul(optarg, NULL, 0);
			break;
		case 's':
			secs = strtod(optarg, NULL);
			break;
		case 'w':
			snprintf(wire_bin, sizeof(wire_bin), "%s", optarg);
			break;
		default:
			fprintf(stderr, "usage: %s [-d DEPTH] [-l PCT] [-m ETH_MTU] [-p] [-s SECONDS] [-w ORCA_WIRE]\n",
				argv[0]);
			return 2;
		}
	}
	if (!depth || depth > 64 || secs <= 0 || loss_pct > 50 ||
	    (p2p && loss_pct))
		return 2;
	snprintf(pct_arg, sizeof(pct_arg), "%u", loss_pct);
	if (loss_pct)
		pfx = "lossy-";
	if (p2p)
		pfx = "p2p-";
	snprintf(dir, sizeof(dir), "/tmp/orca-bench-native.XXXXXX");
	if (!mkdtemp(dir))
		return 1;
	snprintf(sw, sizeof(sw), "%s/switch", dir);
	if (!p2p) {
		const char *sw_argv[] = {
			wire_bin, "--socket", sw, "--log", "/dev/null",
			loss_pct ? "--drop-pct" : NULL, pct_arg,
			"--reorder-pct", pct_arg, "--seed", "11", NULL,
		};

		/* No socket: the ports fail to attach, and say so. */
		wire_start(&pid, sw, 5000, sw_argv);
	}
	for (int i = 0; i < 2; i++) {
		struct emu_port_config *pc = &start[i].pc;
		struct node *nd = nodes[i];

		up++;
		if (!node_init(nd, i + 1)) {
			printf("# adapter %d did not start\n", i);
			goto out;
		}
		snprintf(nic[i], sizeof(nic[i]), "%s/nic%d", dir, i);
		snprintf(peer[i], sizeof(peer[i]), "%s/qemu%d", dir, i);
		snprintf(wire[i], sizeof(wire[i]), "%s/wire%d", dir, i);
		*pc = (struct emu_port_config){
			.nic_path = nic[i], .nic_peer = peer[i],
			.wire_path = wire[i], .switch_path = sw,
		};
		/* -p: each port's "switch" is the other port. */
		if (p2p) {
			pc->switch_path = wire[1 - i];
			pc->wire_peer = true;
		}
		memcpy(pc->mac, nd->mac, 6);
		/* As orca-emu: the engine reads its lane itself. */
		port_glue_config(pc, true);
		start[i].eng = nd->t.eng;
	}
	/* The ends of a point-to-point link start together. */
	if (pthread_create(&start[0].thread, NULL, port_starter_run,
			   &start[0])) {
		printf("# no thread to start a port\n");
		goto out;
	}
	if (!p2p)
		pthread_join(start[0].thread, NULL);
	port_starter_run(&start[1]);
	if (p2p)
		pthread_join(start[0].thread, NULL);
	for (int i = 0; i < 2; i++) {
		struct engine_roce_link link;
		uint8_t hello[60] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
		struct node *nd = nodes[i];

		port[i] = start[i].port;
		if (!port[i]) {
			printf("# port %d did not start\n", i);
			goto out;
		}
		if (!port_wire_is_shm(port[i]))
			printf("# port %d: the switch did not take a shared-memory link\n",
			       i);
		port_glue_link(&link, port[i], true);
		engine_set_roce_link(nd->t.eng, &link);
		memcpy(hello + 6, nd->mac, 6);
		hello[12] = 0x88;
		hello[13] = 0xb5;
		port_send_roce(port[i], hello, sizeof(hello));
	}
	usleep(200000);		/* both MACs learnt */
	/* The hellos went to the NIC sides too, where no guest listens. */
	for (int i = 0; i < 2; i++) {
		port_get_stats(port[i], &ps);
		dropped -= ps.dropped;
	}
	if (!connect_pair(eth_mtu)) {
		printf("# setting up the QPs failed\n");
		goto out;
	}
	/* Warm-up, then the figures. */
	if (!writes(BIG, depth, secs / 10, &n_big))
		goto out;
	for (int i = 0; i < 2; i++) {
		port_get_stats(port[i], &ps);
		kicks[i] = ps.roce_tx_kicks;
	}
	cpu_mark(&m0, nodes);
	big = writes(BIG, depth, secs, &n_big);
	cpu_mark(&m1, nodes);
	for (int i = 0; i < 2; i++) {
		port_get_stats(port[i], &ps);
		kicks[i] = ps.roce_tx_kicks - kicks[i];
	}
	cpu_per(&m0, &m1, (double)n_big * BIG / (1 << 30), cpu_big);
	cpu_mark(&m0, nodes);
	small = writes(SMALL, depth, secs, &n_small);
	cpu_mark(&m1, nodes);
	cpu_per(&m0, &m1, n_small / 1e6, cpu_small);
	copy = memcpy_mibs(secs);
	crc = crc_mibs(secs / 4);
	/* Each engine copies and CRCs every byte once: its least work. */
	floor_gib = copy && crc ? 1024 / copy + 1024 / crc : 0;
	if (!big || !small)
		goto out;
	for (int i = 0; i < 2; i++) {
		again += sent_again(nodes[i], &timeouts, &early);
		port_get_stats(port[i], &ps);
		dropped += ps.dropped;
	}
	printf("two engines over %s (shared memory, %s), RC, Ethernet MTU %u (path MTU %u), %u WRITEs outstanding, %.0f s each:\n",
	       p2p ? "a point-to-point link" : "orca-wire", loss_pct ? "dropping and reordering frames" : "loss-free",
	       eth_mtu, 128u << engine_ib_mtu_for_eth(eth_mtu), depth, secs);
	if (loss_pct)
		printf("  the switch drops and reorders %u%% of the frames\n",
		       loss_pct);
	printf("  64 KiB WRITE: %.1f MiB/s (%llu messages)\n",
	       big * BIG / (1 << 20), (unsigned long long)n_big);
	printf("  64 B WRITE:   %.0f messages/s (%llu messages)\n", small,
	       (unsigned long long)n_small);
	printf("  memcpy, 64 KiB blocks: %.1f MiB/s; CRC-32, 4 KiB blocks: %.1f MiB/s\n",
	       copy, crc);
	printf("  CPU per GiB of 64 KiB WRITEs: requester engine %.3f s (in the kernel %.3f s), responder engine %.3f s (%.3f s), poster %.3f s; an engine's floor (one memcpy and one CRC of each byte) %.3f s\n",
	       cpu_big[0], cpu_big[3], cpu_big[1], cpu_big[4], cpu_big[2],
	       floor_gib);
	printf("  CPU per 64 B WRITE: requester engine %.2f us (in the kernel %.2f us), responder engine %.2f us (%.2f us), poster %.2f us\n",
	       cpu_small[0], cpu_small[3], cpu_small[1], cpu_small[4],
	       cpu_small[2]);
	printf("  sent again: %llu packets (%llu early retries, %llu timeouts); frames the ports dropped: %llu\n",
	       (unsigned long long)again, (unsigned long long)early,
	       (unsigned long long)timeouts, (unsigned long long)dropped);
	printf("bench-native what=%swrite64k pct=%u depth=%u msgs=%llu msg_rate=%.0f mibs=%.1f\n",
	       pfx, loss_pct, depth, (unsigned long long)n_big, big,
	       big * BIG / (1 << 20));
	printf("bench-native what=%swrite64 pct=%u depth=%u msgs=%llu msg_rate=%.0f mibs=%.2f\n",
	       pfx, loss_pct, depth, (unsigned long long)n_small, small,
	       small * SMALL / (1 << 20));
	printf("bench-native what=memcpy64k mibs=%.1f\n", copy);
	printf("bench-native what=crc4k mibs=%.1f\n", crc);
	printf("bench-native what=%scpu64k req_s_gib=%.3f resp_s_gib=%.3f poster_s_gib=%.3f floor_s_gib=%.3f req_sys_s_gib=%.3f resp_sys_s_gib=%.3f\n",
	       pfx, cpu_big[0], cpu_big[1], cpu_big[2], floor_gib, cpu_big[3],
	       cpu_big[4]);
	printf("bench-native what=%scpu64 req_us_msg=%.2f resp_us_msg=%.2f poster_us_msg=%.2f req_sys_us_msg=%.2f resp_sys_us_msg=%.2f\n",
	       pfx, cpu_small[0], cpu_small[1], cpu_small[2], cpu_small[3],
	       cpu_small[4]);
	printf("bench-native what=%skicks64k req_per_msg=%.2f resp_per_msg=%.2f\n",
	       pfx, n_big ? (double)kicks[0] / n_big : 0,
	       n_big ? (double)kicks[1] / n_big : 0);
	printf("bench-native what=%sretransmits pct=%u count=%llu early=%llu timeouts=%llu dropped=%llu msgs=%llu\n",
	       pfx, loss_pct, (unsigned long long)again,
	       (unsigned long long)early, (unsigned long long)timeouts,
	       (unsigned long long)dropped,
	       (unsigned long long)(n_big + n_small));
	rc = 0;
out:
	for (int i = 0; i < 2; i++) {
		if (port[i]) {
			engine_set_roce_tx(nodes[i]->t.eng, NULL, NULL);
			port_stop(port[i]);
		}
	}
	for (unsigned int i = 0; i < up; i++)
		node_fini(nodes[i]);
	wire_stop(pid);
	for (int i = 0; i < 2; i++) {
		if (nic[i][0])
			unlink(nic[i]);
		if (wire[i][0])
			unlink(wire[i]);
	}
	if (sw[0])
		unlink(sw);
	rmdir(dir);
	return rc;
}

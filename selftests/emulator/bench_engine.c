// SPDX-License-Identifier: GPL-2.0
/*
 * bench_engine: the engine's message rate for depth-1 64-byte RDMA WRITEs
 * (post one, wait for its completion, post the next) between two adapters
 * (engines with fake hosts, roce_node.h's in-process wire): first with one
 * QP open on each adapter, then with many QPs open (64K by default), the
 * WRITEs going round-robin over a few of them (issue 11: "64 B message
 * rate with 64K QPs open within 10% of the rate with 1 QP").  Built by
 * the emulator Makefile without sanitizers; not a test (make check does
 * not run it): it prints numbers, and for scripts/bench/bench.sh a line
 *   bench-engine qps=N active=A best=MSG/S median=MSG/S steps_per_pass=X
 * per case and
 *   bench-engine-ratio many/one=R (median of the rounds' ratios ...)
 *
 *   bench_engine [-q QPS] [-a ACTIVE] [-m MESSAGES] [-p POLL_MAX_US]
 *                [-r ROUNDS]
 *
 * -q is the number of QPs open on each adapter in the second case
 * (default 65536), -a how many of them carry the WRITEs (default 4).
 * -p sets the send queue polling window's ceiling (0: never poll).  The
 * two cases run on two pairs of adapters, in alternating rounds, and the
 * best and the median round are reported: the machine's load drifts.
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "ktap.h"
#include "idle_qps.h"

#define IOVA_A		0x7f0000001000ull
#define IOVA_B		0x7e0000001000ull
#define MSG_LEN		64
#define MAX_ACTIVE	64

struct bench {
	struct node a, b;
	struct tcq acq, bcq;
	struct tqp aqp[MAX_ACTIVE], bqp[MAX_ACTIVE];
	unsigned int active;
	struct tbuf abuf, bbuf;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Busy-polls the next CQE, yielding the CPU to the engines meanwhile. */
static uint64_t uar_writes(struct node *n)
{
	uint64_t v;

	pthread_mutex_lock(&n->t.eng->lock);
	v = n->t.eng->stats.uar_writes;
	pthread_mutex_unlock(&n->t.eng->lock);
	return v;
}

static void set_poll(struct node *n, long max_us)
{
	if (max_us >= 0)
		atomic_store(&n->t.eng->roce->poll_max_us, (uint32_t)max_us);
}

/*
 * @qps QPs on each adapter, the first @active of them for traffic: half of
 * those made first, the rest last (high QPNs), the idle ones between.
 */
static bool setup(struct bench *bn, long poll_us, unsigned int qps,
		  unsigned int active)
{
	unsigned int first = active / 2, made;

	if (!node_init(&bn->a, 1) || !node_init(&bn->b, 2))
		return false;
	bn->a.peer = &bn->b;
	bn->b.peer = &bn->a;
	bn->active = active;
	set_poll(&bn->a, poll_us);
	set_poll(&bn->b, poll_us);
	if (!node_cq(&bn->a, &bn->acq, 10) || !node_cq(&bn->b, &bn->bcq, 10) ||
	    !node_buf(&bn->a, &bn->abuf, IOVA_A, 4096, ORCA_ACCESS_ALL) ||
	    !node_buf(&bn->b, &bn->bbuf, IOVA_B, 4096, ORCA_ACCESS_ALL))
		return false;
	for (unsigned int i = 0; i < active; i++) {
		if (i == first) {
			made = idle_qps_create(&bn->a, &bn->acq, &bn->b,
					       &bn->bcq, qps - active);
			if (made != qps - active) {
				printf("only %u of %u idle QPs\n", made,
				       qps - active);
				return false;
			}
		}
		if (!idle_active_pair(&bn->a, &bn->acq, &bn->aqp[i], &bn->b,
				      &bn->bcq, &bn->bqp[i]))
			return false;
	}
	return true;
}

struct result {
	double rate[16];		/* messages/s per round */
	uint64_t uar, msgs, passes, steps, max_steps, retransmits;
};

/* @msgs depth-1 WRITEs round-robin on the bench's active QPs; adds to @r. */
static bool run(struct bench *bn, unsigned int msgs, struct result *r,
		unsigned int round)
{
	struct tsge s = { IOVA_A, MSG_LEN, bn->abuf.key };
	uint64_t uar0 = uar_writes(&bn->a);
	struct roce_stats st0, st1;
	struct orca_cqe c;
	double t0;

	engine_flush(bn->a.t.eng);
	roce_get_stats(bn->a.t.eng, &st0);
	t0 = now_s();
	for (unsigned int i = 0; i < msgs; i++) {
		struct orca_send_wqe_hdr h = wqe(ORCA_WQE_RDMA_WRITE, i);

		h.remote_addr = htole64(IOVA_B);
		h.rkey = htole32(bn->bbuf.key);
		post_send(&bn->a, &bn->aqp[i % bn->active], &h, &s, 1);
		if (!spin_cq(&bn->a, &bn->acq, &c) || cqe_wr_id(&c) != i ||
		    c.status != ORCA_CQE_ST_SUCCESS) {
			printf("# message %u failed\n", i);
			return false;
		}
	}
	r->rate[round] = msgs / (now_s() - t0);
	engine_flush(bn->a.t.eng);
	roce_get_stats(bn->a.t.eng, &st1);
	r->uar += uar_writes(&bn->a) - uar0;
	r->msgs += msgs;
	r->passes += st1.passes - st0.passes;
	r->steps += st1.qp_steps - st0.qp_steps;
	r->max_steps = st1.max_pass_steps;
	r->retransmits += st1.retransmits - st0.retransmits;
	return true;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void report(const char *what, struct result *r, unsigned int rounds,
		   unsigned int qps, unsigned int active)
{
	qsort(r->rate, rounds, sizeof(r->rate[0]), cmp_double);
	printf("%-26s best %7.0f median %7.0f msg/s  UAR writes/msg %.3f  "
	       "passes/msg %.1f  QP steps/pass %.2f (max %llu)\n", what,
	       r->rate[rounds - 1], r->rate[rounds / 2],
	       (double)r->uar / r->msgs, (double)r->passes / r->msgs,
	       r->passes ? (double)r->steps / r->passes : 0.0,
	       (unsigned long long)r->max_steps);
	printf("bench-engine qps=%u active=%u best=%.0f median=%.0f "
	       "steps_per_pass=%.2f max_pass_steps=%llu retransmits=%llu\n",
	       qps, active, r->rate[rounds - 1], r->rate[rounds / 2],
	       r->passes ? (double)r->steps / r->passes : 0.0,
	       (unsigned long long)r->max_steps,
	       (unsigned long long)r->retransmits);
}

/*
 * Two adapter pairs, one with the many QPs, measured in alternating
 * rounds so that a machine whose load drifts treats both alike.
 */
int main(int argc, char **argv)
{
	unsigned int qps = 65536, active = 4, msgs = 30000, rounds = 15;
	static struct bench one, many;
	struct result r1 = { 0 }, rn = { 0 };
	double t0, paired[ARRAY_SIZE_T(r1.rate)];
	long poll_us = -1;
	char what[64];
	int opt;

	while ((opt = getopt(argc, argv, "a:q:m:p:r:")) != -1) {
		switch (opt) {
		case 'a':
			active = strtoul(optarg, NULL, 0);
			break;
		case 'q':
			qps = strtoul(optarg, NULL, 0);
			break;
		case 'm':
			msgs = strtoul(optarg, NULL, 0);
			break;
		case 'p':
			poll_us = strtol(optarg, NULL, 0);
			break;
		case 'r':
			rounds = strtoul(optarg, NULL, 0);
			break;
		default:
			fprintf(stderr, "usage: %s [-q QPS] [-a ACTIVE] [-m MESSAGES] [-p POLL_MAX_US] [-r ROUNDS]\n",
				argv[0]);
			return 2;
		}
	}
	if (!rounds || rounds > ARRAY_SIZE_T(r1.rate))
		rounds = 15;
	if (!active || active > MAX_ACTIVE || active > qps) {
		fprintf(stderr, "need 1 <= ACTIVE <= min(QPS, %d)\n",
			MAX_ACTIVE);
		return 2;
	}
	t0 = now_s();
	if (!setup(&one, poll_us, 1, 1) ||
	    !setup(&many, poll_us, qps, active)) {
		printf("setup failed\n");
		return 1;
	}
	printf("# %u QPs on each of two adapters made in %.1f s\n", qps,
	       now_s() - t0);
	/* Warm-up: the polling windows adapt, the caches fill. */
	if (!run(&one, msgs / 10, &r1, 0) || !run(&many, msgs / 10, &rn, 0))
		return 1;
	memset(&r1, 0, sizeof(r1));
	memset(&rn, 0, sizeof(rn));
	for (unsigned int i = 0; i < rounds; i++)
		if (!run(&one, msgs / rounds, &r1, i) ||
		    !run(&many, msgs / rounds, &rn, i))
			return 1;
	/* Each round's two cases ran back to back: their ratio drifts less. */
	for (unsigned int i = 0; i < rounds; i++)
		paired[i] = rn.rate[i] / r1.rate[i];
	qsort(paired, rounds, sizeof(paired[0]), cmp_double);
	printf("depth-1 %u B RDMA WRITE, %u messages in %u rounds each\n",
	       MSG_LEN, msgs, rounds);
	report("1 QP", &r1, rounds, 1, 1);
	snprintf(what, sizeof(what), "%u QPs, traffic on %u", qps, active);
	report(what, &rn, rounds, qps, active);
	printf("bench-engine-ratio many/one=%.3f (median of the %u rounds' ratios; of medians %.3f)\n",
	       paired[rounds / 2], rounds,
	       rn.rate[rounds / 2] / r1.rate[rounds / 2]);
	node_fini(&one.a);
	node_fini(&one.b);
	node_fini(&many.a);
	node_fini(&many.b);
	return 0;
}

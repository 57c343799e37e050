// SPDX-License-Identifier: GPL-2.0
/*
 * bench_engine: the engine's message rate for depth-1 64-byte RDMA WRITEs
 * (post one, wait for its completion, post the next) between two adapters
 * (engines with fake hosts, roce_node.h's in-process wire), first with one
 * QP, then with idle connected QPs beside it on both adapters.  Built by
 * the emulator Makefile without sanitizers; not a test (make check does
 * not run it): it prints numbers.
 *
 *   bench_engine [-i IDLE_QPS] [-m MESSAGES] [-p POLL_MAX_US] [-r ROUNDS]
 *
 * -p sets the send queue polling window's ceiling (0: never poll; default:
 * the engine's, which is off; try -p 100).  The
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

struct bench {
	struct node a, b;
	struct tcq acq, bcq;
	struct tqp aqp, bqp;
	struct tbuf abuf, bbuf;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Busy-polls the next CQE, yielding the CPU to the engines meanwhile. */
static bool spin_cq(struct node *n, struct tcq *cq, struct orca_cqe *out)
{
	double give_up = now_s() + 10;

	for (;;) {
		uint32_t slot = cq->ci & ((1u << cq->log) - 1);
		uint8_t phase = (cq->ci >> cq->log) & 1 ? 0 : ORCA_CQE_F_PHASE;
		struct orca_cqe *e = gptr(&n->t, cq->buf + 32ull * slot);
		struct orca_cq_db_rec *rec = gptr(&n->t, cq->rec);

		if ((atomic_load_explicit((_Atomic uint8_t *)&e->flags,
					  memory_order_acquire) &
		     ORCA_CQE_F_PHASE) == phase) {
			*out = *e;
			cq->ci++;
			atomic_store((_Atomic __le32 *)&rec->ci,
				     htole32(cq->ci));
			return true;
		}
		if (now_s() > give_up)
			return false;
		sched_yield();
	}
}

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

static bool setup(struct bench *bn, long poll_us)
{
	struct rc_opts o = {
		.path_mtu = 3, .timeout = 14, .retry_cnt = 7, .rnr_retry = 7,
		.min_rnr_timer = 1, .access = ORCA_ACCESS_ALL,
	};

	if (!node_init(&bn->a, 1) || !node_init(&bn->b, 2))
		return false;
	bn->a.peer = &bn->b;
	bn->b.peer = &bn->a;
	set_poll(&bn->a, poll_us);
	set_poll(&bn->b, poll_us);
	return node_cq(&bn->a, &bn->acq, 10) && node_cq(&bn->b, &bn->bcq, 10) &&
	       node_buf(&bn->a, &bn->abuf, IOVA_A, 4096, ORCA_ACCESS_ALL) &&
	       node_buf(&bn->b, &bn->bbuf, IOVA_B, 4096, ORCA_ACCESS_ALL) &&
	       node_qp(&bn->a, &bn->aqp, ORCA_QPT_RC, &bn->acq, &bn->acq) &&
	       node_qp(&bn->b, &bn->bqp, ORCA_QPT_RC, &bn->bcq, &bn->bcq) &&
	       node_connect(&bn->a, &bn->aqp, &bn->b, bn->bqp.qpn, &o) &&
	       node_connect(&bn->b, &bn->bqp, &bn->a, bn->aqp.qpn, &o);
}

struct result {
	double rate[16];		/* messages/s per round */
	uint64_t uar, msgs, passes, steps, max_steps;
};

/* @msgs depth-1 WRITEs on the bench's QP; adds to @r. */
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
		post_send(&bn->a, &bn->aqp, &h, &s, 1);
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
	return true;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void report(const char *what, struct result *r, unsigned int rounds)
{
	qsort(r->rate, rounds, sizeof(r->rate[0]), cmp_double);
	printf("%-22s best %7.0f median %7.0f msg/s  UAR writes/msg %.3f  "
	       "passes/msg %.1f  QP steps/pass %.2f (max %llu)\n", what,
	       r->rate[rounds - 1], r->rate[rounds / 2],
	       (double)r->uar / r->msgs, (double)r->passes / r->msgs,
	       r->passes ? (double)r->steps / r->passes : 0.0,
	       (unsigned long long)r->max_steps);
}

/*
 * Two adapter pairs, one with the idle QPs, measured in alternating rounds
 * so that a machine whose load drifts treats both alike.
 */
int main(int argc, char **argv)
{
	unsigned int idle = 2000, msgs = 20000, rounds = 5, made;
	static struct bench one, many;
	struct result r1 = { 0 }, rn = { 0 };
	long poll_us = -1;
	char what[64];
	int opt;

	while ((opt = getopt(argc, argv, "i:m:p:r:")) != -1) {
		switch (opt) {
		case 'i':
			idle = strtoul(optarg, NULL, 0);
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
			fprintf(stderr, "usage: %s [-i IDLE_QPS] [-m MESSAGES] [-p POLL_MAX_US] [-r ROUNDS]\n",
				argv[0]);
			return 2;
		}
	}
	if (!rounds || rounds > ARRAY_SIZE_T(r1.rate))
		rounds = 5;
	if (!setup(&one, poll_us) || !setup(&many, poll_us)) {
		printf("setup failed\n");
		return 1;
	}
	made = idle_qps_create(&many.a, &many.acq, &many.b, &many.bcq, idle);
	if (made != idle) {
		printf("only %u of %u idle QPs\n", made, idle);
		return 1;
	}
	/* Warm-up: the polling windows adapt, the caches fill. */
	if (!run(&one, msgs / 10, &r1, 0) || !run(&many, msgs / 10, &rn, 0))
		return 1;
	memset(&r1, 0, sizeof(r1));
	memset(&rn, 0, sizeof(rn));
	for (unsigned int i = 0; i < rounds; i++)
		if (!run(&one, msgs / rounds, &r1, i) ||
		    !run(&many, msgs / rounds, &rn, i))
			return 1;
	printf("depth-1 %u B RDMA WRITE, %u messages in %u rounds each\n",
	       MSG_LEN, msgs, rounds);
	report("1 QP", &r1, rounds);
	snprintf(what, sizeof(what), "1 QP + %u idle QPs", idle);
	report(what, &rn, rounds);
	node_fini(&one.a);
	node_fini(&one.b);
	node_fini(&many.a);
	node_fini(&many.b);
	return 0;
}

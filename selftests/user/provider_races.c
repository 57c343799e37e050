// SPDX-License-Identifier: GPL-2.0
/*
 * Races between threads of one process on the provider's own state, as
 * KTAP lines on stdout (exit status 1 if a case failed):
 *
 *   resize   two threads resize a CQ back and forth while the main thread
 *            runs loopback RC traffic on it, polls it, and destroys QPs
 *            with completions still in it.  Every completion polled must
 *            be one of the current round's (a CQE a destroyed QP left in a
 *            ring its clean-up never scrubbed shows up for the next QP
 *            with that QPN), and every round's completions must come (a
 *            provider that swapped the rings in another order than the
 *            adapter took the resizes polls a ring the adapter no longer
 *            writes, and has freed the one it does);
 *   qpn      threads create and destroy QPs on a shared CQ: the adapter
 *            hands a freed QPN to the next QP at once, so one thread's
 *            new QP gets the QPN of a QP another thread is destroying.
 *            No create may fail (EEXIST was the provider's answer).
 *
 * Usage: provider_races DEV GID_INDEX
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <infiniband/verbs.h>

#include "verbs_helpers.h"

#define ROUNDS		60
#define MSGS		8
#define LEN		32
#define WAIT_MS		10000
#define QPN_THREADS	3
#define QPN_LOOPS	150

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static union ibv_gid gid;
static int gid_index;

/* --- resize ------------------------------------------------------------ */

struct resize {
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	unsigned char buf[2 * MSGS * LEN];
	atomic_bool stop;
	atomic_uint resizes, refused;
};

static void *resizer(void *arg)
{
	static const int sizes[] = { 64, 1024, 256, 2048, 128, 512 };
	struct resize *r = arg;
	unsigned int i = (uintptr_t)pthread_self() % 6;

	while (!atomic_load(&r->stop)) {
		int err = ibv_resize_cq(r->cq, sizes[i++ % 6]);

		if (err)
			atomic_fetch_add(&r->refused, 1);
		else
			atomic_fetch_add(&r->resizes, 1);
	}
	return NULL;
}

static uint64_t tag(int round, int i, bool recv)
{
	return (uint64_t)round << 32 | (recv ? 1U << 16 : 0) | i;
}

/* Posts MSGS receives on @b and MSGS sends on @a, all signaled. */
static void post_round(struct resize *r, struct ibv_qp *a, struct ibv_qp *b,
		       int round)
{
	int i;

	for (i = 0; i < MSGS; i++) {
		struct ibv_sge sge = {
			.addr = (uintptr_t)&r->buf[MSGS * LEN + i * LEN],
			.length = LEN, .lkey = r->mr->lkey,
		};
		struct ibv_recv_wr wr = {
			.wr_id = tag(round, i, true), .sg_list = &sge,
			.num_sge = 1,
		}, *bad;

		if (ibv_post_recv(b, &wr, &bad))
			die("ibv_post_recv");
	}
	for (i = 0; i < MSGS; i++) {
		struct ibv_sge sge = {
			.addr = (uintptr_t)&r->buf[i * LEN],
			.length = LEN, .lkey = r->mr->lkey,
		};
		struct ibv_send_wr wr = {
			.wr_id = tag(round, i, false), .sg_list = &sge,
			.num_sge = 1, .opcode = IBV_WR_SEND,
			.send_flags = IBV_SEND_SIGNALED,
		}, *bad;

		if (ibv_post_send(a, &wr, &bad))
			die("ibv_post_send");
	}
}

/* The round's 2 * MSGS completions, and nothing of another round. */
static bool poll_round(struct resize *r, int round, char *why, size_t len)
{
	uint64_t deadline = now_ms() + WAIT_MS;
	struct ibv_wc wc[4];
	int got = 0, n, i;

	while (got < 2 * MSGS) {
		n = ibv_poll_cq(r->cq, 4, wc);
		if (n < 0) {
			snprintf(why, len, "ibv_poll_cq: %d", n);
			return false;
		}
		for (i = 0; i < n; i++) {
			if (wc[i].wr_id >> 32 != (uint64_t)round) {
				snprintf(why, len,
					 "round %d: completion of round %llu (QP %u, %s)",
					 round,
					 (unsigned long long)(wc[i].wr_id >> 32),
					 wc[i].qp_num,
					 ibv_wc_status_str(wc[i].status));
				return false;
			}
			if (wc[i].status != IBV_WC_SUCCESS) {
				snprintf(why, len, "round %d: %s", round,
					 ibv_wc_status_str(wc[i].status));
				return false;
			}
		}
		got += n;
		if (!n && now_ms() > deadline) {
			snprintf(why, len, "round %d: %d of %d completions in %d ms",
				 round, got, 2 * MSGS, WAIT_MS);
			return false;
		}
	}
	return true;
}

static void pair(struct resize *r, struct ibv_qp **a, struct ibv_qp **b)
{
	struct rc_conn c = {
		.gid = gid, .gid_index = gid_index, .mtu = IBV_MTU_1024,
		.timeout = 14, .label = "resize: ",
	};

	*a = create_rc_qp(pd, r->cq, 2 * MSGS, 2 * MSGS);
	*b = create_rc_qp(pd, r->cq, 2 * MSGS, 2 * MSGS);
	c.dest_qpn = (*b)->qp_num;
	connect_rc(*a, &c);
	c.dest_qpn = (*a)->qp_num;
	connect_rc(*b, &c);
}

static void test_resize(void)
{
	static struct resize r;
	pthread_t t[2];
	struct ibv_qp *a, *b;
	char why[160] = "";
	bool ok = true;
	int round, i;

	r.cq = ibv_create_cq(ctx, 256, NULL, NULL, 0);
	if (!r.cq)
		die("ibv_create_cq");
	r.mr = ibv_reg_mr(pd, r.buf, sizeof(r.buf), IBV_ACCESS_LOCAL_WRITE);
	if (!r.mr)
		die("ibv_reg_mr");
	for (i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, resizer, &r))
			die("pthread_create");
	for (round = 1; ok && round <= ROUNDS; round++) {
		pair(&r, &a, &b);
		post_round(&r, a, b, round);
		ok = poll_round(&r, round, why, sizeof(why));
		/* A second batch left unpolled: the destroys scrub it. */
		post_round(&r, a, b, round);
		if (ibv_destroy_qp(a) || ibv_destroy_qp(b))
			die("ibv_destroy_qp");
	}
	atomic_store(&r.stop, true);
	for (i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("# %u resizes, %u refused, %d rounds\n",
	       atomic_load(&r.resizes), atomic_load(&r.refused), round - 1);
	/* Quiet now: the ring the provider polls is the adapter's. */
	if (ok) {
		pair(&r, &a, &b);
		post_round(&r, a, b, ROUNDS + 1);
		ok = poll_round(&r, ROUNDS + 1, why, sizeof(why));
		if (ibv_destroy_qp(a) || ibv_destroy_qp(b))
			die("ibv_destroy_qp");
	}
	if (!ok)
		printf("# %s\n", why);
	result(ok && atomic_load(&r.resizes) > 0,
	       "resize: CQ resized by two threads under traffic, polls and QP destroys");
	ibv_dereg_mr(r.mr);
	if (ibv_destroy_cq(r.cq))
		die("ibv_destroy_cq");
}

/* --- qpn --------------------------------------------------------------- */

struct churn {
	struct ibv_cq *cq;
	atomic_uint failures, created;
	atomic_int last_err;
};

static void *churner(void *arg)
{
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct churn *c = arg;
	struct ibv_qp *qp;
	int i;

	qa.send_cq = c->cq;
	qa.recv_cq = c->cq;
	for (i = 0; i < QPN_LOOPS; i++) {
		qp = ibv_create_qp(pd, &qa);
		if (!qp) {
			atomic_store(&c->last_err, errno);
			atomic_fetch_add(&c->failures, 1);
			continue;
		}
		atomic_fetch_add(&c->created, 1);
		if (ibv_destroy_qp(qp))
			die("ibv_destroy_qp");
	}
	return NULL;
}

static void test_qpn(void)
{
	static struct churn c;
	pthread_t t[QPN_THREADS];
	bool ok;
	int i;

	c.cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	if (!c.cq)
		die("ibv_create_cq");
	for (i = 0; i < QPN_THREADS; i++)
		if (pthread_create(&t[i], NULL, churner, &c))
			die("pthread_create");
	for (i = 0; i < QPN_THREADS; i++)
		pthread_join(t[i], NULL);
	ok = !atomic_load(&c.failures) &&
	     atomic_load(&c.created) == QPN_THREADS * QPN_LOOPS;
	printf("# %u QPs created, %u creates failed (last: %s)\n",
	       atomic_load(&c.created), atomic_load(&c.failures),
	       atomic_load(&c.failures) ?
	       strerror(atomic_load(&c.last_err)) : "none");
	result(ok, "qpn: QPs created and destroyed by threads, QPNs reused at once");
	if (ibv_destroy_cq(c.cq))
		die("ibv_destroy_cq");
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: provider_races DEV GID_INDEX\n");
		return 2;
	}
	ctx = open_dev(argv[1]);
	gid_index = atoi(argv[2]);
	query_gid(ctx, gid_index, &gid);
	pd = ibv_alloc_pd(ctx);
	if (!pd)
		die("ibv_alloc_pd");
	printf("TAP version 13\n1..2\n");
	test_qpn();
	test_resize();
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	return ktap_failed;
}

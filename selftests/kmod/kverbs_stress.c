// SPDX-License-Identifier: GPL-2.0
/*
 * orca_kverbs cases that repeat one operation many times, for bookkeeping
 * that only goes wrong on the thousandth run or at a resource limit: an SRQ
 * shared by QPs that are reset and destroyed with receive completions
 * outstanding (datapath suite), and thousands of armed CQs on one
 * completion vector (limits suite).
 */
#include <linux/delay.h>
#include <linux/slab.h>

#include "kverbs.h"

#define KV_CHURN_QKEY		0x22222222
#define KV_CHURN_SRQ_WR		16
#define KV_CHURN_RECEIVERS	2
#define KV_CHURN_RUNS		10000	/* resets and destroys in all */
#define KV_CHURN_WAIT_MS	20000

struct kv_churn {
	struct ib_pd *pd;
	struct ib_srq *srq;
	struct ib_qp *tx;
	struct ib_cq *tx_cq;
	struct ib_qp **rx[KV_CHURN_RECEIVERS];	/* slots in kv_test.qps */
	struct ib_cq *rx_cq[KV_CHURN_RECEIVERS];
	struct ib_ah *ah;
	struct kv_buf *buf;
	u32 depth;
	u64 posted;		/* SRQ receives posted */
	u64 consumed;		/* SRQ receives a message took */
};

/* RESET -> INIT -> RTR: a UD QP that receives (it never sends). */
static int kv_churn_ready(struct kv_test *t, struct ib_qp *qp)
{
	struct ib_qp_attr attr = {
		.qp_state = IB_QPS_INIT,
		.port_num = 1,
		.qkey = KV_CHURN_QKEY,
	};
	int err;

	err = ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_PKEY_INDEX |
			   IB_QP_PORT | IB_QP_QKEY);
	if (!KV_EXPECT(t, !err, "RESET->INIT: %d", err))
		return err;
	attr.qp_state = IB_QPS_RTR;
	err = ib_modify_qp(qp, &attr, IB_QP_STATE);
	KV_EXPECT(t, !err, "INIT->RTR: %d", err);
	return err;
}

/* Receiver @i, made in its slot of kv_test.qps (NULL if that failed). */
static bool kv_churn_rx_qp(struct kv_test *t, struct kv_churn *c, int i)
{
	struct ib_qp_init_attr init = {
		.send_cq = c->rx_cq[i],
		.recv_cq = c->rx_cq[i],
		.srq = c->srq,
		.qp_type = IB_QPT_UD,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.cap = { .max_send_wr = 1, .max_send_sge = 1 },
	};
	struct ib_qp *qp = ib_create_qp(c->pd, &init);

	if (!KV_EXPECT(t, !IS_ERR(qp), "create receiver QP: %pe", qp))
		return false;
	*c->rx[i] = qp;
	return !kv_churn_ready(t, qp);
}

/* Keep the SRQ full; every post must succeed. */
static bool kv_churn_fill_srq(struct kv_test *t, struct kv_churn *c)
{
	struct ib_sge sge = {
		.addr = c->buf->dma,
		.length = c->buf->len,
		.lkey = c->pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = { .sg_list = &sge, .num_sge = 1 };
	int err;

	while (c->posted - c->consumed < c->depth) {
		wr.wr_id = c->posted;
		err = ib_post_srq_recv(c->srq, &wr, NULL);
		if (!KV_EXPECT(t, !err,
			       "post_srq_recv %d with %llu of %u outstanding (posted %llu)",
			       err, c->posted - c->consumed, c->depth,
			       c->posted))
			return false;
		c->posted++;
	}
	return true;
}

/* Send one datagram to every receiver and wait for it to land there. */
static bool kv_churn_send(struct kv_test *t, struct kv_churn *c)
{
	struct ib_sge sge = {
		.addr = c->buf->dma,
		.length = 8,
		.lkey = c->pd->local_dma_lkey,
	};
	struct ib_ud_wr wr = {
		.wr = {
			.sg_list = &sge,
			.num_sge = 1,
			.opcode = IB_WR_SEND,
			.send_flags = IB_SEND_SIGNALED,
		},
		.ah = c->ah,
		.remote_qkey = KV_CHURN_QKEY,
	};
	unsigned long deadline;
	struct ib_wc wc;
	int i, err;

	for (i = 0; i < KV_CHURN_RECEIVERS; i++) {
		wr.wr.wr_id = i;
		wr.remote_qpn = (*c->rx[i])->qp_num;
		err = ib_post_send(c->tx, &wr.wr, NULL);
		if (!KV_EXPECT(t, !err, "post_send %d", err))
			return false;
		if (!kv_expect_wc(t, c->tx_cq, "churn send", i, IB_WC_SUCCESS,
				  IB_WC_SEND, NULL))
			return false;
	}
	/*
	 * The receive completion stays unpolled: that is the point.  A
	 * request for notification that reports missed events tells when it
	 * is there without consuming it.
	 */
	for (i = 0; i < KV_CHURN_RECEIVERS; i++) {
		deadline = jiffies + msecs_to_jiffies(KV_CHURN_WAIT_MS);
		while (ib_req_notify_cq(c->rx_cq[i], IB_CQ_NEXT_COMP |
					IB_CQ_REPORT_MISSED_EVENTS) <= 0) {
			if (!KV_EXPECT(t, time_before(jiffies, deadline),
				       "receiver %d: no completion in %d ms",
				       i, KV_CHURN_WAIT_MS))
				return false;
			usleep_range(20, 100);
		}
		c->consumed++;
	}
	/* Nothing polled yet: the poll after the reset must drop it all. */
	return !ib_poll_cq(c->tx_cq, 1, &wc) ||
	       KV_EXPECT(t, false, "extra send completion %llu", wc.wr_id);
}

/*
 * Reset receiver @i (or destroy and recreate it), with its receive
 * completion unpolled; the completion must not surface afterwards.
 */
static bool kv_churn_recycle(struct kv_test *t, struct kv_churn *c, int i,
			     bool destroy)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_RESET };
	struct ib_wc wc;
	int err, n;

	if (destroy) {
		err = ib_destroy_qp(*c->rx[i]);
		*c->rx[i] = NULL;
		if (!KV_EXPECT(t, !err, "destroy receiver: %d", err))
			return false;
	} else {
		err = ib_modify_qp(*c->rx[i], &attr, IB_QP_STATE);
		if (!KV_EXPECT(t, !err, "to RESET: %d", err))
			return false;
	}
	n = ib_poll_cq(c->rx_cq[i], 1, &wc);
	if (!KV_EXPECT(t, n == 0, "receiver %d: %d completions after %s", i,
		       n, destroy ? "destroy" : "reset"))
		return false;
	if (destroy)
		return kv_churn_rx_qp(t, c, i);
	return !kv_churn_ready(t, *c->rx[i]);
}

/* Full means full: one more receive than the depth is refused. */
static void kv_churn_check_full(struct kv_test *t, struct kv_churn *c)
{
	struct ib_sge sge = {
		.addr = c->buf->dma,
		.length = c->buf->len,
		.lkey = c->pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = { .sg_list = &sge, .num_sge = 1 };
	int err = ib_post_srq_recv(c->srq, &wr, NULL);

	KV_EXPECT(t, err == -ENOMEM,
		  "receive %llu with %u outstanding: %d, want -ENOMEM",
		  c->posted + 1, c->depth, err);
}

static void kv_churn_cleanup(struct kv_test *t)
{
	kfree(t->priv);
}

/**
 * kv_srq_churn() - an SRQ outlives the QPs that consumed it
 * @t: the test case
 *
 * Receivers on one SRQ are reset (and every fourth time destroyed and made
 * again) with the receive completion of the message they just took still
 * unpolled, KV_CHURN_RUNS times in all.  The SRQ is refilled after every
 * round and posting to it must never fail: the slots of the dropped
 * completions come back, and none more (a full SRQ refuses one more).
 */
void kv_srq_churn(struct kv_test *t)
{
	struct rdma_ah_attr ah_attr;
	struct ib_srq_attr sattr;
	struct kv_churn *c;
	union ib_gid gid;
	int i, run, idx;

	c = kzalloc_obj(*c);
	if (!KV_EXPECT(t, c, "no memory"))
		return;
	t->priv = c;
	t->cleanup = kv_churn_cleanup;
	c->pd = kv_pd(t);
	c->srq = kv_srq(t, KV_CHURN_SRQ_WR, 1);
	c->tx_cq = kv_cq(t, 16, 0);
	for (i = 0; i < KV_CHURN_RECEIVERS; i++)
		c->rx_cq[i] = kv_cq(t, 16, 0);
	c->buf = kv_buf_alloc(t, 256);
	idx = kv_roce_v2_gid(t, &gid);
	if (!c->pd || !c->srq || !c->tx_cq || !c->rx_cq[1] || !c->buf ||
	    idx < 0 || ib_query_srq(c->srq, &sattr))
		return;
	c->depth = sattr.max_wr;
	c->tx = kv_simple_qp(t, IB_QPT_UD, c->tx_cq, 16, NULL);
	if (!c->tx || kv_ud_ready(t, c->tx, KV_CHURN_QKEY))
		return;
	kv_ah_attr(t, &ah_attr, &gid, idx);
	c->ah = kv_ah(t, &ah_attr);
	if (!c->ah)
		return;
	for (i = 0; i < KV_CHURN_RECEIVERS; i++) {
		if (!KV_EXPECT(t, t->nqps < KV_MAX_QPS, "too many QPs"))
			return;
		c->rx[i] = &t->qps[t->nqps++];
		if (!kv_churn_rx_qp(t, c, i))
			return;
	}

	for (run = 0; run < KV_CHURN_RUNS; run += KV_CHURN_RECEIVERS) {
		if (!kv_churn_fill_srq(t, c) || !kv_churn_send(t, c))
			return;
		for (i = 0; i < KV_CHURN_RECEIVERS; i++)
			if (!kv_churn_recycle(t, c, i, (run / 2 + i) % 4 == 3))
				return;
		cond_resched();
	}
	if (kv_churn_fill_srq(t, c))
		kv_churn_check_full(t, c);
	kv_diag(t, "%d resets and destroys, %llu receives posted, %llu consumed",
		KV_CHURN_RUNS, c->posted, c->consumed);
}

#define KV_FLOOD_CQS		2000	/* armed, each with an event due */
#define KV_FLOOD_MAX_CQS	8192	/* where to stop looking for the limit */
#define KV_FLOOD_SETTLE_MS	300
#define KV_FLOOD_WAIT_MS	30000

struct kv_flood {
	struct ib_cq **cqs;
	int ncqs;
	struct ib_qp **qps;
	int nqps;
	atomic_t events;
};

static void kv_flood_comp(struct ib_cq *cq, void *ctx)
{
	struct kv_flood *f = ctx;

	atomic_inc(&f->events);
}

static void kv_flood_teardown(struct kv_flood *f)
{
	while (f->nqps)
		ib_destroy_qp(f->qps[--f->nqps]);
	while (f->ncqs)
		ib_destroy_cq(f->cqs[--f->ncqs]);
	kvfree(f->qps);
	kvfree(f->cqs);
}

/* CQs on vector 0 until the driver says no; only -ENOMEM is a clean no. */
static bool kv_flood_create_cqs(struct kv_test *t, struct kv_flood *f)
{
	struct ib_cq_init_attr attr = { .cqe = 1, .comp_vector = 0 };
	struct ib_cq *cq;

	while (f->ncqs < KV_FLOOD_MAX_CQS) {
		cq = ib_create_cq(t->ibdev, kv_flood_comp, NULL, f, &attr);
		if (IS_ERR(cq)) {
			kv_diag(t, "CQ %d on vector 0: %pe", f->ncqs + 1, cq);
			return KV_EXPECT(t, PTR_ERR(cq) == -ENOMEM &&
					 f->ncqs >= KV_FLOOD_CQS / 2,
					 "CQ %d: %pe, want -ENOMEM and at least %d",
					 f->ncqs + 1, cq, KV_FLOOD_CQS / 2);
		}
		f->cqs[f->ncqs++] = cq;
		if ((f->ncqs & 255) == 0)
			cond_resched();
	}
	kv_diag(t, "%d CQs on vector 0, no limit met", f->ncqs);
	return true;
}

/*
 * An RC QP between two of the CQs, in ERR with a send and a receive
 * posted: each CQ gets one flushed completion, and no event yet (unarmed).
 */
static bool kv_flood_qp(struct kv_test *t, struct kv_flood *f,
			struct ib_cq *scq, struct ib_cq *rcq)
{
	struct ib_qp_init_attr init = {
		.send_cq = scq,
		.recv_cq = rcq,
		.qp_type = IB_QPT_RC,
		.sq_sig_type = IB_SIGNAL_ALL_WR,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ib_qp_attr attr = {
		.qp_state = IB_QPS_INIT,
		.port_num = 1,
	};
	struct ib_send_wr swr = { .opcode = IB_WR_SEND,
				  .send_flags = IB_SEND_SIGNALED };
	struct ib_recv_wr rwr = {};
	struct ib_qp *qp;
	int err;

	qp = ib_create_qp(t->pd, &init);
	if (!KV_EXPECT(t, !IS_ERR(qp), "QP %d: %pe", f->nqps, qp))
		return false;
	f->qps[f->nqps++] = qp;
	err = ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_PKEY_INDEX |
			   IB_QP_PORT | IB_QP_ACCESS_FLAGS);
	if (!KV_EXPECT(t, !err, "QP %d to INIT: %d", f->nqps, err))
		return false;
	attr.qp_state = IB_QPS_ERR;
	err = ib_modify_qp(qp, &attr, IB_QP_STATE);
	if (!KV_EXPECT(t, !err, "QP %d to ERR: %d", f->nqps, err))
		return false;
	/* wr_id: the index of the CQ the completion goes to. */
	swr.wr_id = 2 * (f->nqps - 1);
	rwr.wr_id = 2 * (f->nqps - 1) + 1;
	err = ib_post_recv(qp, &rwr, NULL);
	if (!err)
		err = ib_post_send(qp, &swr, NULL);
	return KV_EXPECT(t, !err, "QP %d: post %d", f->nqps, err);
}

/* Every flooded CQ holds exactly its flushed completion. */
static void kv_flood_check_cqs(struct kv_test *t, struct kv_flood *f, int n)
{
	struct ib_wc wc[2];
	int i, got, bad = 0;

	for (i = 0; i < n; i++) {
		got = ib_poll_cq(f->cqs[i], 2, wc);
		if (got != 1 || wc[0].status != IB_WC_WR_FLUSH_ERR ||
		    wc[0].wr_id != i)
			bad++;
	}
	KV_EXPECT(t, !bad, "%d of %d CQs without their one flushed completion",
		  bad, n);
}

/**
 * kv_cq_flood() - thousands of armed CQs on one completion vector
 * @t: the test case
 *
 * A CQ raises at most one event per arm, so an EQ with N CQs bound needs
 * room for N events; the driver must refuse a CQ (-ENOMEM) before its
 * vector's EQ could overflow, as an overflow is fatal for the adapter.
 * CQs are created on vector 0 until refused; then KV_FLOOD_CQS of them
 * (or all, if fewer) get a completion each and are armed together while
 * this CPU holds its interrupts off, so the events pile up in the EQ.
 * Every CQ must see its event, and the adapter must still work.
 */
void kv_cq_flood(struct kv_test *t)
{
	struct kv_flood f = {};
	unsigned long deadline, flags;
	int i, n, events;
	struct ib_cq *cq;

	atomic_set(&f.events, 0);
	f.cqs = kvcalloc(KV_FLOOD_MAX_CQS, sizeof(*f.cqs), GFP_KERNEL);
	f.qps = kvcalloc(KV_FLOOD_CQS / 2, sizeof(*f.qps), GFP_KERNEL);
	if (!KV_EXPECT(t, f.cqs && f.qps, "no memory") || !kv_pd(t) ||
	    !kv_flood_create_cqs(t, &f))
		goto out;
	n = min(f.ncqs, KV_FLOOD_CQS) & ~1;
	for (i = 0; i < n; i += 2)
		if (!kv_flood_qp(t, &f, f.cqs[i], f.cqs[i + 1]))
			goto out;
	/* Give the adapter time to write the flushed completions. */
	msleep(KV_FLOOD_SETTLE_MS);

	/* Arm them all; the events wait in the EQ until interrupts return. */
	local_irq_save(flags);
	for (i = 0; i < n; i++)
		ib_req_notify_cq(f.cqs[i], IB_CQ_NEXT_COMP);
	mdelay(KV_FLOOD_SETTLE_MS);
	local_irq_restore(flags);

	deadline = jiffies + msecs_to_jiffies(KV_FLOOD_WAIT_MS);
	while ((events = atomic_read(&f.events)) < n &&
	       time_before(jiffies, deadline))
		msleep(20);
	KV_EXPECT(t, events == n, "%d completion events for %d armed CQs",
		  events, n);
	kv_flood_check_cqs(t, &f, n);

	/* The adapter still works: a CQ freed is a CQ that can be made. */
	if (f.ncqs > n)
		ib_destroy_cq(f.cqs[--f.ncqs]);
	cq = ib_create_cq(t->ibdev, kv_flood_comp, NULL, &f,
			  &(struct ib_cq_init_attr){ .cqe = 1 });
	if (KV_EXPECT(t, !IS_ERR(cq), "CQ after the flood: %pe", cq))
		f.cqs[f.ncqs++] = cq;
	kv_diag(t, "%d CQs on vector 0, %d armed, %d events", f.ncqs, n,
		events);
out:
	kv_flood_teardown(&f);
}

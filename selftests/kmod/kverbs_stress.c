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

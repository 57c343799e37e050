// SPDX-License-Identifier: GPL-2.0
/*
 * orca_kverbs: an event that outlives its CQ.  A completion event the
 * adapter wrote for a CQ but the driver had not yet consumed when the CQ
 * was destroyed must not reach the next CQ that gets the same number.
 *
 * The event stays unconsumed because the case holds the completion
 * interrupts back in this kernel (disable_irq() on every MSI-X vector but
 * vector 0, which carries EQ 0 and with it the command completions): the
 * adapter writes the event, the interrupt waits, commands go on.
 */
#include <linux/interrupt.h>
#include <linux/pci.h>
#include <net/netlink.h>
#include <rdma/rdma_netlink.h>

#include "kverbs.h"

#define KV_STALE_MAX_IRQS	64
#define KV_STALE_TRIES		4096	/* CQs created to meet A's number */
#define KV_STALE_WAIT_MS	20000

struct kv_irq_hold {
	int irqs[KV_STALE_MAX_IRQS];
	int n;
};

/*
 * Hold back every completion interrupt of the adapter: all its MSI-X
 * vectors but vector 0, which the driver gives EQ 0 (command completions
 * and async events).  An MSI that comes while its line is disabled is
 * marked pending and sent again by enable_irq().
 */
static bool kv_hold_comp_irqs(struct kv_test *t, struct kv_irq_hold *h)
{
	struct device *parent = t->ibdev->dev.parent;
	struct pci_dev *pdev;
	int irq;

	h->n = 0;
	if (!parent || !dev_is_pci(parent)) {
		kv_skip(t, "not a PCI device");
		return false;
	}
	pdev = to_pci_dev(parent);
	while (h->n < KV_STALE_MAX_IRQS) {
		irq = pci_irq_vector(pdev, h->n + 1);
		if (irq < 0)
			break;
		disable_irq(irq);
		h->irqs[h->n++] = irq;
	}
	return KV_EXPECT(t, h->n > 0, "no MSI-X vector past vector 0");
}

static void kv_release_comp_irqs(struct kv_irq_hold *h)
{
	while (h->n)
		enable_irq(h->irqs[--h->n]);
}

/*
 * The adapter's number of @cq: the "cqn" driver attribute that `rdma
 * resource show cq -dd` prints (restrack's own cqn is not the adapter's).
 */
static int kv_cq_number(struct kv_test *t, struct ib_cq *cq, u32 *cqn)
{
	struct nlattr *nest, *a;
	struct sk_buff *msg;
	bool named = false;
	int rem, err;

	if (!t->ibdev->ops.fill_res_cq_entry)
		return -EOPNOTSUPP;
	msg = alloc_skb(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	err = t->ibdev->ops.fill_res_cq_entry(msg, cq);
	if (err)
		goto out;
	err = -ENOENT;
	nest = nla_find((struct nlattr *)msg->data, msg->len,
			RDMA_NLDEV_ATTR_DRIVER);
	if (!nest)
		goto out;
	/* Each value follows its name (and, maybe, its print type). */
	nla_for_each_nested(a, nest, rem) {
		if (nla_type(a) == RDMA_NLDEV_ATTR_DRIVER_STRING) {
			named = !nla_strcmp(a, "cqn");
		} else if (named && nla_type(a) == RDMA_NLDEV_ATTR_DRIVER_U32) {
			*cqn = nla_get_u32(a);
			err = 0;
			break;
		}
	}
out:
	kfree_skb(msg);
	return err;
}

/* The driver's port counter @name (`rdma statistic`), or -1. */
static s64 kv_port_counter(struct kv_test *t, const char *name)
{
	const struct ib_device_ops *ops = &t->ibdev->ops;
	struct rdma_hw_stats *stats;
	s64 val = -1;
	int i, n;

	if (!ops->alloc_hw_port_stats || !ops->get_hw_stats)
		return -1;
	stats = ops->alloc_hw_port_stats(t->ibdev, 1);
	if (!stats)
		return -1;
	mutex_lock(&stats->lock);
	n = ops->get_hw_stats(t->ibdev, stats, 1, stats->num_counters);
	for (i = 0; i < n && i < stats->num_counters; i++)
		if (!strcmp(stats->descs[i].name, name))
			val = stats->value[i];
	mutex_unlock(&stats->lock);
	rdma_free_hw_stats_struct(stats);
	return val;
}

static void kv_count_event(struct ib_cq *cq, void *ctx)
{
	atomic_inc(ctx);
}

/* An RC QP on @cq, moved to ERR: each receive posted is flushed at once. */
static struct ib_qp *kv_err_qp(struct kv_test *t, struct ib_cq *cq)
{
	struct ib_qp_init_attr init = {
		.send_cq = cq,
		.recv_cq = cq,
		.qp_type = IB_QPT_RC,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ib_qp_attr attr = { .qp_state = IB_QPS_INIT, .port_num = 1 };
	struct ib_qp *qp;
	int err;

	qp = ib_create_qp(t->pd, &init);
	if (!KV_EXPECT(t, !IS_ERR(qp), "ib_create_qp: %pe", qp))
		return NULL;
	err = ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_PKEY_INDEX |
			   IB_QP_PORT | IB_QP_ACCESS_FLAGS);
	if (!err) {
		attr.qp_state = IB_QPS_ERR;
		err = ib_modify_qp(qp, &attr, IB_QP_STATE);
	}
	if (!KV_EXPECT(t, !err, "QP %u to INIT and ERR: %d", qp->qp_num, err)) {
		ib_destroy_qp(qp);
		return NULL;
	}
	return qp;
}

/*
 * Arm @cq, flush a receive into it and poll the flushed completion: the
 * adapter wrote its event right after the CQE, before any later command.
 */
static bool kv_flush_armed(struct kv_test *t, struct ib_qp *qp,
			   struct ib_cq *cq, u64 wr_id, const char *what)
{
	struct ib_recv_wr wr = { .wr_id = wr_id };
	int err;

	err = ib_req_notify_cq(cq, IB_CQ_NEXT_COMP);
	if (!err)
		err = ib_post_recv(qp, &wr, NULL);
	if (!KV_EXPECT(t, !err, "%s: arm and post: %d", what, err))
		return false;
	return kv_expect_wc(t, cq, what, wr_id, IB_WC_WR_FLUSH_ERR, -1, NULL);
}

/* A new CQ on vector 0 with @cqn: CQs without it are destroyed again. */
static struct ib_cq *kv_cq_with_number(struct kv_test *t, u32 cqn,
				       atomic_t *events, int *tries)
{
	struct ib_cq_init_attr attr = { .cqe = 16, .comp_vector = 0 };
	struct ib_cq *cq;
	u32 got;
	int err;

	for (*tries = 1; *tries <= KV_STALE_TRIES; (*tries)++) {
		cq = ib_create_cq(t->ibdev, kv_count_event, NULL, events,
				  &attr);
		if (!KV_EXPECT(t, !IS_ERR(cq), "ib_create_cq: %pe", cq))
			return NULL;
		err = kv_cq_number(t, cq, &got);
		if (!KV_EXPECT(t, !err, "the CQ's number: %d", err)) {
			ib_destroy_cq(cq);
			return NULL;
		}
		if (got == cqn)
			return cq;
		/* Freed numbers are reused first come, first served. */
		ib_destroy_cq(cq);
	}
	KV_EXPECT(t, false, "no CQ got number %u in %d tries", cqn,
		  KV_STALE_TRIES);
	return NULL;
}

/**
 * kv_cq_reused_number() - no stale completion event for a reused CQ number
 * @t: the test case
 *
 * With the completion interrupts held back, CQ A is armed and gets a
 * flushed completion, so its event sits unconsumed in the EQ; A and its
 * QP are destroyed and CQ B is created until it has A's number; B is
 * armed; then the marker CQ gets an event too, which the EQ holds after
 * A's (the three CQs are on vector 0, so on one EQ).  Once the
 * interrupts go, the marker's event shows that the EQ was consumed past
 * A's: B's handler must not have run (B had no completion), and the
 * driver must have counted the event it dropped.
 */
void kv_cq_reused_number(struct kv_test *t)
{
	atomic_t a_events = ATOMIC_INIT(0), b_events = ATOMIC_INIT(0);
	struct ib_cq_init_attr attr = { .cqe = 16, .comp_vector = 0 };
	struct ib_qp *mqp, *aqp = NULL;
	struct ib_cq *marker, *a, *b;
	struct kv_irq_hold hold;
	unsigned long deadline;
	s64 stale0, stale1;
	u32 cqn;
	int err, tries;

	marker = kv_cq(t, 16, 0);
	if (!marker || !kv_pd(t))
		return;
	/* The runner destroys the marker's QP and CQ B (t->qps, t->cqs). */
	if (!KV_EXPECT(t, t->nqps < KV_MAX_QPS && t->ncqs < KV_MAX_CQS,
		       "too many QPs or CQs"))
		return;
	mqp = kv_err_qp(t, marker);
	if (!mqp)
		return;
	t->qps[t->nqps++] = mqp;
	stale0 = kv_port_counter(t, "driver_stale_events");
	a = ib_create_cq(t->ibdev, kv_count_event, NULL, &a_events, &attr);
	if (!KV_EXPECT(t, !IS_ERR(a), "CQ A: %pe", a))
		return;
	err = kv_cq_number(t, a, &cqn);
	if (err) {
		ib_destroy_cq(a);
		if (err == -EOPNOTSUPP)
			kv_skip(t, "the driver reports no CQ number");
		else
			KV_EXPECT(t, false, "CQ A's number: %d", err);
		return;
	}
	aqp = kv_err_qp(t, a);
	if (!aqp || !kv_hold_comp_irqs(t, &hold)) {
		if (aqp)
			ib_destroy_qp(aqp);
		ib_destroy_cq(a);
		return;
	}

	kv_flush_armed(t, aqp, a, 1, "CQ A's flushed receive");
	ib_destroy_qp(aqp);
	ib_destroy_cq(a);
	KV_EXPECT(t, atomic_read(&a_events) == 0,
		  "CQ A's event arrived with the interrupts held back");
	b = kv_cq_with_number(t, cqn, &b_events, &tries);
	if (b) {
		t->cqs[t->ncqs++] = b;
		kv_diag(t, "CQ %u reused after %d CQs", cqn, tries);
		KV_EXPECT(t, !ib_req_notify_cq(b, IB_CQ_NEXT_COMP), "arm B");
	}
	kv_flush_armed(t, mqp, marker, 2, "the marker CQ's flushed receive");
	kv_release_comp_irqs(&hold);
	if (!b)
		return;

	deadline = jiffies + msecs_to_jiffies(KV_STALE_WAIT_MS);
	while (!atomic_read(&t->comp_events) && time_before(jiffies, deadline))
		usleep_range(500, 2000);
	if (!KV_EXPECT(t, atomic_read(&t->comp_events) == 1,
		       "marker events: %d", atomic_read(&t->comp_events)))
		return;
	KV_EXPECT(t, atomic_read(&b_events) == 0,
		  "CQ B (number %u, A's) got %d events for A's completion",
		  cqn, atomic_read(&b_events));
	stale1 = kv_port_counter(t, "driver_stale_events");
	kv_diag(t, "driver_stale_events %lld -> %lld", stale0, stale1);
	if (stale0 >= 0)
		KV_EXPECT(t, stale1 > stale0,
			  "A's dropped event not counted (%lld -> %lld)",
			  stale0, stale1);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * orca_kverbs: an event that outlives its object.  An event the adapter
 * wrote for a CQ, a QP or an SRQ but the driver had not yet consumed when
 * the object was destroyed must not reach the next object that gets the
 * same number.
 *
 * A CQ's completion event stays unconsumed because the case holds the
 * completion interrupts back in this kernel (disable_irq() on every MSI-X
 * vector but vector 0, which carries EQ 0 and with it the command
 * completions): the adapter writes the event, the interrupt waits,
 * commands go on.  QP and SRQ events are on EQ 0 itself, in line with the
 * command completions, so holding them back also holds back every command
 * for its timeout: those cases switch the driver's command queue to
 * polling, as it runs before EQ 0 exists (kv_hold_async_eq()).
 */
#include <linux/interrupt.h>
#include <linux/pci.h>
#include <net/netlink.h>
#include <rdma/rdma_netlink.h>

#include "kverbs.h"
/* struct orca_dev, for kv_hold_async_eq() only. */
#include "../../drivers/infiniband/hw/orca/orca.h"

#define KV_STALE_MAX_IRQS	64
#define KV_STALE_TRIES		4096	/* objects created to meet A's number */
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

/* The driver attribute @name in @msg, as a fill_res_*_entry() wrote it. */
static int kv_driver_u32(struct sk_buff *msg, const char *name, u32 *val)
{
	struct nlattr *nest, *a;
	bool named = false;
	int rem;

	nest = nla_find((struct nlattr *)msg->data, msg->len,
			RDMA_NLDEV_ATTR_DRIVER);
	if (!nest)
		return -ENOENT;
	/* Each value follows its name (and, maybe, its print type). */
	nla_for_each_nested(a, nest, rem) {
		if (nla_type(a) == RDMA_NLDEV_ATTR_DRIVER_STRING) {
			named = !nla_strcmp(a, name);
		} else if (named && nla_type(a) == RDMA_NLDEV_ATTR_DRIVER_U32) {
			*val = nla_get_u32(a);
			return 0;
		}
	}
	return -ENOENT;
}

/*
 * The adapter's number of @cq: the "cqn" driver attribute that `rdma
 * resource show cq -dd` prints (restrack's own cqn is not the adapter's).
 */
static int kv_cq_number(struct kv_test *t, struct ib_cq *cq, u32 *cqn)
{
	struct sk_buff *msg;
	int err;

	if (!t->ibdev->ops.fill_res_cq_entry)
		return -EOPNOTSUPP;
	msg = alloc_skb(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	err = t->ibdev->ops.fill_res_cq_entry(msg, cq);
	if (!err)
		err = kv_driver_u32(msg, "cqn", cqn);
	kfree_skb(msg);
	return err;
}

/* The adapter's number of @srq: the "srqn" driver attribute. */
static int kv_srq_number(struct kv_test *t, struct ib_srq *srq, u32 *srqn)
{
	struct sk_buff *msg;
	int err;

	if (!t->ibdev->ops.fill_res_srq_entry)
		return -EOPNOTSUPP;
	msg = alloc_skb(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	err = t->ibdev->ops.fill_res_srq_entry(msg, srq);
	if (!err)
		err = kv_driver_u32(msg, "srqn", srqn);
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

/*
 * EQ 0 held back: its interrupt (vector 0) disabled, and the command queue
 * switched to polling its completion ring, which is how the driver runs
 * commands before EQ 0 exists.  Commands then go on without EQ 0 while
 * the QP and SRQ events the adapter writes there stay unconsumed.  An MSI
 * that comes while the line is disabled is sent again by enable_irq().
 *
 * The switch is the driver's own cmdq.event_mode, which
 * orca_cmdq_set_event_mode() sets and nothing exports: this module is
 * built with the driver, from the same headers.  A command another thread
 * posted in event mode just before the switch gets its event at the
 * release, a second or so later, well within the command timeout.
 */
struct kv_async_hold {
	struct orca_dev *odev;
	int irq;
};

static bool kv_hold_async_eq(struct kv_test *t, struct kv_async_hold *h)
{
	struct device *parent = t->ibdev->dev.parent;

	if (!parent || !dev_is_pci(parent) || !parent->driver ||
	    strcmp(dev_driver_string(parent), "orca")) {
		kv_skip(t, "EQ 0 is held through the orca driver's command queue");
		return false;
	}
	h->irq = pci_irq_vector(to_pci_dev(parent), 0);
	if (!KV_EXPECT(t, h->irq > 0, "vector 0: %d", h->irq))
		return false;
	h->odev = container_of(t->ibdev, struct orca_dev, ibdev);
	WRITE_ONCE(h->odev->cmdq.event_mode, false);
	disable_irq(h->irq);
	return true;
}

static void kv_release_async_eq(struct kv_async_hold *h)
{
	enable_irq(h->irq);
	WRITE_ONCE(h->odev->cmdq.event_mode, true);
}

/* Counters the event handlers of a case's objects write; freed last. */
struct kv_stale_events {
	atomic_t old;		/* the destroyed object's */
	atomic_t reused;	/* those of the object that got its number */
};

static void kv_stale_cleanup(struct kv_test *t)
{
	kfree(t->priv);
}

static struct kv_stale_events *kv_stale_events(struct kv_test *t)
{
	struct kv_stale_events *ev = kzalloc_obj(*ev);

	if (!KV_EXPECT(t, ev, "kzalloc"))
		return NULL;
	t->priv = ev;
	t->cleanup = kv_stale_cleanup;
	return ev;
}

static void kv_count_ib_event(struct ib_event *ev, void *ctx)
{
	atomic_inc(ctx);
}

/* An RC QP on @cq (receiving from @srq, if any); its events in @events. */
static struct ib_qp *kv_counted_qp(struct kv_test *t, struct ib_cq *cq,
				   struct ib_srq *srq, atomic_t *events)
{
	struct ib_qp_init_attr init = {
		.event_handler = kv_count_ib_event,
		.qp_context = events,
		.send_cq = cq,
		.recv_cq = cq,
		.srq = srq,
		.qp_type = IB_QPT_RC,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.cap = { .max_send_wr = 4, .max_recv_wr = srq ? 0 : 4,
			 .max_send_sge = 1, .max_recv_sge = srq ? 0 : 1 },
	};
	struct ib_qp *qp = ib_create_qp(t->pd, &init);

	if (!KV_EXPECT(t, !IS_ERR(qp), "ib_create_qp: %pe", qp))
		return NULL;
	return qp;
}

/* An SRQ of @max_wr receives; its events counted in @events. */
static struct ib_srq *kv_counted_srq(struct kv_test *t, u32 max_wr,
				     atomic_t *events)
{
	struct ib_srq_init_attr init = {
		.event_handler = kv_count_ib_event,
		.srq_context = events,
		.srq_type = IB_SRQT_BASIC,
		.attr = { .max_wr = max_wr, .max_sge = 1 },
	};
	struct ib_srq *srq = ib_create_srq(t->pd, &init);

	if (!KV_EXPECT(t, !IS_ERR(srq), "ib_create_srq: %pe", srq))
		return NULL;
	return srq;
}

/* A new QP with number @qpn: QPs without it are destroyed again. */
static struct ib_qp *kv_qp_with_number(struct kv_test *t, struct ib_cq *cq,
				       u32 qpn, atomic_t *events, int *tries)
{
	struct ib_qp *qp;

	for (*tries = 1; *tries <= KV_STALE_TRIES; (*tries)++) {
		qp = kv_counted_qp(t, cq, NULL, events);
		if (!qp)
			return NULL;
		if (qp->qp_num == qpn)
			return qp;
		ib_destroy_qp(qp);
		cond_resched();
	}
	KV_EXPECT(t, false, "no QP got number %u in %d tries", qpn,
		  KV_STALE_TRIES);
	return NULL;
}

/* A new SRQ with number @srqn: SRQs without it are destroyed again. */
static struct ib_srq *kv_srq_with_number(struct kv_test *t, u32 srqn,
					 atomic_t *events, int *tries)
{
	struct ib_srq *srq;
	u32 got;
	int err;

	for (*tries = 1; *tries <= KV_STALE_TRIES; (*tries)++) {
		srq = kv_counted_srq(t, 4, events);
		if (!srq)
			return NULL;
		err = kv_srq_number(t, srq, &got);
		if (!KV_EXPECT(t, !err, "the SRQ's number: %d", err)) {
			ib_destroy_srq(srq);
			return NULL;
		}
		if (got == srqn)
			return srq;
		ib_destroy_srq(srq);
		cond_resched();
	}
	KV_EXPECT(t, false, "no SRQ got number %u in %d tries", srqn,
		  KV_STALE_TRIES);
	return NULL;
}

/*
 * After the release: a command in event mode completes only once the EQ 0
 * handler has come to its completion, past the held events.  Then the
 * reused object must have had no event, and the driver must have counted
 * the one it dropped.
 */
static void kv_stale_verdict(struct kv_test *t, struct kv_stale_events *ev,
			     int marker_err, const char *what, u32 num,
			     s64 stale0)
{
	s64 stale1;

	KV_EXPECT(t, !marker_err, "a command after the release: %d",
		  marker_err);
	KV_EXPECT(t, atomic_read(&ev->old) == 0,
		  "the destroyed %s got %d events", what,
		  atomic_read(&ev->old));
	KV_EXPECT(t, atomic_read(&ev->reused) == 0,
		  "the new %s with number %u got %d events of the destroyed one",
		  what, num, atomic_read(&ev->reused));
	stale1 = kv_port_counter(t, "driver_stale_events");
	kv_diag(t, "driver_stale_events %lld -> %lld", stale0, stale1);
	if (stale0 >= 0)
		KV_EXPECT(t, stale1 > stale0,
			  "the %s's dropped event not counted (%lld -> %lld)",
			  what, stale0, stale1);
}

/**
 * kv_qp_reused_number() - no stale QP event for a reused QP number
 * @t: the test case
 *
 * With EQ 0 held back, RC QP A, which receives from an SRQ, goes from
 * INIT to ERR: the adapter writes IB_EVENT_QP_LAST_WQE_REACHED for it,
 * which stays in EQ 0.  A is destroyed and QP B created until it has A's
 * number; then EQ 0 is released.  B's handler must not run, and the
 * driver must have counted the event it dropped.
 */
void kv_qp_reused_number(struct kv_test *t)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_INIT, .port_num = 1 };
	struct ib_qp_init_attr qinit;
	struct kv_stale_events *ev;
	struct kv_async_hold hold;
	struct ib_qp *a, *b = NULL;
	struct ib_srq *srq;
	struct ib_cq *cq;
	int err, tries;
	s64 stale0;
	u32 qpn;

	ev = kv_stale_events(t);
	cq = kv_cq(t, 16, 0);
	srq = kv_srq(t, 4, 1);
	if (!ev || !cq || !srq ||
	    !KV_EXPECT(t, t->nqps < KV_MAX_QPS, "too many QPs"))
		return;
	a = kv_counted_qp(t, cq, srq, &ev->old);
	if (!a)
		return;
	qpn = a->qp_num;
	err = ib_modify_qp(a, &attr, IB_QP_STATE | IB_QP_PKEY_INDEX |
			   IB_QP_PORT | IB_QP_ACCESS_FLAGS);
	if (!KV_EXPECT(t, !err, "QP A to INIT: %d", err) ||
	    !kv_hold_async_eq(t, &hold)) {
		ib_destroy_qp(a);
		return;
	}
	stale0 = kv_port_counter(t, "driver_stale_events");
	attr.qp_state = IB_QPS_ERR;
	err = ib_modify_qp(a, &attr, IB_QP_STATE);
	KV_EXPECT(t, !err, "QP A to ERR: %d", err);
	ib_destroy_qp(a);
	if (!err)
		b = kv_qp_with_number(t, cq, qpn, &ev->reused, &tries);
	kv_release_async_eq(&hold);
	if (!b)
		return;
	t->qps[t->nqps++] = b;
	kv_diag(t, "QP %u reused after %d QPs", qpn, tries);
	err = ib_query_qp(b, &attr, IB_QP_STATE, &qinit);
	kv_stale_verdict(t, ev, err, "QP", qpn, stale0);
}

/* Post @n receives of @buf to @srq. */
static bool kv_stale_srq_fill(struct kv_test *t, struct ib_srq *srq,
			      struct kv_buf *buf, int n)
{
	struct ib_sge sge = {
		.addr = buf->dma,
		.length = buf->len,
		.lkey = t->pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = { .sg_list = &sge, .num_sge = 1 };
	int err = 0;

	while (!err && n--) {
		wr.wr_id = 1300 + n;
		err = ib_post_srq_recv(srq, &wr, NULL);
	}
	return KV_EXPECT(t, !err, "post_srq_recv: %d", err);
}

/* A SEND from @qa to @qb; true once both of its completions are polled. */
static bool kv_stale_send(struct kv_test *t, struct ib_qp *qa,
			  struct ib_cq *cq, struct kv_buf *buf)
{
	struct ib_sge sge = {
		.addr = buf->dma,
		.length = 8,
		.lkey = t->pd->local_dma_lkey,
	};
	struct ib_send_wr wr = {
		.wr_id = 1400, .sg_list = &sge, .num_sge = 1,
		.opcode = IB_WR_SEND, .send_flags = IB_SEND_SIGNALED,
	};
	struct ib_wc wc;
	int err, i;

	err = ib_post_send(qa, &wr, NULL);
	if (!KV_EXPECT(t, !err, "post SEND: %d", err))
		return false;
	/* The send's and the receive's, in either order. */
	for (i = 0; i < 2; i++)
		if (!kv_poll_one(t, cq, &wc, "the SEND into the SRQ") ||
		    !KV_EXPECT(t, wc.status == IB_WC_SUCCESS,
			       "wr_id %llu: %s", wc.wr_id,
			       ib_wc_status_msg(wc.status)))
			return false;
	return true;
}

/**
 * kv_srq_reused_number() - no stale SRQ event for a reused SRQ number
 * @t: the test case
 *
 * SRQ A holds two receives and is armed with a limit of two.  With EQ 0
 * held back, a SEND to RC QP B takes one of them: the adapter writes
 * IB_EVENT_SRQ_LIMIT_REACHED for A, which stays in EQ 0.  B and A are
 * destroyed and SRQ C created until it has A's number; then EQ 0 is
 * released.  C's handler must not run, and the driver must have counted
 * the event it dropped.
 */
void kv_srq_reused_number(struct kv_test *t)
{
	struct ib_srq_attr sattr = { .srq_limit = 2 };
	struct ib_srq *a, *c = NULL;
	struct kv_stale_events *ev;
	struct kv_async_hold hold;
	struct ib_qp *qa, *qb;
	struct kv_buf *buf;
	struct ib_cq *cq;
	int err, tries, i;
	s64 stale0;
	u32 srqn;

	ev = kv_stale_events(t);
	cq = kv_cq(t, 16, 0);
	buf = kv_buf_alloc(t, 64);
	if (!ev || !cq || !buf || !kv_pd(t) ||
	    !KV_EXPECT(t, t->nsrqs < KV_MAX_SRQS, "too many SRQs"))
		return;
	a = kv_counted_srq(t, 4, &ev->old);
	if (!a)
		return;
	err = kv_srq_number(t, a, &srqn);
	if (err) {
		if (err == -EOPNOTSUPP)
			kv_skip(t, "the driver reports no SRQ number");
		else
			KV_EXPECT(t, false, "SRQ A's number: %d", err);
		goto out_a;
	}
	qa = kv_simple_qp(t, IB_QPT_RC, cq, 4, NULL);
	qb = kv_simple_qp(t, IB_QPT_RC, cq, 4, a);
	if (!qa || !qb || kv_rc_connect(t, qa, qb->qp_num) ||
	    kv_rc_connect(t, qb, qa->qp_num) ||
	    !kv_stale_srq_fill(t, a, buf, 2))
		goto out_qb;
	err = ib_modify_srq(a, &sattr, IB_SRQ_LIMIT);
	if (!KV_EXPECT(t, !err, "arm SRQ A's limit: %d", err) ||
	    !kv_hold_async_eq(t, &hold))
		goto out_qb;
	stale0 = kv_port_counter(t, "driver_stale_events");
	if (kv_stale_send(t, qa, cq, buf)) {
		for (i = 0; i < t->nqps && t->qps[i] != qb; i++)
			;
		err = ib_destroy_qp(qb);
		t->qps[i] = NULL;
		KV_EXPECT(t, !err, "destroy QP B: %d", err);
		ib_destroy_srq(a);
		a = NULL;
		c = kv_srq_with_number(t, srqn, &ev->reused, &tries);
	}
	kv_release_async_eq(&hold);
	if (!c)
		goto out_qb;
	t->srqs[t->nsrqs++] = c;
	kv_diag(t, "SRQ %u reused after %d SRQs", srqn, tries);
	err = ib_query_srq(c, &sattr);
	kv_stale_verdict(t, ev, err, "SRQ", srqn, stale0);
	return;

out_qb:
	/* A is not the runner's: the QPs on it go before it does. */
	for (i = 0; a && i < t->nqps; i++) {
		if (t->qps[i] && t->qps[i]->srq == a) {
			ib_destroy_qp(t->qps[i]);
			t->qps[i] = NULL;
		}
	}
out_a:
	if (a)
		ib_destroy_srq(a);
}

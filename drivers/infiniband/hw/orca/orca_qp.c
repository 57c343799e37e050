// SPDX-License-Identifier: GPL-2.0
/*
 * ORCA queue pairs (RC, UC, UD, GSI and the XRC initiator and target):
 * what kernel and user QPs share (checks,
 * geometry, CREATE_QP, destruction), creation of kernel QPs with their
 * rings, state transitions through MODIFY_QP, QUERY_QP, and the delivery
 * of QP async events.
 */
#include <linux/etherdevice.h>
#include <rdma/ib_addr.h>
#include <rdma/uverbs_ioctl.h>

#include "orca_eq.h"
#include "orca_verbs.h"
#include "orca_trace.h"

/* The ORCA attribute mask is numbered as enum ib_qp_attr_mask. */
static_assert(ORCA_QP_ATTR_STATE == IB_QP_STATE);
static_assert(ORCA_QP_ATTR_AV == IB_QP_AV);
static_assert(ORCA_QP_ATTR_PATH_MTU == IB_QP_PATH_MTU);
static_assert(ORCA_QP_ATTR_MAX_QP_RD_ATOMIC == IB_QP_MAX_QP_RD_ATOMIC);
static_assert(ORCA_QP_ATTR_MIN_RNR_TIMER == IB_QP_MIN_RNR_TIMER);
static_assert(ORCA_QP_ATTR_SQ_PSN == IB_QP_SQ_PSN);
static_assert(ORCA_QP_ATTR_MAX_DEST_RD_ATOMIC == IB_QP_MAX_DEST_RD_ATOMIC);
static_assert(ORCA_QP_ATTR_DEST_QPN == IB_QP_DEST_QPN);
static_assert(ORCA_ACCESS_LOCAL_WRITE == IB_ACCESS_LOCAL_WRITE);
static_assert(ORCA_ACCESS_REMOTE_WRITE == IB_ACCESS_REMOTE_WRITE);
static_assert(ORCA_ACCESS_REMOTE_READ == IB_ACCESS_REMOTE_READ);
static_assert(ORCA_ACCESS_REMOTE_ATOMIC == IB_ACCESS_REMOTE_ATOMIC);

#define ORCA_PSN_MASK		GENMASK(23, 0)

void orca_qp_put(struct orca_qp *qp)
{
	if (refcount_dec_and_test(&qp->refcnt))
		complete(&qp->free);
}

/* Look up a QP and take a reference; may run in hard IRQ context. */
struct orca_qp *orca_qp_get(struct orca_dev *odev, u32 qpn)
{
	struct orca_qp *qp;
	unsigned long flags;

	xa_lock_irqsave(&odev->qp_xa, flags);
	qp = xa_load(&odev->qp_xa, qpn);
	if (qp && !refcount_inc_not_zero(&qp->refcnt))
		qp = NULL;
	xa_unlock_irqrestore(&odev->qp_xa, flags);
	return qp;
}

/* Deliver an event of @qp, which the caller holds a reference to. */
static void orca_qp_event(struct orca_dev *odev, struct orca_qp *qp,
			  enum ib_event_type type)
{
	struct ib_event ev = {};

	/*
	 * The adapter moved the QP to ERR before it told us (spec,
	 * event-queues.rst, "Event types").
	 */
	if (type == IB_EVENT_QP_FATAL || type == IB_EVENT_QP_REQ_ERR ||
	    type == IB_EVENT_QP_ACCESS_ERR ||
	    type == IB_EVENT_QP_LAST_WQE_REACHED)
		orca_qp_set_err_state(qp, IB_QPS_ERR);

	if (qp->ibqp.event_handler) {
		ev.device = &odev->ibdev;
		ev.element.qp = &qp->ibqp;
		ev.event = type;
		qp->ibqp.event_handler(&ev, qp->ibqp.qp_context);
	}
}

void orca_qp_async_event(struct orca_dev *odev, u32 qpn,
			 enum ib_event_type type)
{
	struct orca_qp *qp = orca_qp_get(odev, qpn);

	if (!qp) {
		orca_unknown_object_event(odev, "QP", qpn);
		return;
	}
	orca_qp_event(odev, qp, type);
	orca_qp_put(qp);
}

/**
 * orca_qp_dead_last_wqe() - end the SRQ work of a dead device's kernel QPs
 * @odev: a dead device, from its dead work
 *
 * A QP on an SRQ that goes to ERR gets IB_EVENT_QP_LAST_WQE_REACHED once
 * the adapter takes no more SRQ WQEs for it, and ib_drain_qp() waits for
 * that event (the core's __ib_drain_srq(); rxe and mlx5 raise it when such
 * a QP goes to ERR).  A dead adapter raises nothing, and takes no WQE ever
 * again: each kernel QP on an SRQ that the consumer moved past INIT is in
 * ERR now, and gets its event here, once.  One still in RESET or INIT gets
 * it when the consumer moves it to ERR (orca_modify_qp() runs the dead work
 * again).  One the consumer moved to ERR before the death may have had the
 * adapter's event already: the core only completes its drain once more.
 * Their send queues flush in software as any other's.
 */
void orca_qp_dead_last_wqe(struct orca_dev *odev)
{
	enum ib_qp_state state;
	struct orca_qp *qp;
	unsigned long idx;

	xa_for_each(&odev->qp_xa, idx, qp) {
		qp = orca_qp_get(odev, idx);
		if (!qp)
			continue;
		state = READ_ONCE(qp->state);
		if (!qp->user && qp->ibqp.srq && !qp->dead_last_wqe &&
		    state != IB_QPS_RESET && state != IB_QPS_INIT) {
			qp->dead_last_wqe = true;
			orca_qp_event(odev, qp, IB_EVENT_QP_LAST_WQE_REACHED);
		}
		orca_qp_put(qp);
	}
}

/**
 * orca_qp_set_err_state() - record an error state the adapter entered alone
 * @qp: the QP
 * @state: IB_QPS_ERR, or IB_QPS_SQE for a UD send error
 *
 * Only a QP that the consumer moved to a receiving or sending state can
 * have been moved on by the adapter; a transition to RESET (or a newer
 * modify_qp) is never overwritten by an error reported for an older life.
 */
void orca_qp_set_err_state(struct orca_qp *qp, enum ib_qp_state state)
{
	enum ib_qp_state cur = READ_ONCE(qp->state);

	do {
		if (cur != IB_QPS_RTR && cur != IB_QPS_RTS &&
		    cur != IB_QPS_SQD && cur != IB_QPS_SQE)
			return;
		if (state == IB_QPS_SQE && cur != IB_QPS_RTS)
			return;
	} while (!try_cmpxchg(&qp->state, &cur, state));
	trace_orca_qp_state(to_odev(qp->ibqp.device), qp->qpn, cur, state,
			    ORCA_QPS_SRC_ADAPTER);
}

static int orca_qp_type(struct orca_dev *odev, enum ib_qp_type type)
{
	u32 caps = odev->caps.dev_caps;

	switch (type) {
	case IB_QPT_RC:
		return caps & ORCA_DEV_CAP_RC ? ORCA_QPT_RC : -EOPNOTSUPP;
	case IB_QPT_UC:
		return caps & ORCA_DEV_CAP_UC ? ORCA_QPT_UC : -EOPNOTSUPP;
	case IB_QPT_UD:
		return caps & ORCA_DEV_CAP_UD ? ORCA_QPT_UD : -EOPNOTSUPP;
	case IB_QPT_GSI:
		return caps & ORCA_DEV_CAP_UD ? ORCA_QPT_GSI : -EOPNOTSUPP;
	case IB_QPT_XRC_INI:
		return caps & ORCA_DEV_CAP_XRC ? ORCA_QPT_XRC_INI : -EOPNOTSUPP;
	case IB_QPT_XRC_TGT:
		return caps & ORCA_DEV_CAP_XRC ? ORCA_QPT_XRC_TGT : -EOPNOTSUPP;
	default:
		return -EOPNOTSUPP;
	}
}

/*
 * A receive queue of its own: not with an SRQ, nor on an XRC initiator,
 * whose receives are the target side's (its XRC SRQs).
 */
static bool orca_qp_has_rq(const struct ib_qp_init_attr *init)
{
	return !init->srq && init->qp_type != IB_QPT_XRC_INI;
}

/*
 * The geometry of a user QP's rings (struct orca_ugeom), for @send_sge and
 * @recv_sge SGEs per WQE: entries and strides are checked, and each ring
 * holds the SGEs its stride has room for.
 */
static int orca_qp_user_geometry(struct orca_dev *odev, struct orca_qp *qp,
				 const struct ib_qp_init_attr *init,
				 const struct orca_ugeom *ug, u32 send_sge,
				 u32 recv_sge)
{
	const struct orca_caps *caps = &odev->caps;
	u32 sge;
	int err;

	err = orca_uqueue_depth(odev, "send queue", ug->entries,
				init->cap.max_send_wr, caps->max_qp_wr,
				&qp->log_sq_depth);
	if (err)
		return err;
	err = orca_uqueue_stride(odev, "send queue", ug->stride, false,
				 send_sge, min_t(u32, caps->max_send_sge,
						 ORCA_MAX_SGE), &sge);
	if (err)
		return err;
	qp->max_send_sge = sge;
	qp->sq_stride = ug->stride;
	/*
	 * With an SRQ, or on an XRC initiator, orca_create_user_qp() refuses
	 * any receive ring.
	 */
	if (!orca_qp_has_rq(init))
		return 0;

	err = orca_uqueue_depth(odev, "receive queue", ug->rq_entries,
				init->cap.max_recv_wr, caps->max_qp_wr,
				&qp->log_rq_depth);
	if (err)
		return err;
	err = orca_uqueue_stride(odev, "receive queue", ug->rq_stride, true,
				 recv_sge, min_t(u32, caps->max_recv_sge,
						 ORCA_MAX_SGE), &sge);
	if (err)
		return err;
	qp->max_recv_sge = sge;
	qp->rq_stride = ug->rq_stride;
	return 0;
}

/*
 * Check the requested capabilities, fill in the QP's geometry (the
 * kernel's own for a kernel QP, the provider's for a user QP, @ug) and
 * report the capabilities it gives.
 */
static int orca_qp_set_caps(struct orca_dev *odev, struct orca_qp *qp,
			    struct ib_qp_init_attr *init,
			    const struct orca_ugeom *ug)
{
	const struct orca_caps *caps = &odev->caps;
	struct ib_qp_cap *cap = &init->cap;
	u32 max_sge = min_t(u32, caps->max_send_sge, ORCA_MAX_SGE);
	u32 send_sge, recv_sge, inline_sge;
	int err;

	if (cap->max_send_sge > max_sge ||
	    cap->max_recv_sge > min_t(u32, caps->max_recv_sge, ORCA_MAX_SGE) ||
	    cap->max_inline_data > caps->max_inline_data)
		return -EINVAL;
	/* The core zeroes an initiator's receive caps for user space. */
	if (init->qp_type == IB_QPT_XRC_INI &&
	    (cap->max_recv_wr || cap->max_recv_sge))
		return -EINVAL;

	/* Inline data takes the place of SGEs in the send WQE. */
	inline_sge = DIV_ROUND_UP(cap->max_inline_data,
				  sizeof(struct orca_sge));
	send_sge = max3(cap->max_send_sge, inline_sge, 1U);
	if (send_sge > max_sge)
		return -EINVAL;
	recv_sge = orca_qp_has_rq(init) ? max(cap->max_recv_sge, 1U) : 0;

	qp->log_rq_depth = 0;
	qp->max_recv_sge = 0;
	qp->rq_stride = 0;
	if (ug) {
		err = orca_qp_user_geometry(odev, qp, init, ug, send_sge,
					    recv_sge);
		if (err)
			return err;
	} else {
		err = orca_queue_log_depth(cap->max_send_wr, caps->max_qp_wr,
					   &qp->log_sq_depth);
		if (!err && orca_qp_has_rq(init))
			err = orca_queue_log_depth(cap->max_recv_wr,
						   caps->max_qp_wr,
						   &qp->log_rq_depth);
		if (err)
			return err;
		qp->max_send_sge = send_sge;
		qp->sq_stride = orca_send_wqe_stride(send_sge);
		if (orca_qp_has_rq(init)) {
			qp->max_recv_sge = recv_sge;
			qp->rq_stride = orca_recv_wqe_stride(recv_sge);
		}
	}
	qp->max_inline_data = min_t(u32,
				    qp->max_send_sge * sizeof(struct orca_sge),
				    caps->max_inline_data);

	cap->max_send_wr = 1U << qp->log_sq_depth;
	cap->max_send_sge = qp->max_send_sge;
	cap->max_inline_data = qp->max_inline_data;
	cap->max_recv_wr = orca_qp_has_rq(init) ? 1U << qp->log_rq_depth : 0;
	cap->max_recv_sge = qp->max_recv_sge;
	return 0;
}

/*
 * The rings, and the wr_id of each slot in kernel memory: a completion's
 * wr_id is taken from there, never from the CQE, because ULPs use it as a
 * pointer (wr_cqe) and the adapter is not trusted.
 */
static int orca_qp_alloc_rings(struct orca_dev *odev, struct orca_qp *qp,
			       bool has_rq)
{
	size_t bytes;
	int err;

	if (check_shl_overflow((size_t)qp->sq_stride, qp->log_sq_depth,
			       &bytes))
		return -EINVAL;
	qp->sq_wrid = kvcalloc(1U << qp->log_sq_depth, sizeof(u64),
			       GFP_KERNEL);
	if (!qp->sq_wrid)
		return -ENOMEM;
	err = orca_qbuf_alloc(odev, &qp->sq, bytes);
	if (err)
		goto err_wrid;
	if (!has_rq)
		return 0;
	if (check_shl_overflow((size_t)qp->rq_stride, qp->log_rq_depth,
			       &bytes)) {
		err = -EINVAL;
		goto err_sq;
	}
	qp->rq_wrid = kvcalloc(1U << qp->log_rq_depth, sizeof(u64),
			       GFP_KERNEL);
	if (!qp->rq_wrid) {
		err = -ENOMEM;
		goto err_sq;
	}
	err = orca_qbuf_alloc(odev, &qp->rq, bytes);
	if (err)
		goto err_sq;
	return 0;

err_sq:
	orca_qbuf_free(odev, &qp->sq);
err_wrid:
	kvfree(qp->rq_wrid);
	kvfree(qp->sq_wrid);
	return err;
}

static void orca_qp_free_rings(struct orca_dev *odev, struct orca_qp *qp)
{
	orca_qbuf_free(odev, &qp->rq);
	orca_qbuf_free(odev, &qp->sq);
	kvfree(qp->rq_wrid);
	kvfree(qp->sq_wrid);
}

static void orca_qp_free_mem(struct orca_dev *odev, void *mem)
{
	struct orca_qp *qp = mem;

	orca_qp_free_rings(odev, qp);
	orca_db_free(odev, qp->db, qp->db_dma);
}

static void orca_qp_init_common(struct orca_qp *qp,
				const struct ib_qp_init_attr *init)
{
	mutex_init(&qp->lock);
	qp->state = IB_QPS_RESET;
	qp->sig_all = init->sq_sig_type == IB_SIGNAL_ALL_WR;
	refcount_set(&qp->refcnt, 1);
	init_completion(&qp->free);
	spin_lock_init(&qp->sq_lock);
	spin_lock_init(&qp->rq_lock);
}

/**
 * orca_qp_setup() - check a QP's attributes and set up what kernel and user
 * QPs have in common
 * @odev: device
 * @qp: the new QP
 * @init: the consumer's attributes; the capabilities are updated
 * @ug: a user QP's geometry, as its provider chose it; NULL for a kernel
 *	QP, whose geometry follows from @init
 * @p: CREATE_QP parameters to fill, except the rings, record and UAR
 *
 * Return: 0, -EOPNOTSUPP for an unsupported type or flag, -EINVAL for bad
 * capabilities or a bad user geometry.
 */
int orca_qp_setup(struct orca_dev *odev, struct orca_qp *qp,
		  struct ib_qp_init_attr *init, const struct orca_ugeom *ug,
		  struct orca_com_qp_params *p)
{
	int type, err;

	if (init->create_flags)
		return -EOPNOTSUPP;
	type = orca_qp_type(odev, init->qp_type);
	if (type < 0)
		return type;
	if (init->srq && !(odev->caps.dev_caps & ORCA_DEV_CAP_SRQ))
		return -EOPNOTSUPP;
	/* XRC SRQs serve XRC target QPs only, found by the XRCETH. */
	if (init->srq && (init->srq->srq_type != IB_SRQT_BASIC ||
			  init->qp_type == IB_QPT_XRC_INI))
		return -EINVAL;
	if (init->qp_type == IB_QPT_XRC_INI && !init->send_cq)
		return -EINVAL;
	err = orca_qp_set_caps(odev, qp, init, ug);
	if (err)
		return err;

	orca_qp_init_common(qp, init);
	p->qp_type = type;
	p->log_sq_depth = qp->log_sq_depth;
	p->log_rq_depth = qp->log_rq_depth;
	p->max_send_sge = qp->max_send_sge;
	p->max_recv_sge = qp->max_recv_sge;
	p->max_inline_data = qp->max_inline_data;
	p->flags = (qp->sig_all ? ORCA_QP_F_SQ_SIG_ALL : 0) |
		   (init->srq ? ORCA_QP_F_USE_SRQ : 0);
	p->pdn = to_opd(qp->ibqp.pd)->pdn;
	p->send_cqn = to_ocq(init->send_cq)->cqn;
	/* An initiator has no receives: no CQ for them (spec, "XRC QPs"). */
	p->recv_cqn = orca_qp_has_rq(init) || init->srq ?
		      to_ocq(init->recv_cq)->cqn : 0;
	p->srqn = init->srq ? to_osrq(init->srq)->srqn : 0;
	return 0;
}

/**
 * orca_qp_finish() - create a set-up QP in the device and make it reachable
 * @odev: device
 * @qp: the new QP, its rings and record set up
 * @p: CREATE_QP parameters
 * @may_free: set to false if the QP was created but could not be made
 *	reachable, and the adapter refused the DESTROY_QP that undid it: the
 *	caller keeps the rings and record the adapter still owns
 *	(orca_dev_keep()) instead of freeing them
 *
 * Return: 0 or a negative errno.
 */
int orca_qp_finish(struct orca_dev *odev, struct orca_qp *qp,
		   const struct orca_com_qp_params *p, bool *may_free)
{
	int err;

	*may_free = true;
	err = orca_com_create_qp(odev, p, &qp->qpn);
	if (err)
		return err;
	if (qp->ibqp.qp_type == IB_QPT_GSI && qp->qpn != 1) {
		ibdev_warn(&odev->ibdev, "GSI QP created as QP %u\n", qp->qpn);
		err = -EIO;
		goto err_destroy;
	}
	err = xa_insert_irq(&odev->qp_xa, qp->qpn, qp, GFP_KERNEL);
	if (err)
		goto err_destroy;
	if (orca_qp_is_xrc_tgt(qp)) {
		xa_lock_irq(&odev->qp_xa);
		__xa_set_mark(&odev->qp_xa, qp->qpn, ORCA_QP_XA_XRC_TGT);
		xa_unlock_irq(&odev->qp_xa);
	}
	qp->ibqp.qp_num = qp->qpn;
	return 0;

err_destroy:
	*may_free = orca_com_undo_create(odev, ORCA_CMD_DESTROY_QP, qp->qpn,
					 "QP");
	return err;
}

/**
 * orca_create_xrc_tgt() - create an XRC target QP
 * @odev: device
 * @qp: the new QP
 * @init: the consumer's attributes: the domain, nothing else of use
 *
 * The core of 7.3 creates a user's target QP as a kernel object too
 * (ib_create_qp_user() shares it through the domain), without udata; with
 * udata, orca_create_user_xrc_tgt() checks it and calls this.
 *
 * A target QP has no rings, CQs, PD, UAR or doorbell record: the messages
 * it takes consume WQEs of the XRC SRQs of its domain, which complete on
 * their CQs (spec, commands.rst "XRC QPs").  It is neither a user QP nor a
 * kernel QP the data path knows; only its state is kept.
 *
 * Return: 0 or a negative errno.
 */
int orca_create_xrc_tgt(struct orca_dev *odev, struct orca_qp *qp,
			struct ib_qp_init_attr *init)
{
	struct orca_com_qp_params p = {};
	bool may_free;
	int type;

	type = orca_qp_type(odev, init->qp_type);
	if (type < 0)
		return type;
	if (init->create_flags)
		return -EOPNOTSUPP;
	if (!init->xrcd || init->srq || init->send_cq || init->recv_cq)
		return -EINVAL;
	/* Capabilities asked for are ignored, as mlx5 does: it has no queue. */
	memset(&init->cap, 0, sizeof(init->cap));

	orca_qp_init_common(qp, init);
	p.qp_type = type;
	qp->xrcd = init->xrcd;
	p.xrcdn = to_oxrcd(init->xrcd)->xrcdn;
	/* Nothing of the host's to keep if the adapter kept the QP. */
	return orca_qp_finish(odev, qp, &p, &may_free);
}

/* Kernel QPs here; user QPs are in orca_user_qp.c. */
int orca_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		   struct ib_udata *udata)
{
	struct orca_dev *odev = to_odev(ibqp->device);
	struct orca_qp *qp = to_oqp(ibqp);
	struct orca_com_qp_params p = {};
	struct orca_pgl pgl = {};
	bool may_free = true;
	int err;

	/* QP1 belongs to the kernel's MAD layer. */
	if (udata && init->qp_type == IB_QPT_GSI)
		return -EOPNOTSUPP;
	/* The core creates a user's target QP as its own, without udata. */
	if (init->qp_type == IB_QPT_XRC_TGT)
		return udata ? orca_create_user_xrc_tgt(qp, init, udata) :
			       orca_create_xrc_tgt(odev, qp, init);
	if (udata)
		return orca_create_user_qp(qp, init, udata);
	err = orca_qp_setup(odev, qp, init, NULL, &p);
	if (err)
		return err;

	qp->db = orca_db_alloc(odev, &qp->db_dma);
	if (!qp->db)
		return -ENOMEM;
	err = orca_qp_alloc_rings(odev, qp, orca_qp_has_rq(init));
	if (err)
		goto err_db;
	err = orca_pgl_alloc(odev, &pgl, qp->sq.npages + qp->rq.npages);
	if (err)
		goto err_rings;
	orca_pgl_add_qbuf(&pgl, &qp->sq);
	if (qp->rq.pages)
		orca_pgl_add_qbuf(&pgl, &qp->rq);

	p.page_shift = qp->sq.page_shift;
	p.pgl = &pgl;
	p.sq_npages = qp->sq.npages;
	p.rq_npages = qp->rq.npages;
	p.uar = odev->uar_idx;
	p.db_rec = qp->db_dma;
	err = orca_qp_finish(odev, qp, &p, &may_free);
	orca_pgl_free(odev, &pgl);
	if (err)
		goto err_rings;
	return 0;

err_rings:
	if (!may_free) {
		/* The adapter still has the QP: as orca_destroy_qp() would. */
		orca_dev_keep(odev, qp, sizeof(*qp), orca_qp_free_mem);
		return err;
	}
	orca_qp_free_rings(odev, qp);
err_db:
	orca_db_free(odev, qp->db, qp->db_dma);
	return err;
}

/*
 * RESET and DESTROY_QP stop a QP without completions, so an SRQ WQE it took
 * for a message still arriving would never complete and its slot would be
 * lost to the SRQ's count (spec, data-path.rst, "SRQ: the number of
 * receive CQEs").  A QP that can hold one goes to ERR first: the adapter
 * flushes that WQE with a CQE, which the CQ clean of the reset or destroy
 * then counts.
 * Called with qp->lock held, or on destroy.
 */
static bool orca_qp_flush_srq_wqe(struct orca_dev *odev, struct orca_qp *qp)
{
	enum ib_qp_state state = READ_ONCE(qp->state);
	struct orca_com_qp_attr hw = {
		.qpn = qp->qpn,
		.attr_mask = IB_QP_STATE,
		.qp_state = IB_QPS_ERR,
	};

	/*
	 * RC and UC messages span packets; UD holds no WQE between them.  An
	 * XRC target holds one of an XRC SRQ's, which its ERR completes with
	 * a flush on the SRQ's CQ (spec, data-path.rst "XRC").
	 */
	if ((!qp->ibqp.srq || (qp->ibqp.qp_type != IB_QPT_RC &&
			       qp->ibqp.qp_type != IB_QPT_UC)) &&
	    !orca_qp_is_xrc_tgt(qp))
		return false;
	if (state == IB_QPS_RESET || state == IB_QPS_INIT ||
	    state == IB_QPS_ERR || orca_dev_is_dead(odev))
		return false;
	if (orca_com_modify_qp(odev, &hw))
		return false;
	WRITE_ONCE(qp->state, IB_QPS_ERR);
	trace_orca_qp_state(odev, qp->qpn, state, IB_QPS_ERR,
			    ORCA_QPS_SRC_MODIFY);
	return true;
}

static int orca_qp_attr_to_hw(struct orca_dev *odev, struct orca_qp *qp,
			      const struct ib_qp_attr *attr, int mask,
			      struct orca_com_qp_attr *hw)
{
	hw->qpn = qp->qpn;
	hw->attr_mask = mask;
	if (mask & IB_QP_STATE)
		hw->qp_state = attr->qp_state;
	if (mask & IB_QP_CUR_STATE)
		hw->cur_qp_state = attr->cur_qp_state;
	if (mask & IB_QP_ACCESS_FLAGS)
		/* MW bind is a right of MRs, not of QPs. */
		hw->access = orca_access_to_hw(odev, attr->qp_access_flags &
						     ~IB_ACCESS_MW_BIND);
	if (mask & IB_QP_PKEY_INDEX) {
		if (attr->pkey_index)
			return -EINVAL;
		hw->pkey_index = 0;
	}
	if (mask & IB_QP_PORT) {
		if (attr->port_num != ORCA_PORT)
			return -EINVAL;
		hw->port = ORCA_PORT;
	}
	if (mask & IB_QP_QKEY)
		hw->qkey = attr->qkey;
	if (mask & IB_QP_AV) {
		if (attr->ah_attr.type != RDMA_AH_ATTR_TYPE_ROCE ||
		    !(rdma_ah_get_ah_flags(&attr->ah_attr) & IB_AH_GRH))
			return -EINVAL;
		orca_av_from_ah_attr(&hw->av, &attr->ah_attr);
	}
	if (mask & IB_QP_PATH_MTU) {
		if (attr->path_mtu < IB_MTU_256 ||
		    attr->path_mtu > odev->port.max_mtu)
			return -EINVAL;
		hw->path_mtu = attr->path_mtu;
	}
	if (mask & IB_QP_TIMEOUT)
		hw->timeout = attr->timeout;
	if (mask & IB_QP_RETRY_CNT)
		hw->retry_cnt = attr->retry_cnt;
	if (mask & IB_QP_RNR_RETRY)
		hw->rnr_retry = attr->rnr_retry;
	if (mask & IB_QP_RQ_PSN)
		hw->rq_psn = attr->rq_psn & ORCA_PSN_MASK;
	if (mask & IB_QP_MAX_QP_RD_ATOMIC) {
		if (attr->max_rd_atomic > odev->caps.max_qp_init_rd_atom)
			return -EINVAL;
		hw->max_rd_atomic = attr->max_rd_atomic;
	}
	if (mask & IB_QP_MIN_RNR_TIMER)
		hw->min_rnr_timer = attr->min_rnr_timer;
	if (mask & IB_QP_SQ_PSN)
		hw->sq_psn = attr->sq_psn & ORCA_PSN_MASK;
	if (mask & IB_QP_MAX_DEST_RD_ATOMIC) {
		if (attr->max_dest_rd_atomic > odev->caps.max_qp_rd_atom)
			return -EINVAL;
		hw->max_dest_rd_atomic = attr->max_dest_rd_atomic;
	}
	if (mask & IB_QP_DEST_QPN)
		hw->dest_qpn = attr->dest_qp_num & ORCA_PSN_MASK;
	return 0;
}

int orca_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		   struct ib_udata *udata)
{
	struct orca_dev *odev = to_odev(ibqp->device);
	struct orca_qp *qp = to_oqp(ibqp);
	enum ib_qp_state cur, next;
	struct orca_com_qp_attr hw = {};
	int err;

	err = ib_no_udata_io(udata);
	if (err)
		return err;
	if (mask & ~ORCA_QP_ATTR_SUPPORTED)
		return -EOPNOTSUPP;

	mutex_lock(&qp->lock);
	cur = (mask & IB_QP_CUR_STATE) ? attr->cur_qp_state :
	      READ_ONCE(qp->state);
	next = (mask & IB_QP_STATE) ? attr->qp_state : cur;
	if (!ib_modify_qp_is_ok(cur, next, ibqp->qp_type, mask)) {
		err = -EINVAL;
		goto out;
	}
	err = orca_qp_attr_to_hw(odev, qp, attr, mask, &hw);
	if (err)
		goto out;
	if (next == IB_QPS_RESET && orca_qp_flush_srq_wqe(odev, qp))
		hw.cur_qp_state = IB_QPS_ERR;
	err = orca_com_modify_qp(odev, &hw);
	/*
	 * A dead device is fenced and reset: its QPs are gone.  Moving a
	 * kernel QP to ERR or RESET is bookkeeping the driver can do alone
	 * (ib_drain_qp() and ULP teardown depend on it), and the work posted
	 * then flushes in software.
	 */
	if (err == -EIO && orca_dev_is_dead(odev) && !qp->user &&
	    (next == IB_QPS_ERR || next == IB_QPS_RESET))
		err = 0;
	if (err)
		goto out;
	WRITE_ONCE(qp->state, next);
	if (mask & IB_QP_STATE)
		trace_orca_qp_state(odev, qp->qpn, cur, next,
				    ORCA_QPS_SRC_MODIFY);
	/* No adapter to say LAST_WQE_REACHED: the dead work does. */
	if (next == IB_QPS_ERR && ibqp->srq && !qp->user &&
	    orca_dev_is_dead(odev))
		orca_dev_kick_flush(odev);
	/*
	 * The device restarted the queues at 0: so do we.  The provider does
	 * this for a user QP (its CQs and indices are in user memory).
	 */
	if (next == IB_QPS_RESET && cur != IB_QPS_RESET && !qp->user &&
	    !orca_qp_is_xrc_tgt(qp)) {
		orca_qp_clean_cqs(odev, qp, false);
		orca_qp_reset_indices(qp);
	}
out:
	mutex_unlock(&qp->lock);
	return err;
}

static void orca_ah_attr_from_av(struct rdma_ah_attr *ah,
				 const struct orca_com_av *av)
{
	union ib_gid dgid;

	memset(ah, 0, sizeof(*ah));
	ah->type = RDMA_AH_ATTR_TYPE_ROCE;
	memcpy(dgid.raw, av->dgid, sizeof(dgid.raw));
	rdma_ah_set_grh(ah, &dgid, av->flow_label,
			av->sgid_index, av->hop_limit, av->traffic_class);
	rdma_ah_set_port_num(ah, ORCA_PORT);
	ether_addr_copy(ah->roce.dmac, av->dmac);
}

int orca_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		  struct ib_qp_init_attr *init)
{
	struct orca_dev *odev = to_odev(ibqp->device);
	struct orca_qp *qp = to_oqp(ibqp);
	struct orca_com_qp_attr hw;
	int err;

	mutex_lock(&qp->lock);
	err = orca_com_query_qp(odev, qp->qpn, &hw);
	/* Consumers index tables by state: do not pass on a bad one. */
	if (!err && hw.qp_state > IB_QPS_ERR)
		err = -EIO;
	/* The adapter may have moved the QP (to ERR, SQE) by itself. */
	if (!err && hw.qp_state != READ_ONCE(qp->state)) {
		trace_orca_qp_state(odev, qp->qpn, READ_ONCE(qp->state),
				    hw.qp_state, ORCA_QPS_SRC_ADAPTER);
		WRITE_ONCE(qp->state, hw.qp_state);
	}
	mutex_unlock(&qp->lock);
	if (err)
		return err;

	memset(attr, 0, sizeof(*attr));
	attr->qp_state = hw.qp_state;
	attr->cur_qp_state = hw.qp_state;
	attr->path_mtu = hw.path_mtu;
	attr->path_mig_state = IB_MIG_MIGRATED;
	attr->qkey = hw.qkey;
	attr->rq_psn = hw.rq_psn & ORCA_PSN_MASK;
	attr->sq_psn = hw.sq_psn & ORCA_PSN_MASK;
	attr->dest_qp_num = hw.dest_qpn & ORCA_PSN_MASK;
	attr->qp_access_flags = orca_access_to_ib(hw.access);
	attr->pkey_index = hw.pkey_index;
	attr->port_num = ORCA_PORT;
	attr->sq_draining = hw.sq_draining;
	attr->max_rd_atomic = hw.max_rd_atomic;
	attr->max_dest_rd_atomic = hw.max_dest_rd_atomic;
	attr->min_rnr_timer = hw.min_rnr_timer;
	attr->timeout = hw.timeout;
	attr->retry_cnt = hw.retry_cnt;
	attr->rnr_retry = hw.rnr_retry;
	if (ibqp->qp_type == IB_QPT_RC || ibqp->qp_type == IB_QPT_UC ||
	    ibqp->qp_type == IB_QPT_XRC_INI || orca_qp_is_xrc_tgt(qp))
		orca_ah_attr_from_av(&attr->ah_attr, &hw.av);
	/* A target QP has no queues; an initiator has no receive queue. */
	if (!orca_qp_is_xrc_tgt(qp)) {
		attr->cap.max_send_wr = 1U << qp->log_sq_depth;
		attr->cap.max_send_sge = qp->max_send_sge;
		attr->cap.max_inline_data = qp->max_inline_data;
	}
	if (qp->rq_stride)
		attr->cap.max_recv_wr = 1U << qp->log_rq_depth;
	attr->cap.max_recv_sge = qp->max_recv_sge;

	memset(init, 0, sizeof(*init));
	init->qp_type = ibqp->qp_type;
	init->send_cq = ibqp->send_cq;
	init->recv_cq = ibqp->recv_cq;
	init->srq = ibqp->srq;
	init->xrcd = qp->xrcd;
	init->cap = attr->cap;
	init->sq_sig_type = qp->sig_all ? IB_SIGNAL_ALL_WR : IB_SIGNAL_REQ_WR;
	return 0;
}

/*
 * As for CQs: no new events after DESTROY_QP, then wait for old ones.  The
 * provider cleans a user QP's CQs; it is only unlinked from the table.
 */
bool orca_qp_remove(struct orca_dev *odev, struct orca_qp *qp)
{
	int err;

	orca_qp_flush_srq_wqe(odev, qp);
	err = orca_com_destroy_obj(odev, ORCA_CMD_DESTROY_QP, qp->qpn);
	/*
	 * A target QP's CQEs are in the CQs of XRC SRQs: pollers of kernel
	 * ones take a reference on it (orca_poll.c), the provider needs none.
	 */
	if (qp->user || orca_qp_is_xrc_tgt(qp))
		xa_erase_irq(&odev->qp_xa, qp->qpn);
	else
		orca_qp_clean_cqs(odev, qp, true);
	orca_qp_put(qp);
	wait_for_completion(&qp->free);
	/* Events still in EQ 0 must not reach the next QP with this qpn. */
	orca_async_eq_scrub(odev, ORCA_QP_EVENT_TYPES, qp->qpn);
	return orca_dev_may_free(odev, err, "QP", qp->qpn);
}

/**
 * orca_attach_mcast - attach a UD QP to a multicast group
 * @ibqp: the QP (kernel or user: uverbs calls this too)
 * @gid: the group, a multicast IP address as a GID
 * @lid: unused on RoCE
 *
 * The adapter takes every RoCE frame to a group MAC off the wire and
 * filters by MGID itself (the paired netdev never sees RoCE frames), so
 * unlike rxe's rxe_mcast_add() nothing is registered with the netdev; the
 * IP layer's join (rdma_cm's cma_igmp_send()) does that for its own sake.
 * The adapter checks the QP type and the address as well.
 *
 * Return: 0 or a negative errno.
 */
int orca_attach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid)
{
	if (ibqp->qp_type != IB_QPT_UD ||
	    !rdma_is_multicast_addr((struct in6_addr *)gid->raw))
		return -EINVAL;
	return orca_com_mcast(to_odev(ibqp->device), ORCA_CMD_ATTACH_MCAST,
			      to_oqp(ibqp)->qpn, gid->raw);
}

int orca_detach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid)
{
	if (ibqp->qp_type != IB_QPT_UD)
		return -EINVAL;
	return orca_com_mcast(to_odev(ibqp->device), ORCA_CMD_DETACH_MCAST,
			      to_oqp(ibqp)->qpn, gid->raw);
}

int orca_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct orca_dev *odev = to_odev(ibqp->device);
	struct orca_qp *qp = to_oqp(ibqp);
	int err;

	err = ib_no_udata_io(udata);
	if (err)
		return err;
	/* No memory of a target QP's is the adapter's. */
	if (orca_qp_is_xrc_tgt(qp)) {
		orca_qp_remove(odev, qp);
		return 0;
	}
	if (!orca_qp_remove(odev, qp)) {
		if (qp->user)
			orca_user_keep(odev, qp->udb, qp->sq_umem,
				       qp->rq_umem);
		else
			orca_dev_keep(odev, qp, sizeof(*qp), orca_qp_free_mem);
		return 0;
	}
	if (qp->user)
		orca_user_qp_free(qp);
	else
		orca_qp_free_mem(odev, qp);
	return 0;
}

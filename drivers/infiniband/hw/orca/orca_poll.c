// SPDX-License-Identifier: GPL-2.0
/*
 * ORCA kernel data path, completion side: CQEs read by phase and turned
 * into ib_wc (retiring the WQEs they complete), CQ arming through the
 * doorbell record's arm word, and the removal of a QP's CQEs from its CQs
 * when the QP is reset or destroyed.
 */
#include "orca_verbs.h"
#include "orca_wqe_track.h"

/* ib_wc_status is what the device reports; keep the numbering honest. */
static_assert(ORCA_CQE_ST_LOC_PROT_ERR == IB_WC_LOC_PROT_ERR);
static_assert(ORCA_CQE_ST_WR_FLUSH_ERR == IB_WC_WR_FLUSH_ERR);
static_assert(ORCA_CQE_ST_REM_ACCESS_ERR == IB_WC_REM_ACCESS_ERR);
static_assert(ORCA_CQE_ST_RNR_RETRY_EXC_ERR == IB_WC_RNR_RETRY_EXC_ERR);
static_assert(ORCA_CQE_ST_REM_ABORT_ERR == IB_WC_REM_ABORT_ERR);
static_assert(ORCA_CQE_ST_GENERAL_ERR == IB_WC_GENERAL_ERR);

/* A CQE whose QP is gone; its slot is consumed without a work completion. */
#define ORCA_CQE_QPN_NONE	0

/* The CQE at index @idx if the device has written it, else NULL. */
static struct orca_cqe *orca_cqe_at(struct orca_cq *cq, u32 idx)
{
	u8 phase = ((idx >> cq->log_depth) & 1) ^ 1;
	struct orca_cqe *cqe;

	cqe = orca_qbuf_entry(&cq->buf, idx & ((1U << cq->log_depth) - 1),
			      sizeof(*cqe));
	if ((READ_ONCE(cqe->flags) & ORCA_CQE_F_PHASE) != phase)
		return NULL;
	/* The device writes flags last: read the body only after it. */
	dma_rmb();
	return cqe;
}

static enum ib_wc_opcode orca_wc_opcode(u8 opcode)
{
	switch (opcode) {
	case ORCA_CQE_RDMA_WRITE:
		return IB_WC_RDMA_WRITE;
	case ORCA_CQE_RDMA_READ:
		return IB_WC_RDMA_READ;
	case ORCA_CQE_COMP_SWAP:
		return IB_WC_COMP_SWAP;
	case ORCA_CQE_FETCH_ADD:
		return IB_WC_FETCH_ADD;
	case ORCA_CQE_LOCAL_INV:
		return IB_WC_LOCAL_INV;
	case ORCA_CQE_REG_MR:
		return IB_WC_REG_MR;
	case ORCA_CQE_FLUSH:
		return IB_WC_FLUSH;
	case ORCA_CQE_ATOMIC_WRITE:
		return IB_WC_ATOMIC_WRITE;
	case ORCA_CQE_RECV:
		return IB_WC_RECV;
	case ORCA_CQE_RECV_RDMA_WITH_IMM:
		return IB_WC_RECV_RDMA_WITH_IMM;
	default:
		return IB_WC_SEND;
	}
}

/*
 * Retire the WQEs a CQE completes and find its wr_id, by the rules the
 * provider follows too (orca_wqe_track.h).  A send CQE also retires the
 * unsignaled WQEs before it; receive queues complete one WQE per CQE, in
 * order.  An SRQ's WQEs are taken in ring order but may be polled in any
 * order (orca_srq_complete()).
 *
 * The wr_id is the one the WQE was posted with, from the driver's record
 * of its slot: the one in the CQE is the adapter's word, and ULPs use
 * wr_id as a pointer (wr_cqe).
 *
 * Return: false for a CQE naming a WQE that is not outstanding.  The
 * adapter is not trusted: such a CQE would free slots still in use, so it
 * is counted and dropped.
 */
static bool orca_retire(struct orca_dev *odev, struct orca_qp *qp,
			const struct orca_cqe *cqe, bool recv, u64 *wr_id)
{
	u16 idx = le16_to_cpu(cqe->wqe_idx);
	u32 *ci, pi, wqe;

	if (recv && qp->ibqp.srq) {
		if (orca_srq_complete(to_osrq(qp->ibqp.srq), idx, wr_id))
			return true;
		pi = READ_ONCE(to_osrq(qp->ibqp.srq)->pi);
		goto bad;
	}
	ci = recv ? &qp->rq_ci : &qp->sq_ci;
	pi = recv ? READ_ONCE(qp->rq_pi) : READ_ONCE(qp->sq_pi);
	if (!orca_wq_outstanding(*ci, pi, idx, &wqe))
		goto bad;
	if (recv)
		*wr_id = qp->rq_wrid[orca_wq_slot(wqe, qp->log_rq_depth)];
	else
		*wr_id = qp->sq_wrid[orca_wq_slot(wqe, qp->log_sq_depth)];
	WRITE_ONCE(*ci, wqe + 1);
	return true;

bad:
	orca_drv_stat_inc(odev, ORCA_DRV_STAT_BAD_CQES);
	dev_err_ratelimited(&odev->pdev->dev,
			    "QP %u: CQE for %s WQE %u, not outstanding (%u posted); dropped\n",
			    qp->qpn, recv ? "receive" : "send", idx, pi);
	return false;
}

/*
 * A completion error moves the QP on in the adapter without an event
 * (spec, data-path.rst, CQE status table): RC to ERR, a UC or UD send to
 * SQE.  A UC receive error leaves the QP up (a fatal one comes with an
 * event).
 * Flushes only follow a state the QP is already in.
 */
static void orca_cqe_qp_state(struct orca_qp *qp, const struct ib_wc *wc,
			      bool recv)
{
	if (wc->status == IB_WC_SUCCESS || wc->status == IB_WC_WR_FLUSH_ERR)
		return;
	if (qp->ibqp.qp_type == IB_QPT_RC ||
	    qp->ibqp.qp_type == IB_QPT_XRC_INI ||
	    qp->ibqp.qp_type == IB_QPT_XRC_TGT)
		orca_qp_set_err_state(qp, IB_QPS_ERR);
	else if (!recv)
		orca_qp_set_err_state(qp, IB_QPS_SQE);
}

static void orca_cqe_to_wc(struct orca_qp *qp, const struct orca_cqe *cqe,
			   u64 wr_id, struct ib_wc *wc)
{
	u8 status = cqe->status;
	u8 flags = cqe->flags;

	memset(wc, 0, sizeof(*wc));
	wc->wr_id = wr_id;
	wc->qp = &qp->ibqp;
	wc->port_num = ORCA_PORT;
	wc->opcode = orca_wc_opcode(cqe->opcode);
	/* Statuses are numbered as ib_wc_status; unknown ones are errors. */
	wc->status = status <= IB_WC_GENERAL_ERR ? status : IB_WC_GENERAL_ERR;
	if (wc->status != IB_WC_SUCCESS) {
		wc->vendor_err = status;
		return;
	}
	/* Send side: the message length (bytes read, 8 for an atomic). */
	wc->byte_len = le32_to_cpu(cqe->byte_len);
	if (!(cqe->opcode & ORCA_CQE_RECV))
		return;

	if (flags & ORCA_CQE_F_IMM) {
		/* The immediate's bytes are those of the wire. */
		wc->ex.imm_data = (__force __be32)cqe->imm_or_inv;
		wc->wc_flags |= IB_WC_WITH_IMM;
	} else if (flags & ORCA_CQE_F_INV) {
		wc->ex.invalidate_rkey = le32_to_cpu(cqe->imm_or_inv);
		wc->wc_flags |= IB_WC_WITH_INVALIDATE;
	}
	if (qp->ibqp.qp_type == IB_QPT_UD || qp->ibqp.qp_type == IB_QPT_GSI) {
		wc->src_qp = le32_to_cpu(cqe->src_qpn) & GENMASK(23, 0);
		if (flags & ORCA_CQE_F_GRH)
			wc->wc_flags |= IB_WC_GRH;
		wc->network_hdr_type = flags & ORCA_CQE_F_IPV6 ?
				       RDMA_NETWORK_IPV6 : RDMA_NETWORK_IPV4;
		wc->wc_flags |= IB_WC_WITH_NETWORK_HDR_TYPE;
	}
}

/* Flush completions of one queue, oldest first, until @n reaches @max. */
static int orca_flush_queue(struct orca_qp *qp, bool recv, struct ib_wc *wc,
			    int n, int max)
{
	spinlock_t *lock = recv ? &qp->rq_lock : &qp->sq_lock;
	const u64 *wrid = recv ? qp->rq_wrid : qp->sq_wrid;
	u32 mask = (1U << (recv ? qp->log_rq_depth : qp->log_sq_depth)) - 1;
	u32 *ci = recv ? &qp->rq_ci : &qp->sq_ci;
	u32 *pi = recv ? &qp->rq_pi : &qp->sq_pi;

	/* The poster's lock: its WQEs are complete below its index. */
	spin_lock(lock);
	while (n < max && *ci != *pi) {
		memset(&wc[n], 0, sizeof(wc[n]));
		wc[n].wr_id = wrid[*ci & mask];
		wc[n].status = IB_WC_WR_FLUSH_ERR;
		wc[n].opcode = recv ? IB_WC_RECV : IB_WC_SEND;
		wc[n].qp = &qp->ibqp;
		wc[n].port_num = ORCA_PORT;
		n++;
		WRITE_ONCE(*ci, *ci + 1);
	}
	spin_unlock(lock);
	return n;
}

/*
 * A dead device completes nothing more: the work still posted to the
 * kernel QPs of @cq completes here, in software, with IB_WC_WR_FLUSH_ERR
 * (as a QP in ERR would have it; mlx5's mlx5_ib_poll_sw_comp does the
 * same), so ib_drain_qp() and ULP teardown finish.  A QP stays in the
 * table until its CQ locks were held (orca_qp_clean_cqs()), so it is
 * valid while we hold @cq->lock.  Receives of an SRQ are not flushed.
 */
static int orca_poll_sw_flush(struct orca_dev *odev, struct orca_cq *cq,
			      struct ib_wc *wc, int n, int max)
{
	struct orca_qp *qp;
	unsigned long idx;

	lockdep_assert_held(&cq->lock);
	xa_lock(&odev->qp_xa);
	xa_for_each(&odev->qp_xa, idx, qp) {
		if (n >= max)
			break;
		if (qp->user)
			continue;
		if (qp->ibqp.send_cq == &cq->ibcq)
			n = orca_flush_queue(qp, false, wc, n, max);
		if (qp->ibqp.recv_cq == &cq->ibcq && !qp->ibqp.srq &&
		    qp->rq.pages)
			n = orca_flush_queue(qp, true, wc, n, max);
	}
	xa_unlock(&odev->qp_xa);
	return n;
}

/* Is there anything orca_poll_sw_flush() would report for @cq? */
static bool orca_cq_has_sw_flush(struct orca_dev *odev, struct orca_cq *cq)
{
	struct orca_qp *qp;
	unsigned long idx, flags;
	bool pending = false;

	xa_lock_irqsave(&odev->qp_xa, flags);
	xa_for_each(&odev->qp_xa, idx, qp) {
		if (qp->user)
			continue;
		if ((qp->ibqp.send_cq == &cq->ibcq &&
		     READ_ONCE(qp->sq_ci) != READ_ONCE(qp->sq_pi)) ||
		    (qp->ibqp.recv_cq == &cq->ibcq && !qp->ibqp.srq &&
		     READ_ONCE(qp->rq_ci) != READ_ONCE(qp->rq_pi))) {
			pending = true;
			break;
		}
	}
	xa_unlock_irqrestore(&odev->qp_xa, flags);
	return pending;
}

/*
 * The QP a CQE names.  A destroyed or reset QP's CQEs were scrubbed under
 * the CQ's lock, and it left the table under it too, so the QP stays valid
 * until the poller unlocks; not an XRC target QP, which has no CQ to lock
 * and takes no CQE of its own but those of XRC SRQs (orca_poll_xrc()):
 * one named without ORCA_CQE_F_XRC is not looked at.
 */
static struct orca_qp *orca_poll_qp(struct orca_dev *odev, u32 qpn)
{
	XA_STATE(xas, &odev->qp_xa, qpn);
	struct orca_qp *qp;

	rcu_read_lock();
	do {
		qp = xas_load(&xas);
	} while (xas_retry(&xas, qp));
	if (qp && xas_get_mark(&xas, ORCA_QP_XA_XRC_TGT))
		qp = NULL;
	rcu_read_unlock();
	return qp;
}

/**
 * orca_poll_xrc() - a receive CQE of an XRC SRQ
 * @odev: device
 * @cq: the CQ, its lock held
 * @cqe: the CQE, with ORCA_CQE_F_XRC
 * @wc: the work completion to fill
 *
 * The CQE names the XRC SRQ in src_qpn and the target QP that took the
 * message in qpn (spec, data-path.rst "XRC"); no QP of the CQ holds the
 * SRQ.  The SRQ must be an XRC SRQ of this CQ and the QP, if it still
 * exists, a target QP of the SRQ's domain; the WQE is retired by the
 * SRQ's rules (orca_srq_complete()).  Both are found with a reference,
 * as they do not leave their tables under this CQ's lock: the SRQ's
 * destroy cleans this CQ (orca_srq_clean_cq()) before it goes, a target
 * QP's cleans nothing.  A target QP destroyed since is not reported (the
 * core's wc->qp must be a QP) and its WQE is retired, as the clean of
 * a QP on an SRQ does (orca_cq_scrub()).
 *
 * Return: true if @wc was filled; false for a CQE dropped, counted in
 * ORCA_DRV_STAT_BAD_CQES unless its target QP is gone.
 */
static bool orca_poll_xrc(struct orca_dev *odev, struct orca_cq *cq,
			  const struct orca_cqe *cqe, struct ib_wc *wc)
{
	u32 srqn = le32_to_cpu(cqe->src_qpn) & GENMASK(23, 0);
	u32 qpn = le32_to_cpu(cqe->qpn);
	u16 idx = le16_to_cpu(cqe->wqe_idx);
	struct orca_qp *qp = NULL;
	struct orca_srq *srq;
	const char *why;
	bool ok = false;
	u64 wr_id;

	lockdep_assert_held(&cq->lock);
	srq = orca_srq_get(odev, srqn);
	if (!srq || !orca_srq_is_xrc(srq) || srq->ibsrq.ext.cq != &cq->ibcq ||
	    !(cqe->opcode & ORCA_CQE_RECV)) {
		why = "not a receive of an XRC SRQ of this CQ";
		goto bad;
	}
	qp = orca_qp_get(odev, qpn);
	if (qp && (!orca_qp_is_xrc_tgt(qp) ||
		   qp->xrcd != srq->ibsrq.ext.xrc.xrcd)) {
		why = "QP not a target QP of the SRQ's domain";
		goto bad;
	}
	if (!orca_srq_complete(srq, idx, &wr_id)) {
		why = "WQE not outstanding";
		goto bad;
	}
	if (qp) {
		orca_cqe_to_wc(qp, cqe, wr_id, wc);
		orca_cqe_qp_state(qp, wc, true);
		ok = true;
	}
	goto out;

bad:
	orca_drv_stat_inc(odev, ORCA_DRV_STAT_BAD_CQES);
	dev_err_ratelimited(&odev->pdev->dev,
			    "CQ %u: XRC CQE for SRQ %u, QP %u, WQE %u: %s; dropped\n",
			    cq->cqn, srqn, qpn, idx, why);
out:
	if (qp)
		orca_qp_put(qp);
	if (srq)
		orca_srq_put(srq);
	return ok;
}

int orca_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc)
{
	struct orca_dev *odev = to_odev(ibcq->device);
	struct orca_cq *cq = to_ocq(ibcq);
	struct orca_cqe *cqe;
	struct orca_qp *qp;
	unsigned long flags;
	u64 wr_id;
	bool recv;
	u32 start;
	int n = 0;

	/* Legacy POLL_CQ reaches here for a user CQ: its ring is the provider's. */
	if (cq->user)
		return -EOPNOTSUPP;
	spin_lock_irqsave(&cq->lock, flags);
	start = cq->ci;
	while (n < num_entries && (cqe = orca_cqe_at(cq, cq->ci))) {
		cq->ci++;
		if (le32_to_cpu(cqe->qpn) == ORCA_CQE_QPN_NONE)
			continue;
		if (cqe->flags & ORCA_CQE_F_XRC) {
			if (orca_poll_xrc(odev, cq, cqe, &wc[n]))
				n++;
			continue;
		}
		qp = orca_poll_qp(odev, le32_to_cpu(cqe->qpn));
		if (!qp) {
			orca_drv_stat_inc(odev, ORCA_DRV_STAT_BAD_CQES);
			dev_err_ratelimited(&odev->pdev->dev,
					    "CQ %u: CQE for unknown QP %u; dropped\n",
					    cq->cqn, le32_to_cpu(cqe->qpn));
			continue;
		}
		/* Bit 7 of the opcode tells receive from send, even on error. */
		recv = cqe->opcode & ORCA_CQE_RECV;
		if (!orca_retire(odev, qp, cqe, recv, &wr_id))
			continue;
		orca_cqe_to_wc(qp, cqe, wr_id, &wc[n]);
		orca_cqe_qp_state(qp, &wc[n], recv);
		n++;
	}
	if (cq->ci != start) {
		/* Done reading the CQEs before the device may reuse them. */
		mb();
		WRITE_ONCE(cq->db->ci, cpu_to_le32(cq->ci));
	}
	/* Fenced: the ring holds all the device will ever write. */
	if (n < num_entries && orca_dev_is_fenced(odev))
		n = orca_poll_sw_flush(odev, cq, wc, n, num_entries);
	spin_unlock_irqrestore(&cq->lock, flags);
	return n;
}

/*
 * The spec's "CQ arming" (data-path.rst): store a new arm word, then look
 * at the CQE at ci; one the device may have written before it saw the arm
 * is reported through ORCA_UAR_CQ_DB, so no wakeup is lost.
 */
int orca_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags)
{
	struct orca_dev *odev = to_odev(ibcq->device);
	struct orca_cq *cq = to_ocq(ibcq);
	unsigned long irqflags;
	bool pending;
	u32 arm;

	/* Legacy REQ_NOTIFY_CQ: the provider arms a user CQ itself. */
	if (cq->user)
		return -EOPNOTSUPP;
	spin_lock_irqsave(&cq->lock, irqflags);
	/* Sequence 0 is what the device saw before the first arm. */
	cq->arm_seq = (cq->arm_seq + 1) & ORCA_CQ_ARM_SEQ;
	if (!cq->arm_seq)
		cq->arm_seq = 1;
	arm = FIELD_PREP(ORCA_CQ_ARM_SEQ, cq->arm_seq);
	if ((flags & IB_CQ_SOLICITED_MASK) == IB_CQ_SOLICITED)
		arm |= ORCA_CQ_ARM_SOLICITED;
	else
		arm |= ORCA_CQ_ARM_ANY;
	WRITE_ONCE(cq->db->arm, cpu_to_le32(arm));
	cq->armed = true;
	/* The arm must be visible before we look for a CQE that beat it. */
	mb();
	pending = orca_cqe_at(cq, cq->ci);
	spin_unlock_irqrestore(&cq->lock, irqflags);

	/* A dead device raises no event: flush completions wake instead. */
	if (!pending && orca_dev_is_fenced(odev) &&
	    orca_cq_has_sw_flush(odev, cq)) {
		if (flags & IB_CQ_REPORT_MISSED_EVENTS)
			return 1;
		orca_dev_kick_flush(odev);
		return 0;
	}
	if (!pending)
		return 0;
	writel(cq->cqn, odev->uar + ORCA_UAR_CQ_DB);
	return flags & IB_CQ_REPORT_MISSED_EVENTS ? 1 : 0;
}

/*
 * Mark the valid, unpolled CQEs of @qp so that polling drops them.  Each
 * receive CQE of a QP on an SRQ completed one SRQ WQE that no poller will
 * see now: its record is freed, as mlx5 frees the SRQ WQEs of the CQEs
 * its CQ clean drops.
 */
static void orca_cq_scrub(struct orca_cq *cq, struct orca_qp *qp)
{
	struct orca_cqe *cqe;
	u64 wr_id;
	u32 i;

	lockdep_assert_held(&cq->lock);
	for (i = cq->ci; (cqe = orca_cqe_at(cq, i)); i++) {
		if (le32_to_cpu(cqe->qpn) == qp->qpn) {
			if ((cqe->opcode & ORCA_CQE_RECV) && qp->ibqp.srq)
				orca_srq_complete(to_osrq(qp->ibqp.srq),
						  le16_to_cpu(cqe->wqe_idx),
						  &wr_id);
			cqe->qpn = cpu_to_le32(ORCA_CQE_QPN_NONE);
		}
		if (i - cq->ci >= (1U << cq->log_depth))
			break;
	}
}

/**
 * orca_qp_clean_cqs() - drop a QP's unpolled CQEs from its CQs
 * @odev: device
 * @qp: a QP the device no longer completes work for (destroyed or reset)
 * @unlink: also remove @qp from the QP table (destroy)
 *
 * Without this a poller would report completions of a QP that is gone,
 * or retire WQEs of a reset QP with indices from before the reset.  Both
 * CQ locks are held while the QP leaves the table, so a poller that found
 * it there is done with it when this returns.
 */
void orca_qp_clean_cqs(struct orca_dev *odev, struct orca_qp *qp, bool unlink)
{
	struct orca_cq *scq = to_ocq(qp->ibqp.send_cq);
	/* An XRC initiator has no receive CQ. */
	struct orca_cq *rcq = qp->ibqp.recv_cq ? to_ocq(qp->ibqp.recv_cq) : scq;
	struct orca_cq *first = scq, *second = rcq;
	unsigned long flags;

	/* The provider cleans user CQs; user QPs never get here. */
	if (WARN_ON_ONCE(scq->user || rcq->user))
		return;
	/* A fixed order (by cqn) between the two CQ locks. */
	if (scq->cqn > rcq->cqn)
		swap(first, second);
	spin_lock_irqsave(&first->lock, flags);
	if (second != first)
		spin_lock_nested(&second->lock, SINGLE_DEPTH_NESTING);
	orca_cq_scrub(first, qp);
	if (second != first)
		orca_cq_scrub(second, qp);
	if (unlink) {
		/* IRQ-safe table lock; interrupts are already off here. */
		xa_lock(&odev->qp_xa);
		__xa_erase(&odev->qp_xa, qp->qpn);
		xa_unlock(&odev->qp_xa);
	}
	if (second != first)
		spin_unlock(&second->lock);
	spin_unlock_irqrestore(&first->lock, flags);
}

/**
 * orca_srq_clean_cq() - drop a destroyed kernel XRC SRQ's CQEs from its CQ
 * @srq: the SRQ, which the adapter no longer completes WQEs of
 *
 * The CQEs name the SRQ by number (orca_poll_xrc()), which the next SRQ
 * may get; they name no QP the CQ knows, so no QP's clean drops them.
 */
void orca_srq_clean_cq(struct orca_srq *srq)
{
	struct orca_cq *cq = to_ocq(srq->ibsrq.ext.cq);
	struct orca_cqe *cqe;
	unsigned long flags;
	u32 i;

	spin_lock_irqsave(&cq->lock, flags);
	for (i = cq->ci; (cqe = orca_cqe_at(cq, i)); i++) {
		if ((cqe->flags & ORCA_CQE_F_XRC) &&
		    (le32_to_cpu(cqe->src_qpn) & GENMASK(23, 0)) == srq->srqn)
			cqe->qpn = cpu_to_le32(ORCA_CQE_QPN_NONE);
		if (i - cq->ci >= (1U << cq->log_depth))
			break;
	}
	spin_unlock_irqrestore(&cq->lock, flags);
}

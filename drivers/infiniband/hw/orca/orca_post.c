// SPDX-License-Identifier: GPL-2.0
/*
 * ORCA kernel data path, posting side: send work requests become send WQEs
 * (every opcode of the device, UD address fields, inline data), receive
 * work requests become receive WQEs on an RQ or SRQ, and new producer
 * indices are published in the doorbell record with a trapped UAR write
 * only when the device's event index says its engine went idle.
 */
#include "orca_verbs.h"
#include "orca_wqe_track.h"

/**
 * orca_publish_pi() - publish a producer index and wake the device if idle
 * @odev: device
 * @pi: the producer index field of the doorbell record
 * @event_idx: the matching event index the device writes
 * @old: producer index before this post
 * @new: producer index after it
 * @uar_reg: ORCA_UAR_*_DB to write on a wakeup
 * @handle: qpn or srqn written to @uar_reg
 *
 * The event index protocol of the spec (data-path.rst, "Doorbell records
 * and event indices"), NVMe's shadow doorbells with 32-bit indices: ring
 * only when the device's event index lies in [@old, @new).
 */
static void orca_publish_pi(struct orca_dev *odev, __le32 *pi,
			    __le32 *event_idx, u32 old, u32 new, u32 uar_reg,
			    u32 handle)
{
	u32 e;

	/* The WQEs must be visible before the index that hands them over. */
	dma_wmb();
	WRITE_ONCE(*pi, cpu_to_le32(new));
	/* The store above must be visible before the event index is read. */
	mb();
	e = le32_to_cpu(READ_ONCE(*event_idx));
	if ((u32)(new - e - 1) < (u32)(new - old))
		writel(handle, odev->uar + uar_reg);
}

static void orca_set_wr_id(struct orca_send_wqe_hdr *hdr, u64 wr_id)
{
	hdr->wr_id_lo = cpu_to_le32(lower_32_bits(wr_id));
	hdr->wr_id_hi = cpu_to_le32(upper_32_bits(wr_id));
}

/* Copy the SGEs' data into the WQE; kernel SGE addresses are virtual. */
static int orca_copy_inline(struct orca_qp *qp, const struct ib_send_wr *wr,
			    struct orca_send_wqe_hdr *hdr)
{
	u8 *dst = (u8 *)(hdr + 1);
	u32 len = 0;
	int i;

	for (i = 0; i < wr->num_sge; i++) {
		const struct ib_sge *sge = &wr->sg_list[i];

		if (sge->length > qp->max_inline_data - len)
			return -EINVAL;
		memcpy(dst + len, (void *)(uintptr_t)sge->addr, sge->length);
		len += sge->length;
	}
	hdr->flags |= ORCA_WQE_F_INLINE;
	hdr->length = cpu_to_le32(len);
	return 0;
}

static int orca_copy_sges(struct orca_qp *qp, const struct ib_send_wr *wr,
			  struct orca_send_wqe_hdr *hdr)
{
	struct orca_sge *sge = (struct orca_sge *)(hdr + 1);
	int i;

	if (wr->num_sge > qp->max_send_sge)
		return -EINVAL;
	for (i = 0; i < wr->num_sge; i++) {
		sge[i].addr = cpu_to_le64(wr->sg_list[i].addr);
		sge[i].length = cpu_to_le32(wr->sg_list[i].length);
		sge[i].lkey = cpu_to_le32(wr->sg_list[i].lkey);
	}
	hdr->num_sge = wr->num_sge;
	return 0;
}

static int orca_wqe_reg_mr(const struct ib_send_wr *wr,
			   struct orca_send_wqe_hdr *hdr)
{
	const struct ib_reg_wr *reg = reg_wr(wr);
	struct orca_mr *mr = to_omr(reg->mr);

	/* The WQE's length field is 32 bits wide. */
	if (!mr->pgl.chunks || mr->ibmr.length > U32_MAX)
		return -EINVAL;
	hdr->opcode = ORCA_WQE_REG_MR;
	if (mr->pgl.chained)
		hdr->flags |= ORCA_WQE_F_PGL_CHAIN;
	/* A 1.0 device takes no page size here: the field is reserved. */
	if (to_odev(mr->ibmr.device)->caps.dev_caps & ORCA_DEV_CAP_REG_MR_PGSZ)
		hdr->page_shift = mr->page_shift;
	hdr->remote_addr = cpu_to_le64(mr->ibmr.iova);
	hdr->rkey = cpu_to_le32(reg->key);
	hdr->length = cpu_to_le32(mr->ibmr.length);
	hdr->compare_add = cpu_to_le64(orca_pgl_dma(&mr->pgl));
	hdr->swap = cpu_to_le64((u64)mr->pgl.used << 32 |
				orca_access_to_hw(to_odev(mr->ibmr.device),
						  reg->access));
	return 0;
}

static void orca_wqe_rdma(const struct ib_send_wr *wr,
			  struct orca_send_wqe_hdr *hdr)
{
	hdr->remote_addr = cpu_to_le64(rdma_wr(wr)->remote_addr);
	hdr->rkey = cpu_to_le32(rdma_wr(wr)->rkey);
}

static void orca_wqe_atomic(const struct ib_send_wr *wr,
			    struct orca_send_wqe_hdr *hdr)
{
	const struct ib_atomic_wr *aw = atomic_wr(wr);

	hdr->remote_addr = cpu_to_le64(aw->remote_addr);
	hdr->rkey = cpu_to_le32(aw->rkey);
	hdr->compare_add = cpu_to_le64(aw->compare_add);
	hdr->swap = cpu_to_le64(aw->swap);
}

/* Opcode and opcode-specific fields of an RC work request. */
static int orca_wqe_rc(const struct ib_send_wr *wr,
		       struct orca_send_wqe_hdr *hdr)
{
	switch (wr->opcode) {
	case IB_WR_SEND:
		hdr->opcode = ORCA_WQE_SEND;
		return 0;
	case IB_WR_SEND_WITH_IMM:
		hdr->opcode = ORCA_WQE_SEND_IMM;
		/* Immediate data is carried in network byte order. */
		hdr->imm_or_inv = (__force __le32)wr->ex.imm_data;
		return 0;
	case IB_WR_SEND_WITH_INV:
		hdr->opcode = ORCA_WQE_SEND_INV;
		hdr->imm_or_inv = cpu_to_le32(wr->ex.invalidate_rkey);
		return 0;
	case IB_WR_RDMA_WRITE:
		hdr->opcode = ORCA_WQE_RDMA_WRITE;
		orca_wqe_rdma(wr, hdr);
		return 0;
	case IB_WR_RDMA_WRITE_WITH_IMM:
		hdr->opcode = ORCA_WQE_RDMA_WRITE_IMM;
		hdr->imm_or_inv = (__force __le32)wr->ex.imm_data;
		orca_wqe_rdma(wr, hdr);
		return 0;
	case IB_WR_RDMA_READ:
		hdr->opcode = ORCA_WQE_RDMA_READ;
		orca_wqe_rdma(wr, hdr);
		return 0;
	case IB_WR_ATOMIC_CMP_AND_SWP:
		hdr->opcode = ORCA_WQE_ATOMIC_CS;
		orca_wqe_atomic(wr, hdr);
		return 0;
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		hdr->opcode = ORCA_WQE_ATOMIC_FA;
		orca_wqe_atomic(wr, hdr);
		return 0;
	case IB_WR_LOCAL_INV:
		hdr->opcode = ORCA_WQE_LOCAL_INV;
		hdr->imm_or_inv = cpu_to_le32(wr->ex.invalidate_rkey);
		return 0;
	case IB_WR_REG_MR:
		return orca_wqe_reg_mr(wr, hdr);
	default:
		/*
		 * IB_WR_FLUSH and IB_WR_ATOMIC_WRITE too: the core defines
		 * no work request that carries a flush type and level or
		 * the 8 bytes to write, so kernel ULPs cannot say what to
		 * do; user QPs post them through the provider.
		 */
		return -EINVAL;
	}
}

/* UC: SEND and RDMA WRITE, with or without immediate, nothing else. */
static int orca_wqe_uc(const struct ib_send_wr *wr,
		       struct orca_send_wqe_hdr *hdr)
{
	switch (wr->opcode) {
	case IB_WR_SEND:
	case IB_WR_SEND_WITH_IMM:
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
		return orca_wqe_rc(wr, hdr);
	default:
		return -EINVAL;
	}
}

/* UD and GSI QPs only send, to the address handle of each request. */
static int orca_wqe_ud(const struct ib_send_wr *wr,
		       struct orca_send_wqe_hdr *hdr)
{
	const struct ib_ud_wr *ud = ud_wr(wr);

	switch (wr->opcode) {
	case IB_WR_SEND:
		hdr->opcode = ORCA_WQE_SEND;
		break;
	case IB_WR_SEND_WITH_IMM:
		hdr->opcode = ORCA_WQE_SEND_IMM;
		hdr->imm_or_inv = (__force __le32)wr->ex.imm_data;
		break;
	default:
		return -EINVAL;
	}
	if (!ud->ah)
		return -EINVAL;
	hdr->ahn = cpu_to_le32(to_oah(ud->ah)->ahn);
	hdr->dest_qpn = cpu_to_le32(ud->remote_qpn);
	hdr->qkey = cpu_to_le32(ud->remote_qkey);
	return 0;
}

static bool orca_wr_carries_data(enum ib_wr_opcode op)
{
	return op == IB_WR_SEND || op == IB_WR_SEND_WITH_IMM ||
	       op == IB_WR_SEND_WITH_INV || op == IB_WR_RDMA_WRITE ||
	       op == IB_WR_RDMA_WRITE_WITH_IMM;
}

static int orca_build_send_wqe(struct orca_qp *qp, const struct ib_send_wr *wr,
			       struct orca_send_wqe_hdr *hdr)
{
	int err;

	memset(hdr, 0, sizeof(*hdr));
	if (qp->ibqp.qp_type == IB_QPT_RC)
		err = orca_wqe_rc(wr, hdr);
	else if (qp->ibqp.qp_type == IB_QPT_UC)
		err = orca_wqe_uc(wr, hdr);
	else
		err = orca_wqe_ud(wr, hdr);
	if (err)
		return err;

	orca_set_wr_id(hdr, wr->wr_id);
	if ((wr->send_flags & IB_SEND_SIGNALED) || qp->sig_all)
		hdr->flags |= ORCA_WQE_F_SIGNALED;
	if (wr->send_flags & IB_SEND_SOLICITED)
		hdr->flags |= ORCA_WQE_F_SOLICITED;
	if (wr->send_flags & IB_SEND_FENCE)
		hdr->flags |= ORCA_WQE_F_FENCE;

	if (wr->opcode == IB_WR_LOCAL_INV || wr->opcode == IB_WR_REG_MR)
		return 0;
	if ((wr->send_flags & IB_SEND_INLINE) &&
	    orca_wr_carries_data(wr->opcode))
		return orca_copy_inline(qp, wr, hdr);
	return orca_copy_sges(qp, wr, hdr);
}

static bool orca_qp_can_send(struct orca_qp *qp)
{
	enum ib_qp_state state = READ_ONCE(qp->state);

	/* In ERR the device flushes what is posted (ib_drain_qp relies on it). */
	return state == IB_QPS_RTS || state == IB_QPS_SQD ||
	       state == IB_QPS_SQE || state == IB_QPS_ERR;
}

int orca_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		   const struct ib_send_wr **bad_wr)
{
	struct orca_dev *odev = to_odev(ibqp->device);
	struct orca_qp *qp = to_oqp(ibqp);
	u32 depth = 1U << qp->log_sq_depth;
	unsigned long flags;
	u32 old;
	int err = 0;

	/* Legacy POST_SEND: a user QP's ring is the provider's. */
	if (qp->user) {
		*bad_wr = wr;
		return -EOPNOTSUPP;
	}
	/*
	 * struct ib_send_wr carries no remote SRQ number for an XRC
	 * initiator's WQE (no kernel ULP uses XRC); a target QP has no send
	 * queue.
	 */
	if (ibqp->qp_type == IB_QPT_XRC_INI || orca_qp_is_xrc_tgt(qp)) {
		*bad_wr = wr;
		return -EOPNOTSUPP;
	}
	if (!orca_qp_can_send(qp)) {
		*bad_wr = wr;
		return -EINVAL;
	}
	spin_lock_irqsave(&qp->sq_lock, flags);
	old = qp->sq_pi;
	for (; wr; wr = wr->next) {
		u32 slot = orca_wq_slot(qp->sq_pi, qp->log_sq_depth);

		if (qp->sq_pi - READ_ONCE(qp->sq_ci) >= depth) {
			err = -ENOMEM;
			break;
		}
		err = orca_build_send_wqe(qp, wr,
					  orca_qbuf_entry(&qp->sq, slot,
							  qp->sq_stride));
		if (err)
			break;
		qp->sq_wrid[slot] = wr->wr_id;
		WRITE_ONCE(qp->sq_pi, qp->sq_pi + 1);
	}
	if (qp->sq_pi != old)
		orca_publish_pi(odev, &qp->db->sq_pi, &qp->db->sq_event_idx,
				old, qp->sq_pi, ORCA_UAR_SQ_DB, qp->qpn);
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	/* A dead device completes it in software (orca_poll.c). */
	if (qp->sq_pi != old && orca_dev_is_dead(odev))
		orca_dev_kick_flush(odev);
	if (err)
		*bad_wr = wr;
	return err;
}

/* @tag: a tagged SRQ's record of the WQE (orca_srq_rec_post()), else 0. */
static void orca_write_recv_wqe(void *wqe, const struct ib_recv_wr *wr,
				u16 tag)
{
	struct orca_recv_wqe_hdr *hdr = wqe;
	struct orca_sge *sge = (struct orca_sge *)(hdr + 1);
	int i;

	memset(hdr, 0, sizeof(*hdr));
	hdr->wr_id_lo = cpu_to_le32(lower_32_bits(wr->wr_id));
	hdr->wr_id_hi = cpu_to_le32(upper_32_bits(wr->wr_id));
	hdr->num_sge = wr->num_sge;
	hdr->tag = cpu_to_le16(tag);
	for (i = 0; i < wr->num_sge; i++) {
		sge[i].addr = cpu_to_le64(wr->sg_list[i].addr);
		sge[i].length = cpu_to_le32(wr->sg_list[i].length);
		sge[i].lkey = cpu_to_le32(wr->sg_list[i].lkey);
	}
}

int orca_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		   const struct ib_recv_wr **bad_wr)
{
	struct orca_dev *odev = to_odev(ibqp->device);
	struct orca_qp *qp = to_oqp(ibqp);
	u32 depth = 1U << qp->log_rq_depth;
	unsigned long flags;
	u32 old;
	int err = 0;

	/* Legacy POST_RECV: a user QP's ring is the provider's. */
	if (qp->user) {
		*bad_wr = wr;
		return -EOPNOTSUPP;
	}
	/* Receives of a QP on an SRQ go to the SRQ. */
	if (!qp->rq.pages || READ_ONCE(qp->state) == IB_QPS_RESET) {
		*bad_wr = wr;
		return -EINVAL;
	}
	spin_lock_irqsave(&qp->rq_lock, flags);
	old = qp->rq_pi;
	for (; wr; wr = wr->next) {
		u32 slot = orca_wq_slot(qp->rq_pi, qp->log_rq_depth);

		if (wr->num_sge > qp->max_recv_sge) {
			err = -EINVAL;
			break;
		}
		if (qp->rq_pi - READ_ONCE(qp->rq_ci) >= depth) {
			err = -ENOMEM;
			break;
		}
		orca_write_recv_wqe(orca_qbuf_entry(&qp->rq, slot,
						    qp->rq_stride), wr, 0);
		qp->rq_wrid[slot] = wr->wr_id;
		WRITE_ONCE(qp->rq_pi, qp->rq_pi + 1);
	}
	if (qp->rq_pi != old)
		orca_publish_pi(odev, &qp->db->rq_pi, &qp->db->rq_event_idx,
				old, qp->rq_pi, ORCA_UAR_RQ_DB, qp->qpn);
	spin_unlock_irqrestore(&qp->rq_lock, flags);
	if (qp->rq_pi != old && orca_dev_is_dead(odev))
		orca_dev_kick_flush(odev);
	if (err)
		*bad_wr = wr;
	return err;
}

int orca_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
		       const struct ib_recv_wr **bad_wr)
{
	struct orca_dev *odev = to_odev(ibsrq->device);
	struct orca_srq *srq = to_osrq(ibsrq);
	unsigned long flags;
	int err = 0;
	u32 old;

	/* Legacy POST_SRQ_RECV: a user SRQ's ring is the provider's. */
	if (srq->user) {
		*bad_wr = wr;
		return -EOPNOTSUPP;
	}
	spin_lock_irqsave(&srq->lock, flags);
	old = srq->pi;
	/* MODIFY_SRQ is moving the ring (orca_srq_resize()). */
	if (srq->resizing)
		err = -EBUSY;
	for (; wr && !err; wr = wr->next) {
		u32 slot = orca_wq_slot(srq->pi, srq->log_depth);
		u16 tag;

		if (wr->num_sge > srq->max_sge) {
			err = -EINVAL;
			break;
		}
		/*
		 * A free record, under the lock orca_srq_complete() takes too:
		 * none with max_wr WQEs outstanding, or (untagged) with the
		 * slot's WQE still waiting for a CQE another CQ holds.
		 */
		if (!orca_srq_rec_post(&srq->recs, srq->log_depth, srq->pi,
				       wr->wr_id, &tag)) {
			err = -ENOMEM;
			break;
		}
		orca_write_recv_wqe(orca_qbuf_entry(&srq->buf, slot,
						    srq->stride), wr, tag);
		WRITE_ONCE(srq->pi, srq->pi + 1);
	}
	if (srq->pi != old)
		orca_publish_pi(odev, &srq->db->pi, &srq->db->event_idx, old,
				srq->pi, ORCA_UAR_SRQ_DB, srq->srqn);
	spin_unlock_irqrestore(&srq->lock, flags);
	if (err)
		*bad_wr = wr;
	return err;
}

/*
 * After a transition to RESET the device restarts both queues at index 0
 * (and has set the event indices to 0); the driver's indices follow.  The
 * caller has removed the QP's CQEs from its CQs.
 */
void orca_qp_reset_indices(struct orca_qp *qp)
{
	unsigned long flags;

	spin_lock_irqsave(&qp->sq_lock, flags);
	WRITE_ONCE(qp->sq_pi, 0);
	WRITE_ONCE(qp->sq_ci, 0);
	WRITE_ONCE(qp->db->sq_pi, 0);
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	spin_lock_irqsave(&qp->rq_lock, flags);
	WRITE_ONCE(qp->rq_pi, 0);
	WRITE_ONCE(qp->rq_ci, 0);
	WRITE_ONCE(qp->db->rq_pi, 0);
	spin_unlock_irqrestore(&qp->rq_lock, flags);
}

// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ORCA provider data path, posting side (the user-space twin of the
 * driver's orca_post.c): work requests become WQEs in the rings, the new
 * producer index is published in the doorbell record, and the UAR page is
 * written (a trap into the emulator, tens of microseconds) only when the
 * device's event index says its engine went idle on that queue.  No system
 * call is made.
 */
#include <errno.h>
#include <string.h>

#include <util/mmio.h>
#include <util/udma_barrier.h>

#include "orca.h"

/*
 * The spec's "Doorbell records and event indices" (data-path.rst; NVMe
 * shadow doorbells with 32-bit indices): publish @new, then ring @uar_reg
 * only if the device's event index lies in [@old, @new).
 */
static void orca_publish_pi(struct orca_context *ctx, __le32 *pi,
			    __le32 *event_idx, uint32_t old, uint32_t new,
			    uint32_t uar_reg, uint32_t handle)
{
	uint32_t e;

	/* The WQEs must be visible before the index that hands them over. */
	udma_to_device_barrier();
	__atomic_store_n(pi, htole32(new), __ATOMIC_RELAXED);
	/*
	 * StoreLoad: the index store must be visible before the event index
	 * is read, or both sides may miss each other and the WQEs strand.
	 * udma_to_device_barrier() is only a compiler barrier on x86.
	 */
	orca_mb();
	e = le32toh(__atomic_load_n(event_idx, __ATOMIC_RELAXED));
	if ((uint32_t)(new - e - 1) < (uint32_t)(new - old))
		mmio_write32_le((uint8_t *)ctx->uar + uar_reg, htole32(handle));
}

static void orca_set_sges(struct orca_sge *dst, const struct ibv_sge *sg,
			  int num_sge)
{
	int i;

	for (i = 0; i < num_sge; i++) {
		dst[i].addr = htole64(sg[i].addr);
		dst[i].length = htole32(sg[i].length);
		dst[i].lkey = htole32(sg[i].lkey);
	}
}

/* Copy the data the SGEs point at into the WQE (user addresses). */
static int orca_copy_inline(struct orca_qp *qp, const struct ibv_send_wr *wr,
			    struct orca_send_wqe_hdr *hdr)
{
	uint8_t *dst = (uint8_t *)(hdr + 1);
	uint32_t len = 0;
	int i;

	for (i = 0; i < wr->num_sge; i++) {
		const struct ibv_sge *sge = &wr->sg_list[i];

		if (sge->length > qp->max_inline_data - len)
			return EINVAL;
		memcpy(dst + len, (void *)(uintptr_t)sge->addr, sge->length);
		len += sge->length;
	}
	hdr->flags |= ORCA_WQE_F_INLINE;
	hdr->length = htole32(len);
	return 0;
}

static void orca_wqe_rdma(const struct ibv_send_wr *wr,
			  struct orca_send_wqe_hdr *hdr)
{
	hdr->remote_addr = htole64(wr->wr.rdma.remote_addr);
	hdr->rkey = htole32(wr->wr.rdma.rkey);
}

static void orca_wqe_atomic(const struct ibv_send_wr *wr,
			    struct orca_send_wqe_hdr *hdr)
{
	hdr->remote_addr = htole64(wr->wr.atomic.remote_addr);
	hdr->rkey = htole32(wr->wr.atomic.rkey);
	hdr->compare_add = htole64(wr->wr.atomic.compare_add);
	hdr->swap = htole64(wr->wr.atomic.swap);
}

/**
 * orca_wqe_bind_mw() - the BIND_MW fields of a send WQE
 * @hdr: the WQE, zeroed by the caller, who sets wr_id and flags
 * @mw_rkey: the window's current rkey
 * @new_rkey: the rkey it takes (same index, ibv_inc_rkey() of the old)
 * @info: the MR, the window's range and rights; no MR and length 0
 *	unbinds a type 1 window
 *
 * The one place a BIND_MW WQE is built: post_send's IBV_WR_BIND_MW,
 * ibv_bind_mw() and ibv_wr_bind_mw() all use it.
 *
 * Return: 0, or EINVAL for rights the adapter does not know.
 */
int orca_wqe_bind_mw(struct orca_send_wqe_hdr *hdr, uint32_t mw_rkey,
		     uint32_t new_rkey, const struct ibv_mw_bind_info *info)
{
	const unsigned int rights = IBV_ACCESS_LOCAL_WRITE |
				    IBV_ACCESS_REMOTE_WRITE |
				    IBV_ACCESS_REMOTE_READ |
				    IBV_ACCESS_REMOTE_ATOMIC;
	uint32_t access;

	if (info->mw_access_flags & ~(rights | IBV_ACCESS_ZERO_BASED))
		return EINVAL;
	if (!info->mr && info->length)
		return EINVAL;
	/* IBV_ACCESS_* rights are numbered as ORCA_ACCESS_*. */
	access = info->mw_access_flags & rights;
	if (info->mw_access_flags & IBV_ACCESS_ZERO_BASED)
		access |= ORCA_MW_BIND_ZERO_BASED;
	hdr->opcode = ORCA_WQE_BIND_MW;
	hdr->imm_or_inv = htole32(mw_rkey);
	hdr->rkey = htole32(new_rkey);
	hdr->remote_addr = htole64(info->addr);
	hdr->compare_add = htole64(info->length);
	hdr->swap = htole64(orca_bind_mw_swap(access,
					      info->mr ? info->mr->lkey : 0));
	return 0;
}

/* Opcode and opcode-specific fields of an RC work request. */
static int orca_wqe_rc(const struct ibv_send_wr *wr,
		       struct orca_send_wqe_hdr *hdr)
{
	switch (wr->opcode) {
	case IBV_WR_SEND:
		hdr->opcode = ORCA_WQE_SEND;
		return 0;
	case IBV_WR_SEND_WITH_IMM:
		hdr->opcode = ORCA_WQE_SEND_IMM;
		/* Network byte order, carried as the wire bytes. */
		memcpy(&hdr->imm_or_inv, &wr->imm_data, 4);
		return 0;
	case IBV_WR_SEND_WITH_INV:
		hdr->opcode = ORCA_WQE_SEND_INV;
		hdr->imm_or_inv = htole32(wr->invalidate_rkey);
		return 0;
	case IBV_WR_RDMA_WRITE:
		hdr->opcode = ORCA_WQE_RDMA_WRITE;
		orca_wqe_rdma(wr, hdr);
		return 0;
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		hdr->opcode = ORCA_WQE_RDMA_WRITE_IMM;
		memcpy(&hdr->imm_or_inv, &wr->imm_data, 4);
		orca_wqe_rdma(wr, hdr);
		return 0;
	case IBV_WR_RDMA_READ:
		hdr->opcode = ORCA_WQE_RDMA_READ;
		orca_wqe_rdma(wr, hdr);
		return 0;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
		hdr->opcode = ORCA_WQE_ATOMIC_CS;
		orca_wqe_atomic(wr, hdr);
		return 0;
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		hdr->opcode = ORCA_WQE_ATOMIC_FA;
		orca_wqe_atomic(wr, hdr);
		return 0;
	case IBV_WR_LOCAL_INV:
		hdr->opcode = ORCA_WQE_LOCAL_INV;
		hdr->imm_or_inv = htole32(wr->invalidate_rkey);
		return 0;
	case IBV_WR_BIND_MW:
		if (!wr->bind_mw.mw)
			return EINVAL;
		return orca_wqe_bind_mw(hdr, wr->bind_mw.mw->rkey,
					wr->bind_mw.rkey,
					&wr->bind_mw.bind_info);
	default:
		/* TSO, driver opcodes: not on this adapter. */
		return EINVAL;
	}
}

/* UD QPs only send, to the address handle of each request. */
static int orca_wqe_ud(const struct ibv_send_wr *wr,
		       struct orca_send_wqe_hdr *hdr)
{
	switch (wr->opcode) {
	case IBV_WR_SEND:
		hdr->opcode = ORCA_WQE_SEND;
		break;
	case IBV_WR_SEND_WITH_IMM:
		hdr->opcode = ORCA_WQE_SEND_IMM;
		memcpy(&hdr->imm_or_inv, &wr->imm_data, 4);
		break;
	default:
		return EINVAL;
	}
	if (!wr->wr.ud.ah)
		return EINVAL;
	hdr->ahn = htole32(to_oah(wr->wr.ud.ah)->ahn);
	hdr->dest_qpn = htole32(wr->wr.ud.remote_qpn);
	hdr->qkey = htole32(wr->wr.ud.remote_qkey);
	return 0;
}

static bool orca_wr_carries_data(enum ibv_wr_opcode op)
{
	return op == IBV_WR_SEND || op == IBV_WR_SEND_WITH_IMM ||
	       op == IBV_WR_SEND_WITH_INV || op == IBV_WR_RDMA_WRITE ||
	       op == IBV_WR_RDMA_WRITE_WITH_IMM;
}

static int orca_build_send_wqe(struct orca_qp *qp, const struct ibv_send_wr *wr,
			       struct orca_send_wqe_hdr *hdr)
{
	int err;

	if (wr->num_sge < 0)
		return EINVAL;
	memset(hdr, 0, sizeof(*hdr));
	if (qp->ibv_qp.qp_type == IBV_QPT_RC)
		err = orca_wqe_rc(wr, hdr);
	else
		err = orca_wqe_ud(wr, hdr);
	if (err)
		return err;

	hdr->wr_id_lo = htole32((uint32_t)wr->wr_id);
	hdr->wr_id_hi = htole32((uint32_t)(wr->wr_id >> 32));
	if ((wr->send_flags & IBV_SEND_SIGNALED) || qp->sig_all)
		hdr->flags |= ORCA_WQE_F_SIGNALED;
	if (wr->send_flags & IBV_SEND_SOLICITED)
		hdr->flags |= ORCA_WQE_F_SOLICITED;
	if (wr->send_flags & IBV_SEND_FENCE)
		hdr->flags |= ORCA_WQE_F_FENCE;

	if (wr->opcode == IBV_WR_LOCAL_INV || wr->opcode == IBV_WR_BIND_MW)
		return 0;
	if ((wr->send_flags & IBV_SEND_INLINE) &&
	    orca_wr_carries_data(wr->opcode))
		return orca_copy_inline(qp, wr, hdr);
	if ((uint32_t)wr->num_sge > qp->sq.max_sge)
		return EINVAL;
	orca_set_sges((struct orca_sge *)(hdr + 1), wr->sg_list, wr->num_sge);
	hdr->num_sge = wr->num_sge;
	return 0;
}

static bool orca_qp_can_send(struct orca_qp *qp)
{
	int state = __atomic_load_n(&qp->state, __ATOMIC_ACQUIRE);

	/* In ERR the adapter flushes what is posted (drain relies on it). */
	return state == IBV_QPS_RTS || state == IBV_QPS_SQD ||
	       state == IBV_QPS_SQE || state == IBV_QPS_ERR;
}

static uint32_t orca_wq_ci(const uint32_t *ci)
{
	return __atomic_load_n(ci, __ATOMIC_ACQUIRE);
}

int orca_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		   struct ibv_send_wr **bad_wr)
{
	struct orca_context *ctx = to_octx(ibqp->context);
	struct orca_qp *qp = to_oqp(ibqp);
	uint32_t depth = 1U << qp->sq.log_depth;
	uint32_t old;
	int err = 0;

	if (!orca_qp_can_send(qp)) {
		*bad_wr = wr;
		return EINVAL;
	}
	pthread_spin_lock(&qp->sq.lock);
	old = qp->sq.pi;
	for (; wr; wr = wr->next) {
		uint8_t *wqe;

		if (qp->sq.pi - orca_wq_ci(&qp->sq.ci) >= depth) {
			err = ENOMEM;
			break;
		}
		wqe = qp->sq.buf +
		      (size_t)(qp->sq.pi & (depth - 1)) * qp->sq.stride;
		err = orca_build_send_wqe(qp, wr,
					  (struct orca_send_wqe_hdr *)wqe);
		if (err)
			break;
		__atomic_store_n(&qp->sq.pi, qp->sq.pi + 1, __ATOMIC_RELAXED);
	}
	if (qp->sq.pi != old)
		orca_publish_pi(ctx, &qp->db->sq_pi, &qp->db->sq_event_idx, old,
				qp->sq.pi, ORCA_UAR_SQ_DB, qp->qpn);
	pthread_spin_unlock(&qp->sq.lock);
	if (err)
		*bad_wr = wr;
	return err;
}

/*
 * ibv_bind_mw(): a type 1 window, bound by a BIND_MW work request with the
 * next key; the window takes it now, as rxe's, and keeps it if the bind
 * completes in error (the consumer undoes it, ibv_bind_mw(3)).
 */
int orca_bind_mw(struct ibv_qp *ibqp, struct ibv_mw *mw,
		 struct ibv_mw_bind *mw_bind)
{
	struct ibv_send_wr wr = {}, *bad_wr;
	int err;

	/* o10-36.2.2: no zero-based type 1 window. */
	if (mw_bind->bind_info.mw_access_flags & IBV_ACCESS_ZERO_BASED)
		return EINVAL;
	wr.opcode = IBV_WR_BIND_MW;
	wr.wr_id = mw_bind->wr_id;
	wr.send_flags = mw_bind->send_flags;
	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = ibv_inc_rkey(mw->rkey);
	wr.bind_mw.bind_info = mw_bind->bind_info;
	err = orca_post_send(ibqp, &wr, &bad_wr);
	if (err)
		return err;
	mw->rkey = wr.bind_mw.rkey;
	return 0;
}

static void orca_write_recv_wqe(uint8_t *wqe, const struct ibv_recv_wr *wr)
{
	struct orca_recv_wqe_hdr *hdr = (struct orca_recv_wqe_hdr *)wqe;

	memset(hdr, 0, sizeof(*hdr));
	hdr->wr_id_lo = htole32((uint32_t)wr->wr_id);
	hdr->wr_id_hi = htole32((uint32_t)(wr->wr_id >> 32));
	hdr->num_sge = wr->num_sge;
	orca_set_sges((struct orca_sge *)(hdr + 1), wr->sg_list, wr->num_sge);
}

int orca_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
		   struct ibv_recv_wr **bad_wr)
{
	struct orca_context *ctx = to_octx(ibqp->context);
	struct orca_qp *qp = to_oqp(ibqp);
	uint32_t depth = 1U << qp->rq.log_depth;
	uint32_t old;
	int err = 0;

	/* Receives of a QP on an SRQ go to the SRQ. */
	if (!qp->rq.buf ||
	    __atomic_load_n(&qp->state, __ATOMIC_ACQUIRE) == IBV_QPS_RESET) {
		*bad_wr = wr;
		return EINVAL;
	}
	pthread_spin_lock(&qp->rq.lock);
	old = qp->rq.pi;
	for (; wr; wr = wr->next) {
		if (wr->num_sge < 0 || (uint32_t)wr->num_sge > qp->rq.max_sge) {
			err = EINVAL;
			break;
		}
		if (qp->rq.pi - orca_wq_ci(&qp->rq.ci) >= depth) {
			err = ENOMEM;
			break;
		}
		orca_write_recv_wqe(qp->rq.buf + (size_t)(qp->rq.pi &
							  (depth - 1)) *
						 qp->rq.stride, wr);
		__atomic_store_n(&qp->rq.pi, qp->rq.pi + 1, __ATOMIC_RELAXED);
	}
	if (qp->rq.pi != old)
		orca_publish_pi(ctx, &qp->db->rq_pi, &qp->db->rq_event_idx, old,
				qp->rq.pi, ORCA_UAR_RQ_DB, qp->qpn);
	pthread_spin_unlock(&qp->rq.lock);
	if (err)
		*bad_wr = wr;
	return err;
}

int orca_post_srq_recv(struct ibv_srq *ibsrq, struct ibv_recv_wr *wr,
		       struct ibv_recv_wr **bad_wr)
{
	struct orca_context *ctx = to_octx(ibsrq->context);
	struct orca_srq *srq = to_osrq(ibsrq);
	uint32_t depth = 1U << srq->log_depth;
	uint8_t *buf = srq->ring.buf;
	uint32_t old;
	int err = 0;

	pthread_spin_lock(&srq->lock);
	old = srq->pi;
	for (; wr; wr = wr->next) {
		if (wr->num_sge < 0 || (uint32_t)wr->num_sge > srq->max_sge) {
			err = EINVAL;
			break;
		}
		if (srq->pi - orca_wq_ci(&srq->ci) >= depth) {
			err = ENOMEM;
			break;
		}
		orca_write_recv_wqe(buf + (size_t)(srq->pi & (depth - 1)) *
				    srq->stride, wr);
		srq->pi++;
	}
	if (srq->pi != old)
		orca_publish_pi(ctx, &srq->db->pi, &srq->db->event_idx, old,
				srq->pi, ORCA_UAR_SRQ_DB, srq->srqn);
	pthread_spin_unlock(&srq->lock);
	if (err)
		*bad_wr = wr;
	return err;
}

/*
 * After a transition to RESET the adapter restarts both queues at index 0
 * (and has set the event indices to 0); our indices follow.  The caller
 * has removed the QP's CQEs from its CQs.
 */
void orca_qp_reset_indices(struct orca_qp *qp)
{
	pthread_spin_lock(&qp->sq.lock);
	__atomic_store_n(&qp->sq.pi, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&qp->sq.ci, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&qp->db->sq_pi, 0, __ATOMIC_RELAXED);
	pthread_spin_unlock(&qp->sq.lock);
	pthread_spin_lock(&qp->rq.lock);
	__atomic_store_n(&qp->rq.pi, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&qp->rq.ci, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&qp->db->rq_pi, 0, __ATOMIC_RELAXED);
	pthread_spin_unlock(&qp->rq.lock);
}

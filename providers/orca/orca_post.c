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
			  size_t num_sge)
{
	size_t i;

	for (i = 0; i < num_sge; i++) {
		dst[i].addr = htole64(sg[i].addr);
		dst[i].length = htole32(sg[i].length);
		dst[i].lkey = htole32(sg[i].lkey);
	}
}

/*
 * The send WQE builder: orca_wqe_begin() for the opcode, wr_id and flags,
 * then the opcode's fields (orca_wqe_set_*()), then the data (SGEs or
 * inline bytes).  An opcode the adapter gains is one case in
 * orca_wqe_opcode() and its fields' setter.
 */

/* The adapter's opcode for @op on a QP of @qpt, or -1. */
static int orca_wqe_opcode(enum ibv_qp_type qpt, enum ibv_wr_opcode op)
{
	/* UD QPs only send, to the address handle of each request. */
	if (qpt == IBV_QPT_UD && op != IBV_WR_SEND &&
	    op != IBV_WR_SEND_WITH_IMM)
		return -1;
	switch (op) {
	case IBV_WR_SEND:
		return ORCA_WQE_SEND;
	case IBV_WR_SEND_WITH_IMM:
		return ORCA_WQE_SEND_IMM;
	case IBV_WR_SEND_WITH_INV:
		return ORCA_WQE_SEND_INV;
	case IBV_WR_RDMA_WRITE:
		return ORCA_WQE_RDMA_WRITE;
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		return ORCA_WQE_RDMA_WRITE_IMM;
	case IBV_WR_RDMA_READ:
		return ORCA_WQE_RDMA_READ;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
		return ORCA_WQE_ATOMIC_CS;
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		return ORCA_WQE_ATOMIC_FA;
	case IBV_WR_LOCAL_INV:
		return ORCA_WQE_LOCAL_INV;
	default:
		/* BIND_MW, TSO, FLUSH, ATOMIC_WRITE, driver opcodes. */
		return -1;
	}
}

/* Start the WQE at @hdr: opcode, wr_id and the IBV_SEND_* flags. */
static int orca_wqe_begin(struct orca_qp *qp, struct orca_send_wqe_hdr *hdr,
			  enum ibv_wr_opcode op, uint64_t wr_id,
			  unsigned int send_flags)
{
	int opcode = orca_wqe_opcode(qp->ibv_qp.qp_type, op);

	if (opcode < 0)
		return EINVAL;
	memset(hdr, 0, sizeof(*hdr));
	hdr->opcode = opcode;
	hdr->wr_id_lo = htole32((uint32_t)wr_id);
	hdr->wr_id_hi = htole32((uint32_t)(wr_id >> 32));
	if ((send_flags & IBV_SEND_SIGNALED) || qp->sig_all)
		hdr->flags |= ORCA_WQE_F_SIGNALED;
	if (send_flags & IBV_SEND_SOLICITED)
		hdr->flags |= ORCA_WQE_F_SOLICITED;
	if (send_flags & IBV_SEND_FENCE)
		hdr->flags |= ORCA_WQE_F_FENCE;
	return 0;
}

/* Immediate data: network byte order, carried as the wire bytes. */
static void orca_wqe_set_imm(struct orca_send_wqe_hdr *hdr, __be32 imm)
{
	memcpy(&hdr->imm_or_inv, &imm, sizeof(imm));
}

static void orca_wqe_set_inv(struct orca_send_wqe_hdr *hdr, uint32_t rkey)
{
	hdr->imm_or_inv = htole32(rkey);
}

static void orca_wqe_set_rdma(struct orca_send_wqe_hdr *hdr, uint64_t raddr,
			      uint32_t rkey)
{
	hdr->remote_addr = htole64(raddr);
	hdr->rkey = htole32(rkey);
}

static void orca_wqe_set_atomic(struct orca_send_wqe_hdr *hdr, uint64_t raddr,
				uint32_t rkey, uint64_t compare_add,
				uint64_t swap)
{
	orca_wqe_set_rdma(hdr, raddr, rkey);
	hdr->compare_add = htole64(compare_add);
	hdr->swap = htole64(swap);
}

static int orca_wqe_set_ud(struct orca_send_wqe_hdr *hdr, struct ibv_ah *ah,
			   uint32_t remote_qpn, uint32_t remote_qkey)
{
	if (!ah)
		return EINVAL;
	hdr->ahn = htole32(to_oah(ah)->ahn);
	hdr->dest_qpn = htole32(remote_qpn);
	hdr->qkey = htole32(remote_qkey);
	return 0;
}

/* The WQE's gather list; replaces inline data set before. */
static int orca_wqe_set_sgl(struct orca_qp *qp, struct orca_send_wqe_hdr *hdr,
			    const struct ibv_sge *sg, size_t num_sge)
{
	if (num_sge > qp->sq.max_sge)
		return EINVAL;
	orca_set_sges((struct orca_sge *)(hdr + 1), sg, num_sge);
	hdr->num_sge = num_sge;
	hdr->flags &= ~ORCA_WQE_F_INLINE;
	hdr->length = 0;
	return 0;
}

/*
 * Inline data: @first starts the WQE's data (dropping SGEs or inline bytes
 * set before), later calls append.  The bytes are copied now, so the caller
 * may reuse its buffers as soon as the call returns.
 */
static int orca_wqe_add_inline(struct orca_qp *qp,
			       struct orca_send_wqe_hdr *hdr, bool first,
			       const void *addr, size_t length)
{
	uint32_t len = first ? 0 : le32toh(hdr->length);

	if (length > qp->max_inline_data - len)
		return EINVAL;
	if (length)
		memcpy((uint8_t *)(hdr + 1) + len, addr, length);
	hdr->flags |= ORCA_WQE_F_INLINE;
	hdr->num_sge = 0;
	hdr->length = htole32(len + length);
	return 0;
}

static bool orca_wr_carries_data(enum ibv_wr_opcode op)
{
	return op == IBV_WR_SEND || op == IBV_WR_SEND_WITH_IMM ||
	       op == IBV_WR_SEND_WITH_INV || op == IBV_WR_RDMA_WRITE ||
	       op == IBV_WR_RDMA_WRITE_WITH_IMM;
}

/* ibv_post_send(): one work request into the WQE at @hdr. */
static int orca_build_send_wqe(struct orca_qp *qp, const struct ibv_send_wr *wr,
			       struct orca_send_wqe_hdr *hdr)
{
	int err, i;

	if (wr->num_sge < 0)
		return EINVAL;
	err = orca_wqe_begin(qp, hdr, wr->opcode, wr->wr_id, wr->send_flags);
	if (err)
		return err;

	switch (wr->opcode) {
	case IBV_WR_SEND_WITH_IMM:
		orca_wqe_set_imm(hdr, wr->imm_data);
		break;
	case IBV_WR_SEND_WITH_INV:
		orca_wqe_set_inv(hdr, wr->invalidate_rkey);
		break;
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		orca_wqe_set_imm(hdr, wr->imm_data);
		orca_wqe_set_rdma(hdr, wr->wr.rdma.remote_addr,
				  wr->wr.rdma.rkey);
		break;
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_READ:
		orca_wqe_set_rdma(hdr, wr->wr.rdma.remote_addr,
				  wr->wr.rdma.rkey);
		break;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		orca_wqe_set_atomic(hdr, wr->wr.atomic.remote_addr,
				    wr->wr.atomic.rkey,
				    wr->wr.atomic.compare_add,
				    wr->wr.atomic.swap);
		break;
	case IBV_WR_LOCAL_INV:
		orca_wqe_set_inv(hdr, wr->invalidate_rkey);
		return 0;
	default:
		break;
	}
	if (qp->ibv_qp.qp_type == IBV_QPT_UD) {
		err = orca_wqe_set_ud(hdr, wr->wr.ud.ah, wr->wr.ud.remote_qpn,
				      wr->wr.ud.remote_qkey);
		if (err)
			return err;
	}

	if (!(wr->send_flags & IBV_SEND_INLINE) ||
	    !orca_wr_carries_data(wr->opcode))
		return orca_wqe_set_sgl(qp, hdr, wr->sg_list, wr->num_sge);
	hdr->flags |= ORCA_WQE_F_INLINE;
	for (i = 0; i < wr->num_sge; i++) {
		err = orca_wqe_add_inline(qp, hdr, false,
					  (void *)(uintptr_t)wr->sg_list[i].addr,
					  wr->sg_list[i].length);
		if (err)
			return err;
	}
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

/* The send WQE at free-running index @idx, or NULL if the SQ is full. */
static struct orca_send_wqe_hdr *orca_sq_slot(struct orca_qp *qp,
					      uint32_t idx)
{
	uint32_t depth = 1U << qp->sq.log_depth;

	if (idx - orca_wq_ci(&qp->sq.ci) >= depth)
		return NULL;
	return (struct orca_send_wqe_hdr *)(qp->sq.buf +
					    (size_t)(idx & (depth - 1)) *
					    qp->sq.stride);
}

/* Hand WQEs [old, new) to the adapter; called under the SQ lock. */
static void orca_sq_publish(struct orca_qp *qp, uint32_t old, uint32_t new)
{
	__atomic_store_n(&qp->sq.pi, new, __ATOMIC_RELAXED);
	orca_publish_pi(to_octx(qp->ibv_qp.context), &qp->db->sq_pi,
			&qp->db->sq_event_idx, old, new, ORCA_UAR_SQ_DB,
			qp->qpn);
}

int orca_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		   struct ibv_send_wr **bad_wr)
{
	struct orca_qp *qp = to_oqp(ibqp);
	uint32_t old, pi;
	int err = 0;

	if (!orca_qp_can_send(qp)) {
		*bad_wr = wr;
		return EINVAL;
	}
	pthread_spin_lock(&qp->sq.lock);
	old = qp->sq.pi;
	pi = old;
	for (; wr; wr = wr->next) {
		struct orca_send_wqe_hdr *hdr = orca_sq_slot(qp, pi);

		if (!hdr) {
			err = ENOMEM;
			break;
		}
		err = orca_build_send_wqe(qp, wr, hdr);
		if (err)
			break;
		pi++;
	}
	if (pi != old)
		orca_sq_publish(qp, old, pi);
	pthread_spin_unlock(&qp->sq.lock);
	if (err)
		*bad_wr = wr;
	return err;
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

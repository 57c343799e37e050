// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ORCA provider data path, completion side (the user-space twin of the
 * driver's orca_poll.c): CQEs read by phase and turned into ibv_wc,
 * retiring the WQEs they complete; CQ arming through the doorbell record's
 * arm word; and the removal of a QP's CQEs from its CQs when the QP is
 * reset or destroyed.  No system call is made.
 */
#include <errno.h>
#include <stdatomic.h>
#include <string.h>

#include <util/mmio.h>
#include <util/udma_barrier.h>

#include "orca.h"

/* The adapter reports ibv_wc_status values; keep the numbering honest. */
static_assert(ORCA_CQE_ST_LOC_LEN_ERR == IBV_WC_LOC_LEN_ERR, "status");
static_assert(ORCA_CQE_ST_LOC_QP_OP_ERR == IBV_WC_LOC_QP_OP_ERR, "status");
static_assert(ORCA_CQE_ST_LOC_PROT_ERR == IBV_WC_LOC_PROT_ERR, "status");
static_assert(ORCA_CQE_ST_WR_FLUSH_ERR == IBV_WC_WR_FLUSH_ERR, "status");
static_assert(ORCA_CQE_ST_MW_BIND_ERR == IBV_WC_MW_BIND_ERR, "status");
static_assert(ORCA_CQE_ST_BAD_RESP_ERR == IBV_WC_BAD_RESP_ERR, "status");
static_assert(ORCA_CQE_ST_LOC_ACCESS_ERR == IBV_WC_LOC_ACCESS_ERR, "status");
static_assert(ORCA_CQE_ST_REM_INV_REQ_ERR == IBV_WC_REM_INV_REQ_ERR, "status");
static_assert(ORCA_CQE_ST_REM_ACCESS_ERR == IBV_WC_REM_ACCESS_ERR, "status");
static_assert(ORCA_CQE_ST_REM_OP_ERR == IBV_WC_REM_OP_ERR, "status");
static_assert(ORCA_CQE_ST_RETRY_EXC_ERR == IBV_WC_RETRY_EXC_ERR, "status");
static_assert(ORCA_CQE_ST_RNR_RETRY_EXC_ERR == IBV_WC_RNR_RETRY_EXC_ERR,
	      "status");
static_assert(ORCA_CQE_ST_REM_ABORT_ERR == IBV_WC_REM_ABORT_ERR, "status");
static_assert(ORCA_CQE_ST_GENERAL_ERR == IBV_WC_GENERAL_ERR, "status");

/* A CQE whose QP is gone; its slot is consumed without a work completion. */
#define ORCA_CQE_QPN_NONE	0

/* The CQE at index @idx if the adapter has written it, else NULL. */
static struct orca_cqe *orca_cqe_at(struct orca_cq *cq, uint32_t idx)
{
	struct orca_cqe *cqe = cq->ring.buf;
	uint8_t phase = ((idx >> cq->log_depth) & 1) ^ 1;

	cqe += idx & ((1U << cq->log_depth) - 1);
	if ((__atomic_load_n(&cqe->flags, __ATOMIC_RELAXED) &
	     ORCA_CQE_F_PHASE) != phase)
		return NULL;
	/* The adapter writes flags last: read the body only after it. */
	udma_from_device_barrier();
	return cqe;
}

static enum ibv_wc_opcode orca_wc_opcode(uint8_t opcode)
{
	switch (opcode) {
	case ORCA_CQE_RDMA_WRITE:
		return IBV_WC_RDMA_WRITE;
	case ORCA_CQE_RDMA_READ:
		return IBV_WC_RDMA_READ;
	case ORCA_CQE_COMP_SWAP:
		return IBV_WC_COMP_SWAP;
	case ORCA_CQE_FETCH_ADD:
		return IBV_WC_FETCH_ADD;
	case ORCA_CQE_LOCAL_INV:
		return IBV_WC_LOCAL_INV;
	case ORCA_CQE_BIND_MW:
		return IBV_WC_BIND_MW;
	case ORCA_CQE_RECV:
		return IBV_WC_RECV;
	case ORCA_CQE_RECV_RDMA_WITH_IMM:
		return IBV_WC_RECV_RDMA_WITH_IMM;
	default:
		return IBV_WC_SEND;
	}
}

/* Rebuild a free-running index from its low 16 bits, near @ci. */
static uint32_t orca_wqe_index(uint32_t ci, uint16_t wqe_idx)
{
	return ci + (uint16_t)(wqe_idx - (uint16_t)ci);
}

static void orca_srq_consumed(struct orca_qp *qp)
{
	__atomic_fetch_add(&to_osrq(qp->ibv_qp.srq)->ci, 1, __ATOMIC_RELEASE);
}

/*
 * Retire the WQEs a CQE completes.  A send CQE also retires the unsignaled
 * WQEs before it; receive queues complete one WQE per CQE, in order (an
 * SRQ is consumed in ring order, and each of its WQEs completes once).
 */
static void orca_retire(struct orca_context *ctx, struct orca_qp *qp,
			const struct orca_cqe *cqe, bool recv)
{
	struct orca_wq *wq = recv ? &qp->rq : &qp->sq;
	uint32_t ci, pi, next;

	if (recv && qp->ibv_qp.srq) {
		orca_srq_consumed(qp);
		return;
	}
	ci = wq->ci;
	/* The producer index only grows under the poster's lock. */
	pi = __atomic_load_n(&wq->pi, __ATOMIC_RELAXED);
	next = orca_wqe_index(ci, le16toh(cqe->wqe_idx)) + 1;
	/* A CQE for a WQE never posted would free slots still in use. */
	if (next - ci > pi - ci) {
		verbs_err_datapath(&ctx->ibv_ctx,
				   "orca: QP %u: CQE for %s WQE %u beyond %u\n",
				   qp->qpn, recv ? "receive" : "send",
				   le16toh(cqe->wqe_idx), pi);
		return;
	}
	/* Done with the slots (CQE read) before posters may reuse them. */
	__atomic_store_n(&wq->ci, next, __ATOMIC_RELEASE);
}

static void orca_cqe_to_wc(struct orca_qp *qp, const struct orca_cqe *cqe,
			   struct ibv_wc *wc)
{
	uint8_t status = cqe->status;
	uint8_t flags = cqe->flags;

	memset(wc, 0, sizeof(*wc));
	wc->wr_id = (uint64_t)le32toh(cqe->wr_id_hi) << 32 |
		    le32toh(cqe->wr_id_lo);
	wc->qp_num = qp->qpn;
	wc->opcode = orca_wc_opcode(cqe->opcode);
	/* Statuses are numbered as ibv_wc_status; unknown ones are errors. */
	wc->status = status <= IBV_WC_GENERAL_ERR ? status : IBV_WC_GENERAL_ERR;
	if (wc->status != IBV_WC_SUCCESS) {
		wc->vendor_err = status;
		return;
	}
	if (!(cqe->opcode & ORCA_CQE_RECV))
		return;

	wc->byte_len = le32toh(cqe->byte_len);
	if (flags & ORCA_CQE_F_IMM) {
		/* The immediate's bytes are those of the wire. */
		memcpy(&wc->imm_data, &cqe->imm_or_inv, 4);
		wc->wc_flags |= IBV_WC_WITH_IMM;
	} else if (flags & ORCA_CQE_F_INV) {
		wc->invalidated_rkey = le32toh(cqe->imm_or_inv);
		wc->wc_flags |= IBV_WC_WITH_INV;
	}
	if (qp->ibv_qp.qp_type == IBV_QPT_UD) {
		wc->src_qp = le32toh(cqe->src_qpn) & GENMASK(23, 0);
		if (flags & ORCA_CQE_F_GRH)
			wc->wc_flags |= IBV_WC_GRH;
	}
}

int orca_poll_cq(struct ibv_cq *ibcq, int num_entries, struct ibv_wc *wc)
{
	struct orca_context *ctx = to_octx(ibcq->context);
	struct orca_cq *cq = to_ocq(ibcq);
	struct orca_cqe *cqe;
	struct orca_qp *qp;
	uint32_t start;
	int n = 0;

	pthread_spin_lock(&cq->lock);
	start = cq->ci;
	while (n < num_entries && (cqe = orca_cqe_at(cq, cq->ci))) {
		cq->ci++;
		/*
		 * A destroyed or reset QP's CQEs were scrubbed under this
		 * lock, and it left the table under it too, so @qp stays
		 * valid until we unlock.
		 */
		qp = orca_qp_lookup(ctx, le32toh(cqe->qpn));
		if (!qp) {
			if (le32toh(cqe->qpn) != ORCA_CQE_QPN_NONE)
				verbs_err_datapath(&ctx->ibv_ctx,
						   "orca: CQ %u: CQE for unknown QP %u\n",
						   cq->cqn, le32toh(cqe->qpn));
			continue;
		}
		/* Bit 7 of the opcode tells receive from send, even on error. */
		orca_retire(ctx, qp, cqe, cqe->opcode & ORCA_CQE_RECV);
		orca_cqe_to_wc(qp, cqe, &wc[n++]);
	}
	if (cq->ci != start) {
		/* Done reading the CQEs before the adapter may reuse them. */
		atomic_thread_fence(memory_order_seq_cst);
		__atomic_store_n(&cq->db->ci, htole32(cq->ci), __ATOMIC_RELAXED);
	}
	pthread_spin_unlock(&cq->lock);
	return n;
}

/*
 * The spec's "CQ arming" (data-path.rst): store a new arm word, then look
 * at the CQE at ci; one the adapter may have written before it saw the arm
 * is reported through ORCA_UAR_CQ_DB, so no wakeup is lost.  Otherwise no
 * trap.
 */
int orca_req_notify_cq(struct ibv_cq *ibcq, int solicited_only)
{
	struct orca_context *ctx = to_octx(ibcq->context);
	struct orca_cq *cq = to_ocq(ibcq);
	bool pending;
	uint32_t arm;

	pthread_spin_lock(&cq->lock);
	/* Sequence 0 is what the adapter saw before the first arm. */
	cq->arm_seq = (cq->arm_seq + 1) & ORCA_CQ_ARM_SEQ;
	if (!cq->arm_seq)
		cq->arm_seq = 1;
	arm = FIELD_PREP(ORCA_CQ_ARM_SEQ, cq->arm_seq);
	arm |= solicited_only ? ORCA_CQ_ARM_SOLICITED : ORCA_CQ_ARM_ANY;
	/* The ci published by the last poll goes first. */
	udma_to_device_barrier();
	__atomic_store_n(&cq->db->arm, htole32(arm), __ATOMIC_RELAXED);
	/* StoreLoad: the arm must be visible before we look for a CQE. */
	orca_mb();
	pending = orca_cqe_at(cq, cq->ci);
	pthread_spin_unlock(&cq->lock);

	if (pending)
		mmio_write32_le((uint8_t *)ctx->uar + ORCA_UAR_CQ_DB,
				htole32(cq->cqn));
	return 0;
}

/*
 * Mark the valid, unpolled CQEs of @qp so that polling drops them.  The
 * SRQ WQEs that dropped receive CQEs consumed still count as consumed.
 */
static void orca_cq_scrub(struct orca_cq *cq, struct orca_qp *qp)
{
	struct orca_cqe *cqe;
	uint32_t i;

	for (i = cq->ci; i - cq->ci < (1U << cq->log_depth); i++) {
		cqe = orca_cqe_at(cq, i);
		if (!cqe)
			break;
		if (le32toh(cqe->qpn) != qp->qpn)
			continue;
		if ((cqe->opcode & ORCA_CQE_RECV) && qp->ibv_qp.srq)
			orca_srq_consumed(qp);
		cqe->qpn = htole32(ORCA_CQE_QPN_NONE);
	}
}

/**
 * orca_qp_clean_cqs() - drop a QP's unpolled CQEs from its CQs
 * @qp: a QP the adapter no longer completes work for (destroyed or reset)
 * @unlink: also remove @qp from the QP table (destroy)
 *
 * Without this a poller would report completions of a QP that is gone,
 * or retire WQEs of a reset QP with indices from before the reset.  Both
 * CQ locks are held while the QP leaves the table, so a poller that found
 * it there is done with it when this returns.
 */
void orca_qp_clean_cqs(struct orca_qp *qp, bool unlink)
{
	struct orca_cq *first = to_ocq(qp->ibv_qp.send_cq);
	struct orca_cq *second = to_ocq(qp->ibv_qp.recv_cq);

	/* A fixed order (by cqn) between the two CQ locks. */
	if (first->cqn > second->cqn) {
		struct orca_cq *t = first;

		first = second;
		second = t;
	}
	pthread_spin_lock(&first->lock);
	if (second != first)
		pthread_spin_lock(&second->lock);
	orca_cq_scrub(first, qp);
	if (second != first)
		orca_cq_scrub(second, qp);
	if (unlink)
		orca_qp_table_remove(to_octx(qp->ibv_qp.context), qp);
	if (second != first)
		pthread_spin_unlock(&second->lock);
	pthread_spin_unlock(&first->lock);
}

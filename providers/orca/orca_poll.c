// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ORCA provider data path, completion side (the user-space twin of the
 * driver's orca_poll.c): CQEs read by phase and turned into ibv_wc,
 * retiring the WQEs they complete by the driver's own rules
 * (orca_wqe_track.h) and with the wr_id the provider recorded; CQ arming
 * through the doorbell record's arm word; and the removal of a QP's CQEs
 * from its CQs when the QP is reset or destroyed.  No system call is made.
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
	case ORCA_CQE_FLUSH:
		return IBV_WC_FLUSH;
	case ORCA_CQE_ATOMIC_WRITE:
		return IBV_WC_ATOMIC_WRITE;
	case ORCA_CQE_RECV:
		return IBV_WC_RECV;
	case ORCA_CQE_RECV_RDMA_WITH_IMM:
		return IBV_WC_RECV_RDMA_WITH_IMM;
	default:
		return IBV_WC_SEND;
	}
}

/* A CQE dropped, for the count the context reports when closed. */
static void orca_bad_cqe(struct orca_context *ctx)
{
	__atomic_fetch_add(&ctx->bad_cqes, 1, __ATOMIC_RELAXED);
}

/*
 * Retire the SRQ WQE a receive CQE names and find its wr_id.  Posters of
 * the SRQ and pollers of the other CQs of its QPs change the records too.
 */
static bool orca_srq_complete(struct orca_srq *srq, uint16_t wqe_idx,
			      uint64_t *wr_id)
{
	bool posted;

	pthread_spin_lock(&srq->wr_lock);
	posted = orca_srq_rec_complete(&srq->recs, srq->log_depth, srq->pi,
				       wqe_idx, wr_id);
	pthread_spin_unlock(&srq->wr_lock);
	return posted;
}

/*
 * Retire the WQEs a CQE completes and find its wr_id, by the driver's
 * rules (orca_wqe_track.h).  A send CQE also retires the unsignaled WQEs
 * before it; receive queues complete one WQE per CQE, in order; an SRQ's
 * WQEs are taken in ring order but may be polled in any order, from the
 * CQs of several QPs.
 *
 * The wr_id is the one the WQE was posted with, from the provider's record
 * of its slot, as mlx5, erdma and efa keep theirs: the CQE's is the
 * adapter's word, and consumers use wr_id as a pointer.
 *
 * Return: false for a CQE naming a WQE that is not outstanding (never
 * posted, already completed): it would free slots still in use, so it is
 * counted and dropped.
 */
static bool orca_retire(struct orca_context *ctx, struct orca_qp *qp,
			const struct orca_cqe *cqe, bool recv, uint64_t *wr_id)
{
	struct orca_wq *wq = recv ? &qp->rq : &qp->sq;
	uint16_t idx = le16toh(cqe->wqe_idx);
	uint32_t pi, wqe;

	if (recv && qp->vqp.qp.srq) {
		if (orca_srq_complete(to_osrq(qp->vqp.qp.srq), idx, wr_id))
			return true;
		goto bad;
	}
	/* Records below the producer index were written before it moved. */
	pi = __atomic_load_n(&wq->pi, __ATOMIC_ACQUIRE);
	if (!orca_wq_outstanding(wq->ci, pi, idx, &wqe))
		goto bad;
	*wr_id = wq->wrid[orca_wq_slot(wqe, wq->log_depth)];
	/* Done with the slots (CQE and record read) before posters reuse them. */
	__atomic_store_n(&wq->ci, wqe + 1, __ATOMIC_RELEASE);
	return true;

bad:
	orca_bad_cqe(ctx);
	verbs_err_datapath(&ctx->ibv_ctx,
			   "orca: QP %u: CQE for %s WQE %u, not outstanding; dropped\n",
			   qp->qpn, recv ? "receive" : "send", idx);
	return false;
}

/* @qpt, @qpn: the QP's, an XRC target's for a CQE of an XRC SRQ. */
static void orca_cqe_to_wc(enum ibv_qp_type qpt, uint32_t qpn,
			   const struct orca_cqe *cqe, uint64_t wr_id,
			   struct ibv_wc *wc)
{
	uint8_t status = cqe->status;
	uint8_t flags = cqe->flags;

	memset(wc, 0, sizeof(*wc));
	wc->wr_id = wr_id;
	wc->qp_num = qpn;
	wc->opcode = orca_wc_opcode(cqe->opcode);
	/* Statuses are numbered as ibv_wc_status; unknown ones are errors. */
	wc->status = status <= IBV_WC_GENERAL_ERR ? status : IBV_WC_GENERAL_ERR;
	if (wc->status != IBV_WC_SUCCESS) {
		wc->vendor_err = status;
		return;
	}
	/* Send side: the message length (bytes read, 8 for an atomic). */
	wc->byte_len = le32toh(cqe->byte_len);
	if (!(cqe->opcode & ORCA_CQE_RECV))
		return;

	if (flags & ORCA_CQE_F_IMM) {
		/* The immediate's bytes are those of the wire. */
		memcpy(&wc->imm_data, &cqe->imm_or_inv, 4);
		wc->wc_flags |= IBV_WC_WITH_IMM;
	} else if (flags & ORCA_CQE_F_INV) {
		wc->invalidated_rkey = le32toh(cqe->imm_or_inv);
		wc->wc_flags |= IBV_WC_WITH_INV;
	}
	if (qpt == IBV_QPT_UD) {
		wc->src_qp = le32toh(cqe->src_qpn) & GENMASK(23, 0);
		if (flags & ORCA_CQE_F_GRH)
			wc->wc_flags |= IBV_WC_GRH;
	}
}

/*
 * A receive of an XRC SRQ (spec, data-path.rst "XRC"): the CQE names the
 * SRQ in src_qpn and the target QP, which another process may own, in
 * qpn.  The SRQ must be an XRC SRQ of this context on this CQ; its
 * destroy takes it out of the table under this CQ's lock after dropping
 * its CQEs (orca_srq_clean_cq()), so it stays valid until we unlock.  The
 * WQE is retired by the SRQ's rules.  Return: false for a CQE dropped.
 */
static bool orca_cq_next_xrc(struct orca_context *ctx, struct orca_cq *cq,
			     const struct orca_cqe *cqe, struct ibv_wc *wc)
{
	uint32_t srqn = le32toh(cqe->src_qpn) & GENMASK(23, 0);
	uint16_t idx = le16toh(cqe->wqe_idx);
	struct orca_srq *srq;
	uint64_t wr_id;

	srq = orca_table_lookup(ctx->srq_table, srqn);
	if (!srq || srq->vsrq.cq != &cq->vcq.cq ||
	    !(cqe->opcode & ORCA_CQE_RECV)) {
		orca_bad_cqe(ctx);
		verbs_err_datapath(&ctx->ibv_ctx,
				   "orca: CQ %u: XRC CQE for SRQ %u, not an XRC SRQ of this CQ; dropped\n",
				   cq->cqn, srqn);
		return false;
	}
	if (!orca_srq_complete(srq, idx, &wr_id)) {
		orca_bad_cqe(ctx);
		verbs_err_datapath(&ctx->ibv_ctx,
				   "orca: XRC SRQ %u: CQE for WQE %u, not outstanding; dropped\n",
				   srqn, idx);
		return false;
	}
	orca_cqe_to_wc(IBV_QPT_XRC_RECV, le32toh(cqe->qpn), cqe, wr_id, wc);
	return true;
}

/*
 * Consume the next CQE of @cq into @wc, the one decoding that
 * ibv_poll_cq() and the extended CQ's start_poll/next_poll share.  Under
 * the CQ lock.  Return: false when no CQE is left.
 */
static bool orca_cq_next(struct orca_context *ctx, struct orca_cq *cq,
			 struct ibv_wc *wc)
{
	struct orca_cqe *cqe;
	struct orca_qp *qp;
	uint64_t wr_id;

	while ((cqe = orca_cqe_at(cq, cq->ci))) {
		cq->ci++;
		if (le32toh(cqe->qpn) == ORCA_CQE_QPN_NONE)
			continue;
		if (cqe->flags & ORCA_CQE_F_XRC) {
			if (orca_cq_next_xrc(ctx, cq, cqe, wc))
				return true;
			continue;
		}
		/*
		 * A destroyed or reset QP's CQEs were scrubbed under this
		 * lock, and it left the table under it too, so @qp stays
		 * valid until we unlock.
		 */
		qp = orca_qp_lookup(ctx, le32toh(cqe->qpn));
		if (!qp) {
			orca_bad_cqe(ctx);
			verbs_err_datapath(&ctx->ibv_ctx,
					   "orca: CQ %u: CQE for unknown QP %u; dropped\n",
					   cq->cqn, le32toh(cqe->qpn));
			continue;
		}
		/* Bit 7 of the opcode tells receive from send, even on error. */
		if (!orca_retire(ctx, qp, cqe, cqe->opcode & ORCA_CQE_RECV,
				 &wr_id))
			continue;
		orca_cqe_to_wc(qp->vqp.qp.qp_type, qp->qpn, cqe, wr_id, wc);
		return true;
	}
	return false;
}

/* Hand the slots consumed since @start back to the adapter. */
static void orca_cq_publish_ci(struct orca_cq *cq, uint32_t start)
{
	if (cq->ci == start)
		return;
	/*
	 * Done reading the CQEs before the adapter may reuse them:
	 * LoadStore against the device, which no barrier of udma_barrier.h
	 * gives on every architecture (udma_from_device_barrier() is
	 * "fence ir,ir" on riscv).
	 */
	orca_mb();
	__atomic_store_n(&cq->db->ci, htole32(cq->ci), __ATOMIC_RELAXED);
}

int orca_poll_cq(struct ibv_cq *ibcq, int num_entries, struct ibv_wc *wc)
{
	struct orca_context *ctx = to_octx(ibcq->context);
	struct orca_cq *cq = to_ocq(ibcq);
	uint32_t start;
	int n = 0;

	orca_lock(&cq->lock);
	start = cq->ci;
	while (n < num_entries && orca_cq_next(ctx, cq, &wc[n]))
		n++;
	orca_cq_publish_ci(cq, start);
	orca_unlock(&cq->lock);
	return n;
}

/*
 * The extended CQ (ibv_create_cq_ex(3)): start_poll takes the CQ lock and
 * the first completion, next_poll the following ones, end_poll publishes
 * what was consumed and unlocks.  Each completion is decoded into @cq->wc
 * by orca_cq_next(), and the readers return its fields, so both APIs
 * report the same values.
 */
static void orca_cq_ex_current(struct orca_cq *cq)
{
	cq->vcq.cq_ex.wr_id = cq->wc.wr_id;
	cq->vcq.cq_ex.status = cq->wc.status;
}

static int orca_start_poll(struct ibv_cq_ex *ibcq,
			   struct ibv_poll_cq_attr *attr)
{
	struct orca_context *ctx = to_octx(ibcq->context);
	struct orca_cq *cq = ex_to_ocq(ibcq);

	if (attr->comp_mask)
		return EINVAL;
	orca_lock(&cq->lock);
	cq->poll_ci = cq->ci;
	if (!orca_cq_next(ctx, cq, &cq->wc)) {
		/* Slots of dropped CQEs may have been consumed. */
		orca_cq_publish_ci(cq, cq->poll_ci);
		orca_unlock(&cq->lock);
		return ENOENT;
	}
	orca_cq_ex_current(cq);
	return 0;
}

static int orca_next_poll(struct ibv_cq_ex *ibcq)
{
	struct orca_cq *cq = ex_to_ocq(ibcq);

	/* The lock stays held until end_poll, found or not. */
	if (!orca_cq_next(to_octx(ibcq->context), cq, &cq->wc))
		return ENOENT;
	orca_cq_ex_current(cq);
	return 0;
}

static void orca_end_poll(struct ibv_cq_ex *ibcq)
{
	struct orca_cq *cq = ex_to_ocq(ibcq);

	orca_cq_publish_ci(cq, cq->poll_ci);
	orca_unlock(&cq->lock);
}

static enum ibv_wc_opcode orca_wc_read_opcode(struct ibv_cq_ex *ibcq)
{
	return ex_to_ocq(ibcq)->wc.opcode;
}

static uint32_t orca_wc_read_vendor_err(struct ibv_cq_ex *ibcq)
{
	return ex_to_ocq(ibcq)->wc.vendor_err;
}

static uint32_t orca_wc_read_byte_len(struct ibv_cq_ex *ibcq)
{
	return ex_to_ocq(ibcq)->wc.byte_len;
}

/* Also ibv_wc_read_invalidated_rkey(): ibv_wc keeps both in one union. */
static __be32 orca_wc_read_imm_data(struct ibv_cq_ex *ibcq)
{
	return ex_to_ocq(ibcq)->wc.imm_data;
}

static uint32_t orca_wc_read_qp_num(struct ibv_cq_ex *ibcq)
{
	return ex_to_ocq(ibcq)->wc.qp_num;
}

static uint32_t orca_wc_read_src_qp(struct ibv_cq_ex *ibcq)
{
	return ex_to_ocq(ibcq)->wc.src_qp;
}

static unsigned int orca_wc_read_wc_flags(struct ibv_cq_ex *ibcq)
{
	return ex_to_ocq(ibcq)->wc.wc_flags;
}

static uint32_t orca_wc_read_slid(struct ibv_cq_ex *ibcq)
{
	return ex_to_ocq(ibcq)->wc.slid;
}

static uint8_t orca_wc_read_sl(struct ibv_cq_ex *ibcq)
{
	return ex_to_ocq(ibcq)->wc.sl;
}

static uint8_t orca_wc_read_dlid_path_bits(struct ibv_cq_ex *ibcq)
{
	return ex_to_ocq(ibcq)->wc.dlid_path_bits;
}

/**
 * orca_cq_set_ex_ops() - the extended CQ's poll functions and readers
 * @cq: the CQ
 * @wc_flags: the IBV_WC_EX_WITH_* asked for (ORCA_CQ_EX_WC_FLAGS at most)
 *
 * As rxe: a reader is set only for a field asked for.
 */
void orca_cq_set_ex_ops(struct orca_cq *cq, uint64_t wc_flags)
{
	struct ibv_cq_ex *ex = &cq->vcq.cq_ex;

	ex->start_poll = orca_start_poll;
	ex->next_poll = orca_next_poll;
	ex->end_poll = orca_end_poll;
	ex->read_opcode = orca_wc_read_opcode;
	ex->read_vendor_err = orca_wc_read_vendor_err;
	ex->read_wc_flags = orca_wc_read_wc_flags;
	if (wc_flags & IBV_WC_EX_WITH_BYTE_LEN)
		ex->read_byte_len = orca_wc_read_byte_len;
	if (wc_flags & IBV_WC_EX_WITH_IMM)
		ex->read_imm_data = orca_wc_read_imm_data;
	if (wc_flags & IBV_WC_EX_WITH_QP_NUM)
		ex->read_qp_num = orca_wc_read_qp_num;
	if (wc_flags & IBV_WC_EX_WITH_SRC_QP)
		ex->read_src_qp = orca_wc_read_src_qp;
	if (wc_flags & IBV_WC_EX_WITH_SLID)
		ex->read_slid = orca_wc_read_slid;
	if (wc_flags & IBV_WC_EX_WITH_SL)
		ex->read_sl = orca_wc_read_sl;
	if (wc_flags & IBV_WC_EX_WITH_DLID_PATH_BITS)
		ex->read_dlid_path_bits = orca_wc_read_dlid_path_bits;
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

	orca_lock(&cq->lock);
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
	orca_unlock(&cq->lock);

	if (pending)
		mmio_write32_le((uint8_t *)ctx->uar + ORCA_UAR_CQ_DB,
				htole32(cq->cqn));
	return 0;
}

/*
 * Mark the valid, unpolled CQEs of @qp so that polling drops them.  Each
 * receive CQE of a QP on an SRQ completed one SRQ WQE that no poller will
 * see now: its slot is returned, as the driver's orca_cq_scrub() does.
 */
static void orca_cq_scrub(struct orca_cq *cq, struct orca_qp *qp)
{
	struct orca_cqe *cqe;
	uint64_t wr_id;
	uint32_t i;

	for (i = cq->ci; i - cq->ci < (1U << cq->log_depth); i++) {
		cqe = orca_cqe_at(cq, i);
		if (!cqe)
			break;
		if (le32toh(cqe->qpn) != qp->qpn)
			continue;
		if ((cqe->opcode & ORCA_CQE_RECV) && qp->vqp.qp.srq)
			orca_srq_complete(to_osrq(qp->vqp.qp.srq),
					  le16toh(cqe->wqe_idx), &wr_id);
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
	struct orca_cq *first = to_ocq(qp->vqp.qp.send_cq);
	/* An XRC initiator needs no receive CQ. */
	struct orca_cq *second = qp->vqp.qp.recv_cq ?
				 to_ocq(qp->vqp.qp.recv_cq) : first;

	/* A fixed order (by cqn) between the two CQ locks. */
	if (first->cqn > second->cqn) {
		struct orca_cq *t = first;

		first = second;
		second = t;
	}
	/* A resize's copies are in the ring the scrub sees (orca_cq.c). */
	pthread_mutex_lock(&first->resize_mutex);
	if (second != first)
		pthread_mutex_lock(&second->resize_mutex);
	orca_lock(&first->lock);
	if (second != first)
		orca_lock(&second->lock);
	orca_cq_scrub(first, qp);
	if (second != first)
		orca_cq_scrub(second, qp);
	if (unlink)
		orca_qp_table_remove(to_octx(qp->vqp.qp.context), qp);
	if (second != first)
		orca_unlock(&second->lock);
	orca_unlock(&first->lock);
	if (second != first)
		pthread_mutex_unlock(&second->resize_mutex);
	pthread_mutex_unlock(&first->resize_mutex);
}

/**
 * orca_srq_clean_cq() - drop a destroyed XRC SRQ's CQEs and forget it
 * @srq: the XRC SRQ, which the adapter no longer completes WQEs of
 *
 * Its CQEs name it by number (orca_cq_next_xrc()), which the next XRC SRQ
 * may get; they name no QP of this context, so no QP's clean drops them.
 * It leaves the SRQ table under its CQ's lock, so a poller that found it
 * is done with it.  Called with srq_table_mutex held since DESTROY_SRQ.
 */
void orca_srq_clean_cq(struct orca_srq *srq)
{
	struct orca_context *ctx = to_octx(srq->vsrq.srq.context);
	struct orca_cq *cq = to_ocq(srq->vsrq.cq);
	struct orca_cqe *cqe;
	uint32_t i;

	pthread_mutex_lock(&cq->resize_mutex);
	orca_lock(&cq->lock);
	for (i = cq->ci; i - cq->ci < (1U << cq->log_depth); i++) {
		cqe = orca_cqe_at(cq, i);
		if (!cqe)
			break;
		if ((cqe->flags & ORCA_CQE_F_XRC) &&
		    (le32toh(cqe->src_qpn) & GENMASK(23, 0)) == srq->srqn)
			cqe->qpn = htole32(ORCA_CQE_QPN_NONE);
	}
	orca_table_remove(ctx->srq_table, srq->srqn, srq);
	orca_unlock(&cq->lock);
	pthread_mutex_unlock(&cq->resize_mutex);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The responder: executes incoming requests in PSN order.  SENDs fill
 * receive WQEs (RQ or SRQ; none posted -> RNR NAK), RDMA WRITEs and READs,
 * atomics, FLUSHes and ATOMIC WRITEs go through the rkey checks, every
 * request's rights are
 * checked against the QP and the MR.  A PSN ahead of the expected one gets
 * one sequence NAK; duplicates are acknowledged again (SEND/WRITE) or
 * replayed from the responder resources (READ, atomic).  ACKs are
 * coalesced: one per QP per engine pass, for the newest PSN that asked.
 * UC takes SENDs and WRITEs through the same code, but never answers: a
 * PSN gap or a request it cannot take drops the message silently, and the
 * next FIRST or ONLY packet starts again (roce_resp_uc_rx()).  An XRC
 * target (1.6) is an RC responder whose receive WQEs, receive CQ and PD
 * are those of the XRC SRQ each request's XRCETH names (roce_xrc.c), and
 * whose answers carry the XRC opcodes.
 * Also the UD/GSI receive side, with the Q_Key check and the GRH area.
 */
#include <errno.h>
#include <stdatomic.h>
#include <string.h>

#include "roce_priv.h"

/* ---- receive WQEs ---- */

/*
 * @idx: the WQE's index; a tagged SRQ's CQEs report the tag instead
 * (@tagged), which the consumer chose and the adapter does not interpret.
 */
static int rwqe_parse(const uint8_t *e, uint8_t max_sge, uint32_t idx,
		      bool tagged, struct roce_rwqe *out)
{
	const struct orca_recv_wqe_hdr *h = (const void *)e;

	out->wr_id = le32toh(h->wr_id_lo) |
		     (uint64_t)le32toh(h->wr_id_hi) << 32;
	out->idx = tagged ? le16toh(h->tag) : idx;
	out->num_sge = h->num_sge;
	if (out->num_sge > max_sge) {
		out->num_sge = 0;
		return -EINVAL;
	}
	memcpy(out->sge, e + sizeof(*h), out->num_sge * sizeof(out->sge[0]));
	return 0;
}

/*
 * The next WQE of SRQ @srq, as take_rwqe().  One of an XRC SRQ says so,
 * for its CQE (recv_complete()), whether or not it parses.
 */
static int take_srq_wqe(struct orca_engine *eng, struct emu_srq *srq,
			struct roce_rwqe *out)
{
	struct orca_srq_db_rec *rec;
	const uint8_t *e;
	uint32_t pi;

	rec = engine_dma(eng, srq->db_rec, sizeof(*rec));
	if (!rec)
		return -EIO;
	/* No doorbell wanted: the next request reads pi again. */
	pi = le32toh(atomic_load_explicit((_Atomic __le32 *)&rec->pi,
					  memory_order_acquire));
	if (pi == srq->ci)
		return -EAGAIN;
	if (pi - srq->ci > (1u << srq->log_depth))
		return -EIO;
	e = roce_queue_entry(eng, &srq->buf, 0, srq->buf.npages, srq->ci,
			     srq->log_depth,
			     orca_recv_wqe_stride(srq->max_sge));
	if (!e)
		return -EIO;
	srq->ci++;
	if (srq->limit && pi - srq->ci < srq->limit) {
		srq->limit = 0;
		engine_eq_post(eng, 0, ORCA_EQE_SRQ_LIMIT, srq->srqn, 0);
	}
	if (srq->xrc) {
		out->xrc_srqn = srq->srqn;
		out->xrc_cqn = srq->cqn;
	}
	return rwqe_parse(e, srq->max_sge, srq->ci - 1, srq->tagged, out);
}

/*
 * Takes the next receive WQE: 0, -EAGAIN when none is posted (the RQ event
 * index is published so the driver rings), -EINVAL for a malformed one
 * (consumed), -EIO when the queue is unreachable.  An XRC target takes it
 * from the SRQ of the request being executed (roce_xrc_take()).
 */
static int take_rwqe(struct roce_qp *rq, struct roce_rwqe *out)
{
	struct orca_engine *eng = rq->dev->eng;
	struct emu_qp *qp = rq->qp;
	const uint8_t *e;
	uint32_t pi;

	out->xrc_srqn = out->xrc_cqn = 0;
	if (qp->type == ORCA_QPT_XRC_TGT || (qp->flags & ORCA_QP_F_USE_SRQ)) {
		struct emu_srq *srq = objtab_get(&eng->srqs,
						 qp->type == ORCA_QPT_XRC_TGT ?
						 rq->xrc_srqn : qp->srqn);

		if (!srq)
			return -EIO;
		return take_srq_wqe(eng, srq, out);
	}
	{
		struct orca_qp_db_rec *rec = engine_dma(eng, qp->db_rec,
							 sizeof(*rec));

		if (!rec)
			return -EIO;
		pi = le32toh(atomic_load_explicit((_Atomic __le32 *)&rec->rq_pi,
						  memory_order_acquire));
		/*
		 * Only a QP in ERR wants the next post rung for, to flush it;
		 * otherwise the next request reads rq_pi again.
		 */
		if (pi == qp->rq_ci && qp->state == ORCA_QPS_ERR)
			pi = roce_publish_event_idx(&rec->rq_event_idx,
						    &rec->rq_pi, pi);
		if (pi == qp->rq_ci)
			return -EAGAIN;
		if (pi - qp->rq_ci > (1u << qp->log_rq_depth))
			return -EIO;
	}
	e = roce_queue_entry(eng, &qp->buf, qp->sq_npages,
			     qp->buf.npages - qp->sq_npages, qp->rq_ci,
			     qp->log_rq_depth,
			     orca_recv_wqe_stride(qp->max_recv_sge));
	if (!e)
		return -EIO;
	qp->rq_ci++;
	return rwqe_parse(e, qp->max_recv_sge, qp->rq_ci - 1, false, out);
}

/*
 * A receive completes on the QP's receive CQ, or, from an XRC SRQ, on
 * that SRQ's CQ with its number in src_qpn (data-path.rst, "XRC").
 */
static int recv_complete(struct roce_qp *rq, const struct roce_rwqe *r,
			 struct orca_cqe *cqe, bool solicited)
{
	uint32_t cqn = rq->qp->recv_cqn;

	cqe->wr_id_lo = htole32((uint32_t)r->wr_id);
	cqe->wr_id_hi = htole32((uint32_t)(r->wr_id >> 32));
	cqe->qpn = htole32(rq->qp->qpn);
	cqe->wqe_idx = htole16((uint16_t)r->idx);
	if (r->xrc_srqn) {
		cqn = r->xrc_cqn;
		cqe->src_qpn = htole32(r->xrc_srqn);
		cqe->flags |= ORCA_CQE_F_XRC;
	}
	if (roce_cq_post(rq->dev->eng, cqn, cqe, solicited)) {
		roce_qp_to_err(rq, ORCA_EQE_QP_FATAL);
		return -ENOSPC;
	}
	return 0;
}

static void recv_fail(struct roce_qp *rq, const struct roce_rwqe *r,
		      uint8_t status)
{
	struct orca_cqe cqe = { .opcode = ORCA_CQE_RECV, .status = status };

	recv_complete(rq, r, &cqe, false);
}

void roce_resp_flush_rq(struct roce_qp *rq)
{
	struct roce_rwqe r;
	unsigned int n = 0;

	rq->ack_pending = false;
	rq->job_head = rq->job_tail;
	if (rq->rcv_active || rq->rcv_held || rq->rcv_odp) {
		rq->rcv_active = rq->rcv_held = rq->rcv_odp = false;
		recv_fail(rq, &rq->rcv, ORCA_CQE_ST_WR_FLUSH_ERR);
	}
	rq->wr_active = false;
	if (!engine_qp_has_rq(rq->qp))
		return;		/* SRQ WQEs stay for the other QPs */
	while (n++ <= (1u << rq->qp->log_rq_depth)) {
		int err = take_rwqe(rq, &r);

		if (err == -EAGAIN || err == -EIO)
			break;
		recv_fail(rq, &r, ORCA_CQE_ST_WR_FLUSH_ERR);
	}
}

/* ---- ACK and NAK ---- */

static void send_aeth(struct roce_qp *rq, uint32_t psn, uint8_t syndrome)
{
	struct emu_qp *qp = rq->qp;
	struct roce_pkt pkt = { 0 };

	pkt.opcode = roce_wire_op(qp, ROCE_RC_ACK);
	pkt.dest_qpn = le32toh(qp->attr.dest_qpn) & ROCE_QPN_MASK;
	pkt.psn = psn & ROCE_PSN_MASK;
	pkt.aeth_syndrome = syndrome;
	pkt.aeth_msn = rq->msn & 0xffffff;
	roce_send_pkt(rq, &qp->attr.av, &pkt, NULL, NULL);
}

/*
 * ACKs and NAKs for requests after a READ or atomic wait until its
 * responses are out: the requester would take them as saying the
 * responses were lost.  The newest one wins (coalescing).
 */
static void want_aeth(struct roce_qp *rq, uint32_t psn, uint8_t syndrome)
{
	rq->ack_pending = true;
	rq->ack_psn = psn & ROCE_PSN_MASK;
	rq->ack_syndrome = syndrome;
}

static void want_ack(struct roce_qp *rq, uint32_t psn)
{
	want_aeth(rq, psn, ROCE_AETH_ACK | ROCE_AETH_ACK_NO_CREDIT);
}

static void send_atomic_ack(struct roce_qp *rq, uint32_t psn, uint64_t orig);
static int send_read_response(struct roce_qp *rq, struct roce_rjob *j);

bool roce_resp_send_acks(struct roce_qp *rq)
{
	int budget = ROCE_TX_BURST;

	while (rq->job_head != rq->job_tail && budget-- > 0) {
		struct roce_rjob *j =
			&rq->jobs[rq->job_head & (rq->njobs - 1)];

		if (j->atomic) {
			send_atomic_ack(rq, j->psn, j->orig);
			rq->job_head++;
		} else if (send_read_response(rq, j)) {
			rq->job_head++;
		}
	}
	if (rq->job_head != rq->job_tail)
		return true;
	if (rq->ack_pending) {
		rq->ack_pending = false;
		rq->dev->st.acks_tx++;
		send_aeth(rq, rq->ack_psn, rq->ack_syndrome);
	}
	return false;
}

static struct roce_rjob *job_add(struct roce_qp *rq)
{
	struct roce_rjob *j;

	if (rq->job_tail - rq->job_head >= rq->njobs)
		return NULL;
	j = &rq->jobs[rq->job_tail++ & (rq->njobs - 1)];
	memset(j, 0, sizeof(*j));
	return j;
}

/*
 * A request the responder cannot execute: NAK it, fail the receive WQE in
 * progress and move the QP to ERR (IBA 9.9.3: classes B, C, D).
 */
static void nak_fatal(struct roce_qp *rq, uint32_t psn, uint8_t code,
		      uint8_t recv_status, uint8_t event)
{
	rq->ack_pending = false;
	rq->job_head = rq->job_tail;
	if (rq->qp->type == ORCA_QPT_UC) {
		/* No NAK on UC: the event tells the driver the QP is down. */
		if (!event)
			event = ORCA_EQE_QP_FATAL;
	} else {
		rq->dev->st.err_naks_tx++;
		send_aeth(rq, psn, ROCE_AETH_NAK | code);
	}
	if (rq->rcv_active || rq->rcv_held) {
		rq->rcv_active = rq->rcv_held = false;
		recv_fail(rq, &rq->rcv, recv_status);
	}
	rq->wr_active = false;
	roce_qp_to_err(rq, event);
}

/*
 * UC: the message in progress is given up (IBA 9.9.3 class D, as rxe):
 * its packets are dropped up to the next FIRST or ONLY.  A receive WQE it
 * took from the RQ stays for the next SEND; one from an SRQ, which other
 * QPs share, completes with REM_INV_REQ_ERR (class E).
 */
static void uc_abort(struct roce_qp *rq)
{
	rq->dev->st.uc_aborted++;
	rq->wr_active = false;
	if (!rq->rcv_active)
		return;
	rq->rcv_active = false;
	if (rq->qp->flags & ORCA_QP_F_USE_SRQ) {
		recv_fail(rq, &rq->rcv, ORCA_CQE_ST_REM_INV_REQ_ERR);
	} else {
		rq->rcv_held = true;
		rq->rcv_off = 0;
	}
}

/* UC: this packet's message cannot be taken: drop it silently. */
static void uc_drop(struct roce_qp *rq)
{
	rq->dev->st.drop_uc++;
	rq->uc_drop = true;
	uc_abort(rq);
}

/*
 * A request the responder cannot take because of what the requester sent
 * (length, rights, no receive WQE): RC NAKs it and goes to ERR
 * (nak_fatal()), UC drops the message and stays up (uc_drop()).
 */
static void reject(struct roce_qp *rq, uint32_t psn, uint8_t code,
		   uint8_t recv_status, uint8_t event)
{
	if (rq->qp->type == ORCA_QPT_UC)
		uc_drop(rq);
	else
		nak_fatal(rq, psn, code, recv_status, event);
}

static void nak_rnr(struct roce_qp *rq, uint32_t psn)
{
	rq->dev->st.rnr_naks_tx++;
	/* Like a sequence NAK: later packets are dropped until the retry. */
	rq->nak_seq_sent = true;
	want_aeth(rq, psn, ROCE_AETH_RNR_NAK |
		  (rq->qp->attr.min_rnr_timer & 0x1f));
}

/*
 * On-demand paging (roce_odp.c): the step at @pkt found no translation.
 * RC and XRC wait for the page fault: the PSN is RNR-NAKed with the QP's
 * min_rnr_timer (true).  UC cannot NAK, and a QP whose last fault ended
 * unresolved cannot wait: false, and the miss is the access's error.
 */
static bool resp_fault(struct roce_qp *rq, const struct roce_pkt *pkt,
		       uint8_t kind, uint32_t wqe_idx)
{
	if (!engine_qp_is_rc(rq->qp) ||
	    !roce_odp_stop_resp(rq, kind, pkt->psn, wqe_idx))
		return false;
	nak_rnr(rq, pkt->psn);
	return true;
}

/* ---- SEND ---- */

static void take_failed(struct roce_qp *rq, const struct roce_pkt *pkt,
			int err)
{
	if (err == -EAGAIN && rq->qp->type == ORCA_QPT_UC)
		uc_drop(rq);		/* no RNR NAK on UC: class D */
	else if (err == -EAGAIN)
		nak_rnr(rq, pkt->psn);
	else
		nak_fatal(rq, pkt->psn, ROCE_NAK_REMOTE_OP,
			  ORCA_CQE_ST_LOC_QP_OP_ERR, ORCA_EQE_QP_FATAL);
}

static void resp_send(struct roce_qp *rq, const struct roce_pkt *pkt,
		      uint32_t flags)
{
	struct orca_engine *eng = rq->dev->eng;
	struct orca_cqe cqe = { .opcode = ORCA_CQE_RECV };
	int err;

	if ((flags & ROCE_K_FIRST) && rq->rcv_held) {
		/* UC: the WQE of a message given up takes this one. */
		rq->rcv_held = false;
		rq->rcv_active = true;
		rq->rcv_off = 0;
	} else if ((flags & ROCE_K_FIRST) && rq->rcv_odp) {
		/* The retry of a FIRST a page fault stopped: its WQE stays. */
		rq->rcv_odp = false;
		rq->rcv_active = true;
		rq->rcv_off = 0;
	} else if (flags & ROCE_K_FIRST) {
		err = take_rwqe(rq, &rq->rcv);
		if (err) {
			if (err == -EINVAL) {
				rq->rcv_active = true;
				nak_fatal(rq, pkt->psn, ROCE_NAK_REMOTE_OP,
					  ORCA_CQE_ST_LOC_QP_OP_ERR, 0);
				return;
			}
			take_failed(rq, pkt, err);
			return;
		}
		rq->rcv_active = true;
		rq->rcv_off = 0;
	}
	if ((uint64_t)rq->rcv_off + pkt->paylen >
	    roce_sgl_len(rq->rcv.sge, rq->rcv.num_sge)) {
		reject(rq, pkt->psn, ROCE_NAK_INVALID_REQ,
		       ORCA_CQE_ST_LOC_LEN_ERR, ORCA_EQE_QP_REQ_ERR);
		return;
	}
	err = roce_sgl_copy(eng, rq->resp_pdn, rq->rcv.sge, rq->rcv.num_sge,
			    rq->rcv_off, (void *)pkt->payload, pkt->paylen,
			    true);
	if (err == ROCE_ST_ODP_MISS) {
		if (resp_fault(rq, pkt, ORCA_PF_RESP_RECV, rq->rcv.idx)) {
			/*
			 * Bytes placed before the miss are placed again.  A
			 * FIRST comes again as a FIRST: its WQE waits aside.
			 */
			if (flags & ROCE_K_FIRST) {
				rq->rcv_active = false;
				rq->rcv_odp = true;
			}
			return;
		}
		err = ORCA_CQE_ST_LOC_PROT_ERR;
	}
	if (err) {
		nak_fatal(rq, pkt->psn, ROCE_NAK_REMOTE_OP, (uint8_t)err, 0);
		return;
	}
	rq->rcv_odp = false;
	rq->rcv_off += pkt->paylen;
	rq->epsn = (rq->epsn + 1) & ROCE_PSN_MASK;
	if (!(flags & ROCE_K_LAST))
		goto ack;

	if (flags & ROCE_H_IETH) {
		if (roce_mr_invalidate(eng, rq->qp, rq->resp_pdn,
				       pkt->ieth_rkey, true)) {
			nak_fatal(rq, pkt->psn, ROCE_NAK_INVALID_REQ,
				  ORCA_CQE_ST_REM_INV_REQ_ERR,
				  ORCA_EQE_QP_REQ_ERR);
			return;
		}
		cqe.flags |= ORCA_CQE_F_INV;
		cqe.imm_or_inv = htole32(pkt->ieth_rkey);
	}
	if (flags & ROCE_H_IMMDT) {
		cqe.flags |= ORCA_CQE_F_IMM;
		cqe.imm_or_inv = htole32(__builtin_bswap32(pkt->imm));
	}
	cqe.byte_len = htole32(rq->rcv_off);
	rq->rcv_active = false;
	rq->msn++;
	if (recv_complete(rq, &rq->rcv, &cqe, pkt->solicited))
		return;
ack:
	if (pkt->ack_req && engine_qp_is_rc(rq->qp))
		want_ack(rq, pkt->psn);
}

/* ---- RDMA WRITE ---- */

static bool qp_allows(const struct roce_qp *rq, uint32_t access)
{
	return (le32toh(rq->qp->attr.access) & access) == access;
}

static void resp_write(struct roce_qp *rq, const struct roce_pkt *pkt,
		       uint32_t flags)
{
	struct orca_engine *eng = rq->dev->eng;
	struct emu_mr *mr;
	uint64_t mva;
	int err;

	/* WRITE with immediate consumes a receive WQE: make sure first. */
	if ((flags & ROCE_H_IMMDT) && rq->rcv_held) {
		rq->rcv_held = false;
		rq->rcv_active = true;
	} else if ((flags & ROCE_H_IMMDT) && rq->rcv_odp) {
		/* Taken by the try a page fault stopped. */
		rq->rcv_odp = false;
		rq->rcv_active = true;
	} else if ((flags & ROCE_H_IMMDT) && !rq->rcv_active) {
		err = take_rwqe(rq, &rq->rcv);
		if (err) {
			take_failed(rq, pkt, err);
			return;
		}
		rq->rcv_active = true;
	}
	if (flags & ROCE_K_FIRST) {
		if (!qp_allows(rq, ORCA_ACCESS_REMOTE_WRITE) ||
		    (pkt->reth_len &&
		     roce_rkey_check(eng, rq->qp, rq->resp_pdn, pkt->reth_rkey,
				     pkt->reth_va, pkt->reth_len,
				     ORCA_ACCESS_REMOTE_WRITE, NULL, &mva))) {
			reject(rq, pkt->psn, ROCE_NAK_REMOTE_ACCESS,
			       ORCA_CQE_ST_LOC_ACCESS_ERR,
			       ORCA_EQE_QP_ACCESS_ERR);
			return;
		}
		rq->wr_active = true;
		rq->wr_va = pkt->reth_va;
		rq->wr_rkey = pkt->reth_rkey;
		rq->wr_left = rq->wr_len = pkt->reth_len;
	}
	if (pkt->paylen > rq->wr_left ||
	    ((flags & ROCE_K_LAST) && pkt->paylen != rq->wr_left)) {
		reject(rq, pkt->psn, ROCE_NAK_INVALID_REQ,
		       ORCA_CQE_ST_LOC_LEN_ERR, ORCA_EQE_QP_REQ_ERR);
		return;
	}
	if (pkt->paylen) {
		/* Checked again per packet: the MR may be gone meanwhile. */
		err = roce_rkey_check(eng, rq->qp, rq->resp_pdn, rq->wr_rkey,
				      rq->wr_va, pkt->paylen,
				      ORCA_ACCESS_REMOTE_WRITE, &mr, &mva);
		if (!err)
			err = roce_mr_copy(eng, mr, mva, (void *)pkt->payload,
					   pkt->paylen, true);
		/*
		 * RETH's context stays: the retry goes on from here, or,
		 * if this was the FIRST, starts the message again.
		 */
		/* The hint: the rest of the WRITE comes next. */
		if (err == ROCE_ST_ODP_MISS)
			rq->dev->odp_miss.prefetch = rq->wr_left - pkt->paylen;
		if (err == ROCE_ST_ODP_MISS &&
		    resp_fault(rq, pkt, ORCA_PF_RESP_WRITE, 0)) {
			if (flags & ROCE_K_FIRST)
				rq->wr_active = false;
			if ((flags & ROCE_K_FIRST) && (flags & ROCE_H_IMMDT)) {
				rq->rcv_active = false;
				rq->rcv_odp = true;
			}
			return;
		}
		if (err) {
			reject(rq, pkt->psn, ROCE_NAK_REMOTE_ACCESS,
			       ORCA_CQE_ST_LOC_ACCESS_ERR,
			       ORCA_EQE_QP_ACCESS_ERR);
			return;
		}
	}
	rq->wr_va += pkt->paylen;
	rq->wr_left -= pkt->paylen;
	rq->epsn = (rq->epsn + 1) & ROCE_PSN_MASK;
	if (flags & ROCE_K_LAST) {
		rq->wr_active = false;
		rq->msn++;
		if (flags & ROCE_H_IMMDT) {
			struct orca_cqe cqe = {
				.opcode = ORCA_CQE_RECV_RDMA_WITH_IMM,
				.flags = ORCA_CQE_F_IMM,
				.byte_len = htole32(rq->wr_len),
				.imm_or_inv = htole32(__builtin_bswap32(pkt->imm)),
			};

			rq->rcv_active = false;
			if (recv_complete(rq, &rq->rcv, &cqe, pkt->solicited))
				return;
		}
	}
	if (pkt->ack_req && engine_qp_is_rc(rq->qp))
		want_ack(rq, pkt->psn);
}

/* ---- RDMA READ and atomics ---- */

struct read_src {
	uint64_t va;
	uint32_t rkey;
	uint32_t pdn;
	int status;
};

static int fill_from_mr(struct roce_qp *rq, void *arg, uint8_t *dst,
			uint32_t len)
{
	struct read_src *s = arg;
	struct emu_mr *mr;
	uint64_t mva;

	s->status = roce_rkey_check(rq->dev->eng, rq->qp, s->pdn, s->rkey,
				    s->va, len, ORCA_ACCESS_REMOTE_READ, &mr,
				    &mva);
	if (!s->status)
		s->status = roce_odp_no_fault(roce_mr_copy(rq->dev->eng, mr,
							   mva, dst, len,
							   false));
	return s->status ? -1 : 0;
}

/* Sends the next response of READ job @j; true when it was the last. */
static int send_read_response(struct roce_qp *rq, struct roce_rjob *j)
{
	struct emu_qp *qp = rq->qp;
	uint32_t mtu = roce_qp_mtu(rq->dev->eng, qp);
	struct read_src src = { .va = j->va, .rkey = j->rkey, .pdn = j->pdn };
	bool last = j->left <= mtu;
	struct roce_pkt pkt = { 0 };

	pkt.opcode = roce_wire_op(qp, j->first && last ? ROCE_RC_READ_RESP_ONLY :
					  j->first ? ROCE_RC_READ_RESP_FIRST :
					  last ? ROCE_RC_READ_RESP_LAST :
					  ROCE_RC_READ_RESP_MIDDLE);
	pkt.dest_qpn = le32toh(qp->attr.dest_qpn) & ROCE_QPN_MASK;
	pkt.psn = j->psn;
	pkt.aeth_syndrome = ROCE_AETH_ACK | ROCE_AETH_ACK_NO_CREDIT;
	pkt.aeth_msn = (j->placed ? j->msn : rq->msn) & 0xffffff;
	pkt.paylen = last ? j->left : mtu;
	/*
	 * If the MR vanished meanwhile, nothing goes out: the requester
	 * times out and retries, and the retry is refused properly.
	 */
	roce_send_pkt(rq, &qp->attr.av, &pkt, fill_from_mr, &src);
	j->first = false;
	j->psn = (j->psn + 1) & ROCE_PSN_MASK;
	j->va += pkt.paylen;
	j->left -= pkt.paylen;
	return last;
}

static bool queue_read(struct roce_qp *rq, const struct roce_pkt *pkt)
{
	struct roce_rjob *j = job_add(rq);

	if (!j)
		return false;
	j->psn = pkt->psn;
	j->va = pkt->reth_va;
	j->rkey = pkt->reth_rkey;
	j->pdn = rq->resp_pdn;
	j->left = pkt->reth_len;
	j->first = true;
	return true;
}

static struct roce_res *res_alloc(struct roce_qp *rq)
{
	uint32_t n = rq->qp->attr.max_dest_rd_atomic;

	if (!n || n > rq->nres)
		n = rq->nres;
	return &rq->res[rq->res_next++ % n];
}

static void resp_read(struct roce_qp *rq, const struct roce_pkt *pkt)
{
	uint32_t mtu = roce_qp_mtu(rq->dev->eng, rq->qp);
	struct roce_res *res;
	struct emu_mr *mr = NULL;
	uint64_t mva = 0;
	int err = 0;

	if (!qp_allows(rq, ORCA_ACCESS_REMOTE_READ))
		err = ORCA_CQE_ST_LOC_ACCESS_ERR;
	else if (pkt->reth_len)
		err = roce_rkey_check(rq->dev->eng, rq->qp, rq->resp_pdn,
				      pkt->reth_rkey, pkt->reth_va,
				      pkt->reth_len, ORCA_ACCESS_REMOTE_READ,
				      &mr, &mva);
	/* Every page of an on-demand MR before the first response goes. */
	if (!err && pkt->reth_len)
		err = roce_mr_probe(rq->dev->eng, mr, mva, pkt->reth_len,
				    false, mtu);
	if (err == ROCE_ST_ODP_MISS && resp_fault(rq, pkt, ORCA_PF_RESP_READ,
						  0))
		return;
	if (err) {
		nak_fatal(rq, pkt->psn, ROCE_NAK_REMOTE_ACCESS,
			  ORCA_CQE_ST_LOC_ACCESS_ERR, ORCA_EQE_QP_ACCESS_ERR);
		return;
	}
	if (!queue_read(rq, pkt))
		return;		/* more than we granted: the retry will do */
	res = res_alloc(rq);
	res->valid = true;
	res->atomic = false;
	res->placed = false;
	res->psn = pkt->psn;
	res->npsn = pkt->reth_len ? (pkt->reth_len + mtu - 1) / mtu : 1;
	rq->epsn = (pkt->psn + res->npsn) & ROCE_PSN_MASK;
	rq->msn++;
	rq->ack_pending = false;	/* the responses acknowledge */
}

static void send_atomic_ack(struct roce_qp *rq, uint32_t psn, uint64_t orig)
{
	struct emu_qp *qp = rq->qp;
	struct roce_pkt pkt = { 0 };

	pkt.opcode = roce_wire_op(qp, ROCE_RC_ATOMIC_ACK);
	pkt.dest_qpn = le32toh(qp->attr.dest_qpn) & ROCE_QPN_MASK;
	pkt.psn = psn;
	pkt.aeth_syndrome = ROCE_AETH_ACK | ROCE_AETH_ACK_NO_CREDIT;
	pkt.aeth_msn = rq->msn & 0xffffff;
	pkt.atm_orig = orig;
	roce_send_pkt(rq, &qp->attr.av, &pkt, NULL, NULL);
}

static void resp_atomic(struct roce_qp *rq, const struct roce_pkt *pkt)
{
	struct emu_mr *mr;
	struct roce_res *res;
	struct roce_rjob *j;
	uint64_t *p, orig, mva;

	if (rq->job_tail - rq->job_head >= rq->njobs)
		return;		/* more than we granted: the retry will do */
	if (pkt->atm_va & 7) {
		nak_fatal(rq, pkt->psn, ROCE_NAK_INVALID_REQ,
			  ORCA_CQE_ST_LOC_QP_OP_ERR, ORCA_EQE_QP_REQ_ERR);
		return;
	}
	p = NULL;
	if (qp_allows(rq, ORCA_ACCESS_REMOTE_ATOMIC) &&
	    !roce_rkey_check(rq->dev->eng, rq->qp, rq->resp_pdn,
			     pkt->atm_rkey, pkt->atm_va, 8,
			     ORCA_ACCESS_REMOTE_ATOMIC, &mr, &mva)) {
		/* Writable before it executes: a retry executes it once. */
		if (roce_mr_probe(rq->dev->eng, mr, mva, 8, true, 8) ==
		    ROCE_ST_ODP_MISS) {
			if (resp_fault(rq, pkt, ORCA_PF_RESP_ATOMIC, 0))
				return;
		} else {
			p = roce_mr_u64(rq->dev->eng, mr, mva);
		}
	}
	if (!p) {
		nak_fatal(rq, pkt->psn, ROCE_NAK_REMOTE_ACCESS,
			  ORCA_CQE_ST_LOC_ACCESS_ERR, ORCA_EQE_QP_ACCESS_ERR);
		return;
	}
	/* Atomic with respect to other adapters' and the CPU's atomics. */
	if ((pkt->opcode & ROCE_OP_MASK) == ROCE_RC_CMP_SWAP) {
		uint64_t expect = htole64(pkt->atm_cmp);

		__atomic_compare_exchange_n(p, &expect, htole64(pkt->atm_swap),
					    false, __ATOMIC_SEQ_CST,
					    __ATOMIC_SEQ_CST);
		orig = le64toh(expect);
	} else {
		uint64_t old = __atomic_load_n(p, __ATOMIC_SEQ_CST);

		while (!__atomic_compare_exchange_n(
				p, &old, htole64(le64toh(old) + pkt->atm_swap),
				false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
			;
		orig = le64toh(old);
	}
	res = res_alloc(rq);
	res->valid = true;
	res->atomic = true;
	res->placed = false;
	res->psn = pkt->psn;
	res->npsn = 1;
	res->orig = orig;
	rq->epsn = (pkt->psn + 1) & ROCE_PSN_MASK;
	rq->msn++;
	rq->ack_pending = false;
	j = job_add(rq);
	j->atomic = true;
	j->psn = pkt->psn;
	j->orig = orig;
}

/* ---- FLUSH and ATOMIC WRITE (IBA 1.5) ---- */

/* An empty RDMA READ Response Only answers FLUSH and ATOMIC WRITE (rxe). */
static void queue_placed_ack(struct roce_qp *rq, uint32_t psn)
{
	struct roce_rjob *j = job_add(rq);

	if (!j)
		return;		/* full: the retry will do */
	j->psn = psn;
	j->left = 0;
	j->first = true;
	/* rxe answers at once: the MSN counts this request, no later one. */
	j->placed = true;
	j->msn = rq->msn;
}

/* FLUSH or ATOMIC WRITE @pkt executed: a resource for its duplicates. */
static void placed(struct roce_qp *rq, const struct roce_pkt *pkt)
{
	struct roce_res *res = res_alloc(rq);

	res->valid = true;
	res->atomic = false;
	res->placed = true;
	res->psn = pkt->psn;
	res->npsn = 1;
	rq->epsn = (pkt->psn + 1) & ROCE_PSN_MASK;
	rq->msn++;
	rq->ack_pending = false;	/* the response acknowledges */
	queue_placed_ack(rq, pkt->psn);
}

static bool jobs_full(const struct roce_qp *rq)
{
	return rq->job_tail - rq->job_head >= rq->njobs;
}

static void nak_access(struct roce_qp *rq, uint32_t psn)
{
	nak_fatal(rq, psn, ROCE_NAK_REMOTE_ACCESS, ORCA_CQE_ST_LOC_ACCESS_ERR,
		  ORCA_EQE_QP_ACCESS_ERR);
}

static void nak_invalid(struct roce_qp *rq, uint32_t psn)
{
	nak_fatal(rq, psn, ROCE_NAK_INVALID_REQ, ORCA_CQE_ST_REM_INV_REQ_ERR,
		  ORCA_EQE_QP_REQ_ERR);
}

/*
 * FLUSH: each placement type bit needs its right on the QP and on the MR;
 * level RANGE checks [va, va + len) against the MR, level MR the key only
 * (rxe).  The adapter writes guest memory as requests execute, so what
 * earlier requests placed is placed: a full barrier makes it visible
 * before the answer leaves.  Persistence is the memory's: an MR granted
 * FLUSH_PERSISTENT is what the host chose to call persistent.
 */
static void resp_flush(struct roce_qp *rq, const struct roce_pkt *pkt)
{
	uint32_t need = 0;
	struct emu_mr *mr;
	int err;

	if (jobs_full(rq))
		return;		/* more than we granted: the retry will do */
	if (pkt->feth_sel > ORCA_FLUSH_LEVEL_MR) {
		nak_invalid(rq, pkt->psn);	/* a reserved level */
		return;
	}
	if (pkt->feth_plt & ORCA_FLUSH_GLOBAL)
		need |= ORCA_ACCESS_FLUSH_GLOBAL;
	if (pkt->feth_plt & ORCA_FLUSH_PERSISTENT)
		need |= ORCA_ACCESS_FLUSH_PERSISTENT;
	if (!qp_allows(rq, need)) {
		nak_access(rq, pkt->psn);
		return;
	}
	if (pkt->feth_sel == ORCA_FLUSH_LEVEL_MR)
		err = roce_mr_check_key(rq->dev->eng, pkt->reth_rkey,
					rq->resp_pdn, need, &mr);
	else
		err = roce_mr_check(rq->dev->eng, pkt->reth_rkey, rq->resp_pdn,
				    pkt->reth_va, pkt->reth_len, need, NULL);
	if (err) {
		nak_access(rq, pkt->psn);
		return;
	}
	atomic_thread_fence(memory_order_seq_cst);
	rq->dev->st.flushes++;
	if (pkt->rxe_flush_icrc)
		rq->dev->st.flush_icrc_rxe++;
	placed(rq, pkt);
}

/*
 * ATOMIC WRITE: the QP's and the MR's remote write right over 8 bytes,
 * then exactly 8 bytes of payload and RETH length at an 8-byte aligned
 * address (IBA oA19-28; rxe: invalid request otherwise), stored at once:
 * the device's other atomics see the old or the new 8 bytes.
 */
static void resp_atomic_write(struct roce_qp *rq, const struct roce_pkt *pkt)
{
	struct emu_mr *mr;
	uint64_t *p, v;

	if (jobs_full(rq))
		return;		/* more than we granted: the retry will do */
	if (!qp_allows(rq, ORCA_ACCESS_REMOTE_WRITE) ||
	    roce_mr_check(rq->dev->eng, pkt->reth_rkey, rq->resp_pdn,
			  pkt->reth_va, pkt->reth_len,
			  ORCA_ACCESS_REMOTE_WRITE, &mr)) {
		nak_access(rq, pkt->psn);
		return;
	}
	if (pkt->reth_len != 8 || pkt->paylen != 8 || pkt->pad ||
	    (pkt->reth_va & 7)) {
		nak_invalid(rq, pkt->psn);
		return;
	}
	if (roce_mr_probe(rq->dev->eng, mr, pkt->reth_va, 8, true, 8) ==
	    ROCE_ST_ODP_MISS) {
		if (!resp_fault(rq, pkt, ORCA_PF_RESP_ATOMIC, 0))
			nak_access(rq, pkt->psn);
		return;
	}
	p = roce_mr_u64(rq->dev->eng, mr, pkt->reth_va);
	if (!p) {
		nak_access(rq, pkt->psn);
		return;
	}
	memcpy(&v, pkt->payload, 8);	/* the bytes as sent, in order */
	__atomic_store_n(p, v, __ATOMIC_SEQ_CST);
	rq->dev->st.atomic_writes++;
	placed(rq, pkt);
}

/* ---- duplicates ---- */

static struct roce_res *res_find(struct roce_qp *rq, uint32_t psn)
{
	for (uint32_t i = 0; i < rq->nres; i++) {
		struct roce_res *r = &rq->res[i];
		int32_t d = roce_psn_diff(psn, r->psn);

		if (r->valid && d >= 0 && d < (int32_t)r->npsn)
			return r;
	}
	return NULL;
}

/* A queued READ job of resource @res restarts as duplicate @pkt asks. */
static bool restart_read(struct roce_qp *rq, const struct roce_res *res,
			 const struct roce_pkt *pkt)
{
	for (uint32_t i = rq->job_head; i != rq->job_tail; i++) {
		struct roce_rjob *j = &rq->jobs[i & (rq->njobs - 1)];
		int32_t d = roce_psn_diff(j->psn, res->psn);

		if (j->atomic || d < 0 || d >= (int32_t)res->npsn)
			continue;
		j->psn = pkt->psn;
		j->va = pkt->reth_va;
		j->rkey = pkt->reth_rkey;
		j->pdn = rq->resp_pdn;
		j->left = pkt->reth_len;
		j->first = true;
		return true;
	}
	return false;
}

static void resp_duplicate(struct roce_qp *rq, const struct roce_pkt *pkt,
			   uint32_t flags)
{
	struct roce_res *res;
	struct emu_mr *mr;
	uint64_t mva;
	int err;

	rq->dev->st.dup_requests++;
	if (flags & (ROCE_K_FLUSH | ROCE_K_ATOMIC_WRITE)) {
		/* Executed once: answered again, not executed again. */
		res = res_find(rq, pkt->psn);
		if (res && res->placed)
			queue_placed_ack(rq, pkt->psn);
		return;
	}
	if (flags & (ROCE_K_READ | ROCE_K_ATOMIC)) {
		res = res_find(rq, pkt->psn);
		if (!res || res->placed ||
		    res->atomic != !!(flags & ROCE_K_ATOMIC))
			return;		/* too old to replay: drop */
		/*
		 * Responses already queued stay queued (as rxe finishes a
		 * READ before the next request): the requester may ask again
		 * for one READ only, and flushing the others would lose
		 * them.  A READ being sent restarts where it is asked to.
		 */
		if (res->atomic) {
			struct roce_rjob *j = job_add(rq);

			if (!j)
				return; /* full: the retry will do */
			j->atomic = true;
			j->psn = pkt->psn;
			j->orig = res->orig;
			return;
		}
		/* A retried READ asks for the rest from its PSN on. */
		if (!qp_allows(rq, ORCA_ACCESS_REMOTE_READ) ||
		    (pkt->reth_len &&
		     roce_rkey_check(rq->dev->eng, rq->qp, rq->resp_pdn,
				     pkt->reth_rkey, pkt->reth_va,
				     pkt->reth_len, ORCA_ACCESS_REMOTE_READ,
				     &mr, &mva)))
			return;
		/*
		 * On-demand pages the responses lost meanwhile (invalidated
		 * after the first try): a fault, and the retry RNR-NAKed.
		 */
		err = pkt->reth_len ?
		      roce_mr_probe(rq->dev->eng, mr, mva, pkt->reth_len,
				    false, roce_qp_mtu(rq->dev->eng, rq->qp)) :
		      0;
		if (err == ROCE_ST_ODP_MISS &&
		    resp_fault(rq, pkt, ORCA_PF_RESP_READ, 0))
			return;
		if (err)
			return;
		if (!restart_read(rq, res, pkt))
			queue_read(rq, pkt);
		return;
	}
	/* SEND/WRITE already executed: acknowledge what we have. */
	want_ack(rq, rq->epsn - 1);
}

/* ---- dispatch ---- */

void roce_resp_rx(struct roce_qp *rq, const struct roce_pkt *pkt)
{
	uint32_t flags = roce_opinfo(pkt->opcode)->flags;
	uint32_t mtu = roce_qp_mtu(rq->dev->eng, rq->qp);
	int32_t d = roce_psn_diff(pkt->psn, rq->epsn);
	bool mid_send = rq->rcv_active && !rq->wr_active;
	bool xrc = rq->qp->type == ORCA_QPT_XRC_TGT;

	rq->resp_pdn = rq->qp->pdn;
	if (d < 0) {
		/*
		 * An XRC duplicate is answered or replayed in the PD of the
		 * SRQ it names; one naming no SRQ of ours now is dropped: a
		 * NAK for a PSN long acknowledged would reach nothing.
		 */
		if (xrc) {
			struct emu_srq *srq = roce_xrc_srq(rq, pkt);

			if (!srq) {
				rq->dev->st.drop_bad_pkt++;
				return;
			}
			rq->resp_pdn = srq->pdn;
		}
		resp_duplicate(rq, pkt, flags);
		return;
	}
	if (d > 0) {
		/* Something was lost: say once where to resume. */
		if (!rq->nak_seq_sent) {
			rq->nak_seq_sent = true;
			rq->dev->st.seq_naks_tx++;
			want_aeth(rq, rq->epsn,
				  ROCE_AETH_NAK | ROCE_NAK_PSN_SEQ);
		}
		return;
	}
	rq->nak_seq_sent = false;

	/*
	 * Opcode sequence (IBA 9.8.3.1), packet length rules, and messages
	 * no longer than 2^31 bytes (IBA's limit; the PSN space is 2^24).
	 */
	if ((mid_send && !((flags & ROCE_K_SEND) && !(flags & ROCE_K_FIRST))) ||
	    ((flags & ROCE_H_RETH) && pkt->reth_len > (1u << 31)) ||
	    (rq->wr_active &&
	     !((flags & ROCE_K_WRITE) && !(flags & ROCE_K_FIRST))) ||
	    (!mid_send && !rq->wr_active && !(flags & ROCE_K_FIRST)) ||
	    pkt->paylen > mtu ||
	    (!(flags & ROCE_K_LAST) && pkt->paylen != mtu) ||
	    (xrc && !roce_xrc_take(rq, pkt, flags))) {
		nak_fatal(rq, pkt->psn, ROCE_NAK_INVALID_REQ,
			  ORCA_CQE_ST_REM_INV_REQ_ERR, ORCA_EQE_QP_REQ_ERR);
		return;
	}
	if (flags & ROCE_K_SEND)
		resp_send(rq, pkt, flags);
	else if (flags & ROCE_K_WRITE)
		resp_write(rq, pkt, flags);
	else if (flags & ROCE_K_READ)
		resp_read(rq, pkt);
	else if (flags & ROCE_K_ATOMIC)
		resp_atomic(rq, pkt);
	else if (flags & ROCE_K_FLUSH)
		resp_flush(rq, pkt);
	else if (flags & ROCE_K_ATOMIC_WRITE)
		resp_atomic_write(rq, pkt);
}

/*
 * UC, as rxe_resp.c speaks it: packets in PSN order, never an ACK or a
 * NAK.  A PSN gap drops the packet and every one after it until a FIRST or
 * ONLY, which starts again from its own PSN and gives up the message the
 * gap cut; so does a packet out of sequence or too long, and a message the
 * responder cannot take (no receive WQE, no rights, a bad rkey, too long
 * for the receive WQE).  Only a broken receive WQE or an unreachable queue
 * moves the QP to ERR.
 */
void roce_resp_uc_rx(struct roce_qp *rq, const struct roce_pkt *pkt)
{
	uint32_t flags = roce_opinfo(pkt->opcode)->flags;
	uint32_t mtu = roce_qp_mtu(rq->dev->eng, rq->qp);
	bool mid_send, first = flags & ROCE_K_FIRST;

	rq->resp_pdn = rq->qp->pdn;

	if (rq->uc_drop || pkt->psn != rq->epsn) {
		if (!first) {
			if (!rq->uc_drop)	/* the gap cuts this message */
				uc_abort(rq);
			rq->uc_drop = true;
			rq->dev->st.drop_uc++;
			return;
		}
		rq->uc_drop = false;
		rq->epsn = pkt->psn;
	}
	mid_send = rq->rcv_active && !rq->wr_active;
	if (first && (mid_send || rq->wr_active)) {
		/* A new message: the one in progress lost its end. */
		uc_abort(rq);
		mid_send = false;
	}
	if ((mid_send && !(flags & ROCE_K_SEND)) ||
	    (rq->wr_active && !(flags & ROCE_K_WRITE)) ||
	    (!mid_send && !rq->wr_active && !first) ||
	    ((flags & ROCE_H_RETH) && pkt->reth_len > (1u << 31)) ||
	    pkt->paylen > mtu ||
	    (!(flags & ROCE_K_LAST) && pkt->paylen != mtu)) {
		uc_drop(rq);
		return;
	}
	if (flags & ROCE_K_SEND)
		resp_send(rq, pkt, flags);
	else
		resp_write(rq, pkt, flags);
}

/* UD and GSI: Q_Key, a receive WQE or drop, the GRH area, one CQE. */
void roce_resp_ud_rx(struct roce_qp *rq, const struct roce_pkt *pkt)
{
	struct orca_engine *eng = rq->dev->eng;
	struct emu_qp *qp = rq->qp;
	uint32_t qkey = qp->type == ORCA_QPT_GSI ? ROCE_GSI_QKEY :
						   le32toh(qp->attr.qkey);
	struct orca_cqe cqe = { .opcode = ORCA_CQE_RECV };
	uint8_t grh[40] = { 0 };
	struct roce_rwqe r;
	int err;

	if (pkt->deth_qkey != qkey) {
		rq->dev->st.drop_qkey++;
		return;
	}
	err = take_rwqe(rq, &r);
	if (err == -EAGAIN || err == -EIO) {
		rq->dev->st.drop_no_rwqe++;
		return;
	}
	if (err) {
		recv_fail(rq, &r, ORCA_CQE_ST_LOC_QP_OP_ERR);
		return;
	}
	if (40 + (uint64_t)pkt->paylen > roce_sgl_len(r.sge, r.num_sge)) {
		recv_fail(rq, &r, ORCA_CQE_ST_LOC_LEN_ERR);
		return;
	}
	if (pkt->ipv6)
		memcpy(grh, pkt->l3, 40);
	else
		memcpy(grh + 20, pkt->l3, 20);
	err = roce_sgl_copy(eng, qp->pdn, r.sge, r.num_sge, 0, grh, 40, true);
	if (!err && pkt->paylen)
		err = roce_sgl_copy(eng, qp->pdn, r.sge, r.num_sge, 40,
				    (void *)pkt->payload, pkt->paylen, true);
	err = roce_odp_no_fault(err);
	if (err) {
		recv_fail(rq, &r, (uint8_t)err);
		return;
	}
	cqe.byte_len = htole32(40 + pkt->paylen);
	cqe.src_qpn = htole32(pkt->deth_sqpn);
	cqe.flags = ORCA_CQE_F_GRH | (pkt->ipv6 ? ORCA_CQE_F_IPV6 : 0);
	if (pkt->opcode == ROCE_UD_SEND_ONLY_IMM) {
		cqe.flags |= ORCA_CQE_F_IMM;
		cqe.imm_or_inv = htole32(__builtin_bswap32(pkt->imm));
	}
	recv_complete(rq, &r, &cqe, pkt->solicited);
}

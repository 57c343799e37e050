// SPDX-License-Identifier: GPL-2.0
/*
 * The completer: what comes back from the responder (ACK, NAK, RNR NAK,
 * RDMA READ responses, atomic ACKs) retires send WQEs in order and writes
 * their CQEs; sequence errors and timeouts rewind the requester (go-back-N,
 * retry_cnt), RNR NAKs pause it (rnr_retry, 7 = forever); fatal NAKs
 * complete the WQE in error and move the QP to ERR, whose remaining WQEs
 * are then flushed.  An XRC initiator (1.6) takes the XRC responses the
 * same way (their opcodes are RC's | ROCE_XRC_BASE).
 */
#include <stdatomic.h>
#include <string.h>

#include "roce_priv.h"

/* IBA table 45: RNR NAK timer field -> microseconds. */
static const uint32_t rnr_us[32] = {
	655360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960,
	1280, 1920, 2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720,
	40960, 61440, 81920, 122880, 163840, 245760, 327680, 491520,
};

static uint8_t cqe_opcode(uint8_t wqe_op)
{
	switch (wqe_op) {
	case ORCA_WQE_RDMA_WRITE:
	case ORCA_WQE_RDMA_WRITE_IMM:
		return ORCA_CQE_RDMA_WRITE;
	case ORCA_WQE_RDMA_READ:
		return ORCA_CQE_RDMA_READ;
	case ORCA_WQE_ATOMIC_CS:
		return ORCA_CQE_COMP_SWAP;
	case ORCA_WQE_ATOMIC_FA:
		return ORCA_CQE_FETCH_ADD;
	case ORCA_WQE_LOCAL_INV:
		return ORCA_CQE_LOCAL_INV;
	case ORCA_WQE_REG_MR:
		return ORCA_CQE_REG_MR;
	case ORCA_WQE_BIND_MW:
		return ORCA_CQE_BIND_MW;
	case ORCA_WQE_FLUSH:
		return ORCA_CQE_FLUSH;
	case ORCA_WQE_ATOMIC_WRITE:
		return ORCA_CQE_ATOMIC_WRITE;
	default:
		return ORCA_CQE_SEND;
	}
}

/* Completes the WQE at the head of the SQ (it must be @w). */
void roce_comp_swqe(struct roce_qp *rq, struct roce_swqe *w, uint8_t status)
{
	struct emu_qp *qp = rq->qp;
	struct orca_cqe cqe = { 0 };

	if (w->started && is_rd_atomic(w->opcode) && rq->rd_atomic)
		rq->rd_atomic--;
	rq->sq_head++;
	if ((int32_t)(rq->sq_next - rq->sq_head) < 0) {
		/* A rewound transmit position passed by: restart there. */
		rq->sq_next = rq->sq_head;
		rq->next_off = 0;
	}
	if ((int32_t)(rq->sq_started - rq->sq_head) < 0)
		rq->sq_started = rq->sq_head;
	qp->sq_ci = rq->sq_head;
	if (status == ORCA_CQE_ST_SUCCESS && !(w->flags & ORCA_WQE_F_SIGNALED) &&
	    !(qp->flags & ORCA_QP_F_SQ_SIG_ALL))
		return;
	cqe.wr_id_lo = htole32((uint32_t)w->wr_id);
	cqe.wr_id_hi = htole32((uint32_t)(w->wr_id >> 32));
	cqe.qpn = htole32(qp->qpn);
	cqe.opcode = cqe_opcode(w->opcode);
	cqe.status = status;
	cqe.wqe_idx = htole16((uint16_t)w->idx);
	/*
	 * The message length, as rxe reports it: bytes sent or written,
	 * bytes read (ibv_poll_cq(3)), 8 for an atomic; a REG_MR's length
	 * is the MR's, no message.
	 */
	if (status == ORCA_CQE_ST_SUCCESS && w->opcode != ORCA_WQE_REG_MR &&
	    w->opcode != ORCA_WQE_LOCAL_INV)
		cqe.byte_len = htole32(w->len);
	if (roce_cq_post(rq->dev->eng, qp->send_cqn, &cqe, false)) {
		roce_qp_to_err(rq, ORCA_EQE_QP_FATAL);
		return;
	}
	if (status == ORCA_CQE_ST_SUCCESS || status == ORCA_CQE_ST_WR_FLUSH_ERR)
		return;
	if (engine_qp_is_rc(qp))
		roce_qp_to_err(rq, 0);
	else if (qp->state == ORCA_QPS_RTS)
		engine_qp_enter_state(rq->dev->eng, qp, ORCA_QPS_SQE);
}

void roce_comp_retire(struct roce_qp *rq)
{
	while (rq->sq_head != rq->sq_started) {
		struct roce_swqe *w = swqe(rq, rq->sq_head);
		uint8_t st = rq->qp->state;

		if (!w->done || st == ORCA_QPS_ERR || st == ORCA_QPS_RESET)
			break;
		roce_comp_swqe(rq, w, w->status);
	}
	roce_qp_check_drained(rq);
}

/* Everything outstanding (and every WQE posted later) completes flushed. */
void roce_comp_flush_sq(struct roce_qp *rq)
{
	struct emu_qp *qp = rq->qp;
	uint32_t depth = 1u << qp->log_sq_depth;
	uint32_t stride = orca_send_wqe_stride(qp->max_send_sge);
	struct orca_qp_db_rec *rec;
	uint32_t pi, posted;

	rq->retry_deadline = rq->rnr_deadline = 0;
	rq->rd_atomic = 0;
	/* An XRC target has no send queue and no doorbell record. */
	if (!engine_qp_has_sq(qp))
		return;
	rec = engine_dma(rq->dev->eng, qp->db_rec, sizeof(*rec));
	if (!rec)
		return;
	pi = le32toh(atomic_load_explicit((_Atomic __le32 *)&rec->sq_pi,
					  memory_order_acquire));
again:
	if (pi - rq->sq_head > depth)
		return;		/* not an index the driver could have posted */
	while (rq->sq_head != pi) {
		struct roce_swqe *w = swqe(rq, rq->sq_head);

		if (rq->sq_head == rq->sq_fetched) {
			const struct orca_send_wqe_hdr *h;

			h = roce_queue_entry(rq->dev->eng, &qp->buf, 0,
					     qp->sq_npages, rq->sq_head,
					     qp->log_sq_depth, stride);
			memset(w, 0, sizeof(*w));
			w->idx = rq->sq_head;
			if (h) {
				w->opcode = h->opcode;
				w->wr_id = le32toh(h->wr_id_lo) |
					   (uint64_t)le32toh(h->wr_id_hi) << 32;
			}
			rq->sq_fetched++;
		}
		w->started = false;
		w->flags |= ORCA_WQE_F_SIGNALED;
		roce_comp_swqe(rq, w, ORCA_CQE_ST_WR_FLUSH_ERR);
	}
	rq->sq_next = rq->sq_started = rq->sq_fetched = rq->sq_head;
	/*
	 * Posts to a QP in ERR ring again (event index = what we flushed);
	 * one posted while we flushed is flushed now, not stranded.
	 */
	posted = roce_publish_event_idx(&rec->sq_event_idx, &rec->sq_pi, pi);
	if (posted != pi) {
		pi = posted;
		goto again;
	}
}

/* Progress: una moves forward, the retry budget and timer restart. */
static void progress(struct roce_qp *rq, uint32_t una)
{
	uint64_t now;

	if (roce_psn_diff(una, rq->una_psn) <= 0)
		return;
	now = now_us();
	roce_req_rtt_acked(rq, una, now);
	roce_req_acked(rq, (uint32_t)roce_psn_diff(una, rq->una_psn), now);
	/*
	 * The early timeout's doubling ends here as well: the peer answered,
	 * so what went unanswered was lost, not slow.  Kept until a round
	 * trip was measured, it grew with every early retry of a lossy
	 * wire (where go-back-N resends the timed PSN and so samples are
	 * rare) until the early timeout reached the QP's full ~1 s timeout.
	 */
	rq->rto_shift = 0;
	rq->una_psn = una & ROCE_PSN_MASK;
	rq->retried = false;
	rq->retry_left = rq->qp->attr.retry_cnt;
	rq->rnr_left = rq->qp->attr.rnr_retry;
	rq->retry_deadline = 0;
	roce_req_arm_timer(rq);
	rq->tlp_sent = false;
	roce_req_arm_probe(rq, now);
	rq->sq_kick = true;
}

/*
 * All PSNs up to and including @psn are acknowledged: SEND/WRITE WQEs they
 * cover are done.  A READ or atomic they cover without its response means
 * the response was lost (an implicit NAK): ask again from there.
 */
static void ack_through(struct roce_qp *rq, uint32_t psn)
{
	uint32_t una = psn + 1;

	if (roce_psn_diff(psn, rq->una_psn) < 0)
		return;			/* old news */
	for (uint32_t idx = rq->sq_head; idx != rq->sq_started; idx++) {
		struct roce_swqe *w = swqe(rq, idx);
		uint32_t last = w->first_psn + w->npsn - 1;

		if (w->done || !w->npsn)
			continue;
		if (roce_psn_diff(last, psn) > 0)
			break;
		if (is_rd_atomic(w->opcode)) {
			una = w->opcode == ORCA_WQE_RDMA_READ ? w->rd_next :
								 w->first_psn;
			roce_req_rewind(rq, una);
			break;
		}
		w->done = true;
	}
	progress(rq, una);
}

static struct roce_swqe *find_wqe(struct roce_qp *rq, uint32_t psn)
{
	for (uint32_t idx = rq->sq_head; idx != rq->sq_started; idx++) {
		struct roce_swqe *w = swqe(rq, idx);
		int32_t d = roce_psn_diff(psn, w->first_psn);

		if (w->npsn && d >= 0 && d < (int32_t)w->npsn)
			return w;
	}
	return NULL;
}

/* What an unanswered probe waits before go-back-N from una. */
static uint64_t probe_wait(const struct roce_qp *rq)
{
	uint64_t a = 2ull * rq->srtt_us, b = rq->srtt_us + 4ull * rq->rttvar_us;

	return (a > b ? a : b) + ROCE_TLP_MIN_US;
}

/*
 * The tail loss probe is due (roce_priv.h: ROCE_TLP_MIN_US): the last
 * packet sent goes again, unless it is a READ's or an atomic's.
 */
static void tail_probe(struct roce_qp *rq, uint64_t now)
{
	struct roce_swqe *w;
	uint32_t last;

	if (rq->tlp_sent || !roce_req_outstanding(rq))
		return;
	last = (rq->max_sent_psn - 1) & ROCE_PSN_MASK;
	w = find_wqe(rq, last);
	/* A duplicate READ or atomic request redoes its response. */
	if (!w || w->done || is_rd_atomic(w->opcode))
		return;
	rq->tlp_sent = true;
	rq->dev->st.tail_probes++;
	roce_req_rewind(rq, last);
	/*
	 * Unanswered, the probe met a silent responder: one that NAKed a gap
	 * (the NAK lost) drops all but the PSN it waits for.  Go back to una
	 * then, after the round trip and its variance, not the early
	 * timeout's 1 ms margin.
	 */
	rq->tlp_deadline = now + probe_wait(rq);
}

/* A NAK or response says PSN @psn failed: the WQE holding it fails. */
void roce_comp_fail_at(struct roce_qp *rq, uint32_t psn, uint8_t status)
{
	struct roce_swqe *w;

	ack_through(rq, psn - 1);
	w = find_wqe(rq, psn);
	if (!w) {
		rq->dev->st.drop_ghost++;
		return;
	}
	w->status = status;
	w->done = true;
	/* Later WQEs never get their turn: the QP goes to ERR first. */
	for (uint32_t idx = rq->sq_head; idx != rq->sq_started; idx++) {
		struct roce_swqe *x = swqe(rq, idx);

		if (x == w)
			break;
		if (!x->done) {
			/* an earlier READ/atomic still waits: fail here */
			x->status = ORCA_CQE_ST_WR_FLUSH_ERR;
			x->done = true;
		}
	}
	roce_comp_retire(rq);
}

/*
 * Goes back to @psn.  Only the first NAK or READ response gap after
 * progress, and every expiry of the QP's timeout, spends a retry (as rxe
 * does): under loss plus reordering several NAKs and gaps can follow one
 * another without a lost cause, and must not exhaust retry_cnt while the
 * timer, not re-armed by them, still bounds a stall.
 */
static void retry_from(struct roce_qp *rq, uint32_t psn, bool timer)
{
	struct roce_swqe *w;

	roce_req_loss(rq);
	/* The peer said where it stands: a probe in flight is moot. */
	rq->tlp_sent = false;
	rq->tlp_deadline = 0;
	if (!timer && rq->retried) {
		roce_req_rewind(rq, psn);
		return;
	}
	rq->retried = true;
	if (!rq->retry_left) {
		w = find_wqe(rq, psn);
		if (!w)
			w = find_wqe(rq, rq->una_psn);
		if (w)
			roce_comp_fail_at(rq, w->first_psn, ORCA_CQE_ST_RETRY_EXC_ERR);
		return;
	}
	rq->retry_left--;
	roce_req_rewind(rq, psn);
	roce_req_arm_timer(rq);
}

/*
 * READ @w's responses have a gap: request the rest of it again, counting
 * a retry as retry_from() does, but without resending the requests after
 * it (a 128-packet WRITE behind a READ would be sent again per loss).
 */
static void retry_read(struct roce_qp *rq, struct roce_swqe *w)
{
	roce_req_loss(rq);
	if (!rq->retried) {
		if (!rq->retry_left) {
			retry_from(rq, w->rd_next, false);
			return;
		}
		rq->retried = true;
		rq->retry_left--;
		roce_req_arm_timer(rq);
	}
	if (!roce_req_reread(rq, w))
		roce_req_rewind(rq, w->rd_next);
}

static void on_aeth(struct roce_qp *rq, const struct roce_pkt *pkt)
{
	uint8_t syn = pkt->aeth_syndrome;
	uint32_t psn = pkt->psn;

	switch (syn & ROCE_AETH_TYPE_MASK) {
	case ROCE_AETH_ACK:
		ack_through(rq, psn);
		return;
	case ROCE_AETH_RNR_NAK:
		rq->dev->st.rnr_naks_rx++;
		ack_through(rq, psn - 1);
		if (!rq->rnr_left) {
			roce_comp_fail_at(rq, psn, ORCA_CQE_ST_RNR_RETRY_EXC_ERR);
			return;
		}
		if (rq->rnr_left != 7)
			rq->rnr_left--;
		roce_req_rewind(rq, psn);
		/* Flow control, not loss: counted apart (rnr_resends). */
		rq->rnr_resend = true;
		rq->retry_deadline = 0;
		rq->rnr_deadline = now_us() + rnr_us[syn & 0x1f];
		return;
	case ROCE_AETH_NAK:
		break;
	default:
		return;			/* reserved */
	}
	switch (syn & 0x1f) {
	case ROCE_NAK_PSN_SEQ:
		rq->dev->st.seq_naks_rx++;
		if (roce_psn_diff(psn, rq->una_psn) < 0) {
			/* overtaken by a later ACK: nothing to repeat */
			rq->dev->st.drop_ghost++;
			return;
		}
		ack_through(rq, psn - 1);
		retry_from(rq, psn, false);
		return;
	case ROCE_NAK_INVALID_REQ:
		rq->dev->st.err_naks_rx++;
		roce_comp_fail_at(rq, psn, ORCA_CQE_ST_REM_INV_REQ_ERR);
		return;
	case ROCE_NAK_REMOTE_ACCESS:
		rq->dev->st.err_naks_rx++;
		roce_comp_fail_at(rq, psn, ORCA_CQE_ST_REM_ACCESS_ERR);
		return;
	case ROCE_NAK_REMOTE_OP:
		rq->dev->st.err_naks_rx++;
		roce_comp_fail_at(rq, psn, ORCA_CQE_ST_REM_OP_ERR);
		return;
	}
}

/*
 * FLUSH and ATOMIC WRITE @w are answered, as rxe answers them, by an RDMA
 * READ Response Only with an ACK and no payload; anything else for them
 * is a bad response.
 */
static void flush_or_atomic_write_response(struct roce_qp *rq,
					   struct roce_swqe *w,
					   const struct roce_pkt *pkt)
{
	ack_through(rq, pkt->psn - 1);
	if (roce_psn_diff(rq->una_psn, pkt->psn) < 0)
		return;	/* an earlier READ is incomplete: asked again */
	if ((pkt->opcode & ROCE_OP_MASK) != ROCE_RC_READ_RESP_ONLY ||
	    pkt->paylen ||
	    (pkt->aeth_syndrome & ROCE_AETH_TYPE_MASK) != ROCE_AETH_ACK) {
		roce_comp_fail_at(rq, pkt->psn, ORCA_CQE_ST_BAD_RESP_ERR);
		return;
	}
	w->done = true;
	progress(rq, pkt->psn + 1);
}

/*
 * On-demand paging: the response to @w at @psn found no translation where
 * it goes.  It is dropped (true) and asked for again once the fault is
 * resolved; a QP already stopped on a fault of its own drops it and asks
 * again when its timer runs out after that one.  False: the WQE fails.
 */
static bool resp_fault(struct roce_qp *rq, struct roce_swqe *w, uint32_t psn)
{
	if (rq->odp_req)
		return true;
	if (!roce_odp_stop_req(rq, ORCA_PF_REQ_RESP, w->idx))
		return false;
	rq->odp_req_psn = psn;
	return true;
}

static void read_response(struct roce_qp *rq, const struct roce_pkt *pkt)
{
	uint32_t mtu = roce_qp_mtu(rq->dev->eng, rq->qp);
	const struct roce_opinfo *op = roce_opinfo(pkt->opcode);
	struct roce_swqe *w = find_wqe(rq, pkt->psn);
	struct orca_sge sge[ORCA_MAX_SGE];
	uint32_t i, off, want;
	bool last;
	int st;

	if (w && !w->done && is_flush_or_atomic_write(w->opcode)) {
		flush_or_atomic_write_response(rq, w, pkt);
		return;
	}
	if (!w || w->opcode != ORCA_WQE_RDMA_READ || w->done) {
		rq->dev->st.drop_ghost++;
		return;
	}
	/* Waiting for a page fault: the rest of the burst goes too. */
	if (rq->odp_req == ORCA_PF_REQ_RESP)
		return;
	if (pkt->psn != w->rd_next) {
		/*
		 * Responses missing before this one: ask again, once per gap
		 * (the rest of the burst is still on its way).
		 */
		if (roce_psn_diff(pkt->psn, w->rd_next) > 0 &&
		    (!rq->rd_gap_asked || rq->rd_gap_psn != w->rd_next)) {
			rq->rd_gap_asked = true;
			rq->rd_gap_psn = w->rd_next;
			retry_read(rq, w);
		}
		return;
	}
	rq->rd_gap_asked = false;
	ack_through(rq, w->first_psn - 1);	/* implied by the response */
	if (roce_psn_diff(rq->una_psn, w->first_psn) < 0)
		return;	/* an earlier READ is incomplete: asked again */
	i = (pkt->psn - w->first_psn) & ROCE_PSN_MASK;
	off = i * mtu;
	last = i + 1 == w->npsn;
	want = last ? w->len - off : mtu;
	/* A READ asked again restarts with FIRST: only the end must agree. */
	if (!!(op->flags & ROCE_K_LAST) != last || pkt->paylen != want) {
		roce_comp_fail_at(rq, pkt->psn, ORCA_CQE_ST_BAD_RESP_ERR);
		return;
	}
	if (want) {
		if (!roce_req_sges(rq, w, sge))
			st = ORCA_CQE_ST_LOC_PROT_ERR;
		else
			st = roce_sgl_copy(rq->dev->eng, rq->qp->pdn, sge,
					   w->num_sge, off,
					   (void *)pkt->payload, want, true);
		/* Dropped, and asked for again once the page is there. */
		if (st == ROCE_ST_ODP_MISS && resp_fault(rq, w, pkt->psn))
			return;
		if (st == ROCE_ST_ODP_MISS)
			st = ORCA_CQE_ST_LOC_PROT_ERR;
		if (st) {
			roce_comp_fail_at(rq, pkt->psn, (uint8_t)st);
			return;
		}
	}
	w->rd_next = (w->rd_next + 1) & ROCE_PSN_MASK;	/* PSNs wrap */
	if (last)
		w->done = true;
	progress(rq, pkt->psn + 1);
}

static void atomic_ack(struct roce_qp *rq, const struct roce_pkt *pkt)
{
	struct roce_swqe *w = find_wqe(rq, pkt->psn);
	struct orca_sge sge[ORCA_MAX_SGE];
	uint64_t orig = htole64(pkt->atm_orig);
	int st;

	if (!w || w->done || (w->opcode != ORCA_WQE_ATOMIC_CS &&
			      w->opcode != ORCA_WQE_ATOMIC_FA)) {
		rq->dev->st.drop_ghost++;
		return;
	}
	if (rq->odp_req == ORCA_PF_REQ_RESP)
		return;		/* waiting for a page fault */
	ack_through(rq, pkt->psn - 1);
	if (roce_psn_diff(rq->una_psn, pkt->psn) < 0)
		return;	/* an earlier READ is incomplete: asked again */
	if (!roce_req_sges(rq, w, sge))
		st = ORCA_CQE_ST_LOC_PROT_ERR;
	else
		st = roce_sgl_copy(rq->dev->eng, rq->qp->pdn, sge, w->num_sge,
				   0, &orig, 8, true);
	/* The responder replays the atomic's result when asked again. */
	if (st == ROCE_ST_ODP_MISS && resp_fault(rq, w, pkt->psn))
		return;
	if (st == ROCE_ST_ODP_MISS)
		st = ORCA_CQE_ST_LOC_PROT_ERR;
	if (st) {
		roce_comp_fail_at(rq, pkt->psn, (uint8_t)st);
		return;
	}
	w->done = true;
	progress(rq, pkt->psn + 1);
}

void roce_comp_rx(struct roce_qp *rq, const struct roce_pkt *pkt)
{
	const struct roce_opinfo *op = roce_opinfo(pkt->opcode);

	/* Nothing we sent has this PSN: a stale or forged response. */
	if (roce_psn_diff(pkt->psn, rq->max_sent_psn) >= 0 ||
	    roce_psn_diff(pkt->psn, rq->una_psn) < -(int32_t)(1 << 22)) {
		rq->dev->st.drop_ghost++;
		return;
	}
	if (op->flags & ROCE_K_READ) {
		/* The AETH of FIRST/LAST/ONLY is always a plain ACK. */
		read_response(rq, pkt);
	} else if (op->flags & ROCE_K_ATOMIC) {
		atomic_ack(rq, pkt);
	} else {
		on_aeth(rq, pkt);
	}
	roce_comp_retire(rq);
}

void roce_comp_timers(struct roce_qp *rq, uint64_t now)
{
	roce_dcqcn_timer(rq, now);
	if (rq->tlp_deadline && now >= rq->tlp_deadline) {
		rq->tlp_deadline = 0;
		if (!rq->tlp_sent) {
			tail_probe(rq, now);
		} else if (roce_req_outstanding(rq) &&
			 roce_req_early_retry(rq, now)) {
			/* The probe went unanswered (roce_priv.h). */
			rq->dev->st.fast_retries++;
			rq->dev->st.probe_retries++;
		}
	}
	if (rq->rnr_deadline && now >= rq->rnr_deadline) {
		rq->rnr_deadline = 0;
		rq->sq_kick = true;
		roce_req_arm_timer(rq);
	}
	if (rq->retry_deadline && now >= rq->retry_deadline) {
		rq->retry_deadline = 0;
		if (!roce_req_outstanding(rq))
			return;
		/* Its own page fault holds it up, not the peer: no retry. */
		if (rq->odp_req) {
			roce_req_arm_timer(rq);
			return;
		}
		if (roce_req_early_retry(rq, now)) {
			rq->dev->st.fast_retries++;
			return;
		}
		rq->dev->st.timeouts++;
		retry_from(rq, rq->una_psn, true);
	}
}

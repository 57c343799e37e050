// SPDX-License-Identifier: GPL-2.0
/*
 * The requester: reads send WQEs from the send queue (producer index from
 * the doorbell record, event index published when the queue goes idle),
 * turns them into RoCEv2 request packets segmented by the path MTU with
 * consecutive PSNs, and executes the local work requests (REG_MR,
 * LOCAL_INV, BIND_MW).  UC sends the same SEND and WRITE packets, completed
 * as their last packet leaves: no ACKs, no retransmission.  An XRC
 * initiator (1.6) is an RC requester whose packets carry the XRC opcodes
 * and the XRCETH, naming the SRQ each WQE's dest_qpn names.  RC's
 * retransmission is go-back-N: the completer moves the
 * transmit position back with roce_req_rewind() and this code sends again
 * from there, with the PSNs the WQEs were given the first time.
 */
#include <stdatomic.h>
#include <string.h>

#include "roce_priv.h"

static uint64_t timeout_us(const struct emu_qp *qp)
{
	uint8_t t = qp->attr.timeout;

	if (!t)
		return 0;		/* infinite */
	if (t > 31)
		t = 31;
	return ((4096ull << t) + 999) / 1000;
}

/*
 * The early retransmission timeout (roce_priv.h), doubled per early retry until
 * the QP makes progress (roce_comp.c) or a round trip is measured.  A peer
 * slower than the timeout on a lossy wire then sees some requests twice
 * (harmless to any IBA responder); waiting for a measured round trip
 * instead, which go-back-N's resends of the timed PSN make rare under
 * loss, let the doubling reach the QP's full timeout.
 */
uint64_t roce_req_early_rto(const struct roce_qp *rq)
{
	uint64_t var = 4ull * rq->rttvar_us;

	if (var < ROCE_RTO_NOISE_US)
		var = ROCE_RTO_NOISE_US;
	return ((uint64_t)rq->srtt_us + var) << rq->rto_shift;
}

bool roce_wire_lossy(const struct roce_dev *dev, uint64_t now)
{
	return dev->loss_us && now - dev->loss_us < ROCE_LOSSY_US;
}

void roce_req_window_init(struct roce_qp *rq)
{
	rq->cwnd = ROCE_MAX_INFLIGHT;
	rq->cwnd_acked = 0;
	rq->recover_psn = rq->snd_psn;
}

/*
 * Halves the send window, once per window: the losses of packets that
 * were in flight when it was last cut are the same loss event (go-back-N
 * has not resent them yet, or a burst took several).
 */
static void cut_window(struct roce_qp *rq)
{
	if (roce_psn_diff(rq->una_psn, rq->recover_psn) < 0)
		return;
	rq->cwnd = rq->cwnd / 2 > ROCE_CWND_MIN ? rq->cwnd / 2 : ROCE_CWND_MIN;
	rq->cwnd_acked = 0;
	rq->recover_psn = rq->max_sent_psn;
	rq->dev->st.cwnd_cuts++;
}

void roce_req_loss(struct roce_qp *rq)
{
	rq->dev->loss_us = now_us();
	rq->dev->st.losses++;
	cut_window(rq);
}

void roce_req_acked(struct roce_qp *rq, uint32_t n, uint64_t now)
{
	if (rq->cwnd >= ROCE_MAX_INFLIGHT)
		return;
	/* The wire stopped losing (roce_priv.h: ROCE_LOSSY_US): full window. */
	if (!roce_wire_lossy(rq->dev, now)) {
		roce_req_window_init(rq);
		return;
	}
	rq->cwnd_acked += n;
	while (rq->cwnd_acked >= rq->cwnd && rq->cwnd < ROCE_MAX_INFLIGHT) {
		rq->cwnd_acked -= rq->cwnd;
		rq->cwnd++;
	}
}

/*
 * PSN @psn may not go out yet: too many PSNs unacknowledged.  The send
 * window (roce_priv.h) bounds SEND and WRITE packets, the ones go-back-N sends
 * again; a READ or atomic request is one packet whatever the PSNs its
 * responses take, a READ response gap is asked again for that READ alone
 * (roce_comp.c), so those keep the fixed ROCE_MAX_INFLIGHT.
 */
static bool window_full(const struct roce_qp *rq, uint32_t psn, bool request)
{
	return roce_psn_diff(psn, rq->una_psn) >=
	       (int32_t)(request ? ROCE_MAX_INFLIGHT : rq->cwnd);
}

/*
 * AckReq on a packet of a message (index @i of it, PSN @psn): on the last,
 * at least every ROCE_ACK_REQ_EVERY packets, and, for a small window, on
 * every half window and on the packet that fills it, so the ACKs that
 * open it again are on their way before the window stops the QP.
 */
static bool want_ack_req(const struct roce_qp *rq, uint32_t i, uint32_t psn,
			 bool last)
{
	uint32_t every = rq->cwnd / 2;

	if (every > ROCE_ACK_REQ_EVERY)
		every = ROCE_ACK_REQ_EVERY;
	if (!every)
		every = 1;
	return last || i % every == every - 1 ||
	       roce_psn_diff(psn, rq->una_psn) + 1 >= (int32_t)rq->cwnd;
}

/* una moved: a round trip ends if the PSN being timed is acknowledged. */
void roce_req_rtt_acked(struct roce_qp *rq, uint32_t una, uint64_t now)
{
	uint64_t sample;
	uint32_t s, err;

	if (!rq->rtt_start || roce_psn_diff(una, rq->rtt_psn) <= 0)
		return;
	sample = now > rq->rtt_start ? now - rq->rtt_start : 1;
	rq->rtt_start = 0;
	s = sample < UINT32_MAX / 16 ? (uint32_t)sample : UINT32_MAX / 16;
	if (!rq->srtt_us) {
		rq->srtt_us = s;
		rq->rttvar_us = s / 2;
	} else {
		err = rq->srtt_us > s ? rq->srtt_us - s : s - rq->srtt_us;
		rq->rttvar_us = rq->rttvar_us - rq->rttvar_us / 4 + err / 4;
		rq->srtt_us = rq->srtt_us - rq->srtt_us / 8 + s / 8;
	}
	rq->rto_shift = 0;
	rq->dev->st.rtt_samples++;
	if (sample > rq->dev->st.rtt_max_us)
		rq->dev->st.rtt_max_us = sample;
}

void roce_req_arm_timer(struct roce_qp *rq)
{
	uint64_t t = timeout_us(rq->qp), now, rto;

	if (!t || !roce_req_outstanding(rq)) {
		rq->retry_deadline = 0;
		return;
	}
	now = now_us();
	/*
	 * No round trip measured yet: no early retransmission either (RFC
	 * 6298's conservative initial RTO).  A first send meets whatever
	 * queues the wire holds, and go-back-N would send the whole window
	 * again for nothing.  Nor on a wire that has lost nothing lately
	 * (roce_priv.h: ROCE_LOSSY_US).
	 */
	rto = rq->srtt_us && roce_wire_lossy(rq->dev, now) ?
	      roce_req_early_rto(rq) : t;
	rq->retry_full = now + t;
	rq->retry_deadline = now + (t < rto ? t : rto);
}

bool roce_req_early_retry(struct roce_qp *rq, uint64_t now)
{
	uint64_t next;

	if (now >= rq->retry_full)
		return false;
	if (rq->rto_shift < 16)
		rq->rto_shift++;
	cut_window(rq);
	next = now + roce_req_early_rto(rq);
	rq->retry_deadline = next < rq->retry_full ? next : rq->retry_full;
	roce_req_rewind(rq, rq->una_psn);
	return true;
}

void roce_req_arm_probe(struct roce_qp *rq, uint64_t now)
{
	uint64_t pto = 2ull * rq->srtt_us;

	if (rq->tlp_sent || !rq->srtt_us || !roce_req_outstanding(rq) ||
	    !roce_wire_lossy(rq->dev, now)) {
		rq->tlp_deadline = 0;
		return;
	}
	rq->tlp_deadline = now + (pto > ROCE_TLP_MIN_US ? pto : ROCE_TLP_MIN_US);
}

bool roce_req_outstanding(const struct roce_qp *rq)
{
	return roce_psn_diff(rq->max_sent_psn, rq->una_psn) > 0;
}

/* The send WQE in the ring (64-byte header, then SGEs or inline data). */
static const uint8_t *ring_wqe(struct roce_qp *rq, uint32_t idx)
{
	struct emu_qp *qp = rq->qp;

	return roce_queue_entry(rq->dev->eng, &qp->buf, 0, qp->sq_npages, idx,
				qp->log_sq_depth,
				orca_send_wqe_stride(qp->max_send_sge));
}

bool roce_req_sges(struct roce_qp *rq, const struct roce_swqe *w,
		   struct orca_sge *sge)
{
	const uint8_t *e = ring_wqe(rq, w->idx);

	if (!e || w->num_sge > rq->qp->max_send_sge)
		return false;
	memcpy(sge, e + sizeof(struct orca_send_wqe_hdr),
	       w->num_sge * sizeof(*sge));
	return true;
}

static bool op_allowed(const struct emu_qp *qp, uint8_t op)
{
	if (qp->type == ORCA_QPT_RC)
		return op <= ORCA_WQE_BIND_MW || is_flush_or_atomic_write(op);
	/* XRC has no FLUSH or ATOMIC WRITE opcodes (IBA A14, 1.5's A19). */
	if (qp->type == ORCA_QPT_XRC_INI)
		return op <= ORCA_WQE_BIND_MW;
	/* UC: no READ, atomics or invalidation (IBA 9.2), no local work. */
	if (qp->type == ORCA_QPT_UC)
		return op == ORCA_WQE_SEND || op == ORCA_WQE_SEND_IMM ||
		       op == ORCA_WQE_RDMA_WRITE ||
		       op == ORCA_WQE_RDMA_WRITE_IMM;
	return op == ORCA_WQE_SEND || op == ORCA_WQE_SEND_IMM;
}

/* Copies WQE @idx into the requester's table and validates it. */
static bool fetch_one(struct roce_qp *rq, uint32_t idx)
{
	struct emu_qp *qp = rq->qp;
	struct roce_swqe *w = swqe(rq, idx);
	const struct orca_send_wqe_hdr *h;
	const uint8_t *e = ring_wqe(rq, idx);
	uint32_t stride = orca_send_wqe_stride(qp->max_send_sge);

	if (!e)
		return false;
	h = (const struct orca_send_wqe_hdr *)e;
	memset(w, 0, sizeof(*w));
	w->idx = idx;
	w->opcode = h->opcode;
	w->flags = h->flags;
	w->num_sge = h->num_sge;
	w->wr_id = le32toh(h->wr_id_lo) | (uint64_t)le32toh(h->wr_id_hi) << 32;
	w->imm_or_inv = le32toh(h->imm_or_inv);
	w->raddr = le64toh(h->remote_addr);
	w->rkey = le32toh(h->rkey);
	w->cmp_add = le64toh(h->compare_add);
	w->swap = le64toh(h->swap);
	w->ahn = le32toh(h->ahn);
	w->dest_qpn = le32toh(h->dest_qpn) & ROCE_QPN_MASK;
	w->qkey = le32toh(h->qkey);

	if (!op_allowed(qp, w->opcode)) {
		w->status = ORCA_CQE_ST_LOC_QP_OP_ERR;
		return true;
	}
	if (w->opcode == ORCA_WQE_REG_MR) {
		w->len = le32toh(h->length);
		w->page_shift = h->page_shift;
		return true;
	}
	if (w->opcode == ORCA_WQE_LOCAL_INV || w->opcode == ORCA_WQE_BIND_MW)
		return true;
	/* No SGEs: FLUSH has no data, ATOMIC WRITE's 8 bytes are here. */
	if (w->opcode == ORCA_WQE_FLUSH) {
		w->num_sge = 0;
		w->len = le32toh(h->length);
		return true;
	}
	if (w->opcode == ORCA_WQE_ATOMIC_WRITE) {
		w->num_sge = 0;
		w->len = 8;
		memcpy(&w->cmp_add, h->atomic_data, 8);
		return true;
	}
	if (w->flags & ORCA_WQE_F_INLINE) {
		w->len = le32toh(h->length);
		w->num_sge = 0;
		/* Inline data lives in the SGE area (max_send_sge * 16). */
		if (w->len > qp->max_inline ||
		    w->len > qp->max_send_sge * sizeof(struct orca_sge) ||
		    w->len > stride - sizeof(*h) || is_rd_atomic(w->opcode))
			w->status = ORCA_CQE_ST_LOC_QP_OP_ERR;
		return true;
	}
	if (w->num_sge > qp->max_send_sge) {
		w->status = ORCA_CQE_ST_LOC_QP_OP_ERR;
		return true;
	}
	{
		struct orca_sge sge[ORCA_MAX_SGE];
		uint64_t len;

		memcpy(sge, e + sizeof(*h), w->num_sge * sizeof(*sge));
		len = roce_sgl_len(sge, w->num_sge);
		if (len > (1ull << 31))
			w->status = ORCA_CQE_ST_LOC_LEN_ERR;
		w->len = (uint32_t)len;
	}
	if ((w->opcode == ORCA_WQE_ATOMIC_CS ||
	     w->opcode == ORCA_WQE_ATOMIC_FA) && w->len != 8)
		w->status = ORCA_CQE_ST_LOC_LEN_ERR;
	return true;
}

static struct orca_qp_db_rec *db_rec(struct roce_qp *rq)
{
	return engine_dma(rq->dev->eng, rq->qp->db_rec,
			  sizeof(struct orca_qp_db_rec));
}

/*
 * Copies newly posted WQEs.  When there are none, keeps polling the record
 * while the QP's polling window is open (roce_poll.c; the requester stays
 * kicked), else publishes the event index (the driver rings again only
 * when it posts past it) and looks once more, so a WQE posted meanwhile is
 * not stranded.  Returns false if the QP had to go to ERR.
 */
static bool fetch(struct roce_qp *rq, bool *idle)
{
	struct orca_qp_db_rec *rec = db_rec(rq);
	uint32_t depth = sq_mask(rq) + 1, pi;

	*idle = false;
	if (!rec)
		goto fatal;
	pi = le32toh(atomic_load_explicit((_Atomic __le32 *)&rec->sq_pi,
					  memory_order_acquire));
	for (int pass = 0; pass < 2; pass++) {
		if (pi - rq->sq_head > depth)
			goto fatal;	/* the driver overran its own ring */
		while (rq->sq_fetched != pi) {
			if (!fetch_one(rq, rq->sq_fetched))
				goto fatal;
			rq->sq_fetched++;
		}
		if (rq->sq_next != rq->sq_fetched) {
			if (rq->sq_idle_at)
				roce_poll_found(rq, now_us());
			return true;
		}
		if (pass)
			break;
		if (roce_poll_idle(rq, now_us())) {
			*idle = true;
			rq->sq_kick = true;	/* look again next pass */
			return true;
		}
		pi = roce_publish_event_idx(&rec->sq_event_idx, &rec->sq_pi, pi);
	}
	*idle = true;
	return true;
fatal:
	roce_qp_to_err(rq, ORCA_EQE_QP_FATAL);
	return false;
}

/* ---- payload sources ---- */

/* ATOMIC WRITE: the WQE's 8 bytes, as they were posted. */
static int fill_atomic_write(struct roce_qp *rq, void *arg, uint8_t *dst,
			     uint32_t len)
{
	const struct roce_swqe *w = arg;

	(void)rq;
	if (len != sizeof(w->cmp_add))
		return -1;
	memcpy(dst, &w->cmp_add, len);
	return 0;
}

struct fill_ctx {
	struct roce_swqe *w;
	uint32_t off;
	int status;
};

static int fill_from_wqe(struct roce_qp *rq, void *arg, uint8_t *dst,
			 uint32_t len)
{
	struct fill_ctx *f = arg;
	struct roce_swqe *w = f->w;
	struct orca_sge sge[ORCA_MAX_SGE];

	if (w->flags & ORCA_WQE_F_INLINE) {
		const uint8_t *e = ring_wqe(rq, w->idx);

		if (!e) {
			f->status = ORCA_CQE_ST_LOC_PROT_ERR;
			return -1;
		}
		memcpy(dst, e + sizeof(struct orca_send_wqe_hdr) + f->off,
		       len);
		return 0;
	}
	if (!roce_req_sges(rq, w, sge)) {
		f->status = ORCA_CQE_ST_LOC_PROT_ERR;
		return -1;
	}
	f->status = roce_sgl_copy(rq->dev->eng, rq->qp->pdn, sge, w->num_sge,
				  f->off, dst, len, false);
	return f->status ? -1 : 0;
}

/* ---- packets ---- */

static uint8_t send_opcode(const struct roce_swqe *w, bool first, bool last)
{
	bool imm = w->opcode == ORCA_WQE_SEND_IMM;
	bool inv = w->opcode == ORCA_WQE_SEND_INV;

	if (first && last)
		return imm ? ROCE_RC_SEND_ONLY_IMM :
		       inv ? ROCE_RC_SEND_ONLY_INV : ROCE_RC_SEND_ONLY;
	if (first)
		return ROCE_RC_SEND_FIRST;
	if (!last)
		return ROCE_RC_SEND_MIDDLE;
	return imm ? ROCE_RC_SEND_LAST_IMM :
	       inv ? ROCE_RC_SEND_LAST_INV : ROCE_RC_SEND_LAST;
}

static uint8_t write_opcode(const struct roce_swqe *w, bool first, bool last)
{
	bool imm = w->opcode == ORCA_WQE_RDMA_WRITE_IMM;

	if (first && last)
		return imm ? ROCE_RC_WRITE_ONLY_IMM : ROCE_RC_WRITE_ONLY;
	if (first)
		return ROCE_RC_WRITE_FIRST;
	if (!last)
		return ROCE_RC_WRITE_MIDDLE;
	return imm ? ROCE_RC_WRITE_LAST_IMM : ROCE_RC_WRITE_LAST;
}

/* The ImmDt bytes are the WQE field's bytes, in memory order. */
static uint32_t wire_imm(uint32_t le_field)
{
	return __builtin_bswap32(le_field);
}

static void note_sent(struct roce_qp *rq, uint32_t end_psn)
{
	if (roce_psn_diff(end_psn, rq->max_sent_psn) > 0) {
		/* New PSNs from max_sent_psn on: time the first, if idle. */
		if (!rq->rtt_start) {
			rq->rtt_psn = rq->max_sent_psn;
			rq->rtt_start = now_us();
		}
		rq->max_sent_psn = end_psn & ROCE_PSN_MASK;
		rq->rnr_resend = false;
	} else {
		/* Karn: an ACK after a retransmission times neither send. */
		rq->rtt_start = 0;
		rq->dev->st.retransmits++;
		if (rq->rnr_resend)
			rq->dev->st.rnr_resends++;
	}
	if (!rq->retry_deadline)
		roce_req_arm_timer(rq);
}

enum tx_result {
	TX_MORE,		/* packet sent, more of the message follows */
	TX_DONE,		/* the message's last packet is sent */
	TX_WINDOW,		/* too many unacknowledged packets: wait */
	TX_FAILED,		/* the WQE failed locally: w->status says why */
	TX_FAULT,		/* on-demand MR page missing: nothing sent */
};

/*
 * Sends the next packet of RC or UC WQE @w.  UC sends RC's SEND and WRITE
 * packets with the UC opcodes, no AckReq and no send window: nothing comes
 * back, nothing is sent again.
 */
static enum tx_result send_rc_packet(struct roce_qp *rq, struct roce_swqe *w)
{
	struct emu_qp *qp = rq->qp;
	bool uc = qp->type == ORCA_QPT_UC;
	uint32_t mtu = roce_qp_mtu(rq->dev->eng, qp);
	struct roce_pkt pkt = { 0 };
	struct fill_ctx f = { .w = w };
	uint32_t i, psn, end;
	bool first, last;
	int err;

	pkt.dest_qpn = le32toh(qp->attr.dest_qpn) & ROCE_QPN_MASK;
	/* XRC: the SRQ at the target (ignored by the other transports). */
	pkt.xrc_srqn = w->dest_qpn;
	switch (w->opcode) {
	case ORCA_WQE_RDMA_READ:
		psn = w->rd_next;
		if (window_full(rq, psn, true))
			return TX_WINDOW;
		i = (psn - w->first_psn) & ROCE_PSN_MASK;
		pkt.opcode = ROCE_RC_READ_REQ;
		pkt.psn = psn;
		pkt.ack_req = true;
		pkt.reth_va = w->raddr + (uint64_t)i * mtu;
		pkt.reth_rkey = w->rkey;
		pkt.reth_len = w->len - (i * mtu < w->len ? i * mtu : w->len);
		end = w->first_psn + w->npsn;
		break;
	case ORCA_WQE_ATOMIC_CS:
	case ORCA_WQE_ATOMIC_FA:
		psn = w->first_psn;
		if (window_full(rq, psn, true))
			return TX_WINDOW;
		pkt.psn = psn;
		pkt.ack_req = true;
		pkt.atm_va = w->raddr;
		pkt.atm_rkey = w->rkey;
		if (w->opcode == ORCA_WQE_ATOMIC_CS) {
			pkt.opcode = ROCE_RC_CMP_SWAP;
			pkt.atm_swap = w->swap;
			pkt.atm_cmp = w->cmp_add;
		} else {
			pkt.opcode = ROCE_RC_FETCH_ADD;
			pkt.atm_swap = w->cmp_add;
		}
		end = psn + 1;
		break;
	case ORCA_WQE_FLUSH:
	case ORCA_WQE_ATOMIC_WRITE:
		/* One request packet each, as rxe frames them. */
		psn = w->first_psn;
		if (window_full(rq, psn, true))
			return TX_WINDOW;
		pkt.psn = psn;
		pkt.ack_req = true;
		pkt.reth_va = w->raddr;
		pkt.reth_rkey = w->rkey;
		pkt.reth_len = w->len;
		if (w->opcode == ORCA_WQE_FLUSH) {
			pkt.opcode = ROCE_RC_FLUSH;
			pkt.feth_plt = FIELD_GET(ORCA_WQE_FLUSH_TYPE,
						 w->imm_or_inv);
			pkt.feth_sel = FIELD_GET(ORCA_WQE_FLUSH_LEVEL,
						 w->imm_or_inv);
		} else {
			pkt.opcode = ROCE_RC_ATOMIC_WRITE;
			pkt.paylen = 8;
		}
		if (roce_send_pkt(rq, &qp->attr.av, &pkt,
				  pkt.paylen ? fill_atomic_write : NULL, w)) {
			w->status = ORCA_CQE_ST_LOC_QP_OP_ERR;
			return TX_FAILED;
		}
		note_sent(rq, psn + 1);
		return TX_DONE;
	default:	/* SEND*, RDMA_WRITE* */
		i = rq->next_off / mtu;
		psn = (w->first_psn + i) & ROCE_PSN_MASK;
		if (!uc && window_full(rq, psn, false))
			return TX_WINDOW;
		first = i == 0;
		last = i + 1 >= w->npsn;
		pkt.psn = psn;
		pkt.paylen = last ? w->len - rq->next_off : mtu;
		/* UC: nothing is acknowledged, nothing waits for an ACK. */
		pkt.ack_req = !uc && want_ack_req(rq, i, psn, last);
		pkt.solicited = last && (w->flags & ORCA_WQE_F_SOLICITED);
		if (w->opcode <= ORCA_WQE_SEND_INV) {
			pkt.opcode = send_opcode(w, first, last);
		} else {
			pkt.opcode = write_opcode(w, first, last);
			pkt.reth_va = w->raddr;
			pkt.reth_rkey = w->rkey;
			pkt.reth_len = w->len;
		}
		if (uc)
			pkt.opcode |= ROCE_UC_BASE;
		pkt.imm = wire_imm(w->imm_or_inv);
		pkt.ieth_rkey = w->imm_or_inv;
		f.off = rq->next_off;
		end = psn + 1;
		break;
	}
	pkt.opcode = roce_wire_op(qp, pkt.opcode);
	err = roce_send_pkt(rq, &qp->attr.av, &pkt, fill_from_wqe, &f);
	/* No PSN used, next_off kept: the packet is built again on resume. */
	if (err && f.status == ROCE_ST_ODP_MISS)
		return TX_FAULT;
	if (err) {
		/* A bad lkey, or an address vector we cannot send to. */
		w->status = f.status ? f.status : ORCA_CQE_ST_LOC_QP_OP_ERR;
		return TX_FAILED;
	}
	if (uc) {
		/* UC: a WQE is complete once its last packet is sent. */
		rq->next_off += pkt.paylen;
		if (rq->next_off < w->len)
			return TX_MORE;
		w->done = true;
		return TX_DONE;
	}
	note_sent(rq, end);
	if (w->opcode == ORCA_WQE_RDMA_READ || w->opcode == ORCA_WQE_ATOMIC_CS ||
	    w->opcode == ORCA_WQE_ATOMIC_FA)
		return TX_DONE;
	rq->next_off += pkt.paylen;
	return rq->next_off >= w->len ? TX_DONE : TX_MORE;
}

/*
 * Asks again for READ @w's responses from rd_next on, without going back
 * over the requests sent after it: the responder replays the READ from
 * its resources, and what else it missed it NAKs or the timer repeats.
 */
bool roce_req_reread(struct roce_qp *rq, struct roce_swqe *w)
{
	return w->opcode == ORCA_WQE_RDMA_READ && w->started && !w->done &&
	       send_rc_packet(rq, w) == TX_DONE;
}

/* A UD/GSI send: one packet, completed as soon as it is on the wire. */
static int send_ud(struct roce_qp *rq, struct roce_swqe *w)
{
	struct orca_engine *eng = rq->dev->eng;
	struct emu_qp *qp = rq->qp;
	struct emu_ah *ah = objtab_get(&eng->ahs, w->ahn);
	struct roce_pkt pkt = { 0 };
	struct fill_ctx f = { .w = w };

	if (!ah || ah->pdn != qp->pdn)
		return ORCA_CQE_ST_LOC_QP_OP_ERR;
	if (w->len > roce_qp_mtu_ud(eng))
		return ORCA_CQE_ST_LOC_LEN_ERR;
	pkt.opcode = w->opcode == ORCA_WQE_SEND_IMM ? ROCE_UD_SEND_ONLY_IMM :
						       ROCE_UD_SEND_ONLY;
	pkt.dest_qpn = w->dest_qpn;
	pkt.psn = rq->snd_psn;
	rq->snd_psn = (rq->snd_psn + 1) & ROCE_PSN_MASK;
	pkt.solicited = w->flags & ORCA_WQE_F_SOLICITED;
	/* QP1 always uses the GSI Q_Key; bit 31 means "the QP's Q_Key". */
	if (qp->type == ORCA_QPT_GSI)
		pkt.deth_qkey = ROCE_GSI_QKEY;
	else if (w->qkey & 0x80000000u)
		pkt.deth_qkey = le32toh(qp->attr.qkey);
	else
		pkt.deth_qkey = w->qkey;
	pkt.deth_sqpn = qp->qpn;
	pkt.imm = wire_imm(w->imm_or_inv);
	pkt.paylen = w->len;
	if (roce_send_pkt(rq, &ah->av, &pkt, fill_from_wqe, &f)) {
		if (f.status == ROCE_ST_ODP_MISS)
			rq->snd_psn = pkt.psn;	/* sent again on resume */
		return f.status ? f.status : ORCA_CQE_ST_LOC_QP_OP_ERR;
	}
	return ORCA_CQE_ST_SUCCESS;
}

/* Starts WQE @w: false if it must wait (fence, READ/atomic credits). */
static bool start_wqe(struct roce_qp *rq, struct roce_swqe *w)
{
	struct emu_qp *qp = rq->qp;
	uint32_t mtu = roce_qp_mtu(rq->dev->eng, qp);
	uint8_t max_rd = qp->attr.max_rd_atomic ? qp->attr.max_rd_atomic : 1;

	if (w->status) {
		w->done = true;
		return true;
	}
	if (qp->type == ORCA_QPT_UD || qp->type == ORCA_QPT_GSI) {
		int st = w->odp_failed ? ORCA_CQE_ST_LOC_PROT_ERR :
					      send_ud(rq, w);

		/* A page fault: the WQE is started again on resume. */
		if (st == ROCE_ST_ODP_MISS) {
			if (roce_odp_stop_req(rq, ORCA_PF_REQ_DATA, w->idx))
				return false;
			st = ORCA_CQE_ST_LOC_PROT_ERR;
		}
		w->status = (uint8_t)st;
		w->done = true;
		return true;
	}
	if ((w->flags & ORCA_WQE_F_FENCE) && rq->rd_atomic)
		return false;
	switch (w->opcode) {
	case ORCA_WQE_LOCAL_INV:
		w->status = roce_mr_invalidate(rq->dev->eng, qp, qp->pdn,
					       w->imm_or_inv, false);
		w->done = true;
		return true;
	case ORCA_WQE_REG_MR:
		w->status = roce_mr_fast_reg(rq->dev->eng, qp->pdn, w);
		w->done = true;
		return true;
	case ORCA_WQE_BIND_MW:
		w->status = roce_mw_bind(rq->dev->eng, qp, w);
		w->done = true;
		return true;
	case ORCA_WQE_RDMA_READ:
	case ORCA_WQE_ATOMIC_CS:
	case ORCA_WQE_ATOMIC_FA:
	case ORCA_WQE_FLUSH:
	case ORCA_WQE_ATOMIC_WRITE:
		if (rq->rd_atomic >= max_rd)
			return false;
		rq->rd_atomic++;
		w->npsn = w->opcode == ORCA_WQE_RDMA_READ && w->len ?
			  (w->len + mtu - 1) / mtu : 1;
		break;
	default:
		w->npsn = w->len ? (w->len + mtu - 1) / mtu : 1;
		break;
	}
	w->first_psn = rq->snd_psn;
	w->rd_next = w->first_psn;
	rq->snd_psn = (rq->snd_psn + w->npsn) & ROCE_PSN_MASK;
	w->started = true;
	return true;
}

void roce_req_run(struct roce_qp *rq)
{
	struct emu_qp *qp = rq->qp;
	int budget = ROCE_TX_BURST;
	bool idle = false, paced, sent_any = false;
	uint64_t tx_bytes;

	rq->sq_kick = false;
	if (rq->rnr_deadline)
		return;			/* waiting out an RNR NAK */
	if (rq->odp_req)
		return;			/* waiting for a page fault */
	while (budget > 0) {
		struct roce_swqe *w;
		enum tx_result r;

		if (rq->sq_next == rq->sq_fetched) {
			if (!fetch(rq, &idle))
				return;
			if (idle)
				break;
		}
		w = swqe(rq, rq->sq_next);
		if (rq->sq_next == rq->sq_started) {
			if (qp->state != ORCA_QPS_RTS)
				break;	/* SQD: start nothing new */
			if (!start_wqe(rq, w))
				break;	/* fence, credits or a UD fault */
			rq->sq_started++;
			rq->next_off = 0;
		}
		if (w->done) {		/* local op or failed: nothing to send */
			rq->sq_next++;
			roce_comp_retire(rq);
			if (qp->state != ORCA_QPS_RTS && qp->state != ORCA_QPS_SQD)
				return;
			continue;
		}
		/* DCQCN: a QP whose rate a CNP cut waits for its pacer. */
		paced = rq->dcqcn.limited || roce_line_paced(rq->dev);
		if (paced) {
			uint64_t now = now_ns();

			if (rq->dcqcn.limited && !roce_dcqcn_may_send(rq, now))
				break;	/* its timer kicks it */
			if (!roce_line_may_send(rq, now))
				break;	/* the link is busy: the same */
		}
		tx_bytes = rq->dev->st.tx_bytes;
		if (w->odp_failed) {
			w->status = ORCA_CQE_ST_LOC_PROT_ERR;
			r = TX_FAILED;
		} else {
			r = send_rc_packet(rq, w);
		}
		if (r == TX_FAULT) {
			if (roce_odp_stop_req(rq, ORCA_PF_REQ_DATA, w->idx))
				break;	/* the resume kicks us */
			w->status = ORCA_CQE_ST_LOC_PROT_ERR;
			r = TX_FAILED;
		}
		if (paced && rq->dev->st.tx_bytes != tx_bytes) {
			uint64_t sent = rq->dev->st.tx_bytes - tx_bytes;
			uint64_t now = now_ns();

			roce_line_sent(rq->dev, sent, now);
			if (rq->dcqcn.limited)
				roce_dcqcn_sent(rq, sent, now);
		}
		if (r == TX_WINDOW)
			break;		/* ACKs will kick us */
		if (r == TX_FAILED) {
			w->done = true;
			rq->sq_next++;
			roce_comp_retire(rq);
			return;
		}
		budget--;
		sent_any = true;
		if (r == TX_DONE) {
			rq->sq_next++;
			rq->next_off = 0;
		}
	}
	/*
	 * Packets went out (new, or go-back-N's): the tail loss probe waits
	 * from the last.  Not the probe itself: its answer is waited for.
	 */
	if (sent_any && !rq->tlp_sent && rq->dev->loss_us)
		roce_req_arm_probe(rq, now_us());
	if (!budget)
		rq->sq_kick = true;
	roce_comp_retire(rq);
}

void roce_req_rewind(struct roce_qp *rq, uint32_t psn)
{
	uint32_t mtu = roce_qp_mtu(rq->dev->eng, rq->qp);
	bool found = false;

	rq->rnr_resend = false;		/* the RNR NAK path sets it again */
	for (uint32_t idx = rq->sq_head; idx != rq->sq_started; idx++) {
		struct roce_swqe *w = swqe(rq, idx);
		int32_t d;

		if (!w->npsn || w->done)
			continue;
		d = roce_psn_diff(psn, w->first_psn);
		if (!found && d >= 0 && d < (int32_t)w->npsn) {
			found = true;
			rq->sq_next = idx;
			if (w->opcode == ORCA_WQE_RDMA_READ)
				w->rd_next = psn;
			else
				rq->next_off = (uint32_t)d * mtu;
			continue;
		}
		/* Later READs are asked again from their start. */
		if (found && w->opcode == ORCA_WQE_RDMA_READ)
			w->rd_next = w->first_psn;
	}
	if (!found)
		return;
	rq->sq_kick = true;
}

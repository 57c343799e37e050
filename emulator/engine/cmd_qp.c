// SPDX-License-Identifier: GPL-2.0
/*
 * Queue pairs: CREATE_QP, MODIFY_QP, QUERY_QP, DESTROY_QP.  CREATE checks
 * the type, every handle, the queue geometry and the page list (since 1.6
 * also XRC initiators, a send queue only, and XRC targets, a domain and
 * nothing else, every field they do not use 0); MODIFY checks
 * the transition against qp_state.c's table and every attribute value
 * before it changes anything, so a refused modify leaves the QP as it was.
 * QPN 0 is invalid and QPN 1 belongs to the one GSI QP.
 */
#include <endian.h>
#include <stdlib.h>
#include <string.h>

#include "cmd_handlers.h"
#include "roce/roce.h"

#define QP_24BIT	0xffffffu

struct emu_qp *engine_qp_lookup(struct orca_engine *eng, uint32_t qpn)
{
	if (qpn == EMU_QPN_GSI)
		return eng->gsi_qp;
	return objtab_get(&eng->qps, qpn);
}

void engine_qp_release(void *obj, void *arg)
{
	struct emu_qp *qp = obj;

	roce_qp_free(qp);
	engine_pages_free(&qp->buf);
	free(qp);
}

/*
 * Objects a QP holds references on; all valid once CREATE succeeded.  An
 * XRC initiator has no receive CQ, an XRC target only its domain.
 */
struct qp_refs {
	struct emu_pd *pd;
	struct emu_cq *scq, *rcq;
	struct emu_srq *srq;
	struct emu_uar *uar;
	struct emu_xrcd *xrcd;
};

static int qp_get_refs(struct cmd_ctx *c, const struct orca_cmd_create_qp *in,
		       struct qp_refs *r)
{
	struct orca_engine *eng = c->eng;

	memset(r, 0, sizeof(*r));
	if (in->qp_type == ORCA_QPT_XRC_TGT) {
		r->xrcd = objtab_get(&eng->xrcds, le32toh(in->xrcdn));
		return r->xrcd ? ORCA_CMD_ST_OK :
				 cmd_fail(c, ORCA_CMD_ST_BAD_HANDLE);
	}
	r->pd = objtab_get(&eng->pds, le32toh(in->pdn));
	r->scq = objtab_get(&eng->cqs, le32toh(in->send_cqn));
	r->uar = objtab_get(&eng->uars, le32toh(in->uar));
	if (in->qp_type != ORCA_QPT_XRC_INI)
		r->rcq = objtab_get(&eng->cqs, le32toh(in->recv_cqn));
	if (le32toh(in->flags) & ORCA_QP_F_USE_SRQ) {
		r->srq = objtab_get(&eng->srqs, le32toh(in->srqn));
		if (!r->srq)
			return cmd_fail(c, ORCA_CMD_ST_BAD_HANDLE);
		/* An XRC SRQ serves XRC target QPs, through the XRCETH only. */
		if (r->srq->xrc)
			return cmd_fail(c, ORCA_CMD_ST_BAD_PARAM);
	}
	if (!r->pd || !r->scq || !r->uar ||
	    (!r->rcq && in->qp_type != ORCA_QPT_XRC_INI))
		return cmd_fail(c, ORCA_CMD_ST_BAD_HANDLE);
	return ORCA_CMD_ST_OK;
}

static void qp_put_refs(struct orca_engine *eng, struct emu_qp *qp, int d)
{
	struct emu_pd *pd;
	struct emu_cq *scq, *rcq;
	struct emu_uar *uar;

	if (qp->type == ORCA_QPT_XRC_TGT) {
		struct emu_xrcd *xrcd = objtab_get(&eng->xrcds, qp->xrcdn);

		if (xrcd)
			xrcd->refcnt += d;
		return;
	}
	pd = objtab_get(&eng->pds, qp->pdn);
	scq = objtab_get(&eng->cqs, qp->send_cqn);
	rcq = objtab_get(&eng->cqs, qp->recv_cqn);
	uar = objtab_get(&eng->uars, qp->uar);
	if (pd)
		pd->refcnt += d;
	if (scq)
		scq->refcnt += d;
	if (rcq)
		rcq->refcnt += d;
	if (uar)
		uar->refcnt += d;
	if (qp->flags & ORCA_QP_F_USE_SRQ) {
		struct emu_srq *srq = objtab_get(&eng->srqs, qp->srqn);

		if (srq)
			srq->refcnt += d;
	}
}

/*
 * The fields an XRC QP (1.6) must leave 0 (commands.rst, "XRC QPs"): an
 * initiator those of a receive queue, a target all but its type and
 * domain (page_shift, meaningless without a page list, is ignored);
 * xrcdn is a target's only, rsvd always 0.
 */
static int qp_check_xrc(struct cmd_ctx *c, const struct orca_cmd_create_qp *in)
{
	if (in->rsvd || (in->xrcdn && in->qp_type != ORCA_QPT_XRC_TGT))
		return cmd_fail(c, ORCA_CMD_ST_BAD_PARAM);
	if (in->qp_type == ORCA_QPT_XRC_INI &&
	    (in->log_rq_depth || in->rq_npages || in->max_recv_sge ||
	     in->recv_cqn || in->srqn ||
	     (le32toh(in->flags) & ORCA_QP_F_USE_SRQ)))
		return cmd_fail(c, ORCA_CMD_ST_BAD_PARAM);
	if (in->qp_type == ORCA_QPT_XRC_TGT &&
	    (in->log_sq_depth || in->log_rq_depth || in->sq_npages ||
	     in->rq_npages || in->max_send_sge || in->max_recv_sge ||
	     in->max_inline_data || in->flags || in->pdn || in->send_cqn ||
	     in->recv_cqn || in->srqn || in->uar || in->db_rec_addr))
		return cmd_fail(c, ORCA_CMD_ST_BAD_PARAM);
	return ORCA_CMD_ST_OK;
}

/* Queue geometry: depths, SGEs, inline size, and the page counts. */
static int qp_check_geometry(struct cmd_ctx *c,
			     const struct orca_cmd_create_qp *in)
{
	/* With an SRQ, or as an XRC initiator, no receive queue of its own. */
	bool no_rq = (le32toh(in->flags) & ORCA_QP_F_USE_SRQ) ||
		     in->qp_type == ORCA_QPT_XRC_INI;
	uint32_t sq_np, rq_np = 0;
	uint8_t ps = in->page_shift;

	if (in->log_sq_depth < ORCA_MIN_LOG_DEPTH ||
	    in->log_sq_depth > EMU_LOG_MAX_WQ ||
	    in->max_send_sge > ORCA_MAX_SGE ||
	    in->max_recv_sge > ORCA_MAX_SGE ||
	    le16toh(in->max_inline_data) > EMU_MAX_INLINE ||
	    /* inline data lives in the SGE area of the stride */
	    le16toh(in->max_inline_data) >
	    in->max_send_sge * sizeof(struct orca_sge) ||
	    ps < ORCA_MIN_PAGE_SHIFT || ps > ORCA_MAX_PAGE_SHIFT)
		return cmd_fail(c, ORCA_CMD_ST_BAD_PARAM);
	if (no_rq ? in->log_rq_depth != 0 :
	    in->log_rq_depth < ORCA_MIN_LOG_DEPTH ||
	    in->log_rq_depth > EMU_LOG_MAX_WQ)
		return cmd_fail(c, ORCA_CMD_ST_BAD_PARAM);
	sq_np = orca_queue_npages((uint64_t)
				  orca_send_wqe_stride(in->max_send_sge) <<
				  in->log_sq_depth, ps);
	if (!no_rq)
		rq_np = orca_queue_npages((uint64_t)
					  orca_recv_wqe_stride(in->max_recv_sge)
					  << in->log_rq_depth, ps);
	if (le32toh(in->sq_npages) != sq_np ||
	    le32toh(in->rq_npages) != rq_np)
		return cmd_fail(c, ORCA_CMD_ST_BAD_PARAM);
	return ORCA_CMD_ST_OK;
}

/*
 * The QP's memory: the rings, the transport state's budget, the doorbell
 * record.  An XRC target has only the transport state of a QP without a
 * send queue, nothing of the guest's to load.
 */
static int qp_load(struct cmd_ctx *c, const struct orca_cmd_create_qp *in,
		   struct emu_qp *qp)
{
	int st;

	if (in->qp_type == ORCA_QPT_XRC_TGT)
		return cmd_pages_reserve(c, &qp->buf, roce_qp_footprint(0));
	st = cmd_load_pages(c, &qp->buf, 0,
			    le32toh(in->sq_npages) + le32toh(in->rq_npages),
			    in->page_shift, 0, false);
	if (st)
		return st;
	/* The transport's per-WQE state is made later, on the data path. */
	st = cmd_pages_reserve(c, &qp->buf,
			       roce_qp_footprint(in->log_sq_depth));
	if (st)
		return st;
	return cmd_check_db_rec(c, le64toh(in->db_rec_addr),
				sizeof(struct orca_qp_db_rec));
}

int cmd_create_qp(struct cmd_ctx *c)
{
	struct orca_engine *eng = c->eng;
	struct orca_cmd_create_qp in;
	struct qp_refs refs;
	struct emu_qp *qp;
	uint32_t flags;
	int64_t qpn;
	int st;

	memcpy(&in, c->cmd.in, sizeof(in));
	flags = le32toh(in.flags);
	if ((in.qp_type != ORCA_QPT_RC && in.qp_type != ORCA_QPT_UC &&
	     in.qp_type != ORCA_QPT_UD && in.qp_type != ORCA_QPT_GSI &&
	     in.qp_type != ORCA_QPT_XRC_INI &&
	     in.qp_type != ORCA_QPT_XRC_TGT) ||
	    (flags & ~(ORCA_QP_F_SQ_SIG_ALL | ORCA_QP_F_USE_SRQ)))
		return cmd_fail(c, ORCA_CMD_ST_BAD_PARAM);
	st = qp_check_xrc(c, &in);
	if (st)
		return st;
	if (in.qp_type == ORCA_QPT_GSI && eng->gsi_qp)
		return cmd_fail(c, ORCA_CMD_ST_BUSY);
	st = qp_get_refs(c, &in, &refs);
	if (st)
		return st;
	if (in.qp_type != ORCA_QPT_XRC_TGT) {
		st = qp_check_geometry(c, &in);
		if (st)
			return st;
	}

	qp = calloc(1, sizeof(*qp));
	if (!qp)
		return cmd_fail(c, ORCA_CMD_ST_NO_RESOURCES);
	st = qp_load(c, &in, qp);
	if (st)
		goto err;
	qp->resp_res = 1;
	if (in.qp_type == ORCA_QPT_GSI) {
		qpn = EMU_QPN_GSI;
		eng->gsi_qp = qp;
	} else {
		qpn = objtab_alloc(&eng->qps, qp);
		if (qpn < 0) {
			st = cmd_fail(c, ORCA_CMD_ST_NO_RESOURCES);
			goto err;
		}
	}
	qp->qpn = qpn;
	qp->serial = ++eng->qp_serial;
	qp->type = in.qp_type;
	qp->flags = flags;
	qp->state = ORCA_QPS_RESET;
	qp->pdn = le32toh(in.pdn);
	qp->send_cqn = le32toh(in.send_cqn);
	qp->recv_cqn = le32toh(in.recv_cqn);
	qp->srqn = flags & ORCA_QP_F_USE_SRQ ? le32toh(in.srqn) : 0;
	qp->uar = le32toh(in.uar);
	qp->xrcdn = le32toh(in.xrcdn);
	qp->db_rec = le64toh(in.db_rec_addr);
	qp->log_sq_depth = in.log_sq_depth;
	qp->log_rq_depth = in.log_rq_depth;
	qp->max_send_sge = in.max_send_sge;
	qp->max_recv_sge = in.max_recv_sge;
	qp->max_inline = le16toh(in.max_inline_data);
	qp->sq_npages = le32toh(in.sq_npages);
	qp->attr.port = 1;
	qp_put_refs(eng, qp, 1);
	engine_qp_reset_event_idx(eng, qp);
	cmd_set_handle(c, qpn);
	return ORCA_CMD_ST_OK;
err:
	engine_pages_free(&qp->buf);
	free(qp);
	return st;
}

/* Range checks for every attribute present in @mask. */
static int qp_check_attr_values(struct cmd_ctx *c,
				const struct orca_qp_attr *a, uint32_t mask)
{
	if ((mask & ORCA_QP_ATTR_ACCESS_FLAGS) &&
	    (le32toh(a->access) & ~ORCA_QP_ACCESS_ALL))
		return cmd_fail(c, ORCA_CMD_ST_BAD_PARAM);
	/* One port, one P_Key (the default, at index 0). */
	if ((mask & ORCA_QP_ATTR_PKEY_INDEX) && le16toh(a->pkey_index) != 0)
		return cmd_fail(c, ORCA_CMD_ST_BAD_PARAM);
	if ((mask & ORCA_QP_ATTR_PORT) && a->port != 1)
		return cmd_fail(c, ORCA_CMD_ST_BAD_PARAM);
	if ((mask & ORCA_QP_ATTR_AV) && cmd_av_check(c->eng, &a->av))
		return cmd_fail(c, ORCA_CMD_ST_BAD_PARAM);
	if ((mask & ORCA_QP_ATTR_PATH_MTU) &&
	    (a->path_mtu < 1 || a->path_mtu > EMU_MAX_IB_MTU))
		return cmd_fail(c, ORCA_CMD_ST_BAD_PARAM);
	if ((mask & ORCA_QP_ATTR_TIMEOUT) && a->timeout > 31)
		return cmd_fail(c, ORCA_CMD_ST_BAD_PARAM);
	if ((mask & ORCA_QP_ATTR_RETRY_CNT) && a->retry_cnt > 7)
		return cmd_fail(c, ORCA_CMD_ST_BAD_PARAM);
	if ((mask & ORCA_QP_ATTR_RNR_RETRY) && a->rnr_retry > 7)
		return cmd_fail(c, ORCA_CMD_ST_BAD_PARAM);
	if ((mask & ORCA_QP_ATTR_MIN_RNR_TIMER) && a->min_rnr_timer > 31)
		return cmd_fail(c, ORCA_CMD_ST_BAD_PARAM);
	if ((mask & ORCA_QP_ATTR_MAX_QP_RD_ATOMIC) &&
	    a->max_rd_atomic > EMU_MAX_RD_ATOM)
		return cmd_fail(c, ORCA_CMD_ST_BAD_PARAM);
	if ((mask & ORCA_QP_ATTR_MAX_DEST_RD_ATOMIC) &&
	    a->max_dest_rd_atomic > EMU_MAX_RD_ATOM)
		return cmd_fail(c, ORCA_CMD_ST_BAD_PARAM);
	if ((mask & ORCA_QP_ATTR_RQ_PSN) && le32toh(a->rq_psn) > QP_24BIT)
		return cmd_fail(c, ORCA_CMD_ST_BAD_PARAM);
	if ((mask & ORCA_QP_ATTR_SQ_PSN) && le32toh(a->sq_psn) > QP_24BIT)
		return cmd_fail(c, ORCA_CMD_ST_BAD_PARAM);
	if ((mask & ORCA_QP_ATTR_DEST_QPN) && le32toh(a->dest_qpn) > QP_24BIT)
		return cmd_fail(c, ORCA_CMD_ST_BAD_PARAM);
	return ORCA_CMD_ST_OK;
}

static void qp_apply_attr(struct emu_qp *qp, const struct orca_qp_attr *a,
			  uint32_t mask)
{
	struct orca_qp_attr *s = &qp->attr;

#define COPY(bit, field)			\
	do {					\
		if (mask & ORCA_QP_ATTR_##bit)	\
			s->field = a->field;	\
	} while (0)
	COPY(ACCESS_FLAGS, access);
	COPY(PKEY_INDEX, pkey_index);
	COPY(PORT, port);
	COPY(QKEY, qkey);
	COPY(AV, av);
	COPY(PATH_MTU, path_mtu);
	COPY(TIMEOUT, timeout);
	COPY(RETRY_CNT, retry_cnt);
	COPY(RNR_RETRY, rnr_retry);
	COPY(RQ_PSN, rq_psn);
	COPY(MAX_QP_RD_ATOMIC, max_rd_atomic);
	COPY(MIN_RNR_TIMER, min_rnr_timer);
	COPY(SQ_PSN, sq_psn);
	COPY(MAX_DEST_RD_ATOMIC, max_dest_rd_atomic);
	COPY(DEST_QPN, dest_qpn);
#undef COPY
	memset(s->av.rsvd, 0, sizeof(s->av.rsvd));	/* we echo it in QUERY */
	qp->sqd_notify = mask & ORCA_QP_ATTR_EN_SQD_ASYNC;
}

/*
 * Responder resources beyond what the QP's budget holds: charged, and the
 * transport state grown, before anything else changes.  A QP keeps the
 * most it was ever given until it is destroyed.
 */
static int qp_reserve_responder(struct cmd_ctx *c, struct emu_qp *qp,
				const struct orca_qp_attr *a, uint32_t mask)
{
	uint32_t want = a->max_dest_rd_atomic;
	uint64_t more;
	int st;

	if (!(mask & ORCA_QP_ATTR_MAX_DEST_RD_ATOMIC) || want <= qp->resp_res)
		return ORCA_CMD_ST_OK;
	more = roce_resp_footprint(want) - roce_resp_footprint(qp->resp_res);
	st = cmd_pages_reserve(c, &qp->buf, more);
	if (st)
		return st;
	if (roce_qp_resp_grow(qp, want)) {
		engine_mem_uncharge(&c->eng->mem, more);
		qp->buf.charged -= more;
		return cmd_fail(c, ORCA_CMD_ST_NO_RESOURCES);
	}
	qp->resp_res = want;
	return ORCA_CMD_ST_OK;
}

int cmd_modify_qp(struct cmd_ctx *c)
{
	struct orca_qp_attr a;
	struct emu_qp *qp;
	uint32_t mask;
	uint8_t next;
	int st;

	memcpy(&a, c->cmd.in, sizeof(a));
	qp = engine_qp_lookup(c->eng, le32toh(a.qpn));
	if (!qp)
		return cmd_fail(c, ORCA_CMD_ST_BAD_HANDLE);
	mask = le32toh(a.attr_mask);
	if (mask & ~ORCA_QP_ATTR_SUPPORTED)
		return cmd_fail(c, ORCA_CMD_ST_BAD_PARAM);
	/* The driver's idea of the current state must be the device's. */
	if ((mask & ORCA_QP_ATTR_CUR_STATE) && a.cur_qp_state != qp->state)
		return cmd_fail(c, ORCA_CMD_ST_BAD_STATE);
	next = mask & ORCA_QP_ATTR_STATE ? a.qp_state : qp->state;
	if (next > ORCA_QPS_ERR)
		return cmd_fail(c, ORCA_CMD_ST_BAD_PARAM);
	st = engine_qp_check_transition(qp->type, qp->state, next, mask);
	if (st)
		return cmd_fail(c, st);
	st = qp_check_attr_values(c, &a, mask);
	if (st)
		return st;
	st = qp_reserve_responder(c, qp, &a, mask);
	if (st)
		return st;
	qp_apply_attr(qp, &a, mask);
	engine_qp_enter_state(c->eng, qp, next);
	return ORCA_CMD_ST_OK;
}

int cmd_query_qp(struct cmd_ctx *c)
{
	struct emu_qp *qp = engine_qp_lookup(c->eng, cmd_in_handle(c));
	uint32_t rq_psn, sq_psn;
	struct orca_qp_attr a;

	if (!qp)
		return cmd_fail(c, ORCA_CMD_ST_BAD_HANDLE);
	a = qp->attr;
	a.qpn = htole32(qp->qpn);
	a.attr_mask = htole32(ORCA_QP_ATTR_SUPPORTED);
	a.qp_state = qp->state;
	a.cur_qp_state = qp->state;
	a.sq_draining = 0;
	/* The transport's PSNs, not the ones MODIFY_QP started them at. */
	if (roce_qp_psns(qp, &rq_psn, &sq_psn)) {
		if (qp->state >= ORCA_QPS_RTR && qp->state <= ORCA_QPS_SQE)
			a.rq_psn = htole32(rq_psn);
		if (qp->state >= ORCA_QPS_RTS && qp->state <= ORCA_QPS_SQE)
			a.sq_psn = htole32(sq_psn);
	}
	return cmd_write_out(c, &a, sizeof(a));
}

int cmd_destroy_qp(struct cmd_ctx *c)
{
	struct orca_engine *eng = c->eng;
	uint32_t qpn = cmd_in_handle(c);
	struct emu_qp *qp = engine_qp_lookup(eng, qpn);

	if (!qp)
		return cmd_fail(c, ORCA_CMD_ST_BAD_HANDLE);
	/* Any state: the data path must forget the QP before this returns. */
	qp_put_refs(eng, qp, -1);
	engine_mcg_forget_qp(eng, qpn);
	if (qpn == EMU_QPN_GSI)
		eng->gsi_qp = NULL;
	else
		objtab_remove(&eng->qps, qpn);
	engine_qp_release(qp, NULL);
	return ORCA_CMD_ST_OK;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Shared receive queues: CREATE_SRQ (since 1.5 tagged: CQEs report the
 * WQE's tag, roce_resp.c; since 1.6 XRC SRQs of a domain, with their own
 * CQ, which XRC target QPs find by the XRCETH, roce_xrc.c), MODIFY_SRQ
 * (arm the limit; since 1.4 resize), QUERY_SRQ, DESTROY_SRQ.  The SRQ
 * keeps its page list and doorbell record for the data path; QPs bound to
 * it hold a reference, an XRC SRQ holds one on its CQ and its domain.
 */
#include <endian.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "cmd_handlers.h"
#include "roce/roce.h"

/*
 * The XRC part of CREATE_SRQ (1.6): with ORCA_CREATE_SRQ_F_XRC a CQ and
 * a domain that exist, without it both 0; rsvd1 0 either way.
 */
static int srq_check_xrc(struct cmd_ctx *c,
			 const struct orca_cmd_create_srq *in,
			 struct emu_cq **cq, struct emu_xrcd **xrcd)
{
	struct orca_engine *eng = c->eng;

	*cq = NULL;
	*xrcd = NULL;
	if (in->rsvd1)
		return cmd_fail(c, ORCA_CMD_ST_BAD_PARAM);
	if (!(in->flags & ORCA_CREATE_SRQ_F_XRC)) {
		if (in->cqn || in->xrcdn)
			return cmd_fail(c, ORCA_CMD_ST_BAD_PARAM);
		return ORCA_CMD_ST_OK;
	}
	*cq = objtab_get(&eng->cqs, le32toh(in->cqn));
	*xrcd = objtab_get(&eng->xrcds, le32toh(in->xrcdn));
	if (!*cq || !*xrcd)
		return cmd_fail(c, ORCA_CMD_ST_BAD_HANDLE);
	return ORCA_CMD_ST_OK;
}

int cmd_create_srq(struct cmd_ctx *c)
{
	struct orca_engine *eng = c->eng;
	struct orca_cmd_create_srq in;
	struct emu_xrcd *xrcd;
	struct emu_srq *srq;
	struct emu_uar *uar;
	struct emu_cq *cq;
	struct emu_pd *pd;
	uint32_t npages;
	int64_t srqn;
	int st;

	memcpy(&in, c->cmd.in, sizeof(in));
	pd = objtab_get(&eng->pds, le32toh(in.pdn));
	uar = objtab_get(&eng->uars, le32toh(in.uar));
	if (!pd || !uar)
		return cmd_fail(c, ORCA_CMD_ST_BAD_HANDLE);
	if (in.log_depth < ORCA_MIN_LOG_DEPTH ||
	    in.log_depth > EMU_LOG_MAX_WQ ||
	    in.max_sge > ORCA_MAX_SGE ||
	    in.page_shift < ORCA_MIN_PAGE_SHIFT ||
	    in.page_shift > ORCA_MAX_PAGE_SHIFT ||
	    le32toh(in.limit) >= (1u << in.log_depth) ||
	    (in.flags & ~(ORCA_CREATE_SRQ_F_TAG | ORCA_CREATE_SRQ_F_XRC)))
		return cmd_fail(c, ORCA_CMD_ST_BAD_PARAM);
	st = srq_check_xrc(c, &in, &cq, &xrcd);
	if (st)
		return st;
	npages = orca_queue_npages((uint64_t)orca_recv_wqe_stride(in.max_sge)
				   << in.log_depth, in.page_shift);
	if (le32toh(in.npages) != npages)
		return cmd_fail(c, ORCA_CMD_ST_BAD_PARAM);

	srq = calloc(1, sizeof(*srq));
	if (!srq)
		return cmd_fail(c, ORCA_CMD_ST_NO_RESOURCES);
	st = cmd_load_pages(c, &srq->buf, 0, npages, in.page_shift,
			    le64toh(in.page_addr), true);
	if (st)
		goto err;
	st = cmd_check_db_rec(c, le64toh(in.db_rec_addr),
			      sizeof(struct orca_srq_db_rec));
	if (st)
		goto err;
	srqn = objtab_alloc(&eng->srqs, srq);
	if (srqn < 0) {
		st = cmd_fail(c, ORCA_CMD_ST_NO_RESOURCES);
		goto err;
	}
	srq->srqn = srqn;
	srq->pdn = le32toh(in.pdn);
	srq->log_depth = in.log_depth;
	srq->max_sge = in.max_sge;
	srq->tagged = in.flags & ORCA_CREATE_SRQ_F_TAG;
	srq->limit = le32toh(in.limit);
	srq->uar = le32toh(in.uar);
	srq->db_rec = le64toh(in.db_rec_addr);
	pd->refcnt++;
	uar->refcnt++;
	if (in.flags & ORCA_CREATE_SRQ_F_XRC) {
		srq->xrc = true;
		srq->cqn = le32toh(in.cqn);
		srq->xrcdn = le32toh(in.xrcdn);
		cq->refcnt++;
		xrcd->refcnt++;
	}
	{
		/*
		 * An event index no post passes: the engine reads the SRQ's
		 * producer index when a QP needs a WQE, and never needs its
		 * doorbell (its WQEs are not flushed).
		 */
		struct orca_srq_db_rec *rec = engine_dma(eng, srq->db_rec,
							 sizeof(*rec));

		if (rec)
			atomic_store_explicit((_Atomic __le32 *)
					      &rec->event_idx,
					      htole32(ORCA_EVENT_IDX_BEHIND),
					      memory_order_release);
	}
	cmd_set_handle(c, srqn);
	return ORCA_CMD_ST_OK;
err:
	engine_pages_free(&srq->buf);
	free(srq);
	return st;
}

/*
 * The resize of MODIFY_SRQ (1.4): the posted, unconsumed WQEs (from the
 * adapter's consumer index to the producer index of the doorbell record)
 * move to the new ring at the same indices, so they are taken in the same
 * order and the driver's index-to-slot map stays index & (depth - 1).
 * Everything is checked, and the new ring loaded, before anything changes:
 * a refused resize leaves the SRQ on its old ring.
 */
static int srq_resize(struct cmd_ctx *c, struct emu_srq *srq,
		      const struct orca_cmd_modify_srq *in)
{
	struct orca_engine *eng = c->eng;
	uint32_t stride = orca_recv_wqe_stride(srq->max_sge);
	uint32_t old_mask = (1u << srq->log_depth) - 1;
	uint32_t new_mask = (1u << in->log_depth) - 1;
	struct orca_srq_db_rec *rec;
	uint32_t npages, pi, idx;
	struct emu_pages buf;
	int st;

	if (in->page_shift < ORCA_MIN_PAGE_SHIFT ||
	    in->page_shift > ORCA_MAX_PAGE_SHIFT)
		return cmd_fail(c, ORCA_CMD_ST_BAD_PARAM);
	npages = orca_queue_npages((uint64_t)stride << in->log_depth,
				   in->page_shift);
	if (le32toh(in->npages) != npages)
		return cmd_fail(c, ORCA_CMD_ST_BAD_PARAM);
	rec = engine_dma(eng, srq->db_rec, sizeof(*rec));
	if (!rec)
		return cmd_fail(c, ORCA_CMD_ST_DMA_ERROR);
	pi = le32toh(atomic_load_explicit((_Atomic __le32 *)&rec->pi,
					  memory_order_acquire));
	/* The posted WQEs must fit; more than the old ring holds is bogus. */
	if (pi - srq->ci > old_mask + 1 || pi - srq->ci > new_mask + 1)
		return cmd_fail(c, ORCA_CMD_ST_BAD_PARAM);
	st = cmd_load_pages(c, &buf, 0, npages, in->page_shift,
			    le64toh(in->page_addr), true);
	if (st)
		return st;
	for (idx = srq->ci; idx != pi; idx++) {
		const void *from = engine_pages_entry(eng, &srq->buf,
						      (uint64_t)(idx & old_mask) *
						      stride, stride);
		void *to = engine_pages_entry(eng, &buf,
					      (uint64_t)(idx & new_mask) *
					      stride, stride);

		if (!from || !to) {
			engine_pages_free(&buf);
			return cmd_fail(c, ORCA_CMD_ST_DMA_ERROR);
		}
		memmove(to, from, stride);
	}
	engine_pages_free(&srq->buf);
	srq->buf = buf;
	srq->log_depth = in->log_depth;
	return ORCA_CMD_ST_OK;
}

int cmd_modify_srq(struct cmd_ctx *c)
{
	struct orca_cmd_modify_srq in;
	struct emu_srq *srq;
	uint32_t flags, limit;
	uint8_t log_depth;
	int st;

	memcpy(&in, c->cmd.in, sizeof(in));
	srq = objtab_get(&c->eng->srqs, le32toh(in.srqn));
	if (!srq)
		return cmd_fail(c, ORCA_CMD_ST_BAD_HANDLE);
	flags = le32toh(in.flags);
	if (flags & ~(ORCA_MODIFY_SRQ_F_RESIZE | ORCA_MODIFY_SRQ_F_KEEP_LIMIT))
		return cmd_fail(c, ORCA_CMD_ST_BAD_PARAM);
	log_depth = srq->log_depth;
	if (flags & ORCA_MODIFY_SRQ_F_RESIZE) {
		if (in.log_depth < ORCA_MIN_LOG_DEPTH ||
		    in.log_depth > EMU_LOG_MAX_WQ)
			return cmd_fail(c, ORCA_CMD_ST_BAD_PARAM);
		log_depth = in.log_depth;
	}
	limit = flags & ORCA_MODIFY_SRQ_F_KEEP_LIMIT ? srq->limit :
						       le32toh(in.limit);
	/* IB: the limit must be below the SRQ's capacity. */
	if (limit >= (1u << log_depth))
		return cmd_fail(c, ORCA_CMD_ST_BAD_PARAM);
	if (flags & ORCA_MODIFY_SRQ_F_RESIZE) {
		st = srq_resize(c, srq, &in);
		if (st)
			return st;
	}
	srq->limit = limit;
	return ORCA_CMD_ST_OK;
}

int cmd_query_srq(struct cmd_ctx *c)
{
	struct emu_srq *srq = objtab_get(&c->eng->srqs, cmd_in_handle(c));
	uint32_t limit;

	if (!srq)
		return cmd_fail(c, ORCA_CMD_ST_BAD_HANDLE);
	limit = htole32(srq->limit);
	memcpy(c->out, &limit, sizeof(limit));
	return ORCA_CMD_ST_OK;
}

int cmd_destroy_srq(struct cmd_ctx *c)
{
	struct orca_engine *eng = c->eng;
	uint32_t srqn = cmd_in_handle(c);
	struct emu_srq *srq = objtab_get(&eng->srqs, srqn);
	struct emu_uar *uar;
	struct emu_pd *pd;

	if (!srq)
		return cmd_fail(c, ORCA_CMD_ST_BAD_HANDLE);
	if (srq->refcnt)
		return cmd_fail(c, ORCA_CMD_ST_BUSY);
	pd = objtab_get(&eng->pds, srq->pdn);
	uar = objtab_get(&eng->uars, srq->uar);
	if (pd)
		pd->refcnt--;
	if (uar)
		uar->refcnt--;
	if (srq->xrc) {
		struct emu_cq *cq = objtab_get(&eng->cqs, srq->cqn);
		struct emu_xrcd *xrcd = objtab_get(&eng->xrcds, srq->xrcdn);

		if (cq)
			cq->refcnt--;
		if (xrcd)
			xrcd->refcnt--;
		/* No QP holds an XRC SRQ: a target may hold one of its WQEs. */
		roce_srq_forget(eng, srqn);
	}
	objtab_remove(&eng->srqs, srqn);
	engine_pages_free(&srq->buf);
	free(srq);
	return ORCA_CMD_ST_OK;
}

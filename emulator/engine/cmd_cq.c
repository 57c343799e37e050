// SPDX-License-Identifier: GPL-2.0
/*
 * Completion queues: CREATE_CQ, RESIZE_CQ, DESTROY_CQ, QUERY_CQ, MODIFY_CQ.
 * A CQ is bound to an EQ (its COMP events) and a UAR, and keeps its page
 * list and doorbell record for the data path.  RESIZE_CQ validates the new
 * buffer completely before swapping it in, so a failed resize leaves the
 * CQ untouched, and carries the unpolled CQEs over so that indices continue
 * across it.  MODIFY_CQ sets the event moderation that roce_cq.c applies.
 */
#include <endian.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cmd_handlers.h"
#include "roce/roce.h"

/* Checks depth and page count; loads the CQE buffer's page list. */
static int cq_load_buf(struct cmd_ctx *c, struct emu_pages *buf,
		       uint8_t log_depth, uint8_t page_shift, uint32_t npages,
		       uint64_t page_addr)
{
	if (log_depth < ORCA_MIN_LOG_DEPTH ||
	    log_depth > EMU_LOG_MAX_CQ ||
	    page_shift < ORCA_MIN_PAGE_SHIFT ||
	    page_shift > ORCA_MAX_PAGE_SHIFT)
		return cmd_fail(c, ORCA_CMD_ST_BAD_PARAM);
	if (npages != orca_queue_npages((uint64_t)sizeof(struct orca_cqe) <<
					log_depth, page_shift))
		return cmd_fail(c, ORCA_CMD_ST_BAD_PARAM);
	return cmd_load_pages(c, buf, 0, npages, page_shift, page_addr, true);
}

int cmd_create_cq(struct cmd_ctx *c)
{
	struct orca_engine *eng = c->eng;
	struct orca_cmd_create_cq in;
	struct emu_uar *uar;
	struct emu_eq *eq;
	struct emu_cq *cq;
	int64_t cqn;
	int st;

	memcpy(&in, c->cmd.in, sizeof(in));
	eq = objtab_get(&eng->eqs, le16toh(in.eqn));
	uar = objtab_get(&eng->uars, le32toh(in.uar));
	if (!eq || !uar)
		return cmd_fail(c, ORCA_CMD_ST_BAD_HANDLE);
	cq = calloc(1, sizeof(*cq));
	if (!cq)
		return cmd_fail(c, ORCA_CMD_ST_NO_RESOURCES);
	timer_node_init(&cq->mod_timer);
	st = cq_load_buf(c, &cq->buf, in.log_depth, in.page_shift,
			 le32toh(in.npages), le64toh(in.page_addr));
	if (st)
		goto err;
	st = cmd_check_db_rec(c, le64toh(in.db_rec_addr),
			      sizeof(struct orca_cq_db_rec));
	if (st)
		goto err;
	cqn = objtab_alloc(&eng->cqs, cq);
	if (cqn < 0) {
		st = cmd_fail(c, ORCA_CMD_ST_NO_RESOURCES);
		goto err;
	}
	cq->cqn = cqn;
	cq->log_depth = in.log_depth;
	cq->eqn = le16toh(in.eqn);
	cq->uar = le32toh(in.uar);
	cq->db_rec = le64toh(in.db_rec_addr);
	eq->refcnt++;
	uar->refcnt++;
	cmd_set_handle(c, cqn);
	return ORCA_CMD_ST_OK;
err:
	engine_pages_free(&cq->buf);
	free(cq);
	return st;
}

static struct orca_cqe *cqe_at(struct orca_engine *eng,
			       const struct emu_pages *buf, uint8_t log_depth,
			       uint32_t i)
{
	uint32_t slot = i & ((1u << log_depth) - 1);

	return engine_pages_entry(eng, buf,
				  (uint64_t)slot * sizeof(struct orca_cqe),
				  sizeof(struct orca_cqe));
}

/* The phase bit CQE @i carries when valid in a CQ of 1 << @log_depth. */
static uint8_t cqe_phase(uint32_t i, uint8_t log_depth)
{
	return ((i >> log_depth) & 1) ? 0 : ORCA_CQE_F_PHASE;
}

/*
 * Moves the unpolled CQEs ci .. pi - 1 into the new buffer with the new
 * geometry's phase, and marks every other slot "not yet written" for the
 * next index that lands in it, so the driver's ci carries on unchanged.
 * Returns false if the old buffer is no longer reachable.
 */
static bool cq_move_cqes(struct orca_engine *eng, struct emu_cq *cq,
			 const struct emu_pages *buf, uint8_t log_depth,
			 uint32_t ci)
{
	uint32_t i;

	for (i = ci; i != cq->pi; i++) {
		struct orca_cqe *src = cqe_at(eng, &cq->buf, cq->log_depth, i);
		struct orca_cqe *dst = cqe_at(eng, buf, log_depth, i);

		if (!src || !dst)
			return false;
		memcpy(dst, src, offsetof(struct orca_cqe, flags));
		atomic_store_explicit((_Atomic uint8_t *)&dst->flags,
				      (src->flags & ~ORCA_CQE_F_PHASE) |
				      cqe_phase(i, log_depth),
				      memory_order_release);
	}
	for (i = cq->pi; i != ci + (1u << log_depth); i++) {
		struct orca_cqe *dst = cqe_at(eng, buf, log_depth, i);

		if (!dst)
			return false;
		memset(dst, 0, offsetof(struct orca_cqe, flags));
		atomic_store_explicit((_Atomic uint8_t *)&dst->flags,
				      cqe_phase(i, log_depth) ^
				      ORCA_CQE_F_PHASE, memory_order_release);
	}
	return true;
}

int cmd_resize_cq(struct cmd_ctx *c)
{
	struct orca_engine *eng = c->eng;
	struct orca_cmd_resize_cq in;
	struct orca_cq_db_rec *rec;
	struct emu_pages buf;
	struct emu_cq *cq;
	uint32_t ci, used;
	int st;

	memcpy(&in, c->cmd.in, sizeof(in));
	cq = objtab_get(&eng->cqs, le32toh(in.cqn));
	if (!cq)
		return cmd_fail(c, ORCA_CMD_ST_BAD_HANDLE);
	rec = engine_dma(eng, cq->db_rec, sizeof(*rec));
	if (!rec)
		return cmd_fail(c, ORCA_CMD_ST_DMA_ERROR);
	ci = le32toh(atomic_load_explicit((_Atomic uint32_t *)&rec->ci,
					  memory_order_acquire));
	/* Unpolled CQEs must fit; a ci the device never reached is bogus. */
	used = cq->pi - ci;
	if (used > (1u << cq->log_depth) ||
	    (in.log_depth <= EMU_LOG_MAX_CQ && used > (1u << in.log_depth)))
		return cmd_fail(c, ORCA_CMD_ST_BAD_PARAM);
	st = cq_load_buf(c, &buf, in.log_depth, in.page_shift,
			 le32toh(in.npages), le64toh(in.page_addr));
	if (st)
		return st;
	if (!cq_move_cqes(eng, cq, &buf, in.log_depth, ci)) {
		engine_pages_free(&buf);
		return cmd_fail(c, ORCA_CMD_ST_DMA_ERROR);
	}
	engine_pages_free(&cq->buf);
	cq->buf = buf;
	cq->log_depth = in.log_depth;
	return ORCA_CMD_ST_OK;
}

/*
 * The CQ as the engine sees it: its producer index, and the doorbell
 * record's ci and arm word read now (zero if the record is unreachable:
 * the query still answers, it is for diagnosis).
 */
int cmd_query_cq(struct cmd_ctx *c)
{
	struct emu_cq *cq = objtab_get(&c->eng->cqs, cmd_in_handle(c));
	struct orca_cq_db_rec *rec;
	struct orca_cq_attr a;
	uint32_t ci = 0, arm = 0;

	if (!cq)
		return cmd_fail(c, ORCA_CMD_ST_BAD_HANDLE);
	rec = engine_dma(c->eng, cq->db_rec, sizeof(*rec));
	if (rec) {
		ci = le32toh(atomic_load_explicit((_Atomic uint32_t *)&rec->ci,
						  memory_order_acquire));
		arm = le32toh(atomic_load_explicit((_Atomic uint32_t *)&rec->arm,
						   memory_order_acquire));
	}
	memset(&a, 0, sizeof(a));
	a.cqn = htole32(cq->cqn);
	a.eqn = htole32(cq->eqn);
	a.pi = htole32(cq->pi);
	a.ci = htole32(ci);
	a.arm = htole32(arm);
	a.arm_fired = htole32(cq->arm_fired);
	a.overruns = htole32(cq->overruns);
	a.log_depth = cq->log_depth;
	if ((arm & (ORCA_CQ_ARM_ANY | ORCA_CQ_ARM_SOLICITED)) &&
	    FIELD_GET(ORCA_CQ_ARM_SEQ, arm) != cq->arm_fired)
		a.flags |= ORCA_CQ_ATTR_F_ARMED;
	if (cq->overrun)
		a.flags |= ORCA_CQ_ATTR_F_OVERRUN;
	return cmd_write_out(c, &a, sizeof(a));
}

/*
 * MODIFY_CQ (1.3): the CQ's event moderation.  Everything is checked
 * before anything changes, so a refused command leaves the CQ as it was.
 */
int cmd_modify_cq(struct cmd_ctx *c)
{
	struct orca_cmd_modify_cq in;
	struct emu_cq *cq;
	uint16_t count, period;

	memcpy(&in, c->cmd.in, sizeof(in));
	cq = objtab_get(&c->eng->cqs, le32toh(in.cqn));
	if (!cq)
		return cmd_fail(c, ORCA_CMD_ST_BAD_HANDLE);
	count = le16toh(in.count);
	period = le16toh(in.period);
	if (count > EMU_MAX_CQ_MOD_COUNT || period > EMU_MAX_CQ_MOD_PERIOD)
		return cmd_fail(c, ORCA_CMD_ST_BAD_PARAM);
	if (roce_cq_set_moderation(c->eng, cq, count, period))
		return cmd_fail(c, ORCA_CMD_ST_NO_RESOURCES);
	return ORCA_CMD_ST_OK;
}

int cmd_destroy_cq(struct cmd_ctx *c)
{
	struct orca_engine *eng = c->eng;
	uint32_t cqn = cmd_in_handle(c);
	struct emu_cq *cq = objtab_get(&eng->cqs, cqn);
	struct emu_uar *uar;
	struct emu_eq *eq;

	if (!cq)
		return cmd_fail(c, ORCA_CMD_ST_BAD_HANDLE);
	if (cq->refcnt)
		return cmd_fail(c, ORCA_CMD_ST_BUSY);
	eq = objtab_get(&eng->eqs, cq->eqn);
	uar = objtab_get(&eng->uars, cq->uar);
	if (eq)
		eq->refcnt--;
	if (uar)
		uar->refcnt--;
	objtab_remove(&eng->cqs, cqn);
	roce_cq_forget(eng, cq);
	engine_pages_free(&cq->buf);
	free(cq);
	return ORCA_CMD_ST_OK;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * On-demand paging's commands (1.10, commands.rst): SET_ODP (the fault
 * record table and the budget), CREATE_MR's on-demand MRs, MR_INSTALL
 * (translations in, and a fault resumed or failed) and MR_INVALIDATE
 * (translations out).
 *
 * An on-demand MR's page list holds translation entries (ORCA_XLT_*: the
 * page's DMA address and its rights, 0 when not present) instead of bare
 * addresses; the transport reads them at each access (roce_mr.c).  That is
 * also why MR_INVALIDATE is a fence here: commands and the data path run
 * on one thread, every DMA translates when it happens and no translation
 * is cached, so once the entries are gone no access through them is in
 * progress or can begin.
 */
#include <endian.h>
#include <stdlib.h>
#include <string.h>

#include "cmd_handlers.h"

int cmd_set_odp(struct cmd_ctx *c)
{
	struct orca_engine *eng = c->eng;
	struct emu_odp *o = &eng->odp;
	struct orca_cmd_set_odp in;
	uint64_t table, bytes;
	uint32_t ms;
	uint16_t n;
	int st;

	memcpy(&in, c->cmd.in, sizeof(in));
	table = le64toh(in.fault_table);
	n = le16toh(in.max_faults);
	ms = le32toh(in.fault_timeout_ms);
	if (!n || n > EMU_ODP_MAX_FAULTS || !table || (table & 63) ||
	    (ms && (ms < EMU_ODP_MIN_TIMEOUT_MS || ms > EMU_ODP_TIMEOUT_MS)))
		return cmd_fail(c, ORCA_CMD_ST_BAD_PARAM);
	/* Faults name slots of the table in use: not while MRs may fault. */
	if (o->on_demand_mrs)
		return cmd_fail(c, ORCA_CMD_ST_BAD_STATE);
	bytes = 64ull * n;
	if (!engine_dma(eng, table, bytes))
		return cmd_fail(c, ORCA_CMD_ST_DMA_ERROR);
	engine_mem_uncharge(&eng->mem, o->charged);
	o->charged = 0;
	st = cmd_mem_charge(c, (uint64_t)EMU_ODP_SLOT_COST * n);
	if (st) {
		o->table = 0;
		o->max_faults = 0;
		return st;
	}
	o->charged = (uint64_t)EMU_ODP_SLOT_COST * n;
	o->table = table;
	o->max_faults = n;
	o->timeout_ms = ms ? ms : EMU_ODP_TIMEOUT_MS;
	for (uint32_t i = 0; i < EMU_ODP_MAX_FAULTS; i++)
		o->slot[i].busy = false;
	o->outstanding = 0;
	atomic_store(&o->next_deadline_us, 0);
	return ORCA_CMD_ST_OK;
}

/*
 * CREATE_MR with ORCA_MR_F_ON_DEMAND: a page-list MR whose entries start
 * "not present"; its table costs 8 bytes a page of the span, as a pinned
 * MR's page list does.  With ORCA_MR_F_IMPLICIT: the MR spans
 * [0, 2^EMU_ODP_VA_BITS) and its table is sparse (xlt_sparse.c), charged
 * by the leaf as installs fill it.
 */
int cmd_mr_on_demand(struct cmd_ctx *c, struct emu_mr *mr,
		     const struct orca_cmd_create_mr *in)
{
	uint8_t shift = in->page_shift;
	uint64_t span, psz;
	uint32_t npages;
	int st;

	if (!c->eng->odp.table)
		return cmd_fail(c, ORCA_CMD_ST_BAD_STATE);
	if (mr->flags & ORCA_MR_F_IMPLICIT) {
		/* The whole address space; leaves come with the installs. */
		if (in->npages || c->in_len || shift != ORCA_MIN_PAGE_SHIFT ||
		    mr->iova || mr->length)
			return cmd_fail(c, ORCA_CMD_ST_BAD_PARAM);
		mr->length = 1ull << EMU_ODP_VA_BITS;
		mr->pages.page_shift = shift;
		mr->xlt.mem = &c->eng->mem;
		c->eng->odp.on_demand_mrs++;
		return ORCA_CMD_ST_OK;
	}
	if (in->npages || c->in_len ||
	    shift < ORCA_MIN_PAGE_SHIFT || shift > ORCA_MAX_PAGE_SHIFT ||
	    !mr->length || mr->length > EMU_MAX_MR_SIZE ||
	    mr->iova + mr->length < mr->iova)
		return cmd_fail(c, ORCA_CMD_ST_BAD_PARAM);
	psz = 1ull << shift;
	span = (mr->iova & (psz - 1)) + mr->length;
	npages = orca_queue_npages(span, shift);
	if (span < mr->length || npages > EMU_MAX_MR_PAGES)
		return cmd_fail(c, ORCA_CMD_ST_BAD_PARAM);
	st = cmd_pages_reserve(c, &mr->pages, 8ull * npages);
	if (st)
		return st;
	mr->pages.addr = calloc(npages, sizeof(*mr->pages.addr));
	if (!mr->pages.addr) {
		engine_pages_free(&mr->pages);
		return cmd_fail(c, ORCA_CMD_ST_NO_RESOURCES);
	}
	mr->pages.npages = npages;
	mr->pages.page_shift = shift;
	c->eng->odp.on_demand_mrs++;
	return ORCA_CMD_ST_OK;
}

/* The on-demand MR an MR_INSTALL/MR_INVALIDATE names (its index bits). */
static struct emu_mr *odp_mr(struct cmd_ctx *c, uint32_t lkey)
{
	struct emu_mr *mr = objtab_get(&c->eng->mrs,
				       FIELD_GET(ORCA_MKEY_INDEX, lkey));

	if (!mr || mr->mw_type || !(mr->flags & ORCA_MR_F_ON_DEMAND))
		return NULL;
	return mr;
}

/*
 * Entries [first, first + n) of @mr's table for MR addresses [va, va + len):
 * false if @va or @len is not whole pages of the MR's span.
 */
static bool odp_range(const struct emu_mr *mr, uint64_t va, uint64_t len,
		      uint64_t *first, uint64_t *n)
{
	uint8_t shift = mr->pages.page_shift;
	uint64_t psz = 1ull << shift, base = mr->iova & ~(psz - 1);
	uint64_t idx, cnt, npages;

	if ((va & (psz - 1)) || (len & (psz - 1)) || va < base)
		return false;
	idx = (va - base) >> shift;
	cnt = len >> shift;
	npages = mr->flags & ORCA_MR_F_IMPLICIT ? mr->length >> shift :
		 mr->pages.npages;
	if (idx > npages || cnt > npages - idx)
		return false;
	*first = idx;
	*n = cnt;
	return true;
}

/* One entry of MR_INSTALL's list: rights that make sense, a mapped page. */
static bool xlt_ok(struct orca_engine *eng, const struct emu_mr *mr,
		   uint64_t e)
{
	uint64_t psz = 1ull << mr->pages.page_shift;
	uint64_t addr = e & ORCA_XLT_ADDR;

	if (!e)
		return true;		/* not present */
	if ((e & ~(ORCA_XLT_ADDR | ORCA_XLT_READ | ORCA_XLT_WRITE)) ||
	    !(e & ORCA_XLT_READ) || (addr & (psz - 1)))
		return false;
	if ((e & ORCA_XLT_WRITE) && !(mr->access & ORCA_ACCESS_LOCAL_WRITE))
		return false;
	return true;
}

int cmd_mr_install(struct cmd_ctx *c)
{
	struct orca_engine *eng = c->eng;
	struct orca_cmd_mr_install_out out = { 0 };
	struct orca_cmd_mr_install in;
	uint32_t flags, npages;
	uint64_t *list = NULL, first = 0, n = 0;
	struct emu_mr *mr;
	int st = ORCA_CMD_ST_OK;

	memcpy(&in, c->cmd.in, sizeof(in));
	flags = le32toh(in.flags);
	npages = le32toh(in.npages);
	if ((flags & ~(ORCA_MR_INSTALL_F_RESUME | ORCA_MR_INSTALL_F_FAIL)) ||
	    flags == (ORCA_MR_INSTALL_F_RESUME | ORCA_MR_INSTALL_F_FAIL) ||
	    ((flags & ORCA_MR_INSTALL_F_FAIL) && npages) ||
	    npages > EMU_ODP_MAX_INSTALL)
		return cmd_fail(c, ORCA_CMD_ST_BAD_PARAM);
	if (npages) {
		mr = odp_mr(c, le32toh(in.lkey));
		if (!mr)
			return cmd_fail(c, ORCA_CMD_ST_BAD_HANDLE);
		if (!odp_range(mr, le64toh(in.va),
			       (uint64_t)npages << mr->pages.page_shift,
			       &first, &n))
			return cmd_fail(c, ORCA_CMD_ST_BAD_PARAM);
		list = malloc(8ull * npages);
		if (!list)
			return cmd_fail(c, ORCA_CMD_ST_NO_RESOURCES);
		st = cmd_read_list(c, 0, npages, list);
		if (st)
			goto out;
		/* All or nothing: a bad entry changes no entry. */
		for (uint32_t i = 0; i < n; i++) {
			if (!xlt_ok(eng, mr, list[i])) {
				st = cmd_fail(c, ORCA_CMD_ST_BAD_PARAM);
				goto out;
			}
		}
		if (!(mr->flags & ORCA_MR_F_IMPLICIT)) {
			memcpy(mr->pages.addr + first, list, 8ull * n);
		} else if (engine_xlt_set(&mr->xlt, first, list,
					  (uint32_t)n)) {
			/* The budget, or the host: leaves not allocated. */
			st = cmd_fail(c, ORCA_CMD_ST_NO_RESOURCES);
			goto out;
		}
	}
	if (flags)
		out.resumed = engine_odp_resolve(eng, le32toh(in.token),
						 flags & ORCA_MR_INSTALL_F_FAIL);
	memcpy(c->out, &out, sizeof(out));
out:
	free(list);
	return st;
}

int cmd_mr_invalidate(struct cmd_ctx *c)
{
	struct orca_cmd_mr_invalidate in;
	uint64_t first = 0, n = 0;
	struct emu_mr *mr;
	uint32_t flags;

	memcpy(&in, c->cmd.in, sizeof(in));
	mr = odp_mr(c, le32toh(in.lkey));
	if (!mr)
		return cmd_fail(c, ORCA_CMD_ST_BAD_HANDLE);
	flags = le32toh(in.flags);
	if (flags & ~ORCA_MR_INVAL_F_ALL)
		return cmd_fail(c, ORCA_CMD_ST_BAD_PARAM);
	if (flags & ORCA_MR_INVAL_F_ALL) {
		n = mr->flags & ORCA_MR_F_IMPLICIT ?
		    mr->length >> mr->pages.page_shift : mr->pages.npages;
	} else if (!odp_range(mr, le64toh(in.va), le64toh(in.length), &first,
			      &n)) {
		return cmd_fail(c, ORCA_CMD_ST_BAD_PARAM);
	}
	/* The fence: see the top of this file. */
	if (mr->flags & ORCA_MR_F_IMPLICIT)
		engine_xlt_clear(&mr->xlt, first, n);
	else
		memset(mr->pages.addr + first, 0, 8ull * n);
	return ORCA_CMD_ST_OK;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Memory regions: CREATE_MR / DESTROY_MR.  Four kinds: a page-list MR
 * (user or kernel memory, its page list copied now because the driver may
 * free it after the command), a PHYS MR (all memory, iova = DMA address: the
 * kernel's DMA MR), a FAST_REG MR (keys only, max_pages reserved, invalid
 * until a REG_MR work request maps it) and an on-demand MR (1.10,
 * cmd_odp.c: its translations come later, by MR_INSTALL).  lkey = rkey = index << 8 | key.
 * DESTROY_MR takes the lkey as its handle; the key byte is not checked
 * because fast registration changes it behind the driver's back.  An MR
 * with memory windows bound to it is not destroyed (BUSY, IBA 10.6.7.2.6).
 *
 * Memory windows (1.4): ALLOC_MW / DEALLOC_MW.  A window takes an index of
 * the same table, so an rkey names either; BIND_MW work requests bind it
 * (roce_mr.c).
 */
#include <endian.h>
#include <stdlib.h>
#include <string.h>

#include "cmd_handlers.h"

static bool access_ok(uint32_t access)
{
	if (access & ~ORCA_ACCESS_ALL)
		return false;
	/* IB: remote write or atomic needs local write. */
	if ((access & (ORCA_ACCESS_REMOTE_WRITE | ORCA_ACCESS_REMOTE_ATOMIC)) &&
	    !(access & ORCA_ACCESS_LOCAL_WRITE))
		return false;
	return true;
}

/* Page-list MR: iova/length/npages must describe the same pages. */
static int mr_load_pages(struct cmd_ctx *c, struct emu_mr *mr,
			 const struct orca_cmd_create_mr *in)
{
	uint8_t shift = in->page_shift;
	uint64_t span, psz;
	uint32_t i;
	int st;

	if (shift < ORCA_MIN_PAGE_SHIFT || shift > ORCA_MAX_PAGE_SHIFT)
		return cmd_fail(c, ORCA_CMD_ST_BAD_PARAM);
	if (!mr->length || mr->length > EMU_MAX_MR_SIZE ||
	    mr->iova + mr->length < mr->iova)
		return cmd_fail(c, ORCA_CMD_ST_BAD_PARAM);
	psz = 1ull << shift;
	span = (mr->iova & (psz - 1)) + mr->length;
	if (span < mr->length ||
	    le32toh(in->npages) != orca_queue_npages(span, shift) ||
	    le32toh(in->npages) > EMU_MAX_MR_PAGES)
		return cmd_fail(c, ORCA_CMD_ST_BAD_PARAM);
	/* An MR has no inline page address: the list is always at in_addr. */
	st = cmd_fetch_page_list(c, &mr->pages, 0, le32toh(in->npages), shift,
				 0, false);
	if (st)
		return st;
	/*
	 * Only the bytes the MR covers must be mapped: with large pages the
	 * first and last page may reach beyond the memory behind the MR.
	 */
	for (i = 0; i < mr->pages.npages; i++) {
		uint64_t lo = i ? 0 : mr->iova & (psz - 1);
		uint64_t hi = i + 1 < mr->pages.npages ? psz :
			      span - (uint64_t)i * psz;

		if (!engine_dma(c->eng, mr->pages.addr[i] + lo, hi - lo)) {
			engine_pages_free(&mr->pages);
			return cmd_fail(c, ORCA_CMD_ST_DMA_ERROR);
		}
	}
	return ORCA_CMD_ST_OK;
}

int cmd_create_mr(struct cmd_ctx *c)
{
	struct orca_engine *eng = c->eng;
	struct orca_cmd_create_mr in;
	uint32_t flags, access;
	struct emu_mr *mr;
	struct emu_pd *pd;
	int64_t idx;
	int st;

	memcpy(&in, c->cmd.in, sizeof(in));
	pd = objtab_get(&eng->pds, le32toh(in.pdn));
	if (!pd)
		return cmd_fail(c, ORCA_CMD_ST_BAD_HANDLE);
	flags = le32toh(in.flags);
	access = le32toh(in.access);
	if (!access_ok(access) ||
	    (flags & ~(ORCA_MR_F_PHYS | ORCA_MR_F_FAST_REG |
		       ORCA_MR_F_ON_DEMAND | ORCA_MR_F_IMPLICIT)) ||
	    flags == (ORCA_MR_F_PHYS | ORCA_MR_F_FAST_REG) ||
	    ((flags & (ORCA_MR_F_ON_DEMAND | ORCA_MR_F_IMPLICIT)) &&
	     (flags & (ORCA_MR_F_PHYS | ORCA_MR_F_FAST_REG))) ||
	    ((flags & ORCA_MR_F_IMPLICIT) && !(flags & ORCA_MR_F_ON_DEMAND)))
		return cmd_fail(c, ORCA_CMD_ST_BAD_PARAM);

	mr = calloc(1, sizeof(*mr));
	if (!mr)
		return cmd_fail(c, ORCA_CMD_ST_NO_RESOURCES);
	mr->pdn = le32toh(in.pdn);
	mr->access = access;
	mr->flags = flags;
	mr->key = in.key;
	mr->iova = le64toh(in.iova);
	mr->length = le64toh(in.length);
	if (flags & ORCA_MR_F_FAST_REG) {
		mr->max_pages = le32toh(in.npages);
		/* The default page size of every REG_MR: a shift we can do. */
		if (!mr->max_pages || mr->max_pages > EMU_MAX_FRPL ||
		    in.page_shift < ORCA_MIN_PAGE_SHIFT ||
		    in.page_shift > ORCA_MAX_PAGE_SHIFT) {
			st = cmd_fail(c, ORCA_CMD_ST_BAD_PARAM);
			goto err;
		}
		/* REG_MR work requests make its page list on the data path. */
		st = cmd_pages_reserve(c, &mr->pages, 8ull * mr->max_pages);
		if (st)
			goto err;
		mr->iova = 0;
		mr->length = 0;
		mr->valid = false;
		/* REG_MR's page size when the WQE gives none (roce_mr.c). */
		mr->fr_page_shift = in.page_shift;
	} else if (flags & ORCA_MR_F_ON_DEMAND) {
		st = cmd_mr_on_demand(c, mr, &in);
		if (st)
			goto err;
		mr->valid = true;
	} else if (flags & ORCA_MR_F_PHYS) {
		mr->iova = 0;
		mr->length = UINT64_MAX;
		mr->valid = true;
	} else {
		st = mr_load_pages(c, mr, &in);
		if (st)
			goto err;
		mr->valid = true;
	}
	idx = objtab_alloc(&eng->mrs, mr);
	if (idx < 0) {
		st = cmd_fail(c, ORCA_CMD_ST_NO_RESOURCES);
		goto err;
	}
	mr->index = idx;
	pd->refcnt++;
	{
		uint32_t key = FIELD_PREP(ORCA_MKEY_INDEX, (uint32_t)idx) |
			       FIELD_PREP(ORCA_MKEY_KEY, mr->key);
		struct orca_cmd_create_mr_out out = {
			.lkey = htole32(key),
			.rkey = htole32(key),
		};

		memcpy(c->out, &out, sizeof(out));
	}
	return ORCA_CMD_ST_OK;
err:
	engine_pages_free(&mr->pages);
	free(mr);
	return st;
}

int cmd_destroy_mr(struct cmd_ctx *c)
{
	struct orca_engine *eng = c->eng;
	uint32_t idx = FIELD_GET(ORCA_MKEY_INDEX, cmd_in_handle(c));
	struct emu_mr *mr = objtab_get(&eng->mrs, idx);
	struct emu_pd *pd;

	if (!mr || mr->mw_type)
		return cmd_fail(c, ORCA_CMD_ST_BAD_HANDLE);
	if (mr->mw_binds)
		return cmd_fail(c, ORCA_CMD_ST_BUSY);
	pd = objtab_get(&eng->pds, mr->pdn);
	if (pd)
		pd->refcnt--;
	objtab_remove(&eng->mrs, idx);
	if (mr->flags & ORCA_MR_F_ON_DEMAND) {
		eng->odp.on_demand_mrs--;
		/* Its faults end: their QPs look again and find no MR. */
		engine_odp_cancel_mr(eng, idx);
	}
	engine_xlt_free(&mr->xlt);
	engine_pages_free(&mr->pages);
	free(mr);
	return ORCA_CMD_ST_OK;
}

int cmd_alloc_mw(struct cmd_ctx *c)
{
	struct orca_engine *eng = c->eng;
	struct orca_cmd_alloc_mw_out out = { 0 };
	struct orca_cmd_alloc_mw in;
	struct emu_mr *mw;
	struct emu_pd *pd;
	int64_t idx;

	memcpy(&in, c->cmd.in, sizeof(in));
	pd = objtab_get(&eng->pds, le32toh(in.pdn));
	if (!pd)
		return cmd_fail(c, ORCA_CMD_ST_BAD_HANDLE);
	if ((in.type != ORCA_MW_TYPE_1 && in.type != ORCA_MW_TYPE_2) ||
	    in.rsvd)
		return cmd_fail(c, ORCA_CMD_ST_BAD_PARAM);
	mw = calloc(1, sizeof(*mw));
	if (!mw)
		return cmd_fail(c, ORCA_CMD_ST_NO_RESOURCES);
	mw->pdn = le32toh(in.pdn);
	mw->key = in.key;
	mw->mw_type = in.type;
	/* Type 1 is valid and bound to nothing, type 2 free (IBA 10.6.7). */
	mw->valid = in.type == ORCA_MW_TYPE_1;
	idx = objtab_alloc(&eng->mrs, mw);
	if (idx < 0) {
		free(mw);
		return cmd_fail(c, ORCA_CMD_ST_NO_RESOURCES);
	}
	mw->index = idx;
	pd->refcnt++;
	out.rkey = htole32(FIELD_PREP(ORCA_MKEY_INDEX, (uint32_t)idx) |
			   FIELD_PREP(ORCA_MKEY_KEY, mw->key));
	memcpy(c->out, &out, sizeof(out));
	return ORCA_CMD_ST_OK;
}

int cmd_dealloc_mw(struct cmd_ctx *c)
{
	struct orca_engine *eng = c->eng;
	uint32_t idx = FIELD_GET(ORCA_MKEY_INDEX, cmd_in_handle(c));
	struct emu_mr *mw = objtab_get(&eng->mrs, idx);
	struct emu_pd *pd;

	if (!mw || !mw->mw_type)
		return cmd_fail(c, ORCA_CMD_ST_BAD_HANDLE);
	/* A bound window is unbound first: its MR may go then. */
	engine_mw_unbind(eng, mw);
	pd = objtab_get(&eng->pds, mw->pdn);
	if (pd)
		pd->refcnt--;
	objtab_remove(&eng->mrs, idx);
	free(mw);
	return ORCA_CMD_ST_OK;
}

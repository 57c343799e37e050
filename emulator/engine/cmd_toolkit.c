// SPDX-License-Identifier: GPL-2.0
/*
 * The command handlers' toolkit: what every handler uses to reach its
 * command's indirect input and output, page lists and doorbell records,
 * all of which are untrusted guest memory: lengths, alignment and mappings
 * are checked here before anything is read.  And the device memory budget
 * that what a command creates is charged to.
 */
#include <endian.h>
#include <stdlib.h>
#include <string.h>

#include "cmd_toolkit.h"

int cmd_write_out(struct cmd_ctx *c, const void *src, size_t len)
{
	void *dst;

	if (c->out_len < len)
		return cmd_fail(c, ORCA_CMD_ST_BAD_LENGTH);
	dst = engine_dma(c->eng, c->out_addr, len);
	if (!dst)
		return cmd_fail(c, ORCA_CMD_ST_DMA_ERROR);
	memcpy(dst, src, len);
	return ORCA_CMD_ST_OK;
}

/*
 * An output that grew in a minor version: out_len must cover its first
 * @min_len bytes (the older size), and min(out_len, @len) are written.
 */
int cmd_write_out_grown(struct cmd_ctx *c, const void *src, size_t len,
			size_t min_len)
{
	if (c->out_len < min_len)
		return cmd_fail(c, ORCA_CMD_ST_BAD_LENGTH);
	return cmd_write_out(c, src, c->out_len < len ? c->out_len : len);
}

void cmd_set_handle(struct cmd_ctx *c, uint32_t handle)
{
	struct orca_cmd_handle_out out = { .handle = htole32(handle) };

	memcpy(c->out, &out, sizeof(out));
}

/*
 * Takes @bytes of the device memory budget for what this command creates;
 * NO_RESOURCES if they are not there.
 */
int cmd_mem_charge(struct cmd_ctx *c, uint64_t bytes)
{
	struct emu_mem *m = &c->eng->mem;

	if (bytes > m->limit - m->used) {
		m->refused++;
		eng_log_guest("memory budget: command %#x refused %llu bytes (%llu of %llu in use)",
			      le16toh(c->cmd.opcode), (unsigned long long)bytes,
			      (unsigned long long)m->used,
			      (unsigned long long)m->limit);
		return cmd_fail(c, ORCA_CMD_ST_NO_RESOURCES);
	}
	m->used += bytes;
	if (m->used > m->peak)
		m->peak = m->used;
	return ORCA_CMD_ST_OK;
}

/* More budget that goes and returns with @p (a QP's transport state). */
int cmd_pages_reserve(struct cmd_ctx *c, struct emu_pages *p, uint64_t bytes)
{
	int st = cmd_mem_charge(c, bytes);

	if (st)
		return st;
	p->mem = &c->eng->mem;
	p->charged += bytes;
	return ORCA_CMD_ST_OK;
}

/*
 * Entries [first, first + n) of the command's list at in_addr (a chunk
 * chain with ORCA_CMD_F_IN_CHAIN) into @out, host endian: a status.
 */
int cmd_read_list(struct cmd_ctx *c, uint64_t first, uint32_t n,
		  uint64_t *out)
{
	bool chain = le16toh(c->cmd.flags) & ORCA_CMD_F_IN_CHAIN;

	if (c->in_len < 8ull * (first + n))
		return cmd_fail(c, ORCA_CMD_ST_BAD_LENGTH);
	switch (engine_pgl_read(c->eng, c->in_addr, chain, first, n, out)) {
	case PGL_OK:
		return ORCA_CMD_ST_OK;
	case PGL_BAD_CHUNK:
		return cmd_fail(c, ORCA_CMD_ST_BAD_PARAM);
	default:
		return cmd_fail(c, ORCA_CMD_ST_DMA_ERROR);
	}
}

/*
 * Copies a page list: entries [first, first + npages) of the __le64 array at
 * in_addr, or the inline address when the object allows one, npages is 1
 * and in_len is 0.  Checks that every page is non-zero and aligned, not
 * that it is mapped (cmd_load_pages() does, for queues).
 */
int cmd_fetch_page_list(struct cmd_ctx *c, struct emu_pages *p,
			uint32_t first, uint32_t npages, uint8_t page_shift,
			uint64_t inline_addr, bool has_inline)
{
	uint64_t page_size = 1ull << page_shift;
	uint32_t i;
	int st = ORCA_CMD_ST_OK;

	memset(p, 0, sizeof(*p));
	if (page_shift < ORCA_MIN_PAGE_SHIFT ||
	    page_shift > ORCA_MAX_PAGE_SHIFT || !npages)
		return cmd_fail(c, ORCA_CMD_ST_BAD_PARAM);
	st = cmd_pages_reserve(c, p, sizeof(uint64_t) * npages);
	if (st)
		return st;
	p->addr = malloc(sizeof(uint64_t) * npages);
	if (!p->addr) {
		engine_pages_free(p);
		return cmd_fail(c, ORCA_CMD_ST_NO_RESOURCES);
	}
	p->npages = npages;
	p->page_shift = page_shift;

	if (has_inline && npages == 1 && c->in_len == 0) {
		p->addr[0] = inline_addr;
	} else {
		st = cmd_read_list(c, first, npages, p->addr);
		if (st)
			goto out;
	}
	for (i = 0; i < npages; i++) {
		if (!p->addr[i] || (p->addr[i] & (page_size - 1))) {
			st = cmd_fail(c, ORCA_CMD_ST_BAD_PARAM);
			goto out;
		}
	}
out:
	if (st)
		engine_pages_free(p);
	return st;
}

/*
 * A queue's page list: as above, and every page must be mapped now.  The
 * data path still translates each access, since the guest may unmap later.
 */
int cmd_load_pages(struct cmd_ctx *c, struct emu_pages *p, uint32_t first,
		   uint32_t npages, uint8_t page_shift, uint64_t inline_addr,
		   bool has_inline)
{
	uint32_t i;
	int st;

	st = cmd_fetch_page_list(c, p, first, npages, page_shift,
				 inline_addr, has_inline);
	if (st)
		return st;
	for (i = 0; i < npages; i++) {
		if (!engine_dma(c->eng, p->addr[i], 1ull << page_shift)) {
			engine_pages_free(p);
			return cmd_fail(c, ORCA_CMD_ST_DMA_ERROR);
		}
	}
	return ORCA_CMD_ST_OK;
}

/* Doorbell records: 8-byte aligned and mapped for their whole size. */
int cmd_check_db_rec(struct cmd_ctx *c, uint64_t addr, size_t len)
{
	if (!addr || (addr & 7))
		return cmd_fail(c, ORCA_CMD_ST_BAD_PARAM);
	if (!engine_dma(c->eng, addr, len))
		return cmd_fail(c, ORCA_CMD_ST_DMA_ERROR);
	return ORCA_CMD_ST_OK;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * A queue's or MR's pages (struct emu_pages), as the command handlers
 * loaded them (cmd_toolkit.c), and the device memory budget they hold:
 * what the engine, the EQs and the RoCE transport use to reach a queue's
 * entries and to give the memory back.
 */
#include <stdlib.h>

#include "engine_priv.h"

/*
 * The entry at byte @off of a queue; entries never straddle pages (strides
 * are powers of two no larger than the minimum page).  NULL if unmapped.
 */
void *engine_pages_entry(struct orca_engine *eng, const struct emu_pages *p,
			 uint64_t off, size_t len)
{
	uint64_t page = off >> p->page_shift;

	if (page >= p->npages)
		return NULL;
	return engine_dma(eng, p->addr[page] +
			  (off & ((1ull << p->page_shift) - 1)), len);
}

void engine_pages_free(struct emu_pages *p)
{
	free(p->addr);
	p->addr = NULL;
	p->npages = 0;
	if (p->mem)
		engine_mem_uncharge(p->mem, p->charged);
	p->mem = NULL;
	p->charged = 0;
}

void engine_mem_uncharge(struct emu_mem *m, uint64_t bytes)
{
	m->used = bytes > m->used ? 0 : m->used - bytes;
}

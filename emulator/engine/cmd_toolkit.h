/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The command handlers' toolkit (cmd_toolkit.c): one command's
 * context, and the helpers every handler uses to reach the command's
 * indirect input and output, its page lists and the doorbell records it
 * names, all of which are untrusted guest memory (lengths, alignment and
 * mappings are checked here before anything is read), and to charge the
 * device memory budget for what it creates.  Included by the dispatcher
 * (cmdq.c) and the handlers (cmd_*.c, through cmd_handlers.h) only.
 */
#ifndef ORCA_EMU_CMD_TOOLKIT_H
#define ORCA_EMU_CMD_TOOLKIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine_priv.h"

/*
 * One command being executed: a private copy of the ring entry (the driver
 * may rewrite the slot at any time) and the completion's inline output.
 */
struct cmd_ctx {
	struct orca_engine *eng;
	struct orca_cmd cmd;
	uint32_t in_len, out_len;
	uint64_t in_addr, out_addr;
	uint32_t syndrome;
	uint8_t out[ORCA_CMD_OUT_INLINE_BYTES];
};

/* Records where a command failed (source line) in the completion syndrome. */
#define cmd_fail(c, st)	((c)->syndrome = __LINE__, (st))

int cmd_write_out(struct cmd_ctx *c, const void *src, size_t len);
int cmd_write_out_grown(struct cmd_ctx *c, const void *src, size_t len,
			size_t min_len);
void cmd_set_handle(struct cmd_ctx *c, uint32_t handle);
int cmd_read_list(struct cmd_ctx *c, uint64_t first, uint32_t n,
		  uint64_t *out);
int cmd_fetch_page_list(struct cmd_ctx *c, struct emu_pages *p,
			uint32_t first, uint32_t npages, uint8_t page_shift,
			uint64_t inline_addr, bool has_inline);
int cmd_load_pages(struct cmd_ctx *c, struct emu_pages *p, uint32_t first,
		   uint32_t npages, uint8_t page_shift, uint64_t inline_addr,
		   bool has_inline);
int cmd_check_db_rec(struct cmd_ctx *c, uint64_t addr, size_t len);
int cmd_mem_charge(struct cmd_ctx *c, uint64_t bytes);
int cmd_pages_reserve(struct cmd_ctx *c, struct emu_pages *p, uint64_t bytes);

/* The first __le32 of the inline input: the handle of most commands. */
static inline uint32_t cmd_in_handle(const struct cmd_ctx *c)
{
	const uint8_t *p = c->cmd.in;

	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

#endif /* ORCA_EMU_CMD_TOOLKIT_H */

// SPDX-License-Identifier: GPL-2.0
/*
 * CREATE_EQ / DESTROY_EQ.  EQ numbers start at 0; EQ 0 carries async
 * events and CMD_DONE.  A new EQ starts disarmed: the driver arms it with
 * an EQ_DB write once it is ready to take interrupts.
 */
#include <endian.h>
#include <stdlib.h>
#include <string.h>

#include "cmd_handlers.h"

int cmd_create_eq(struct cmd_ctx *c)
{
	struct orca_engine *eng = c->eng;
	struct orca_cmd_create_eq in;
	struct emu_eq *eq;
	uint32_t npages;
	int64_t eqn;
	int st;

	memcpy(&in, c->cmd.in, sizeof(in));
	if (in.log_depth < ORCA_MIN_LOG_DEPTH ||
	    in.log_depth > EMU_LOG_MAX_EQ ||
	    in.page_shift < ORCA_MIN_PAGE_SHIFT ||
	    in.page_shift > ORCA_MAX_PAGE_SHIFT ||
	    le16toh(in.msix_vector) >= eng->cfg.num_msix)
		return cmd_fail(c, ORCA_CMD_ST_BAD_PARAM);
	npages = orca_queue_npages((uint64_t)sizeof(struct orca_eqe) <<
				   in.log_depth, in.page_shift);
	if (le32toh(in.npages) != npages)
		return cmd_fail(c, ORCA_CMD_ST_BAD_PARAM);
	if (objtab_count(&eng->eqs) >= EMU_MAX_EQ)
		return cmd_fail(c, ORCA_CMD_ST_NO_RESOURCES);

	eq = calloc(1, sizeof(*eq));
	if (!eq)
		return cmd_fail(c, ORCA_CMD_ST_NO_RESOURCES);
	st = cmd_load_pages(c, &eq->buf, 0, npages, in.page_shift,
			    le64toh(in.page_addr), true);
	if (st)
		goto err;
	eqn = objtab_alloc(&eng->eqs, eq);
	if (eqn < 0) {
		st = cmd_fail(c, ORCA_CMD_ST_NO_RESOURCES);
		goto err;
	}
	eq->eqn = eqn;
	eq->log_depth = in.log_depth;
	eq->vector = le16toh(in.msix_vector);
	/* A doorbell left over from a previous EQ with this number is void. */
	pthread_mutex_lock(&eng->lock);
	eng->eq_db_pending &= ~(1ull << eqn);
	eng->eq_db[eqn].arm = false;
	pthread_mutex_unlock(&eng->lock);
	cmd_set_handle(c, eqn);
	return ORCA_CMD_ST_OK;
err:
	engine_pages_free(&eq->buf);
	free(eq);
	return st;
}

int cmd_destroy_eq(struct cmd_ctx *c)
{
	uint32_t eqn = cmd_in_handle(c);
	struct emu_eq *eq = objtab_get(&c->eng->eqs, eqn);

	if (!eq)
		return cmd_fail(c, ORCA_CMD_ST_BAD_HANDLE);
	if (eq->refcnt)
		return cmd_fail(c, ORCA_CMD_ST_BUSY);
	engine_eq_release(objtab_remove(&c->eng->eqs, eqn), NULL);
	return ORCA_CMD_ST_OK;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Protection domains and UARs (doorbell pages in BAR 4): allocation and
 * release.  Both are reference counted by the objects created on them, and
 * releasing one still in use is refused with BUSY.
 */
#include <endian.h>
#include <stdlib.h>
#include <string.h>

#include "cmd_handlers.h"

int cmd_alloc_uar(struct cmd_ctx *c)
{
	struct emu_uar *uar = calloc(1, sizeof(*uar));
	int64_t idx;

	if (!uar)
		return cmd_fail(c, ORCA_CMD_ST_NO_RESOURCES);
	idx = objtab_alloc(&c->eng->uars, uar);
	if (idx < 0) {
		free(uar);
		return cmd_fail(c, ORCA_CMD_ST_NO_RESOURCES);
	}
	cmd_set_handle(c, idx);
	return ORCA_CMD_ST_OK;
}

int cmd_dealloc_uar(struct cmd_ctx *c)
{
	uint32_t idx = cmd_in_handle(c);
	struct emu_uar *uar = objtab_get(&c->eng->uars, idx);

	if (!uar)
		return cmd_fail(c, ORCA_CMD_ST_BAD_HANDLE);
	if (uar->refcnt)
		return cmd_fail(c, ORCA_CMD_ST_BUSY);
	free(objtab_remove(&c->eng->uars, idx));
	return ORCA_CMD_ST_OK;
}

int cmd_create_pd(struct cmd_ctx *c)
{
	struct emu_pd *pd = calloc(1, sizeof(*pd));
	int64_t pdn;

	if (!pd)
		return cmd_fail(c, ORCA_CMD_ST_NO_RESOURCES);
	pdn = objtab_alloc(&c->eng->pds, pd);
	if (pdn < 0) {
		free(pd);
		return cmd_fail(c, ORCA_CMD_ST_NO_RESOURCES);
	}
	cmd_set_handle(c, pdn);
	return ORCA_CMD_ST_OK;
}

int cmd_destroy_pd(struct cmd_ctx *c)
{
	uint32_t pdn = cmd_in_handle(c);
	struct emu_pd *pd = objtab_get(&c->eng->pds, pdn);

	if (!pd)
		return cmd_fail(c, ORCA_CMD_ST_BAD_HANDLE);
	if (pd->refcnt)
		return cmd_fail(c, ORCA_CMD_ST_BUSY);
	free(objtab_remove(&c->eng->pds, pdn));
	return ORCA_CMD_ST_OK;
}

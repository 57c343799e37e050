// SPDX-License-Identifier: GPL-2.0
/*
 * Address handles: CREATE_AH / DESTROY_AH.  An AH is a PD-scoped address
 * vector the UD data path sends to; its sgid_index must name a valid entry
 * of the port's GID table at creation.
 */
#include <endian.h>
#include <stdlib.h>
#include <string.h>

#include "cmd_handlers.h"

/* Also MODIFY_QP's AV attribute. */
int cmd_av_check(struct orca_engine *eng, const struct orca_av *av)
{
	if (!cmd_gid_entry_valid(eng, av->sgid_index) ||
	    le32toh(av->flow_label) > 0xfffff)
		return ORCA_CMD_ST_BAD_PARAM;
	return ORCA_CMD_ST_OK;
}

int cmd_create_ah(struct cmd_ctx *c)
{
	struct orca_engine *eng = c->eng;
	struct orca_cmd_create_ah in;
	struct emu_ah *ah;
	struct emu_pd *pd;
	int64_t ahn;

	memcpy(&in, c->cmd.in, sizeof(in));
	pd = objtab_get(&eng->pds, le32toh(in.pdn));
	if (!pd)
		return cmd_fail(c, ORCA_CMD_ST_BAD_HANDLE);
	if (cmd_av_check(eng, &in.av))
		return cmd_fail(c, ORCA_CMD_ST_BAD_PARAM);
	ah = calloc(1, sizeof(*ah));
	if (!ah)
		return cmd_fail(c, ORCA_CMD_ST_NO_RESOURCES);
	ahn = objtab_alloc(&eng->ahs, ah);
	if (ahn < 0) {
		free(ah);
		return cmd_fail(c, ORCA_CMD_ST_NO_RESOURCES);
	}
	ah->pdn = le32toh(in.pdn);
	ah->av = in.av;
	pd->refcnt++;
	cmd_set_handle(c, ahn);
	return ORCA_CMD_ST_OK;
}

int cmd_destroy_ah(struct cmd_ctx *c)
{
	struct orca_engine *eng = c->eng;
	uint32_t ahn = cmd_in_handle(c);
	struct emu_ah *ah = objtab_get(&eng->ahs, ahn);
	struct emu_pd *pd;

	if (!ah)
		return cmd_fail(c, ORCA_CMD_ST_BAD_HANDLE);
	pd = objtab_get(&eng->pds, ah->pdn);
	if (pd)
		pd->refcnt--;
	free(objtab_remove(&eng->ahs, ahn));
	return ORCA_CMD_ST_OK;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * XRC domains (1.6, ORCA_DEV_CAP_XRC; IBA 1.2 Annex A14): ALLOC_XRCD and
 * DEALLOC_XRCD.  A domain is only a name that XRC SRQs (cmd_srq.c) and
 * XRC target QPs (cmd_qp.c) are created in, and that an XRC target QP
 * checks each request's SRQ against (roce_xrc.c); both hold a reference,
 * and releasing a domain still in use is refused with BUSY.  At most
 * EMU_MAX_XRCD (QUERY_DEVICE's max_xrcd) at a time: the table's size.
 */
#include <stdlib.h>

#include "cmd_handlers.h"

int cmd_alloc_xrcd(struct cmd_ctx *c)
{
	struct emu_xrcd *xrcd = calloc(1, sizeof(*xrcd));
	int64_t xrcdn;

	if (!xrcd)
		return cmd_fail(c, ORCA_CMD_ST_NO_RESOURCES);
	xrcdn = objtab_alloc(&c->eng->xrcds, xrcd);
	if (xrcdn < 0) {
		free(xrcd);
		return cmd_fail(c, ORCA_CMD_ST_NO_RESOURCES);
	}
	cmd_set_handle(c, xrcdn);
	return ORCA_CMD_ST_OK;
}

int cmd_dealloc_xrcd(struct cmd_ctx *c)
{
	uint32_t xrcdn = cmd_in_handle(c);
	struct emu_xrcd *xrcd = objtab_get(&c->eng->xrcds, xrcdn);

	if (!xrcd)
		return cmd_fail(c, ORCA_CMD_ST_BAD_HANDLE);
	if (xrcd->refcnt)
		return cmd_fail(c, ORCA_CMD_ST_BUSY);
	free(objtab_remove(&c->eng->xrcds, xrcdn));
	return ORCA_CMD_ST_OK;
}

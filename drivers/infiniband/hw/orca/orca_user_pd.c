// SPDX-License-Identifier: GPL-2.0
/*
 * ORCA user PDs: a PD is the same for a process as for the kernel; the
 * provider is told its number.
 */
#include <rdma/uverbs_ioctl.h>

#include "orca_user.h"

/**
 * orca_user_pd_respond() - tell the provider a new PD's number
 * @pd: a PD the device has just created
 * @udata: struct orca_alloc_pd_resp out
 *
 * Return: 0, or a negative errno with the PD destroyed again.
 */
int orca_user_pd_respond(struct orca_pd *pd, struct ib_udata *udata)
{
	struct orca_alloc_pd_resp resp = {};
	int err;

	/* Informational: nothing in the ABI names a PD by its number. */
	resp.pdn = pd->pdn;
	err = ib_respond_udata(udata, resp);
	if (err)
		orca_com_destroy_obj(to_odev(pd->ibpd.device),
				     ORCA_CMD_DESTROY_PD, pd->pdn);
	return err;
}

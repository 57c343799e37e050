// SPDX-License-Identifier: GPL-2.0
/*
 * ORCA protection domains.
 */
#include <rdma/uverbs_ioctl.h>

#include "orca.h"

int orca_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct orca_dev *odev = to_odev(ibpd->device);
	struct orca_alloc_pd_resp resp = {};
	struct orca_pd *pd = to_opd(ibpd);
	int err;

	err = ib_is_udata_in_empty(udata);
	if (err)
		return err;
	err = orca_com_create_pd(odev, &pd->pdn);
	if (err || !udata)
		return err;
	/* Informational: nothing in the ABI names a PD by its number. */
	resp.pdn = pd->pdn;
	err = ib_respond_udata(udata, resp);
	if (err)
		orca_com_destroy_obj(odev, ORCA_CMD_DESTROY_PD, pd->pdn);
	return err;
}

int orca_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct orca_pd *pd = to_opd(ibpd);
	int err;

	err = ib_no_udata_io(udata);
	if (err)
		return err;
	/* The PD's AHs that an atomic destroy_ah left to the orphan work. */
	orca_ah_flush_orphans(to_odev(ibpd->device));
	/* A failure (dead device) must not keep the PD alive. */
	orca_com_destroy_obj(to_odev(ibpd->device), ORCA_CMD_DESTROY_PD,
			     pd->pdn);
	return 0;
}

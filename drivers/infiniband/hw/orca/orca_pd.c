// SPDX-License-Identifier: GPL-2.0
/*
 * ORCA protection domains.
 */
#include <rdma/uverbs_ioctl.h>

#include "orca_verbs.h"

int orca_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct orca_pd *pd = to_opd(ibpd);
	int err;

	err = ib_is_udata_in_empty(udata);
	if (err)
		return err;
	err = orca_com_create_pd(to_odev(ibpd->device), &pd->pdn);
	if (err || !udata)
		return err;
	return orca_user_pd_respond(pd, udata);
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

// SPDX-License-Identifier: GPL-2.0
/*
 * ORCA protection domains and XRC domains.
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

/**
 * orca_alloc_xrcd() - an XRC domain (ib_alloc_xrcd_user())
 * @ibxrcd: the core's domain
 * @udata: ibv_open_xrcd's, which carries no driver data
 *
 * Only for an adapter with ORCA_DEV_CAP_XRC (the op is set only then).
 * Sharing one domain between processes (ibv_open_xrcd with an fd) is the
 * core's: it calls this once per inode, and the adapter sees one domain.
 *
 * Return: 0 or a negative errno (-ENOMEM: the adapter's max_xrcd reached).
 */
int orca_alloc_xrcd(struct ib_xrcd *ibxrcd, struct ib_udata *udata)
{
	int err;

	err = ib_no_udata_io(udata);
	if (err)
		return err;
	return orca_com_alloc_xrcd(to_odev(ibxrcd->device),
				   &to_oxrcd(ibxrcd)->xrcdn);
}

int orca_dealloc_xrcd(struct ib_xrcd *ibxrcd, struct ib_udata *udata)
{
	int err;

	err = ib_no_udata_io(udata);
	if (err)
		return err;
	/*
	 * The core frees the domain whatever we say once its users are gone
	 * (uverbs cleanup cannot retry), and the adapter refuses only a
	 * domain it still has users of (BUSY) or a dead device: as a PD.
	 */
	orca_com_destroy_obj(to_odev(ibxrcd->device), ORCA_CMD_DEALLOC_XRCD,
			     to_oxrcd(ibxrcd)->xrcdn);
	return 0;
}

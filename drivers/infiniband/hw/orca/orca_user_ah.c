// SPDX-License-Identifier: GPL-2.0
/*
 * ORCA user AHs: the same CREATE_AH as for a kernel AH, and its ahn in the
 * response.
 */
#include <rdma/uverbs_ioctl.h>

#include "orca_user.h"

/*
 * The core creates user AHs from process context (sleepable).  The
 * provider puts the ahn in UD send WQEs; the adapter checks that the AH
 * and the QP share their PD.
 */
int orca_create_user_ah(struct ib_ah *ibah,
			struct rdma_ah_init_attr *init_attr,
			struct ib_udata *udata)
{
	struct orca_dev *odev = to_odev(ibah->device);
	struct rdma_ah_attr *ah_attr = init_attr->ah_attr;
	struct orca_create_ah_resp resp = {};
	struct orca_ah *ah = to_oah(ibah);
	struct orca_com_av av = {};
	int err;

	err = ib_is_udata_in_empty(udata);
	if (err)
		return err;
	if (ah_attr->type != RDMA_AH_ATTR_TYPE_ROCE ||
	    !(rdma_ah_get_ah_flags(ah_attr) & IB_AH_GRH))
		return -EINVAL;
	orca_av_from_ah_attr(&av, ah_attr);
	ah->av = av;
	ah->sl = rdma_ah_get_sl(ah_attr);
	err = orca_ah_create_cmd(odev, ah, &av,
				 init_attr->flags & RDMA_CREATE_AH_SLEEPABLE);
	if (err)
		return err;
	resp.ahn = ah->ahn;
	err = ib_respond_udata(udata, resp);
	if (err)
		orca_ah_destroy_cmd(odev, ah->ahn,
				    init_attr->flags & RDMA_CREATE_AH_SLEEPABLE);
	return err;
}

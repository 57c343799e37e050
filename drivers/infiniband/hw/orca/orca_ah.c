// SPDX-License-Identifier: GPL-2.0
/*
 * ORCA address handles, and the translation of a RoCE rdma_ah_attr into
 * the device's address vector (also used by MODIFY_QP).
 */
#include <linux/etherdevice.h>
#include <rdma/uverbs_ioctl.h>

#include "orca.h"

/**
 * orca_av_from_ah_attr() - fill a device address vector
 * @av: zeroed address vector
 * @ah_attr: a RoCE attribute with a GRH; the core has resolved roce.dmac
 */
void orca_av_from_ah_attr(struct orca_com_av *av,
			  const struct rdma_ah_attr *ah_attr)
{
	const struct ib_global_route *grh = rdma_ah_read_grh(ah_attr);

	memcpy(av->dgid, grh->dgid.raw, sizeof(av->dgid));
	ether_addr_copy(av->dmac, ah_attr->roce.dmac);
	av->sgid_index = grh->sgid_index;
	av->hop_limit = grh->hop_limit;
	av->traffic_class = grh->traffic_class;
	av->flow_label = grh->flow_label & GENMASK(19, 0);
}

/*
 * CREATE_AH is a firmware command.  Sleepable callers wait for it as for
 * any other; the CM creates (and destroys) AHs under its locks, so atomic
 * callers get a busy-polled command (-EBUSY if the queue is full).
 */
int orca_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init_attr,
		   struct ib_udata *udata)
{
	struct orca_dev *odev = to_odev(ibah->device);
	struct rdma_ah_attr *ah_attr = init_attr->ah_attr;
	struct orca_ah *ah = to_oah(ibah);
	struct orca_com_av av = {};

	if (udata)
		return -EOPNOTSUPP;
	if (ah_attr->type != RDMA_AH_ATTR_TYPE_ROCE ||
	    !(rdma_ah_get_ah_flags(ah_attr) & IB_AH_GRH))
		return -EINVAL;
	orca_av_from_ah_attr(&av, ah_attr);
	return orca_com_create_ah(odev, to_opd(ibah->pd)->pdn, &av,
				  init_attr->flags & RDMA_CREATE_AH_SLEEPABLE,
				  &ah->ahn);
}

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
	err = orca_com_create_ah(odev, to_opd(ibah->pd)->pdn, &av,
				 init_attr->flags & RDMA_CREATE_AH_SLEEPABLE,
				 &ah->ahn);
	if (err)
		return err;
	resp.ahn = ah->ahn;
	err = ib_respond_udata(udata, resp);
	if (err)
		orca_com_destroy_ah(odev, ah->ahn,
				    init_attr->flags & RDMA_CREATE_AH_SLEEPABLE);
	return err;
}

int orca_destroy_ah(struct ib_ah *ibah, u32 flags)
{
	struct orca_ah *ah = to_oah(ibah);

	/* A failure (dead device) must not keep the AH alive. */
	orca_com_destroy_ah(to_odev(ibah->device), ah->ahn,
			    flags & RDMA_DESTROY_AH_SLEEPABLE);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * ORCA address handles, and the translation of a RoCE rdma_ah_attr into
 * the device's address vector (also used by MODIFY_QP).
 *
 * The CM creates and destroys AHs under its spinlocks, so their commands
 * may be atomic and give up after ORCA_CMDQ_ATOMIC_WAIT_US.  Nothing may
 * be left in the device that way: the AH of a CREATE_AH orphaned in the
 * command queue, and that of a DESTROY_AH which found no free slot in
 * time, go on the device's list of orphaned AHs, which a work destroys.
 */
#include <linux/etherdevice.h>
#include <rdma/uverbs_ioctl.h>

#include "orca_verbs.h"

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
 * Destroy the AHs nobody holds any more.  A failure leaves nothing to do:
 * a dead device forgets its AHs with the reset.
 */
static void orca_ah_orphan_work(struct work_struct *work)
{
	struct orca_dev *odev = container_of(work, struct orca_dev,
					     orphan_ah_work);
	unsigned long ahn;
	void *entry;

	xa_for_each(&odev->orphan_ahs, ahn, entry) {
		xa_erase_irq(&odev->orphan_ahs, ahn);
		orca_com_destroy_ah(odev, ahn, true);
	}
}

/*
 * Hand an AH nobody holds to the orphan work; any context (the command
 * queue's completion path too).  Without memory for it, the AH stays in
 * the device until its next reset, which is still safe: an AH holds no
 * host memory.
 */
static void orca_ah_orphan(struct orca_dev *odev, u32 ahn)
{
	unsigned long flags;
	int err;

	xa_lock_irqsave(&odev->orphan_ahs, flags);
	err = xa_err(__xa_store(&odev->orphan_ahs, ahn, xa_mk_value(0),
				GFP_ATOMIC));
	xa_unlock_irqrestore(&odev->orphan_ahs, flags);
	if (err) {
		dev_warn_ratelimited(&odev->pdev->dev,
				     "AH %u left in the device until reset (%d)\n",
				     ahn, err);
		return;
	}
	schedule_work(&odev->orphan_ah_work);
}

/* A CREATE_AH its atomic caller gave up on made an AH after all. */
static void orca_ah_create_orphaned(struct orca_dev *odev, int err,
				    const u8 *out)
{
	if (!err)
		orca_ah_orphan(odev, orca_com_out_handle(out));
}

/**
 * orca_ah_create_cmd() - run CREATE_AH for an AH, as its verb needs
 * @odev: device
 * @ah: the new AH: its PD, and the ahn set here
 * @av: its address vector
 * @sleepable: false from atomic context (the CM's locks)
 *
 * An atomic CREATE_AH given up on leaves its AH to the orphan work.
 *
 * Return: 0 or a negative errno (-EBUSY when the command queue was busy).
 */
int orca_ah_create_cmd(struct orca_dev *odev, struct orca_ah *ah,
		       const struct orca_com_av *av, bool sleepable)
{
	int err;

	err = orca_com_create_ah(odev, to_opd(ah->ibah.pd)->pdn, av,
				 sleepable, orca_ah_create_orphaned,
				 &ah->ahn);
	/* No slot in time: to the CM, a busy queue as for an orphan. */
	return err == -EAGAIN ? -EBUSY : err;
}

/**
 * orca_ah_destroy_cmd() - run DESTROY_AH, or have the orphan work run it
 * @odev: device
 * @ahn: the AH
 * @sleepable: false from atomic context (the CM's locks)
 *
 * A DESTROY_AH that got no slot in time is not dropped (the device would
 * keep the AH for good): the orphan work runs it.  A failure (dead device)
 * leaves nothing to do.
 */
void orca_ah_destroy_cmd(struct orca_dev *odev, u32 ahn, bool sleepable)
{
	if (orca_com_destroy_ah(odev, ahn, sleepable) == -EAGAIN)
		orca_ah_orphan(odev, ahn);
}

/**
 * orca_ah_orphans_init() - start the device's list of orphaned AHs
 * @odev: device
 *
 * Return: 0.
 */
int orca_ah_orphans_init(struct orca_dev *odev)
{
	xa_init_flags(&odev->orphan_ahs, XA_FLAGS_LOCK_IRQ);
	INIT_WORK(&odev->orphan_ah_work, orca_ah_orphan_work);
	return 0;
}

/**
 * orca_ah_stop_orphans() - no orphan work from now on
 * @odev: device being torn down, with no consumer left
 *
 * The teardown that follows destroys EQ 0 and resets the device, which no
 * command may race; the AHs still waiting die with that reset.
 */
void orca_ah_stop_orphans(struct orca_dev *odev)
{
	disable_work_sync(&odev->orphan_ah_work);
}

/**
 * orca_ah_orphans_cleanup() - forget the orphaned AHs
 * @odev: device whose EQ 0 is gone, just before the command queue's reset
 *
 * No command runs any more, so no orphan completes: the list is final, and
 * its AHs die with the reset.
 */
void orca_ah_orphans_cleanup(struct orca_dev *odev)
{
	orca_ah_stop_orphans(odev);
	xa_destroy(&odev->orphan_ahs);
}

/**
 * orca_ah_flush_orphans() - wait until the orphaned AHs are destroyed
 * @odev: device
 *
 * The device refuses to destroy a PD that an AH still uses: dealloc_pd
 * calls this first, so that the AHs of the PD which an atomic caller
 * destroyed without a free slot are gone (from process context).
 */
void orca_ah_flush_orphans(struct orca_dev *odev)
{
	flush_work(&odev->orphan_ah_work);
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
	ah->av = av;
	ah->sl = rdma_ah_get_sl(ah_attr);
	return orca_ah_create_cmd(odev, ah, &av,
				  init_attr->flags & RDMA_CREATE_AH_SLEEPABLE);
}

/*
 * The attributes the AH was created with.  The MAD layer matches a
 * response to its request by them (rcv_has_same_gid()): without them no
 * GMP response to a GRH-addressed request reaches its agent.
 */
int orca_query_ah(struct ib_ah *ibah, struct rdma_ah_attr *ah_attr)
{
	struct orca_ah *ah = to_oah(ibah);

	memset(ah_attr, 0, sizeof(*ah_attr));
	ah_attr->type = ibah->type;
	rdma_ah_set_port_num(ah_attr, ORCA_PORT);
	rdma_ah_set_sl(ah_attr, ah->sl);
	rdma_ah_set_grh(ah_attr, NULL, ah->av.flow_label, ah->av.sgid_index,
			ah->av.hop_limit, ah->av.traffic_class);
	rdma_ah_set_dgid_raw(ah_attr, ah->av.dgid);
	ether_addr_copy(ah_attr->roce.dmac, ah->av.dmac);
	return 0;
}

int orca_destroy_ah(struct ib_ah *ibah, u32 flags)
{
	struct orca_ah *ah = to_oah(ibah);

	/* A failure (dead device) must not keep the AH alive. */
	orca_ah_destroy_cmd(to_odev(ibah->device), ah->ahn,
			    flags & RDMA_DESTROY_AH_SLEEPABLE);
	return 0;
}

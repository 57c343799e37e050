// SPDX-License-Identifier: GPL-2.0
/*
 * ORCA memory regions for kernel consumers: the DMA MR (all memory,
 * iova = bus address) and fast-registration MRs whose page list is filled
 * by map_mr_sg and handed to the device by a REG_MR work request; and the
 * translation of IB access flags to the device's rights, for every MR and
 * QP.
 */
#include <linux/dma-mapping.h>
#include <linux/log2.h>
#include <rdma/ib_umem.h>
#include <rdma/uverbs_ioctl.h>

#include "orca_verbs.h"

/* The device's rights and the IB access flags they stand for. */
static const struct {
	int ib;
	u32 hw;
} orca_access_map[] = {
	{ IB_ACCESS_LOCAL_WRITE, ORCA_ACCESS_LOCAL_WRITE },
	{ IB_ACCESS_REMOTE_WRITE, ORCA_ACCESS_REMOTE_WRITE },
	{ IB_ACCESS_REMOTE_READ, ORCA_ACCESS_REMOTE_READ },
	{ IB_ACCESS_REMOTE_ATOMIC, ORCA_ACCESS_REMOTE_ATOMIC },
	{ IB_ACCESS_MW_BIND, ORCA_ACCESS_MW_BIND },
	{ IB_ACCESS_FLUSH_GLOBAL, ORCA_ACCESS_FLUSH_GLOBAL },
	{ IB_ACCESS_FLUSH_PERSISTENT, ORCA_ACCESS_FLUSH_PERSISTENT },
};

/**
 * orca_access_to_hw() - the device's rights for IB access flags
 * @odev: device
 * @access: IB_ACCESS_* of an MR, a REG_MR work request or a QP
 *
 * The FLUSH rights (1.4) go only to a device that has RDMA FLUSH, MW bind
 * (1.4) only to one with memory windows; flags that are no right the
 * device checks (zero based, relaxed ordering, ODP) are dropped.
 *
 * Return: ORCA_ACCESS_* bits.
 */
u32 orca_access_to_hw(struct orca_dev *odev, int access)
{
	u32 hw = 0;
	int i;

	for (i = 0; i < ARRAY_SIZE(orca_access_map); i++)
		if (access & orca_access_map[i].ib)
			hw |= orca_access_map[i].hw;
	if (!(odev->caps.dev_caps & ORCA_DEV_CAP_FLUSH))
		hw &= ~(ORCA_ACCESS_FLUSH_GLOBAL |
			ORCA_ACCESS_FLUSH_PERSISTENT);
	if (!(odev->caps.dev_caps & ORCA_DEV_CAP_MW))
		hw &= ~ORCA_ACCESS_MW_BIND;
	return hw;
}

/* The IB access flags of the device's rights @hw (query_qp). */
int orca_access_to_ib(u32 hw)
{
	int access = 0;
	int i;

	for (i = 0; i < ARRAY_SIZE(orca_access_map); i++)
		if (hw & orca_access_map[i].hw)
			access |= orca_access_map[i].ib;
	return access;
}

/**
 * orca_mr_create() - CREATE_MR, and @mr's keys from its answer
 * @odev: device
 * @mr: the MR, whose keys are set
 * @p: the command's parameters
 *
 * Return: 0 or a negative errno.
 */
int orca_mr_create(struct orca_dev *odev, struct orca_mr *mr,
		   const struct orca_com_mr_params *p)
{
	struct orca_com_mr_keys keys;
	int err;

	err = orca_com_create_mr(odev, p, &keys);
	if (err)
		return err;
	mr->ibmr.lkey = keys.lkey;
	mr->ibmr.rkey = keys.rkey;
	return 0;
}

struct ib_mr *orca_get_dma_mr(struct ib_pd *ibpd, int access)
{
	struct orca_dev *odev = to_odev(ibpd->device);
	struct orca_com_mr_params p = {
		.pdn = to_opd(ibpd)->pdn,
		.access = orca_access_to_hw(odev, access),
		.flags = ORCA_MR_F_PHYS,
		.length = U64_MAX,
	};
	struct orca_mr *mr;
	int err;

	mr = kzalloc_obj(*mr, GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	err = orca_mr_create(odev, mr, &p);
	if (err) {
		kfree(mr);
		return ERR_PTR(err);
	}
	return &mr->ibmr;
}

struct ib_mr *orca_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type type,
			    u32 max_num_sg)
{
	struct orca_dev *odev = to_odev(ibpd->device);
	struct orca_com_mr_params p = {};
	struct orca_mr *mr;
	int err;

	if (type != IB_MR_TYPE_MEM_REG ||
	    !(odev->caps.dev_caps & ORCA_DEV_CAP_FRWR))
		return ERR_PTR(-EOPNOTSUPP);
	if (!max_num_sg ||
	    max_num_sg > odev->caps.max_fast_reg_page_list_len)
		return ERR_PTR(-EINVAL);

	mr = kzalloc_obj(*mr, GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	/* The size REG_MR uses on a device that takes none in the WQE. */
	mr->page_shift = orca_dev_page_shift(odev);
	if (!mr->page_shift) {
		err = -EOPNOTSUPP;
		goto err_free;
	}
	/* Chained 4 KiB chunks: a long list needs no contiguous memory. */
	err = orca_pgl_alloc(odev, &mr->pgl, max_num_sg);
	if (err)
		goto err_free;

	p.pdn = to_opd(ibpd)->pdn;
	p.flags = ORCA_MR_F_FAST_REG;
	p.page_shift = mr->page_shift;
	p.npages = max_num_sg;
	err = orca_mr_create(odev, mr, &p);
	if (err)
		goto err_pages;
	return &mr->ibmr;

err_pages:
	orca_pgl_free(odev, &mr->pgl);
err_free:
	kfree(mr);
	return ERR_PTR(err);
}

static int orca_mr_set_page(struct ib_mr *ibmr, u64 addr)
{
	struct orca_mr *mr = to_omr(ibmr);

	if (mr->pgl.used == mr->pgl.npages)
		return -ENOMEM;
	orca_pgl_add(&mr->pgl, addr);
	return 0;
}

/*
 * A REG_MR WQE carries the page size (ORCA_DEV_CAP_REG_MR_PGSZ), so a
 * consumer maps with any size the device takes: nvme-rdma maps 4 KiB pages
 * on a 64 KiB-page kernel.  An older device uses the size fixed at
 * CREATE_MR, which the consumer must then match.
 */
int orca_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		   unsigned int *sg_offset)
{
	struct orca_dev *odev = to_odev(ibmr->device);
	struct orca_mr *mr = to_omr(ibmr);
	unsigned int shift;

	if (!is_power_of_2(ibmr->page_size))
		return -EINVAL;
	shift = ilog2(ibmr->page_size);
	if (odev->caps.dev_caps & ORCA_DEV_CAP_REG_MR_PGSZ) {
		if (shift < ORCA_MIN_PAGE_SHIFT ||
		    shift > ORCA_MAX_PAGE_SHIFT ||
		    !(odev->caps.page_size_cap & BIT_ULL(shift)))
			return -EINVAL;
		mr->page_shift = shift;
	} else if (shift != mr->page_shift) {
		return -EINVAL;
	}
	mr->pgl.used = 0;
	return ib_sg_to_pages(ibmr, sg, sg_nents, sg_offset,
			      orca_mr_set_page);
}

static void orca_mr_free_mem(struct orca_dev *odev, void *mem)
{
	struct orca_mr *mr = mem;

	ib_umem_release(mr->umem);
	orca_pgl_free(odev, &mr->pgl);
}

int orca_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct orca_dev *odev = to_odev(ibmr->device);
	struct orca_mr *mr = to_omr(ibmr);
	int err;

	err = ib_no_udata_io(udata);
	if (err)
		return err;
	if (mr->odp)
		return orca_odp_dereg_mr(odev, mr);
	/* DESTROY_MR takes the lkey as its handle. */
	err = orca_com_destroy_obj(odev, ORCA_CMD_DESTROY_MR, ibmr->lkey);
	/* Windows are bound to it (IBA 10.6.7.2.6): it lives on. */
	if (err == -EBUSY)
		return err;
	if (!orca_dev_may_free(odev, err, "MR", ibmr->lkey))
		/* The device may still read the page list and the pages. */
		orca_dev_keep(odev, mr, sizeof(*mr), orca_mr_free_mem);
	else
		orca_mr_free_mem(odev, mr);
	kfree(mr);
	return 0;
}

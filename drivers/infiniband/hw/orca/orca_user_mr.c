// SPDX-License-Identifier: GPL-2.0
/*
 * ORCA user memory regions: pinning the memory with ib_umem, choosing the
 * largest device page size that describes it, and registering its page
 * list with CREATE_MR.  (Kernel MRs are in orca_mr.c.)
 */
#include <linux/ioport.h>
#include <rdma/ib_umem.h>
#include <rdma/iter.h>
#include <rdma/uverbs_ioctl.h>

#include "orca_user.h"

static int orca_umr_pgl(struct orca_dev *odev, struct ib_umem *umem,
			unsigned long pgsz, struct orca_pgl *pgl)
{
	struct ib_block_iter biter;
	size_t n = ib_umem_num_dma_blocks(umem, pgsz);
	int err;

	if (n > U32_MAX / sizeof(__le64))
		return -EINVAL;
	err = orca_pgl_alloc(odev, pgl, n);
	if (err)
		return err;
	rdma_umem_for_each_dma_block(umem, &biter, pgsz) {
		if (WARN_ON_ONCE(pgl->used == pgl->npages))
			break;
		orca_pgl_add(pgl, rdma_block_iter_dma_address(&biter));
	}
	return 0;
}

/*
 * IB_ACCESS_FLUSH_PERSISTENT promises that an RDMA FLUSH makes the data
 * persistent, which only persistent memory can keep: as rxe, the right is
 * granted only when every page of the MR is.
 */
static bool orca_umem_is_pmem(struct ib_umem *umem)
{
	struct sg_page_iter iter;

	for_each_sgtable_page(&umem->sgt_append.sgt, &iter, 0) {
		phys_addr_t pa = page_to_phys(sg_page_iter_page(&iter));

		if (region_intersects(pa, PAGE_SIZE, IORESOURCE_MEM,
				      IORES_DESC_PERSISTENT_MEMORY) !=
		    REGION_INTERSECTS)
			return false;
	}
	return true;
}

struct ib_mr *orca_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
			       u64 iova, int access, struct ib_dmah *dmah,
			       struct ib_udata *udata)
{
	struct orca_dev *odev = to_odev(ibpd->device);
	unsigned long pgsz_bitmap, pgsz;
	struct orca_com_mr_params p = {};
	struct orca_com_mr_keys keys;
	struct orca_pgl pgl = {};
	struct orca_mr *mr;
	int err;

	err = ib_no_udata_io(udata);
	if (err)
		return ERR_PTR(err);
	if (dmah || (access & IB_ACCESS_ON_DEMAND))
		return ERR_PTR(-EOPNOTSUPP);
	if (!length || length > odev->caps.max_mr_size)
		return ERR_PTR(-EINVAL);

	mr = kzalloc_obj(*mr, GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->umem = ib_umem_get_va(ibpd->device, start, length, access);
	if (IS_ERR(mr->umem)) {
		err = PTR_ERR(mr->umem);
		goto err_free;
	}
	if ((access & IB_ACCESS_FLUSH_PERSISTENT) &&
	    !orca_umem_is_pmem(mr->umem)) {
		err = -EINVAL;
		goto err_umem;
	}
	pgsz_bitmap = odev->caps.page_size_cap &
		      GENMASK_ULL(ORCA_MAX_PAGE_SHIFT, ORCA_MIN_PAGE_SHIFT);
	pgsz = ib_umem_find_best_pgsz(mr->umem, pgsz_bitmap, iova);
	if (!pgsz) {
		err = -EINVAL;
		goto err_umem;
	}
	err = orca_umr_pgl(odev, mr->umem, pgsz, &pgl);
	if (err)
		goto err_umem;

	mr->page_shift = order_base_2(pgsz);
	p.pdn = to_opd(ibpd)->pdn;
	p.access = orca_access_to_hw(odev, access);
	p.page_shift = mr->page_shift;
	p.iova = iova;
	p.length = length;
	p.npages = pgl.used;
	p.pgl = &pgl;
	err = orca_com_create_mr(odev, &p, &keys);
	orca_pgl_free(odev, &pgl);
	if (err)
		goto err_umem;
	mr->ibmr.lkey = keys.lkey;
	mr->ibmr.rkey = keys.rkey;
	return &mr->ibmr;

err_umem:
	ib_umem_release(mr->umem);
err_free:
	kfree(mr);
	return ERR_PTR(err);
}

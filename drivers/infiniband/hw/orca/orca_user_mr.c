// SPDX-License-Identifier: GPL-2.0
/*
 * ORCA user memory regions: pinning the memory with ib_umem, choosing the
 * largest device page size that describes it, and registering its page
 * list with CREATE_MR.  (Kernel MRs are in orca_mr.c.)  And memory windows,
 * which only user space allocates: the adapter binds them on the data path
 * (BIND_MW work requests the provider posts).
 */
#include <linux/random.h>
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
	if ((access & IB_ACCESS_MW_BIND) &&
	    !(odev->caps.dev_caps & ORCA_DEV_CAP_MW))
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
	p.access = access & ORCA_ACCESS_ALL;
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

static_assert(ORCA_ACCESS_MW_BIND == IB_ACCESS_MW_BIND);

/**
 * orca_alloc_mw() - allocate a memory window (ALLOC_MW)
 * @ibmw: the window; its type (1 or 2, checked by the core) and PD are set
 * @udata: the provider's request and response, both empty
 *
 * The adapter starts a type 1 window valid and bound to nothing, a type 2
 * window free; the provider binds either with BIND_MW work requests.  The
 * key byte starts random, as rxe's, so that a window reusing an index does
 * not take the rkey its last user handed out.
 *
 * Return: 0 or a negative errno.
 */
int orca_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata)
{
	struct orca_dev *odev = to_odev(ibmw->device);
	u8 type = ibmw->type == IB_MW_TYPE_1 ? ORCA_MW_TYPE_1 : ORCA_MW_TYPE_2;
	int err;

	err = ib_no_udata_io(udata);
	if (err)
		return err;
	if (!(odev->caps.dev_caps & ORCA_DEV_CAP_MW))
		return -EOPNOTSUPP;
	return orca_com_alloc_mw(odev, to_opd(ibmw->pd)->pdn, type,
				 get_random_u8(), &ibmw->rkey);
}

int orca_dealloc_mw(struct ib_mw *ibmw)
{
	struct orca_dev *odev = to_odev(ibmw->device);

	/*
	 * A bound window is unbound by the adapter.  A window holds no
	 * memory of the host: a failed command (a dead device) leaves
	 * nothing to keep.
	 */
	orca_com_destroy_obj(odev, ORCA_CMD_DEALLOC_MW, ibmw->rkey);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * ORCA user memory regions: pinning the memory with ib_umem (pages of the
 * process, or a dma-buf), choosing the largest device page size that
 * describes it, and registering its page list with CREATE_MR.  (Kernel
 * MRs are in orca_mr.c.)  And memory windows, which only user space
 * allocates: the adapter binds them on the data path (BIND_MW work
 * requests the provider posts).
 */
#include <linux/ioport.h>
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

/*
 * The rights the adapter enforces, as efa decides: one it lacks fails the
 * registration with -EOPNOTSUPP rather than being dropped (the consumer
 * would get an MR without the right it asked for, or a zero-based or
 * on-demand MR that is neither).  The optional range is only hints.
 */
static int orca_umr_access(struct orca_dev *odev, int access)
{
	int supported = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE |
			IB_ACCESS_REMOTE_READ;

	if (odev->caps.dev_caps & ORCA_DEV_CAP_ATOMIC)
		supported |= IB_ACCESS_REMOTE_ATOMIC;
	if (odev->caps.dev_caps & ORCA_DEV_CAP_MW)
		supported |= IB_ACCESS_MW_BIND;
	if (odev->caps.dev_caps & ORCA_DEV_CAP_FLUSH)
		supported |= IB_ACCESS_FLUSH_GLOBAL |
			     IB_ACCESS_FLUSH_PERSISTENT;
	/*
	 * HUGETLB only says an on-demand MR's memory is hugetlbfs: its
	 * pages are then translated 4 KiB at a time (orca_odp.c).
	 */
	if (IS_ENABLED(CONFIG_INFINIBAND_ON_DEMAND_PAGING) &&
	    (odev->caps.dev_caps & ORCA_DEV_CAP_ODP))
		supported |= IB_ACCESS_ON_DEMAND |
			     (access & IB_ACCESS_ON_DEMAND ?
			      IB_ACCESS_HUGETLB : 0);
	if (access & ~IB_ACCESS_OPTIONAL & ~supported) {
		ibdev_dbg(&odev->ibdev, "MR access %#x, supported %#x\n",
			  access, supported);
		return -EOPNOTSUPP;
	}
	return 0;
}

/*
 * The length every user MR may have: what the adapter takes, and not
 * none.
 */
static int orca_umr_length(struct orca_dev *odev, u64 length)
{
	if (!length || length > odev->caps.max_mr_size)
		return -EINVAL;
	return 0;
}

/*
 * What every user MR registration checks before it pins anything: no
 * driver data, no DMA handle, the access rights and the length.
 */
static int orca_umr_check(struct orca_dev *odev, struct ib_udata *udata,
			  struct ib_dmah *dmah, int access, u64 length)
{
	int err;

	err = ib_no_udata_io(udata);
	if (err)
		return err;
	if (dmah)
		return -EOPNOTSUPP;
	err = orca_umr_access(odev, access);
	if (err)
		return err;
	return orca_umr_length(odev, length);
}

/*
 * What every user MR does once its memory is pinned in @mr->umem, pages
 * of the process (ib_umem_get_va()) or a dma-buf (ib_umem_dmabuf_get_pinned()):
 * either is a list of DMA blocks, which is all the adapter sees.  Choose
 * the largest device page size that maps @iova onto them (which also
 * refuses an @iova whose offset in the page is not the memory's), list
 * the pages and CREATE_MR.  On failure the umem is released and @mr freed.
 */
static struct ib_mr *orca_umr_register(struct ib_pd *ibpd,
				       struct orca_mr *mr, u64 length,
				       u64 iova, int access)
{
	struct orca_dev *odev = to_odev(ibpd->device);
	unsigned long pgsz_bitmap, pgsz;
	struct orca_com_mr_params p = {};
	struct orca_com_mr_keys keys;
	struct orca_pgl pgl = {};
	int err;

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
	mr->access = access;
	/*
	 * The core sets these after reg_user_mr, but neither for an MR
	 * rereg returns nor for a dma-buf MR.
	 */
	mr->ibmr.iova = iova;
	mr->ibmr.length = length;
	return &mr->ibmr;

err_umem:
	ib_umem_release(mr->umem);
	kfree(mr);
	return ERR_PTR(err);
}

struct ib_mr *orca_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
			       u64 iova, int access, struct ib_dmah *dmah,
			       struct ib_udata *udata)
{
	struct orca_dev *odev = to_odev(ibpd->device);
	struct orca_mr *mr;
	int err;

	/* An implicit on-demand MR (0, U64_MAX) spans the address space. */
	err = orca_umr_check(odev, udata, dmah, access,
			     (access & IB_ACCESS_ON_DEMAND) && !start &&
			     length == U64_MAX ? 1 : length);
	if (err)
		return ERR_PTR(err);
	if (access & IB_ACCESS_ON_DEMAND)
		return orca_odp_reg_user_mr(ibpd, start, length, iova, access);

	mr = kzalloc_obj(*mr, GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->umem = ib_umem_get_va(ibpd->device, start, length, access);
	if (IS_ERR(mr->umem)) {
		err = PTR_ERR(mr->umem);
		kfree(mr);
		return ERR_PTR(err);
	}
	if ((access & IB_ACCESS_FLUSH_PERSISTENT) &&
	    !orca_umem_is_pmem(mr->umem)) {
		ib_umem_release(mr->umem);
		kfree(mr);
		return ERR_PTR(-EINVAL);
	}
	return orca_umr_register(ibpd, mr, length, iova, access);
}

/**
 * orca_reg_user_mr_dmabuf() - register a user MR of a dma-buf's memory
 * @ibpd: the MR's PD
 * @offset: where the MR starts in the dma-buf
 * @length: bytes of the MR
 * @iova: the MR's first I/O virtual address; the core checked that its
 *	offset in a page is @offset's
 * @fd: the dma-buf's file descriptor
 * @access: IB_ACCESS_*, of those the core lets a dma-buf MR have (local
 *	and remote write, remote read and atomic, relaxed ordering)
 * @dmah: a DMA handle (none supported)
 * @attrs: the method's attributes; the driver data must be empty
 *
 * The dma-buf is attached to the adapter's PCI function and pinned, as
 * efa, ionic and mana do: its exporter may not move it while the MR
 * exists, so the adapter gets the page list once, like that of any user
 * MR, and needs no invalidation (an exporter that refuses to pin fails
 * the registration with its error).  The checks
 * and errors are those of orca_reg_user_mr(), plus the core's: a bad @fd
 * gives -EBADF, a file that is no dma-buf or a range beyond it -EINVAL.
 *
 * Return: the MR, or an ERR_PTR.
 */
struct ib_mr *orca_reg_user_mr_dmabuf(struct ib_pd *ibpd, u64 offset,
				      u64 length, u64 iova, int fd,
				      int access, struct ib_dmah *dmah,
				      struct uverbs_attr_bundle *attrs)
{
	struct orca_dev *odev = to_odev(ibpd->device);
	struct ib_umem_dmabuf *umem_dmabuf;
	struct orca_mr *mr;
	int err;

	err = orca_umr_check(odev, &attrs->driver_udata, dmah, access,
			     length);
	if (err)
		return ERR_PTR(err);

	mr = kzalloc_obj(*mr, GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	umem_dmabuf = ib_umem_dmabuf_get_pinned(ibpd->device, offset, length,
						fd, access);
	if (IS_ERR(umem_dmabuf)) {
		err = PTR_ERR(umem_dmabuf);
		ibdev_dbg_ratelimited(&odev->ibdev,
				      "dma-buf MR: fd %d at %llu+%llu: %pe\n",
				      fd, offset, length, umem_dmabuf);
		kfree(mr);
		return ERR_PTR(err);
	}
	mr->umem = &umem_dmabuf->umem;
	return orca_umr_register(ibpd, mr, length, iova, access);
}

/**
 * orca_rereg_user_mr() - change a user MR's translation, access or PD
 * @ibmr: the MR
 * @flags: IB_MR_REREG_TRANS, IB_MR_REREG_ACCESS, IB_MR_REREG_PD
 * @start: new user address (IB_MR_REREG_TRANS)
 * @length: new length (IB_MR_REREG_TRANS)
 * @iova: new I/O virtual address (IB_MR_REREG_TRANS)
 * @access: new access rights (IB_MR_REREG_ACCESS)
 * @ibpd: the PD, new or not
 * @udata: driver data (none)
 *
 * The adapter cannot change an MR in place (CREATE_MR fixes its pages,
 * access and PD), so a new MR is registered with the result and returned;
 * the RDMA core then destroys the old one (as mlx5 does when it cannot
 * reuse its mkey).  Until the new MR exists, the old one is untouched, so
 * a failure leaves the MR as it was.  The new MR has new keys, which
 * ibv_rereg_mr(3) allows ("conceptually, deregister then register").  An
 * access change alone is refused: it is made to a region whose rkey a
 * peer already holds, expecting the keys to stay (as mlx5 keeps them, and
 * pyverbs' rereg access tests assume), which needs an in-place change the
 * adapter does not have.  A dma-buf MR is refused too, with -EOPNOTSUPP
 * as mlx5 refuses it: its umem's address is an offset in the dma-buf, not
 * an address of the process to pin again.
 *
 * Return: the new MR, or an ERR_PTR.
 */
struct ib_mr *orca_rereg_user_mr(struct ib_mr *ibmr, int flags, u64 start,
				 u64 length, u64 iova, int access,
				 struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct orca_mr *mr = to_omr(ibmr);
	int err;

	if (flags & ~(IB_MR_REREG_TRANS | IB_MR_REREG_ACCESS |
		      IB_MR_REREG_PD))
		return ERR_PTR(-EOPNOTSUPP);
	if ((flags & IB_MR_REREG_ACCESS) && !(flags & IB_MR_REREG_TRANS))
		return ERR_PTR(-EOPNOTSUPP);
	/* Only user MRs come here; they all have a umem. */
	if (WARN_ON_ONCE(!mr->umem))
		return ERR_PTR(-EINVAL);
	/* -EOPNOTSUPP for a dma-buf MR. */
	err = ib_umem_check_rereg(mr->umem, flags, access);
	if (err)
		return ERR_PTR(err);
	if (!(flags & IB_MR_REREG_TRANS)) {
		start = mr->umem->address;
		length = ibmr->length;
		iova = ibmr->iova;
	}
	if (!(flags & IB_MR_REREG_ACCESS))
		access = mr->access;
	return orca_reg_user_mr(ibpd, start, length, iova, access, NULL,
				udata);
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

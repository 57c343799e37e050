// SPDX-License-Identifier: GPL-2.0
/*
 * ORCA user CQs: the provider allocates the CQE ring, of as many CQEs as it
 * chose, and the doorbell record; the kernel checks and pins them, creates
 * the CQ on the context's UAR, and moves the CQ to a new ring on resize.
 * The provider polls and arms; completion events reach the core's handler
 * as for kernel CQs.
 */
#include <rdma/ib_umem.h>
#include <rdma/uverbs_ioctl.h>

#include "orca_user.h"

int orca_create_user_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
			struct uverbs_attr_bundle *attrs)
{
	struct orca_dev *odev = to_odev(ibcq->device);
	struct ib_udata *udata = &attrs->driver_udata;
	struct orca_ucontext *uctx = rdma_udata_to_drv_context(udata,
				struct orca_ucontext, ibuctx);
	struct orca_cq *cq = to_ocq(ibcq);
	struct orca_ugeom ug = {};
	struct orca_create_cq req;
	size_t bytes, needed;
	int err;

	err = ib_copy_validate_udata_in_cm(udata, req, db_rec_va, 0);
	if (err)
		return err;
	ug.entries = req.cqe_count;
	err = orca_cq_setup(odev, cq, attr, &ug, &bytes);
	if (err)
		return err;
	err = orca_uring_check(odev, "CQ", req.buf_va, req.buf_len, bytes,
			       &needed);
	if (err)
		return err;

	cq->user = true;
	cq->uar = uctx->uar_idx;
	mutex_init(&cq->resize_lock);
	/* The core's CQ buffer attributes, if given, take the place of buf_va. */
	cq->umem = ib_umem_get_cq_buf_or_va(&odev->ibdev, attrs, req.buf_va,
					    needed, IB_ACCESS_LOCAL_WRITE);
	if (IS_ERR(cq->umem))
		return PTR_ERR(cq->umem);
	return orca_uqueue_create(uctx, cq, NULL, needed, req.db_rec_va, udata);
}

/*
 * RESIZE_CQ copies the unpolled CQEs (from the ci the provider published
 * in the doorbell record) to the new ring, or fails and leaves the CQ as
 * it was.  Indices continue; the provider may keep polling the old ring
 * while the command runs (what it takes there is below its ci in the new
 * ring too) and switches rings when it returns.
 */
int orca_resize_user_cq(struct ib_cq *ibcq, unsigned int cqe,
			struct ib_udata *udata)
{
	struct orca_dev *odev = to_odev(ibcq->device);
	struct orca_cq *cq = to_ocq(ibcq);
	struct orca_resize_cq req;
	struct orca_pgl pgl = {};
	struct orca_com_ring ring;
	struct ib_umem *umem;
	size_t bytes;
	u8 log_depth;
	int err;

	if (!cq->user)
		return -EOPNOTSUPP;
	err = ib_copy_validate_udata_in_cm(udata, req, buf_len, 0);
	if (err)
		return err;
	/* No response: zero what the provider gave before changing anything. */
	err = ib_respond_empty_udata(udata);
	if (err)
		return err;
	err = orca_uqueue_depth(odev, "CQ", req.cqe_count, cqe,
				odev->caps.max_cqe, &log_depth);
	if (err)
		return err;
	if (check_shl_overflow(sizeof(struct orca_cqe), log_depth, &bytes))
		return -EINVAL;
	umem = orca_uring_pin(odev, "CQ", req.buf_va, req.buf_len, bytes,
			      &pgl, &ring);
	if (IS_ERR(umem))
		return PTR_ERR(umem);

	mutex_lock(&cq->resize_lock);
	err = orca_com_resize_cq(odev, cq->cqn, log_depth, &ring);
	if (!err) {
		swap(cq->umem, umem);
		cq->log_depth = log_depth;
		cq->buf.size = (size_t)pgl.used << ORCA_UQUEUE_PAGE_SHIFT;
		cq->buf.npages = pgl.used;
		ibcq->cqe = 1 << log_depth;
	}
	mutex_unlock(&cq->resize_lock);
	orca_pgl_free(odev, &pgl);
	/* The old ring after a resize, else the new one. */
	ib_umem_release(umem);
	return err;
}

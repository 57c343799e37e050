// SPDX-License-Identifier: GPL-2.0
/*
 * ORCA user SRQs: the provider allocates the ring of receive WQEs, of the
 * depth and stride it chose, and the doorbell record; the kernel checks and
 * pins them and creates the SRQ on the context's UAR, tagged if the
 * provider asks (ORCA_CREATE_SRQ_MASK_TAG: its CQEs then name the
 * provider's records), and moves the SRQ to a new ring on resize.
 */
#include <rdma/ib_umem.h>
#include <rdma/uverbs_ioctl.h>

#include "orca_user.h"

/**
 * orca_create_user_srq() - create a user SRQ
 * @srq: the new SRQ
 * @init_attr: the consumer's attributes; max_wr and max_sge are updated
 * @udata: struct orca_create_srq in, struct orca_create_srq_resp out
 *
 * Return: 0 or a negative errno; on error nothing is left to undo.
 */
int orca_create_user_srq(struct orca_srq *srq,
			 struct ib_srq_init_attr *init_attr,
			 struct ib_udata *udata)
{
	struct orca_dev *odev = to_odev(srq->ibsrq.device);
	struct orca_ucontext *uctx = rdma_udata_to_drv_context(udata,
				struct orca_ucontext, ibuctx);
	struct orca_create_srq req;
	struct orca_ugeom ug = {};
	size_t bytes, needed;
	int err;

	err = ib_copy_validate_udata_in_cm(udata, req, db_rec_va,
					   ORCA_CREATE_SRQ_MASK_TAG);
	if (err)
		return err;
	if (req.reserved)
		return -EINVAL;
	if ((req.comp_mask & ORCA_CREATE_SRQ_MASK_TAG) &&
	    !(odev->caps.dev_caps & ORCA_DEV_CAP_SRQ_TAG))
		return -EOPNOTSUPP;
	srq->recs.tagged = req.comp_mask & ORCA_CREATE_SRQ_MASK_TAG;
	ug.entries = req.wqe_count;
	ug.stride = req.stride;
	err = orca_srq_setup(odev, srq, init_attr, &ug, &bytes);
	if (err)
		return err;
	err = orca_uring_check(odev, "SRQ", req.buf_va, req.buf_len, bytes,
			       &needed);
	if (err)
		return err;

	srq->user = true;
	srq->uar = uctx->uar_idx;
	srq->umem = orca_uring_get(odev, req.buf_va, needed);
	if (IS_ERR(srq->umem))
		return PTR_ERR(srq->umem);
	return orca_uqueue_create(uctx, NULL, srq, needed, req.db_rec_va,
				  udata);
}

/**
 * orca_resize_user_srq() - IB_SRQ_MAX_WR of a user SRQ
 * @odev: device
 * @srq: the user SRQ, its modify_lock held
 * @max_wr: the depth asked for
 * @udata: struct orca_modify_srq in: the new ring and its geometry
 *
 * MODIFY_SRQ (1.4) moves the SRQ to the new ring; the adapter copies the
 * WQEs posted and not taken to it at their indices, and refuses a depth
 * below those.  The provider posts nothing while the command runs (the
 * adapter copies what the doorbell record says is posted) and checks the
 * depth against the WQEs posted and not completed, which only it knows.
 * The WQEs carry their wr_id: the kernel keeps no record of them.
 *
 * Return: 0 or a negative errno; on failure the SRQ is as it was.
 */
int orca_resize_user_srq(struct orca_dev *odev, struct orca_srq *srq,
			 u32 max_wr, struct ib_udata *udata)
{
	struct orca_modify_srq req;
	struct orca_com_ring ring;
	struct orca_pgl pgl = {};
	struct ib_umem *umem;
	size_t bytes;
	u8 log_depth;
	int err;

	lockdep_assert_held(&srq->modify_lock);
	if (!(odev->caps.dev_caps & ORCA_DEV_CAP_SRQ_RESIZE))
		return -EOPNOTSUPP;
	err = ib_copy_validate_udata_in_cm(udata, req, buf_len, 0);
	if (err)
		return err;
	if (req.reserved)
		return -EINVAL;
	err = orca_uqueue_depth(odev, "SRQ", req.wqe_count, max_wr,
				odev->caps.max_srq_wr, &log_depth);
	if (err)
		return err;
	/* The adapter keeps the SRQ's SGEs, and so its stride. */
	if (req.stride != srq->stride)
		return orca_uqueue_refuse(odev, "SRQ %u: stride %u, the SRQ's is %u",
					  srq->srqn, req.stride, srq->stride);
	if (check_shl_overflow((size_t)srq->stride, log_depth, &bytes))
		return -EINVAL;
	umem = orca_uring_pin(odev, "SRQ", req.buf_va, req.buf_len, bytes,
			      &pgl, &ring);
	if (IS_ERR(umem))
		return PTR_ERR(umem);

	err = orca_com_resize_srq(odev, srq->srqn, log_depth, &ring);
	if (!err) {
		swap(srq->umem, umem);
		srq->log_depth = log_depth;
		srq->buf.size = (size_t)pgl.used << ORCA_UQUEUE_PAGE_SHIFT;
		srq->buf.npages = pgl.used;
	} else if (orca_dev_is_dead(odev)) {
		/* A dead adapter may have had the new ring: unpin once fenced. */
		orca_dev_may_free(odev, err, "SRQ", srq->srqn);
	}
	orca_pgl_free(odev, &pgl);
	/* The old ring after a resize, else the new one. */
	ib_umem_release(umem);
	return err;
}

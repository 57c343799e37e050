// SPDX-License-Identifier: GPL-2.0
/*
 * ORCA user SRQs: the provider allocates the ring of receive WQEs and the
 * doorbell record; the kernel checks and pins them and creates the SRQ on
 * the context's UAR.
 */
#include <rdma/ib_umem.h>
#include <rdma/uverbs_ioctl.h>

#include "orca_user.h"

/**
 * orca_create_user_srq() - the user part of creating an SRQ
 * @srq: an SRQ whose attributes were accepted
 * @bytes: bytes of its ring (stride << log_depth)
 * @udata: struct orca_create_srq in, struct orca_create_srq_resp out
 *
 * Return: 0 or a negative errno; on error nothing is left to undo.
 */
int orca_create_user_srq(struct orca_srq *srq, size_t bytes,
			 struct ib_udata *udata)
{
	struct orca_dev *odev = to_odev(srq->ibsrq.device);
	struct orca_ucontext *uctx = rdma_udata_to_drv_context(udata,
				struct orca_ucontext, ibuctx);
	struct orca_create_srq req;
	size_t needed;
	int err;

	err = ib_copy_validate_udata_in_cm(udata, req, db_rec_va, 0);
	if (err)
		return err;
	if (req.reserved)
		return -EINVAL;
	err = orca_uring_check(req.buf_va, req.buf_len, bytes, &needed);
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

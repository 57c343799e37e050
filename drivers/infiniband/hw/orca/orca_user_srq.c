// SPDX-License-Identifier: GPL-2.0
/*
 * ORCA user SRQs: the provider allocates the ring of receive WQEs and the
 * doorbell record; the kernel checks and pins them and creates the SRQ on
 * the context's UAR.
 */
#include <rdma/ib_umem.h>
#include <rdma/uverbs_ioctl.h>

#include "orca.h"

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
	struct orca_create_srq_resp resp = {};
	struct orca_create_srq req;
	struct orca_pgl pgl = {};
	bool may_free = true;
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
	srq->buf.size = needed;
	srq->buf.page_shift = ORCA_UQUEUE_PAGE_SHIFT;
	srq->buf.npages = needed >> ORCA_UQUEUE_PAGE_SHIFT;
	srq->umem = orca_uring_get(odev, req.buf_va, needed);
	if (IS_ERR(srq->umem))
		return PTR_ERR(srq->umem);
	err = orca_udb_get(uctx, req.db_rec_va, sizeof(struct orca_srq_db_rec),
			   &srq->udb, &srq->db_dma);
	if (err)
		goto err_umem;
	err = orca_pgl_alloc(odev, &pgl, srq->buf.npages);
	if (err)
		goto err_udb;
	err = orca_pgl_add_umem(&pgl, srq->umem, needed);
	if (!err)
		err = orca_srq_finish(odev, srq, &pgl, &may_free);
	orca_pgl_free(odev, &pgl);
	/* An SRQ the adapter still has keeps its pinned pages and record. */
	if (err && !may_free)
		return err;
	if (err)
		goto err_udb;

	resp.srqn = srq->srqn;
	resp.stride = srq->stride;
	err = ib_respond_udata(udata, resp);
	if (err)
		goto err_remove;
	return 0;

err_remove:
	if (!orca_srq_remove(odev, srq))
		return err;
err_udb:
	orca_udb_put(srq->udb);
err_umem:
	ib_umem_release(srq->umem);
	return err;
}

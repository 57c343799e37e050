// SPDX-License-Identifier: GPL-2.0
/*
 * ORCA user QPs (RC, UC, UD and XRC initiators): the provider allocates the send and receive
 * rings and the doorbell record and names the rings' geometry; the kernel
 * checks that geometry against the QP's capabilities and the device,
 * checks and pins the rings, and creates the QP on the context's UAR with
 * exactly that geometry and one page list, send pages then receive pages.
 */
#include <rdma/ib_umem.h>
#include <rdma/uverbs_ioctl.h>

#include "orca_user.h"

/* Bytes of a ring of 1 << @log_depth WQEs of @stride bytes. */
static int orca_uqp_ring_bytes(u32 stride, u8 log_depth, size_t *bytes)
{
	return check_shl_overflow((size_t)stride, log_depth, bytes) ?
	       -EINVAL : 0;
}

/* Check the rings the provider gave against their geometry. */
static int orca_uqp_check(struct orca_qp *qp, const struct orca_create_qp *req,
			  bool has_rq, size_t *sq_needed, size_t *rq_needed)
{
	struct orca_dev *odev = to_odev(qp->ibqp.device);
	size_t bytes;
	int err;

	err = orca_uqp_ring_bytes(qp->sq_stride, qp->log_sq_depth, &bytes);
	if (err)
		return err;
	err = orca_uring_check(odev, "send queue", req->sq_buf_va,
			       req->sq_buf_len, bytes, sq_needed);
	if (err)
		return err;
	if (!has_rq) {
		*rq_needed = 0;
		return req->rq_buf_va || req->rq_buf_len ||
		       req->rq_wqe_count || req->rq_stride ?
			orca_uqueue_refuse(odev, "receive queue: a ring on a QP without one") : 0;
	}
	err = orca_uqp_ring_bytes(qp->rq_stride, qp->log_rq_depth, &bytes);
	if (err)
		return err;
	return orca_uring_check(odev, "receive queue", req->rq_buf_va,
				req->rq_buf_len, bytes, rq_needed);
}

/* Pin the rings and fill the page list of CREATE_QP. */
static int orca_uqp_pin(struct orca_dev *odev, struct orca_qp *qp,
			const struct orca_create_qp *req, size_t sq_needed,
			size_t rq_needed, struct orca_pgl *pgl)
{
	int err;

	qp->sq_umem = orca_uring_get(odev, req->sq_buf_va, sq_needed);
	if (IS_ERR(qp->sq_umem)) {
		err = PTR_ERR(qp->sq_umem);
		qp->sq_umem = NULL;
		return err;
	}
	if (rq_needed) {
		qp->rq_umem = orca_uring_get(odev, req->rq_buf_va, rq_needed);
		if (IS_ERR(qp->rq_umem)) {
			err = PTR_ERR(qp->rq_umem);
			qp->rq_umem = NULL;
			return err;
		}
	}
	err = orca_pgl_alloc(odev, pgl, (sq_needed + rq_needed) >>
				     ORCA_UQUEUE_PAGE_SHIFT);
	if (err)
		return err;
	err = orca_pgl_add_umem(pgl, qp->sq_umem, sq_needed);
	if (!err && rq_needed)
		err = orca_pgl_add_umem(pgl, qp->rq_umem, rq_needed);
	return err;
}

/* The rings and the record, once the adapter forgot the QP. */
void orca_user_qp_free(struct orca_qp *qp)
{
	ib_umem_release(qp->rq_umem);
	ib_umem_release(qp->sq_umem);
	if (qp->udb)
		orca_udb_put(qp->udb);
}

/**
 * orca_create_user_xrc_tgt() - an XRC target QP created with udata
 * @qp: the new QP
 * @init: the consumer's attributes
 * @udata: struct orca_create_qp, all 0 but comp_mask, in and
 *	struct orca_create_qp_resp out
 *
 * The core of 7.3 passes no udata for a target QP (it creates the QP as
 * its own, orca_create_xrc_tgt()); a core that does gets its request
 * checked and the qpn in the response.
 *
 * Return: 0 or a negative errno; on error nothing is left to undo.
 */
int orca_create_user_xrc_tgt(struct orca_qp *qp, struct ib_qp_init_attr *init,
			     struct ib_udata *udata)
{
	struct orca_dev *odev = to_odev(qp->ibqp.device);
	struct orca_create_qp_resp resp = {};
	struct orca_create_qp req;
	int err;

	err = ib_copy_validate_udata_in_cm(udata, req, rq_stride, 0);
	if (err)
		return err;
	if (memchr_inv(&req.reserved, 0,
		       sizeof(req) - offsetof(typeof(req), reserved)))
		return -EINVAL;
	err = orca_create_xrc_tgt(odev, qp, init);
	if (err)
		return err;
	resp.qpn = qp->qpn;
	err = ib_respond_udata(udata, resp);
	if (err)
		orca_qp_remove(odev, qp);
	return err;
}

/**
 * orca_create_user_qp() - create a user QP
 * @qp: the new QP
 * @init: the consumer's attributes; the capabilities are updated
 * @udata: struct orca_create_qp in, struct orca_create_qp_resp out
 *
 * Return: 0 or a negative errno; on error nothing is left to undo.
 */
int orca_create_user_qp(struct orca_qp *qp, struct ib_qp_init_attr *init,
			struct ib_udata *udata)
{
	struct orca_dev *odev = to_odev(qp->ibqp.device);
	struct orca_ucontext *uctx = rdma_udata_to_drv_context(udata,
				struct orca_ucontext, ibuctx);
	struct orca_create_qp_resp resp = {};
	struct orca_com_qp_params p = {};
	size_t sq_needed, rq_needed;
	struct orca_create_qp req;
	struct orca_ugeom ug;
	struct orca_pgl pgl = {};
	bool may_free = true;
	int err;

	err = ib_copy_validate_udata_in_cm(udata, req, rq_stride, 0);
	if (err)
		return err;
	if (req.reserved)
		return -EINVAL;
	ug = (struct orca_ugeom){
		.entries = req.sq_wqe_count,
		.stride = req.sq_stride,
		.rq_entries = req.rq_wqe_count,
		.rq_stride = req.rq_stride,
	};
	err = orca_qp_setup(odev, qp, init, &ug, &p);
	if (err)
		return err;
	/* orca_qp_setup() gave a receive stride to a receive queue only. */
	err = orca_uqp_check(qp, &req, qp->rq_stride, &sq_needed, &rq_needed);
	if (err)
		return err;

	qp->user = true;
	err = orca_uqp_pin(odev, qp, &req, sq_needed, rq_needed, &pgl);
	if (err)
		goto err_free;
	err = orca_udb_get(uctx, req.db_rec_va, sizeof(struct orca_qp_db_rec),
			   &qp->udb, &qp->db_dma);
	if (err) {
		qp->udb = NULL;
		goto err_free;
	}

	p.page_shift = ORCA_UQUEUE_PAGE_SHIFT;
	p.pgl = &pgl;
	p.sq_npages = sq_needed >> ORCA_UQUEUE_PAGE_SHIFT;
	p.rq_npages = rq_needed >> ORCA_UQUEUE_PAGE_SHIFT;
	p.uar = uctx->uar_idx;
	p.db_rec = qp->db_dma;
	err = orca_qp_finish(odev, qp, &p, &may_free);
	orca_pgl_free(odev, &pgl);
	/* A QP the adapter still has keeps its pinned pages and record. */
	if (err && !may_free) {
		orca_user_keep(odev, qp->udb, qp->sq_umem, qp->rq_umem);
		return err;
	}
	if (err)
		goto err_free;

	resp.qpn = qp->qpn;
	err = ib_respond_udata(udata, resp);
	if (err) {
		if (!orca_qp_remove(odev, qp)) {
			orca_user_keep(odev, qp->udb, qp->sq_umem,
				       qp->rq_umem);
			return err;
		}
		goto err_free;
	}
	return 0;

err_free:
	orca_pgl_free(odev, &pgl);
	orca_user_qp_free(qp);
	return err;
}

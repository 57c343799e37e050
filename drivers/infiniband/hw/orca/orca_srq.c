// SPDX-License-Identifier: GPL-2.0
/*
 * ORCA shared receive queues: what kernel and user SRQs share (checks,
 * CREATE_SRQ, destruction), creation of kernel SRQs with their ring, the
 * limit (arm) and a kernel SRQ's resize through MODIFY_SRQ, QUERY_SRQ,
 * the completion of a kernel SRQ's WQEs, and the delivery of SRQ async
 * events.
 */
#include <rdma/ib_umem.h>
#include <rdma/uverbs_ioctl.h>

#include "orca_eq.h"
#include "orca_verbs.h"
#include "orca_wqe_track.h"

void orca_srq_put(struct orca_srq *srq)
{
	if (refcount_dec_and_test(&srq->refcnt))
		complete(&srq->free);
}

/*
 * Look up an SRQ and take a reference (orca_srq_put()); may run in hard
 * IRQ context.  Events, and the CQEs of XRC SRQs, which name an SRQ no QP
 * of the CQ holds, find it so; its destroy waits for the reference.
 */
struct orca_srq *orca_srq_get(struct orca_dev *odev, u32 srqn)
{
	struct orca_srq *srq;
	unsigned long flags;

	xa_lock_irqsave(&odev->srq_xa, flags);
	srq = xa_load(&odev->srq_xa, srqn);
	if (srq && !refcount_inc_not_zero(&srq->refcnt))
		srq = NULL;
	xa_unlock_irqrestore(&odev->srq_xa, flags);
	return srq;
}

/**
 * orca_srq_complete() - retire the kernel SRQ WQE a receive CQE names
 * @srq: the kernel SRQ of the CQE's QP
 * @wqe_idx: the CQE's WQE index
 * @wr_id: set to the wr_id the WQE was posted with
 *
 * The wr_id comes from the driver's own record, never from the CQE: ULPs
 * use it as a pointer and the adapter is not trusted.  The SRQ's lock
 * orders this against posting (which reuses records) and against a resize
 * (which moves the records to arrays of another depth).
 *
 * Return: false for a WQE that is not outstanding (never posted, or
 * completed twice: orca_srq_rec_complete()); the caller drops the CQE.
 */
bool orca_srq_complete(struct orca_srq *srq, u16 wqe_idx, u64 *wr_id)
{
	unsigned long flags;
	bool posted;

	spin_lock_irqsave(&srq->lock, flags);
	posted = orca_srq_rec_complete(&srq->recs, srq->log_depth, srq->pi,
				       wqe_idx, wr_id);
	if (posted)
		atomic_inc(&srq->ci);
	spin_unlock_irqrestore(&srq->lock, flags);
	return posted;
}

void orca_srq_async_event(struct orca_dev *odev, u32 srqn,
			  enum ib_event_type type)
{
	struct orca_srq *srq = orca_srq_get(odev, srqn);
	struct ib_event ev = {};

	if (!srq) {
		orca_unknown_object_event(odev, "SRQ", srqn);
		return;
	}

	if (srq->ibsrq.event_handler) {
		ev.device = &odev->ibdev;
		ev.element.srq = &srq->ibsrq;
		ev.event = type;
		srq->ibsrq.event_handler(&ev, srq->ibsrq.srq_context);
	}
	orca_srq_put(srq);
}

/**
 * orca_srq_setup() - check an SRQ's attributes and set up what kernel and
 * user SRQs share
 * @odev: device
 * @srq: the new SRQ
 * @init_attr: the consumer's attributes; max_wr and max_sge are updated
 * @ug: a user SRQ's geometry, as its provider chose it; NULL for a kernel
 *	SRQ, whose geometry follows from @init_attr
 * @bytes: result, bytes of the ring (stride << log_depth)
 *
 * Return: 0, -EOPNOTSUPP for an unsupported type, -EINVAL for bad
 * attributes or a bad user geometry.
 */
int orca_srq_setup(struct orca_dev *odev, struct orca_srq *srq,
		   struct ib_srq_init_attr *init_attr,
		   const struct orca_ugeom *ug, size_t *bytes)
{
	struct ib_srq_attr *attr = &init_attr->attr;
	u32 max_sge = min_t(u32, odev->caps.max_srq_sge, ORCA_MAX_SGE);
	u32 sge;
	int err;

	if (!(odev->caps.dev_caps & ORCA_DEV_CAP_SRQ))
		return -EOPNOTSUPP;
	switch (init_attr->srq_type) {
	case IB_SRQT_BASIC:
		break;
	case IB_SRQT_XRC:
		/*
		 * The adapter completes an XRC SRQ's receives on its CQ, which
		 * is polled where the SRQ's WQEs are tracked: a kernel SRQ's
		 * in the kernel, a user SRQ's by its provider.  The core lets
		 * a kernel consumer leave the domain out; ORCA needs one.
		 */
		if (!(odev->caps.dev_caps & ORCA_DEV_CAP_XRC))
			return -EOPNOTSUPP;
		if (!init_attr->ext.cq || !init_attr->ext.xrc.xrcd ||
		    to_ocq(init_attr->ext.cq)->user != !!ug)
			return -EINVAL;
		break;
	default:
		return -EOPNOTSUPP;
	}
	if (attr->max_sge > max_sge)
		return -EINVAL;
	sge = max(attr->max_sge, 1U);
	if (ug) {
		err = orca_uqueue_depth(odev, "SRQ", ug->entries, attr->max_wr,
					odev->caps.max_srq_wr, &srq->log_depth);
		if (!err)
			err = orca_uqueue_stride(odev, "SRQ", ug->stride, true,
						 sge, max_sge, &sge);
		srq->stride = ug->stride;
	} else {
		err = orca_queue_log_depth(attr->max_wr, odev->caps.max_srq_wr,
					   &srq->log_depth);
		srq->stride = orca_recv_wqe_stride(sge);
	}
	if (err)
		return err;
	if (attr->srq_limit >= (1U << srq->log_depth))
		return -EINVAL;

	srq->max_sge = sge;
	srq->limit = attr->srq_limit;
	refcount_set(&srq->refcnt, 1);
	init_completion(&srq->free);
	spin_lock_init(&srq->lock);
	mutex_init(&srq->modify_lock);
	atomic_set(&srq->ci, 0);
	if (check_shl_overflow((size_t)srq->stride, srq->log_depth, bytes))
		return -EINVAL;
	attr->max_wr = 1U << srq->log_depth;
	attr->max_sge = srq->max_sge;
	return 0;
}

/**
 * orca_srq_finish() - create a set-up SRQ in the device, make it reachable
 * @odev: device
 * @srq: the new SRQ, its ring and record set up
 * @pgl: the ring's page list, or NULL for a ring of one page
 * @may_free: set to false if the SRQ was created but could not be made
 *	reachable, and the adapter refused the DESTROY_SRQ that undid it:
 *	the caller keeps the ring and record the adapter still owns
 *	(orca_dev_keep()) instead of freeing them
 *
 * Return: 0 or a negative errno.
 */
int orca_srq_finish(struct orca_dev *odev, struct orca_srq *srq,
		    const struct orca_pgl *pgl, bool *may_free)
{
	struct orca_com_srq_params p = {
		.pdn = to_opd(srq->ibsrq.pd)->pdn,
		.log_depth = srq->log_depth,
		.max_sge = srq->max_sge,
		.tagged = srq->recs.tagged,
		.limit = srq->limit,
		.uar = srq->uar,
		.db_rec = srq->db_dma,
	};
	int err;

	*may_free = true;
	if (orca_srq_is_xrc(srq)) {
		p.xrc = true;
		p.cqn = to_ocq(srq->ibsrq.ext.cq)->cqn;
		p.xrcdn = to_oxrcd(srq->ibsrq.ext.xrc.xrcd)->xrcdn;
	}
	orca_qbuf_ring(&srq->buf, pgl, &p.ring);
	err = orca_com_create_srq(odev, &p, &srq->srqn);
	if (err)
		return err;
	err = xa_insert_irq(&odev->srq_xa, srq->srqn, srq, GFP_KERNEL);
	if (err) {
		*may_free = orca_com_undo_create(odev, ORCA_CMD_DESTROY_SRQ,
						 srq->srqn, "SRQ");
		return err;
	}
	/* The XRCETH names it: initiators send to this number. */
	if (orca_srq_is_xrc(srq))
		srq->ibsrq.ext.xrc.srq_num = srq->srqn;
	return 0;
}

/*
 * As for CQs: no new events after DESTROY_SRQ, then wait for old ones.  A
 * kernel XRC SRQ's CQEs still in its CQ are dropped (orca_srq_clean_cq())
 * before its number can name another SRQ; the provider cleans a user
 * one's.
 */
bool orca_srq_remove(struct orca_dev *odev, struct orca_srq *srq)
{
	int err;

	err = orca_com_destroy_obj(odev, ORCA_CMD_DESTROY_SRQ, srq->srqn);
	if (orca_srq_is_xrc(srq) && !srq->user)
		orca_srq_clean_cq(srq);
	xa_erase_irq(&odev->srq_xa, srq->srqn);
	orca_srq_put(srq);
	wait_for_completion(&srq->free);
	/* Events still in EQ 0 must not reach the next SRQ with this srqn. */
	orca_async_eq_scrub(odev, BIT(ORCA_EQE_SRQ_LIMIT) |
			    BIT(ORCA_EQE_SRQ_ERR), srq->srqn);
	return orca_dev_may_free(odev, err, "SRQ", srq->srqn);
}

/*
 * A kernel SRQ's records for 1 << @log_depth WQEs, none outstanding; a
 * tagged SRQ's (@recs->tagged set) with their free list.
 */
static int orca_srq_recs_alloc(struct orca_srq_recs *recs, u8 log_depth)
{
	u32 n = 1U << log_depth;

	recs->wrid = kvcalloc(n, sizeof(*recs->wrid), GFP_KERNEL);
	recs->posted = bitmap_zalloc(n, GFP_KERNEL);
	if (recs->tagged)
		recs->free = kvcalloc(n, sizeof(*recs->free), GFP_KERNEL);
	if (!recs->wrid || !recs->posted || (recs->tagged && !recs->free))
		return -ENOMEM;
	orca_srq_recs_init(recs, log_depth);
	return 0;
}

static void orca_srq_recs_free(struct orca_srq_recs *recs)
{
	kvfree(recs->wrid);
	bitmap_free(recs->posted);
	kvfree(recs->free);
	recs->wrid = NULL;
	recs->posted = NULL;
	recs->free = NULL;
}

static void orca_srq_free_kernel_mem(struct orca_dev *odev, void *mem)
{
	struct orca_srq *srq = mem;

	orca_qbuf_free(odev, &srq->buf);
	orca_srq_recs_free(&srq->recs);
	orca_db_free(odev, srq->db, srq->db_dma);
}

/* Kernel SRQs here; user SRQs are in orca_user_srq.c. */
int orca_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init_attr,
		    struct ib_udata *udata)
{
	struct orca_dev *odev = to_odev(ibsrq->device);
	struct orca_srq *srq = to_osrq(ibsrq);
	struct orca_pgl pgl = {};
	bool may_free = true;
	size_t bytes;
	int err;

	if (udata)
		return orca_create_user_srq(srq, init_attr, udata);
	err = orca_srq_setup(odev, srq, init_attr, NULL, &bytes);
	if (err)
		return err;
	srq->uar = odev->uar_idx;
	/* Records freed in any order are reused at once (orca_wqe_track.h). */
	srq->recs.tagged = odev->caps.dev_caps & ORCA_DEV_CAP_SRQ_TAG;

	srq->db = orca_db_alloc(odev, &srq->db_dma);
	if (!srq->db)
		return -ENOMEM;
	err = orca_srq_recs_alloc(&srq->recs, srq->log_depth);
	if (err)
		goto err_wrid;
	err = orca_qbuf_alloc(odev, &srq->buf, bytes);
	if (err)
		goto err_wrid;
	if (srq->buf.npages > 1) {
		err = orca_pgl_alloc(odev, &pgl, srq->buf.npages);
		if (err)
			goto err_buf;
		orca_pgl_add_qbuf(&pgl, &srq->buf);
	}
	err = orca_srq_finish(odev, srq, pgl.chunks ? &pgl : NULL, &may_free);
	orca_pgl_free(odev, &pgl);
	if (err)
		goto err_buf;
	return 0;

err_buf:
	if (!may_free) {
		/* The adapter still has the SRQ: as orca_destroy_srq() would. */
		orca_dev_keep(odev, srq, sizeof(*srq),
			      orca_srq_free_kernel_mem);
		return err;
	}
	orca_qbuf_free(odev, &srq->buf);
err_wrid:
	orca_srq_recs_free(&srq->recs);
	orca_db_free(odev, srq->db, srq->db_dma);
	return err;
}

/**
 * orca_srq_resize() - IB_SRQ_MAX_WR of a kernel SRQ (a user SRQ's is
 * orca_resize_user_srq())
 * @odev: device
 * @srq: the kernel SRQ
 * @max_wr: the depth asked for, rounded up to a power of two
 *
 * MODIFY_SRQ (1.4) moves the SRQ to a new ring; the adapter copies the
 * WQEs posted and not taken to it at their indices, so they complete in
 * order.  Posting fails with -EBUSY while the command runs (the adapter
 * copies what the doorbell record says is posted).  The driver's own
 * records move under the SRQ's lock, with completions held off.  A depth
 * below the span of the records in use (orca_srq_rec_span(): at least the
 * WQEs posted and not completed) is refused (-EINVAL), as two of them
 * would share a record, and the adapter refuses one below the WQEs not
 * taken.
 *
 * Return: 0 or a negative errno; on failure the SRQ is as it was.
 */
static int orca_srq_resize(struct orca_dev *odev, struct orca_srq *srq,
			   u32 max_wr)
{
	struct orca_srq_recs recs = { .tagged = srq->recs.tagged };
	struct orca_qbuf buf = {}, old_buf;
	struct orca_com_ring ring;
	struct orca_pgl pgl = {};
	unsigned long flags;
	u8 log_depth;
	size_t bytes;
	int err;

	if (!(odev->caps.dev_caps & ORCA_DEV_CAP_SRQ_RESIZE))
		return -EOPNOTSUPP;
	err = orca_queue_log_depth(max_wr, odev->caps.max_srq_wr, &log_depth);
	if (err)
		return err;
	if (check_shl_overflow((size_t)srq->stride, log_depth, &bytes))
		return -EINVAL;
	err = orca_srq_recs_alloc(&recs, log_depth);
	if (err)
		goto out_free;
	err = orca_qbuf_alloc(odev, &buf, bytes);
	if (err)
		goto out_free;
	if (buf.npages > 1) {
		err = orca_pgl_alloc(odev, &pgl, buf.npages);
		if (err)
			goto out_buf;
		orca_pgl_add_qbuf(&pgl, &buf);
	}

	spin_lock_irqsave(&srq->lock, flags);
	if (orca_srq_rec_span(&srq->recs, srq->log_depth, srq->pi) >
	    (1U << log_depth))
		err = -EINVAL;
	else
		srq->resizing = true;
	spin_unlock_irqrestore(&srq->lock, flags);
	if (err)
		goto out_pgl;

	orca_qbuf_ring(&buf, pgl.chunks ? &pgl : NULL, &ring);
	err = orca_com_resize_srq(odev, srq->srqn, log_depth, &ring);

	spin_lock_irqsave(&srq->lock, flags);
	if (!err) {
		orca_srq_recs_move(&srq->recs, srq->log_depth, &recs,
				   log_depth, srq->pi);
		swap(srq->recs, recs);
		old_buf = srq->buf;
		srq->buf = buf;
		buf = old_buf;
		srq->log_depth = log_depth;
	}
	srq->resizing = false;
	spin_unlock_irqrestore(&srq->lock, flags);
	/* A dead adapter may have had the new ring: free it once fenced. */
	if (err && orca_dev_is_dead(odev))
		orca_dev_may_free(odev, err, "SRQ", srq->srqn);
out_pgl:
	orca_pgl_free(odev, &pgl);
out_buf:
	/* The ring the adapter no longer has: the old one, or the new. */
	orca_qbuf_free(odev, &buf);
out_free:
	orca_srq_recs_free(&recs);
	return err;
}

int orca_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		    enum ib_srq_attr_mask mask, struct ib_udata *udata)
{
	struct orca_dev *odev = to_odev(ibsrq->device);
	struct orca_srq *srq = to_osrq(ibsrq);
	int err;

	if (mask & ~(IB_SRQ_MAX_WR | IB_SRQ_LIMIT))
		return -EOPNOTSUPP;
	/* A user resize brings the new ring; nothing else brings data. */
	if (!(srq->user && (mask & IB_SRQ_MAX_WR))) {
		err = ib_no_udata_io(udata);
		if (err)
			return err;
	}
	mutex_lock(&srq->modify_lock);
	if (mask & IB_SRQ_MAX_WR) {
		err = srq->user ?
			orca_resize_user_srq(odev, srq, attr->max_wr, udata) :
			orca_srq_resize(odev, srq, attr->max_wr);
		if (err)
			goto out;
		attr->max_wr = 1U << srq->log_depth;
	}
	if (mask & IB_SRQ_LIMIT) {
		if (attr->srq_limit >= (1U << srq->log_depth)) {
			err = -EINVAL;
			goto out;
		}
		err = orca_com_modify_srq(odev, srq->srqn, attr->srq_limit);
		if (!err)
			srq->limit = attr->srq_limit;
	}
out:
	mutex_unlock(&srq->modify_lock);
	return err;
}

int orca_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr)
{
	struct orca_srq *srq = to_osrq(ibsrq);
	u32 limit;
	int err;

	err = orca_com_query_srq(to_odev(ibsrq->device), srq->srqn, &limit);
	if (err)
		return err;
	attr->max_wr = 1U << srq->log_depth;
	attr->max_sge = srq->max_sge;
	attr->srq_limit = limit;
	return 0;
}

int orca_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata)
{
	struct orca_dev *odev = to_odev(ibsrq->device);
	struct orca_srq *srq = to_osrq(ibsrq);
	int err;

	err = ib_no_udata_io(udata);
	if (err)
		return err;
	if (!orca_srq_remove(odev, srq)) {
		if (srq->user)
			orca_user_keep(odev, srq->udb, srq->umem, NULL);
		else
			orca_dev_keep(odev, srq, sizeof(*srq),
				      orca_srq_free_kernel_mem);
		return 0;
	}
	if (srq->user) {
		ib_umem_release(srq->umem);
		orca_udb_put(srq->udb);
	} else {
		orca_srq_free_kernel_mem(odev, srq);
	}
	return 0;
}

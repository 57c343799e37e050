// SPDX-License-Identifier: GPL-2.0
/*
 * ORCA completion queues: creation and destruction of kernel CQs, and the
 * delivery of completion and error events to their handlers.
 */
#include "orca.h"

static void orca_cq_put(struct orca_cq *cq)
{
	if (refcount_dec_and_test(&cq->refcnt))
		complete(&cq->free);
}

/* Look up a CQ for an event; may run in hard IRQ context. */
static struct orca_cq *orca_cq_get(struct orca_dev *odev, u32 cqn)
{
	struct orca_cq *cq;
	unsigned long flags;

	xa_lock_irqsave(&odev->cq_xa, flags);
	cq = xa_load(&odev->cq_xa, cqn);
	if (cq && !refcount_inc_not_zero(&cq->refcnt))
		cq = NULL;
	xa_unlock_irqrestore(&odev->cq_xa, flags);
	return cq;
}

void orca_cq_comp_event(struct orca_dev *odev, u32 cqn)
{
	struct orca_cq *cq = orca_cq_get(odev, cqn);

	if (!cq) {
		dev_warn_ratelimited(&odev->pdev->dev,
				     "completion event for unknown CQ %u\n",
				     cqn);
		return;
	}
	if (cq->ibcq.comp_handler)
		cq->ibcq.comp_handler(&cq->ibcq, cq->ibcq.cq_context);
	orca_cq_put(cq);
}

void orca_cq_async_event(struct orca_dev *odev, u32 cqn)
{
	struct orca_cq *cq = orca_cq_get(odev, cqn);
	struct ib_event ev = {};

	if (!cq)
		return;
	if (cq->ibcq.event_handler) {
		ev.device = &odev->ibdev;
		ev.element.cq = &cq->ibcq;
		ev.event = IB_EVENT_CQ_ERR;
		cq->ibcq.event_handler(&ev, cq->ibcq.cq_context);
	}
	orca_cq_put(cq);
}

static void orca_cq_free_mem(struct orca_dev *odev, struct orca_cq *cq)
{
	orca_db_free(odev, cq->db, cq->db_dma);
	orca_qbuf_free(odev, &cq->buf);
}

/* Kernel CQs only (@attrs is NULL for them); user CQs need the provider. */
int orca_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		   struct uverbs_attr_bundle *attrs)
{
	struct orca_dev *odev = to_odev(ibcq->device);
	struct orca_cq *cq = to_ocq(ibcq);
	struct orca_pgl pgl = {};
	size_t bytes;
	int err;

	if (attrs)
		return -EOPNOTSUPP;
	if (attr->flags)
		return -EOPNOTSUPP;
	err = orca_queue_log_depth(attr->cqe, odev->caps.max_cqe,
				   &cq->log_depth);
	if (err)
		return err;
	if (check_shl_overflow(sizeof(struct orca_cqe), cq->log_depth, &bytes))
		return -EINVAL;

	cq->eqn = odev->comp_eqs[attr->comp_vector % odev->num_comp_eqs].eqn;
	refcount_set(&cq->refcnt, 1);
	init_completion(&cq->free);
	spin_lock_init(&cq->lock);

	cq->db = orca_db_alloc(odev, &cq->db_dma);
	if (!cq->db)
		return -ENOMEM;
	err = orca_qbuf_alloc(odev, &cq->buf, bytes);
	if (err)
		goto err_db;
	if (cq->buf.npages > 1) {
		err = orca_pgl_alloc(odev, &pgl, cq->buf.npages);
		if (err)
			goto err_buf;
		orca_pgl_add_qbuf(&pgl, &cq->buf);
	}

	err = orca_cmd_create_cq(odev, cq, pgl.pages ? &pgl : NULL, &cq->cqn);
	orca_pgl_free(odev, &pgl);
	if (err)
		goto err_buf;

	err = xa_insert_irq(&odev->cq_xa, cq->cqn, cq, GFP_KERNEL);
	if (err)
		goto err_destroy;
	ibcq->cqe = 1 << cq->log_depth;
	return 0;

err_destroy:
	orca_cmd_destroy_obj(odev, ORCA_CMD_DESTROY_CQ, cq->cqn);
err_buf:
	orca_qbuf_free(odev, &cq->buf);
err_db:
	orca_db_free(odev, cq->db, cq->db_dma);
	return err;
}

int orca_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	struct orca_dev *odev = to_odev(ibcq->device);
	struct orca_cq *cq = to_ocq(ibcq);

	/*
	 * Destroy in the device first so it raises no new events, then wait
	 * for handlers that already hold a reference.  A dead device fails
	 * the command; the CQ is torn down all the same.
	 */
	orca_cmd_destroy_obj(odev, ORCA_CMD_DESTROY_CQ, cq->cqn);
	xa_erase_irq(&odev->cq_xa, cq->cqn);
	orca_cq_put(cq);
	wait_for_completion(&cq->free);
	orca_cq_free_mem(odev, cq);
	return 0;
}

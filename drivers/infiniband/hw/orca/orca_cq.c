// SPDX-License-Identifier: GPL-2.0
/*
 * ORCA completion queues: creation of kernel CQs, what kernel and user CQs
 * share (checks, CREATE_CQ, destruction), and the delivery of completion
 * and error events to their handlers.
 */
#include <rdma/ib_umem.h>
#include <rdma/uverbs_ioctl.h>

#include "orca_eq.h"
#include "orca_verbs.h"

void orca_cq_put(struct orca_cq *cq)
{
	if (refcount_dec_and_test(&cq->refcnt))
		complete(&cq->free);
}

/* Look up a CQ and take a reference; may run in hard IRQ context. */
struct orca_cq *orca_cq_get(struct orca_dev *odev, u32 cqn)
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
		orca_unknown_object_event(odev, "completion", cqn);
		return;
	}
	WRITE_ONCE(cq->armed, false);
	if (cq->ibcq.comp_handler)
		cq->ibcq.comp_handler(&cq->ibcq, cq->ibcq.cq_context);
	orca_cq_put(cq);
}

void orca_cq_async_event(struct orca_dev *odev, u32 cqn)
{
	struct orca_cq *cq = orca_cq_get(odev, cqn);
	struct ib_event ev = {};

	if (!cq) {
		orca_unknown_object_event(odev, "CQ error", cqn);
		return;
	}
	if (cq->ibcq.event_handler) {
		ev.device = &odev->ibdev;
		ev.element.cq = &cq->ibcq;
		ev.event = IB_EVENT_CQ_ERR;
		cq->ibcq.event_handler(&ev, cq->ibcq.cq_context);
	}
	orca_cq_put(cq);
}

/**
 * orca_cq_setup() - check a CQ's attributes and set up what kernel and user
 * CQs have in common
 * @odev: device
 * @cq: the new CQ
 * @attr: the consumer's attributes
 * @ug: a user CQ's geometry (its CQEs), as its provider chose it; NULL for
 *	a kernel CQ, whose depth follows from @attr
 * @bytes: result, bytes of the CQE ring
 *
 * Return: 0, -EOPNOTSUPP for unsupported flags, -EINVAL for a bad depth.
 */
int orca_cq_setup(struct orca_dev *odev, struct orca_cq *cq,
		  const struct ib_cq_init_attr *attr,
		  const struct orca_ugeom *ug, size_t *bytes)
{
	int err;

	if (attr->flags)
		return -EOPNOTSUPP;
	if (ug)
		err = orca_uqueue_depth(odev, "CQ", ug->entries, attr->cqe,
					odev->caps.max_cqe, &cq->log_depth);
	else
		err = orca_queue_log_depth(attr->cqe, odev->caps.max_cqe,
					   &cq->log_depth);
	if (err)
		return err;
	if (check_shl_overflow(sizeof(struct orca_cqe), cq->log_depth, bytes))
		return -EINVAL;

	cq->comp_vector = attr->comp_vector;
	refcount_set(&cq->refcnt, 1);
	init_completion(&cq->free);
	spin_lock_init(&cq->lock);
	return 0;
}

/**
 * orca_cq_finish() - create a set-up CQ in the device and make it reachable
 * @odev: device
 * @cq: the new CQ, its ring and record set up
 * @pgl: the ring's page list, or NULL for a ring of one page
 * @may_free: set to false if the CQ was created but could not be made
 *	reachable, and the adapter refused the DESTROY_CQ that undid it: the
 *	CQ lives on in the adapter, which may write its ring and record, so
 *	the caller keeps them (orca_dev_keep()) instead of freeing them
 *
 * Binds the CQ to its vector's EQ (-ENOMEM if that EQ could overflow with
 * one more CQ), then runs CREATE_CQ.
 *
 * Return: 0 or a negative errno.
 */
int orca_cq_finish(struct orca_dev *odev, struct orca_cq *cq,
		   const struct orca_pgl *pgl, bool *may_free)
{
	struct orca_com_cq_params p = {
		.log_depth = cq->log_depth,
		.uar = cq->uar,
		.db_rec = cq->db_dma,
	};
	int err;

	*may_free = true;
	err = orca_comp_eq_bind_cq(odev, cq->comp_vector, &cq->eqn);
	if (err)
		return err;
	p.eqn = cq->eqn;
	orca_qbuf_ring(&cq->buf, pgl, &p.ring);
	err = orca_com_create_cq(odev, &p, &cq->cqn);
	if (err) {
		orca_comp_eq_unbind_cq(odev, cq->eqn, 0);
		return err;
	}
	err = xa_insert_irq(&odev->cq_xa, cq->cqn, cq, GFP_KERNEL);
	if (err) {
		*may_free = orca_com_undo_create(odev, ORCA_CMD_DESTROY_CQ,
						 cq->cqn, "CQ");
		orca_comp_eq_unbind_cq(odev, cq->eqn, cq->cqn);
		return err;
	}
	cq->ibcq.cqe = 1 << cq->log_depth;
	return 0;
}

/**
 * orca_cq_remove() - destroy a CQ in the device and wait for its events
 * @odev: device
 * @cq: a CQ that orca_cq_finish() made reachable
 *
 * Destroy in the device first so it raises no new events, then wait for
 * handlers that already hold a reference, and drop the events still in
 * the EQs so that they never reach the next CQ with this number.  A dead
 * device fails the command; the CQ is torn down all the same.
 *
 * Return: true if the CQ's ring, record and umem may be freed
 * (orca_dev_may_free()).
 */
bool orca_cq_remove(struct orca_dev *odev, struct orca_cq *cq)
{
	int err;

	err = orca_com_destroy_obj(odev, ORCA_CMD_DESTROY_CQ, cq->cqn);
	xa_erase_irq(&odev->cq_xa, cq->cqn);
	orca_cq_put(cq);
	wait_for_completion(&cq->free);
	orca_comp_eq_unbind_cq(odev, cq->eqn, cq->cqn);
	return orca_dev_may_free(odev, err, "CQ", cq->cqn);
}

/**
 * orca_cq_kick_armed() - run the completion handlers of armed kernel CQs
 * @odev: a dead device
 *
 * The device raises no more events, but pollers find flush completions
 * that orca_poll_cq() makes in software.  From process context, with
 * bottom halves off so that an IB_POLL_SOFTIRQ CQ's poller runs on return.
 */
void orca_cq_kick_armed(struct orca_dev *odev)
{
	struct orca_cq *cq;
	unsigned long idx, flags;
	bool armed;

	xa_for_each(&odev->cq_xa, idx, cq) {
		cq = orca_cq_get(odev, idx);
		if (!cq)
			continue;
		spin_lock_irqsave(&cq->lock, flags);
		armed = cq->armed && !cq->user;
		cq->armed = false;
		spin_unlock_irqrestore(&cq->lock, flags);
		if (armed && cq->ibcq.comp_handler) {
			local_bh_disable();
			cq->ibcq.comp_handler(&cq->ibcq, cq->ibcq.cq_context);
			local_bh_enable();
		}
		orca_cq_put(cq);
	}
}

/**
 * orca_modify_cq() - set a CQ's completion event moderation
 * @ibcq: a kernel or user CQ
 * @cq_count: completions to gather before an event; 0: no moderation
 * @cq_period: microseconds an event may wait for them; 0: no moderation
 *
 * The adapter posts an armed CQ's event once @cq_count completions have
 * come since the arm, or @cq_period microseconds after the first of them.
 * The RDMA core calls this for rdma_set_cq_moderation(), uverbs'
 * ibv_modify_cq() and adaptive moderation (rdma_dim), in process context.
 *
 * Return: 0; -EOPNOTSUPP if the adapter has no moderation (before
 * interface 1.3, it is never asked); -EINVAL for a value above the limits
 * query_device reports; or the command's errno.
 */
int orca_modify_cq(struct ib_cq *ibcq, u16 cq_count, u16 cq_period)
{
	struct orca_dev *odev = to_odev(ibcq->device);
	const struct orca_caps *caps = &odev->caps;

	if (!(caps->dev_caps & ORCA_DEV_CAP_CQ_MODERATION))
		return -EOPNOTSUPP;
	if (cq_count > caps->max_cq_mod_count ||
	    cq_period > caps->max_cq_mod_period)
		return -EINVAL;
	return orca_com_modify_cq(odev, to_ocq(ibcq)->cqn, cq_count,
				  cq_period);
}

static void orca_cq_free_kernel_mem(struct orca_dev *odev, void *mem)
{
	struct orca_cq *cq = mem;

	orca_db_free(odev, cq->db, cq->db_dma);
	orca_qbuf_free(odev, &cq->buf);
}

/* Kernel CQs only (@attrs is NULL for them); user CQs are in orca_user_cq.c. */
int orca_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		   struct uverbs_attr_bundle *attrs)
{
	struct orca_dev *odev = to_odev(ibcq->device);
	struct orca_cq *cq = to_ocq(ibcq);
	struct orca_pgl pgl = {};
	bool may_free = true;
	size_t bytes;
	int err;

	if (attrs)
		return -EOPNOTSUPP;
	err = orca_cq_setup(odev, cq, attr, NULL, &bytes);
	if (err)
		return err;
	cq->uar = odev->uar_idx;

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

	err = orca_cq_finish(odev, cq, pgl.chunks ? &pgl : NULL, &may_free);
	orca_pgl_free(odev, &pgl);
	if (err)
		goto err_buf;
	return 0;

err_buf:
	if (!may_free) {
		/* The adapter still has the CQ: as orca_destroy_cq() would. */
		orca_dev_keep(odev, cq, sizeof(*cq), orca_cq_free_kernel_mem);
		return err;
	}
	orca_qbuf_free(odev, &cq->buf);
err_db:
	orca_db_free(odev, cq->db, cq->db_dma);
	return err;
}

int orca_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	struct orca_dev *odev = to_odev(ibcq->device);
	struct orca_cq *cq = to_ocq(ibcq);
	int err;

	err = ib_no_udata_io(udata);
	if (err)
		return err;
	if (!orca_cq_remove(odev, cq)) {
		if (cq->user)
			orca_user_keep(odev, cq->udb, cq->umem, NULL);
		else
			orca_dev_keep(odev, cq, sizeof(*cq),
				      orca_cq_free_kernel_mem);
		return 0;
	}
	/* The device no longer writes the ring or the record. */
	if (cq->user) {
		ib_umem_release(cq->umem);
		orca_udb_put(cq->udb);
		mutex_destroy(&cq->resize_lock);
	} else {
		orca_cq_free_kernel_mem(odev, cq);
	}
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * ORCA event queues: EQ 0 (async events and command completions), one
 * completion EQ per completion vector with its MSI-X interrupt, the
 * dispatch of device events to the RDMA core.
 *
 * Each run of an EQ handler consumes at most ORCA_EQ_BUDGET entries.  If
 * the EQ still holds more it frees the consumed slots (doorbell without
 * ARM) and continues later instead of looping: completion EQs through
 * irq_poll (softirq, handed to ksoftirqd under load), EQ 0 through a work
 * item.  A flood of events then costs a CPU its fair share, not all of it.
 */
#include <linux/dma-mapping.h>

#include "orca_eq.h"
#include "orca_trace.h"

/* Entries one handler run consumes before it yields. */
#define ORCA_EQ_BUDGET			64

/*
 * EQ 0: the spec asks for the command queue depth plus 256; completion
 * EQs: room for many CQs per vector.  Both are capped by caps.max_eqe.
 */
#define ORCA_ASYNC_EQ_MAX_LOG_DEPTH	12
#define ORCA_COMP_EQ_MAX_LOG_DEPTH	12

/* An entry the driver has dropped (orca_eq_scrub()); no device type is 0. */
#define ORCA_EQE_SCRUBBED		0

/* Next valid entry, or NULL; the caller consumes it with eq->ci++. */
static struct orca_eqe *orca_eq_entry(struct orca_eq *eq, u32 idx)
{
	u32 mask = (1U << eq->log_depth) - 1;
	struct orca_eqe *eqe = orca_qbuf_entry(&eq->buf, idx & mask,
					       sizeof(*eqe));
	u8 phase = (idx & (1U << eq->log_depth)) ? 0 : ORCA_EQE_PHASE;

	if ((READ_ONCE(eqe->flags) & ORCA_EQE_PHASE) != phase)
		return NULL;
	/* The device writes flags last: read the rest only after it. */
	dma_rmb();
	return eqe;
}

static struct orca_eqe *orca_eq_next(struct orca_eq *eq)
{
	return orca_eq_entry(eq, eq->ci);
}

/* Publish ci (freeing the slots before it) and, with @arm, re-arm. */
static void orca_eq_doorbell(struct orca_eq *eq, bool arm)
{
	orca_wr32(eq->odev, ORCA_REG_EQ_DB,
		  FIELD_PREP(ORCA_EQ_DB_CI, eq->ci) |
		  (arm ? ORCA_EQ_DB_ARM : 0) |
		  FIELD_PREP(ORCA_EQ_DB_EQN, eq->eqn));
}

/*
 * Consume up to ORCA_EQ_BUDGET entries with @handle.  Return: true when
 * the EQ is empty (the caller re-arms it once it can take the interrupt
 * that may follow at once), false when the budget ran out: the slots are
 * freed but the EQ stays disarmed, and the caller schedules another run.
 */
static bool orca_eq_run(struct orca_eq *eq,
			void (*handle)(struct orca_dev *odev,
				       const struct orca_eqe *eqe))
{
	struct orca_eqe *eqe;
	int n = 0;

	while ((eqe = orca_eq_next(eq))) {
		if (n == ORCA_EQ_BUDGET) {
			orca_eq_doorbell(eq, false);
			orca_drv_stat_inc(eq->odev,
					  ORCA_DRV_STAT_EQ_BUDGET_YIELDS);
			return false;
		}
		if (eqe->type != ORCA_EQE_SCRUBBED) {
			trace_orca_eq_event(eq, eqe);
			handle(eq->odev, eqe);
		}
		eq->ci++;
		n++;
	}
	return true;
}

/**
 * orca_eq_scrub() - drop the unconsumed events of an object that is gone
 * @eq: the EQ the object's events go to
 * @types: bitmap of enum orca_eqe_type values (BIT(type))
 * @handle: the object's cqn, qpn or srqn
 *
 * Called after the object's DESTROY command: the device writes no new
 * events for it, but those already in the EQ would otherwise reach the
 * next object to get the same number.  The device never writes an entry
 * the driver has not consumed, so the driver may rewrite one.
 */
static void orca_eq_scrub(struct orca_eq *eq, u32 types, u32 handle)
{
	u32 depth = 1U << eq->log_depth;
	struct orca_eqe *eqe;
	u32 i;

	for (i = eq->ci; i - eq->ci < depth && (eqe = orca_eq_entry(eq, i));
	     i++) {
		if (eqe->type < 32 && (types & BIT(eqe->type)) &&
		    le32_to_cpu(eqe->data) == handle) {
			eqe->type = ORCA_EQE_SCRUBBED;
			orca_drv_stat_inc(eq->odev,
					  ORCA_DRV_STAT_STALE_EVENTS);
		}
	}
}

/**
 * orca_unknown_object_event() - an event named an object that does not exist
 * @odev: device
 * @what: the kind of event
 * @handle: the number it named
 *
 * Either the object is being destroyed (its remaining events are scrubbed
 * once its destroy has waited for the running handlers) or the adapter
 * wrote a number it never gave out; either way the event is dropped.
 */
void orca_unknown_object_event(struct orca_dev *odev, const char *what,
			       u32 handle)
{
	orca_drv_stat_inc(odev, ORCA_DRV_STAT_STALE_EVENTS);
	dev_warn_ratelimited(&odev->pdev->dev,
			     "%s event for unknown object %u; dropped\n", what,
			     handle);
}

static void orca_async_event(struct orca_dev *odev, const struct orca_eqe *eqe)
{
	u32 data = le32_to_cpu(eqe->data);

	switch (eqe->type) {
	case ORCA_EQE_CMD_DONE:
		orca_cmdq_process_comps(odev);
		break;
	case ORCA_EQE_PORT_CHANGE:
		orca_port_changed(odev);
		break;
	case ORCA_EQE_QP_FATAL:
		orca_qp_async_event(odev, data, IB_EVENT_QP_FATAL);
		break;
	case ORCA_EQE_QP_REQ_ERR:
		orca_qp_async_event(odev, data, IB_EVENT_QP_REQ_ERR);
		break;
	case ORCA_EQE_QP_ACCESS_ERR:
		orca_qp_async_event(odev, data, IB_EVENT_QP_ACCESS_ERR);
		break;
	case ORCA_EQE_QP_LAST_WQE:
		orca_qp_async_event(odev, data, IB_EVENT_QP_LAST_WQE_REACHED);
		break;
	case ORCA_EQE_SQ_DRAINED:
		orca_qp_async_event(odev, data, IB_EVENT_SQ_DRAINED);
		break;
	case ORCA_EQE_COMM_EST:
		orca_qp_async_event(odev, data, IB_EVENT_COMM_EST);
		break;
	case ORCA_EQE_CQ_ERR:
		orca_cq_async_event(odev, data);
		break;
	case ORCA_EQE_SRQ_LIMIT:
		orca_srq_async_event(odev, data, IB_EVENT_SRQ_LIMIT_REACHED);
		break;
	case ORCA_EQE_SRQ_ERR:
		orca_srq_async_event(odev, data, IB_EVENT_SRQ_ERR);
		break;
	case ORCA_EQE_PAGE_FAULT:
		orca_odp_fault_event(odev, eqe);
		break;
	case ORCA_EQE_DEVICE_FATAL:
		dev_err(&odev->pdev->dev, "device fatal event, syndrome %u\n",
			data);
		orca_dev_mark_dead(odev, "fatal event");
		break;
	default:
		orca_drv_stat_inc(odev, ORCA_DRV_STAT_BAD_EQES);
		dev_err_ratelimited(&odev->pdev->dev,
				    "unknown async event type 0x%x; dropped\n",
				    eqe->type);
		break;
	}
}

/*
 * EQ 0 runs in an IRQ thread and, past its budget, in a work item: QP/SRQ
 * event handlers of ULPs may expect process context, and the command
 * completions it processes share a lock with sleeping submitters.
 * @async_lock keeps one consumer at a time (thread, work, scrub).
 */
static void orca_async_eq_poll(struct orca_eq *eq)
{
	bool done;

	mutex_lock(&eq->async_lock);
	done = orca_eq_run(eq, orca_async_event);
	/* An entry written after our last look makes the device signal. */
	if (done)
		orca_eq_doorbell(eq, true);
	mutex_unlock(&eq->async_lock);
	if (!done)
		queue_work(eq->async_wq, &eq->async_work);
}

static void orca_async_eq_work(struct work_struct *work)
{
	orca_async_eq_poll(container_of(work, struct orca_eq, async_work));
}

static irqreturn_t orca_async_eq_thread(int irq, void *data)
{
	orca_async_eq_poll(data);
	return IRQ_HANDLED;
}

static void orca_comp_event(struct orca_dev *odev, const struct orca_eqe *eqe)
{
	if (eqe->type == ORCA_EQE_COMP) {
		orca_cq_comp_event(odev, le32_to_cpu(eqe->data));
		return;
	}
	/* The adapter is not trusted: count, log, go on. */
	orca_drv_stat_inc(odev, ORCA_DRV_STAT_BAD_EQES);
	dev_err_ratelimited(&odev->pdev->dev,
			    "event type 0x%x on a completion EQ; dropped\n",
			    eqe->type);
}

/*
 * A completion EQ is consumed in softirq context by irq_poll; the hard
 * IRQ only schedules it.  irq_poll's own budget is a count of runs here:
 * one run is one orca_eq_run().
 */
static int orca_comp_eq_poll(struct irq_poll *iop, int budget)
{
	struct orca_eq *eq = container_of(iop, struct orca_eq, comp_iop);
	unsigned long flags;
	bool done;

	spin_lock_irqsave(&eq->comp_lock, flags);
	done = orca_eq_run(eq, orca_comp_event);
	if (done) {
		/* Unscheduled before the arm, so its interrupt schedules us. */
		irq_poll_complete(iop);
		orca_eq_doorbell(eq, true);
	}
	spin_unlock_irqrestore(&eq->comp_lock, flags);
	return done ? 0 : budget;
}

static irqreturn_t orca_comp_eq_irq(int irq, void *data)
{
	struct orca_eq *eq = data;

	irq_poll_sched(&eq->comp_iop);
	return IRQ_HANDLED;
}

/* log2 of an EQ's depth: @want, or less if the adapter allows less. */
static u8 orca_eq_log_depth(struct orca_dev *odev, u8 want)
{
	u32 max = odev->caps.max_eqe;

	if (max < (1U << want))
		return max ? ilog2(max) : 0;
	return want;
}

static int orca_eq_alloc(struct orca_dev *odev, struct orca_eq *eq,
			 u16 vector, u8 log_depth)
{
	eq->odev = odev;
	eq->vector = vector;
	eq->log_depth = log_depth;
	eq->ci = 0;
	eq->created = false;
	if (log_depth < ilog2(ORCA_EQ_BUDGET) + 1) {
		dev_err(&odev->pdev->dev, "EQs of %u entries are too small\n",
			1U << log_depth);
		return -EINVAL;
	}
	eq->irq = pci_irq_vector(odev->pdev, vector);
	if (eq->irq < 0)
		return eq->irq;
	/* Single pages, like every ring: a deep EQ is 1 MiB. */
	return orca_qbuf_alloc(odev, &eq->buf,
			       sizeof(struct orca_eqe) << log_depth);
}

/* CREATE_EQ with the ring's page list. */
static int orca_eq_create(struct orca_dev *odev, struct orca_eq *eq)
{
	struct orca_com_eq_params p = {
		.log_depth = eq->log_depth,
		.msix_vector = eq->vector,
	};
	struct orca_pgl pgl = {};
	int err;

	if (eq->buf.npages > 1) {
		err = orca_pgl_alloc(odev, &pgl, eq->buf.npages);
		if (err)
			return err;
		orca_pgl_add_qbuf(&pgl, &eq->buf);
	}
	orca_qbuf_ring(&eq->buf, pgl.chunks ? &pgl : NULL, &p.ring);
	err = orca_com_create_eq(odev, &p, &eq->eqn);
	orca_pgl_free(odev, &pgl);
	return err;
}

static void orca_eq_free(struct orca_dev *odev, struct orca_eq *eq)
{
	orca_qbuf_free(odev, &eq->buf);
}

static void orca_eq_free_kept(struct orca_dev *odev, void *mem)
{
	orca_qbuf_free(odev, mem);
}

/* Return: true if the EQ's ring may be freed (orca_dev_may_free()). */
static bool orca_eq_destroy(struct orca_dev *odev, struct orca_eq *eq)
{
	int err = 0;

	if (eq->created)
		err = orca_com_destroy_obj(odev, ORCA_CMD_DESTROY_EQ, eq->eqn);
	eq->created = false;
	return orca_dev_may_free(odev, err, "EQ", eq->eqn);
}

/**
 * orca_async_eq_init() - create EQ 0 and switch commands to event mode
 * @odev: device with a running command queue in polling mode
 *
 * Return: 0 or a negative errno.
 */
int orca_async_eq_init(struct orca_dev *odev)
{
	struct orca_eq *eq = &odev->async_eq;
	int err;

	err = orca_eq_alloc(odev, eq, 0,
			    orca_eq_log_depth(odev,
					      ORCA_ASYNC_EQ_MAX_LOG_DEPTH));
	if (err)
		return err;
	mutex_init(&eq->async_lock);
	INIT_WORK(&eq->async_work, orca_async_eq_work);
	eq->async_wq = alloc_workqueue("orca_async", WQ_UNBOUND |
				       WQ_MEM_RECLAIM | WQ_HIGHPRI, 1);
	if (!eq->async_wq) {
		err = -ENOMEM;
		goto err_free;
	}
	snprintf(eq->name, sizeof(eq->name), "orca-async@pci:%s",
		 pci_name(odev->pdev));
	err = request_threaded_irq(eq->irq, NULL, orca_async_eq_thread,
				   IRQF_ONESHOT, eq->name, eq);
	if (err)
		goto err_free;
	err = orca_eq_create(odev, eq);
	if (err)
		goto err_irq;
	eq->created = true;
	orca_eq_doorbell(eq, true);
	orca_cmdq_set_event_mode(odev, true);
	return 0;

err_irq:
	free_irq(eq->irq, eq);
err_free:
	if (eq->async_wq)
		destroy_workqueue(eq->async_wq);
	eq->async_wq = NULL;
	orca_eq_free(odev, eq);
	return err;
}

void orca_async_eq_cleanup(struct orca_dev *odev)
{
	struct orca_eq *eq = &odev->async_eq;
	bool may_free;

	/* DESTROY_EQ of EQ 0 cannot be signalled on EQ 0 itself. */
	orca_cmdq_set_event_mode(odev, false);
	may_free = orca_eq_destroy(odev, eq);
	free_irq(eq->irq, eq);
	/* A run past its budget may have left work queued. */
	cancel_work_sync(&eq->async_work);
	destroy_workqueue(eq->async_wq);
	eq->async_wq = NULL;
	if (may_free)
		orca_eq_free(odev, eq);
	else
		orca_dev_keep(odev, &eq->buf, sizeof(eq->buf),
			      orca_eq_free_kept);
	mutex_destroy(&eq->async_lock);
}

/**
 * orca_comp_eqs_init() - create one completion EQ per completion vector
 * @odev: device; num_comp_eqs is num_irqs - 1, capped by caps.max_eq - 1
 *
 * Return: 0 or a negative errno.
 */
int orca_comp_eqs_init(struct orca_dev *odev)
{
	u8 log_depth = orca_eq_log_depth(odev, ORCA_COMP_EQ_MAX_LOG_DEPTH);
	int n = odev->num_irqs - 1;
	struct orca_eq *eq;
	int i, err;

	if (odev->caps.max_eq > 1)
		n = min_t(int, n, odev->caps.max_eq - 1);
	if (n < 1) {
		dev_err(&odev->pdev->dev, "no vector for completion events\n");
		return -ENOSPC;
	}
	odev->comp_eqs = kcalloc(n, sizeof(*odev->comp_eqs), GFP_KERNEL);
	if (!odev->comp_eqs)
		return -ENOMEM;

	for (i = 0; i < n; i++) {
		eq = &odev->comp_eqs[i];
		err = orca_eq_alloc(odev, eq, i + 1, log_depth);
		if (err)
			goto err_unwind;
		/*
		 * Each CQ has at most one COMP event unconsumed, and a run
		 * holds at most ORCA_EQ_BUDGET consumed entries before it
		 * frees them: with fewer CQs than this the EQ cannot
		 * overflow (spec, event-queues.rst, "Overflow").
		 */
		eq->max_cqs = (1U << log_depth) - ORCA_EQ_BUDGET - 1;
		atomic_set(&eq->ncqs, 0);
		spin_lock_init(&eq->comp_lock);
		irq_poll_init(&eq->comp_iop, ORCA_EQ_BUDGET, orca_comp_eq_poll);
		snprintf(eq->name, sizeof(eq->name), "orca-comp%d@pci:%s", i,
			 pci_name(odev->pdev));
		err = request_irq(eq->irq, orca_comp_eq_irq, 0, eq->name, eq);
		if (err) {
			orca_eq_free(odev, eq);
			goto err_unwind;
		}
		err = orca_eq_create(odev, eq);
		if (err) {
			free_irq(eq->irq, eq);
			irq_poll_disable(&eq->comp_iop);
			orca_eq_free(odev, eq);
			goto err_unwind;
		}
		eq->created = true;
		orca_eq_doorbell(eq, true);
		odev->num_comp_eqs = i + 1;
	}
	return 0;

err_unwind:
	orca_comp_eqs_cleanup(odev);
	return err;
}

void orca_comp_eqs_cleanup(struct orca_dev *odev)
{
	struct orca_eq *eq;
	bool may_free;
	int i;

	for (i = odev->num_comp_eqs - 1; i >= 0; i--) {
		eq = &odev->comp_eqs[i];
		may_free = orca_eq_destroy(odev, eq);
		free_irq(eq->irq, eq);
		/* Waits for a scheduled run; none is scheduled after it. */
		irq_poll_disable(&eq->comp_iop);
		if (may_free)
			orca_eq_free(odev, eq);
		else
			orca_dev_keep(odev, &eq->buf, sizeof(eq->buf),
				      orca_eq_free_kept);
	}
	odev->num_comp_eqs = 0;
	kfree(odev->comp_eqs);
	odev->comp_eqs = NULL;
}

/**
 * orca_comp_eq_bind_cq() - choose the completion EQ of a new CQ
 * @odev: device
 * @comp_vector: the consumer's completion vector
 * @eqn: result, the EQ's number for CREATE_CQ
 *
 * The vector's EQ takes the CQ only while it has room for one more COMP
 * event per CQ; the consumer's choice of vector (its interrupt affinity)
 * is kept rather than spilled to another EQ.
 *
 * Return: 0, or -ENOMEM when the vector has as many CQs as its EQ can
 * take events from.
 */
int orca_comp_eq_bind_cq(struct orca_dev *odev, u32 comp_vector, u32 *eqn)
{
	struct orca_eq *eq = &odev->comp_eqs[comp_vector % odev->num_comp_eqs];

	if (!atomic_add_unless(&eq->ncqs, 1, eq->max_cqs))
		return -ENOMEM;
	*eqn = eq->eqn;
	return 0;
}

static struct orca_eq *orca_comp_eq_by_eqn(struct orca_dev *odev, u32 eqn)
{
	int i;

	for (i = 0; i < odev->num_comp_eqs; i++)
		if (odev->comp_eqs[i].eqn == eqn)
			return &odev->comp_eqs[i];
	return NULL;
}

/**
 * orca_comp_eq_unbind_cq() - a CQ bound by orca_comp_eq_bind_cq() is gone
 * @odev: device
 * @eqn: its EQ
 * @cqn: its number, if CREATE_CQ gave it one (else 0: no events to drop)
 *
 * Drops the CQ's unconsumed COMP and CQ_ERR events, so a CQ that gets
 * @cqn next never sees them, and gives its place on the EQ back.
 */
void orca_comp_eq_unbind_cq(struct orca_dev *odev, u32 eqn, u32 cqn)
{
	struct orca_eq *eq = orca_comp_eq_by_eqn(odev, eqn);
	unsigned long flags;

	if (WARN_ON_ONCE(!eq))
		return;
	if (cqn) {
		spin_lock_irqsave(&eq->comp_lock, flags);
		orca_eq_scrub(eq, BIT(ORCA_EQE_COMP), cqn);
		spin_unlock_irqrestore(&eq->comp_lock, flags);
		orca_async_eq_scrub(odev, BIT(ORCA_EQE_CQ_ERR), cqn);
	}
	atomic_dec(&eq->ncqs);
}

/**
 * orca_async_eq_scrub() - drop EQ 0's unconsumed events of a destroyed object
 * @odev: device
 * @types: BIT() of the enum orca_eqe_type values that name the object
 * @handle: its qpn, srqn or cqn
 *
 * Must not be called from an EQ 0 event handler.
 */
void orca_async_eq_scrub(struct orca_dev *odev, u32 types, u32 handle)
{
	struct orca_eq *eq = &odev->async_eq;

	mutex_lock(&eq->async_lock);
	orca_eq_scrub(eq, types, handle);
	mutex_unlock(&eq->async_lock);
}

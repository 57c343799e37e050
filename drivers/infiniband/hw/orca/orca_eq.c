// SPDX-License-Identifier: GPL-2.0
/*
 * ORCA event queues: EQ 0 (async events and command completions), one
 * completion EQ per completion vector with its MSI-X interrupt, the
 * dispatch of device events to the RDMA core.
 */
#include <linux/dma-mapping.h>

#include "orca.h"

static size_t orca_eq_bytes(const struct orca_eq *eq)
{
	return sizeof(*eq->ring) << eq->log_depth;
}

/* Next valid entry, or NULL; the caller consumes it with eq->ci++. */
static struct orca_eqe *orca_eq_next(struct orca_eq *eq)
{
	u32 mask = (1U << eq->log_depth) - 1;
	struct orca_eqe *eqe = &eq->ring[eq->ci & mask];
	u8 phase = (eq->ci & (1U << eq->log_depth)) ? 0 : ORCA_EQE_PHASE;

	if ((READ_ONCE(eqe->flags) & ORCA_EQE_PHASE) != phase)
		return NULL;
	/* The device writes flags last: read the rest only after it. */
	dma_rmb();
	return eqe;
}

static void orca_eq_arm(struct orca_eq *eq)
{
	orca_wr32(eq->odev, ORCA_REG_EQ_DB,
		  FIELD_PREP(ORCA_EQ_DB_CI, eq->ci) | ORCA_EQ_DB_ARM |
		  FIELD_PREP(ORCA_EQ_DB_EQN, eq->eqn));
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
 * EQ 0 runs in an IRQ thread: QP/SRQ event handlers of ULPs may expect
 * process context, and the command completions it processes share a lock
 * with sleeping submitters.
 */
static irqreturn_t orca_async_eq_thread(int irq, void *data)
{
	struct orca_eq *eq = data;
	struct orca_eqe *eqe;

	while ((eqe = orca_eq_next(eq))) {
		orca_async_event(eq->odev, eqe);
		eq->ci++;
	}
	orca_eq_arm(eq);
	return IRQ_HANDLED;
}

static irqreturn_t orca_comp_eq_irq(int irq, void *data)
{
	struct orca_eq *eq = data;
	struct orca_eqe *eqe;

	while ((eqe = orca_eq_next(eq))) {
		if (eqe->type == ORCA_EQE_COMP) {
			orca_cq_comp_event(eq->odev, le32_to_cpu(eqe->data));
		} else {
			/* The adapter is not trusted: count, log, go on. */
			orca_drv_stat_inc(eq->odev, ORCA_DRV_STAT_BAD_EQES);
			dev_err_ratelimited(&eq->odev->pdev->dev,
					    "event type 0x%x on completion EQ %u; dropped\n",
					    eqe->type, eq->eqn);
		}
		eq->ci++;
	}
	orca_eq_arm(eq);
	return IRQ_HANDLED;
}

static int orca_eq_alloc(struct orca_dev *odev, struct orca_eq *eq,
			 u16 vector, u8 log_depth)
{
	eq->odev = odev;
	eq->vector = vector;
	eq->log_depth = log_depth;
	eq->ci = 0;
	eq->created = false;
	eq->irq = pci_irq_vector(odev->pdev, vector);
	if (eq->irq < 0)
		return eq->irq;
	eq->ring = dma_alloc_coherent(&odev->pdev->dev, orca_eq_bytes(eq),
				      &eq->dma, GFP_KERNEL);
	return eq->ring ? 0 : -ENOMEM;
}

static void orca_eq_free(struct orca_dev *odev, struct orca_eq *eq)
{
	dma_free_coherent(&odev->pdev->dev, orca_eq_bytes(eq), eq->ring,
			  eq->dma);
	eq->ring = NULL;
}

/* The ring is one DMA-coherent block, described as a single page. */
static int orca_eq_create(struct orca_dev *odev, struct orca_eq *eq)
{
	struct orca_cmd_eq_params p = {
		.ring = {
			.page_addr = eq->dma,
			.npages = 1,
			.page_shift = get_order(orca_eq_bytes(eq)) + PAGE_SHIFT,
		},
		.log_depth = eq->log_depth,
		.msix_vector = eq->vector,
	};

	return orca_cmd_create_eq(odev, &p, &eq->eqn);
}

/* Return: true if the EQ's ring may be freed (orca_dev_may_free()). */
static bool orca_eq_destroy(struct orca_dev *odev, struct orca_eq *eq)
{
	int err = 0;

	if (eq->created)
		err = orca_cmd_destroy_obj(odev, ORCA_CMD_DESTROY_EQ, eq->eqn);
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

	err = orca_eq_alloc(odev, eq, 0, ORCA_ASYNC_EQ_LOG_DEPTH);
	if (err)
		return err;
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
	orca_eq_arm(eq);
	orca_cmdq_set_event_mode(odev, true);
	return 0;

err_irq:
	free_irq(eq->irq, eq);
err_free:
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
	if (may_free)
		orca_eq_free(odev, eq);
}

/**
 * orca_comp_eqs_init() - create one completion EQ per completion vector
 * @odev: device; num_comp_eqs is num_irqs - 1, capped by caps.max_eq - 1
 *
 * Return: 0 or a negative errno.
 */
int orca_comp_eqs_init(struct orca_dev *odev)
{
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
		err = orca_eq_alloc(odev, eq, i + 1, ORCA_COMP_EQ_LOG_DEPTH);
		if (err)
			goto err_unwind;
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
			orca_eq_free(odev, eq);
			goto err_unwind;
		}
		eq->created = true;
		orca_eq_arm(eq);
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
		if (may_free)
			orca_eq_free(odev, eq);
	}
	odev->num_comp_eqs = 0;
	kfree(odev->comp_eqs);
	odev->comp_eqs = NULL;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * ORCA device health: the heartbeat watchdog, the fence that stops a dead
 * device's DMA, and the memory kept from refused destroys until the
 * device is reset.  What the rest of the driver does about a death is
 * orca_dev_mark_dead()'s, beside probe and remove in orca_main.c.
 */
#include "orca.h"
#include "orca_trace.h"

/**
 * orca_dev_fence() - stop a device's DMA for good
 * @odev: device
 *
 * Bus mastering off first: it holds even if the device ignores the reset
 * (a hung device may come back later and finish its work).  The reset
 * then makes it forget every address it was given (the spec's "Function
 * reset" in registers.rst; mlx5's internal-error flow and ionic's reset do
 * the same in their own way).  Safe in atomic context.
 */
void orca_dev_fence(struct orca_dev *odev)
{
	pci_clear_master(odev->pdev);
	orca_wr32(odev, ORCA_REG_DEV_CTRL, ORCA_CTRL_RESET);
}

/**
 * orca_dev_reset() - reset the function and wait for READY
 * @odev: device
 *
 * Return: 0, -EIO if the device reports FATAL, or -ETIMEDOUT.
 */
int orca_dev_reset(struct orca_dev *odev)
{
	unsigned long deadline;
	u32 st;

	orca_wr32(odev, ORCA_REG_DEV_CTRL, ORCA_CTRL_RESET);
	deadline = jiffies + msecs_to_jiffies(odev->reset_timeout_ms);
	for (;;) {
		usleep_range(1000, 2000);
		st = orca_rd32(odev, ORCA_REG_DEV_STATUS);
		if (st != U32_MAX && (st & ORCA_STATUS_READY))
			return st & ORCA_STATUS_FATAL ? -EIO : 0;
		if (time_after(jiffies, deadline))
			return -ETIMEDOUT;
	}
}

/**
 * orca_dev_fence_dead() - mark a device dead and stop its DMA
 * @odev: device
 * @reason: why, for the log
 *
 * The first half of orca_dev_mark_dead(), in any context.  Only the first
 * call has an effect.  The device is fenced before anything else, and
 * when this returns, for the first caller and for every later one, the
 * device is fenced: every page it was given may be freed.
 *
 * Return: true for the first caller, which then tells the rest of the
 * driver; false for every later one.
 */
bool orca_dev_fence_dead(struct orca_dev *odev, const char *reason)
{
	unsigned long flags;

	/*
	 * DEAD and FENCED are set with interrupts off, so nothing on this
	 * CPU runs between them.  A caller that finds DEAD set runs on
	 * another CPU then, and waits for FENCED: a few register writes.
	 * Without that wait, a command that timed out while the watchdog was
	 * fencing would return, and its caller free its page list, before
	 * bus mastering was off.
	 */
	local_irq_save(flags);
	if (test_and_set_bit(ORCA_DEV_DEAD, &odev->flags)) {
		local_irq_restore(flags);
		smp_cond_load_acquire(&odev->flags,
				      VAL & BIT(ORCA_DEV_FENCED));
		return false;
	}
	WRITE_ONCE(odev->dead_reason, reason);
	/*
	 * The adapter's state for devlink health, before the fence's reset
	 * erases it: the adapter takes the snapshot first (spec,
	 * event-queues.rst, "Diagnostic dump").
	 */
	if (odev->has_dump) {
		orca_wr32(odev, ORCA_REG_DUMP_CTRL, ORCA_DUMP_CTRL_SNAPSHOT);
		set_bit(ORCA_DEV_DEATH_DUMP, &odev->flags);
	}
	orca_dev_fence(odev);
	/* The fence before FENCED; pairs with smp_cond_load_acquire(). */
	smp_mb__before_atomic();
	set_bit(ORCA_DEV_FENCED, &odev->flags);
	local_irq_restore(flags);

	trace_orca_dev_dead(odev, reason);
	dev_err(&odev->pdev->dev, "device is dead: %s\n", reason);
	wake_up_var(&odev->flags);
	return true;
}

/**
 * orca_dev_may_free() - may the memory of an object be freed?
 * @odev: device
 * @err: what the object's DESTROY command returned
 * @what: the object's kind, for the log
 * @handle: its handle, for the log
 *
 * The spec: memory handed to the device is freed only after the command
 * destroying its object completed, or after a reset.  A dead device has
 * been fenced (wait for the fence if another thread is just doing it).  On
 * a live device a failed destroy leaves the object alive: its memory is
 * counted, logged once and kept (orca_dev_keep()) until the reset at
 * teardown, rather than freed under the device.
 *
 * Return: true if the caller may free the object's rings, records, page
 * lists and umems.
 */
bool orca_dev_may_free(struct orca_dev *odev, int err, const char *what,
		       u32 handle)
{
	if (!err)
		return true;
	if (orca_dev_is_dead(odev)) {
		wait_var_event(&odev->flags, orca_dev_is_fenced(odev));
		return true;
	}
	atomic_inc(&odev->leaked);
	if (!test_and_set_bit(ORCA_DEV_LEAK_LOGGED, &odev->flags))
		dev_err(&odev->pdev->dev,
			"destroying %s %u failed (%d): its memory is kept until the device is reset\n",
			what, handle, err);
	return false;
}

/* What a refused destroy left with the device, and how to free it. */
struct orca_kept {
	struct list_head node;
	void (*release)(struct orca_dev *odev, void *mem);
	u64 mem[];
};

/**
 * orca_dev_keep() - hold memory the device still has until it is reset
 * @odev: device
 * @mem: what @release needs (a copy is taken: the object that holds it,
 *	such as an ib_cq, is freed by its owner when this returns)
 * @size: its size
 * @release: frees the rings, records and page lists @mem describes
 *
 * For an object orca_dev_may_free() said no to: its memory is freed by
 * orca_kept_cleanup() once the device has been reset at teardown, never
 * under the device.  If even the copy cannot be allocated, the memory
 * stays leaked, which is still safe.
 */
void orca_dev_keep(struct orca_dev *odev, const void *mem, size_t size,
		   void (*release)(struct orca_dev *odev, void *mem))
{
	struct orca_kept *k;

	k = kmalloc(sizeof(*k) + size, GFP_KERNEL);
	if (!k)
		return;
	memcpy(k->mem, mem, size);
	k->release = release;
	spin_lock(&odev->kept_lock);
	list_add_tail(&k->node, &odev->kept);
	spin_unlock(&odev->kept_lock);
}

int orca_kept_init(struct orca_dev *odev)
{
	spin_lock_init(&odev->kept_lock);
	INIT_LIST_HEAD(&odev->kept);
	return 0;
}

/**
 * orca_dev_quiesce() - make sure the device no longer uses any memory
 * @odev: device whose objects were all destroyed (or refused to be)
 *
 * A reset makes the device forget every address it was given (spec,
 * registers.rst, "Function reset"); one that does not come back READY, or a
 * dead one, is fenced (bus mastering off) instead.
 */
void orca_dev_quiesce(struct orca_dev *odev)
{
	if (!orca_dev_is_fenced(odev) && orca_dev_reset(odev)) {
		dev_err(&odev->pdev->dev,
			"no READY after reset: fencing the device\n");
		orca_dev_fence(odev);
	}
}

/**
 * orca_kept_cleanup() - free what refused destroys left with the device
 * @odev: device at teardown, after EQ 0's destroy and before the doorbell
 *	pool goes (kept CQs, QPs and SRQs hold records from it)
 */
void orca_kept_cleanup(struct orca_dev *odev)
{
	struct orca_kept *k, *next;

	if (list_empty(&odev->kept))
		return;
	orca_dev_quiesce(odev);
	list_for_each_entry_safe(k, next, &odev->kept, node) {
		list_del(&k->node);
		k->release(odev, k->mem);
		kfree(k);
	}
}

/*
 * The watchdog catches a device that stopped without telling us: no
 * heartbeat progress for ORCA_HEARTBEAT_MAX_STALLS periods, or FATAL set
 * in the status register (an EQ overflow cannot be reported on the EQ).
 */
static void orca_heartbeat_work(struct work_struct *work)
{
	struct orca_dev *odev = container_of(to_delayed_work(work),
					     struct orca_dev, heartbeat);
	u32 status = orca_rd32(odev, ORCA_REG_DEV_STATUS);
	u32 hb = orca_rd32(odev, ORCA_REG_HEARTBEAT);

	if (orca_dev_is_dead(odev))
		return;
	/* Commands whose atomic callers gave up have no waiter of their own. */
	if (orca_cmdq_timed_out(odev)) {
		orca_dev_mark_dead(odev, "command timeout");
		return;
	}
	if (status == U32_MAX || (status & ORCA_STATUS_FATAL)) {
		dev_err(&odev->pdev->dev, "device fatal, syndrome %u\n",
			orca_rd32(odev, ORCA_REG_FATAL_SYNDROME));
		orca_dev_mark_dead(odev, "fatal status");
		return;
	}
	if (hb == odev->last_heartbeat) {
		if (++odev->heartbeat_stalls >= ORCA_HEARTBEAT_MAX_STALLS) {
			orca_dev_mark_dead(odev, "heartbeat stopped");
			return;
		}
	} else {
		odev->heartbeat_stalls = 0;
		odev->last_heartbeat = hb;
	}
	schedule_delayed_work(&odev->heartbeat, ORCA_HEARTBEAT_PERIOD);
}

/**
 * orca_health_init() - start the watchdog
 * @odev: device whose EQ 0 exists (a fatal event is also seen there)
 *
 * Return: 0.
 */
int orca_health_init(struct orca_dev *odev)
{
	INIT_DELAYED_WORK(&odev->heartbeat, orca_heartbeat_work);
	odev->last_heartbeat = orca_rd32(odev, ORCA_REG_HEARTBEAT);
	odev->heartbeat_stalls = 0;
	schedule_delayed_work(&odev->heartbeat, ORCA_HEARTBEAT_PERIOD);
	return 0;
}

void orca_health_cleanup(struct orca_dev *odev)
{
	cancel_delayed_work_sync(&odev->heartbeat);
}

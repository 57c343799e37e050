// SPDX-License-Identifier: GPL-2.0
/*
 * ORCA device health: the heartbeat watchdog, and what happens when the
 * device is found dead (by the watchdog, a fatal event or a command
 * timeout).
 */
#include "orca.h"

/**
 * orca_dev_mark_dead() - stop using a device that stopped working
 * @odev: device
 * @reason: why, for the log
 *
 * Called from the command path on a timeout, from EQ 0 on a fatal event and
 * from the heartbeat watchdog.  Only the first call has an effect: waiting
 * commands are failed, later ones fail fast, and the RDMA core is told once
 * with IB_EVENT_DEVICE_FATAL.  Destroy paths keep working (their commands
 * fail and are ignored) so the driver can still be unloaded.
 */
void orca_dev_mark_dead(struct orca_dev *odev, const char *reason)
{
	struct ib_event ev = {};

	if (test_and_set_bit(ORCA_DEV_DEAD, &odev->flags))
		return;
	dev_err(&odev->pdev->dev, "device is dead: %s\n", reason);
	orca_cmdq_fail_all(odev);
	if (!test_bit(ORCA_DEV_REGISTERED, &odev->flags))
		return;
	ev.device = &odev->ibdev;
	ev.element.port_num = ORCA_PORT;
	ev.event = IB_EVENT_DEVICE_FATAL;
	ib_dispatch_event(&ev);
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

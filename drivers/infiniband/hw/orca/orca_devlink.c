// SPDX-License-Identifier: GPL-2.0
/*
 * ORCA devlink: an instance per PCI function and its "fw_fatal" health
 * reporter (its parameters are in orca_cc.c).  A dead adapter is reported
 * to it, with a dump read from the adapter's diagnostic dump window
 * (interface 1.2; registers only, so it works on an adapter that is fatal
 * and fenced); diagnose shows the driver's and the adapter's state;
 * recover destroys the orca_dev and brings up a new one (function reset,
 * port, ib_device).
 *
 * Locking: the devlink instance lock (devl_lock) serialises recoveries
 * (devlink core holds it around ->recover, ->dump and ->diagnose) and
 * protects orca_pf.odev.  devlink_health_report() takes that lock itself,
 * so it runs from orca_pf.fatal_work with no lock held, and never from a
 * work of the orca_dev a recovery would destroy (mlx5 reports from a
 * work of its own for the same reason).  Remove disables that work, then
 * unregisters the instance under its lock, which waits for a recovery
 * started from userspace.
 */
#include <net/devlink.h>

#include "orca_devlink.h"

/* A flapping adapter is recovered once per period (as mlx5's fw_fatal). */
#define ORCA_FW_FATAL_GRACE_MS	(20 * 60 * 1000)

static const struct devlink_ops orca_devlink_ops = {
};

static u32 orca_pf_rd32(struct orca_pf *pf, u32 reg)
{
	return readl(pf->regs + reg);
}

static void orca_pf_wr32(struct orca_pf *pf, u32 reg, u32 val)
{
	writel(val, pf->regs + reg);
}

/*
 * Asks the adapter for a snapshot (unless @take is false: the one taken
 * when the device died) and waits for it: at most the reset timeout, as a
 * snapshot is taken between two commands.  Returns its length, or
 * -EOPNOTSUPP (a 1.1 adapter), -EIO (gone, or not a snapshot the layout
 * allows) or -ETIMEDOUT.
 */
static int orca_dump_snapshot(struct orca_pf *pf, bool take,
			      unsigned int timeout_ms)
{
	unsigned long deadline;
	u32 caps, ctrl, len;

	caps = orca_pf_rd32(pf, ORCA_REG_CAPS);
	if (caps == U32_MAX)
		return -EIO;
	if (!(caps & ORCA_CAPS_DUMP))
		return -EOPNOTSUPP;
	if (take)
		orca_pf_wr32(pf, ORCA_REG_DUMP_CTRL, ORCA_DUMP_CTRL_SNAPSHOT);
	deadline = jiffies + msecs_to_jiffies(timeout_ms);
	for (;;) {
		ctrl = orca_pf_rd32(pf, ORCA_REG_DUMP_CTRL);
		if (ctrl != U32_MAX && !(ctrl & ORCA_DUMP_CTRL_BUSY))
			break;
		if (time_after(jiffies, deadline))
			return ctrl == U32_MAX ? -EIO : -ETIMEDOUT;
		usleep_range(500, 1000);
	}
	len = orca_pf_rd32(pf, ORCA_REG_DUMP_LEN);
	if (len < sizeof(struct orca_dump_hdr) || len > ORCA_DUMP_MAX_BYTES ||
	    len % 4)
		return -EIO;
	return len;
}

static void orca_dump_read(struct orca_pf *pf, __le32 *buf, u32 len)
{
	u32 i;

	for (i = 0; i < len / 4; i++) {
		orca_pf_wr32(pf, ORCA_REG_DUMP_OFFSET, i * 4);
		buf[i] = cpu_to_le32(orca_pf_rd32(pf, ORCA_REG_DUMP_DATA));
	}
}

static void orca_fmsg_dump_hdr(struct devlink_fmsg *fmsg,
			       const struct orca_dump_hdr *h)
{
	devlink_fmsg_pair_nest_start(fmsg, "adapter");
	devlink_fmsg_obj_nest_start(fmsg);
	devlink_fmsg_u32_pair_put(fmsg, "version", le16_to_cpu(h->version));
	devlink_fmsg_u32_pair_put(fmsg, "fw_version",
				  le32_to_cpu(h->fw_version));
	devlink_fmsg_u32_pair_put(fmsg, "dev_status",
				  le32_to_cpu(h->dev_status));
	devlink_fmsg_u32_pair_put(fmsg, "fatal_syndrome",
				  le32_to_cpu(h->fatal_syndrome));
	devlink_fmsg_u32_pair_put(fmsg, "heartbeat", le32_to_cpu(h->heartbeat));
	devlink_fmsg_u32_pair_put(fmsg, "cmdq_pi", le16_to_cpu(h->cmdq_pi));
	devlink_fmsg_u32_pair_put(fmsg, "cmdq_ci", le16_to_cpu(h->cmdq_ci));
	devlink_fmsg_u32_pair_put(fmsg, "cmdq_log_depth", h->cmdq_log_depth);
	devlink_fmsg_u32_pair_put(fmsg, "last_cmd_opcode",
				  le16_to_cpu(h->last_cmd_opcode));
	devlink_fmsg_u32_pair_put(fmsg, "last_cmd_status", h->last_cmd_status);
	devlink_fmsg_u64_pair_put(fmsg, "cmds", le64_to_cpu(h->cmds));
	devlink_fmsg_u64_pair_put(fmsg, "events", le64_to_cpu(h->events));
	devlink_fmsg_u64_pair_put(fmsg, "resets", le64_to_cpu(h->resets));
	devlink_fmsg_obj_nest_end(fmsg);
	devlink_fmsg_pair_nest_end(fmsg);
}

static void orca_fmsg_dump_objects(struct devlink_fmsg *fmsg,
				   const struct orca_dump_objects *r)
{
	devlink_fmsg_pair_nest_start(fmsg, "objects");
	devlink_fmsg_obj_nest_start(fmsg);
	devlink_fmsg_u32_pair_put(fmsg, "eq", le32_to_cpu(r->eqs));
	devlink_fmsg_u32_pair_put(fmsg, "uar", le32_to_cpu(r->uars));
	devlink_fmsg_u32_pair_put(fmsg, "pd", le32_to_cpu(r->pds));
	devlink_fmsg_u32_pair_put(fmsg, "cq", le32_to_cpu(r->cqs));
	devlink_fmsg_u32_pair_put(fmsg, "mr", le32_to_cpu(r->mrs));
	devlink_fmsg_u32_pair_put(fmsg, "qp", le32_to_cpu(r->qps));
	devlink_fmsg_u32_pair_put(fmsg, "ah", le32_to_cpu(r->ahs));
	devlink_fmsg_u32_pair_put(fmsg, "srq", le32_to_cpu(r->srqs));
	devlink_fmsg_u64_pair_put(fmsg, "mem_used", le64_to_cpu(r->mem_used));
	devlink_fmsg_obj_nest_end(fmsg);
	devlink_fmsg_pair_nest_end(fmsg);
}

static void orca_fmsg_dump_eq(struct devlink_fmsg *fmsg,
			      const struct orca_dump_eq *r)
{
	devlink_fmsg_obj_nest_start(fmsg);
	devlink_fmsg_u32_pair_put(fmsg, "eqn", le32_to_cpu(r->eqn));
	devlink_fmsg_u32_pair_put(fmsg, "pi", le32_to_cpu(r->pi));
	devlink_fmsg_u32_pair_put(fmsg, "ci", le32_to_cpu(r->ci));
	devlink_fmsg_u32_pair_put(fmsg, "vector", le16_to_cpu(r->vector));
	devlink_fmsg_u32_pair_put(fmsg, "log_depth", r->log_depth);
	devlink_fmsg_bool_pair_put(fmsg, "armed", r->armed);
	devlink_fmsg_u32_pair_put(fmsg, "cqs", le32_to_cpu(r->cqs));
	devlink_fmsg_obj_nest_end(fmsg);
}

static void orca_fmsg_dump_qp(struct devlink_fmsg *fmsg,
			      const struct orca_dump_qp *r)
{
	devlink_fmsg_obj_nest_start(fmsg);
	devlink_fmsg_u32_pair_put(fmsg, "qpn", le32_to_cpu(r->qpn));
	devlink_fmsg_u32_pair_put(fmsg, "type", r->type);
	devlink_fmsg_u32_pair_put(fmsg, "state", r->state);
	devlink_fmsg_u32_pair_put(fmsg, "send_cqn", le32_to_cpu(r->send_cqn));
	devlink_fmsg_u32_pair_put(fmsg, "recv_cqn", le32_to_cpu(r->recv_cqn));
	devlink_fmsg_u32_pair_put(fmsg, "srqn", le32_to_cpu(r->srqn));
	devlink_fmsg_u32_pair_put(fmsg, "sq_ci", le32_to_cpu(r->sq_ci));
	devlink_fmsg_u32_pair_put(fmsg, "rq_ci", le32_to_cpu(r->rq_ci));
	devlink_fmsg_obj_nest_end(fmsg);
}

static void orca_fmsg_dump_port(struct devlink_fmsg *fmsg,
				const struct orca_dump_port *r)
{
	devlink_fmsg_pair_nest_start(fmsg, "port");
	devlink_fmsg_obj_nest_start(fmsg);
	devlink_fmsg_bool_pair_put(fmsg, "link_up", r->link_up);
	devlink_fmsg_u32_pair_put(fmsg, "active_mtu", r->active_mtu);
	devlink_fmsg_u32_pair_put(fmsg, "eth_mtu", le32_to_cpu(r->eth_mtu));
	devlink_fmsg_u64_pair_put(fmsg, "tx_packets",
				  le64_to_cpu(r->tx_packets));
	devlink_fmsg_u64_pair_put(fmsg, "rx_packets",
				  le64_to_cpu(r->rx_packets));
	devlink_fmsg_u64_pair_put(fmsg, "rx_drops", le64_to_cpu(r->rx_drops));
	devlink_fmsg_u64_pair_put(fmsg, "retransmits",
				  le64_to_cpu(r->retransmits));
	devlink_fmsg_u64_pair_put(fmsg, "retry_timeouts",
				  le64_to_cpu(r->retry_timeouts));
	devlink_fmsg_u64_pair_put(fmsg, "cq_overruns",
				  le64_to_cpu(r->cq_overruns));
	devlink_fmsg_obj_nest_end(fmsg);
	devlink_fmsg_pair_nest_end(fmsg);
}

/*
 * The records of one type as an array (EQs, QPs); the buffer was checked
 * by orca_dump_check().  Records of other types and sizes are skipped.
 */
static void orca_fmsg_dump_array(struct devlink_fmsg *fmsg, const u8 *buf,
				 u32 len, u16 type, const char *name)
{
	const struct orca_dump_hdr *h = (const void *)buf;
	const struct orca_dump_rec *rec;
	u32 off;

	devlink_fmsg_arr_pair_nest_start(fmsg, name);
	for (off = le16_to_cpu(h->hdr_len); off < len;
	     off += le16_to_cpu(rec->len)) {
		rec = (const void *)(buf + off);
		if (le16_to_cpu(rec->type) != type)
			continue;
		if (type == ORCA_DUMP_REC_EQ &&
		    le16_to_cpu(rec->len) >= sizeof(struct orca_dump_eq))
			orca_fmsg_dump_eq(fmsg, (const void *)rec);
		else if (type == ORCA_DUMP_REC_QP &&
			 le16_to_cpu(rec->len) >= sizeof(struct orca_dump_qp))
			orca_fmsg_dump_qp(fmsg, (const void *)rec);
	}
	devlink_fmsg_arr_pair_nest_end(fmsg);
}

/*
 * The adapter is not trusted: the header must match its own length and
 * every record must lie in the snapshot, 8-byte sized.
 */
static bool orca_dump_check(const u8 *buf, u32 len)
{
	const struct orca_dump_hdr *h = (const void *)buf;
	const struct orca_dump_rec *rec;
	u32 off, rlen;

	if (le32_to_cpu(h->magic) != ORCA_DUMP_MAGIC ||
	    le32_to_cpu(h->length) != len ||
	    le16_to_cpu(h->hdr_len) < sizeof(*h) ||
	    le16_to_cpu(h->hdr_len) > len || le16_to_cpu(h->hdr_len) % 8)
		return false;
	for (off = le16_to_cpu(h->hdr_len); off < len; off += rlen) {
		if (len - off < sizeof(*rec))
			return false;
		rec = (const void *)(buf + off);
		rlen = le16_to_cpu(rec->len);
		if (rlen < sizeof(*rec) || rlen % 8 || rlen > len - off)
			return false;
	}
	return true;
}

static void orca_fmsg_dump(struct devlink_fmsg *fmsg, const u8 *buf, u32 len)
{
	const struct orca_dump_hdr *h = (const void *)buf;
	const struct orca_dump_rec *rec;
	u32 off;

	orca_fmsg_dump_hdr(fmsg, h);
	for (off = le16_to_cpu(h->hdr_len); off < len;
	     off += le16_to_cpu(rec->len)) {
		rec = (const void *)(buf + off);
		if (le16_to_cpu(rec->type) == ORCA_DUMP_REC_OBJECTS &&
		    le16_to_cpu(rec->len) >= sizeof(struct orca_dump_objects))
			orca_fmsg_dump_objects(fmsg, (const void *)rec);
		else if (le16_to_cpu(rec->type) == ORCA_DUMP_REC_PORT &&
			 le16_to_cpu(rec->len) >= sizeof(struct orca_dump_port))
			orca_fmsg_dump_port(fmsg, (const void *)rec);
	}
	orca_fmsg_dump_array(fmsg, buf, len, ORCA_DUMP_REC_EQ, "eqs");
	orca_fmsg_dump_array(fmsg, buf, len, ORCA_DUMP_REC_QP, "qps");
}

static const char *orca_pf_state(struct orca_pf *pf)
{
	if (!pf->odev)
		return "absent";
	return orca_dev_is_dead(pf->odev) ? "dead" : "alive";
}

/*
 * The adapter's own account of its state, read through the dump window
 * (no DMA: the adapter may be fatal and fenced).  For a dead device, the
 * snapshot it took when the driver found it dead, before the fence's
 * reset; else a new one.
 */
static int orca_fw_fatal_dump(struct devlink_health_reporter *reporter,
			      struct devlink_fmsg *fmsg, void *priv_ctx,
			      struct netlink_ext_ack *extack)
{
	struct orca_pf *pf = devlink_health_reporter_priv(reporter);
	struct orca_dev *odev = pf->odev;
	unsigned int timeout_ms;
	__le32 *buf;
	bool take;
	int len;

	devl_assert_locked(priv_to_devlink(pf));
	devlink_fmsg_string_pair_put(fmsg, "driver_state", orca_pf_state(pf));
	take = !odev || !test_bit(ORCA_DEV_DEATH_DUMP, &odev->flags);
	devlink_fmsg_bool_pair_put(fmsg, "taken_at_death", !take);
	timeout_ms = odev ? odev->reset_timeout_ms : 2000;
	len = orca_dump_snapshot(pf, take, timeout_ms);
	if (len == -EOPNOTSUPP) {
		NL_SET_ERR_MSG_MOD(extack, "the adapter has no dump window");
		return len;
	}
	if (len < 0) {
		NL_SET_ERR_MSG_MOD(extack, "the adapter took no snapshot");
		return len;
	}
	buf = kvzalloc(len, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	orca_dump_read(pf, buf, len);
	if (!orca_dump_check((const u8 *)buf, len)) {
		kvfree(buf);
		NL_SET_ERR_MSG_MOD(extack, "the adapter's snapshot is malformed");
		return -EIO;
	}
	orca_fmsg_dump(fmsg, (const u8 *)buf, len);
	kvfree(buf);
	return 0;
}

static void orca_fmsg_cmdq(struct devlink_fmsg *fmsg, struct orca_dev *odev)
{
	struct orca_cmdq *cmdq = &odev->cmdq;
	u32 pi, ci, outstanding;
	unsigned long flags;

	spin_lock_irqsave(&cmdq->lock, flags);
	pi = cmdq->pi;
	ci = cmdq->ci;
	outstanding = cmdq->outstanding;
	spin_unlock_irqrestore(&cmdq->lock, flags);
	devlink_fmsg_pair_nest_start(fmsg, "cmdq");
	devlink_fmsg_obj_nest_start(fmsg);
	devlink_fmsg_u32_pair_put(fmsg, "depth", cmdq->depth);
	devlink_fmsg_u32_pair_put(fmsg, "posted", pi);
	devlink_fmsg_u32_pair_put(fmsg, "completed", ci);
	devlink_fmsg_u32_pair_put(fmsg, "outstanding", outstanding);
	devlink_fmsg_bool_pair_put(fmsg, "event_mode",
				   READ_ONCE(cmdq->event_mode));
	devlink_fmsg_obj_nest_end(fmsg);
	devlink_fmsg_pair_nest_end(fmsg);
}

/* The driver's view, and the adapter's status registers. */
static int orca_fw_fatal_diagnose(struct devlink_health_reporter *reporter,
				  struct devlink_fmsg *fmsg,
				  struct netlink_ext_ack *extack)
{
	struct orca_pf *pf = devlink_health_reporter_priv(reporter);
	struct orca_dev *odev = pf->odev;
	const char *reason;

	devl_assert_locked(priv_to_devlink(pf));
	devlink_fmsg_string_pair_put(fmsg, "state", orca_pf_state(pf));
	if (odev && orca_dev_is_dead(odev)) {
		reason = READ_ONCE(odev->dead_reason);
		devlink_fmsg_string_pair_put(fmsg, "reason",
					     reason ?: "unknown");
	}
	devlink_fmsg_u32_pair_put(fmsg, "dev_status",
				  orca_pf_rd32(pf, ORCA_REG_DEV_STATUS));
	devlink_fmsg_u32_pair_put(fmsg, "fatal_syndrome",
				  orca_pf_rd32(pf, ORCA_REG_FATAL_SYNDROME));
	devlink_fmsg_u32_pair_put(fmsg, "heartbeat",
				  orca_pf_rd32(pf, ORCA_REG_HEARTBEAT));
	if (!odev)
		return 0;
	devlink_fmsg_u32_pair_put(fmsg, "heartbeat_stalls",
				  READ_ONCE(odev->heartbeat_stalls));
	devlink_fmsg_u32_pair_put(fmsg, "leaked_objects",
				  atomic_read(&odev->leaked));
	orca_fmsg_cmdq(fmsg, odev);
	return 0;
}

/*
 * A new orca_dev in place of the dead one: the old one is torn down (its
 * ib_device unregistered, its ULPs told), then every stage runs again from
 * the function reset.  On failure the function has no orca_dev until the
 * next recovery or remove.
 */
static int orca_fw_fatal_recover(struct devlink_health_reporter *reporter,
				 void *priv_ctx, struct netlink_ext_ack *extack)
{
	struct orca_pf *pf = devlink_health_reporter_priv(reporter);
	struct orca_dev *odev;

	devl_assert_locked(priv_to_devlink(pf));
	if (pf->odev && !orca_dev_is_dead(pf->odev))
		return 0;
	if (pf->odev) {
		orca_dev_destroy(pf->odev);
		pf->odev = NULL;
	}
	odev = orca_dev_create(pf);
	if (IS_ERR(odev)) {
		NL_SET_ERR_MSG_MOD(extack, "the adapter did not come back");
		return PTR_ERR(odev);
	}
	pf->odev = odev;
	dev_info(&pf->pdev->dev, "recovered: %s\n", dev_name(&odev->ibdev.dev));
	return 0;
}

static const struct devlink_health_reporter_ops orca_fw_fatal_ops = {
	.name = "fw_fatal",
	.recover = orca_fw_fatal_recover,
	.dump = orca_fw_fatal_dump,
	.diagnose = orca_fw_fatal_diagnose,
	.default_graceful_period = ORCA_FW_FATAL_GRACE_MS,
};

static void orca_pf_fatal_work(struct work_struct *work)
{
	struct orca_pf *pf = container_of(work, struct orca_pf, fatal_work);
	struct devlink *devlink = priv_to_devlink(pf);
	const char *reason = NULL;

	devl_lock(devlink);
	if (pf->odev && orca_dev_is_dead(pf->odev) &&
	    !test_and_set_bit(ORCA_DEV_HEALTH_REPORTED, &pf->odev->flags))
		reason = READ_ONCE(pf->odev->dead_reason) ?: "dead";
	devl_unlock(devlink);
	/* Dumps and, with auto_recover, recovers under devl_lock. */
	if (reason)
		devlink_health_report(pf->fw_reporter, reason, NULL);
}

/**
 * orca_devlink_report_dead() - have a dead device reported to devlink
 * @odev: a device marked dead
 *
 * Called by its dead work; the report runs in a work of the function.
 */
void orca_devlink_report_dead(struct orca_dev *odev)
{
	if (orca_dev_is_dead(odev))
		queue_work(system_dfl_wq, &odev->pf->fatal_work);
}

/**
 * orca_pf_alloc() - the devlink instance of a PCI function
 * @pdev: the function
 *
 * Return: its struct orca_pf (the instance's private data), or NULL.
 */
struct orca_pf *orca_pf_alloc(struct pci_dev *pdev)
{
	struct devlink *devlink;
	struct orca_pf *pf;

	devlink = devlink_alloc(&orca_devlink_ops, sizeof(*pf), &pdev->dev);
	if (!devlink)
		return NULL;
	pf = devlink_priv(devlink);
	pf->pdev = pdev;
	INIT_WORK(&pf->fatal_work, orca_pf_fatal_work);
	/* Nothing is reported before the instance is registered. */
	disable_work(&pf->fatal_work);
	return pf;
}

/**
 * orca_pf_register() - make the instance and its reporter visible
 * @pf: function with its first orca_dev
 *
 * Return: 0 or a negative errno.
 */
int orca_pf_register(struct orca_pf *pf)
{
	struct devlink *devlink = priv_to_devlink(pf);
	struct devlink_health_reporter *reporter;
	int err;

	reporter = devlink_health_reporter_create(devlink, &orca_fw_fatal_ops,
						  pf);
	if (IS_ERR(reporter)) {
		dev_err(&pf->pdev->dev, "devlink health reporter: %pe\n",
			reporter);
		return PTR_ERR(reporter);
	}
	pf->fw_reporter = reporter;
	err = orca_cc_params_register(pf);
	if (err) {
		dev_err(&pf->pdev->dev, "devlink params: %d\n", err);
		devlink_health_reporter_destroy(reporter);
		return err;
	}
	devlink_register(devlink);
	/* A death during probe was not reported: report it now. */
	enable_and_queue_work(system_dfl_wq, &pf->fatal_work);
	return 0;
}

/**
 * orca_pf_unregister() - stop reports and recoveries, hide the instance
 * @pf: function
 *
 * Waits for a recovery in progress; afterwards pf->odev no longer changes.
 */
void orca_pf_unregister(struct orca_pf *pf)
{
	struct devlink *devlink = priv_to_devlink(pf);

	disable_work_sync(&pf->fatal_work);
	devl_lock(devlink);
	devl_unregister(devlink);
	orca_cc_params_unregister(pf);
	devl_health_reporter_destroy(pf->fw_reporter);
	devl_unlock(devlink);
}

void orca_pf_free(struct orca_pf *pf)
{
	devlink_free(priv_to_devlink(pf));
}

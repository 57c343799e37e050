// SPDX-License-Identifier: GPL-2.0
/*
 * ORCA debugfs, for developers and bug reports:
 * /sys/kernel/debug/orca/<PCI name>/
 *	cmdq	the firmware command queue: depth, indices, outstanding
 *		commands, failures and timeouts
 *	eqs	every event queue (eqn, vector, depth, consumer index) and
 *		the driver's event counters
 *	qp, cq	write a QP or CQ number, then read: the driver's view of
 *		that object and the adapter's (QUERY_QP, QUERY_CQ)
 *
 * A dump holds a reference on its object, as an event handler does, so
 * destroying the object waits for the dump instead of freeing it under
 * it.  The directory goes before the EQs and the command queue (it is a
 * probe stage), and debugfs waits for readers while removing it.  As
 * debugfs wants, failures to create entries are ignored.
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>

#include "orca_diag.h"
#include "orca_eq.h"
#include "orca_verbs.h"

static struct dentry *orca_debugfs_root;

static int orca_dbg_cmdq_show(struct seq_file *m, void *v)
{
	struct orca_dev *odev = m->private;
	struct orca_cmdq *cmdq = &odev->cmdq;
	u32 pi, ci, outstanding, orphan_ahs = 0;
	u64 failed, timeouts;
	unsigned long flags, ahn;
	void *entry;
	bool events;

	spin_lock_irqsave(&cmdq->lock, flags);
	pi = cmdq->pi;
	ci = cmdq->ci;
	outstanding = cmdq->outstanding;
	failed = cmdq->failed;
	timeouts = cmdq->timeouts;
	events = cmdq->event_mode;
	spin_unlock_irqrestore(&cmdq->lock, flags);
	xa_for_each(&odev->orphan_ahs, ahn, entry)
		orphan_ahs++;

	seq_printf(m, "depth %u\n", cmdq->depth);
	seq_printf(m, "pi %u\n", pi);
	seq_printf(m, "ci %u\n", ci);
	seq_printf(m, "outstanding %u\n", outstanding);
	seq_printf(m, "event_mode %u\n", events);
	seq_printf(m, "timeout_ms %u\n", jiffies_to_msecs(cmdq->timeout));
	/* Indices count from the queue's creation: posted and completed. */
	seq_printf(m, "posted %u\n", pi);
	seq_printf(m, "completed %u\n", ci);
	seq_printf(m, "failed %llu\n", failed);
	seq_printf(m, "timeouts %llu\n", timeouts);
	seq_printf(m, "orphan_ahs %u\n", orphan_ahs);
	seq_printf(m, "dead %u\n", orca_dev_is_dead(odev));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(orca_dbg_cmdq);

static void orca_dbg_eq(struct seq_file *m, const struct orca_eq *eq,
			bool comp)
{
	seq_printf(m, "eq %u vector %u irq %d depth %u ci %u created %u",
		   eq->eqn, eq->vector, eq->irq, 1U << eq->log_depth,
		   READ_ONCE(eq->ci), eq->created);
	if (comp)
		seq_printf(m, " cqs %d max_cqs %u", atomic_read(&eq->ncqs),
			   eq->max_cqs);
	seq_putc(m, '\n');
}

static int orca_dbg_eqs_show(struct seq_file *m, void *v)
{
	struct orca_dev *odev = m->private;
	int i;

	orca_dbg_eq(m, &odev->async_eq, false);
	for (i = 0; i < odev->num_comp_eqs; i++)
		orca_dbg_eq(m, &odev->comp_eqs[i], true);
	seq_printf(m, "driver_bad_eqes %lld\n",
		   atomic64_read(&odev->drv_stats[ORCA_DRV_STAT_BAD_EQES]));
	seq_printf(m, "driver_stale_events %lld\n",
		   atomic64_read(&odev->drv_stats[ORCA_DRV_STAT_STALE_EVENTS]));
	seq_printf(m, "driver_eq_budget_yields %lld\n",
		   atomic64_read(&odev->drv_stats[ORCA_DRV_STAT_EQ_BUDGET_YIELDS]));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(orca_dbg_eqs);

static void orca_dbg_qp_driver(struct seq_file *m, const struct orca_qp *qp)
{
	const struct ib_qp *ibqp = &qp->ibqp;
	struct orca_qp_db_rec rec;

	seq_printf(m, "qpn %u\ntype %u\nstate %u\nuser %u\n", qp->qpn,
		   ibqp->qp_type, READ_ONCE(qp->state), qp->user);
	seq_printf(m, "sq_depth %u\nsq_max_sge %u\nsq_stride %u\nmax_inline %u\n",
		   1U << qp->log_sq_depth, qp->max_send_sge, qp->sq_stride,
		   qp->max_inline_data);
	seq_printf(m, "rq_depth %u\nrq_max_sge %u\nrq_stride %u\n",
		   ibqp->srq ? 0 : 1U << qp->log_rq_depth, qp->max_recv_sge,
		   qp->rq_stride);
	if (ibqp->send_cq)
		seq_printf(m, "send_cqn %u\n", to_ocq(ibqp->send_cq)->cqn);
	if (ibqp->recv_cq)
		seq_printf(m, "recv_cqn %u\n", to_ocq(ibqp->recv_cq)->cqn);
	if (ibqp->srq)
		seq_printf(m, "srqn %u\n", to_osrq(ibqp->srq)->srqn);
	/* A target QP has no rings and no doorbell record. */
	if (orca_qp_is_xrc_tgt(qp)) {
		seq_printf(m, "xrcdn %u\n", to_oxrcd(qp->xrcd)->xrcdn);
		return;
	}
	if (qp->user) {
		orca_udb_read(qp->udb, qp->db_dma, &rec, sizeof(rec));
	} else {
		seq_printf(m, "sq_pi %u\nsq_ci %u\nrq_pi %u\nrq_ci %u\n",
			   READ_ONCE(qp->sq_pi), READ_ONCE(qp->sq_ci),
			   READ_ONCE(qp->rq_pi), READ_ONCE(qp->rq_ci));
		memcpy(&rec, qp->db, sizeof(rec));
	}
	seq_printf(m, "db_sq_pi %u\ndb_rq_pi %u\ndb_sq_event_idx %u\ndb_rq_event_idx %u\n",
		   le32_to_cpu(rec.sq_pi), le32_to_cpu(rec.rq_pi),
		   le32_to_cpu(rec.sq_event_idx),
		   le32_to_cpu(rec.rq_event_idx));
}

static int orca_dbg_qp_show(struct seq_file *m, void *v)
{
	struct orca_dev *odev = m->private;
	u32 qpn = READ_ONCE(odev->dbg.qpn);
	struct orca_com_qp_attr a;
	struct orca_qp *qp;
	int err;

	qp = orca_qp_get(odev, qpn);
	if (!qp)
		return -ENOENT;
	orca_dbg_qp_driver(m, qp);
	err = orca_com_query_qp(odev, qpn, &a);
	if (err) {
		seq_printf(m, "adapter_error %d\n", err);
	} else {
		seq_printf(m, "adapter_state %u\nadapter_sq_psn %u\nadapter_rq_psn %u\n",
			   a.qp_state, a.sq_psn, a.rq_psn);
		seq_printf(m, "adapter_dest_qpn %u\nadapter_path_mtu %u\nadapter_sq_draining %u\n",
			   a.dest_qpn, a.path_mtu, a.sq_draining);
		seq_printf(m, "adapter_timeout %u\nadapter_retry_cnt %u\nadapter_rnr_retry %u\n",
			   a.timeout, a.retry_cnt, a.rnr_retry);
		seq_printf(m, "adapter_max_rd_atomic %u\nadapter_max_dest_rd_atomic %u\n",
			   a.max_rd_atomic, a.max_dest_rd_atomic);
	}
	orca_qp_put(qp);
	return 0;
}

static int orca_dbg_cq_show(struct seq_file *m, void *v)
{
	struct orca_dev *odev = m->private;
	u32 cqn = READ_ONCE(odev->dbg.cqn);
	struct orca_com_cq_attr a;
	struct orca_cq_db_rec rec;
	struct orca_cq *cq;
	int err;

	cq = orca_cq_get(odev, cqn);
	if (!cq)
		return -ENOENT;
	seq_printf(m, "cqn %u\neqn %u\ncomp_vector %u\ndepth %u\nuser %u\n",
		   cq->cqn, cq->eqn, cq->comp_vector,
		   1U << READ_ONCE(cq->log_depth), cq->user);
	if (cq->user) {
		orca_udb_read(cq->udb, cq->db_dma, &rec, sizeof(rec));
	} else {
		seq_printf(m, "ci %u\narm_seq %u\narmed %u\n", READ_ONCE(cq->ci),
			   READ_ONCE(cq->arm_seq), READ_ONCE(cq->armed));
		memcpy(&rec, cq->db, sizeof(rec));
	}
	seq_printf(m, "db_ci %u\ndb_arm 0x%x\n", le32_to_cpu(rec.ci),
		   le32_to_cpu(rec.arm));
	err = orca_com_query_cq(odev, cqn, &a);
	if (err) {
		seq_printf(m, "adapter_error %d\n", err);
	} else {
		seq_printf(m, "adapter_pi %u\nadapter_ci %u\nadapter_depth %u\n",
			   a.pi, a.ci, 1U << a.log_depth);
		seq_printf(m, "adapter_eqn %u\nadapter_armed %u\nadapter_arm_fired %u\n",
			   a.eqn, a.armed, a.arm_fired);
		seq_printf(m, "adapter_overrun %u\nadapter_overruns %u\n",
			   a.overrun, a.overruns);
	}
	orca_cq_put(cq);
	return 0;
}

/*
 * qp and cq: a write selects the object (one number per device, so that
 * `echo N > qp; cat qp` works), a read dumps it or fails with ENOENT.
 */
static ssize_t orca_dbg_select(struct file *file, const char __user *buf,
			       size_t count, u32 *sel)
{
	u32 n;
	int err;

	err = kstrtou32_from_user(buf, count, 0, &n);
	if (err)
		return err;
	WRITE_ONCE(*sel, n);
	return count;
}

static ssize_t orca_dbg_qp_write(struct file *file, const char __user *buf,
				 size_t count, loff_t *ppos)
{
	struct orca_dev *odev = ((struct seq_file *)file->private_data)->private;

	return orca_dbg_select(file, buf, count, &odev->dbg.qpn);
}

static ssize_t orca_dbg_cq_write(struct file *file, const char __user *buf,
				 size_t count, loff_t *ppos)
{
	struct orca_dev *odev = ((struct seq_file *)file->private_data)->private;

	return orca_dbg_select(file, buf, count, &odev->dbg.cqn);
}

static int orca_dbg_qp_open(struct inode *inode, struct file *file)
{
	return single_open(file, orca_dbg_qp_show, inode->i_private);
}

static int orca_dbg_cq_open(struct inode *inode, struct file *file)
{
	return single_open(file, orca_dbg_cq_show, inode->i_private);
}

static const struct file_operations orca_dbg_qp_fops = {
	.owner = THIS_MODULE,
	.open = orca_dbg_qp_open,
	.read = seq_read,
	.write = orca_dbg_qp_write,
	.llseek = seq_lseek,
	.release = single_release,
};

static const struct file_operations orca_dbg_cq_fops = {
	.owner = THIS_MODULE,
	.open = orca_dbg_cq_open,
	.read = seq_read,
	.write = orca_dbg_cq_write,
	.llseek = seq_lseek,
	.release = single_release,
};

/* Probe stage: after the EQs, so every file has what it shows. */
int orca_debugfs_init(struct orca_dev *odev)
{
	struct dentry *dir;

	dir = debugfs_create_dir(pci_name(odev->pdev), orca_debugfs_root);
	odev->dbg.dir = dir;
	debugfs_create_file("cmdq", 0400, dir, odev, &orca_dbg_cmdq_fops);
	debugfs_create_file("eqs", 0400, dir, odev, &orca_dbg_eqs_fops);
	debugfs_create_file("qp", 0600, dir, odev, &orca_dbg_qp_fops);
	debugfs_create_file("cq", 0600, dir, odev, &orca_dbg_cq_fops);
	return 0;
}

void orca_debugfs_cleanup(struct orca_dev *odev)
{
	debugfs_remove(odev->dbg.dir);
	odev->dbg.dir = NULL;
}

void orca_debugfs_register(void)
{
	orca_debugfs_root = debugfs_create_dir(KBUILD_MODNAME, NULL);
}

void orca_debugfs_unregister(void)
{
	debugfs_remove(orca_debugfs_root);
}

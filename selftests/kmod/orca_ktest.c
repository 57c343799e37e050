// SPDX-License-Identifier: GPL-2.0
/*
 * orca_ktest: a kernel-side observer for ORCA's guest tests.
 *
 * Port attributes and asynchronous events are only visible to kernel
 * consumers (and to uverbs through a provider), so this module registers an
 * ib_client on every RDMA device and exposes, per device, in debugfs:
 *
 *   /sys/kernel/debug/orca_ktest/<ibdev>/port    ib_query_port() of port 1
 *   /sys/kernel/debug/orca_ktest/<ibdev>/device  the device attributes the
 *                                                core caches (named as
 *                                                ibv_devinfo -v names them)
 *   /sys/kernel/debug/orca_ktest/<ibdev>/events  count of each ib_event type
 *   /sys/kernel/debug/orca_ktest/<ibdev>/at_add  what a ULP's add callback
 *                                                saw: GID 0 of port 1 and
 *                                                the port's netdev (ib_srpt,
 *                                                for one, reads GID 0 there)
 *
 * Writing anything to "events" clears the counters.  The module is only
 * built for tests and never loaded otherwise.
 */
#include <linux/debugfs.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>

#define KTEST_NUM_EVENTS (IB_EVENT_DEVICE_SPEED_CHANGE + 1)

struct ktest_dev {
	struct ib_device *ibdev;
	struct ib_event_handler handler;
	struct dentry *dir;
	atomic_t events[KTEST_NUM_EVENTS];
	int gid0_err;
	union ib_gid gid0;
	char netdev[IFNAMSIZ];
};

static struct dentry *ktest_root;
static struct ib_client ktest_client;

static void ktest_event(struct ib_event_handler *handler,
			struct ib_event *event)
{
	struct ktest_dev *kd = container_of(handler, struct ktest_dev, handler);

	if (event->event < KTEST_NUM_EVENTS)
		atomic_inc(&kd->events[event->event]);
}

static int ktest_port_show(struct seq_file *s, void *unused)
{
	struct ktest_dev *kd = s->private;
	struct ib_port_attr attr;
	int ret;

	ret = ib_query_port(kd->ibdev, 1, &attr);
	if (ret)
		return ret;
	seq_printf(s, "state %d\nphys_state %u\nmax_mtu %d\nactive_mtu %d\n",
		   attr.state, attr.phys_state, ib_mtu_enum_to_int(attr.max_mtu),
		   ib_mtu_enum_to_int(attr.active_mtu));
	seq_printf(s, "gid_tbl_len %d\npkey_tbl_len %u\n", attr.gid_tbl_len,
		   attr.pkey_tbl_len);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(ktest_port);

static int ktest_device_show(struct seq_file *s, void *unused)
{
	struct ktest_dev *kd = s->private;
	const struct ib_device_attr *a = &kd->ibdev->attrs;

	seq_printf(s, "max_mr_size 0x%llx\n", a->max_mr_size);
	seq_printf(s, "vendor_id 0x%04x\nvendor_part_id %u\nhw_ver 0x%x\n",
		   a->vendor_id, a->vendor_part_id, a->hw_ver);
	seq_printf(s, "max_qp %d\nmax_qp_wr %d\nmax_sge %d\n", a->max_qp,
		   a->max_qp_wr, min(a->max_send_sge, a->max_recv_sge));
	seq_printf(s, "max_cq %d\nmax_cqe %d\nmax_mr %d\nmax_pd %d\n",
		   a->max_cq, a->max_cqe, a->max_mr, a->max_pd);
	seq_printf(s, "max_qp_rd_atom %d\nmax_qp_init_rd_atom %d\n",
		   a->max_qp_rd_atom, a->max_qp_init_rd_atom);
	seq_printf(s, "max_srq %d\nmax_srq_wr %d\nmax_srq_sge %d\n",
		   a->max_srq, a->max_srq_wr, a->max_srq_sge);
	seq_printf(s, "max_ah %d\natomic_cap %d\n", a->max_ah,
		   a->atomic_cap);
	/* CQ moderation, as ibv_devinfo -v names it ("cq moderation caps"). */
	seq_printf(s, "max_cq_count %u\nmax_cq_period %u\n",
		   a->cq_caps.max_cq_moderation_count,
		   a->cq_caps.max_cq_moderation_period);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(ktest_device);

static int ktest_at_add_show(struct seq_file *s, void *unused)
{
	struct ktest_dev *kd = s->private;

	if (kd->gid0_err)
		seq_printf(s, "gid0 error %d\n", kd->gid0_err);
	else
		seq_printf(s, "gid0 %pI6\n", kd->gid0.raw);
	seq_printf(s, "netdev %s\n", kd->netdev[0] ? kd->netdev : "none");
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(ktest_at_add);

static int ktest_events_show(struct seq_file *s, void *unused)
{
	struct ktest_dev *kd = s->private;
	int i;

	for (i = 0; i < KTEST_NUM_EVENTS; i++)
		seq_printf(s, "%s %d\n", ib_event_msg(i),
			   atomic_read(&kd->events[i]));
	return 0;
}

static int ktest_events_open(struct inode *inode, struct file *file)
{
	return single_open(file, ktest_events_show, inode->i_private);
}

static ssize_t ktest_events_write(struct file *file, const char __user *buf,
				  size_t count, loff_t *ppos)
{
	struct ktest_dev *kd = file_inode(file)->i_private;
	int i;

	for (i = 0; i < KTEST_NUM_EVENTS; i++)
		atomic_set(&kd->events[i], 0);
	return count;
}

static const struct file_operations ktest_events_fops = {
	.owner = THIS_MODULE,
	.open = ktest_events_open,
	.read = seq_read,
	.write = ktest_events_write,
	.llseek = seq_lseek,
	.release = single_release,
};

static int ktest_add(struct ib_device *ibdev)
{
	struct net_device *ndev;
	struct ktest_dev *kd;

	kd = kzalloc_obj(*kd);
	if (!kd)
		return -ENOMEM;
	kd->ibdev = ibdev;
	kd->gid0_err = rdma_query_gid(ibdev, 1, 0, &kd->gid0);
	ndev = ib_device_get_netdev(ibdev, 1);
	if (ndev) {
		strscpy(kd->netdev, netdev_name(ndev));
		dev_put(ndev);
	}
	kd->dir = debugfs_create_dir(dev_name(&ibdev->dev), ktest_root);
	debugfs_create_file("port", 0400, kd->dir, kd, &ktest_port_fops);
	debugfs_create_file("device", 0400, kd->dir, kd, &ktest_device_fops);
	debugfs_create_file("events", 0600, kd->dir, kd, &ktest_events_fops);
	debugfs_create_file("at_add", 0400, kd->dir, kd, &ktest_at_add_fops);
	INIT_IB_EVENT_HANDLER(&kd->handler, ibdev, ktest_event);
	ib_register_event_handler(&kd->handler);
	ib_set_client_data(ibdev, &ktest_client, kd);
	return 0;
}

static void ktest_remove(struct ib_device *ibdev, void *client_data)
{
	struct ktest_dev *kd = client_data;

	ib_unregister_event_handler(&kd->handler);
	debugfs_remove_recursive(kd->dir);
	kfree(kd);
}

static struct ib_client ktest_client = {
	.name = "orca_ktest",
	.add = ktest_add,
	.remove = ktest_remove,
	/* Observe devices before they have a kernel data path too. */
	.no_kverbs_req = true,
};

static int __init ktest_init(void)
{
	int ret;

	ktest_root = debugfs_create_dir("orca_ktest", NULL);
	ret = ib_register_client(&ktest_client);
	if (ret)
		debugfs_remove_recursive(ktest_root);
	return ret;
}

static void __exit ktest_exit(void)
{
	ib_unregister_client(&ktest_client);
	debugfs_remove_recursive(ktest_root);
}

module_init(ktest_init);
module_exit(ktest_exit);
MODULE_DESCRIPTION("ORCA guest test observer (port attributes, async events)");
MODULE_LICENSE("GPL");

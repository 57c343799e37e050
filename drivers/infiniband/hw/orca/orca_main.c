// SPDX-License-Identifier: GPL-2.0
/*
 * ORCA RoCE HCA driver: PCI probe and remove, the bring-up and teardown of
 * an orca_dev as a table of init/cleanup stages (also run by a devlink
 * health recovery, orca_devlink.c), what each part of the driver does when
 * the device dies, and the ib_device ops table and registration.
 */
#include <linux/delay.h>
#include <linux/dma-mapping.h>
#include <linux/module.h>
#include <net/addrconf.h>

#include "orca_devlink.h"
#include "orca_diag.h"
#include "orca_eq.h"
#include "orca_port.h"
#include "orca_user.h"

MODULE_DESCRIPTION("ORCA RoCE host channel adapter driver");
MODULE_LICENSE("GPL");

/*
 * What belongs to the PCI function and outlives an orca_dev: the enabled
 * function, its BARs.  Bus mastering is the orca_dev's (orca_reset()): a
 * dead device's fence clears it.
 */
static int orca_pci_init(struct orca_pf *pf)
{
	struct pci_dev *pdev = pf->pdev;
	int err;

	err = pcim_enable_device(pdev);
	if (err)
		return err;
	err = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(64));
	if (err) {
		dev_err(&pdev->dev, "no 64-bit DMA (%d)\n", err);
		return err;
	}
	pf->regs = pcim_iomap_region(pdev, ORCA_BAR_REGS, KBUILD_MODNAME);
	if (IS_ERR(pf->regs))
		return PTR_ERR(pf->regs);
	if (pci_resource_len(pdev, ORCA_BAR_REGS) < ORCA_BAR_REGS_SIZE) {
		dev_err(&pdev->dev, "register BAR too small\n");
		return -ENODEV;
	}
	return pcim_request_region(pdev, ORCA_BAR_UAR, KBUILD_MODNAME);
}

static int orca_reset(struct orca_dev *odev)
{
	struct device *dev = &odev->pdev->dev;
	u32 magic, ver;
	int err;

	magic = orca_rd32(odev, ORCA_REG_MAGIC);
	if (magic != ORCA_MAGIC) {
		dev_err(dev, "bad magic 0x%08x, not an ORCA adapter\n", magic);
		return -ENODEV;
	}
	ver = orca_rd32(odev, ORCA_REG_IF_VERSION);
	if (FIELD_GET(ORCA_IF_VERSION_MAJOR, ver) != ORCA_IF_MAJOR) {
		dev_err(dev,
			"unsupported interface version %lu.%lu, driver supports %u.x\n",
			FIELD_GET(ORCA_IF_VERSION_MAJOR, ver),
			FIELD_GET(ORCA_IF_VERSION_MINOR, ver), ORCA_IF_MAJOR);
		return -ENODEV;
	}
	odev->fw_ver = orca_rd32(odev, ORCA_REG_FW_VERSION);
	odev->has_dump = orca_rd32(odev, ORCA_REG_CAPS) & ORCA_CAPS_DUMP;
	odev->reset_timeout_ms = clamp_t(u32,
					 orca_rd32(odev, ORCA_REG_RESET_TIMEOUT_MS),
					 100, 60000);

	err = orca_dev_reset(odev);
	if (err) {
		dev_err(dev, "reset failed (%d), status 0x%08x\n", err,
			orca_rd32(odev, ORCA_REG_DEV_STATUS));
		return err;
	}
	/* Reset: the device has no address of ours left to use. */
	pci_set_master(odev->pdev);
	dev_info(dev, "ORCA interface %lu.%lu firmware %lu.%lu.%lu\n",
		 FIELD_GET(ORCA_IF_VERSION_MAJOR, ver),
		 FIELD_GET(ORCA_IF_VERSION_MINOR, ver),
		 FIELD_GET(ORCA_FW_VERSION_MAJOR, odev->fw_ver),
		 FIELD_GET(ORCA_FW_VERSION_MINOR, odev->fw_ver),
		 FIELD_GET(ORCA_FW_VERSION_PATCH, odev->fw_ver));
	return 0;
}

/* EQ 0 plus one vector per completion EQ, at most one per online CPU. */
static int orca_irqs_init(struct orca_dev *odev)
{
	u32 dev_vecs = FIELD_GET(ORCA_CAPS_NUM_MSIX,
				 orca_rd32(odev, ORCA_REG_CAPS));
	int want, n;

	dev_vecs = min_t(u32, dev_vecs, ORCA_MAX_MSIX);
	if (dev_vecs < 2) {
		dev_err(&odev->pdev->dev, "device has %u MSI-X vectors, need 2\n",
			dev_vecs);
		return -ENODEV;
	}
	want = 1 + min_t(int, num_online_cpus(), dev_vecs - 1);
	n = pci_alloc_irq_vectors(odev->pdev, 2, want, PCI_IRQ_MSIX);
	if (n < 0)
		return n;
	odev->num_irqs = n;
	return 0;
}

static void orca_irqs_cleanup(struct orca_dev *odev)
{
	pci_free_irq_vectors(odev->pdev);
}

/* The kernel's UAR page: CQ/QP/SRQ wakeups of kernel queues use it. */
static int orca_uar_init(struct orca_dev *odev)
{
	struct pci_dev *pdev = odev->pdev;
	int err;

	err = orca_com_alloc_uar(odev, &odev->uar_idx);
	if (err)
		return err;
	if (((u64)odev->uar_idx + 1) * ORCA_UAR_PAGE_SIZE >
	    pci_resource_len(pdev, ORCA_BAR_UAR)) {
		dev_err(&pdev->dev, "UAR %u beyond BAR %d\n", odev->uar_idx,
			ORCA_BAR_UAR);
		err = -EIO;
		goto err_dealloc;
	}
	odev->uar = pcim_iomap_range(pdev, ORCA_BAR_UAR,
				     (u64)odev->uar_idx * ORCA_UAR_PAGE_SIZE,
				     ORCA_UAR_PAGE_SIZE);
	if (IS_ERR(odev->uar)) {
		err = PTR_ERR(odev->uar);
		goto err_dealloc;
	}
	return 0;

err_dealloc:
	orca_com_destroy_obj(odev, ORCA_CMD_DEALLOC_UAR, odev->uar_idx);
	return err;
}

static void orca_uar_cleanup(struct orca_dev *odev)
{
	pcim_iounmap(odev->pdev, odev->uar);
	orca_com_destroy_obj(odev, ORCA_CMD_DEALLOC_UAR, odev->uar_idx);
}

static const struct ib_device_ops orca_dev_ops = {
	.owner = THIS_MODULE,
	.driver_id = RDMA_DRIVER_ORCA,
	.uverbs_abi_ver = ORCA_UVERBS_ABI_VERSION,
	/* Every op taking a udata checks it with the core's helpers. */
	.uverbs_robust_udata = 1,
	.device_group = &orca_dev_attr_group,

	.add_gid = orca_add_gid,
	.alloc_hw_port_stats = orca_alloc_hw_port_stats,
	.alloc_mr = orca_alloc_mr,
	.alloc_mw = orca_alloc_mw,
	.alloc_pd = orca_alloc_pd,
	.alloc_ucontext = orca_alloc_ucontext,
	.create_ah = orca_create_ah,
	.create_cq = orca_create_cq,
	.create_qp = orca_create_qp,
	.create_srq = orca_create_srq,
	.create_user_ah = orca_create_user_ah,
	.create_user_cq = orca_create_user_cq,
	.dealloc_mw = orca_dealloc_mw,
	.dealloc_pd = orca_dealloc_pd,
	.dealloc_ucontext = orca_dealloc_ucontext,
	.del_gid = orca_del_gid,
	.dereg_mr = orca_dereg_mr,
	.destroy_ah = orca_destroy_ah,
	.destroy_cq = orca_destroy_cq,
	.destroy_qp = orca_destroy_qp,
	.destroy_srq = orca_destroy_srq,
	.disassociate_ucontext = orca_disassociate_ucontext,
	.fill_res_cq_entry = orca_fill_res_cq_entry,
	.fill_res_cq_entry_raw = orca_fill_res_cq_entry_raw,
	.fill_res_mr_entry = orca_fill_res_mr_entry,
	.fill_res_qp_entry = orca_fill_res_qp_entry,
	.fill_res_qp_entry_raw = orca_fill_res_qp_entry_raw,
	.fill_res_srq_entry = orca_fill_res_srq_entry,
	.get_dev_fw_str = orca_get_dev_fw_str,
	.get_dma_mr = orca_get_dma_mr,
	.get_hw_stats = orca_get_hw_stats,
	.get_link_layer = orca_get_link_layer,
	.get_port_immutable = orca_get_port_immutable,
	.map_mr_sg = orca_map_mr_sg,
	.mmap = orca_mmap,
	.mmap_free = orca_mmap_free,
	.modify_cq = orca_modify_cq,
	.modify_qp = orca_modify_qp,
	.modify_srq = orca_modify_srq,
	.poll_cq = orca_poll_cq,
	.post_recv = orca_post_recv,
	.post_send = orca_post_send,
	.post_srq_recv = orca_post_srq_recv,
	.process_mad = orca_process_mad,
	.query_ah = orca_query_ah,
	.query_device = orca_query_device,
	.query_pkey = orca_query_pkey,
	.query_port = orca_query_port,
	.query_qp = orca_query_qp,
	.query_srq = orca_query_srq,
	.reg_user_mr = orca_reg_user_mr,
	.reg_user_mr_dmabuf = orca_reg_user_mr_dmabuf,
	.rereg_user_mr = orca_rereg_user_mr,
	.req_notify_cq = orca_req_notify_cq,
	.resize_user_cq = orca_resize_user_cq,

	INIT_RDMA_OBJ_SIZE(ib_ah, orca_ah, ibah),
	INIT_RDMA_OBJ_SIZE(ib_cq, orca_cq, ibcq),
	INIT_RDMA_OBJ_SIZE(ib_mw, orca_mw, ibmw),
	INIT_RDMA_OBJ_SIZE(ib_pd, orca_pd, ibpd),
	INIT_RDMA_OBJ_SIZE(ib_qp, orca_qp, ibqp),
	INIT_RDMA_OBJ_SIZE(ib_srq, orca_srq, ibsrq),
	INIT_RDMA_OBJ_SIZE(ib_ucontext, orca_ucontext, ibuctx),
};

/* 1.4, ORCA_DEV_CAP_MCAST: UD multicast. */
static const struct ib_device_ops orca_mcast_ops = {
	.attach_mcast = orca_attach_mcast,
	.detach_mcast = orca_detach_mcast,
};

/* 1.6, ORCA_DEV_CAP_XRC: XRC domains (SRQs and QPs check the bit). */
static const struct ib_device_ops orca_xrc_ops = {
	.alloc_xrcd = orca_alloc_xrcd,
	.dealloc_xrcd = orca_dealloc_xrcd,

	INIT_RDMA_OBJ_SIZE(ib_xrcd, orca_xrcd, ibxrcd),
};

/* 1.10, ORCA_DEV_CAP_ODP: prefetching on-demand MRs (orca_odp.c). */
static const struct ib_device_ops orca_odp_ops = {
	.advise_mr = orca_advise_mr,
};

/* What the netdev pairing (ib_device_set_netdev) already needs. */
static int orca_ib_setup(struct orca_dev *odev)
{
	struct ib_device *ibdev = &odev->ibdev;

	ibdev->node_type = RDMA_NODE_IB_CA;
	ibdev->phys_port_cnt = 1;
	ibdev->num_comp_vectors = odev->num_comp_eqs;
	ibdev->dev.parent = &odev->pdev->dev;
	addrconf_addr_eui48((u8 *)&ibdev->node_guid, odev->port.mac);
	ib_set_device_ops(ibdev, &orca_dev_ops);
	if (odev->caps.dev_caps & ORCA_DEV_CAP_MCAST)
		ib_set_device_ops(ibdev, &orca_mcast_ops);
	if (odev->caps.dev_caps & ORCA_DEV_CAP_XRC)
		ib_set_device_ops(ibdev, &orca_xrc_ops);
	if (IS_ENABLED(CONFIG_INFINIBAND_ON_DEMAND_PAGING) &&
	    (odev->caps.dev_caps & ORCA_DEV_CAP_ODP))
		ib_set_device_ops(ibdev, &orca_odp_ops);
	return 0;
}

static int orca_ib_register(struct orca_dev *odev)
{
	int err;

	err = ib_register_device(&odev->ibdev, "orca_%d", &odev->pdev->dev);
	if (err) {
		dev_err(&odev->pdev->dev, "ib_register_device failed (%d)\n",
			err);
		return err;
	}
	set_bit(ORCA_DEV_REGISTERED, &odev->flags);
	/* Port state, MTU and events, also for a pairing made meanwhile. */
	schedule_work(&odev->port.work);
	return 0;
}

static void orca_ib_unregister(struct orca_dev *odev)
{
	clear_bit(ORCA_DEV_REGISTERED, &odev->flags);
	/* The port work calls into the core: none may run past this. */
	disable_work_sync(&odev->port.work);
	ib_unregister_device(&odev->ibdev);
	/* No more commands of its own while EQ 0 goes and the device resets. */
	orca_ah_stop_orphans(odev);
}

/**
 * orca_dev_mark_dead() - stop using a device that stopped working
 * @odev: device
 * @reason: why, for the log
 *
 * Called from the command path on a timeout (possibly in atomic context),
 * from EQ 0 on a fatal event and from the heartbeat watchdog.  Only the
 * first call has an effect.  The device is fenced before anything else
 * (orca_dev_fence_dead()), and when this returns, for the first caller and
 * for every later one, the device is fenced: every page it was given may
 * be freed.  Then waiting commands fail with -EIO, later ones fail fast,
 * and the dead work tells the RDMA core (IB_EVENT_DEVICE_FATAL), ends the
 * SRQ work of kernel QPs (IB_EVENT_QP_LAST_WQE_REACHED) and makes kernel
 * CQs flush in software.
 */
void orca_dev_mark_dead(struct orca_dev *odev, const char *reason)
{
	if (!orca_dev_fence_dead(odev, reason))
		return;
	orca_cmdq_fail_all(odev);
	/* ib_dispatch_event() sleeps: not here. */
	schedule_work(&odev->dead_work);
}

/**
 * orca_dev_kick_flush() - have the pollers of armed kernel CQs run
 * @odev: a dead device
 *
 * Work posted to a dead device completes in software with
 * IB_WC_WR_FLUSH_ERR when its CQ is polled (orca_poll.c); this wakes the
 * consumers as a completion event would, and gives kernel QPs on an SRQ
 * that went to ERR their IB_EVENT_QP_LAST_WQE_REACHED
 * (orca_qp_dead_last_wqe()).
 */
void orca_dev_kick_flush(struct orca_dev *odev)
{
	schedule_work(&odev->dead_work);
}

static void orca_dead_work(struct work_struct *work)
{
	struct orca_dev *odev = container_of(work, struct orca_dev, dead_work);
	struct ib_event ev = {};

	if (test_bit(ORCA_DEV_REGISTERED, &odev->flags) &&
	    !test_and_set_bit(ORCA_DEV_FATAL_SENT, &odev->flags)) {
		ev.device = &odev->ibdev;
		ev.element.port_num = ORCA_PORT;
		ev.event = IB_EVENT_DEVICE_FATAL;
		ib_dispatch_event(&ev);
	}
	/* Also while the core unregisters: its clients drain their QPs. */
	orca_qp_dead_last_wqe(odev);
	orca_cq_kick_armed(odev);
	orca_devlink_report_dead(odev);
}

/**
 * struct orca_stage - one step of bringing the device up
 * @name: for the probe failure message
 * @init: returns 0 or a negative errno
 * @cleanup: undoes @init; NULL when nothing is to undo
 *
 * Probe runs the stages in order; remove and probe failures undo the
 * completed ones in reverse order, so there is one teardown sequence.
 */
struct orca_stage {
	const char *name;
	int (*init)(struct orca_dev *odev);
	void (*cleanup)(struct orca_dev *odev);
};

static const struct orca_stage orca_stages[] = {
	{ "reset", orca_reset, NULL },
	{ "irqs", orca_irqs_init, orca_irqs_cleanup },
	{ "cmdq", orca_cmdq_init, orca_cmdq_cleanup },
	{ "ah_orphans", orca_ah_orphans_init, orca_ah_orphans_cleanup },
	{ "caps", orca_caps_init, NULL },
	{ "db_pool", orca_db_pool_init, orca_db_pool_cleanup },
	{ "kept", orca_kept_init, orca_kept_cleanup },
	{ "odp", orca_odp_init, orca_odp_cleanup },
	{ "async_eq", orca_async_eq_init, orca_async_eq_cleanup },
	{ "health", orca_health_init, orca_health_cleanup },
	{ "uar", orca_uar_init, orca_uar_cleanup },
	{ "comp_eqs", orca_comp_eqs_init, orca_comp_eqs_cleanup },
	{ "debugfs", orca_debugfs_init, orca_debugfs_cleanup },
	{ "port", orca_port_init_hw, NULL },
	{ "ib_setup", orca_ib_setup, NULL },
	{ "netdev", orca_port_init, orca_port_cleanup },
	{ "ib", orca_ib_register, orca_ib_unregister },
};

static void orca_stages_cleanup(struct orca_dev *odev, int n)
{
	while (n-- > 0)
		if (orca_stages[n].cleanup)
			orca_stages[n].cleanup(odev);
}

/**
 * orca_dev_create() - bring up an orca_dev on a PCI function
 * @pf: the function, enabled and mapped
 *
 * Runs every stage, from the reset to the ib_device's registration; at
 * probe, and again by a devlink health recovery after the previous
 * orca_dev was destroyed.
 *
 * Return: the device, or an ERR_PTR() with the failed stage undone.
 */
struct orca_dev *orca_dev_create(struct orca_pf *pf)
{
	struct orca_dev *odev;
	int i, err;

	odev = ib_alloc_device(orca_dev, ibdev);
	if (!odev)
		return ERR_PTR(-ENOMEM);
	odev->pf = pf;
	odev->pdev = pf->pdev;
	odev->regs = pf->regs;
	/*
	 * The three share one lockdep class (xa_init_flags() is inline), so
	 * they share one locking rule too: IRQ-safe, as the CQ and QP tables
	 * are looked up from interrupt context.
	 */
	xa_init_flags(&odev->cq_xa, XA_FLAGS_LOCK_IRQ);
	xa_init_flags(&odev->qp_xa, XA_FLAGS_LOCK_IRQ);
	xa_init_flags(&odev->srq_xa, XA_FLAGS_LOCK_IRQ);
	INIT_WORK(&odev->dead_work, orca_dead_work);

	for (i = 0; i < ARRAY_SIZE(orca_stages); i++) {
		err = orca_stages[i].init(odev);
		if (err) {
			dev_err(&pf->pdev->dev, "probe stage %s failed (%d)\n",
				orca_stages[i].name, err);
			orca_stages_cleanup(odev, i);
			disable_work_sync(&odev->dead_work);
			ib_dealloc_device(&odev->ibdev);
			return ERR_PTR(err);
		}
	}
	return odev;
}

/**
 * orca_dev_destroy() - tear an orca_dev down, dead or alive
 * @odev: device from orca_dev_create()
 */
void orca_dev_destroy(struct orca_dev *odev)
{
	orca_stages_cleanup(odev, ARRAY_SIZE(orca_stages));
	disable_work_sync(&odev->dead_work);
	WARN_ON(!xa_empty(&odev->cq_xa));
	WARN_ON(!xa_empty(&odev->qp_xa));
	WARN_ON(!xa_empty(&odev->srq_xa));
	xa_destroy(&odev->cq_xa);
	xa_destroy(&odev->qp_xa);
	xa_destroy(&odev->srq_xa);
	ib_dealloc_device(&odev->ibdev);
}

static int orca_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct orca_dev *odev;
	struct orca_pf *pf;
	int err;

	pf = orca_pf_alloc(pdev);
	if (!pf)
		return -ENOMEM;
	err = orca_pci_init(pf);
	if (err)
		goto err_free;
	odev = orca_dev_create(pf);
	if (IS_ERR(odev)) {
		err = PTR_ERR(odev);
		goto err_free;
	}
	pf->odev = odev;
	err = orca_pf_register(pf);
	if (err)
		goto err_destroy;
	pci_set_drvdata(pdev, pf);
	return 0;

err_destroy:
	orca_dev_destroy(odev);
err_free:
	orca_pf_free(pf);
	return err;
}

static void orca_remove(struct pci_dev *pdev)
{
	struct orca_pf *pf = pci_get_drvdata(pdev);

	/* No recovery runs or starts past this: pf->odev is ours. */
	orca_pf_unregister(pf);
	if (pf->odev)
		orca_dev_destroy(pf->odev);
	pci_set_drvdata(pdev, NULL);
	orca_pf_free(pf);
}

static const struct pci_device_id orca_pci_ids[] = {
	{ PCI_DEVICE_SUB(ORCA_PCI_VENDOR_ID, ORCA_PCI_DEVICE_ID,
			 ORCA_PCI_SUBSYS_VENDOR_ID, ORCA_PCI_SUBSYS_DEVICE_ID) },
	{ }
};
MODULE_DEVICE_TABLE(pci, orca_pci_ids);

static struct pci_driver orca_pci_driver = {
	.name = KBUILD_MODNAME,
	.id_table = orca_pci_ids,
	.probe = orca_probe,
	.remove = orca_remove,
};

static int __init orca_init(void)
{
	int err;

	orca_debugfs_register();
	err = pci_register_driver(&orca_pci_driver);
	if (err)
		orca_debugfs_unregister();
	return err;
}

static void __exit orca_exit(void)
{
	pci_unregister_driver(&orca_pci_driver);
	orca_debugfs_unregister();
}

module_init(orca_init);
module_exit(orca_exit);

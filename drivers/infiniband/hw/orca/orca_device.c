// SPDX-License-Identifier: GPL-2.0
/*
 * ORCA device capabilities and attributes: QUERY_DEVICE at probe, and what
 * the RDMA core asks of the device as a whole (query_device, the firmware
 * version string, and the hw_rev, hca_type and board_id sysfs attributes
 * that mlx5, bnxt_re and ionic also have).
 */
#include <rdma/uverbs_ioctl.h>

#include "orca.h"

/**
 * orca_caps_init() - read the device's capabilities (QUERY_DEVICE)
 * @odev: device with a running command queue
 *
 * Return: 0, -EOPNOTSUPP for a device this driver cannot drive, or the
 * command's errno.
 */
int orca_caps_init(struct orca_dev *odev)
{
	struct device *dev = &odev->pdev->dev;
	u8 num_ports;
	int err;

	err = orca_com_query_device(odev, &odev->caps, &num_ports);
	if (err) {
		dev_err(dev, "QUERY_DEVICE failed (%d)\n", err);
		return err;
	}
	if (num_ports != 1 || !(odev->caps.dev_caps & ORCA_DEV_CAP_ROCE_V2)) {
		dev_err(dev, "unsupported device: %u ports, caps 0x%x\n",
			num_ports, odev->caps.dev_caps);
		return -EOPNOTSUPP;
	}
	return 0;
}

int orca_query_device(struct ib_device *ibdev, struct ib_device_attr *attr,
		      struct ib_udata *udata)
{
	struct orca_dev *odev = to_odev(ibdev);
	const struct orca_caps *caps = &odev->caps;
	int err;

	/* No driver data either way (query_device_ex passes a udata). */
	err = ib_no_udata_io(udata);
	if (err)
		return err;

	memset(attr, 0, sizeof(*attr));
	attr->fw_ver = (u64)FIELD_GET(ORCA_FW_VERSION_MAJOR, odev->fw_ver) << 32 |
		       FIELD_GET(ORCA_FW_VERSION_MINOR, odev->fw_ver) << 16 |
		       FIELD_GET(ORCA_FW_VERSION_PATCH, odev->fw_ver);
	attr->sys_image_guid = cpu_to_be64(caps->sys_image_guid);
	attr->max_mr_size = caps->max_mr_size;
	attr->page_size_cap = caps->page_size_cap;
	attr->vendor_id = odev->pdev->vendor;
	attr->vendor_part_id = caps->vendor_part_id;
	attr->hw_ver = caps->hw_rev;
	attr->max_qp = caps->max_qp;
	attr->max_qp_wr = caps->max_qp_wr;
	attr->max_send_sge = min_t(u32, caps->max_send_sge, ORCA_MAX_SGE);
	attr->max_recv_sge = min_t(u32, caps->max_recv_sge, ORCA_MAX_SGE);
	attr->max_sge_rd = attr->max_send_sge;
	/* No more CQs than the completion EQs can take events from. */
	attr->max_cq = min_t(u64, caps->max_cq,
			     (u64)odev->num_comp_eqs * odev->comp_eqs[0].max_cqs);
	attr->max_cqe = caps->max_cqe;
	attr->max_mr = caps->max_mr;
	attr->max_pd = caps->max_pd;
	attr->max_qp_rd_atom = caps->max_qp_rd_atom;
	attr->max_qp_init_rd_atom = caps->max_qp_init_rd_atom;
	/* A u32 product overflows for large (or hostile) caps. */
	attr->max_res_rd_atom = min_t(u64, (u64)caps->max_qp *
				      caps->max_qp_rd_atom, INT_MAX);
	attr->max_ah = caps->max_ah;
	attr->max_pkeys = 1;
	attr->local_ca_ack_delay = caps->local_ca_ack_delay;
	if (caps->dev_caps & ORCA_DEV_CAP_SRQ) {
		attr->max_srq = caps->max_srq;
		attr->max_srq_wr = caps->max_srq_wr;
		attr->max_srq_sge = min_t(u32, caps->max_srq_sge,
					  ORCA_MAX_SGE);
	}
	if (caps->dev_caps & ORCA_DEV_CAP_CQ_MODERATION) {
		attr->cq_caps.max_cq_moderation_count = caps->max_cq_mod_count;
		attr->cq_caps.max_cq_moderation_period =
			caps->max_cq_mod_period;
	}
	if (caps->dev_caps & ORCA_DEV_CAP_MCAST) {
		attr->max_mcast_grp = min_t(u32, caps->max_mcast_grp, INT_MAX);
		attr->max_mcast_qp_attach = min_t(u32, caps->max_mcast_qp_attach,
						  INT_MAX);
		attr->max_total_mcast_qp_attach =
			min_t(u64, (u64)caps->max_mcast_grp *
			      caps->max_mcast_qp_attach, INT_MAX);
	}
	if (caps->dev_caps & ORCA_DEV_CAP_ATOMIC)
		attr->atomic_cap = IB_ATOMIC_HCA;
	/* 1.4: IBA 1.5's RDMA FLUSH (both placement types), ATOMIC WRITE. */
	if (caps->dev_caps & ORCA_DEV_CAP_FLUSH)
		attr->device_cap_flags |= IB_DEVICE_FLUSH_GLOBAL |
					   IB_DEVICE_FLUSH_PERSISTENT;
	if (caps->dev_caps & ORCA_DEV_CAP_ATOMIC_WRITE)
		attr->device_cap_flags |= IB_DEVICE_ATOMIC_WRITE;
	/* 1.4: MODIFY_SRQ moves an SRQ, kernel or user, to a new ring. */
	if (caps->dev_caps & ORCA_DEV_CAP_SRQ_RESIZE)
		attr->device_cap_flags |= IB_DEVICE_SRQ_RESIZE;
	if (caps->dev_caps & ORCA_DEV_CAP_FRWR) {
		attr->device_cap_flags |= IB_DEVICE_MEM_MGT_EXTENSIONS;
		attr->max_fast_reg_page_list_len =
			caps->max_fast_reg_page_list_len;
	}
	/*
	 * Type 1 and type 2B windows, as rxe: a type 2 window serves the QP
	 * it was bound through, not another QP that takes its number.
	 */
	if (caps->dev_caps & ORCA_DEV_CAP_MW) {
		attr->max_mw = caps->max_mw;
		attr->device_cap_flags |= IB_DEVICE_MEM_WINDOW |
					  IB_DEVICE_MEM_WINDOW_TYPE_2B;
	}
	/*
	 * 1.6: XRC domains, SRQs and QPs.  struct ib_device_attr has no
	 * count of domains (nor has ibv_device_attr): max_xrcd only limits
	 * ALLOC_XRCD, which fails with -ENOMEM beyond it.
	 */
	if (caps->dev_caps & ORCA_DEV_CAP_XRC)
		attr->device_cap_flags |= IB_DEVICE_XRC;
	attr->device_cap_flags |= IB_DEVICE_RC_RNR_NAK_GEN |
				   IB_DEVICE_CURR_QP_STATE_MOD |
				   IB_DEVICE_SYS_IMAGE_GUID |
				   IB_DEVICE_PORT_ACTIVE_EVENT;
	orca_odp_query(odev, attr);
	return 0;
}

void orca_get_dev_fw_str(struct ib_device *ibdev, char *str)
{
	u32 fw = to_odev(ibdev)->fw_ver;

	snprintf(str, IB_FW_VERSION_NAME_MAX, "%lu.%lu.%lu",
		 FIELD_GET(ORCA_FW_VERSION_MAJOR, fw),
		 FIELD_GET(ORCA_FW_VERSION_MINOR, fw),
		 FIELD_GET(ORCA_FW_VERSION_PATCH, fw));
}

/* sysfs: /sys/class/infiniband/orca_N/{hw_rev,hca_type,board_id} */
static ssize_t hw_rev_show(struct device *device,
			   struct device_attribute *attr, char *buf)
{
	struct orca_dev *odev = rdma_device_to_drv_device(device,
							  struct orca_dev,
							  ibdev);

	return sysfs_emit(buf, "0x%x\n", odev->caps.hw_rev);
}
static DEVICE_ATTR_RO(hw_rev);

/* From QUERY_DEVICE (1.2); empty on an adapter without the identity cap. */
static ssize_t hca_type_show(struct device *device,
			     struct device_attribute *attr, char *buf)
{
	struct orca_dev *odev = rdma_device_to_drv_device(device,
							  struct orca_dev,
							  ibdev);

	return sysfs_emit(buf, "%s\n", odev->caps.hca_type);
}
static DEVICE_ATTR_RO(hca_type);

static ssize_t board_id_show(struct device *device,
			     struct device_attribute *attr, char *buf)
{
	struct orca_dev *odev = rdma_device_to_drv_device(device,
							  struct orca_dev,
							  ibdev);

	return sysfs_emit(buf, "%s\n", odev->caps.board_id);
}
static DEVICE_ATTR_RO(board_id);

static struct attribute *orca_dev_attrs[] = {
	&dev_attr_hw_rev.attr,
	&dev_attr_hca_type.attr,
	&dev_attr_board_id.attr,
	NULL
};

const struct attribute_group orca_dev_attr_group = {
	.attrs = orca_dev_attrs,
};

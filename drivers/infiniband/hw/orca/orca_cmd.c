// SPDX-License-Identifier: GPL-2.0
/*
 * ORCA typed firmware commands: each function turns its parameters into one
 * struct orca_cmd (orca_cmds_defs.h layouts), executes it through
 * orca_cmdq_exec() and turns the output back into CPU-order values.
 */
#include <linux/dma-mapping.h>
#include <linux/etherdevice.h>

#include "orca.h"

static void orca_cmd_init(struct orca_cmd *cmd, u16 opcode)
{
	memset(cmd, 0, sizeof(*cmd));
	cmd->opcode = cpu_to_le16(opcode);
}

static void orca_cmd_set_in_pgl(struct orca_cmd *cmd,
				const struct orca_pgl *pgl)
{
	cmd->in_addr = cpu_to_le64(pgl->dma);
	cmd->in_len = cpu_to_le32(pgl->used * sizeof(__le64));
}

static u32 orca_cmd_out_handle(const struct orca_cmd_out *res)
{
	const struct orca_cmd_handle_out *h = (const void *)res->out;

	return le32_to_cpu(h->handle);
}

/* Run a command whose output is a struct at out_addr, copied to @out. */
static int orca_cmd_exec_out(struct orca_dev *odev, struct orca_cmd *cmd,
			     void *out, size_t len)
{
	struct device *dev = &odev->pdev->dev;
	dma_addr_t dma;
	void *buf;
	int err;

	buf = dma_alloc_coherent(dev, len, &dma, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	cmd->out_addr = cpu_to_le64(dma);
	cmd->out_len = cpu_to_le32(len);
	err = orca_cmdq_exec(odev, cmd, NULL);
	if (!err)
		memcpy(out, buf, len);
	dma_free_coherent(dev, len, buf, dma);
	return err;
}

int orca_cmd_query_device(struct orca_dev *odev, struct orca_caps *caps,
			  u8 *num_ports)
{
	struct orca_dev_caps hw;
	struct orca_cmd cmd;
	int err;

	orca_cmd_init(&cmd, ORCA_CMD_QUERY_DEVICE);
	err = orca_cmd_exec_out(odev, &cmd, &hw, sizeof(hw));
	if (err)
		return err;

	caps->sys_image_guid = le64_to_cpu(hw.sys_image_guid);
	caps->max_mr_size = le64_to_cpu(hw.max_mr_size);
	caps->page_size_cap = le64_to_cpu(hw.page_size_cap);
	caps->dev_caps = le32_to_cpu(hw.dev_caps);
	caps->vendor_part_id = le32_to_cpu(hw.vendor_part_id);
	caps->hw_rev = le32_to_cpu(hw.hw_rev);
	caps->max_qp = le32_to_cpu(hw.max_qp);
	caps->max_qp_wr = le32_to_cpu(hw.max_qp_wr);
	caps->max_send_sge = le32_to_cpu(hw.max_send_sge);
	caps->max_recv_sge = le32_to_cpu(hw.max_recv_sge);
	caps->max_inline_data = le32_to_cpu(hw.max_inline_data);
	caps->max_cq = le32_to_cpu(hw.max_cq);
	caps->max_cqe = le32_to_cpu(hw.max_cqe);
	caps->max_mr = le32_to_cpu(hw.max_mr);
	caps->max_pd = le32_to_cpu(hw.max_pd);
	caps->max_ah = le32_to_cpu(hw.max_ah);
	caps->max_srq = le32_to_cpu(hw.max_srq);
	caps->max_srq_wr = le32_to_cpu(hw.max_srq_wr);
	caps->max_srq_sge = le32_to_cpu(hw.max_srq_sge);
	caps->max_eq = le32_to_cpu(hw.max_eq);
	caps->max_eqe = le32_to_cpu(hw.max_eqe);
	caps->max_fast_reg_page_list_len =
		le32_to_cpu(hw.max_fast_reg_page_list_len);
	caps->max_msg_size = le32_to_cpu(hw.max_msg_size);
	caps->gid_table_len = le32_to_cpu(hw.gid_table_len);
	caps->max_qp_rd_atom = hw.max_qp_rd_atom;
	caps->max_qp_init_rd_atom = hw.max_qp_init_rd_atom;
	caps->local_ca_ack_delay = hw.local_ca_ack_delay;
	*num_ports = hw.num_ports;
	return 0;
}

int orca_cmd_query_port(struct orca_dev *odev, struct orca_port_attr *attr)
{
	struct orca_cmd_query_port *in;
	struct orca_cmd cmd;

	orca_cmd_init(&cmd, ORCA_CMD_QUERY_PORT);
	in = (void *)cmd.in;
	in->port = ORCA_PORT;
	return orca_cmd_exec_out(odev, &cmd, attr, sizeof(*attr));
}

int orca_cmd_query_stats(struct orca_dev *odev, struct orca_port_stats *out)
{
	struct orca_cmd_query_port *in;
	struct orca_cmd cmd;

	orca_cmd_init(&cmd, ORCA_CMD_QUERY_STATS);
	in = (void *)cmd.in;
	in->port = ORCA_PORT;
	return orca_cmd_exec_out(odev, &cmd, out, sizeof(*out));
}

int orca_cmd_set_port(struct orca_dev *odev, u32 eth_mtu)
{
	struct orca_cmd_set_port *in;
	struct orca_cmd cmd;

	orca_cmd_init(&cmd, ORCA_CMD_SET_PORT);
	in = (void *)cmd.in;
	in->port = ORCA_PORT;
	in->eth_mtu = cpu_to_le32(eth_mtu);
	return orca_cmdq_exec(odev, &cmd, NULL);
}

int orca_cmd_set_gid(struct orca_dev *odev, u32 index, u8 type,
		     const u8 *mac, u16 vlan, const u8 *gid)
{
	struct orca_cmd_set_gid *in;
	struct orca_cmd cmd;

	orca_cmd_init(&cmd, ORCA_CMD_SET_GID);
	in = (void *)cmd.in;
	in->port = ORCA_PORT;
	in->type = type;
	in->index = cpu_to_le16(index);
	in->vlan = cpu_to_le16(vlan);
	if (mac)
		ether_addr_copy(in->mac, mac);
	if (gid)
		memcpy(in->gid, gid, sizeof(in->gid));
	return orca_cmdq_exec(odev, &cmd, NULL);
}

int orca_cmd_create_eq(struct orca_dev *odev, struct orca_eq *eq)
{
	struct orca_cmd_create_eq *in;
	struct orca_cmd_out res;
	struct orca_cmd cmd;
	int err;

	orca_cmd_init(&cmd, ORCA_CMD_CREATE_EQ);
	in = (void *)cmd.in;
	in->log_depth = eq->log_depth;
	/* The ring is one DMA-coherent block, described as a single page. */
	in->page_shift = get_order((sizeof(*eq->ring) << eq->log_depth)) +
			 PAGE_SHIFT;
	in->msix_vector = cpu_to_le16(eq->vector);
	in->npages = cpu_to_le32(1);
	in->page_addr = cpu_to_le64(eq->dma);
	err = orca_cmdq_exec(odev, &cmd, &res);
	if (!err)
		eq->eqn = orca_cmd_out_handle(&res);
	return err;
}

/**
 * orca_cmd_destroy_obj() - run a DESTROY_* or DEALLOC_* command
 * @odev: device
 * @opcode: ORCA_CMD_DESTROY_* or ORCA_CMD_DEALLOC_UAR
 * @handle: the object's handle; for an MR, its lkey
 *
 * Return: 0 or a negative errno.
 */
int orca_cmd_destroy_obj(struct orca_dev *odev, u16 opcode, u32 handle)
{
	struct orca_cmd_destroy_obj *in;
	struct orca_cmd cmd;

	orca_cmd_init(&cmd, opcode);
	in = (void *)cmd.in;
	in->handle = cpu_to_le32(handle);
	return orca_cmdq_exec(odev, &cmd, NULL);
}

int orca_cmd_destroy_ah(struct orca_dev *odev, u32 ahn, bool sleepable)
{
	struct orca_cmd_destroy_obj *in;
	struct orca_cmd cmd;

	orca_cmd_init(&cmd, ORCA_CMD_DESTROY_AH);
	in = (void *)cmd.in;
	in->handle = cpu_to_le32(ahn);
	return sleepable ? orca_cmdq_exec(odev, &cmd, NULL) :
			   orca_cmdq_exec_atomic(odev, &cmd, NULL);
}

static int orca_cmd_alloc_handle(struct orca_dev *odev, u16 opcode,
				 u32 *handle)
{
	struct orca_cmd_out res;
	struct orca_cmd cmd;
	int err;

	orca_cmd_init(&cmd, opcode);
	err = orca_cmdq_exec(odev, &cmd, &res);
	if (!err)
		*handle = orca_cmd_out_handle(&res);
	return err;
}

int orca_cmd_alloc_uar(struct orca_dev *odev, u32 *uar)
{
	return orca_cmd_alloc_handle(odev, ORCA_CMD_ALLOC_UAR, uar);
}

int orca_cmd_create_pd(struct orca_dev *odev, u32 *pdn)
{
	return orca_cmd_alloc_handle(odev, ORCA_CMD_CREATE_PD, pdn);
}

int orca_cmd_create_cq(struct orca_dev *odev, struct orca_cq *cq,
		       const struct orca_pgl *pgl, u32 *cqn)
{
	struct orca_cmd_create_cq *in;
	struct orca_cmd_out res;
	struct orca_cmd cmd;
	int err;

	orca_cmd_init(&cmd, ORCA_CMD_CREATE_CQ);
	in = (void *)cmd.in;
	in->log_depth = cq->log_depth;
	in->page_shift = cq->buf.page_shift;
	in->eqn = cpu_to_le16(cq->eqn);
	in->npages = cpu_to_le32(cq->buf.npages);
	if (pgl)
		orca_cmd_set_in_pgl(&cmd, pgl);
	else
		in->page_addr = cpu_to_le64(cq->buf.dma[0]);
	in->db_rec_addr = cpu_to_le64(cq->db_dma);
	in->uar = cpu_to_le32(cq->uar);
	err = orca_cmdq_exec(odev, &cmd, &res);
	if (!err)
		*cqn = orca_cmd_out_handle(&res);
	return err;
}

/* The new ring is always a page list of ORCA_UQUEUE_ALIGN pages. */
int orca_cmd_resize_cq(struct orca_dev *odev, u32 cqn, u8 log_depth,
		       const struct orca_pgl *pgl)
{
	struct orca_cmd_resize_cq *in;
	struct orca_cmd cmd;

	orca_cmd_init(&cmd, ORCA_CMD_RESIZE_CQ);
	in = (void *)cmd.in;
	in->cqn = cpu_to_le32(cqn);
	in->log_depth = log_depth;
	in->page_shift = ORCA_UQUEUE_PAGE_SHIFT;
	in->npages = cpu_to_le32(pgl->used);
	orca_cmd_set_in_pgl(&cmd, pgl);
	return orca_cmdq_exec(odev, &cmd, NULL);
}

/* @pgl: the pages of a page-list MR; NULL for PHYS and FAST_REG MRs. */
int orca_cmd_create_mr(struct orca_dev *odev,
		       const struct orca_cmd_create_mr *in,
		       const struct orca_pgl *pgl, u32 *lkey, u32 *rkey)
{
	const struct orca_cmd_create_mr_out *out;
	struct orca_cmd_out res;
	struct orca_cmd cmd;
	int err;

	orca_cmd_init(&cmd, ORCA_CMD_CREATE_MR);
	memcpy(cmd.in, in, sizeof(*in));
	if (pgl)
		orca_cmd_set_in_pgl(&cmd, pgl);
	err = orca_cmdq_exec(odev, &cmd, &res);
	if (err)
		return err;
	out = (const void *)res.out;
	*lkey = le32_to_cpu(out->lkey);
	*rkey = le32_to_cpu(out->rkey);
	return 0;
}

int orca_cmd_create_qp(struct orca_dev *odev,
		       const struct orca_cmd_qp_params *p, u32 *qpn)
{
	struct orca_cmd_create_qp *in;
	struct orca_cmd_out res;
	struct orca_cmd cmd;
	int err;

	orca_cmd_init(&cmd, ORCA_CMD_CREATE_QP);
	in = (void *)cmd.in;
	in->qp_type = p->qp_type;
	in->page_shift = p->page_shift;
	in->log_sq_depth = p->log_sq_depth;
	in->log_rq_depth = p->log_rq_depth;
	in->flags = cpu_to_le32(p->flags);
	in->pdn = cpu_to_le32(p->pdn);
	in->send_cqn = cpu_to_le32(p->send_cqn);
	in->recv_cqn = cpu_to_le32(p->recv_cqn);
	in->srqn = cpu_to_le32(p->srqn);
	in->max_send_sge = p->max_send_sge;
	in->max_recv_sge = p->max_recv_sge;
	in->max_inline_data = cpu_to_le16(p->max_inline_data);
	in->sq_npages = cpu_to_le32(p->sq_npages);
	in->rq_npages = cpu_to_le32(p->rq_npages);
	in->uar = cpu_to_le32(p->uar);
	in->db_rec_addr = cpu_to_le64(p->db_rec);
	orca_cmd_set_in_pgl(&cmd, p->pgl);
	err = orca_cmdq_exec(odev, &cmd, &res);
	if (!err)
		*qpn = orca_cmd_out_handle(&res);
	return err;
}

int orca_cmd_modify_qp(struct orca_dev *odev, const struct orca_qp_attr *in)
{
	struct orca_cmd cmd;

	orca_cmd_init(&cmd, ORCA_CMD_MODIFY_QP);
	memcpy(cmd.in, in, sizeof(*in));
	return orca_cmdq_exec(odev, &cmd, NULL);
}

/* QUERY_QP: inline input is the qpn at offset 0, as in MODIFY_QP. */
int orca_cmd_query_qp(struct orca_dev *odev, u32 qpn,
		      struct orca_qp_attr *out)
{
	struct orca_qp_attr *in;
	struct orca_cmd cmd;

	orca_cmd_init(&cmd, ORCA_CMD_QUERY_QP);
	in = (void *)cmd.in;
	in->qpn = cpu_to_le32(qpn);
	return orca_cmd_exec_out(odev, &cmd, out, sizeof(*out));
}

/* @sleepable: false from atomic context (busy-polled command). */
int orca_cmd_create_ah(struct orca_dev *odev, u32 pdn,
		       const struct orca_av *av, bool sleepable, u32 *ahn)
{
	struct orca_cmd_create_ah *in;
	struct orca_cmd_out res;
	struct orca_cmd cmd;
	int err;

	orca_cmd_init(&cmd, ORCA_CMD_CREATE_AH);
	in = (void *)cmd.in;
	in->pdn = cpu_to_le32(pdn);
	in->av = *av;
	err = sleepable ? orca_cmdq_exec(odev, &cmd, &res) :
			  orca_cmdq_exec_atomic(odev, &cmd, &res);
	if (!err)
		*ahn = orca_cmd_out_handle(&res);
	return err;
}

int orca_cmd_create_srq(struct orca_dev *odev, struct orca_srq *srq,
			u32 pdn, const struct orca_pgl *pgl, u32 *srqn)
{
	struct orca_cmd_create_srq *in;
	struct orca_cmd_out res;
	struct orca_cmd cmd;
	int err;

	orca_cmd_init(&cmd, ORCA_CMD_CREATE_SRQ);
	in = (void *)cmd.in;
	in->pdn = cpu_to_le32(pdn);
	in->log_depth = srq->log_depth;
	in->page_shift = srq->buf.page_shift;
	in->max_sge = srq->max_sge;
	in->npages = cpu_to_le32(srq->buf.npages);
	in->limit = cpu_to_le32(srq->limit);
	in->uar = cpu_to_le32(srq->uar);
	if (pgl)
		orca_cmd_set_in_pgl(&cmd, pgl);
	else
		in->page_addr = cpu_to_le64(srq->buf.dma[0]);
	in->db_rec_addr = cpu_to_le64(srq->db_dma);
	err = orca_cmdq_exec(odev, &cmd, &res);
	if (!err)
		*srqn = orca_cmd_out_handle(&res);
	return err;
}

int orca_cmd_modify_srq(struct orca_dev *odev, u32 srqn, u32 limit)
{
	struct orca_cmd_modify_srq *in;
	struct orca_cmd cmd;

	orca_cmd_init(&cmd, ORCA_CMD_MODIFY_SRQ);
	in = (void *)cmd.in;
	in->srqn = cpu_to_le32(srqn);
	in->limit = cpu_to_le32(limit);
	return orca_cmdq_exec(odev, &cmd, NULL);
}

/* QUERY_SRQ: inline input is the srqn at offset 0, as in MODIFY_SRQ. */
int orca_cmd_query_srq(struct orca_dev *odev, u32 srqn, u32 *limit)
{
	struct orca_cmd_modify_srq *in;
	struct orca_cmd_out res;
	struct orca_cmd cmd;
	int err;

	orca_cmd_init(&cmd, ORCA_CMD_QUERY_SRQ);
	in = (void *)cmd.in;
	in->srqn = cpu_to_le32(srqn);
	err = orca_cmdq_exec(odev, &cmd, &res);
	if (!err)
		*limit = le32_to_cpu(*(__le32 *)res.out);
	return err;
}

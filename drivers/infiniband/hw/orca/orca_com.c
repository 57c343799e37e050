// SPDX-License-Identifier: GPL-2.0
/*
 * ORCA typed firmware commands, in one style (as efa_com_cmd.c): typed
 * parameters in (orca_com.h), one struct orca_cmd built here from the wire
 * layouts of orca_cmds_defs.h, executed through orca_cmdq_exec(), and the
 * output turned back into a typed CPU-order result.  Query outputs land in
 * the command context's preallocated DMA buffer (orca_cmdq.c), so no
 * command allocates DMA memory.
 */
#include <linux/ctype.h>
#include <linux/etherdevice.h>

#include "orca.h"

static_assert(sizeof(struct orca_dev_caps) <= ORCA_CMDQ_OUT_BUF_BYTES);
static_assert(sizeof(struct orca_port_attr) <= ORCA_CMDQ_OUT_BUF_BYTES);
static_assert(sizeof(struct orca_port_stats) <= ORCA_CMDQ_OUT_BUF_BYTES);
static_assert(sizeof(struct orca_qp_attr) <= ORCA_CMDQ_OUT_BUF_BYTES);
static_assert(sizeof(struct orca_cq_attr) <= ORCA_CMDQ_OUT_BUF_BYTES);
static_assert(offsetof(struct orca_dev_caps, hca_type) ==
	      ORCA_DEV_CAPS_V1_0_LEN);
static_assert(ORCA_COM_NUM_PORT_STATS * sizeof(__le64) <=
	      sizeof(struct orca_port_stats));

static void orca_com_init(struct orca_cmd *cmd, u16 opcode)
{
	memset(cmd, 0, sizeof(*cmd));
	cmd->opcode = cpu_to_le16(opcode);
}

static void orca_com_set_in_pgl(struct orca_cmd *cmd,
				const struct orca_pgl *pgl)
{
	cmd->in_addr = cpu_to_le64(orca_pgl_dma(pgl));
	cmd->in_len = cpu_to_le32(pgl->used * sizeof(__le64));
	if (pgl->chained)
		cmd->flags |= cpu_to_le16(ORCA_CMD_F_IN_CHAIN);
}

/* A ring: its page list at in_addr, or its one page in the inline input. */
static void orca_com_set_ring(struct orca_cmd *cmd,
			      const struct orca_com_ring *ring,
			      __le64 *page_addr)
{
	if (ring->pgl)
		orca_com_set_in_pgl(cmd, ring->pgl);
	else
		*page_addr = cpu_to_le64(ring->page_addr);
}

/*
 * An identity string of QUERY_DEVICE: up to the first NUL, anything but
 * printable ASCII replaced, so sysfs never shows what the adapter should
 * not have sent.  @dst has room for @len + 1 bytes.
 */
static void orca_com_copy_ident(char *dst, const u8 *src, size_t len)
{
	size_t i;

	for (i = 0; i < len && src[i]; i++)
		dst[i] = isprint(src[i]) ? src[i] : '?';
	dst[i] = '\0';
}

/**
 * orca_com_out_handle() - the handle a CREATE_* or ALLOC_* command returned
 * @out: the command's inline output, as an orca_cmdq_out.orphaned hook
 *	 gets it
 *
 * Return: the new object's handle.
 */
u32 orca_com_out_handle(const u8 *out)
{
	const struct orca_cmd_handle_out *h = (const void *)out;

	return le32_to_cpu(h->handle);
}

/* Run a command whose output is a struct at out_addr, copied to @out. */
static int orca_com_exec_out(struct orca_dev *odev, struct orca_cmd *cmd,
			     void *out, size_t len)
{
	struct orca_cmdq_out res = { .data = out, .data_len = len };

	return orca_cmdq_exec(odev, cmd, &res, true);
}

int orca_com_query_device(struct orca_dev *odev, struct orca_caps *caps,
			  u8 *num_ports)
{
	struct orca_dev_caps hw;
	struct orca_cmd cmd;
	int err;

	orca_com_init(&cmd, ORCA_CMD_QUERY_DEVICE);
	err = orca_com_exec_out(odev, &cmd, &hw, sizeof(hw));
	if (err)
		return err;

	caps->sys_image_guid = le64_to_cpu(hw.sys_image_guid);
	caps->max_mr_size = le64_to_cpu(hw.max_mr_size);
	caps->page_size_cap = le64_to_cpu(hw.page_size_cap);
	caps->dev_caps = le32_to_cpu(hw.dev_caps);
	caps->vendor_part_id = le32_to_cpu(hw.vendor_part_id);
	caps->hw_rev = le32_to_cpu(hw.hw_rev);
	caps->max_qp = le32_to_cpu(hw.max_qp);
	/* Deeper queues would alias in a CQE's 16-bit wqe_idx. */
	caps->max_qp_wr = min_t(u32, le32_to_cpu(hw.max_qp_wr),
				1U << ORCA_MAX_LOG_WQ_DEPTH);
	caps->max_send_sge = le32_to_cpu(hw.max_send_sge);
	caps->max_recv_sge = le32_to_cpu(hw.max_recv_sge);
	caps->max_inline_data = le32_to_cpu(hw.max_inline_data);
	caps->max_cq = le32_to_cpu(hw.max_cq);
	caps->max_cqe = le32_to_cpu(hw.max_cqe);
	caps->max_mr = le32_to_cpu(hw.max_mr);
	caps->max_pd = le32_to_cpu(hw.max_pd);
	caps->max_ah = le32_to_cpu(hw.max_ah);
	caps->max_srq = le32_to_cpu(hw.max_srq);
	caps->max_srq_wr = min_t(u32, le32_to_cpu(hw.max_srq_wr),
				 1U << ORCA_MAX_LOG_WQ_DEPTH);
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
	/* Reserved (zero) in a device before 1.3. */
	if (caps->dev_caps & ORCA_DEV_CAP_CQ_MODERATION) {
		caps->max_cq_mod_count = le16_to_cpu(hw.max_cq_mod_count);
		caps->max_cq_mod_period = le16_to_cpu(hw.max_cq_mod_period);
	}
	if (caps->dev_caps & ORCA_DEV_CAP_MW)
		caps->max_mw = le32_to_cpu(hw.max_mw);
	/* Reserved (zero) in a device before 1.4. */
	if (caps->dev_caps & ORCA_DEV_CAP_MCAST) {
		caps->max_mcast_grp = le32_to_cpu(hw.max_mcast_grp);
		caps->max_mcast_qp_attach = le32_to_cpu(hw.max_mcast_qp_attach);
	}
	/* Reserved (zero) in a device before 1.6. */
	if (caps->dev_caps & ORCA_DEV_CAP_XRC)
		caps->max_xrcd = le32_to_cpu(hw.max_xrcd);
	/* Beyond what a device before 1.10 writes. */
	if (caps->dev_caps & ORCA_DEV_CAP_ODP) {
		caps->odp_rc_ops = le32_to_cpu(hw.odp_rc_ops);
		caps->odp_ud_ops = le32_to_cpu(hw.odp_ud_ops);
		caps->odp_xrc_ops = le32_to_cpu(hw.odp_xrc_ops);
		caps->odp_max_faults = le16_to_cpu(hw.odp_max_faults);
		caps->odp_max_install_pages =
			le16_to_cpu(hw.odp_max_install_pages);
		caps->odp_caps = le32_to_cpu(hw.odp_caps);
		caps->odp_implicit_va_bits = hw.odp_implicit_va_bits;
	}
	/* Beyond the 1.0 size the buffer holds what an older device left. */
	if (caps->dev_caps & ORCA_DEV_CAP_IDENTITY) {
		orca_com_copy_ident(caps->hca_type, hw.hca_type,
				    sizeof(hw.hca_type));
		orca_com_copy_ident(caps->board_id, hw.board_id,
				    sizeof(hw.board_id));
	}
	*num_ports = hw.num_ports;
	return 0;
}

int orca_com_query_port(struct orca_dev *odev, struct orca_com_port_info *info)
{
	struct orca_cmd_query_port *in;
	struct orca_port_attr hw;
	struct orca_cmd cmd;
	int err;

	orca_com_init(&cmd, ORCA_CMD_QUERY_PORT);
	in = (void *)cmd.in;
	in->port = ORCA_PORT;
	err = orca_com_exec_out(odev, &cmd, &hw, sizeof(hw));
	if (err)
		return err;
	info->state = hw.state;
	info->max_mtu = hw.max_mtu;
	info->active_mtu = hw.active_mtu;
	info->eth_mtu = le32_to_cpu(hw.eth_mtu);
	ether_addr_copy(info->mac, hw.mac);
	info->gid_table_len = le16_to_cpu(hw.gid_table_len);
	info->speed_mbps = le32_to_cpu(hw.speed_mbps);
	return 0;
}

/*
 * The counters the driver reports: the first ORCA_COM_NUM_XPORT_STATS words
 * of struct orca_port_stats, then congestion notification's four (1.7),
 * priority flow control's three (1.9) and on-demand paging's three
 * (1.10; zero from an older device).
 */
int orca_com_query_stats(struct orca_dev *odev,
			 u64 counters[ORCA_COM_NUM_PORT_STATS])
{
	struct orca_cmd_query_port *in;
	struct orca_port_stats hw;
	struct orca_cmd cmd;
	const __le64 *v = (const __le64 *)&hw;
	int i, err;

	orca_com_init(&cmd, ORCA_CMD_QUERY_STATS);
	in = (void *)cmd.in;
	in->port = ORCA_PORT;
	err = orca_com_exec_out(odev, &cmd, &hw, sizeof(hw));
	if (err)
		return err;
	for (i = 0; i < ORCA_COM_NUM_XPORT_STATS; i++)
		counters[i] = le64_to_cpu(v[i]);
	counters[i++] = le64_to_cpu(hw.np_ecn_marked_roce_packets);
	counters[i++] = le64_to_cpu(hw.np_cnp_sent);
	counters[i++] = le64_to_cpu(hw.rp_cnp_handled);
	counters[i++] = le64_to_cpu(hw.rp_cnp_ignored);
	counters[i++] = le64_to_cpu(hw.rx_pfc_frames);
	counters[i++] = le64_to_cpu(hw.rx_pfc_pause_transitions);
	counters[i++] = le64_to_cpu(hw.rx_pfc_pause_duration);
	counters[i++] = le64_to_cpu(hw.odp_faults);
	counters[i++] = le64_to_cpu(hw.odp_fault_rnr_naks);
	counters[i++] = le64_to_cpu(hw.odp_fault_timeouts);
	return 0;
}

/* The traffic counters of QUERY_STATS, which the PMA reports. */
int orca_com_query_traffic(struct orca_dev *odev,
			   struct orca_com_port_traffic *t)
{
	struct orca_cmd_query_port *in;
	struct orca_port_stats hw;
	struct orca_cmd cmd;
	int err;

	orca_com_init(&cmd, ORCA_CMD_QUERY_STATS);
	in = (void *)cmd.in;
	in->port = ORCA_PORT;
	err = orca_com_exec_out(odev, &cmd, &hw, sizeof(hw));
	if (err)
		return err;
	t->tx_packets = le64_to_cpu(hw.tx_packets);
	t->rx_packets = le64_to_cpu(hw.rx_packets);
	t->tx_bytes = le64_to_cpu(hw.tx_bytes);
	t->rx_bytes = le64_to_cpu(hw.rx_bytes);
	t->tx_mcast_packets = le64_to_cpu(hw.tx_mcast_packets);
	t->rx_mcast_packets = le64_to_cpu(hw.rx_mcast_packets);
	t->rx_bad_packets = le64_to_cpu(hw.rx_bad_packets);
	return 0;
}

/* 1.8, ORCA_DEV_CAP_CC: the adapter's congestion control (orca_cc.c). */
int orca_com_query_cc(struct orca_dev *odev, struct orca_cc_params *p)
{
	struct orca_cmd cmd;

	orca_com_init(&cmd, ORCA_CMD_QUERY_CC);
	return orca_com_exec_out(odev, &cmd, p, sizeof(*p));
}

int orca_com_set_cc(struct orca_dev *odev, const struct orca_cc_params *p)
{
	struct orca_cmd cmd;

	orca_com_init(&cmd, ORCA_CMD_SET_CC);
	memcpy(cmd.in, p, sizeof(*p));
	return orca_cmdq_exec(odev, &cmd, NULL, true);
}

int orca_com_set_port(struct orca_dev *odev, u32 eth_mtu)
{
	struct orca_cmd_set_port *in;
	struct orca_cmd cmd;

	orca_com_init(&cmd, ORCA_CMD_SET_PORT);
	in = (void *)cmd.in;
	in->port = ORCA_PORT;
	in->eth_mtu = cpu_to_le32(eth_mtu);
	return orca_cmdq_exec(odev, &cmd, NULL, true);
}

int orca_com_set_gid(struct orca_dev *odev, u32 index, u8 type,
		     const u8 *mac, u16 vlan, const u8 *gid)
{
	struct orca_cmd_set_gid *in;
	struct orca_cmd cmd;

	orca_com_init(&cmd, ORCA_CMD_SET_GID);
	in = (void *)cmd.in;
	in->port = ORCA_PORT;
	in->type = type;
	in->index = cpu_to_le16(index);
	in->vlan = cpu_to_le16(vlan);
	if (mac)
		ether_addr_copy(in->mac, mac);
	if (gid)
		memcpy(in->gid, gid, sizeof(in->gid));
	return orca_cmdq_exec(odev, &cmd, NULL, true);
}

/* Run a command whose inline output is the new object's handle. */
static int orca_com_exec_handle(struct orca_dev *odev, struct orca_cmd *cmd,
				bool sleepable, u32 *handle)
{
	struct orca_cmdq_out res = {};
	int err;

	err = orca_cmdq_exec(odev, cmd, &res, sleepable);
	if (!err)
		*handle = orca_com_out_handle(res.out);
	return err;
}

int orca_com_create_eq(struct orca_dev *odev,
		       const struct orca_com_eq_params *p, u32 *eqn)
{
	struct orca_cmd_create_eq *in;
	struct orca_cmd cmd;

	orca_com_init(&cmd, ORCA_CMD_CREATE_EQ);
	in = (void *)cmd.in;
	in->log_depth = p->log_depth;
	in->page_shift = p->ring.page_shift;
	in->msix_vector = cpu_to_le16(p->msix_vector);
	in->npages = cpu_to_le32(p->ring.npages);
	orca_com_set_ring(&cmd, &p->ring, &in->page_addr);
	return orca_com_exec_handle(odev, &cmd, true, eqn);
}

/**
 * orca_com_destroy_obj() - run a DESTROY_* or DEALLOC_* command
 * @odev: device
 * @opcode: ORCA_CMD_DESTROY_* or ORCA_CMD_DEALLOC_UAR
 * @handle: the object's handle; for an MR, its lkey
 *
 * Return: 0 or a negative errno.
 */
int orca_com_destroy_obj(struct orca_dev *odev, u16 opcode, u32 handle)
{
	struct orca_cmd_destroy_obj *in;
	struct orca_cmd cmd;

	orca_com_init(&cmd, opcode);
	in = (void *)cmd.in;
	in->handle = cpu_to_le32(handle);
	return orca_cmdq_exec(odev, &cmd, NULL, true);
}

/**
 * orca_com_undo_create() - destroy an object a create path cannot finish
 * @odev: device
 * @opcode: the object's ORCA_CMD_DESTROY_* command
 * @handle: the handle its CREATE returned
 * @what: the object's kind, for the log
 *
 * For a create that failed after its CREATE command (the object could not
 * be made reachable): the adapter may refuse this DESTROY as any other,
 * and then still owns the object's memory.
 *
 * Return: true if the caller may free the object's rings, records and
 * umems (orca_dev_may_free()); false if it must keep them as a destroy
 * would, with orca_dev_keep() (a user object's pinned pages stay pinned).
 */
bool orca_com_undo_create(struct orca_dev *odev, u16 opcode, u32 handle,
			  const char *what)
{
	return orca_dev_may_free(odev,
				 orca_com_destroy_obj(odev, opcode, handle),
				 what, handle);
}

/*
 * @sleepable: false from atomic context (the CM's locks): then -EAGAIN
 * when no slot came in time and the command was not posted.
 */
int orca_com_destroy_ah(struct orca_dev *odev, u32 ahn, bool sleepable)
{
	struct orca_cmd_destroy_obj *in;
	struct orca_cmd cmd;

	orca_com_init(&cmd, ORCA_CMD_DESTROY_AH);
	in = (void *)cmd.in;
	in->handle = cpu_to_le32(ahn);
	return orca_cmdq_exec(odev, &cmd, NULL, sleepable);
}

int orca_com_alloc_uar(struct orca_dev *odev, u32 *uar)
{
	struct orca_cmd cmd;

	orca_com_init(&cmd, ORCA_CMD_ALLOC_UAR);
	return orca_com_exec_handle(odev, &cmd, true, uar);
}

int orca_com_create_pd(struct orca_dev *odev, u32 *pdn)
{
	struct orca_cmd cmd;

	orca_com_init(&cmd, ORCA_CMD_CREATE_PD);
	return orca_com_exec_handle(odev, &cmd, true, pdn);
}

int orca_com_alloc_xrcd(struct orca_dev *odev, u32 *xrcdn)
{
	struct orca_cmd cmd;

	orca_com_init(&cmd, ORCA_CMD_ALLOC_XRCD);
	return orca_com_exec_handle(odev, &cmd, true, xrcdn);
}

int orca_com_create_cq(struct orca_dev *odev,
		       const struct orca_com_cq_params *p, u32 *cqn)
{
	struct orca_cmd_create_cq *in;
	struct orca_cmd cmd;

	orca_com_init(&cmd, ORCA_CMD_CREATE_CQ);
	in = (void *)cmd.in;
	in->log_depth = p->log_depth;
	in->page_shift = p->ring.page_shift;
	in->eqn = cpu_to_le16(p->eqn);
	in->npages = cpu_to_le32(p->ring.npages);
	orca_com_set_ring(&cmd, &p->ring, &in->page_addr);
	in->db_rec_addr = cpu_to_le64(p->db_rec);
	in->uar = cpu_to_le32(p->uar);
	return orca_com_exec_handle(odev, &cmd, true, cqn);
}

int orca_com_resize_cq(struct orca_dev *odev, u32 cqn, u8 log_depth,
		       const struct orca_com_ring *ring)
{
	struct orca_cmd_resize_cq *in;
	struct orca_cmd cmd;

	orca_com_init(&cmd, ORCA_CMD_RESIZE_CQ);
	in = (void *)cmd.in;
	in->cqn = cpu_to_le32(cqn);
	in->log_depth = log_depth;
	in->page_shift = ring->page_shift;
	in->npages = cpu_to_le32(ring->npages);
	orca_com_set_ring(&cmd, ring, &in->page_addr);
	return orca_cmdq_exec(odev, &cmd, NULL, true);
}

/* MODIFY_CQ (1.3): @count CQEs, @period microseconds; 0, 0: off. */
int orca_com_modify_cq(struct orca_dev *odev, u32 cqn, u16 count, u16 period)
{
	struct orca_cmd_modify_cq *in;
	struct orca_cmd cmd;

	orca_com_init(&cmd, ORCA_CMD_MODIFY_CQ);
	in = (void *)cmd.in;
	in->cqn = cpu_to_le32(cqn);
	in->count = cpu_to_le16(count);
	in->period = cpu_to_le16(period);
	return orca_cmdq_exec(odev, &cmd, NULL, true);
}

/* ATTACH_MCAST or DETACH_MCAST (1.4): @qpn to or from the group @mgid. */
int orca_com_mcast(struct orca_dev *odev, u16 opcode, u32 qpn,
		   const u8 mgid[16])
{
	struct orca_cmd_mcast *in;
	struct orca_cmd cmd;

	orca_com_init(&cmd, opcode);
	in = (void *)cmd.in;
	in->qpn = cpu_to_le32(qpn);
	memcpy(in->mgid, mgid, sizeof(in->mgid));
	return orca_cmdq_exec(odev, &cmd, NULL, true);
}

int orca_com_create_mr(struct orca_dev *odev,
		       const struct orca_com_mr_params *p,
		       struct orca_com_mr_keys *keys)
{
	const struct orca_cmd_create_mr_out *out;
	struct orca_cmd_create_mr *in;
	struct orca_cmdq_out res = {};
	struct orca_cmd cmd;
	int err;

	orca_com_init(&cmd, ORCA_CMD_CREATE_MR);
	in = (void *)cmd.in;
	in->pdn = cpu_to_le32(p->pdn);
	in->access = cpu_to_le32(p->access);
	in->flags = cpu_to_le32(p->flags);
	in->page_shift = p->page_shift;
	in->iova = cpu_to_le64(p->iova);
	in->length = cpu_to_le64(p->length);
	in->npages = cpu_to_le32(p->npages);
	if (p->pgl)
		orca_com_set_in_pgl(&cmd, p->pgl);
	err = orca_cmdq_exec(odev, &cmd, &res, true);
	if (err)
		return err;
	out = (const void *)res.out;
	keys->lkey = le32_to_cpu(out->lkey);
	keys->rkey = le32_to_cpu(out->rkey);
	return 0;
}

/* SET_ODP (1.10): @n records of the fault table at @table. */
int orca_com_set_odp(struct orca_dev *odev, dma_addr_t table, u16 n,
		     u32 timeout_ms)
{
	struct orca_cmd_set_odp *in;
	struct orca_cmd cmd;

	orca_com_init(&cmd, ORCA_CMD_SET_ODP);
	in = (void *)cmd.in;
	in->fault_table = cpu_to_le64(table);
	in->max_faults = cpu_to_le16(n);
	in->fault_timeout_ms = cpu_to_le32(timeout_ms);
	return orca_cmdq_exec(odev, &cmd, NULL, true);
}

/**
 * orca_com_mr_install() - MR_INSTALL (1.10)
 * @odev: device
 * @lkey: the on-demand MR
 * @va: MR address of the first entry, page aligned
 * @npages: entries at @list (0: none, @lkey is ignored)
 * @list: DMA address of @npages little-endian ORCA_XLT_* entries
 * @flags: ORCA_MR_INSTALL_F_*
 * @token: the fault to resume or fail
 * @resumed: set to whether the device still had the fault (may be NULL)
 *
 * Return: 0 or a negative errno.
 */
int orca_com_mr_install(struct orca_dev *odev, u32 lkey, u64 va, u32 npages,
			dma_addr_t list, u32 flags, u32 token, bool *resumed)
{
	const struct orca_cmd_mr_install_out *out;
	struct orca_cmd_mr_install *in;
	struct orca_cmdq_out res = {};
	struct orca_cmd cmd;
	int err;

	orca_com_init(&cmd, ORCA_CMD_MR_INSTALL);
	in = (void *)cmd.in;
	in->lkey = cpu_to_le32(lkey);
	in->flags = cpu_to_le32(flags);
	in->token = cpu_to_le32(token);
	in->npages = cpu_to_le32(npages);
	in->va = cpu_to_le64(va);
	if (npages) {
		cmd.in_addr = cpu_to_le64(list);
		cmd.in_len = cpu_to_le32(npages * sizeof(__le64));
	}
	err = orca_cmdq_exec(odev, &cmd, &res, true);
	if (err)
		return err;
	out = (const void *)res.out;
	if (resumed)
		*resumed = out->resumed;
	return 0;
}

/* MR_INVALIDATE (1.10): [@va, @va + @len) of @lkey, or all with @all. */
int orca_com_mr_invalidate(struct orca_dev *odev, u32 lkey, u64 va, u64 len,
			   bool all)
{
	struct orca_cmd_mr_invalidate *in;
	struct orca_cmd cmd;

	orca_com_init(&cmd, ORCA_CMD_MR_INVALIDATE);
	in = (void *)cmd.in;
	in->lkey = cpu_to_le32(lkey);
	in->flags = cpu_to_le32(all ? ORCA_MR_INVAL_F_ALL : 0);
	in->va = cpu_to_le64(va);
	in->length = cpu_to_le64(len);
	return orca_cmdq_exec(odev, &cmd, NULL, true);
}

int orca_com_alloc_mw(struct orca_dev *odev, u32 pdn, u8 type, u8 key,
		      u32 *rkey)
{
	const struct orca_cmd_alloc_mw_out *out;
	struct orca_cmd_alloc_mw *in;
	struct orca_cmdq_out res = {};
	struct orca_cmd cmd;
	int err;

	orca_com_init(&cmd, ORCA_CMD_ALLOC_MW);
	in = (void *)cmd.in;
	in->pdn = cpu_to_le32(pdn);
	in->type = type;
	in->key = key;
	err = orca_cmdq_exec(odev, &cmd, &res, true);
	if (err)
		return err;
	out = (const void *)res.out;
	*rkey = le32_to_cpu(out->rkey);
	return 0;
}

int orca_com_create_qp(struct orca_dev *odev,
		       const struct orca_com_qp_params *p, u32 *qpn)
{
	struct orca_cmd_create_qp *in;
	struct orca_cmd cmd;

	orca_com_init(&cmd, ORCA_CMD_CREATE_QP);
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
	in->xrcdn = cpu_to_le32(p->xrcdn);
	/* An XRC target QP has no rings, so no page list. */
	if (p->pgl)
		orca_com_set_in_pgl(&cmd, p->pgl);
	return orca_com_exec_handle(odev, &cmd, true, qpn);
}

static void orca_com_av_to_hw(struct orca_av *hw, const struct orca_com_av *av)
{
	memcpy(hw->dgid, av->dgid, sizeof(hw->dgid));
	ether_addr_copy(hw->dmac, av->dmac);
	hw->sgid_index = av->sgid_index;
	hw->hop_limit = av->hop_limit;
	hw->traffic_class = av->traffic_class;
	hw->flow_label = cpu_to_le32(av->flow_label);
}

static void orca_com_av_from_hw(struct orca_com_av *av,
				const struct orca_av *hw)
{
	memcpy(av->dgid, hw->dgid, sizeof(av->dgid));
	ether_addr_copy(av->dmac, hw->dmac);
	av->sgid_index = hw->sgid_index;
	av->hop_limit = hw->hop_limit;
	av->traffic_class = hw->traffic_class;
	av->flow_label = le32_to_cpu(hw->flow_label);
}

int orca_com_modify_qp(struct orca_dev *odev,
		       const struct orca_com_qp_attr *attr)
{
	struct orca_qp_attr *in;
	struct orca_cmd cmd;

	orca_com_init(&cmd, ORCA_CMD_MODIFY_QP);
	in = (void *)cmd.in;
	in->qpn = cpu_to_le32(attr->qpn);
	in->attr_mask = cpu_to_le32(attr->attr_mask);
	in->qp_state = attr->qp_state;
	in->cur_qp_state = attr->cur_qp_state;
	in->path_mtu = attr->path_mtu;
	in->timeout = attr->timeout;
	in->retry_cnt = attr->retry_cnt;
	in->rnr_retry = attr->rnr_retry;
	in->min_rnr_timer = attr->min_rnr_timer;
	in->max_rd_atomic = attr->max_rd_atomic;
	in->max_dest_rd_atomic = attr->max_dest_rd_atomic;
	in->port = attr->port;
	in->pkey_index = cpu_to_le16(attr->pkey_index);
	in->qkey = cpu_to_le32(attr->qkey);
	in->access = cpu_to_le32(attr->access);
	in->rq_psn = cpu_to_le32(attr->rq_psn);
	in->sq_psn = cpu_to_le32(attr->sq_psn);
	in->dest_qpn = cpu_to_le32(attr->dest_qpn);
	orca_com_av_to_hw(&in->av, &attr->av);
	return orca_cmdq_exec(odev, &cmd, NULL, true);
}

/* QUERY_QP: inline input is the qpn at offset 0, as in MODIFY_QP. */
int orca_com_query_qp(struct orca_dev *odev, u32 qpn,
		      struct orca_com_qp_attr *attr)
{
	struct orca_qp_attr *in, hw;
	struct orca_cmd cmd;
	int err;

	orca_com_init(&cmd, ORCA_CMD_QUERY_QP);
	in = (void *)cmd.in;
	in->qpn = cpu_to_le32(qpn);
	err = orca_com_exec_out(odev, &cmd, &hw, sizeof(hw));
	if (err)
		return err;
	attr->qpn = le32_to_cpu(hw.qpn);
	attr->attr_mask = le32_to_cpu(hw.attr_mask);
	attr->qp_state = hw.qp_state;
	attr->cur_qp_state = hw.cur_qp_state;
	attr->path_mtu = hw.path_mtu;
	attr->timeout = hw.timeout;
	attr->retry_cnt = hw.retry_cnt;
	attr->rnr_retry = hw.rnr_retry;
	attr->min_rnr_timer = hw.min_rnr_timer;
	attr->max_rd_atomic = hw.max_rd_atomic;
	attr->max_dest_rd_atomic = hw.max_dest_rd_atomic;
	attr->port = hw.port;
	attr->pkey_index = le16_to_cpu(hw.pkey_index);
	attr->qkey = le32_to_cpu(hw.qkey);
	attr->access = le32_to_cpu(hw.access);
	attr->rq_psn = le32_to_cpu(hw.rq_psn);
	attr->sq_psn = le32_to_cpu(hw.sq_psn);
	attr->dest_qpn = le32_to_cpu(hw.dest_qpn);
	orca_com_av_from_hw(&attr->av, &hw.av);
	attr->sq_draining = hw.sq_draining;
	return 0;
}

/* QUERY_CQ (1.2): inline input is the cqn, as in DESTROY_CQ. */
int orca_com_query_cq(struct orca_dev *odev, u32 cqn,
		      struct orca_com_cq_attr *attr)
{
	struct orca_cq_attr hw;
	int err;

	err = orca_com_query_raw(odev, ORCA_CMD_QUERY_CQ, cqn, &hw, sizeof(hw));
	if (err)
		return err;
	attr->cqn = le32_to_cpu(hw.cqn);
	attr->eqn = le32_to_cpu(hw.eqn);
	attr->pi = le32_to_cpu(hw.pi);
	attr->ci = le32_to_cpu(hw.ci);
	attr->arm = le32_to_cpu(hw.arm);
	attr->arm_fired = le32_to_cpu(hw.arm_fired);
	attr->overruns = le32_to_cpu(hw.overruns);
	attr->log_depth = hw.log_depth;
	attr->armed = hw.flags & ORCA_CQ_ATTR_F_ARMED;
	attr->overrun = hw.flags & ORCA_CQ_ATTR_F_OVERRUN;
	return 0;
}

/**
 * orca_com_query_raw() - run a QUERY_* command and keep its output as is
 * @odev: device
 * @opcode: ORCA_CMD_QUERY_QP or ORCA_CMD_QUERY_CQ
 * @handle: the qpn or cqn
 * @buf: receives the little-endian output structure
 * @len: its size (struct orca_qp_attr or struct orca_cq_attr)
 *
 * For the raw resource dumps of rdma restrack, which hand the adapter's
 * own layout to userspace.
 *
 * Return: 0 or a negative errno (-EOPNOTSUPP from a device that does not
 * know the command).
 */
int orca_com_query_raw(struct orca_dev *odev, u16 opcode, u32 handle,
		       void *buf, size_t len)
{
	struct orca_cmd_destroy_obj *in;
	struct orca_cmd cmd;

	orca_com_init(&cmd, opcode);
	in = (void *)cmd.in;
	in->handle = cpu_to_le32(handle);
	return orca_com_exec_out(odev, &cmd, buf, len);
}

/**
 * orca_com_create_ah() - run CREATE_AH
 * @odev: device
 * @pdn: the AH's PD
 * @av: its address vector
 * @sleepable: false from atomic context (the CM's locks)
 * @orphaned: atomic callers: takes the AH of a command given up on with
 *	      -EBUSY that completes after all (struct orca_cmdq_out)
 * @ahn: receives the new AH's handle
 *
 * Return: 0 or a negative errno; atomic only: -EAGAIN when no slot came in
 * time (not posted), -EBUSY when the command was orphaned.
 */
int orca_com_create_ah(struct orca_dev *odev, u32 pdn,
		       const struct orca_com_av *av, bool sleepable,
		       void (*orphaned)(struct orca_dev *odev, int err,
					const u8 *out),
		       u32 *ahn)
{
	struct orca_cmdq_out res = { .orphaned = orphaned };
	struct orca_cmd_create_ah *in;
	struct orca_cmd cmd;
	int err;

	orca_com_init(&cmd, ORCA_CMD_CREATE_AH);
	in = (void *)cmd.in;
	in->pdn = cpu_to_le32(pdn);
	orca_com_av_to_hw(&in->av, av);
	err = orca_cmdq_exec(odev, &cmd, &res, sleepable);
	if (!err)
		*ahn = orca_com_out_handle(res.out);
	return err;
}

int orca_com_create_srq(struct orca_dev *odev,
			const struct orca_com_srq_params *p, u32 *srqn)
{
	struct orca_cmd_create_srq *in;
	struct orca_cmd cmd;

	orca_com_init(&cmd, ORCA_CMD_CREATE_SRQ);
	in = (void *)cmd.in;
	in->pdn = cpu_to_le32(p->pdn);
	in->log_depth = p->log_depth;
	in->page_shift = p->ring.page_shift;
	in->max_sge = p->max_sge;
	in->flags = (p->tagged ? ORCA_CREATE_SRQ_F_TAG : 0) |
		    (p->xrc ? ORCA_CREATE_SRQ_F_XRC : 0);
	in->cqn = cpu_to_le32(p->cqn);
	in->xrcdn = cpu_to_le32(p->xrcdn);
	in->npages = cpu_to_le32(p->ring.npages);
	in->limit = cpu_to_le32(p->limit);
	in->uar = cpu_to_le32(p->uar);
	orca_com_set_ring(&cmd, &p->ring, &in->page_addr);
	in->db_rec_addr = cpu_to_le64(p->db_rec);
	return orca_com_exec_handle(odev, &cmd, true, srqn);
}

int orca_com_modify_srq(struct orca_dev *odev, u32 srqn, u32 limit)
{
	struct orca_cmd_modify_srq *in;
	struct orca_cmd cmd;

	orca_com_init(&cmd, ORCA_CMD_MODIFY_SRQ);
	in = (void *)cmd.in;
	in->srqn = cpu_to_le32(srqn);
	in->limit = cpu_to_le32(limit);
	return orca_cmdq_exec(odev, &cmd, NULL, true);
}

/* MODIFY_SRQ's resize (1.4): the new ring; the limit stays as it is. */
int orca_com_resize_srq(struct orca_dev *odev, u32 srqn, u8 log_depth,
			const struct orca_com_ring *ring)
{
	struct orca_cmd_modify_srq *in;
	struct orca_cmd cmd;

	orca_com_init(&cmd, ORCA_CMD_MODIFY_SRQ);
	in = (void *)cmd.in;
	in->srqn = cpu_to_le32(srqn);
	in->flags = cpu_to_le32(ORCA_MODIFY_SRQ_F_RESIZE |
				ORCA_MODIFY_SRQ_F_KEEP_LIMIT);
	in->log_depth = log_depth;
	in->page_shift = ring->page_shift;
	in->npages = cpu_to_le32(ring->npages);
	orca_com_set_ring(&cmd, ring, &in->page_addr);
	return orca_cmdq_exec(odev, &cmd, NULL, true);
}

/* QUERY_SRQ: inline input is the srqn at offset 0, as in MODIFY_SRQ. */
int orca_com_query_srq(struct orca_dev *odev, u32 srqn, u32 *limit)
{
	struct orca_cmd_modify_srq *in;
	struct orca_cmdq_out res = {};
	struct orca_cmd cmd;
	int err;

	orca_com_init(&cmd, ORCA_CMD_QUERY_SRQ);
	in = (void *)cmd.in;
	in->srqn = cpu_to_le32(srqn);
	err = orca_cmdq_exec(odev, &cmd, &res, true);
	if (!err)
		*limit = le32_to_cpu(*(__le32 *)res.out);
	return err;
}

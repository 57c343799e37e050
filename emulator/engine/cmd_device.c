// SPDX-License-Identifier: GPL-2.0
/*
 * Device and port commands: QUERY_DEVICE (the limits every other handler
 * enforces), QUERY_PORT, SET_PORT (Ethernet MTU -> IB MTU) and SET_GID (the
 * port's GID table, which address vectors index by sgid_index).
 */
#include <endian.h>
#include <stddef.h>
#include <string.h>

#include "cmd_handlers.h"
#include "roce/roce.h"

/* Largest IB MTU (1=256 ... 5=4096) whose payload fits the RoCE frame. */
uint8_t engine_ib_mtu_for_eth(uint32_t eth_mtu)
{
	uint32_t room = eth_mtu > ORCA_ROCE_HDR_OVERHEAD ?
			eth_mtu - ORCA_ROCE_HDR_OVERHEAD : 0;
	uint8_t mtu = 1;

	while (mtu < EMU_MAX_IB_MTU && (256u << mtu) <= room)
		mtu++;
	return mtu;
}

bool cmd_gid_entry_valid(struct orca_engine *eng, uint32_t index)
{
	return index < EMU_GID_TABLE_LEN && eng->gids[index].type != 0;
}

int cmd_query_device(struct cmd_ctx *c)
{
	const uint8_t *mac = c->eng->cfg.mac;
	struct orca_dev_caps caps = {
		.max_mr_size = htole64(EMU_MAX_MR_SIZE),
		.page_size_cap = htole64(GENMASK_ULL(ORCA_MAX_PAGE_SHIFT,
						     ORCA_MIN_PAGE_SHIFT)),
		/* Only RoCE v2 GIDs are advertised, though v1 is stored. */
		.dev_caps = htole32(ORCA_DEV_CAP_RC | ORCA_DEV_CAP_UD |
				    ORCA_DEV_CAP_SRQ | ORCA_DEV_CAP_ATOMIC |
				    ORCA_DEV_CAP_FRWR | ORCA_DEV_CAP_ROCE_V2 |
				    ORCA_DEV_CAP_PGL_CHAIN |
				    ORCA_DEV_CAP_REG_MR_PGSZ |
				    ORCA_DEV_CAP_IDENTITY |
				    ORCA_DEV_CAP_CQ_MODERATION |
				    ORCA_DEV_CAP_MW |
				    ORCA_DEV_CAP_UC |
				    ORCA_DEV_CAP_MCAST |
				    ORCA_DEV_CAP_FLUSH |
				    ORCA_DEV_CAP_ATOMIC_WRITE |
				    ORCA_DEV_CAP_SRQ_RESIZE |
				    ORCA_DEV_CAP_SRQ_TAG |
				    ORCA_DEV_CAP_XRC |
				    ORCA_DEV_CAP_CC |
				    ORCA_DEV_CAP_ODP),
		.vendor_part_id = htole32(ORCA_PCI_DEVICE_ID),
		.hw_rev = htole32(ORCA_PCI_REVISION),
		.max_qp = htole32(EMU_QP_LIMIT - 1),
		.max_qp_wr = htole32(1u << EMU_LOG_MAX_WQ),
		.max_send_sge = htole32(ORCA_MAX_SGE),
		.max_recv_sge = htole32(ORCA_MAX_SGE),
		.max_inline_data = htole32(EMU_MAX_INLINE),
		.max_cq = htole32(EMU_TAB_LIMIT - 1),
		.max_cqe = htole32(1u << EMU_LOG_MAX_CQ),
		.max_mr = htole32(EMU_MR_LIMIT - 1),
		.max_pd = htole32(EMU_TAB_LIMIT - 1),
		.max_ah = htole32(EMU_TAB_LIMIT - 1),
		.max_srq = htole32(EMU_TAB_LIMIT - 1),
		.max_srq_wr = htole32(1u << EMU_LOG_MAX_WQ),
		.max_srq_sge = htole32(ORCA_MAX_SGE),
		.max_eq = htole32(EMU_MAX_EQ),
		.max_eqe = htole32(1u << EMU_LOG_MAX_EQ),
		.max_uar = htole32(EMU_MAX_UAR),
		.max_fast_reg_page_list_len = htole32(EMU_MAX_FRPL),
		.max_msg_size = htole32(1u << 31),
		.gid_table_len = htole32(EMU_GID_TABLE_LEN),
		.max_qp_rd_atom = EMU_MAX_RD_ATOM,
		.max_qp_init_rd_atom = EMU_MAX_RD_ATOM,
		.num_ports = 1,
		.local_ca_ack_delay = 15,
		.max_cq_mod_count = htole16(EMU_MAX_CQ_MOD_COUNT),
		.max_cq_mod_period = htole16(EMU_MAX_CQ_MOD_PERIOD),
		/* Windows and MRs share one table (cmd_mr.c). */
		.max_mw = htole32(EMU_MR_LIMIT - 1),
		.max_mcast_grp = htole32(EMU_MAX_MCAST_GRP),
		.max_mcast_qp_attach = htole32(EMU_MAX_MCAST_QP_ATTACH),
		.max_xrcd = htole32(EMU_MAX_XRCD),
		.hca_type = EMU_HCA_TYPE,
		.board_id = EMU_BOARD_ID,
		/*
		 * On-demand paging (1.10), explicit only.  A UD or UC
		 * responder cannot RNR-NAK: its receive side is not on
		 * demand (a miss there is an access error).
		 */
		.odp_rc_ops = htole32(ORCA_ODP_OP_SEND | ORCA_ODP_OP_RECV |
				      ORCA_ODP_OP_WRITE | ORCA_ODP_OP_READ |
				      ORCA_ODP_OP_ATOMIC |
				      ORCA_ODP_OP_SRQ_RECV |
				      ORCA_ODP_OP_FLUSH |
				      ORCA_ODP_OP_ATOMIC_WRITE),
		.odp_ud_ops = htole32(ORCA_ODP_OP_SEND),
		.odp_xrc_ops = htole32(ORCA_ODP_OP_SEND | ORCA_ODP_OP_WRITE |
				       ORCA_ODP_OP_READ | ORCA_ODP_OP_ATOMIC |
				       ORCA_ODP_OP_SRQ_RECV),
		.odp_max_faults = htole16(EMU_ODP_MAX_FAULTS),
		.odp_caps = htole32(ORCA_ODP_CAP_IMPLICIT),
		.odp_implicit_va_bits = EMU_ODP_VA_BITS,
		.odp_max_install_pages = htole16(EMU_ODP_MAX_INSTALL),
		.odp_fault_timeout_ms = htole32(EMU_ODP_TIMEOUT_MS),
	};
	/* EUI-64 from the MAC, in wire (big endian) byte order. */
	uint8_t guid[8] = { mac[0] ^ 2, mac[1], mac[2], 0xff, 0xfe,
			    mac[3], mac[4], mac[5] };

	static_assert(offsetof(struct orca_dev_caps, hca_type) ==
		      ORCA_DEV_CAPS_V1_0_LEN, "1.0 size of orca_dev_caps");
	memcpy(&caps.sys_image_guid, guid, sizeof(guid));
	return cmd_write_out_grown(c, &caps, sizeof(caps),
				   ORCA_DEV_CAPS_V1_0_LEN);
}

int cmd_query_port(struct cmd_ctx *c)
{
	struct orca_engine *eng = c->eng;
	struct orca_cmd_query_port in;
	struct orca_port_attr attr = {
		.max_mtu = EMU_MAX_IB_MTU,
		.active_mtu = eng->active_mtu,
		.eth_mtu = htole32(eng->eth_mtu),
		.gid_table_len = htole16(EMU_GID_TABLE_LEN),
		.speed_mbps = htole32(EMU_SPEED_MBPS),
	};
	bool up;

	memcpy(&in, c->cmd.in, sizeof(in));
	if (in.port != 1)
		return cmd_fail(c, ORCA_CMD_ST_BAD_PARAM);
	pthread_mutex_lock(&eng->lock);
	up = eng->link_up;
	pthread_mutex_unlock(&eng->lock);
	attr.state = up ? ORCA_PORT_STATE_ACTIVE : ORCA_PORT_STATE_DOWN;
	memcpy(attr.mac, eng->cfg.mac, sizeof(attr.mac));
	return cmd_write_out(c, &attr, sizeof(attr));
}

int cmd_query_stats(struct cmd_ctx *c)
{
	struct orca_cmd_query_port in;
	struct orca_port_stats out;
	struct roce_stats st;

	memcpy(&in, c->cmd.in, sizeof(in));
	if (in.port != 1)
		return cmd_fail(c, ORCA_CMD_ST_BAD_PARAM);
	roce_get_stats(c->eng, &st);
	out = (struct orca_port_stats){
		.tx_packets = htole64(st.tx_frames),
		.rx_packets = htole64(st.rx_frames),
		.loopback_packets = htole64(st.loopback),
		.rx_drops = htole64(st.rxq_full + st.rx_dead + st.rx_too_big +
				    st.drop_no_qp + st.drop_state +
				    st.drop_bad_pkt + st.drop_qkey +
				    st.drop_no_rwqe + st.drop_ghost +
				    st.drop_uc),
		.rx_bad_packets = htole64(st.drop_bad_pkt),
		.rx_qkey_drops = htole64(st.drop_qkey),
		.rx_no_recv_wqe = htole64(st.drop_no_rwqe),
		.retransmits = htole64(st.retransmits),
		.retry_timeouts = htole64(st.timeouts),
		.rnr_naks_rx = htole64(st.rnr_naks_rx),
		.rnr_naks_tx = htole64(st.rnr_naks_tx),
		.seq_naks_rx = htole64(st.seq_naks_rx),
		.seq_naks_tx = htole64(st.seq_naks_tx),
		.err_naks_rx = htole64(st.err_naks_rx),
		.err_naks_tx = htole64(st.err_naks_tx),
		.acks_tx = htole64(st.acks_tx),
		.dup_requests = htole64(st.dup_requests),
		.cq_overruns = htole64(st.cq_overruns),
		.tx_bytes = htole64(st.tx_bytes),
		.rx_bytes = htole64(st.rx_bytes),
		.tx_mcast_packets = htole64(st.tx_mcast),
		.rx_mcast_packets = htole64(st.rx_mcast),
		.np_ecn_marked_roce_packets =
			htole64(st.np_ecn_marked_roce_packets),
		.np_cnp_sent = htole64(st.np_cnp_sent),
		.rp_cnp_handled = htole64(st.rp_cnp_handled),
		.rp_cnp_ignored = htole64(st.rp_cnp_ignored),
		.rx_pfc_frames = htole64(st.rx_pfc_frames),
		.rx_pfc_pause_transitions =
			htole64(st.rx_pfc_pause_transitions),
		.rx_pfc_pause_duration = htole64(st.rx_pfc_pause_us),
		.odp_faults = htole64(c->eng->odp.faults),
		.odp_fault_rnr_naks = htole64(st.odp_fault_rnr_naks),
		.odp_fault_timeouts = htole64(c->eng->odp.timeouts),
	};
	return cmd_write_out(c, &out, sizeof(out));
}

int cmd_set_port(struct cmd_ctx *c)
{
	struct orca_cmd_set_port in;
	uint32_t mtu;

	memcpy(&in, c->cmd.in, sizeof(in));
	mtu = le32toh(in.eth_mtu);
	if (in.port != 1 || mtu < 576 || mtu > 9000)
		return cmd_fail(c, ORCA_CMD_ST_BAD_PARAM);
	c->eng->eth_mtu = mtu;
	c->eng->active_mtu = engine_ib_mtu_for_eth(mtu);
	return ORCA_CMD_ST_OK;
}

int cmd_set_gid(struct cmd_ctx *c)
{
	struct orca_cmd_set_gid in;
	struct emu_gid *g;
	uint16_t index;

	memcpy(&in, c->cmd.in, sizeof(in));
	index = le16toh(in.index);
	if (in.port != 1 || index >= EMU_GID_TABLE_LEN ||
	    in.type > ORCA_GID_TYPE_ROCE_V2)
		return cmd_fail(c, ORCA_CMD_ST_BAD_PARAM);
	g = &c->eng->gids[index];
	if (!in.type) {
		memset(g, 0, sizeof(*g));
		return ORCA_CMD_ST_OK;
	}
	g->type = in.type;
	memcpy(g->mac, in.mac, sizeof(g->mac));
	g->vlan = le16toh(in.vlan);
	memcpy(g->gid, in.gid, sizeof(g->gid));
	return ORCA_CMD_ST_OK;
}

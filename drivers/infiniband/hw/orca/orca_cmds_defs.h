/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * ORCA firmware command interface: the command and completion rings and
 * every command's input and output layout.
 *
 * Part of the ORCA adapter programming interface, version 1, the one
 * definition of its layouts.  The driver includes it directly; the adapter's
 * emulator and the rdma-core provider include this very file through a
 * small header of their own that supplies the kernel types and macros it
 * uses (u8..u64, __le16..__le64, BIT, GENMASK, FIELD_PREP/FIELD_GET,
 * static_assert), so it includes nothing itself.  Everything the device
 * reads or writes, and every register, is little endian.
 */
#ifndef _ORCA_CMDS_DEFS_H_
#define _ORCA_CMDS_DEFS_H_

/* ------------------------------------------------------------------------
 * Firmware command interface
 *
 * A ring of struct orca_cmd in host memory (1 << log_depth entries) and a
 * ring of struct orca_cmd_comp of the same depth.  The driver writes entry
 * (pi % depth), then writes the new producer index (a free-running 16-bit
 * counter) to ORCA_REG_CMDQ_DB.  The device executes commands in order and
 * writes one completion per command into the completion ring, slot
 * (ci % depth), with the phase bit set to 1 on the first pass and toggled on
 * each wrap.  With ORCA_CMD_F_EVENT the device also posts an
 * ORCA_EQE_CMD_DONE event on EQ 0 after writing the completion.
 * ------------------------------------------------------------------------
 */
#define ORCA_CMD_INLINE_BYTES		96
#define ORCA_CMD_OUT_INLINE_BYTES	24

enum orca_cmd_opcode {
	ORCA_CMD_NOP			= 0x00,
	ORCA_CMD_QUERY_DEVICE		= 0x01,
	ORCA_CMD_QUERY_PORT		= 0x02,
	ORCA_CMD_SET_PORT		= 0x03,
	ORCA_CMD_SET_GID		= 0x04,
	ORCA_CMD_QUERY_STATS		= 0x05,
	ORCA_CMD_QUERY_CC		= 0x06,	/* 1.8 */
	ORCA_CMD_SET_CC			= 0x07,	/* 1.8 */
	ORCA_CMD_SET_ODP		= 0x08,	/* 1.10 */
	ORCA_CMD_CREATE_EQ		= 0x10,
	ORCA_CMD_DESTROY_EQ		= 0x11,
	ORCA_CMD_ALLOC_UAR		= 0x18,
	ORCA_CMD_DEALLOC_UAR		= 0x19,
	ORCA_CMD_CREATE_PD		= 0x20,
	ORCA_CMD_DESTROY_PD		= 0x21,
	ORCA_CMD_CREATE_CQ		= 0x28,
	ORCA_CMD_RESIZE_CQ		= 0x29,
	ORCA_CMD_DESTROY_CQ		= 0x2a,
	ORCA_CMD_QUERY_CQ		= 0x2b,	/* 1.2 */
	ORCA_CMD_MODIFY_CQ		= 0x2c,	/* 1.3 */
	ORCA_CMD_CREATE_MR		= 0x30,
	ORCA_CMD_DESTROY_MR		= 0x31,
	ORCA_CMD_MR_INSTALL		= 0x32,	/* 1.10 */
	ORCA_CMD_MR_INVALIDATE		= 0x33,	/* 1.10 */
	ORCA_CMD_CREATE_QP		= 0x38,
	ORCA_CMD_MODIFY_QP		= 0x39,
	ORCA_CMD_QUERY_QP		= 0x3a,
	ORCA_CMD_DESTROY_QP		= 0x3b,
	ORCA_CMD_CREATE_AH		= 0x40,
	ORCA_CMD_DESTROY_AH		= 0x41,
	ORCA_CMD_CREATE_SRQ		= 0x48,
	ORCA_CMD_MODIFY_SRQ		= 0x49,
	ORCA_CMD_QUERY_SRQ		= 0x4a,
	ORCA_CMD_DESTROY_SRQ		= 0x4b,
	ORCA_CMD_ALLOC_MW		= 0x50,	/* 1.4 */
	ORCA_CMD_DEALLOC_MW		= 0x51,	/* 1.4 */
	ORCA_CMD_ATTACH_MCAST		= 0x58,	/* 1.4 */
	ORCA_CMD_DETACH_MCAST		= 0x59,	/* 1.4 */
	ORCA_CMD_ALLOC_XRCD		= 0x5c,	/* 1.6 */
	ORCA_CMD_DEALLOC_XRCD		= 0x5d,	/* 1.6 */
	ORCA_CMD_MAX			= 0x5e,
};

/* Completion status, struct orca_cmd_comp.status. */
enum orca_cmd_status {
	ORCA_CMD_ST_OK			= 0x00,
	ORCA_CMD_ST_BAD_OPCODE		= 0x01,	/* unknown or unsupported */
	ORCA_CMD_ST_BAD_PARAM		= 0x02,	/* a field is out of range */
	ORCA_CMD_ST_BAD_HANDLE		= 0x03,	/* no such object */
	ORCA_CMD_ST_BAD_STATE		= 0x04,	/* not allowed in this state */
	ORCA_CMD_ST_NO_RESOURCES	= 0x05,	/* table or queue limit */
	ORCA_CMD_ST_BUSY		= 0x06,	/* object still referenced */
	ORCA_CMD_ST_DMA_ERROR		= 0x07,	/* address not mapped */
	ORCA_CMD_ST_BAD_LENGTH		= 0x08,	/* in_len/out_len too short */
	ORCA_CMD_ST_INTERNAL		= 0x09,
};

#define ORCA_CMD_F_EVENT		BIT(0)	/* post CMD_DONE on EQ 0 */
/* 1.1, ORCA_DEV_CAP_PGL_CHAIN: the page list at in_addr is a chunk chain. */
#define ORCA_CMD_F_IN_CHAIN		BIT(1)

/**
 * struct orca_cmd - one firmware command, 128 bytes
 * @opcode: enum orca_cmd_opcode
 * @flags: ORCA_CMD_F_*
 * @token: echoed in the completion; the driver's slot identifier
 * @rsvd0: reserved, zero
 * @in_len: bytes of indirect input at @in_addr (0: none)
 * @out_len: bytes the device may write at @out_addr (0: none)
 * @in_addr: DMA address of indirect input (page lists, large inputs)
 * @out_addr: DMA address of indirect output (query results)
 * @in: inline input, the command's struct orca_cmd_* layout
 */
struct orca_cmd {
	__le16 opcode;
	__le16 flags;
	__le16 token;
	__le16 rsvd0;
	__le32 in_len;
	__le32 out_len;
	__le64 in_addr;
	__le64 out_addr;
	u8 in[ORCA_CMD_INLINE_BYTES];
};

#define ORCA_CMD_COMP_PHASE		BIT(0)

/**
 * struct orca_cmd_comp - a command completion, 32 bytes
 * @token: the command's token
 * @status: enum orca_cmd_status
 * @flags: ORCA_CMD_COMP_PHASE; written last by the device
 * @syndrome: device-specific detail for a failure (which field was bad)
 * @out: inline output, the command's struct orca_cmd_*_out layout
 */
struct orca_cmd_comp {
	__le16 token;
	u8 status;
	u8 flags;
	__le32 syndrome;
	u8 out[ORCA_CMD_OUT_INLINE_BYTES];
};

/*
 * Page lists.  A queue or memory region larger than one page is described by
 * an array of __le64 page addresses at in_addr (in_len = 8 * npages), each
 * aligned to 1 << page_shift.  A single-page object may instead put its page
 * address in the inline field and set in_len = 0.
 */
#define ORCA_MIN_PAGE_SHIFT		12
#define ORCA_MAX_PAGE_SHIFT		30

/*
 * Chained page lists (1.1, ORCA_DEV_CAP_PGL_CHAIN): a list of any length in
 * 4 KiB chunks, none of which needs to be next to another.  A chunk is
 * 4096-byte aligned and holds ORCA_PGL_CHUNK_ENTRIES entries of the list,
 * then the DMA address of the next chunk in its last 8 bytes.  Entry k is
 * entry k % ORCA_PGL_CHUNK_ENTRIES of chunk k / ORCA_PGL_CHUNK_ENTRIES; the
 * device reads only the chunks the list needs and ignores the last chunk's
 * next address.  Used by commands (ORCA_CMD_F_IN_CHAIN: in_addr is the
 * first chunk, in_len still 8 * entries) and by REG_MR work requests
 * (ORCA_WQE_F_PGL_CHAIN).
 */
#define ORCA_PGL_CHUNK_SIZE		4096
#define ORCA_PGL_CHUNK_ENTRIES		(ORCA_PGL_CHUNK_SIZE / 8 - 1)

/* QUERY_DEVICE: no input; output struct orca_dev_caps at out_addr. */
#define ORCA_DEV_CAP_RC			BIT(0)
#define ORCA_DEV_CAP_UD			BIT(1)
#define ORCA_DEV_CAP_SRQ		BIT(2)
#define ORCA_DEV_CAP_ATOMIC		BIT(3)
#define ORCA_DEV_CAP_FRWR		BIT(4)
#define ORCA_DEV_CAP_ROCE_V2		BIT(5)
/* 1.1: chained page lists (ORCA_CMD_F_IN_CHAIN, ORCA_WQE_F_PGL_CHAIN). */
#define ORCA_DEV_CAP_PGL_CHAIN		BIT(6)
/* 1.1: a REG_MR work request carries its page size (page_shift). */
#define ORCA_DEV_CAP_REG_MR_PGSZ	BIT(7)
/* 1.2: orca_dev_caps has hca_type and board_id (the identity strings). */
#define ORCA_DEV_CAP_IDENTITY		BIT(8)
/*
 * 1.3: CQ event moderation: MODIFY_CQ, and orca_dev_caps' max_cq_mod_count
 * and max_cq_mod_period are valid.
 */
#define ORCA_DEV_CAP_CQ_MODERATION	BIT(9)
/*
 * 1.4: memory windows: ALLOC_MW, DEALLOC_MW, the BIND_MW work request,
 * ORCA_ACCESS_MW_BIND, and orca_dev_caps' max_mw is valid.
 */
#define ORCA_DEV_CAP_MW			BIT(10)
/* 1.4: UC QPs (ORCA_QPT_UC). */
#define ORCA_DEV_CAP_UC			BIT(11)
/*
 * 1.4: UD multicast: ATTACH_MCAST and DETACH_MCAST, and orca_dev_caps'
 * max_mcast_grp and max_mcast_qp_attach are valid.
 */
#define ORCA_DEV_CAP_MCAST		BIT(12)
/*
 * 1.4: RDMA FLUSH (ORCA_WQE_FLUSH; MRs and QPs take the ORCA_ACCESS_FLUSH_*
 * rights) and RDMA ATOMIC WRITE (ORCA_WQE_ATOMIC_WRITE), IBA 1.5.
 */
#define ORCA_DEV_CAP_FLUSH		BIT(13)
#define ORCA_DEV_CAP_ATOMIC_WRITE	BIT(14)
/* 1.4: MODIFY_SRQ resizes an SRQ (ORCA_MODIFY_SRQ_F_RESIZE). */
#define ORCA_DEV_CAP_SRQ_RESIZE		BIT(15)
/*
 * 1.5: CREATE_SRQ takes ORCA_CREATE_SRQ_F_TAG: the CQE of such an SRQ's
 * WQE reports the WQE's tag (struct orca_recv_wqe_hdr) in wqe_idx.
 */
#define ORCA_DEV_CAP_SRQ_TAG		BIT(16)
/*
 * 1.6: XRC (IBA 1.2 Annex A14): ALLOC_XRCD and DEALLOC_XRCD, XRC SRQs
 * (ORCA_CREATE_SRQ_F_XRC), XRC initiator and target QPs (ORCA_QPT_XRC_INI,
 * ORCA_QPT_XRC_TGT), the XRC transport on the wire, and orca_dev_caps'
 * max_xrcd.
 */
#define ORCA_DEV_CAP_XRC		BIT(17)
/*
 * 1.8: congestion control: QUERY_CC and SET_CC read and set whether the
 * device sends ECN-capable packets, answers CE marks with CNPs and cuts a
 * QP's rate on a CNP (DCQCN), and DCQCN's parameters (struct
 * orca_cc_params).
 */
#define ORCA_DEV_CAP_CC			BIT(18)
/*
 * 1.10: on-demand paging: SET_ODP, MR_INSTALL, MR_INVALIDATE, CREATE_MR's
 * ORCA_MR_F_ON_DEMAND, the ORCA_EQE_PAGE_FAULT event and its fault
 * records, and orca_dev_caps' odp_* fields.
 */
#define ORCA_DEV_CAP_ODP		BIT(19)

/* orca_dev_caps.odp_caps (1.10) */
#define ORCA_ODP_CAP_IMPLICIT		BIT(0)	/* ORCA_MR_F_IMPLICIT */
/*
 * orca_dev_caps.odp_{rc,ud,xrc}_ops (1.10): the operations whose memory
 * may be on demand, bits as the IB core's enum ib_odp_transport_cap_bits.
 */
#define ORCA_ODP_OP_SEND		BIT(0)
#define ORCA_ODP_OP_RECV		BIT(1)
#define ORCA_ODP_OP_WRITE		BIT(2)
#define ORCA_ODP_OP_READ		BIT(3)
#define ORCA_ODP_OP_ATOMIC		BIT(4)
#define ORCA_ODP_OP_SRQ_RECV		BIT(5)
#define ORCA_ODP_OP_FLUSH		BIT(6)
#define ORCA_ODP_OP_ATOMIC_WRITE	BIT(7)

/* Size of struct orca_dev_caps in 1.0 and 1.1: the out_len it needs. */
#define ORCA_DEV_CAPS_V1_0_LEN		136
#define ORCA_DEV_HCA_TYPE_LEN		16
#define ORCA_DEV_BOARD_ID_LEN		64

struct orca_dev_caps {
	__le64 sys_image_guid;
	__le64 max_mr_size;
	__le64 page_size_cap;		/* bit n set: page size 1 << n ok */
	__le32 dev_caps;		/* ORCA_DEV_CAP_* */
	__le32 vendor_part_id;
	__le32 hw_rev;
	__le32 max_qp;
	__le32 max_qp_wr;
	__le32 max_send_sge;
	__le32 max_recv_sge;
	__le32 max_inline_data;
	__le32 max_cq;
	__le32 max_cqe;
	__le32 max_mr;
	__le32 max_pd;
	__le32 max_ah;
	__le32 max_srq;
	__le32 max_srq_wr;
	__le32 max_srq_sge;
	__le32 max_eq;
	__le32 max_eqe;
	__le32 max_uar;
	__le32 max_fast_reg_page_list_len;
	__le32 max_msg_size;
	__le32 gid_table_len;
	u8 max_qp_rd_atom;
	u8 max_qp_init_rd_atom;
	u8 num_ports;
	u8 local_ca_ack_delay;
	/* 1.3, valid with ORCA_DEV_CAP_CQ_MODERATION: MODIFY_CQ's limits. */
	__le16 max_cq_mod_count;	/* CQEs */
	__le16 max_cq_mod_period;	/* microseconds */
	__le32 max_mw;			/* 1.4, valid with ORCA_DEV_CAP_MW */
	/* 1.4, valid with ORCA_DEV_CAP_MCAST: ATTACH_MCAST's limits. */
	__le32 max_mcast_grp;		/* groups with a QP attached */
	__le32 max_mcast_qp_attach;	/* QPs attached to one group */
	__le32 max_xrcd;		/* 1.6, valid with ORCA_DEV_CAP_XRC */
	/* 1.2, valid with ORCA_DEV_CAP_IDENTITY: NUL-padded ASCII. */
	u8 hca_type[ORCA_DEV_HCA_TYPE_LEN];	/* adapter model */
	u8 board_id[ORCA_DEV_BOARD_ID_LEN];	/* board (PSID-like) */
	/* 1.10, valid with ORCA_DEV_CAP_ODP (commands.rst: SET_ODP). */
	__le32 odp_caps;		/* ORCA_ODP_CAP_* */
	__le32 odp_rc_ops;		/* ORCA_ODP_OP_* */
	__le32 odp_ud_ops;
	__le32 odp_xrc_ops;
	__le16 odp_max_faults;		/* largest SET_ODP max_faults */
	__le16 odp_max_install_pages;	/* largest MR_INSTALL npages */
	__le32 odp_fault_timeout_ms;	/* default and largest timeout */
	u8 odp_implicit_va_bits;	/* an implicit MR spans [0, 2^n) */
	u8 rsvd_odp[7];
};

/* Where the 1.10 fields start: what a 1.9 device writes at most. */
#define ORCA_DEV_CAPS_V1_9_LEN		216

/* QUERY_PORT: inline input port number (1); output struct orca_port_attr. */
struct orca_cmd_query_port {
	u8 port;
	u8 rsvd[7];
};

#define ORCA_PORT_STATE_DOWN		1
#define ORCA_PORT_STATE_ACTIVE		4

/* IB MTU encoding as in the IB spec: 1=256 ... 5=4096. */
struct orca_port_attr {
	u8 state;			/* ORCA_PORT_STATE_* (wire link) */
	u8 max_mtu;			/* largest IB MTU the port carries */
	u8 active_mtu;		/* IB MTU for the current eth MTU */
	u8 rsvd0;
	__le32 eth_mtu;			/* Ethernet payload MTU in use */
	u8 mac[6];
	__le16 gid_table_len;
	__le32 speed_mbps;
	__le32 rsvd1[3];
};

/* SET_PORT: the driver reports the Ethernet MTU of the paired netdev. */
struct orca_cmd_set_port {
	u8 port;
	u8 rsvd[3];
	__le32 eth_mtu;			/* 576 .. 9000 */
};

/*
 * QUERY_STATS: inline input struct orca_cmd_query_port; output struct
 * orca_port_stats at out_addr.  Free-running counters of the port's RoCE
 * engine, cleared only by a reset.
 */
struct orca_port_stats {
	__le64 tx_packets;		/* RoCE frames sent, loopback included */
	__le64 rx_packets;		/* RoCE frames received */
	__le64 loopback_packets;	/* of which never left the adapter */
	__le64 rx_drops;		/* frames dropped on receive, any reason */
	__le64 rx_bad_packets;		/* malformed, bad ICRC/P_Key/address */
	__le64 rx_qkey_drops;		/* UD/GSI Q_Key mismatch */
	__le64 rx_no_recv_wqe;		/* UD/GSI with no receive WQE */
	__le64 retransmits;		/* request packets sent again */
	__le64 retry_timeouts;		/* retransmission timer expiries */
	__le64 rnr_naks_rx;
	__le64 rnr_naks_tx;
	__le64 seq_naks_rx;
	__le64 seq_naks_tx;
	__le64 err_naks_rx;		/* invalid request/access/operational */
	__le64 err_naks_tx;
	__le64 acks_tx;
	__le64 dup_requests;		/* duplicate requests answered */
	__le64 cq_overruns;
	/* 1.4: the port's traffic, for the PMA (PortCounters(Extended)) */
	__le64 tx_bytes;		/* octets of tx_packets, Ethernet to ICRC */
	__le64 rx_bytes;		/* octets of rx_packets */
	__le64 tx_mcast_packets;	/* of tx_packets, to a multicast MAC */
	__le64 rx_mcast_packets;	/* of rx_packets, to a multicast MAC */
	/* 1.7: congestion notification (IBA A17.9), as mlx5 names them */
	__le64 np_ecn_marked_roce_packets;	/* CE-marked packets taken */
	__le64 np_cnp_sent;		/* CNPs sent for them */
	__le64 rp_cnp_handled;		/* CNPs that cut a QP's rate */
	__le64 rp_cnp_ignored;		/* CNPs not acted on */
	/* 1.9: priority flow control (802.1Qbb) */
	__le64 rx_pfc_frames;		/* PFC PAUSE frames the port took */
	__le64 rx_pfc_pause_transitions; /* a priority: sending -> paused */
	__le64 rx_pfc_pause_duration;	/* us paused, summed over priorities */
	/* 1.10: on-demand paging */
	__le64 odp_faults;		/* page faults posted */
	__le64 odp_fault_rnr_naks;	/* RNR NAKs for a fault (in rnr_naks_tx) */
	__le64 odp_fault_timeouts;	/* faults ended by fault_timeout_ms */
};

/*
 * QUERY_CC (1.8, ORCA_DEV_CAP_CC): no input; output struct orca_cc_params at
 * out_addr.  SET_CC: inline input struct orca_cc_params, every field (read,
 * change, write); a field out of its range (commands.rst) or a reserved
 * bit set fails it with BAD_PARAM and changes nothing.  A SET_CC applies to
 * every QP from its next packet on; a reset restores the defaults.  The
 * fields are named as mlx5 names its cc_params; data-path.rst says what
 * each one does.
 */
#define ORCA_CC_F_ECT			BIT(0)	/* packets but CNPs ECT(0) */
#define ORCA_CC_F_NP			BIT(1)	/* CNPs for CE-marked packets */
#define ORCA_CC_F_RP			BIT(2)	/* a CNP cuts its QP's rate */
#define ORCA_CC_FLAGS			(ORCA_CC_F_ECT | ORCA_CC_F_NP | ORCA_CC_F_RP)

/* SET_CC's ranges (commands.rst): the line rate, times, alpha's unit. */
#define ORCA_CC_LINE_MBPS		100000
#define ORCA_CC_MAX_US			1000000
#define ORCA_CC_MAX_THRESHOLD		255
#define ORCA_CC_MIN_BYTE_RESET		64
#define ORCA_CC_MAX_BYTE_RESET		BIT(30)
#define ORCA_CC_ALPHA_ONE		1024	/* alpha and g are in 1/1024ths */

struct orca_cc_params {
	__le32 flags;				/* ORCA_CC_F_* */
	__le32 np_min_time_between_cnps;	/* us, per QP */
	__le32 rp_max_rate;			/* Mb/s; 0: the line rate */
	__le32 rp_min_rate;			/* Mb/s */
	__le32 rp_ai_rate;			/* Mb/s per additive increase */
	__le32 rp_hai_rate;			/* Mb/s per hyper increase */
	__le32 rp_threshold;			/* fast recovery stages (F) */
	__le32 rp_time_reset;			/* us per timer increase */
	__le32 rp_byte_reset;			/* bytes per byte increase */
	__le32 rp_dce_tcp_g;			/* alpha's gain, 1/1024ths */
	__le32 rp_dce_tcp_rtt;			/* us per alpha update */
	__le32 rp_rate_reduce_monitor_period;	/* us: one cut per */
	__le32 rp_initial_alpha_value;		/* 1/1024ths */
	__le32 rsvd[3];
};

/* SET_GID: write or clear one GID table entry of a port. */
#define ORCA_GID_TYPE_ROCE_V1		1
#define ORCA_GID_TYPE_ROCE_V2		2

struct orca_cmd_set_gid {
	u8 port;
	u8 type;			/* 0: clear the entry; ORCA_GID_TYPE_* */
	__le16 index;
	u8 mac[6];			/* source MAC for this GID */
	__le16 vlan;			/* 0xffff: untagged */
	u8 gid[16];
};

/* CREATE_EQ: output eqn in out[0..3]. */
struct orca_cmd_create_eq {
	u8 log_depth;			/* entries = 1 << n */
	u8 page_shift;
	__le16 msix_vector;
	__le32 npages;
	__le64 page_addr;		/* single page when in_len == 0 */
};

struct orca_cmd_destroy_obj {
	__le32 handle;			/* eqn, pdn, cqn, ... */
	__le32 rsvd;
};

/* Generic output: the new object's handle. */
struct orca_cmd_handle_out {
	__le32 handle;
	__le32 rsvd;
};

/* ALLOC_UAR: output UAR index (page in BAR 4). */

/* CREATE_PD: output pdn. */

/* CREATE_CQ: output cqn. */
struct orca_cmd_create_cq {
	u8 log_depth;			/* CQEs = 1 << n */
	u8 page_shift;
	__le16 eqn;			/* completion EQ */
	__le32 npages;
	__le64 page_addr;		/* single page when in_len == 0 */
	__le64 db_rec_addr;		/* struct orca_cq_db_rec */
	__le32 uar;			/* UAR index the CQ's wakeups use */
	__le32 rsvd;
};

/* RESIZE_CQ: same fields as CREATE_CQ plus the cqn. */
struct orca_cmd_resize_cq {
	__le32 cqn;
	u8 log_depth;
	u8 page_shift;
	__le16 rsvd;
	__le32 npages;
	__le32 rsvd1;
	__le64 page_addr;
};

/*
 * QUERY_CQ (1.2): inline input the cqn (struct orca_cmd_destroy_obj);
 * output struct orca_cq_attr at out_addr, the adapter's view of the CQ.
 */
#define ORCA_CQ_ATTR_F_ARMED		BIT(0)	/* an arm is pending */
#define ORCA_CQ_ATTR_F_OVERRUN		BIT(1)	/* CQ_ERR was reported */

/*
 * MODIFY_CQ (1.3, ORCA_DEV_CAP_CQ_MODERATION): the CQ's event moderation.
 * An armed CQ posts its COMP event once @count matching CQEs accumulated
 * since the device saw the arm, or @period microseconds after the first
 * of them, whichever comes first.  @count or @period 0: no moderation,
 * an event for the first matching CQE (the 1.0 behaviour).
 */
struct orca_cmd_modify_cq {
	__le32 cqn;
	__le16 count;			/* CQEs, <= max_cq_mod_count */
	__le16 period;			/* microseconds, <= max_cq_mod_period */
	__le32 rsvd[2];
};

struct orca_cq_attr {
	__le32 cqn;
	__le32 eqn;			/* completion EQ */
	__le32 pi;			/* CQEs written, free-running */
	__le32 ci;			/* doorbell record ci, read now */
	__le32 arm;			/* doorbell record arm word, read now */
	__le32 arm_fired;		/* ORCA_CQ_ARM_SEQ of the last event */
	__le32 overruns;		/* CQEs the CQ had no room for */
	u8 log_depth;
	u8 flags;			/* ORCA_CQ_ATTR_F_* */
	__le16 rsvd0;
	__le32 rsvd[4];
};

/*
 * Memory access rights: bits 3:0 as in IB; the FLUSH rights (1.4,
 * ORCA_DEV_CAP_FLUSH) are not IB's bit numbers.
 */
#define ORCA_ACCESS_LOCAL_WRITE		BIT(0)
#define ORCA_ACCESS_REMOTE_WRITE	BIT(1)
#define ORCA_ACCESS_REMOTE_READ		BIT(2)
#define ORCA_ACCESS_REMOTE_ATOMIC	BIT(3)
/* 1.4, ORCA_DEV_CAP_MW: memory windows may be bound to the MR. */
#define ORCA_ACCESS_MW_BIND		BIT(4)
#define ORCA_ACCESS_FLUSH_GLOBAL	BIT(5)	/* 1.4 */
#define ORCA_ACCESS_FLUSH_PERSISTENT	BIT(6)	/* 1.4 */
#define ORCA_ACCESS_ALL			GENMASK(6, 0)
/* A QP's rights: MW bind is a right of MRs only. */
#define ORCA_QP_ACCESS_ALL		(ORCA_ACCESS_ALL & ~ORCA_ACCESS_MW_BIND)

#define ORCA_MR_F_PHYS			BIT(0)	/* all memory, iova = DMA addr */
#define ORCA_MR_F_FAST_REG		BIT(1)	/* keys only; REG_MR WQE maps */
/*
 * 1.10, ORCA_DEV_CAP_ODP: an on-demand MR, its translations installed by
 * MR_INSTALL (none at first: npages and in_len are 0) and removed by
 * MR_INVALIDATE; page_shift is the translation size.  IMPLICIT (only with
 * ON_DEMAND and ORCA_ODP_CAP_IMPLICIT): iova, length and npages are 0 and
 * the MR spans [0, 2^odp_implicit_va_bits).
 */
#define ORCA_MR_F_ON_DEMAND		BIT(2)
#define ORCA_MR_F_IMPLICIT		BIT(3)

/*
 * CREATE_MR: output struct orca_cmd_create_mr_out.  A page-list MR gives
 * npages addresses at in_addr; a FAST_REG MR reserves max_pages and starts
 * in the free (invalid) state.  The key is the low 8 bits of lkey/rkey; the
 * upper 24 bits are the MR index.
 */
struct orca_cmd_create_mr {
	__le32 pdn;
	__le32 access;			/* ORCA_ACCESS_* */
	__le32 flags;			/* ORCA_MR_F_* */
	u8 page_shift;
	u8 key;			/* initial key byte */
	__le16 rsvd;
	__le64 iova;
	__le64 length;
	__le32 npages;			/* or max_pages for FAST_REG */
	__le32 rsvd1;
};

#define ORCA_MKEY_KEY			GENMASK(7, 0)
#define ORCA_MKEY_INDEX			GENMASK(31, 8)

struct orca_cmd_create_mr_out {
	__le32 lkey;
	__le32 rkey;
};

/*
 * On-demand paging (1.10, ORCA_DEV_CAP_ODP; commands.rst "SET_ODP",
 * data-path.rst "On-demand paging").
 *
 * SET_ODP: inline struct orca_cmd_set_odp.  The device writes a struct
 * orca_page_fault into slot (token & 0xffff) of the table at fault_table,
 * then posts ORCA_EQE_PAGE_FAULT on EQ 0 (subtype: kind, data: token,
 * data2: qpn).  At most max_faults are outstanding; fault_timeout_ms 0 is
 * the device's odp_fault_timeout_ms.
 */
struct orca_cmd_set_odp {
	__le64 fault_table;		/* max_faults records, 64-byte aligned */
	__le16 max_faults;		/* 1 .. odp_max_faults */
	__le16 rsvd;
	__le32 fault_timeout_ms;	/* 0, or 100 .. odp_fault_timeout_ms */
};

/* orca_page_fault.kind: where the stopped step was (also the EQE subtype) */
enum orca_page_fault_kind {
	ORCA_PF_REQ_DATA		= 1,	/* a send WQE's payload */
	ORCA_PF_REQ_RESP		= 2,	/* a READ response or atomic result */
	ORCA_PF_RESP_RECV		= 3,	/* a receive WQE's buffer */
	ORCA_PF_RESP_WRITE		= 4,	/* an incoming WRITE */
	ORCA_PF_RESP_READ		= 5,	/* an incoming READ */
	ORCA_PF_RESP_ATOMIC		= 6,	/* an incoming atomic */
};

#define ORCA_PF_F_WRITE			BIT(0)	/* write access needed */
#define ORCA_PF_F_RNR			BIT(1)	/* the peer was RNR-NAKed */

#define ORCA_PF_TOKEN_SLOT		GENMASK(15, 0)
#define ORCA_PF_TOKEN_GEN		GENMASK(31, 16)	/* never 0 */

struct orca_page_fault {
	__le32 token;
	u8 kind;			/* enum orca_page_fault_kind */
	u8 flags;			/* ORCA_PF_F_* */
	__le16 rsvd0;
	__le32 qpn;			/* the stopped QP */
	__le32 mkey;			/* the MR's lkey */
	__le64 va;			/* first byte needed, MR (iova) address */
	__le32 length;			/* bytes needed from va */
	__le32 prefetch;		/* hint: bytes after va + length */
	__le32 wqe_idx;			/* send or receive WQE index, or 0 */
	__le32 psn;			/* responder: the PSN RNR-NAKed */
	u8 rsvd1[24];
};

/*
 * MR_INSTALL: inline struct orca_cmd_mr_install; npages entries at in_addr
 * (ORCA_CMD_F_IN_CHAIN allowed), each ORCA_XLT_ADDR | ORCA_XLT_READ, plus
 * ORCA_XLT_WRITE if writable, or 0 (not present), for consecutive pages of
 * the MR from va.  RESUME then resumes fault token; FAIL (npages 0) ends it
 * unresolved.  Output struct orca_cmd_mr_install_out.
 */
#define ORCA_MR_INSTALL_F_RESUME	BIT(0)
#define ORCA_MR_INSTALL_F_FAIL		BIT(1)

#define ORCA_XLT_READ			BIT_ULL(0)
#define ORCA_XLT_WRITE			BIT_ULL(1)
#define ORCA_XLT_ADDR			GENMASK_ULL(63, 12)

struct orca_cmd_mr_install {
	__le32 lkey;			/* the MR; with npages 0, ignored */
	__le32 flags;			/* ORCA_MR_INSTALL_F_* */
	__le32 token;			/* with RESUME or FAIL */
	__le32 npages;			/* 0 .. odp_max_install_pages */
	__le64 va;			/* MR address, page aligned */
	__le64 rsvd;
};

struct orca_cmd_mr_install_out {
	u8 resumed;			/* 0: the token was stale */
	u8 rsvd[7];
};

/*
 * MR_INVALIDATE: inline struct orca_cmd_mr_invalidate.  Removes the MR's
 * translations for [va, va + length) (all of them with ALL) and completes
 * only when no access through them is in progress or can begin.
 */
#define ORCA_MR_INVAL_F_ALL		BIT(0)

struct orca_cmd_mr_invalidate {
	__le32 lkey;
	__le32 flags;			/* ORCA_MR_INVAL_F_* */
	__le64 va;			/* page aligned */
	__le64 length;			/* a multiple of the page size */
};

/*
 * ALLOC_MW (1.4, ORCA_DEV_CAP_MW): a memory window of the PD, output
 * struct orca_cmd_alloc_mw_out.  Its rkey is index << 8 | key, from the
 * same index space as the MRs' keys.  A type 1 window starts bound to
 * nothing (valid, zero length), a type 2 window free; BIND_MW work
 * requests bind both.  DEALLOC_MW takes struct orca_cmd_destroy_obj with
 * the rkey (its key byte is not checked) and unbinds a bound window.
 */
#define ORCA_MW_TYPE_1			1
#define ORCA_MW_TYPE_2			2

struct orca_cmd_alloc_mw {
	__le32 pdn;
	u8 type;			/* ORCA_MW_TYPE_* */
	u8 key;				/* initial key byte */
	__le16 rsvd;
};

struct orca_cmd_alloc_mw_out {
	__le32 rkey;
	__le32 rsvd;
};

/*
 * ALLOC_XRCD (1.6, ORCA_DEV_CAP_XRC): an XRC domain, no input, output its
 * handle xrcdn (from 1).  XRC SRQs and XRC target QPs are created in a
 * domain; an XRC target QP takes a message only for an XRC SRQ of its own
 * domain.  DEALLOC_XRCD takes struct orca_cmd_destroy_obj with the xrcdn:
 * BUSY while an SRQ or QP of the domain exists.
 */

/*
 * QP types.  XRC (1.6, ORCA_DEV_CAP_XRC), numbered as enum ib_qp_type:
 *   ORCA_QPT_XRC_INI  an initiator: an RC send queue whose requests carry
 *                     the XRCETH, naming the XRC SRQ of the target side
 *                     (the send WQE's dest_qpn); no receive queue, no SRQ,
 *                     recv_cqn 0;
 *   ORCA_QPT_XRC_TGT  a target in the domain xrcdn: no rings, no CQs, no
 *                     PD, no doorbell record (all 0); the messages it
 *                     takes consume WQEs of the XRC SRQ their XRCETH names
 *                     and complete on that SRQ's CQ, and their memory
 *                     accesses are checked against that SRQ's PD.
 */
#define ORCA_QPT_RC			2
#define ORCA_QPT_UC			3	/* 1.4, ORCA_DEV_CAP_UC */
#define ORCA_QPT_UD			4
#define ORCA_QPT_GSI			5	/* QP1; qpn is always 1 */
#define ORCA_QPT_XRC_INI		9	/* 1.6 */
#define ORCA_QPT_XRC_TGT		10	/* 1.6 */

#define ORCA_QP_F_SQ_SIG_ALL		BIT(0)
#define ORCA_QP_F_USE_SRQ		BIT(1)

/*
 * CREATE_QP: the SQ and RQ buffers are one page list at in_addr: first
 * sq_npages entries, then rq_npages.  Output qpn.
 */
struct orca_cmd_create_qp {
	u8 qp_type;			/* ORCA_QPT_* */
	u8 page_shift;
	u8 log_sq_depth;		/* send WQEs = 1 << n */
	u8 log_rq_depth;		/* recv WQEs = 1 << n; 0 with SRQ */
	__le32 flags;			/* ORCA_QP_F_* */
	__le32 pdn;
	__le32 send_cqn;
	__le32 recv_cqn;
	__le32 srqn;
	u8 max_send_sge;
	u8 max_recv_sge;
	__le16 max_inline_data;
	__le32 sq_npages;
	__le32 rq_npages;
	__le32 uar;
	__le64 db_rec_addr;		/* struct orca_qp_db_rec */
	__le32 xrcdn;			/* 1.6, ORCA_QPT_XRC_TGT; else 0 */
	__le32 rsvd;
};

/* QP states, numbered as enum ib_qp_state. */
enum orca_qp_state {
	ORCA_QPS_RESET	= 0,
	ORCA_QPS_INIT	= 1,
	ORCA_QPS_RTR	= 2,
	ORCA_QPS_RTS	= 3,
	ORCA_QPS_SQD	= 4,
	ORCA_QPS_SQE	= 5,
	ORCA_QPS_ERR	= 6,
};

/* MODIFY_QP attribute mask, numbered as enum ib_qp_attr_mask. */
#define ORCA_QP_ATTR_STATE		BIT(0)
#define ORCA_QP_ATTR_CUR_STATE		BIT(1)
#define ORCA_QP_ATTR_EN_SQD_ASYNC	BIT(2)
#define ORCA_QP_ATTR_ACCESS_FLAGS	BIT(3)
#define ORCA_QP_ATTR_PKEY_INDEX		BIT(4)
#define ORCA_QP_ATTR_PORT		BIT(5)
#define ORCA_QP_ATTR_QKEY		BIT(6)
#define ORCA_QP_ATTR_AV			BIT(7)
#define ORCA_QP_ATTR_PATH_MTU		BIT(8)
#define ORCA_QP_ATTR_TIMEOUT		BIT(9)
#define ORCA_QP_ATTR_RETRY_CNT		BIT(10)
#define ORCA_QP_ATTR_RNR_RETRY		BIT(11)
#define ORCA_QP_ATTR_RQ_PSN		BIT(12)
#define ORCA_QP_ATTR_MAX_QP_RD_ATOMIC	BIT(13)
#define ORCA_QP_ATTR_ALT_PATH		BIT(14)
#define ORCA_QP_ATTR_MIN_RNR_TIMER	BIT(15)
#define ORCA_QP_ATTR_SQ_PSN		BIT(16)
#define ORCA_QP_ATTR_MAX_DEST_RD_ATOMIC	BIT(17)
#define ORCA_QP_ATTR_PATH_MIG_STATE	BIT(18)
#define ORCA_QP_ATTR_CAP		BIT(19)
#define ORCA_QP_ATTR_DEST_QPN		BIT(20)
#define ORCA_QP_ATTR_SUPPORTED		(GENMASK(13, 0) | BIT(15) | BIT(16) | \
					 BIT(17) | BIT(20))

/**
 * struct orca_av - address vector of a RoCE path (QP or AH)
 * @dgid: destination GID (IPv4-mapped for IPv4)
 * @dmac: destination MAC
 * @sgid_index: source GID table index; selects source IP, MAC and type
 * @hop_limit: IP TTL / hop limit
 * @traffic_class: IP TOS / traffic class
 * @rsvd: reserved, zero
 * @flow_label: IPv6 flow label (20 bits)
 */
struct orca_av {
	u8 dgid[16];
	u8 dmac[6];
	u8 sgid_index;
	u8 hop_limit;
	u8 traffic_class;
	u8 rsvd[3];
	__le32 flow_label;
};

/* MODIFY_QP input; QUERY_QP writes the same layout at out_addr. */
struct orca_qp_attr {
	__le32 qpn;
	__le32 attr_mask;		/* ORCA_QP_ATTR_*; QUERY: all valid */
	u8 qp_state;
	u8 cur_qp_state;
	u8 path_mtu;			/* IB MTU encoding */
	u8 timeout;			/* 4.096 us * 2^timeout; 0 = infinite */
	u8 retry_cnt;
	u8 rnr_retry;			/* 7 = infinite */
	u8 min_rnr_timer;
	u8 max_rd_atomic;
	u8 max_dest_rd_atomic;
	u8 port;
	__le16 pkey_index;
	__le32 qkey;
	__le32 access;			/* ORCA_ACCESS_* remote rights */
	__le32 rq_psn;			/* 24 bits */
	__le32 sq_psn;			/* 24 bits */
	__le32 dest_qpn;		/* 24 bits */
	struct orca_av av;
	u8 sq_draining;		/* QUERY only */
	u8 rsvd[7];
};

/* CREATE_AH: output ahn. */
struct orca_cmd_create_ah {
	__le32 pdn;
	__le32 rsvd;
	struct orca_av av;
};

/*
 * CREATE_SRQ: output srqn.  ORCA_CREATE_SRQ_F_TAG (1.5, with
 * ORCA_DEV_CAP_SRQ_TAG): each CQE names its WQE by the WQE's tag, not by
 * its index, so that a consumer can reuse the records of WQEs whose CQEs
 * were polled in any order.
 */
#define ORCA_CREATE_SRQ_F_TAG		BIT(0)
/*
 * ORCA_CREATE_SRQ_F_XRC (1.6, ORCA_DEV_CAP_XRC): an XRC SRQ of the domain
 * xrcdn, whose receive CQEs go to the CQ cqn (ORCA_CQE_F_XRC), for the
 * XRC target QPs of that domain; its pdn checks their memory accesses.
 */
#define ORCA_CREATE_SRQ_F_XRC		BIT(1)

struct orca_cmd_create_srq {
	__le32 pdn;
	__le32 cqn;			/* ORCA_CREATE_SRQ_F_XRC; else 0 */
	u8 log_depth;
	u8 page_shift;
	u8 max_sge;
	u8 flags;			/* 1.5: ORCA_CREATE_SRQ_F_*; else 0 */
	__le32 npages;
	__le32 limit;			/* SRQ_LIMIT event threshold, 0 off */
	__le32 uar;
	__le64 page_addr;		/* single page when in_len == 0 */
	__le64 db_rec_addr;		/* struct orca_srq_db_rec */
	__le32 xrcdn;			/* 1.6, ORCA_CREATE_SRQ_F_XRC; else 0 */
	__le32 rsvd1;
};

/*
 * MODIFY_SRQ: arm the limit; 1.4, with ORCA_DEV_CAP_SRQ_RESIZE and
 * ORCA_MODIFY_SRQ_F_RESIZE: move the SRQ to a new ring, its posted WQEs
 * kept at their indices.  QUERY_SRQ: output limit in out[0..3].
 */
#define ORCA_MODIFY_SRQ_F_RESIZE	BIT(0)	/* 1.4: the ring below */
#define ORCA_MODIFY_SRQ_F_KEEP_LIMIT	BIT(1)	/* 1.4: limit unchanged */

struct orca_cmd_modify_srq {
	__le32 srqn;
	__le32 limit;
	/* 1.4; zero in a 1.3 command (set the limit) */
	__le32 flags;			/* ORCA_MODIFY_SRQ_F_* */
	u8 log_depth;			/* RESIZE: the new ring */
	u8 page_shift;
	__le16 rsvd;
	__le32 npages;
	__le32 rsvd1;
	__le64 page_addr;		/* single page when in_len == 0 */
};

/*
 * ATTACH_MCAST, DETACH_MCAST (1.4, ORCA_DEV_CAP_MCAST): attach the UD QP
 * @qpn to the multicast group @mgid (an IPv6 multicast address, or an
 * IPv4-mapped one of 224.0.0.0/4), or detach it.
 */
struct orca_cmd_mcast {
	__le32 qpn;
	__le32 rsvd;
	u8 mgid[16];
};

static_assert(sizeof(struct orca_cmd) == 128, "orca_cmd");
static_assert(sizeof(struct orca_cmd_comp) == 32, "orca_cmd_comp");
static_assert(sizeof(struct orca_dev_caps) <= 256, "dev caps");
static_assert(sizeof(struct orca_dev_caps) == 248, "dev caps 1.10");
static_assert(offsetof(struct orca_dev_caps, odp_caps) ==
	      ORCA_DEV_CAPS_V1_9_LEN, "dev caps 1.9 length");
static_assert(sizeof(struct orca_cmd_set_odp) == 16, "set odp");
static_assert(sizeof(struct orca_page_fault) == 64, "page fault");
static_assert(sizeof(struct orca_cmd_mr_install) == 32, "mr install");
static_assert(sizeof(struct orca_cmd_mr_invalidate) == 24, "mr invalidate");
static_assert(sizeof(struct orca_cq_attr) == 48, "cq attr");
static_assert(sizeof(struct orca_cmd_modify_cq) == 16, "modify cq");
static_assert(sizeof(struct orca_cmd_mcast) == 24, "mcast");
static_assert(sizeof(struct orca_port_stats) == 256, "port stats");
static_assert(sizeof(struct orca_cc_params) == 64, "cc params");
static_assert(sizeof(struct orca_qp_attr) <= ORCA_CMD_INLINE_BYTES, "qp attr");
static_assert(sizeof(struct orca_cmd_create_qp) <= ORCA_CMD_INLINE_BYTES, "create qp");
static_assert(sizeof(struct orca_cmd_create_srq) <= ORCA_CMD_INLINE_BYTES, "create srq");
static_assert(sizeof(struct orca_cmd_modify_srq) == 32, "modify srq");

#endif /* _ORCA_CMDS_DEFS_H_ */

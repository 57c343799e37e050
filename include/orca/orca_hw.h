/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * ORCA adapter programming interface, version 1.
 *
 * This is the one definition of the adapter's registers, firmware command
 * interface, event queues and data-path formats.  The kernel driver
 * (drivers/infiniband/hw/orca), the rdma-core provider (providers/orca) and
 * the emulator (emulator/) all include this file; none of them keeps a copy
 * of any layout.  Documentation/orca/programming-interface.rst is the prose
 * form of the same contract and changes in the same commit.
 *
 * Everything the device reads or writes in host memory and every register is
 * little endian.  Field macros are GENMASK()/FIELD_PREP()/FIELD_GET() style;
 * outside the kernel this header provides equivalents when the includer has
 * none.
 */
#ifndef ORCA_HW_H
#define ORCA_HW_H

#ifdef __KERNEL__
#include <linux/bits.h>
#include <linux/bitfield.h>
#include <linux/build_bug.h>
#include <linux/types.h>
#else
#include <linux/types.h>
#include <assert.h>
#ifndef BIT
#define BIT(n) (1UL << (n))
#endif
#ifndef BIT_ULL
#define BIT_ULL(n) (1ULL << (n))
#endif
#ifndef GENMASK
#define GENMASK(h, l) \
	(((~0UL) << (l)) & (~0UL >> (8 * sizeof(unsigned long) - 1 - (h))))
#endif
#ifndef GENMASK_ULL
#define GENMASK_ULL(h, l) \
	(((~0ULL) << (l)) & (~0ULL >> (8 * sizeof(unsigned long long) - 1 - (h))))
#endif
#ifndef FIELD_PREP
#define FIELD_PREP(mask, val) \
	((((__typeof__(mask))(val)) << __builtin_ctzll(mask)) & (mask))
#endif
#ifndef FIELD_GET
#define FIELD_GET(mask, reg) \
	((__typeof__(mask))(((reg) & (mask)) >> __builtin_ctzll(mask)))
#endif
#endif

/* ------------------------------------------------------------------------
 * PCI identity
 * ------------------------------------------------------------------------
 */
#define ORCA_PCI_VENDOR_ID		0x1234	/* unassigned placeholder */
#define ORCA_PCI_DEVICE_ID		0x0dca
#define ORCA_PCI_SUBSYS_VENDOR_ID	0x1234
#define ORCA_PCI_SUBSYS_DEVICE_ID	0x0001
#define ORCA_PCI_REVISION		0x01
#define ORCA_PCI_CLASS			0x020000 /* Ethernet controller */

/* BARs: all 64-bit non-prefetchable memory BARs. */
#define ORCA_BAR_REGS			0	/* register file, 4 KiB */
#define ORCA_BAR_REGS_SIZE		0x1000
#define ORCA_BAR_MSIX			2	/* MSI-X table + PBA */
#define ORCA_BAR_MSIX_SIZE		0x1000
#define ORCA_MSIX_TABLE_OFFSET		0x0
#define ORCA_MSIX_PBA_OFFSET		0x800
#define ORCA_MAX_MSIX			64
#define ORCA_BAR_UAR			4	/* doorbell (UAR) pages */
#define ORCA_UAR_PAGE_SIZE		0x1000
#define ORCA_NUM_UARS			256
#define ORCA_BAR_UAR_SIZE		(ORCA_UAR_PAGE_SIZE * ORCA_NUM_UARS)

/* ------------------------------------------------------------------------
 * Register file (BAR 0).  32-bit registers; 64-bit addresses are written as
 * two 32-bit halves, low first.
 * ------------------------------------------------------------------------
 */
#define ORCA_REG_MAGIC			0x000	/* RO: ORCA_MAGIC */
#define ORCA_REG_IF_VERSION		0x004	/* RO: interface version */
#define ORCA_REG_FW_VERSION		0x008	/* RO: major.minor.patch */
#define ORCA_REG_DEV_STATUS		0x00c	/* RO: ORCA_STATUS_* */
#define ORCA_REG_FATAL_SYNDROME		0x010	/* RO: ORCA_FATAL_* */
#define ORCA_REG_HEARTBEAT		0x014	/* RO: counts up every 100 ms */
#define ORCA_REG_DEV_CTRL		0x018	/* RW: ORCA_CTRL_* */
#define ORCA_REG_CAPS			0x01c	/* RO: ORCA_CAPS_* */
#define ORCA_REG_CMD_TIMEOUT_MS		0x020	/* RO: command timeout */
#define ORCA_REG_RESET_TIMEOUT_MS	0x024	/* RO: reset/ready timeout */
#define ORCA_REG_CMDQ_BASE_LO		0x028	/* RW: command queue DMA base */
#define ORCA_REG_CMDQ_BASE_HI		0x02c
#define ORCA_REG_CMDQ_COMP_BASE_LO	0x030	/* RW: command completion queue */
#define ORCA_REG_CMDQ_COMP_BASE_HI	0x034
#define ORCA_REG_CMDQ_CFG		0x038	/* RW: ORCA_CMDQ_CFG_* */
#define ORCA_REG_CMDQ_DB		0x03c	/* WO: command producer index */
#define ORCA_REG_EQ_DB			0x040	/* WO: ORCA_EQ_DB_* */
#define ORCA_REG_PORT_MAC_LO		0x048	/* RO: port MAC bytes 0-3 */
#define ORCA_REG_PORT_MAC_HI		0x04c	/* RO: port MAC bytes 4-5 */

#define ORCA_MAGIC			0x4143524f	/* "ORCA" */

#define ORCA_IF_VERSION_MAJOR		GENMASK(31, 16)
#define ORCA_IF_VERSION_MINOR		GENMASK(15, 0)
#define ORCA_IF_MAJOR			1
#define ORCA_IF_MINOR			0

#define ORCA_FW_VERSION_MAJOR		GENMASK(31, 24)
#define ORCA_FW_VERSION_MINOR		GENMASK(23, 16)
#define ORCA_FW_VERSION_PATCH		GENMASK(15, 0)

#define ORCA_STATUS_READY		BIT(0)	/* reset done, registers usable */
#define ORCA_STATUS_CMDQ_ENABLED	BIT(1)	/* command queue is running */
#define ORCA_STATUS_FATAL		BIT(2)	/* see FATAL_SYNDROME; reset */

#define ORCA_FATAL_NONE			0
#define ORCA_FATAL_CMDQ_DMA		1	/* command queue DMA failed */
#define ORCA_FATAL_EQ_OVERFLOW		2	/* an event queue overflowed */
#define ORCA_FATAL_EQ_DMA		3	/* event queue DMA failed */
#define ORCA_FATAL_INTERNAL		4	/* engine error */

#define ORCA_CTRL_RESET			BIT(0)	/* write 1: full function reset */
#define ORCA_CTRL_CMDQ_ENABLE		BIT(1)	/* start the command queue */

#define ORCA_CAPS_NUM_MSIX		GENMASK(7, 0)
#define ORCA_CAPS_LOG_MAX_CMDQ		GENMASK(11, 8)

#define ORCA_CMDQ_CFG_LOG_DEPTH		GENMASK(3, 0)	/* entries = 1 << n */

/*
 * EQ doorbell: report the consumer index of an EQ and optionally re-arm its
 * interrupt.  The consumer index counts entries modulo 2^20.
 */
#define ORCA_EQ_DB_CI			GENMASK(19, 0)
#define ORCA_EQ_DB_ARM			BIT(23)
#define ORCA_EQ_DB_EQN			GENMASK(31, 24)

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
	ORCA_CMD_CREATE_EQ		= 0x10,
	ORCA_CMD_DESTROY_EQ		= 0x11,
	ORCA_CMD_ALLOC_UAR		= 0x18,
	ORCA_CMD_DEALLOC_UAR		= 0x19,
	ORCA_CMD_CREATE_PD		= 0x20,
	ORCA_CMD_DESTROY_PD		= 0x21,
	ORCA_CMD_CREATE_CQ		= 0x28,
	ORCA_CMD_RESIZE_CQ		= 0x29,
	ORCA_CMD_DESTROY_CQ		= 0x2a,
	ORCA_CMD_CREATE_MR		= 0x30,
	ORCA_CMD_DESTROY_MR		= 0x31,
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
	ORCA_CMD_MAX			= 0x4c,
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

/**
 * struct orca_cmd - one firmware command, 128 bytes
 * @opcode: enum orca_cmd_opcode
 * @flags: ORCA_CMD_F_*
 * @token: echoed in the completion; the driver's slot identifier
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
	__u8 in[ORCA_CMD_INLINE_BYTES];
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
	__u8 status;
	__u8 flags;
	__le32 syndrome;
	__u8 out[ORCA_CMD_OUT_INLINE_BYTES];
};

/*
 * Page lists.  A queue or memory region larger than one page is described by
 * an array of __le64 page addresses at in_addr (in_len = 8 * npages), each
 * aligned to 1 << page_shift.  A single-page object may instead put its page
 * address in the inline field and set in_len = 0.
 */
#define ORCA_MIN_PAGE_SHIFT		12
#define ORCA_MAX_PAGE_SHIFT		30

/* QUERY_DEVICE: no input; output struct orca_dev_caps at out_addr. */
#define ORCA_DEV_CAP_RC			BIT(0)
#define ORCA_DEV_CAP_UD			BIT(1)
#define ORCA_DEV_CAP_SRQ		BIT(2)
#define ORCA_DEV_CAP_ATOMIC		BIT(3)
#define ORCA_DEV_CAP_FRWR		BIT(4)
#define ORCA_DEV_CAP_ROCE_V2		BIT(5)

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
	__u8 max_qp_rd_atom;
	__u8 max_qp_init_rd_atom;
	__u8 num_ports;
	__u8 local_ca_ack_delay;
	__le32 rsvd[5];
};

/* QUERY_PORT: inline input port number (1); output struct orca_port_attr. */
struct orca_cmd_query_port {
	__u8 port;
	__u8 rsvd[7];
};

#define ORCA_PORT_STATE_DOWN		1
#define ORCA_PORT_STATE_ACTIVE		4

/* IB MTU encoding as in the IB spec: 1=256 ... 5=4096. */
struct orca_port_attr {
	__u8 state;			/* ORCA_PORT_STATE_* (wire link) */
	__u8 max_mtu;			/* largest IB MTU the port carries */
	__u8 active_mtu;		/* IB MTU for the current eth MTU */
	__u8 rsvd0;
	__le32 eth_mtu;			/* Ethernet payload MTU in use */
	__u8 mac[6];
	__le16 gid_table_len;
	__le32 speed_mbps;
	__le32 rsvd1[3];
};

/* SET_PORT: the driver reports the Ethernet MTU of the paired netdev. */
struct orca_cmd_set_port {
	__u8 port;
	__u8 rsvd[3];
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
	__le64 rsvd[14];
};

/* SET_GID: write or clear one GID table entry of a port. */
#define ORCA_GID_TYPE_ROCE_V1		1
#define ORCA_GID_TYPE_ROCE_V2		2

struct orca_cmd_set_gid {
	__u8 port;
	__u8 type;			/* 0: clear the entry; ORCA_GID_TYPE_* */
	__le16 index;
	__u8 mac[6];			/* source MAC for this GID */
	__le16 vlan;			/* 0xffff: untagged */
	__u8 gid[16];
};

/* CREATE_EQ: output eqn in out[0..3]. */
struct orca_cmd_create_eq {
	__u8 log_depth;			/* entries = 1 << n */
	__u8 page_shift;
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

/*
 * Completion/queue doorbell records.  Each CQ, QP and SRQ has a record in
 * host memory (8-byte aligned) that the driver updates instead of a trapped
 * register write; see Documentation.  The device reads the producer/consumer
 * indices from it and writes the event index; a trapped UAR write is only
 * needed to wake an idle engine (when the new index passes the event index).
 */
struct orca_cq_db_rec {
	__le32 ci;			/* driver: consumer index */
	__le32 arm;			/* driver: ORCA_CQ_ARM_* */
};

#define ORCA_CQ_ARM_SEQ			GENMASK(29, 0)	/* bumped per arm */
#define ORCA_CQ_ARM_SOLICITED		BIT(30)
#define ORCA_CQ_ARM_ANY			BIT(31)

struct orca_qp_db_rec {
	__le32 sq_pi;			/* driver: send producer index */
	__le32 rq_pi;			/* driver: receive producer index */
	__le32 sq_event_idx;		/* device: ring UAR when sq_pi passes */
	__le32 rq_event_idx;		/* device: ring UAR when rq_pi passes */
};

struct orca_srq_db_rec {
	__le32 pi;
	__le32 event_idx;
};

/* CREATE_CQ: output cqn. */
struct orca_cmd_create_cq {
	__u8 log_depth;			/* CQEs = 1 << n */
	__u8 page_shift;
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
	__u8 log_depth;
	__u8 page_shift;
	__le16 rsvd;
	__le32 npages;
	__le32 rsvd1;
	__le64 page_addr;
};

/* Memory access rights, as in IB. */
#define ORCA_ACCESS_LOCAL_WRITE		BIT(0)
#define ORCA_ACCESS_REMOTE_WRITE	BIT(1)
#define ORCA_ACCESS_REMOTE_READ		BIT(2)
#define ORCA_ACCESS_REMOTE_ATOMIC	BIT(3)
#define ORCA_ACCESS_ALL			GENMASK(3, 0)

#define ORCA_MR_F_PHYS			BIT(0)	/* all memory, iova = DMA addr */
#define ORCA_MR_F_FAST_REG		BIT(1)	/* keys only; REG_MR WQE maps */

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
	__u8 page_shift;
	__u8 key;			/* initial key byte */
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

/* QP types. */
#define ORCA_QPT_RC			2
#define ORCA_QPT_UD			4
#define ORCA_QPT_GSI			5	/* QP1; qpn is always 1 */

#define ORCA_QP_F_SQ_SIG_ALL		BIT(0)
#define ORCA_QP_F_USE_SRQ		BIT(1)

/*
 * CREATE_QP: the SQ and RQ buffers are one page list at in_addr: first
 * sq_npages entries, then rq_npages.  Output qpn.
 */
struct orca_cmd_create_qp {
	__u8 qp_type;			/* ORCA_QPT_* */
	__u8 page_shift;
	__u8 log_sq_depth;		/* send WQEs = 1 << n */
	__u8 log_rq_depth;		/* recv WQEs = 1 << n; 0 with SRQ */
	__le32 flags;			/* ORCA_QP_F_* */
	__le32 pdn;
	__le32 send_cqn;
	__le32 recv_cqn;
	__le32 srqn;
	__u8 max_send_sge;
	__u8 max_recv_sge;
	__le16 max_inline_data;
	__le32 sq_npages;
	__le32 rq_npages;
	__le32 uar;
	__le64 db_rec_addr;		/* struct orca_qp_db_rec */
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
 * @flow_label: IPv6 flow label (20 bits)
 */
struct orca_av {
	__u8 dgid[16];
	__u8 dmac[6];
	__u8 sgid_index;
	__u8 hop_limit;
	__u8 traffic_class;
	__u8 rsvd[3];
	__le32 flow_label;
};

/* MODIFY_QP input; QUERY_QP writes the same layout at out_addr. */
struct orca_qp_attr {
	__le32 qpn;
	__le32 attr_mask;		/* ORCA_QP_ATTR_*; QUERY: all valid */
	__u8 qp_state;
	__u8 cur_qp_state;
	__u8 path_mtu;			/* IB MTU encoding */
	__u8 timeout;			/* 4.096 us * 2^timeout; 0 = infinite */
	__u8 retry_cnt;
	__u8 rnr_retry;			/* 7 = infinite */
	__u8 min_rnr_timer;
	__u8 max_rd_atomic;
	__u8 max_dest_rd_atomic;
	__u8 port;
	__le16 pkey_index;
	__le32 qkey;
	__le32 access;			/* ORCA_ACCESS_* remote rights */
	__le32 rq_psn;			/* 24 bits */
	__le32 sq_psn;			/* 24 bits */
	__le32 dest_qpn;		/* 24 bits */
	struct orca_av av;
	__u8 sq_draining;		/* QUERY only */
	__u8 rsvd[7];
};

/* CREATE_AH: output ahn. */
struct orca_cmd_create_ah {
	__le32 pdn;
	__le32 rsvd;
	struct orca_av av;
};

/* CREATE_SRQ: output srqn. */
struct orca_cmd_create_srq {
	__le32 pdn;
	__le32 cqn;			/* reserved, 0 (no XRC) */
	__u8 log_depth;
	__u8 page_shift;
	__u8 max_sge;
	__u8 rsvd;
	__le32 npages;
	__le32 limit;			/* SRQ_LIMIT event threshold, 0 off */
	__le32 uar;
	__le64 page_addr;		/* single page when in_len == 0 */
	__le64 db_rec_addr;		/* struct orca_srq_db_rec */
};

/* MODIFY_SRQ: arm the limit.  QUERY_SRQ: output limit in out[0..3]. */
struct orca_cmd_modify_srq {
	__le32 srqn;
	__le32 limit;
};

/* ------------------------------------------------------------------------
 * Event queues
 *
 * A ring of 16-byte struct orca_eqe in host memory.  The device writes entry
 * (pi % depth) with the phase bit set to 1 on the first pass and toggled on
 * each wrap, then raises the EQ's MSI-X vector if the EQ is armed, and
 * disarms it.  The driver consumes entries while the phase matches, then
 * writes ORCA_REG_EQ_DB with the consumer index and ARM.  EQ 0 (the first EQ
 * created) carries async events and CMD_DONE; completion EQs carry COMP.
 * ------------------------------------------------------------------------
 */
enum orca_eqe_type {
	ORCA_EQE_COMP			= 0x01,	/* data: cqn */
	ORCA_EQE_CMD_DONE		= 0x02,	/* data: token */
	ORCA_EQE_PORT_CHANGE		= 0x10,	/* data: port */
	ORCA_EQE_QP_FATAL		= 0x11,	/* data: qpn */
	ORCA_EQE_QP_REQ_ERR		= 0x12,	/* data: qpn */
	ORCA_EQE_QP_ACCESS_ERR		= 0x13,	/* data: qpn */
	ORCA_EQE_QP_LAST_WQE		= 0x14,	/* data: qpn */
	ORCA_EQE_SQ_DRAINED		= 0x15,	/* data: qpn */
	ORCA_EQE_COMM_EST		= 0x16,	/* data: qpn */
	ORCA_EQE_CQ_ERR			= 0x18,	/* data: cqn */
	ORCA_EQE_SRQ_LIMIT		= 0x19,	/* data: srqn */
	ORCA_EQE_SRQ_ERR		= 0x1a,	/* data: srqn */
	ORCA_EQE_DEVICE_FATAL		= 0x1f,	/* data: fatal syndrome */
};

#define ORCA_EQE_PHASE			BIT(0)

struct orca_eqe {
	__u8 type;			/* enum orca_eqe_type */
	__u8 subtype;
	__le16 rsvd0;
	__le32 data;
	__le32 data2;
	__u8 rsvd1[3];
	__u8 flags;			/* ORCA_EQE_PHASE; written last */
};

/* ------------------------------------------------------------------------
 * Data path (the RoCEv2 transport fills these in)
 *
 * UAR page layout: a trapped 32-bit write wakes the engine for one queue.
 * ------------------------------------------------------------------------
 */
#define ORCA_UAR_SQ_DB			0x00	/* value: qpn */
#define ORCA_UAR_RQ_DB			0x04	/* value: qpn */
#define ORCA_UAR_SRQ_DB			0x08	/* value: srqn */
#define ORCA_UAR_CQ_DB			0x0c	/* value: cqn (arm changed) */

struct orca_sge {
	__le64 addr;
	__le32 length;
	__le32 lkey;
};

enum orca_wqe_opcode {
	ORCA_WQE_SEND			= 0x00,
	ORCA_WQE_SEND_IMM		= 0x01,
	ORCA_WQE_SEND_INV		= 0x02,
	ORCA_WQE_RDMA_WRITE		= 0x03,
	ORCA_WQE_RDMA_WRITE_IMM		= 0x04,
	ORCA_WQE_RDMA_READ		= 0x05,
	ORCA_WQE_ATOMIC_CS		= 0x06,
	ORCA_WQE_ATOMIC_FA		= 0x07,
	ORCA_WQE_LOCAL_INV		= 0x08,
	ORCA_WQE_REG_MR			= 0x09,
};

#define ORCA_WQE_F_SIGNALED		BIT(0)
#define ORCA_WQE_F_SOLICITED		BIT(1)
#define ORCA_WQE_F_FENCE		BIT(2)
#define ORCA_WQE_F_INLINE		BIT(3)

/*
 * WQE strides.  A send WQE is a 64-byte header followed by max_send_sge SGEs
 * (or inline data of the same size); a receive WQE is a 16-byte header and
 * max_recv_sge SGEs.  Both are padded to a power of two, at least the
 * minimum below; driver, provider and device compute the same stride from
 * the QP's max_*_sge with orca_send_wqe_stride()/orca_recv_wqe_stride().
 */
/*
 * Every queue (EQ, CQ, send, receive and shared receive queue) has at least
 * 1 << ORCA_MIN_LOG_DEPTH entries: a consumer asking for one entry gets two.
 */
#define ORCA_MIN_LOG_DEPTH		1

#define ORCA_SEND_WQE_MIN_STRIDE	128
#define ORCA_RECV_WQE_MIN_STRIDE	64
#define ORCA_MAX_SGE			16
/*
 * Inline data shares the SGE area of the stride, so a QP that wants N bytes
 * inline asks for max_send_sge >= DIV_ROUND_UP(N, sizeof(struct orca_sge)).
 */
#define ORCA_MAX_INLINE_DATA		(ORCA_MAX_SGE * 16)

struct orca_send_wqe_hdr {
	__u8 opcode;			/* enum orca_wqe_opcode */
	__u8 flags;			/* ORCA_WQE_F_* */
	__u8 num_sge;
	__u8 rsvd0;
	__le32 wr_id_lo;		/* not interpreted; echoed in the CQE */
	__le32 wr_id_hi;
	__le32 imm_or_inv;		/* immediate data or rkey to invalidate */
	__le64 remote_addr;		/* RDMA/atomic; REG_MR: iova */
	__le32 rkey;			/* RDMA/atomic; REG_MR: new key */
	__le32 length;			/* inline length; REG_MR: MR length */
	__le64 compare_add;		/* atomic; REG_MR: page list address */
	__le64 swap;			/* atomic; REG_MR: access | npages << 32 */
	__le32 ahn;			/* UD: address handle */
	__le32 dest_qpn;		/* UD */
	__le32 qkey;			/* UD */
	__le32 rsvd1;
};

struct orca_recv_wqe_hdr {
	__le32 wr_id_lo;
	__le32 wr_id_hi;
	__u8 num_sge;
	__u8 rsvd[7];
};

static inline __u32 orca_roundup_pow2(__u32 v)
{
	__u32 p = 1;

	while (p < v)
		p <<= 1;
	return p;
}

static inline __u32 orca_send_wqe_stride(__u32 max_send_sge)
{
	__u32 sz = sizeof(struct orca_send_wqe_hdr) +
		   max_send_sge * sizeof(struct orca_sge);

	return orca_roundup_pow2(sz < ORCA_SEND_WQE_MIN_STRIDE ?
				 ORCA_SEND_WQE_MIN_STRIDE : sz);
}

static inline __u32 orca_recv_wqe_stride(__u32 max_recv_sge)
{
	__u32 sz = sizeof(struct orca_recv_wqe_hdr) +
		   max_recv_sge * sizeof(struct orca_sge);

	return orca_roundup_pow2(sz < ORCA_RECV_WQE_MIN_STRIDE ?
				 ORCA_RECV_WQE_MIN_STRIDE : sz);
}

/*
 * RoCEv2 overhead subtracted from the Ethernet MTU before choosing the IB
 * MTU, as rxe does: 1500 -> 1024, 9000 -> 4096.
 */
#define ORCA_ROCE_HDR_OVERHEAD		80

/* CQE, 32 bytes, phase in the last byte. */
enum orca_cqe_opcode {
	ORCA_CQE_SEND			= 0x00,
	ORCA_CQE_RDMA_WRITE		= 0x01,
	ORCA_CQE_RDMA_READ		= 0x02,
	ORCA_CQE_COMP_SWAP		= 0x03,
	ORCA_CQE_FETCH_ADD		= 0x04,
	ORCA_CQE_LOCAL_INV		= 0x05,
	ORCA_CQE_REG_MR			= 0x06,
	ORCA_CQE_RECV			= 0x80,
	ORCA_CQE_RECV_RDMA_WITH_IMM	= 0x81,
};

/* CQE status, numbered as enum ib_wc_status. */
#define ORCA_CQE_ST_SUCCESS		0
#define ORCA_CQE_ST_LOC_LEN_ERR		1
#define ORCA_CQE_ST_LOC_QP_OP_ERR	2
#define ORCA_CQE_ST_LOC_PROT_ERR	4
#define ORCA_CQE_ST_WR_FLUSH_ERR	5
#define ORCA_CQE_ST_MW_BIND_ERR		6
#define ORCA_CQE_ST_BAD_RESP_ERR	7
#define ORCA_CQE_ST_LOC_ACCESS_ERR	8
#define ORCA_CQE_ST_REM_INV_REQ_ERR	9
#define ORCA_CQE_ST_REM_ACCESS_ERR	10
#define ORCA_CQE_ST_REM_OP_ERR		11
#define ORCA_CQE_ST_RETRY_EXC_ERR	12
#define ORCA_CQE_ST_RNR_RETRY_EXC_ERR	13
#define ORCA_CQE_ST_REM_ABORT_ERR	16
#define ORCA_CQE_ST_GENERAL_ERR		21

#define ORCA_CQE_F_PHASE		BIT(0)
#define ORCA_CQE_F_IMM			BIT(1)
#define ORCA_CQE_F_INV			BIT(2)
#define ORCA_CQE_F_GRH			BIT(3)
#define ORCA_CQE_F_IPV6			BIT(4)	/* GRH area holds IPv6 */

struct orca_cqe {
	__le32 wr_id_lo;
	__le32 wr_id_hi;
	__le32 qpn;
	__le32 byte_len;
	__le32 imm_or_inv;
	__le32 src_qpn;			/* UD */
	__u8 opcode;			/* enum orca_cqe_opcode */
	__u8 status;			/* ORCA_CQE_ST_* */
	__le16 wqe_idx;
	__u8 rsvd[3];
	__u8 flags;			/* ORCA_CQE_F_*; written last */
};

static_assert(sizeof(struct orca_cmd) == 128, "orca_cmd");
static_assert(sizeof(struct orca_cmd_comp) == 32, "orca_cmd_comp");
static_assert(sizeof(struct orca_eqe) == 16, "orca_eqe");
static_assert(sizeof(struct orca_cqe) == 32, "orca_cqe");
static_assert(sizeof(struct orca_send_wqe_hdr) == 64, "send wqe hdr");
static_assert(sizeof(struct orca_recv_wqe_hdr) == 16, "recv wqe hdr");
static_assert(sizeof(struct orca_dev_caps) <= 256, "dev caps");
static_assert(sizeof(struct orca_port_stats) == 256, "port stats");
static_assert(sizeof(struct orca_qp_attr) <= ORCA_CMD_INLINE_BYTES, "qp attr");
static_assert(sizeof(struct orca_cmd_create_qp) <= ORCA_CMD_INLINE_BYTES, "create qp");
static_assert(sizeof(struct orca_cmd_create_srq) <= ORCA_CMD_INLINE_BYTES, "create srq");

#endif /* ORCA_HW_H */

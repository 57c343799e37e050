/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * ORCA PCI identity, BAR layout and register file (BAR 0).
 *
 * Part of the ORCA adapter programming interface, version 1, the one
 * definition of its layouts.  The driver includes it directly; the adapter's
 * emulator and the rdma-core provider include this very file through a
 * small header of their own that supplies the kernel types and macros it
 * uses (u8..u64, __le16..__le64, BIT, GENMASK, FIELD_PREP/FIELD_GET,
 * static_assert), so it includes nothing itself.  Everything the device
 * reads or writes, and every register, is little endian.
 */
#ifndef _ORCA_REGS_DEFS_H_
#define _ORCA_REGS_DEFS_H_

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
/* Since 1.2, with ORCA_CAPS_DUMP: the diagnostic dump window. */
#define ORCA_REG_DUMP_CTRL		0x050	/* RW: ORCA_DUMP_CTRL_* */
#define ORCA_REG_DUMP_LEN		0x054	/* RO: bytes of the snapshot */
#define ORCA_REG_DUMP_OFFSET		0x058	/* RW: byte offset DUMP_DATA reads */
#define ORCA_REG_DUMP_DATA		0x05c	/* RO: snapshot word at DUMP_OFFSET */

#define ORCA_MAGIC			0x4143524f	/* "ORCA" */

#define ORCA_IF_VERSION_MAJOR		GENMASK(31, 16)
#define ORCA_IF_VERSION_MINOR		GENMASK(15, 0)
#define ORCA_IF_MAJOR			1
#define ORCA_IF_MINOR			10

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
#define ORCA_CAPS_DUMP			BIT(12)	/* 1.2: the dump window */

#define ORCA_CMDQ_CFG_LOG_DEPTH		GENMASK(3, 0)	/* entries = 1 << n */

/*
 * EQ doorbell: report the consumer index of an EQ and optionally re-arm its
 * interrupt.  The consumer index counts entries modulo 2^20.
 */
#define ORCA_EQ_DB_CI			GENMASK(19, 0)
#define ORCA_EQ_DB_ARM			BIT(23)
#define ORCA_EQ_DB_EQN			GENMASK(31, 24)

/* ------------------------------------------------------------------------
 * Diagnostic dump (interface 1.2, ORCA_CAPS_DUMP).  Writing
 * ORCA_DUMP_CTRL_SNAPSHOT to ORCA_REG_DUMP_CTRL makes the adapter capture
 * its state into a snapshot of its own memory; ORCA_DUMP_CTRL_BUSY reads 1
 * until it is complete.  The driver then reads it one 32-bit word at a time:
 * the byte offset into ORCA_REG_DUMP_OFFSET, the word from
 * ORCA_REG_DUMP_DATA.  No DMA is involved, so this works in the FATAL state,
 * with the command queue stopped and with bus mastering off.
 *
 * The snapshot is struct orca_dump_hdr followed by records, each starting
 * with struct orca_dump_rec; a reader skips records of a type it does not
 * know by their length.  All fields are little endian.
 * ------------------------------------------------------------------------
 */
#define ORCA_DUMP_CTRL_SNAPSHOT		BIT(0)	/* write 1: take a snapshot */
#define ORCA_DUMP_CTRL_BUSY		BIT(31)	/* reads 1 while taking it */

#define ORCA_DUMP_MAGIC			0x504d444f	/* "ODMP" */
#define ORCA_DUMP_VERSION		1
#define ORCA_DUMP_MAX_BYTES		16384	/* ORCA_REG_DUMP_LEN never more */
#define ORCA_DUMP_MAX_QPS		64	/* QP records: the first N QPs */

/**
 * struct orca_dump_hdr - the start of a snapshot
 * @magic: ORCA_DUMP_MAGIC
 * @version: ORCA_DUMP_VERSION
 * @hdr_len: bytes of this header; the first record follows it
 * @length: bytes of the snapshot, this header included (= ORCA_REG_DUMP_LEN)
 * @num_records: records after the header
 * @fw_version: ORCA_REG_FW_VERSION
 * @dev_status: ORCA_REG_DEV_STATUS when the snapshot was taken
 * @fatal_syndrome: ORCA_REG_FATAL_SYNDROME then
 * @heartbeat: ORCA_REG_HEARTBEAT then
 * @cmdq_pi: the command producer index of the last ORCA_REG_CMDQ_DB write
 * @cmdq_ci: the index of the next command the adapter would execute
 * @last_cmd_opcode: opcode of the last command executed (0 if none)
 * @last_cmd_status: its enum orca_cmd_status
 * @cmdq_log_depth: log2 of the running command queue's depth (0: none)
 * @cmds: commands executed since power-on
 * @events: event queue entries written since power-on
 * @resets: function resets since power-on
 */
struct orca_dump_hdr {
	__le32 magic;
	__le16 version;
	__le16 hdr_len;
	__le32 length;
	__le32 num_records;
	__le32 fw_version;
	__le32 dev_status;
	__le32 fatal_syndrome;
	__le32 heartbeat;
	__le16 cmdq_pi;
	__le16 cmdq_ci;
	__le16 last_cmd_opcode;
	u8 last_cmd_status;
	u8 cmdq_log_depth;
	__le64 cmds;
	__le64 events;
	__le64 resets;
};

enum orca_dump_rec_type {
	ORCA_DUMP_REC_OBJECTS	= 1,	/* struct orca_dump_objects, once */
	ORCA_DUMP_REC_EQ	= 2,	/* struct orca_dump_eq, one per EQ */
	ORCA_DUMP_REC_QP	= 3,	/* struct orca_dump_qp, first N QPs */
	ORCA_DUMP_REC_PORT	= 4,	/* struct orca_dump_port, once */
};

/**
 * struct orca_dump_rec - the start of every record
 * @type: enum orca_dump_rec_type
 * @len: bytes of the record, this header included; a multiple of 8
 * @rsvd: 0
 */
struct orca_dump_rec {
	__le16 type;
	__le16 len;
	__le32 rsvd;
};

/* Live objects of each kind and the adapter memory they hold. */
struct orca_dump_objects {
	struct orca_dump_rec rec;
	__le32 eqs;
	__le32 uars;
	__le32 pds;
	__le32 cqs;
	__le32 mrs;
	__le32 qps;			/* QP 1 (GSI) included */
	__le32 ahs;
	__le32 srqs;
	__le64 mem_used;		/* bytes of the device memory budget */
};

/* An event queue: its indices as the adapter sees them. */
struct orca_dump_eq {
	struct orca_dump_rec rec;
	__le32 eqn;
	__le32 pi;			/* entries written, free running */
	__le32 ci;			/* last ORCA_REG_EQ_DB consumer index */
	__le16 vector;
	u8 log_depth;
	u8 armed;			/* the next entry raises the vector */
	__le32 cqs;			/* CQs bound to it */
	__le32 rsvd;
};

/* A QP: its state and the work it consumed. */
struct orca_dump_qp {
	struct orca_dump_rec rec;
	__le32 qpn;
	u8 type;			/* ORCA_QPT_* */
	u8 state;			/* enum orca_qp_state */
	__le16 rsvd;
	__le32 send_cqn;
	__le32 recv_cqn;
	__le32 srqn;			/* with ORCA_QP_F_USE_SRQ; else 0 */
	__le32 sq_ci;			/* send WQEs consumed */
	__le32 rq_ci;			/* receive WQEs consumed */
	__le32 rsvd2;
};

/* The port's link and the main RoCE counters (QUERY_STATS has them all). */
struct orca_dump_port {
	struct orca_dump_rec rec;
	u8 link_up;
	u8 active_mtu;			/* IB MTU enum */
	__le16 rsvd;
	__le32 eth_mtu;
	__le64 tx_packets;
	__le64 rx_packets;
	__le64 rx_drops;
	__le64 retransmits;
	__le64 retry_timeouts;
	__le64 cq_overruns;
};

static_assert(sizeof(struct orca_dump_hdr) == 64, "dump header");
static_assert(sizeof(struct orca_dump_rec) == 8, "dump record");
static_assert(sizeof(struct orca_dump_objects) == 48, "dump objects");
static_assert(sizeof(struct orca_dump_eq) == 32, "dump eq");
static_assert(sizeof(struct orca_dump_qp) == 40, "dump qp");
static_assert(sizeof(struct orca_dump_port) == 64, "dump port");

#endif /* _ORCA_REGS_DEFS_H_ */

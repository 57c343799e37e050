/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * ORCA data path: doorbell records, event queue entries, UAR doorbells,
 * work queue entries and completion queue entries.
 *
 * Part of the ORCA adapter programming interface, version 1, the one
 * definition of its layouts.  The driver includes it directly; the adapter's
 * emulator and the rdma-core provider include this very file through a
 * small header of their own that supplies the kernel types and macros it
 * uses (u8..u64, __le16..__le64, BIT, GENMASK, FIELD_PREP/FIELD_GET,
 * static_assert), so it includes nothing itself.  Everything the device
 * reads or writes, and every register, is little endian.
 */
#ifndef _ORCA_IO_DEFS_H_
#define _ORCA_IO_DEFS_H_

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
	/* 1.10: subtype: kind, data: token, data2: qpn (struct orca_page_fault) */
	ORCA_EQE_PAGE_FAULT		= 0x20,
};

#define ORCA_EQE_PHASE			BIT(0)

struct orca_eqe {
	u8 type;			/* enum orca_eqe_type */
	u8 subtype;
	__le16 rsvd0;
	__le32 data;
	__le32 data2;
	u8 rsvd1[3];
	u8 flags;			/* ORCA_EQE_PHASE; written last */
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
	ORCA_WQE_BIND_MW		= 0x0a,	/* 1.4, ORCA_DEV_CAP_MW */
	ORCA_WQE_FLUSH			= 0x0b,	/* 1.4 */
	ORCA_WQE_ATOMIC_WRITE		= 0x0c,	/* 1.4 */
};

/*
 * FLUSH (1.4, ORCA_DEV_CAP_FLUSH): imm_or_inv holds the FETH's placement
 * type and selectivity level, laid out as on the wire (IBA 1.5 A19.4).
 */
#define ORCA_WQE_FLUSH_TYPE		GENMASK(3, 0)	/* ORCA_FLUSH_* */
#define ORCA_WQE_FLUSH_LEVEL		GENMASK(5, 4)	/* ORCA_FLUSH_LEVEL_* */
#define ORCA_FLUSH_GLOBAL		BIT(0)	/* global visibility */
#define ORCA_FLUSH_PERSISTENT		BIT(1)	/* persistence */
#define ORCA_FLUSH_LEVEL_RANGE		0	/* remote_addr, length */
#define ORCA_FLUSH_LEVEL_MR		1	/* the whole MR of rkey */

#define ORCA_WQE_F_SIGNALED		BIT(0)
#define ORCA_WQE_F_SOLICITED		BIT(1)
#define ORCA_WQE_F_FENCE		BIT(2)
#define ORCA_WQE_F_INLINE		BIT(3)
/* 1.1, ORCA_DEV_CAP_PGL_CHAIN: REG_MR's page list is a chunk chain. */
#define ORCA_WQE_F_PGL_CHAIN		BIT(4)

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
/*
 * A CQE names the WQE it completes by 16 bits (orca_cqe.wqe_idx), so no
 * send, receive or shared receive queue is deeper than 1 << 16: the driver
 * and the provider clamp a device's max_qp_wr and max_srq_wr to it.
 */
#define ORCA_MAX_LOG_WQ_DEPTH		16

/*
 * What the device writes as the RQ and SRQ event indices when it wants no
 * doorbell (data-path.rst, "Doorbell records and event indices"): one
 * behind the producer index 0, which no post passes but the one that wraps.
 */
#define ORCA_EVENT_IDX_BEHIND		0xffffffffU

#define ORCA_SEND_WQE_MIN_STRIDE	128
#define ORCA_RECV_WQE_MIN_STRIDE	64
#define ORCA_MAX_SGE			16
/*
 * Inline data shares the SGE area of the stride, so a QP that wants N bytes
 * inline asks for max_send_sge >= DIV_ROUND_UP(N, sizeof(struct orca_sge)).
 */
#define ORCA_MAX_INLINE_DATA		(ORCA_MAX_SGE * 16)

struct orca_send_wqe_hdr {
	u8 opcode;			/* enum orca_wqe_opcode */
	u8 flags;			/* ORCA_WQE_F_* */
	u8 num_sge;
	u8 page_shift;			/* REG_MR (1.1): page size; 0: the MR's */
	__le32 wr_id_lo;		/* not interpreted; echoed in the CQE */
	__le32 wr_id_hi;
	__le32 imm_or_inv;		/* immediate data or rkey to invalidate;
					 * FLUSH: ORCA_WQE_FLUSH_*
					 */
	__le64 remote_addr;		/* RDMA/atomic; REG_MR: iova */
	__le32 rkey;			/* RDMA/atomic; REG_MR: new key */
	__le32 length;			/* inline length; REG_MR: MR length;
					 * FLUSH: bytes to flush
					 */
	union {
		__le64 compare_add;	/* atomic; REG_MR: page list address */
		u8 atomic_data[8];	/* ATOMIC_WRITE: the bytes to write,
					 * in memory order, not converted
					 */
	};
	__le64 swap;			/* atomic; REG_MR: access | npages << 32 */
	__le32 ahn;			/* UD: address handle */
	__le32 dest_qpn;		/* UD; XRC initiator (1.6): the
					 * remote XRC SRQ's number (XRCETH)
					 */
	__le32 qkey;			/* UD */
	__le32 rsvd1;
};

/*
 * @tag (1.5): in a WQE of an SRQ created with ORCA_CREATE_SRQ_F_TAG, the
 * consumer's name for the WQE, which the adapter copies into its CQE's
 * wqe_idx instead of the WQE's index (data-path.rst, "Queues and
 * indices").  Reserved, 0, in other receive WQEs.
 */
struct orca_recv_wqe_hdr {
	__le32 wr_id_lo;
	__le32 wr_id_hi;
	u8 num_sge;
	u8 rsvd;
	__le16 tag;
	__le32 rsvd1;
};

static inline u32 orca_roundup_pow2(u32 v)
{
	u32 p = 1;

	while (p < v)
		p <<= 1;
	return p;
}

static inline u32 orca_send_wqe_stride(u32 max_send_sge)
{
	u32 sz = sizeof(struct orca_send_wqe_hdr) +
		   max_send_sge * sizeof(struct orca_sge);

	return orca_roundup_pow2(sz < ORCA_SEND_WQE_MIN_STRIDE ?
				 ORCA_SEND_WQE_MIN_STRIDE : sz);
}

static inline u32 orca_recv_wqe_stride(u32 max_recv_sge)
{
	u32 sz = sizeof(struct orca_recv_wqe_hdr) +
		   max_recv_sge * sizeof(struct orca_sge);

	return orca_roundup_pow2(sz < ORCA_RECV_WQE_MIN_STRIDE ?
				 ORCA_RECV_WQE_MIN_STRIDE : sz);
}

/*
 * Pages of (1 << @page_shift) bytes that @bytes of a queue (or an MR's
 * span) take: the page count CREATE_EQ/CQ/QP/SRQ/MR carry, which the
 * device requires to be exactly this.
 */
static inline u32 orca_queue_npages(u64 bytes, u8 page_shift)
{
	return (u32)((bytes + (1ULL << page_shift) - 1) >> page_shift);
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
	ORCA_CQE_BIND_MW		= 0x07,	/* 1.4 */
	ORCA_CQE_FLUSH			= 0x08,	/* 1.4 */
	ORCA_CQE_ATOMIC_WRITE		= 0x09,	/* 1.4 */
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
/*
 * 1.6: a receive of an XRC SRQ: src_qpn holds the SRQ's number, qpn the
 * XRC target QP's, which the CQ's owner need not know (another process
 * may own it): the consumer finds its SRQ by srqn.
 */
#define ORCA_CQE_F_XRC			BIT(5)

struct orca_cqe {
	__le32 wr_id_lo;
	__le32 wr_id_hi;
	__le32 qpn;
	__le32 byte_len;
	__le32 imm_or_inv;
	__le32 src_qpn;			/* UD; XRC SRQ receive: srqn */
	u8 opcode;			/* enum orca_cqe_opcode */
	u8 status;			/* ORCA_CQE_ST_* */
	__le16 wqe_idx;
	u8 rsvd[3];
	u8 flags;			/* ORCA_CQE_F_*; written last */
};

/*
 * BIND_MW (1.4, ORCA_DEV_CAP_MW) binds a memory window to a window of an
 * MR, or with length 0 unbinds a type 1 window.  In the send WQE header:
 *
 *   imm_or_inv:  the window's current rkey
 *   rkey:        the new one: the same index, the key byte it takes
 *   remote_addr: the window's first byte, an address of the MR
 *   compare_add: the window's length in bytes
 *   swap:        bits 31:0 the window's rights (ORCA_ACCESS_REMOTE_*,
 *                ORCA_ACCESS_LOCAL_WRITE ignored, ORCA_MW_BIND_ZERO_BASED),
 *                bits 63:32 the MR's lkey
 *
 * num_sge is 0.  A zero-based window (type 2 only) is addressed from 0 on
 * the wire; its byte n is the MR's byte remote_addr + n.  The CQE opcode is
 * ORCA_CQE_BIND_MW; a refused bind completes with ORCA_CQE_ST_MW_BIND_ERR
 * and moves the QP to the error state.
 */
#define ORCA_MW_BIND_ZERO_BASED		BIT(31)

static inline u64 orca_bind_mw_swap(u32 access, u32 mr_lkey)
{
	return (u64)mr_lkey << 32 | access;
}

static_assert(sizeof(struct orca_eqe) == 16, "orca_eqe");
static_assert(sizeof(struct orca_cqe) == 32, "orca_cqe");
static_assert(sizeof(struct orca_send_wqe_hdr) == 64, "send wqe hdr");
static_assert(sizeof(struct orca_recv_wqe_hdr) == 16, "recv wqe hdr");

#endif /* _ORCA_IO_DEFS_H_ */

/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR Linux-OpenIB) */
/*
 * ORCA uverbs ABI: the driver data that the rdma-core provider (providers/orca)
 * and the kernel driver (drivers/infiniband/hw/orca) exchange through udata.
 *
 * Rules: every struct is a multiple of 8 bytes with explicit reserved fields
 * (which must be zero), starts with comp_mask, and grows only at its end;
 * new fields are announced by a comp_mask bit or by the length.  Addresses
 * are user virtual addresses; no kernel pointer ever appears here.  The
 * layouts of the queues, WQEs, CQEs and doorbell records these addresses
 * point at are the adapter's own, which its programming interface defines
 * (Documentation/orca/programming-interface.rst; the driver's
 * orca_io_defs.h, which the provider includes as it is).
 */
#ifndef ORCA_ABI_USER_H
#define ORCA_ABI_USER_H

#include <linux/types.h>

/*
 * 3: the provider names the geometry of every ring in the request (in 2,
 * provider and kernel each derived it from the verbs attributes).
 */
#define ORCA_UVERBS_ABI_VERSION		3

/*
 * Queue rings from user space are described to the adapter in pages of this
 * size, whatever the CPU's page size: each ring's address and length are
 * multiples of it.
 */
#define ORCA_UQUEUE_ALIGN		4096

/* Doorbell records: naturally aligned, never crossing a page. */
#define ORCA_UDB_REC_ALIGN		8

struct orca_alloc_ucontext_req {
	__u32 comp_mask;
	__u32 reserved;
};

/*
 * What the provider may use of the adapter (orca_alloc_ucontext_resp's
 * caps).  The kernel sets a bit when the adapter has the feature and the
 * kernel supports it for user space; these are the ABI's own bits, not the
 * adapter's capability word.
 */
enum orca_uctx_caps {
	ORCA_UCTX_CAP_ATOMIC		= 1 << 0,	/* compare-swap, fetch-add */
	ORCA_UCTX_CAP_FRWR		= 1 << 1,	/* local and send invalidate */
	ORCA_UCTX_CAP_MW		= 1 << 2,	/* memory windows, BIND_MW */
	ORCA_UCTX_CAP_UC		= 1 << 3,	/* UC QPs */
	ORCA_UCTX_CAP_FLUSH		= 1 << 4,	/* RDMA FLUSH */
	ORCA_UCTX_CAP_ATOMIC_WRITE	= 1 << 5,	/* ATOMIC WRITE */
	ORCA_UCTX_CAP_SRQ_RESIZE	= 1 << 6,	/* MODIFY_SRQ's max_wr */
	ORCA_UCTX_CAP_SRQ_TAG		= 1 << 7,	/* ORCA_CREATE_SRQ_MASK_TAG */
	ORCA_UCTX_CAP_XRC		= 1 << 8,	/* XRCDs, XRC SRQs and QPs */
};

/*
 * uar_mmap_key: mmap() offset of the context's doorbell page (one
 * ORCA_UAR_PAGE_SIZE page, mapped shared and uncached).  The limits are
 * the adapter's as the kernel applies them.
 */
struct orca_alloc_ucontext_resp {
	__u32 comp_mask;
	__u32 if_version;		/* ORCA_REG_IF_VERSION */
	__aligned_u64 uar_mmap_key;
	__u32 caps;			/* enum orca_uctx_caps */
	__u32 max_inline_data;
	__u32 max_send_sge;		/* SGEs per send WQE, device limit */
	__u32 max_recv_sge;
	__u32 max_sq_depth;		/* WQEs per send or receive queue */
	__u32 max_cqe;
	__u32 cqe_size;			/* sizeof(struct orca_cqe) */
	__u32 max_srq_wr;		/* WQEs per SRQ */
	__u32 max_srq_sge;		/* SGEs per SRQ WQE */
	__u32 reserved;
};

struct orca_alloc_pd_resp {
	__u32 comp_mask;
	__u32 pdn;
};

/*
 * Queue geometry.  The provider lays out every ring it allocates and names
 * that layout in the request: the entries of the ring (a power of two, at
 * least 1 << ORCA_MIN_LOG_DEPTH and what the verbs attributes ask for, at
 * most the device's limit rounded up to a power of two; send, receive and
 * SRQ rings also at most 1 << ORCA_MAX_LOG_WQ_DEPTH) and, for WQE rings,
 * the bytes of one WQE (a power of two the adapter derives from some
 * number of SGEs within its limits: orca_send_wqe_stride() and
 * orca_recv_wqe_stride() in orca_io_defs.h, the smallest being
 * ORCA_SEND_WQE_MIN_STRIDE and ORCA_RECV_WQE_MIN_STRIDE).  A WQE holds as
 * many SGEs as its stride has room for, up to the device's limit; that
 * count must cover the SGEs (and for sends the inline bytes, 16 a SGE)
 * the attributes ask for.  The kernel programs the adapter with exactly
 * this geometry and reports what it gives in the core response
 * (max_send_wr, max_send_sge, max_inline_data, ...: the ring's entries and
 * SGEs, never less than asked for).  A ring is ORCA_UQUEUE_ALIGN aligned,
 * and buf_len is a multiple of ORCA_UQUEUE_ALIGN that holds entries *
 * stride bytes (pinned rounded up to ORCA_UQUEUE_ALIGN).  A request that
 * breaks a rule fails with EINVAL before the adapter sees it.
 *
 * CREATE_CQ: a ring of cqe_count CQEs (struct orca_cqe) at buf_va, and a
 * struct orca_cq_db_rec at db_rec_va.
 */
struct orca_create_cq {
	__u32 comp_mask;
	__u32 cqe_count;		/* CQEs in the ring */
	__aligned_u64 buf_va;
	__aligned_u64 buf_len;
	__aligned_u64 db_rec_va;
};

struct orca_create_cq_resp {
	__u32 comp_mask;
	__u32 cqn;
};

/* RESIZE_CQ: the new ring; the doorbell record stays where it is. */
struct orca_resize_cq {
	__u32 comp_mask;
	__u32 cqe_count;		/* CQEs in the new ring */
	__aligned_u64 buf_va;
	__aligned_u64 buf_len;
};

/*
 * CREATE_QP: the send ring and (unless the QP uses an SRQ) the receive
 * ring, and a struct orca_qp_db_rec.  With an SRQ the receive ring's four
 * fields are 0; so are they for an XRC initiator (IBV_QPT_XRC_SEND), which
 * has no receive queue.  An XRC target (IBV_QPT_XRC_RECV) has no rings
 * and no doorbell record: every field but comp_mask is 0.  The core
 * creates a target QP without driver data (Linux 7.3's ib_create_qp_user()
 * passes no udata), so its orca_create_qp_resp may be left unwritten: its
 * qpn is the core response's.
 */
struct orca_create_qp {
	__u32 comp_mask;
	__u32 reserved;
	__aligned_u64 db_rec_va;
	__aligned_u64 sq_buf_va;
	__aligned_u64 sq_buf_len;
	__u32 sq_wqe_count;		/* send WQEs in the ring */
	__u32 sq_stride;		/* bytes per send WQE */
	__aligned_u64 rq_buf_va;
	__aligned_u64 rq_buf_len;
	__u32 rq_wqe_count;		/* receive WQEs in the ring */
	__u32 rq_stride;		/* bytes per receive WQE */
};

struct orca_create_qp_resp {
	__u32 comp_mask;
	__u32 qpn;
};

/*
 * CREATE_SRQ: ring of receive WQEs and a struct orca_srq_db_rec.  With
 * ORCA_CREATE_SRQ_MASK_TAG in comp_mask (only with ORCA_UCTX_CAP_SRQ_TAG)
 * the adapter reports each WQE's tag in its CQE's wqe_idx, not its index
 * (the tagged SRQ of the adapter's interface 1.5): the provider names its
 * own record of the WQE by it, and may post while fewer than max_wr WQEs
 * are outstanding, whatever the order their CQEs were polled in.
 */
enum orca_create_srq_mask {
	ORCA_CREATE_SRQ_MASK_TAG	= 1 << 0,
};

struct orca_create_srq {
	__u32 comp_mask;
	__u32 wqe_count;		/* receive WQEs in the ring */
	__u32 stride;			/* bytes per receive WQE */
	__u32 reserved;
	__aligned_u64 buf_va;
	__aligned_u64 buf_len;
	__aligned_u64 db_rec_va;
};

struct orca_create_srq_resp {
	__u32 comp_mask;
	__u32 srqn;
};

/*
 * MODIFY_SRQ with IB_SRQ_MAX_WR: the new ring, of wqe_count WQEs (at least
 * the max_wr asked for) of the SRQ's stride, which a resize keeps; the
 * doorbell record stays where it is.  The adapter copies the WQEs posted
 * and not taken to it at their indices; the provider posts nothing
 * meanwhile and frees the old ring once the command succeeded.  No driver
 * data with only IB_SRQ_LIMIT.
 */
struct orca_modify_srq {
	__u32 comp_mask;
	__u32 wqe_count;		/* receive WQEs in the new ring */
	__u32 stride;			/* bytes per receive WQE, unchanged */
	__u32 reserved;
	__aligned_u64 buf_va;
	__aligned_u64 buf_len;
};

/* CREATE_AH: UD send WQEs name the adapter's address handle. */
struct orca_create_ah_resp {
	__u32 comp_mask;
	__u32 ahn;
};

#endif /* ORCA_ABI_USER_H */

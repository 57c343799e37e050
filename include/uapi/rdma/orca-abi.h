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

#define ORCA_UVERBS_ABI_VERSION		2

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
 * Ring depths: a queue asked for n entries has 1 << order_base_2(n) of them,
 * at least 1 << ORCA_MIN_LOG_DEPTH (orca_io_defs.h).
 *
 * CREATE_CQ: a ring of that many CQEs for the requested cqe at buf_va
 * (buf_len bytes, ORCA_UQUEUE_ALIGN aligned and sized), and a struct
 * orca_cq_db_rec at db_rec_va.
 */
struct orca_create_cq {
	__u32 comp_mask;
	__u32 reserved;
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
	__u32 reserved;
	__aligned_u64 buf_va;
	__aligned_u64 buf_len;
};

/*
 * CREATE_QP: the send ring and (unless the QP uses an SRQ) the receive ring,
 * each ORCA_UQUEUE_ALIGN aligned and sized, and a struct orca_qp_db_rec.
 * The geometry (depths, SGEs, strides) follows from the capabilities the
 * kernel returns in the core response, by the rules of orca_io_defs.h.
 */
struct orca_create_qp {
	__u32 comp_mask;
	__u32 reserved;
	__aligned_u64 sq_buf_va;
	__aligned_u64 sq_buf_len;
	__aligned_u64 rq_buf_va;	/* 0 with an SRQ */
	__aligned_u64 rq_buf_len;
	__aligned_u64 db_rec_va;
};

struct orca_create_qp_resp {
	__u32 comp_mask;
	__u32 qpn;
	__u32 sq_stride;		/* bytes per send WQE */
	__u32 rq_stride;		/* bytes per receive WQE, 0 with an SRQ */
};

/* CREATE_SRQ: ring of receive WQEs and a struct orca_srq_db_rec. */
struct orca_create_srq {
	__u32 comp_mask;
	__u32 reserved;
	__aligned_u64 buf_va;
	__aligned_u64 buf_len;
	__aligned_u64 db_rec_va;
};

struct orca_create_srq_resp {
	__u32 comp_mask;
	__u32 srqn;
	__u32 stride;			/* bytes per receive WQE */
	__u32 reserved;
};

/*
 * MODIFY_SRQ with IB_SRQ_MAX_WR: the new ring for the depth asked for (the
 * depth rule above), ORCA_UQUEUE_ALIGN aligned and sized; the doorbell
 * record stays where it is.  The adapter copies the WQEs posted and not
 * taken to it at their indices; the provider posts nothing meanwhile and
 * frees the old ring once the command succeeded.  No driver data with only
 * IB_SRQ_LIMIT.
 */
struct orca_modify_srq {
	__u32 comp_mask;
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

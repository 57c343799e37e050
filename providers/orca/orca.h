/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * ORCA rdma-core provider: the objects the provider keeps beside the
 * verbs objects, and the functions its files share.
 *
 * The data path is kernel-bypass: WQEs and CQEs live in rings this
 * library allocates (the kernel pins them), indices are published in
 * doorbell records in user memory, and a trapped 32-bit UAR write is only
 * made when the device's event index says its engine went idle (spec,
 * data-path.rst, "Doorbell records and event indices").  The layouts are
 * those of the kernel driver's orca_regs_defs.h and orca_io_defs.h
 * (orca_hw.h).
 */
#ifndef ORCA_PROVIDER_H
#define ORCA_PROVIDER_H

#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include <infiniband/driver.h>
#include <util/util.h>
#include <ccan/list.h>
#include <ccan/minmax.h>

#include "orca_hw.h"

/* qpn -> QP: 24-bit qpns, second-level chunks allocated on first use. */
#define ORCA_QP_TABLE_SHIFT	12
#define ORCA_QP_TABLE_L2	BIT(ORCA_QP_TABLE_SHIFT)
#define ORCA_QP_TABLE_L1	BIT(24 - ORCA_QP_TABLE_SHIFT)

struct orca_device {
	struct verbs_device ibv_dev;
};

/**
 * struct orca_context - a device context
 * @ibv_ctx: the verbs context
 * @uar: the context's doorbell page (ORCA_UAR_*_DB), mapped uncached
 * @page_size: CPU page size (ring and record allocations use whole pages)
 * @dev_caps: ORCA_DEV_CAP_*
 * @max_inline_data: device limit on inline bytes per send WQE
 * @max_send_sge: device limit on send SGEs
 * @max_recv_sge: device limit on receive SGEs
 * @max_sq_depth: device limit on WQEs per queue
 * @max_cqe: device limit on CQEs per CQ
 * @qp_table_mutex: serializes insertions and removals in @qp_table
 * @qp_table: qpn -> QP for the pollers; chunks live as long as the context
 * @db_mutex: protects @db_pages
 * @db_pages: pages of doorbell record slots
 */
struct orca_context {
	struct verbs_context ibv_ctx;
	void *uar;
	size_t page_size;
	uint32_t dev_caps;
	uint32_t max_inline_data;
	uint32_t max_send_sge;
	uint32_t max_recv_sge;
	uint32_t max_sq_depth;
	uint32_t max_cqe;
	pthread_mutex_t qp_table_mutex;
	struct orca_qp **qp_table[ORCA_QP_TABLE_L1];
	pthread_mutex_t db_mutex;
	struct list_head db_pages;
};

/* A page-aligned ring the kernel pins as umem. */
struct orca_ring {
	void *buf;
	size_t len;		/* multiple of the page size (and of 4096) */
};

/**
 * struct orca_cq - a completion queue
 * @ibv_cq: the verbs CQ
 * @lock: @ci, @ring and @log_depth (pollers, arm, resize, QP clean-up)
 * @ring: the CQE ring
 * @log_depth: CQEs = 1 << @log_depth
 * @ci: free-running consumer index (published in @db->ci)
 * @arm_seq: last ORCA_CQ_ARM_SEQ written (never 0 once armed)
 * @db: the doorbell record
 * @cqn: the device's handle
 */
struct orca_cq {
	struct ibv_cq ibv_cq;
	pthread_spinlock_t lock;
	struct orca_ring ring;
	uint32_t log_depth;
	uint32_t ci;
	uint32_t arm_seq;
	struct orca_cq_db_rec *db;
	uint32_t cqn;
};

/**
 * struct orca_wq - the send or the receive queue of a QP
 * @lock: @pi and the ring slots (posters)
 * @buf: first WQE
 * @log_depth: WQEs = 1 << @log_depth
 * @stride: bytes per WQE
 * @max_sge: SGEs per WQE
 * @pi: free-running producer index (published in the doorbell record)
 * @ci: consumer index implied by the polled CQEs; written by pollers under
 *	the CQ lock, read by posters (acquire/release atomics)
 */
struct orca_wq {
	pthread_spinlock_t lock;
	uint8_t *buf;
	uint32_t log_depth;
	uint32_t stride;
	uint32_t max_sge;
	uint32_t pi;
	uint32_t ci;
};

struct orca_qp {
	struct ibv_qp ibv_qp;
	uint32_t qpn;
	struct orca_wq sq;
	struct orca_wq rq;	/* log_depth 0 and no buf with an SRQ */
	uint32_t max_inline_data;
	bool sig_all;
	int state;		/* enum ibv_qp_state, atomic access */
	struct orca_ring ring;	/* SQ pages, then RQ pages */
	struct orca_qp_db_rec *db;
};

/**
 * struct orca_srq - a shared receive queue
 * @ibv_srq: the verbs SRQ
 * @lock: @pi and the ring slots (posters)
 * @ring: the WQE ring
 * @log_depth: WQEs = 1 << @log_depth
 * @stride: bytes per WQE
 * @max_sge: SGEs per WQE
 * @pi: free-running producer index
 * @ci: receive CQEs polled for QPs of this SRQ (the device takes the WQEs in
 *	ring order, so the count is the consumer index); pollers of any CQ
 *	add to it atomically
 * @db: the doorbell record
 * @srqn: the device's handle
 */
struct orca_srq {
	struct ibv_srq ibv_srq;
	pthread_spinlock_t lock;
	struct orca_ring ring;
	uint32_t log_depth;
	uint32_t stride;
	uint32_t max_sge;
	uint32_t pi;
	uint32_t ci;
	struct orca_srq_db_rec *db;
	uint32_t srqn;
};

struct orca_ah {
	struct ibv_ah ibv_ah;
	uint32_t ahn;
};

static inline struct orca_context *to_octx(struct ibv_context *ibctx)
{
	return container_of(ibctx, struct orca_context, ibv_ctx.context);
}

static inline struct orca_cq *to_ocq(struct ibv_cq *ibcq)
{
	return container_of(ibcq, struct orca_cq, ibv_cq);
}

static inline struct orca_qp *to_oqp(struct ibv_qp *ibqp)
{
	return container_of(ibqp, struct orca_qp, ibv_qp);
}

static inline struct orca_srq *to_osrq(struct ibv_srq *ibsrq)
{
	return container_of(ibsrq, struct orca_srq, ibv_srq);
}

static inline struct orca_ah *to_oah(struct ibv_ah *ibah)
{
	return container_of(ibah, struct orca_ah, ibv_ah);
}

/*
 * Ring depth for n requested entries: order_base_2(max(n, 1 <<
 * ORCA_MIN_LOG_DEPTH)), the kernel's rule too (orca_queue_log_depth()).
 */
static inline uint32_t orca_log_depth(uint32_t n)
{
	return ilog32(max_t(uint32_t, n, 1U << ORCA_MIN_LOG_DEPTH) - 1);
}

/*
 * The full barrier (StoreLoad) of the doorbell record and CQ arming
 * handshakes: our store (producer index, arm word) must be visible to the
 * adapter before we load what it wrote (event index, CQE).  On x86 this is
 * MFENCE, as the kernel's mb(), and not the LOCK-prefixed no-op that
 * compilers emit for atomic_thread_fence(memory_order_seq_cst): QEMU's TCG
 * translates a LOCK-prefixed instruction of a single-vCPU guest as a plain
 * load and store, which orders nothing against the device process reading
 * guest memory, while MFENCE always becomes a host barrier.  With the LOCK
 * form, the adapter's event index write and our producer index write could
 * miss each other and strand the WQEs.
 */
static inline void orca_mb(void)
{
#if defined(__x86_64__)
	asm volatile("mfence" ::: "memory");
#else
	atomic_thread_fence(memory_order_seq_cst);
#endif
}

/* orca_mem.c: rings and doorbell record slots */
int orca_ring_alloc(struct orca_context *ctx, struct orca_ring *ring,
		    size_t bytes);
void orca_ring_free(struct orca_ring *ring);
void *orca_db_alloc(struct orca_context *ctx);
void orca_db_free(struct orca_context *ctx, void *db);

/* orca_verbs.c: device, port, PD, MR, AH */
int orca_query_device_ex(struct ibv_context *context,
			 const struct ibv_query_device_ex_input *input,
			 struct ibv_device_attr_ex *attr, size_t attr_size);
int orca_query_port(struct ibv_context *context, uint8_t port,
		    struct ibv_port_attr *attr);
struct ibv_pd *orca_alloc_pd(struct ibv_context *context);
int orca_dealloc_pd(struct ibv_pd *pd);
struct ibv_mr *orca_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
			   uint64_t hca_va, int access);
int orca_dereg_mr(struct verbs_mr *vmr);
struct ibv_mw *orca_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type);
int orca_dealloc_mw(struct ibv_mw *mw);
struct ibv_ah *orca_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr);
int orca_destroy_ah(struct ibv_ah *ah);

/* orca_cq.c */
struct ibv_cq *orca_create_cq(struct ibv_context *context, int cqe,
			      struct ibv_comp_channel *channel,
			      int comp_vector);
int orca_resize_cq(struct ibv_cq *ibcq, int cqe);
int orca_destroy_cq(struct ibv_cq *ibcq);
int orca_modify_cq(struct ibv_cq *ibcq, struct ibv_modify_cq_attr *attr);
void orca_cq_event(struct ibv_cq *ibcq);

/* orca_qp.c */
struct ibv_qp *orca_create_qp(struct ibv_pd *pd,
			      struct ibv_qp_init_attr *attr);
int orca_modify_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
		   int attr_mask);
int orca_query_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
		  int attr_mask, struct ibv_qp_init_attr *init_attr);
int orca_destroy_qp(struct ibv_qp *ibqp);
struct orca_qp *orca_qp_lookup(struct orca_context *ctx, uint32_t qpn);
void orca_qp_table_remove(struct orca_context *ctx, struct orca_qp *qp);

/* orca_srq.c */
struct ibv_srq *orca_create_srq(struct ibv_pd *pd,
				struct ibv_srq_init_attr *attr);
int orca_modify_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr,
		    int attr_mask);
int orca_query_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr);
int orca_destroy_srq(struct ibv_srq *ibsrq);

/* orca_post.c */
int orca_wqe_bind_mw(struct orca_send_wqe_hdr *hdr, uint32_t mw_rkey,
		     uint32_t new_rkey, const struct ibv_mw_bind_info *info);
int orca_bind_mw(struct ibv_qp *ibqp, struct ibv_mw *mw,
		 struct ibv_mw_bind *mw_bind);
int orca_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		   struct ibv_send_wr **bad_wr);
int orca_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
		   struct ibv_recv_wr **bad_wr);
int orca_post_srq_recv(struct ibv_srq *ibsrq, struct ibv_recv_wr *wr,
		       struct ibv_recv_wr **bad_wr);
void orca_qp_reset_indices(struct orca_qp *qp);

/* orca_poll.c */
int orca_poll_cq(struct ibv_cq *ibcq, int num_entries, struct ibv_wc *wc);
int orca_req_notify_cq(struct ibv_cq *ibcq, int solicited_only);
void orca_qp_clean_cqs(struct orca_qp *qp, bool unlink);

#endif /* ORCA_PROVIDER_H */

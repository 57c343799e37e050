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
#include <rdma/orca-abi.h>

#include "orca_barrier.h"
#include "orca_hw.h"

/*
 * qpn -> QP, and srqn -> XRC SRQ: 24-bit numbers, second-level chunks
 * allocated on first use.
 */
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
 * @caps: enum orca_uctx_caps, what the kernel lets this context use
 * @max_inline_data: device limit on inline bytes per send WQE
 * @max_send_sge: device limit on send SGEs
 * @max_recv_sge: device limit on receive SGEs
 * @max_sq_depth: device limit on WQEs per queue
 * @max_srq_wr: device limit on WQEs per SRQ (0: no SRQs)
 * @max_srq_sge: device limit on SGEs per SRQ WQE
 * @max_cqe: device limit on CQEs per CQ
 * @qp_table_mutex: held from CREATE_QP to the insertion in @qp_table and
 *	from DESTROY_QP to the removal, so QPNs the kernel reuses are free
 * @qp_table: qpn -> QP for the pollers; chunks live as long as the context
 * @srq_table_mutex: as @qp_table_mutex, for @srq_table
 * @srq_table: srqn -> XRC SRQ for the pollers, which find an XRC SRQ by
 *	the number its receive CQEs carry (the target QP may be another
 *	process's); chunks live as long as the context
 * @db_mutex: protects @db_pages
 * @db_pages: pages of doorbell record slots
 * @bad_cqes: CQEs polled and dropped because they named no outstanding
 *	WQE or no QP of this context (an adapter misbehaving); each is
 *	reported with verbs_err_datapath(), the count when the context is
 *	closed (verbs_err(): VERBS_LOG_LEVEL >= 1 and VERBS_LOG_FILE show it)
 */
struct orca_context {
	struct verbs_context ibv_ctx;
	void *uar;
	size_t page_size;
	uint32_t caps;
	uint32_t max_inline_data;
	uint32_t max_send_sge;
	uint32_t max_recv_sge;
	uint32_t max_sq_depth;
	uint32_t max_srq_wr;
	uint32_t max_srq_sge;
	uint32_t max_cqe;
	pthread_mutex_t qp_table_mutex;
	void **qp_table[ORCA_QP_TABLE_L1];
	pthread_mutex_t srq_table_mutex;
	void **srq_table[ORCA_QP_TABLE_L1];
	pthread_mutex_t db_mutex;
	struct list_head db_pages;
	uint64_t bad_cqes;
};

/*
 * A lock that an object of a thread domain does without: the user then
 * promises that one thread at a time uses the object (ibv_alloc_td(3)).
 */
struct orca_lock {
	pthread_spinlock_t lock;
	bool need_lock;
};

static inline void orca_lock_init(struct orca_lock *l, bool need_lock)
{
	pthread_spin_init(&l->lock, PTHREAD_PROCESS_PRIVATE);
	l->need_lock = need_lock;
}

static inline void orca_lock_destroy(struct orca_lock *l)
{
	pthread_spin_destroy(&l->lock);
}

static inline void orca_lock(struct orca_lock *l)
{
	if (l->need_lock)
		pthread_spin_lock(&l->lock);
}

static inline void orca_unlock(struct orca_lock *l)
{
	if (l->need_lock)
		pthread_spin_unlock(&l->lock);
}

/**
 * struct orca_td - a thread domain (ibv_alloc_td(3))
 * @ibv_td: the verbs thread domain
 * @refcount: 1 + the parent domains on it
 */
struct orca_td {
	struct ibv_td ibv_td;
	atomic_int refcount;
};

/**
 * struct orca_pd - a protection domain or a parent domain
 * @ibv_pd: the verbs PD (a parent domain's carries its PD's handle)
 * @refcount: 1 + what uses it without a kernel reference: the parent
 *	domains on a PD; the QPs, CQs and SRQs on a parent domain
 * @protection_domain: a parent domain's PD; NULL in a PD
 * @td: a parent domain's thread domain, or NULL
 * @alloc: a parent domain's allocator of rings (ibv_alloc_parent_domain(3))
 * @free: and its release
 * @pd_context: passed to both
 */
struct orca_pd {
	struct ibv_pd ibv_pd;
	atomic_int refcount;
	struct orca_pd *protection_domain;
	struct orca_td *td;
	void *(*alloc)(struct ibv_pd *pd, void *pd_context, size_t size,
		       size_t alignment, uint64_t resource_type);
	void (*free)(struct ibv_pd *pd, void *pd_context, void *ptr,
		     uint64_t resource_type);
	void *pd_context;
};

/*
 * The resource types a parent domain's allocator is called with (the
 * driver id, RDMA_DRIVER_ORCA, in the upper 32 bits, as mlx5 does).
 */
enum orca_res_type {
	ORCA_RES_TYPE_QP = 1,
	ORCA_RES_TYPE_CQ,
	ORCA_RES_TYPE_SRQ,
};

/* A page-aligned ring the kernel pins as umem. */
struct orca_ring {
	void *buf;
	size_t len;		/* multiple of the page size (and of 4096) */
	struct orca_pd *pd;	/* the parent domain that allocated it */
	uint64_t res_type;	/* and the type it was asked for */
};

/**
 * struct orca_cq - a completion queue, plain or extended
 * @vcq: the verbs CQ (ibv_cq, or ibv_cq_ex for ibv_create_cq_ex())
 * @lock: @ci, @ring, @log_depth and @wc (pollers, arm, resize, QP
 *	clean-up); held from start_poll to end_poll on an extended CQ; not
 *	taken for a single-threaded CQ
 * @resize_mutex: held across RESIZE_CQ and the switch of rings, and by a
 *	QP's clean-up (orca_qp_clean_cqs()), which must not scrub the old
 *	ring once the adapter has copied it
 * @ring: the CQE ring
 * @log_depth: CQEs = 1 << @log_depth
 * @ci: free-running consumer index (published in @db->ci)
 * @poll_ci: @ci at start_poll, to publish only what was consumed
 * @arm_seq: last ORCA_CQ_ARM_SEQ written (never 0 once armed)
 * @db: the doorbell record
 * @cqn: the device's handle
 * @parent: the parent domain it was created on, or NULL
 * @wc: the completion that the ibv_wc_read_*() readers return, decoded
 *	by the same code as ibv_poll_cq()'s
 */
struct orca_cq {
	struct verbs_cq vcq;
	struct orca_lock lock;
	pthread_mutex_t resize_mutex;
	struct orca_ring ring;
	uint32_t log_depth;
	uint32_t ci;
	uint32_t poll_ci;
	uint32_t arm_seq;
	struct orca_cq_db_rec *db;
	uint32_t cqn;
	struct orca_pd *parent;
	struct ibv_wc wc;
};

/**
 * struct orca_wq - the send or the receive queue of a QP
 * @lock: @pi and the ring slots (posters); not taken on a thread domain
 * @buf: first WQE
 * @log_depth: WQEs = 1 << @log_depth
 * @stride: bytes per WQE
 * @max_sge: SGEs per WQE
 * @pi: free-running producer index (published in the doorbell record)
 * @ci: consumer index implied by the polled CQEs; written by pollers under
 *	the CQ lock, read by posters (acquire/release atomics)
 * @wrid: the wr_id of each slot, as posted: a completion returns it, never
 *	the CQE's (the adapter's word); written by posters before @pi passes
 *	the slot, read by pollers before @ci does
 */
struct orca_wq {
	struct orca_lock lock;
	uint8_t *buf;
	uint32_t log_depth;
	uint32_t stride;
	uint32_t max_sge;
	uint32_t pi;
	uint32_t ci;
	uint64_t *wrid;
};

/**
 * struct orca_qp - a queue pair (RC or UD)
 * @vqp: the verbs QP; its qp_ex is filled when created with send_ops_flags
 * @qpn: the device's handle
 * @sq: the send queue
 * @rq: the receive queue (log_depth 0 and no buf with an SRQ)
 * @max_inline_data: inline bytes per send WQE
 * @sig_all: every send WQE is signaled
 * @state: enum ibv_qp_state, atomic access
 * @ring: SQ pages, then RQ pages
 * @db: the doorbell record
 * @wr_pi: ibv_wr_* batch: index of its next WQE (from wr_start to
 *	wr_complete or wr_abort, which hold @sq.lock)
 * @wr_cur: ibv_wr_* batch: the WQE the wr_set_*() calls fill, NULL if none
 * @parent: the parent domain it is on, or NULL
 * @wr_err: ibv_wr_* batch: its first error, for wr_complete() to return
 */
struct orca_qp {
	struct verbs_qp vqp;
	uint32_t qpn;
	struct orca_wq sq;
	struct orca_wq rq;
	uint32_t max_inline_data;
	bool sig_all;
	int state;
	struct orca_ring ring;
	struct orca_qp_db_rec *db;
	struct orca_pd *parent;
	uint32_t wr_pi;
	struct orca_send_wqe_hdr *wr_cur;
	int wr_err;
};

/**
 * struct orca_srq - a shared receive queue, plain or XRC
 * @vsrq: the verbs SRQ; an XRC SRQ's type, domain, CQ and number too
 * @lock: the ring slots (posters); held across a resize, which posters
 *	wait for
 * @wr_lock: @pi, @log_depth and @recs: posters and a resize, under
 *	@lock, and pollers of every CQ of the SRQ's QPs, which complete its
 *	WQEs in any order (orca_wqe_track.h)
 * @ring: the WQE ring
 * @log_depth: WQEs = 1 << @log_depth
 * @stride: bytes per WQE
 * @max_sge: SGEs per WQE
 * @pi: free-running producer index
 * @recs: the records of the WQEs outstanding, by their tags when the kernel
 *	created the SRQ tagged (ORCA_UCTX_CAP_SRQ_TAG), else by their slots
 * @db: the doorbell record
 * @srqn: the device's handle
 * @parent: the parent domain it is on, or NULL (its allocator only: an
 *	SRQ keeps its lock, posters of many QPs share it)
 */
struct orca_srq {
	struct verbs_srq vsrq;
	pthread_spinlock_t lock;
	pthread_spinlock_t wr_lock;
	struct orca_ring ring;
	uint32_t log_depth;
	uint32_t stride;
	uint32_t max_sge;
	uint32_t pi;
	struct orca_srq_recs recs;
	struct orca_srq_db_rec *db;
	uint32_t srqn;
	struct orca_pd *parent;
};

struct orca_ah {
	struct ibv_ah ibv_ah;
	uint32_t ahn;
};

/* A consumer index pollers advance: slots below it may be reused. */
static inline uint32_t orca_wq_ci(const uint32_t *ci)
{
	return __atomic_load_n(ci, __ATOMIC_ACQUIRE);
}

static inline struct orca_context *to_octx(struct ibv_context *ibctx)
{
	return container_of(ibctx, struct orca_context, ibv_ctx.context);
}

static inline struct orca_cq *to_ocq(struct ibv_cq *ibcq)
{
	return container_of(ibcq, struct orca_cq, vcq.cq);
}

static inline struct orca_cq *ex_to_ocq(struct ibv_cq_ex *ibcq)
{
	return container_of(ibcq, struct orca_cq, vcq.cq_ex);
}

static inline struct orca_pd *to_opd(struct ibv_pd *ibpd)
{
	return container_of(ibpd, struct orca_pd, ibv_pd);
}

static inline struct orca_td *to_otd(struct ibv_td *ibtd)
{
	return container_of(ibtd, struct orca_td, ibv_td);
}

/* The parent domain @ibpd is, or NULL for a plain PD. */
static inline struct orca_pd *orca_parent_domain(struct ibv_pd *ibpd)
{
	struct orca_pd *pd = to_opd(ibpd);

	return pd->protection_domain ? pd : NULL;
}

static inline struct orca_qp *to_oqp(struct ibv_qp *ibqp)
{
	return container_of(ibqp, struct orca_qp, vqp.qp);
}

static inline struct orca_srq *to_osrq(struct ibv_srq *ibsrq)
{
	return container_of(ibsrq, struct orca_srq, vsrq.srq);
}

static inline bool orca_srq_is_xrc(const struct orca_srq *srq)
{
	return srq->vsrq.srq_type == IBV_SRQT_XRC;
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

/* orca_mem.c: rings and doorbell record slots */
int orca_ring_alloc(struct orca_context *ctx, struct orca_ring *ring,
		    size_t bytes);
int orca_ring_alloc_pd(struct orca_context *ctx, struct orca_ring *ring,
		       size_t bytes, struct orca_pd *parent,
		       enum orca_res_type type);
void orca_ring_free(struct orca_ring *ring);
void *orca_db_alloc(struct orca_context *ctx);
void orca_db_free(struct orca_context *ctx, void *db);

/* orca_verbs.c: device, port, PD, XRC domain, MR, AH */
int orca_query_device_ex(struct ibv_context *context,
			 const struct ibv_query_device_ex_input *input,
			 struct ibv_device_attr_ex *attr, size_t attr_size);
int orca_query_port(struct ibv_context *context, uint8_t port,
		    struct ibv_port_attr *attr);
struct ibv_pd *orca_alloc_pd(struct ibv_context *context);
int orca_dealloc_pd(struct ibv_pd *pd);
struct ibv_xrcd *orca_open_xrcd(struct ibv_context *context,
				struct ibv_xrcd_init_attr *attr);
int orca_close_xrcd(struct ibv_xrcd *xrcd);
struct ibv_td *orca_alloc_td(struct ibv_context *context,
			     struct ibv_td_init_attr *attr);
int orca_dealloc_td(struct ibv_td *ibtd);
struct ibv_pd *
orca_alloc_parent_domain(struct ibv_context *context,
			 struct ibv_parent_domain_init_attr *attr);
void orca_parent_get(struct orca_pd *parent);
void orca_parent_put(struct orca_pd *parent);
struct ibv_mr *orca_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
			   uint64_t hca_va, int access);
struct ibv_mr *orca_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset,
				  size_t length, uint64_t iova, int fd,
				  int access);
int orca_rereg_mr(struct verbs_mr *vmr, int flags, struct ibv_pd *pd,
		  void *addr, size_t length, int access);
int orca_dereg_mr(struct verbs_mr *vmr);
int orca_advise_mr(struct ibv_pd *pd, enum ibv_advise_mr_advice advice,
		   uint32_t flags, struct ibv_sge *sg_list, uint32_t num_sge);
void orca_async_event(struct ibv_context *context,
		      struct ibv_async_event *event);
struct ibv_mw *orca_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type);
int orca_dealloc_mw(struct ibv_mw *mw);
struct ibv_ah *orca_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr);
int orca_destroy_ah(struct ibv_ah *ah);
int orca_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
		      uint16_t lid);
int orca_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
		      uint16_t lid);

/* orca_cq.c */
struct ibv_cq *orca_create_cq(struct ibv_context *context, int cqe,
			      struct ibv_comp_channel *channel,
			      int comp_vector);
struct ibv_cq_ex *orca_create_cq_ex(struct ibv_context *context,
				    struct ibv_cq_init_attr_ex *attr);
int orca_resize_cq(struct ibv_cq *ibcq, int cqe);
int orca_destroy_cq(struct ibv_cq *ibcq);
int orca_modify_cq(struct ibv_cq *ibcq, struct ibv_modify_cq_attr *attr);
void orca_cq_event(struct ibv_cq *ibcq);

/* orca_qp.c */
struct ibv_qp *orca_create_qp(struct ibv_pd *pd,
			      struct ibv_qp_init_attr *attr);
struct ibv_qp *orca_create_qp_ex(struct ibv_context *context,
				 struct ibv_qp_init_attr_ex *attr);
int orca_modify_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
		   int attr_mask);
int orca_query_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
		  int attr_mask, struct ibv_qp_init_attr *init_attr);
int orca_destroy_qp(struct ibv_qp *ibqp);
int orca_query_qp_data_in_order(struct ibv_qp *ibqp, enum ibv_wr_opcode op,
				uint32_t flags);
struct ibv_qp *orca_open_qp(struct ibv_context *context,
			    struct ibv_qp_open_attr *attr);
struct orca_qp *orca_qp_lookup(struct orca_context *ctx, uint32_t qpn);
void orca_qp_table_remove(struct orca_context *ctx, struct orca_qp *qp);
int orca_table_insert(void **table[], uint32_t n, void *obj);
void orca_table_remove(void **table[], uint32_t n, void *obj);
void *orca_table_lookup(void **table[], uint32_t n);

/* orca_srq.c */
struct ibv_srq *orca_create_srq(struct ibv_pd *pd,
				struct ibv_srq_init_attr *attr);
int orca_modify_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr,
		    int attr_mask);
int orca_query_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr);
int orca_destroy_srq(struct ibv_srq *ibsrq);
struct ibv_srq *orca_create_srq_ex(struct ibv_context *context,
				   struct ibv_srq_init_attr_ex *attr);
int orca_get_srq_num(struct ibv_srq *ibsrq, uint32_t *srq_num);

/* orca_post.c */
int orca_bind_mw(struct ibv_qp *ibqp, struct ibv_mw *mw,
		 struct ibv_mw_bind *mw_bind);
int orca_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		   struct ibv_send_wr **bad_wr);
int orca_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
		   struct ibv_recv_wr **bad_wr);
int orca_post_srq_recv(struct ibv_srq *ibsrq, struct ibv_recv_wr *wr,
		       struct ibv_recv_wr **bad_wr);
void orca_qp_reset_indices(struct orca_qp *qp);
uint64_t orca_send_ops_supported(struct orca_context *ctx,
				 enum ibv_qp_type qpt);
void orca_qp_init_send_ops(struct orca_qp *qp, uint64_t ops);

/* orca_poll.c */
int orca_poll_cq(struct ibv_cq *ibcq, int num_entries, struct ibv_wc *wc);
int orca_req_notify_cq(struct ibv_cq *ibcq, int solicited_only);
void orca_cq_set_ex_ops(struct orca_cq *cq, uint64_t wc_flags);
void orca_qp_clean_cqs(struct orca_qp *qp, bool unlink);
void orca_srq_clean_cq(struct orca_srq *srq);

#endif /* ORCA_PROVIDER_H */

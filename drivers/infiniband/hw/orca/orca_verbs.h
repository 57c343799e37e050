/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ORCA verbs objects: PDs, CQs, SRQs, QPs, MRs and AHs, and the
 * prototypes of the kernel verbs and data path.  A user object's rings
 * and doorbell record are the user verbs' (orca_user.h); the few of their
 * functions the shared create and destroy paths call are listed last.
 */
#ifndef ORCA_VERBS_H
#define ORCA_VERBS_H

#include "orca.h"
#include "orca_com.h"
#include "orca_wqe_track.h"

struct orca_udb_page;

/**
 * struct orca_ugeom - the geometry of a user queue's rings, which its
 *	provider chose and names in the create request (rdma/orca-abi.h)
 * @entries: CQEs of a CQ, send WQEs of a QP, WQEs of an SRQ
 * @stride: bytes per WQE of a QP's send ring or of an SRQ; CQs: unused
 * @rq_entries: receive WQEs of a QP; 0 with an SRQ
 * @rq_stride: bytes per receive WQE of a QP; 0 with an SRQ
 */
struct orca_ugeom {
	u32 entries;
	u32 stride;
	u32 rq_entries;
	u32 rq_stride;
};

struct orca_pd {
	struct ib_pd ibpd;
	u32 pdn;
};

/* An XRC domain (1.6, ORCA_DEV_CAP_XRC): ALLOC_XRCD's handle. */
struct orca_xrcd {
	struct ib_xrcd ibxrcd;
	u32 xrcdn;
};

/*
 * CQs, QPs and SRQs can be the target of a device event that races their
 * destruction: the EQ handler takes a reference under the xarray lock and
 * the destroy path waits for @free after dropping its own.
 *
 * A user queue (@user) has its ring in pinned user memory (@umem; @buf then
 * only records its geometry) and its doorbell record in a pinned user page
 * (@udb); the provider polls and posts, so the kernel data path never
 * touches it.
 */
struct orca_cq {
	struct ib_cq ibcq;
	u32 cqn;
	u32 eqn;
	u32 comp_vector;
	u32 uar;
	u8 log_depth;
	bool user;
	struct orca_qbuf buf;
	struct orca_cq_db_rec *db;
	dma_addr_t db_dma;
	struct ib_umem *umem;
	struct orca_udb_page *udb;
	struct mutex resize_lock;	/* user CQs: log_depth, umem */
	refcount_t refcnt;
	struct completion free;
	spinlock_t lock;		/* ci, arm_seq; polling */
	u32 ci;				/* free-running consumer index */
	u32 arm_seq;			/* ORCA_CQ_ARM_SEQ of the last arm */
	bool armed;			/* armed since the last event */
};

struct orca_srq {
	struct ib_srq ibsrq;
	u32 srqn;
	u32 uar;
	u8 log_depth;
	u8 max_sge;
	bool user;
	u32 stride;
	u32 limit;
	struct orca_qbuf buf;
	/*
	 * A kernel SRQ's records of its WQEs outstanding; recs.tagged, for
	 * user SRQs too: created with ORCA_CREATE_SRQ_F_TAG.
	 */
	struct orca_srq_recs recs;
	struct orca_srq_db_rec *db;
	dma_addr_t db_dma;
	struct ib_umem *umem;
	struct orca_udb_page *udb;
	refcount_t refcnt;
	struct completion free;
	spinlock_t lock;		/* pi; posting; recs, log_depth */
	u32 pi;				/* free-running producer index */
	atomic_t ci;			/* receive WQEs completed */
	bool resizing;			/* MODIFY_SRQ moves the ring: no post */
	struct mutex modify_lock;	/* one resize at a time */
};

/**
 * struct orca_qp - a QP
 * @ibqp: the core's QP
 * @qpn: the device's QP number (1 for GSI)
 * @user: a user QP: rings in @sq_umem and @rq_umem, record in @udb; the
 *	fields from @sq_lock on are unused
 * @log_sq_depth: send WQEs = 1 << @log_sq_depth
 * @log_rq_depth: receive WQEs = 1 << @log_rq_depth; 0 with an SRQ
 * @max_send_sge: SGEs per send WQE, as told to the device
 * @max_recv_sge: SGEs per receive WQE, as told to the device
 * @max_inline_data: inline bytes per send WQE
 * @sq_stride: bytes per send WQE (orca_send_wqe_stride())
 * @rq_stride: bytes per receive WQE (orca_recv_wqe_stride())
 * @sig_all: every send WQE generates a completion
 * @sq: send ring
 * @rq: receive ring; unused with an SRQ
 * @sq_wrid: the wr_id of each send ring slot, as posted
 * @rq_wrid: the wr_id of each receive ring slot, as posted; NULL with an SRQ
 * @db: doorbell record
 * @db_dma: bus address of @db
 * @sq_umem: user send ring
 * @rq_umem: user receive ring; NULL with an SRQ
 * @udb: user page holding the doorbell record
 * @lock: serialises modify_qp and query_qp against each other
 * @state: state after the last successful MODIFY_QP
 * @dead_last_wqe: a kernel QP on an SRQ got its IB_EVENT_QP_LAST_WQE_REACHED
 *	from the dead work (orca_qp_dead_last_wqe()), which alone uses it
 * @refcnt: references held by event handlers, plus one for the QP
 * @free: completed when @refcnt drops to zero
 * @sq_lock: serialises posting to the send queue
 * @sq_pi: send WQEs ever posted (free-running)
 * @sq_ci: send WQEs retired by polled CQEs; written by the send CQ's poller
 * @rq_lock: serialises posting to the receive queue
 * @rq_pi: receive WQEs ever posted
 * @rq_ci: receive WQEs retired; written by the receive CQ's poller
 * @xrcd: an XRC target QP's domain (the core sets ibqp.xrcd only after
 *	create_qp, and restrack may show the QP before)
 */
struct orca_qp {
	struct ib_qp ibqp;
	u32 qpn;
	u8 log_sq_depth;
	u8 log_rq_depth;
	u8 max_send_sge;
	u8 max_recv_sge;
	u32 max_inline_data;
	u32 sq_stride;
	u32 rq_stride;
	bool sig_all;
	bool user;
	struct orca_qbuf sq;
	struct orca_qbuf rq;
	u64 *sq_wrid;
	u64 *rq_wrid;
	struct orca_qp_db_rec *db;
	dma_addr_t db_dma;
	struct ib_umem *sq_umem;
	struct ib_umem *rq_umem;
	struct orca_udb_page *udb;
	struct mutex lock;		/* modify/query vs each other */
	enum ib_qp_state state;
	bool dead_last_wqe;
	refcount_t refcnt;
	struct completion free;
	spinlock_t sq_lock;		/* sq_pi, send ring */
	u32 sq_pi;
	u32 sq_ci;
	spinlock_t rq_lock;		/* rq_pi, receive ring */
	u32 rq_pi;
	u32 rq_ci;
	struct ib_xrcd *xrcd;
};

/**
 * struct orca_mr - a memory region
 * @ibmr: the core's MR
 * @pgl: FAST_REG page list the REG_MR WQE points at; @pgl.used entries
 *	 were filled by the last map_mr_sg
 * @page_shift: page size fixed at CREATE_MR; FAST_REG: of the last
 *		map_mr_sg, which the REG_MR WQE carries
 * @umem: pinned user memory of a user MR (an ib_umem_odp's if @odp)
 * @access: a user MR's IB_ACCESS_* as registered (rereg keeps them)
 * @odp: an on-demand MR (orca_odp.c): nothing pinned
 * @odp_users: fault work using it, plus one for the MR itself
 * @odp_done: completed when @odp_users drops to zero
 * @odp_gone: an implicit on-demand MR (the whole address space, whose
 *	umem is the core's implicit root and whose pages are in children of
 *	ORCA_ODP_CHILD_SHIFT bytes made at their first fault, orca_odp.c):
 *	the device has dropped the MR (DESTROY_MR done)
 * @odp_children: implicit: the children, by user address >> the shift
 * @odp_child_lock: implicit: serializes the making of a child
 * @odp_inval_lock: implicit: protects @odp_gone across an invalidation's
 *	MR_INVALIDATE and dereg's DESTROY_MR
 */
struct orca_mr {
	struct ib_mr ibmr;
	struct orca_pgl pgl;
	u8 page_shift;
	struct ib_umem *umem;
	int access;
	bool odp;
	refcount_t odp_users;
	struct completion odp_done;
	bool odp_gone;
	struct xarray odp_children;
	struct mutex odp_child_lock;	/* see above */
	struct mutex odp_inval_lock;	/* see above */
};

struct orca_mw {
	struct ib_mw ibmw;
};

struct orca_ah {
	struct ib_ah ibah;
	u32 ahn;
	u8 sl;
	struct orca_com_av av;		/* for query_ah */
};

static inline struct orca_pd *to_opd(struct ib_pd *ibpd)
{
	return container_of(ibpd, struct orca_pd, ibpd);
}

static inline struct orca_xrcd *to_oxrcd(struct ib_xrcd *ibxrcd)
{
	return container_of(ibxrcd, struct orca_xrcd, ibxrcd);
}

/*
 * The mark of an XRC target QP in orca_dev.qp_xa: it leaves the table
 * without any CQ lock held (it has no CQs), so a poller that finds its
 * number in a CQE must not touch it unreferenced (orca_poll.c).
 */
#define ORCA_QP_XA_XRC_TGT	XA_MARK_1

/* An XRC target QP has no rings, CQs, PD or doorbell record. */
static inline bool orca_qp_is_xrc_tgt(const struct orca_qp *qp)
{
	return qp->ibqp.qp_type == IB_QPT_XRC_TGT;
}

static inline bool orca_srq_is_xrc(const struct orca_srq *srq)
{
	return srq->ibsrq.srq_type == IB_SRQT_XRC;
}

static inline struct orca_cq *to_ocq(struct ib_cq *ibcq)
{
	return container_of(ibcq, struct orca_cq, ibcq);
}

static inline struct orca_qp *to_oqp(struct ib_qp *ibqp)
{
	return container_of(ibqp, struct orca_qp, ibqp);
}

static inline struct orca_srq *to_osrq(struct ib_srq *ibsrq)
{
	return container_of(ibsrq, struct orca_srq, ibsrq);
}

static inline struct orca_mr *to_omr(struct ib_mr *ibmr)
{
	return container_of(ibmr, struct orca_mr, ibmr);
}

static inline struct orca_ah *to_oah(struct ib_ah *ibah)
{
	return container_of(ibah, struct orca_ah, ibah);
}

/* orca_pd.c: PDs and XRC domains */
int orca_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);
int orca_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);
int orca_alloc_xrcd(struct ib_xrcd *ibxrcd, struct ib_udata *udata);
int orca_dealloc_xrcd(struct ib_xrcd *ibxrcd, struct ib_udata *udata);

/* orca_mr.c */
u32 orca_access_to_hw(struct orca_dev *odev, int access);
int orca_access_to_ib(u32 hw);
struct ib_mr *orca_get_dma_mr(struct ib_pd *ibpd, int access);
struct ib_mr *orca_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type type,
			    u32 max_num_sg);
int orca_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		   unsigned int *sg_offset);
int orca_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata);

/* orca_cq.c */
int orca_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		   struct uverbs_attr_bundle *attrs);
int orca_cq_setup(struct orca_dev *odev, struct orca_cq *cq,
		  const struct ib_cq_init_attr *attr,
		  const struct orca_ugeom *ug, size_t *bytes);
int orca_cq_finish(struct orca_dev *odev, struct orca_cq *cq,
		   const struct orca_pgl *pgl, bool *may_free);
bool orca_cq_remove(struct orca_dev *odev, struct orca_cq *cq);
struct orca_cq *orca_cq_get(struct orca_dev *odev, u32 cqn);
void orca_cq_put(struct orca_cq *cq);
int orca_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata);
int orca_modify_cq(struct ib_cq *ibcq, u16 cq_count, u16 cq_period);
void orca_cq_kick_armed(struct orca_dev *odev);

/* orca_qp.c */
int orca_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init_attr,
		   struct ib_udata *udata);
int orca_qp_setup(struct orca_dev *odev, struct orca_qp *qp,
		  struct ib_qp_init_attr *init, const struct orca_ugeom *ug,
		  struct orca_com_qp_params *p);
int orca_qp_finish(struct orca_dev *odev, struct orca_qp *qp,
		   const struct orca_com_qp_params *p, bool *may_free);
bool orca_qp_remove(struct orca_dev *odev, struct orca_qp *qp);
int orca_create_xrc_tgt(struct orca_dev *odev, struct orca_qp *qp,
			struct ib_qp_init_attr *init);
struct orca_qp *orca_qp_get(struct orca_dev *odev, u32 qpn);
void orca_qp_put(struct orca_qp *qp);
int orca_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		   struct ib_udata *udata);
int orca_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		  struct ib_qp_init_attr *init_attr);
int orca_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata);
int orca_attach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid);
int orca_detach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid);
void orca_qp_set_err_state(struct orca_qp *qp, enum ib_qp_state state);
void orca_qp_dead_last_wqe(struct orca_dev *odev);

/* orca_srq.c */
int orca_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init_attr,
		    struct ib_udata *udata);
int orca_srq_setup(struct orca_dev *odev, struct orca_srq *srq,
		   struct ib_srq_init_attr *init_attr,
		   const struct orca_ugeom *ug, size_t *bytes);
int orca_srq_finish(struct orca_dev *odev, struct orca_srq *srq,
		    const struct orca_pgl *pgl, bool *may_free);
bool orca_srq_remove(struct orca_dev *odev, struct orca_srq *srq);
bool orca_srq_complete(struct orca_srq *srq, u16 wqe_idx, u64 *wr_id);
struct orca_srq *orca_srq_get(struct orca_dev *odev, u32 srqn);
void orca_srq_put(struct orca_srq *srq);
int orca_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		    enum ib_srq_attr_mask mask, struct ib_udata *udata);
int orca_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr);
int orca_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata);

/* orca_ah.c */
void orca_av_from_ah_attr(struct orca_com_av *av,
			  const struct rdma_ah_attr *ah_attr);
int orca_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init_attr,
		   struct ib_udata *udata);
int orca_destroy_ah(struct ib_ah *ibah, u32 flags);
int orca_query_ah(struct ib_ah *ibah, struct rdma_ah_attr *ah_attr);
int orca_ah_create_cmd(struct orca_dev *odev, struct orca_ah *ah,
		       const struct orca_com_av *av, bool sleepable);
void orca_ah_destroy_cmd(struct orca_dev *odev, u32 ahn, bool sleepable);
int orca_ah_orphans_init(struct orca_dev *odev);
void orca_ah_stop_orphans(struct orca_dev *odev);
void orca_ah_orphans_cleanup(struct orca_dev *odev);
void orca_ah_flush_orphans(struct orca_dev *odev);

/* orca_post.c: send and receive work requests */
int orca_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		   const struct ib_send_wr **bad_wr);
int orca_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		   const struct ib_recv_wr **bad_wr);
int orca_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
		       const struct ib_recv_wr **bad_wr);
void orca_qp_reset_indices(struct orca_qp *qp);

/* orca_poll.c: completions */
int orca_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc);
int orca_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags);
void orca_qp_clean_cqs(struct orca_dev *odev, struct orca_qp *qp,
		       bool unlink);
void orca_srq_clean_cq(struct orca_srq *srq);

/*
 * User objects, where the paths they share with kernel objects differ
 * (orca_ucontext.c, orca_umem.c, orca_user_pd.c, orca_user_qp.c,
 * orca_user_srq.c)
 */
__printf(2, 3) int orca_uqueue_refuse(struct orca_dev *odev,
				      const char *fmt, ...);
int orca_uqueue_depth(struct orca_dev *odev, const char *what, u32 count,
		      u32 asked, u32 max, u8 *log_depth);
int orca_uqueue_stride(struct orca_dev *odev, const char *what, u32 stride,
		       bool recv, u32 asked, u32 max, u32 *sge);
int orca_user_pd_respond(struct orca_pd *pd, struct ib_udata *udata);
void orca_udb_put(struct orca_udb_page *page);
void orca_user_keep(struct orca_dev *odev, struct orca_udb_page *udb,
		    struct ib_umem *ring, struct ib_umem *ring2);
void orca_udb_read(const struct orca_udb_page *page, dma_addr_t dma,
		   void *buf, size_t len);
int orca_create_user_qp(struct orca_qp *qp, struct ib_qp_init_attr *init,
			struct ib_udata *udata);
int orca_create_user_xrc_tgt(struct orca_qp *qp, struct ib_qp_init_attr *init,
			     struct ib_udata *udata);
void orca_user_qp_free(struct orca_qp *qp);
int orca_create_user_srq(struct orca_srq *srq,
			 struct ib_srq_init_attr *init_attr,
			 struct ib_udata *udata);
int orca_resize_user_srq(struct orca_dev *odev, struct orca_srq *srq,
			 u32 max_wr, struct ib_udata *udata);

/* orca_odp.c: on-demand paging (IB_ACCESS_ON_DEMAND), explicit MRs */
struct ib_mr *orca_odp_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
				   u64 iova, int access);
int orca_odp_dereg_mr(struct orca_dev *odev, struct orca_mr *mr);
int orca_mr_create(struct orca_dev *odev, struct orca_mr *mr,
		   const struct orca_com_mr_params *p);
int orca_advise_mr(struct ib_pd *pd, enum ib_uverbs_advise_mr_advice advice,
		   u32 flags, struct ib_sge *sg_list, u32 num_sge,
		   struct uverbs_attr_bundle *attrs);

#endif /* ORCA_VERBS_H */

// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ORCA provider QPs (RC, UC, UD and XRC): the rings and the doorbell record are
 * allocated here, with the fewest WQEs and the smallest strides the
 * capabilities need, and that geometry goes to the kernel in the request
 * (orca-abi.h), which programs the adapter with it and reports the
 * capabilities it gives.  The provider owns the indices, so it also does
 * what the kernel does for its own QPs on a reset or destroy: drop the
 * QP's CQEs from its CQs and restart the indices at 0.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "orca.h"
#include "orca_abi.h"

struct orca_qp_geometry {
	uint32_t log_sq_depth;
	uint32_t sq_stride;
	uint32_t log_rq_depth;
	uint32_t rq_stride;	/* 0 with an SRQ */
	size_t sq_bytes;
	size_t rq_bytes;
};

/*
 * A receive queue of its own: not with an SRQ, nor on an XRC initiator,
 * whose receives are its targets' XRC SRQs.
 */
static bool orca_qp_has_rq(const struct ibv_qp_init_attr *attr)
{
	return !attr->srq && attr->qp_type != IBV_QPT_XRC_SEND;
}

static int orca_qp_geometry(struct orca_context *ctx,
			    const struct ibv_qp_init_attr *attr,
			    struct orca_qp_geometry *g)
{
	const struct ibv_qp_cap *cap = &attr->cap;
	uint32_t inline_sge, send_sge;

	/* The kernel checks the limits too; this keeps allocations sane. */
	if (cap->max_send_wr > ctx->max_sq_depth ||
	    cap->max_send_sge > min_t(uint32_t, ctx->max_send_sge, ORCA_MAX_SGE) ||
	    cap->max_inline_data > ctx->max_inline_data ||
	    (orca_qp_has_rq(attr) && (cap->max_recv_wr > ctx->max_sq_depth ||
			    cap->max_recv_sge > min_t(uint32_t, ctx->max_recv_sge,
						    ORCA_MAX_SGE))))
		return EINVAL;

	/* Inline data takes the place of SGEs in the send WQE. */
	inline_sge = (cap->max_inline_data + sizeof(struct orca_sge) - 1) /
		     sizeof(struct orca_sge);
	send_sge = max_t(uint32_t, max(cap->max_send_sge, inline_sge), 1);
	if (send_sge > min_t(uint32_t, ctx->max_send_sge, ORCA_MAX_SGE))
		return EINVAL;
	g->log_sq_depth = orca_log_depth(cap->max_send_wr);
	g->sq_stride = orca_send_wqe_stride(send_sge);
	g->sq_bytes = align((size_t)g->sq_stride << g->log_sq_depth,
			    ORCA_UQUEUE_ALIGN);

	if (!orca_qp_has_rq(attr)) {
		g->log_rq_depth = 0;
		g->rq_stride = 0;
		g->rq_bytes = 0;
	} else {
		g->log_rq_depth = orca_log_depth(cap->max_recv_wr);
		g->rq_stride = orca_recv_wqe_stride(max_t(uint32_t,
							  cap->max_recv_sge,
							  1));
		g->rq_bytes = align((size_t)g->rq_stride << g->log_rq_depth,
				    ORCA_UQUEUE_ALIGN);
	}
	return 0;
}

/*
 * What the kernel reports (@attr->cap, after CREATE_QP) must fit the rings:
 * as many WQEs as they have, and SGEs and inline data their strides hold.
 */
static bool orca_qp_caps_fit(const struct orca_qp_geometry *g,
			     const struct ibv_qp_init_attr *attr)
{
	const struct ibv_qp_cap *cap = &attr->cap;
	size_t room = g->sq_stride - sizeof(struct orca_send_wqe_hdr);

	if (cap->max_send_wr != 1U << g->log_sq_depth ||
	    !cap->max_send_sge ||
	    cap->max_send_sge > room / sizeof(struct orca_sge) ||
	    cap->max_inline_data > room)
		return false;
	if (!orca_qp_has_rq(attr))
		return !cap->max_recv_wr && !cap->max_recv_sge;
	room = g->rq_stride - sizeof(struct orca_recv_wqe_hdr);
	return cap->max_recv_wr == 1U << g->log_rq_depth && cap->max_recv_sge &&
	       cap->max_recv_sge <= room / sizeof(struct orca_sge);
}

/*
 * A table of 24-bit numbers (QPs, XRC SRQs), second-level chunks allocated
 * on first use and freed with the context.  Inserted and removed under the
 * table's mutex, held from the CREATE that gave the number to the
 * insertion and from the DESTROY to the removal: a number the kernel hands
 * out is then never still listed for an object being destroyed.
 */
int orca_table_insert(void **table[], uint32_t n, void *obj)
{
	uint32_t hi = n >> ORCA_QP_TABLE_SHIFT;
	uint32_t lo = n & (ORCA_QP_TABLE_L2 - 1);

	if (hi >= ORCA_QP_TABLE_L1)
		return EPROTO;
	if (!table[hi]) {
		void **chunk;

		chunk = calloc(ORCA_QP_TABLE_L2, sizeof(*chunk));
		if (!chunk)
			return ENOMEM;
		__atomic_store_n(&table[hi], chunk, __ATOMIC_RELEASE);
	}
	if (table[hi][lo])
		return EEXIST;
	__atomic_store_n(&table[hi][lo], obj, __ATOMIC_RELEASE);
	return 0;
}

/*
 * Also under the lock of the CQs whose pollers may find @obj, so that a
 * poller that found it is done with it.
 */
void orca_table_remove(void **table[], uint32_t n, void *obj)
{
	uint32_t hi = n >> ORCA_QP_TABLE_SHIFT;
	uint32_t lo = n & (ORCA_QP_TABLE_L2 - 1);

	if (hi < ORCA_QP_TABLE_L1 && table[hi] && table[hi][lo] == obj)
		__atomic_store_n(&table[hi][lo], NULL, __ATOMIC_RELAXED);
}

/* Pollers, under a CQ lock; chunks are freed only with the context. */
void *orca_table_lookup(void **table[], uint32_t n)
{
	uint32_t hi = n >> ORCA_QP_TABLE_SHIFT;
	void **chunk;

	if (hi >= ORCA_QP_TABLE_L1)
		return NULL;
	chunk = __atomic_load_n(&table[hi], __ATOMIC_ACQUIRE);
	if (!chunk)
		return NULL;
	return __atomic_load_n(&chunk[n & (ORCA_QP_TABLE_L2 - 1)],
			       __ATOMIC_ACQUIRE);
}

/*
 * Called with qp_table_mutex held since before DESTROY_QP, and the QP's CQ
 * locks (orca_qp_clean_cqs()).
 */
void orca_qp_table_remove(struct orca_context *ctx, struct orca_qp *qp)
{
	orca_table_remove(ctx->qp_table, qp->qpn, qp);
}

struct orca_qp *orca_qp_lookup(struct orca_context *ctx, uint32_t qpn)
{
	return orca_table_lookup(ctx->qp_table, qpn);
}

/* The SGEs per WQE are the kernel's answer, set once it came. */
static void orca_qp_init_wq(struct orca_wq *wq, uint8_t *buf,
			    uint32_t log_depth, uint32_t stride,
			    bool need_lock)
{
	orca_lock_init(&wq->lock, need_lock);
	wq->buf = buf;
	wq->log_depth = log_depth;
	wq->stride = stride;
}

enum {
	ORCA_QP_COMP_MASK_SUP = IBV_QP_INIT_ATTR_PD |
				IBV_QP_INIT_ATTR_XRCD |
				IBV_QP_INIT_ATTR_CREATE_FLAGS |
				IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
	/* No IBV_QP_CREATE_* flag: the driver refuses them all, as rxe. */
	ORCA_QP_CREATE_FLAGS_SUP = 0,
};

/* Attributes ORCA has not got: EOPNOTSUPP, as rxe answers. */
static int orca_check_qp_init_attr(struct orca_context *ctx,
				   const struct ibv_qp_init_attr_ex *attr)
{
	bool xrc = attr->qp_type == IBV_QPT_XRC_SEND ||
		   attr->qp_type == IBV_QPT_XRC_RECV;

	if (attr->qp_type != IBV_QPT_RC && attr->qp_type != IBV_QPT_UC &&
	    attr->qp_type != IBV_QPT_UD && !xrc)
		return EOPNOTSUPP;
	if (xrc && !(ctx->caps & ORCA_UCTX_CAP_XRC))
		return EOPNOTSUPP;
	if (attr->comp_mask & ~ORCA_QP_COMP_MASK_SUP)
		return EOPNOTSUPP;
	/* A target QP is in a domain, with no PD, queues or CQs. */
	if (attr->qp_type == IBV_QPT_XRC_RECV) {
		if (!(attr->comp_mask & IBV_QP_INIT_ATTR_XRCD) || !attr->xrcd)
			return EINVAL;
		if ((attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) &&
		    attr->send_ops_flags)
			return EOPNOTSUPP;
		return 0;
	}
	if (!(attr->comp_mask & IBV_QP_INIT_ATTR_PD) || !attr->pd)
		return EINVAL;
	/* XRC SRQs serve target QPs only. */
	if (attr->srq && (attr->qp_type == IBV_QPT_XRC_SEND ||
			  to_osrq(attr->srq)->vsrq.srq_type != IBV_SRQT_BASIC))
		return EINVAL;
	if ((attr->comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS) &&
	    (attr->create_flags & ~ORCA_QP_CREATE_FLAGS_SUP))
		return EOPNOTSUPP;
	if ((attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) &&
	    (attr->send_ops_flags &
	     ~orca_send_ops_supported(ctx, attr->qp_type)))
		return EOPNOTSUPP;
	return 0;
}

/* A QP with no queues: an XRC target, created or opened. */
static struct orca_qp *orca_qp_alloc_tgt(void)
{
	struct orca_qp *qp = calloc(1, sizeof(*qp));

	if (!qp)
		return NULL;
	orca_lock_init(&qp->sq.lock, false);
	orca_lock_init(&qp->rq.lock, false);
	return qp;
}

/* Undo orca_qp_alloc_tgt() for a target QP the kernel did not give. */
static void orca_qp_free_tgt(struct orca_qp *qp)
{
	orca_lock_destroy(&qp->sq.lock);
	orca_lock_destroy(&qp->rq.lock);
	free(qp);
}

/*
 * IBV_QPT_XRC_RECV: the kernel creates a target QP with no rings, CQs or
 * doorbell record, in the domain; the core does it without driver data in
 * 7.3 (ib_create_qp_user()), so its number is the core response's.  It
 * takes no CQE of its own and is in no table: the CQEs of its messages
 * name their XRC SRQs, whose owners find them (orca_poll.c).
 */
static struct ibv_qp *orca_create_xrc_tgt(struct ibv_context *context,
					  struct ibv_qp_init_attr_ex *attr)
{
	struct orca_ucmd_create_qp_ex_resp resp = {};
	struct orca_ucmd_create_qp_ex cmd = {};
	struct orca_qp *qp;
	int err;

	qp = orca_qp_alloc_tgt();
	if (!qp) {
		errno = ENOMEM;
		return NULL;
	}
	err = ibv_cmd_create_qp_ex2(context, &qp->vqp, attr, &cmd.ibv_cmd,
				    sizeof(cmd), &resp.ibv_resp, sizeof(resp));
	if (err) {
		orca_qp_free_tgt(qp);
		errno = err;
		return NULL;
	}
	qp->qpn = qp->vqp.qp.qp_num;
	qp->state = IBV_QPS_RESET;
	return &qp->vqp.qp;
}

/*
 * ibv_open_qp(): another process's (or this one's) XRC target QP, by its
 * number in a domain both have opened; the kernel shares the QP (the
 * core's ib_open_qp()), the adapter knows nothing of it.
 */
struct ibv_qp *orca_open_qp(struct ibv_context *context,
			    struct ibv_qp_open_attr *attr)
{
	struct ib_uverbs_create_qp_resp resp = {};
	struct ibv_open_qp cmd = {};
	struct orca_qp *qp;
	int err;

	qp = orca_qp_alloc_tgt();
	if (!qp) {
		errno = ENOMEM;
		return NULL;
	}
	err = ibv_cmd_open_qp(context, &qp->vqp, sizeof(qp->vqp), attr, &cmd,
			      sizeof(cmd), &resp, sizeof(resp));
	if (err) {
		orca_qp_free_tgt(qp);
		errno = err;
		return NULL;
	}
	qp->qpn = qp->vqp.qp.qp_num;
	qp->state = IBV_QPS_UNKNOWN;
	return &qp->vqp.qp;
}

/*
 * ibv_create_qp() and ibv_create_qp_ex() both come here; with
 * send_ops_flags the QP gets the ibv_wr_* calls (orca_post.c).
 */
struct ibv_qp *orca_create_qp_ex(struct ibv_context *context,
				 struct ibv_qp_init_attr_ex *attr)
{
	struct orca_context *ctx = to_octx(context);
	/* The layout of ibv_qp_init_attr's members is the same. */
	struct ibv_qp_init_attr *base = (struct ibv_qp_init_attr *)attr;
	struct orca_ucmd_create_qp_ex_resp resp = {};
	struct orca_ucmd_create_qp_ex cmd = {};
	struct orca_qp_geometry g;
	struct orca_pd *parent;
	bool need_lock;
	struct orca_qp *qp;
	uint8_t *buf;
	int err;

	err = orca_check_qp_init_attr(ctx, attr);
	if (!err && attr->qp_type == IBV_QPT_XRC_RECV)
		return orca_create_xrc_tgt(context, attr);
	if (!err)
		err = orca_qp_geometry(ctx, base, &g);
	if (err) {
		errno = err;
		return NULL;
	}
	parent = orca_parent_domain(attr->pd);
	qp = calloc(1, sizeof(*qp));
	if (!qp) {
		errno = ENOMEM;
		return NULL;
	}
	/* The wr_id of each slot, as posted (orca_post.c, orca_poll.c). */
	qp->sq.wrid = calloc(1U << g.log_sq_depth, sizeof(uint64_t));
	qp->rq.wrid = g.rq_bytes ? calloc(1U << g.log_rq_depth,
					  sizeof(uint64_t)) : NULL;
	if (!qp->sq.wrid || (g.rq_bytes && !qp->rq.wrid)) {
		err = ENOMEM;
		goto err_free;
	}
	/* One buffer: SQ pages, then RQ pages, as the adapter is told. */
	err = orca_ring_alloc_pd(ctx, &qp->ring, g.sq_bytes + g.rq_bytes,
				 parent, ORCA_RES_TYPE_QP);
	if (err)
		goto err_free;
	qp->db = orca_db_alloc(ctx);
	if (!qp->db) {
		err = ENOMEM;
		goto err_ring;
	}
	buf = qp->ring.buf;
	/* On a thread domain, one thread posts (ibv_alloc_td(3)). */
	need_lock = !parent || !parent->td;
	orca_qp_init_wq(&qp->sq, buf, g.log_sq_depth, g.sq_stride, need_lock);
	orca_qp_init_wq(&qp->rq, g.rq_bytes ? buf + g.sq_bytes : NULL,
			g.log_rq_depth, g.rq_stride, need_lock);
	qp->sig_all = attr->sq_sig_all;
	qp->state = IBV_QPS_RESET;

	cmd.db_rec_va = (uintptr_t)qp->db;
	cmd.sq_buf_va = (uintptr_t)buf;
	cmd.sq_buf_len = g.sq_bytes;
	cmd.sq_wqe_count = 1U << g.log_sq_depth;
	cmd.sq_stride = g.sq_stride;
	if (g.rq_bytes) {
		cmd.rq_buf_va = (uintptr_t)(buf + g.sq_bytes);
		cmd.rq_buf_len = g.rq_bytes;
		cmd.rq_wqe_count = 1U << g.log_rq_depth;
		cmd.rq_stride = g.rq_stride;
	}
	/*
	 * Held from CREATE_QP to the insertion, as orca_destroy_qp() holds it
	 * from DESTROY_QP to the removal (mlx5's rule): else the kernel may
	 * hand out the QPN of a QP another thread is destroying while that
	 * QP is still in the table.
	 */
	pthread_mutex_lock(&ctx->qp_table_mutex);
	err = ibv_cmd_create_qp_ex2(context, &qp->vqp, attr, &cmd.ibv_cmd,
				    sizeof(cmd), &resp.ibv_resp, sizeof(resp));
	if (err)
		goto err_unlock;
	if (!orca_qp_caps_fit(&g, base)) {
		verbs_err(&ctx->ibv_ctx,
			  "orca: QP %u: the kernel's capabilities (WQEs %u/%u, SGEs %u/%u, inline %u) do not fit the rings\n",
			  resp.qpn, base->cap.max_send_wr, base->cap.max_recv_wr,
			  base->cap.max_send_sge, base->cap.max_recv_sge,
			  base->cap.max_inline_data);
		err = EPROTO;
		goto err_destroy;
	}
	qp->sq.max_sge = base->cap.max_send_sge;
	qp->rq.max_sge = base->cap.max_recv_sge;
	qp->max_inline_data = base->cap.max_inline_data;
	qp->qpn = resp.qpn;
	if (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) {
		orca_qp_init_send_ops(qp, attr->send_ops_flags);
		qp->vqp.comp_mask |= VERBS_QP_EX;
	}
	err = orca_table_insert(ctx->qp_table, qp->qpn, qp);
	if (err)
		goto err_destroy;
	pthread_mutex_unlock(&ctx->qp_table_mutex);
	if (parent) {
		qp->parent = parent;
		orca_parent_get(parent);
	}
	return &qp->vqp.qp;

err_destroy:
	ibv_cmd_destroy_qp(&qp->vqp.qp);
err_unlock:
	pthread_mutex_unlock(&ctx->qp_table_mutex);
	orca_lock_destroy(&qp->sq.lock);
	orca_lock_destroy(&qp->rq.lock);
	orca_db_free(ctx, qp->db);
err_ring:
	orca_ring_free(&qp->ring);
err_free:
	free(qp->rq.wrid);
	free(qp->sq.wrid);
	free(qp);
	errno = err;
	return NULL;
}

struct ibv_qp *orca_create_qp(struct ibv_pd *pd,
			      struct ibv_qp_init_attr *attr)
{
	struct ibv_qp_init_attr_ex attr_ex = {};
	struct ibv_qp *qp;

	memcpy(&attr_ex, attr, sizeof(*attr));
	attr_ex.comp_mask = IBV_QP_INIT_ATTR_PD;
	attr_ex.pd = pd;
	qp = orca_create_qp_ex(pd->context, &attr_ex);
	if (qp)
		attr->cap = attr_ex.cap;
	return qp;
}

int orca_modify_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
		   int attr_mask)
{
	struct orca_qp *qp = to_oqp(ibqp);
	struct ibv_modify_qp cmd = {};
	int err;

	err = ibv_cmd_modify_qp(ibqp, attr, attr_mask, &cmd, sizeof(cmd));
	if (err)
		return err;
	if (!(attr_mask & IBV_QP_STATE))
		return 0;
	/*
	 * After a reset the adapter restarts both queues at index 0 and has
	 * zeroed the event indices: CQEs from before are stale (they would
	 * retire WQEs by old indices), and our indices follow the adapter's.
	 */
	if (attr->qp_state == IBV_QPS_RESET &&
	    ibqp->qp_type != IBV_QPT_XRC_RECV) {
		orca_qp_clean_cqs(qp, false);
		orca_qp_reset_indices(qp);
	}
	__atomic_store_n(&qp->state, attr->qp_state, __ATOMIC_RELEASE);
	return 0;
}

int orca_query_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
		  int attr_mask, struct ibv_qp_init_attr *init_attr)
{
	struct ibv_query_qp cmd = {};
	int err;

	err = ibv_cmd_query_qp(ibqp, attr, attr_mask, init_attr, &cmd,
			       sizeof(cmd));
	if (err)
		return err;
	/* The adapter may have moved the QP (to ERR, SQE) by itself. */
	__atomic_store_n(&to_oqp(ibqp)->state, attr->qp_state,
			 __ATOMIC_RELEASE);
	return 0;
}

int orca_destroy_qp(struct ibv_qp *ibqp)
{
	struct orca_context *ctx = to_octx(ibqp->context);
	struct orca_qp *qp = to_oqp(ibqp);
	int err;

	/* A target QP, created or opened: no table, rings or CQs. */
	if (ibqp->qp_type == IBV_QPT_XRC_RECV) {
		err = ibv_cmd_destroy_qp(ibqp);
		if (err)
			return err;
		orca_lock_destroy(&qp->sq.lock);
		orca_lock_destroy(&qp->rq.lock);
		free(qp);
		return 0;
	}
	/* Until the QPN leaves the table: see orca_create_qp(). */
	pthread_mutex_lock(&ctx->qp_table_mutex);
	err = ibv_cmd_destroy_qp(ibqp);
	if (err) {
		pthread_mutex_unlock(&ctx->qp_table_mutex);
		return err;
	}
	/* The kernel leaves the CQs of user QPs to us. */
	orca_qp_clean_cqs(qp, true);
	pthread_mutex_unlock(&ctx->qp_table_mutex);
	orca_lock_destroy(&qp->sq.lock);
	orca_lock_destroy(&qp->rq.lock);
	orca_db_free(ctx, qp->db);
	orca_ring_free(&qp->ring);
	if (qp->parent)
		orca_parent_put(qp->parent);
	free(qp->rq.wrid);
	free(qp->sq.wrid);
	free(qp);
	return 0;
}

/*
 * rxe's answer (its provider leaves the op to libibverbs' default, 0): no
 * promise that a message's data is placed in order.  The adapter copies a
 * packet's payload with memcpy(), which may write its end first.
 */
int orca_query_qp_data_in_order(struct ibv_qp *ibqp, enum ibv_wr_opcode op,
				uint32_t flags)
{
	return 0;
}

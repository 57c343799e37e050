// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ORCA provider SRQs, plain and XRC: a ring of receive WQEs and a doorbell record in this
 * process, created on the adapter by the kernel (tagged when it can be:
 * the CQEs then name the records themselves), and the records of the WQEs
 * outstanding (orca_wqe_track.h).  Posting is in orca_post.c, completion
 * in orca_poll.c.  A resize moves the SRQ to a new ring and its records to
 * arrays of the new depth.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "orca.h"
#include "orca_abi.h"

static size_t orca_srq_bytes(struct orca_srq *srq, uint32_t log_depth)
{
	return align((size_t)srq->stride << log_depth, ORCA_UQUEUE_ALIGN);
}

static void orca_srq_free_records(struct orca_srq_recs *recs)
{
	free(recs->wrid);
	free(recs->posted);
	free(recs->free);
	recs->wrid = NULL;
	recs->posted = NULL;
	recs->free = NULL;
}

/*
 * Records for 1 << @log_depth WQEs, none outstanding, tagged if
 * @recs->tagged is set; none allocated on failure.
 */
static int orca_srq_alloc_records(struct orca_srq_recs *recs,
				  uint32_t log_depth)
{
	uint32_t n = 1U << log_depth;

	recs->wrid = calloc(n, sizeof(*recs->wrid));
	recs->posted = bitmap_alloc0(n);
	recs->free = recs->tagged ? calloc(n, sizeof(*recs->free)) : NULL;
	if (!recs->wrid || !recs->posted || (recs->tagged && !recs->free)) {
		orca_srq_free_records(recs);
		return ENOMEM;
	}
	orca_srq_recs_init(recs, log_depth);
	return 0;
}

/* The smallest depth its WQEs outstanding fit in (orca_srq_rec_span()). */
static uint32_t orca_srq_records_span(struct orca_srq *srq)
{
	uint32_t span;

	pthread_spin_lock(&srq->wr_lock);
	span = orca_srq_rec_span(&srq->recs, srq->log_depth, srq->pi);
	pthread_spin_unlock(&srq->wr_lock);
	return span;
}

/*
 * Move the records to @recs, of @log_depth (at least the span), and take
 * them; the old records are returned in their place.
 */
static void orca_srq_swap_records(struct orca_srq *srq, uint32_t log_depth,
				  struct orca_srq_recs *recs)
{
	struct orca_srq_recs old;

	pthread_spin_lock(&srq->wr_lock);
	orca_srq_recs_move(&srq->recs, srq->log_depth, recs, log_depth,
			   srq->pi);
	old = srq->recs;
	srq->recs = *recs;
	srq->log_depth = log_depth;
	pthread_spin_unlock(&srq->wr_lock);
	*recs = old;
}

/*
 * A plain SRQ (@attr of type IBV_SRQT_BASIC) or an XRC SRQ, whose receive
 * CQEs name it by number on its CQ (@attr->cq) for the target QPs of its
 * domain (@attr->xrcd): those are found in the context's SRQ table, where
 * it goes under srq_table_mutex held from CREATE_SRQ on, as QPs go in
 * theirs.
 */
static struct ibv_srq *orca_srq_create(struct orca_context *ctx,
				       struct ibv_pd *pd,
				       struct ibv_srq_init_attr_ex *attr)
{
	bool xrc = (attr->comp_mask & IBV_SRQ_INIT_ATTR_TYPE) &&
		   attr->srq_type == IBV_SRQT_XRC;
	struct orca_ucmd_create_xsrq_resp resp = {};
	struct orca_ucmd_create_xsrq xcmd = {};
	struct orca_ucmd_create_srq cmd = {};
	struct orca_srq *srq;
	int err;

	/* The kernel checks the limits too; this keeps allocations sane. */
	if (attr->attr.max_wr > ctx->max_srq_wr ||
	    attr->attr.max_sge > ctx->max_srq_sge) {
		errno = EINVAL;
		return NULL;
	}
	srq = calloc(1, sizeof(*srq));
	if (!srq) {
		errno = ENOMEM;
		return NULL;
	}
	/* The fewest WQEs and the smallest stride the attributes need. */
	srq->log_depth = orca_log_depth(attr->attr.max_wr);
	srq->stride = orca_recv_wqe_stride(max_t(uint32_t, attr->attr.max_sge,
						 1));
	err = orca_ring_alloc_pd(ctx, &srq->ring,
				 orca_srq_bytes(srq, srq->log_depth),
				 orca_parent_domain(pd), ORCA_RES_TYPE_SRQ);
	if (err)
		goto err_free;
	srq->db = orca_db_alloc(ctx);
	if (!srq->db) {
		err = ENOMEM;
		goto err_ring;
	}
	pthread_spin_init(&srq->lock, PTHREAD_PROCESS_PRIVATE);
	pthread_spin_init(&srq->wr_lock, PTHREAD_PROCESS_PRIVATE);
	/* Records freed in any order are reused at once (orca_wqe_track.h). */
	srq->recs.tagged = ctx->caps & ORCA_UCTX_CAP_SRQ_TAG;
	err = orca_srq_alloc_records(&srq->recs, srq->log_depth);
	if (err)
		goto err_db;

	if (srq->recs.tagged)
		cmd.comp_mask |= ORCA_CREATE_SRQ_MASK_TAG;
	cmd.wqe_count = 1U << srq->log_depth;
	cmd.stride = srq->stride;
	cmd.buf_va = (uintptr_t)srq->ring.buf;
	cmd.buf_len = srq->ring.len;
	cmd.db_rec_va = (uintptr_t)srq->db;
	if (xrc) {
		/* The same driver data after another core command. */
		xcmd.drv_payload = cmd.drv_payload;
		pthread_mutex_lock(&ctx->srq_table_mutex);
		err = ibv_cmd_create_srq_ex(&ctx->ibv_ctx.context, &srq->vsrq,
					    attr, &xcmd.ibv_cmd, sizeof(xcmd),
					    &resp.ibv_resp, sizeof(resp));
	} else {
		err = ibv_cmd_create_srq(pd, &srq->vsrq.srq,
					 (struct ibv_srq_init_attr *)attr,
					 &cmd.ibv_cmd, sizeof(cmd),
					 &resp.ibv_resp, sizeof(resp));
		srq->vsrq.srq_type = IBV_SRQT_BASIC;
	}
	if (err)
		goto err_unlock;
	/* What the kernel reports must fit the ring (orca-abi.h). */
	if (attr->attr.max_wr != 1U << srq->log_depth || !attr->attr.max_sge ||
	    attr->attr.max_sge > (srq->stride - sizeof(struct orca_recv_wqe_hdr)) /
				 sizeof(struct orca_sge) ||
	    (xrc && srq->vsrq.srq_num != resp.srqn)) {
		verbs_err(&ctx->ibv_ctx,
			  "orca: SRQ %u (%u): the kernel's %u WQEs of %u SGEs do not fit the ring\n",
			  resp.srqn, srq->vsrq.srq_num, attr->attr.max_wr,
			  attr->attr.max_sge);
		err = EPROTO;
		goto err_destroy;
	}
	srq->max_sge = attr->attr.max_sge;
	srq->srqn = resp.srqn;
	if (xrc) {
		err = orca_table_insert(ctx->srq_table, srq->srqn, srq);
		if (err)
			goto err_destroy;
		pthread_mutex_unlock(&ctx->srq_table_mutex);
	}
	srq->parent = orca_parent_domain(pd);
	if (srq->parent)
		orca_parent_get(srq->parent);
	return &srq->vsrq.srq;

err_destroy:
	ibv_cmd_destroy_srq(&srq->vsrq.srq);
err_unlock:
	if (xrc)
		pthread_mutex_unlock(&ctx->srq_table_mutex);
err_db:
	orca_srq_free_records(&srq->recs);
	pthread_spin_destroy(&srq->wr_lock);
	pthread_spin_destroy(&srq->lock);
	orca_db_free(ctx, srq->db);
err_ring:
	orca_ring_free(&srq->ring);
err_free:
	free(srq);
	errno = err;
	return NULL;
}

struct ibv_srq *orca_create_srq(struct ibv_pd *pd,
				struct ibv_srq_init_attr *attr)
{
	struct ibv_srq_init_attr_ex ax = {};
	struct ibv_srq *srq;

	memcpy(&ax, attr, sizeof(*attr));
	ax.comp_mask = IBV_SRQ_INIT_ATTR_PD;
	ax.pd = pd;
	srq = orca_srq_create(to_octx(pd->context), pd, &ax);
	if (srq)
		attr->attr = ax.attr;
	return srq;
}

enum {
	ORCA_SRQ_COMP_MASK_SUP = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD |
				 IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ,
};

/*
 * ibv_create_srq_ex(): a plain SRQ, or (ORCA_UCTX_CAP_XRC) an XRC SRQ with
 * its PD, domain and CQ; no tag matching.
 */
struct ibv_srq *orca_create_srq_ex(struct ibv_context *context,
				   struct ibv_srq_init_attr_ex *attr)
{
	struct orca_context *ctx = to_octx(context);
	enum ibv_srq_type type = IBV_SRQT_BASIC;

	if (attr->comp_mask & IBV_SRQ_INIT_ATTR_TYPE)
		type = attr->srq_type;
	if ((attr->comp_mask & ~ORCA_SRQ_COMP_MASK_SUP) ||
	    (type != IBV_SRQT_BASIC && type != IBV_SRQT_XRC) ||
	    (type == IBV_SRQT_XRC && !(ctx->caps & ORCA_UCTX_CAP_XRC))) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (!(attr->comp_mask & IBV_SRQ_INIT_ATTR_PD) || !attr->pd ||
	    (type == IBV_SRQT_XRC &&
	     (!(attr->comp_mask & IBV_SRQ_INIT_ATTR_XRCD) || !attr->xrcd ||
	      !(attr->comp_mask & IBV_SRQ_INIT_ATTR_CQ) || !attr->cq))) {
		errno = EINVAL;
		return NULL;
	}
	return orca_srq_create(ctx, attr->pd, attr);
}

/* The number initiators name in their WQEs (ibv_get_srq_num(3)). */
int orca_get_srq_num(struct ibv_srq *ibsrq, uint32_t *srq_num)
{
	*srq_num = to_osrq(ibsrq)->srqn;
	return 0;
}

/*
 * IBV_SRQ_MAX_WR moves the SRQ to a new ring, of the fewest WQEs that
 * max_wr needs and the SRQ's stride (orca-abi.h): the adapter copies the
 * WQEs posted and not taken to it at their indices, so they are taken in
 * order, and the records of the WQEs not completed move to arrays of the
 * new depth (orca_srq_recs_move()).  Posting waits on the SRQ's lock
 * meanwhile, as the adapter copies what the doorbell record says is
 * posted; polling goes on.  A depth below the span of the records in use
 * (orca_srq_rec_span(): at least the WQEs outstanding) is refused (EINVAL),
 * since their records must stay distinct.  IBV_SRQ_LIMIT alone carries no
 * driver data.
 */
int orca_modify_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr,
		    int attr_mask)
{
	struct orca_context *ctx = to_octx(ibsrq->context);
	struct orca_srq *srq = to_osrq(ibsrq);
	struct orca_ucmd_modify_srq cmd = {};
	struct orca_srq_recs recs = { .tagged = srq->recs.tagged };
	struct orca_ring ring = {}, old;
	uint32_t log_depth;
	int err;

	if (!(attr_mask & IBV_SRQ_MAX_WR))
		return ibv_cmd_modify_srq(ibsrq, attr, attr_mask, &cmd.ibv_cmd,
					  sizeof(cmd.ibv_cmd));
	if (!(ctx->caps & ORCA_UCTX_CAP_SRQ_RESIZE))
		return EOPNOTSUPP;
	if (attr->max_wr < 1 || attr->max_wr > ctx->max_srq_wr)
		return EINVAL;
	log_depth = orca_log_depth(attr->max_wr);
	err = orca_ring_alloc_pd(ctx, &ring, orca_srq_bytes(srq, log_depth),
				 srq->parent, ORCA_RES_TYPE_SRQ);
	if (err)
		return err;
	err = orca_srq_alloc_records(&recs, log_depth);
	if (err) {
		orca_ring_free(&ring);
		return err;
	}
	cmd.wqe_count = 1U << log_depth;
	cmd.stride = srq->stride;
	cmd.buf_va = (uintptr_t)ring.buf;
	cmd.buf_len = ring.len;

	pthread_spin_lock(&srq->lock);
	if (orca_srq_records_span(srq) > 1U << log_depth) {
		err = EINVAL;
	} else {
		err = ibv_cmd_modify_srq(ibsrq, attr, attr_mask, &cmd.ibv_cmd,
					 sizeof(cmd));
	}
	if (err) {
		pthread_spin_unlock(&srq->lock);
		orca_ring_free(&ring);
		orca_srq_free_records(&recs);
		return err;
	}
	old = srq->ring;
	srq->ring = ring;
	orca_srq_swap_records(srq, log_depth, &recs);
	pthread_spin_unlock(&srq->lock);
	orca_ring_free(&old);
	orca_srq_free_records(&recs);
	return 0;
}

int orca_query_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr)
{
	struct ibv_query_srq cmd = {};

	return ibv_cmd_query_srq(ibsrq, attr, &cmd, sizeof(cmd));
}

int orca_destroy_srq(struct ibv_srq *ibsrq)
{
	struct orca_context *ctx = to_octx(ibsrq->context);
	struct orca_srq *srq = to_osrq(ibsrq);
	int err;

	/* Until its number leaves the table: see orca_srq_create(). */
	if (orca_srq_is_xrc(srq))
		pthread_mutex_lock(&ctx->srq_table_mutex);
	err = ibv_cmd_destroy_srq(ibsrq);
	if (err) {
		if (orca_srq_is_xrc(srq))
			pthread_mutex_unlock(&ctx->srq_table_mutex);
		return err;
	}
	/* No QP's clean drops an XRC SRQ's CQEs: they name the SRQ. */
	if (orca_srq_is_xrc(srq)) {
		orca_srq_clean_cq(srq);
		pthread_mutex_unlock(&ctx->srq_table_mutex);
	}
	pthread_spin_destroy(&srq->wr_lock);
	pthread_spin_destroy(&srq->lock);
	orca_db_free(ctx, srq->db);
	orca_ring_free(&srq->ring);
	orca_srq_free_records(&srq->recs);
	if (srq->parent)
		orca_parent_put(srq->parent);
	free(srq);
	return 0;
}

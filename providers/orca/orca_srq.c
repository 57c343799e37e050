// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ORCA provider SRQs: a ring of receive WQEs and a doorbell record in this
 * process, created on the adapter by the kernel, and the records of the
 * WQEs posted (the wr_id of each slot, and which slots wait for their
 * CQE: orca_wqe_track.h).  Posting is in orca_post.c, completion in
 * orca_poll.c.  A resize moves the SRQ to a new ring and its records to
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

/* Records for 1 << @log_depth slots, none posted; both NULL on failure. */
static int orca_srq_alloc_records(uint32_t log_depth, uint64_t **wrid,
				  unsigned long **posted)
{
	*wrid = calloc(1U << log_depth, sizeof(**wrid));
	*posted = bitmap_alloc0(1U << log_depth);
	if (*wrid && *posted)
		return 0;
	free(*wrid);
	free(*posted);
	*wrid = NULL;
	*posted = NULL;
	return ENOMEM;
}

/* The smallest depth its WQEs outstanding fit in (orca_srq_span()). */
static uint32_t orca_srq_records_span(struct orca_srq *srq)
{
	uint32_t span;

	pthread_spin_lock(&srq->wr_lock);
	span = orca_srq_span(srq->posted, srq->log_depth, srq->pi);
	pthread_spin_unlock(&srq->wr_lock);
	return span;
}

/*
 * Move the records to the arrays @wrid and @posted of @log_depth (at least
 * the span) and take them; the old arrays are returned in their place.
 */
static void orca_srq_swap_records(struct orca_srq *srq, uint32_t log_depth,
				  uint64_t **wrid, unsigned long **posted)
{
	uint64_t *old_wrid = srq->wrid;
	unsigned long *old_posted = srq->posted;

	pthread_spin_lock(&srq->wr_lock);
	orca_srq_move_slots(srq->posted, srq->wrid, srq->log_depth, *posted,
			    *wrid, log_depth, srq->pi);
	srq->wrid = *wrid;
	srq->posted = *posted;
	srq->log_depth = log_depth;
	pthread_spin_unlock(&srq->wr_lock);
	*wrid = old_wrid;
	*posted = old_posted;
}

struct ibv_srq *orca_create_srq(struct ibv_pd *pd,
				struct ibv_srq_init_attr *attr)
{
	struct orca_context *ctx = to_octx(pd->context);
	struct orca_ucmd_create_srq_resp resp = {};
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
	err = orca_srq_alloc_records(srq->log_depth, &srq->wrid, &srq->posted);
	if (err)
		goto err_db;

	cmd.wqe_count = 1U << srq->log_depth;
	cmd.stride = srq->stride;
	cmd.buf_va = (uintptr_t)srq->ring.buf;
	cmd.buf_len = srq->ring.len;
	cmd.db_rec_va = (uintptr_t)srq->db;
	err = ibv_cmd_create_srq(pd, &srq->ibv_srq, attr, &cmd.ibv_cmd,
				 sizeof(cmd), &resp.ibv_resp, sizeof(resp));
	if (err)
		goto err_db;
	/* What the kernel reports must fit the ring (orca-abi.h). */
	if (attr->attr.max_wr != 1U << srq->log_depth || !attr->attr.max_sge ||
	    attr->attr.max_sge > (srq->stride - sizeof(struct orca_recv_wqe_hdr)) /
				 sizeof(struct orca_sge)) {
		verbs_err(&ctx->ibv_ctx,
			  "orca: SRQ %u: the kernel's %u WQEs of %u SGEs do not fit the ring\n",
			  resp.srqn, attr->attr.max_wr, attr->attr.max_sge);
		ibv_cmd_destroy_srq(&srq->ibv_srq);
		err = EPROTO;
		goto err_db;
	}
	srq->max_sge = attr->attr.max_sge;
	srq->srqn = resp.srqn;
	srq->parent = orca_parent_domain(pd);
	if (srq->parent)
		orca_parent_get(srq->parent);
	return &srq->ibv_srq;

err_db:
	free(srq->posted);
	free(srq->wrid);
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

/*
 * IBV_SRQ_MAX_WR moves the SRQ to a new ring, of the fewest WQEs that
 * max_wr needs and the SRQ's stride (orca-abi.h): the adapter copies the
 * WQEs posted and not taken to it at their indices, so they complete in
 * order, and the records of the WQEs not completed move to the same
 * indices' slots of the new depth (orca_srq_move_slots()).  Posting waits
 * on the SRQ's lock meanwhile, as the adapter copies what the doorbell
 * record says is posted; polling goes on.  A depth below the span of the
 * WQEs posted and not completed (orca_srq_span(): their number, when
 * polled in order) is refused (EINVAL), since their slots must stay
 * distinct.  IBV_SRQ_LIMIT alone carries no driver data.
 */
int orca_modify_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr,
		    int attr_mask)
{
	struct orca_context *ctx = to_octx(ibsrq->context);
	struct orca_srq *srq = to_osrq(ibsrq);
	struct orca_ucmd_modify_srq cmd = {};
	struct orca_ring ring = {}, old;
	unsigned long *posted;
	uint32_t log_depth;
	uint64_t *wrid;
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
	err = orca_srq_alloc_records(log_depth, &wrid, &posted);
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
		free(posted);
		free(wrid);
		return err;
	}
	old = srq->ring;
	srq->ring = ring;
	orca_srq_swap_records(srq, log_depth, &wrid, &posted);
	pthread_spin_unlock(&srq->lock);
	orca_ring_free(&old);
	free(posted);
	free(wrid);
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

	err = ibv_cmd_destroy_srq(ibsrq);
	if (err)
		return err;
	pthread_spin_destroy(&srq->wr_lock);
	pthread_spin_destroy(&srq->lock);
	orca_db_free(ctx, srq->db);
	orca_ring_free(&srq->ring);
	free(srq->posted);
	free(srq->wrid);
	if (srq->parent)
		orca_parent_put(srq->parent);
	free(srq);
	return 0;
}

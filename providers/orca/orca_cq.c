// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ORCA provider CQs: the ring of CQEs and the doorbell record live in this
 * process, the kernel pins them and creates the adapter's CQ on them.
 * Polling and arming are in orca_poll.c.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "orca.h"
#include "orca_abi.h"

/*
 * The ring is whole pages of ORCA_UQUEUE_ALIGN, so a CQ holds at least
 * what one page holds: asking the kernel for that many costs no memory,
 * and a small CQ that a burst of completions would overrun gets room.
 * (pyverbs' test_resize_cq shrinks a CQ to 1 while sends are in flight;
 * at 2 entries their completions overran it.)  The kernel is asked for
 * that count and told the ring's CQEs (orca-abi.h), a power of two.
 */
static int orca_cq_geometry(struct orca_context *ctx, int *cqe,
			    uint32_t *log_depth)
{
	uint32_t min = ORCA_UQUEUE_ALIGN / sizeof(struct orca_cqe);

	if (*cqe < 1 || (uint32_t)*cqe > ctx->max_cqe)
		return EINVAL;
	if ((uint32_t)*cqe < min)
		*cqe = min < ctx->max_cqe ? min : ctx->max_cqe;
	*log_depth = orca_log_depth(*cqe);
	return 0;
}

static size_t orca_cq_bytes(uint32_t log_depth)
{
	return align(sizeof(struct orca_cqe) << log_depth, ORCA_UQUEUE_ALIGN);
}

/* The work completion fields an extended CQ can read, rxe's set. */
#define ORCA_CQ_EX_WC_FLAGS	(IBV_WC_EX_WITH_BYTE_LEN |		\
				 IBV_WC_EX_WITH_IMM |			\
				 IBV_WC_EX_WITH_QP_NUM |		\
				 IBV_WC_EX_WITH_SRC_QP |		\
				 IBV_WC_EX_WITH_SLID |			\
				 IBV_WC_EX_WITH_SL |			\
				 IBV_WC_EX_WITH_DLID_PATH_BITS)

/*
 * What ibv_create_cq() and ibv_create_cq_ex() share: the ring, the
 * record, the kernel command (@ex chooses which) and the check of its
 * answer.  @attr->cqe is the count asked for.
 */
static struct orca_cq *orca_cq_create(struct ibv_context *context,
				      struct ibv_cq_init_attr_ex *attr,
				      struct orca_pd *parent,
				      bool single_threaded, bool ex)
{
	struct orca_context *ctx = to_octx(context);
	struct orca_ucmd_create_cq_ex_resp resp_ex = {};
	struct orca_ucmd_create_cq_resp resp = {};
	struct orca_ucmd_create_cq_ex cmd_ex = {};
	struct orca_ucmd_create_cq cmd = {};
	struct orca_create_cq *drv;
	struct orca_cq *cq;
	int cqe, err;

	if (attr->cqe > INT_MAX) {
		errno = EINVAL;
		return NULL;
	}
	cqe = attr->cqe;
	cq = calloc(1, sizeof(*cq));
	if (!cq) {
		errno = ENOMEM;
		return NULL;
	}
	err = orca_cq_geometry(ctx, &cqe, &cq->log_depth);
	if (err)
		goto err_free;
	/* A zeroed ring: phase 0 marks every slot not yet written. */
	err = orca_ring_alloc_pd(ctx, &cq->ring, orca_cq_bytes(cq->log_depth),
				 parent, ORCA_RES_TYPE_CQ);
	if (err)
		goto err_free;
	cq->db = orca_db_alloc(ctx);
	if (!cq->db) {
		err = ENOMEM;
		goto err_ring;
	}
	orca_lock_init(&cq->lock, !single_threaded);
	pthread_mutex_init(&cq->resize_mutex, NULL);

	drv = ex ? &cmd_ex.drv_payload : &cmd.drv_payload;
	drv->cqe_count = 1U << cq->log_depth;
	drv->buf_va = (uintptr_t)cq->ring.buf;
	drv->buf_len = cq->ring.len;
	drv->db_rec_va = (uintptr_t)cq->db;
	if (ex) {
		struct ibv_cq_init_attr_ex kattr = *attr;

		kattr.cqe = cqe;
		err = ibv_cmd_create_cq_ex(context, &kattr, &cq->vcq,
					   &cmd_ex.ibv_cmd, sizeof(cmd_ex),
					   &resp_ex.ibv_resp, sizeof(resp_ex),
					   0);
		resp.cqn = resp_ex.cqn;
	} else {
		err = ibv_cmd_create_cq(context, cqe, attr->channel,
					attr->comp_vector, &cq->vcq.cq,
					&cmd.ibv_cmd, sizeof(cmd),
					&resp.ibv_resp, sizeof(resp));
	}
	if (err)
		goto err_db;
	/* The kernel reports the CQEs of the ring it was given. */
	if (cq->vcq.cq.cqe != 1 << cq->log_depth) {
		verbs_err(&ctx->ibv_ctx, "orca: CQ of %d CQEs, expected %u\n",
			  cq->vcq.cq.cqe, 1U << cq->log_depth);
		ibv_cmd_destroy_cq(&cq->vcq.cq);
		err = EPROTO;
		goto err_db;
	}
	cq->cqn = resp.cqn;
	if (parent) {
		cq->parent = parent;
		orca_parent_get(parent);
	}
	return cq;

err_db:
	pthread_mutex_destroy(&cq->resize_mutex);
	orca_lock_destroy(&cq->lock);
	orca_db_free(ctx, cq->db);
err_ring:
	orca_ring_free(&cq->ring);
err_free:
	free(cq);
	errno = err;
	return NULL;
}

struct ibv_cq *orca_create_cq(struct ibv_context *context, int cqe,
			      struct ibv_comp_channel *channel,
			      int comp_vector)
{
	struct ibv_cq_init_attr_ex attr = {
		.cqe = cqe < 0 ? INT_MAX + 1U : (uint32_t)cqe,
		.channel = channel,
		.comp_vector = comp_vector,
	};
	struct orca_cq *cq;

	cq = orca_cq_create(context, &attr, NULL, false, false);
	return cq ? &cq->vcq.cq : NULL;
}

/*
 * ibv_create_cq_ex(): the fields of rxe's provider (EOPNOTSUPP for
 * others, as rxe and mlx5), a single-threaded CQ without the lock, and a
 * parent domain whose thread domain makes it single-threaded too and whose
 * allocator gives the ring (as mlx5).
 */
struct ibv_cq_ex *orca_create_cq_ex(struct ibv_context *context,
				    struct ibv_cq_init_attr_ex *attr)
{
	const uint32_t single = IBV_CREATE_CQ_ATTR_SINGLE_THREADED;
	struct orca_pd *parent = NULL;
	bool single_threaded = false;
	struct orca_cq *cq;

	if (attr->comp_mask & ~(uint32_t)(IBV_CQ_INIT_ATTR_MASK_FLAGS |
					  IBV_CQ_INIT_ATTR_MASK_PD)) {
		errno = EINVAL;
		return NULL;
	}
	if (attr->wc_flags & ~(uint64_t)ORCA_CQ_EX_WC_FLAGS) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_FLAGS) {
		/* The adapter reports an overrun: it cannot ignore one. */
		if (attr->flags & ~single) {
			errno = EOPNOTSUPP;
			return NULL;
		}
		single_threaded = attr->flags & single;
	}
	if (attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_PD) {
		if (!attr->parent_domain ||
		    !orca_parent_domain(attr->parent_domain)) {
			errno = EINVAL;
			return NULL;
		}
		parent = to_opd(attr->parent_domain);
		if (parent->td)
			single_threaded = true;
	}

	cq = orca_cq_create(context, attr, parent, single_threaded, true);
	if (!cq)
		return NULL;
	orca_cq_set_ex_ops(cq, attr->wc_flags);
	return &cq->vcq.cq_ex;
}

/*
 * The adapter copies the unpolled CQEs into the new ring and keeps the
 * indices (spec, commands.rst, RESIZE_CQ), so once the command is done the
 * poller just switches rings; until then it may go on polling the old
 * one (the copies keep their indices).  resize_mutex is held across the
 * command and the switch: two resizes must switch rings in the order the
 * adapter took them (else the provider frees the ring the adapter writes),
 * and a QP's clean-up, which takes it too, must not scrub the old ring once
 * the adapter has copied it.  Pollers never wait for the command.
 */
int orca_resize_cq(struct ibv_cq *ibcq, int cqe)
{
	struct orca_context *ctx = to_octx(ibcq->context);
	struct orca_ucmd_resize_cq_resp resp = {};
	struct orca_ucmd_resize_cq cmd = {};
	struct orca_cq *cq = to_ocq(ibcq);
	struct orca_ring ring = {}, old;
	uint32_t log_depth;
	int err;

	err = orca_cq_geometry(ctx, &cqe, &log_depth);
	if (err)
		return err;
	err = orca_ring_alloc_pd(ctx, &ring, orca_cq_bytes(log_depth),
				 cq->parent, ORCA_RES_TYPE_CQ);
	if (err)
		return err;
	cmd.cqe_count = 1U << log_depth;
	cmd.buf_va = (uintptr_t)ring.buf;
	cmd.buf_len = ring.len;
	pthread_mutex_lock(&cq->resize_mutex);
	err = ibv_cmd_resize_cq(ibcq, cqe, &cmd.ibv_cmd, sizeof(cmd),
				&resp.ibv_resp, sizeof(resp));
	if (err) {
		pthread_mutex_unlock(&cq->resize_mutex);
		orca_ring_free(&ring);
		return err;
	}
	orca_lock(&cq->lock);
	old = cq->ring;
	cq->ring = ring;
	cq->log_depth = log_depth;
	orca_unlock(&cq->lock);
	pthread_mutex_unlock(&cq->resize_mutex);
	orca_ring_free(&old);
	return 0;
}

/* CQ event moderation: the kernel checks and sends MODIFY_CQ. */
int orca_modify_cq(struct ibv_cq *ibcq, struct ibv_modify_cq_attr *attr)
{
	struct ibv_modify_cq cmd = {};

	return ibv_cmd_modify_cq(ibcq, attr, &cmd, sizeof(cmd));
}

int orca_destroy_cq(struct ibv_cq *ibcq)
{
	struct orca_context *ctx = to_octx(ibcq->context);
	struct orca_cq *cq = to_ocq(ibcq);
	int err;

	err = ibv_cmd_destroy_cq(ibcq);
	if (err)
		return err;
	pthread_mutex_destroy(&cq->resize_mutex);
	orca_lock_destroy(&cq->lock);
	orca_db_free(ctx, cq->db);
	orca_ring_free(&cq->ring);
	if (cq->parent)
		orca_parent_put(cq->parent);
	free(cq);
	return 0;
}

/*
 * Every arm carries a new sequence number of its own (orca_req_notify_cq),
 * so there is nothing to count per event.
 */
void orca_cq_event(struct ibv_cq *ibcq)
{
}

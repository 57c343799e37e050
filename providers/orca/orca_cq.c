// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ORCA provider CQs: the ring of CQEs and the doorbell record live in this
 * process, the kernel pins them and creates the adapter's CQ on them.
 * Polling and arming are in orca_poll.c.
 */
#include <errno.h>
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
 * the rounded count, so both sides size the ring by their shared rule.
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

struct ibv_cq *orca_create_cq(struct ibv_context *context, int cqe,
			      struct ibv_comp_channel *channel,
			      int comp_vector)
{
	struct orca_context *ctx = to_octx(context);
	struct orca_ucmd_create_cq_resp resp = {};
	struct orca_ucmd_create_cq cmd = {};
	struct orca_cq *cq;
	int err;

	cq = calloc(1, sizeof(*cq));
	if (!cq) {
		errno = ENOMEM;
		return NULL;
	}
	err = orca_cq_geometry(ctx, &cqe, &cq->log_depth);
	if (err)
		goto err_free;
	/* A zeroed ring: phase 0 marks every slot not yet written. */
	err = orca_ring_alloc(ctx, &cq->ring, orca_cq_bytes(cq->log_depth));
	if (err)
		goto err_free;
	cq->db = orca_db_alloc(ctx);
	if (!cq->db) {
		err = ENOMEM;
		goto err_ring;
	}
	pthread_spin_init(&cq->lock, PTHREAD_PROCESS_PRIVATE);
	pthread_mutex_init(&cq->resize_mutex, NULL);

	cmd.buf_va = (uintptr_t)cq->ring.buf;
	cmd.buf_len = cq->ring.len;
	cmd.db_rec_va = (uintptr_t)cq->db;
	err = ibv_cmd_create_cq(context, cqe, channel, comp_vector, &cq->ibv_cq,
				&cmd.ibv_cmd, sizeof(cmd), &resp.ibv_resp,
				sizeof(resp));
	if (err)
		goto err_db;
	/* Both sides use the same rule; anything else is a kernel bug. */
	if (cq->ibv_cq.cqe != 1 << cq->log_depth) {
		verbs_err(&ctx->ibv_ctx, "orca: CQ of %d CQEs, expected %u\n",
			  cq->ibv_cq.cqe, 1U << cq->log_depth);
		ibv_cmd_destroy_cq(&cq->ibv_cq);
		err = EPROTO;
		goto err_db;
	}
	cq->cqn = resp.cqn;
	return &cq->ibv_cq;

err_db:
	pthread_mutex_destroy(&cq->resize_mutex);
	pthread_spin_destroy(&cq->lock);
	orca_db_free(ctx, cq->db);
err_ring:
	orca_ring_free(&cq->ring);
err_free:
	free(cq);
	errno = err;
	return NULL;
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
	err = orca_ring_alloc(ctx, &ring, orca_cq_bytes(log_depth));
	if (err)
		return err;
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
	pthread_spin_lock(&cq->lock);
	old = cq->ring;
	cq->ring = ring;
	cq->log_depth = log_depth;
	pthread_spin_unlock(&cq->lock);
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
	pthread_spin_destroy(&cq->lock);
	orca_db_free(ctx, cq->db);
	orca_ring_free(&cq->ring);
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

// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ORCA provider data path, posting side (the user-space twin of the
 * driver's orca_post.c): work requests become WQEs in the rings, the new
 * producer index is published in the doorbell record, and the UAR page is
 * written (a trap into the emulator, tens of microseconds) only when the
 * device's event index says its engine went idle on that queue.  No system
 * call is made.
 */
#include <errno.h>
#include <string.h>

#include <ccan/array_size.h>
#include <util/mmio.h>
#include <util/udma_barrier.h>

#include "orca.h"

/*
 * The spec's "Doorbell records and event indices" (data-path.rst; NVMe
 * shadow doorbells with 32-bit indices): publish @new, then ring @uar_reg
 * only if the device's event index lies in [@old, @new).
 */
static void orca_publish_pi(struct orca_context *ctx, __le32 *pi,
			    __le32 *event_idx, uint32_t old, uint32_t new,
			    uint32_t uar_reg, uint32_t handle)
{
	uint32_t e;

	/* The WQEs must be visible before the index that hands them over. */
	udma_to_device_barrier();
	__atomic_store_n(pi, htole32(new), __ATOMIC_RELAXED);
	/*
	 * StoreLoad: the index store must be visible before the event index
	 * is read, or both sides may miss each other and the WQEs strand.
	 * udma_to_device_barrier() is only a compiler barrier on x86.
	 */
	orca_mb();
	e = le32toh(__atomic_load_n(event_idx, __ATOMIC_RELAXED));
	if ((uint32_t)(new - e - 1) < (uint32_t)(new - old))
		mmio_write32_le((uint8_t *)ctx->uar + uar_reg, htole32(handle));
}

static void orca_set_sges(struct orca_sge *dst, const struct ibv_sge *sg,
			  size_t num_sge)
{
	size_t i;

	for (i = 0; i < num_sge; i++) {
		dst[i].addr = htole64(sg[i].addr);
		dst[i].length = htole32(sg[i].length);
		dst[i].lkey = htole32(sg[i].lkey);
	}
}

/*
 * The send WQE builder.  ibv_post_send() and the ibv_wr_* calls fill WQEs
 * through the same helpers: orca_wqe_begin() for the opcode, wr_id (and
 * its record) and flags, then the opcode's fields (orca_wqe_set_*()), then
 * the data (SGEs or inline bytes).  An opcode the adapter gains is one
 * case in orca_wqe_opcode(), one row in orca_send_ops[] and its fields'
 * setter.
 */

/* The adapter's opcode for @op on a QP of @qpt, or -1. */
static int orca_wqe_opcode(enum ibv_qp_type qpt, enum ibv_wr_opcode op)
{
	/*
	 * An XRC target has no send queue; an initiator sends as RC, but
	 * XRC has no FLUSH or ATOMIC WRITE opcode (data-path.rst, "XRC").
	 */
	if (qpt == IBV_QPT_XRC_RECV ||
	    (qpt == IBV_QPT_XRC_SEND &&
	     (op == IBV_WR_FLUSH || op == IBV_WR_ATOMIC_WRITE)))
		return -1;
	/* UD QPs only send, to the address handle of each request. */
	if (qpt == IBV_QPT_UD && op != IBV_WR_SEND &&
	    op != IBV_WR_SEND_WITH_IMM)
		return -1;
	/* UC: SEND and RDMA WRITE, no READ, atomics or invalidation (9.2). */
	if (qpt == IBV_QPT_UC && op != IBV_WR_SEND &&
	    op != IBV_WR_SEND_WITH_IMM && op != IBV_WR_RDMA_WRITE &&
	    op != IBV_WR_RDMA_WRITE_WITH_IMM)
		return -1;
	switch (op) {
	case IBV_WR_SEND:
		return ORCA_WQE_SEND;
	case IBV_WR_SEND_WITH_IMM:
		return ORCA_WQE_SEND_IMM;
	case IBV_WR_SEND_WITH_INV:
		return ORCA_WQE_SEND_INV;
	case IBV_WR_RDMA_WRITE:
		return ORCA_WQE_RDMA_WRITE;
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		return ORCA_WQE_RDMA_WRITE_IMM;
	case IBV_WR_RDMA_READ:
		return ORCA_WQE_RDMA_READ;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
		return ORCA_WQE_ATOMIC_CS;
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		return ORCA_WQE_ATOMIC_FA;
	case IBV_WR_LOCAL_INV:
		return ORCA_WQE_LOCAL_INV;
	case IBV_WR_FLUSH:
		return ORCA_WQE_FLUSH;
	case IBV_WR_ATOMIC_WRITE:
		return ORCA_WQE_ATOMIC_WRITE;
	case IBV_WR_BIND_MW:
		return ORCA_WQE_BIND_MW;
	default:
		/* TSO, driver opcodes. */
		return -1;
	}
}

/*
 * Start the WQE at @hdr, index @idx: opcode, wr_id and the IBV_SEND_*
 * flags.  Its completion returns the wr_id recorded here (a slot at or
 * past the producer index is the poster's until published, so a WQE that
 * is not posted after all leaves no record that counts).
 */
static int orca_wqe_begin(struct orca_qp *qp, struct orca_send_wqe_hdr *hdr,
			  uint32_t idx, enum ibv_wr_opcode op, uint64_t wr_id,
			  unsigned int send_flags)
{
	int opcode = orca_wqe_opcode(qp->vqp.qp.qp_type, op);

	if (opcode < 0)
		return EINVAL;
	qp->sq.wrid[orca_wq_slot(idx, qp->sq.log_depth)] = wr_id;
	memset(hdr, 0, sizeof(*hdr));
	hdr->opcode = opcode;
	hdr->wr_id_lo = htole32((uint32_t)wr_id);
	hdr->wr_id_hi = htole32((uint32_t)(wr_id >> 32));
	if ((send_flags & IBV_SEND_SIGNALED) || qp->sig_all)
		hdr->flags |= ORCA_WQE_F_SIGNALED;
	if (send_flags & IBV_SEND_SOLICITED)
		hdr->flags |= ORCA_WQE_F_SOLICITED;
	if (send_flags & IBV_SEND_FENCE)
		hdr->flags |= ORCA_WQE_F_FENCE;
	return 0;
}

/* Immediate data: network byte order, carried as the wire bytes. */
static void orca_wqe_set_imm(struct orca_send_wqe_hdr *hdr, __be32 imm)
{
	memcpy(&hdr->imm_or_inv, &imm, sizeof(imm));
}

static void orca_wqe_set_inv(struct orca_send_wqe_hdr *hdr, uint32_t rkey)
{
	hdr->imm_or_inv = htole32(rkey);
}

/**
 * orca_wqe_bind_mw() - the BIND_MW fields of a send WQE
 * @hdr: the WQE, begun by orca_wqe_begin() (opcode, wr_id, flags)
 * @mw_rkey: the window's current rkey
 * @new_rkey: the rkey it takes (same index, ibv_inc_rkey() of the old)
 * @info: the MR, the window's range and rights; no MR and length 0
 *	unbinds a type 1 window
 *
 * The one place a BIND_MW WQE is built: post_send's IBV_WR_BIND_MW,
 * ibv_bind_mw() and ibv_wr_bind_mw() all use it.
 *
 * Return: 0, or EINVAL for rights the adapter does not know.
 */
static int orca_wqe_bind_mw(struct orca_send_wqe_hdr *hdr, uint32_t mw_rkey,
			    uint32_t new_rkey,
			    const struct ibv_mw_bind_info *info)
{
	const unsigned int rights = IBV_ACCESS_LOCAL_WRITE |
				    IBV_ACCESS_REMOTE_WRITE |
				    IBV_ACCESS_REMOTE_READ |
				    IBV_ACCESS_REMOTE_ATOMIC;
	uint32_t access;

	if (info->mw_access_flags & ~(rights | IBV_ACCESS_ZERO_BASED))
		return EINVAL;
	if (!info->mr && info->length)
		return EINVAL;
	/* IBV_ACCESS_* rights are numbered as ORCA_ACCESS_*. */
	access = info->mw_access_flags & rights;
	if (info->mw_access_flags & IBV_ACCESS_ZERO_BASED)
		access |= ORCA_MW_BIND_ZERO_BASED;
	hdr->imm_or_inv = htole32(mw_rkey);
	hdr->rkey = htole32(new_rkey);
	hdr->remote_addr = htole64(info->addr);
	hdr->compare_add = htole64(info->length);
	hdr->swap = htole64(orca_bind_mw_swap(access,
					      info->mr ? info->mr->lkey : 0));
	return 0;
}

static void orca_wqe_set_rdma(struct orca_send_wqe_hdr *hdr, uint64_t raddr,
			      uint32_t rkey)
{
	hdr->remote_addr = htole64(raddr);
	hdr->rkey = htole32(rkey);
}

static void orca_wqe_set_atomic(struct orca_send_wqe_hdr *hdr, uint64_t raddr,
				uint32_t rkey, uint64_t compare_add,
				uint64_t swap)
{
	orca_wqe_set_rdma(hdr, raddr, rkey);
	hdr->compare_add = htole64(compare_add);
	hdr->swap = htole64(swap);
}
/* The FETH values of IBA 1.5 that the WQE carries: verbs' own numbers. */
static_assert(ORCA_FLUSH_GLOBAL == IBV_FLUSH_GLOBAL, "flush type");
static_assert(ORCA_FLUSH_PERSISTENT == IBV_FLUSH_PERSISTENT, "flush type");
static_assert(ORCA_FLUSH_LEVEL_RANGE == IBV_FLUSH_RANGE, "flush level");
static_assert(ORCA_FLUSH_LEVEL_MR == IBV_FLUSH_MR, "flush level");

/*
 * The opcode-specific fields of an RDMA FLUSH WQE (interface 1.4), for
 * ibv_wr_flush(): of [@remote_addr, @remote_addr + @len) (IBV_FLUSH_RANGE)
 * or of the whole MR of @rkey (IBV_FLUSH_MR, where address and length are
 * not looked at).  Returns EINVAL for a type or level the FETH cannot
 * carry or a range longer than a RETH's 32-bit length.
 */
static int orca_wqe_set_flush(struct orca_send_wqe_hdr *hdr, uint32_t rkey,
			      uint64_t remote_addr, size_t len, uint8_t type,
			      uint8_t level)
{
	if (!type || (type & ~(IBV_FLUSH_GLOBAL | IBV_FLUSH_PERSISTENT)) ||
	    level > IBV_FLUSH_MR)
		return EINVAL;
	if (level == IBV_FLUSH_RANGE && len > UINT32_MAX)
		return EINVAL;
	hdr->remote_addr = htole64(remote_addr);
	hdr->rkey = htole32(rkey);
	hdr->length = htole32(len > UINT32_MAX ? UINT32_MAX : (uint32_t)len);
	hdr->imm_or_inv = htole32(FIELD_PREP(ORCA_WQE_FLUSH_TYPE, type) |
				  FIELD_PREP(ORCA_WQE_FLUSH_LEVEL, level));
	return 0;
}

/*
 * The opcode-specific fields of an RDMA ATOMIC WRITE WQE (interface 1.4),
 * for ibv_wr_atomic_write(): the 8 bytes at @atomic_wire_buf land at
 * @remote_addr (8-byte aligned, else the responder NAKs) as they are, in
 * memory order, in one store.
 */
static void orca_wqe_set_atomic_write(struct orca_send_wqe_hdr *hdr,
				      uint32_t rkey, uint64_t remote_addr,
				      const void *atomic_wire_buf)
{
	hdr->remote_addr = htole64(remote_addr);
	hdr->rkey = htole32(rkey);
	memcpy(hdr->atomic_data, atomic_wire_buf, sizeof(hdr->atomic_data));
}


static int orca_wqe_set_ud(struct orca_send_wqe_hdr *hdr, struct ibv_ah *ah,
			   uint32_t remote_qpn, uint32_t remote_qkey)
{
	if (!ah)
		return EINVAL;
	hdr->ahn = htole32(to_oah(ah)->ahn);
	hdr->dest_qpn = htole32(remote_qpn);
	hdr->qkey = htole32(remote_qkey);
	return 0;
}

/*
 * An XRC initiator's WQE names the XRC SRQ at the target (the XRCETH);
 * every WQE of it, local ones too, as mlx5 fills its XRC segment.
 */
static int orca_wqe_set_xrc(struct orca_send_wqe_hdr *hdr, uint32_t srqn)
{
	if (srqn & ~GENMASK(23, 0))
		return EINVAL;
	hdr->dest_qpn = htole32(srqn);
	return 0;
}

/* The WQE's gather list; replaces inline data set before. */
static int orca_wqe_set_sgl(struct orca_qp *qp, struct orca_send_wqe_hdr *hdr,
			    const struct ibv_sge *sg, size_t num_sge)
{
	if (num_sge > qp->sq.max_sge)
		return EINVAL;
	orca_set_sges((struct orca_sge *)(hdr + 1), sg, num_sge);
	hdr->num_sge = num_sge;
	hdr->flags &= ~ORCA_WQE_F_INLINE;
	hdr->length = 0;
	return 0;
}

/*
 * Inline data: @first starts the WQE's data (dropping SGEs or inline bytes
 * set before), later calls append.  The bytes are copied now, so the caller
 * may reuse its buffers as soon as the call returns.
 */
static int orca_wqe_add_inline(struct orca_qp *qp,
			       struct orca_send_wqe_hdr *hdr, bool first,
			       const void *addr, size_t length)
{
	uint32_t len = first ? 0 : le32toh(hdr->length);

	if (length > qp->max_inline_data - len)
		return EINVAL;
	if (length)
		memcpy((uint8_t *)(hdr + 1) + len, addr, length);
	hdr->flags |= ORCA_WQE_F_INLINE;
	hdr->num_sge = 0;
	hdr->length = htole32(len + length);
	return 0;
}

static bool orca_wr_carries_data(enum ibv_wr_opcode op)
{
	return op == IBV_WR_SEND || op == IBV_WR_SEND_WITH_IMM ||
	       op == IBV_WR_SEND_WITH_INV || op == IBV_WR_RDMA_WRITE ||
	       op == IBV_WR_RDMA_WRITE_WITH_IMM;
}

/* ibv_post_send(): one work request into the WQE at @hdr, index @idx. */
static int orca_build_send_wqe(struct orca_qp *qp, const struct ibv_send_wr *wr,
			       struct orca_send_wqe_hdr *hdr, uint32_t idx)
{
	int err, i;

	/*
	 * FLUSH and ATOMIC_WRITE: ibv_send_wr has no fields for them (rxe
	 * takes them only through ibv_wr_flush/ibv_wr_atomic_write).
	 */
	if (wr->num_sge < 0 || wr->opcode == IBV_WR_FLUSH ||
	    wr->opcode == IBV_WR_ATOMIC_WRITE)
		return EINVAL;
	err = orca_wqe_begin(qp, hdr, idx, wr->opcode, wr->wr_id,
			     wr->send_flags);
	if (err)
		return err;

	switch (wr->opcode) {
	case IBV_WR_SEND_WITH_IMM:
		orca_wqe_set_imm(hdr, wr->imm_data);
		break;
	case IBV_WR_SEND_WITH_INV:
		orca_wqe_set_inv(hdr, wr->invalidate_rkey);
		break;
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		orca_wqe_set_imm(hdr, wr->imm_data);
		orca_wqe_set_rdma(hdr, wr->wr.rdma.remote_addr,
				  wr->wr.rdma.rkey);
		break;
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_READ:
		orca_wqe_set_rdma(hdr, wr->wr.rdma.remote_addr,
				  wr->wr.rdma.rkey);
		break;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		orca_wqe_set_atomic(hdr, wr->wr.atomic.remote_addr,
				    wr->wr.atomic.rkey,
				    wr->wr.atomic.compare_add,
				    wr->wr.atomic.swap);
		break;
	case IBV_WR_LOCAL_INV:
		orca_wqe_set_inv(hdr, wr->invalidate_rkey);
		return 0;
	case IBV_WR_BIND_MW:
		if (!wr->bind_mw.mw)
			return EINVAL;
		return orca_wqe_bind_mw(hdr, wr->bind_mw.mw->rkey,
					wr->bind_mw.rkey,
					&wr->bind_mw.bind_info);
	default:
		break;
	}
	if (qp->vqp.qp.qp_type == IBV_QPT_UD) {
		err = orca_wqe_set_ud(hdr, wr->wr.ud.ah, wr->wr.ud.remote_qpn,
				      wr->wr.ud.remote_qkey);
		if (err)
			return err;
	} else if (qp->vqp.qp.qp_type == IBV_QPT_XRC_SEND) {
		err = orca_wqe_set_xrc(hdr, wr->qp_type.xrc.remote_srqn);
		if (err)
			return err;
	}

	if (!(wr->send_flags & IBV_SEND_INLINE) ||
	    !orca_wr_carries_data(wr->opcode))
		return orca_wqe_set_sgl(qp, hdr, wr->sg_list, wr->num_sge);
	hdr->flags |= ORCA_WQE_F_INLINE;
	for (i = 0; i < wr->num_sge; i++) {
		err = orca_wqe_add_inline(qp, hdr, false,
					  (void *)(uintptr_t)wr->sg_list[i].addr,
					  wr->sg_list[i].length);
		if (err)
			return err;
	}
	return 0;
}

static bool orca_qp_can_send(struct orca_qp *qp)
{
	int state = __atomic_load_n(&qp->state, __ATOMIC_ACQUIRE);

	/* In ERR the adapter flushes what is posted (drain relies on it). */
	return state == IBV_QPS_RTS || state == IBV_QPS_SQD ||
	       state == IBV_QPS_SQE || state == IBV_QPS_ERR;
}

/* The send WQE at free-running index @idx, or NULL if the SQ is full. */
static struct orca_send_wqe_hdr *orca_sq_slot(struct orca_qp *qp,
					      uint32_t idx)
{
	uint32_t depth = 1U << qp->sq.log_depth;

	if (idx - orca_wq_ci(&qp->sq.ci) >= depth)
		return NULL;
	return (struct orca_send_wqe_hdr *)(qp->sq.buf +
					    (size_t)(idx & (depth - 1)) *
					    qp->sq.stride);
}

/* Hand WQEs [old, new) to the adapter; called under the SQ lock. */
static void orca_sq_publish(struct orca_qp *qp, uint32_t old, uint32_t new)
{
	/* Their records first, for a poller that checks against @pi. */
	__atomic_store_n(&qp->sq.pi, new, __ATOMIC_RELEASE);
	orca_publish_pi(to_octx(qp->vqp.qp.context), &qp->db->sq_pi,
			&qp->db->sq_event_idx, old, new, ORCA_UAR_SQ_DB,
			qp->qpn);
}

int orca_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		   struct ibv_send_wr **bad_wr)
{
	struct orca_qp *qp = to_oqp(ibqp);
	uint32_t old, pi;
	int err = 0;

	/* A target QP has no send queue. */
	if (ibqp->qp_type == IBV_QPT_XRC_RECV || !orca_qp_can_send(qp)) {
		*bad_wr = wr;
		return EINVAL;
	}
	orca_lock(&qp->sq.lock);
	old = qp->sq.pi;
	pi = old;
	for (; wr; wr = wr->next) {
		struct orca_send_wqe_hdr *hdr = orca_sq_slot(qp, pi);

		if (!hdr) {
			err = ENOMEM;
			break;
		}
		err = orca_build_send_wqe(qp, wr, hdr, pi);
		if (err)
			break;
		pi++;
	}
	if (pi != old)
		orca_sq_publish(qp, old, pi);
	orca_unlock(&qp->sq.lock);
	if (err)
		*bad_wr = wr;
	return err;
}

/*
 * The ibv_wr_* API (ibv_wr_post(3)).  wr_start() takes the SQ lock and
 * wr_complete() or wr_abort() releases it; in between, each ibv_wr_<op>()
 * builds the next WQE past the published producer index with the wr_id and
 * wr_flags the ibv_qp_ex holds at that call, and the wr_set_*() calls fill
 * that WQE's address and data.  Nothing reaches the adapter before
 * wr_complete(), which publishes the whole batch with one doorbell; the
 * first error (full SQ, bad opcode or data) is kept, the WQEs after it are
 * not built, and wr_complete() reports it and posts nothing, as wr_abort()
 * posts nothing.
 */
static struct orca_qp *qpx_to_oqp(struct ibv_qp_ex *qpx)
{
	return container_of(qpx, struct orca_qp, vqp.qp_ex);
}

static void orca_wr_start(struct ibv_qp_ex *qpx)
{
	struct orca_qp *qp = qpx_to_oqp(qpx);

	orca_lock(&qp->sq.lock);
	qp->wr_pi = qp->sq.pi;
	qp->wr_cur = NULL;
	qp->wr_err = orca_qp_can_send(qp) ? 0 : EINVAL;
}

static void orca_wr_fail(struct orca_qp *qp, int err)
{
	if (!qp->wr_err)
		qp->wr_err = err;
	qp->wr_cur = NULL;
}

/* The next WQE of the batch, begun for @op; NULL after an error. */
static struct orca_send_wqe_hdr *orca_wr_next(struct ibv_qp_ex *qpx,
					      enum ibv_wr_opcode op)
{
	struct orca_qp *qp = qpx_to_oqp(qpx);
	struct orca_send_wqe_hdr *hdr;
	int err;

	qp->wr_cur = NULL;
	if (qp->wr_err)
		return NULL;
	hdr = orca_sq_slot(qp, qp->wr_pi);
	if (!hdr) {
		orca_wr_fail(qp, ENOMEM);
		return NULL;
	}
	err = orca_wqe_begin(qp, hdr, qp->wr_pi, op, qpx->wr_id,
			     qpx->wr_flags);
	if (err) {
		orca_wr_fail(qp, err);
		return NULL;
	}
	qp->wr_pi++;
	qp->wr_cur = hdr;
	return hdr;
}

static void orca_wr_send(struct ibv_qp_ex *qpx)
{
	orca_wr_next(qpx, IBV_WR_SEND);
}

static void orca_wr_send_imm(struct ibv_qp_ex *qpx, __be32 imm_data)
{
	struct orca_send_wqe_hdr *hdr = orca_wr_next(qpx, IBV_WR_SEND_WITH_IMM);

	if (hdr)
		orca_wqe_set_imm(hdr, imm_data);
}

static void orca_wr_send_inv(struct ibv_qp_ex *qpx, uint32_t invalidate_rkey)
{
	struct orca_send_wqe_hdr *hdr = orca_wr_next(qpx, IBV_WR_SEND_WITH_INV);

	if (hdr)
		orca_wqe_set_inv(hdr, invalidate_rkey);
}

static void orca_wr_rdma_write(struct ibv_qp_ex *qpx, uint32_t rkey,
			       uint64_t remote_addr)
{
	struct orca_send_wqe_hdr *hdr = orca_wr_next(qpx, IBV_WR_RDMA_WRITE);

	if (hdr)
		orca_wqe_set_rdma(hdr, remote_addr, rkey);
}

static void orca_wr_rdma_write_imm(struct ibv_qp_ex *qpx, uint32_t rkey,
				   uint64_t remote_addr, __be32 imm_data)
{
	struct orca_send_wqe_hdr *hdr;

	hdr = orca_wr_next(qpx, IBV_WR_RDMA_WRITE_WITH_IMM);
	if (hdr) {
		orca_wqe_set_rdma(hdr, remote_addr, rkey);
		orca_wqe_set_imm(hdr, imm_data);
	}
}

static void orca_wr_rdma_read(struct ibv_qp_ex *qpx, uint32_t rkey,
			      uint64_t remote_addr)
{
	struct orca_send_wqe_hdr *hdr = orca_wr_next(qpx, IBV_WR_RDMA_READ);

	if (hdr)
		orca_wqe_set_rdma(hdr, remote_addr, rkey);
}

static void orca_wr_atomic_cmp_swp(struct ibv_qp_ex *qpx, uint32_t rkey,
				   uint64_t remote_addr, uint64_t compare,
				   uint64_t swap)
{
	struct orca_send_wqe_hdr *hdr;

	hdr = orca_wr_next(qpx, IBV_WR_ATOMIC_CMP_AND_SWP);
	if (hdr)
		orca_wqe_set_atomic(hdr, remote_addr, rkey, compare, swap);
}

static void orca_wr_atomic_fetch_add(struct ibv_qp_ex *qpx, uint32_t rkey,
				     uint64_t remote_addr, uint64_t add)
{
	struct orca_send_wqe_hdr *hdr;

	hdr = orca_wr_next(qpx, IBV_WR_ATOMIC_FETCH_AND_ADD);
	if (hdr)
		orca_wqe_set_atomic(hdr, remote_addr, rkey, add, 0);
}

static void orca_wr_local_inv(struct ibv_qp_ex *qpx, uint32_t invalidate_rkey)
{
	struct orca_send_wqe_hdr *hdr = orca_wr_next(qpx, IBV_WR_LOCAL_INV);

	if (hdr)
		orca_wqe_set_inv(hdr, invalidate_rkey);
}

static void orca_wr_flush(struct ibv_qp_ex *qpx, uint32_t rkey,
			  uint64_t remote_addr, size_t len, uint8_t type,
			  uint8_t level)
{
	struct orca_send_wqe_hdr *hdr = orca_wr_next(qpx, IBV_WR_FLUSH);
	int err;

	if (!hdr)
		return;
	err = orca_wqe_set_flush(hdr, rkey, remote_addr, len, type, level);
	if (err)
		orca_wr_fail(qpx_to_oqp(qpx), err);
}

static void orca_wr_atomic_write(struct ibv_qp_ex *qpx, uint32_t rkey,
				 uint64_t remote_addr,
				 const void *atomic_wire_buf)
{
	struct orca_send_wqe_hdr *hdr = orca_wr_next(qpx, IBV_WR_ATOMIC_WRITE);

	if (hdr)
		orca_wqe_set_atomic_write(hdr, rkey, remote_addr,
					  atomic_wire_buf);
}

static void orca_wr_bind_mw(struct ibv_qp_ex *qpx, struct ibv_mw *mw,
			    uint32_t rkey,
			    const struct ibv_mw_bind_info *bind_info)
{
	struct orca_send_wqe_hdr *hdr = orca_wr_next(qpx, IBV_WR_BIND_MW);
	int err;

	if (!hdr)
		return;
	err = orca_wqe_bind_mw(hdr, mw->rkey, rkey, bind_info);
	if (err)
		orca_wr_fail(qpx_to_oqp(qpx), err);
}

static void orca_wr_set_ud_addr(struct ibv_qp_ex *qpx, struct ibv_ah *ah,
				uint32_t remote_qpn, uint32_t remote_qkey)
{
	struct orca_qp *qp = qpx_to_oqp(qpx);
	int err;

	if (!qp->wr_cur)
		return;
	err = orca_wqe_set_ud(qp->wr_cur, ah, remote_qpn, remote_qkey);
	if (err)
		orca_wr_fail(qp, err);
}

/* ibv_wr_set_xrc_srqn(): the XRC SRQ the current WQE goes to. */
static void orca_wr_set_xrc_srqn(struct ibv_qp_ex *qpx, uint32_t remote_srqn)
{
	struct orca_qp *qp = qpx_to_oqp(qpx);
	int err;

	if (!qp->wr_cur)
		return;
	err = orca_wqe_set_xrc(qp->wr_cur, remote_srqn);
	if (err)
		orca_wr_fail(qp, err);
}

static void orca_wr_set_sge_list(struct ibv_qp_ex *qpx, size_t num_sge,
				 const struct ibv_sge *sg_list)
{
	struct orca_qp *qp = qpx_to_oqp(qpx);
	int err;

	if (!qp->wr_cur)
		return;
	err = orca_wqe_set_sgl(qp, qp->wr_cur, sg_list, num_sge);
	if (err)
		orca_wr_fail(qp, err);
}

static void orca_wr_set_sge(struct ibv_qp_ex *qpx, uint32_t lkey,
			    uint64_t addr, uint32_t length)
{
	struct ibv_sge sge = { .addr = addr, .length = length, .lkey = lkey };

	orca_wr_set_sge_list(qpx, 1, &sge);
}

static void orca_wr_set_inline_data_list(struct ibv_qp_ex *qpx, size_t num_buf,
					 const struct ibv_data_buf *buf_list)
{
	struct orca_qp *qp = qpx_to_oqp(qpx);
	size_t i;
	int err;

	if (!qp->wr_cur)
		return;
	/* An empty list is a zero-length message. */
	err = orca_wqe_add_inline(qp, qp->wr_cur, true, NULL, 0);
	for (i = 0; !err && i < num_buf; i++)
		err = orca_wqe_add_inline(qp, qp->wr_cur, false,
					  buf_list[i].addr,
					  buf_list[i].length);
	if (err)
		orca_wr_fail(qp, err);
}

static void orca_wr_set_inline_data(struct ibv_qp_ex *qpx, void *addr,
				    size_t length)
{
	struct ibv_data_buf buf = { .addr = addr, .length = length };

	orca_wr_set_inline_data_list(qpx, 1, &buf);
}

static int orca_wr_complete(struct ibv_qp_ex *qpx)
{
	struct orca_qp *qp = qpx_to_oqp(qpx);
	int err = qp->wr_err;

	if (!err && qp->wr_pi != qp->sq.pi)
		orca_sq_publish(qp, qp->sq.pi, qp->wr_pi);
	qp->wr_cur = NULL;
	orca_unlock(&qp->sq.lock);
	return err;
}

static void orca_wr_abort(struct ibv_qp_ex *qpx)
{
	struct orca_qp *qp = qpx_to_oqp(qpx);

	/* The batch's WQEs lie past the published index: drop them. */
	qp->wr_cur = NULL;
	orca_unlock(&qp->sq.lock);
}

/*
 * The IBV_QP_EX_WITH_* operations and what they need: the QP types that
 * have them and the enum orca_uctx_caps bit of the feature behind them.
 */
static const struct orca_send_op {
	uint64_t flag;
	bool ud;
	bool uc;
	uint32_t cap;
} orca_send_ops[] = {
	{ IBV_QP_EX_WITH_SEND, true, true, 0 },
	{ IBV_QP_EX_WITH_SEND_WITH_IMM, true, true, 0 },
	{ IBV_QP_EX_WITH_SEND_WITH_INV, false, false, ORCA_UCTX_CAP_FRWR },
	{ IBV_QP_EX_WITH_RDMA_WRITE, false, true, 0 },
	{ IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM, false, true, 0 },
	{ IBV_QP_EX_WITH_RDMA_READ, false, false, 0 },
	{ IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP, false, false, ORCA_UCTX_CAP_ATOMIC },
	{ IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD, false, false,
	  ORCA_UCTX_CAP_ATOMIC },
	{ IBV_QP_EX_WITH_LOCAL_INV, false, false, ORCA_UCTX_CAP_FRWR },
	{ IBV_QP_EX_WITH_BIND_MW, false, false, ORCA_UCTX_CAP_MW },
	{ IBV_QP_EX_WITH_FLUSH, false, false, ORCA_UCTX_CAP_FLUSH },
	{ IBV_QP_EX_WITH_ATOMIC_WRITE, false, false,
	  ORCA_UCTX_CAP_ATOMIC_WRITE },
};

/* The IBV_QP_EX_WITH_* flags a QP of @qpt may ask for on this adapter. */
uint64_t orca_send_ops_supported(struct orca_context *ctx,
				 enum ibv_qp_type qpt)
{
	uint64_t ops = 0;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(orca_send_ops); i++) {
		const struct orca_send_op *o = &orca_send_ops[i];

		if ((qpt == IBV_QPT_RC || qpt == IBV_QPT_XRC_SEND ||
		     (qpt == IBV_QPT_UD && o->ud) ||
		     (qpt == IBV_QPT_UC && o->uc)) &&
		    (ctx->caps & o->cap) == o->cap)
			ops |= o->flag;
	}
	/* XRC has no FLUSH or ATOMIC WRITE opcode. */
	if (qpt == IBV_QPT_XRC_SEND)
		ops &= ~(uint64_t)(IBV_QP_EX_WITH_FLUSH |
				   IBV_QP_EX_WITH_ATOMIC_WRITE);
	return ops;
}

/* Fill the ibv_qp_ex calls for @ops (checked by the caller). */
void orca_qp_init_send_ops(struct orca_qp *qp, uint64_t ops)
{
	struct ibv_qp_ex *qpx = &qp->vqp.qp_ex;

	if (ops & IBV_QP_EX_WITH_SEND)
		qpx->wr_send = orca_wr_send;
	if (ops & IBV_QP_EX_WITH_SEND_WITH_IMM)
		qpx->wr_send_imm = orca_wr_send_imm;
	if (ops & IBV_QP_EX_WITH_SEND_WITH_INV)
		qpx->wr_send_inv = orca_wr_send_inv;
	if (ops & IBV_QP_EX_WITH_RDMA_WRITE)
		qpx->wr_rdma_write = orca_wr_rdma_write;
	if (ops & IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM)
		qpx->wr_rdma_write_imm = orca_wr_rdma_write_imm;
	if (ops & IBV_QP_EX_WITH_RDMA_READ)
		qpx->wr_rdma_read = orca_wr_rdma_read;
	if (ops & IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP)
		qpx->wr_atomic_cmp_swp = orca_wr_atomic_cmp_swp;
	if (ops & IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD)
		qpx->wr_atomic_fetch_add = orca_wr_atomic_fetch_add;
	if (ops & IBV_QP_EX_WITH_LOCAL_INV)
		qpx->wr_local_inv = orca_wr_local_inv;
	if (ops & IBV_QP_EX_WITH_BIND_MW)
		qpx->wr_bind_mw = orca_wr_bind_mw;
	if (ops & IBV_QP_EX_WITH_FLUSH)
		qpx->wr_flush = orca_wr_flush;
	if (ops & IBV_QP_EX_WITH_ATOMIC_WRITE)
		qpx->wr_atomic_write = orca_wr_atomic_write;

	if (qp->vqp.qp.qp_type == IBV_QPT_UD)
		qpx->wr_set_ud_addr = orca_wr_set_ud_addr;
	if (qp->vqp.qp.qp_type == IBV_QPT_XRC_SEND)
		qpx->wr_set_xrc_srqn = orca_wr_set_xrc_srqn;
	qpx->wr_set_sge = orca_wr_set_sge;
	qpx->wr_set_sge_list = orca_wr_set_sge_list;
	qpx->wr_set_inline_data = orca_wr_set_inline_data;
	qpx->wr_set_inline_data_list = orca_wr_set_inline_data_list;
	qpx->wr_start = orca_wr_start;
	qpx->wr_complete = orca_wr_complete;
	qpx->wr_abort = orca_wr_abort;
}

/*
 * ibv_bind_mw(): a type 1 window, bound by a BIND_MW work request with the
 * next key; the window takes it now, as rxe's, and keeps it if the bind
 * completes in error (the consumer undoes it, ibv_bind_mw(3)).
 */
int orca_bind_mw(struct ibv_qp *ibqp, struct ibv_mw *mw,
		 struct ibv_mw_bind *mw_bind)
{
	struct ibv_send_wr wr = {}, *bad_wr;
	int err;

	/* o10-36.2.2: no zero-based type 1 window. */
	if (mw_bind->bind_info.mw_access_flags & IBV_ACCESS_ZERO_BASED)
		return EINVAL;
	wr.opcode = IBV_WR_BIND_MW;
	wr.wr_id = mw_bind->wr_id;
	wr.send_flags = mw_bind->send_flags;
	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = ibv_inc_rkey(mw->rkey);
	wr.bind_mw.bind_info = mw_bind->bind_info;
	err = orca_post_send(ibqp, &wr, &bad_wr);
	if (err)
		return err;
	mw->rkey = wr.bind_mw.rkey;
	return 0;
}

/* @tag: a tagged SRQ's record of the WQE (orca_srq_rec_post()), else 0. */
static void orca_write_recv_wqe(uint8_t *wqe, const struct ibv_recv_wr *wr,
				uint16_t tag)
{
	struct orca_recv_wqe_hdr *hdr = (struct orca_recv_wqe_hdr *)wqe;

	memset(hdr, 0, sizeof(*hdr));
	hdr->wr_id_lo = htole32((uint32_t)wr->wr_id);
	hdr->wr_id_hi = htole32((uint32_t)(wr->wr_id >> 32));
	hdr->num_sge = wr->num_sge;
	hdr->tag = htole16(tag);
	orca_set_sges((struct orca_sge *)(hdr + 1), wr->sg_list, wr->num_sge);
}

int orca_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
		   struct ibv_recv_wr **bad_wr)
{
	struct orca_context *ctx = to_octx(ibqp->context);
	struct orca_qp *qp = to_oqp(ibqp);
	uint32_t depth = 1U << qp->rq.log_depth;
	uint32_t old, slot;
	int err = 0;

	/* Receives of a QP on an SRQ go to the SRQ. */
	if (!qp->rq.buf ||
	    __atomic_load_n(&qp->state, __ATOMIC_ACQUIRE) == IBV_QPS_RESET) {
		*bad_wr = wr;
		return EINVAL;
	}
	orca_lock(&qp->rq.lock);
	old = qp->rq.pi;
	for (; wr; wr = wr->next) {
		if (wr->num_sge < 0 || (uint32_t)wr->num_sge > qp->rq.max_sge) {
			err = EINVAL;
			break;
		}
		if (qp->rq.pi - orca_wq_ci(&qp->rq.ci) >= depth) {
			err = ENOMEM;
			break;
		}
		slot = orca_wq_slot(qp->rq.pi, qp->rq.log_depth);
		orca_write_recv_wqe(qp->rq.buf + (size_t)slot * qp->rq.stride,
				    wr, 0);
		qp->rq.wrid[slot] = wr->wr_id;
		/* The record first, for a poller that checks against pi. */
		__atomic_store_n(&qp->rq.pi, qp->rq.pi + 1, __ATOMIC_RELEASE);
	}
	if (qp->rq.pi != old)
		orca_publish_pi(ctx, &qp->db->rq_pi, &qp->db->rq_event_idx, old,
				qp->rq.pi, ORCA_UAR_RQ_DB, qp->qpn);
	orca_unlock(&qp->rq.lock);
	if (err)
		*bad_wr = wr;
	return err;
}

int orca_post_srq_recv(struct ibv_srq *ibsrq, struct ibv_recv_wr *wr,
		       struct ibv_recv_wr **bad_wr)
{
	struct orca_context *ctx = to_octx(ibsrq->context);
	struct orca_srq *srq = to_osrq(ibsrq);
	uint32_t old, pi, slot;
	uint16_t tag;
	int err = 0;

	/* A resize swaps the ring, depth and records under both locks. */
	pthread_spin_lock(&srq->lock);
	pthread_spin_lock(&srq->wr_lock);
	old = srq->pi;
	for (; wr; wr = wr->next) {
		if (wr->num_sge < 0 || (uint32_t)wr->num_sge > srq->max_sge) {
			err = EINVAL;
			break;
		}
		/*
		 * None free with max_wr WQEs outstanding, or (untagged) with
		 * the slot's WQE still waiting for a CQE another CQ holds.
		 */
		if (!orca_srq_rec_post(&srq->recs, srq->log_depth, srq->pi,
				       wr->wr_id, &tag)) {
			err = ENOMEM;
			break;
		}
		slot = orca_wq_slot(srq->pi, srq->log_depth);
		orca_write_recv_wqe((uint8_t *)srq->ring.buf +
				    (size_t)slot * srq->stride, wr, tag);
		srq->pi++;
	}
	pi = srq->pi;
	pthread_spin_unlock(&srq->wr_lock);
	if (pi != old)
		orca_publish_pi(ctx, &srq->db->pi, &srq->db->event_idx, old,
				pi, ORCA_UAR_SRQ_DB, srq->srqn);
	pthread_spin_unlock(&srq->lock);
	if (err)
		*bad_wr = wr;
	return err;
}

/*
 * After a transition to RESET the adapter restarts both queues at index 0
 * (and has set the event indices to 0); our indices follow.  The caller
 * has removed the QP's CQEs from its CQs.
 */
void orca_qp_reset_indices(struct orca_qp *qp)
{
	orca_lock(&qp->sq.lock);
	__atomic_store_n(&qp->sq.pi, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&qp->sq.ci, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&qp->db->sq_pi, 0, __ATOMIC_RELAXED);
	orca_unlock(&qp->sq.lock);
	orca_lock(&qp->rq.lock);
	__atomic_store_n(&qp->rq.pi, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&qp->rq.ci, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&qp->db->rq_pi, 0, __ATOMIC_RELAXED);
	orca_unlock(&qp->rq.lock);
}

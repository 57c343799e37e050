// SPDX-License-Identifier: GPL-2.0
/*
 * ORCA user queue rings: the checks of the geometry (entries, WQE stride)
 * and of the address and length a provider gives for a ring, pinning the
 * ring, describing it to the adapter as a list of ORCA_UQUEUE_ALIGN pages
 * (the ABI's page size, whatever the CPU's), and the creation of the
 * queues with one ring and one doorbell record, user CQs and SRQs.
 */
#include <linux/log2.h>
#include <rdma/ib_umem.h>
#include <rdma/iter.h>
#include <rdma/uverbs_ioctl.h>

#include "orca_user.h"

static_assert(ORCA_UQUEUE_ALIGN == 1 << ORCA_UQUEUE_PAGE_SHIFT);

/**
 * orca_uqueue_refuse() - refuse the geometry or the ring of a user queue
 * @odev: device
 * @fmt: the reason, for the debug log
 *
 * A provider and a kernel that disagree on a layout fail every such
 * request: it is counted (driver_bad_user_queues in rdma statistic) and
 * its reason logged at debug level, ratelimited, since any process may
 * send such requests.
 *
 * Return: -EINVAL.
 */
__printf(2, 3) int orca_uqueue_refuse(struct orca_dev *odev,
				      const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	orca_drv_stat_inc(odev, ORCA_DRV_STAT_BAD_USER_QUEUES);
	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	ibdev_dbg_ratelimited(&odev->ibdev, "user queue refused: %pV\n", &vaf);
	va_end(args);
	return -EINVAL;
}

/**
 * orca_uqueue_depth() - check the entries of a user ring
 * @odev: device
 * @what: the ring, for the reason of a refusal
 * @count: entries the provider gave the ring
 * @asked: entries the verbs attributes ask for
 * @max: the device's limit on entries
 * @log_depth: result, @count = 1 << @log_depth
 *
 * @count is a power of two, at least @asked and 1 << ORCA_MIN_LOG_DEPTH,
 * and at most what the kernel gives its own queue for @max entries (@max
 * rounded up to a power of two; the WQ limits are already clamped to the
 * 16-bit WQE index, ORCA_MAX_LOG_WQ_DEPTH).
 *
 * Return: 0, or -EINVAL: @asked over @max (the attributes' fault, not
 * counted), or a refused @count (orca_uqueue_refuse()).
 */
int orca_uqueue_depth(struct orca_dev *odev, const char *what, u32 count,
		      u32 asked, u32 max, u8 *log_depth)
{
	u32 least = max(asked, 1U << ORCA_MIN_LOG_DEPTH);
	u32 most = min(max, 1U << 30);

	if (asked > most)
		return -EINVAL;
	most = 1U << order_base_2(max(most, 1U << ORCA_MIN_LOG_DEPTH));
	if (!is_power_of_2(count))
		return orca_uqueue_refuse(odev, "%s: %u entries, not a power of two",
					  what, count);
	if (count > most)
		return orca_uqueue_refuse(odev, "%s: %u entries, over the device's %u",
					  what, count, most);
	if (count < least)
		return orca_uqueue_refuse(odev, "%s: %u entries, %u needed",
					  what, count, least);
	*log_depth = ilog2(count);
	return 0;
}

/**
 * orca_uqueue_stride() - check the WQE stride of a user ring
 * @odev: device
 * @what: the ring, for the reason of a refusal
 * @stride: bytes per WQE the provider chose
 * @recv: a receive (QP or SRQ) WQE, else a send WQE
 * @asked: SGEs the verbs attributes need (for a send WQE, inline bytes
 *	count as SGEs of 16 bytes)
 * @max: the device's limit on SGEs per WQE, at most ORCA_MAX_SGE
 * @sge: result: the SGEs a WQE of @stride bytes holds, at most @max, which
 *	the adapter is told and which derives @stride again
 *
 * The adapter derives a ring's stride from its SGEs per WQE
 * (orca_send_wqe_stride(), orca_recv_wqe_stride()), so a stride it takes
 * is one of those of 1 to @max SGEs.
 *
 * Return: 0 or -EINVAL (orca_uqueue_refuse()).
 */
int orca_uqueue_stride(struct orca_dev *odev, const char *what, u32 stride,
		       bool recv, u32 asked, u32 max, u32 *sge)
{
	u32 hdr = recv ? sizeof(struct orca_recv_wqe_hdr) :
			 sizeof(struct orca_send_wqe_hdr);
	u32 n = stride > hdr ? (stride - hdr) / sizeof(struct orca_sge) : 0;

	n = min(n, max);
	if (!is_power_of_2(stride) || !n ||
	    (recv ? orca_recv_wqe_stride(n) : orca_send_wqe_stride(n)) != stride)
		return orca_uqueue_refuse(odev, "%s: stride %u, not one of the adapter's",
					  what, stride);
	if (n < asked)
		return orca_uqueue_refuse(odev, "%s: stride %u holds %u SGEs, %u needed",
					  what, stride, n, asked);
	*sge = n;
	return 0;
}

/**
 * orca_uring_check() - check a user ring against the bytes it must hold
 * @odev: device
 * @what: the ring, for the reason of a refusal
 * @va: user address of the ring
 * @len: length the provider allocated
 * @bytes: bytes of entries the ring holds (stride << log_depth)
 * @needed: result, @bytes rounded up to ORCA_UQUEUE_ALIGN: what is pinned
 *
 * Return: 0, or -EINVAL (orca_uqueue_refuse()) if @va or @len is not a
 * multiple of ORCA_UQUEUE_ALIGN or @len is too short.
 */
int orca_uring_check(struct orca_dev *odev, const char *what, u64 va,
		     u64 len, size_t bytes, size_t *needed)
{
	if (!IS_ALIGNED(va, ORCA_UQUEUE_ALIGN) ||
	    !IS_ALIGNED(len, ORCA_UQUEUE_ALIGN))
		return orca_uqueue_refuse(odev, "%s: ring 0x%llx+%llu, not in %d-byte pages",
					  what, va, len, ORCA_UQUEUE_ALIGN);
	*needed = ALIGN(bytes, ORCA_UQUEUE_ALIGN);
	if (!*needed || len < *needed)
		return orca_uqueue_refuse(odev, "%s: ring of %llu bytes, %zu needed",
					  what, len, *needed);
	return 0;
}

/* Pin @needed bytes at @va, writable (the adapter writes CQEs). */
struct ib_umem *orca_uring_get(struct orca_dev *odev, u64 va, size_t needed)
{
	return ib_umem_get_va(&odev->ibdev, va, needed, IB_ACCESS_LOCAL_WRITE);
}

/**
 * orca_pgl_add_umem() - append the first pages of a pinned ring to a list
 * @pgl: page list with room for them
 * @umem: the ring
 * @needed: bytes of the ring the adapter uses, a multiple of
 *	ORCA_UQUEUE_ALIGN
 *
 * Return: 0, or -EINVAL if the ring does not start on an ORCA_UQUEUE_ALIGN
 * boundary or is shorter than @needed (a umem from a core attribute).
 */
int orca_pgl_add_umem(struct orca_pgl *pgl, struct ib_umem *umem,
		      size_t needed)
{
	u32 n = needed >> ORCA_UQUEUE_PAGE_SHIFT;
	struct ib_block_iter biter;
	u32 added = 0;

	if (!IS_ALIGNED(umem->address, ORCA_UQUEUE_ALIGN) ||
	    umem->length < needed ||
	    !ib_umem_find_best_pgsz(umem, ORCA_UQUEUE_ALIGN, umem->address))
		return -EINVAL;
	if (n > pgl->npages - pgl->used)
		return -EINVAL;
	rdma_umem_for_each_dma_block(umem, &biter, ORCA_UQUEUE_ALIGN) {
		if (added == n)
			break;
		orca_pgl_add(pgl, rdma_block_iter_dma_address(&biter));
		added++;
	}
	return added == n ? 0 : -EINVAL;
}

/**
 * orca_uring_pin() - check, pin and list the pages of a user ring for a
 *	command that moves a queue to it (RESIZE_CQ, MODIFY_SRQ)
 * @odev: device
 * @what: the ring, for the reason of a refusal
 * @va: user address of the ring
 * @len: length the provider allocated
 * @bytes: bytes of entries the ring holds (stride << log_depth)
 * @pgl: the ring's page list, made here; the caller frees it once the
 *	command is done (orca_pgl_free())
 * @ring: set to describe @pgl to the command
 *
 * Return: the pinned ring, or an ERR_PTR (then nothing is left to free).
 */
struct ib_umem *orca_uring_pin(struct orca_dev *odev, const char *what,
			       u64 va, u64 len, size_t bytes,
			       struct orca_pgl *pgl, struct orca_com_ring *ring)
{
	struct ib_umem *umem;
	size_t needed;
	int err;

	err = orca_uring_check(odev, what, va, len, bytes, &needed);
	if (err)
		return ERR_PTR(err);
	umem = orca_uring_get(odev, va, needed);
	if (IS_ERR(umem))
		return umem;
	err = orca_pgl_alloc(odev, pgl, needed >> ORCA_UQUEUE_PAGE_SHIFT);
	if (!err)
		err = orca_pgl_add_umem(pgl, umem, needed);
	if (err) {
		orca_pgl_free(odev, pgl);
		ib_umem_release(umem);
		return ERR_PTR(err);
	}
	*ring = (struct orca_com_ring){
		.pgl = pgl,
		.npages = pgl->used,
		.page_shift = ORCA_UQUEUE_PAGE_SHIFT,
	};
	return umem;
}

/* The response naming a user CQ (or else SRQ), once it exists. */
static int orca_uqueue_respond(struct orca_cq *cq, struct orca_srq *srq,
			       struct ib_udata *udata)
{
	struct orca_create_srq_resp srq_resp = {};
	struct orca_create_cq_resp cq_resp = {};

	if (cq) {
		cq_resp.cqn = cq->cqn;
		return ib_respond_udata(udata, cq_resp);
	}
	srq_resp.srqn = srq->srqn;
	return ib_respond_udata(udata, srq_resp);
}

/**
 * orca_uqueue_create() - create a user CQ or SRQ on its pinned ring
 * @uctx: the queue's context
 * @cq: a user CQ, or NULL for @srq
 * @srq: a user SRQ, or NULL for @cq
 * @needed: bytes of the ring the adapter uses (orca_uring_check())
 * @db_rec_va: user address of the queue's doorbell record
 * @udata: where the response goes
 *
 * The queue's attributes were accepted and its ring pinned in its umem,
 * which is released here on failure.  What a user CQ and a user SRQ, one
 * ring and one doorbell record each, do alike: pin the record, list the
 * ring's pages for the CREATE command, create the queue, answer the
 * provider, and on failure undo what the adapter let go of.
 *
 * Return: 0 or a negative errno; on error nothing is left to undo (a queue
 * the adapter still has keeps its pinned pages and record).
 */
int orca_uqueue_create(struct orca_ucontext *uctx, struct orca_cq *cq,
		       struct orca_srq *srq, size_t needed, u64 db_rec_va,
		       struct ib_udata *udata)
{
	struct orca_dev *odev = to_odev(uctx->ibuctx.device);
	struct ib_umem *umem = cq ? cq->umem : srq->umem;
	struct orca_qbuf *buf = cq ? &cq->buf : &srq->buf;
	struct orca_udb_page **udb = cq ? &cq->udb : &srq->udb;
	dma_addr_t *db_dma = cq ? &cq->db_dma : &srq->db_dma;
	size_t db_len = cq ? sizeof(struct orca_cq_db_rec) :
			     sizeof(struct orca_srq_db_rec);
	struct orca_pgl pgl = {};
	bool may_free = true;
	int err;

	buf->size = needed;
	buf->page_shift = ORCA_UQUEUE_PAGE_SHIFT;
	buf->npages = needed >> ORCA_UQUEUE_PAGE_SHIFT;
	err = orca_udb_get(uctx, db_rec_va, db_len, udb, db_dma);
	if (err)
		goto err_umem;
	err = orca_pgl_alloc(odev, &pgl, buf->npages);
	if (err)
		goto err_udb;
	err = orca_pgl_add_umem(&pgl, umem, needed);
	if (!err)
		err = cq ? orca_cq_finish(odev, cq, &pgl, &may_free) :
			   orca_srq_finish(odev, srq, &pgl, &may_free);
	orca_pgl_free(odev, &pgl);
	/* A queue the adapter still has keeps its pinned pages and record. */
	if (err && !may_free) {
		orca_user_keep(odev, *udb, umem, NULL);
		return err;
	}
	if (err)
		goto err_udb;

	err = orca_uqueue_respond(cq, srq, udata);
	if (err)
		goto err_remove;
	return 0;

err_remove:
	if (!(cq ? orca_cq_remove(odev, cq) : orca_srq_remove(odev, srq))) {
		orca_user_keep(odev, *udb, umem, NULL);
		return err;
	}
err_udb:
	orca_udb_put(*udb);
err_umem:
	ib_umem_release(umem);
	return err;
}

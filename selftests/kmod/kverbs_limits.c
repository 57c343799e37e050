// SPDX-License-Identifier: GPL-2.0
/*
 * orca_kverbs "limits" suite: what the device advertises against what it
 * really accepts.  Kernel ULPs size their objects from ib_device_attr and
 * do not retry with less: isert, srpt and nvmet create QPs with
 * cap.max_send_sge = attrs.max_send_sge, RDS asks 769 send WRs whatever
 * max_qp_wr says, ib_cq_pool_get() keeps allocating max_cqe-sized CQs.  So
 * every object is created at each advertised maximum (it must work), and
 * one past it (it must fail with -EINVAL, never be silently clamped).  The
 * first case checks the attributes the in-tree ULPs depend on.
 */
#include <linux/errno.h>
#include <linux/scatterlist.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "kverbs.h"

/* What the kernel's ULPs need of a RoCE device (ulps.md, section 4). */
static void kv_ulp_requirements(struct kv_test *t)
{
	const struct ib_device_attr *a = &t->ibdev->attrs;

	KV_EXPECT(t, a->device_cap_flags & IB_DEVICE_MEM_MGT_EXTENSIONS,
		  "FRWR (iser, rpcrdma, rds, smbdirect): flags %#llx",
		  a->device_cap_flags);
	KV_EXPECT(t, a->max_fast_reg_page_list_len >= 256,
		  "fast-reg page list %u (rdma_rw 256, rds 257 wants more)",
		  a->max_fast_reg_page_list_len);
	KV_EXPECT(t, a->max_send_sge >= 6, "max_send_sge %d (smbdirect 6)",
		  a->max_send_sge);
	KV_EXPECT(t, a->max_recv_sge >= 2, "max_recv_sge %d (rds 2)",
		  a->max_recv_sge);
	KV_EXPECT(t, a->max_sge_rd > 0, "max_sge_rd %d (rdma_rw divides by it)",
		  a->max_sge_rd);
	KV_EXPECT(t, a->max_qp_wr >= 4619 + 512,
		  "max_qp_wr %d (rds 769, iser 4619)", a->max_qp_wr);
	KV_EXPECT(t, a->max_cqe >= a->max_qp_wr,
		  "max_cqe %d >= max_qp_wr %d (CQ pools, srpt 4224)",
		  a->max_cqe, a->max_qp_wr);
	KV_EXPECT(t, a->max_qp_init_rd_atom >= 16 && a->max_qp_rd_atom >= 16,
		  "rd_atom %d/%d (svcrdma, ksmbd)", a->max_qp_init_rd_atom,
		  a->max_qp_rd_atom);
	KV_EXPECT(t, a->max_mr_size >= SZ_8K && a->page_size_cap & SZ_4K,
		  "max_mr_size %llu page_size_cap %#llx (srp)", a->max_mr_size,
		  a->page_size_cap);
	KV_EXPECT(t, t->ibdev->node_type == RDMA_NODE_IB_CA,
		  "node type %d (rds refuses others)", t->ibdev->node_type);
}

static void kv_cq_at_max(struct kv_test *t)
{
	int max = t->ibdev->attrs.max_cqe;
	struct ib_cq *cq = kv_cq(t, max, 0);

	if (cq)
		KV_EXPECT(t, cq->cqe >= max, "cqe %d for %d", cq->cqe, max);
}

/* An RC QP with every capability at the device's maximum at once. */
static void kv_qp_init_max(struct kv_test *t, struct ib_qp_init_attr *init,
			   struct ib_cq *cq)
{
	const struct ib_device_attr *a = &t->ibdev->attrs;

	*init = (struct ib_qp_init_attr){
		.send_cq = cq,
		.recv_cq = cq,
		.qp_type = IB_QPT_RC,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.cap = {
			.max_send_wr = a->max_qp_wr,
			.max_recv_wr = a->max_qp_wr,
			.max_send_sge = a->max_send_sge,
			.max_recv_sge = a->max_recv_sge,
		},
	};
}

static void kv_qp_at_max(struct kv_test *t)
{
	const struct ib_device_attr *a = &t->ibdev->attrs;
	struct ib_qp_init_attr init;
	struct ib_cq *cq = kv_cq(t, a->max_cqe, 0);
	struct ib_qp *qp;

	if (!cq)
		return;
	kv_qp_init_max(t, &init, cq);
	qp = kv_qp(t, &init);
	if (!qp)
		return;
	KV_EXPECT(t, init.cap.max_send_wr >= a->max_qp_wr &&
		  init.cap.max_recv_wr >= a->max_qp_wr,
		  "wr %u/%u", init.cap.max_send_wr, init.cap.max_recv_wr);
	KV_EXPECT(t, init.cap.max_send_sge >= a->max_send_sge &&
		  init.cap.max_recv_sge >= a->max_recv_sge,
		  "sge %u/%u", init.cap.max_send_sge, init.cap.max_recv_sge);
}

/* Each capability one past its maximum, the others at theirs. */
static void kv_qp_past_max(struct kv_test *t)
{
	struct ib_qp_init_attr init, bad;
	struct ib_cq *cq = kv_cq(t, 64, 0);
	struct ib_pd *pd = kv_pd(t);
	struct ib_qp *qp;
	int i;

	if (!cq || !pd)
		return;
	kv_qp_init_max(t, &init, cq);
	for (i = 0; i < 4; i++) {
		bad = init;
		if (i == 0)
			bad.cap.max_send_wr++;
		else if (i == 1)
			bad.cap.max_recv_wr++;
		else if (i == 2)
			bad.cap.max_send_sge++;
		else
			bad.cap.max_recv_sge++;
		qp = ib_create_qp(pd, &bad);
		KV_EXPECT(t, PTR_ERR_OR_ZERO(qp) == -EINVAL,
			  "capability %d one past the maximum: %pe", i, qp);
		if (!IS_ERR(qp))
			ib_destroy_qp(qp);
	}
}

/*
 * ib_device_attr has no inline limit; the QP reports what it grants.
 * Asking for more than the adapter's WQE can carry must fail.
 */
static void kv_qp_inline_past_max(struct kv_test *t)
{
	struct ib_cq *cq = kv_cq(t, 64, 0);
	struct ib_qp_init_attr init = {
		.send_cq = cq,
		.recv_cq = cq,
		.qp_type = IB_QPT_RC,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 1, .max_recv_sge = 1,
			 .max_inline_data = 64 },
	};
	struct ib_pd *pd = kv_pd(t);
	struct ib_qp *qp;
	u32 granted;

	if (!cq || !pd)
		return;
	qp = kv_qp(t, &init);
	if (!qp)
		return;
	granted = init.cap.max_inline_data;
	KV_EXPECT(t, granted >= 64, "inline %u for 64", granted);
	init.cap.max_inline_data = 64 * 1024;
	qp = ib_create_qp(pd, &init);
	KV_EXPECT(t, PTR_ERR_OR_ZERO(qp) == -EINVAL, "64 KiB inline: %pe", qp);
	if (!IS_ERR(qp))
		ib_destroy_qp(qp);
}

static void kv_srq_at_and_past_max(struct kv_test *t)
{
	const struct ib_device_attr *a = &t->ibdev->attrs;
	struct ib_srq_init_attr init = { .srq_type = IB_SRQT_BASIC };
	struct ib_pd *pd = kv_pd(t);
	struct ib_srq *srq;
	int i;

	if (!kv_srq(t, a->max_srq_wr, a->max_srq_sge) || !pd)
		return;
	for (i = 0; i < 2; i++) {
		init.attr.max_wr = a->max_srq_wr + (i == 0);
		init.attr.max_sge = a->max_srq_sge + (i == 1);
		srq = ib_create_srq(pd, &init);
		KV_EXPECT(t, PTR_ERR_OR_ZERO(srq) == -EINVAL,
			  "%s one past the maximum: %pe",
			  i ? "max_sge" : "max_wr", srq);
		if (!IS_ERR(srq))
			ib_destroy_srq(srq);
	}
}

static void kv_frmr_at_and_past_max(struct kv_test *t)
{
	u32 max = t->ibdev->attrs.max_fast_reg_page_list_len;
	struct ib_pd *pd = kv_pd(t);
	struct ib_mr *mr;

	if (!kv_fast_mr(t, max) || !pd)
		return;
	mr = ib_alloc_mr(pd, IB_MR_TYPE_MEM_REG, max + 1);
	KV_EXPECT(t, PTR_ERR_OR_ZERO(mr) == -EINVAL, "%u pages: %pe", max + 1,
		  mr);
	if (!IS_ERR(mr))
		ib_dereg_mr(mr);
}

/*
 * A "large" fast-registration MR: 64 MiB in 4 KiB pages, whose page list
 * alone is 128 KiB (order 5).  ULPs that map big I/Os (smbdirect asks for
 * 2048 pages) take what the device offers.
 */
#define KV_LARGE_MR_PAGES	(SZ_64M / SZ_4K)
/* Distinct pages the large MR's entries cycle through. */
#define KV_FRAG_POOL		16

struct kv_frag_case {
	struct kv_frag frag;
	struct sg_table sgt;
	int mapped;
	struct page *pool[KV_FRAG_POOL + 2];
};

static void kv_frag_case_cleanup(struct kv_test *t)
{
	struct kv_frag_case *c = t->priv;
	int i;

	kv_frag_end(&c->frag);
	if (c->mapped)
		ib_dma_unmap_sg(t->ibdev, c->sgt.sgl, c->sgt.orig_nents,
				DMA_BIDIRECTIONAL);
	sg_free_table(&c->sgt);
	for (i = 0; i < ARRAY_SIZE(c->pool); i++)
		if (c->pool[i])
			__free_page(c->pool[i]);
	kfree(c);
}

/*
 * The scatterlist of the large MR, built before memory is fragmented: entry
 * i is pool page i % KV_FRAG_POOL, except the last two, which are their own
 * pages (pool[KV_FRAG_POOL], pool[KV_FRAG_POOL + 1]), so data that lands
 * there went through the last entries of the device's page list.
 */
static bool kv_frag_sg(struct kv_test *t, struct kv_frag_case *c, u32 n)
{
	struct scatterlist *sg;
	u32 i;

	for (i = 0; i < ARRAY_SIZE(c->pool); i++) {
		c->pool[i] = alloc_page(GFP_KERNEL | __GFP_ZERO);
		if (!KV_EXPECT(t, c->pool[i], "pool page %u", i))
			return false;
	}
	if (!KV_EXPECT(t, !sg_alloc_table(&c->sgt, n, GFP_KERNEL),
		       "sg table of %u", n))
		return false;
	for_each_sgtable_sg(&c->sgt, sg, i) {
		u32 p = i >= n - 2 ? KV_FRAG_POOL + (i - (n - 2)) :
				     i % KV_FRAG_POOL;

		sg_set_page(sg, c->pool[p], PAGE_SIZE, 0);
	}
	c->mapped = ib_dma_map_sg(t->ibdev, c->sgt.sgl, n, DMA_BIDIRECTIONAL);
	return KV_EXPECT(t, c->mapped == n, "dma map %u entries: %d", n,
			 c->mapped);
}

/* REG_MR of @mr over the scatterlist on @qp, remote write allowed. */
static bool kv_frag_reg(struct kv_test *t, struct kv_frag_case *c,
			struct ib_qp *qp, struct ib_cq *cq, struct ib_mr *mr,
			u32 n)
{
	struct ib_reg_wr wr = {};
	int got, err;

	got = ib_map_mr_sg(mr, c->sgt.sgl, n, NULL, PAGE_SIZE);
	if (!KV_EXPECT(t, got == n, "ib_map_mr_sg: %d of %u", got, n))
		return false;
	ib_update_fast_reg_key(mr, ib_inc_rkey(mr->rkey));
	wr.wr.opcode = IB_WR_REG_MR;
	wr.wr.wr_id = 910;
	wr.wr.send_flags = IB_SEND_SIGNALED;
	wr.mr = mr;
	wr.key = mr->rkey;
	wr.access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE;
	err = ib_post_send(qp, &wr.wr, NULL);
	return KV_EXPECT(t, !err, "post REG_MR: %d", err) &&
	       kv_expect_wc(t, cq, "REG_MR", 910, IB_WC_SUCCESS, IB_WC_REG_MR,
			    NULL);
}

/*
 * Issue 10: with no free block of 64 KiB or more left, an RC QP at
 * max_qp_wr and max_send_sge/max_recv_sge (two 8 MiB rings), a CQ at
 * max_cqe and a fast-registration MR of max_fast_reg_page_list_len pages
 * are created; a WRITE from the big QP through the MR to its last two
 * pages arrives, byte-checked, where the page list says.
 */
static void kv_at_max_fragmented(struct kv_test *t)
{
	const struct ib_device_attr *a = &t->ibdev->attrs;
	u32 n = a->max_fast_reg_page_list_len;
	const u32 len = 5000, off = 1000;
	struct ib_cq *cq, *bcq;
	struct ib_qp_init_attr init;
	struct kv_frag_case *c;
	struct ib_qp *qa, *qb;
	struct kv_buf *src;
	struct ib_mr *mr;
	struct ib_sge sge;
	struct ib_rdma_wr wr = {};
	u8 *p0, *p1;
	u32 i;
	int err;

	KV_EXPECT(t, n >= KV_LARGE_MR_PAGES,
		  "max_fast_reg_page_list_len %u < %d (64 MiB in 4 KiB pages)",
		  n, KV_LARGE_MR_PAGES);
	c = kzalloc_obj(*c);
	if (!KV_EXPECT(t, c, "kzalloc"))
		return;
	t->priv = c;
	t->cleanup = kv_frag_case_cleanup;
	src = kv_buf_alloc(t, len);
	if (!src || !kv_pd(t) || !kv_frag_sg(t, c, n))
		return;
	kv_fill(src->va, len, 77);
	ib_dma_sync_single_for_device(t->ibdev, src->dma, src->len,
				      DMA_BIDIRECTIONAL);

	if (!kv_frag_begin(t, &c->frag) || !kv_frag_check(t, &c->frag))
		return;
	cq = kv_cq(t, a->max_cqe, 0);
	bcq = kv_cq(t, 64, 0);
	if (!cq || !bcq)
		return;
	kv_qp_init_max(t, &init, cq);
	qa = kv_qp(t, &init);
	qb = kv_simple_qp(t, IB_QPT_RC, bcq, 64, NULL);
	mr = kv_fast_mr(t, n);
	if (!qa || !qb || !mr)
		return;
	if (kv_rc_connect(t, qa, qb->qp_num) || kv_rc_connect(t, qb, qa->qp_num))
		return;
	if (!kv_frag_reg(t, c, qb, bcq, mr, n))
		return;

	sge = (struct ib_sge){ .addr = src->dma, .length = len,
			       .lkey = qa->pd->local_dma_lkey };
	wr.wr.wr_id = 911;
	wr.wr.opcode = IB_WR_RDMA_WRITE;
	wr.wr.send_flags = IB_SEND_SIGNALED;
	wr.wr.sg_list = &sge;
	wr.wr.num_sge = 1;
	wr.remote_addr = mr->iova + (u64)(n - 2) * PAGE_SIZE + PAGE_SIZE -
			 off;
	wr.rkey = mr->rkey;
	err = ib_post_send(qa, &wr.wr, NULL);
	if (!KV_EXPECT(t, !err, "post WRITE: %d", err) ||
	    !kv_expect_wc(t, cq, "WRITE", 911, IB_WC_SUCCESS, IB_WC_RDMA_WRITE,
			  NULL))
		return;
	dma_sync_sg_for_cpu(t->ibdev->dma_device, c->sgt.sgl, n,
			    DMA_BIDIRECTIONAL);
	/* @off bytes at the end of entry n - 2, the rest from entry n - 1. */
	p0 = page_address(c->pool[KV_FRAG_POOL]);
	p1 = page_address(c->pool[KV_FRAG_POOL + 1]);
	for (i = 0; i < len; i++) {
		u8 got = i < off ? p0[PAGE_SIZE - off + i] : p1[i - off];

		if (!KV_EXPECT(t, got == ((u8 *)src->va)[i],
			       "byte %u: 0x%02x, want 0x%02x", i, got,
			       ((u8 *)src->va)[i]))
			return;
	}
	for (i = 0; i < KV_FRAG_POOL; i++)
		KV_EXPECT(t, !memchr_inv(page_address(c->pool[i]), 0, PAGE_SIZE),
			  "pool page %u written", i);
}

static const struct kv_case kv_limits_cases[] = {
	{ "ulp_requirements", kv_ulp_requirements },
	{ "cq_at_max_cqe", kv_cq_at_max },
	{ "rc_qp_at_max", kv_qp_at_max },
	{ "rc_qp_past_max", kv_qp_past_max },
	{ "qp_inline_past_max", kv_qp_inline_past_max },
	{ "srq_at_and_past_max", kv_srq_at_and_past_max },
	{ "frmr_at_and_past_max", kv_frmr_at_and_past_max },
	{ "cqs_on_one_vector", kv_cq_flood },
	{ "at_max_on_fragmented_memory", kv_at_max_fragmented },
};

const struct kv_suite kv_limits_suite = {
	.name = "limits",
	.cases = kv_limits_cases,
	.ncases = ARRAY_SIZE(kv_limits_cases),
};

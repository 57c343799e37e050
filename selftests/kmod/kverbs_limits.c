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

static const struct kv_case kv_limits_cases[] = {
	{ "ulp_requirements", kv_ulp_requirements },
	{ "cq_at_max_cqe", kv_cq_at_max },
	{ "rc_qp_at_max", kv_qp_at_max },
	{ "rc_qp_past_max", kv_qp_past_max },
	{ "qp_inline_past_max", kv_qp_inline_past_max },
	{ "srq_at_and_past_max", kv_srq_at_and_past_max },
	{ "frmr_at_and_past_max", kv_frmr_at_and_past_max },
	{ "cqs_on_one_vector", kv_cq_flood },
};

const struct kv_suite kv_limits_suite = {
	.name = "limits",
	.cases = kv_limits_cases,
	.ncases = ARRAY_SIZE(kv_limits_cases),
};

// SPDX-License-Identifier: GPL-2.0
/*
 * orca_kverbs "objects" suite: the control path of the verbs objects (PD,
 * CQ, QP, SRQ, MR, AH) as a kernel consumer sees it: the handles and
 * capabilities returned, attributes read back after a modify, and the
 * errors of invalid requests.  No data moves.
 */
#include <linux/etherdevice.h>
#include <linux/scatterlist.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <rdma/ib_cache.h>

#include "kverbs.h"

#define KV_QKEY		0x11111111
#define KV_SQ_PSN	0x654321
#define KV_RQ_PSN	0x123456
#define KV_FLOW_LABEL	0x12345
#define KV_MAX_SGE	16

static void kv_device_attrs(struct kv_test *t)
{
	const struct ib_device_attr *a = &t->ibdev->attrs;

	KV_EXPECT(t, a->vendor_id == 0x1234, "vendor_id 0x%x", a->vendor_id);
	KV_EXPECT(t, a->max_qp > 1, "max_qp %d", a->max_qp);
	KV_EXPECT(t, a->max_qp_wr >= 64, "max_qp_wr %d", a->max_qp_wr);
	KV_EXPECT(t, a->max_cqe >= 64, "max_cqe %d", a->max_cqe);
	KV_EXPECT(t, a->max_send_sge >= 1 && a->max_send_sge <= 16,
		  "max_send_sge %d", a->max_send_sge);
	KV_EXPECT(t, a->max_recv_sge >= 1 && a->max_recv_sge <= 16,
		  "max_recv_sge %d", a->max_recv_sge);
	KV_EXPECT(t, a->max_pd >= 1 && a->max_mr >= 1 && a->max_cq >= 1,
		  "max_pd %d max_mr %d max_cq %d", a->max_pd, a->max_mr,
		  a->max_cq);
	KV_EXPECT(t, t->ibdev->num_comp_vectors >= 1, "%d comp vectors",
		  t->ibdev->num_comp_vectors);
	KV_EXPECT(t, rdma_protocol_roce(t->ibdev, 1), "port 1 is RoCE");
	kv_diag(t, "max_qp %d max_qp_wr %d max_cqe %d max_sge %d/%d srq %d frpl %u comp vectors %d",
		a->max_qp, a->max_qp_wr, a->max_cqe, a->max_send_sge,
		a->max_recv_sge, a->max_srq, a->max_fast_reg_page_list_len,
		t->ibdev->num_comp_vectors);
}

static void kv_pd_lkey(struct kv_test *t)
{
	struct ib_pd *pd = kv_pd(t);

	if (!pd)
		return;
	/* Without a device-wide lkey the core registers a DMA MR. */
	KV_EXPECT(t, pd->local_dma_lkey != 0, "local_dma_lkey 0x%x",
		  pd->local_dma_lkey);
	KV_EXPECT(t, !pd->unsafe_global_rkey, "no global rkey asked for");
}

static void kv_cq_sizes(struct kv_test *t)
{
	struct ib_cq *small = kv_cq(t, 100, 0);
	struct ib_cq *big = kv_cq(t, 5000, 0);

	if (small)
		KV_EXPECT(t, small->cqe >= 100, "cqe %d for 100", small->cqe);
	if (big)
		KV_EXPECT(t, big->cqe >= 5000, "cqe %d for 5000 (several pages)",
			  big->cqe);
}

static void kv_cq_over_max(struct kv_test *t)
{
	struct ib_cq_init_attr attr = { .cqe = t->ibdev->attrs.max_cqe + 1 };
	struct ib_cq *cq;

	cq = ib_create_cq(t->ibdev, NULL, NULL, NULL, &attr);
	KV_EXPECT(t, PTR_ERR_OR_ZERO(cq) == -EINVAL, "got %pe", cq);
	if (!IS_ERR(cq))
		ib_destroy_cq(cq);
}

static void kv_cq_every_vector(struct kv_test *t)
{
	int i, n = min(t->ibdev->num_comp_vectors, KV_MAX_CQS);

	for (i = 0; i < n; i++)
		if (!kv_cq(t, 16, i))
			return;
}

static void kv_rc_qp_caps(struct kv_test *t)
{
	struct ib_qp_init_attr init = {
		.qp_type = IB_QPT_RC,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.cap = {
			.max_send_wr = 50, .max_recv_wr = 300,
			.max_send_sge = 2, .max_recv_sge = 3,
			.max_inline_data = 64,
		},
	};
	struct ib_qp *qp;

	init.send_cq = kv_cq(t, 64, 0);
	init.recv_cq = kv_cq(t, 512, 0);
	if (!init.send_cq || !init.recv_cq)
		return;
	qp = kv_qp(t, &init);
	if (!qp)
		return;
	KV_EXPECT(t, qp->qp_num > 1, "qpn %u", qp->qp_num);
	KV_EXPECT(t, init.cap.max_send_wr >= 50 && init.cap.max_recv_wr >= 300,
		  "wr %u/%u", init.cap.max_send_wr, init.cap.max_recv_wr);
	KV_EXPECT(t, init.cap.max_send_sge >= 2 && init.cap.max_recv_sge >= 3,
		  "sge %u/%u", init.cap.max_send_sge, init.cap.max_recv_sge);
	KV_EXPECT(t, init.cap.max_inline_data >= 64, "inline %u",
		  init.cap.max_inline_data);
}

/* RESET -> INIT -> RTR -> RTS on an RC QP; every value reads back. */
static void kv_rc_qp_connect_query(struct kv_test *t)
{
	struct ib_qp_init_attr qinit;
	struct ib_qp_attr attr = {}, q;
	struct ib_cq *cq = kv_cq(t, 64, 0);
	const struct ib_global_route *grh;
	union ib_gid gid;
	struct ib_qp *qp;
	int idx, err;

	qp = cq ? kv_simple_qp(t, IB_QPT_RC, cq, 16, NULL) : NULL;
	idx = kv_roce_v2_gid(t, &gid);
	if (!qp || idx < 0)
		return;

	attr.qp_state = IB_QPS_INIT;
	attr.port_num = 1;
	attr.qp_access_flags = IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_READ;
	err = ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_PKEY_INDEX |
			   IB_QP_PORT | IB_QP_ACCESS_FLAGS);
	if (!KV_EXPECT(t, !err, "RESET->INIT: %d", err))
		return;

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IB_QPS_RTR;
	attr.path_mtu = IB_MTU_1024;
	attr.dest_qp_num = qp->qp_num;
	attr.rq_psn = KV_RQ_PSN;
	attr.max_dest_rd_atomic = 1;
	attr.min_rnr_timer = 12;
	kv_ah_attr(t, &attr.ah_attr, &gid, idx);
	rdma_ah_set_grh(&attr.ah_attr, &gid, KV_FLOW_LABEL, idx, 64, 0);
	err = ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_AV | IB_QP_PATH_MTU |
			   IB_QP_DEST_QPN | IB_QP_RQ_PSN |
			   IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER);
	if (!KV_EXPECT(t, !err, "INIT->RTR: %d", err))
		return;

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IB_QPS_RTS;
	attr.sq_psn = KV_SQ_PSN;
	attr.timeout = 14;
	attr.retry_cnt = 7;
	attr.rnr_retry = 7;
	attr.max_rd_atomic = 1;
	err = ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_SQ_PSN |
			   IB_QP_TIMEOUT | IB_QP_RETRY_CNT | IB_QP_RNR_RETRY |
			   IB_QP_MAX_QP_RD_ATOMIC);
	if (!KV_EXPECT(t, !err, "RTR->RTS: %d", err))
		return;

	err = ib_query_qp(qp, &q, IB_QP_STATE, &qinit);
	if (!KV_EXPECT(t, !err, "query_qp: %d", err))
		return;
	grh = rdma_ah_read_grh(&q.ah_attr);
	KV_EXPECT(t, q.qp_state == IB_QPS_RTS, "state %d", q.qp_state);
	KV_EXPECT(t, q.sq_psn == KV_SQ_PSN && q.rq_psn == KV_RQ_PSN,
		  "sq_psn 0x%x rq_psn 0x%x", q.sq_psn, q.rq_psn);
	KV_EXPECT(t, q.dest_qp_num == qp->qp_num, "dest_qpn %u",
		  q.dest_qp_num);
	KV_EXPECT(t, q.path_mtu == IB_MTU_1024, "path_mtu %d", q.path_mtu);
	KV_EXPECT(t, q.timeout == 14 && q.retry_cnt == 7 && q.rnr_retry == 7,
		  "timeout %u retry %u rnr %u", q.timeout, q.retry_cnt,
		  q.rnr_retry);
	KV_EXPECT(t, q.min_rnr_timer == 12, "min_rnr_timer %u",
		  q.min_rnr_timer);
	KV_EXPECT(t, q.max_rd_atomic == 1 && q.max_dest_rd_atomic == 1,
		  "rd_atomic %u/%u", q.max_rd_atomic, q.max_dest_rd_atomic);
	KV_EXPECT(t, q.qp_access_flags ==
		  (IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_READ),
		  "access 0x%x", q.qp_access_flags);
	KV_EXPECT(t, grh->flow_label == KV_FLOW_LABEL && grh->hop_limit == 64 &&
		  grh->sgid_index == idx, "flow label 0x%x hop %u sgid %u",
		  grh->flow_label, grh->hop_limit, grh->sgid_index);
	KV_EXPECT(t, !memcmp(grh->dgid.raw, gid.raw, sizeof(gid.raw)),
		  "dgid %pI6", grh->dgid.raw);
	KV_EXPECT(t, ether_addr_equal(q.ah_attr.roce.dmac, t->mac),
		  "dmac %pM, want %pM", q.ah_attr.roce.dmac, t->mac);
	KV_EXPECT(t, qinit.qp_type == IB_QPT_RC && qinit.send_cq == cq,
		  "init attr type %d", qinit.qp_type);

	attr.qp_state = IB_QPS_ERR;
	err = ib_modify_qp(qp, &attr, IB_QP_STATE);
	KV_EXPECT(t, !err, "RTS->ERR: %d", err);
	attr.qp_state = IB_QPS_RESET;
	err = ib_modify_qp(qp, &attr, IB_QP_STATE);
	KV_EXPECT(t, !err, "ERR->RESET: %d", err);
}

static int kv_qp_state(struct kv_test *t, struct ib_qp *qp)
{
	struct ib_qp_init_attr init;
	struct ib_qp_attr q;
	int err;

	err = ib_query_qp(qp, &q, IB_QP_STATE, &init);
	KV_EXPECT(t, !err, "query_qp: %d", err);
	return err ? -1 : q.qp_state;
}

static void kv_rc_qp_bad_transition(struct kv_test *t)
{
	struct ib_cq *cq = kv_cq(t, 16, 0);
	struct ib_qp *qp = cq ? kv_simple_qp(t, IB_QPT_RC, cq, 8, NULL) : NULL;
	struct ib_qp_attr attr = {};
	int err;

	if (!qp)
		return;
	attr.qp_state = IB_QPS_RTS;
	err = ib_modify_qp(qp, &attr, IB_QP_STATE);
	KV_EXPECT(t, err == -EINVAL, "RESET->RTS: %d", err);
	attr.qp_state = IB_QPS_INIT;
	attr.port_num = 1;
	err = ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_PKEY_INDEX |
			   IB_QP_PORT | IB_QP_ACCESS_FLAGS);
	KV_EXPECT(t, !err, "RESET->INIT: %d", err);
	attr.qp_state = IB_QPS_RTS;
	err = ib_modify_qp(qp, &attr, IB_QP_STATE);
	KV_EXPECT(t, err == -EINVAL, "INIT->RTS: %d", err);
	/* RTR without its required attributes. */
	attr.qp_state = IB_QPS_RTR;
	err = ib_modify_qp(qp, &attr, IB_QP_STATE);
	KV_EXPECT(t, err == -EINVAL, "INIT->RTR without AV: %d", err);
	KV_EXPECT(t, kv_qp_state(t, qp) == IB_QPS_INIT, "still INIT");
}

static void kv_rc_qp_bad_attr(struct kv_test *t)
{
	struct ib_cq *cq = kv_cq(t, 16, 0);
	struct ib_qp *qp = cq ? kv_simple_qp(t, IB_QPT_RC, cq, 8, NULL) : NULL;
	struct ib_qp_attr attr = {};
	int err;

	if (!qp)
		return;
	attr.qp_state = IB_QPS_INIT;
	attr.port_num = 1;
	attr.pkey_index = 1;
	err = ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_PKEY_INDEX |
			   IB_QP_PORT | IB_QP_ACCESS_FLAGS);
	KV_EXPECT(t, err == -EINVAL, "pkey_index 1: %d", err);
	/*
	 * Not port 2: ib_core trusts a kernel caller's port number and
	 * reads port_data[2] of a one-port device before the driver could
	 * refuse it (KASAN: slab-out-of-bounds in _ib_modify_qp).  A user
	 * QP's port is checked by uverbs before it gets there.
	 */
	KV_EXPECT(t, kv_qp_state(t, qp) == IB_QPS_RESET, "still RESET");
	attr.pkey_index = 0;
	err = ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_PKEY_INDEX |
			   IB_QP_PORT | IB_QP_ACCESS_FLAGS);
	KV_EXPECT(t, !err, "RESET->INIT: %d", err);
	attr.max_dest_rd_atomic = t->ibdev->attrs.max_qp_rd_atom + 1;
	err = ib_modify_qp(qp, &attr, IB_QP_MAX_DEST_RD_ATOMIC);
	KV_EXPECT(t, err == -EINVAL, "max_dest_rd_atomic above max: %d", err);
}

static void kv_qp_caps_over_limit(struct kv_test *t)
{
	const struct ib_device_attr *a = &t->ibdev->attrs;
	struct ib_qp_init_attr init = {
		.qp_type = IB_QPT_RC,
		.cap = { .max_send_wr = 8, .max_recv_wr = 8,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ib_pd *pd = kv_pd(t);
	struct ib_qp *qp;
	int i;

	init.send_cq = kv_cq(t, 16, 0);
	init.recv_cq = init.send_cq;
	if (!pd || !init.send_cq)
		return;
	for (i = 0; i < 4; i++) {
		struct ib_qp_init_attr bad = init;

		if (i == 0)
			bad.cap.max_send_sge = a->max_send_sge + 1;
		else if (i == 1)
			bad.cap.max_recv_sge = a->max_recv_sge + 1;
		else if (i == 2)
			bad.cap.max_send_wr = a->max_qp_wr + 1;
		else
			bad.cap.max_recv_wr = a->max_qp_wr + 1;
		qp = ib_create_qp(pd, &bad);
		KV_EXPECT(t, PTR_ERR_OR_ZERO(qp) == -EINVAL, "case %d: %pe",
			  i, qp);
		if (!IS_ERR(qp))
			ib_destroy_qp(qp);
	}
}

static void kv_qp_type_unsupported(struct kv_test *t)
{
	struct ib_qp_init_attr init = {
		.qp_type = IB_QPT_RAW_PACKET,
		.cap = { .max_send_wr = 8, .max_recv_wr = 8,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ib_pd *pd = kv_pd(t);
	struct ib_qp *qp;

	init.send_cq = kv_cq(t, 16, 0);
	init.recv_cq = init.send_cq;
	if (!pd || !init.send_cq)
		return;
	qp = ib_create_qp(pd, &init);
	KV_EXPECT(t, PTR_ERR_OR_ZERO(qp) == -EOPNOTSUPP, "raw packet QP: %pe",
		  qp);
	if (!IS_ERR(qp))
		ib_destroy_qp(qp);
}

static void kv_ud_qp_qkey(struct kv_test *t)
{
	struct ib_cq *cq = kv_cq(t, 32, 0);
	struct ib_qp *qp = cq ? kv_simple_qp(t, IB_QPT_UD, cq, 16, NULL) : NULL;
	struct ib_qp_init_attr init;
	struct ib_qp_attr attr = {}, q;
	int err;

	if (!qp)
		return;
	attr.qp_state = IB_QPS_INIT;
	attr.port_num = 1;
	attr.qkey = KV_QKEY;
	err = ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_PKEY_INDEX |
			   IB_QP_PORT | IB_QP_QKEY);
	KV_EXPECT(t, !err, "RESET->INIT: %d", err);
	attr.qp_state = IB_QPS_RTR;
	err = ib_modify_qp(qp, &attr, IB_QP_STATE);
	KV_EXPECT(t, !err, "INIT->RTR: %d", err);
	attr.qp_state = IB_QPS_RTS;
	attr.sq_psn = 1;
	err = ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_SQ_PSN);
	KV_EXPECT(t, !err, "RTR->RTS: %d", err);
	err = ib_query_qp(qp, &q, IB_QP_STATE, &init);
	if (!KV_EXPECT(t, !err, "query_qp: %d", err))
		return;
	KV_EXPECT(t, q.qp_state == IB_QPS_RTS && q.qkey == KV_QKEY,
		  "state %d qkey 0x%x", q.qp_state, q.qkey);
	KV_EXPECT(t, init.cap.max_inline_data >= 64, "inline %u",
		  init.cap.max_inline_data);
}

/*
 * QP1 is unique.  On a kernel-verbs device the MAD layer owns it, so a
 * second GSI QP is refused with -EBUSY; otherwise it is ours to create.
 */
static void kv_gsi_qp(struct kv_test *t)
{
	struct ib_qp_init_attr init = {
		.qp_type = IB_QPT_GSI,
		.cap = { .max_send_wr = 8, .max_recv_wr = 8,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ib_pd *pd = kv_pd(t);
	struct ib_qp *qp;

	init.send_cq = kv_cq(t, 16, 0);
	init.recv_cq = init.send_cq;
	if (!pd || !init.send_cq)
		return;
	qp = ib_create_qp(pd, &init);
	if (t->ibdev->kverbs_provider) {
		KV_EXPECT(t, PTR_ERR_OR_ZERO(qp) == -EBUSY,
			  "second QP1: %pe", qp);
		if (!IS_ERR(qp))
			ib_destroy_qp(qp);
		return;
	}
	if (!KV_EXPECT(t, !IS_ERR(qp), "create GSI: %pe", qp))
		return;
	KV_EXPECT(t, qp->qp_num == 1, "qpn %u", qp->qp_num);
	KV_EXPECT(t, !ib_destroy_qp(qp), "destroy GSI");
}

static void kv_srq_limit(struct kv_test *t)
{
	struct ib_srq *srq = kv_srq(t, 100, 2);
	struct ib_srq_attr attr = {};
	int err;

	if (!srq)
		return;
	err = ib_query_srq(srq, &attr);
	KV_EXPECT(t, !err && attr.max_wr >= 100 && attr.max_sge >= 2 &&
		  attr.srq_limit == 0, "query %d: max_wr %u sge %u limit %u",
		  err, attr.max_wr, attr.max_sge, attr.srq_limit);
	attr.srq_limit = 10;
	err = ib_modify_srq(srq, &attr, IB_SRQ_LIMIT);
	KV_EXPECT(t, !err, "arm limit 10: %d", err);
	attr.srq_limit = 100000;
	err = ib_modify_srq(srq, &attr, IB_SRQ_LIMIT);
	KV_EXPECT(t, err == -EINVAL, "limit above depth: %d", err);
	/* A resize keeps the armed limit, and cannot go below it. */
	attr.max_wr = 1000;
	err = ib_modify_srq(srq, &attr, IB_SRQ_MAX_WR);
	KV_EXPECT(t, !err && attr.max_wr >= 1000, "resize to 1000: %d, max_wr %u",
		  err, attr.max_wr);
	attr.max_wr = 8;
	err = ib_modify_srq(srq, &attr, IB_SRQ_MAX_WR);
	KV_EXPECT(t, err == -EINVAL, "resize to 8 below limit 10: %d", err);
	memset(&attr, 0, sizeof(attr));
	err = ib_query_srq(srq, &attr);
	KV_EXPECT(t, !err && attr.srq_limit == 10 && attr.max_wr >= 1000,
		  "query %d: limit %u max_wr %u", err, attr.srq_limit,
		  attr.max_wr);
}

static void kv_srq_qp(struct kv_test *t)
{
	struct ib_srq *srq = kv_srq(t, 64, 1);
	struct ib_cq *cq = kv_cq(t, 64, 0);
	struct ib_qp_init_attr init;
	struct ib_qp_attr q;
	struct ib_qp *qp;
	int err;

	if (!srq || !cq)
		return;
	qp = kv_simple_qp(t, IB_QPT_RC, cq, 8, srq);
	if (!qp)
		return;
	err = ib_query_qp(qp, &q, IB_QP_CAP, &init);
	KV_EXPECT(t, !err && init.srq == srq && init.cap.max_recv_wr == 0,
		  "query %d: srq %p max_recv_wr %u", err, init.srq,
		  init.cap.max_recv_wr);
}

static void kv_xrcd_dealloc(struct kv_test *t)
{
	int err = ib_dealloc_xrcd_user(t->priv, NULL);

	KV_EXPECT(t, !err, "ib_dealloc_xrcd_user: %d", err);
}

/*
 * XRC objects of a kernel consumer (no kernel ULP uses XRC): a domain, an
 * XRC SRQ in it with its number, a target QP (no rings) taken through
 * INIT and queried, an initiator QP whose posts are refused (struct
 * ib_send_wr has no remote SRQ number), and an RC QP refused on the XRC
 * SRQ.  The kernel's XRC CQE path has no kernel traffic to test it.
 */
static void kv_xrc_objects(struct kv_test *t)
{
	struct ib_srq_init_attr sa = {
		.attr = { .max_wr = 16, .max_sge = 1 },
		.srq_type = IB_SRQT_XRC,
	};
	struct ib_qp_init_attr init = {}, qinit;
	struct ib_qp_attr q = {};
	const struct ib_send_wr *bad;
	struct ib_send_wr wr = { .opcode = IB_WR_SEND };
	struct ib_cq *cq = kv_cq(t, 32, 0);
	struct ib_pd *pd = kv_pd(t);
	struct ib_xrcd *xrcd;
	struct ib_srq *srq;
	struct ib_qp *qp;
	int err;

	if (!cq || !pd ||
	    !KV_EXPECT(t, t->ibdev->attrs.device_cap_flags & IB_DEVICE_XRC,
		       "IB_DEVICE_XRC"))
		return;
	xrcd = ib_alloc_xrcd_user(t->ibdev, NULL, NULL);
	if (!KV_EXPECT(t, !IS_ERR(xrcd), "ib_alloc_xrcd_user: %pe", xrcd))
		return;
	t->priv = xrcd;
	t->cleanup = kv_xrcd_dealloc;

	sa.ext.cq = cq;
	sa.ext.xrc.xrcd = xrcd;
	srq = ib_create_srq(pd, &sa);
	if (!KV_EXPECT(t, !IS_ERR(srq), "XRC SRQ: %pe", srq))
		return;
	t->srqs[t->nsrqs++] = srq;
	KV_EXPECT(t, srq->ext.xrc.srq_num, "srq_num %u", srq->ext.xrc.srq_num);

	init.qp_type = IB_QPT_XRC_TGT;
	init.xrcd = xrcd;
	qp = kv_qp(t, &init);
	if (!qp)
		return;
	q.qp_state = IB_QPS_INIT;
	q.port_num = 1;
	err = ib_modify_qp(qp, &q, IB_QP_STATE | IB_QP_PKEY_INDEX |
			   IB_QP_PORT | IB_QP_ACCESS_FLAGS);
	KV_EXPECT(t, !err, "target to INIT: %d", err);
	err = ib_query_qp(qp, &q, IB_QP_STATE | IB_QP_CAP, &qinit);
	KV_EXPECT(t, !err && q.qp_state == IB_QPS_INIT &&
		  !qinit.cap.max_send_wr && !qinit.cap.max_recv_wr &&
		  qinit.xrcd == xrcd,
		  "target query %d: state %d, WQEs %u/%u", err, q.qp_state,
		  qinit.cap.max_send_wr, qinit.cap.max_recv_wr);

	memset(&init, 0, sizeof(init));
	init.qp_type = IB_QPT_XRC_INI;
	init.send_cq = cq;
	init.sq_sig_type = IB_SIGNAL_ALL_WR;
	init.cap.max_send_wr = 8;
	init.cap.max_send_sge = 1;
	qp = kv_qp(t, &init);
	if (!qp)
		return;
	KV_EXPECT(t, !init.cap.max_recv_wr && init.cap.max_send_wr >= 8,
		  "initiator WQEs %u/%u", init.cap.max_send_wr,
		  init.cap.max_recv_wr);
	err = ib_post_send(qp, &wr, &bad);
	KV_EXPECT(t, err == -EOPNOTSUPP && bad == &wr,
		  "post on an initiator: %d", err);

	memset(&init, 0, sizeof(init));
	init.qp_type = IB_QPT_RC;
	init.send_cq = cq;
	init.recv_cq = cq;
	init.srq = srq;
	init.cap.max_send_wr = 8;
	init.cap.max_send_sge = 1;
	qp = ib_create_qp(pd, &init);
	KV_EXPECT(t, PTR_ERR_OR_ZERO(qp) == -EINVAL, "RC QP on an XRC SRQ: %pe",
		  qp);
	if (!IS_ERR(qp))
		ib_destroy_qp(qp);
}

static void kv_frmr_map(struct kv_test *t)
{
	struct ib_mr *mr = kv_fast_mr(t, 16);
	struct scatterlist sg[2];
	void *buf;
	int n, ret;

	if (!mr)
		return;
	KV_EXPECT(t, mr->lkey == mr->rkey && mr->lkey, "lkey 0x%x rkey 0x%x",
		  mr->lkey, mr->rkey);
	buf = kmalloc(4 * PAGE_SIZE, GFP_KERNEL);
	if (!KV_EXPECT(t, buf, "kmalloc"))
		return;
	sg_init_table(sg, 2);
	sg_set_buf(&sg[0], buf, PAGE_SIZE);
	sg_set_buf(&sg[1], buf + PAGE_SIZE, 2 * PAGE_SIZE);
	n = ib_dma_map_sg(t->ibdev, sg, 2, DMA_BIDIRECTIONAL);
	if (KV_EXPECT(t, n > 0, "map_sg %d", n)) {
		ret = ib_map_mr_sg(mr, sg, n, NULL, PAGE_SIZE);
		KV_EXPECT(t, ret == n, "ib_map_mr_sg %d of %d", ret, n);
		KV_EXPECT(t, mr->length == 3 * PAGE_SIZE, "length %llu",
			  mr->length);
		/* REG_MR carries its page size (1.1): any the device takes. */
		ret = ib_map_mr_sg(mr, sg, n, NULL, 2 * PAGE_SIZE);
		KV_EXPECT(t, ret > 0, "twice the page size: %d", ret);
		ret = ib_map_mr_sg(mr, sg, n, NULL, SZ_2K);
		KV_EXPECT(t, ret < 0, "2 KiB pages: %d", ret);
		ib_dma_unmap_sg(t->ibdev, sg, 2, DMA_BIDIRECTIONAL);
	}
	kfree(buf);
}

static void kv_frmr_over_limit(struct kv_test *t)
{
	u32 max = t->ibdev->attrs.max_fast_reg_page_list_len;
	struct ib_pd *pd = kv_pd(t);
	struct ib_mr *mr;

	if (!pd)
		return;
	mr = ib_alloc_mr(pd, IB_MR_TYPE_MEM_REG, max + 1);
	KV_EXPECT(t, PTR_ERR_OR_ZERO(mr) == -EINVAL, "%u pages: %pe", max + 1,
		  mr);
	if (!IS_ERR(mr))
		ib_dereg_mr(mr);
	mr = ib_alloc_mr(pd, IB_MR_TYPE_SG_GAPS, 8);
	KV_EXPECT(t, IS_ERR(mr), "SG_GAPS MR: %pe", mr);
	if (!IS_ERR(mr))
		ib_dereg_mr(mr);
}

/*
 * AHs from sleepable callers, and from atomic ones: the CM creates and
 * destroys its AHs under spinlocks.
 */
static void kv_ah_create_destroy(struct kv_test *t)
{
	static DEFINE_SPINLOCK(kv_ah_lock);
	struct rdma_ah_attr attr;
	struct ib_pd *pd = kv_pd(t);
	union ib_gid gid;
	struct ib_ah *ah;
	int idx, users;

	idx = kv_roce_v2_gid(t, &gid);
	if (!pd || idx < 0)
		return;
	kv_ah_attr(t, &attr, &gid, idx);
	if (!kv_ah(t, &attr))
		return;
	users = atomic_read(&pd->usecnt);

	spin_lock(&kv_ah_lock);
	ah = rdma_create_ah(pd, &attr, 0);
	if (!IS_ERR(ah))
		rdma_destroy_ah(ah, 0);
	spin_unlock(&kv_ah_lock);
	KV_EXPECT(t, !IS_ERR(ah), "AH in atomic context: %pe", ah);
	/* The destroy really happened: the PD lost the AH's reference. */
	KV_EXPECT(t, atomic_read(&pd->usecnt) == users, "PD use count %d, was %d",
		  atomic_read(&pd->usecnt), users);
}

/* ib_core's MAD layer holds QP1 only on a kernel verbs provider. */
static void kv_kverbs_provider(struct kv_test *t)
{
	KV_EXPECT(t, t->ibdev->kverbs_provider,
		  "ib_core does not count the device as a kverbs provider");
}

static void kv_poll_empty_cq(struct kv_test *t)
{
	struct ib_cq *cq = kv_cq(t, 16, 0);
	struct ib_wc wc[4];
	int ret;

	if (!cq)
		return;
	ret = ib_poll_cq(cq, ARRAY_SIZE(wc), wc);
	KV_EXPECT(t, ret == 0, "poll: %d", ret);
	ret = ib_req_notify_cq(cq, IB_CQ_NEXT_COMP |
			       IB_CQ_REPORT_MISSED_EVENTS);
	KV_EXPECT(t, ret == 0, "arm with nothing missed: %d", ret);
	ret = ib_req_notify_cq(cq, IB_CQ_SOLICITED);
	KV_EXPECT(t, ret == 0, "arm solicited: %d", ret);
	KV_EXPECT(t, atomic_read(&t->comp_events) == 0, "%d events",
		  atomic_read(&t->comp_events));
}

static void kv_post_reset_qp(struct kv_test *t)
{
	struct ib_cq *cq = kv_cq(t, 16, 0);
	struct ib_qp *qp = cq ? kv_simple_qp(t, IB_QPT_RC, cq, 8, NULL) : NULL;
	const struct ib_send_wr *bad_send = NULL;
	const struct ib_recv_wr *bad_recv = NULL;
	struct ib_send_wr swr = { .opcode = IB_WR_SEND };
	struct ib_recv_wr rwr = {};
	int err;

	if (!qp)
		return;
	err = ib_post_send(qp, &swr, &bad_send);
	KV_EXPECT(t, err == -EINVAL && bad_send == &swr, "send: %d", err);
	err = ib_post_recv(qp, &rwr, &bad_recv);
	KV_EXPECT(t, err == -EINVAL && bad_recv == &rwr, "recv: %d", err);
}

/* An RC QP in RTS, connected to itself. */
static struct ib_qp *kv_self_qp(struct kv_test *t, struct ib_cq **cqp)
{
	struct ib_cq *cq = kv_cq(t, 256, 0);
	struct ib_qp *qp = cq ? kv_simple_qp(t, IB_QPT_RC, cq, 8, NULL) : NULL;

	if (!qp || kv_rc_connect(t, qp, qp->qp_num))
		return NULL;
	if (cqp)
		*cqp = cq;
	return qp;
}

static void kv_post_bad_send(struct kv_test *t)
{
	struct ib_qp_init_attr init;
	struct ib_sge sge[KV_MAX_SGE + 1] = {};
	const struct ib_send_wr *bad = NULL;
	struct ib_send_wr wr = {};
	struct ib_qp_attr attr;
	struct ib_qp *qp;
	int err;

	qp = kv_self_qp(t, NULL);
	if (!qp || ib_query_qp(qp, &attr, IB_QP_CAP, &init))
		return;
	wr.opcode = IB_WR_SEND;
	wr.sg_list = sge;
	wr.num_sge = init.cap.max_send_sge + 1;
	err = ib_post_send(qp, &wr, &bad);
	KV_EXPECT(t, err == -EINVAL && bad == &wr, "%d SGEs: %d", wr.num_sge,
		  err);
	wr.num_sge = 1;
	sge[0].length = init.cap.max_inline_data + 1;
	wr.send_flags = IB_SEND_INLINE;
	bad = NULL;
	err = ib_post_send(qp, &wr, &bad);
	KV_EXPECT(t, err == -EINVAL && bad == &wr, "%u bytes inline: %d",
		  sge[0].length, err);
	wr.send_flags = 0;
	wr.num_sge = 0;
	wr.opcode = IB_WR_BIND_MW;
	bad = NULL;
	err = ib_post_send(qp, &wr, &bad);
	KV_EXPECT(t, err == -EINVAL && bad == &wr, "BIND_MW: %d", err);
}

static void kv_post_ud_rdma(struct kv_test *t)
{
	struct ib_cq *cq = kv_cq(t, 16, 0);
	struct ib_qp *qp = cq ? kv_simple_qp(t, IB_QPT_UD, cq, 8, NULL) : NULL;
	const struct ib_send_wr *bad = NULL;
	struct ib_rdma_wr wr = { .wr.opcode = IB_WR_RDMA_WRITE };
	int err;

	if (!qp || kv_ud_ready(t, qp, 0x11111111))
		return;
	err = ib_post_send(qp, &wr.wr, &bad);
	KV_EXPECT(t, err == -EINVAL && bad == &wr.wr, "RDMA write on UD: %d",
		  err);
}

/*
 * One chain longer than the send queue: every WR that fits is posted and
 * the first that does not is returned with -ENOMEM.  Nothing is polled,
 * so no slot can come back meanwhile, whatever the device does.
 */
static void kv_post_sq_full(struct kv_test *t)
{
	const struct ib_send_wr *bad = NULL;
	struct ib_qp_init_attr init;
	struct ib_rdma_wr *wrs;
	struct ib_qp_attr attr;
	struct kv_buf *buf;
	struct ib_sge sge;
	struct ib_qp *qp;
	u32 i, depth;
	int err;

	if (!kv_pd_global_rkey(t))
		return;
	qp = kv_self_qp(t, NULL);
	buf = kv_buf_alloc(t, 64);
	if (!qp || !buf || ib_query_qp(qp, &attr, IB_QP_CAP, &init))
		return;
	depth = init.cap.max_send_wr;
	wrs = kcalloc(depth + 1, sizeof(*wrs), GFP_KERNEL);
	if (!KV_EXPECT(t, wrs, "kcalloc"))
		return;
	sge.addr = buf->dma;
	sge.length = 8;
	sge.lkey = t->pd->local_dma_lkey;
	for (i = 0; i <= depth; i++) {
		wrs[i].wr.wr_id = i;
		wrs[i].wr.opcode = IB_WR_RDMA_WRITE;
		wrs[i].wr.sg_list = &sge;
		wrs[i].wr.num_sge = 1;
		wrs[i].wr.next = i < depth ? &wrs[i + 1].wr : NULL;
		wrs[i].remote_addr = buf->dma + 32;
		wrs[i].rkey = t->pd->unsafe_global_rkey;
	}
	err = ib_post_send(qp, &wrs[0].wr, &bad);
	KV_EXPECT(t, err == -ENOMEM && bad == &wrs[depth].wr,
		  "%u WRs in a %u deep SQ: %d, bad WR %lld", depth + 1, depth,
		  err, bad ? (long long)bad->wr_id : -1LL);
	kfree(wrs);
}

static void kv_post_rq_full(struct kv_test *t)
{
	struct ib_cq *cq = kv_cq(t, 64, 0);
	struct ib_qp *qp = cq ? kv_simple_qp(t, IB_QPT_RC, cq, 8, NULL) : NULL;
	struct ib_qp_attr attr = { .qp_state = IB_QPS_INIT, .port_num = 1 };
	const struct ib_recv_wr *bad = NULL;
	struct ib_qp_init_attr init;
	struct ib_recv_wr *wrs;
	u32 i, depth;
	int err;

	if (!qp || ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_PKEY_INDEX |
				IB_QP_PORT | IB_QP_ACCESS_FLAGS) ||
	    ib_query_qp(qp, &attr, IB_QP_CAP, &init))
		return;
	depth = init.cap.max_recv_wr;
	wrs = kcalloc(depth + 1, sizeof(*wrs), GFP_KERNEL);
	if (!KV_EXPECT(t, wrs, "kcalloc"))
		return;
	for (i = 0; i <= depth; i++) {
		wrs[i].wr_id = i;
		wrs[i].next = i < depth ? &wrs[i + 1] : NULL;
	}
	err = ib_post_recv(qp, wrs, &bad);
	KV_EXPECT(t, err == -ENOMEM && bad == &wrs[depth],
		  "%u WRs in a %u deep RQ: %d", depth + 1, depth, err);
	kfree(wrs);
}

static void kv_post_srq(struct kv_test *t)
{
	struct ib_srq *srq = kv_srq(t, 16, 1);
	struct ib_cq *cq = kv_cq(t, 16, 0);
	const struct ib_recv_wr *bad = NULL;
	struct ib_srq_attr sattr;
	struct ib_recv_wr *wrs;
	struct ib_sge sge[2] = {};
	struct ib_qp *qp;
	u32 i, depth;
	int err;

	qp = srq && cq ? kv_simple_qp(t, IB_QPT_RC, cq, 8, srq) : NULL;
	if (!qp || ib_query_srq(srq, &sattr))
		return;
	err = ib_post_recv(qp, &(struct ib_recv_wr){}, NULL);
	KV_EXPECT(t, err == -EINVAL, "post_recv on a QP with an SRQ: %d", err);
	depth = sattr.max_wr;
	wrs = kcalloc(depth + 1, sizeof(*wrs), GFP_KERNEL);
	if (!KV_EXPECT(t, wrs, "kcalloc"))
		return;
	wrs[0].sg_list = sge;
	wrs[0].num_sge = sattr.max_sge + 1;
	err = ib_post_srq_recv(srq, wrs, &bad);
	KV_EXPECT(t, err == -EINVAL && bad == wrs, "%d SGEs: %d",
		  wrs[0].num_sge, err);
	wrs[0].num_sge = 0;
	for (i = 0; i <= depth; i++)
		wrs[i].next = i < depth ? &wrs[i + 1] : NULL;
	err = ib_post_srq_recv(srq, wrs, &bad);
	KV_EXPECT(t, err == -ENOMEM && bad == &wrs[depth],
		  "%u WRs in a %u deep SRQ: %d", depth + 1, depth, err);
	kfree(wrs);
}

static const struct kv_case kv_objects_cases[] = {
	{ "device_attrs", kv_device_attrs },
	{ "kverbs_provider", kv_kverbs_provider },
	{ "pd_local_dma_lkey", kv_pd_lkey },
	{ "cq_sizes", kv_cq_sizes },
	{ "cq_over_max_cqe", kv_cq_over_max },
	{ "cq_every_comp_vector", kv_cq_every_vector },
	{ "rc_qp_caps", kv_rc_qp_caps },
	{ "rc_qp_connect_query", kv_rc_qp_connect_query },
	{ "rc_qp_bad_transition", kv_rc_qp_bad_transition },
	{ "rc_qp_bad_attr", kv_rc_qp_bad_attr },
	{ "qp_caps_over_limit", kv_qp_caps_over_limit },
	{ "qp_type_unsupported", kv_qp_type_unsupported },
	{ "ud_qp_qkey", kv_ud_qp_qkey },
	{ "gsi_qp", kv_gsi_qp },
	{ "srq_limit", kv_srq_limit },
	{ "srq_qp", kv_srq_qp },
	{ "xrc_objects", kv_xrc_objects },
	{ "frmr_map", kv_frmr_map },
	{ "frmr_over_limit", kv_frmr_over_limit },
	{ "ah_create_destroy", kv_ah_create_destroy },
	{ "poll_empty_cq", kv_poll_empty_cq },
	{ "post_reset_qp", kv_post_reset_qp },
	{ "post_bad_send", kv_post_bad_send },
	{ "post_ud_rdma", kv_post_ud_rdma },
	{ "post_sq_full", kv_post_sq_full },
	{ "post_rq_full", kv_post_rq_full },
	{ "post_srq", kv_post_srq },
};

const struct kv_suite kv_objects_suite = {
	.name = "objects",
	.cases = kv_objects_cases,
	.ncases = ARRAY_SIZE(kv_objects_cases),
};

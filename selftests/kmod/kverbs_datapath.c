// SPDX-License-Identifier: GPL-2.0
/*
 * orca_kverbs "datapath" suite: data moved by the device between two QPs
 * of the same adapter (loopback through its port): RC send/receive, RDMA
 * write (with immediate), read, both atomics, UD, SRQ, fast-registered
 * buffers and remote invalidation, sizes from 0 to 1 MiB across the path
 * MTU with every byte checked, completion events (none for a CQ that got
 * a destroyed CQ's number: kverbs_stale.c), and the work completion
 * status of each kind of error.
 *
 * Buffers come from a PD with the unsafe global rkey, so a buffer's bus
 * address is also its remote address; FRWR cases register their own MR.
 */
#include <linux/delay.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/sizes.h>

#include "kverbs.h"

#define KV_QKEY			0x11111111
#define KV_IMM			0x12345678
#define KV_POLL_MS		20000
#define KV_QUIET_MS		300
#define KV_CANARY		0xcc
#define KV_GRH_BYTES		40
#define KV_MAX_MSG		SZ_1M

/* Two RC QPs of one device connected to each other, one CQ each. */
struct kv_pair {
	struct ib_qp *a;
	struct ib_qp *b;
	struct ib_cq *acq;
	struct ib_cq *bcq;
	u32 rkey;
};

/*
 * The fill pattern, the one the emulator's RoCE tests write (roce_node.h):
 * every 8 bytes of a transfer, as a little-endian u64, hold the transfer's
 * seed (xored with "ORCA", so that no word is zero) in the high half and
 * their own offset in the transfer in the low half.  No two words of a
 * transfer are alike, nor two transfers with different seeds: a page or a
 * packet placed at the wrong offset, one repeated, or data another
 * transfer left behind reads wrong, and the word found at the first
 * mismatch says where its bytes came from.
 */
#define KV_PAT_TAG		0x4f524341	/* "ORCA" */
/*
 * Transfer @i of the suite's case @c: each has a seed of its own, so data
 * one left in a buffer never passes for another's.
 */
#define KV_SEED(c, i)		((u32)(c) << 8 | (u32)(i))

static u64 kv_pat_word(u32 seed, size_t off)
{
	return (u64)(seed ^ KV_PAT_TAG) << 32 | (u32)(off & ~(size_t)7);
}

/* Byte @i of the transfer seeded @seed. */
static u8 kv_pat_byte(u32 seed, size_t i)
{
	return kv_pat_word(seed, i) >> (8 * (i & 7));
}

void kv_fill(void *buf, size_t len, u32 seed)
{
	u8 *p = buf;
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = kv_pat_byte(seed, i);
}

/*
 * Every byte of @buf as kv_fill(@seed) wrote it; else report the first
 * that is not, and whose word (which seed, which offset) is there instead.
 */
bool kv_check_fill(struct kv_test *t, const void *buf, size_t len, u32 seed,
		   const char *what)
{
	const u8 *p = buf;
	size_t i, w, k;
	u64 got = 0;

	for (i = 0; i < len; i++)
		if (p[i] != kv_pat_byte(seed, i))
			break;
	if (i == len)
		return true;
	w = i & ~(size_t)7;
	if (w + 8 > len)
		return KV_EXPECT(t, false,
				 "%s: byte %zu of %zu is 0x%02x, want 0x%02x",
				 what, i, len, p[i], kv_pat_byte(seed, i));
	for (k = 0; k < 8; k++)
		got |= (u64)p[w + k] << (8 * k);
	return KV_EXPECT(t, false,
			 "%s: byte %zu of %zu is 0x%02x, want 0x%02x; its word holds seed %u offset %u, want seed %u offset %zu",
			 what, i, len, p[i], kv_pat_byte(seed, i),
			 (u32)(got >> 32) ^ KV_PAT_TAG, (u32)got, seed, w);
}

static bool kv_check_canary(struct kv_test *t, const void *buf, size_t len,
			    const char *what)
{
	const u8 *p = buf;
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i] != KV_CANARY)
			return KV_EXPECT(t, false,
					 "%s: byte %zu past the data changed to 0x%02x",
					 what, i, p[i]);
	return true;
}

static void kv_to_dev(struct kv_test *t, struct kv_buf *b)
{
	ib_dma_sync_single_for_device(t->ibdev, b->dma, b->len,
				      DMA_BIDIRECTIONAL);
}

static void kv_to_cpu(struct kv_test *t, struct kv_buf *b)
{
	ib_dma_sync_single_for_cpu(t->ibdev, b->dma, b->len,
				   DMA_BIDIRECTIONAL);
}

bool kv_poll_one(struct kv_test *t, struct ib_cq *cq, struct ib_wc *wc,
		 const char *what)
{
	unsigned long deadline = jiffies + msecs_to_jiffies(KV_POLL_MS);
	int n;

	for (;;) {
		n = ib_poll_cq(cq, 1, wc);
		if (n == 1)
			return true;
		if (!KV_EXPECT(t, n == 0, "%s: ib_poll_cq %d", what, n))
			return false;
		if (time_after(jiffies, deadline))
			break;
		usleep_range(100, 1000);
	}
	KV_EXPECT(t, false, "%s: no completion in %d ms", what, KV_POLL_MS);
	kv_dump_qps(t);
	return false;
}

/* One completion for @wr_id with @status (and @opcode unless negative). */
bool kv_expect_wc(struct kv_test *t, struct ib_cq *cq, const char *what,
		  u64 wr_id, enum ib_wc_status status, int opcode,
		  struct ib_wc *out)
{
	struct ib_wc wc;

	if (!kv_poll_one(t, cq, &wc, what))
		return false;
	if (out)
		*out = wc;
	return KV_EXPECT(t, wc.wr_id == wr_id && wc.status == status &&
			 (opcode < 0 || wc.opcode == opcode),
			 "%s: wr_id %llu %s opcode %d, want wr_id %llu %s opcode %d",
			 what, wc.wr_id, ib_wc_status_msg(wc.status), wc.opcode,
			 wr_id, ib_wc_status_msg(status), opcode);
}

/* Nothing more arrives on @cq for a while. */
static void kv_expect_quiet(struct kv_test *t, struct ib_cq *cq,
			    const char *what)
{
	struct ib_wc wc;
	int n;

	msleep(KV_QUIET_MS);
	n = ib_poll_cq(cq, 1, &wc);
	KV_EXPECT(t, n == 0, "%s: unexpected completion wr_id %llu %s",
		  what, n ? wc.wr_id : 0,
		  n ? ib_wc_status_msg(wc.status) : "-");
}

static bool kv_pair(struct kv_test *t, struct kv_pair *p, struct ib_srq *srq)
{
	struct ib_pd *pd = t->pd ? t->pd : kv_pd_global_rkey(t);

	if (!pd)
		return false;
	p->rkey = pd->unsafe_global_rkey;
	p->acq = kv_cq(t, 256, 0);
	p->bcq = kv_cq(t, 256, 0);
	if (!p->acq || !p->bcq)
		return false;
	p->a = kv_simple_qp(t, IB_QPT_RC, p->acq, 64, NULL);
	p->b = kv_simple_qp(t, IB_QPT_RC, p->bcq, 64, srq);
	if (!p->a || !p->b)
		return false;
	return !kv_rc_connect(t, p->a, p->b->qp_num) &&
	       !kv_rc_connect(t, p->b, p->a->qp_num);
}

static int kv_post_recv(struct ib_qp *qp, u64 wr_id, struct kv_buf *b,
			u32 len)
{
	struct ib_sge sge = {
		.addr = b->dma,
		.length = len,
		.lkey = qp->pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = {
		.wr_id = wr_id,
		.sg_list = &sge,
		.num_sge = 1,
	};

	return ib_post_recv(qp, &wr, NULL);
}

static int kv_post_send(struct ib_qp *qp, u64 wr_id, enum ib_wr_opcode op,
			struct kv_buf *b, u32 len, u32 flags)
{
	struct ib_sge sge = {
		.addr = b->dma,
		.length = len,
		.lkey = qp->pd->local_dma_lkey,
	};
	struct ib_send_wr wr = {
		.wr_id = wr_id,
		.sg_list = &sge,
		.num_sge = len ? 1 : 0,
		.opcode = op,
		.send_flags = IB_SEND_SIGNALED | flags,
		.ex.imm_data = cpu_to_be32(KV_IMM),
	};

	return ib_post_send(qp, &wr, NULL);
}

static int kv_post_rdma(struct ib_qp *qp, u64 wr_id, enum ib_wr_opcode op,
			struct kv_buf *local, u32 len, u64 raddr, u32 rkey)
{
	struct ib_sge sge = {
		.addr = local->dma,
		.length = len,
		.lkey = qp->pd->local_dma_lkey,
	};
	struct ib_rdma_wr wr = {
		.wr = {
			.wr_id = wr_id,
			.sg_list = &sge,
			.num_sge = len ? 1 : 0,
			.opcode = op,
			.send_flags = IB_SEND_SIGNALED,
			.ex.imm_data = cpu_to_be32(KV_IMM),
		},
		.remote_addr = raddr,
		.rkey = rkey,
	};

	return ib_post_send(qp, &wr.wr, NULL);
}

/* Message sizes around the path MTU, from empty to 1 MiB. */
static int kv_sizes(struct kv_test *t, u32 *sizes)
{
	u32 mtu = ib_mtu_enum_to_int(kv_active_mtu(t));
	int n = 0;

	sizes[n++] = 0;
	sizes[n++] = 1;
	sizes[n++] = mtu - 1;
	sizes[n++] = mtu;
	sizes[n++] = mtu + 1;
	sizes[n++] = 3 * mtu + 17;
	sizes[n++] = SZ_64K;
	sizes[n++] = KV_MAX_MSG;
	return n;
}

#define KV_NSIZES	8

static void kv_rc_send_recv(struct kv_test *t)
{
	struct kv_buf *src, *dst;
	u32 sizes[KV_NSIZES];
	struct kv_pair p;
	struct ib_wc wc;
	char what[48];
	int i, n, err;

	n = kv_sizes(t, sizes);
	if (!kv_pair(t, &p, NULL))
		return;
	src = kv_buf_alloc(t, KV_MAX_MSG);
	dst = kv_buf_alloc(t, KV_MAX_MSG + 64);
	if (!src || !dst)
		return;
	for (i = 0; i < n; i++) {
		snprintf(what, sizeof(what), "send %u", sizes[i]);
		kv_fill(src->va, sizes[i], KV_SEED(1, i));
		memset(dst->va, KV_CANARY, sizes[i] + 64);
		kv_to_dev(t, src);
		kv_to_dev(t, dst);
		err = kv_post_recv(p.b, 100 + i, dst, sizes[i] + 64);
		if (!KV_EXPECT(t, !err, "%s: post_recv %d", what, err))
			return;
		err = kv_post_send(p.a, 200 + i, IB_WR_SEND, src, sizes[i], 0);
		if (!KV_EXPECT(t, !err, "%s: post_send %d", what, err))
			return;
		if (!kv_expect_wc(t, p.acq, what, 200 + i, IB_WC_SUCCESS,
				  IB_WC_SEND, NULL) ||
		    !kv_expect_wc(t, p.bcq, what, 100 + i, IB_WC_SUCCESS,
				  IB_WC_RECV, &wc))
			return;
		KV_EXPECT(t, wc.byte_len == sizes[i] && wc.qp == p.b &&
			  !(wc.wc_flags & IB_WC_WITH_IMM),
			  "%s: byte_len %u flags 0x%x", what, wc.byte_len,
			  wc.wc_flags);
		kv_to_cpu(t, dst);
		if (!kv_check_fill(t, dst->va, sizes[i], KV_SEED(1, i), what) ||
		    !kv_check_canary(t, dst->va + sizes[i], 64, what))
			return;
	}
	kv_expect_quiet(t, p.bcq, "receiver");
}

static void kv_rc_send_imm(struct kv_test *t)
{
	struct kv_buf *src, *dst;
	struct kv_pair p;
	struct ib_wc wc;

	if (!kv_pair(t, &p, NULL))
		return;
	src = kv_buf_alloc(t, 256);
	dst = kv_buf_alloc(t, 256);
	if (!src || !dst)
		return;
	kv_fill(src->va, 256, KV_SEED(2, 0));
	kv_to_dev(t, src);
	KV_EXPECT(t, !kv_post_recv(p.b, 1, dst, 256), "post_recv");
	KV_EXPECT(t, !kv_post_send(p.a, 2, IB_WR_SEND_WITH_IMM, src, 256, 0),
		  "post_send");
	if (!kv_expect_wc(t, p.acq, "sender", 2, IB_WC_SUCCESS, IB_WC_SEND,
			  NULL) ||
	    !kv_expect_wc(t, p.bcq, "receiver", 1, IB_WC_SUCCESS, IB_WC_RECV,
			  &wc))
		return;
	KV_EXPECT(t, (wc.wc_flags & IB_WC_WITH_IMM) &&
		  wc.ex.imm_data == cpu_to_be32(KV_IMM) && wc.byte_len == 256,
		  "flags 0x%x imm 0x%x len %u", wc.wc_flags,
		  be32_to_cpu(wc.ex.imm_data), wc.byte_len);
	kv_to_cpu(t, dst);
	kv_check_fill(t, dst->va, 256, KV_SEED(2, 0), "payload");
}

/* Inline data is copied at post time: the source may change right after. */
static void kv_rc_send_inline(struct kv_test *t)
{
	struct kv_buf *dst;
	struct ib_send_wr wr = {};
	struct ib_sge sge;
	struct kv_pair p;
	struct ib_wc wc;
	u8 *src;
	int err;

	if (!kv_pair(t, &p, NULL))
		return;
	dst = kv_buf_alloc(t, 128);
	src = kmalloc(64, GFP_KERNEL);
	if (!dst || !KV_EXPECT(t, src, "kmalloc")) {
		kfree(src);
		return;
	}
	kv_fill(src, 60, KV_SEED(3, 0));
	sge.addr = (uintptr_t)src;
	sge.length = 60;
	sge.lkey = 0;
	wr.wr_id = 7;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IB_WR_SEND;
	wr.send_flags = IB_SEND_SIGNALED | IB_SEND_INLINE;
	KV_EXPECT(t, !kv_post_recv(p.b, 8, dst, 128), "post_recv");
	err = ib_post_send(p.a, &wr, NULL);
	memset(src, 0, 64);
	kfree(src);
	if (!KV_EXPECT(t, !err, "post_send inline: %d", err))
		return;
	if (!kv_expect_wc(t, p.acq, "sender", 7, IB_WC_SUCCESS, IB_WC_SEND,
			  NULL) ||
	    !kv_expect_wc(t, p.bcq, "receiver", 8, IB_WC_SUCCESS, IB_WC_RECV,
			  &wc))
		return;
	KV_EXPECT(t, wc.byte_len == 60, "byte_len %u", wc.byte_len);
	kv_to_cpu(t, dst);
	kv_check_fill(t, dst->va, 60, KV_SEED(3, 0), "inline payload");
}

static void kv_rc_write(struct kv_test *t)
{
	struct kv_buf *src, *dst;
	u32 sizes[KV_NSIZES];
	struct kv_pair p;
	char what[48];
	int i, n, err;

	n = kv_sizes(t, sizes);
	if (!kv_pair(t, &p, NULL))
		return;
	src = kv_buf_alloc(t, KV_MAX_MSG);
	dst = kv_buf_alloc(t, KV_MAX_MSG + 64);
	if (!src || !dst)
		return;
	for (i = 0; i < n; i++) {
		snprintf(what, sizeof(what), "write %u", sizes[i]);
		kv_fill(src->va, sizes[i], KV_SEED(4, i));
		memset(dst->va, KV_CANARY, sizes[i] + 64);
		kv_to_dev(t, src);
		kv_to_dev(t, dst);
		err = kv_post_rdma(p.a, 300 + i, IB_WR_RDMA_WRITE, src,
				   sizes[i], dst->dma, p.rkey);
		if (!KV_EXPECT(t, !err, "%s: post_send %d", what, err) ||
		    !kv_expect_wc(t, p.acq, what, 300 + i, IB_WC_SUCCESS,
				  IB_WC_RDMA_WRITE, NULL))
			return;
		kv_to_cpu(t, dst);
		if (!kv_check_fill(t, dst->va, sizes[i], KV_SEED(4, i), what) ||
		    !kv_check_canary(t, dst->va + sizes[i], 64, what))
			return;
	}
	/* A plain write consumes no receive and completes nothing there. */
	kv_expect_quiet(t, p.bcq, "responder");
}

static void kv_rc_write_imm(struct kv_test *t)
{
	struct kv_buf *src, *dst, *rbuf;
	struct kv_pair p;
	struct ib_wc wc;
	int err;

	if (!kv_pair(t, &p, NULL))
		return;
	src = kv_buf_alloc(t, SZ_8K);
	dst = kv_buf_alloc(t, SZ_8K);
	rbuf = kv_buf_alloc(t, 64);
	if (!src || !dst || !rbuf)
		return;
	kv_fill(src->va, SZ_8K, KV_SEED(5, 0));
	memset(rbuf->va, KV_CANARY, 64);
	kv_to_dev(t, src);
	kv_to_dev(t, rbuf);
	KV_EXPECT(t, !kv_post_recv(p.b, 11, rbuf, 64), "post_recv");
	err = kv_post_rdma(p.a, 12, IB_WR_RDMA_WRITE_WITH_IMM, src, SZ_8K,
			   dst->dma, p.rkey);
	if (!KV_EXPECT(t, !err, "post_send %d", err))
		return;
	if (!kv_expect_wc(t, p.acq, "requester", 12, IB_WC_SUCCESS,
			  IB_WC_RDMA_WRITE, NULL) ||
	    !kv_expect_wc(t, p.bcq, "responder", 11, IB_WC_SUCCESS,
			  IB_WC_RECV_RDMA_WITH_IMM, &wc))
		return;
	KV_EXPECT(t, (wc.wc_flags & IB_WC_WITH_IMM) &&
		  wc.ex.imm_data == cpu_to_be32(KV_IMM) &&
		  wc.byte_len == SZ_8K, "flags 0x%x imm 0x%x byte_len %u",
		  wc.wc_flags, be32_to_cpu(wc.ex.imm_data), wc.byte_len);
	kv_to_cpu(t, dst);
	kv_to_cpu(t, rbuf);
	kv_check_fill(t, dst->va, SZ_8K, KV_SEED(5, 0), "written data");
	kv_check_canary(t, rbuf->va, 64, "receive buffer (not written)");
}

/*
 * UC between two QPs of the adapter: UC's attributes (RC's RTR and RTS
 * ones refused by the core's table), SEND, SEND with immediate, RDMA WRITE
 * and WRITE with immediate of every size, every byte checked, and READ and
 * atomics refused at post time.
 */
static int kv_uc_connect(struct kv_test *t, struct ib_qp *qp, u32 dest_qpn)
{
	struct ib_qp_attr attr = {};
	union ib_gid gid;
	int idx, err;

	idx = kv_roce_v2_gid(t, &gid);
	if (idx < 0)
		return idx;
	attr.qp_state = IB_QPS_INIT;
	attr.port_num = 1;
	attr.qp_access_flags = IB_ACCESS_REMOTE_WRITE;
	err = ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_PKEY_INDEX |
			   IB_QP_PORT | IB_QP_ACCESS_FLAGS);
	if (!KV_EXPECT(t, !err, "UC RESET->INIT: %d", err))
		return err;
	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IB_QPS_RTR;
	attr.path_mtu = kv_active_mtu(t);
	attr.dest_qp_num = dest_qpn;
	attr.rq_psn = 0xfffff0;
	attr.max_dest_rd_atomic = 1;
	kv_ah_attr(t, &attr.ah_attr, &gid, idx);
	err = ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_AV | IB_QP_PATH_MTU |
			   IB_QP_DEST_QPN | IB_QP_RQ_PSN |
			   IB_QP_MAX_DEST_RD_ATOMIC);
	if (!KV_EXPECT(t, err == -EINVAL, "UC INIT->RTR with RC's attrs: %d",
		       err))
		return -EINVAL;
	err = ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_AV | IB_QP_PATH_MTU |
			   IB_QP_DEST_QPN | IB_QP_RQ_PSN);
	if (!KV_EXPECT(t, !err, "UC INIT->RTR: %d", err))
		return err;
	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IB_QPS_RTS;
	attr.sq_psn = 0xfffff0;
	err = ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_SQ_PSN);
	KV_EXPECT(t, !err, "UC RTR->RTS: %d", err);
	return err;
}

static void kv_uc_ops(struct kv_test *t)
{
	static const enum ib_wr_opcode ops[] = {
		IB_WR_SEND, IB_WR_SEND_WITH_IMM, IB_WR_RDMA_WRITE,
		IB_WR_RDMA_WRITE_WITH_IMM,
	};
	struct kv_buf *src, *dst, *rbuf;
	struct ib_qp_init_attr init;
	struct ib_qp_attr qattr;
	u32 sizes[KV_NSIZES];
	struct kv_pair p;
	struct ib_pd *pd;
	struct ib_wc wc;
	char what[48];
	int i, j, n, err;

	n = kv_sizes(t, sizes);
	pd = t->pd ? t->pd : kv_pd_global_rkey(t);
	if (!pd)
		return;
	p.rkey = pd->unsafe_global_rkey;
	p.acq = kv_cq(t, 256, 0);
	p.bcq = kv_cq(t, 256, 0);
	if (!p.acq || !p.bcq)
		return;
	p.a = kv_simple_qp(t, IB_QPT_UC, p.acq, 64, NULL);
	p.b = kv_simple_qp(t, IB_QPT_UC, p.bcq, 64, NULL);
	if (!p.a || !p.b || kv_uc_connect(t, p.a, p.b->qp_num) ||
	    kv_uc_connect(t, p.b, p.a->qp_num))
		return;
	err = ib_query_qp(p.b, &qattr, IB_QP_STATE | IB_QP_DEST_QPN, &init);
	if (!KV_EXPECT(t, !err && qattr.qp_state == IB_QPS_RTS &&
		       qattr.dest_qp_num == p.a->qp_num &&
		       init.qp_type == IB_QPT_UC &&
		       (rdma_ah_get_ah_flags(&qattr.ah_attr) & IB_AH_GRH),
		       "query UC QP: %d state %d dest %u type %d", err,
		       qattr.qp_state, qattr.dest_qp_num, init.qp_type))
		return;
	src = kv_buf_alloc(t, KV_MAX_MSG);
	dst = kv_buf_alloc(t, KV_MAX_MSG + 64);
	rbuf = kv_buf_alloc(t, 64);
	if (!src || !dst || !rbuf)
		return;
	for (j = 0; j < ARRAY_SIZE(ops); j++) {
		bool write = ops[j] == IB_WR_RDMA_WRITE ||
			     ops[j] == IB_WR_RDMA_WRITE_WITH_IMM;
		bool imm = ops[j] == IB_WR_SEND_WITH_IMM ||
			   ops[j] == IB_WR_RDMA_WRITE_WITH_IMM;

		for (i = 0; i < n; i++) {
			snprintf(what, sizeof(what), "UC op %d size %u", ops[j],
				 sizes[i]);
			kv_fill(src->va, sizes[i], KV_SEED(40 + j, i));
			memset(dst->va, KV_CANARY, sizes[i] + 64);
			kv_to_dev(t, src);
			kv_to_dev(t, dst);
			if (!write)
				err = kv_post_recv(p.b, 100 + i, dst,
						   sizes[i] + 64);
			else if (imm)
				err = kv_post_recv(p.b, 100 + i, rbuf, 64);
			else
				err = 0;
			if (!KV_EXPECT(t, !err, "%s: post_recv %d", what, err))
				return;
			if (write)
				err = kv_post_rdma(p.a, 200 + i, ops[j], src,
						   sizes[i], dst->dma, p.rkey);
			else
				err = kv_post_send(p.a, 200 + i, ops[j], src,
						   sizes[i], 0);
			if (!KV_EXPECT(t, !err, "%s: post_send %d", what, err) ||
			    !kv_expect_wc(t, p.acq, what, 200 + i,
					  IB_WC_SUCCESS, write ?
					  IB_WC_RDMA_WRITE : IB_WC_SEND,
					  NULL))
				return;
			if ((!write || imm) &&
			    (!kv_expect_wc(t, p.bcq, what, 100 + i,
					   IB_WC_SUCCESS, write ?
					   IB_WC_RECV_RDMA_WITH_IMM :
					   IB_WC_RECV, &wc) ||
			     !KV_EXPECT(t, wc.byte_len == sizes[i] &&
					!!(wc.wc_flags & IB_WC_WITH_IMM) ==
					imm && (!imm || wc.ex.imm_data ==
						cpu_to_be32(KV_IMM)),
					"%s: byte_len %u flags 0x%x", what,
					wc.byte_len, wc.wc_flags)))
				return;
			/*
			 * A plain WRITE completes nothing at the target, and
			 * a UC requester completes it once sent: a SEND after
			 * it on the same QP lands after it.
			 */
			if (write && !imm &&
			    (!KV_EXPECT(t, !kv_post_recv(p.b, 400 + i, rbuf,
							 64), "%s: post_recv",
					what) ||
			     !KV_EXPECT(t, !kv_post_send(p.a, 500 + i,
							 IB_WR_SEND, src, 0,
							 0), "%s: fence", what) ||
			     !kv_expect_wc(t, p.acq, what, 500 + i,
					   IB_WC_SUCCESS, IB_WC_SEND, NULL) ||
			     !kv_expect_wc(t, p.bcq, what, 400 + i,
					   IB_WC_SUCCESS, IB_WC_RECV, NULL)))
				return;
			kv_to_cpu(t, dst);
			if (!kv_check_fill(t, dst->va, sizes[i],
					   KV_SEED(40 + j, i), what) ||
			    !kv_check_canary(t, dst->va + sizes[i], 64, what))
				return;
		}
	}
	/* No READ, atomics or invalidation on UC: refused when posted. */
	err = kv_post_rdma(p.a, 300, IB_WR_RDMA_READ, dst, 64, src->dma,
			   p.rkey);
	KV_EXPECT(t, err == -EINVAL, "UC READ posted: %d", err);
	err = kv_post_send(p.a, 301, IB_WR_SEND_WITH_INV, src, 64, 0);
	KV_EXPECT(t, err == -EINVAL, "UC SEND_WITH_INV posted: %d", err);
	kv_expect_quiet(t, p.bcq, "UC responder");
	kv_expect_quiet(t, p.acq, "UC requester");
}

static void kv_rc_read(struct kv_test *t)
{
	struct kv_buf *local, *remote;
	u32 sizes[KV_NSIZES];
	struct kv_pair p;
	char what[48];
	int i, n, err;

	n = kv_sizes(t, sizes);
	if (!kv_pair(t, &p, NULL))
		return;
	local = kv_buf_alloc(t, KV_MAX_MSG + 64);
	remote = kv_buf_alloc(t, KV_MAX_MSG);
	if (!local || !remote)
		return;
	for (i = 0; i < n; i++) {
		snprintf(what, sizeof(what), "read %u", sizes[i]);
		kv_fill(remote->va, sizes[i], KV_SEED(6, i));
		memset(local->va, KV_CANARY, sizes[i] + 64);
		kv_to_dev(t, remote);
		kv_to_dev(t, local);
		err = kv_post_rdma(p.a, 400 + i, IB_WR_RDMA_READ, local,
				   sizes[i], remote->dma, p.rkey);
		if (!KV_EXPECT(t, !err, "%s: post_send %d", what, err) ||
		    !kv_expect_wc(t, p.acq, what, 400 + i, IB_WC_SUCCESS,
				  IB_WC_RDMA_READ, NULL))
			return;
		kv_to_cpu(t, local);
		if (!kv_check_fill(t, local->va, sizes[i], KV_SEED(6, i),
				   what) ||
		    !kv_check_canary(t, local->va + sizes[i], 64, what))
			return;
	}
}

static void kv_ud_send_recv(struct kv_test *t)
{
	u32 mtu = ib_mtu_enum_to_int(kv_active_mtu(t));
	u32 sizes[] = { 0, 1, 100, mtu };
	struct ib_qp *qa, *qb;
	struct kv_buf *src, *dst;
	struct rdma_ah_attr ah_attr;
	struct ib_ud_wr wr = {};
	struct ib_sge sge;
	struct ib_cq *cq;
	union ib_gid gid;
	struct ib_wc wc;
	struct ib_ah *ah;
	char what[32];
	int i, idx, err;
	u8 *grh;

	cq = kv_cq(t, 64, 0);
	qa = cq ? kv_simple_qp(t, IB_QPT_UD, cq, 16, NULL) : NULL;
	qb = cq ? kv_simple_qp(t, IB_QPT_UD, cq, 16, NULL) : NULL;
	idx = kv_roce_v2_gid(t, &gid);
	if (!qa || !qb || idx < 0 || kv_ud_ready(t, qa, KV_QKEY) ||
	    kv_ud_ready(t, qb, KV_QKEY))
		return;
	kv_ah_attr(t, &ah_attr, &gid, idx);
	ah = kv_ah(t, &ah_attr);
	src = kv_buf_alloc(t, mtu);
	dst = kv_buf_alloc(t, mtu + KV_GRH_BYTES + 64);
	if (!ah || !src || !dst)
		return;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		snprintf(what, sizeof(what), "UD send %u", sizes[i]);
		kv_fill(src->va, sizes[i], KV_SEED(7, i));
		memset(dst->va, KV_CANARY, dst->len);
		kv_to_dev(t, src);
		kv_to_dev(t, dst);
		err = kv_post_recv(qb, 50 + i, dst, dst->len);
		if (!KV_EXPECT(t, !err, "%s: post_recv %d", what, err))
			return;
		sge.addr = src->dma;
		sge.length = sizes[i];
		sge.lkey = qa->pd->local_dma_lkey;
		wr.wr.wr_id = 60 + i;
		wr.wr.sg_list = &sge;
		wr.wr.num_sge = sizes[i] ? 1 : 0;
		wr.wr.opcode = IB_WR_SEND;
		wr.wr.send_flags = IB_SEND_SIGNALED;
		wr.ah = ah;
		wr.remote_qpn = qb->qp_num;
		wr.remote_qkey = KV_QKEY;
		err = ib_post_send(qa, &wr.wr, NULL);
		if (!KV_EXPECT(t, !err, "%s: post_send %d", what, err))
			return;
		/* Both completions arrive on the one CQ, in either order. */
		if (!kv_poll_one(t, cq, &wc, what))
			return;
		if (wc.wr_id == 60 + i) {
			KV_EXPECT(t, wc.status == IB_WC_SUCCESS &&
				  wc.opcode == IB_WC_SEND, "%s: send %s",
				  what, ib_wc_status_msg(wc.status));
			if (!kv_poll_one(t, cq, &wc, what))
				return;
		} else if (!kv_expect_wc(t, cq, what, 60 + i, IB_WC_SUCCESS,
					 IB_WC_SEND, NULL)) {
			return;
		}
		if (!KV_EXPECT(t, wc.wr_id == 50 + i &&
			       wc.status == IB_WC_SUCCESS &&
			       wc.opcode == IB_WC_RECV,
			       "%s: recv wr_id %llu %s", what, wc.wr_id,
			       ib_wc_status_msg(wc.status)))
			return;
		KV_EXPECT(t, wc.byte_len == sizes[i] + KV_GRH_BYTES,
			  "%s: byte_len %u", what, wc.byte_len);
		KV_EXPECT(t, wc.src_qp == qa->qp_num && wc.qp == qb,
			  "%s: src_qp %u", what, wc.src_qp);
		KV_EXPECT(t, (wc.wc_flags & IB_WC_GRH) &&
			  (wc.wc_flags & IB_WC_WITH_NETWORK_HDR_TYPE) &&
			  wc.network_hdr_type == RDMA_NETWORK_IPV4,
			  "%s: wc_flags 0x%x network type %u", what,
			  wc.wc_flags, wc.network_hdr_type);
		kv_to_cpu(t, dst);
		grh = dst->va;
		/* IPv4: 20 bytes of zeros, then the IPv4 header. */
		KV_EXPECT(t, grh[20] == 0x45 && !memchr_inv(grh, 0, 20),
			  "%s: GRH area starts %*ph", what, 24, grh);
		if (!kv_check_fill(t, grh + KV_GRH_BYTES, sizes[i],
				   KV_SEED(7, i), what))
			return;
	}
}

static void kv_srq_recv(struct kv_test *t)
{
	struct kv_buf *src, *dst;
	struct ib_srq *srq;
	struct kv_pair p;
	struct ib_wc wc;
	char what[32];
	int i;

	if (!kv_pd_global_rkey(t))
		return;
	srq = kv_srq(t, 16, 1);
	if (!srq || !kv_pair(t, &p, srq))
		return;
	src = kv_buf_alloc(t, 8 * 512);
	dst = kv_buf_alloc(t, 8 * 512);
	if (!src || !dst)
		return;
	for (i = 0; i < 8; i++) {
		struct ib_sge sge = {
			.addr = dst->dma + i * 512,
			.length = 512,
			.lkey = t->pd->local_dma_lkey,
		};
		struct ib_recv_wr wr = {
			.wr_id = 500 + i, .sg_list = &sge, .num_sge = 1,
		};

		if (!KV_EXPECT(t, !ib_post_srq_recv(srq, &wr, NULL),
			       "post_srq_recv %d", i))
			return;
	}
	kv_fill(src->va, 8 * 512, KV_SEED(8, 0));
	kv_to_dev(t, src);
	for (i = 0; i < 8; i++) {
		struct ib_sge sge = {
			.addr = src->dma + i * 512,
			.length = 100 + i,
			.lkey = t->pd->local_dma_lkey,
		};
		struct ib_send_wr wr = {
			.wr_id = 600 + i, .sg_list = &sge, .num_sge = 1,
			.opcode = IB_WR_SEND, .send_flags = IB_SEND_SIGNALED,
		};

		if (!KV_EXPECT(t, !ib_post_send(p.a, &wr, NULL), "send %d", i))
			return;
	}
	for (i = 0; i < 8; i++) {
		snprintf(what, sizeof(what), "message %d", i);
		if (!kv_expect_wc(t, p.acq, what, 600 + i, IB_WC_SUCCESS,
				  IB_WC_SEND, NULL) ||
		    !kv_expect_wc(t, p.bcq, what, 500 + i, IB_WC_SUCCESS,
				  IB_WC_RECV, &wc))
			return;
		KV_EXPECT(t, wc.byte_len == 100 + i && wc.qp == p.b,
			  "%s: byte_len %u", what, wc.byte_len);
	}
	kv_to_cpu(t, dst);
	for (i = 0; i < 8; i++)
		if (memcmp(dst->va + i * 512, src->va + i * 512, 100 + i))
			KV_EXPECT(t, false, "message %d payload differs", i);
}

/* Post REG_MR of @len bytes of @b on @qp with @access; returns success. */
bool kv_frwr_register(struct kv_test *t, struct ib_qp *qp, struct ib_cq *cq,
		      struct ib_mr *mr, struct kv_buf *b, u32 len, int access)
{
	struct ib_reg_wr wr = {};
	struct scatterlist sg;
	int n, err;

	sg_init_table(&sg, 1);
	sg_dma_address(&sg) = b->dma;
	sg_dma_len(&sg) = len;
	n = ib_map_mr_sg(mr, &sg, 1, NULL, PAGE_SIZE);
	if (!KV_EXPECT(t, n == 1, "ib_map_mr_sg: %d", n))
		return false;
	ib_update_fast_reg_key(mr, ib_inc_rkey(mr->rkey));
	wr.wr.opcode = IB_WR_REG_MR;
	wr.wr.wr_id = 900;
	wr.wr.send_flags = IB_SEND_SIGNALED;
	wr.mr = mr;
	wr.key = mr->rkey;
	wr.access = access;
	err = ib_post_send(qp, &wr.wr, NULL);
	return KV_EXPECT(t, !err, "post REG_MR: %d", err) &&
	       kv_expect_wc(t, cq, "REG_MR", 900, IB_WC_SUCCESS, IB_WC_REG_MR,
			    NULL);
}

static int kv_post_local_inv(struct ib_qp *qp, u64 wr_id, u32 rkey)
{
	struct ib_send_wr wr = {
		.wr_id = wr_id,
		.opcode = IB_WR_LOCAL_INV,
		.send_flags = IB_SEND_SIGNALED,
		.ex.invalidate_rkey = rkey,
	};

	return ib_post_send(qp, &wr, NULL);
}

/*
 * A connected pair, an 8-byte result buffer, and a target page that B
 * registers for remote atomics (the global rkey allows no atomics).
 */
static struct ib_mr *kv_atomic_target(struct kv_test *t, struct kv_pair *p,
				      struct kv_buf **result,
				      struct kv_buf **target)
{
	int access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_ATOMIC;
	struct ib_mr *mr;

	if (!kv_pair(t, p, NULL))
		return NULL;
	mr = kv_fast_mr(t, 1);
	*result = kv_buf_alloc(t, sizeof(u64));
	*target = kv_buf_alloc(t, PAGE_SIZE);
	if (!mr || !*result || !*target ||
	    !kv_frwr_register(t, p->b, p->bcq, mr, *target, PAGE_SIZE, access))
		return NULL;
	return mr;
}

static int kv_post_atomic(struct ib_qp *qp, u64 wr_id, enum ib_wr_opcode op,
			  struct kv_buf *result, u64 raddr, u32 rkey,
			  u64 compare_add, u64 swap)
{
	struct ib_sge sge = {
		.addr = result->dma,
		.length = sizeof(u64),
		.lkey = qp->pd->local_dma_lkey,
	};
	struct ib_atomic_wr wr = {
		.wr = {
			.wr_id = wr_id,
			.sg_list = &sge,
			.num_sge = 1,
			.opcode = op,
			.send_flags = IB_SEND_SIGNALED,
		},
		.remote_addr = raddr,
		.rkey = rkey,
		.compare_add = compare_add,
		.swap = swap,
	};

	return ib_post_send(qp, &wr.wr, NULL);
}

/*
 * One remote atomic of an atomics case: posted as @wr_id, its completion
 * awaited as @what, then the returned value and the target memory checked
 * (@check prefixes the message).
 */
struct kv_atomic_step {
	const char *post, *what, *check;
	u64 wr_id;
	enum ib_wr_opcode op;
	enum ib_wc_opcode wc_op;
	u64 compare_add, swap;
	u64 want_res, want_val;
};

/* An atomics case: the target's first value, then its steps in order. */
struct kv_atomic_case {
	u64 init;
	int steps;
	struct kv_atomic_step step[2];
};

/* CAS on an equal value swaps; on a different one it only returns. */
static const struct kv_atomic_case kv_cas_case = {
	.init = 0x1111222233334444ULL,
	.steps = 2,
	.step = {
		{ "post CAS 1", "CAS equal", "equal: ", 1,
		  IB_WR_ATOMIC_CMP_AND_SWP, IB_WC_COMP_SWAP,
		  0x1111222233334444ULL, 0x5555666677778888ULL,
		  0x1111222233334444ULL, 0x5555666677778888ULL },
		{ "post CAS 2", "CAS different", "different: ", 2,
		  IB_WR_ATOMIC_CMP_AND_SWP, IB_WC_COMP_SWAP,
		  1, 2,
		  0x5555666677778888ULL, 0x5555666677778888ULL },
	},
};

/* FAA carries across the 32-bit halves. */
static const struct kv_atomic_case kv_faa_case = {
	.init = 0xffffffffULL,
	.steps = 1,
	.step = {
		{ "post FAA", "FAA", "", 1,
		  IB_WR_ATOMIC_FETCH_AND_ADD, IB_WC_FETCH_ADD,
		  0x100000001ULL, 0,
		  0xffffffffULL, 0x200000000ULL },
	},
};

static void kv_rc_atomic(struct kv_test *t, const struct kv_atomic_case *c)
{
	const struct kv_atomic_step *s;
	struct kv_buf *result, *target;
	struct kv_pair p;
	struct ib_mr *mr;
	u64 *res, *val;

	if (t->ibdev->attrs.atomic_cap == IB_ATOMIC_NONE) {
		kv_skip(t, "no atomics");
		return;
	}
	mr = kv_atomic_target(t, &p, &result, &target);
	if (!mr)
		return;
	res = result->va;
	val = target->va;
	*val = c->init;
	kv_to_dev(t, target);
	for (s = c->step; s < c->step + c->steps; s++) {
		KV_EXPECT(t, !kv_post_atomic(p.a, s->wr_id, s->op, result,
					     mr->iova, mr->rkey, s->compare_add,
					     s->swap), "%s", s->post);
		if (!kv_expect_wc(t, p.acq, s->what, s->wr_id, IB_WC_SUCCESS,
				  s->wc_op, NULL))
			return;
		kv_to_cpu(t, result);
		kv_to_cpu(t, target);
		KV_EXPECT(t, *res == s->want_res && *val == s->want_val,
			  "%sreturned 0x%llx, memory 0x%llx", s->check, *res,
			  *val);
	}
}

static void kv_rc_atomic_cmp_swap(struct kv_test *t)
{
	kv_rc_atomic(t, &kv_cas_case);
}

static void kv_rc_atomic_fetch_add(struct kv_test *t)
{
	kv_rc_atomic(t, &kv_faa_case);
}

/* Write through a fast-registered MR; after LOCAL_INV its rkey is dead. */
static void kv_frwr_write_local_inv(struct kv_test *t)
{
	int access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE;
	struct kv_buf *src, *dst;
	struct kv_pair p;
	struct ib_mr *mr;

	if (!kv_pair(t, &p, NULL))
		return;
	mr = kv_fast_mr(t, 8);
	src = kv_buf_alloc(t, 4 * PAGE_SIZE);
	dst = kv_buf_alloc(t, 4 * PAGE_SIZE);
	if (!mr || !src || !dst ||
	    !kv_frwr_register(t, p.b, p.bcq, mr, dst, 3 * PAGE_SIZE, access))
		return;
	kv_fill(src->va, 3 * PAGE_SIZE, KV_SEED(9, 0));
	kv_to_dev(t, src);
	KV_EXPECT(t, !kv_post_rdma(p.a, 1, IB_WR_RDMA_WRITE, src,
				   3 * PAGE_SIZE, mr->iova, mr->rkey),
		  "post write");
	if (!kv_expect_wc(t, p.acq, "write via MR", 1, IB_WC_SUCCESS,
			  IB_WC_RDMA_WRITE, NULL))
		return;
	kv_to_cpu(t, dst);
	kv_check_fill(t, dst->va, 3 * PAGE_SIZE, KV_SEED(9, 0),
		      "written data");

	KV_EXPECT(t, !kv_post_local_inv(p.b, 2, mr->rkey), "post LOCAL_INV");
	if (!kv_expect_wc(t, p.bcq, "LOCAL_INV", 2, IB_WC_SUCCESS,
			  IB_WC_LOCAL_INV, NULL))
		return;
	KV_EXPECT(t, !kv_post_rdma(p.a, 3, IB_WR_RDMA_WRITE, src, 64,
				   mr->iova, mr->rkey), "post write 2");
	kv_expect_wc(t, p.acq, "write after LOCAL_INV", 3,
		     IB_WC_REM_ACCESS_ERR, -1, NULL);
}

/* SEND_WITH_INV invalidates the receiver's MR and says which one. */
static void kv_send_with_inv(struct kv_test *t)
{
	int access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_READ;
	struct kv_buf *src, *dst, *mrbuf;
	struct ib_send_wr wr = {};
	struct ib_sge sge;
	struct kv_pair p;
	struct ib_mr *mr;
	struct ib_wc wc;

	if (!kv_pair(t, &p, NULL))
		return;
	mr = kv_fast_mr(t, 2);
	src = kv_buf_alloc(t, 64);
	dst = kv_buf_alloc(t, 64);
	mrbuf = kv_buf_alloc(t, PAGE_SIZE);
	if (!mr || !src || !dst || !mrbuf ||
	    !kv_frwr_register(t, p.b, p.bcq, mr, mrbuf, PAGE_SIZE, access))
		return;
	KV_EXPECT(t, !kv_post_recv(p.b, 1, dst, 64), "post_recv");
	sge.addr = src->dma;
	sge.length = 16;
	sge.lkey = t->pd->local_dma_lkey;
	wr.wr_id = 2;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IB_WR_SEND_WITH_INV;
	wr.send_flags = IB_SEND_SIGNALED;
	wr.ex.invalidate_rkey = mr->rkey;
	KV_EXPECT(t, !ib_post_send(p.a, &wr, NULL), "post SEND_WITH_INV");
	if (!kv_expect_wc(t, p.acq, "sender", 2, IB_WC_SUCCESS, IB_WC_SEND,
			  NULL) ||
	    !kv_expect_wc(t, p.bcq, "receiver", 1, IB_WC_SUCCESS, IB_WC_RECV,
			  &wc))
		return;
	KV_EXPECT(t, (wc.wc_flags & IB_WC_WITH_INVALIDATE) &&
		  wc.ex.invalidate_rkey == mr->rkey,
		  "flags 0x%x invalidated 0x%x, want 0x%x", wc.wc_flags,
		  wc.ex.invalidate_rkey, mr->rkey);
	KV_EXPECT(t, !kv_post_rdma(p.a, 3, IB_WR_RDMA_READ, src, 64,
				   mr->iova, mr->rkey), "post read");
	kv_expect_wc(t, p.acq, "read after invalidation", 3,
		     IB_WC_REM_ACCESS_ERR, -1, NULL);
}

/* A bad rkey: REM_ACCESS_ERR, the QP goes to ERR and flushes the rest. */
static void kv_bad_rkey(struct kv_test *t)
{
	struct kv_buf *src, *dst;
	struct kv_pair p;

	if (!kv_pair(t, &p, NULL))
		return;
	src = kv_buf_alloc(t, 64);
	dst = kv_buf_alloc(t, 64);
	if (!src || !dst)
		return;
	KV_EXPECT(t, !kv_post_rdma(p.a, 1, IB_WR_RDMA_WRITE, src, 64, dst->dma,
				   p.rkey ^ 0x80), "post write");
	KV_EXPECT(t, !kv_post_send(p.a, 2, IB_WR_SEND, src, 8, 0),
		  "post send");
	kv_expect_wc(t, p.acq, "bad rkey", 1, IB_WC_REM_ACCESS_ERR, -1, NULL);
	kv_expect_wc(t, p.acq, "next WR", 2, IB_WC_WR_FLUSH_ERR, -1, NULL);
}

/* A read beyond the end of a one-page MR. */
static void kv_read_out_of_bounds(struct kv_test *t)
{
	int access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_READ;
	struct kv_buf *local, *mrbuf;
	struct kv_pair p;
	struct ib_mr *mr;

	if (!kv_pair(t, &p, NULL))
		return;
	mr = kv_fast_mr(t, 1);
	local = kv_buf_alloc(t, 128);
	mrbuf = kv_buf_alloc(t, PAGE_SIZE);
	if (!mr || !local || !mrbuf ||
	    !kv_frwr_register(t, p.b, p.bcq, mr, mrbuf, PAGE_SIZE, access))
		return;
	KV_EXPECT(t, !kv_post_rdma(p.a, 1, IB_WR_RDMA_READ, local, 64,
				   mr->iova + PAGE_SIZE - 32, mr->rkey),
		  "post read");
	kv_expect_wc(t, p.acq, "read past the MR", 1, IB_WC_REM_ACCESS_ERR,
		     -1, NULL);
}

static void kv_bad_lkey(struct kv_test *t)
{
	struct ib_send_wr wr = {};
	struct kv_buf *src;
	struct ib_sge sge;
	struct kv_pair p;

	if (!kv_pair(t, &p, NULL))
		return;
	src = kv_buf_alloc(t, 64);
	if (!src)
		return;
	sge.addr = src->dma;
	sge.length = 64;
	sge.lkey = t->pd->local_dma_lkey ^ 0x80;
	wr.wr_id = 1;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IB_WR_SEND;
	wr.send_flags = IB_SEND_SIGNALED;
	KV_EXPECT(t, !ib_post_send(p.a, &wr, NULL), "post send");
	kv_expect_wc(t, p.acq, "bad lkey", 1, IB_WC_LOC_PROT_ERR, -1, NULL);
}

static void kv_recv_too_small(struct kv_test *t)
{
	struct kv_buf *src, *dst;
	struct kv_pair p;

	if (!kv_pair(t, &p, NULL))
		return;
	src = kv_buf_alloc(t, 256);
	dst = kv_buf_alloc(t, 256);
	if (!src || !dst)
		return;
	KV_EXPECT(t, !kv_post_recv(p.b, 1, dst, 16), "post_recv");
	KV_EXPECT(t, !kv_post_send(p.a, 2, IB_WR_SEND, src, 200, 0),
		  "post send");
	kv_expect_wc(t, p.bcq, "receiver", 1, IB_WC_LOC_LEN_ERR, -1, NULL);
	kv_expect_wc(t, p.acq, "sender", 2, IB_WC_REM_INV_REQ_ERR, -1, NULL);
}

/* Posted receives of a QP moved to ERR complete as flushed, in order. */
static void kv_flush_on_error(struct kv_test *t)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };
	struct kv_buf *dst;
	struct kv_pair p;
	char what[32];
	int i;

	if (!kv_pair(t, &p, NULL))
		return;
	dst = kv_buf_alloc(t, 64);
	if (!dst)
		return;
	for (i = 0; i < 4; i++)
		KV_EXPECT(t, !kv_post_recv(p.b, 10 + i, dst, 64), "post_recv");
	KV_EXPECT(t, !ib_modify_qp(p.b, &attr, IB_QP_STATE), "to ERR");
	for (i = 0; i < 4; i++) {
		snprintf(what, sizeof(what), "receive %d", i);
		if (!kv_expect_wc(t, p.bcq, what, 10 + i, IB_WC_WR_FLUSH_ERR,
				  -1, NULL))
			return;
	}
	/* Work posted in ERR is flushed too (ib_drain_qp relies on it). */
	KV_EXPECT(t, !kv_post_send(p.b, 20, IB_WR_SEND, dst, 8, 0), "post");
	kv_expect_wc(t, p.bcq, "send in ERR", 20, IB_WC_WR_FLUSH_ERR, -1,
		     NULL);
}

static bool kv_wait_event(struct kv_test *t, int count)
{
	unsigned long deadline = jiffies + msecs_to_jiffies(KV_POLL_MS);

	while (atomic_read(&t->comp_events) < count) {
		if (time_after(jiffies, deadline))
			return false;
		usleep_range(500, 2000);
	}
	return true;
}

/*
 * A solicited-only arm ignores unsolicited messages and fires for a
 * solicited one; an armed CQ raises one completion event; re-arming while
 * a CQE is unpolled reports it (IB_CQ_REPORT_MISSED_EVENTS).  The CQ is
 * fresh, so nothing is armed before the first request.
 */
static void kv_cq_events(struct kv_test *t)
{
	struct kv_buf *src, *dst;
	struct kv_pair p;
	int i, ret;

	if (!kv_pair(t, &p, NULL))
		return;
	src = kv_buf_alloc(t, 64);
	dst = kv_buf_alloc(t, 64);
	if (!src || !dst)
		return;
	for (i = 0; i < 4; i++)
		KV_EXPECT(t, !kv_post_recv(p.b, 1 + i, dst, 64), "post_recv");

	ret = ib_req_notify_cq(p.bcq, IB_CQ_SOLICITED);
	KV_EXPECT(t, ret == 0, "arm solicited: %d", ret);
	KV_EXPECT(t, !kv_post_send(p.a, 11, IB_WR_SEND, src, 8, 0), "send 1");
	kv_expect_wc(t, p.acq, "send 1", 11, IB_WC_SUCCESS, IB_WC_SEND, NULL);
	msleep(KV_QUIET_MS);
	KV_EXPECT(t, atomic_read(&t->comp_events) == 0,
		  "event for an unsolicited message");
	KV_EXPECT(t, !kv_post_send(p.a, 12, IB_WR_SEND, src, 8,
				   IB_SEND_SOLICITED), "send 2");
	KV_EXPECT(t, kv_wait_event(t, 1), "no event for a solicited message");
	kv_expect_wc(t, p.acq, "send 2", 12, IB_WC_SUCCESS, IB_WC_SEND, NULL);
	kv_expect_wc(t, p.bcq, "receive 1", 1, IB_WC_SUCCESS, IB_WC_RECV, NULL);
	kv_expect_wc(t, p.bcq, "receive 2", 2, IB_WC_SUCCESS, IB_WC_RECV, NULL);

	atomic_set(&t->comp_events, 0);
	ret = ib_req_notify_cq(p.bcq, IB_CQ_NEXT_COMP |
			       IB_CQ_REPORT_MISSED_EVENTS);
	KV_EXPECT(t, ret == 0, "arm an empty CQ: %d", ret);
	KV_EXPECT(t, !kv_post_send(p.a, 13, IB_WR_SEND, src, 8, 0), "send 3");
	KV_EXPECT(t, kv_wait_event(t, 1), "no event for an armed CQ");
	kv_expect_wc(t, p.acq, "send 3", 13, IB_WC_SUCCESS, IB_WC_SEND, NULL);

	/* Receive 3 is still unpolled. */
	ret = ib_req_notify_cq(p.bcq, IB_CQ_NEXT_COMP |
			       IB_CQ_REPORT_MISSED_EVENTS);
	KV_EXPECT(t, ret == 1, "re-arm with an unpolled CQE: %d", ret);
	kv_expect_wc(t, p.bcq, "receive 3", 3, IB_WC_SUCCESS, IB_WC_RECV, NULL);
}

#define KV_MOD_MSGS	64
#define KV_MOD_COUNT	16
#define KV_MOD_BATCH	8
#define KV_MOD_LEN	64

/* Polls every CQE @cq has, each a receive whose bytes are checked. */
static bool kv_mod_drain(struct kv_test *t, struct ib_cq *cq,
			 struct kv_buf *dst, int *polled)
{
	char what[32];
	struct ib_wc wc;
	int n;

	while ((n = ib_poll_cq(cq, 1, &wc)) > 0) {
		snprintf(what, sizeof(what), "receive %d", *polled);
		if (!KV_EXPECT(t, wc.status == IB_WC_SUCCESS &&
			       wc.opcode == IB_WC_RECV &&
			       wc.wr_id == *polled &&
			       wc.byte_len == KV_MOD_LEN,
			       "%s: status %d opcode %d wr_id %llu len %u",
			       what, wc.status, wc.opcode, wc.wr_id,
			       wc.byte_len))
			return false;
		kv_to_cpu(t, dst);
		if (!kv_check_fill(t, dst->va + *polled * KV_MOD_LEN,
				   KV_MOD_LEN, KV_SEED(10, *polled), what))
			return false;
		(*polled)++;
	}
	return KV_EXPECT(t, n == 0, "poll: %d", n);
}

/*
 * CQ event moderation (rdma_set_cq_moderation(), the verbs' ib_modify_cq)
 * as a consumer sees it: 64 receives with a count of 16, the consumer
 * polling and re-arming after each event as ib_cq's pollers do.  The
 * sends go in batches of 8, each batch's completions awaited, so without
 * moderation every batch raises an event (8 or more); with it an event
 * comes per 16 (the period, the longest allowed, only ends a wait the
 * count does not).  Every CQE is polled and its bytes checked.  Then the
 * limits query_device reports: one above either is -EINVAL.
 */
static void kv_cq_moderation(struct kv_test *t)
{
	const struct ib_cq_caps *caps = &t->ibdev->attrs.cq_caps;
	int i, j, ret, polled = 0, events, seen = 0;
	struct kv_buf *src, *dst;
	struct kv_pair p;

	if (!KV_EXPECT(t, caps->max_cq_moderation_count >= KV_MOD_COUNT &&
		       caps->max_cq_moderation_period,
		       "cq_caps: count %u period %u",
		       caps->max_cq_moderation_count,
		       caps->max_cq_moderation_period))
		return;
	if (!kv_pair(t, &p, NULL))
		return;
	src = kv_buf_alloc(t, KV_MOD_MSGS * KV_MOD_LEN);
	dst = kv_buf_alloc(t, KV_MOD_MSGS * KV_MOD_LEN);
	if (!src || !dst)
		return;
	for (i = 0; i < KV_MOD_MSGS; i++)
		kv_fill(src->va + i * KV_MOD_LEN, KV_MOD_LEN, KV_SEED(10, i));
	memset(dst->va, KV_CANARY, KV_MOD_MSGS * KV_MOD_LEN);
	kv_to_dev(t, src);
	kv_to_dev(t, dst);
	for (i = 0; i < KV_MOD_MSGS; i++) {
		struct ib_sge sge = {
			.addr = dst->dma + i * KV_MOD_LEN,
			.length = KV_MOD_LEN,
			.lkey = p.b->pd->local_dma_lkey,
		};
		struct ib_recv_wr wr = {
			.wr_id = i, .sg_list = &sge, .num_sge = 1,
		};

		ret = ib_post_recv(p.b, &wr, NULL);
		if (!KV_EXPECT(t, !ret, "post_recv %d: %d", i, ret))
			return;
	}

	ret = rdma_set_cq_moderation(p.bcq, KV_MOD_COUNT,
				     caps->max_cq_moderation_period);
	if (!KV_EXPECT(t, !ret, "rdma_set_cq_moderation(%d, %u): %d",
		       KV_MOD_COUNT, caps->max_cq_moderation_period, ret))
		return;
	KV_EXPECT(t, ib_req_notify_cq(p.bcq, IB_CQ_NEXT_COMP) == 0, "arm");
	for (i = 0; i < KV_MOD_MSGS; i += KV_MOD_BATCH) {
		for (j = i; j < i + KV_MOD_BATCH; j++) {
			struct ib_sge sge = {
				.addr = src->dma + j * KV_MOD_LEN,
				.length = KV_MOD_LEN,
				.lkey = p.a->pd->local_dma_lkey,
			};
			struct ib_send_wr wr = {
				.wr_id = 1000 + j, .sg_list = &sge,
				.num_sge = 1, .opcode = IB_WR_SEND,
				.send_flags = IB_SEND_SIGNALED,
			};

			ret = ib_post_send(p.a, &wr, NULL);
			if (!KV_EXPECT(t, !ret, "post_send %d: %d", j, ret))
				return;
		}
		for (j = i; j < i + KV_MOD_BATCH; j++)
			if (!kv_expect_wc(t, p.acq, "send", 1000 + j,
					  IB_WC_SUCCESS, IB_WC_SEND, NULL))
				return;
		/* The consumer: an event, so poll everything and re-arm. */
		events = atomic_read(&t->comp_events);
		if (events == seen)
			continue;
		seen = events;
		do {
			if (!kv_mod_drain(t, p.bcq, dst, &polled))
				return;
			ret = ib_req_notify_cq(p.bcq, IB_CQ_NEXT_COMP |
					       IB_CQ_REPORT_MISSED_EVENTS);
		} while (ret > 0);
	}
	/* The rest, as the last count or the period reports it. */
	while (polled < KV_MOD_MSGS) {
		if (!KV_EXPECT(t, kv_wait_event(t, seen + 1),
			       "no event for the last %d CQEs",
			       KV_MOD_MSGS - polled))
			break;
		seen = atomic_read(&t->comp_events);
		do {
			if (!kv_mod_drain(t, p.bcq, dst, &polled))
				return;
			ret = ib_req_notify_cq(p.bcq, IB_CQ_NEXT_COMP |
					       IB_CQ_REPORT_MISSED_EVENTS);
		} while (ret > 0);
	}
	events = atomic_read(&t->comp_events);
	kv_diag(t, "%d CQEs, %d completion events, count %d", polled, events,
		KV_MOD_COUNT);
	KV_EXPECT(t, polled == KV_MOD_MSGS, "polled %d of %d", polled,
		  KV_MOD_MSGS);
	KV_EXPECT(t, events >= 1 &&
		  events <= KV_MOD_MSGS / KV_MOD_COUNT + 1,
		  "%d events for %d CQEs with count %d", events, polled,
		  KV_MOD_COUNT);

	/* Above the limits: refused, and moderation can be turned off. */
	ret = rdma_set_cq_moderation(p.bcq,
				     caps->max_cq_moderation_count + 1, 1);
	KV_EXPECT(t, ret == -EINVAL, "count %u: %d",
		  caps->max_cq_moderation_count + 1, ret);
	ret = rdma_set_cq_moderation(p.bcq, 1,
				     caps->max_cq_moderation_period + 1);
	KV_EXPECT(t, ret == -EINVAL, "period %u: %d",
		  caps->max_cq_moderation_period + 1, ret);
	ret = rdma_set_cq_moderation(p.bcq, 0, 0);
	KV_EXPECT(t, !ret, "off: %d", ret);
	kv_expect_quiet(t, p.bcq, "receiver");
}

/* Unsignaled sends complete nothing, but their slots are reused. */
static void kv_unsignaled_wrap(struct kv_test *t)
{
	struct kv_buf *dst;
	struct kv_pair p;
	struct ib_rdma_wr rw = {};
	struct ib_sge sge;
	int i, err;

	if (!kv_pair(t, &p, NULL))
		return;
	dst = kv_buf_alloc(t, 64);
	if (!dst)
		return;
	sge.addr = dst->dma;
	sge.length = 8;
	sge.lkey = t->pd->local_dma_lkey;
	rw.wr.sg_list = &sge;
	rw.wr.num_sge = 1;
	rw.wr.opcode = IB_WR_RDMA_WRITE;
	rw.remote_addr = dst->dma + 32;
	rw.rkey = p.rkey;
	/* 4 rounds of a full SQ: 63 unsignaled writes and one signaled. */
	for (i = 0; i < 4 * 64; i++) {
		rw.wr.wr_id = i;
		rw.wr.send_flags = (i % 64 == 63) ? IB_SEND_SIGNALED : 0;
		err = ib_post_send(p.a, &rw.wr, NULL);
		if (!KV_EXPECT(t, !err, "post %d: %d", i, err))
			return;
		if (i % 64 == 63 &&
		    !kv_expect_wc(t, p.acq, "signaled write", i, IB_WC_SUCCESS,
				  IB_WC_RDMA_WRITE, NULL))
			return;
	}
	kv_expect_quiet(t, p.acq, "requester");
}

struct kv_ulp_ctx {
	struct ib_cqe cqe;
	atomic_t done;
	atomic_t errors;
	struct completion all;
	int want;
};

static void kv_ulp_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct kv_ulp_ctx *c = container_of(wc->wr_cqe, struct kv_ulp_ctx, cqe);

	if (wc->status != IB_WC_SUCCESS)
		atomic_inc(&c->errors);
	if (atomic_inc_return(&c->done) == c->want)
		complete(&c->all);
}

/*
 * What kernel ULPs do: CQs from ib_alloc_cq() polled by the core from
 * softirq or a workqueue after completion events, work requests with
 * wr_cqe callbacks, and ib_drain_qp() (which relies on flushes) before
 * the QPs are destroyed.
 */
static void kv_ulp_poll_ctx(struct kv_test *t, enum ib_poll_context ctx,
			    const char *name)
{
	struct ib_qp_init_attr init = {
		.qp_type = IB_QPT_RC,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.cap = { .max_send_wr = 64, .max_recv_wr = 64,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ib_qp *a = NULL, *b = NULL;
	struct ib_cq *acq, *bcq = NULL;
	struct kv_ulp_ctx *c;
	struct kv_buf *buf;
	struct ib_pd *pd;
	int i, n = 32;

	pd = t->pd ? t->pd : kv_pd_global_rkey(t);
	buf = kv_buf_alloc(t, 64);
	c = kzalloc_obj(*c);
	if (!pd || !buf || !KV_EXPECT(t, c, "kzalloc"))
		goto out_free;
	c->cqe.done = kv_ulp_done;
	c->want = 2 * n;
	init_completion(&c->all);

	acq = ib_alloc_cq(t->ibdev, NULL, 128, 0, ctx);
	if (!KV_EXPECT(t, !IS_ERR(acq), "%s: ib_alloc_cq: %pe", name, acq))
		goto out_free;
	bcq = ib_alloc_cq(t->ibdev, NULL, 128, 0, ctx);
	if (!KV_EXPECT(t, !IS_ERR(bcq), "%s: ib_alloc_cq: %pe", name, bcq)) {
		bcq = NULL;
		goto out_cq;
	}
	init.send_cq = acq;
	init.recv_cq = acq;
	a = ib_create_qp(pd, &init);
	init.send_cq = bcq;
	init.recv_cq = bcq;
	b = ib_create_qp(pd, &init);
	if (!KV_EXPECT(t, !IS_ERR(a) && !IS_ERR(b), "%s: QPs %pe %pe", name,
		       a, b))
		goto out_qp;
	if (kv_rc_connect(t, a, b->qp_num) || kv_rc_connect(t, b, a->qp_num))
		goto out_qp;

	for (i = 0; i < n; i++) {
		struct ib_sge sge = {
			.addr = buf->dma, .length = 64, .lkey = pd->local_dma_lkey,
		};
		struct ib_recv_wr rwr = {
			.wr_cqe = &c->cqe, .sg_list = &sge, .num_sge = 1,
		};
		struct ib_send_wr swr = {
			.wr_cqe = &c->cqe, .sg_list = &sge, .num_sge = 1,
			.opcode = IB_WR_SEND, .send_flags = IB_SEND_SIGNALED,
		};

		if (!KV_EXPECT(t, !ib_post_recv(b, &rwr, NULL) &&
			       !ib_post_send(a, &swr, NULL), "%s: post %d",
			       name, i))
			goto out_qp;
	}
	KV_EXPECT(t, wait_for_completion_timeout(&c->all,
						 msecs_to_jiffies(KV_POLL_MS)),
		  "%s: %d of %d completions through the callbacks", name,
		  atomic_read(&c->done), c->want);
	KV_EXPECT(t, !atomic_read(&c->errors), "%s: %d errors", name,
		  atomic_read(&c->errors));
	/* Both drains hang (and WARN) unless flushes complete. */
	ib_drain_qp(a);
	ib_drain_qp(b);

out_qp:
	if (!IS_ERR_OR_NULL(b))
		ib_destroy_qp(b);
	if (!IS_ERR_OR_NULL(a))
		ib_destroy_qp(a);
	if (bcq)
		ib_free_cq(bcq);
out_cq:
	ib_free_cq(acq);
out_free:
	kfree(c);
}

static void kv_ulp_softirq(struct kv_test *t)
{
	kv_ulp_poll_ctx(t, IB_POLL_SOFTIRQ, "softirq");
}

static void kv_ulp_workqueue(struct kv_test *t)
{
	kv_ulp_poll_ctx(t, IB_POLL_WORKQUEUE, "workqueue");
}

/*
 * Issue 27: an RC QP on an SRQ holds the SRQ WQE of a message whose first
 * packet it took and whose last one has not come.  Moving that QP to
 * RESET, or destroying it, must not lose the WQE's slot: the driver moves
 * the QP to ERR first, the adapter flushes the WQE with a completion, and
 * the reset's CQ clean gives the slot back (orca_qp_flush_srq_wqe()).
 *
 * The held WQE: A's SEND has two SGEs, the first a full MTU of valid
 * memory, the second an lkey no MR has.  The adapter reads each packet's
 * payload as it sends it, so SEND_FIRST goes out and A fails with a local
 * protection error on the second packet: B has taken an SRQ WQE for a
 * message that never ends.
 */
#define KV_HELD_SRQ_WR		16
#define KV_HELD_BAD_LKEY	0xfffffe00
#define KV_HELD_RECV_ID		1100
#define KV_HELD_SEND_ID		1200

enum kv_held_end {
	KV_HELD_ERR,		/* B to ERR (flushed completion), then RESET */
	KV_HELD_RESET,		/* B from RTS to RESET at once */
	KV_HELD_DESTROY,	/* B destroyed in RTS, a new QP in its place */
};

struct kv_held {
	struct kv_pair p;
	struct ib_srq *srq;
	struct kv_buf *src;
	struct kv_buf *dst;
	u32 depth;
	u32 mtu;
	u32 slot;		/* bytes of @dst (and @src) per message */
	u32 posted;		/* receives posted to the SRQ */
};

/* Receive @h->posted, into its own slot of @dst (slots cycle by depth). */
static struct ib_sge kv_held_sge(struct kv_test *t, struct kv_held *h)
{
	return (struct ib_sge){
		.addr = h->dst->dma + (h->posted % h->depth) * h->slot,
		.length = h->slot,
		.lkey = t->pd->local_dma_lkey,
	};
}

static bool kv_held_post(struct kv_test *t, struct kv_held *h,
			 const char *when)
{
	struct ib_sge sge = kv_held_sge(t, h);
	struct ib_recv_wr wr = {
		.wr_id = KV_HELD_RECV_ID + h->posted,
		.sg_list = &sge,
		.num_sge = 1,
	};
	int err = ib_post_srq_recv(h->srq, &wr, NULL);

	if (!KV_EXPECT(t, !err, "%s: post_srq_recv %u on a %u-deep SRQ: %d",
		       when, h->posted, h->depth, err))
		return false;
	h->posted++;
	return true;
}

/* The SRQ is full: one more receive is refused. */
static bool kv_held_full(struct kv_test *t, struct kv_held *h,
			 const char *when)
{
	struct ib_sge sge = kv_held_sge(t, h);
	struct ib_recv_wr wr = {
		.wr_id = KV_HELD_RECV_ID + h->posted,
		.sg_list = &sge,
		.num_sge = 1,
	};
	int err = ib_post_srq_recv(h->srq, &wr, NULL);

	return KV_EXPECT(t, err == -ENOMEM,
			 "%s: post_srq_recv %u past a full %u-deep SRQ: %d, want -ENOMEM",
			 when, h->posted, h->depth, err);
}

/* The SEND that leaves B holding receive 0; true once B took it. */
static bool kv_held_start(struct kv_test *t, struct kv_held *h)
{
	struct ib_sge sge[2] = {
		{ .addr = h->src->dma, .length = h->mtu,
		  .lkey = t->pd->local_dma_lkey },
		{ .addr = h->src->dma + h->mtu, .length = 64,
		  .lkey = KV_HELD_BAD_LKEY },
	};
	struct ib_send_wr wr = {
		.wr_id = KV_HELD_SEND_ID, .sg_list = sge, .num_sge = 2,
		.opcode = IB_WR_SEND, .send_flags = IB_SEND_SIGNALED,
	};
	unsigned long deadline;
	struct ib_wc wc;
	int err, n;

	kv_fill(h->src->va, h->mtu + 64, KV_SEED(11, 0));
	kv_to_dev(t, h->src);
	err = ib_post_send(h->p.a, &wr, NULL);
	if (!KV_EXPECT(t, !err, "post the SEND with a bad second lkey: %d",
		       err) ||
	    !kv_expect_wc(t, h->p.acq, "the SEND with a bad second lkey",
			  KV_HELD_SEND_ID, IB_WC_LOC_PROT_ERR, -1, NULL))
		return false;
	/* B took receive 0 once SEND_FIRST's payload is in its buffer. */
	deadline = jiffies + msecs_to_jiffies(KV_POLL_MS);
	for (;;) {
		kv_to_cpu(t, h->dst);
		if (!memcmp(h->dst->va, h->src->va, h->mtu))
			break;
		if (!KV_EXPECT(t, time_before(jiffies, deadline),
			       "SEND_FIRST's payload not at B in %d ms",
			       KV_POLL_MS))
			return false;
		usleep_range(100, 1000);
	}
	n = ib_poll_cq(h->p.bcq, 1, &wc);
	return KV_EXPECT(t, n == 0,
			 "B completed a message it only began: wr_id %llu %s",
			 n ? wc.wr_id : 0,
			 n ? ib_wc_status_msg(wc.status) : "-");
}

/* B stops holding the WQE as @end says; B's CQ shows what it must. */
static bool kv_held_finish(struct kv_test *t, struct kv_held *h,
			   enum kv_held_end end)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_RESET };
	struct ib_wc wc;
	int err, i, n;

	if (end == KV_HELD_ERR) {
		attr.qp_state = IB_QPS_ERR;
		err = ib_modify_qp(h->p.b, &attr, IB_QP_STATE);
		if (!KV_EXPECT(t, !err, "B to ERR: %d", err) ||
		    !kv_expect_wc(t, h->p.bcq, "the held receive in ERR",
				  KV_HELD_RECV_ID, IB_WC_WR_FLUSH_ERR, -1,
				  &wc))
			return false;
		KV_EXPECT(t, wc.qp == h->p.b, "flushed on QP %u, not B",
			  wc.qp ? wc.qp->qp_num : 0);
		/* The SRQ's other WQEs stay there for other QPs. */
		kv_expect_quiet(t, h->p.bcq, "B in ERR");
		attr.qp_state = IB_QPS_RESET;
	}
	if (end == KV_HELD_DESTROY) {
		for (i = 0; i < t->nqps && t->qps[i] != h->p.b; i++)
			;
		if (!KV_EXPECT(t, i < t->nqps, "B not among the case's QPs"))
			return false;
		err = ib_destroy_qp(h->p.b);
		t->qps[i] = NULL;
		h->p.b = NULL;
		if (!KV_EXPECT(t, !err, "destroy B in RTS: %d", err))
			return false;
	} else {
		err = ib_modify_qp(h->p.b, &attr, IB_QP_STATE);
		if (!KV_EXPECT(t, !err, "B to RESET: %d", err))
			return false;
	}
	/* A reset or destroyed QP's completions are dropped, flushes too. */
	n = ib_poll_cq(h->p.bcq, 1, &wc);
	if (!KV_EXPECT(t, n == 0, "B's CQ after its %s: wr_id %llu %s",
		       end == KV_HELD_DESTROY ? "destroy" : "reset",
		       n ? wc.wr_id : 0,
		       n ? ib_wc_status_msg(wc.status) : "-"))
		return false;
	if (end == KV_HELD_DESTROY)
		h->p.b = kv_simple_qp(t, IB_QPT_RC, h->p.bcq, 64, h->srq);
	return h->p.b;
}

/* A (in ERR after its failed SEND) and B again from RESET to RTS. */
static bool kv_held_reconnect(struct kv_test *t, struct kv_held *h)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_RESET };
	int err;

	err = ib_modify_qp(h->p.a, &attr, IB_QP_STATE);
	if (!KV_EXPECT(t, !err, "A to RESET: %d", err))
		return false;
	return !kv_rc_connect(t, h->p.a, h->p.b->qp_num) &&
	       !kv_rc_connect(t, h->p.b, h->p.a->qp_num);
}

/* One message of two packets or less into each WQE the SRQ holds. */
static bool kv_held_messages(struct kv_test *t, struct kv_held *h, u32 seedc)
{
	u32 first = h->posted - h->depth, i, n, len;
	struct ib_wc wc;
	char what[48];
	int err;

	for (i = 0; i < h->depth; i++)
		kv_fill(h->src->va + i * h->slot,
			h->mtu + 1 + (i * 61) % h->mtu, KV_SEED(seedc, 1 + i));
	kv_to_dev(t, h->src);
	for (i = 0; i < h->depth; i++) {
		struct ib_sge sge = {
			.addr = h->src->dma + i * h->slot,
			.length = h->mtu + 1 + (i * 61) % h->mtu,
			.lkey = t->pd->local_dma_lkey,
		};
		struct ib_send_wr wr = {
			.wr_id = KV_HELD_SEND_ID + 1 + i, .sg_list = &sge,
			.num_sge = 1, .opcode = IB_WR_SEND,
			.send_flags = IB_SEND_SIGNALED,
		};

		err = ib_post_send(h->p.a, &wr, NULL);
		if (!KV_EXPECT(t, !err, "post SEND %u: %d", i, err))
			return false;
	}
	for (i = 0; i < h->depth; i++) {
		len = h->mtu + 1 + (i * 61) % h->mtu;
		n = first + i;
		snprintf(what, sizeof(what), "message %u into receive %u", i,
			 n);
		if (!kv_expect_wc(t, h->p.acq, what, KV_HELD_SEND_ID + 1 + i,
				  IB_WC_SUCCESS, IB_WC_SEND, NULL) ||
		    !kv_expect_wc(t, h->p.bcq, what, KV_HELD_RECV_ID + n,
				  IB_WC_SUCCESS, IB_WC_RECV, &wc))
			return false;
		if (!KV_EXPECT(t, wc.byte_len == len && wc.qp == h->p.b,
			       "%s: byte_len %u, want %u", what, wc.byte_len,
			       len))
			return false;
		kv_to_cpu(t, h->dst);
		if (!kv_check_fill(t, h->dst->va + (n % h->depth) * h->slot,
				   len, KV_SEED(seedc, 1 + i), what))
			return false;
	}
	return true;
}

/*
 * The SRQ is filled (and refuses one more), B takes receive 0 for a
 * message that stops after its first packet, and B leaves as @end says.
 * Then the SRQ has room for exactly one receive more: the held WQE's slot
 * came back, and nothing else did.  A and B are connected again and a
 * message of two packets goes into each WQE the SRQ holds, every byte
 * checked; then the SRQ takes its depth of receives again, and no more.
 */
static void kv_srq_rc_held(struct kv_test *t, enum kv_held_end end)
{
	struct ib_srq_attr sattr;
	struct kv_held *h;
	u32 i;

	h = kzalloc_obj(*h);
	if (!KV_EXPECT(t, h, "kzalloc"))
		return;
	if (!kv_pd_global_rkey(t))
		goto out;
	h->srq = kv_srq(t, KV_HELD_SRQ_WR, 1);
	if (!h->srq ||
	    !KV_EXPECT(t, !ib_query_srq(h->srq, &sattr), "query SRQ"))
		goto out;
	h->depth = sattr.max_wr;
	h->mtu = ib_mtu_enum_to_int(kv_active_mtu(t));
	h->slot = 2 * h->mtu;
	h->src = kv_buf_alloc(t, h->depth * h->slot);
	h->dst = kv_buf_alloc(t, h->depth * h->slot);
	if (!h->src || !h->dst || !kv_pair(t, &h->p, h->srq))
		goto out;
	for (i = 0; i < h->depth; i++)
		if (!kv_held_post(t, h, "filling"))
			goto out;
	if (!kv_held_full(t, h, "filled") || !kv_held_start(t, h) ||
	    !kv_held_finish(t, h, end))
		goto out;
	/* Receive 0's slot is free again, and only that one. */
	if (!kv_held_post(t, h, "after B held receive 0") ||
	    !kv_held_full(t, h, "after B held receive 0") ||
	    !kv_held_reconnect(t, h) ||
	    !kv_held_messages(t, h, 11 + end))
		goto out;
	for (i = 0; i < h->depth; i++)
		if (!kv_held_post(t, h, "refilling"))
			goto out;
	kv_held_full(t, h, "refilled");
	kv_diag(t, "%u-deep SRQ, MTU %u: %u receives posted", h->depth, h->mtu,
		h->posted);
out:
	kfree(h);
}

static void kv_srq_rc_held_err(struct kv_test *t)
{
	kv_srq_rc_held(t, KV_HELD_ERR);
}

static void kv_srq_rc_held_reset(struct kv_test *t)
{
	kv_srq_rc_held(t, KV_HELD_RESET);
}

static void kv_srq_rc_held_destroy(struct kv_test *t)
{
	kv_srq_rc_held(t, KV_HELD_DESTROY);
}

static const struct kv_case kv_datapath_cases[] = {
	{ "rc_send_recv_sizes", kv_rc_send_recv },
	{ "rc_send_imm", kv_rc_send_imm },
	{ "rc_send_inline", kv_rc_send_inline },
	{ "rc_write_sizes", kv_rc_write },
	{ "rc_write_imm", kv_rc_write_imm },
	{ "rc_read_sizes", kv_rc_read },
	{ "rc_atomic_cmp_swap", kv_rc_atomic_cmp_swap },
	{ "rc_atomic_fetch_add", kv_rc_atomic_fetch_add },
	{ "ud_send_recv", kv_ud_send_recv },
	{ "uc_send_write_sizes", kv_uc_ops },
	{ "srq_recv", kv_srq_recv },
	{ "srq_reset_destroy_churn", kv_srq_churn },
	{ "frwr_write_local_inv", kv_frwr_write_local_inv },
	{ "send_with_inv", kv_send_with_inv },
	{ "unsignaled_wrap", kv_unsignaled_wrap },
	{ "cq_events", kv_cq_events },
	{ "cq_moderation", kv_cq_moderation },
	{ "cq_reused_number_no_stale_event", kv_cq_reused_number },
	{ "ulp_cq_softirq_drain", kv_ulp_softirq },
	{ "ulp_cq_workqueue_drain", kv_ulp_workqueue },
	{ "err_bad_rkey", kv_bad_rkey },
	{ "err_read_out_of_bounds", kv_read_out_of_bounds },
	{ "err_bad_lkey", kv_bad_lkey },
	{ "err_recv_too_small", kv_recv_too_small },
	{ "err_flush", kv_flush_on_error },
	{ "srq_rc_held_wqe_err_reset", kv_srq_rc_held_err },
	{ "srq_rc_held_wqe_reset", kv_srq_rc_held_reset },
	{ "srq_rc_held_wqe_destroy", kv_srq_rc_held_destroy },
	{ "qp_reused_number_no_stale_event", kv_qp_reused_number },
	{ "srq_reused_number_no_stale_event", kv_srq_reused_number },
};

const struct kv_suite kv_datapath_suite = {
	.name = "datapath",
	.cases = kv_datapath_cases,
	.ncases = ARRAY_SIZE(kv_datapath_cases),
};

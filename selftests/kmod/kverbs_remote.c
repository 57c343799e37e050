// SPDX-License-Identifier: GPL-2.0
/*
 * orca_kverbs "remote" suite: data moved between the adapters of two
 * guests over the wire.  Each guest sets up a peer (an RC and a UD QP,
 * buffers, an MR for atomics), the guests swap the peers' addresses
 * through files, connect, and run the same cases at the same time:
 *
 *   echo "peer-setup orca_0" > run; cat run    -> "peer qpn=..." line
 *   echo "peer-connect MYSEED PEERSEED <the other guest's line>" > run
 *   echo remote > run; cat run                 -> KTAP
 *   echo peer-teardown > run
 *
 * Every case is symmetric: each side does to the other what the other does
 * to it, and the cases stay in lockstep through barriers (a zero-byte
 * SEND_WITH_IMM each way on the RC QP, whose receive is posted before the
 * case's own receives).  Data is a pattern seeded by the sender, so the
 * receiver checks every byte: each transfer has its own seed, from the
 * sender's MYSEED, the case and the message (KV_PEER_SEED), so that the
 * two sides never send the same bytes and data one transfer left behind
 * never passes for another's.
 */
#include <linux/etherdevice.h>
#include <linux/hex.h>
#include <linux/slab.h>
#include <linux/sizes.h>
#include <rdma/ib_cache.h>

#include "kverbs.h"

#define KV_PEER_QKEY		0x22222222
#define KV_PEER_NSIZES		8
#define KV_PEER_SLOT_PAD	64
/* Room for one message of every size, each in its own slot. */
#define KV_PEER_AREA		(SZ_1M + SZ_256K)
/* Message @i of case @c sent by the side with MYSEED @side. */
#define KV_PEER_SEED(side, c, i) \
	((u32)(side) << 16 | (u32)(c) << 8 | (u32)(i))
#define KV_PEER_SEND		1
#define KV_PEER_WRITE		2
#define KV_PEER_READ		3
#define KV_PEER_UD		4
#define KV_BARRIER_WRID		0xba11
#define KV_UD_MSGS		4

struct kv_peer_addr {
	u32 qpn;
	u32 udqpn;
	union ib_gid gid;
	u8 mac[ETH_ALEN];
	u64 read_addr;		/* its side's KV_PEER_READ pattern, 1 MiB */
	u64 write_addr;		/* area the other side writes */
	u32 rkey;		/* global rkey of the two areas above */
	u64 atomic_addr;	/* one u64 counter, starts at 0 */
	u32 atomic_rkey;
};

/**
 * struct kv_peer - this side of the remote suite
 * @t: fixtures live here, from peer-setup to peer-teardown
 * @scq: send completions of both QPs
 * @rcq: receive completions of both QPs
 * @rc: RC QP, connected at peer-connect
 * @ud: UD QP
 * @amr: FRWR MR of @abuf with remote atomic access
 * @rbuf: the area the other side reads
 * @wbuf: the area the other side writes
 * @sbuf: receive buffers
 * @lbuf: local source and destination of this side's operations
 * @abuf: the atomic counter page
 * @me: this side's addresses
 * @other: the other side's addresses
 * @my_seed: seeds the patterns this side sends
 * @peer_seed: seeds the patterns the other side sends
 * @connected: peer-connect succeeded
 * @barriers: barriers passed, tags them
 */
struct kv_peer {
	struct kv_test t;
	struct ib_cq *scq;
	struct ib_cq *rcq;
	struct ib_qp *rc;
	struct ib_qp *ud;
	struct ib_mr *amr;
	struct kv_buf *rbuf;
	struct kv_buf *wbuf;
	struct kv_buf *sbuf;
	struct kv_buf *lbuf;
	struct kv_buf *abuf;
	struct kv_peer_addr me;
	struct kv_peer_addr other;
	u32 my_seed;
	u32 peer_seed;
	bool connected;
	u32 barriers;
};

static struct kv_peer *kv_peer;

static struct ib_qp *kv_peer_qp(struct kv_peer *pr, enum ib_qp_type type)
{
	struct ib_qp_init_attr init = {
		.send_cq = pr->scq,
		.recv_cq = pr->rcq,
		.qp_type = type,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.cap = {
			.max_send_wr = 64, .max_recv_wr = 64,
			.max_send_sge = 1, .max_recv_sge = 1,
		},
	};

	return kv_qp(&pr->t, &init);
}

static void kv_peer_free(void)
{
	if (!kv_peer)
		return;
	kv_teardown(&kv_peer->t);
	kfree(kv_peer);
	kv_peer = NULL;
}

static int kv_peer_setup(const char *dev)
{
	int access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_ATOMIC;
	struct ib_device *ibdev = kv_find_dev(*dev ? dev : "orca_0");
	struct kv_peer *pr;
	struct kv_test *t;
	int idx;

	if (!ibdev)
		return -ENODEV;
	kv_peer_free();
	pr = kzalloc_obj(*pr);
	if (!pr)
		return -ENOMEM;
	kv_peer = pr;
	t = &pr->t;
	t->ibdev = ibdev;
	t->name = "peer-setup";

	idx = kv_roce_v2_gid(t, &pr->me.gid);
	if (idx < 0 || !kv_pd_global_rkey(t))
		goto err;
	pr->scq = kv_cq(t, 256, 0);
	pr->rcq = kv_cq(t, 256, 0);
	if (!pr->scq || !pr->rcq)
		goto err;
	pr->rc = kv_peer_qp(pr, IB_QPT_RC);
	pr->ud = kv_peer_qp(pr, IB_QPT_UD);
	pr->amr = kv_fast_mr(t, 1);
	pr->rbuf = kv_buf_alloc(t, SZ_1M);
	pr->wbuf = kv_buf_alloc(t, KV_PEER_AREA);
	pr->sbuf = kv_buf_alloc(t, KV_PEER_AREA);
	pr->lbuf = kv_buf_alloc(t, SZ_1M);
	pr->abuf = kv_buf_alloc(t, PAGE_SIZE);
	if (!pr->rc || !pr->ud || !pr->amr || !pr->rbuf || !pr->wbuf ||
	    !pr->sbuf || !pr->lbuf || !pr->abuf)
		goto err;
	if (kv_ud_ready(t, pr->ud, KV_PEER_QKEY))
		goto err;
	/* REG_MR needs a QP that can send: the RC QP, looped to itself. */
	if (kv_rc_connect(t, pr->rc, pr->rc->qp_num) ||
	    !kv_frwr_register(t, pr->rc, pr->scq, pr->amr, pr->abuf,
			      PAGE_SIZE, access))
		goto err;
	pr->me.qpn = pr->rc->qp_num;
	pr->me.udqpn = pr->ud->qp_num;
	ether_addr_copy(pr->me.mac, t->mac);
	pr->me.read_addr = pr->rbuf->dma;
	pr->me.write_addr = pr->wbuf->dma;
	pr->me.rkey = pr->t.pd->unsafe_global_rkey;
	pr->me.atomic_addr = pr->amr->iova;
	pr->me.atomic_rkey = pr->amr->rkey;
	kv_out_printf("peer %u %u %16phN %6phN %llx %llx %x %llx %x\n",
		      pr->me.qpn, pr->me.udqpn, pr->me.gid.raw, pr->me.mac,
		      pr->me.read_addr, pr->me.write_addr, pr->me.rkey,
		      pr->me.atomic_addr, pr->me.atomic_rkey);
	return 0;

err:
	kv_peer_free();
	return -EIO;
}

static int kv_parse_addr(char *s, struct kv_peer_addr *a)
{
	char gid[33], mac[13];

	if (sscanf(s, "peer %u %u %32s %12s %llx %llx %x %llx %x", &a->qpn,
		   &a->udqpn, gid, mac, &a->read_addr, &a->write_addr,
		   &a->rkey, &a->atomic_addr, &a->atomic_rkey) != 9)
		return -EINVAL;
	if (strlen(gid) != 32 || strlen(mac) != 12 ||
	    hex2bin(a->gid.raw, gid, 16) || hex2bin(a->mac, mac, ETH_ALEN))
		return -EINVAL;
	return 0;
}

/* "MYSEED PEERSEED peer ..." (the other side's peer-setup line). */
static int kv_peer_connect(char *args)
{
	struct kv_peer *pr = kv_peer;
	struct ib_qp_attr attr = { .qp_state = IB_QPS_RESET };
	struct rdma_ah_attr ah_attr;
	union ib_gid gid;
	char *seeds;
	int err, idx;

	if (!pr || pr->connected)
		return -EINVAL;
	seeds = strsep(&args, " ");
	if (!args || kstrtou32(seeds, 0, &pr->my_seed))
		return -EINVAL;
	seeds = strsep(&args, " ");
	if (!args || kstrtou32(seeds, 0, &pr->peer_seed) ||
	    kv_parse_addr(args, &pr->other))
		return -EINVAL;

	pr->t.name = "peer-connect";
	err = ib_modify_qp(pr->rc, &attr, IB_QP_STATE);
	if (err)
		return err;
	/*
	 * Local ACK timeout 18 (1.07 s), eight tries: the other guest may not
	 * run for seconds on a loaded host (TCG), as perftest's -u 18 in
	 * in-guest/perftest.sh allows for; 14 (67 ms) gave up within half a
	 * second there.
	 */
	err = kv_rc_connect_to(&pr->t, pr->rc, pr->other.qpn, &pr->other.gid,
			       pr->other.mac, 18);
	if (err)
		return err;
	/* The AH of the UD case: same PD as the UD QP. */
	idx = kv_roce_v2_gid(&pr->t, &gid);
	if (idx < 0)
		return -EIO;
	kv_ah_attr(&pr->t, &ah_attr, &pr->other.gid, idx);
	ether_addr_copy(ah_attr.roce.dmac, pr->other.mac);
	if (!kv_ah(&pr->t, &ah_attr))
		return -EIO;
	/*
	 * The area the other side reads, in this side's pattern: what each
	 * side reads differs from what it would read from itself.
	 */
	kv_fill(pr->rbuf->va, SZ_1M,
		KV_PEER_SEED(pr->my_seed, KV_PEER_READ, 0));
	pr->connected = true;
	kv_out_printf("connected to QP %u\n", pr->other.qpn);
	return 0;
}

int kv_peer_cmd(const char *verb, char *args)
{
	if (!strcmp(verb, "setup"))
		return kv_peer_setup(args);
	if (!strcmp(verb, "connect"))
		return kv_peer_connect(args);
	if (!strcmp(verb, "teardown")) {
		kv_peer_free();
		return 0;
	}
	return -EINVAL;
}

void kv_peer_device_removed(struct ib_device *ibdev)
{
	if (kv_peer && kv_peer->t.ibdev == ibdev)
		kv_peer_free();
}

/* The peer for a case, or NULL (the case is skipped). */
static struct kv_peer *kv_peer_get(struct kv_test *t)
{
	if (!kv_peer || !kv_peer->connected || kv_peer->t.ibdev != t->ibdev) {
		kv_skip(t, "no connected peer (peer-setup, peer-connect)");
		return NULL;
	}
	return kv_peer;
}

static int kv_peer_post_recv(struct kv_peer *pr, struct ib_qp *qp, u64 wr_id,
			     u64 addr, u32 len)
{
	struct ib_sge sge = {
		.addr = addr, .length = len,
		.lkey = pr->t.pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = {
		.wr_id = wr_id, .sg_list = &sge, .num_sge = len ? 1 : 0,
	};

	return ib_post_recv(qp, &wr, NULL);
}

static bool kv_barrier_send(struct kv_test *t, struct kv_peer *pr, u32 tag)
{
	struct ib_send_wr wr = {
		.wr_id = KV_BARRIER_WRID,
		.opcode = IB_WR_SEND_WITH_IMM,
		.send_flags = IB_SEND_SIGNALED,
		.ex.imm_data = cpu_to_be32(tag),
	};

	return KV_EXPECT(t, !ib_post_send(pr->rc, &wr, NULL), "barrier send") &&
	       kv_expect_wc(t, pr->scq, "barrier send", KV_BARRIER_WRID,
			    IB_WC_SUCCESS, IB_WC_SEND, NULL);
}

static bool kv_barrier_recv(struct kv_test *t, struct kv_peer *pr, u32 tag)
{
	struct ib_wc wc;

	if (!kv_expect_wc(t, pr->rcq, "barrier", KV_BARRIER_WRID,
			  IB_WC_SUCCESS, IB_WC_RECV, &wc))
		return false;
	return KV_EXPECT(t, (wc.wc_flags & IB_WC_WITH_IMM) &&
			 be32_to_cpu(wc.ex.imm_data) == tag,
			 "barrier tag %u, want %u (out of step)",
			 be32_to_cpu(wc.ex.imm_data), tag);
}

/*
 * Wait until the other side reaches the same point.  @post_case_recvs
 * runs between posting the barrier's receive and sending the barrier, so
 * the other side's case messages, sent after our barrier reached it, find
 * their receives posted.
 */
static bool kv_barrier(struct kv_test *t, struct kv_peer *pr,
		       bool (*post_case_recvs)(struct kv_test *t,
					       struct kv_peer *pr))
{
	u32 tag = ++pr->barriers;

	if (!KV_EXPECT(t, !kv_peer_post_recv(pr, pr->rc, KV_BARRIER_WRID, 0,
					     0), "barrier recv"))
		return false;
	if (post_case_recvs && !post_case_recvs(t, pr))
		return false;
	return kv_barrier_send(t, pr, tag) && kv_barrier_recv(t, pr, tag);
}

static void kv_peer_sizes(struct kv_test *t, u32 *sizes, u32 *offsets)
{
	u32 mtu = ib_mtu_enum_to_int(kv_active_mtu(t));
	u32 i, off = 0;

	sizes[0] = 0;
	sizes[1] = 1;
	sizes[2] = mtu - 1;
	sizes[3] = mtu;
	sizes[4] = mtu + 1;
	sizes[5] = 3 * mtu + 17;
	sizes[6] = SZ_64K;
	sizes[7] = SZ_1M;
	for (i = 0; i < KV_PEER_NSIZES; i++) {
		offsets[i] = off;
		off += ALIGN(sizes[i] + KV_PEER_SLOT_PAD, 64);
	}
}

static bool kv_post_size_recvs(struct kv_test *t, struct kv_peer *pr)
{
	u32 sizes[KV_PEER_NSIZES], offs[KV_PEER_NSIZES];
	int i;

	kv_peer_sizes(t, sizes, offs);
	for (i = 0; i < KV_PEER_NSIZES; i++)
		if (!KV_EXPECT(t, !kv_peer_post_recv(pr, pr->rc, i,
						     pr->sbuf->dma + offs[i],
						     sizes[i] +
						     KV_PEER_SLOT_PAD),
			       "post_recv %d", i))
			return false;
	return true;
}

/* Messages of every size both ways; the receiver checks every byte. */
static void kv_remote_send_sizes(struct kv_test *t)
{
	u32 sizes[KV_PEER_NSIZES], offs[KV_PEER_NSIZES];
	struct kv_peer *pr = kv_peer_get(t);
	struct ib_wc wc;
	char what[32];
	int i;

	if (!pr || !kv_barrier(t, pr, kv_post_size_recvs))
		return;
	kv_peer_sizes(t, sizes, offs);
	for (i = 0; i < KV_PEER_NSIZES; i++) {
		struct ib_sge sge = {
			.addr = pr->lbuf->dma, .length = sizes[i],
			.lkey = pr->t.pd->local_dma_lkey,
		};
		struct ib_send_wr wr = {
			.wr_id = 100 + i, .sg_list = &sge,
			.num_sge = sizes[i] ? 1 : 0, .opcode = IB_WR_SEND,
			.send_flags = IB_SEND_SIGNALED,
		};

		snprintf(what, sizeof(what), "send %u", sizes[i]);
		kv_fill(pr->lbuf->va, sizes[i],
			KV_PEER_SEED(pr->my_seed, KV_PEER_SEND, i));
		if (!KV_EXPECT(t, !ib_post_send(pr->rc, &wr, NULL), "%s", what) ||
		    !kv_expect_wc(t, pr->scq, what, 100 + i, IB_WC_SUCCESS,
				  IB_WC_SEND, NULL))
			return;
	}
	for (i = 0; i < KV_PEER_NSIZES; i++) {
		snprintf(what, sizeof(what), "receive %u", sizes[i]);
		if (!kv_expect_wc(t, pr->rcq, what, i, IB_WC_SUCCESS,
				  IB_WC_RECV, &wc))
			return;
		KV_EXPECT(t, wc.byte_len == sizes[i], "%s: byte_len %u", what,
			  wc.byte_len);
		kv_check_fill(t, pr->sbuf->va + offs[i], sizes[i],
			      KV_PEER_SEED(pr->peer_seed, KV_PEER_SEND, i),
			      what);
	}
	kv_barrier(t, pr, NULL);
}

static bool kv_post_empty_recvs(struct kv_test *t, struct kv_peer *pr)
{
	int i;

	for (i = 0; i < KV_PEER_NSIZES; i++)
		if (!KV_EXPECT(t, !kv_peer_post_recv(pr, pr->rc, i, 0, 0),
			       "post_recv %d", i))
			return false;
	return true;
}

/*
 * RDMA writes of every size into the other side's area, each announced
 * by its immediate (the size's index) on the receiver.
 */
static void kv_remote_write_imm_sizes(struct kv_test *t)
{
	u32 sizes[KV_PEER_NSIZES], offs[KV_PEER_NSIZES];
	struct kv_peer *pr = kv_peer_get(t);
	struct ib_wc wc;
	char what[32];
	int i;

	if (!pr || !kv_barrier(t, pr, kv_post_empty_recvs))
		return;
	kv_peer_sizes(t, sizes, offs);
	for (i = 0; i < KV_PEER_NSIZES; i++) {
		struct ib_sge sge = {
			.addr = pr->lbuf->dma, .length = sizes[i],
			.lkey = pr->t.pd->local_dma_lkey,
		};
		struct ib_rdma_wr wr = {
			.wr = {
				.wr_id = 200 + i, .sg_list = &sge,
				.num_sge = sizes[i] ? 1 : 0,
				.opcode = IB_WR_RDMA_WRITE_WITH_IMM,
				.send_flags = IB_SEND_SIGNALED,
				.ex.imm_data = cpu_to_be32(i),
			},
			.remote_addr = pr->other.write_addr + offs[i],
			.rkey = pr->other.rkey,
		};

		snprintf(what, sizeof(what), "write %u", sizes[i]);
		kv_fill(pr->lbuf->va, sizes[i],
			KV_PEER_SEED(pr->my_seed, KV_PEER_WRITE, i));
		if (!KV_EXPECT(t, !ib_post_send(pr->rc, &wr.wr, NULL), "%s",
			       what) ||
		    !kv_expect_wc(t, pr->scq, what, 200 + i, IB_WC_SUCCESS,
				  IB_WC_RDMA_WRITE, NULL))
			return;
	}
	for (i = 0; i < KV_PEER_NSIZES; i++) {
		snprintf(what, sizeof(what), "written %u", sizes[i]);
		if (!kv_expect_wc(t, pr->rcq, what, i, IB_WC_SUCCESS,
				  IB_WC_RECV_RDMA_WITH_IMM, &wc))
			return;
		KV_EXPECT(t, wc.byte_len == sizes[i] &&
			  (wc.wc_flags & IB_WC_WITH_IMM) &&
			  be32_to_cpu(wc.ex.imm_data) == i,
			  "%s: byte_len %u imm %u", what, wc.byte_len,
			  be32_to_cpu(wc.ex.imm_data));
		kv_check_fill(t, pr->wbuf->va + offs[i], sizes[i],
			      KV_PEER_SEED(pr->peer_seed, KV_PEER_WRITE, i),
			      what);
	}
	kv_barrier(t, pr, NULL);
}

/* RDMA reads of every size from the other side's read area. */
static void kv_remote_read_sizes(struct kv_test *t)
{
	u32 sizes[KV_PEER_NSIZES], offs[KV_PEER_NSIZES];
	struct kv_peer *pr = kv_peer_get(t);
	char what[32];
	int i;

	if (!pr || !kv_barrier(t, pr, NULL))
		return;
	kv_peer_sizes(t, sizes, offs);
	for (i = 0; i < KV_PEER_NSIZES; i++) {
		struct ib_sge sge = {
			.addr = pr->lbuf->dma, .length = sizes[i],
			.lkey = pr->t.pd->local_dma_lkey,
		};
		struct ib_rdma_wr wr = {
			.wr = {
				.wr_id = 300 + i, .sg_list = &sge,
				.num_sge = sizes[i] ? 1 : 0,
				.opcode = IB_WR_RDMA_READ,
				.send_flags = IB_SEND_SIGNALED,
			},
			.remote_addr = pr->other.read_addr,
			.rkey = pr->other.rkey,
		};

		snprintf(what, sizeof(what), "read %u", sizes[i]);
		memset(pr->lbuf->va, 0, sizes[i]);
		if (!KV_EXPECT(t, !ib_post_send(pr->rc, &wr.wr, NULL), "%s",
			       what) ||
		    !kv_expect_wc(t, pr->scq, what, 300 + i, IB_WC_SUCCESS,
				  IB_WC_RDMA_READ, NULL) ||
		    !kv_check_fill(t, pr->lbuf->va, sizes[i],
				   KV_PEER_SEED(pr->peer_seed, KV_PEER_READ,
						0), what))
			break;
	}
	kv_barrier(t, pr, NULL);
}

static bool kv_remote_atomic(struct kv_test *t, struct kv_peer *pr,
			     enum ib_wr_opcode op, u64 compare_add, u64 swap,
			     u64 want)
{
	u64 *res = pr->lbuf->va;
	struct ib_sge sge = {
		.addr = pr->lbuf->dma, .length = sizeof(u64),
		.lkey = pr->t.pd->local_dma_lkey,
	};
	struct ib_atomic_wr wr = {
		.wr = {
			.wr_id = 400, .sg_list = &sge, .num_sge = 1,
			.opcode = op, .send_flags = IB_SEND_SIGNALED,
		},
		.remote_addr = pr->other.atomic_addr,
		.rkey = pr->other.atomic_rkey,
		.compare_add = compare_add,
		.swap = swap,
	};

	*res = ~0ULL;
	return KV_EXPECT(t, !ib_post_send(pr->rc, &wr.wr, NULL), "post") &&
	       kv_expect_wc(t, pr->scq, "atomic", 400, IB_WC_SUCCESS,
			    op == IB_WR_ATOMIC_FETCH_AND_ADD ?
			    IB_WC_FETCH_ADD : IB_WC_COMP_SWAP, NULL) &&
	       KV_EXPECT(t, *res == want, "op %d returned %llu, want %llu",
			 op, *res, want);
}

/* Ten fetch-and-adds, then compare-and-swap, on the other side's counter. */
static void kv_remote_atomics(struct kv_test *t)
{
	struct kv_peer *pr = kv_peer_get(t);
	u64 *mine;
	int i;

	if (!pr || !kv_barrier(t, pr, NULL))
		return;
	mine = pr->abuf->va;
	for (i = 0; i < 10; i++)
		if (!kv_remote_atomic(t, pr, IB_WR_ATOMIC_FETCH_AND_ADD, 1, 0,
				      i))
			break;
	kv_remote_atomic(t, pr, IB_WR_ATOMIC_CMP_AND_SWP, 10, 1000, 10);
	kv_remote_atomic(t, pr, IB_WR_ATOMIC_CMP_AND_SWP, 10, 5, 1000);
	if (kv_barrier(t, pr, NULL))
		KV_EXPECT(t, *mine == 1000, "my counter %llu after the peer",
			  *mine);
	*mine = 0;
	kv_barrier(t, pr, NULL);
}

static bool kv_post_ud_recvs(struct kv_test *t, struct kv_peer *pr)
{
	int i;

	for (i = 0; i < KV_UD_MSGS; i++)
		if (!KV_EXPECT(t, !kv_peer_post_recv(pr, pr->ud, 500 + i,
						     pr->sbuf->dma + i * SZ_8K,
						     SZ_8K), "post_recv %d", i))
			return false;
	return true;
}

/* Datagrams of up to one MTU both ways, through an AH to the other side. */
static void kv_remote_ud(struct kv_test *t)
{
	u32 mtu = ib_mtu_enum_to_int(kv_active_mtu(t));
	u32 sizes[KV_UD_MSGS] = { 0, 1, 512, mtu };
	struct kv_peer *pr = kv_peer_get(t);
	struct ib_wc wc;
	char what[32];
	int i;

	if (!pr || !kv_barrier(t, pr, kv_post_ud_recvs))
		return;
	for (i = 0; i < KV_UD_MSGS; i++) {
		struct ib_sge sge = {
			.addr = pr->lbuf->dma + i * SZ_8K, .length = sizes[i],
			.lkey = pr->t.pd->local_dma_lkey,
		};
		struct ib_ud_wr wr = {
			.wr = {
				.wr_id = 600 + i, .sg_list = &sge,
				.num_sge = sizes[i] ? 1 : 0,
				.opcode = IB_WR_SEND,
				.send_flags = IB_SEND_SIGNALED,
			},
			.ah = pr->t.ah,
			.remote_qpn = pr->other.udqpn,
			.remote_qkey = KV_PEER_QKEY,
		};

		snprintf(what, sizeof(what), "UD send %u", sizes[i]);
		kv_fill(pr->lbuf->va + i * SZ_8K, sizes[i],
			KV_PEER_SEED(pr->my_seed, KV_PEER_UD, i));
		if (!KV_EXPECT(t, !ib_post_send(pr->ud, &wr.wr, NULL), "%s",
			       what) ||
		    !kv_expect_wc(t, pr->scq, what, 600 + i, IB_WC_SUCCESS,
				  IB_WC_SEND, NULL))
			return;
	}
	for (i = 0; i < KV_UD_MSGS; i++) {
		snprintf(what, sizeof(what), "UD receive %u", sizes[i]);
		if (!kv_expect_wc(t, pr->rcq, what, 500 + i, IB_WC_SUCCESS,
				  IB_WC_RECV, &wc))
			return;
		KV_EXPECT(t, wc.byte_len == sizes[i] + 40 &&
			  wc.src_qp == pr->other.udqpn &&
			  (wc.wc_flags & IB_WC_GRH),
			  "%s: byte_len %u src_qp %u flags 0x%x", what,
			  wc.byte_len, wc.src_qp, wc.wc_flags);
		kv_check_fill(t, pr->sbuf->va + i * SZ_8K + 40, sizes[i],
			      KV_PEER_SEED(pr->peer_seed, KV_PEER_UD, i), what);
	}
	kv_barrier(t, pr, NULL);
}

static const struct kv_case kv_remote_cases[] = {
	{ "remote_send_sizes", kv_remote_send_sizes },
	{ "remote_write_imm_sizes", kv_remote_write_imm_sizes },
	{ "remote_read_sizes", kv_remote_read_sizes },
	{ "remote_atomics", kv_remote_atomics },
	{ "remote_ud", kv_remote_ud },
};

const struct kv_suite kv_remote_suite = {
	.name = "remote",
	.cases = kv_remote_cases,
	.ncases = ARRAY_SIZE(kv_remote_cases),
};

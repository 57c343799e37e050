// SPDX-License-Identifier: GPL-2.0
/*
 * XRC (interface 1.6, IBA 1.2 Annex A14) in the emulator: the commands
 * (ALLOC/DEALLOC_XRCD and their references, XRC SRQs, XRC initiator and
 * target QPs with every field they must leave 0, their state machine) and
 * the transport between two adapters on an in-process wire that sees
 * every frame: SEND, SEND with immediate, RDMA WRITE (with immediate),
 * READ and the atomics from an initiator to SRQs behind one target QP,
 * every byte and every completion field checked; requests naming a
 * missing SRQ, one of another domain or a plain SRQ, or a MIDDLE naming
 * another SRQ than its FIRST, NAKed Invalid Request and both QPs in ERR;
 * RNR NAKs on an empty XRC SRQ; memory checked in the SRQ's PD; hostile
 * frames (the wrong transport for the QP, a truncated XRCETH) dropped
 * and counted; the wire bytes (opcodes, the XRCETH after the BTH, no
 * XRCETH in responses), and tshark's reading of them when the toolroot
 * has tshark.
 *
 * With ORCA_XRC_PCAP=FILE set, the frames of the wire case are also kept
 * in FILE (pcap, Ethernet).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ktap.h"
#include "roce_node.h"

#define WAIT_MS		10000
#define IOVA_A		0x7f0000001000ull
#define IOVA_B		0x7e0000000800ull	/* not page aligned */
#define IOVA_C		0x7d0000000000ull
#define BUF_LEN		(1u << 18)
#define INI_PSN		0xfffffau		/* wraps within a few packets */
#define MAX_CAP		512
#define LINE_MAX_T	(1u << 16)		/* a tshark line, hex payload */

/* ---- the wire: every frame seen, kept while capturing ---- */

struct cap_frame {
	uint32_t len;
	uint8_t *data;
};

struct tap {
	struct node *n;			/* the sender */
	atomic_bool forward;		/* to the peer; else swallowed */
	atomic_uint frames;
	atomic_uint not_xrc;		/* frames without an XRC opcode */
	pthread_mutex_t lock;
	bool capture;
	unsigned int ncap;
	struct cap_frame cap[MAX_CAP];
};

static void tap_tx(void *ctx, const uint8_t *frame, size_t len)
{
	struct tap *t = ctx;
	struct roce_pkt k;

	atomic_fetch_add(&t->frames, 1);
	if (roce_parse(frame, len, &k) != ROCE_RX_OK ||
	    (k.opcode & ~ROCE_OP_MASK) != ROCE_XRC_BASE)
		atomic_fetch_add(&t->not_xrc, 1);
	pthread_mutex_lock(&t->lock);
	if (t->capture && t->ncap < MAX_CAP) {
		t->cap[t->ncap].data = malloc(len);
		memcpy(t->cap[t->ncap].data, frame, len);
		t->cap[t->ncap++].len = (uint32_t)len;
	}
	pthread_mutex_unlock(&t->lock);
	if (atomic_load(&t->forward))
		engine_roce_rx(t->n->peer->t.eng, frame, len);
}

static void tap_init(struct tap *t, struct node *n)
{
	memset(t, 0, sizeof(*t));
	t->n = n;
	atomic_store(&t->forward, true);
	pthread_mutex_init(&t->lock, NULL);
}

static void tap_fini(struct tap *t)
{
	for (unsigned int i = 0; i < t->ncap; i++)
		free(t->cap[i].data);
	pthread_mutex_destroy(&t->lock);
}

/* ---- commands ---- */

static struct roce_stats stats(struct node *n)
{
	struct roce_stats st;

	engine_flush(n->t.eng);
	roce_get_stats(n->t.eng, &st);
	return st;
}

static int64_t alloc_xrcd(struct th *t)
{
	return th_handle_or_neg(t, th_cmd(t, ORCA_CMD_ALLOC_XRCD, NULL, 0));
}

/* A CREATE_SRQ input for ring @q (log 6, 2 SGEs, one page). */
static struct orca_cmd_create_srq xsrq_in(struct th *t, struct tsrq *q,
					  uint32_t pdn, uint32_t uar,
					  uint32_t cqn, uint32_t xrcdn,
					  uint8_t flags)
{
	struct orca_cmd_create_srq in = {
		.pdn = htole32(pdn), .cqn = htole32(cqn), .log_depth = 6,
		.page_shift = 12, .max_sge = 2, .flags = flags,
		.npages = htole32(1), .uar = htole32(uar),
		.xrcdn = htole32(xrcdn),
	};

	memset(q, 0, sizeof(*q));
	q->log = 6;
	q->max_sge = 2;
	q->ring = galloc(t, 4096, 0);
	q->rec = galloc(t, 64, 64);
	in.page_addr = htole64(q->ring);
	in.db_rec_addr = htole64(q->rec);
	return in;
}

static bool xsrq(struct node *n, struct tsrq *q, uint32_t pdn, uint32_t cqn,
		 uint32_t xrcdn, uint8_t flags)
{
	struct orca_cmd_create_srq in = xsrq_in(&n->t, q, pdn, n->uar, cqn,
						xrcdn, flags);
	int64_t v;

	v = th_handle_or_neg(&n->t, th_cmd(&n->t, ORCA_CMD_CREATE_SRQ, &in,
					   sizeof(in)));
	if (v <= 0)
		return false;
	q->srqn = v;
	return true;
}

/* An XRC initiator's CREATE_QP: a send queue (log 7, 4 SGEs) only. */
struct ini_req {
	struct orca_cmd_create_qp in;
	uint64_t list;
	uint32_t list_len;
};

static struct ini_req ini_in(struct th *t, struct tqp *qp, uint32_t pdn,
			     uint32_t cqn, uint32_t uar)
{
	unsigned int log = 7, sge = 4;
	uint32_t sq_bytes = orca_send_wqe_stride(sge) << log;
	uint32_t np = sq_bytes / 4096;
	struct ini_req r = { 0 };
	uint64_t *l;

	memset(qp, 0, sizeof(*qp));
	qp->type = ORCA_QPT_XRC_INI;
	qp->log_sq = log;
	qp->max_sge = sge;
	qp->uar = uar;
	qp->sq = galloc(t, sq_bytes, 0);
	qp->rec = galloc(t, 64, 64);
	r.in.qp_type = ORCA_QPT_XRC_INI;
	r.in.page_shift = 12;
	r.in.log_sq_depth = log;
	r.in.pdn = htole32(pdn);
	r.in.send_cqn = htole32(cqn);
	r.in.max_send_sge = sge;
	r.in.max_inline_data = htole16(64);
	r.in.sq_npages = htole32(np);
	r.in.uar = htole32(uar);
	r.in.db_rec_addr = htole64(qp->rec);
	r.list_len = 8 * np;
	r.list = galloc(t, r.list_len, 8);
	l = gptr(t, r.list);
	for (uint32_t i = 0; i < np; i++)
		l[i] = htole64(qp->sq + 4096ull * i);
	return r;
}

static int ini_exec(struct th *t, const struct ini_req *r)
{
	struct tcmd c = {
		.opcode = ORCA_CMD_CREATE_QP, .in = &r->in,
		.in_size = sizeof(r->in), .in_addr = r->list,
		.in_len = r->list_len,
	};

	return th_exec(t, &c);
}

static bool ini_qp(struct node *n, struct tqp *qp, uint32_t cqn)
{
	struct ini_req r = ini_in(&n->t, qp, n->pdn, cqn, n->uar);
	int64_t v = th_handle_or_neg(&n->t, ini_exec(&n->t, &r));

	if (v <= 0)
		return false;
	qp->qpn = v;
	return true;
}

/* An XRC target's CREATE_QP: its type and domain, nothing else. */
static struct orca_cmd_create_qp tgt_in(uint32_t xrcdn)
{
	struct orca_cmd_create_qp in = {
		.qp_type = ORCA_QPT_XRC_TGT, .xrcdn = htole32(xrcdn),
	};

	return in;
}

static int64_t tgt_create(struct th *t, const struct orca_cmd_create_qp *in)
{
	return th_handle_or_neg(t, th_cmd(t, ORCA_CMD_CREATE_QP, in,
					  sizeof(*in)));
}

static bool tgt_qp(struct node *n, struct tqp *qp, uint32_t xrcdn)
{
	struct orca_cmd_create_qp in = tgt_in(xrcdn);
	int64_t v = tgt_create(&n->t, &in);

	memset(qp, 0, sizeof(*qp));
	qp->type = ORCA_QPT_XRC_TGT;
	if (v <= 0)
		return false;
	qp->qpn = v;
	return true;
}

static int modify(struct node *n, struct tqp *qp, uint32_t mask,
		  uint8_t state, struct orca_qp_attr *a)
{
	a->attr_mask = htole32(mask | ORCA_QP_ATTR_STATE);
	a->qp_state = state;
	return node_modify(n, qp, a);
}

static int modify_state(struct node *n, struct tqp *qp, uint8_t state)
{
	struct orca_qp_attr a = { 0 };

	return modify(n, qp, 0, state, &a);
}

static void set_av(struct orca_qp_attr *a, struct node *peer)
{
	node_gid(peer, a->av.dgid);
	memcpy(a->av.dmac, peer->mac, 6);
	a->av.hop_limit = 64;
}

#define A(x)	ORCA_QP_ATTR_##x

/*
 * The initiator RESET -> INIT -> RTR -> RTS with ib_modify_qp_is_ok()'s
 * XRC_INI attributes: first each with one of RC's the initiator does not
 * take, which the adapter must refuse.
 */
static bool ini_connect(struct node *n, struct tqp *qp, struct node *peer,
			uint32_t rqpn, uint8_t rnr_retry)
{
	const uint32_t rtr = A(AV) | A(PATH_MTU) | A(DEST_QPN) | A(RQ_PSN);
	const uint32_t rts = A(TIMEOUT) | A(RETRY_CNT) | A(RNR_RETRY) |
			     A(SQ_PSN) | A(MAX_QP_RD_ATOMIC);
	struct orca_qp_attr a = { 0 };

	a.port = 1;
	a.access = htole32(ORCA_QP_ACCESS_ALL);
	if (modify(n, qp, A(PKEY_INDEX) | A(PORT), ORCA_QPS_INIT, &a) !=
	    ORCA_CMD_ST_BAD_PARAM ||
	    modify(n, qp, A(PKEY_INDEX) | A(PORT) | A(ACCESS_FLAGS),
		   ORCA_QPS_INIT, &a))
		return false;
	memset(&a, 0, sizeof(a));
	a.path_mtu = 3;				/* 1024 */
	a.dest_qpn = htole32(rqpn);
	a.rq_psn = htole32(0x10);
	a.max_dest_rd_atomic = 4;
	a.min_rnr_timer = 1;
	set_av(&a, peer);
	if (modify(n, qp, rtr | A(MAX_DEST_RD_ATOMIC), ORCA_QPS_RTR, &a) !=
	    ORCA_CMD_ST_BAD_PARAM ||
	    modify(n, qp, rtr | A(MIN_RNR_TIMER), ORCA_QPS_RTR, &a) !=
	    ORCA_CMD_ST_BAD_PARAM ||
	    modify(n, qp, rtr, ORCA_QPS_RTR, &a))
		return false;
	memset(&a, 0, sizeof(a));
	a.sq_psn = htole32(INI_PSN);
	/*
	 * 2 s: the wire loses nothing, and the cases count frames, which a
	 * retransmission on a loaded host (67 ms at 14) would add to.
	 */
	a.timeout = 19;
	a.retry_cnt = 7;
	a.rnr_retry = rnr_retry;
	a.max_rd_atomic = 8;
	a.min_rnr_timer = 1;
	if (modify(n, qp, rts | A(MIN_RNR_TIMER), ORCA_QPS_RTS, &a) !=
	    ORCA_CMD_ST_BAD_PARAM)
		return false;
	return modify(n, qp, rts, ORCA_QPS_RTS, &a) == 0;
}

/*
 * The target RESET -> INIT -> RTR (and RTS if @rts) with XRC_TGT's
 * attributes; it needs no RTS to answer (IB's rule, the spec's).
 */
static bool tgt_connect(struct node *n, struct tqp *qp, struct node *peer,
			uint32_t rqpn, bool rts)
{
	struct orca_qp_attr a = { 0 };

	a.port = 1;
	a.access = htole32(ORCA_QP_ACCESS_ALL);
	if (modify(n, qp, A(PKEY_INDEX) | A(PORT) | A(ACCESS_FLAGS),
		   ORCA_QPS_INIT, &a))
		return false;
	memset(&a, 0, sizeof(a));
	a.path_mtu = 3;
	a.dest_qpn = htole32(rqpn);
	a.rq_psn = htole32(INI_PSN);
	a.max_dest_rd_atomic = 8;
	a.min_rnr_timer = 1;			/* 10 us */
	set_av(&a, peer);
	/* MIN_RNR_TIMER is required of a target, as of RC. */
	if (modify(n, qp, A(AV) | A(PATH_MTU) | A(DEST_QPN) | A(RQ_PSN) |
		   A(MAX_DEST_RD_ATOMIC), ORCA_QPS_RTR, &a) !=
	    ORCA_CMD_ST_BAD_PARAM ||
	    modify(n, qp, A(AV) | A(PATH_MTU) | A(DEST_QPN) | A(RQ_PSN) |
		   A(MAX_DEST_RD_ATOMIC) | A(MIN_RNR_TIMER), ORCA_QPS_RTR, &a))
		return false;
	if (!rts)
		return true;
	memset(&a, 0, sizeof(a));
	a.sq_psn = htole32(0x20);
	a.timeout = 14;
	a.retry_cnt = 7;
	/* A target's RTS takes TIMEOUT and SQ_PSN, not the retry counts. */
	if (modify(n, qp, A(TIMEOUT) | A(SQ_PSN) | A(RETRY_CNT), ORCA_QPS_RTS,
		   &a) != ORCA_CMD_ST_BAD_PARAM)
		return false;
	return modify(n, qp, A(TIMEOUT) | A(SQ_PSN), ORCA_QPS_RTS, &a) == 0;
}

/* QUERY_QP into @a; its status. */
static int query_qp(struct node *n, uint32_t qpn, struct orca_qp_attr *a)
{
	struct orca_cmd_destroy_obj q = { .handle = htole32(qpn) };
	uint64_t out = galloc(&n->t, 4096, 0);
	struct tcmd c = {
		.opcode = ORCA_CMD_QUERY_QP, .in = &q, .in_size = sizeof(q),
		.out_addr = out, .out_len = sizeof(*a),
	};
	int st;

	engine_flush(n->t.eng);
	st = th_exec(&n->t, &c);
	memcpy(a, gptr(&n->t, out), sizeof(*a));
	return st;
}

static int qp_state(struct node *n, struct tqp *qp)
{
	struct orca_qp_attr a;

	if (query_qp(n, qp->qpn, &a))
		return -1;
	return a.qp_state;
}

/* Zeroes [off, off + len) of @b, page by page of its reversed pages. */
static void buf_clear(struct node *n, struct tbuf *b, uint64_t off,
		      uint64_t len)
{
	for (uint64_t i = 0; i < len; i++)
		*node_va(n, b, off + i) = 0;
}

/* No CQE shows up on @cq for a while. */
static bool no_cqe(struct node *n, struct tcq *cq)
{
	struct orca_cqe c;

	engine_flush(n->t.eng);
	if (!poll_cq(n, cq, &c, 50))
		return true;
	printf("# unexpected CQE wr_id %llx op %#x st %u\n",
	       (unsigned long long)cqe_wr_id(&c), c.opcode, c.status);
	return false;
}

#define expect_cqe(n, cq, wr_id, op, st, out) \
	node_expect_cqe(n, cq, wr_id, op, st, out, WAIT_MS)

/* ---- the pair: A's initiator, B's target and SRQs in one domain ---- */

struct xpair {
	struct node a, b;
	struct tap ta, tb;
	struct tcq acq, bcq, bcq2;
	struct tqp ini, tgt;
	uint32_t xrcdn;
	struct tsrq s1, s2;		/* both in xrcdn; s2 tagged, on bcq2 */
	struct tbuf abuf, bbuf;
};

static bool pair_init_rnr(struct xpair *p, uint8_t rnr_retry)
{
	int64_t v;

	memset(p, 0, sizeof(*p));
	if (!node_init(&p->a, 1) || !node_init(&p->b, 2))
		return false;
	p->a.peer = &p->b;
	p->b.peer = &p->a;
	tap_init(&p->ta, &p->a);
	tap_init(&p->tb, &p->b);
	engine_set_roce_tx(p->a.t.eng, tap_tx, &p->ta);
	engine_set_roce_tx(p->b.t.eng, tap_tx, &p->tb);
	v = alloc_xrcd(&p->b.t);
	if (v <= 0)
		return false;
	p->xrcdn = v;
	return node_cq(&p->a, &p->acq, 10) && node_cq(&p->b, &p->bcq, 10) &&
	       node_cq(&p->b, &p->bcq2, 10) &&
	       node_buf(&p->a, &p->abuf, IOVA_A, BUF_LEN, ORCA_ACCESS_ALL) &&
	       node_buf(&p->b, &p->bbuf, IOVA_B, BUF_LEN, ORCA_ACCESS_ALL) &&
	       xsrq(&p->b, &p->s1, p->b.pdn, p->bcq.cqn, p->xrcdn,
		    ORCA_CREATE_SRQ_F_XRC) &&
	       xsrq(&p->b, &p->s2, p->b.pdn, p->bcq2.cqn, p->xrcdn,
		    ORCA_CREATE_SRQ_F_XRC | ORCA_CREATE_SRQ_F_TAG) &&
	       ini_qp(&p->a, &p->ini, p->acq.cqn) &&
	       tgt_qp(&p->b, &p->tgt, p->xrcdn) &&
	       ini_connect(&p->a, &p->ini, &p->b, p->tgt.qpn, rnr_retry) &&
	       tgt_connect(&p->b, &p->tgt, &p->a, p->ini.qpn, false);
}

static bool pair_init(struct xpair *p)
{
	return pair_init_rnr(p, 7);
}

static void pair_fini(struct xpair *p)
{
	engine_set_roce_tx(p->a.t.eng, NULL, NULL);
	engine_set_roce_tx(p->b.t.eng, NULL, NULL);
	node_fini(&p->b);
	node_fini(&p->a);
	tap_fini(&p->ta);
	tap_fini(&p->tb);
	free(p->abuf.pages);
	free(p->bbuf.pages);
}

/* A send WQE of the initiator naming XRC SRQ @srqn at the target. */
static struct orca_send_wqe_hdr xwqe(uint8_t op, uint64_t wr_id,
				     uint32_t srqn)
{
	struct orca_send_wqe_hdr h = wqe(op, wr_id);

	h.dest_qpn = htole32(srqn);
	return h;
}

/* The receive CQE of an XRC SRQ: on its CQ, the target's, the SRQ's. */
static bool xrc_recv_cqe_ok(const struct orca_cqe *c, const struct xpair *p,
			    const struct tsrq *q, uint32_t byte_len,
			    uint16_t wqe_idx)
{
	bool ok = le32toh(c->qpn) == p->tgt.qpn &&
		  le32toh(c->src_qpn) == q->srqn &&
		  (c->flags & ORCA_CQE_F_XRC) &&
		  !(c->flags & (ORCA_CQE_F_GRH | ORCA_CQE_F_INV)) &&
		  le32toh(c->byte_len) == byte_len &&
		  le16toh(c->wqe_idx) == wqe_idx;

	if (!ok)
		printf("# CQE qpn %u src_qpn %u flags %#x len %u idx %u, want %u %u XRC %u %u\n",
		       le32toh(c->qpn), le32toh(c->src_qpn), c->flags,
		       le32toh(c->byte_len), le16toh(c->wqe_idx), p->tgt.qpn,
		       q->srqn, byte_len, wqe_idx);
	return ok;
}

/* ---- case 1: XRC domains ---- */

static void test_xrcd(void)
{
	struct th t;
	struct th_objs o;
	uint64_t used0, used, limit;
	int64_t h[64], v;
	bool ok = true;

	CHECK(th_setup(&t, &o));
	engine_mem_usage(t.eng, &used0, &limit);
	/* max_xrcd of QUERY_DEVICE at a time, numbered from 1. */
	for (int i = 0; i < 64; i++) {
		h[i] = alloc_xrcd(&t);
		ok &= h[i] > 0 && h[i] <= 64;
		for (int k = 0; k < i; k++)
			ok &= h[k] != h[i];
	}
	CHECK(ok);
	CHECK(alloc_xrcd(&t) == -ORCA_CMD_ST_NO_RESOURCES);
	CHECK(th_destroy(&t, ORCA_CMD_DEALLOC_XRCD, h[10]) == 0);
	CHECK(th_destroy(&t, ORCA_CMD_DEALLOC_XRCD, h[10]) ==
	      ORCA_CMD_ST_BAD_HANDLE);
	CHECK(th_destroy(&t, ORCA_CMD_DEALLOC_XRCD, 0) ==
	      ORCA_CMD_ST_BAD_HANDLE);
	CHECK(th_destroy(&t, ORCA_CMD_DEALLOC_XRCD, 65) ==
	      ORCA_CMD_ST_BAD_HANDLE);
	v = alloc_xrcd(&t);
	CHECK(v == h[10]);
	h[10] = v;
	/* A domain's SRQ and target QP hold it; so does the SRQ its CQ. */
	{
		struct tsrq q;
		struct orca_cmd_create_srq in = xsrq_in(&t, &q, o.pdn, o.uar,
							o.cqn, h[0],
							ORCA_CREATE_SRQ_F_XRC);
		struct orca_cmd_create_qp tin = tgt_in(h[1]);
		int64_t srqn, qpn;

		srqn = th_handle_or_neg(&t, th_cmd(&t, ORCA_CMD_CREATE_SRQ,
						   &in, sizeof(in)));
		qpn = tgt_create(&t, &tin);
		CHECK(srqn > 0 && qpn > 1);
		CHECK(th_destroy(&t, ORCA_CMD_DEALLOC_XRCD, h[0]) ==
		      ORCA_CMD_ST_BUSY);
		CHECK(th_destroy(&t, ORCA_CMD_DEALLOC_XRCD, h[1]) ==
		      ORCA_CMD_ST_BUSY);
		CHECK(th_destroy(&t, ORCA_CMD_DESTROY_CQ, o.cqn) ==
		      ORCA_CMD_ST_BUSY);
		CHECK(th_destroy(&t, ORCA_CMD_DESTROY_PD, o.pdn) ==
		      ORCA_CMD_ST_BUSY);
		CHECK(th_destroy(&t, ORCA_CMD_DESTROY_SRQ, srqn) == 0);
		CHECK(th_destroy(&t, ORCA_CMD_DESTROY_QP, qpn) == 0);
	}
	for (int i = 0; i < 64; i++)
		CHECK(th_destroy(&t, ORCA_CMD_DEALLOC_XRCD, h[i]) == 0);
	/* Every object's budget came back. */
	engine_mem_usage(t.eng, &used, &limit);
	CHECK(used == used0);
	CHECK(th_destroy(&t, ORCA_CMD_DESTROY_CQ, o.cqn) == 0);
	CHECK(th_destroy(&t, ORCA_CMD_DESTROY_PD, o.pdn) == 0);
	th_fini(&t);
	ktap_case_end("xrcd_alloc_max_dealloc_busy_while_srq_or_target");
}

/* ---- case 2: XRC SRQs ---- */

static void test_srq_create(void)
{
	struct th t;
	struct th_objs o;
	struct orca_cmd_create_srq good, in;
	struct tsrq q;
	int64_t xrcdn, srqn, cq2;

	CHECK(th_setup(&t, &o));
	xrcdn = alloc_xrcd(&t);
	cq2 = th_create_cq(&t, 0, o.uar);
	CHECK(xrcdn > 0 && cq2 > 0);
	good = xsrq_in(&t, &q, o.pdn, o.uar, cq2, xrcdn,
		       ORCA_CREATE_SRQ_F_XRC);
	in = good;
	in.cqn = htole32(99);
	CHECK(th_cmd(&t, ORCA_CMD_CREATE_SRQ, &in, sizeof(in)) ==
	      ORCA_CMD_ST_BAD_HANDLE);
	in = good;
	in.cqn = 0;
	CHECK(th_cmd(&t, ORCA_CMD_CREATE_SRQ, &in, sizeof(in)) ==
	      ORCA_CMD_ST_BAD_HANDLE);
	in = good;
	in.xrcdn = htole32(xrcdn + 1);
	CHECK(th_cmd(&t, ORCA_CMD_CREATE_SRQ, &in, sizeof(in)) ==
	      ORCA_CMD_ST_BAD_HANDLE);
	in = good;
	in.xrcdn = 0;
	CHECK(th_cmd(&t, ORCA_CMD_CREATE_SRQ, &in, sizeof(in)) ==
	      ORCA_CMD_ST_BAD_HANDLE);
	in = good;
	in.rsvd1 = htole32(1);
	CHECK(th_cmd(&t, ORCA_CMD_CREATE_SRQ, &in, sizeof(in)) ==
	      ORCA_CMD_ST_BAD_PARAM);
	/* Without the flag: no CQ, no domain. */
	in = good;
	in.flags = 0;
	CHECK(th_cmd(&t, ORCA_CMD_CREATE_SRQ, &in, sizeof(in)) ==
	      ORCA_CMD_ST_BAD_PARAM);
	in.xrcdn = 0;
	CHECK(th_cmd(&t, ORCA_CMD_CREATE_SRQ, &in, sizeof(in)) ==
	      ORCA_CMD_ST_BAD_PARAM);
	in.cqn = 0;
	in.xrcdn = htole32(xrcdn);
	CHECK(th_cmd(&t, ORCA_CMD_CREATE_SRQ, &in, sizeof(in)) ==
	      ORCA_CMD_ST_BAD_PARAM);
	/* Nothing failed took a reference. */
	CHECK(th_destroy(&t, ORCA_CMD_DESTROY_CQ, cq2) == 0);
	cq2 = th_create_cq(&t, 0, o.uar);
	good.cqn = htole32(cq2);
	srqn = th_handle_or_neg(&t, th_cmd(&t, ORCA_CMD_CREATE_SRQ, &good,
					   sizeof(good)));
	CHECK(srqn > 0);
	/* A tagged XRC SRQ too. */
	in = good;
	in.flags |= ORCA_CREATE_SRQ_F_TAG;
	in.page_addr = htole64(galloc(&t, 4096, 0));
	in.db_rec_addr = htole64(galloc(&t, 64, 64));
	{
		int64_t tagged = th_handle_or_neg(&t, th_cmd(&t,
					ORCA_CMD_CREATE_SRQ, &in, sizeof(in)));

		CHECK(tagged > 0);
		CHECK(th_destroy(&t, ORCA_CMD_DESTROY_SRQ, tagged) == 0);
	}
	/* No QP names an XRC SRQ: XRC targets find it by the XRCETH. */
	CHECK(th_create_qp(&t, ORCA_QPT_RC, o.pdn, o.cqn, o.uar, srqn) ==
	      -ORCA_CMD_ST_BAD_PARAM);
	CHECK(th_create_qp(&t, ORCA_QPT_UD, o.pdn, o.cqn, o.uar, srqn) ==
	      -ORCA_CMD_ST_BAD_PARAM);
	/* MODIFY_SRQ and QUERY_SRQ as for any SRQ. */
	{
		struct orca_cmd_modify_srq mod = {
			.srqn = htole32(srqn), .limit = htole32(5),
		};

		CHECK(th_cmd(&t, ORCA_CMD_MODIFY_SRQ, &mod, sizeof(mod)) == 0);
	}
	CHECK(th_destroy(&t, ORCA_CMD_DESTROY_CQ, cq2) == ORCA_CMD_ST_BUSY);
	CHECK(th_destroy(&t, ORCA_CMD_DEALLOC_XRCD, xrcdn) ==
	      ORCA_CMD_ST_BUSY);
	CHECK(th_destroy(&t, ORCA_CMD_DESTROY_SRQ, srqn) == 0);
	CHECK(th_destroy(&t, ORCA_CMD_DESTROY_CQ, cq2) == 0);
	CHECK(th_destroy(&t, ORCA_CMD_DEALLOC_XRCD, xrcdn) == 0);
	th_fini(&t);
	ktap_case_end("xrc_srq_create_cq_domain_refs_not_on_a_qp");
}

/* ---- case 3: XRC QPs ---- */

static void test_qp_create(void)
{
	struct th t;
	struct th_objs o;
	struct ini_req good, r;
	struct orca_cmd_create_qp tgood, tin;
	struct tqp qp;
	int64_t xrcdn, ini, tgt;
	uint8_t *b;

	CHECK(th_setup(&t, &o));
	xrcdn = alloc_xrcd(&t);
	CHECK(xrcdn > 0);

	/* The target: its type and domain, every other field 0. */
	tgood = tgt_in(xrcdn);
	for (size_t off = 0; off < sizeof(tgood); off++) {
		if (off == offsetof(struct orca_cmd_create_qp, qp_type) ||
		    off == offsetof(struct orca_cmd_create_qp, page_shift) ||
		    (off >= offsetof(struct orca_cmd_create_qp, xrcdn) &&
		     off < offsetof(struct orca_cmd_create_qp, xrcdn) + 4))
			continue;
		tin = tgood;
		b = (uint8_t *)&tin;
		b[off] = 1;
		if (tgt_create(&t, &tin) != -ORCA_CMD_ST_BAD_PARAM) {
			printf("# target with byte %zu set accepted\n", off);
			CHECK(!"target field not checked");
		}
	}
	tin = tgood;
	tin.xrcdn = htole32(xrcdn + 1);
	CHECK(tgt_create(&t, &tin) == -ORCA_CMD_ST_BAD_HANDLE);
	tin.xrcdn = 0;
	CHECK(tgt_create(&t, &tin) == -ORCA_CMD_ST_BAD_HANDLE);
	/* page_shift means nothing without pages: ignored. */
	tin = tgood;
	tin.page_shift = 12;
	tgt = tgt_create(&t, &tin);
	CHECK(tgt > 1);
	CHECK(th_destroy(&t, ORCA_CMD_DESTROY_QP, tgt) == 0);
	tgt = tgt_create(&t, &tgood);
	CHECK(tgt > 1);

	/* The initiator: a send queue, nothing of a receive queue. */
	good = ini_in(&t, &qp, o.pdn, o.cqn, o.uar);
#define INI_BAD(field, val, want) do {					\
		r = good;						\
		r.in.field = val;					\
		CHECK(ini_exec(&t, &r) == (want));			\
	} while (0)
	INI_BAD(log_rq_depth, 6, ORCA_CMD_ST_BAD_PARAM);
	INI_BAD(rq_npages, htole32(1), ORCA_CMD_ST_BAD_PARAM);
	INI_BAD(max_recv_sge, 1, ORCA_CMD_ST_BAD_PARAM);
	INI_BAD(recv_cqn, htole32(o.cqn), ORCA_CMD_ST_BAD_PARAM);
	INI_BAD(srqn, htole32(1), ORCA_CMD_ST_BAD_PARAM);
	INI_BAD(flags, htole32(ORCA_QP_F_USE_SRQ), ORCA_CMD_ST_BAD_PARAM);
	INI_BAD(xrcdn, htole32(xrcdn), ORCA_CMD_ST_BAD_PARAM);
	INI_BAD(rsvd, htole32(1), ORCA_CMD_ST_BAD_PARAM);
	INI_BAD(send_cqn, htole32(77), ORCA_CMD_ST_BAD_HANDLE);
	INI_BAD(pdn, htole32(77), ORCA_CMD_ST_BAD_HANDLE);
	INI_BAD(uar, htole32(77), ORCA_CMD_ST_BAD_HANDLE);
	INI_BAD(db_rec_addr, htole64(UNMAPPED), ORCA_CMD_ST_DMA_ERROR);
	INI_BAD(sq_npages, htole32(3), ORCA_CMD_ST_BAD_PARAM);
#undef INI_BAD
	ini = th_handle_or_neg(&t, ini_exec(&t, &good));
	CHECK(ini > 1);
	{
		/* The RQ's event index as any QP's: no post rings for it. */
		struct orca_qp_db_rec *rec = gptr(&t, qp.rec);

		CHECK(rec->sq_event_idx == 0);
	}
	/* RC and the others: no domain, nothing in the reserved word. */
	{
		struct th_qp_req rc = th_qp_in(&t, ORCA_QPT_RC, o.pdn, o.cqn,
					       o.uar, 0);

		rc.in.xrcdn = htole32(xrcdn);
		CHECK(th_qp_exec(&t, &rc) == ORCA_CMD_ST_BAD_PARAM);
		rc.in.xrcdn = 0;
		rc.in.rsvd = htole32(1);
		CHECK(th_qp_exec(&t, &rc) == ORCA_CMD_ST_BAD_PARAM);
	}
	/* The target holds its domain, the initiator its PD and CQ. */
	CHECK(th_destroy(&t, ORCA_CMD_DEALLOC_XRCD, xrcdn) ==
	      ORCA_CMD_ST_BUSY);
	CHECK(th_destroy(&t, ORCA_CMD_DESTROY_PD, o.pdn) == ORCA_CMD_ST_BUSY);
	CHECK(th_destroy(&t, ORCA_CMD_DESTROY_QP, ini) == 0);
	CHECK(th_destroy(&t, ORCA_CMD_DESTROY_CQ, o.cqn) == 0);
	/* UAR 0 is the fixture's, and the target's uar is 0: no UAR ref. */
	CHECK(th_destroy(&t, ORCA_CMD_DEALLOC_UAR, o.uar) == 0);
	/* A doorbell naming the target (uar 0 again) is nothing to it. */
	CHECK(th_alloc_uar(&t) == (int64_t)o.uar);
	engine_uar_write(t.eng, o.uar, ORCA_UAR_SQ_DB, (uint32_t)tgt);
	engine_uar_write(t.eng, o.uar, ORCA_UAR_RQ_DB, (uint32_t)tgt);
	engine_flush(t.eng);
	CHECK(th_destroy(&t, ORCA_CMD_DEALLOC_XRCD, xrcdn) ==
	      ORCA_CMD_ST_BUSY);
	CHECK(th_destroy(&t, ORCA_CMD_DESTROY_QP, tgt) == 0);
	CHECK(th_destroy(&t, ORCA_CMD_DEALLOC_XRCD, xrcdn) == 0);
	th_fini(&t);
	ktap_case_end("xrc_qp_create_initiator_send_only_target_domain_only");
}

/* ---- case 4: the state machine, through a pair ---- */

static void test_state_machine(void)
{
	struct xpair p;
	struct orca_qp_attr a;

	/* pair_init() checks the refusals of ini_/tgt_connect(). */
	CHECK(pair_init(&p));
	CHECK(qp_state(&p.a, &p.ini) == ORCA_QPS_RTS);
	CHECK(qp_state(&p.b, &p.tgt) == ORCA_QPS_RTR);
	CHECK(query_qp(&p.b, p.tgt.qpn, &a) == 0);
	CHECK(le32toh(a.dest_qpn) == p.ini.qpn);
	CHECK(le32toh(a.rq_psn) == INI_PSN);
	CHECK(a.max_dest_rd_atomic == 8);
	/* A target goes to RTS, SQD and back like RC, and through ERR. */
	CHECK(tgt_connect(&p.b, &p.tgt, &p.a, p.ini.qpn, false) == false);
	memset(&a, 0, sizeof(a));
	a.sq_psn = htole32(5);
	a.timeout = 10;
	CHECK(modify(&p.b, &p.tgt, A(TIMEOUT) | A(SQ_PSN), ORCA_QPS_RTS,
		     &a) == 0);
	CHECK(modify_state(&p.b, &p.tgt, ORCA_QPS_SQD) == 0);
	CHECK(qp_state(&p.b, &p.tgt) == ORCA_QPS_SQD);
	CHECK(modify_state(&p.b, &p.tgt, ORCA_QPS_RTS) == 0);
	CHECK(modify_state(&p.b, &p.tgt, ORCA_QPS_ERR) == 0);
	CHECK(modify_state(&p.b, &p.tgt, ORCA_QPS_RESET) == 0);
	CHECK(tgt_connect(&p.b, &p.tgt, &p.a, p.ini.qpn, true));
	CHECK(qp_state(&p.b, &p.tgt) == ORCA_QPS_RTS);
	/* SQE is not an RC state. */
	CHECK(modify_state(&p.a, &p.ini, ORCA_QPS_SQE) ==
	      ORCA_CMD_ST_BAD_STATE);
	/* The initiator's SQD -> SQD takes what XRC_INI takes there. */
	CHECK(modify_state(&p.a, &p.ini, ORCA_QPS_SQD) == 0);
	memset(&a, 0, sizeof(a));
	a.retry_cnt = 3;
	CHECK(modify(&p.a, &p.ini, A(RETRY_CNT), ORCA_QPS_SQD, &a) == 0);
	a.max_dest_rd_atomic = 3;
	CHECK(modify(&p.a, &p.ini, A(MAX_DEST_RD_ATOMIC), ORCA_QPS_SQD,
		     &a) == ORCA_CMD_ST_BAD_PARAM);
	CHECK(modify_state(&p.a, &p.ini, ORCA_QPS_RTS) == 0);
	pair_fini(&p);
	ktap_case_end("xrc_initiator_and_target_state_machines");
}

/* ---- case 5: SENDs ---- */

static const uint32_t sizes[] = { 0, 1, 1023, 1024, 1025, 4096, 12345,
				  65536 + 7 };

static void test_send(void)
{
	struct xpair p;
	struct roce_stats sa, sb;
	bool ok = true;
	uint16_t idx = 0;

	if (!pair_init(&p)) {
		CHECK(!"setup");
		pair_fini(&p);
		ktap_case_end("xrc_send_sizes_imm_on_the_srq_cq");
		return;
	}
	for (int imm = 0; imm < 2 && ok; imm++) {
		for (size_t i = 0; i < ARRAY_SIZE_T(sizes) && ok; i++) {
			uint32_t len = sizes[i], seed = imm << 8 | (uint32_t)i;
			uint64_t id = 100 + imm * 16 + i;
			struct orca_send_wqe_hdr h =
				xwqe(imm ? ORCA_WQE_SEND_IMM : ORCA_WQE_SEND,
				     id, p.s1.srqn);
			struct tsge s = { IOVA_A + 3, len, p.abuf.key };
			struct tsge r = { IOVA_B + 9, len + 16, p.bbuf.key };
			struct orca_cqe c;

			buf_fill(&p.a, &p.abuf, 3, len, seed);
			buf_clear(&p.b, &p.bbuf, 9, len + 16);
			h.imm_or_inv = htole32(0x11223344u + (uint32_t)id);
			post_srq_recv(&p.b, &p.s1, 500 + id, &r);
			post_send(&p.a, &p.ini, &h, &s, 1);
			ok &= expect_cqe(&p.a, &p.acq, id, ORCA_CQE_SEND,
					 ORCA_CQE_ST_SUCCESS, &c);
			ok &= le32toh(c.qpn) == p.ini.qpn &&
			      le32toh(c.byte_len) == len &&
			      !(c.flags & ORCA_CQE_F_XRC);
			ok &= expect_cqe(&p.b, &p.bcq, 500 + id, ORCA_CQE_RECV,
					 ORCA_CQE_ST_SUCCESS, &c);
			ok &= xrc_recv_cqe_ok(&c, &p, &p.s1, len, idx++);
			ok &= !imm || ((c.flags & ORCA_CQE_F_IMM) &&
				       c.imm_or_inv == h.imm_or_inv);
			ok &= imm || !(c.flags & ORCA_CQE_F_IMM);
			ok &= buf_check(&p.b, &p.bbuf, 9, len, seed);
			/* Nothing past the message. */
			for (uint32_t k = 0; k < 16; k++)
				ok &= *node_va(&p.b, &p.bbuf, 9 + len + k) == 0;
			if (!ok)
				printf("# imm %d len %u failed\n", imm, len);
		}
	}
	CHECK(ok);
	CHECK(no_cqe(&p.b, &p.bcq2));
	sa = stats(&p.a);
	sb = stats(&p.b);
	/* XRC both ways, nothing lost, nothing NAKed. */
	CHECK(atomic_load(&p.ta.not_xrc) == 0);
	CHECK(atomic_load(&p.tb.not_xrc) == 0);
	CHECK(atomic_load(&p.tb.frames) > 0);
	CHECK(sa.retransmits == 0 && sa.timeouts == 0 && sa.drop_ghost == 0);
	CHECK(sb.err_naks_tx == 0 && sb.seq_naks_tx == 0 &&
	      sb.rnr_naks_tx == 0 && sb.drop_bad_pkt == 0);
	CHECK(qp_state(&p.b, &p.tgt) == ORCA_QPS_RTR);
	pair_fini(&p);
	ktap_case_end("xrc_send_sizes_imm_on_the_srq_cq");
}

/* ---- case 6: WRITE, WRITE with immediate, READ, atomics ---- */

static void test_rdma(void)
{
	struct xpair p;
	struct orca_cqe c;
	bool ok = true;
	uint16_t idx = 0;

	if (!pair_init(&p)) {
		CHECK(!"setup");
		pair_fini(&p);
		ktap_case_end("xrc_write_imm_read_atomics");
		return;
	}
	for (int imm = 0; imm < 2 && ok; imm++) {
		for (size_t i = 0; i < ARRAY_SIZE_T(sizes) && ok; i++) {
			uint32_t len = sizes[i];
			uint32_t seed = 0x1000 | imm << 8 | (uint32_t)i;
			uint64_t id = 200 + imm * 16 + i;
			struct orca_send_wqe_hdr h =
				xwqe(imm ? ORCA_WQE_RDMA_WRITE_IMM :
				     ORCA_WQE_RDMA_WRITE, id, p.s1.srqn);
			struct tsge s = { IOVA_A + 5, len, p.abuf.key };
			struct tsge r = { IOVA_B, 0, p.bbuf.key };

			buf_fill(&p.a, &p.abuf, 5, len, seed);
			buf_clear(&p.b, &p.bbuf, 100, len + 8);
			h.remote_addr = htole64(IOVA_B + 100);
			h.rkey = htole32(p.bbuf.key);
			h.imm_or_inv = htole32(0xabcd0000u + (uint32_t)id);
			if (imm)
				post_srq_recv(&p.b, &p.s1, 600 + id, &r);
			post_send(&p.a, &p.ini, &h, &s, 1);
			ok &= expect_cqe(&p.a, &p.acq, id, ORCA_CQE_RDMA_WRITE,
					 ORCA_CQE_ST_SUCCESS, &c);
			ok &= le32toh(c.byte_len) == len;
			if (imm) {
				ok &= expect_cqe(&p.b, &p.bcq, 600 + id,
						 ORCA_CQE_RECV_RDMA_WITH_IMM,
						 ORCA_CQE_ST_SUCCESS, &c);
				ok &= xrc_recv_cqe_ok(&c, &p, &p.s1, len,
						      idx++);
				ok &= (c.flags & ORCA_CQE_F_IMM) &&
				      c.imm_or_inv == h.imm_or_inv;
			} else {
				engine_flush(p.b.t.eng);
			}
			ok &= buf_check(&p.b, &p.bbuf, 100, len, seed);
			for (uint32_t k = 0; k < 8; k++)
				ok &= *node_va(&p.b, &p.bbuf, 100 + len + k) ==
				      0;
			if (!ok)
				printf("# write imm %d len %u failed\n", imm,
				       len);
		}
	}
	for (size_t i = 0; i < ARRAY_SIZE_T(sizes) && ok; i++) {
		uint32_t len = sizes[i], seed = 0x2000 | (uint32_t)i;
		uint64_t id = 300 + i;
		struct orca_send_wqe_hdr h = xwqe(ORCA_WQE_RDMA_READ, id,
						  p.s1.srqn);
		struct tsge s = { IOVA_A + 7, len, p.abuf.key };

		buf_fill(&p.b, &p.bbuf, 11, len, seed);
		buf_clear(&p.a, &p.abuf, 7, len + 8);
		h.remote_addr = htole64(IOVA_B + 11);
		h.rkey = htole32(p.bbuf.key);
		post_send(&p.a, &p.ini, &h, &s, 1);
		ok &= expect_cqe(&p.a, &p.acq, id, ORCA_CQE_RDMA_READ,
				 ORCA_CQE_ST_SUCCESS, &c);
		ok &= le32toh(c.byte_len) == len;
		ok &= buf_check(&p.a, &p.abuf, 7, len, seed);
		for (uint32_t k = 0; k < 8; k++)
			ok &= *node_va(&p.a, &p.abuf, 7 + len + k) == 0;
		if (!ok)
			printf("# read len %u failed\n", len);
	}
	CHECK(ok);
	{
		/* CmpSwap (a miss, then a hit) and FetchAdd, 8 bytes each. */
		uint64_t *target = (uint64_t *)node_va(&p.b, &p.bbuf, 4096);
		uint64_t *res = (uint64_t *)node_va(&p.a, &p.abuf, 4096);
		struct tsge s = { IOVA_A + 4096, 8, p.abuf.key };
		struct orca_send_wqe_hdr h;

		*target = htole64(0x1111222233334444ull);
		h = xwqe(ORCA_WQE_ATOMIC_CS, 400, p.s1.srqn);
		h.remote_addr = htole64(IOVA_B + 4096);
		h.rkey = htole32(p.bbuf.key);
		h.compare_add = htole64(5);
		h.swap = htole64(6);
		post_send(&p.a, &p.ini, &h, &s, 1);
		CHECK(expect_cqe(&p.a, &p.acq, 400, ORCA_CQE_COMP_SWAP,
				 ORCA_CQE_ST_SUCCESS, &c));
		CHECK(le64toh(*res) == 0x1111222233334444ull);
		CHECK(le64toh(*target) == 0x1111222233334444ull);
		h = xwqe(ORCA_WQE_ATOMIC_CS, 401, p.s1.srqn);
		h.remote_addr = htole64(IOVA_B + 4096);
		h.rkey = htole32(p.bbuf.key);
		h.compare_add = htole64(0x1111222233334444ull);
		h.swap = htole64(0x5555666677778888ull);
		post_send(&p.a, &p.ini, &h, &s, 1);
		CHECK(expect_cqe(&p.a, &p.acq, 401, ORCA_CQE_COMP_SWAP,
				 ORCA_CQE_ST_SUCCESS, &c));
		CHECK(le64toh(*res) == 0x1111222233334444ull);
		CHECK(le64toh(*target) == 0x5555666677778888ull);
		h = xwqe(ORCA_WQE_ATOMIC_FA, 402, p.s1.srqn);
		h.remote_addr = htole64(IOVA_B + 4096);
		h.rkey = htole32(p.bbuf.key);
		h.compare_add = htole64(0x10);
		post_send(&p.a, &p.ini, &h, &s, 1);
		CHECK(expect_cqe(&p.a, &p.acq, 402, ORCA_CQE_FETCH_ADD,
				 ORCA_CQE_ST_SUCCESS, &c));
		CHECK(le32toh(c.byte_len) == 8);
		CHECK(le64toh(*res) == 0x5555666677778888ull);
		CHECK(le64toh(*target) == 0x5555666677778898ull);
	}
	/* FLUSH and ATOMIC WRITE have no XRC opcodes: refused locally. */
	{
		struct orca_send_wqe_hdr h = xwqe(ORCA_WQE_ATOMIC_WRITE, 410,
						  p.s1.srqn);
		unsigned int frames = atomic_load(&p.ta.frames);

		h.remote_addr = htole64(IOVA_B + 4096);
		h.rkey = htole32(p.bbuf.key);
		post_send(&p.a, &p.ini, &h, NULL, 0);
		CHECK(expect_cqe(&p.a, &p.acq, 410, ORCA_CQE_ATOMIC_WRITE,
				 ORCA_CQE_ST_LOC_QP_OP_ERR, &c));
		CHECK(atomic_load(&p.ta.frames) == frames);
		CHECK(qp_state(&p.a, &p.ini) == ORCA_QPS_ERR);
	}
	CHECK(no_cqe(&p.b, &p.bcq));
	CHECK(atomic_load(&p.ta.not_xrc) == 0);
	CHECK(atomic_load(&p.tb.not_xrc) == 0);
	pair_fini(&p);
	ktap_case_end("xrc_write_imm_read_atomics");
}

/* ---- case 7: two SRQs of one domain behind one target ---- */

static void test_two_srqs(void)
{
	struct xpair p;
	struct orca_cqe c;
	bool ok = true;
	uint16_t idx1 = 0;

	if (!pair_init(&p)) {
		CHECK(!"setup");
		pair_fini(&p);
		ktap_case_end("xrc_two_srqs_one_target_each_its_cq");
		return;
	}
	/* Receives posted to both first, then SENDs alternate. */
	for (int i = 0; i < 8; i++) {
		struct tsge r1 = { IOVA_B + 8192 * i, 4096, p.bbuf.key };
		struct tsge r2 = { IOVA_B + 8192 * i + 4096, 4096,
				   p.bbuf.key };

		post_srq_recv(&p.b, &p.s1, 700 + i, &r1);
		post_srq_recv_tag(&p.b, &p.s2, 800 + i, &r2,
				  (uint16_t)(0xbe00 + i));
	}
	for (int i = 0; i < 16; i++) {
		bool two = i & 1;
		uint32_t len = 100 + 250 * i, seed = 0x3000 + i;
		struct orca_send_wqe_hdr h =
			xwqe(ORCA_WQE_SEND, 1000 + i,
			     two ? p.s2.srqn : p.s1.srqn);
		struct tsge s = { IOVA_A + 64 * i, len, p.abuf.key };

		buf_fill(&p.a, &p.abuf, 64 * i, len, seed);
		post_send(&p.a, &p.ini, &h, &s, 1);
		ok &= expect_cqe(&p.a, &p.acq, 1000 + i, ORCA_CQE_SEND,
				 ORCA_CQE_ST_SUCCESS, NULL);
		if (two) {
			ok &= expect_cqe(&p.b, &p.bcq2, 800 + i / 2,
					 ORCA_CQE_RECV, ORCA_CQE_ST_SUCCESS,
					 &c);
			/* The tagged SRQ reports the WQE's tag. */
			ok &= xrc_recv_cqe_ok(&c, &p, &p.s2, len,
					      (uint16_t)(0xbe00 + i / 2));
			ok &= buf_check(&p.b, &p.bbuf, 8192 * (i / 2) + 4096,
					len, seed);
		} else {
			ok &= expect_cqe(&p.b, &p.bcq, 700 + i / 2,
					 ORCA_CQE_RECV, ORCA_CQE_ST_SUCCESS,
					 &c);
			ok &= xrc_recv_cqe_ok(&c, &p, &p.s1, len, idx1++);
			ok &= buf_check(&p.b, &p.bbuf, 8192 * (i / 2), len,
					seed);
		}
		if (!ok) {
			printf("# send %d failed\n", i);
			break;
		}
	}
	CHECK(ok);
	CHECK(no_cqe(&p.b, &p.bcq));
	CHECK(no_cqe(&p.b, &p.bcq2));
	pair_fini(&p);
	ktap_case_end("xrc_two_srqs_one_target_each_its_cq");
}

/* ---- case 8: SRQs the target does not take ---- */

/*
 * A SEND naming @srqn: NAKed Invalid Request, the initiator's WQE
 * completes REM_INV_REQ_ERR, both QPs in ERR, nothing received.
 */
static bool refused_srq(struct xpair *p, uint32_t srqn)
{
	struct orca_send_wqe_hdr h = xwqe(ORCA_WQE_SEND, 1100, srqn);
	struct orca_send_wqe_hdr h2 = xwqe(ORCA_WQE_SEND, 1101, p->s1.srqn);
	struct tsge s = { IOVA_A, 64, p->abuf.key };
	struct tsge r = { IOVA_B, 64, p->bbuf.key };
	struct roce_stats sb;
	bool ok = true;

	post_srq_recv(&p->b, &p->s1, 1200, &r);
	post_send(&p->a, &p->ini, &h, &s, 1);
	post_send(&p->a, &p->ini, &h2, &s, 1);
	ok &= expect_cqe(&p->a, &p->acq, 1100, ORCA_CQE_SEND,
			 ORCA_CQE_ST_REM_INV_REQ_ERR, NULL);
	ok &= expect_cqe(&p->a, &p->acq, 1101, ORCA_CQE_SEND,
			 ORCA_CQE_ST_WR_FLUSH_ERR, NULL);
	sb = stats(&p->b);
	ok &= sb.err_naks_tx == 1;
	ok &= qp_state(&p->a, &p->ini) == ORCA_QPS_ERR;
	ok &= qp_state(&p->b, &p->tgt) == ORCA_QPS_ERR;
	/* The SRQ's WQE is not flushed: still there for other targets. */
	ok &= no_cqe(&p->b, &p->bcq) && no_cqe(&p->b, &p->bcq2);
	ok &= p->b.t.eng->srqs.count >= 2 &&
	      ((struct emu_srq *)objtab_get(&p->b.t.eng->srqs,
					    p->s1.srqn))->ci == 0;
	return ok;
}

static void test_bad_srq(void)
{
	for (int which = 0; which < 3; which++) {
		static const char *const what[] = {
			"missing", "other domain", "not XRC",
		};
		struct xpair p;
		struct tsrq q;
		uint32_t srqn = 4242;

		if (!pair_init(&p)) {
			CHECK(!"setup");
			pair_fini(&p);
			break;
		}
		if (which == 1) {
			int64_t other = alloc_xrcd(&p.b.t);

			CHECK(other > 0 && xsrq(&p.b, &q, p.b.pdn, p.bcq.cqn,
						other,
						ORCA_CREATE_SRQ_F_XRC));
			srqn = q.srqn;
		} else if (which == 2) {
			CHECK(node_srq(&p.b, &q, 0));
			srqn = q.srqn;
		}
		if (!refused_srq(&p, srqn)) {
			printf("# %s SRQ not refused\n", what[which]);
			CHECK(!"refused");
		}
		pair_fini(&p);
	}
	ktap_case_end("xrc_missing_foreign_or_plain_srq_nak_invalid_request");
}

/* ---- crafted frames, as a peer on the wire would send them ---- */

/* A frame from A's GID to B's QP @dqpn, injected into B. */
static size_t craft(struct node *from, struct node *to, uint8_t opcode,
		    uint32_t dqpn, uint32_t psn, uint32_t srqn,
		    uint32_t paylen, uint8_t *frame)
{
	static uint8_t payload[4096];
	struct roce_pkt k = { 0 };
	size_t len;

	memset(payload, 0x5c, sizeof(payload));
	memcpy(k.smac, from->mac, 6);
	memcpy(k.dmac, to->mac, 6);
	k.vlan = ROCE_NO_VLAN;
	node_gid(from, k.sgid);
	node_gid(to, k.dgid);
	k.hop_limit = 64;
	k.pkey = ROCE_DEFAULT_PKEY;
	k.udp_sport = roce_udp_sport(1);
	k.opcode = opcode;
	k.dest_qpn = dqpn;
	k.psn = psn & ROCE_PSN_MASK;
	k.xrc_srqn = srqn;
	k.ack_req = true;
	k.payload = payload;
	k.paylen = paylen;
	len = roce_build(frame, ROCE_MAX_FRAME, &k);
	CHECK(len > 0);
	return len;
}

static void inject(struct node *to, const uint8_t *frame, size_t len)
{
	engine_roce_rx(to->t.eng, frame, len);
	engine_flush(to->t.eng);
}

/* The target's next expected PSN (QUERY_QP's rq_psn). */
static uint32_t tgt_epsn(struct xpair *p)
{
	struct orca_qp_attr a;

	CHECK(query_qp(&p->b, p->tgt.qpn, &a) == 0);
	return le32toh(a.rq_psn);
}

/*
 * The last frame B sent (captured): an XRC NAK Invalid Request for
 * @psn, or not.
 */
static bool last_is_nak_invalid(struct xpair *p, uint32_t psn)
{
	struct roce_pkt k;
	bool ok;

	engine_flush(p->b.t.eng);
	pthread_mutex_lock(&p->tb.lock);
	ok = p->tb.ncap &&
	     roce_parse(p->tb.cap[p->tb.ncap - 1].data,
			p->tb.cap[p->tb.ncap - 1].len, &k) == ROCE_RX_OK;
	pthread_mutex_unlock(&p->tb.lock);
	if (!ok)
		return false;
	if (k.opcode != ROCE_XRC_ACK || k.psn != (psn & ROCE_PSN_MASK) ||
	    k.aeth_syndrome != (ROCE_AETH_NAK | ROCE_NAK_INVALID_REQ) ||
	    k.dest_qpn != p->ini.qpn) {
		printf("# B sent op %#x psn %x syndrome %#x to %u\n", k.opcode,
		       k.psn, k.aeth_syndrome, k.dest_qpn);
		return false;
	}
	return true;
}

/*
 * case 9: a SEND's FIRST names s1, its MIDDLE s2: NAK, ERR, and the WQE
 * the message had taken of s1 completes in error on s1's CQ.  Then the
 * same with s1 destroyed between FIRST and MIDDLE: the WQE goes with it.
 */
static void test_middle_other_srq(void)
{
	static uint8_t frame[ROCE_MAX_FRAME];
	for (int destroy = 0; destroy < 2; destroy++) {
		struct xpair p;
		struct tsge r = { IOVA_B, 8192, 0 };
		struct orca_cqe c;
		uint32_t psn;
		size_t len;

		if (!pair_init(&p)) {
			CHECK(!"setup");
			pair_fini(&p);
			break;
		}
		atomic_store(&p.tb.forward, false);
		p.tb.capture = true;
		r.key = p.bbuf.key;
		post_srq_recv(&p.b, &p.s1, 1300, &r);
		post_srq_recv(&p.b, &p.s1, 1301, &r);
		post_srq_recv_tag(&p.b, &p.s2, 1302, &r, 7);
		psn = tgt_epsn(&p);
		len = craft(&p.a, &p.b, ROCE_XRC_SEND_FIRST, p.tgt.qpn, psn,
			    p.s1.srqn, 1024, frame);
		inject(&p.b, frame, len);
		CHECK(qp_state(&p.b, &p.tgt) == ORCA_QPS_RTR);
		if (destroy)
			CHECK(th_destroy(&p.b.t, ORCA_CMD_DESTROY_SRQ,
					 p.s1.srqn) == 0);
		len = craft(&p.a, &p.b, ROCE_XRC_SEND_MIDDLE, p.tgt.qpn,
			    psn + 1, destroy ? p.s1.srqn : p.s2.srqn, 1024,
			    frame);
		inject(&p.b, frame, len);
		CHECK(last_is_nak_invalid(&p, psn + 1));
		CHECK(qp_state(&p.b, &p.tgt) == ORCA_QPS_ERR);
		if (!destroy) {
			CHECK(expect_cqe(&p.b, &p.bcq, 1300, ORCA_CQE_RECV,
					 ORCA_CQE_ST_REM_INV_REQ_ERR, &c));
			CHECK(le32toh(c.src_qpn) == p.s1.srqn &&
			      (c.flags & ORCA_CQE_F_XRC) &&
			      le32toh(c.qpn) == p.tgt.qpn);
		}
		/* s1's other WQE and s2's stay: SRQs are not flushed. */
		CHECK(no_cqe(&p.b, &p.bcq));
		CHECK(no_cqe(&p.b, &p.bcq2));
		CHECK(stats(&p.b).err_naks_tx == 1);
		pair_fini(&p);
	}
	ktap_case_end("xrc_middle_naming_other_srq_or_destroyed_srq_nak");
}

/*
 * case 10: a target moved to ERR in the middle of a message completes
 * the WQE it took with WR_FLUSH_ERR on the SRQ's CQ, and only that one.
 */
static void test_tgt_err_flush(void)
{
	static uint8_t frame[ROCE_MAX_FRAME];
	struct xpair p;
	struct tsge r = { IOVA_B, 8192, 0 };
	struct orca_cqe c;
	size_t len;

	if (!pair_init(&p)) {
		CHECK(!"setup");
		pair_fini(&p);
		ktap_case_end("xrc_target_err_flushes_its_begun_wqe_only");
		return;
	}
	atomic_store(&p.tb.forward, false);
	r.key = p.bbuf.key;
	post_srq_recv(&p.b, &p.s1, 1400, &r);
	post_srq_recv(&p.b, &p.s1, 1401, &r);
	len = craft(&p.a, &p.b, ROCE_XRC_SEND_FIRST, p.tgt.qpn, tgt_epsn(&p),
		    p.s1.srqn, 1024, frame);
	inject(&p.b, frame, len);
	CHECK(no_cqe(&p.b, &p.bcq));
	CHECK(modify_state(&p.b, &p.tgt, ORCA_QPS_ERR) == 0);
	CHECK(expect_cqe(&p.b, &p.bcq, 1400, ORCA_CQE_RECV,
			 ORCA_CQE_ST_WR_FLUSH_ERR, &c));
	CHECK(le32toh(c.src_qpn) == p.s1.srqn && (c.flags & ORCA_CQE_F_XRC));
	CHECK(no_cqe(&p.b, &p.bcq));
	/* The other WQE serves the next target of the domain. */
	CHECK(modify_state(&p.b, &p.tgt, ORCA_QPS_RESET) == 0);
	CHECK(modify_state(&p.a, &p.ini, ORCA_QPS_RESET) == 0);
	atomic_store(&p.tb.forward, true);
	CHECK(ini_connect(&p.a, &p.ini, &p.b, p.tgt.qpn, 7));
	CHECK(tgt_connect(&p.b, &p.tgt, &p.a, p.ini.qpn, false));
	{
		struct orca_send_wqe_hdr h = xwqe(ORCA_WQE_SEND, 1402,
						  p.s1.srqn);
		struct tsge s = { IOVA_A, 3000, p.abuf.key };

		buf_fill(&p.a, &p.abuf, 0, 3000, 0x4000);
		post_send(&p.a, &p.ini, &h, &s, 1);
		CHECK(expect_cqe(&p.a, &p.acq, 1402, ORCA_CQE_SEND,
				 ORCA_CQE_ST_SUCCESS, NULL));
		CHECK(expect_cqe(&p.b, &p.bcq, 1401, ORCA_CQE_RECV,
				 ORCA_CQE_ST_SUCCESS, &c));
		CHECK(xrc_recv_cqe_ok(&c, &p, &p.s1, 3000, 1));
		CHECK(buf_check(&p.b, &p.bbuf, 0, 3000, 0x4000));
	}
	pair_fini(&p);
	ktap_case_end("xrc_target_err_flushes_its_begun_wqe_only");
}

/* ---- case 11: RNR ---- */

static void test_rnr(void)
{
	struct xpair p;
	struct orca_send_wqe_hdr h;
	struct tsge s, r;
	struct orca_cqe c;

	if (!pair_init(&p)) {
		CHECK(!"setup");
		pair_fini(&p);
		ktap_case_end("xrc_empty_srq_rnr_nak_then_received");
		return;
	}
	/* s2 has receives, s1 none: s1's SEND waits, not s2's SRQ. */
	r = (struct tsge){ IOVA_B, 8192, p.bbuf.key };
	post_srq_recv_tag(&p.b, &p.s2, 1500, &r, 1);
	h = xwqe(ORCA_WQE_SEND, 1501, p.s1.srqn);
	s = (struct tsge){ IOVA_A, 5000, p.abuf.key };
	buf_fill(&p.a, &p.abuf, 0, 5000, 0x5000);
	post_send(&p.a, &p.ini, &h, &s, 1);
	/* A loaded host may take its time: up to 5 s for the first NAK. */
	for (int ms = 0; ms < 5000 && !stats(&p.a).rnr_naks_rx; ms++)
		th_sleep_ms(1);
	CHECK(stats(&p.b).rnr_naks_tx > 0);
	CHECK(stats(&p.a).rnr_naks_rx > 0);
	CHECK(no_cqe(&p.a, &p.acq));
	CHECK(no_cqe(&p.b, &p.bcq2));
	post_srq_recv(&p.b, &p.s1, 1502, &r);
	CHECK(expect_cqe(&p.a, &p.acq, 1501, ORCA_CQE_SEND,
			 ORCA_CQE_ST_SUCCESS, NULL));
	CHECK(expect_cqe(&p.b, &p.bcq, 1502, ORCA_CQE_RECV,
			 ORCA_CQE_ST_SUCCESS, &c));
	CHECK(xrc_recv_cqe_ok(&c, &p, &p.s1, 5000, 0));
	CHECK(buf_check(&p.b, &p.bbuf, 0, 5000, 0x5000));
	CHECK(no_cqe(&p.b, &p.bcq2));
	pair_fini(&p);

	/* rnr_retry 0: the first RNR NAK fails the WQE. */
	if (!pair_init_rnr(&p, 0)) {
		CHECK(!"setup");
		pair_fini(&p);
		ktap_case_end("xrc_empty_srq_rnr_nak_then_received");
		return;
	}
	h = xwqe(ORCA_WQE_SEND, 1503, p.s1.srqn);
	s = (struct tsge){ IOVA_A, 64, p.abuf.key };
	post_send(&p.a, &p.ini, &h, &s, 1);
	CHECK(expect_cqe(&p.a, &p.acq, 1503, ORCA_CQE_SEND,
			 ORCA_CQE_ST_RNR_RETRY_EXC_ERR, NULL));
	pair_fini(&p);
	ktap_case_end("xrc_empty_srq_rnr_nak_then_received");
}

/* ---- case 12: memory is checked in the SRQ's PD ---- */

static void test_srq_pd(void)
{
	struct xpair p;
	struct tsrq s3;
	struct tbuf cbuf;
	uint32_t pd_b;
	int64_t pd2;
	struct orca_cqe c;
	struct orca_send_wqe_hdr h;
	struct tsge s, r;

	memset(&cbuf, 0, sizeof(cbuf));
	if (!pair_init(&p)) {
		CHECK(!"setup");
		pair_fini(&p);
		ktap_case_end("xrc_rkeys_and_lkeys_checked_in_the_srq_pd");
		return;
	}
	/* B's second PD: SRQ s3 (same domain) and buffer C live there. */
	pd2 = th_create_pd(&p.b.t);
	CHECK(pd2 > 0);
	pd_b = p.b.pdn;
	p.b.pdn = pd2;
	CHECK(node_buf(&p.b, &cbuf, IOVA_C, 65536, ORCA_ACCESS_ALL));
	p.b.pdn = pd_b;
	CHECK(xsrq(&p.b, &s3, pd2, p.bcq.cqn, p.xrcdn,
		   ORCA_CREATE_SRQ_F_XRC));

	/* C's rkey through s3 (its PD): written and read. */
	buf_fill(&p.a, &p.abuf, 0, 3000, 0x6000);
	h = xwqe(ORCA_WQE_RDMA_WRITE, 1600, s3.srqn);
	h.remote_addr = htole64(IOVA_C + 8);
	h.rkey = htole32(cbuf.key);
	s = (struct tsge){ IOVA_A, 3000, p.abuf.key };
	post_send(&p.a, &p.ini, &h, &s, 1);
	CHECK(expect_cqe(&p.a, &p.acq, 1600, ORCA_CQE_RDMA_WRITE,
			 ORCA_CQE_ST_SUCCESS, NULL));
	CHECK(buf_check(&p.b, &cbuf, 8, 3000, 0x6000));
	h = xwqe(ORCA_WQE_RDMA_READ, 1601, s3.srqn);
	h.remote_addr = htole64(IOVA_C + 8);
	h.rkey = htole32(cbuf.key);
	s = (struct tsge){ IOVA_A + 8192, 3000, p.abuf.key };
	post_send(&p.a, &p.ini, &h, &s, 1);
	CHECK(expect_cqe(&p.a, &p.acq, 1601, ORCA_CQE_RDMA_READ,
			 ORCA_CQE_ST_SUCCESS, NULL));
	CHECK(buf_check(&p.a, &p.abuf, 8192, 3000, 0x6000));
	/* A receive into C through s3: its lkey is of s3's PD. */
	r = (struct tsge){ IOVA_C + 16384, 4096, cbuf.key };
	post_srq_recv(&p.b, &s3, 1602, &r);
	h = xwqe(ORCA_WQE_SEND, 1603, s3.srqn);
	s = (struct tsge){ IOVA_A, 2000, p.abuf.key };
	post_send(&p.a, &p.ini, &h, &s, 1);
	CHECK(expect_cqe(&p.a, &p.acq, 1603, ORCA_CQE_SEND,
			 ORCA_CQE_ST_SUCCESS, NULL));
	CHECK(expect_cqe(&p.b, &p.bcq, 1602, ORCA_CQE_RECV,
			 ORCA_CQE_ST_SUCCESS, &c));
	CHECK(le32toh(c.src_qpn) == s3.srqn);
	CHECK(buf_check(&p.b, &cbuf, 16384, 2000, 0x6000));

	/* The same rkey through s1 (the other PD): remote access error. */
	h = xwqe(ORCA_WQE_RDMA_READ, 1604, p.s1.srqn);
	h.remote_addr = htole64(IOVA_C + 8);
	h.rkey = htole32(cbuf.key);
	s = (struct tsge){ IOVA_A, 64, p.abuf.key };
	post_send(&p.a, &p.ini, &h, &s, 1);
	CHECK(expect_cqe(&p.a, &p.acq, 1604, ORCA_CQE_RDMA_READ,
			 ORCA_CQE_ST_REM_ACCESS_ERR, NULL));
	CHECK(qp_state(&p.b, &p.tgt) == ORCA_QPS_ERR);
	pair_fini(&p);
	free(cbuf.pages);

	/* And WRITE and atomics, and a receive lkey of another PD. */
	for (int what = 0; what < 3; what++) {
		memset(&cbuf, 0, sizeof(cbuf));
		if (!pair_init(&p)) {
			CHECK(!"setup");
			pair_fini(&p);
			break;
		}
		pd2 = th_create_pd(&p.b.t);
		pd_b = p.b.pdn;
		p.b.pdn = pd2;
		CHECK(node_buf(&p.b, &cbuf, IOVA_C, 65536, ORCA_ACCESS_ALL));
		p.b.pdn = pd_b;
		buf_clear(&p.b, &cbuf, 0, 64);
		if (what == 0) {
			h = xwqe(ORCA_WQE_RDMA_WRITE, 1610, p.s1.srqn);
			s = (struct tsge){ IOVA_A, 64, p.abuf.key };
		} else if (what == 1) {
			h = xwqe(ORCA_WQE_ATOMIC_FA, 1610, p.s1.srqn);
			h.compare_add = htole64(1);
			s = (struct tsge){ IOVA_A, 8, p.abuf.key };
		} else {
			/* s1 is in B's first PD, the receive's lkey not. */
			r = (struct tsge){ IOVA_C, 4096, cbuf.key };
			post_srq_recv(&p.b, &p.s1, 1611, &r);
			h = xwqe(ORCA_WQE_SEND, 1610, p.s1.srqn);
			s = (struct tsge){ IOVA_A, 64, p.abuf.key };
		}
		h.remote_addr = htole64(IOVA_C);
		h.rkey = htole32(cbuf.key);
		buf_fill(&p.a, &p.abuf, 0, 64, 0x6100);
		post_send(&p.a, &p.ini, &h, &s, 1);
		CHECK(expect_cqe(&p.a, &p.acq, 1610,
				 what == 0 ? ORCA_CQE_RDMA_WRITE :
				 what == 1 ? ORCA_CQE_FETCH_ADD :
				 ORCA_CQE_SEND,
				 what < 2 ? ORCA_CQE_ST_REM_ACCESS_ERR :
				 ORCA_CQE_ST_REM_OP_ERR, NULL));
		if (what == 2) {
			CHECK(expect_cqe(&p.b, &p.bcq, 1611, ORCA_CQE_RECV,
					 ORCA_CQE_ST_LOC_PROT_ERR, &c));
			CHECK(le32toh(c.src_qpn) == p.s1.srqn &&
			      (c.flags & ORCA_CQE_F_XRC));
		}
		/* Not a byte written. */
		for (int k = 0; k < 64; k++)
			CHECK(*node_va(&p.b, &cbuf, k) == 0);
		CHECK(qp_state(&p.b, &p.tgt) == ORCA_QPS_ERR);
		pair_fini(&p);
		free(cbuf.pages);
	}
	ktap_case_end("xrc_rkeys_and_lkeys_checked_in_the_srq_pd");
}

/* ---- case 13: hostile frames ---- */

static void test_hostile(void)
{
	static uint8_t frame[ROCE_MAX_FRAME];
	struct xpair p;
	struct tqp rc;
	struct roce_stats before, after;
	struct orca_cqe c;
	struct tsge r;
	uint64_t trunc;
	uint32_t psn;
	size_t len;

	if (!pair_init(&p)) {
		CHECK(!"setup");
		pair_fini(&p);
		ktap_case_end("xrc_wrong_transport_and_truncated_xrceth_dropped");
		return;
	}
	atomic_store(&p.tb.forward, false);
	{
		struct rc_opts o = { .path_mtu = 3, .timeout = 14,
				     .access = ORCA_QP_ACCESS_ALL };

		CHECK(node_qp(&p.b, &rc, ORCA_QPT_RC, &p.bcq2, &p.bcq2));
		CHECK(node_connect(&p.b, &rc, &p.a, 9, &o));
	}
	r = (struct tsge){ IOVA_B, 4096, p.bbuf.key };
	post_srq_recv(&p.b, &p.s1, 1700, &r);
	post_recv(&p.b, &rc, 1701, &r, 1);
	psn = tgt_epsn(&p);
	before = stats(&p.b);
	trunc = p.b.t.eng->roce->drops.err[ROCE_RX_TRUNCATED];
	/* XRC SEND to an RC QP (at its expected PSN). */
	len = craft(&p.a, &p.b, ROCE_XRC_SEND_ONLY, rc.qpn,
		    0xfffff0 + rc.qpn, p.s1.srqn, 64, frame);
	inject(&p.b, frame, len);
	/* RC SEND to the target. */
	len = craft(&p.a, &p.b, ROCE_RC_SEND_ONLY, p.tgt.qpn, psn, 0, 64,
		    frame);
	inject(&p.b, frame, len);
	/* An XRC response to the target, an XRC request to the initiator. */
	len = craft(&p.a, &p.b, ROCE_XRC_ACK, p.tgt.qpn, psn, 0, 0, frame);
	inject(&p.b, frame, len);
	len = craft(&p.b, &p.a, ROCE_XRC_SEND_ONLY, p.ini.qpn, 0x10,
		    p.s1.srqn, 64, frame);
	inject(&p.a, frame, len);
	CHECK(stats(&p.a).drop_bad_pkt == 1);
	/*
	 * A truncated XRCETH: an RC SEND Only of 0-3 bytes relabelled XRC
	 * SEND Only has less after its BTH than the XRCETH it claims.
	 */
	for (uint32_t n = 0; n < 4; n++) {
		len = craft(&p.a, &p.b, ROCE_RC_SEND_ONLY, p.tgt.qpn, psn, 0,
			    n, frame);
		frame[ROCE_ETH_HLEN + ROCE_IPV4_HLEN + ROCE_UDP_HLEN] =
			ROCE_XRC_SEND_ONLY;
		inject(&p.b, frame, len);
	}
	after = stats(&p.b);
	CHECK(after.drop_bad_pkt == before.drop_bad_pkt + 3);
	CHECK(p.b.t.eng->roce->drops.err[ROCE_RX_TRUNCATED] == trunc + 4);
	CHECK(after.err_naks_tx == 0 && after.acks_tx == before.acks_tx);
	CHECK(no_cqe(&p.b, &p.bcq));
	CHECK(no_cqe(&p.b, &p.bcq2));
	CHECK(qp_state(&p.b, &p.tgt) == ORCA_QPS_RTR);
	CHECK(qp_state(&p.b, &rc) == ORCA_QPS_RTS);
	CHECK(qp_state(&p.a, &p.ini) == ORCA_QPS_RTS);
	CHECK(tgt_epsn(&p) == psn);
	/* Both QPs still take their own transport's packets. */
	len = craft(&p.a, &p.b, ROCE_XRC_SEND_ONLY, p.tgt.qpn, psn,
		    p.s1.srqn, 64, frame);
	inject(&p.b, frame, len);
	CHECK(expect_cqe(&p.b, &p.bcq, 1700, ORCA_CQE_RECV,
			 ORCA_CQE_ST_SUCCESS, &c));
	CHECK(xrc_recv_cqe_ok(&c, &p, &p.s1, 64, 0));
	len = craft(&p.a, &p.b, ROCE_RC_SEND_ONLY, rc.qpn, 0xfffff0 + rc.qpn,
		    0, 64, frame);
	inject(&p.b, frame, len);
	CHECK(expect_cqe(&p.b, &p.bcq2, 1701, ORCA_CQE_RECV,
			 ORCA_CQE_ST_SUCCESS, &c));
	CHECK(!(c.flags & ORCA_CQE_F_XRC));
	/* A duplicate naming no SRQ of the domain: dropped, no NAK. */
	before = stats(&p.b);
	len = craft(&p.a, &p.b, ROCE_XRC_SEND_ONLY, p.tgt.qpn, psn, 4242, 64,
		    frame);
	inject(&p.b, frame, len);
	after = stats(&p.b);
	CHECK(after.drop_bad_pkt == before.drop_bad_pkt + 1);
	CHECK(after.err_naks_tx == 0);
	CHECK(qp_state(&p.b, &p.tgt) == ORCA_QPS_RTR);
	pair_fini(&p);
	ktap_case_end("xrc_wrong_transport_and_truncated_xrceth_dropped");
}

/* ---- case 14 and 15: the wire, and tshark's reading of it ---- */

/* Runs the traffic whose frames the wire cases check. */
static bool wire_traffic(struct xpair *p)
{
	struct tsge r = { IOVA_B, 8192, p->bbuf.key };
	struct tsge s = { IOVA_A, 1500, p->abuf.key };
	struct tsge s8 = { IOVA_A + 8192, 8, p->abuf.key };
	struct orca_send_wqe_hdr h;
	bool ok = true;

	p->ta.capture = p->tb.capture = true;
	post_srq_recv(&p->b, &p->s1, 1800, &r);
	post_srq_recv_tag(&p->b, &p->s2, 1801, &r, 3);
	/* SEND of two packets to s1, SEND with immediate to s2. */
	h = xwqe(ORCA_WQE_SEND, 1802, p->s1.srqn);
	post_send(&p->a, &p->ini, &h, &s, 1);
	h = xwqe(ORCA_WQE_SEND_IMM, 1803, p->s2.srqn);
	h.imm_or_inv = htole32(0x01020304);
	s.len = 100;
	post_send(&p->a, &p->ini, &h, &s, 1);
	/* WRITE, READ of two responses, FetchAdd. */
	h = xwqe(ORCA_WQE_RDMA_WRITE, 1804, p->s1.srqn);
	h.remote_addr = htole64(IOVA_B + 4096);
	h.rkey = htole32(p->bbuf.key);
	s.len = 200;
	post_send(&p->a, &p->ini, &h, &s, 1);
	/*
	 * Completed before the READ goes: its responses would acknowledge
	 * them, and then no ACK need be on the wire.
	 */
	for (uint64_t id = 1802; id <= 1804; id++)
		ok &= poll_cq(&p->a, &p->acq, &(struct orca_cqe){ 0 },
			      WAIT_MS);
	h = xwqe(ORCA_WQE_RDMA_READ, 1805, p->s2.srqn);
	h.remote_addr = htole64(IOVA_B + 4096);
	h.rkey = htole32(p->bbuf.key);
	s.len = 1500;
	post_send(&p->a, &p->ini, &h, &s, 1);
	h = xwqe(ORCA_WQE_ATOMIC_FA, 1806, p->s1.srqn);
	h.remote_addr = htole64(IOVA_B + 8192);
	h.rkey = htole32(p->bbuf.key);
	h.compare_add = htole64(1);
	post_send(&p->a, &p->ini, &h, &s8, 1);
	for (uint64_t id = 1805; id <= 1806; id++)
		ok &= poll_cq(&p->a, &p->acq, &(struct orca_cqe){ 0 },
			      WAIT_MS);
	engine_flush(p->a.t.eng);
	engine_flush(p->b.t.eng);
	return ok;
}

static uint32_t be24(const uint8_t *b)
{
	return (uint32_t)b[0] << 16 | b[1] << 8 | b[2];
}

static uint32_t be32(const uint8_t *b)
{
	return (uint32_t)b[0] << 24 | be24(b + 1);
}

static void test_wire(void)
{
	static const uint8_t want_req[] = {
		ROCE_XRC_SEND_FIRST, ROCE_XRC_SEND_LAST,
		ROCE_XRC_SEND_ONLY_IMM, ROCE_XRC_WRITE_ONLY,
		ROCE_XRC_READ_REQ, ROCE_XRC_FETCH_ADD,
	};
	const size_t bth = ROCE_ETH_HLEN + ROCE_IPV4_HLEN + ROCE_UDP_HLEN;
	unsigned int acks = 0, reads = 0, atomic_acks = 0;
	struct xpair p;

	if (!pair_init(&p) || !wire_traffic(&p)) {
		CHECK(!"setup");
		pair_fini(&p);
		ktap_case_end("xrc_wire_opcodes_xrceth_after_bth");
		return;
	}
	/* The requests, in order: opcode, XRCETH, what follows it. */
	CHECK(p.ta.ncap == ARRAY_SIZE_T(want_req));
	for (unsigned int i = 0; i < p.ta.ncap && i < ARRAY_SIZE_T(want_req);
	     i++) {
		const uint8_t *f = p.ta.cap[i].data;
		uint32_t srqn = i == 2 || i == 4 ? p.s2.srqn : p.s1.srqn;
		struct roce_pkt k;

		CHECK(roce_parse(f, p.ta.cap[i].len, &k) == ROCE_RX_OK);
		CHECK(f[bth] == want_req[i]);
		CHECK(be24(f + bth + 5) == p.tgt.qpn);
		/* XRCETH: reserved byte 0, then the SRQ number. */
		CHECK(f[bth + 12] == 0 && be24(f + bth + 13) == srqn);
		CHECK(k.xrc_srqn == srqn);
		if (want_req[i] == ROCE_XRC_SEND_ONLY_IMM)	/* ImmDt next */
			CHECK(!memcmp(f + bth + 16, "\x04\x03\x02\x01", 4));
		if (want_req[i] == ROCE_XRC_WRITE_ONLY ||
		    want_req[i] == ROCE_XRC_READ_REQ) {	/* RETH next */
			CHECK(be32(f + bth + 16) == (uint32_t)
			      ((IOVA_B + 4096) >> 32));
			CHECK(be32(f + bth + 20) == (uint32_t)(IOVA_B + 4096));
			CHECK(be32(f + bth + 24) == p.bbuf.key);
		}
		/* AtomicETH next */
		if (want_req[i] == ROCE_XRC_FETCH_ADD) {
			CHECK(be32(f + bth + 20) == (uint32_t)(IOVA_B + 8192));
			CHECK(be32(f + bth + 24) == p.bbuf.key);
			CHECK(be32(f + bth + 32) == 1);		/* add data */
		}
		if (want_req[i] == ROCE_XRC_SEND_FIRST)
			CHECK(k.paylen == 1024);
	}
	/* The answers: XRC opcodes, no XRCETH (AETH right after BTH). */
	for (unsigned int i = 0; i < p.tb.ncap; i++) {
		const uint8_t *f = p.tb.cap[i].data;
		struct roce_pkt k;

		CHECK(roce_parse(f, p.tb.cap[i].len, &k) == ROCE_RX_OK);
		CHECK(be24(f + bth + 5) == p.ini.qpn);
		switch (f[bth]) {
		case ROCE_XRC_ACK:
			acks++;
			/* UDP: 8 + BTH + AETH + ICRC, nothing else. */
			CHECK((f[bth - 4] << 8 | f[bth - 3]) == 8 + 12 + 4 + 4);
			CHECK(f[bth + 12] == 0x1f);	/* ACK, no credit */
			break;
		case ROCE_XRC_READ_RESP_FIRST:
		case ROCE_XRC_READ_RESP_LAST:
			reads++;
			CHECK(f[bth + 12] == 0x1f);
			break;
		case ROCE_XRC_ATOMIC_ACK:
			atomic_acks++;
			CHECK(f[bth + 12] == 0x1f && k.atm_orig == 0);
			break;
		default:
			printf("# B sent opcode %#x\n", f[bth]);
			CHECK(!"unexpected answer");
		}
	}
	CHECK(acks >= 1 && reads == 2 && atomic_acks == 1);
	pair_fini(&p);
	ktap_case_end("xrc_wire_opcodes_xrceth_after_bth");
}

static void pcap_write(FILE *f, const struct tap *t)
{
	/* magic, v2.4, tz, sigfigs, snaplen, LINKTYPE_ETHERNET */
	static const uint32_t hdr[6] = {
		0xa1b2c3d4, 0x00040002, 0, 0, 65535, 1
	};

	if (!ftell(f))
		fwrite(hdr, sizeof(hdr), 1, f);
	for (unsigned int i = 0; i < t->ncap; i++) {
		uint32_t rec[4] = { i, 0, t->cap[i].len, t->cap[i].len };

		fwrite(rec, sizeof(rec), 1, f);
		fwrite(t->cap[i].data, t->cap[i].len, 1, f);
	}
}

static bool have_tshark(void)
{
	return !system("command -v tshark >/dev/null 2>&1");
}

/*
 * tshark (Wireshark 4.4) names every XRC opcode and decodes the BTH, but
 * has no XRCETH dissector: what follows the BTH it shows as "Unknown/
 * Vendor Specific Data" (infiniband.vendor).  So: the opcode and BTH as
 * tshark reads them, the XRCETH (00 + SRQ number) as the first 4 bytes it
 * could not decode for every request, none for the answers, and no
 * malformed packet or expert error anywhere.
 */
static void test_tshark(void)
{
	char path[] = "/tmp/orca-xrc-XXXXXX", cmd[512], *line;
	const char *keep = getenv("ORCA_XRC_PCAP");
	unsigned int nreq = 0, nresp = 0, bad = 0;
	struct xpair p;
	FILE *f, *out;
	int fd;

	if (!have_tshark()) {
		ktap_skip("xrc_tshark_reads_xrc_opcodes_and_xrceth_bytes",
			  "no tshark");
		return;
	}
	if (!pair_init(&p) || !wire_traffic(&p)) {
		CHECK(!"setup");
		pair_fini(&p);
		ktap_case_end("xrc_tshark_reads_xrc_opcodes_and_xrceth_bytes");
		return;
	}
	fd = mkstemp(path);
	CHECK(fd >= 0);
	f = fd >= 0 ? fdopen(fd, "wb") : NULL;
	if (f) {
		pcap_write(f, &p.ta);
		pcap_write(f, &p.tb);
		fclose(f);
	}
	if (keep) {
		f = fopen(keep, "wb");
		if (f) {
			pcap_write(f, &p.ta);
			pcap_write(f, &p.tb);
			fclose(f);
		}
	}
	snprintf(cmd, sizeof(cmd),
		 "tshark -r %s -T fields -E separator='|' "
		 "-e infiniband.bth.opcode -e infiniband.bth.destqp "
		 "-e _ws.malformed -e _ws.expert -e _ws.col.protocol "
		 "-e infiniband.vendor 2>/dev/null", path);
	out = popen(cmd, "r");
	CHECK(out != NULL);
	line = malloc(LINE_MAX_T);
	while (out && line && fgets(line, LINE_MAX_T, out)) {
		unsigned int op = 0, qp = 0;
		char *fld[6] = { line }, *end;
		int n = 1;

		line[strcspn(line, "\n")] = 0;
		while (n < 6 && (end = strchr(fld[n - 1], '|'))) {
			*end = 0;
			fld[n++] = end + 1;
		}
		if (n == 6) {
			op = (unsigned int)strtoul(fld[0], NULL, 10);
			qp = (unsigned int)strtoul(fld[1], NULL, 16);
		}
		/* No malformed packet, no expert info, RoCEv2 throughout. */
		if (n < 6 || (op & ~ROCE_OP_MASK) != ROCE_XRC_BASE || *fld[2] ||
		    *fld[3] || strcmp(fld[4], "RRoCE")) {
			printf("# tshark: %.200s\n", line);
			bad++;
			continue;
		}
		if (op == ROCE_XRC_ACK || op == ROCE_XRC_ATOMIC_ACK ||
		    (op >= ROCE_XRC_READ_RESP_FIRST &&
		     op <= ROCE_XRC_READ_RESP_ONLY)) {
			nresp++;
			/* An answer: its AETH (syndrome 1f: ACK) first. */
			if (qp != p.ini.qpn || strncmp(fld[5], "1f", 2)) {
				printf("# tshark answer: %.200s\n", fld[5]);
				bad++;
			}
		} else {
			char want[9];
			uint32_t srqn = nreq == 2 || nreq == 4 ? p.s2.srqn :
								 p.s1.srqn;

			nreq++;
			snprintf(want, sizeof(want), "00%06x", srqn);
			if (qp != p.tgt.qpn || strncmp(fld[5], want, 8)) {
				printf("# tshark request, want %s: %.200s\n",
				       want, fld[5]);
				bad++;
			}
		}
	}
	free(line);
	if (out)
		CHECK(pclose(out) == 0);
	CHECK(bad == 0);
	if (nreq != p.ta.ncap || nresp != p.tb.ncap)
		printf("# tshark read %u requests, %u answers; sent %u, %u\n",
		       nreq, nresp, p.ta.ncap, p.tb.ncap);
	CHECK(nreq == 6 && nreq == p.ta.ncap && nresp == p.tb.ncap &&
	      nresp >= 4);
	/* One request in full, for the record. */
	snprintf(cmd, sizeof(cmd),
		 "tshark -r %s -V -c 3 2>/dev/null | sed -n '/^Frame 3/,$p' | "
		 "sed -n '/^InfiniBand/,$s/^/# /p'", path);
	fflush(stdout);
	CHECK(system(cmd) == 0);
	unlink(path);
	pair_fini(&p);
	ktap_case_end("xrc_tshark_reads_xrc_opcodes_and_xrceth_bytes");
}

int main(void)
{
	ktap_plan(15);
	test_xrcd();
	test_srq_create();
	test_qp_create();
	test_state_machine();
	test_send();
	test_rdma();
	test_two_srqs();
	test_bad_srq();
	test_middle_other_srq();
	test_tgt_err_flush();
	test_rnr();
	test_srq_pd();
	test_hostile();
	test_wire();
	test_tshark();
	return ktap_finish();
}

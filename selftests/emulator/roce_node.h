/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Test library for the RoCE transport tests: an ORCA "node" (an engine with
 * a fake host, from engine_harness.h) plus a minimal verbs-like driver for
 * its data path: CQs, MRs, RC/UD QPs and their state changes, posting send
 * and receive WQEs with the doorbell-record/event-index protocol, polling
 * CQEs with the phase bit, and an in-process wire between two nodes that
 * can drop frames.
 */
#ifndef ORCA_ROCE_NODE_H
#define ORCA_ROCE_NODE_H

#include <sched.h>
#include <time.h>
#include <stdatomic.h>

#include "engine_harness.h"
#include "roce/roce_priv.h"

struct tcq {
	uint32_t cqn;
	uint64_t buf, rec;
	unsigned int log;
	uint32_t ci;
};

struct tqp {
	uint32_t qpn;
	uint8_t type;
	uint64_t sq, rq, rec;		/* ring bases (contiguous pages) */
	unsigned int log_sq, log_rq, max_sge;
	uint32_t sq_pi, rq_pi;
	uint32_t uar;
};

struct node {
	struct th t;
	uint8_t mac[6];
	uint8_t ip[4];
	uint32_t uar, pdn;
	struct node *peer;		/* wire: where our frames go */
	unsigned int loss_pct;		/* frames dropped on the way out */
	uint64_t rng;
	atomic_ulong sent, dropped;
	unsigned int rq_rings, srq_rings;	/* receive doorbells rung */
};

static inline void node_tx(void *ctx, const uint8_t *frame, size_t len)
{
	struct node *n = ctx;

	atomic_fetch_add(&n->sent, 1);
	if (n->loss_pct) {
		n->rng ^= n->rng << 13;
		n->rng ^= n->rng >> 7;
		n->rng ^= n->rng << 17;
		if (n->rng % 100 < n->loss_pct) {
			atomic_fetch_add(&n->dropped, 1);
			return;
		}
	}
	if (n->peer)
		engine_roce_rx(n->peer->t.eng, frame, len);
}

static inline void node_gid(const struct node *n, uint8_t gid[16])
{
	memset(gid, 0, 16);
	gid[10] = gid[11] = 0xff;
	memcpy(gid + 12, n->ip, 4);
}

/* Boots an adapter with its own MAC and IPv4 GID 0. */
static inline bool node_init(struct node *n, uint8_t id)
{
	struct orca_cmd_set_gid g = {
		.port = 1, .type = ORCA_GID_TYPE_ROCE_V2,
		.vlan = htole16(0xffff),
	};
	struct th *t = &n->t;
	int64_t v;

	memset(n, 0, sizeof(*n));
	n->mac[0] = 0x02;
	n->mac[5] = id;
	n->ip[0] = 10;
	n->ip[3] = id;
	n->rng = 0x9e3779b97f4a7c15ull * id;
	t->fh.ram = calloc(1, GUEST_SIZE);
	if (!t->fh.ram)
		abort();
	t->host.ops = &fh_ops;
	t->host.priv = &t->fh;
	t->cfg = (struct emu_config){ .eth_mtu = 1500, .num_msix = TEST_MSIX };
	memcpy(t->cfg.mac, n->mac, 6);
	t->brk = GUEST_BASE;
	t->eng = engine_create(&t->host, &t->cfg);
	if (!t->eng)
		return false;
	engine_set_bus_master(t->eng, true);
	if (!th_boot(t, 5) || !th_create_eq0(t, 10))
		return false;
	engine_set_roce_tx(t->eng, node_tx, n);
	v = th_alloc_uar(t);
	if (v < 0)
		return false;
	n->uar = v;
	v = th_create_pd(t);
	if (v <= 0)
		return false;
	n->pdn = v;
	memcpy(g.mac, n->mac, 6);
	node_gid(n, g.gid);
	return th_cmd(t, ORCA_CMD_SET_GID, &g, sizeof(g)) == ORCA_CMD_ST_OK;
}

static inline void node_fini(struct node *n)
{
	engine_set_roce_tx(n->t.eng, NULL, NULL);
	th_fini(&n->t);
}

static inline bool node_cq(struct node *n, struct tcq *cq, unsigned int log)
{
	uint64_t bytes = (uint64_t)sizeof(struct orca_cqe) << log;
	unsigned int shift = 12;
	struct orca_cmd_create_cq in = { .log_depth = log };
	int64_t v;

	while ((1ull << shift) < bytes)
		shift++;
	memset(cq, 0, sizeof(*cq));
	cq->log = log;
	cq->buf = galloc(&n->t, 1ull << shift, 1ull << shift);
	cq->rec = galloc(&n->t, 64, 64);
	in.page_shift = shift;
	in.npages = htole32(1);
	in.page_addr = htole64(cq->buf);
	in.db_rec_addr = htole64(cq->rec);
	in.uar = htole32(n->uar);
	v = th_handle_or_neg(&n->t, th_cmd(&n->t, ORCA_CMD_CREATE_CQ, &in,
					   sizeof(in)));
	if (v <= 0)
		return false;
	cq->cqn = v;
	return true;
}

/*
 * A page-list MR over [addr, addr + len) of guest RAM at iova @iova, its
 * page list in reverse order (so a translation bug cannot hide behind
 * contiguous memory): the pages are given backwards and the data lives
 * there backwards, see node_va().
 */
static inline int64_t node_mr_raw(struct node *n, uint64_t iova, uint64_t len,
				  uint32_t access, uint32_t flags,
				  uint64_t *pages_out, uint32_t max_pages)
{
	struct orca_cmd_create_mr in = {
		.pdn = htole32(n->pdn), .access = htole32(access),
		.flags = htole32(flags), .page_shift = 12, .key = 0x5a,
		.iova = htole64(iova), .length = htole64(len),
	};
	struct tcmd c = { .opcode = ORCA_CMD_CREATE_MR, .in = &in,
			  .in_size = sizeof(in) };
	uint32_t np = flags & ORCA_MR_F_FAST_REG ? max_pages :
		      (uint32_t)(((iova & 4095) + len + 4095) / 4096);
	int st;

	in.npages = htole32(np);
	if (!flags) {
		uint64_t list = galloc(&n->t, 8ull * np, 8);
		uint64_t *l = gptr(&n->t, list);

		for (uint32_t i = 0; i < np; i++)
			l[i] = htole64(pages_out[i]);
		c.in_addr = list;
		c.in_len = 8 * np;
	}
	st = th_exec(&n->t, &c);
	if (st)
		return st < 0 ? -100 : -st;
	{
		struct orca_cmd_create_mr_out out;

		memcpy(&out, n->t.last.out, sizeof(out));
		return le32toh(out.lkey);
	}
}

/* A buffer of @npages pages, registered with its pages in reverse. */
struct tbuf {
	uint64_t iova;
	uint64_t len;
	uint32_t npages;
	uint64_t *pages;		/* guest addresses, page i of the MR */
	uint32_t key;
};

static inline bool node_buf(struct node *n, struct tbuf *b, uint64_t iova,
			    uint64_t len, uint32_t access)
{
	uint64_t base;
	int64_t key;

	b->iova = iova;
	b->len = len;
	b->npages = (uint32_t)(((iova & 4095) + len + 4095) / 4096);
	b->pages = calloc(b->npages, sizeof(uint64_t));
	base = galloc(&n->t, 4096ull * b->npages, 0);
	for (uint32_t i = 0; i < b->npages; i++)
		b->pages[i] = base + 4096ull * (b->npages - 1 - i);
	key = node_mr_raw(n, iova, len, access, 0, b->pages, b->npages);
	if (key < 0)
		return false;
	b->key = key;
	return true;
}

/* Host pointer to byte @off of the buffer (through the reversed pages). */
static inline uint8_t *node_va(struct node *n, struct tbuf *b, uint64_t off)
{
	uint64_t a = (b->iova & 4095) + off;

	return gptr(&n->t, b->pages[a / 4096] + a % 4096);
}

/*
 * The fill pattern: every 8 bytes of a transfer, as a little-endian u64,
 * hold the transfer's seed (xored with "ORCA", so that no word is zero)
 * in the high half and their own offset in the transfer in the low half.
 * No two words of a transfer are alike, nor two transfers with different
 * seeds: a page or a packet placed at the wrong offset, one repeated, or
 * left over from another transfer reads wrong, and the word found where
 * the first mismatch is says where its bytes came from.  (The kernel
 * tests' kv_fill() writes the same words.)
 */
#define PAT_TAG		0x4f524341u	/* "ORCA" */

static inline uint64_t pat_word(uint32_t seed, uint64_t off)
{
	return (uint64_t)(seed ^ PAT_TAG) << 32 | (uint32_t)(off & ~7ull);
}

/* Byte @i of the transfer seeded @seed. */
static inline uint8_t pat_byte(uint32_t seed, uint64_t i)
{
	return (uint8_t)(pat_word(seed, i) >> (8 * (i & 7)));
}

static inline void buf_fill(struct node *n, struct tbuf *b, uint64_t off,
			    uint64_t len, uint32_t seed)
{
	for (uint64_t i = 0; i < len; i++)
		*node_va(n, b, off + i) = pat_byte(seed, i);
}

/*
 * The first byte of [off, off + len) of @b that is not pattern @seed
 * (relative to @off), or @len if all are.
 */
static inline uint64_t buf_mismatch(struct node *n, struct tbuf *b,
				    uint64_t off, uint64_t len, uint32_t seed)
{
	for (uint64_t i = 0; i < len; i++)
		if (*node_va(n, b, off + i) != pat_byte(seed, i))
			return i;
	return len;
}

static inline bool buf_check(struct node *n, struct tbuf *b, uint64_t off,
			     uint64_t len, uint32_t seed)
{
	uint64_t i = buf_mismatch(n, b, off, len, seed), w, got = 0;

	if (i == len)
		return true;
	printf("# byte %llu of %llu (buffer offset %llu) is 0x%02x, want 0x%02x\n",
	       (unsigned long long)i, (unsigned long long)len,
	       (unsigned long long)(off + i), *node_va(n, b, off + i),
	       pat_byte(seed, i));
	/* Whose word is there instead: which transfer, which offset. */
	w = i & ~7ull;
	if (w + 8 <= len) {
		for (unsigned int k = 0; k < 8; k++)
			got |= (uint64_t)*node_va(n, b, off + w + k) << (8 * k);
		printf("# its word holds seed %u offset %llu, want seed %u offset %llu\n",
		       (uint32_t)(got >> 32) ^ PAT_TAG,
		       (unsigned long long)(uint32_t)got, seed,
		       (unsigned long long)w);
	}
	return false;
}

static inline bool node_qp(struct node *n, struct tqp *qp, uint8_t type,
			   struct tcq *scq, struct tcq *rcq)
{
	unsigned int log = 7, sge = 4;
	uint32_t sq_bytes = orca_send_wqe_stride(sge) << log;
	uint32_t rq_bytes = orca_recv_wqe_stride(sge) << log;
	uint32_t sq_np = sq_bytes / 4096, rq_np = rq_bytes / 4096;
	struct orca_cmd_create_qp in = {
		.qp_type = type, .page_shift = 12, .log_sq_depth = log,
		.log_rq_depth = log, .pdn = htole32(n->pdn),
		.send_cqn = htole32(scq->cqn), .recv_cqn = htole32(rcq->cqn),
		.max_send_sge = sge, .max_recv_sge = sge,
		.max_inline_data = htole16(64),
		.sq_npages = htole32(sq_np), .rq_npages = htole32(rq_np),
		.uar = htole32(n->uar),
	};
	struct tcmd c = { .opcode = ORCA_CMD_CREATE_QP, .in = &in,
			  .in_size = sizeof(in) };
	uint64_t list = galloc(&n->t, 8ull * (sq_np + rq_np), 8);
	uint64_t *l = gptr(&n->t, list);
	int64_t v;

	memset(qp, 0, sizeof(*qp));
	qp->type = type;
	qp->log_sq = qp->log_rq = log;
	qp->max_sge = sge;
	qp->uar = n->uar;
	qp->sq = galloc(&n->t, sq_bytes, 0);
	qp->rq = galloc(&n->t, rq_bytes, 0);
	qp->rec = galloc(&n->t, 64, 64);
	for (uint32_t i = 0; i < sq_np; i++)
		l[i] = htole64(qp->sq + 4096ull * i);
	for (uint32_t i = 0; i < rq_np; i++)
		l[sq_np + i] = htole64(qp->rq + 4096ull * i);
	in.db_rec_addr = htole64(qp->rec);
	c.in_addr = list;
	c.in_len = 8 * (sq_np + rq_np);
	v = th_handle_or_neg(&n->t, th_exec(&n->t, &c));
	if (v <= 0)
		return false;
	qp->qpn = v;
	return true;
}

static inline int node_modify(struct node *n, struct tqp *qp,
			      struct orca_qp_attr *a)
{
	a->qpn = htole32(qp->qpn);
	return th_cmd(&n->t, ORCA_CMD_MODIFY_QP, a, sizeof(*a));
}

struct rc_opts {
	uint8_t path_mtu;		/* IB encoding */
	uint8_t timeout, retry_cnt, rnr_retry, min_rnr_timer;
	uint32_t access;
};

/* RESET -> INIT -> RTR -> RTS, connected to @rqpn on @peer. */
static inline bool node_connect(struct node *n, struct tqp *qp,
				struct node *peer, uint32_t rqpn,
				const struct rc_opts *o)
{
	struct orca_qp_attr a = { 0 };

	a.attr_mask = htole32(ORCA_QP_ATTR_STATE | ORCA_QP_ATTR_PKEY_INDEX |
			      ORCA_QP_ATTR_PORT | ORCA_QP_ATTR_ACCESS_FLAGS);
	a.qp_state = ORCA_QPS_INIT;
	a.port = 1;
	a.access = htole32(o->access);
	if (node_modify(n, qp, &a))
		return false;
	memset(&a, 0, sizeof(a));
	a.attr_mask = htole32(ORCA_QP_ATTR_STATE | ORCA_QP_ATTR_AV |
			      ORCA_QP_ATTR_PATH_MTU | ORCA_QP_ATTR_DEST_QPN |
			      ORCA_QP_ATTR_RQ_PSN |
			      ORCA_QP_ATTR_MAX_DEST_RD_ATOMIC |
			      ORCA_QP_ATTR_MIN_RNR_TIMER);
	a.qp_state = ORCA_QPS_RTR;
	a.path_mtu = o->path_mtu;
	a.dest_qpn = htole32(rqpn);
	a.rq_psn = htole32(0xfffff0 + qp->qpn);	/* wraps soon */
	a.max_dest_rd_atomic = 8;
	a.min_rnr_timer = o->min_rnr_timer;
	node_gid(peer, a.av.dgid);
	memcpy(a.av.dmac, peer->mac, 6);
	a.av.hop_limit = 64;
	if (node_modify(n, qp, &a))
		return false;
	memset(&a, 0, sizeof(a));
	a.attr_mask = htole32(ORCA_QP_ATTR_STATE | ORCA_QP_ATTR_SQ_PSN |
			      ORCA_QP_ATTR_TIMEOUT | ORCA_QP_ATTR_RETRY_CNT |
			      ORCA_QP_ATTR_RNR_RETRY |
			      ORCA_QP_ATTR_MAX_QP_RD_ATOMIC);
	a.qp_state = ORCA_QPS_RTS;
	a.sq_psn = htole32(0xfffff0 + rqpn);	/* the peer's rq_psn */
	a.timeout = o->timeout;
	a.retry_cnt = o->retry_cnt;
	a.rnr_retry = o->rnr_retry;
	a.max_rd_atomic = 8;
	return node_modify(n, qp, &a) == 0;
}

static inline bool node_ud_ready(struct node *n, struct tqp *qp,
				 uint32_t qkey)
{
	struct orca_qp_attr a = { 0 };

	/* GSI (QP1) has no port attribute, as in ib_modify_qp_is_ok(). */
	a.attr_mask = htole32(ORCA_QP_ATTR_STATE | ORCA_QP_ATTR_PKEY_INDEX |
			      (qp->type == ORCA_QPT_GSI ? 0 :
			       ORCA_QP_ATTR_PORT) | ORCA_QP_ATTR_QKEY);
	a.qp_state = ORCA_QPS_INIT;
	a.port = 1;
	a.qkey = htole32(qkey);
	if (node_modify(n, qp, &a))
		return false;
	memset(&a, 0, sizeof(a));
	a.attr_mask = htole32(ORCA_QP_ATTR_STATE);
	a.qp_state = ORCA_QPS_RTR;
	if (node_modify(n, qp, &a))
		return false;
	memset(&a, 0, sizeof(a));
	a.attr_mask = htole32(ORCA_QP_ATTR_STATE | ORCA_QP_ATTR_SQ_PSN);
	a.qp_state = ORCA_QPS_RTS;
	return node_modify(n, qp, &a) == 0;
}

static inline struct orca_qp_db_rec *qp_rec(struct node *n, struct tqp *qp)
{
	return gptr(&n->t, qp->rec);
}

/* The driver side of the event-index protocol (NVMe shadow doorbells). */
static inline void ring_if_needed(struct node *n, struct tqp *qp,
				  uint32_t off, uint32_t old, uint32_t new,
				  __le32 *pi, __le32 *event)
{
	uint32_t e;

	atomic_store_explicit((_Atomic __le32 *)pi, htole32(new),
			      memory_order_release);
	atomic_thread_fence(memory_order_seq_cst);
	e = le32toh(atomic_load((_Atomic __le32 *)event));
	if ((uint32_t)(new - e - 1) < (uint32_t)(new - old)) {
		n->rq_rings += off == ORCA_UAR_RQ_DB;
		engine_uar_write(n->t.eng, qp->uar, off, qp->qpn);
	}
}

struct tsge {
	uint64_t addr;
	uint32_t len;
	uint32_t key;
};

static inline void post_send(struct node *n, struct tqp *qp,
			     const struct orca_send_wqe_hdr *h,
			     const struct tsge *sge, unsigned int nsge)
{
	uint32_t stride = orca_send_wqe_stride(qp->max_sge);
	uint32_t slot = qp->sq_pi & ((1u << qp->log_sq) - 1);
	uint8_t *e = gptr(&n->t, qp->sq + (uint64_t)slot * stride);
	struct orca_sge *s = (void *)(e + sizeof(*h));
	struct orca_qp_db_rec *rec = qp_rec(n, qp);

	memcpy(e, h, sizeof(*h));
	e[2] = (uint8_t)nsge;
	for (unsigned int i = 0; i < nsge; i++) {
		s[i].addr = htole64(sge[i].addr);
		s[i].length = htole32(sge[i].len);
		s[i].lkey = htole32(sge[i].key);
	}
	ring_if_needed(n, qp, ORCA_UAR_SQ_DB, qp->sq_pi, qp->sq_pi + 1,
		       &rec->sq_pi, &rec->sq_event_idx);
	qp->sq_pi++;
}

static inline void post_recv(struct node *n, struct tqp *qp, uint64_t wr_id,
			     const struct tsge *sge, unsigned int nsge)
{
	uint32_t stride = orca_recv_wqe_stride(qp->max_sge);
	uint32_t slot = qp->rq_pi & ((1u << qp->log_rq) - 1);
	uint8_t *e = gptr(&n->t, qp->rq + (uint64_t)slot * stride);
	struct orca_recv_wqe_hdr *h = (void *)e;
	struct orca_sge *s = (void *)(e + sizeof(*h));
	struct orca_qp_db_rec *rec = qp_rec(n, qp);

	memset(h, 0, sizeof(*h));
	h->wr_id_lo = htole32((uint32_t)wr_id);
	h->wr_id_hi = htole32((uint32_t)(wr_id >> 32));
	h->num_sge = (uint8_t)nsge;
	for (unsigned int i = 0; i < nsge; i++) {
		s[i].addr = htole64(sge[i].addr);
		s[i].length = htole32(sge[i].len);
		s[i].lkey = htole32(sge[i].key);
	}
	ring_if_needed(n, qp, ORCA_UAR_RQ_DB, qp->rq_pi, qp->rq_pi + 1,
		       &rec->rq_pi, &rec->rq_event_idx);
	qp->rq_pi++;
}

struct tsrq {
	uint32_t srqn;
	uint64_t ring, rec;
	unsigned int log, max_sge;
	uint32_t pi;
};

/* @flags: ORCA_CREATE_SRQ_F_*. */
static inline bool node_srq_flags(struct node *n, struct tsrq *q,
				  uint32_t limit, uint8_t flags)
{
	struct orca_cmd_create_srq in = {
		.pdn = htole32(n->pdn), .log_depth = 6, .page_shift = 12,
		.max_sge = 2, .flags = flags, .npages = htole32(1),
		.limit = htole32(limit), .uar = htole32(n->uar),
	};
	int64_t v;

	memset(q, 0, sizeof(*q));
	q->log = 6;
	q->max_sge = 2;
	q->ring = galloc(&n->t, 4096, 0);
	q->rec = galloc(&n->t, 64, 64);
	in.page_addr = htole64(q->ring);
	in.db_rec_addr = htole64(q->rec);
	v = th_handle_or_neg(&n->t, th_cmd(&n->t, ORCA_CMD_CREATE_SRQ, &in,
					   sizeof(in)));
	if (v <= 0)
		return false;
	q->srqn = v;
	return true;
}

static inline bool node_srq(struct node *n, struct tsrq *q, uint32_t limit)
{
	return node_srq_flags(n, q, limit, 0);
}

/* @tag: what a tagged SRQ's CQE reports (struct orca_recv_wqe_hdr). */
static inline void post_srq_recv_tag(struct node *n, struct tsrq *q,
				     uint64_t wr_id, const struct tsge *sge,
				     uint16_t tag)
{
	uint32_t stride = orca_recv_wqe_stride(q->max_sge);
	uint32_t slot = q->pi & ((1u << q->log) - 1);
	uint8_t *e = gptr(&n->t, q->ring + (uint64_t)slot * stride);
	struct orca_recv_wqe_hdr *h = (void *)e;
	struct orca_sge *s = (void *)(e + sizeof(*h));
	struct orca_srq_db_rec *rec = gptr(&n->t, q->rec);
	uint32_t ev;

	memset(h, 0, sizeof(*h));
	h->wr_id_lo = htole32((uint32_t)wr_id);
	h->num_sge = 1;
	h->tag = htole16(tag);
	s->addr = htole64(sge->addr);
	s->length = htole32(sge->len);
	s->lkey = htole32(sge->key);
	q->pi++;
	atomic_store_explicit((_Atomic __le32 *)&rec->pi, htole32(q->pi),
			      memory_order_release);
	/* The driver's rule, as ring_if_needed(); counted, not needed. */
	atomic_thread_fence(memory_order_seq_cst);
	ev = le32toh(atomic_load((_Atomic __le32 *)&rec->event_idx));
	if ((uint32_t)(q->pi - ev - 1) < 1u) {
		n->srq_rings++;
		engine_uar_write(n->t.eng, n->uar, ORCA_UAR_SRQ_DB, q->srqn);
	}
}

static inline void post_srq_recv(struct node *n, struct tsrq *q,
				 uint64_t wr_id, const struct tsge *sge)
{
	post_srq_recv_tag(n, q, wr_id, sge, 0);
}

static inline struct orca_send_wqe_hdr wqe(uint8_t op, uint64_t wr_id)
{
	struct orca_send_wqe_hdr h = { .opcode = op,
				       .flags = ORCA_WQE_F_SIGNALED };

	h.wr_id_lo = htole32((uint32_t)wr_id);
	h.wr_id_hi = htole32((uint32_t)(wr_id >> 32));
	return h;
}

/* The CQE at ci if the device wrote it (phase protocol); advances ci. */
static inline bool take_cqe(struct node *n, struct tcq *cq, struct orca_cqe *out)
{
	struct orca_cq_db_rec *rec = gptr(&n->t, cq->rec);
	uint32_t slot = cq->ci & ((1u << cq->log) - 1);
	uint8_t phase = ((cq->ci >> cq->log) & 1) ? 0 : ORCA_CQE_F_PHASE;
	struct orca_cqe *e = gptr(&n->t, cq->buf + 32ull * slot);

	if ((atomic_load_explicit((_Atomic uint8_t *)&e->flags,
				  memory_order_acquire) &
	     ORCA_CQE_F_PHASE) != phase)
		return false;
	*out = *e;
	cq->ci++;
	atomic_store((_Atomic __le32 *)&rec->ci, htole32(cq->ci));
	return true;
}

/* Next CQE within @ms milliseconds, sleeping between looks. */
static inline bool poll_cq(struct node *n, struct tcq *cq, struct orca_cqe *out,
			   unsigned int ms)
{
	for (unsigned int waited = 0;; waited++) {
		if (take_cqe(n, cq, out))
			return true;
		if (waited >= ms)
			return false;
		th_sleep_ms(1);
	}
}

/* Next CQE within 10 s, yielding between looks (the benches' poller). */
static inline bool spin_cq(struct node *n, struct tcq *cq, struct orca_cqe *out)
{
	struct timespec ts;
	time_t give_up;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	give_up = ts.tv_sec + 10;
	while (!take_cqe(n, cq, out)) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		if (ts.tv_sec > give_up)
			return false;
		sched_yield();
	}
	return true;
}

static inline uint64_t cqe_wr_id(const struct orca_cqe *c)
{
	return le32toh(c->wr_id_lo) | (uint64_t)le32toh(c->wr_id_hi) << 32;
}

/* The next CQE of @cq within @wait_ms is @wr_id's, with @opcode and @status. */
static inline bool node_expect_cqe(struct node *n, struct tcq *cq,
				   uint64_t wr_id, uint8_t opcode,
				   uint8_t status, struct orca_cqe *out,
				   unsigned int wait_ms)
{
	struct orca_cqe c;

	if (!poll_cq(n, cq, &c, wait_ms)) {
		printf("# no CQE for wr_id %llx\n", (unsigned long long)wr_id);
		return false;
	}
	if (out)
		*out = c;
	if (cqe_wr_id(&c) != wr_id || c.opcode != opcode ||
	    c.status != status) {
		printf("# CQE wr_id %llx op %#x st %u, want %llx %#x %u\n",
		       (unsigned long long)cqe_wr_id(&c), c.opcode, c.status,
		       (unsigned long long)wr_id, opcode, status);
		return false;
	}
	return true;
}

#endif /* ORCA_ROCE_NODE_H */

// SPDX-License-Identifier: GPL-2.0
/*
 * RDMA FLUSH and ATOMIC WRITE (IBA 1.5, interface 1.4) between two
 * adapters: the requests the requester frames and the answers the
 * responder gives, byte for byte as Linux rxe frames and answers them
 * (rxe_opcode.c, rxe_req.c, rxe_resp.c: FLUSH is BTH | FETH | RETH, ATOMIC
 * WRITE is BTH | RETH | 8 bytes, both answered by an RDMA READ Response
 * Only with an AETH and no payload); the rights, bounds, length and
 * alignment checks and their NAKs; duplicates answered without executing
 * again, under loss too; and hostile frames of both opcodes.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ktap.h"
#include "roce_node.h"

#define WAIT_MS		10000
#define IOVA_A		0x7f0000001000ull
#define IOVA_B		0x7e0000000800ull	/* not page aligned */
#define BUF_LEN		(64u << 10)
#define IOVA_B2		0x7d0000000000ull	/* B's second MR */
#define B2_LEN		8192u

#define FLUSH_RIGHTS	(ORCA_ACCESS_FLUSH_GLOBAL | ORCA_ACCESS_FLUSH_PERSISTENT)
#define RDMA_RIGHTS	(ORCA_ACCESS_LOCAL_WRITE | ORCA_ACCESS_REMOTE_WRITE | \
			 ORCA_ACCESS_REMOTE_READ | ORCA_ACCESS_REMOTE_ATOMIC)

/* Frames an adapter sent, kept for inspection; forwarded to the peer or not. */
#define TAP_FRAMES	64

struct tap {
	struct node *n;
	bool forward;
	pthread_mutex_t lock;
	unsigned int count;
	size_t len[TAP_FRAMES];
	uint8_t frame[TAP_FRAMES][256];
};

static void tap_tx(void *ctx, const uint8_t *frame, size_t len)
{
	struct tap *t = ctx;

	pthread_mutex_lock(&t->lock);
	if (t->count < TAP_FRAMES && len <= sizeof(t->frame[0])) {
		memcpy(t->frame[t->count], frame, len);
		t->len[t->count++] = len;
	}
	pthread_mutex_unlock(&t->lock);
	if (t->forward)
		node_tx(t->n, frame, len);
}

static void tap_start(struct tap *t, struct node *n, bool forward)
{
	memset(t, 0, sizeof(*t));
	pthread_mutex_init(&t->lock, NULL);
	t->n = n;
	t->forward = forward;
	engine_set_roce_tx(n->t.eng, tap_tx, t);
}

static void tap_stop(struct tap *t)
{
	engine_flush(t->n->t.eng);
	engine_set_roce_tx(t->n->t.eng, node_tx, t->n);
	pthread_mutex_destroy(&t->lock);
}

/*
 * The first frame from @t with BTH opcode @opcode, from the BTH to the
 * end of the UDP datagram (ICRC included); its length, or 0.
 */
static size_t tap_find(struct tap *t, uint8_t opcode, unsigned int nth,
		       const uint8_t **bth)
{
	size_t found = 0;

	pthread_mutex_lock(&t->lock);
	for (unsigned int i = 0; i < t->count && !found; i++) {
		struct roce_frame_hdrs h;
		const uint8_t *f = t->frame[i];
		size_t udp_len;

		if (roce_classify(f, t->len[i], &h) != ROCE_RX_OK)
			continue;
		udp_len = (size_t)f[h.udp_off + 4] << 8 | f[h.udp_off + 5];
		if (f[h.udp_off + ROCE_UDP_HLEN] != opcode || nth--)
			continue;
		*bth = f + h.udp_off + ROCE_UDP_HLEN;
		found = udp_len - ROCE_UDP_HLEN;
	}
	pthread_mutex_unlock(&t->lock);
	return found;
}

struct pair {
	struct node a, b;
	struct tcq acq, bcq;
	struct tqp aqp, bqp;
	struct tbuf abuf, bbuf;
	struct tbuf b2;		/* B: a second MR, with rights of the test's */
};

/*
 * Two adapters on a wire, an RC QP each; B's QP has @b_qp_access, its
 * main MR every right, its second MR @b2_access.
 */
static bool pair_init(struct pair *p, uint32_t b_qp_access,
		      uint32_t b2_access, unsigned int loss)
{
	struct rc_opts o = {
		.path_mtu = 3, .timeout = 14, .retry_cnt = 7, .rnr_retry = 7,
		.min_rnr_timer = 1, .access = RDMA_RIGHTS | FLUSH_RIGHTS,
	};
	struct rc_opts ob = o;

	ob.access = b_qp_access;
	memset(p, 0, sizeof(*p));
	if (!node_init(&p->a, 1) || !node_init(&p->b, 2))
		return false;
	p->a.peer = &p->b;
	p->b.peer = &p->a;
	p->a.loss_pct = p->b.loss_pct = loss;
	return node_cq(&p->a, &p->acq, 10) && node_cq(&p->b, &p->bcq, 10) &&
	       node_buf(&p->a, &p->abuf, IOVA_A, BUF_LEN, RDMA_RIGHTS) &&
	       node_buf(&p->b, &p->bbuf, IOVA_B, BUF_LEN,
			RDMA_RIGHTS | FLUSH_RIGHTS) &&
	       node_buf(&p->b, &p->b2, IOVA_B2, B2_LEN, b2_access) &&
	       node_qp(&p->a, &p->aqp, ORCA_QPT_RC, &p->acq, &p->acq) &&
	       node_qp(&p->b, &p->bqp, ORCA_QPT_RC, &p->bcq, &p->bcq) &&
	       node_connect(&p->a, &p->aqp, &p->b, p->bqp.qpn, &o) &&
	       node_connect(&p->b, &p->bqp, &p->a, p->aqp.qpn, &ob);
}

static void pair_fini(struct pair *p)
{
	engine_set_roce_tx(p->a.t.eng, NULL, NULL);
	engine_set_roce_tx(p->b.t.eng, NULL, NULL);
	node_fini(&p->b);
	node_fini(&p->a);
	free(p->abuf.pages);
	free(p->bbuf.pages);
	free(p->b2.pages);
}

static struct roce_stats stats(struct node *n)
{
	struct roce_stats st;

	engine_flush(n->t.eng);
	roce_get_stats(n->t.eng, &st);
	return st;
}

/* The first PSN A sends and B expects (node_connect()). */
static uint32_t first_psn(const struct pair *p)
{
	return (0xfffff0 + p->bqp.qpn) & ROCE_PSN_MASK;
}

static bool expect_cqe(struct node *n, struct tcq *cq, uint64_t wr_id,
		       uint8_t opcode, uint8_t status)
{
	return node_expect_cqe(n, cq, wr_id, opcode, status, NULL, WAIT_MS);
}

static struct orca_send_wqe_hdr flush_wqe(uint64_t wr_id, uint64_t va,
					  uint32_t rkey, uint32_t len,
					  uint32_t type, uint32_t level)
{
	struct orca_send_wqe_hdr h = wqe(ORCA_WQE_FLUSH, wr_id);

	h.remote_addr = htole64(va);
	h.rkey = htole32(rkey);
	h.length = htole32(len);
	h.imm_or_inv = htole32(FIELD_PREP(ORCA_WQE_FLUSH_TYPE, type) |
			       FIELD_PREP(ORCA_WQE_FLUSH_LEVEL, level));
	return h;
}

static struct orca_send_wqe_hdr atomic_write_wqe(uint64_t wr_id, uint64_t va,
						 uint32_t rkey,
						 const uint8_t bytes[8])
{
	struct orca_send_wqe_hdr h = wqe(ORCA_WQE_ATOMIC_WRITE, wr_id);

	h.remote_addr = htole64(va);
	h.rkey = htole32(rkey);
	memcpy(h.atomic_data, bytes, 8);
	return h;
}

static void put_be(uint8_t *p, uint64_t v, unsigned int bytes)
{
	for (unsigned int i = 0; i < bytes; i++)
		p[i] = (uint8_t)(v >> (8 * (bytes - 1 - i)));
}

/* BTH as rxe's bth_init() writes it: no SE/M/pad, P_Key 0xffff, TVer 0. */
static void rxe_bth(uint8_t *b, uint8_t opcode, uint32_t dqpn, bool ack_req,
		    uint32_t psn)
{
	memset(b, 0, ROCE_BTH_LEN);
	b[0] = opcode;
	b[2] = b[3] = 0xff;
	put_be(b + 5, dqpn, 3);
	b[8] = ack_req ? 0x80 : 0;
	put_be(b + 9, psn, 3);
}

static bool bytes_eq(const uint8_t *got, const uint8_t *want, size_t len,
		     const char *what)
{
	if (!memcmp(got, want, len))
		return true;
	printf("# %s differs:\n#  got ", what);
	for (size_t i = 0; i < len; i++)
		printf("%02x", got[i]);
	printf("\n# want ");
	for (size_t i = 0; i < len; i++)
		printf("%02x", want[i]);
	printf("\n");
	return false;
}

/*
 * The answer rxe's send_read_response_ack() gives: READ Response Only,
 * no AckReq, AETH 0x1f (ACK, no credit) and the MSN, no payload.
 */
static bool check_placed_ack(const uint8_t *bth, size_t len, uint32_t dqpn,
			     uint32_t psn, uint32_t msn)
{
	uint8_t want[ROCE_BTH_LEN + ROCE_AETH_LEN];

	rxe_bth(want, ROCE_RC_READ_RESP_ONLY, dqpn, false, psn);
	want[ROCE_BTH_LEN] = 0x1f;
	put_be(want + ROCE_BTH_LEN + 1, msn, 3);
	return len == sizeof(want) + ROCE_ICRC_LEN &&
	       bytes_eq(bth, want, sizeof(want), "READ Response Only");
}

/*
 * WRITE, then FLUSH (global, range) over what it wrote, then ATOMIC WRITE:
 * the requests on the wire and their answers are rxe's bytes, the data
 * is placed, the CQEs say FLUSH and ATOMIC_WRITE.
 */
static void test_frames_rxe_format(void)
{
	static const uint8_t val[8] = { 0x01, 0x23, 0x45, 0x67,
					0x89, 0xab, 0xcd, 0xef };
	struct orca_send_wqe_hdr h;
	struct tap ta, tb;
	struct pair p;
	struct tsge s;
	const uint8_t *f;
	uint8_t want[64];
	uint32_t psn;
	size_t len;

	if (!pair_init(&p, RDMA_RIGHTS | FLUSH_RIGHTS, RDMA_RIGHTS, 0)) {
		CHECK(!"setup");
		ktap_case_end("flush_and_atomic_write_frames_as_rxe");
		return;
	}
	psn = first_psn(&p);
	tap_start(&ta, &p.a, true);
	tap_start(&tb, &p.b, true);
	buf_fill(&p.a, &p.abuf, 0, 4096, 11);
	s = (struct tsge){ IOVA_A, 4096, p.abuf.key };
	h = wqe(ORCA_WQE_RDMA_WRITE, 1);
	h.remote_addr = htole64(IOVA_B + 100);
	h.rkey = htole32(p.bbuf.key);
	post_send(&p.a, &p.aqp, &h, &s, 1);
	h = flush_wqe(2, IOVA_B + 100, p.bbuf.key, 4096, ORCA_FLUSH_GLOBAL,
		      ORCA_FLUSH_LEVEL_RANGE);
	post_send(&p.a, &p.aqp, &h, NULL, 0);
	h = atomic_write_wqe(3, IOVA_B + 8192, p.bbuf.key, val);
	post_send(&p.a, &p.aqp, &h, NULL, 0);
	CHECK(expect_cqe(&p.a, &p.acq, 1, ORCA_CQE_RDMA_WRITE,
			 ORCA_CQE_ST_SUCCESS));
	CHECK(expect_cqe(&p.a, &p.acq, 2, ORCA_CQE_FLUSH,
			 ORCA_CQE_ST_SUCCESS));
	CHECK(expect_cqe(&p.a, &p.acq, 3, ORCA_CQE_ATOMIC_WRITE,
			 ORCA_CQE_ST_SUCCESS));
	CHECK(buf_check(&p.b, &p.bbuf, 100, 4096, 11));
	CHECK(bytes_eq(node_va(&p.b, &p.bbuf, 8192), val, 8,
		       "ATOMIC WRITE target"));
	tap_stop(&ta);
	tap_stop(&tb);

	/* FLUSH: BTH (AckReq) | FETH | RETH, nothing else (rxe_opcode.c). */
	len = tap_find(&ta, ROCE_RC_FLUSH, 0, &f);
	rxe_bth(want, ROCE_RC_FLUSH, p.bqp.qpn, true, (psn + 4) & ROCE_PSN_MASK);
	memset(want + 12, 0, 4);
	want[15] = 0x01;		/* level RANGE << 4 | type GLOBAL */
	put_be(want + 16, IOVA_B + 100, 8);
	put_be(want + 24, p.bbuf.key, 4);
	put_be(want + 28, 4096, 4);
	CHECK(len == 32 + ROCE_ICRC_LEN && bytes_eq(f, want, 32, "FLUSH"));
	/* ATOMIC WRITE: BTH (AckReq) | RETH (length 8) | the 8 bytes. */
	len = tap_find(&ta, ROCE_RC_ATOMIC_WRITE, 0, &f);
	rxe_bth(want, ROCE_RC_ATOMIC_WRITE, p.bqp.qpn, true,
		(psn + 5) & ROCE_PSN_MASK);
	put_be(want + 12, IOVA_B + 8192, 8);
	put_be(want + 20, p.bbuf.key, 4);
	put_be(want + 24, 8, 4);
	memcpy(want + 28, val, 8);
	CHECK(len == 36 + ROCE_ICRC_LEN &&
	      bytes_eq(f, want, 36, "ATOMIC WRITE"));
	/* Both answered by an empty READ Response Only, MSN 2 then 3. */
	len = tap_find(&tb, ROCE_RC_READ_RESP_ONLY, 0, &f);
	CHECK(len && check_placed_ack(f, len, p.aqp.qpn,
				      (psn + 4) & ROCE_PSN_MASK, 2));
	len = tap_find(&tb, ROCE_RC_READ_RESP_ONLY, 1, &f);
	CHECK(len && check_placed_ack(f, len, p.aqp.qpn,
				      (psn + 5) & ROCE_PSN_MASK, 3));
	CHECK(stats(&p.b).flushes == 1 && stats(&p.b).atomic_writes == 1);
	pair_fini(&p);
	ktap_case_end("flush_and_atomic_write_frames_as_rxe");
}

/*
 * FLUSH of a whole MR (level MR: address and length not checked, as
 * rxe), persistent and global; an ATOMIC WRITE's bytes land in memory
 * order and a FETCH_ADD after it reads them as the little-endian value.
 */
static void test_flush_mr_and_atomic_write_then_fetch_add(void)
{
	static const uint8_t val[8] = { 0x10, 0x32, 0x54, 0x76,
					0x98, 0xba, 0xdc, 0x0e };
	uint64_t *result;
	struct orca_send_wqe_hdr h;
	struct pair p;
	struct tsge s;

	if (!pair_init(&p, RDMA_RIGHTS | FLUSH_RIGHTS, RDMA_RIGHTS, 0)) {
		CHECK(!"setup");
		ktap_case_end("flush_whole_mr_and_atomic_write_bytes_in_order");
		return;
	}
	h = flush_wqe(10, 0, p.bbuf.key, 12345678,
		      ORCA_FLUSH_GLOBAL | ORCA_FLUSH_PERSISTENT,
		      ORCA_FLUSH_LEVEL_MR);
	post_send(&p.a, &p.aqp, &h, NULL, 0);
	CHECK(expect_cqe(&p.a, &p.acq, 10, ORCA_CQE_FLUSH,
			 ORCA_CQE_ST_SUCCESS));
	h = atomic_write_wqe(11, IOVA_B + 64, p.bbuf.key, val);
	post_send(&p.a, &p.aqp, &h, NULL, 0);
	h = wqe(ORCA_WQE_ATOMIC_FA, 12);
	h.remote_addr = htole64(IOVA_B + 64);
	h.rkey = htole32(p.bbuf.key);
	h.compare_add = htole64(1);
	s = (struct tsge){ IOVA_A + 128, 8, p.abuf.key };
	post_send(&p.a, &p.aqp, &h, &s, 1);
	CHECK(expect_cqe(&p.a, &p.acq, 11, ORCA_CQE_ATOMIC_WRITE,
			 ORCA_CQE_ST_SUCCESS));
	CHECK(expect_cqe(&p.a, &p.acq, 12, ORCA_CQE_FETCH_ADD,
			 ORCA_CQE_ST_SUCCESS));
	result = (uint64_t *)node_va(&p.a, &p.abuf, 128);
	CHECK(le64toh(*result) == 0x0edcba9876543210ull);
	CHECK(le64toh(*(uint64_t *)node_va(&p.b, &p.bbuf, 64)) ==
	      0x0edcba9876543211ull);
	pair_fini(&p);
	ktap_case_end("flush_whole_mr_and_atomic_write_bytes_in_order");
}

/*
 * Requests that must fail end to end: the requester's CQE has the status
 * the responder's NAK means, a WQE behind it is flushed, and memory is
 * untouched.
 */
static void test_requester_errors(void)
{
	static const uint8_t val[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	static const struct {
		const char *what;
		uint32_t b_qp_access, b2_access;
		uint8_t op;
		uint64_t va_off;	/* from B2's iova */
		uint32_t len, type;
		uint8_t status;
	} cases[] = {
		{ "flush_mr_without_flush_rights", RDMA_RIGHTS | FLUSH_RIGHTS,
		  RDMA_RIGHTS, ORCA_WQE_FLUSH, 0, 4096, ORCA_FLUSH_GLOBAL,
		  ORCA_CQE_ST_REM_ACCESS_ERR },
		{ "flush_persistent_on_global_only_mr",
		  RDMA_RIGHTS | FLUSH_RIGHTS,
		  RDMA_RIGHTS | ORCA_ACCESS_FLUSH_GLOBAL, ORCA_WQE_FLUSH, 0,
		  4096, ORCA_FLUSH_PERSISTENT, ORCA_CQE_ST_REM_ACCESS_ERR },
		{ "flush_past_the_mr", RDMA_RIGHTS | FLUSH_RIGHTS,
		  RDMA_RIGHTS | FLUSH_RIGHTS, ORCA_WQE_FLUSH, 4096, 4097,
		  ORCA_FLUSH_GLOBAL, ORCA_CQE_ST_REM_ACCESS_ERR },
		{ "flush_on_qp_without_flush_rights", RDMA_RIGHTS,
		  RDMA_RIGHTS | FLUSH_RIGHTS, ORCA_WQE_FLUSH, 0, 4096,
		  ORCA_FLUSH_GLOBAL, ORCA_CQE_ST_REM_ACCESS_ERR },
		{ "atomic_write_misaligned", RDMA_RIGHTS, RDMA_RIGHTS,
		  ORCA_WQE_ATOMIC_WRITE, 68, 8, 0,
		  ORCA_CQE_ST_REM_INV_REQ_ERR },
		{ "atomic_write_mr_without_remote_write", RDMA_RIGHTS,
		  ORCA_ACCESS_LOCAL_WRITE | ORCA_ACCESS_REMOTE_READ,
		  ORCA_WQE_ATOMIC_WRITE, 64, 8, 0,
		  ORCA_CQE_ST_REM_ACCESS_ERR },
		{ "atomic_write_past_the_mr", RDMA_RIGHTS, RDMA_RIGHTS,
		  ORCA_WQE_ATOMIC_WRITE, B2_LEN - 4, 8, 0,
		  ORCA_CQE_ST_REM_ACCESS_ERR },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint8_t zero[8] = { 0 };
		struct orca_send_wqe_hdr h;
		struct pair p;
		struct tsge s;
		bool fl = cases[i].op == ORCA_WQE_FLUSH;

		if (!pair_init(&p, cases[i].b_qp_access, cases[i].b2_access,
			       0)) {
			CHECK(!"setup");
			break;
		}
		if (fl)
			h = flush_wqe(20, IOVA_B2 + cases[i].va_off, p.b2.key,
				      cases[i].len, cases[i].type,
				      ORCA_FLUSH_LEVEL_RANGE);
		else
			h = atomic_write_wqe(20, IOVA_B2 + cases[i].va_off,
					     p.b2.key, val);
		post_send(&p.a, &p.aqp, &h, NULL, 0);
		h = wqe(ORCA_WQE_SEND, 21);
		s = (struct tsge){ IOVA_A, 10, p.abuf.key };
		post_send(&p.a, &p.aqp, &h, &s, 1);
		if (!expect_cqe(&p.a, &p.acq, 20, fl ? ORCA_CQE_FLUSH :
				ORCA_CQE_ATOMIC_WRITE, cases[i].status) ||
		    !expect_cqe(&p.a, &p.acq, 21, ORCA_CQE_SEND,
				ORCA_CQE_ST_WR_FLUSH_ERR)) {
			printf("# case %s\n", cases[i].what);
			CHECK(!"error CQEs");
		}
		for (uint64_t off = 60; off < 76 && off + 8 <= B2_LEN; off += 8)
			CHECK(!memcmp(node_va(&p.b, &p.b2, off), zero, 8));
		CHECK(stats(&p.b).err_naks_tx == 1);
		CHECK(stats(&p.b).flushes == 0 &&
		      stats(&p.b).atomic_writes == 0);
		pair_fini(&p);
	}
	ktap_case_end("flush_and_atomic_write_errors_nak_and_fail_the_wqe");
}

/* ---- frames from a peer (rxe's format, through our builder) ---- */

struct inj {
	uint8_t opcode;
	uint32_t psn_off;
	uint64_t va;
	uint32_t rkey, len;
	uint8_t plt, sel;
	const uint8_t *payload;
	uint32_t paylen;
};

static void inject(struct pair *p, const struct inj *r)
{
	static uint8_t frame[ROCE_MAX_FRAME];
	struct roce_pkt k = { 0 };
	size_t len;

	memcpy(k.dmac, p->b.mac, 6);
	memcpy(k.smac, p->a.mac, 6);
	k.vlan = ROCE_NO_VLAN;
	node_gid(&p->a, k.sgid);
	node_gid(&p->b, k.dgid);
	k.hop_limit = 64;
	k.pkey = ROCE_DEFAULT_PKEY;
	k.opcode = r->opcode;
	k.dest_qpn = p->bqp.qpn;
	k.psn = (first_psn(p) + r->psn_off) & ROCE_PSN_MASK;
	k.ack_req = true;
	k.reth_va = r->va;
	k.reth_rkey = r->rkey;
	k.reth_len = r->len;
	k.feth_plt = r->plt;
	k.feth_sel = r->sel;
	k.payload = r->payload;
	k.paylen = r->paylen;
	len = roce_build(frame, sizeof(frame), &k);
	CHECK(len > 0);
	engine_roce_rx(p->b.t.eng, frame, len);
	engine_flush(p->b.t.eng);
}

/*
 * The responder alone: executes each request once, answers a duplicate
 * again from its resources without executing it again (rxe: replay).
 */
static void test_responder_duplicates(void)
{
	static const uint8_t val[8] = { 0xde, 0xad, 0xbe, 0xef,
					0x00, 0x11, 0x22, 0x33 };
	uint8_t zero[8] = { 0 };
	struct tap tb;
	struct pair p;
	const uint8_t *f;
	size_t len;
	struct inj aw = { ROCE_RC_ATOMIC_WRITE, 0, 0, 0, 8, 0, 0, val, 8 };
	struct inj fl = { ROCE_RC_FLUSH, 1, 0, 0, 4096, ORCA_FLUSH_GLOBAL,
			  ORCA_FLUSH_LEVEL_RANGE, NULL, 0 };

	if (!pair_init(&p, RDMA_RIGHTS | FLUSH_RIGHTS, RDMA_RIGHTS, 0)) {
		CHECK(!"setup");
		ktap_case_end("responder_replays_duplicates_without_executing");
		return;
	}
	aw.va = IOVA_B + 512;
	aw.rkey = p.bbuf.key;
	fl.va = IOVA_B;
	fl.rkey = p.bbuf.key;
	tap_start(&tb, &p.b, false);
	inject(&p, &aw);
	CHECK(!memcmp(node_va(&p.b, &p.bbuf, 512), val, 8));
	memset(node_va(&p.b, &p.bbuf, 512), 0, 8);
	inject(&p, &aw);			/* duplicate: not again */
	CHECK(!memcmp(node_va(&p.b, &p.bbuf, 512), zero, 8));
	inject(&p, &fl);
	inject(&p, &fl);
	tap_stop(&tb);
	len = tap_find(&tb, ROCE_RC_READ_RESP_ONLY, 0, &f);
	CHECK(len && check_placed_ack(f, len, p.aqp.qpn, first_psn(&p), 1));
	len = tap_find(&tb, ROCE_RC_READ_RESP_ONLY, 1, &f);
	CHECK(len && check_placed_ack(f, len, p.aqp.qpn, first_psn(&p), 1));
	len = tap_find(&tb, ROCE_RC_READ_RESP_ONLY, 2, &f);
	CHECK(len && check_placed_ack(f, len, p.aqp.qpn,
				      (first_psn(&p) + 1) & ROCE_PSN_MASK, 2));
	len = tap_find(&tb, ROCE_RC_READ_RESP_ONLY, 3, &f);
	CHECK(len && check_placed_ack(f, len, p.aqp.qpn,
				      (first_psn(&p) + 1) & ROCE_PSN_MASK, 2));
	CHECK(tb.count == 4);
	CHECK(stats(&p.b).atomic_writes == 1 && stats(&p.b).flushes == 1);
	CHECK(stats(&p.b).dup_requests == 2);
	pair_fini(&p);
	ktap_case_end("responder_replays_duplicates_without_executing");
}

/*
 * Malformed requests a peer can send: each is NAKed (an ACK packet with
 * the NAK syndrome, as rxe sends) and executes nothing.
 */
static void test_responder_naks(void)
{
	static const uint8_t val[16] = { 9, 9, 9, 9, 9, 9, 9, 9,
					 9, 9, 9, 9, 9, 9, 9, 9 };
	static const struct {
		const char *what;
		uint8_t opcode;
		uint64_t va_off;
		uint32_t len, paylen;
		uint8_t plt, sel;
		uint32_t rkey_xor;
		uint8_t syndrome;
	} cases[] = {
		{ "flush reserved level", ROCE_RC_FLUSH, 0, 64, 0,
		  ORCA_FLUSH_GLOBAL, 2, 0, 0x61 },
		{ "flush bad rkey", ROCE_RC_FLUSH, 0, 64, 0,
		  ORCA_FLUSH_GLOBAL, 0, 0x01, 0x62 },
		{ "flush range past the MR", ROCE_RC_FLUSH, BUF_LEN - 8, 64,
		  0, ORCA_FLUSH_GLOBAL, 0, 0, 0x62 },
		{ "atomic write 16-byte RETH", ROCE_RC_ATOMIC_WRITE, 64, 16,
		  8, 0, 0, 0, 0x61 },
		{ "atomic write 4-byte payload", ROCE_RC_ATOMIC_WRITE, 64, 8,
		  4, 0, 0, 0, 0x61 },
		{ "atomic write 16-byte payload", ROCE_RC_ATOMIC_WRITE, 64,
		  16, 16, 0, 0, 0, 0x61 },
		{ "atomic write misaligned", ROCE_RC_ATOMIC_WRITE, 65, 8, 8,
		  0, 0, 0, 0x61 },
		{ "atomic write bad rkey", ROCE_RC_ATOMIC_WRITE, 64, 8, 8, 0,
		  0, 0x100, 0x62 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint8_t before[24];
		struct tap tb;
		struct pair p;
		struct inj r = { 0 };
		const uint8_t *f;
		uint8_t want[ROCE_BTH_LEN + ROCE_AETH_LEN];
		size_t len;

		if (!pair_init(&p, RDMA_RIGHTS | FLUSH_RIGHTS, RDMA_RIGHTS,
			       0)) {
			CHECK(!"setup");
			break;
		}
		memcpy(before, node_va(&p.b, &p.bbuf, 56), sizeof(before));
		r.opcode = cases[i].opcode;
		r.va = IOVA_B + cases[i].va_off;
		r.rkey = p.bbuf.key ^ cases[i].rkey_xor;
		r.len = cases[i].len;
		r.paylen = cases[i].paylen;
		r.payload = r.paylen ? val : NULL;
		r.plt = cases[i].plt;
		r.sel = cases[i].sel;
		tap_start(&tb, &p.b, false);
		inject(&p, &r);
		tap_stop(&tb);
		len = tap_find(&tb, ROCE_RC_ACK, 0, &f);
		rxe_bth(want, ROCE_RC_ACK, p.aqp.qpn, false, first_psn(&p));
		want[ROCE_BTH_LEN] = cases[i].syndrome;
		put_be(want + ROCE_BTH_LEN + 1, 0, 3);
		if (len != sizeof(want) + ROCE_ICRC_LEN ||
		    !bytes_eq(f, want, sizeof(want), cases[i].what)) {
			printf("# case %s: %zu-byte answer\n", cases[i].what,
			       len);
			CHECK(!"NAK");
		}
		CHECK(!memcmp(before, node_va(&p.b, &p.bbuf, 56),
			      sizeof(before)));
		CHECK(stats(&p.b).flushes == 0 &&
		      stats(&p.b).atomic_writes == 0);
		pair_fini(&p);
	}
	ktap_case_end("responder_naks_bad_flush_and_atomic_write");
}

/*
 * Under 10% frame loss, WRITE + FLUSH + ATOMIC WRITE rounds all complete
 * and each request executes exactly once (lost answers are replayed).
 */
static void test_lossy_rounds(void)
{
	const int rounds = 40;
	struct pair p;
	int ok = 0;

	if (!pair_init(&p, RDMA_RIGHTS | FLUSH_RIGHTS, RDMA_RIGHTS, 10)) {
		CHECK(!"setup");
		ktap_case_end("flush_and_atomic_write_under_loss_execute_once");
		return;
	}
	for (int i = 0; i < rounds; i++) {
		struct orca_send_wqe_hdr h;
		struct tsge s = { IOVA_A, 1000, p.abuf.key };
		uint8_t v[8];
		uint64_t le = htole64(0x1000 + i);

		memcpy(v, &le, 8);
		buf_fill(&p.a, &p.abuf, 0, 1000, 100 + i);
		h = wqe(ORCA_WQE_RDMA_WRITE, 3 * i);
		h.remote_addr = htole64(IOVA_B + 1000 * (i % 8));
		h.rkey = htole32(p.bbuf.key);
		post_send(&p.a, &p.aqp, &h, &s, 1);
		h = flush_wqe(3 * i + 1, IOVA_B + 1000 * (i % 8), p.bbuf.key,
			      1000, ORCA_FLUSH_GLOBAL, ORCA_FLUSH_LEVEL_RANGE);
		post_send(&p.a, &p.aqp, &h, NULL, 0);
		h = atomic_write_wqe(3 * i + 2, IOVA_B + 16384, p.bbuf.key, v);
		post_send(&p.a, &p.aqp, &h, NULL, 0);
		ok += expect_cqe(&p.a, &p.acq, 3 * i, ORCA_CQE_RDMA_WRITE,
				 ORCA_CQE_ST_SUCCESS) &&
		      expect_cqe(&p.a, &p.acq, 3 * i + 1, ORCA_CQE_FLUSH,
				 ORCA_CQE_ST_SUCCESS) &&
		      expect_cqe(&p.a, &p.acq, 3 * i + 2,
				 ORCA_CQE_ATOMIC_WRITE, ORCA_CQE_ST_SUCCESS) &&
		      buf_check(&p.b, &p.bbuf, 1000 * (i % 8), 1000, 100 + i) &&
		      le64toh(*(uint64_t *)node_va(&p.b, &p.bbuf, 16384)) ==
		      (uint64_t)(0x1000 + i);
	}
	CHECK(ok == rounds);
	CHECK(stats(&p.b).flushes == (uint64_t)rounds);
	CHECK(stats(&p.b).atomic_writes == (uint64_t)rounds);
	printf("# %lu of %lu frames dropped, %llu duplicate requests\n",
	       atomic_load(&p.a.dropped) + atomic_load(&p.b.dropped),
	       atomic_load(&p.a.sent) + atomic_load(&p.b.sent),
	       (unsigned long long)stats(&p.b).dup_requests);
	pair_fini(&p);
	ktap_case_end("flush_and_atomic_write_under_loss_execute_once");
}

/*
 * Hostile FLUSH and ATOMIC WRITE frames: random fields, lengths and
 * PSNs, a FLUSH with a payload and one too short for its headers; no
 * byte outside B's MR changes and both adapters still work.
 */
static void test_garbage(void)
{
	static uint8_t frame[ROCE_MAX_FRAME], payload[64];
	uint64_t rng = 0xf1a54ull, g_before, g_after, *g1, *g2;
	struct roce_rx_drops *d;
	uint64_t bad_len, truncated;
	struct pair p;

	if (!pair_init(&p, RDMA_RIGHTS | FLUSH_RIGHTS, RDMA_RIGHTS, 0)) {
		CHECK(!"setup");
		ktap_case_end("hostile_flush_and_atomic_write_frames");
		return;
	}
	g1 = gptr(&p.b.t, p.bbuf.pages[p.bbuf.npages - 1] - 8);
	g2 = gptr(&p.b.t, p.bbuf.pages[0] + 4096);
	*g1 = g_before = 0x5555aaaa5555aaaaull;
	*g2 = g_after = 0xaaaa5555aaaa5555ull;
	for (int i = 0; i < 4000; i++) {
		struct inj r = { 0 };

		rng ^= rng << 13;
		rng ^= rng >> 7;
		rng ^= rng << 17;
		r.opcode = rng & 1 ? ROCE_RC_FLUSH : ROCE_RC_ATOMIC_WRITE;
		r.psn_off = (uint32_t)(rng >> 8) % 16;
		r.va = (rng >> 12) % 4 ? IOVA_B + (rng >> 16) % BUF_LEN : rng;
		r.rkey = (rng >> 20) % 4 ? p.bbuf.key : (uint32_t)(rng >> 24);
		r.len = (rng >> 28) % 2 ? (uint32_t)(rng >> 30) % 80 :
					  (uint32_t)(rng >> 32);
		r.plt = (uint8_t)(rng >> 40);
		r.sel = (uint8_t)(rng >> 44);
		if (r.opcode == ROCE_RC_ATOMIC_WRITE) {
			r.paylen = (rng >> 48) % 3 ? 8 : (rng >> 50) % 64;
			r.payload = payload;
		}
		inject(&p, &r);
		if (!(i % 32)) {
			/* Revive B's QP when the garbage moved it to ERR. */
			struct orca_qp_attr a = { 0 };
			struct rc_opts o = {
				.path_mtu = 3, .timeout = 14, .retry_cnt = 7,
				.rnr_retry = 7,
				.access = RDMA_RIGHTS | FLUSH_RIGHTS,
			};

			a.attr_mask = htole32(ORCA_QP_ATTR_STATE);
			a.qp_state = ORCA_QPS_RESET;
			CHECK(node_modify(&p.b, &p.bqp, &a) == 0);
			p.bqp.sq_pi = p.bqp.rq_pi = 0;
			memset(qp_rec(&p.b, &p.bqp), 0,
			       sizeof(struct orca_qp_db_rec));
			CHECK(node_connect(&p.b, &p.bqp, &p.a, p.aqp.qpn, &o));
		}
	}
	/* A FLUSH carrying a payload, and one cut short: the parser drops. */
	d = &p.b.t.eng->roce->drops;
	engine_flush(p.b.t.eng);
	bad_len = d->err[ROCE_RX_BAD_LEN];
	truncated = d->err[ROCE_RX_TRUNCATED];
	{
		struct roce_pkt k = { 0 };
		struct roce_frame_hdrs h;
		size_t len;

		memcpy(k.dmac, p.b.mac, 6);
		memcpy(k.smac, p.a.mac, 6);
		k.vlan = ROCE_NO_VLAN;
		node_gid(&p.a, k.sgid);
		node_gid(&p.b, k.dgid);
		k.hop_limit = 64;
		k.pkey = ROCE_DEFAULT_PKEY;
		k.dest_qpn = p.bqp.qpn;
		k.opcode = ROCE_RC_ATOMIC_WRITE;
		k.paylen = 8;
		k.payload = payload;
		len = roce_build(frame, sizeof(frame), &k);
		CHECK(roce_classify(frame, len, &h) == ROCE_RX_OK);
		frame[h.udp_off + ROCE_UDP_HLEN] = ROCE_RC_FLUSH;
		engine_roce_rx(p.b.t.eng, frame, len);
		k.opcode = ROCE_RC_READ_REQ;	/* BTH + 16: FLUSH needs 20 */
		k.paylen = 0;
		len = roce_build(frame, sizeof(frame), &k);
		frame[h.udp_off + ROCE_UDP_HLEN] = ROCE_RC_FLUSH;
		engine_roce_rx(p.b.t.eng, frame, len);
		engine_flush(p.b.t.eng);
	}
	CHECK(d->err[ROCE_RX_BAD_LEN] == bad_len + 1);
	CHECK(d->err[ROCE_RX_TRUNCATED] == truncated + 1);
	CHECK(*g1 == g_before && *g2 == g_after);
	CHECK(th_cmd(&p.b.t, ORCA_CMD_NOP, NULL, 0) == ORCA_CMD_ST_OK);
	printf("# B: %llu error NAKs, %llu flushes, %llu atomic writes\n",
	       (unsigned long long)stats(&p.b).err_naks_tx,
	       (unsigned long long)stats(&p.b).flushes,
	       (unsigned long long)stats(&p.b).atomic_writes);
	pair_fini(&p);
	ktap_case_end("hostile_flush_and_atomic_write_frames");
}

int main(void)
{
	ktap_plan(7);
	test_frames_rxe_format();
	test_flush_mr_and_atomic_write_then_fetch_add();
	test_requester_errors();
	test_responder_duplicates();
	test_responder_naks();
	test_lossy_rounds();
	test_garbage();
	return ktap_finish();
}

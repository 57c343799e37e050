// SPDX-License-Identifier: GPL-2.0
/*
 * Memory windows (interface 1.4, IBA 10.6.7) end to end: two adapters back
 * to back, B's windows bound by BIND_MW work requests on B's QP and used by
 * A's RDMA WRITE, READ and atomics through their rkeys.  Every byte moved
 * through a window is checked where it landed in the MR; every refused
 * bind must complete with MW_BIND_ERR and leave the QP in error; every
 * access outside a window's range, rights, state or QP must be NAKed
 * (REM_ACCESS_ERR at A) however the MR under it would allow it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ktap.h"
#include "roce_node.h"

#define WAIT_MS		10000
#define IOVA_A		0x7f0000001000ull
#define IOVA_B		0x7e0000000800ull	/* not page aligned */
#define BUF_LEN		(64u << 10)
#define WIN_OFF		4096u			/* window: MR bytes 4096.. */
#define WIN_LEN		8192u

struct pair {
	struct node a, b;
	struct tcq acq, bcq;
	struct tqp aqp, bqp;
	struct tbuf abuf, bbuf;
};

static const struct rc_opts rc = {
	.path_mtu = 3, .timeout = 14, .retry_cnt = 7, .rnr_retry = 7,
	.min_rnr_timer = 1,
	.access = ORCA_ACCESS_LOCAL_WRITE | ORCA_ACCESS_REMOTE_WRITE |
		  ORCA_ACCESS_REMOTE_READ | ORCA_ACCESS_REMOTE_ATOMIC,
};

static bool pair_init(struct pair *p)
{
	memset(p, 0, sizeof(*p));
	if (!node_init(&p->a, 1) || !node_init(&p->b, 2))
		return false;
	p->a.peer = &p->b;
	p->b.peer = &p->a;
	/* B's MR may have windows bound; A's is plain. */
	return node_cq(&p->a, &p->acq, 10) && node_cq(&p->b, &p->bcq, 10) &&
	       node_buf(&p->a, &p->abuf, IOVA_A, BUF_LEN,
			ORCA_ACCESS_LOCAL_WRITE) &&
	       node_buf(&p->b, &p->bbuf, IOVA_B, BUF_LEN,
			ORCA_ACCESS_LOCAL_WRITE | ORCA_ACCESS_MW_BIND) &&
	       node_qp(&p->a, &p->aqp, ORCA_QPT_RC, &p->acq, &p->acq) &&
	       node_qp(&p->b, &p->bqp, ORCA_QPT_RC, &p->bcq, &p->bcq) &&
	       node_connect(&p->a, &p->aqp, &p->b, p->bqp.qpn, &rc) &&
	       node_connect(&p->b, &p->bqp, &p->a, p->aqp.qpn, &rc);
}

static void pair_fini(struct pair *p)
{
	engine_set_roce_tx(p->a.t.eng, NULL, NULL);
	engine_set_roce_tx(p->b.t.eng, NULL, NULL);
	node_fini(&p->b);
	node_fini(&p->a);
	free(p->abuf.pages);
	free(p->bbuf.pages);
}

#define expect_cqe(n, cq, wr_id, op, st, out) \
	node_expect_cqe(n, cq, wr_id, op, st, out, WAIT_MS)

/* ALLOC_MW on @pdn: the rkey, or -status. */
static int64_t mw_alloc_pd(struct node *n, uint32_t pdn, uint8_t type,
			   uint8_t key)
{
	struct orca_cmd_alloc_mw in = {
		.pdn = htole32(pdn), .type = type, .key = key,
	};
	struct orca_cmd_alloc_mw_out out;
	int st = th_cmd(&n->t, ORCA_CMD_ALLOC_MW, &in, sizeof(in));

	if (st)
		return st < 0 ? -100 : -st;
	memcpy(&out, n->t.last.out, sizeof(out));
	return le32toh(out.rkey);
}

static uint32_t mw_alloc(struct node *n, uint8_t type)
{
	int64_t v = mw_alloc_pd(n, n->pdn, type, 0x30);

	CHECK(v > 0);
	return v > 0 ? (uint32_t)v : 0;
}

static uint32_t next_key(uint32_t rkey)
{
	return (rkey & ~0xffu) | ((rkey + 1) & 0xff);
}

static struct orca_send_wqe_hdr bind_wqe(uint64_t wr_id, uint32_t mw,
					 uint32_t new_rkey, uint64_t addr,
					 uint64_t len, uint32_t access,
					 uint32_t lkey)
{
	struct orca_send_wqe_hdr h = wqe(ORCA_WQE_BIND_MW, wr_id);

	h.imm_or_inv = htole32(mw);
	h.rkey = htole32(new_rkey);
	h.remote_addr = htole64(addr);
	h.compare_add = htole64(len);
	h.swap = htole64(orca_bind_mw_swap(access, lkey));
	return h;
}

/* Binds @mw on B's QP and expects @status. */
static bool bind_b(struct pair *p, uint64_t wr_id, uint32_t mw,
		   uint32_t new_rkey, uint64_t addr, uint64_t len,
		   uint32_t access, uint32_t lkey, uint8_t status)
{
	struct orca_send_wqe_hdr h = bind_wqe(wr_id, mw, new_rkey, addr, len,
					      access, lkey);

	post_send(&p->b, &p->bqp, &h, NULL, 0);
	return expect_cqe(&p->b, &p->bcq, wr_id, ORCA_CQE_BIND_MW, status,
			  NULL);
}

/* A's RDMA op of @len bytes of its buffer at remote @raddr/@rkey. */
static bool a_rdma(struct pair *p, uint8_t op, uint64_t wr_id, uint32_t len,
		   uint64_t raddr, uint32_t rkey, uint8_t status)
{
	struct orca_send_wqe_hdr h = wqe(op, wr_id);
	struct tsge s = { IOVA_A, len, p->abuf.key };

	h.remote_addr = htole64(raddr);
	h.rkey = htole32(rkey);
	if (op == ORCA_WQE_ATOMIC_FA)
		h.compare_add = htole64(5);
	post_send(&p->a, &p->aqp, &h, &s, 1);
	return expect_cqe(&p->a, &p->acq, wr_id,
			  op == ORCA_WQE_RDMA_READ ? ORCA_CQE_RDMA_READ :
			  op == ORCA_WQE_ATOMIC_FA ? ORCA_CQE_FETCH_ADD :
			  ORCA_CQE_RDMA_WRITE, status, NULL);
}

static const uint32_t rw = ORCA_ACCESS_REMOTE_WRITE | ORCA_ACCESS_REMOTE_READ;

/*
 * Type 1: bound, written and read through the window (bytes checked in
 * B's MR), bound again with a new key: the old rkey stops working.
 */
static void test_type1_bind_access_rebind(void)
{
	const char *name = "mw_type1_bind_write_read_rebind_new_key";
	uint32_t mw, k1, k2;
	struct pair p;

	if (!pair_init(&p)) {
		CHECK(!"setup");
		ktap_case_end(name);
		return;
	}
	mw = mw_alloc(&p.b, ORCA_MW_TYPE_1);
	k1 = next_key(mw);
	CHECK(bind_b(&p, 1, mw, k1, IOVA_B + WIN_OFF, WIN_LEN, rw,
		     p.bbuf.key, ORCA_CQE_ST_SUCCESS));
	buf_fill(&p.a, &p.abuf, 0, 5000, 11);
	CHECK(a_rdma(&p, ORCA_WQE_RDMA_WRITE, 2, 5000,
		     IOVA_B + WIN_OFF + 100, k1, ORCA_CQE_ST_SUCCESS));
	CHECK(buf_check(&p.b, &p.bbuf, WIN_OFF + 100, 5000, 11));
	/* The last byte of the window, read back. */
	buf_fill(&p.b, &p.bbuf, WIN_OFF + WIN_LEN - 64, 64, 12);
	CHECK(a_rdma(&p, ORCA_WQE_RDMA_READ, 3, 64,
		     IOVA_B + WIN_OFF + WIN_LEN - 64, k1,
		     ORCA_CQE_ST_SUCCESS));
	CHECK(buf_check(&p.a, &p.abuf, 0, 64, 12));
	/* Bound again in place: new key, new range. */
	k2 = next_key(k1);
	CHECK(k2 != k1);
	CHECK(bind_b(&p, 4, k1, k2, IOVA_B, 1024, rw, p.bbuf.key,
		     ORCA_CQE_ST_SUCCESS));
	buf_fill(&p.a, &p.abuf, 0, 1024, 13);
	CHECK(a_rdma(&p, ORCA_WQE_RDMA_WRITE, 5, 1024, IOVA_B, k2,
		     ORCA_CQE_ST_SUCCESS));
	CHECK(buf_check(&p.b, &p.bbuf, 0, 1024, 13));
	CHECK(a_rdma(&p, ORCA_WQE_RDMA_WRITE, 6, 16, IOVA_B, k1,
		     ORCA_CQE_ST_REM_ACCESS_ERR));
	pair_fini(&p);
	ktap_case_end(name);
}

/*
 * Type 2: bound, invalidated by LOCAL_INV, bound again (it is free), used,
 * invalidated by A's SEND_WITH_INV (B's receive CQE reports the rkey),
 * bound a third time; the invalidated rkeys are refused.
 */
static void test_type2_invalidate(void)
{
	const char *name = "mw_type2_local_inv_send_with_inv_rebind";
	struct orca_send_wqe_hdr h;
	uint32_t mw, k1, k2, k3;
	struct orca_cqe c;
	struct tsge s, r;
	struct pair p;

	if (!pair_init(&p)) {
		CHECK(!"setup");
		ktap_case_end(name);
		return;
	}
	mw = mw_alloc(&p.b, ORCA_MW_TYPE_2);
	/* Free: its rkey reaches nothing yet. */
	k1 = next_key(mw);
	CHECK(bind_b(&p, 1, mw, k1, IOVA_B + WIN_OFF, WIN_LEN,
		     rw | ORCA_ACCESS_REMOTE_ATOMIC, p.bbuf.key,
		     ORCA_CQE_ST_SUCCESS));
	buf_fill(&p.a, &p.abuf, 0, 3000, 21);
	CHECK(a_rdma(&p, ORCA_WQE_RDMA_WRITE, 2, 3000, IOVA_B + WIN_OFF, k1,
		     ORCA_CQE_ST_SUCCESS));
	CHECK(buf_check(&p.b, &p.bbuf, WIN_OFF, 3000, 21));
	/* An atomic through the window, on the MR's bytes. */
	memset(node_va(&p.b, &p.bbuf, WIN_OFF + 8), 0, 8);
	*node_va(&p.b, &p.bbuf, WIN_OFF + 8) = 40;
	CHECK(a_rdma(&p, ORCA_WQE_ATOMIC_FA, 3, 8, IOVA_B + WIN_OFF + 8, k1,
		     ORCA_CQE_ST_SUCCESS));
	CHECK(*node_va(&p.b, &p.bbuf, WIN_OFF + 8) == 45);

	h = wqe(ORCA_WQE_LOCAL_INV, 4);
	h.imm_or_inv = htole32(k1);
	post_send(&p.b, &p.bqp, &h, NULL, 0);
	CHECK(expect_cqe(&p.b, &p.bcq, 4, ORCA_CQE_LOCAL_INV,
			 ORCA_CQE_ST_SUCCESS, NULL));
	k2 = next_key(k1);
	CHECK(bind_b(&p, 5, k1, k2, IOVA_B, WIN_LEN, rw, p.bbuf.key,
		     ORCA_CQE_ST_SUCCESS));
	buf_fill(&p.a, &p.abuf, 0, 100, 22);
	CHECK(a_rdma(&p, ORCA_WQE_RDMA_WRITE, 6, 100, IOVA_B + 7, k2,
		     ORCA_CQE_ST_SUCCESS));
	CHECK(buf_check(&p.b, &p.bbuf, 7, 100, 22));

	/* Remote invalidation. */
	r = (struct tsge){ IOVA_B + BUF_LEN - 64, 64, p.bbuf.key };
	post_recv(&p.b, &p.bqp, 7, &r, 1);
	h = wqe(ORCA_WQE_SEND_INV, 8);
	h.imm_or_inv = htole32(k2);
	s = (struct tsge){ IOVA_A, 10, p.abuf.key };
	post_send(&p.a, &p.aqp, &h, &s, 1);
	CHECK(expect_cqe(&p.a, &p.acq, 8, ORCA_CQE_SEND, ORCA_CQE_ST_SUCCESS,
			 NULL));
	CHECK(expect_cqe(&p.b, &p.bcq, 7, ORCA_CQE_RECV, ORCA_CQE_ST_SUCCESS,
			 &c));
	CHECK((c.flags & ORCA_CQE_F_INV) && le32toh(c.imm_or_inv) == k2);
	k3 = next_key(k2);
	CHECK(bind_b(&p, 9, k2, k3, IOVA_B, 64, rw, p.bbuf.key,
		     ORCA_CQE_ST_SUCCESS));
	CHECK(a_rdma(&p, ORCA_WQE_RDMA_WRITE, 10, 16, IOVA_B + 7, k2,
		     ORCA_CQE_ST_REM_ACCESS_ERR));
	pair_fini(&p);
	ktap_case_end(name);
}

/* A zero-based window: wire address n is MR byte (window start + n). */
static void test_zero_based(void)
{
	const char *name = "mw_type2_zero_based_window";
	uint32_t mw, k;
	struct pair p;

	if (!pair_init(&p)) {
		CHECK(!"setup");
		ktap_case_end(name);
		return;
	}
	mw = mw_alloc(&p.b, ORCA_MW_TYPE_2);
	k = next_key(mw);
	CHECK(bind_b(&p, 1, mw, k, IOVA_B + WIN_OFF, WIN_LEN,
		     rw | ORCA_MW_BIND_ZERO_BASED, p.bbuf.key,
		     ORCA_CQE_ST_SUCCESS));
	buf_fill(&p.a, &p.abuf, 0, 2000, 31);
	CHECK(a_rdma(&p, ORCA_WQE_RDMA_WRITE, 2, 2000, 100, k,
		     ORCA_CQE_ST_SUCCESS));
	CHECK(buf_check(&p.b, &p.bbuf, WIN_OFF + 100, 2000, 31));
	buf_fill(&p.b, &p.bbuf, WIN_OFF, 32, 32);
	CHECK(a_rdma(&p, ORCA_WQE_RDMA_READ, 3, 32, 0, k,
		     ORCA_CQE_ST_SUCCESS));
	CHECK(buf_check(&p.a, &p.abuf, 0, 32, 32));
	/* The window's end, not the MR's. */
	CHECK(a_rdma(&p, ORCA_WQE_RDMA_WRITE, 4, 200, WIN_LEN - 100, k,
		     ORCA_CQE_ST_REM_ACCESS_ERR));
	pair_fini(&p);
	ktap_case_end(name);
}

/*
 * Accesses the window refuses though B's MR (and QP) would not: each on
 * its own pair, since a NAK takes A's QP to error.
 */
static void test_access_naks(void)
{
	const char *name = "mw_out_of_window_wrong_rights_state_naked";

	for (int v = 0; v < 9; v++) {
		uint32_t mw, k, access = ORCA_ACCESS_REMOTE_WRITE;
		uint64_t raddr = IOVA_B + WIN_OFF;
		uint8_t op = ORCA_WQE_RDMA_WRITE, type = ORCA_MW_TYPE_2;
		uint32_t len = 64;
		struct pair p;

		if (!pair_init(&p)) {
			CHECK(!"setup");
			break;
		}
		switch (v) {
		case 0:	/* past the window's end, inside the MR */
			raddr = IOVA_B + WIN_OFF + WIN_LEN - 32;
			break;
		case 1:	/* before its start */
			raddr = IOVA_B + WIN_OFF - 1;
			break;
		case 2:	/* READ through a write-only window */
			op = ORCA_WQE_RDMA_READ;
			break;
		case 3:	/* WRITE through a read-only window */
			access = ORCA_ACCESS_REMOTE_READ;
			break;
		case 4:	/* atomic without the right */
			op = ORCA_WQE_ATOMIC_FA;
			len = 8;
			break;
		case 5:	/* a type 1 window bound to nothing */
			type = ORCA_MW_TYPE_1;
			break;
		case 6:	/* a type 2 window never bound */
			break;
		case 7:	/* a bound window's rkey with the old key byte */
			break;
		case 8:	/* a window's length wraps 64 bits */
			raddr = UINT64_MAX - 16;
			break;
		}
		mw = mw_alloc(&p.b, type);
		k = next_key(mw);
		if (v != 5 && v != 6)
			CHECK(bind_b(&p, 1, mw, k, IOVA_B + WIN_OFF, WIN_LEN,
				     access, p.bbuf.key,
				     ORCA_CQE_ST_SUCCESS));
		if (v >= 5 && v <= 7)
			k = mw;
		CHECK(a_rdma(&p, op, 2, len, raddr, k,
			     ORCA_CQE_ST_REM_ACCESS_ERR));
		pair_fini(&p);
	}
	ktap_case_end(name);
}

/* A window's rkey is no lkey, and a window is bound only by its PD's QP. */
static void test_local_use_refused(void)
{
	const char *name = "mw_rkey_as_lkey_local_protection_error";
	struct orca_send_wqe_hdr h;
	struct tsge s;
	uint32_t mw, k;
	struct pair p;

	if (!pair_init(&p)) {
		CHECK(!"setup");
		ktap_case_end(name);
		return;
	}
	mw = mw_alloc(&p.b, ORCA_MW_TYPE_1);
	k = next_key(mw);
	CHECK(bind_b(&p, 1, mw, k, IOVA_B, WIN_LEN, rw, p.bbuf.key,
		     ORCA_CQE_ST_SUCCESS));
	h = wqe(ORCA_WQE_SEND, 2);
	s = (struct tsge){ IOVA_B, 16, k };
	post_send(&p.b, &p.bqp, &h, &s, 1);
	CHECK(expect_cqe(&p.b, &p.bcq, 2, ORCA_CQE_SEND,
			 ORCA_CQE_ST_LOC_PROT_ERR, NULL));
	pair_fini(&p);
	ktap_case_end(name);
}

/* Binds the adapter refuses: MW_BIND_ERR, and the QP goes to error. */
static void test_bad_binds(void)
{
	const char *name = "mw_bad_binds_mw_bind_err_qp_error";

	for (int v = 0; v < 13; v++) {
		uint32_t mw, k, lkey, access = rw;
		uint64_t addr = IOVA_B + WIN_OFF, len = WIN_LEN;
		uint8_t type = ORCA_MW_TYPE_2;
		struct orca_send_wqe_hdr h;
		struct tsge s;
		struct pair p;
		int64_t v64;

		if (!pair_init(&p)) {
			CHECK(!"setup");
			break;
		}
		lkey = p.bbuf.key;
		if (v == 6 || v == 7)
			type = ORCA_MW_TYPE_1;
		mw = mw_alloc(&p.b, type);
		k = next_key(mw);
		switch (v) {
		case 0:	/* the MR lacks ORCA_ACCESS_MW_BIND (C10-73) */
			v64 = node_mr_raw(&p.b, IOVA_B, BUF_LEN,
					  ORCA_ACCESS_LOCAL_WRITE, 0,
					  p.bbuf.pages, p.bbuf.npages);
			CHECK(v64 > 0);
			lkey = (uint32_t)v64;
			break;
		case 1:	/* C10-74: writable window, MR not locally writable */
			v64 = node_mr_raw(&p.b, IOVA_B, BUF_LEN,
					  ORCA_ACCESS_MW_BIND, 0,
					  p.bbuf.pages, p.bbuf.npages);
			CHECK(v64 > 0);
			lkey = (uint32_t)v64;
			break;
		case 2:	/* past the MR's end (C10-75) */
			addr = IOVA_B + BUF_LEN - 100;
			break;
		case 3:	/* before its start */
			addr = IOVA_B - 1;
			len = 16;
			break;
		case 4:	/* a type 2 window bound already */
			CHECK(bind_b(&p, 1, mw, k, addr, len, rw, lkey,
				     ORCA_CQE_ST_SUCCESS));
			mw = k;
			k = next_key(k);
			break;
		case 5:	/* a type 2 window with length 0 */
			len = 0;
			break;
		case 6:	/* a zero-based type 1 window */
			access |= ORCA_MW_BIND_ZERO_BASED;
			break;
		case 7:	/* the window's key byte is stale */
			mw = next_key(next_key(mw));
			break;
		case 8:	/* the new rkey names another index */
			k = mw + 0x100;
			break;
		case 9:	/* rights the adapter does not know */
			access |= BIT(12);
			break;
		case 10: /* an MR's key where the window's goes */
			mw = lkey;
			k = next_key(lkey);
			break;
		case 11: /* the lkey's key byte is stale */
			lkey = next_key(lkey);
			break;
		case 12: { /* a window of another PD */
			int64_t pd2 = th_create_pd(&p.b.t);

			CHECK(pd2 > 0);
			v64 = mw_alloc_pd(&p.b, (uint32_t)pd2,
					  ORCA_MW_TYPE_2, 7);
			CHECK(v64 > 0);
			mw = (uint32_t)v64;
			k = next_key(mw);
			break;
		}
		}
		CHECK(bind_b(&p, 2, mw, k, addr, len, access, lkey,
			     ORCA_CQE_ST_MW_BIND_ERR));
		/* The QP is in error: the next WQE is flushed. */
		h = wqe(ORCA_WQE_SEND, 3);
		s = (struct tsge){ IOVA_B, 16, p.bbuf.key };
		post_send(&p.b, &p.bqp, &h, &s, 1);
		CHECK(expect_cqe(&p.b, &p.bcq, 3, ORCA_CQE_SEND,
				 ORCA_CQE_ST_WR_FLUSH_ERR, NULL));
		if (ktap_case_failures)
			printf("# bad bind variant %d\n", v);
		pair_fini(&p);
	}
	ktap_case_end(name);
}

/*
 * Type 2 windows serve the QP they were bound through: another QP of the
 * same PD is refused; a type 1 window serves any QP of its PD.
 */
static void test_type2_other_qp(void)
{
	const char *name = "mw_type2_only_its_qp_type1_any_qp";
	uint32_t mw1, mw2, k1, k2;
	struct tqp aqp2, bqp2;
	struct pair p;

	if (!pair_init(&p)) {
		CHECK(!"setup");
		ktap_case_end(name);
		return;
	}
	CHECK(node_qp(&p.a, &aqp2, ORCA_QPT_RC, &p.acq, &p.acq) &&
	      node_qp(&p.b, &bqp2, ORCA_QPT_RC, &p.bcq, &p.bcq) &&
	      node_connect(&p.a, &aqp2, &p.b, bqp2.qpn, &rc) &&
	      node_connect(&p.b, &bqp2, &p.a, aqp2.qpn, &rc));
	mw1 = mw_alloc(&p.b, ORCA_MW_TYPE_1);
	mw2 = mw_alloc(&p.b, ORCA_MW_TYPE_2);
	k1 = next_key(mw1);
	k2 = next_key(mw2);
	CHECK(bind_b(&p, 1, mw1, k1, IOVA_B, WIN_LEN, rw, p.bbuf.key,
		     ORCA_CQE_ST_SUCCESS));
	CHECK(bind_b(&p, 2, mw2, k2, IOVA_B, WIN_LEN, rw, p.bbuf.key,
		     ORCA_CQE_ST_SUCCESS));
	/* Through the second QP pair: type 1 fine, type 2 refused. */
	{
		struct orca_send_wqe_hdr h = wqe(ORCA_WQE_RDMA_WRITE, 3);
		struct tsge s = { IOVA_A, 32, p.abuf.key };

		buf_fill(&p.a, &p.abuf, 0, 32, 41);
		h.remote_addr = htole64(IOVA_B + 64);
		h.rkey = htole32(k1);
		post_send(&p.a, &aqp2, &h, &s, 1);
		CHECK(expect_cqe(&p.a, &p.acq, 3, ORCA_CQE_RDMA_WRITE,
				 ORCA_CQE_ST_SUCCESS, NULL));
		CHECK(buf_check(&p.b, &p.bbuf, 64, 32, 41));
		h = wqe(ORCA_WQE_RDMA_WRITE, 4);
		h.remote_addr = htole64(IOVA_B + 64);
		h.rkey = htole32(k2);
		post_send(&p.a, &aqp2, &h, &s, 1);
		CHECK(expect_cqe(&p.a, &p.acq, 4, ORCA_CQE_RDMA_WRITE,
				 ORCA_CQE_ST_REM_ACCESS_ERR, NULL));
	}
	/* Through the QP it was bound through: fine. */
	buf_fill(&p.a, &p.abuf, 0, 32, 42);
	CHECK(a_rdma(&p, ORCA_WQE_RDMA_WRITE, 5, 32, IOVA_B + 128, k2,
		     ORCA_CQE_ST_SUCCESS));
	CHECK(buf_check(&p.b, &p.bbuf, 128, 32, 42));
	pair_fini(&p);
	ktap_case_end(name);
}

/*
 * DESTROY_MR of an MR with a window bound is refused (BUSY); DEALLOC_MW
 * of the bound window unbinds it, and then the MR goes.  The commands'
 * handle checks: a window is no MR, an MR no window.
 */
static void test_dealloc_while_bound(void)
{
	const char *name = "mw_dealloc_while_bound_mr_destroy_busy";
	uint32_t mw, k;
	struct pair p;

	if (!pair_init(&p)) {
		CHECK(!"setup");
		ktap_case_end(name);
		return;
	}
	CHECK(mw_alloc_pd(&p.b, p.b.pdn, 3, 0) == -ORCA_CMD_ST_BAD_PARAM);
	CHECK(mw_alloc_pd(&p.b, p.b.pdn, 0, 0) == -ORCA_CMD_ST_BAD_PARAM);
	CHECK(mw_alloc_pd(&p.b, 999, ORCA_MW_TYPE_1, 0) ==
	      -ORCA_CMD_ST_BAD_HANDLE);
	mw = mw_alloc(&p.b, ORCA_MW_TYPE_2);
	k = next_key(mw);
	CHECK(th_destroy(&p.b.t, ORCA_CMD_DESTROY_MR, mw) ==
	      ORCA_CMD_ST_BAD_HANDLE);
	CHECK(th_destroy(&p.b.t, ORCA_CMD_DEALLOC_MW, p.bbuf.key) ==
	      ORCA_CMD_ST_BAD_HANDLE);
	CHECK(bind_b(&p, 1, mw, k, IOVA_B, WIN_LEN, rw, p.bbuf.key,
		     ORCA_CQE_ST_SUCCESS));
	CHECK(th_destroy(&p.b.t, ORCA_CMD_DESTROY_MR, p.bbuf.key) ==
	      ORCA_CMD_ST_BUSY);
	/* The PD holds the window. */
	CHECK(th_destroy(&p.b.t, ORCA_CMD_DESTROY_PD, p.b.pdn) ==
	      ORCA_CMD_ST_BUSY);
	buf_fill(&p.a, &p.abuf, 0, 32, 51);
	CHECK(a_rdma(&p, ORCA_WQE_RDMA_WRITE, 2, 32, IOVA_B, k,
		     ORCA_CQE_ST_SUCCESS));
	CHECK(buf_check(&p.b, &p.bbuf, 0, 32, 51));
	CHECK(th_destroy(&p.b.t, ORCA_CMD_DEALLOC_MW, k) == ORCA_CMD_ST_OK);
	CHECK(th_destroy(&p.b.t, ORCA_CMD_DEALLOC_MW, k) ==
	      ORCA_CMD_ST_BAD_HANDLE);
	CHECK(th_destroy(&p.b.t, ORCA_CMD_DESTROY_MR, p.bbuf.key) ==
	      ORCA_CMD_ST_OK);
	CHECK(a_rdma(&p, ORCA_WQE_RDMA_WRITE, 3, 32, IOVA_B, k,
		     ORCA_CQE_ST_REM_ACCESS_ERR));
	pair_fini(&p);
	ktap_case_end(name);
}

static uint64_t rng(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/*
 * Garbage BIND_MW WQEs: random keys (some naming the real window and MR),
 * ranges and rights.  Each completes with SUCCESS or MW_BIND_ERR, on a
 * fresh QP each time, and the adapter keeps answering commands.
 */
static void test_garbage_binds(void)
{
	const char *name = "mw_garbage_bind_wqes_no_crash";
	uint64_t seed = 0x1234567887654321ull;
	uint32_t mw1, mw2;
	int ok = 0, bad = 0;
	struct node n;
	struct tcq cq;

	if (!node_init(&n, 9) || !node_cq(&n, &cq, 10)) {
		CHECK(!"setup");
		ktap_case_end(name);
		return;
	}
	{
		struct tbuf b;

		CHECK(node_buf(&n, &b, IOVA_B, BUF_LEN,
			       ORCA_ACCESS_LOCAL_WRITE | ORCA_ACCESS_MW_BIND));
		mw1 = mw_alloc(&n, ORCA_MW_TYPE_1);
		mw2 = mw_alloc(&n, ORCA_MW_TYPE_2);
		for (int i = 0; i < 200; i++) {
			uint64_t r = rng(&seed);
			uint32_t win = (r & 1) ? mw1 : (r & 2) ? mw2 :
				       (uint32_t)rng(&seed);
			uint32_t lkey = (r & 4) ? b.key : (uint32_t)rng(&seed);
			struct orca_send_wqe_hdr h;
			struct orca_cqe c;
			struct tqp qp;

			CHECK(node_qp(&n, &qp, ORCA_QPT_RC, &cq, &cq) &&
			      node_connect(&n, &qp, &n, qp.qpn, &rc));
			h = bind_wqe(i, win, (r & 8) ? next_key(win) :
				     (uint32_t)rng(&seed),
				     (r & 16) ? IOVA_B + (rng(&seed) & 0xffff) :
				     rng(&seed),
				     (r & 32) ? rng(&seed) & 0xffff : rng(&seed),
				     (r & 64) ? (uint32_t)rng(&seed) :
				     (uint32_t)(rng(&seed) & 0xf),
				     lkey);
			h.num_sge = (uint8_t)(r >> 8);
			h.flags = (uint8_t)(r >> 16) | ORCA_WQE_F_SIGNALED;
			h.flags &= (uint8_t)~ORCA_WQE_F_INLINE;
			h.length = htole32((uint32_t)(r >> 24));
			post_send(&n, &qp, &h, NULL, 0);
			if (!poll_cq(&n, &cq, &c, WAIT_MS)) {
				CHECK(!"no CQE for a garbage bind");
				break;
			}
			CHECK(c.opcode == ORCA_CQE_BIND_MW);
			if (c.status == ORCA_CQE_ST_SUCCESS) {
				ok++;
				/* The window's key is the new one now. */
				if (win == mw2)
					mw2 = le32toh(h.rkey);
				if (win == mw1)
					mw1 = le32toh(h.rkey);
			} else {
				CHECK(c.status == ORCA_CQE_ST_MW_BIND_ERR);
				bad++;
			}
			th_destroy(&n.t, ORCA_CMD_DESTROY_QP, qp.qpn);
		}
		printf("# %d binds taken, %d refused\n", ok, bad);
		CHECK(ok > 0 && bad > 0);
		CHECK(th_cmd(&n.t, ORCA_CMD_NOP, NULL, 0) == ORCA_CMD_ST_OK);
		free(b.pages);
	}
	node_fini(&n);
	ktap_case_end(name);
}

int main(void)
{
	ktap_plan(9);
	test_type1_bind_access_rebind();
	test_type2_invalidate();
	test_zero_based();
	test_access_naks();
	test_local_use_refused();
	test_bad_binds();
	test_type2_other_qp();
	test_dealloc_while_bound();
	test_garbage_binds();
	return ktap_finish();
}

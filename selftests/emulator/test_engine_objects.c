// SPDX-License-Identifier: GPL-2.0
/*
 * Engine resource commands: CQs (create, resize, destroy), MRs (page list,
 * PHYS, FAST_REG), AHs, SRQs and QP creation/query/destroy, each success
 * path and each error status, and the references between them.
 */
#include "engine_harness.h"

static int cq_exec(struct th *t, uint16_t op, const void *in, size_t size,
		   uint64_t in_addr, uint32_t in_len)
{
	struct tcmd c = {
		.opcode = op, .in = in, .in_size = size,
		.in_addr = in_addr, .in_len = in_len,
	};

	return th_exec(t, &c);
}

static void test_cq_create_errors(void)
{
	struct orca_cmd_create_cq in, good;
	struct th_objs o;
	uint64_t list;
	uint64_t *l;
	struct th t;

	CHECK(th_setup(&t, &o));
	good = th_cq_in(&t, 0, o.uar, 7);	/* 128 * 32 B = one page */
	CHECK(cq_exec(&t, ORCA_CMD_CREATE_CQ, &good, sizeof(good), 0, 0) ==
	      ORCA_CMD_ST_OK);
	CHECK(th_out_handle(&t) == 2);

	in = good;
	in.eqn = htole16(1);
	CHECK(cq_exec(&t, ORCA_CMD_CREATE_CQ, &in, sizeof(in), 0, 0) ==
	      ORCA_CMD_ST_BAD_HANDLE);
	in = good;
	in.uar = htole32(1);
	CHECK(cq_exec(&t, ORCA_CMD_CREATE_CQ, &in, sizeof(in), 0, 0) ==
	      ORCA_CMD_ST_BAD_HANDLE);
	in = good;
	in.log_depth = 0;
	CHECK(cq_exec(&t, ORCA_CMD_CREATE_CQ, &in, sizeof(in), 0, 0) ==
	      ORCA_CMD_ST_BAD_PARAM);
	in.log_depth = 19;		/* one past max_cqe */
	CHECK(cq_exec(&t, ORCA_CMD_CREATE_CQ, &in, sizeof(in), 0, 0) ==
	      ORCA_CMD_ST_BAD_PARAM);
	in = good;
	in.npages = htole32(0);
	CHECK(cq_exec(&t, ORCA_CMD_CREATE_CQ, &in, sizeof(in), 0, 0) ==
	      ORCA_CMD_ST_BAD_PARAM);
	in = good;
	in.db_rec_addr = htole64(le64toh(good.db_rec_addr) + 4);
	CHECK(cq_exec(&t, ORCA_CMD_CREATE_CQ, &in, sizeof(in), 0, 0) ==
	      ORCA_CMD_ST_BAD_PARAM);
	in.db_rec_addr = 0;
	CHECK(cq_exec(&t, ORCA_CMD_CREATE_CQ, &in, sizeof(in), 0, 0) ==
	      ORCA_CMD_ST_BAD_PARAM);
	in.db_rec_addr = htole64(UNMAPPED);
	CHECK(cq_exec(&t, ORCA_CMD_CREATE_CQ, &in, sizeof(in), 0, 0) ==
	      ORCA_CMD_ST_DMA_ERROR);
	in = good;
	in.page_addr = htole64(UNMAPPED);
	CHECK(cq_exec(&t, ORCA_CMD_CREATE_CQ, &in, sizeof(in), 0, 0) ==
	      ORCA_CMD_ST_DMA_ERROR);

	/*
	 * max_cqe, 262144 CQEs (libfabric's verbs;ofi_rxm asks that many) =
	 * 2048 pages through a page list.
	 */
	in = good;
	in.log_depth = 18;
	in.npages = htole32(2048);
	list = galloc(&t, 2048 * 8, 0);
	l = gptr(&t, list);
	{
		uint64_t buf = galloc(&t, 2048 * 4096, 0);
		int i;

		for (i = 0; i < 2048; i++)
			l[i] = htole64(buf + i * 4096ull);
	}
	CHECK(cq_exec(&t, ORCA_CMD_CREATE_CQ, &in, sizeof(in), list,
		      2048 * 8 - 8) == ORCA_CMD_ST_BAD_LENGTH);
	CHECK(cq_exec(&t, ORCA_CMD_CREATE_CQ, &in, sizeof(in), list,
		      2048 * 8) == ORCA_CMD_ST_OK);
	CHECK(th_out_handle(&t) == 3);
	CHECK(th_destroy(&t, ORCA_CMD_DESTROY_CQ, 3) == ORCA_CMD_ST_OK);
	CHECK(th_destroy(&t, ORCA_CMD_DESTROY_CQ, 3) ==
	      ORCA_CMD_ST_BAD_HANDLE);
	CHECK(th_destroy(&t, ORCA_CMD_DESTROY_CQ, 0) ==
	      ORCA_CMD_ST_BAD_HANDLE);
	th_fini(&t);
	ktap_case_end("cq_create_errors");
}

static void test_cq_resize(void)
{
	struct orca_cmd_resize_cq rs = {
		.log_depth = 8, .page_shift = 12, .npages = htole32(2),
	};
	uint64_t list;
	uint64_t *l;
	struct th_objs o;
	struct th t;

	CHECK(th_setup(&t, &o));
	list = galloc(&t, 4096, 0);
	l = gptr(&t, list);
	l[0] = htole64(galloc(&t, 4096, 0));
	l[1] = htole64(galloc(&t, 4096, 0));
	rs.cqn = htole32(o.cqn);
	CHECK(cq_exec(&t, ORCA_CMD_RESIZE_CQ, &rs, sizeof(rs), list, 16) ==
	      ORCA_CMD_ST_OK);
	rs.cqn = htole32(99);
	CHECK(cq_exec(&t, ORCA_CMD_RESIZE_CQ, &rs, sizeof(rs), list, 16) ==
	      ORCA_CMD_ST_BAD_HANDLE);
	rs.cqn = htole32(o.cqn);
	rs.log_depth = 19;		/* one past max_cqe */
	CHECK(cq_exec(&t, ORCA_CMD_RESIZE_CQ, &rs, sizeof(rs), list, 16) ==
	      ORCA_CMD_ST_BAD_PARAM);
	rs.log_depth = 8;
	CHECK(cq_exec(&t, ORCA_CMD_RESIZE_CQ, &rs, sizeof(rs), list, 8) ==
	      ORCA_CMD_ST_BAD_LENGTH);
	l[1] = htole64(UNMAPPED);
	CHECK(cq_exec(&t, ORCA_CMD_RESIZE_CQ, &rs, sizeof(rs), list, 16) ==
	      ORCA_CMD_ST_DMA_ERROR);
	/* Back to one inline page. */
	rs.log_depth = 4;
	rs.npages = htole32(1);
	rs.page_addr = htole64(galloc(&t, 4096, 0));
	memset(gptr(&t, le64toh(rs.page_addr)), 0xff, 4096);
	CHECK(cq_exec(&t, ORCA_CMD_RESIZE_CQ, &rs, sizeof(rs), 0, 0) ==
	      ORCA_CMD_ST_OK);
	/* Every slot of the new buffer reads "not yet written" (phase 0). */
	{
		struct orca_cqe *q = gptr(&t, le64toh(rs.page_addr));
		int i, zero = 0;

		for (i = 0; i < 16; i++)
			zero += q[i].flags == 0;
		CHECK(zero == 16);
	}
	/* A consumer index the CQ never produced up to is refused. */
	{
		struct orca_cmd_create_cq cin = th_cq_in(&t, 0, o.uar, 4);
		struct orca_cq_db_rec *rec;

		CHECK(cq_exec(&t, ORCA_CMD_CREATE_CQ, &cin, sizeof(cin), 0,
			      0) == 0);
		rs.cqn = htole32(th_out_handle(&t));
		rec = gptr(&t, le64toh(cin.db_rec_addr));
		rec->ci = htole32(5);
		CHECK(cq_exec(&t, ORCA_CMD_RESIZE_CQ, &rs, sizeof(rs), 0, 0) ==
		      ORCA_CMD_ST_BAD_PARAM);
		rec->ci = 0;
		CHECK(cq_exec(&t, ORCA_CMD_RESIZE_CQ, &rs, sizeof(rs), 0, 0) ==
		      ORCA_CMD_ST_OK);
	}
	th_fini(&t);
	ktap_case_end("cq_resize");
}

static int query_cq(struct th *t, uint32_t cqn, uint64_t out,
		    uint32_t out_len)
{
	struct orca_cmd_destroy_obj q = { .handle = htole32(cqn) };
	struct tcmd c = {
		.opcode = ORCA_CMD_QUERY_CQ, .in = &q, .in_size = sizeof(q),
		.out_addr = out, .out_len = out_len,
	};

	return th_exec(t, &c);
}

/* QUERY_CQ (1.2): the adapter's view of a CQ, its record read at once. */
static void test_cq_query(void)
{
	struct orca_cmd_create_cq in;
	struct orca_cq_db_rec *rec;
	struct orca_cq_attr *a;
	struct th_objs o;
	uint64_t out;
	uint32_t cqn;
	struct th t;

	CHECK(th_setup(&t, &o));
	in = th_cq_in(&t, 0, o.uar, 7);
	CHECK(cq_exec(&t, ORCA_CMD_CREATE_CQ, &in, sizeof(in), 0, 0) == 0);
	cqn = th_out_handle(&t);
	rec = gptr(&t, le64toh(in.db_rec_addr));
	out = galloc(&t, 4096, 0);
	a = gptr(&t, out);
	memset(a, 0xa5, sizeof(*a));
	CHECK(query_cq(&t, cqn, out, sizeof(*a)) == ORCA_CMD_ST_OK);
	CHECK(le32toh(a->cqn) == cqn && le32toh(a->eqn) == 0);
	CHECK(a->log_depth == 7 && a->flags == 0);
	CHECK(a->pi == 0 && a->ci == 0 && a->arm == 0 && a->overruns == 0);
	CHECK(a->arm_fired == 0 && a->rsvd0 == 0 && a->rsvd[3] == 0);

	/* Armed: a new sequence with ANY or SOLICITED that has not fired. */
	rec->arm = htole32(FIELD_PREP(ORCA_CQ_ARM_SEQ, 1) | ORCA_CQ_ARM_ANY);
	rec->ci = htole32(0);
	CHECK(query_cq(&t, cqn, out, sizeof(*a)) == ORCA_CMD_ST_OK);
	CHECK(a->flags == ORCA_CQ_ATTR_F_ARMED);
	CHECK(le32toh(a->arm) == le32toh(rec->arm));
	rec->arm = htole32(FIELD_PREP(ORCA_CQ_ARM_SEQ, 2));
	CHECK(query_cq(&t, cqn, out, sizeof(*a)) == ORCA_CMD_ST_OK);
	CHECK(a->flags == 0);

	CHECK(query_cq(&t, cqn, out, sizeof(*a) - 1) ==
	      ORCA_CMD_ST_BAD_LENGTH);
	CHECK(query_cq(&t, cqn, UNMAPPED, sizeof(*a)) ==
	      ORCA_CMD_ST_DMA_ERROR);
	CHECK(query_cq(&t, 99, out, sizeof(*a)) == ORCA_CMD_ST_BAD_HANDLE);
	CHECK(query_cq(&t, 0, out, sizeof(*a)) == ORCA_CMD_ST_BAD_HANDLE);
	CHECK(th_destroy(&t, ORCA_CMD_DESTROY_CQ, cqn) == ORCA_CMD_ST_OK);
	CHECK(query_cq(&t, cqn, out, sizeof(*a)) == ORCA_CMD_ST_BAD_HANDLE);
	th_fini(&t);
	ktap_case_end("cq_query");
}

/* MODIFY_CQ's limits, as QUERY_DEVICE reports them (test_engine_device). */
#define MAX_MOD_COUNT	4095
#define MAX_MOD_PERIOD	32767

static int modify_cq(struct th *t, uint32_t cqn, uint32_t count,
		     uint32_t period)
{
	struct orca_cmd_modify_cq m = {
		.cqn = htole32(cqn), .count = htole16(count),
		.period = htole16(period),
	};

	return cq_exec(t, ORCA_CMD_MODIFY_CQ, &m, sizeof(m), 0, 0);
}

/*
 * MODIFY_CQ (1.3): the handle and both values are checked against the
 * limits QUERY_DEVICE reports; 0/0 (off) and the limits themselves pass.
 * A CQ with moderation on is destroyed like any other, and its handle is
 * then refused.
 */
static void test_cq_modify(void)
{
	struct orca_cmd_create_cq in;
	struct th_objs o;
	uint32_t cqn;
	struct th t;

	CHECK(th_setup(&t, &o));
	in = th_cq_in(&t, 0, o.uar, 7);
	CHECK(cq_exec(&t, ORCA_CMD_CREATE_CQ, &in, sizeof(in), 0, 0) == 0);
	cqn = th_out_handle(&t);

	CHECK(modify_cq(&t, cqn, 16, 8) == ORCA_CMD_ST_OK);
	CHECK(modify_cq(&t, cqn, MAX_MOD_COUNT,
			MAX_MOD_PERIOD) == ORCA_CMD_ST_OK);
	CHECK(modify_cq(&t, cqn, MAX_MOD_COUNT + 1, 8) ==
	      ORCA_CMD_ST_BAD_PARAM);
	CHECK(modify_cq(&t, cqn, 16, MAX_MOD_PERIOD + 1) ==
	      ORCA_CMD_ST_BAD_PARAM);
	CHECK(modify_cq(&t, cqn, 0xffff, 0xffff) == ORCA_CMD_ST_BAD_PARAM);
	CHECK(modify_cq(&t, cqn, 0, 0) == ORCA_CMD_ST_OK);
	CHECK(modify_cq(&t, cqn, 1, 0) == ORCA_CMD_ST_OK);
	CHECK(modify_cq(&t, 99, 16, 8) == ORCA_CMD_ST_BAD_HANDLE);
	CHECK(modify_cq(&t, 0, 16, 8) == ORCA_CMD_ST_BAD_HANDLE);
	CHECK(modify_cq(&t, cqn, 16, 8) == ORCA_CMD_ST_OK);
	CHECK(th_destroy(&t, ORCA_CMD_DESTROY_CQ, cqn) == ORCA_CMD_ST_OK);
	CHECK(modify_cq(&t, cqn, 16, 8) == ORCA_CMD_ST_BAD_HANDLE);
	/* A new CQ starts without moderation and can have it again. */
	CHECK(cq_exec(&t, ORCA_CMD_CREATE_CQ, &in, sizeof(in), 0, 0) == 0);
	cqn = th_out_handle(&t);
	CHECK(modify_cq(&t, cqn, 2, 2) == ORCA_CMD_ST_OK);
	th_fini(&t);
	ktap_case_end("cq_modify");
}

struct mr_req {
	struct orca_cmd_create_mr in;
	uint64_t list;
	uint32_t list_len;
};

/* A page-list MR over fresh guest pages: iova offset 0x234, 3 pages. */
static struct mr_req mr_good(struct th *t, uint32_t pdn)
{
	struct mr_req r = {
		.in = {
			.pdn = htole32(pdn),
			.access = htole32(ORCA_ACCESS_ALL),
			.page_shift = 12,
			.key = 0x5a,
			.iova = htole64(0x7f0000001234ull),
			.length = htole64(2 * 4096 + 100),
			.npages = htole32(3),
		},
		.list_len = 24,
	};
	uint64_t *l;
	int i;

	r.list = galloc(t, 64, 64);
	l = gptr(t, r.list);
	for (i = 0; i < 3; i++)
		l[i] = htole64(galloc(t, 4096, 0));
	return r;
}

static int mr_exec(struct th *t, const struct mr_req *r)
{
	struct tcmd c = {
		.opcode = ORCA_CMD_CREATE_MR, .in = &r->in,
		.in_size = sizeof(r->in), .in_addr = r->list,
		.in_len = r->list_len,
	};

	return th_exec(t, &c);
}

static void test_mr_create_kinds(void)
{
	struct orca_cmd_create_mr_out out;
	struct mr_req r, g;
	struct th_objs o;
	struct th t;

	CHECK(th_setup(&t, &o));
	g = mr_good(&t, o.pdn);
	CHECK(mr_exec(&t, &g) == ORCA_CMD_ST_OK);
	memcpy(&out, t.last.out, sizeof(out));
	CHECK(le32toh(out.lkey) == (1u << 8 | 0x5a));
	CHECK(out.lkey == out.rkey);

	/* The page list may be freed by the driver: it was copied. */
	memset(gptr(&t, g.list), 0xff, 24);
	CHECK(th_cmd(&t, ORCA_CMD_NOP, NULL, 0) == ORCA_CMD_ST_OK);

	r = g;
	r.in.flags = htole32(ORCA_MR_F_PHYS);
	r.in.access = htole32(ORCA_ACCESS_LOCAL_WRITE);
	CHECK(mr_exec(&t, &r) == ORCA_CMD_ST_OK);
	memcpy(&out, t.last.out, sizeof(out));
	CHECK(FIELD_GET(ORCA_MKEY_INDEX, le32toh(out.lkey)) == 2);

	r = g;
	r.in.flags = htole32(ORCA_MR_F_FAST_REG);
	r.in.npages = htole32(65536);
	CHECK(mr_exec(&t, &r) == ORCA_CMD_ST_OK);
	r.in.npages = htole32(65537);
	CHECK(mr_exec(&t, &r) == ORCA_CMD_ST_BAD_PARAM);
	r.in.npages = htole32(0);
	CHECK(mr_exec(&t, &r) == ORCA_CMD_ST_BAD_PARAM);

	/* Destroy by lkey; the key byte does not matter. */
	CHECK(th_destroy(&t, ORCA_CMD_DESTROY_MR, 2 << 8) == ORCA_CMD_ST_OK);
	CHECK(th_destroy(&t, ORCA_CMD_DESTROY_MR, 2 << 8 | 0x11) ==
	      ORCA_CMD_ST_BAD_HANDLE);
	CHECK(th_destroy(&t, ORCA_CMD_DESTROY_MR, 0x5a) ==
	      ORCA_CMD_ST_BAD_HANDLE);
	CHECK(th_destroy(&t, ORCA_CMD_DESTROY_MR, 1 << 8 | 0x5a) ==
	      ORCA_CMD_ST_OK);
	th_fini(&t);
	ktap_case_end("mr_create_kinds");
}

/*
 * Interface 1.1: a page list chained over 4 KiB chunks (ORCA_CMD_F_IN_CHAIN)
 * describes a 1000-page MR; the device reads entries across the link.  A
 * misaligned or zero chunk address is BAD_PARAM, an unmapped one
 * DMA_ERROR, and in_len still counts entries (BAD_LENGTH when short).
 */
static void test_mr_chained_page_list(void)
{
	const uint32_t np = 1000, per = ORCA_PGL_CHUNK_ENTRIES;
	struct orca_cmd_create_mr in = {
		.access = htole32(ORCA_ACCESS_LOCAL_WRITE),
		.page_shift = 12,
		.iova = htole64(0x100000000ull),
		.length = htole64((uint64_t)np * 4096),
		.npages = htole32(np),
	};
	struct tcmd c = { .opcode = ORCA_CMD_CREATE_MR, .in = &in,
			  .in_size = sizeof(in), .flags = ORCA_CMD_F_IN_CHAIN,
			  .in_len = 8 * np };
	uint64_t pages[3], chunk[2], *c0, *c1;
	struct th_objs o;
	struct th t;

	CHECK(th_setup(&t, &o));
	in.pdn = htole32(o.pdn);
	for (int i = 0; i < 3; i++)
		pages[i] = galloc(&t, 4096, 0);
	chunk[0] = galloc(&t, ORCA_PGL_CHUNK_SIZE, ORCA_PGL_CHUNK_SIZE);
	chunk[1] = galloc(&t, ORCA_PGL_CHUNK_SIZE, ORCA_PGL_CHUNK_SIZE);
	c0 = gptr(&t, chunk[0]);
	c1 = gptr(&t, chunk[1]);
	for (uint32_t i = 0; i < np; i++)
		(i < per ? c0 : c1)[i % per] = htole64(pages[i % 3]);
	c0[per] = htole64(chunk[1]);
	c.in_addr = chunk[0];
	CHECK(th_exec(&t, &c) == ORCA_CMD_ST_OK);
	/* The device read the second chunk: a bad entry there is seen. */
	c1[np - 1 - per] = htole64(pages[0] + 8);
	CHECK(th_exec(&t, &c) == ORCA_CMD_ST_BAD_PARAM);
	c1[np - 1 - per] = htole64(pages[0]);
	CHECK(th_exec(&t, &c) == ORCA_CMD_ST_OK);

	c.in_len = 8 * np - 8;
	CHECK(th_exec(&t, &c) == ORCA_CMD_ST_BAD_LENGTH);
	c.in_len = 8 * np;
	c0[per] = htole64(chunk[1] + 8);
	CHECK(th_exec(&t, &c) == ORCA_CMD_ST_BAD_PARAM);
	c0[per] = 0;
	CHECK(th_exec(&t, &c) == ORCA_CMD_ST_BAD_PARAM);
	c0[per] = htole64(0x7000000000ull);		/* not guest RAM */
	CHECK(th_exec(&t, &c) == ORCA_CMD_ST_DMA_ERROR);
	/* The first chunk is aligned like the others. */
	c0[per] = htole64(chunk[1]);
	c.in_addr = chunk[0] + 8;
	CHECK(th_exec(&t, &c) == ORCA_CMD_ST_BAD_PARAM);
	th_fini(&t);
	ktap_case_end("mr_chained_page_list");
}

static void test_mr_create_errors(void)
{
	struct mr_req r, g;
	struct th_objs o;
	struct th t;

	CHECK(th_setup(&t, &o));
	g = mr_good(&t, o.pdn);

	r = g;
	r.in.pdn = htole32(9);
	CHECK(mr_exec(&t, &r) == ORCA_CMD_ST_BAD_HANDLE);
	r.in.pdn = 0;
	CHECK(mr_exec(&t, &r) == ORCA_CMD_ST_BAD_HANDLE);
	r = g;
	r.in.access = htole32(ORCA_ACCESS_REMOTE_WRITE);
	CHECK(mr_exec(&t, &r) == ORCA_CMD_ST_BAD_PARAM);
	r.in.access = htole32(ORCA_ACCESS_REMOTE_ATOMIC |
			      ORCA_ACCESS_REMOTE_READ);
	CHECK(mr_exec(&t, &r) == ORCA_CMD_ST_BAD_PARAM);
	/* The first right the interface does not define. */
	r.in.access = htole32((ORCA_ACCESS_ALL + 1) | ORCA_ACCESS_LOCAL_WRITE);
	CHECK(mr_exec(&t, &r) == ORCA_CMD_ST_BAD_PARAM);
	r.in.access = htole32(ORCA_ACCESS_MW_BIND);	/* 1.4 */
	CHECK(mr_exec(&t, &r) == ORCA_CMD_ST_OK);
	r.in.access = htole32(ORCA_ACCESS_REMOTE_READ);	/* fine alone */
	CHECK(mr_exec(&t, &r) == ORCA_CMD_ST_OK);
	r = g;
	r.in.flags = htole32(ORCA_MR_F_PHYS | ORCA_MR_F_FAST_REG);
	CHECK(mr_exec(&t, &r) == ORCA_CMD_ST_BAD_PARAM);
	r.in.flags = htole32(ORCA_MR_F_IMPLICIT << 1);	/* undefined */
	CHECK(mr_exec(&t, &r) == ORCA_CMD_ST_BAD_PARAM);
	/* 1.10: on demand, but with a page list and no SET_ODP. */
	r.in.flags = htole32(ORCA_MR_F_ON_DEMAND);
	CHECK(mr_exec(&t, &r) == ORCA_CMD_ST_BAD_STATE);
	r = g;
	r.in.length = 0;
	CHECK(mr_exec(&t, &r) == ORCA_CMD_ST_BAD_PARAM);
	r.in.iova = htole64(UINT64_MAX - 100);
	r.in.length = htole64(4096);
	CHECK(mr_exec(&t, &r) == ORCA_CMD_ST_BAD_PARAM);
	r = g;
	r.in.length = htole64((8ull << 30) + 1);	/* > max_mr_size */
	r.in.page_shift = 30;
	r.in.npages = htole32(9);
	CHECK(mr_exec(&t, &r) == ORCA_CMD_ST_BAD_PARAM);
	r = g;
	r.in.npages = htole32(2);		/* offset + length needs 3 */
	CHECK(mr_exec(&t, &r) == ORCA_CMD_ST_BAD_PARAM);
	r.in.npages = htole32(4);
	CHECK(mr_exec(&t, &r) == ORCA_CMD_ST_BAD_PARAM);
	r = g;
	r.in.page_shift = 31;
	CHECK(mr_exec(&t, &r) == ORCA_CMD_ST_BAD_PARAM);
	r = g;
	r.list_len = 16;
	CHECK(mr_exec(&t, &r) == ORCA_CMD_ST_BAD_LENGTH);
	r.list_len = 0;
	CHECK(mr_exec(&t, &r) == ORCA_CMD_ST_BAD_LENGTH);
	r = g;
	r.list = UNMAPPED;
	CHECK(mr_exec(&t, &r) == ORCA_CMD_ST_DMA_ERROR);
	r = g;
	((uint64_t *)gptr(&t, g.list))[2] = htole64(UNMAPPED);
	CHECK(mr_exec(&t, &r) == ORCA_CMD_ST_DMA_ERROR);
	((uint64_t *)gptr(&t, g.list))[2] = htole64(GUEST_BASE + 100);
	CHECK(mr_exec(&t, &r) == ORCA_CMD_ST_BAD_PARAM);	/* unaligned */
	/* 2 MiB pages: one page covers it. */
	r = g;
	r.in.page_shift = 21;
	r.in.npages = htole32(1);
	((uint64_t *)gptr(&t, g.list))[0] =
		htole64(galloc(&t, 2u << 20, 2u << 20));
	CHECK(mr_exec(&t, &r) == ORCA_CMD_ST_OK);
	/*
	 * A 32 MiB page reaches past the 16 MiB of guest RAM: fine as long
	 * as the bytes the MR covers are mapped.
	 */
	r = g;
	r.in.page_shift = 25;
	r.in.npages = htole32(1);
	r.in.iova = htole64(0x1000);
	r.in.length = htole64(8192);
	((uint64_t *)gptr(&t, g.list))[0] = htole64(GUEST_BASE);
	CHECK(mr_exec(&t, &r) == ORCA_CMD_ST_OK);
	r.in.iova = htole64(15u << 20);
	r.in.length = htole64(2u << 20);
	CHECK(mr_exec(&t, &r) == ORCA_CMD_ST_DMA_ERROR);
	th_fini(&t);
	ktap_case_end("mr_create_errors");
}

static int create_ah(struct th *t, uint32_t pdn, uint8_t sgid,
		     uint32_t flow)
{
	struct orca_cmd_create_ah in = {
		.pdn = htole32(pdn),
		.av = {
			.dgid = { [10] = 0xff, [11] = 0xff, 10, 0, 0, 2 },
			.dmac = { 2, 0, 0, 0, 0, 2 },
			.sgid_index = sgid,
			.hop_limit = 64,
			.flow_label = htole32(flow),
		},
	};

	return th_cmd(t, ORCA_CMD_CREATE_AH, &in, sizeof(in));
}

static void test_ah(void)
{
	struct th_objs o;
	struct th t;

	CHECK(th_setup(&t, &o));
	CHECK(create_ah(&t, o.pdn, 0, 0) == ORCA_CMD_ST_OK);
	CHECK(th_out_handle(&t) == 1);
	CHECK(create_ah(&t, o.pdn, 1, 0) == ORCA_CMD_ST_BAD_PARAM);
	CHECK(create_ah(&t, o.pdn, 200, 0) == ORCA_CMD_ST_BAD_PARAM);
	CHECK(create_ah(&t, o.pdn, 0, 0x100000) == ORCA_CMD_ST_BAD_PARAM);
	CHECK(create_ah(&t, 77, 0, 0) == ORCA_CMD_ST_BAD_HANDLE);
	CHECK(th_destroy(&t, ORCA_CMD_DESTROY_PD, o.pdn) == ORCA_CMD_ST_BUSY);
	CHECK(th_destroy(&t, ORCA_CMD_DESTROY_AH, 1) == ORCA_CMD_ST_OK);
	CHECK(th_destroy(&t, ORCA_CMD_DESTROY_AH, 1) ==
	      ORCA_CMD_ST_BAD_HANDLE);
	CHECK(th_destroy(&t, ORCA_CMD_DESTROY_PD, o.pdn) == ORCA_CMD_ST_OK);
	th_fini(&t);
	ktap_case_end("ah_create_destroy");
}

static struct orca_cmd_create_srq srq_good(struct th *t, uint32_t pdn,
					   uint32_t uar)
{
	/* 64 WQEs * 64 B (2 SGEs) = one page. */
	struct orca_cmd_create_srq in = {
		.pdn = htole32(pdn),
		.log_depth = 6,
		.page_shift = 12,
		.max_sge = 2,
		.npages = htole32(1),
		.limit = htole32(10),
		.uar = htole32(uar),
		.page_addr = htole64(galloc(t, 4096, 0)),
		.db_rec_addr = htole64(galloc(t, 64, 64)),
	};

	return in;
}

static void test_srq(void)
{
	struct orca_cmd_create_srq in, good;
	struct orca_cmd_modify_srq mod;
	struct th_objs o;
	uint32_t limit;
	int64_t qpn;
	struct th t;

	CHECK(th_setup(&t, &o));
	good = srq_good(&t, o.pdn, o.uar);
	CHECK(th_cmd(&t, ORCA_CMD_CREATE_SRQ, &good, sizeof(good)) == 0);
	CHECK(th_out_handle(&t) == 1);

	in = good;
	in.pdn = htole32(5);
	CHECK(th_cmd(&t, ORCA_CMD_CREATE_SRQ, &in, sizeof(in)) ==
	      ORCA_CMD_ST_BAD_HANDLE);
	in = good;
	in.uar = htole32(3);
	CHECK(th_cmd(&t, ORCA_CMD_CREATE_SRQ, &in, sizeof(in)) ==
	      ORCA_CMD_ST_BAD_HANDLE);
	in = good;
	in.log_depth = 15;
	CHECK(th_cmd(&t, ORCA_CMD_CREATE_SRQ, &in, sizeof(in)) ==
	      ORCA_CMD_ST_BAD_PARAM);
	in = good;
	in.max_sge = 17;
	CHECK(th_cmd(&t, ORCA_CMD_CREATE_SRQ, &in, sizeof(in)) ==
	      ORCA_CMD_ST_BAD_PARAM);
	in = good;
	in.limit = htole32(64);
	CHECK(th_cmd(&t, ORCA_CMD_CREATE_SRQ, &in, sizeof(in)) ==
	      ORCA_CMD_ST_BAD_PARAM);
	in = good;
	in.max_sge = 16;	/* 272 B -> 512 B stride: 8 pages */
	CHECK(th_cmd(&t, ORCA_CMD_CREATE_SRQ, &in, sizeof(in)) ==
	      ORCA_CMD_ST_BAD_PARAM);
	in = good;
	in.db_rec_addr = htole64(UNMAPPED);
	CHECK(th_cmd(&t, ORCA_CMD_CREATE_SRQ, &in, sizeof(in)) ==
	      ORCA_CMD_ST_DMA_ERROR);
	in = good;
	in.flags = ORCA_CREATE_SRQ_F_XRC << 1;	/* no such flag */
	CHECK(th_cmd(&t, ORCA_CMD_CREATE_SRQ, &in, sizeof(in)) ==
	      ORCA_CMD_ST_BAD_PARAM);

	mod.srqn = htole32(1);
	mod.limit = htole32(20);
	CHECK(th_cmd(&t, ORCA_CMD_MODIFY_SRQ, &mod, sizeof(mod)) == 0);
	mod.limit = htole32(64);
	CHECK(th_cmd(&t, ORCA_CMD_MODIFY_SRQ, &mod, sizeof(mod)) ==
	      ORCA_CMD_ST_BAD_PARAM);
	mod.srqn = htole32(2);
	mod.limit = htole32(1);
	CHECK(th_cmd(&t, ORCA_CMD_MODIFY_SRQ, &mod, sizeof(mod)) ==
	      ORCA_CMD_ST_BAD_HANDLE);
	CHECK(th_destroy(&t, ORCA_CMD_QUERY_SRQ, 1) == ORCA_CMD_ST_OK);
	memcpy(&limit, t.last.out, sizeof(limit));
	CHECK(le32toh(limit) == 20);
	CHECK(th_destroy(&t, ORCA_CMD_QUERY_SRQ, 2) ==
	      ORCA_CMD_ST_BAD_HANDLE);

	/* A QP on the SRQ pins it. */
	qpn = th_create_qp(&t, ORCA_QPT_RC, o.pdn, o.cqn, o.uar, 1);
	CHECK(qpn == 2);
	CHECK(th_destroy(&t, ORCA_CMD_DESTROY_SRQ, 1) == ORCA_CMD_ST_BUSY);
	CHECK(th_destroy(&t, ORCA_CMD_DESTROY_QP, qpn) == ORCA_CMD_ST_OK);
	CHECK(th_destroy(&t, ORCA_CMD_DESTROY_SRQ, 1) == ORCA_CMD_ST_OK);
	CHECK(th_destroy(&t, ORCA_CMD_DESTROY_SRQ, 1) ==
	      ORCA_CMD_ST_BAD_HANDLE);
	th_fini(&t);
	ktap_case_end("srq_create_modify_query_destroy");
}

static void test_qp_create(void)
{
	struct th_qp_req r, g;
	struct th_objs o;
	struct th t;

	CHECK(th_setup(&t, &o));
	g = th_qp_in(&t, ORCA_QPT_RC, o.pdn, o.cqn, o.uar, 0);
	CHECK(th_qp_exec(&t, &g) == ORCA_CMD_ST_OK);
	CHECK(th_out_handle(&t) == 2);
	CHECK(th_qp_exec(&t, &g) == ORCA_CMD_ST_OK);
	CHECK(th_out_handle(&t) == 3);
	r = g;
	r.in.qp_type = ORCA_QPT_UD;
	CHECK(th_qp_exec(&t, &r) == ORCA_CMD_ST_OK);
	CHECK(th_out_handle(&t) == 4);
	r.in.qp_type = ORCA_QPT_GSI;
	CHECK(th_qp_exec(&t, &r) == ORCA_CMD_ST_OK);
	CHECK(th_out_handle(&t) == 1);
	CHECK(th_qp_exec(&t, &r) == ORCA_CMD_ST_BUSY);	/* one GSI QP */

	r = g;
	r.in.qp_type = 6;			/* no such type */
	CHECK(th_qp_exec(&t, &r) == ORCA_CMD_ST_BAD_PARAM);
	r = g;
	r.in.flags = htole32(4);
	CHECK(th_qp_exec(&t, &r) == ORCA_CMD_ST_BAD_PARAM);
	r = g;
	r.in.pdn = htole32(3);
	CHECK(th_qp_exec(&t, &r) == ORCA_CMD_ST_BAD_HANDLE);
	r = g;
	r.in.send_cqn = htole32(0);
	CHECK(th_qp_exec(&t, &r) == ORCA_CMD_ST_BAD_HANDLE);
	r = g;
	r.in.recv_cqn = htole32(8);
	CHECK(th_qp_exec(&t, &r) == ORCA_CMD_ST_BAD_HANDLE);
	r = g;
	r.in.uar = htole32(1);
	CHECK(th_qp_exec(&t, &r) == ORCA_CMD_ST_BAD_HANDLE);
	r = g;
	r.in.flags = htole32(ORCA_QP_F_USE_SRQ);
	r.in.srqn = htole32(1);
	CHECK(th_qp_exec(&t, &r) == ORCA_CMD_ST_BAD_HANDLE);
	r = g;
	r.in.log_sq_depth = 15;
	CHECK(th_qp_exec(&t, &r) == ORCA_CMD_ST_BAD_PARAM);
	r = g;
	r.in.log_rq_depth = 0;
	CHECK(th_qp_exec(&t, &r) == ORCA_CMD_ST_BAD_PARAM);
	r = g;
	r.in.max_send_sge = 17;
	CHECK(th_qp_exec(&t, &r) == ORCA_CMD_ST_BAD_PARAM);
	r = g;
	r.in.max_recv_sge = 17;
	CHECK(th_qp_exec(&t, &r) == ORCA_CMD_ST_BAD_PARAM);
	r = g;
	r.in.max_inline_data = htole16(ORCA_MAX_INLINE_DATA + 1);
	CHECK(th_qp_exec(&t, &r) == ORCA_CMD_ST_BAD_PARAM);
	/* inline data must fit the SGE area: 2 SGEs hold 32 bytes */
	r.in.max_inline_data = htole16(33);
	CHECK(th_qp_exec(&t, &r) == ORCA_CMD_ST_BAD_PARAM);
	r.in.max_inline_data = htole16(32);
	CHECK(th_qp_exec(&t, &r) == ORCA_CMD_ST_OK);
	r = g;
	r.in.sq_npages = htole32(le32toh(g.in.sq_npages) + 1);
	CHECK(th_qp_exec(&t, &r) == ORCA_CMD_ST_BAD_PARAM);
	r = g;
	r.in.rq_npages = htole32(0);
	CHECK(th_qp_exec(&t, &r) == ORCA_CMD_ST_BAD_PARAM);
	r = g;
	r.list_len -= 8;
	CHECK(th_qp_exec(&t, &r) == ORCA_CMD_ST_BAD_LENGTH);
	r = g;
	r.list = UNMAPPED;
	CHECK(th_qp_exec(&t, &r) == ORCA_CMD_ST_DMA_ERROR);
	r = g;
	r.in.db_rec_addr = htole64(le64toh(g.in.db_rec_addr) + 2);
	CHECK(th_qp_exec(&t, &r) == ORCA_CMD_ST_BAD_PARAM);
	r.in.db_rec_addr = htole64(GUEST_BASE + GUEST_SIZE - 8);
	CHECK(th_qp_exec(&t, &r) == ORCA_CMD_ST_DMA_ERROR);
	r = g;
	r.in.page_shift = 13;			/* npages now wrong */
	CHECK(th_qp_exec(&t, &r) == ORCA_CMD_ST_BAD_PARAM);

	/* References: CQ, PD and UAR are pinned by QPs. */
	CHECK(th_destroy(&t, ORCA_CMD_DESTROY_CQ, o.cqn) == ORCA_CMD_ST_BUSY);
	CHECK(th_destroy(&t, ORCA_CMD_DESTROY_PD, o.pdn) == ORCA_CMD_ST_BUSY);
	CHECK(th_destroy(&t, ORCA_CMD_DEALLOC_UAR, o.uar) ==
	      ORCA_CMD_ST_BUSY);
	CHECK(th_destroy(&t, ORCA_CMD_DESTROY_QP, 0) ==
	      ORCA_CMD_ST_BAD_HANDLE);
	CHECK(th_destroy(&t, ORCA_CMD_DESTROY_QP, 1) == ORCA_CMD_ST_OK);
	CHECK(th_destroy(&t, ORCA_CMD_DESTROY_QP, 1) ==
	      ORCA_CMD_ST_BAD_HANDLE);
	CHECK(th_destroy(&t, ORCA_CMD_DESTROY_QP, 2) == ORCA_CMD_ST_OK);
	CHECK(th_destroy(&t, ORCA_CMD_DESTROY_QP, 3) == ORCA_CMD_ST_OK);
	CHECK(th_destroy(&t, ORCA_CMD_DESTROY_QP, 4) == ORCA_CMD_ST_OK);
	CHECK(th_destroy(&t, ORCA_CMD_DESTROY_QP, 5) == ORCA_CMD_ST_OK);
	CHECK(th_destroy(&t, ORCA_CMD_DESTROY_CQ, o.cqn) == ORCA_CMD_ST_OK);
	CHECK(th_destroy(&t, ORCA_CMD_DESTROY_PD, o.pdn) == ORCA_CMD_ST_OK);
	CHECK(th_destroy(&t, ORCA_CMD_DEALLOC_UAR, o.uar) == ORCA_CMD_ST_OK);
	/* GSI can be created again once the first is gone. */
	th_fini(&t);
	ktap_case_end("qp_create_errors_and_refs");
}

static void test_qp_query(void)
{
	struct orca_qp_attr *a;
	struct th_objs o;
	uint64_t out;
	int64_t qpn;
	struct th t;
	struct orca_cmd_destroy_obj q;
	struct tcmd c = { .opcode = ORCA_CMD_QUERY_QP, .in = &q,
			  .in_size = sizeof(q) };

	CHECK(th_setup(&t, &o));
	qpn = th_create_qp(&t, ORCA_QPT_UD, o.pdn, o.cqn, o.uar, 0);
	CHECK(qpn == 2);
	out = galloc(&t, 4096, 0);
	a = gptr(&t, out);
	q.handle = htole32(qpn);
	c.out_addr = out;
	c.out_len = sizeof(*a);
	CHECK(th_exec(&t, &c) == ORCA_CMD_ST_OK);
	CHECK(le32toh(a->qpn) == 2 && a->qp_state == ORCA_QPS_RESET);
	CHECK(a->port == 1);
	c.out_len = sizeof(*a) - 1;
	CHECK(th_exec(&t, &c) == ORCA_CMD_ST_BAD_LENGTH);
	c.out_len = sizeof(*a);
	c.out_addr = UNMAPPED;
	CHECK(th_exec(&t, &c) == ORCA_CMD_ST_DMA_ERROR);
	q.handle = htole32(1);
	CHECK(th_exec(&t, &c) == ORCA_CMD_ST_BAD_HANDLE);
	q.handle = htole32(0);
	CHECK(th_exec(&t, &c) == ORCA_CMD_ST_BAD_HANDLE);
	th_fini(&t);
	ktap_case_end("qp_query");
}

static void test_qp_event_indices_and_last_wqe(void)
{
	struct orca_qp_db_rec *rec;
	struct orca_qp_attr a = { 0 };
	struct orca_cmd_create_srq s;
	struct th_qp_req r;
	struct orca_eqe e;
	struct th_objs o;
	struct th t;

	CHECK(th_setup(&t, &o));
	s = srq_good(&t, o.pdn, o.uar);
	CHECK(th_cmd(&t, ORCA_CMD_CREATE_SRQ, &s, sizeof(s)) == 0);
	r = th_qp_in(&t, ORCA_QPT_RC, o.pdn, o.cqn, o.uar, 1);
	/*
	 * A stale record: the device writes the event indices only, the
	 * SQ's as 0 (the first post rings), the RQ's one behind (no post
	 * rings outside ERR).
	 */
	rec = gptr(&t, le64toh(r.in.db_rec_addr));
	memset(rec, 0xee, sizeof(*rec));
	CHECK(th_qp_exec(&t, &r) == ORCA_CMD_ST_OK);
	CHECK(rec->sq_event_idx == 0 &&
	      rec->rq_event_idx == htole32(ORCA_EVENT_IDX_BEHIND));
	CHECK(rec->sq_pi == 0xeeeeeeee);

	/* INIT -> ERR on an SRQ: LAST_WQE; -> RESET: indices zeroed. */
	a.qpn = htole32(2);
	a.attr_mask = htole32(ORCA_QP_ATTR_STATE | ORCA_QP_ATTR_PKEY_INDEX |
			      ORCA_QP_ATTR_PORT | ORCA_QP_ATTR_ACCESS_FLAGS);
	a.qp_state = ORCA_QPS_INIT;
	a.port = 1;
	CHECK(th_cmd(&t, ORCA_CMD_MODIFY_QP, &a, sizeof(a)) == 0);
	a.attr_mask = htole32(ORCA_QP_ATTR_STATE);
	a.qp_state = ORCA_QPS_ERR;
	CHECK(th_cmd(&t, ORCA_CMD_MODIFY_QP, &a, sizeof(a)) == 0);
	CHECK(th_eq0_next(&t, &e));
	CHECK(e.type == ORCA_EQE_QP_LAST_WQE && le32toh(e.data) == 2);
	CHECK(th_cmd(&t, ORCA_CMD_MODIFY_QP, &a, sizeof(a)) == 0);
	CHECK(!th_eq0_next(&t, &e));		/* ERR -> ERR: once only */
	rec->sq_event_idx = htole32(7);
	rec->rq_event_idx = htole32(7);
	a.qp_state = ORCA_QPS_RESET;
	CHECK(th_cmd(&t, ORCA_CMD_MODIFY_QP, &a, sizeof(a)) == 0);
	CHECK(rec->sq_event_idx == 0 &&
	      rec->rq_event_idx == htole32(ORCA_EVENT_IDX_BEHIND));
	th_fini(&t);
	ktap_case_end("qp_event_indices_and_last_wqe");
}

static void test_teardown_with_objects_no_leak(void)
{
	struct th_objs o;
	struct th t;
	int i;

	/* engine_destroy with live objects of every kind frees them all. */
	CHECK(th_setup(&t, &o));
	for (i = 0; i < 4; i++) {
		struct mr_req r = mr_good(&t, o.pdn);
		struct orca_cmd_create_srq s = srq_good(&t, o.pdn, o.uar);

		CHECK(mr_exec(&t, &r) == 0);
		CHECK(th_cmd(&t, ORCA_CMD_CREATE_SRQ, &s, sizeof(s)) == 0);
		CHECK(create_ah(&t, o.pdn, 0, 0) == 0);
		CHECK(th_create_qp(&t, ORCA_QPT_RC, o.pdn, o.cqn, o.uar,
				   0) > 0);
	}
	CHECK(th_create_qp(&t, ORCA_QPT_GSI, o.pdn, o.cqn, o.uar, 0) == 1);
	th_fini(&t);
	ktap_case_end("teardown_with_objects_no_leak");
}

int main(void)
{
	ktap_plan(13);
	test_cq_create_errors();
	test_cq_resize();
	test_cq_query();
	test_cq_modify();
	test_mr_create_kinds();
	test_mr_create_errors();
	test_mr_chained_page_list();
	test_ah();
	test_srq();
	test_qp_create();
	test_qp_query();
	test_qp_event_indices_and_last_wqe();
	test_teardown_with_objects_no_leak();
	return ktap_finish();
}

// SPDX-License-Identifier: GPL-2.0
/*
 * On-demand paging (1.10): the device's page-fault protocol, driven by
 * hand as a driver would drive it.  Adapter A sends from an on-demand MR
 * (CREATE_MR ORCA_MR_F_ON_DEMAND) whose translations this test installs
 * (MR_INSTALL) only when A asks for them with a page fault (the record in
 * the SET_ODP table, ORCA_EQE_PAGE_FAULT on EQ 0); adapter B receives
 * into an ordinary MR, and every byte it gets is checked.
 *
 * odp_send_faults_and_resumes: a SEND from an empty MR stops before its
 *	first packet with one fault whose record names the QP, the MR, the
 *	first byte and one packet's length; nothing reaches B.  Installing
 *	the first page and resuming sends up to the next page (packet 5),
 *	which faults in turn; installing the rest completes the SEND, whole
 *	and in order, with nothing sent again.
 * odp_invalidate_faults_again: after MR_INVALIDATE of one page, a SEND
 *	that reads it faults at that page; the resume completes it.
 * odp_fail_and_stale_resume: MR_INSTALL FAIL ends the fault with the
 *	WQE's LOC_PROT_ERR; resuming the same token again says stale.
 * odp_timeout: a fault nobody answers ends as a FAIL after the SET_ODP
 *	timeout (odp_fault_timeouts); a late resume is stale.
 * odp_hung_fault: a fault held with no record or event (odp-drop-faults)
 *	ends by the timeout knob (odp-fault-timeout); QP and MR go cleanly.
 * odp_destroy_mr_cancels: DESTROY_MR with a fault outstanding frees its
 *	slot; the QP goes on and finds no MR (LOC_PROT_ERR).
 * odp_ud_send: a UD SEND from an on-demand MR faults, then goes.
 * odp_req_resp: READ responses into a read-only page and an atomic's
 *	result into a missing one fault (REQ_RESP, write needed), are dropped
 *	and asked for again; the atomic executes once.
 * The responder's faults (B's on-demand MR), RNR-NAKed with one fault:
 * odp_resp_write: no byte lands before the install, all after it.
 * odp_resp_recv_keeps_its_wqe: a miss mid-message and one on the FIRST
 *	packet: each message takes its own receive WQE, once, in order.
 * odp_resp_read: READ probes its whole range first (read access only).
 * odp_resp_atomic_needs_write: a read-only page faults again for write;
 *	the atomic executes once, after the write right.
 * odp_resp_fail: FAIL on the responder: REM_ACCESS_ERR, QP_ACCESS_ERR.
 * odp_implicit: an implicit MR (the whole address space): SENDs from two
 *	addresses terabytes apart fault with its key, the installs fill a
 *	2 MiB leaf each (charged 4 KiB, released when they empty), an
 *	invalidated page faults again, an install past the budget or the
 *	address space is refused and changes nothing, DESTROY_MR frees all.
 * odp_commands_checked: SET_ODP, CREATE_MR's on-demand checks,
 *	MR_INSTALL and MR_INVALIDATE refuse what is wrong, and a refused
 *	install changes no entry.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ktap.h"
#include "roce_node.h"
#include "util/clock.h"

#define WAIT_MS		10000
#define IOVA_ODP	0x7f0000000000ull
#define IOVA_B		0x7e0000000000ull
#define NPAGES		4
#define LEN		(NPAGES * 4096u)
#define MAX_FAULTS	8
#define SEED		0x0d9

static const uint32_t all_access = ORCA_ACCESS_LOCAL_WRITE |
	ORCA_ACCESS_REMOTE_WRITE | ORCA_ACCESS_REMOTE_READ |
	ORCA_ACCESS_REMOTE_ATOMIC;

/* A's on-demand MR: its memory (guest pages) and its key. */
struct odp_buf {
	uint64_t page[NPAGES];
	uint32_t lkey;
};

/*
 * A requests, B responds; the on-demand MR and the fault table are on
 * @odp, A (requester faults) or B (responder faults).
 */
struct rig {
	struct node a, b;
	struct node *odp;
	struct tcq acq, bcq;
	struct tqp aqp, bqp;
	struct tbuf abuf, bbuf;		/* ordinary MRs */
	struct odp_buf ob;
	uint64_t table;			/* @odp's fault records */
};

static int set_odp(struct node *n, uint64_t table, uint16_t max,
		   uint32_t ms)
{
	struct orca_cmd_set_odp in = {
		.fault_table = htole64(table), .max_faults = htole16(max),
		.fault_timeout_ms = htole32(ms),
	};

	return th_cmd(&n->t, ORCA_CMD_SET_ODP, &in, sizeof(in));
}

/* CREATE_MR ON_DEMAND | @more; the lkey, or -status. */
static int64_t odp_mr(struct node *n, uint64_t iova, uint64_t len,
		      uint32_t access, uint32_t more)
{
	struct orca_cmd_create_mr in = {
		.pdn = htole32(n->pdn), .access = htole32(access),
		.flags = htole32(ORCA_MR_F_ON_DEMAND | more),
		.page_shift = 12, .key = 0x3c,
		.iova = htole64(iova), .length = htole64(len),
	};
	struct orca_cmd_create_mr_out out;
	int st = th_cmd(&n->t, ORCA_CMD_CREATE_MR, &in, sizeof(in));

	if (st)
		return st < 0 ? -100 : -st;
	memcpy(&out, n->t.last.out, sizeof(out));
	return le32toh(out.lkey);
}

/*
 * MR_INSTALL of @np entries (@e, host endian) at @va, with @flags and
 * @token; the status, and in *@resumed what the device said.
 */
static int install(struct node *n, uint32_t lkey, uint64_t va,
		   const uint64_t *e, uint32_t np, uint32_t flags,
		   uint32_t token, int *resumed)
{
	struct orca_cmd_mr_install in = {
		.lkey = htole32(lkey), .flags = htole32(flags),
		.token = htole32(token), .npages = htole32(np),
		.va = htole64(va),
	};
	struct tcmd c = { .opcode = ORCA_CMD_MR_INSTALL, .in = &in,
			  .in_size = sizeof(in) };
	struct orca_cmd_mr_install_out out;
	int st;

	if (np) {
		uint64_t list = galloc(&n->t, 8ull * np, 8);
		uint64_t *l = gptr(&n->t, list);

		for (uint32_t i = 0; i < np; i++)
			l[i] = htole64(e[i]);
		c.in_addr = list;
		c.in_len = 8 * np;
	}
	st = th_exec(&n->t, &c);
	memcpy(&out, n->t.last.out, sizeof(out));
	if (resumed)
		*resumed = st ? -1 : out.resumed;
	return st;
}

/* Installs pages [first, first + np) of @ob readable (and writable). */
static int install_pages(struct node *n, struct odp_buf *ob, uint32_t first,
			 uint32_t np, bool writable, uint32_t flags,
			 uint32_t token, int *resumed)
{
	uint64_t e[NPAGES];

	for (uint32_t i = 0; i < np; i++)
		e[i] = ob->page[first + i] | ORCA_XLT_READ |
		       (writable ? ORCA_XLT_WRITE : 0);
	return install(n, ob->lkey, IOVA_ODP + 4096ull * first, e, np, flags,
		       token, resumed);
}

static int invalidate(struct node *n, uint32_t lkey, uint64_t va,
		      uint64_t len, uint32_t flags)
{
	struct orca_cmd_mr_invalidate in = {
		.lkey = htole32(lkey), .flags = htole32(flags),
		.va = htole64(va), .length = htole64(len),
	};

	return th_cmd(&n->t, ORCA_CMD_MR_INVALIDATE, &in, sizeof(in));
}

/*
 * The next ORCA_EQE_PAGE_FAULT of @n's EQ 0 within @ms (other events are
 * passed over), and its record; false if none came.
 */
static bool next_fault(struct rig *r, struct orca_eqe *e,
		       struct orca_page_fault *rec, unsigned int ms)
{
	uint64_t end = now_ms() + ms;
	struct th *t = &r->odp->t;

	do {
		while (th_eq0_next(t, e)) {
			if (e->type != ORCA_EQE_PAGE_FAULT)
				continue;
			memcpy(rec, gptr(t, r->table + 64ull *
					 FIELD_GET(ORCA_PF_TOKEN_SLOT,
						   le32toh(e->data))),
			       sizeof(*rec));
			return true;
		}
		usleep(1000);
	} while (now_ms() < end);
	return false;
}

/* No page fault event comes within @ms. */
static bool no_fault(struct rig *r, unsigned int ms)
{
	struct orca_page_fault rec;
	struct orca_eqe e;

	return !next_fault(r, &e, &rec, ms);
}

static struct roce_stats stats(struct node *n)
{
	struct roce_stats st;

	engine_flush(n->t.eng);
	roce_get_stats(n->t.eng, &st);
	return st;
}

static struct orca_port_stats port_stats(struct node *n)
{
	struct orca_cmd_query_port in = { .port = 1 };
	uint64_t out = galloc(&n->t, sizeof(struct orca_port_stats), 8);
	struct tcmd c = { .opcode = ORCA_CMD_QUERY_STATS, .in = &in,
			  .in_size = sizeof(in), .out_addr = out,
			  .out_len = sizeof(struct orca_port_stats) };
	struct orca_port_stats ps = { 0 };

	if (th_exec(&n->t, &c) == 0)
		memcpy(&ps, gptr(&n->t, out), sizeof(ps));
	return ps;
}

/*
 * A and B connected (RC, path MTU 1024), A (or B, @on_b) with SET_ODP
 * (timeout @ms, 0: the device's) and an empty on-demand MR; on A its
 * pages hold pattern SEED, on B zeros.
 */
static bool rig_up_on(struct rig *r, uint32_t ms, uint8_t type, bool on_b)
{
	struct rc_opts o = { .path_mtu = 3, .timeout = 14, .retry_cnt = 7,
			     .rnr_retry = 7, .min_rnr_timer = 1,
			     .access = ORCA_QP_ACCESS_ALL };
	int64_t key;
	bool ok;

	memset(r, 0, sizeof(*r));
	ok = node_init(&r->a, 1) && node_init(&r->b, 2);
	if (!ok)
		return false;
	r->a.peer = &r->b;
	r->b.peer = &r->a;
	r->odp = on_b ? &r->b : &r->a;
	r->table = galloc(&r->odp->t, 64ull * MAX_FAULTS, 64);
	for (uint32_t i = 0; i < NPAGES; i++) {
		r->ob.page[i] = galloc(&r->odp->t, 4096, 4096);
		for (uint32_t j = 0; !on_b && j < 4096; j++)
			((uint8_t *)gptr(&r->a.t, r->ob.page[i]))[j] =
				pat_byte(SEED, 4096ull * i + j);
	}
	if (set_odp(r->odp, r->table, MAX_FAULTS, ms))
		return false;
	key = odp_mr(r->odp, IOVA_ODP, LEN, all_access, 0);
	if (key < 0)
		return false;
	r->ob.lkey = key;
	ok = node_cq(&r->a, &r->acq, 8) && node_cq(&r->b, &r->bcq, 8) &&
	     node_buf(&r->a, &r->abuf, IOVA_B, LEN, all_access) &&
	     node_buf(&r->b, &r->bbuf, IOVA_B, LEN, all_access) &&
	     node_qp(&r->a, &r->aqp, type, &r->acq, &r->acq) &&
	     node_qp(&r->b, &r->bqp, type, &r->bcq, &r->bcq);
	if (!ok)
		return false;
	if (type == ORCA_QPT_UD)
		return node_ud_ready(&r->a, &r->aqp, 0x1111) &&
		       node_ud_ready(&r->b, &r->bqp, 0x1111);
	return node_connect(&r->a, &r->aqp, &r->b, r->bqp.qpn, &o) &&
	       node_connect(&r->b, &r->bqp, &r->a, r->aqp.qpn, &o);
}

static bool rig_up_type(struct rig *r, uint32_t ms, uint8_t type)
{
	return rig_up_on(r, ms, type, false);
}

static bool rig_up(struct rig *r, uint32_t ms)
{
	bool ok = rig_up_type(r, ms, ORCA_QPT_RC);

	CHECK(ok);
	return ok;
}

static void rig_down(struct rig *r)
{
	engine_set_roce_tx(r->a.t.eng, NULL, NULL);
	engine_set_roce_tx(r->b.t.eng, NULL, NULL);
	node_fini(&r->a);
	node_fini(&r->b);
	free(r->abuf.pages);
	free(r->bbuf.pages);
}

/* A SENDs @len bytes from the on-demand MR's start; B has a receive up. */
static void send_from_odp(struct rig *r, uint64_t wr_id, uint32_t len)
{
	struct orca_send_wqe_hdr h = wqe(ORCA_WQE_SEND, wr_id);
	struct tsge s = { IOVA_ODP, len, r->ob.lkey };
	struct tsge d = { IOVA_B, LEN, r->bbuf.key };

	post_recv(&r->b, &r->bqp, wr_id, &d, 1);
	post_send(&r->a, &r->aqp, &h, &s, 1);
}

/* The fault @rec is A's QP's REQ_DATA at MR address @va, one packet. */
static bool req_fault_at(struct rig *r, const struct orca_eqe *e,
			 const struct orca_page_fault *rec, uint64_t va)
{
	bool ok = e->subtype == ORCA_PF_REQ_DATA &&
		  le32toh(e->data2) == r->aqp.qpn &&
		  rec->token == e->data && rec->kind == ORCA_PF_REQ_DATA &&
		  !(rec->flags & ORCA_PF_F_WRITE) &&
		  le32toh(rec->qpn) == r->aqp.qpn &&
		  le32toh(rec->mkey) == r->ob.lkey &&
		  le64toh(rec->va) == va && le32toh(rec->length) == 1024 &&
		  FIELD_GET(ORCA_PF_TOKEN_GEN, le32toh(rec->token)) != 0;

	if (!ok)
		printf("# fault: eqe sub %u data %#x qpn %u; record token %#x kind %u flags %#x qpn %u mkey %#x va %#llx len %u\n",
		       e->subtype, le32toh(e->data), le32toh(e->data2),
		       le32toh(rec->token), rec->kind, rec->flags,
		       le32toh(rec->qpn), le32toh(rec->mkey),
		       (unsigned long long)le64toh(rec->va),
		       le32toh(rec->length));
	return ok;
}

static void odp_send_faults_and_resumes(void)
{
	struct orca_page_fault rec;
	struct roce_stats sa, sb;
	struct orca_port_stats ps;
	struct orca_eqe e;
	struct orca_cqe c;
	struct rig r;
	int resumed;

	if (rig_up(&r, 0)) {
		send_from_odp(&r, 1, LEN);
		CHECK(next_fault(&r, &e, &rec, WAIT_MS));
		CHECK(req_fault_at(&r, &e, &rec, IOVA_ODP));
		CHECK(le32toh(rec.wqe_idx) == 0);
		/* Stopped: nothing on the wire, nothing completed. */
		usleep(50000);
		sb = stats(&r.b);
		CHECK(sb.rx_frames == 0);
		CHECK(!take_cqe(&r.a, &r.acq, &c));
		CHECK(no_fault(&r, 20));

		/* The first page: packets 1-4 go, packet 5 faults. */
		CHECK(install_pages(&r.a, &r.ob, 0, 1, false,
				    ORCA_MR_INSTALL_F_RESUME,
				    le32toh(rec.token), &resumed) == 0);
		CHECK(resumed == 1);
		CHECK(next_fault(&r, &e, &rec, WAIT_MS));
		CHECK(req_fault_at(&r, &e, &rec, IOVA_ODP + 4096));
		CHECK(!take_cqe(&r.a, &r.acq, &c));

		CHECK(install_pages(&r.a, &r.ob, 1, NPAGES - 1, false,
				    ORCA_MR_INSTALL_F_RESUME,
				    le32toh(rec.token), &resumed) == 0);
		CHECK(resumed == 1);
		CHECK(node_expect_cqe(&r.a, &r.acq, 1, ORCA_CQE_SEND,
				      ORCA_CQE_ST_SUCCESS, NULL, WAIT_MS));
		CHECK(node_expect_cqe(&r.b, &r.bcq, 1, ORCA_CQE_RECV,
				      ORCA_CQE_ST_SUCCESS, &c, WAIT_MS));
		CHECK(le32toh(c.byte_len) == LEN);
		CHECK(buf_check(&r.b, &r.bbuf, 0, LEN, SEED));
		sa = stats(&r.a);
		sb = stats(&r.b);
		CHECK(sa.retransmits == 0 && sb.dup_requests == 0);
		CHECK(sb.rx_frames == LEN / 1024);
		CHECK(sa.odp_resumes == 2 && sa.odp_fails == 0);
		ps = port_stats(&r.a);
		CHECK(le64toh(ps.odp_faults) == 2);
		CHECK(le64toh(ps.odp_fault_timeouts) == 0);
		/* Warm: the same SEND again faults no more. */
		send_from_odp(&r, 2, LEN);
		CHECK(node_expect_cqe(&r.a, &r.acq, 2, ORCA_CQE_SEND,
				      ORCA_CQE_ST_SUCCESS, NULL, WAIT_MS));
		CHECK(node_expect_cqe(&r.b, &r.bcq, 2, ORCA_CQE_RECV,
				      ORCA_CQE_ST_SUCCESS, NULL, WAIT_MS));
		CHECK(no_fault(&r, 20));
	}
	rig_down(&r);
	ktap_case_end("odp_send_faults_and_resumes");
}

static void odp_invalidate_faults_again(void)
{
	struct orca_page_fault rec;
	struct orca_eqe e;
	struct rig r;
	int resumed;

	if (rig_up(&r, 0)) {
		CHECK(install_pages(&r.a, &r.ob, 0, NPAGES, false, 0, 0,
				    NULL) == 0);
		send_from_odp(&r, 1, LEN);
		CHECK(node_expect_cqe(&r.a, &r.acq, 1, ORCA_CQE_SEND,
				      ORCA_CQE_ST_SUCCESS, NULL, WAIT_MS));
		CHECK(node_expect_cqe(&r.b, &r.bcq, 1, ORCA_CQE_RECV,
				      ORCA_CQE_ST_SUCCESS, NULL, WAIT_MS));
		CHECK(no_fault(&r, 10));

		/* Page 2 goes: the next SEND stops there (packet 9). */
		CHECK(invalidate(&r.a, r.ob.lkey, IOVA_ODP + 8192, 4096,
				 0) == 0);
		memset(gptr(&r.b.t, r.bbuf.pages[0]), 0, 4096);
		send_from_odp(&r, 2, LEN);
		CHECK(next_fault(&r, &e, &rec, WAIT_MS));
		CHECK(req_fault_at(&r, &e, &rec, IOVA_ODP + 8192));
		CHECK(install_pages(&r.a, &r.ob, 2, 1, false,
				    ORCA_MR_INSTALL_F_RESUME,
				    le32toh(rec.token), &resumed) == 0);
		CHECK(resumed == 1);
		CHECK(node_expect_cqe(&r.a, &r.acq, 2, ORCA_CQE_SEND,
				      ORCA_CQE_ST_SUCCESS, NULL, WAIT_MS));
		CHECK(node_expect_cqe(&r.b, &r.bcq, 2, ORCA_CQE_RECV,
				      ORCA_CQE_ST_SUCCESS, NULL, WAIT_MS));
		CHECK(buf_check(&r.b, &r.bbuf, 0, LEN, SEED));
		/* ALL: the whole MR faults again from its first byte. */
		CHECK(invalidate(&r.a, r.ob.lkey, 0, 0,
				 ORCA_MR_INVAL_F_ALL) == 0);
		send_from_odp(&r, 3, 100);
		CHECK(next_fault(&r, &e, &rec, WAIT_MS));
		CHECK(e.subtype == ORCA_PF_REQ_DATA &&
		      le64toh(rec.va) == IOVA_ODP &&
		      le32toh(rec.length) == 100);
		CHECK(install_pages(&r.a, &r.ob, 0, 1, false,
				    ORCA_MR_INSTALL_F_RESUME,
				    le32toh(rec.token), &resumed) == 0);
		CHECK(node_expect_cqe(&r.a, &r.acq, 3, ORCA_CQE_SEND,
				      ORCA_CQE_ST_SUCCESS, NULL, WAIT_MS));
	}
	rig_down(&r);
	ktap_case_end("odp_invalidate_faults_again");
}

static void odp_fail_and_stale_resume(void)
{
	struct orca_page_fault rec;
	struct orca_eqe e;
	struct rig r;
	int resumed;

	if (rig_up(&r, 0)) {
		send_from_odp(&r, 1, LEN);
		CHECK(next_fault(&r, &e, &rec, WAIT_MS));
		CHECK(install(&r.a, 0, 0, NULL, 0, ORCA_MR_INSTALL_F_FAIL,
			      le32toh(rec.token), &resumed) == 0);
		CHECK(resumed == 1);
		CHECK(node_expect_cqe(&r.a, &r.acq, 1, ORCA_CQE_SEND,
				      ORCA_CQE_ST_LOC_PROT_ERR, NULL,
				      WAIT_MS));
		/* The same token again: stale, not an error. */
		CHECK(install(&r.a, 0, 0, NULL, 0, ORCA_MR_INSTALL_F_RESUME,
			      le32toh(rec.token), &resumed) == 0);
		CHECK(resumed == 0);
		CHECK(stats(&r.a).odp_fails == 1);
		CHECK(stats(&r.b).rx_frames == 0);
	}
	rig_down(&r);
	ktap_case_end("odp_fail_and_stale_resume");
}

static void odp_timeout(void)
{
	struct orca_page_fault rec;
	struct orca_port_stats ps;
	struct orca_eqe e;
	uint64_t t0, took;
	struct rig r;
	int resumed;

	if (rig_up(&r, 100)) {
		t0 = now_ms();
		send_from_odp(&r, 1, LEN);
		CHECK(next_fault(&r, &e, &rec, WAIT_MS));
		CHECK(node_expect_cqe(&r.a, &r.acq, 1, ORCA_CQE_SEND,
				      ORCA_CQE_ST_LOC_PROT_ERR, NULL,
				      WAIT_MS));
		took = now_ms() - t0;
		printf("# the unanswered fault failed after %llu ms\n",
		       (unsigned long long)took);
		CHECK(took >= 100);
		ps = port_stats(&r.a);
		CHECK(le64toh(ps.odp_faults) == 1);
		CHECK(le64toh(ps.odp_fault_timeouts) == 1);
		CHECK(install_pages(&r.a, &r.ob, 0, 1, false,
				    ORCA_MR_INSTALL_F_RESUME,
				    le32toh(rec.token), &resumed) == 0);
		CHECK(resumed == 0);
	}
	rig_down(&r);
	ktap_case_end("odp_timeout");
}

/*
 * A fault the driver never hears of ("odp-drop-faults"): no record, no
 * event; the timeout ("odp-fault-timeout", over SET_ODP's 30 s) ends it,
 * and the QP and the MR go cleanly after.
 */
static void odp_hung_fault(void)
{
	struct orca_port_stats ps;
	uint64_t t0, took;
	struct rig r;

	if (rig_up(&r, 0)) {
		CHECK(engine_inject(r.a.t.eng, "odp-drop-faults 1") == 0);
		CHECK(engine_inject(r.a.t.eng, "odp-fault-timeout 150") == 0);
		CHECK(engine_inject(r.a.t.eng, "odp-fault-timeout 99") ==
		      -EINVAL);
		t0 = now_ms();
		send_from_odp(&r, 1, LEN);
		CHECK(no_fault(&r, 50));
		CHECK(node_expect_cqe(&r.a, &r.acq, 1, ORCA_CQE_SEND,
				      ORCA_CQE_ST_LOC_PROT_ERR, NULL,
				      WAIT_MS));
		took = now_ms() - t0;
		printf("# the hidden fault failed after %llu ms\n",
		       (unsigned long long)took);
		CHECK(took >= 150 && took < 5000);
		CHECK(no_fault(&r, 10));
		ps = port_stats(&r.a);
		CHECK(le64toh(ps.odp_faults) == 1 &&
		      le64toh(ps.odp_fault_timeouts) == 1);
		CHECK(th_destroy(&r.a.t, ORCA_CMD_DESTROY_QP, r.aqp.qpn) == 0);
		CHECK(th_destroy(&r.a.t, ORCA_CMD_DESTROY_MR, r.ob.lkey) == 0);
	}
	rig_down(&r);
	ktap_case_end("odp_hung_fault");
}

static void odp_destroy_mr_cancels(void)
{
	struct orca_page_fault rec;
	struct orca_eqe e;
	struct rig r;
	int resumed;

	if (rig_up(&r, 0)) {
		send_from_odp(&r, 1, LEN);
		CHECK(next_fault(&r, &e, &rec, WAIT_MS));
		CHECK(th_destroy(&r.a.t, ORCA_CMD_DESTROY_MR, r.ob.lkey) == 0);
		CHECK(node_expect_cqe(&r.a, &r.acq, 1, ORCA_CQE_SEND,
				      ORCA_CQE_ST_LOC_PROT_ERR, NULL,
				      WAIT_MS));
		CHECK(install(&r.a, 0, 0, NULL, 0, ORCA_MR_INSTALL_F_RESUME,
			      le32toh(rec.token), &resumed) == 0);
		CHECK(resumed == 0);
		CHECK(no_fault(&r, 20));
		/* With no on-demand MR left, SET_ODP may change the table. */
		CHECK(set_odp(&r.a, r.table, 4, 0) == 0);
	}
	rig_down(&r);
	ktap_case_end("odp_destroy_mr_cancels");
}

/* An address handle on @a for @b; its number, or 0. */
static uint32_t ud_ah(struct node *a, struct node *b)
{
	struct orca_cmd_create_ah in = { .pdn = htole32(a->pdn) };
	int64_t ahn;

	node_gid(b, in.av.dgid);
	memcpy(in.av.dmac, b->mac, 6);
	in.av.hop_limit = 64;
	ahn = th_handle_or_neg(&a->t, th_cmd(&a->t, ORCA_CMD_CREATE_AH, &in,
					     sizeof(in)));
	return ahn > 0 ? (uint32_t)ahn : 0;
}

static void odp_ud_send(void)
{
	struct orca_send_wqe_hdr h = wqe(ORCA_WQE_SEND, 7);
	struct orca_page_fault rec;
	struct orca_eqe e;
	struct orca_cqe c;
	struct tsge s, d;
	struct rig r;
	int resumed;
	bool ok = rig_up_type(&r, 0, ORCA_QPT_UD);

	CHECK(ok);
	if (ok) {
		struct orca_send_wqe_hdr *u = &h;

		s = (struct tsge){ IOVA_ODP, 512, r.ob.lkey };
		d = (struct tsge){ IOVA_B, LEN, r.bbuf.key };
		u->dest_qpn = htole32(r.bqp.qpn);
		u->qkey = htole32(0x1111);
		u->ahn = htole32(ud_ah(&r.a, &r.b));
		post_recv(&r.b, &r.bqp, 7, &d, 1);
		post_send(&r.a, &r.aqp, &h, &s, 1);
		CHECK(next_fault(&r, &e, &rec, WAIT_MS));
		CHECK(e.subtype == ORCA_PF_REQ_DATA &&
		      le64toh(rec.va) == IOVA_ODP &&
		      le32toh(rec.length) == 512);
		CHECK(stats(&r.b).rx_frames == 0);
		CHECK(install_pages(&r.a, &r.ob, 0, 1, false,
				    ORCA_MR_INSTALL_F_RESUME,
				    le32toh(rec.token), &resumed) == 0);
		CHECK(node_expect_cqe(&r.a, &r.acq, 7, ORCA_CQE_SEND,
				      ORCA_CQE_ST_SUCCESS, NULL, WAIT_MS));
		CHECK(node_expect_cqe(&r.b, &r.bcq, 7, ORCA_CQE_RECV,
				      ORCA_CQE_ST_SUCCESS, &c, WAIT_MS));
		CHECK(le32toh(c.byte_len) == 40 + 512);
		CHECK(buf_check(&r.b, &r.bbuf, 40, 512, SEED));
	}
	rig_down(&r);
	ktap_case_end("odp_ud_send");
}

/*
 * READ responses and an atomic's result into A's on-demand MR: dropped
 * while the fault is out, asked for again after it; the atomic executes
 * once (its retry is answered from the responder's resources).
 */
static void odp_req_resp(void)
{
	struct orca_send_wqe_hdr h = wqe(ORCA_WQE_RDMA_READ, 71);
	struct orca_page_fault rec;
	struct orca_eqe e;
	uint64_t *target;
	struct tsge d;
	struct rig r;
	int resumed;

	if (rig_up(&r, 0)) {
		buf_fill(&r.b, &r.bbuf, 0, LEN, SEED + 5);
		/* Page 0 there but read only: the READ needs write. */
		CHECK(install_pages(&r.a, &r.ob, 0, 1, false, 0, 0, NULL) ==
		      0);
		d = (struct tsge){ IOVA_ODP, LEN, r.ob.lkey };
		h.remote_addr = htole64(IOVA_B);
		h.rkey = htole32(r.bbuf.key);
		post_send(&r.a, &r.aqp, &h, &d, 1);
		CHECK(next_fault(&r, &e, &rec, WAIT_MS));
		CHECK(e.subtype == ORCA_PF_REQ_RESP &&
		      rec.kind == ORCA_PF_REQ_RESP &&
		      (rec.flags & ORCA_PF_F_WRITE) &&
		      !(rec.flags & ORCA_PF_F_RNR) &&
		      le32toh(rec.qpn) == r.aqp.qpn &&
		      le64toh(rec.va) == IOVA_ODP &&
		      le32toh(rec.length) == 1024 &&
		      le32toh(rec.wqe_idx) == 0);
		CHECK(install_pages(&r.a, &r.ob, 0, NPAGES, true,
				    ORCA_MR_INSTALL_F_RESUME,
				    le32toh(rec.token), &resumed) == 0);
		CHECK(resumed == 1);
		CHECK(node_expect_cqe(&r.a, &r.acq, 71, ORCA_CQE_RDMA_READ,
				      ORCA_CQE_ST_SUCCESS, NULL, WAIT_MS));
		for (uint32_t i = 0; i < LEN; i++)
			if (*(uint8_t *)gptr(&r.a.t, r.ob.page[i / 4096] +
					      i % 4096) !=
			    pat_byte(SEED + 5, i)) {
				printf("# READ byte %u wrong\n", i);
				CHECK(0);
				break;
			}

		/* FETCH_ADD whose result goes to a page taken away. */
		CHECK(invalidate(&r.a, r.ob.lkey, IOVA_ODP + 4096, 4096, 0) ==
		      0);
		target = (uint64_t *)node_va(&r.b, &r.bbuf, 64);
		*target = htole64(1000);
		h = wqe(ORCA_WQE_ATOMIC_FA, 72);
		h.remote_addr = htole64(IOVA_B + 64);
		h.rkey = htole32(r.bbuf.key);
		h.compare_add = htole64(234);
		d = (struct tsge){ IOVA_ODP + 4096 + 8, 8, r.ob.lkey };
		post_send(&r.a, &r.aqp, &h, &d, 1);
		CHECK(next_fault(&r, &e, &rec, WAIT_MS));
		CHECK(e.subtype == ORCA_PF_REQ_RESP &&
		      le64toh(rec.va) == IOVA_ODP + 4096 + 8 &&
		      le32toh(rec.length) == 8 &&
		      le32toh(rec.wqe_idx) == 1);
		CHECK(install_pages(&r.a, &r.ob, 1, 1, true,
				    ORCA_MR_INSTALL_F_RESUME,
				    le32toh(rec.token), &resumed) == 0);
		CHECK(node_expect_cqe(&r.a, &r.acq, 72, ORCA_CQE_FETCH_ADD,
				      ORCA_CQE_ST_SUCCESS, NULL, WAIT_MS));
		CHECK(le64toh(*target) == 1234);
		CHECK(le64toh(*(uint64_t *)gptr(&r.a.t, r.ob.page[1] + 8)) ==
		      1000);
		CHECK(stats(&r.b).dup_requests >= 1);
	}
	rig_down(&r);
	ktap_case_end("odp_req_resp");
}

/* ---- the responder's faults: the on-demand MR is B's ---- */

static bool resp_rig(struct rig *r, uint32_t ms)
{
	bool ok = rig_up_on(r, ms, ORCA_QPT_RC, true);

	CHECK(ok);
	return ok;
}

/* Byte @off of B's on-demand MR (its pages, which the test placed). */
static uint8_t *odp_byte(struct rig *r, uint64_t off)
{
	return (uint8_t *)gptr(&r->b.t, r->ob.page[off / 4096]) + off % 4096;
}

static bool odp_check(struct rig *r, uint64_t off, uint64_t len,
		      uint32_t seed)
{
	for (uint64_t i = 0; i < len; i++) {
		if (*odp_byte(r, off + i) != pat_byte(seed, i)) {
			printf("# on-demand MR byte %llu is %#x, want %#x\n",
			       (unsigned long long)(off + i),
			       *odp_byte(r, off + i), pat_byte(seed, i));
			return false;
		}
	}
	return true;
}

/* A responder fault's event and record: @kind at @va, for B's QP. */
static bool resp_fault_is(struct rig *r, const struct orca_eqe *e,
			  const struct orca_page_fault *rec, uint8_t kind,
			  uint64_t va, bool write)
{
	bool ok = e->subtype == kind && le32toh(e->data2) == r->bqp.qpn &&
		  rec->token == e->data && rec->kind == kind &&
		  (rec->flags & ORCA_PF_F_RNR) &&
		  !!(rec->flags & ORCA_PF_F_WRITE) == write &&
		  le32toh(rec->qpn) == r->bqp.qpn &&
		  le32toh(rec->mkey) == r->ob.lkey && le64toh(rec->va) == va;

	if (!ok)
		printf("# fault: sub %u qpn %u; record kind %u flags %#x qpn %u mkey %#x va %#llx len %u psn %u\n",
		       e->subtype, le32toh(e->data2), rec->kind, rec->flags,
		       le32toh(rec->qpn), le32toh(rec->mkey),
		       (unsigned long long)le64toh(rec->va),
		       le32toh(rec->length), le32toh(rec->psn));
	return ok;
}

static void odp_resp_write(void)
{
	struct orca_send_wqe_hdr h = wqe(ORCA_WQE_RDMA_WRITE, 11);
	struct orca_page_fault rec;
	struct roce_stats sa, sb;
	struct orca_port_stats ps;
	struct orca_eqe e;
	struct orca_cqe c;
	struct tsge s;
	struct rig r;
	int resumed;

	if (resp_rig(&r, 0)) {
		buf_fill(&r.a, &r.abuf, 0, LEN, SEED + 1);
		s = (struct tsge){ IOVA_B, LEN, r.abuf.key };
		h.remote_addr = htole64(IOVA_ODP);
		h.rkey = htole32(r.ob.lkey);
		post_send(&r.a, &r.aqp, &h, &s, 1);
		CHECK(next_fault(&r, &e, &rec, WAIT_MS));
		CHECK(resp_fault_is(&r, &e, &rec, ORCA_PF_RESP_WRITE,
				    IOVA_ODP, true));
		CHECK(le32toh(rec.length) == 1024);
		CHECK(le32toh(rec.prefetch) == LEN - 1024);
		/* The peer is held off by RNR NAKs, with one fault only. */
		usleep(30000);
		if (take_cqe(&r.a, &r.acq, &c)) {
			printf("# early CQE: wr_id %llu status %u\n",
			       (unsigned long long)cqe_wr_id(&c), c.status);
			CHECK(0);
		}
		CHECK(no_fault(&r, 10));
		sa = stats(&r.a);
		sb = stats(&r.b);
		CHECK(sa.rnr_naks_rx >= 1 && sb.odp_fault_rnr_naks >= 1);
		for (uint32_t i = 0; i < LEN; i++)
			if (*odp_byte(&r, i)) {
				CHECK(!"a byte landed before its page");
				break;
			}
		CHECK(install_pages(&r.b, &r.ob, 0, NPAGES, true,
				    ORCA_MR_INSTALL_F_RESUME,
				    le32toh(rec.token), &resumed) == 0);
		CHECK(resumed == 1);
		CHECK(node_expect_cqe(&r.a, &r.acq, 11, ORCA_CQE_RDMA_WRITE,
				      ORCA_CQE_ST_SUCCESS, NULL, WAIT_MS));
		CHECK(odp_check(&r, 0, LEN, SEED + 1));
		ps = port_stats(&r.b);
		CHECK(le64toh(ps.odp_faults) == 1);
		CHECK(le64toh(ps.odp_fault_rnr_naks) >= 1 &&
		      le64toh(ps.rnr_naks_tx) >= le64toh(ps.odp_fault_rnr_naks));
	}
	rig_down(&r);
	ktap_case_end("odp_resp_write");
}

/* A page missing mid-message: the retry goes on from that PSN. */
static void odp_resp_recv_keeps_its_wqe(void)
{
	struct orca_send_wqe_hdr h = wqe(ORCA_WQE_SEND, 21);
	struct orca_page_fault rec;
	struct orca_eqe e;
	struct orca_cqe c;
	struct tsge s, d;
	struct rig r;
	int resumed;

	if (resp_rig(&r, 0)) {
		CHECK(install_pages(&r.b, &r.ob, 0, 2, true, 0, 0, NULL) == 0);
		buf_fill(&r.a, &r.abuf, 0, LEN, SEED + 2);
		d = (struct tsge){ IOVA_ODP, LEN, r.ob.lkey };
		post_recv(&r.b, &r.bqp, 31, &d, 1);
		post_recv(&r.b, &r.bqp, 32, &d, 1);
		s = (struct tsge){ IOVA_B, LEN, r.abuf.key };
		post_send(&r.a, &r.aqp, &h, &s, 1);
		CHECK(next_fault(&r, &e, &rec, WAIT_MS));
		CHECK(resp_fault_is(&r, &e, &rec, ORCA_PF_RESP_RECV,
				    IOVA_ODP + 8192, true));
		CHECK(le32toh(rec.wqe_idx) == 0);
		CHECK(install_pages(&r.b, &r.ob, 2, 2, true,
				    ORCA_MR_INSTALL_F_RESUME,
				    le32toh(rec.token), &resumed) == 0);
		CHECK(node_expect_cqe(&r.a, &r.acq, 21, ORCA_CQE_SEND,
				      ORCA_CQE_ST_SUCCESS, NULL, WAIT_MS));
		/* The first receive WQE took it, whole; the second waits. */
		CHECK(node_expect_cqe(&r.b, &r.bcq, 31, ORCA_CQE_RECV,
				      ORCA_CQE_ST_SUCCESS, &c, WAIT_MS));
		CHECK(le32toh(c.byte_len) == LEN);
		CHECK(odp_check(&r, 0, LEN, SEED + 2));
		CHECK(!take_cqe(&r.b, &r.bcq, &c));
		CHECK(stats(&r.a).retransmits > 0);	/* the RNR'd PSNs */

		/* A miss on the FIRST packet: its retry takes WQE 32 once. */
		CHECK(invalidate(&r.b, r.ob.lkey, 0, 0,
				 ORCA_MR_INVAL_F_ALL) == 0);
		buf_fill(&r.a, &r.abuf, 0, LEN, SEED + 4);
		h = wqe(ORCA_WQE_SEND, 22);
		post_send(&r.a, &r.aqp, &h, &s, 1);
		CHECK(next_fault(&r, &e, &rec, WAIT_MS));
		CHECK(resp_fault_is(&r, &e, &rec, ORCA_PF_RESP_RECV,
				    IOVA_ODP, true));
		CHECK(le32toh(rec.wqe_idx) == 1);
		CHECK(install_pages(&r.b, &r.ob, 0, NPAGES, true,
				    ORCA_MR_INSTALL_F_RESUME,
				    le32toh(rec.token), &resumed) == 0);
		CHECK(node_expect_cqe(&r.a, &r.acq, 22, ORCA_CQE_SEND,
				      ORCA_CQE_ST_SUCCESS, NULL, WAIT_MS));
		CHECK(node_expect_cqe(&r.b, &r.bcq, 32, ORCA_CQE_RECV,
				      ORCA_CQE_ST_SUCCESS, &c, WAIT_MS));
		CHECK(le32toh(c.byte_len) == LEN);
		CHECK(odp_check(&r, 0, LEN, SEED + 4));
		CHECK(!take_cqe(&r.b, &r.bcq, &c));
	}
	rig_down(&r);
	ktap_case_end("odp_resp_recv_keeps_its_wqe");
}

static void odp_resp_read(void)
{
	struct orca_send_wqe_hdr h = wqe(ORCA_WQE_RDMA_READ, 41);
	struct orca_page_fault rec;
	struct orca_eqe e;
	struct tsge d;
	struct rig r;
	int resumed;

	if (resp_rig(&r, 0)) {
		for (uint32_t i = 0; i < LEN; i++)
			*odp_byte(&r, i) = pat_byte(SEED + 3, i);
		d = (struct tsge){ IOVA_B, LEN, r.abuf.key };
		h.remote_addr = htole64(IOVA_ODP);
		h.rkey = htole32(r.ob.lkey);
		post_send(&r.a, &r.aqp, &h, &d, 1);
		CHECK(next_fault(&r, &e, &rec, WAIT_MS));
		/* Read access only, the whole READ in the hint. */
		CHECK(resp_fault_is(&r, &e, &rec, ORCA_PF_RESP_READ,
				    IOVA_ODP, false));
		CHECK(le32toh(rec.length) == 1024 &&
		      le32toh(rec.prefetch) == LEN - 1024);
		CHECK(install_pages(&r.b, &r.ob, 0, NPAGES, false,
				    ORCA_MR_INSTALL_F_RESUME,
				    le32toh(rec.token), &resumed) == 0);
		CHECK(node_expect_cqe(&r.a, &r.acq, 41, ORCA_CQE_RDMA_READ,
				      ORCA_CQE_ST_SUCCESS, NULL, WAIT_MS));
		CHECK(buf_check(&r.a, &r.abuf, 0, LEN, SEED + 3));
	}
	rig_down(&r);
	ktap_case_end("odp_resp_read");
}

/* A read-only translation: an atomic faults again, asking for write. */
static void odp_resp_atomic_needs_write(void)
{
	struct orca_send_wqe_hdr h = wqe(ORCA_WQE_ATOMIC_FA, 51);
	struct orca_page_fault rec;
	struct orca_eqe e;
	uint64_t *word;
	struct tsge d;
	struct rig r;
	int resumed;

	if (resp_rig(&r, 0)) {
		word = (uint64_t *)odp_byte(&r, 4096 + 64);
		*word = htole64(1000);
		CHECK(install_pages(&r.b, &r.ob, 1, 1, false, 0, 0, NULL) ==
		      0);
		d = (struct tsge){ IOVA_B, 8, r.abuf.key };
		h.remote_addr = htole64(IOVA_ODP + 4096 + 64);
		h.rkey = htole32(r.ob.lkey);
		h.compare_add = htole64(234);
		post_send(&r.a, &r.aqp, &h, &d, 1);
		CHECK(next_fault(&r, &e, &rec, WAIT_MS));
		CHECK(resp_fault_is(&r, &e, &rec, ORCA_PF_RESP_ATOMIC,
				    IOVA_ODP + 4096 + 64, true));
		CHECK(le32toh(rec.length) == 8);
		CHECK(le64toh(*word) == 1000);
		/* Resumed with read only: the retry faults once more. */
		CHECK(install_pages(&r.b, &r.ob, 1, 1, false,
				    ORCA_MR_INSTALL_F_RESUME,
				    le32toh(rec.token), &resumed) == 0);
		CHECK(next_fault(&r, &e, &rec, WAIT_MS));
		CHECK(resp_fault_is(&r, &e, &rec, ORCA_PF_RESP_ATOMIC,
				    IOVA_ODP + 4096 + 64, true));
		CHECK(le64toh(*word) == 1000);
		CHECK(install_pages(&r.b, &r.ob, 1, 1, true,
				    ORCA_MR_INSTALL_F_RESUME,
				    le32toh(rec.token), &resumed) == 0);
		CHECK(node_expect_cqe(&r.a, &r.acq, 51, ORCA_CQE_FETCH_ADD,
				      ORCA_CQE_ST_SUCCESS, NULL, WAIT_MS));
		/* Executed once, its result the value before. */
		CHECK(le64toh(*word) == 1234);
		CHECK(le64toh(*(uint64_t *)node_va(&r.a, &r.abuf, 0)) == 1000);
	}
	rig_down(&r);
	ktap_case_end("odp_resp_atomic_needs_write");
}

/* FAIL on the responder: the peer's retry meets an access error. */
static void odp_resp_fail(void)
{
	struct orca_send_wqe_hdr h = wqe(ORCA_WQE_RDMA_WRITE, 61);
	struct orca_page_fault rec;
	struct orca_eqe e;
	struct tsge s;
	struct rig r;
	bool access_err = false;
	int resumed;

	if (resp_rig(&r, 0)) {
		s = (struct tsge){ IOVA_B, 4096, r.abuf.key };
		h.remote_addr = htole64(IOVA_ODP);
		h.rkey = htole32(r.ob.lkey);
		post_send(&r.a, &r.aqp, &h, &s, 1);
		CHECK(next_fault(&r, &e, &rec, WAIT_MS));
		CHECK(install(&r.b, 0, 0, NULL, 0, ORCA_MR_INSTALL_F_FAIL,
			      le32toh(rec.token), &resumed) == 0);
		CHECK(resumed == 1);
		CHECK(node_expect_cqe(&r.a, &r.acq, 61, ORCA_CQE_RDMA_WRITE,
				      ORCA_CQE_ST_REM_ACCESS_ERR, NULL,
				      WAIT_MS));
		/* B's QP went to ERR with an access error event. */
		while (th_eq0_next(&r.b.t, &e))
			if (e.type == ORCA_EQE_QP_ACCESS_ERR &&
			    le32toh(e.data) == r.bqp.qpn)
				access_err = true;
		CHECK(access_err);
	}
	rig_down(&r);
	ktap_case_end("odp_resp_fail");
}

/* A SENDs @len bytes from MR address @va of @lkey; B has a receive up. */
static void send_from(struct rig *r, uint64_t wr_id, uint32_t lkey,
		      uint64_t va, uint32_t len)
{
	struct orca_send_wqe_hdr h = wqe(ORCA_WQE_SEND, wr_id);
	struct tsge s = { va, len, lkey };
	struct tsge d = { IOVA_B, LEN, r->bbuf.key };

	post_recv(&r->b, &r->bqp, wr_id, &d, 1);
	post_send(&r->a, &r->aqp, &h, &s, 1);
}

/* The next fault is A's at @va of @lkey; *@token its token. */
static bool implicit_fault_at(struct rig *r, uint32_t lkey, uint64_t va,
			      uint32_t *token)
{
	struct orca_page_fault rec;
	struct orca_eqe e;

	if (!next_fault(r, &e, &rec, WAIT_MS))
		return false;
	*token = le32toh(rec.token);
	if (le32toh(rec.mkey) == lkey && le64toh(rec.va) == va)
		return true;
	printf("# fault of key %#x at %#llx, expected %#x at %#llx\n",
	       le32toh(rec.mkey), (unsigned long long)le64toh(rec.va), lkey,
	       (unsigned long long)va);
	return false;
}

static void odp_implicit(void)
{
	/* Two addresses 16 TiB apart, the second in the middle of a leaf. */
	const uint64_t va1 = 0x123456789000ull, va2 = 0x223456a00000ull;
	uint64_t used0, limit, e[2];
	struct emu_mem *mem;
	struct orca_cqe c;
	uint32_t token;
	struct rig r;
	int64_t key;
	int resumed;

	if (!rig_up(&r, 0)) {
		rig_down(&r);
		ktap_case_end("odp_implicit");
		return;
	}
	mem = &r.a.t.eng->mem;
	key = odp_mr(&r.a, 0, 0, all_access, ORCA_MR_F_IMPLICIT);
	CHECK(key > 0);
	used0 = mem->used;

	/* A SEND from far up faults with the implicit key and its address. */
	send_from(&r, 1, (uint32_t)key, va1, 64);
	CHECK(implicit_fault_at(&r, (uint32_t)key, va1, &token));
	e[0] = r.ob.page[0] | ORCA_XLT_READ | ORCA_XLT_WRITE;
	CHECK(install(&r.a, (uint32_t)key, va1, e, 1,
		      ORCA_MR_INSTALL_F_RESUME, token, &resumed) == 0);
	CHECK(resumed == 1);
	CHECK(mem->used == used0 + EMU_XLT_LEAF_COST);
	CHECK(node_expect_cqe(&r.a, &r.acq, 1, ORCA_CQE_SEND,
			      ORCA_CQE_ST_SUCCESS, NULL, WAIT_MS));
	CHECK(node_expect_cqe(&r.b, &r.bcq, 1, ORCA_CQE_RECV,
			      ORCA_CQE_ST_SUCCESS, &c, WAIT_MS));
	CHECK(le32toh(c.byte_len) == 64 && buf_check(&r.b, &r.bbuf, 0, 64,
						      SEED));

	/* The second address: its own leaf; two pages, a SEND across both. */
	send_from(&r, 2, (uint32_t)key, va2 + 4096 - 32, 64);
	CHECK(implicit_fault_at(&r, (uint32_t)key, va2 + 4096 - 32, &token));
	e[0] = r.ob.page[0] | ORCA_XLT_READ;
	e[1] = r.ob.page[1] | ORCA_XLT_READ;
	CHECK(install(&r.a, (uint32_t)key, va2, e, 2,
		      ORCA_MR_INSTALL_F_RESUME, token, &resumed) == 0);
	CHECK(resumed == 1);
	CHECK(mem->used == used0 + 2 * EMU_XLT_LEAF_COST);
	CHECK(node_expect_cqe(&r.a, &r.acq, 2, ORCA_CQE_SEND,
			      ORCA_CQE_ST_SUCCESS, NULL, WAIT_MS));
	CHECK(node_expect_cqe(&r.b, &r.bcq, 2, ORCA_CQE_RECV,
			      ORCA_CQE_ST_SUCCESS, &c, WAIT_MS));
	CHECK(memcmp(node_va(&r.b, &r.bbuf, 0),
		     gptr(&r.a.t, r.ob.page[0]) + 4096 - 32, 32) == 0);
	CHECK(memcmp(node_va(&r.b, &r.bbuf, 32),
		     gptr(&r.a.t, r.ob.page[1]), 32) == 0);

	/* Invalidated: the first leaf empties and is released; it faults. */
	CHECK(invalidate(&r.a, (uint32_t)key, va1, 4096, 0) == 0);
	CHECK(mem->used == used0 + EMU_XLT_LEAF_COST);
	send_from(&r, 3, (uint32_t)key, va1, 64);
	CHECK(implicit_fault_at(&r, (uint32_t)key, va1, &token));

	/* Over the budget: refused, nothing installed, still faulting. */
	limit = mem->limit;
	mem->limit = mem->used;
	e[0] = r.ob.page[2] | ORCA_XLT_READ;
	CHECK(install(&r.a, (uint32_t)key, va1, e, 1, 0, 0, NULL) ==
	      ORCA_CMD_ST_NO_RESOURCES);
	CHECK(mem->used == used0 + EMU_XLT_LEAF_COST);
	/* A page in a leaf there is costs nothing. */
	CHECK(install(&r.a, (uint32_t)key, va2 + 2 * 4096, e, 1, 0, 0,
		      NULL) == 0);
	mem->limit = limit;
	/* Past the address space, or not whole pages: refused. */
	CHECK(install(&r.a, (uint32_t)key, 1ull << EMU_ODP_VA_BITS, e, 1, 0,
		      0, NULL) == ORCA_CMD_ST_BAD_PARAM);
	CHECK(install(&r.a, (uint32_t)key, va1 + 8, e, 1, 0, 0, NULL) ==
	      ORCA_CMD_ST_BAD_PARAM);
	CHECK(install(&r.a, (uint32_t)key, va1, e, 1,
		      ORCA_MR_INSTALL_F_RESUME, token, &resumed) == 0);
	CHECK(resumed == 1);
	CHECK(node_expect_cqe(&r.a, &r.acq, 3, ORCA_CQE_SEND,
			      ORCA_CQE_ST_SUCCESS, NULL, WAIT_MS));
	CHECK(node_expect_cqe(&r.b, &r.bcq, 3, ORCA_CQE_RECV,
			      ORCA_CQE_ST_SUCCESS, NULL, WAIT_MS));
	CHECK(memcmp(node_va(&r.b, &r.bbuf, 0),
		     gptr(&r.a.t, r.ob.page[2]), 64) == 0);

	/* All of it invalidated, then refilled and destroyed: all released. */
	CHECK(invalidate(&r.a, (uint32_t)key, 0, 0, ORCA_MR_INVAL_F_ALL) == 0);
	CHECK(mem->used == used0);
	CHECK(install(&r.a, (uint32_t)key, va2, e, 1, 0, 0, NULL) == 0);
	CHECK(mem->used == used0 + EMU_XLT_LEAF_COST);
	CHECK(th_destroy(&r.a.t, ORCA_CMD_DESTROY_MR, (uint32_t)key) == 0);
	CHECK(mem->used <= used0);	/* and the MR's own object */
	rig_down(&r);
	ktap_case_end("odp_implicit");
}

static void odp_commands_checked(void)
{
	struct orca_page_fault rec;
	struct orca_eqe e;
	uint64_t bad[2];
	struct node n;
	struct rig r;
	int resumed;
	int64_t key;

	/* Before SET_ODP no on-demand MR; SET_ODP's fields. */
	CHECK(node_init(&n, 3));
	CHECK(odp_mr(&n, IOVA_ODP, LEN, all_access, 0) ==
	      -ORCA_CMD_ST_BAD_STATE);
	CHECK(set_odp(&n, galloc(&n.t, 64, 64), 0, 0) ==
	      ORCA_CMD_ST_BAD_PARAM);
	CHECK(set_odp(&n, galloc(&n.t, 128, 64) + 32, 1, 0) ==
	      ORCA_CMD_ST_BAD_PARAM);
	CHECK(set_odp(&n, galloc(&n.t, 64, 64), EMU_ODP_MAX_FAULTS + 1, 0) ==
	      ORCA_CMD_ST_BAD_PARAM);
	CHECK(set_odp(&n, galloc(&n.t, 64, 64), 1, 50) ==
	      ORCA_CMD_ST_BAD_PARAM);
	CHECK(set_odp(&n, galloc(&n.t, 64, 64), 1, 30001) ==
	      ORCA_CMD_ST_BAD_PARAM);
	CHECK(set_odp(&n, 0x7ff0000000000000ull, 1, 0) ==
	      ORCA_CMD_ST_DMA_ERROR);
	CHECK(set_odp(&n, galloc(&n.t, 64 * 4, 64), 4, 100) == 0);
	node_fini(&n);

	if (rig_up(&r, 0)) {
		struct tbuf plain = { 0 };

		/* An ordinary MR of A's takes no on-demand command. */
		CHECK(node_buf(&r.a, &plain, IOVA_B, 4096, all_access));
		/* CREATE_MR: no PHYS/FAST_REG/IMPLICIT, no page list. */
		CHECK(odp_mr(&r.a, IOVA_ODP, LEN, all_access,
			     ORCA_MR_F_PHYS) == -ORCA_CMD_ST_BAD_PARAM);
		CHECK(odp_mr(&r.a, IOVA_ODP, LEN, all_access,
			     ORCA_MR_F_FAST_REG) == -ORCA_CMD_ST_BAD_PARAM);
		/* IMPLICIT: no iova, no length. */
		CHECK(odp_mr(&r.a, IOVA_ODP, 0, all_access,
			     ORCA_MR_F_IMPLICIT) == -ORCA_CMD_ST_BAD_PARAM);
		CHECK(odp_mr(&r.a, 0, LEN, all_access, ORCA_MR_F_IMPLICIT) ==
		      -ORCA_CMD_ST_BAD_PARAM);
		CHECK(odp_mr(&r.a, IOVA_ODP, 0, all_access, 0) ==
		      -ORCA_CMD_ST_BAD_PARAM);
		/* An on-demand MR exists: the table stays. */
		CHECK(set_odp(&r.a, r.table, MAX_FAULTS, 0) ==
		      ORCA_CMD_ST_BAD_STATE);

		/* MR_INSTALL's checks; none changes an entry. */
		bad[0] = r.ob.page[0] | ORCA_XLT_READ;
		CHECK(install(&r.a, r.ob.lkey, IOVA_ODP, bad, 1,
			      ORCA_MR_INSTALL_F_RESUME |
			      ORCA_MR_INSTALL_F_FAIL, 1, NULL) ==
		      ORCA_CMD_ST_BAD_PARAM);
		CHECK(install(&r.a, r.ob.lkey, IOVA_ODP, bad, 1,
			      ORCA_MR_INSTALL_F_FAIL, 1, NULL) ==
		      ORCA_CMD_ST_BAD_PARAM);
		CHECK(install(&r.a, r.ob.lkey, IOVA_ODP + 100, bad, 1, 0, 0,
			      NULL) == ORCA_CMD_ST_BAD_PARAM);
		CHECK(install(&r.a, r.ob.lkey, IOVA_ODP + LEN, bad, 1, 0, 0,
			      NULL) == ORCA_CMD_ST_BAD_PARAM);
		CHECK(install(&r.a, plain.key, IOVA_B, bad, 1, 0, 0,
			      NULL) == ORCA_CMD_ST_BAD_HANDLE);
		bad[0] = r.ob.page[0] | ORCA_XLT_WRITE;	/* no READ */
		CHECK(install(&r.a, r.ob.lkey, IOVA_ODP, bad, 1, 0, 0,
			      NULL) == ORCA_CMD_ST_BAD_PARAM);
		/* The second entry is bad: the first is not installed. */
		bad[0] = r.ob.page[0] | ORCA_XLT_READ;
		bad[1] = (r.ob.page[1] + 8) | ORCA_XLT_READ;
		CHECK(install(&r.a, r.ob.lkey, IOVA_ODP, bad, 2, 0, 0,
			      NULL) == ORCA_CMD_ST_BAD_PARAM);
		/* Invalidate: whole pages of an on-demand MR only. */
		CHECK(invalidate(&r.a, r.ob.lkey, IOVA_ODP + 1, 4096, 0) ==
		      ORCA_CMD_ST_BAD_PARAM);
		CHECK(invalidate(&r.a, r.ob.lkey, IOVA_ODP, LEN + 4096, 0) ==
		      ORCA_CMD_ST_BAD_PARAM);
		CHECK(invalidate(&r.a, plain.key, IOVA_B, 4096, 0) ==
		      ORCA_CMD_ST_BAD_HANDLE);
		CHECK(invalidate(&r.a, r.ob.lkey, IOVA_ODP, 4096, 2) ==
		      ORCA_CMD_ST_BAD_PARAM);
		/* So the first page still faults. */
		send_from_odp(&r, 1, 64);
		CHECK(next_fault(&r, &e, &rec, WAIT_MS));
		CHECK(le64toh(rec.va) == IOVA_ODP);
		CHECK(install_pages(&r.a, &r.ob, 0, 1, false,
				    ORCA_MR_INSTALL_F_RESUME,
				    le32toh(rec.token), &resumed) == 0);
		CHECK(resumed == 1);
		CHECK(node_expect_cqe(&r.a, &r.acq, 1, ORCA_CQE_SEND,
				      ORCA_CQE_ST_SUCCESS, NULL, WAIT_MS));
		free(plain.pages);
	}
	rig_down(&r);
	{
		/* WRITE entries need an MR with local write. */
		struct rig q;

		if (rig_up(&q, 0)) {
			int64_t ro = odp_mr(&q.a, IOVA_ODP + (1ull << 30), LEN,
					    0, 0);

			CHECK(ro > 0);
			key = ro;
			bad[0] = q.ob.page[0] | ORCA_XLT_READ | ORCA_XLT_WRITE;
			CHECK(install(&q.a, (uint32_t)key,
				      IOVA_ODP + (1ull << 30), bad, 1, 0, 0,
				      NULL) == ORCA_CMD_ST_BAD_PARAM);
			bad[0] = q.ob.page[0] | ORCA_XLT_READ;
			CHECK(install(&q.a, (uint32_t)key,
				      IOVA_ODP + (1ull << 30), bad, 1, 0, 0,
				      NULL) == 0);
		}
		rig_down(&q);
	}
	ktap_case_end("odp_commands_checked");
}

int main(void)
{
	ktap_plan(15);
	odp_send_faults_and_resumes();
	odp_invalidate_faults_again();
	odp_fail_and_stale_resume();
	odp_timeout();
	odp_hung_fault();
	odp_destroy_mr_cancels();
	odp_ud_send();
	odp_req_resp();
	odp_resp_write();
	odp_resp_recv_keeps_its_wqe();
	odp_resp_read();
	odp_resp_atomic_needs_write();
	odp_resp_fail();
	odp_implicit();
	odp_commands_checked();
	return ktap_finish();
}

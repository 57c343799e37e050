// SPDX-License-Identifier: GPL-2.0
/*
 * The extended CQ (ibv_create_cq_ex) against ibv_poll_cq, on one device:
 *
 *   cq_ex DEV GID_INDEX
 *
 * Two RC QPs of DEV, connected through its own GID, run the same traffic
 * in four rounds: SEND, SEND with immediate, RDMA WRITE, WRITE with
 * immediate, RDMA READ, fetch-and-add, compare-and-swap, then a READ with
 * a bad rkey (a remote access error).  Round 1 polls a plain CQ with
 * ibv_poll_cq; round 2 an extended CQ asking for every field the provider
 * offers, with start_poll/next_poll/end_poll and the ibv_wc_read_*
 * readers; round 3 the same extended CQ through ibv_cq_ex_to_cq() and
 * ibv_poll_cq, after a completion event and ibv_resize_cq on it; round 4
 * an extended CQ and QPs on a parent domain with a thread domain and ring
 * allocators (no provider locks).  Every completion of rounds 2-4 must
 * equal round 1's field for field (the QP numbers as the round's own),
 * and round 1's are checked against ibv_poll_cq(3): byte_len of a READ is
 * the bytes read, of an atomic 8; the immediates and the data land.
 * Fields the provider does not offer (a completion timestamp) and
 * IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN are refused with EOPNOTSUPP.  Prints
 * "cq_ex: N completions compared" and exits 0 when all holds.
 */
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <arpa/inet.h>
#include <infiniband/verbs.h>

#include "verbs_helpers.h"

#define WAIT_MS		20000
#define NWR		8	/* send WRs, wr_id 1..NWR */
#define NRECV		3	/* receives, wr_id 101, 102, 104 */
#define NCOMP		(NWR + NRECV)
#define BUF_LEN		16384
#define A_OFF		0
#define B_OFF		8192
#define IMM_SEND	0x12345678
#define IMM_WRITE	0xdeadbeef
#define READ_LEN	1000
#define ATOMIC_OFF	4096	/* in B's half, 8-byte aligned */

/* Every field a reader of the extended CQ returns, as ibv_wc names it. */
struct comp {
	bool seen;
	uint64_t wr_id;
	int status;
	int opcode;
	uint32_t vendor_err;
	uint32_t byte_len;
	uint32_t imm;		/* network order, as read */
	uint32_t qp_num;	/* 0: A, 1: B (the round's own numbers) */
	uint32_t src_qp;
	unsigned int wc_flags;
	uint32_t slid;
	uint8_t sl;
	uint8_t dlid_path_bits;
};

struct round {
	const char *name;
	struct ibv_pd *pd;
	struct ibv_cq *cq;		/* plain, or ibv_cq_ex_to_cq() */
	struct ibv_cq_ex *cqx;		/* when polled with start_poll */
	struct ibv_qp *a, *b;
	struct ibv_mr *mr;
	struct comp comp[NCOMP];
	int ncomp;
};

static struct ibv_context *ctx;
static union ibv_gid gid;
static int gid_index;
static unsigned char buf[BUF_LEN] __attribute__((aligned(4096)));
static int failures;
static int allocs, frees;

#define FAIL(...) do {						\
		fprintf(stderr, "cq_ex: " __VA_ARGS__);		\
		fputc('\n', stderr);				\
		failures++;					\
	} while (0)

/* wr_id -> slot of round->comp: sends 1..NWR, receives 101, 102, 104. */
static int slot(uint64_t wr_id)
{
	if (wr_id >= 1 && wr_id <= NWR)
		return (int)wr_id - 1;
	switch (wr_id) {
	case 101: return NWR;
	case 102: return NWR + 1;
	case 104: return NWR + 2;
	}
	return -1;
}

static uint32_t role(struct round *r, uint32_t qpn)
{
	if (qpn == r->a->qp_num)
		return 0;
	if (qpn == r->b->qp_num)
		return 1;
	return 0xffffffff;
}

static void store(struct round *r, struct comp *c)
{
	int i = slot(c->wr_id);

	if (i < 0 || r->comp[i].seen) {
		FAIL("%s: unexpected or repeated wr_id %llu", r->name,
		     (unsigned long long)c->wr_id);
		return;
	}
	c->seen = true;
	r->comp[i] = *c;
	r->ncomp++;
}

static void from_wc(struct round *r, const struct ibv_wc *wc)
{
	struct comp c = {
		.wr_id = wc->wr_id, .status = wc->status,
		.opcode = wc->opcode, .vendor_err = wc->vendor_err,
		.byte_len = wc->byte_len, .imm = wc->imm_data,
		.qp_num = role(r, wc->qp_num), .src_qp = wc->src_qp,
		.wc_flags = wc->wc_flags, .slid = wc->slid, .sl = wc->sl,
		.dlid_path_bits = wc->dlid_path_bits,
	};

	store(r, &c);
}

static void from_cq_ex(struct round *r, struct ibv_cq_ex *cq)
{
	struct comp c = {
		.wr_id = cq->wr_id, .status = cq->status,
		.opcode = ibv_wc_read_opcode(cq),
		.vendor_err = ibv_wc_read_vendor_err(cq),
		.byte_len = ibv_wc_read_byte_len(cq),
		.imm = ibv_wc_read_imm_data(cq),
		.qp_num = role(r, ibv_wc_read_qp_num(cq)),
		.src_qp = ibv_wc_read_src_qp(cq),
		.wc_flags = ibv_wc_read_wc_flags(cq),
		.slid = ibv_wc_read_slid(cq), .sl = ibv_wc_read_sl(cq),
		.dlid_path_bits = ibv_wc_read_dlid_path_bits(cq),
	};

	store(r, &c);
}

/* Polls @r's CQ its own way until @n completions in all, or times out. */
static void collect(struct round *r, int n)
{
	uint64_t end = now_ms() + WAIT_MS;
	struct ibv_poll_cq_attr pa = {};
	struct ibv_wc wc[4];
	int got, i, err;

	while (r->ncomp < n) {
		if (now_ms() > end) {
			FAIL("%s: %d of %d completions", r->name, r->ncomp, n);
			return;
		}
		if (!r->cqx) {
			got = ibv_poll_cq(r->cq, 4, wc);
			if (got < 0) {
				FAIL("%s: ibv_poll_cq %d", r->name, got);
				return;
			}
			for (i = 0; i < got; i++)
				from_wc(r, &wc[i]);
			continue;
		}
		err = ibv_start_poll(r->cqx, &pa);
		if (err == ENOENT)
			continue;
		if (err) {
			FAIL("%s: ibv_start_poll %d", r->name, err);
			return;
		}
		do
			from_cq_ex(r, r->cqx);
		while (!(err = ibv_next_poll(r->cqx)));
		ibv_end_poll(r->cqx);
		if (err != ENOENT)
			FAIL("%s: ibv_next_poll %d", r->name, err);
	}
}

static void post_recv(struct round *r, uint64_t wr_id, uint32_t off,
		      uint32_t len)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)&buf[off], .length = len,
		.lkey = r->mr->lkey,
	};
	struct ibv_recv_wr wr = {
		.wr_id = wr_id, .sg_list = &sge, .num_sge = 1,
	}, *bad;

	if (ibv_post_recv(r->b, &wr, &bad))
		die("ibv_post_recv");
}

static void post_send(struct round *r, uint64_t wr_id,
		      enum ibv_wr_opcode op, uint32_t off, uint32_t len,
		      uint32_t roff, uint32_t rkey)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)&buf[off], .length = len,
		.lkey = r->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = wr_id, .sg_list = &sge, .num_sge = 1,
		.opcode = op, .send_flags = IBV_SEND_SIGNALED,
	}, *bad;
	uint64_t raddr = (uintptr_t)&buf[roff];

	switch (op) {
	case IBV_WR_SEND_WITH_IMM:
		wr.imm_data = htonl(IMM_SEND);
		break;
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		wr.imm_data = htonl(IMM_WRITE);
		/* fall through */
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_READ:
		wr.wr.rdma.remote_addr = raddr;
		wr.wr.rdma.rkey = rkey;
		break;
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		wr.wr.atomic.remote_addr = raddr;
		wr.wr.atomic.rkey = rkey;
		wr.wr.atomic.compare_add = 5;
		break;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
		wr.wr.atomic.remote_addr = raddr;
		wr.wr.atomic.rkey = rkey;
		wr.wr.atomic.compare_add = 105;
		wr.wr.atomic.swap = 7;
		break;
	default:
		break;
	}
	if (ibv_post_send(r->a, &wr, &bad))
		die("ibv_post_send");
}

static unsigned char pattern(uint32_t i)
{
	return (unsigned char)(i * 13 + 7);
}

static void connect_pair(struct round *r)
{
	struct rc_conn conn = {
		.gid = gid, .gid_index = gid_index, .sq_psn = 10,
		.rq_psn = 10, .mtu = IBV_MTU_1024, .timeout = 14,
		.access = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			  IBV_ACCESS_REMOTE_ATOMIC,
		.label = r->name,
	};

	conn.dest_qpn = r->b->qp_num;
	connect_rc(r->a, &conn);
	conn.dest_qpn = r->a->qp_num;
	connect_rc(r->b, &conn);
}

/* One round of traffic on @r's QPs, its completions into @r->comp. */
static void traffic(struct round *r)
{
	uint64_t *target = (uint64_t *)&buf[B_OFF + ATOMIC_OFF];
	uint64_t *result = (uint64_t *)&buf[A_OFF + 2048];
	uint32_t i;

	for (i = 0; i < BUF_LEN; i++)
		buf[i] = pattern(i);
	memset(&buf[A_OFF + 1024], 0, READ_LEN);
	*target = 100;
	connect_pair(r);

	post_recv(r, 101, B_OFF, 512);
	post_recv(r, 102, B_OFF + 512, 512);
	post_recv(r, 104, B_OFF + 2048, 16);
	post_send(r, 1, IBV_WR_SEND, A_OFF, 100, 0, 0);
	post_send(r, 2, IBV_WR_SEND_WITH_IMM, A_OFF + 100, 50, 0, 0);
	post_send(r, 3, IBV_WR_RDMA_WRITE, A_OFF + 200, 200, B_OFF + 1024,
		  r->mr->rkey);
	post_send(r, 4, IBV_WR_RDMA_WRITE_WITH_IMM, A_OFF + 400, 300,
		  B_OFF + 1536, r->mr->rkey);
	post_send(r, 5, IBV_WR_RDMA_READ, A_OFF + 1024, READ_LEN,
		  B_OFF + 3000, r->mr->rkey);
	post_send(r, 6, IBV_WR_ATOMIC_FETCH_AND_ADD, A_OFF + 2048, 8,
		  B_OFF + ATOMIC_OFF, r->mr->rkey);
	post_send(r, 7, IBV_WR_ATOMIC_CMP_AND_SWP, A_OFF + 2056, 8,
		  B_OFF + ATOMIC_OFF, r->mr->rkey);
	collect(r, NCOMP - 1);
	/* Last, alone: it moves both QPs to the error state. */
	post_send(r, 8, IBV_WR_RDMA_READ, A_OFF + 1024, 8, B_OFF,
		  r->mr->rkey ^ 0x80);
	collect(r, NCOMP);

	/* The data of round 1 (every round does the same). */
	if (memcmp(&buf[B_OFF], &buf[A_OFF], 100))
		FAIL("%s: SEND data", r->name);
	if (memcmp(&buf[B_OFF + 1024], &buf[A_OFF + 200], 200))
		FAIL("%s: WRITE data", r->name);
	for (i = 0; i < READ_LEN; i++)
		if (buf[A_OFF + 1024 + i] != pattern(B_OFF + 3000 + i)) {
			FAIL("%s: READ byte %u", r->name, i);
			break;
		}
	if (result[0] != 100 || result[1] != 105 || *target != 7)
		FAIL("%s: atomics returned %llu, %llu, left %llu", r->name,
		     (unsigned long long)result[0],
		     (unsigned long long)result[1],
		     (unsigned long long)*target);
}

/* Round 1's completions against ibv_poll_cq(3). */
static void check_reference(struct round *r)
{
	static const struct {
		int opcode;
		uint32_t byte_len;
		uint32_t qp;
		unsigned int flags;
		uint32_t imm;
	} want[NCOMP] = {
		{ IBV_WC_SEND, 100, 0, 0, 0 },
		{ IBV_WC_SEND, 50, 0, 0, 0 },
		{ IBV_WC_RDMA_WRITE, 200, 0, 0, 0 },
		{ IBV_WC_RDMA_WRITE, 300, 0, 0, 0 },
		{ IBV_WC_RDMA_READ, READ_LEN, 0, 0, 0 },
		{ IBV_WC_FETCH_ADD, 8, 0, 0, 0 },
		{ IBV_WC_COMP_SWAP, 8, 0, 0, 0 },
		{ 0, 0, 0, 0, 0 },	/* the error */
		{ IBV_WC_RECV, 100, 1, 0, 0 },
		{ IBV_WC_RECV, 50, 1, IBV_WC_WITH_IMM, IMM_SEND },
		{ IBV_WC_RECV_RDMA_WITH_IMM, 300, 1, IBV_WC_WITH_IMM,
		  IMM_WRITE },
	};
	int i;

	for (i = 0; i < NCOMP; i++) {
		const struct comp *c = &r->comp[i];

		if (i == NWR - 1) {
			if (c->status != IBV_WC_REM_ACCESS_ERR ||
			    c->qp_num != 0)
				FAIL("bad rkey: status %s, qp %u",
				     ibv_wc_status_str(c->status), c->qp_num);
			continue;
		}
		if (c->status != IBV_WC_SUCCESS || c->opcode != want[i].opcode ||
		    c->byte_len != want[i].byte_len ||
		    c->qp_num != want[i].qp ||
		    c->wc_flags != want[i].flags ||
		    ntohl(c->imm) != want[i].imm)
			FAIL("wr_id %llu: %s opcode %d byte_len %u qp %u flags %#x imm %#x; want opcode %d byte_len %u qp %u flags %#x imm %#x",
			     (unsigned long long)c->wr_id,
			     ibv_wc_status_str(c->status), c->opcode,
			     c->byte_len, c->qp_num, c->wc_flags,
			     ntohl(c->imm), want[i].opcode,
			     want[i].byte_len, want[i].qp, want[i].flags,
			     want[i].imm);
	}
}

static int compare(const struct round *ref, const struct round *r)
{
	int i, n = 0;

	for (i = 0; i < NCOMP; i++) {
		const struct comp *a = &ref->comp[i], *b = &r->comp[i];

		if (!b->seen)
			continue;
		n++;
		if (a->wr_id != b->wr_id || a->status != b->status ||
		    a->opcode != b->opcode || a->vendor_err != b->vendor_err ||
		    a->byte_len != b->byte_len || a->imm != b->imm ||
		    a->qp_num != b->qp_num || a->src_qp != b->src_qp ||
		    a->wc_flags != b->wc_flags || a->slid != b->slid ||
		    a->sl != b->sl || a->dlid_path_bits != b->dlid_path_bits)
			FAIL("%s: wr_id %llu differs from ibv_poll_cq: status %d/%d opcode %d/%d vendor_err %u/%u byte_len %u/%u imm %#x/%#x qp %u/%u src_qp %u/%u flags %#x/%#x slid %u/%u sl %u/%u dlid_path_bits %u/%u",
			     r->name, (unsigned long long)b->wr_id,
			     a->status, b->status, a->opcode, b->opcode,
			     a->vendor_err, b->vendor_err, a->byte_len,
			     b->byte_len, a->imm, b->imm, a->qp_num, b->qp_num,
			     a->src_qp, b->src_qp, a->wc_flags, b->wc_flags,
			     a->slid, b->slid, a->sl, b->sl,
			     a->dlid_path_bits, b->dlid_path_bits);
	}
	return n;
}

static void round_setup(struct round *r, const char *name, struct ibv_pd *pd,
			struct ibv_cq *cq, struct ibv_cq_ex *cqx)
{
	memset(r, 0, sizeof(*r));
	r->name = name;
	r->pd = pd;
	r->cq = cq;
	r->cqx = cqx;
	r->mr = ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE |
			   IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			   IBV_ACCESS_REMOTE_ATOMIC);
	if (!r->mr)
		die("ibv_reg_mr");
	r->a = create_rc_qp(pd, cq, 16, 16);
	r->b = create_rc_qp(pd, cq, 16, 16);
}

static void round_teardown(struct round *r)
{
	if (ibv_destroy_qp(r->a) || ibv_destroy_qp(r->b))
		die("ibv_destroy_qp");
	if (ibv_dereg_mr(r->mr))
		die("ibv_dereg_mr");
}

static struct ibv_cq_ex *create_cq_ex(struct ibv_comp_channel *ch,
				      uint64_t wc_flags, uint32_t comp_mask,
				      uint32_t flags, struct ibv_pd *parent)
{
	struct ibv_cq_init_attr_ex a = {
		.cqe = 64, .channel = ch, .wc_flags = wc_flags,
		.comp_mask = comp_mask, .flags = flags,
		.parent_domain = parent,
	};

	return ibv_create_cq_ex(ctx, &a);
}

static void *ring_alloc(struct ibv_pd *pd, void *pd_context, size_t size,
			size_t alignment, uint64_t resource_type)
{
	void *p;

	if (posix_memalign(&p, alignment, size))
		return NULL;
	allocs++;
	return p;
}

static void ring_free(struct ibv_pd *pd, void *pd_context, void *ptr,
		      uint64_t resource_type)
{
	frees++;
	free(ptr);
}

/* An event on the extended CQ through its ibv_cq, then a resize. */
static void event_and_resize(struct round *r, struct ibv_comp_channel *ch)
{
	struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };
	struct ibv_cq *ev_cq;
	void *ev_ctx;

	connect_pair(r);
	if (ibv_req_notify_cq(r->cq, 0))
		die("ibv_req_notify_cq");
	post_recv(r, 101, B_OFF, 512);
	post_send(r, 1, IBV_WR_SEND, A_OFF, 100, 0, 0);
	if (poll(&pfd, 1, WAIT_MS) != 1 ||
	    ibv_get_cq_event(ch, &ev_cq, &ev_ctx)) {
		FAIL("no completion event on the extended CQ");
	} else {
		if (ev_cq != r->cq)
			FAIL("the event names another CQ");
		ibv_ack_cq_events(ev_cq, 1);
	}
	collect(r, 2);
	memset(r->comp, 0, sizeof(r->comp));
	r->ncomp = 0;
	if (ibv_resize_cq(r->cq, 512))
		FAIL("ibv_resize_cq of the extended CQ: %s", strerror(errno));
	else if (r->cq->cqe < 512)
		FAIL("resized to %d CQEs", r->cq->cqe);
}

int main(int argc, char **argv)
{
	const uint64_t all = IBV_WC_STANDARD_FLAGS;
	struct ibv_parent_domain_init_attr pda = {};
	struct ibv_td_init_attr tda = {};
	struct ibv_comp_channel *ch;
	struct ibv_cq_ex *cqx, *cqt;
	struct round ref, ex, conv, td;
	struct ibv_pd *pd, *parent;
	struct ibv_cq *cq;
	struct ibv_td *thr;
	int n = 0, err;

	if (argc != 3) {
		fprintf(stderr, "usage: cq_ex DEV GID_INDEX\n");
		return 2;
	}
	ctx = open_dev(argv[1]);
	gid_index = atoi(argv[2]);
	query_gid(ctx, gid_index, &gid);
	pd = ibv_alloc_pd(ctx);
	ch = ibv_create_comp_channel(ctx);
	if (!pd || !ch)
		die("ibv_alloc_pd/ibv_create_comp_channel");

	/* What the provider does not offer is refused as unsupported. */
	errno = 0;
	if (create_cq_ex(NULL, all | IBV_WC_EX_WITH_COMPLETION_TIMESTAMP, 0,
			 0, NULL) || errno != EOPNOTSUPP)
		FAIL("a completion timestamp not refused with EOPNOTSUPP (%s)",
		     strerror(errno));
	errno = 0;
	if (create_cq_ex(NULL, all, IBV_CQ_INIT_ATTR_MASK_FLAGS,
			 IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN, NULL) ||
	    errno != EOPNOTSUPP)
		FAIL("IGNORE_OVERRUN not refused with EOPNOTSUPP (%s)",
		     strerror(errno));

	/* 1: the reference, a plain CQ and ibv_poll_cq. */
	cq = ibv_create_cq(ctx, 64, NULL, NULL, 0);
	if (!cq)
		die("ibv_create_cq");
	round_setup(&ref, "ibv_poll_cq", pd, cq, NULL);
	traffic(&ref);
	check_reference(&ref);
	round_teardown(&ref);

	/* 2: an extended CQ, every field, start_poll/next_poll/end_poll. */
	cqx = create_cq_ex(ch, all, 0, 0, NULL);
	if (!cqx)
		die("ibv_create_cq_ex");
	round_setup(&ex, "start_poll", pd, ibv_cq_ex_to_cq(cqx), cqx);
	traffic(&ex);
	n += compare(&ref, &ex);
	round_teardown(&ex);

	/* 3: the same CQ as an ibv_cq: an event, a resize, ibv_poll_cq. */
	round_setup(&conv, "ibv_cq_ex_to_cq", pd, ibv_cq_ex_to_cq(cqx), NULL);
	event_and_resize(&conv, ch);
	round_teardown(&conv);
	round_setup(&conv, "ibv_cq_ex_to_cq", pd, ibv_cq_ex_to_cq(cqx), NULL);
	traffic(&conv);
	n += compare(&ref, &conv);
	round_teardown(&conv);

	/* 4: a parent domain with a thread domain and allocators. */
	thr = ibv_alloc_td(ctx, &tda);
	if (!thr)
		die("ibv_alloc_td");
	pda.pd = pd;
	pda.td = thr;
	pda.comp_mask = IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS;
	pda.alloc = ring_alloc;
	pda.free = ring_free;
	parent = ibv_alloc_parent_domain(ctx, &pda);
	if (!parent)
		die("ibv_alloc_parent_domain");
	cqt = create_cq_ex(NULL, all, IBV_CQ_INIT_ATTR_MASK_PD, 0, parent);
	if (!cqt)
		die("ibv_create_cq_ex on a parent domain");
	round_setup(&td, "thread domain", parent, ibv_cq_ex_to_cq(cqt), cqt);
	traffic(&td);
	n += compare(&ref, &td);
	if (allocs != 3)
		FAIL("parent domain allocator: %d rings, want 3 (CQ, 2 QPs)",
		     allocs);
	err = ibv_dealloc_pd(pd);
	if (err != EBUSY)
		FAIL("PD freed under its parent domain (%d)", err);
	err = ibv_dealloc_td(thr);
	if (err != EBUSY)
		FAIL("thread domain freed under its parent domain (%d)", err);
	round_teardown(&td);
	if (ibv_destroy_cq(ibv_cq_ex_to_cq(cqt)))
		die("ibv_destroy_cq");
	if (frees != allocs)
		FAIL("parent domain allocator: %d rings freed of %d", frees,
		     allocs);
	if (ibv_dealloc_pd(parent) || ibv_dealloc_td(thr))
		die("ibv_dealloc_pd/ibv_dealloc_td");

	if (ibv_destroy_cq(ibv_cq_ex_to_cq(cqx)) || ibv_destroy_cq(cq))
		die("ibv_destroy_cq");
	ibv_destroy_comp_channel(ch);
	if (ibv_dealloc_pd(pd))
		die("ibv_dealloc_pd");
	ibv_close_device(ctx);
	printf("cq_ex: %d completions compared, %d failures\n", n, failures);
	return failures || n != 3 * NCOMP ? 1 : 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The extended QP post API (ibv_create_qp_ex with send_ops_flags and the
 * ibv_wr_* calls of ibv_wr_post(3)) through the provider:
 *
 *   qp_ex DEV GID_INDEX
 *
 * Creation: send_ops_flags the adapter has are taken, others (TSO on RC,
 * RDMA WRITE on UD) and any IBV_QP_CREATE_* flag are refused with
 * EOPNOTSUPP, IBV_QP_INIT_ATTR_CREATE_FLAGS with no flag is taken, and a
 * QP created without send_ops_flags has no ibv_qp_ex.
 *
 * RC, two QPs of DEV connected through its own GID:
 *  - one batch (one wr_complete) of SEND with a two-SGE list, SEND with
 *    immediate, SEND of an inline list of three buffers: each send CQE has
 *    the wr_id that ibv_qp_ex held at its ibv_wr_*, each receive the bytes
 *    and the immediate;
 *  - RDMA WRITE from SGEs and RDMA WRITE with immediate from inline data,
 *    RDMA READ back: the target's and the reader's bytes;
 *  - compare-and-swap (a hit and a miss) and fetch-and-add: the values
 *    returned and the target word;
 *  - wr_abort: the batch never reaches the adapter (no CQE, the receive
 *    takes the next message); an error between wr_start and wr_complete
 *    (too many SGEs, too much inline data, more WQEs than the SQ holds, an
 *    opcode refused on RESET) is returned by wr_complete and nothing of
 *    the batch is posted; the QP works after each;
 *  - LOCAL_INV and SEND with invalidate of a user MR's key (user MRs are
 *    not fast-register MRs, so the adapter refuses the invalidation): the
 *    CQE names the opcode, the wr_id and the adapter's error.
 * UD, two QPs: SEND with immediate and inline SEND to an address handle
 * given by wr_set_ud_addr, the bytes after the GRH and the immediate.
 * Prints "qp_ex: ok" and exits 0 when all hold.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <arpa/inet.h>

#include <infiniband/verbs.h>

#include "verbs_helpers.h"

#define DEPTH		16
#define SGES		4
#define INLINE		64
#define BUF		8192
#define GRH		40
#define QKEY		0x11111111

#define RC_OPS	(IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM | \
		 IBV_QP_EX_WITH_SEND_WITH_INV | IBV_QP_EX_WITH_RDMA_WRITE | \
		 IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM | \
		 IBV_QP_EX_WITH_RDMA_READ | \
		 IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP | \
		 IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD | IBV_QP_EX_WITH_LOCAL_INV)
#define UD_OPS	(IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM)

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static union ibv_gid gid;
static int gid_index;
static int failures;

/* A's and B's buffers: A sends, reads and gets atomic results, B is hit. */
static uint64_t abuf64[BUF / 8], bbuf64[BUF / 8];
static unsigned char *const abuf = (unsigned char *)abuf64;
static unsigned char *const bbuf = (unsigned char *)bbuf64;
static struct ibv_mr *amr, *bmr;

static void check(bool ok, const char *what)
{
	printf("qp_ex: %s: %s\n", ok ? "ok" : "FAILED", what);
	if (!ok)
		failures++;
}

static unsigned char pat(int seed, int i)
{
	return (unsigned char)(seed * 37 + i * 11 + 3);
}

static void fill(unsigned char *p, int seed, int len)
{
	int i;

	for (i = 0; i < len; i++)
		p[i] = pat(seed, i);
}

static bool same(const unsigned char *p, int seed, int len)
{
	int i;

	for (i = 0; i < len; i++)
		if (p[i] != pat(seed, i))
			return false;
	return true;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* One CQE within @secs (dies after it), or false if @secs passed. */
static bool poll_one(struct ibv_cq *cq, struct ibv_wc *wc, double secs)
{
	double end = now() + secs;
	int r;

	do {
		r = ibv_poll_cq(cq, 1, wc);
		if (r < 0)
			die_err("ibv_poll_cq", EIO);
		if (r)
			return true;
	} while (now() < end);
	return false;
}

static void wait_cqe(struct ibv_cq *cq, struct ibv_wc *wc, const char *what)
{
	if (!poll_one(cq, wc, 20))
		die_err(what, ETIMEDOUT);
}

/* A successful CQE of @opcode and @wr_id on @cq. */
static void expect_cqe(struct ibv_cq *cq, enum ibv_wc_opcode opcode,
		       uint64_t wr_id, const char *what)
{
	struct ibv_wc wc;
	char msg[160];

	wait_cqe(cq, &wc, what);
	snprintf(msg, sizeof(msg), "%s: CQE status %s opcode %d wr_id %llu",
		 what, ibv_wc_status_str(wc.status), wc.opcode,
		 (unsigned long long)wc.wr_id);
	check(wc.status == IBV_WC_SUCCESS && wc.opcode == opcode &&
	      wc.wr_id == wr_id, msg);
}

static void post_recv(struct ibv_qp *qp, uint64_t wr_id, void *addr,
		      uint32_t len, uint32_t lkey)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)addr, .length = len, .lkey = lkey,
	};
	struct ibv_recv_wr wr = {
		.wr_id = wr_id, .sg_list = &sge, .num_sge = 1,
	}, *bad;

	if (ibv_post_recv(qp, &wr, &bad))
		die("ibv_post_recv");
}

static struct ibv_qp *create_qp_ex(struct ibv_cq *cq, enum ibv_qp_type qpt,
				   uint64_t ops, uint64_t comp_mask,
				   uint32_t create_flags)
{
	struct ibv_qp_init_attr_ex a = {
		.send_cq = cq,
		.recv_cq = cq,
		.qp_type = qpt,
		.cap = {
			.max_send_wr = DEPTH, .max_recv_wr = DEPTH,
			.max_send_sge = SGES, .max_recv_sge = 1,
			.max_inline_data = INLINE,
		},
		.comp_mask = IBV_QP_INIT_ATTR_PD | comp_mask,
		.pd = pd,
		.send_ops_flags = ops,
		.create_flags = create_flags,
	};

	return ibv_create_qp_ex(ctx, &a);
}

static void test_create(struct ibv_cq *cq)
{
	struct ibv_qp *qp;

	errno = 0;
	qp = create_qp_ex(cq, IBV_QPT_RC, RC_OPS | IBV_QP_EX_WITH_TSO,
			  IBV_QP_INIT_ATTR_SEND_OPS_FLAGS, 0);
	check(!qp && errno == EOPNOTSUPP, "RC with WITH_TSO: EOPNOTSUPP");
	errno = 0;
	qp = create_qp_ex(cq, IBV_QPT_UD, UD_OPS | IBV_QP_EX_WITH_RDMA_WRITE,
			  IBV_QP_INIT_ATTR_SEND_OPS_FLAGS, 0);
	check(!qp && errno == EOPNOTSUPP, "UD with WITH_RDMA_WRITE: EOPNOTSUPP");
	errno = 0;
	qp = create_qp_ex(cq, IBV_QPT_RC, 0, IBV_QP_INIT_ATTR_CREATE_FLAGS,
			  IBV_QP_CREATE_SCATTER_FCS);
	check(!qp && errno == EOPNOTSUPP, "create flag SCATTER_FCS: EOPNOTSUPP");
	qp = create_qp_ex(cq, IBV_QPT_UD, 0, IBV_QP_INIT_ATTR_CREATE_FLAGS, 0);
	check(qp && !ibv_qp_to_qp_ex(qp),
	      "UD with CREATE_FLAGS 0 taken, no ibv_qp_ex without send ops");
	if (qp && ibv_destroy_qp(qp))
		die("ibv_destroy_qp");
}

static void rc_connect(struct ibv_qp *a, struct ibv_qp *b)
{
	struct rc_conn c = {
		.gid = gid, .gid_index = gid_index, .sq_psn = 10,
		.rq_psn = 10, .mtu = IBV_MTU_1024, .timeout = 18,
		.access = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			  IBV_ACCESS_REMOTE_ATOMIC,
	};

	c.dest_qpn = b->qp_num;
	c.label = "A ";
	connect_rc(a, &c);
	c.dest_qpn = a->qp_num;
	c.label = "B ";
	connect_rc(b, &c);
}

static void to_reset(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RESET };

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE))
		die("to RESET");
}

/* SEND from @seed's bytes at abuf + 4096; B's receive at bbuf + @off. */
static void one_send(struct ibv_qp_ex *x, struct ibv_cq *acq,
		     struct ibv_qp *b, struct ibv_cq *bcq, int seed,
		     uint64_t wr_id, const char *what)
{
	struct ibv_wc wc;
	char msg[128];
	int err;

	fill(abuf + 4096, seed, 100);
	memset(bbuf + 4096, 0, 128);
	post_recv(b, 900 + seed, bbuf + 4096, 128, bmr->lkey);
	ibv_wr_start(x);
	x->wr_id = wr_id;
	x->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(x);
	ibv_wr_set_sge(x, amr->lkey, (uintptr_t)(abuf + 4096), 100);
	err = ibv_wr_complete(x);
	snprintf(msg, sizeof(msg), "%s: wr_complete %d", what, err);
	check(!err, msg);
	expect_cqe(acq, IBV_WC_SEND, wr_id, what);
	wait_cqe(bcq, &wc, what);
	snprintf(msg, sizeof(msg), "%s: the receive has this message (wr_id %llu, %u bytes)",
		 what, (unsigned long long)wc.wr_id, wc.byte_len);
	check(wc.status == IBV_WC_SUCCESS && wc.wr_id == 900 + (uint64_t)seed &&
	      wc.byte_len == 100 && same(bbuf + 4096, seed, 100), msg);
}

static void no_cqe(struct ibv_cq *cq, const char *what)
{
	struct ibv_wc wc;

	check(!poll_one(cq, &wc, 0.5), what);
}

static void test_rc_send(struct ibv_qp_ex *x, struct ibv_cq *acq,
			 struct ibv_qp *b, struct ibv_cq *bcq)
{
	struct ibv_sge sgl[2] = {
		{ (uintptr_t)abuf, 300, 0 },
		{ (uintptr_t)(abuf + 1000), 200, 0 },
	};
	unsigned char in1[10], in2[20], in3[30];
	struct ibv_data_buf bufs[3] = {
		{ in1, sizeof(in1) }, { in2, sizeof(in2) }, { in3, sizeof(in3) },
	};
	struct ibv_wc wc;
	int err, i;

	sgl[0].lkey = amr->lkey;
	sgl[1].lkey = amr->lkey;
	fill(abuf, 1, 300);
	fill(abuf + 1000, 2, 200);
	fill(abuf + 2000, 3, 64);
	fill(in1, 4, sizeof(in1));
	fill(in2, 5, sizeof(in2));
	fill(in3, 6, sizeof(in3));
	memset(bbuf, 0, 3 * 1024);
	for (i = 0; i < 3; i++)
		post_recv(b, 100 + i, bbuf + i * 1024, 1024, bmr->lkey);

	ibv_wr_start(x);
	x->wr_id = 1;
	x->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(x);
	ibv_wr_set_sge_list(x, 2, sgl);
	x->wr_id = 2;
	ibv_wr_send_imm(x, htonl(0xdeadbeef));
	ibv_wr_set_sge(x, amr->lkey, (uintptr_t)(abuf + 2000), 64);
	x->wr_id = 3;
	ibv_wr_send(x);
	ibv_wr_set_inline_data_list(x, 3, bufs);
	/* The buffers were copied: changing them now changes nothing. */
	memset(in2, 0, sizeof(in2));
	err = ibv_wr_complete(x);
	check(!err, "SEND batch: wr_complete 0");
	expect_cqe(acq, IBV_WC_SEND, 1, "SEND (SGE list)");
	expect_cqe(acq, IBV_WC_SEND, 2, "SEND with immediate");
	expect_cqe(acq, IBV_WC_SEND, 3, "SEND (inline list)");

	wait_cqe(bcq, &wc, "receive 1");
	check(wc.status == IBV_WC_SUCCESS && wc.wr_id == 100 &&
	      wc.byte_len == 500 && !(wc.wc_flags & IBV_WC_WITH_IMM) &&
	      same(bbuf, 1, 300) && same(bbuf + 300, 2, 200),
	      "receive 1: both SGEs' bytes in order");
	wait_cqe(bcq, &wc, "receive 2");
	check(wc.status == IBV_WC_SUCCESS && wc.wr_id == 101 &&
	      wc.byte_len == 64 && (wc.wc_flags & IBV_WC_WITH_IMM) &&
	      ntohl(wc.imm_data) == 0xdeadbeef && same(bbuf + 1024, 3, 64),
	      "receive 2: bytes and immediate 0xdeadbeef");
	wait_cqe(bcq, &wc, "receive 3");
	fill(in2, 5, sizeof(in2));
	check(wc.status == IBV_WC_SUCCESS && wc.wr_id == 102 &&
	      wc.byte_len == 60 && !memcmp(bbuf + 2048, in1, 10) &&
	      !memcmp(bbuf + 2058, in2, 20) && !memcmp(bbuf + 2078, in3, 30),
	      "receive 3: the three inline buffers' bytes");
}

static void test_rc_rdma(struct ibv_qp_ex *x, struct ibv_cq *acq,
			 struct ibv_qp *b, struct ibv_cq *bcq)
{
	uint64_t base = (uintptr_t)bbuf;
	unsigned char in[48];
	struct ibv_wc wc;
	int err;

	fill(abuf, 7, 700);
	fill(in, 8, sizeof(in));
	memset(bbuf, 0, 2048);
	post_recv(b, 200, bbuf + 3000, 16, bmr->lkey);

	ibv_wr_start(x);
	x->wr_id = 10;
	x->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_write(x, bmr->rkey, base + 100);
	ibv_wr_set_sge(x, amr->lkey, (uintptr_t)abuf, 700);
	x->wr_id = 11;
	ibv_wr_rdma_write_imm(x, bmr->rkey, base + 1000, htonl(0x12345678));
	ibv_wr_set_inline_data(x, in, sizeof(in));
	err = ibv_wr_complete(x);
	check(!err, "WRITE batch: wr_complete 0");
	expect_cqe(acq, IBV_WC_RDMA_WRITE, 10, "RDMA WRITE");
	expect_cqe(acq, IBV_WC_RDMA_WRITE, 11, "RDMA WRITE with immediate");
	wait_cqe(bcq, &wc, "WRITE's immediate");
	check(wc.status == IBV_WC_SUCCESS && wc.wr_id == 200 &&
	      wc.opcode == IBV_WC_RECV_RDMA_WITH_IMM &&
	      (wc.wc_flags & IBV_WC_WITH_IMM) &&
	      ntohl(wc.imm_data) == 0x12345678,
	      "WRITE with immediate: receive with 0x12345678");
	check(same(bbuf + 100, 7, 700) && bbuf[99] == 0 && bbuf[800] == 0,
	      "RDMA WRITE: 700 bytes at the remote address, nothing around");
	check(!memcmp(bbuf + 1000, in, sizeof(in)) && bbuf[1048] == 0,
	      "RDMA WRITE with immediate: the inline bytes at the remote address");

	fill(bbuf + 4000, 9, 900);
	memset(abuf + 4096, 0, 1024);
	ibv_wr_start(x);
	x->wr_id = 12;
	x->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_read(x, bmr->rkey, base + 4000);
	ibv_wr_set_sge(x, amr->lkey, (uintptr_t)(abuf + 4096), 900);
	err = ibv_wr_complete(x);
	check(!err, "READ: wr_complete 0");
	expect_cqe(acq, IBV_WC_RDMA_READ, 12, "RDMA READ");
	check(same(abuf + 4096, 9, 900) && abuf[4096 + 900] == 0,
	      "RDMA READ: the 900 remote bytes, nothing more");
}

static void test_rc_atomic(struct ibv_qp_ex *x, struct ibv_cq *acq)
{
	uint64_t *target = (uint64_t *)(bbuf + 6000);
	uint64_t *res = (uint64_t *)(abuf + 6000);
	uint64_t raddr = (uintptr_t)target;
	int err;

	*target = 0x1111222233334444ULL;
	memset(res, 0, 3 * sizeof(*res));
	ibv_wr_start(x);
	x->wr_id = 20;
	x->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_atomic_cmp_swp(x, bmr->rkey, raddr, 0x1111222233334444ULL,
			      0x5555666677778888ULL);
	ibv_wr_set_sge(x, amr->lkey, (uintptr_t)&res[0], 8);
	x->wr_id = 21;
	ibv_wr_atomic_fetch_add(x, bmr->rkey, raddr, 0x10);
	ibv_wr_set_sge(x, amr->lkey, (uintptr_t)&res[1], 8);
	x->wr_id = 22;
	/* A miss: the compare value is the old one. */
	ibv_wr_atomic_cmp_swp(x, bmr->rkey, raddr, 0x1111222233334444ULL, 1);
	ibv_wr_set_sge(x, amr->lkey, (uintptr_t)&res[2], 8);
	err = ibv_wr_complete(x);
	check(!err, "atomic batch: wr_complete 0");
	expect_cqe(acq, IBV_WC_COMP_SWAP, 20, "compare-and-swap (hit)");
	expect_cqe(acq, IBV_WC_FETCH_ADD, 21, "fetch-and-add");
	expect_cqe(acq, IBV_WC_COMP_SWAP, 22, "compare-and-swap (miss)");
	check(res[0] == 0x1111222233334444ULL,
	      "compare-and-swap returned the original");
	check(res[1] == 0x5555666677778888ULL,
	      "fetch-and-add returned the swapped value");
	check(res[2] == 0x5555666677778898ULL,
	      "compare-and-swap miss returned the sum");
	check(*target == 0x5555666677778898ULL,
	      "target: swapped, added to, not swapped again");
}

/* wr_abort, and errors between wr_start and wr_complete. */
static void test_rc_abort_errors(struct ibv_qp_ex *x, struct ibv_qp *a,
				 struct ibv_cq *acq, struct ibv_qp *b,
				 struct ibv_cq *bcq)
{
	struct ibv_sge sgl[SGES + 1];
	unsigned char big[INLINE + 1];
	int err, i;

	for (i = 0; i < SGES + 1; i++)
		sgl[i] = (struct ibv_sge){ (uintptr_t)abuf + i * 8, 8,
					   amr->lkey };
	memset(big, 0x5a, sizeof(big));

	/* Aborted: nothing goes; B's next receive gets the next message. */
	fill(abuf + 4096, 40, 100);
	ibv_wr_start(x);
	x->wr_id = 30;
	x->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(x);
	ibv_wr_set_sge(x, amr->lkey, (uintptr_t)(abuf + 4096), 100);
	x->wr_id = 31;
	ibv_wr_rdma_write(x, bmr->rkey, (uintptr_t)bbuf);
	ibv_wr_set_sge(x, amr->lkey, (uintptr_t)abuf, 0);
	ibv_wr_abort(x);
	no_cqe(acq, "wr_abort: no CQE for the aborted WQEs");
	one_send(x, acq, b, bcq, 41, 32, "after wr_abort");

	/* Too many SGEs in the second WQE: the first is not posted either. */
	ibv_wr_start(x);
	x->wr_id = 33;
	x->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_write(x, bmr->rkey, (uintptr_t)bbuf);
	ibv_wr_set_sge(x, amr->lkey, (uintptr_t)abuf, 8);
	ibv_wr_send(x);
	ibv_wr_set_sge_list(x, SGES + 1, sgl);
	x->wr_id = 34;
	ibv_wr_send(x);
	ibv_wr_set_sge(x, amr->lkey, (uintptr_t)abuf, 8);
	err = ibv_wr_complete(x);
	check(err == EINVAL, "SGEs > max_send_sge: wr_complete EINVAL");
	no_cqe(acq, "... and nothing of the batch posted");
	one_send(x, acq, b, bcq, 42, 35, "after the SGE error");

	/* Inline data over max_inline_data. */
	ibv_wr_start(x);
	x->wr_id = 36;
	x->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(x);
	ibv_wr_set_inline_data(x, big, sizeof(big));
	err = ibv_wr_complete(x);
	check(err == EINVAL, "inline > max_inline_data: wr_complete EINVAL");
	no_cqe(acq, "... and nothing posted");

	/* An inline list just at the limit is taken. */
	{
		struct ibv_data_buf two[2] = {
			{ big, INLINE / 2 }, { big + INLINE / 2, INLINE / 2 },
		};

		memset(bbuf + 5000, 0, INLINE + 8);
		ibv_wr_start(x);
		x->wr_id = 37;
		x->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_rdma_write(x, bmr->rkey, (uintptr_t)(bbuf + 5000));
		ibv_wr_set_inline_data_list(x, 2, two);
		err = ibv_wr_complete(x);
		check(!err, "inline list of max_inline_data bytes: wr_complete 0");
		expect_cqe(acq, IBV_WC_RDMA_WRITE, 37, "inline list at the limit");
		check(!memcmp(bbuf + 5000, big, INLINE) &&
		      bbuf[5000 + INLINE] == 0,
		      "inline list at the limit: its bytes at the remote address");
	}

	/* More WQEs than the SQ holds: ENOMEM, none posted. */
	ibv_wr_start(x);
	x->wr_flags = IBV_SEND_SIGNALED;
	for (i = 0; i < DEPTH + 1; i++) {
		x->wr_id = 100 + i;
		ibv_wr_rdma_write(x, bmr->rkey, (uintptr_t)bbuf);
		ibv_wr_set_sge(x, amr->lkey, (uintptr_t)abuf, 8);
	}
	err = ibv_wr_complete(x);
	check(err == ENOMEM, "more WQEs than the SQ holds: wr_complete ENOMEM");
	no_cqe(acq, "... and nothing posted");
	one_send(x, acq, b, bcq, 43, 38, "after the full SQ");
	(void)a;
}

/* LOCAL_INV and SEND with invalidate reach the adapter (which refuses). */
static void test_rc_inv(struct ibv_qp_ex *x, struct ibv_qp *a,
			struct ibv_cq *acq, struct ibv_qp *b,
			struct ibv_cq *bcq)
{
	struct ibv_wc wc;
	char msg[160];
	int err;

	ibv_wr_start(x);
	x->wr_id = 50;
	x->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_local_inv(x, amr->lkey);
	err = ibv_wr_complete(x);
	check(!err, "LOCAL_INV: wr_complete 0");
	wait_cqe(acq, &wc, "LOCAL_INV");
	snprintf(msg, sizeof(msg),
		 "LOCAL_INV of a user MR: CQE opcode %d wr_id %llu status %s",
		 wc.opcode, (unsigned long long)wc.wr_id,
		 ibv_wc_status_str(wc.status));
	check(wc.opcode == IBV_WC_LOCAL_INV && wc.wr_id == 50 &&
	      wc.status == IBV_WC_MW_BIND_ERR, msg);

	/* Again from RESET, then SEND with invalidate of B's MR. */
	to_reset(a);
	to_reset(b);
	while (ibv_poll_cq(acq, 1, &wc) > 0)
		;
	rc_connect(a, b);
	post_recv(b, 300, bbuf, 64, bmr->lkey);
	fill(abuf, 51, 32);
	ibv_wr_start(x);
	x->wr_id = 51;
	x->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send_inv(x, bmr->rkey);
	ibv_wr_set_sge(x, amr->lkey, (uintptr_t)abuf, 32);
	err = ibv_wr_complete(x);
	check(!err, "SEND with invalidate: wr_complete 0");
	wait_cqe(acq, &wc, "SEND with invalidate");
	snprintf(msg, sizeof(msg),
		 "SEND with invalidate of a user MR: CQE wr_id %llu status %s",
		 (unsigned long long)wc.wr_id, ibv_wc_status_str(wc.status));
	check(wc.wr_id == 51 && wc.status == IBV_WC_REM_INV_REQ_ERR, msg);
	(void)bcq;
}

static void test_rc(struct ibv_cq *acq, struct ibv_cq *bcq)
{
	struct ibv_qp *a, *b;
	struct ibv_qp_ex *x;

	a = create_qp_ex(acq, IBV_QPT_RC, RC_OPS,
			 IBV_QP_INIT_ATTR_SEND_OPS_FLAGS |
			 IBV_QP_INIT_ATTR_CREATE_FLAGS, 0);
	if (!a)
		die("ibv_create_qp_ex RC");
	b = create_qp_ex(bcq, IBV_QPT_RC, RC_OPS,
			 IBV_QP_INIT_ATTR_SEND_OPS_FLAGS, 0);
	if (!b)
		die("ibv_create_qp_ex RC");
	x = ibv_qp_to_qp_ex(a);
	check(x, "RC: ibv_qp_to_qp_ex");
	if (!x)
		return;

	/* Before RTS: wr_complete says EINVAL, as ibv_post_send. */
	ibv_wr_start(x);
	x->wr_id = 5;
	x->wr_flags = 0;
	ibv_wr_send(x);
	ibv_wr_set_sge(x, amr->lkey, (uintptr_t)abuf, 8);
	check(ibv_wr_complete(x) == EINVAL, "RESET QP: wr_complete EINVAL");

	rc_connect(a, b);
	test_rc_send(x, acq, b, bcq);
	test_rc_rdma(x, acq, b, bcq);
	test_rc_atomic(x, acq);
	test_rc_abort_errors(x, a, acq, b, bcq);
	test_rc_inv(x, a, acq, b, bcq);
	if (ibv_destroy_qp(a) || ibv_destroy_qp(b))
		die("ibv_destroy_qp");
}

static void ud_connect(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = PORT, .qkey = QKEY,
	};

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_QKEY))
		die("UD to INIT");
	a.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE))
		die("UD to RTR");
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 1;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN))
		die("UD to RTS");
}

static void test_ud(struct ibv_cq *acq, struct ibv_cq *bcq)
{
	struct ibv_ah_attr ah_attr = {
		.is_global = 1, .port_num = PORT,
		.grh = { .dgid = gid, .sgid_index = gid_index,
			 .hop_limit = 64 },
	};
	unsigned char in[40];
	struct ibv_qp *a, *b;
	struct ibv_qp_ex *x;
	struct ibv_ah *ah;
	struct ibv_wc wc;
	int err;

	a = create_qp_ex(acq, IBV_QPT_UD, UD_OPS,
			 IBV_QP_INIT_ATTR_SEND_OPS_FLAGS, 0);
	b = create_qp_ex(bcq, IBV_QPT_UD, UD_OPS,
			 IBV_QP_INIT_ATTR_SEND_OPS_FLAGS, 0);
	if (!a || !b)
		die("ibv_create_qp_ex UD");
	x = ibv_qp_to_qp_ex(a);
	check(x, "UD: ibv_qp_to_qp_ex");
	if (!x)
		return;
	ud_connect(a);
	ud_connect(b);
	ah = ibv_create_ah(pd, &ah_attr);
	if (!ah)
		die("ibv_create_ah");

	memset(bbuf, 0, 2048);
	post_recv(b, 400, bbuf, 1024, bmr->lkey);
	post_recv(b, 401, bbuf + 1024, 1024, bmr->lkey);
	fill(abuf, 60, 500);
	fill(in, 61, sizeof(in));
	ibv_wr_start(x);
	x->wr_id = 70;
	x->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send_imm(x, htonl(0xcafe0001));
	ibv_wr_set_ud_addr(x, ah, b->qp_num, QKEY);
	ibv_wr_set_sge(x, amr->lkey, (uintptr_t)abuf, 500);
	x->wr_id = 71;
	ibv_wr_send(x);
	ibv_wr_set_ud_addr(x, ah, b->qp_num, QKEY);
	ibv_wr_set_inline_data(x, in, sizeof(in));
	err = ibv_wr_complete(x);
	check(!err, "UD batch: wr_complete 0");
	expect_cqe(acq, IBV_WC_SEND, 70, "UD SEND with immediate");
	expect_cqe(acq, IBV_WC_SEND, 71, "UD SEND (inline)");
	wait_cqe(bcq, &wc, "UD receive 1");
	check(wc.status == IBV_WC_SUCCESS && wc.wr_id == 400 &&
	      wc.byte_len == GRH + 500 && wc.src_qp == a->qp_num &&
	      (wc.wc_flags & IBV_WC_WITH_IMM) &&
	      ntohl(wc.imm_data) == 0xcafe0001 && same(bbuf + GRH, 60, 500),
	      "UD receive 1: bytes after the GRH, immediate 0xcafe0001, source QP");
	wait_cqe(bcq, &wc, "UD receive 2");
	check(wc.status == IBV_WC_SUCCESS && wc.wr_id == 401 &&
	      wc.byte_len == GRH + sizeof(in) &&
	      !(wc.wc_flags & IBV_WC_WITH_IMM) &&
	      !memcmp(bbuf + 1024 + GRH, in, sizeof(in)),
	      "UD receive 2: the inline bytes after the GRH");

	/* An error in the batch: nothing posted, the receive stays. */
	post_recv(b, 402, bbuf, 1024, bmr->lkey);
	ibv_wr_start(x);
	x->wr_id = 72;
	ibv_wr_send(x);
	ibv_wr_set_ud_addr(x, ah, b->qp_num, QKEY);
	ibv_wr_set_sge(x, amr->lkey, (uintptr_t)abuf, 8);
	ibv_wr_send(x);
	ibv_wr_set_ud_addr(x, NULL, b->qp_num, QKEY);
	err = ibv_wr_complete(x);
	check(err == EINVAL, "UD without an AH: wr_complete EINVAL");
	no_cqe(bcq, "... and nothing received");

	if (ibv_destroy_ah(ah) || ibv_destroy_qp(a) || ibv_destroy_qp(b))
		die("UD destroy");
}

int main(int argc, char **argv)
{
	struct ibv_cq *acq, *bcq;

	if (argc != 3) {
		fprintf(stderr, "usage: qp_ex DEV GID_INDEX\n");
		return 2;
	}
	ctx = open_dev(argv[1]);
	gid_index = atoi(argv[2]);
	query_gid(ctx, gid_index, &gid);
	pd = ibv_alloc_pd(ctx);
	if (!pd)
		die("ibv_alloc_pd");
	acq = ibv_create_cq(ctx, 4 * DEPTH, NULL, NULL, 0);
	bcq = ibv_create_cq(ctx, 4 * DEPTH, NULL, NULL, 0);
	if (!acq || !bcq)
		die("ibv_create_cq");
	amr = ibv_reg_mr(pd, abuf, BUF, IBV_ACCESS_LOCAL_WRITE);
	bmr = ibv_reg_mr(pd, bbuf, BUF, IBV_ACCESS_LOCAL_WRITE |
			 IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			 IBV_ACCESS_REMOTE_ATOMIC);
	if (!amr || !bmr)
		die("ibv_reg_mr");

	test_create(acq);
	test_rc(acq, bcq);
	test_ud(acq, bcq);

	if (ibv_dereg_mr(amr) || ibv_dereg_mr(bmr) || ibv_destroy_cq(acq) ||
	    ibv_destroy_cq(bcq) || ibv_dealloc_pd(pd) ||
	    ibv_close_device(ctx))
		die("release");
	if (failures) {
		printf("qp_ex: %d checks failed\n", failures);
		return 1;
	}
	printf("qp_ex: ok\n");
	return 0;
}

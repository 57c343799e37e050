// SPDX-License-Identifier: GPL-2.0
/*
 * The provider against an adapter that lies in its CQEs, as KTAP lines on
 * stdout (exit status 1 if a case failed).  The caller sets the emulator's
 * fault knob (its control file, engine.h engine_inject()); this program
 * runs traffic through every way the provider takes a wr_id and checks
 * what comes back.  Two RC QPs connected to each other on one device: A
 * sends (an extended QP, so both ibv_post_send() and the ibv_wr_* calls
 * post on it) on CQ A; B receives on an RQ, its completions on an
 * extended CQ B (ibv_start_poll()).  A round on A: four SENDs, the last
 * alone signaled; an ibv_wr_* batch of a SEND and an RDMA WRITE; an RDMA
 * READ; a type 1 window bound with ibv_bind_mw() (if the device has
 * IBV_DEVICE_MEM_WINDOW).  Every completion's wr_id, opcode and status,
 * and every byte sent, written and read, are checked; an unsignaled SEND
 * never completes.
 *
 *   cqe_faults DEV GID_INDEX wrid-lie
 *       run while "wrid-lie on": the adapter writes the complement of
 *       each WQE's wr_id into its CQE; the provider must return the wr_id
 *       each WQE was posted with (its own record), never the CQE's
 *   cqe_faults DEV GID_INDEX garbage DIR
 *       a round, then DIR/ready is created and the program waits for
 *       DIR/go, between which the caller has the adapter write
 *       "garbage-cqe" (three CQEs on each CQ: QPN 0xffffff, QPN 0, and for
 *       the CQ's QP an unknown opcode and status with WQE index 0xffff).
 *       Polling both CQs must give no completion; later rounds complete
 *       as before; and the provider must have counted the two CQEs per CQ
 *       it could recognise as garbage (the QPN 0 one is what a QP's
 *       clean-up leaves, dropped without a count), which it logs when the
 *       context is closed (VERBS_LOG_LEVEL=1, VERBS_LOG_FILE=DIR/verbs.log)
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "verbs_helpers.h"

#define MSG		64
#define NSEND		4	/* SENDs per round, the last one signaled */
#define NRECV		(NSEND + 1)	/* and the ibv_wr_* SEND */
#define ROUNDS		24
#define WAIT_MS		10000

/* wr_ids: a kind in the top 16 bits, the round and a number below. */
enum { K_SEND = 0x5e, K_WR_SEND, K_WR_WRITE, K_READ, K_BIND, K_RECV };

static uint64_t wrid(int kind, unsigned int round, unsigned int n)
{
	return (uint64_t)kind << 48 | (uint64_t)round << 16 | n;
}

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *cqa;
static struct ibv_cq_ex *cqb;
static struct ibv_qp *qpa, *qpb;
static struct ibv_qp_ex *qpx;
static struct ibv_mr *mr;
static struct ibv_mw *mw;
static struct {				/* one MR */
	unsigned char src[NRECV][MSG];
	unsigned char dst[NRECV][MSG];	/* B's receives */
	unsigned char wr_src[MSG];	/* A's RDMA WRITE */
	unsigned char wr_dst[MSG];	/* lands here, on B */
	unsigned char rd_dst[MSG];	/* A's RDMA READ of wr_dst */
	unsigned char window[MSG];	/* the window's range */
} buf;
static char why[240];

static bool fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static bool fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	return false;
}

static void fill(unsigned char *p, unsigned int round, unsigned int n)
{
	int k;

	for (k = 0; k < MSG; k++)
		p[k] = (unsigned char)(round * 37 + n * 11 + k * 3 + 1);
}

/* The next completion of CQ A, or false after WAIT_MS. */
static bool next_a(struct ibv_wc *wc)
{
	uint64_t deadline = now_ms() + WAIT_MS;
	int k;

	while (!(k = ibv_poll_cq(cqa, 1, wc)))
		if (now_ms() > deadline)
			return fail("CQ A: no completion in %d ms", WAIT_MS);
	if (k < 0)
		return fail("ibv_poll_cq: %d", k);
	return true;
}

static bool expect_a(uint64_t id, enum ibv_wc_opcode op, const char *what)
{
	struct ibv_wc wc;

	if (!next_a(&wc))
		return false;
	if (wc.wr_id != id || wc.status != IBV_WC_SUCCESS || wc.opcode != op)
		return fail("%s: wr_id %#" PRIx64 " %s opcode %d, posted as %#" PRIx64 " opcode %d",
			    what, (uint64_t)wc.wr_id,
			    ibv_wc_status_str(wc.status), wc.opcode, id, op);
	return true;
}

/* B's receives through the extended CQ: @n of them, in posting order. */
static bool expect_b(unsigned int round, unsigned int n)
{
	uint64_t deadline = now_ms() + WAIT_MS;
	struct ibv_poll_cq_attr pa = {};
	unsigned int got = 0;
	int err;

	while (got < n) {
		err = ibv_start_poll(cqb, &pa);
		if (err == ENOENT) {
			if (now_ms() > deadline)
				return fail("CQ B: %u of %u receives in %d ms",
					    got, n, WAIT_MS);
			continue;
		}
		if (err)
			return fail("ibv_start_poll: %d", err);
		do {
			uint64_t id = wrid(K_RECV, round, got);

			if (cqb->wr_id != id || cqb->status != IBV_WC_SUCCESS ||
			    ibv_wc_read_opcode(cqb) != IBV_WC_RECV) {
				fail("CQ B: wr_id %#" PRIx64 " %s, posted as %#" PRIx64,
				     (uint64_t)cqb->wr_id,
				     ibv_wc_status_str(cqb->status), id);
				ibv_end_poll(cqb);
				return false;
			}
			got++;
		} while (got < n && !ibv_next_poll(cqb));
		ibv_end_poll(cqb);
	}
	return true;
}

static bool round_trip(unsigned int round)
{
	struct ibv_sge sge;
	unsigned int i;
	int err;

	for (i = 0; i < NRECV; i++) {
		struct ibv_sge rs = {
			(uintptr_t)buf.dst[i], MSG, mr->lkey,
		};
		struct ibv_recv_wr rwr = {
			.wr_id = wrid(K_RECV, round, i), .sg_list = &rs,
			.num_sge = 1,
		}, *bad;

		memset(buf.dst[i], 0, MSG);
		if (ibv_post_recv(qpb, &rwr, &bad))
			return fail("ibv_post_recv: %s", strerror(errno));
		fill(buf.src[i], round, i);
	}
	/* ibv_post_send(): the unsignaled ones retire with the last. */
	for (i = 0; i < NSEND; i++) {
		struct ibv_sge ss = { (uintptr_t)buf.src[i], MSG, mr->lkey };
		struct ibv_send_wr swr = {
			.wr_id = wrid(K_SEND, round, i), .sg_list = &ss,
			.num_sge = 1, .opcode = IBV_WR_SEND,
			.send_flags = i == NSEND - 1 ? IBV_SEND_SIGNALED : 0,
		}, *bad;

		if (ibv_post_send(qpa, &swr, &bad))
			return fail("ibv_post_send: %s", strerror(errno));
	}
	if (!expect_a(wrid(K_SEND, round, NSEND - 1), IBV_WC_SEND,
		      "signaled SEND after 3 unsignaled"))
		return false;

	/* The ibv_wr_* calls: a SEND and an RDMA WRITE in one batch. */
	fill(buf.wr_src, round, 100);
	memset(buf.wr_dst, 0, MSG);
	ibv_wr_start(qpx);
	qpx->wr_id = wrid(K_WR_SEND, round, 0);
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(qpx);
	ibv_wr_set_sge(qpx, mr->lkey, (uintptr_t)buf.src[NSEND], MSG);
	qpx->wr_id = wrid(K_WR_WRITE, round, 0);
	ibv_wr_rdma_write(qpx, mr->rkey, (uintptr_t)buf.wr_dst);
	ibv_wr_set_sge(qpx, mr->lkey, (uintptr_t)buf.wr_src, MSG);
	err = ibv_wr_complete(qpx);
	if (err)
		return fail("ibv_wr_complete: %s", strerror(err));
	if (!expect_a(wrid(K_WR_SEND, round, 0), IBV_WC_SEND, "ibv_wr_send") ||
	    !expect_a(wrid(K_WR_WRITE, round, 0), IBV_WC_RDMA_WRITE,
		      "ibv_wr_rdma_write"))
		return false;

	/* An RDMA READ of what the WRITE placed. */
	memset(buf.rd_dst, 0, MSG);
	sge = (struct ibv_sge){ (uintptr_t)buf.rd_dst, MSG, mr->lkey };
	{
		struct ibv_send_wr swr = {
			.wr_id = wrid(K_READ, round, 0), .sg_list = &sge,
			.num_sge = 1, .opcode = IBV_WR_RDMA_READ,
			.send_flags = IBV_SEND_SIGNALED,
			.wr.rdma = { (uintptr_t)buf.wr_dst, mr->rkey },
		}, *bad;

		if (ibv_post_send(qpa, &swr, &bad))
			return fail("ibv_post_send READ: %s", strerror(errno));
	}
	if (!expect_a(wrid(K_READ, round, 0), IBV_WC_RDMA_READ, "RDMA READ"))
		return false;

	if (mw) {
		struct ibv_mw_bind bind = {
			.wr_id = wrid(K_BIND, round, 0),
			.send_flags = IBV_SEND_SIGNALED,
			.bind_info = {
				.mr = mr, .addr = (uintptr_t)buf.window,
				.length = MSG,
				.mw_access_flags = IBV_ACCESS_REMOTE_READ,
			},
		};

		err = ibv_bind_mw(qpa, mw, &bind);
		if (err)
			return fail("ibv_bind_mw: %s", strerror(err));
		if (!expect_a(bind.wr_id, IBV_WC_BIND_MW, "ibv_bind_mw"))
			return false;
	}

	if (!expect_b(round, NRECV))
		return false;
	for (i = 0; i < NRECV; i++)
		if (memcmp(buf.src[i], buf.dst[i], MSG))
			return fail("receive %u: bytes differ", i);
	if (memcmp(buf.wr_src, buf.wr_dst, MSG) ||
	    memcmp(buf.wr_src, buf.rd_dst, MSG))
		return fail("RDMA WRITE or READ: bytes differ");
	return true;
}

/* Nothing on either CQ for @ms. */
static bool quiet(unsigned int ms)
{
	struct ibv_poll_cq_attr pa = {};
	uint64_t end = now_ms() + ms;
	struct ibv_wc wc;
	int k;

	while (now_ms() < end) {
		k = ibv_poll_cq(cqa, 1, &wc);
		if (k)
			return fail("CQ A gave a completion: wr_id %#" PRIx64 ", QP %u, %s, opcode %d",
				    (uint64_t)wc.wr_id, wc.qp_num,
				    ibv_wc_status_str(wc.status), wc.opcode);
		k = ibv_start_poll(cqb, &pa);
		if (k != ENOENT) {
			if (!k) {
				fail("CQ B gave a completion: wr_id %#" PRIx64 ", %s",
				     (uint64_t)cqb->wr_id,
				     ibv_wc_status_str(cqb->status));
				ibv_end_poll(cqb);
				return false;
			}
			return fail("ibv_start_poll: %d", k);
		}
	}
	return true;
}

static void setup(const char *dev, int gid_index)
{
	struct rc_conn c = {
		.gid_index = gid_index, .mtu = IBV_MTU_1024, .timeout = 14,
		.access = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ,
		.label = "cqe_faults: ",
	};
	struct ibv_cq_init_attr_ex ca = {
		.cqe = 64, .wc_flags = IBV_WC_EX_WITH_BYTE_LEN,
	};
	struct ibv_qp_init_attr_ex qa = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.send_ops_flags = IBV_QP_EX_WITH_SEND |
				  IBV_QP_EX_WITH_RDMA_WRITE,
	};
	struct ibv_device_attr da;

	ctx = open_dev(dev);
	query_gid(ctx, gid_index, &c.gid);
	if (ibv_query_device(ctx, &da))
		die("ibv_query_device");
	pd = ibv_alloc_pd(ctx);
	cqa = ibv_create_cq(ctx, 64, NULL, NULL, 0);
	cqb = ibv_create_cq_ex(ctx, &ca);
	if (!pd || !cqa || !cqb)
		die("ibv_alloc_pd/ibv_create_cq");
	mr = ibv_reg_mr(pd, &buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE |
			IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			(da.device_cap_flags & IBV_DEVICE_MEM_WINDOW ?
			 IBV_ACCESS_MW_BIND : 0));
	if (!mr)
		die("ibv_reg_mr");
	if (da.device_cap_flags & IBV_DEVICE_MEM_WINDOW) {
		mw = ibv_alloc_mw(pd, IBV_MW_TYPE_1);
		if (!mw)
			die("ibv_alloc_mw");
	}
	qa.pd = pd;
	qa.send_cq = qa.recv_cq = cqa;
	qpa = ibv_create_qp_ex(ctx, &qa);
	if (!qpa)
		die("ibv_create_qp_ex");
	qpx = ibv_qp_to_qp_ex(qpa);
	qpb = create_rc_qp(pd, ibv_cq_ex_to_cq(cqb), 16, 16);
	c.dest_qpn = qpb->qp_num;
	connect_rc(qpa, &c);
	c.dest_qpn = qpa->qp_num;
	connect_rc(qpb, &c);
	printf("# memory window: %s\n", mw ? "type 1, bound each round" :
	       "none (no IBV_DEVICE_MEM_WINDOW)");
}

static void teardown(void)
{
	if (ibv_destroy_qp(qpa) || ibv_destroy_qp(qpb) ||
	    (mw && ibv_dealloc_mw(mw)) || ibv_dereg_mr(mr) ||
	    ibv_destroy_cq(cqa) || ibv_destroy_cq(ibv_cq_ex_to_cq(cqb)) ||
	    ibv_dealloc_pd(pd) || ibv_close_device(ctx))
		die("teardown");
}

/* Rounds @first.. until @n rounds are done or one fails. */
static bool rounds(unsigned int first, unsigned int n)
{
	unsigned int r;

	for (r = first; r < first + n; r++)
		if (!round_trip(r)) {
			printf("# round %u: %s\n", r, why);
			return false;
		}
	return true;
}

/* The count in the provider's "orca: N CQEs dropped" line, or -1. */
static long dropped_in(const char *path)
{
	char line[256];
	long n = -1;
	FILE *f;

	/* libibverbs writes the log through stdio. */
	fflush(NULL);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		const char *p = strstr(line, "orca: ");

		if (p && strstr(p, " CQEs dropped"))
			n = strtol(p + 6, NULL, 10);
	}
	fclose(f);
	return n;
}

static int garbage(const char *dev, int gid_index, const char *dir)
{
	char log[4096], ready[4096], go[4096];
	uint64_t deadline;
	bool ok;
	long n;

	snprintf(log, sizeof(log), "%s/verbs.log", dir);
	snprintf(ready, sizeof(ready), "%s/ready", dir);
	snprintf(go, sizeof(go), "%s/go", dir);
	unlink(log);
	/* Read by libibverbs when it first lists the devices. */
	setenv("VERBS_LOG_LEVEL", "1", 1);
	setenv("VERBS_LOG_FILE", log, 1);
	setup(dev, gid_index);
	printf("TAP version 13\n1..4\n");
	result(rounds(0, 1), "before: a round completes");
	if (close(creat(ready, 0644)))
		die(ready);
	deadline = now_ms() + 300000;
	while (access(go, F_OK) && now_ms() < deadline)
		usleep(100000);
	if (access(go, F_OK))
		die_err("waiting for DIR/go", ETIMEDOUT);
	ok = quiet(2000);
	if (!ok)
		printf("# %s\n", why);
	result(ok, "garbage CQEs give no completion on either CQ");
	result(rounds(1, ROUNDS), "after: rounds complete, every wr_id and byte checked");
	teardown();
	n = dropped_in(log);
	printf("# the provider's log: %ld CQEs dropped\n", n);
	result(n == 4, "the provider counted 2 dropped CQEs on each of the 2 CQs");
	return ktap_failed;
}

int main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[3], "garbage"))
		return garbage(argv[1], atoi(argv[2]), argv[4]);
	if (argc != 4 || strcmp(argv[3], "wrid-lie")) {
		fprintf(stderr, "usage: cqe_faults DEV GID_INDEX wrid-lie\n"
			"       cqe_faults DEV GID_INDEX garbage DIR\n");
		return 2;
	}
	setup(argv[1], atoi(argv[2]));
	printf("TAP version 13\n1..1\n");
	result(rounds(0, ROUNDS),
	       "wrid-lie: every wr_id as posted (post_send, ibv_wr_*, bind_mw, post_recv, both poll APIs)");
	teardown();
	return ktap_failed;
}

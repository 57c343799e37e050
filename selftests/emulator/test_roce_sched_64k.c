// SPDX-License-Identifier: GPL-2.0
/*
 * 64K QPs on one adapter (issue 11): two adapters joined by an in-process
 * wire, each with 65536 connected RC QPs in RTS, traffic on 4 of them.
 *
 *   - all 65536 fit, inside the device memory budget (an idle QP must
 *     not cost the ~15 KiB of responder state the most
 *     max_dest_rd_atomic needs), and QPNs above 65535 work on the wire;
 *   - the responder's state follows max_dest_rd_atomic: raising it to the
 *     most charges the budget, and a QP in RTS keeps working;
 *   - a pass steps only the QPs with work: with 65532 idle QPs beside the
 *     4 busy ones, no pass looks at more than the busy ones (each at most
 *     twice: its timer and its step), and the passes step about one QP
 *     each (the old engine looked at every QP in every pass).
 *
 * Counters, not timing: bench_engine measures the message rate.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ktap.h"
#include "idle_qps.h"

#define WAIT_MS		10000
#define NQPS		65536		/* per adapter, the busy ones included */
#define NACT		4
#define IOVA_A		0x7f0000001000ull
#define IOVA_B		0x7e0000001000ull
#define BUF_LEN		4096u

static struct node a, b;
static struct tcq acq, bcq;
static struct tbuf abuf, bbuf;
static struct tqp aqp[NACT], bqp[NACT];

static struct roce_stats stats(struct node *n)
{
	struct roce_stats st;

	engine_flush(n->t.eng);
	roce_get_stats(n->t.eng, &st);
	return st;
}

static uint64_t mem_used(struct node *n, uint64_t *limit)
{
	uint64_t used, lim;

	engine_flush(n->t.eng);
	engine_mem_usage(n->t.eng, &used, &lim);
	if (limit)
		*limit = lim;
	return used;
}

static bool do_write(int i, uint64_t wr_id)
{
	struct orca_send_wqe_hdr h = wqe(ORCA_WQE_RDMA_WRITE, wr_id);
	uint64_t off = 64 * i;
	struct tsge s = { IOVA_A + off, 64, abuf.key };
	struct orca_cqe c;

	buf_fill(&a, &abuf, off, 64, (uint32_t)wr_id);
	h.remote_addr = htole64(IOVA_B + off);
	h.rkey = htole32(bbuf.key);
	post_send(&a, &aqp[i], &h, &s, 1);
	if (!poll_cq(&a, &acq, &c, WAIT_MS) || cqe_wr_id(&c) != wr_id ||
	    c.status != ORCA_CQE_ST_SUCCESS) {
		printf("# WRITE %llu on QP %u failed\n",
		       (unsigned long long)wr_id, aqp[i].qpn);
		return false;
	}
	return buf_check(&b, &bbuf, off, 64, (uint32_t)wr_id);
}

static bool do_read(int i, uint64_t wr_id)
{
	struct orca_send_wqe_hdr h = wqe(ORCA_WQE_RDMA_READ, wr_id);
	uint64_t off = 1024 + 64 * i;
	struct tsge s = { IOVA_A + off, 64, abuf.key };
	struct orca_cqe c;

	buf_fill(&b, &bbuf, off, 64, (uint32_t)wr_id);
	h.remote_addr = htole64(IOVA_B + off);
	h.rkey = htole32(bbuf.key);
	post_send(&a, &aqp[i], &h, &s, 1);
	return poll_cq(&a, &acq, &c, WAIT_MS) && cqe_wr_id(&c) == wr_id &&
	       c.status == ORCA_CQE_ST_SUCCESS &&
	       buf_check(&a, &abuf, off, 64, (uint32_t)wr_id);
}

/* Busy pairs 0, 1 first (QPNs 2, 3), 2, 3 last (QPNs 65536, 65537). */
static void test_create(void)
{
	uint64_t used, limit;
	unsigned int made;

	CHECK(node_init(&a, 1) && node_init(&b, 2));
	a.peer = &b;
	b.peer = &a;
	CHECK(node_cq(&a, &acq, 10) && node_cq(&b, &bcq, 10));
	CHECK(node_buf(&a, &abuf, IOVA_A, BUF_LEN, ORCA_ACCESS_ALL) &&
	      node_buf(&b, &bbuf, IOVA_B, BUF_LEN, ORCA_ACCESS_ALL));
	for (int i = 0; i < 2; i++)
		CHECK(idle_active_pair(&a, &acq, &aqp[i], &b, &bcq, &bqp[i]));
	made = idle_qps_create(&a, &acq, &b, &bcq, NQPS - NACT);
	for (int i = 2; i < NACT; i++)
		CHECK(idle_active_pair(&a, &acq, &aqp[i], &b, &bcq, &bqp[i]));
	used = mem_used(&a, &limit);
	printf("# %u idle + %d busy QPs per adapter; last QPN %u; "
	       "budget %llu of %llu bytes (%llu a QP)\n", made, NACT,
	       aqp[NACT - 1].qpn, (unsigned long long)used,
	       (unsigned long long)limit,
	       (unsigned long long)(used / (made + NACT)));
	CHECK(made == NQPS - NACT);
	CHECK(aqp[NACT - 1].qpn > 65535);
	ktap_case_end("create_65536_qps_per_adapter");
}

/*
 * The busy QPs were connected with max_dest_rd_atomic 8; raising it to
 * the most on one in RTS (RTS -> RTS may not change it: SQD -> SQD may)
 * charges the budget, and READs still work on it.
 */
static void test_responder_grows(void)
{
	struct orca_qp_attr at = { 0 };
	uint64_t before, after;

	CHECK(do_read(0, 500));
	before = mem_used(&b, NULL);
	at.attr_mask = htole32(ORCA_QP_ATTR_STATE);
	at.qp_state = ORCA_QPS_SQD;
	CHECK(node_modify(&b, &bqp[0], &at) == ORCA_CMD_ST_OK);
	at.attr_mask = htole32(ORCA_QP_ATTR_MAX_DEST_RD_ATOMIC);
	at.max_dest_rd_atomic = 128;
	CHECK(node_modify(&b, &bqp[0], &at) == ORCA_CMD_ST_OK);
	after = mem_used(&b, NULL);
	printf("# max_dest_rd_atomic 8 -> 128: %llu more bytes\n",
	       (unsigned long long)(after - before));
	CHECK(after - before == roce_resp_footprint(128) -
				roce_resp_footprint(8));
	at.attr_mask = htole32(ORCA_QP_ATTR_STATE);
	at.qp_state = ORCA_QPS_RTS;
	CHECK(node_modify(&b, &bqp[0], &at) == ORCA_CMD_ST_OK);
	for (int i = 0; i < 20; i++)
		CHECK(do_read(0, 501 + i));
	ktap_case_end("responder_state_follows_max_dest_rd_atomic");
}

static void test_pass_cost(void)
{
	struct roce_stats a0 = stats(&a), b0 = stats(&b), a1, b1;
	uint64_t pa, pb;
	bool ok = true;

	for (int i = 0; i < 400 && ok; i++)
		ok = do_write(i % NACT, 1000 + i);
	CHECK(ok);
	a1 = stats(&a);
	b1 = stats(&b);
	pa = a1.passes - a0.passes;
	pb = b1.passes - b0.passes;
	printf("# A: %llu passes, %llu QP steps, at most %llu in a pass; "
	       "B: %llu passes, %llu QP steps, at most %llu in a pass\n",
	       (unsigned long long)pa,
	       (unsigned long long)(a1.qp_steps - a0.qp_steps),
	       (unsigned long long)a1.max_pass_steps,
	       (unsigned long long)pb,
	       (unsigned long long)(b1.qp_steps - b0.qp_steps),
	       (unsigned long long)b1.max_pass_steps);
	CHECK(pa >= 400 && pb >= 400);
	CHECK(a1.max_pass_steps >= 1 && a1.max_pass_steps <= 2 * NACT);
	CHECK(b1.max_pass_steps >= 1 && b1.max_pass_steps <= 2 * NACT);
	CHECK(a1.qp_steps - a0.qp_steps <= 2 * pa);
	CHECK(b1.qp_steps - b0.qp_steps <= 2 * pb);
	/* Loss-free: nothing was sent twice. */
	CHECK(a1.retransmits == 0 && b1.retransmits == 0);
	CHECK(a.t.eng->roce->run_head == NULL &&
	      b.t.eng->roce->run_head == NULL);
	ktap_case_end("pass_steps_only_busy_qps_among_65536");
}

int main(void)
{
	ktap_plan(3);
	test_create();
	test_responder_grows();
	test_pass_cost();
	node_fini(&a);
	node_fini(&b);
	free(abuf.pages);
	free(bbuf.pages);
	return ktap_finish();
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The provider's async_event op (providers/orca/orca_verbs.c): the adapter
 * moves a QP to ERR by itself on a fatal error and says so only in an
 * affiliated async event; the provider must follow it, or its own record
 * of the QP's state stays behind the adapter's.
 *
 * QP B only receives (RTR) and allows no remote write; QP A (RTS, the same
 * device) writes to B's MR.  B's responder refuses the write: A completes
 * with IBV_WC_REM_ACCESS_ERR and B goes to ERR with
 * IBV_EVENT_QP_ACCESS_ERR (after IBV_EVENT_COMM_EST for its first packet).  Before the event the provider refuses a send
 * on B (RTR); after ibv_get_async_event() it takes it and the adapter
 * flushes it (IBV_WC_WR_FLUSH_ERR, the wr_id posted).
 *
 * Usage: async_event DEVICE GID_INDEX; KTAP on stdout, exit 0 if all pass.
 */
#include <poll.h>

#include "verbs_helpers.h"

#define LEN		64
#define WR_WRITE	0xa11ce
#define WR_FLUSHED	0xf1a5

static bool wait_cqe(struct ibv_cq *cq, struct ibv_wc *wc)
{
	uint64_t end = now_ms() + 20000;

	while (now_ms() < end) {
		int n = ibv_poll_cq(cq, 1, wc);

		if (n < 0)
			die("ibv_poll_cq");
		if (n)
			return true;
	}
	return false;
}

/* The next async event within 20 s, acknowledged; false if none came. */
static bool next_event(struct ibv_context *ctx, struct ibv_async_event *ev)
{
	struct pollfd p = { .fd = ctx->async_fd, .events = POLLIN };

	if (poll(&p, 1, 20000) != 1)
		return false;
	if (ibv_get_async_event(ctx, ev))
		die("ibv_get_async_event");
	ibv_ack_async_event(ev);
	return true;
}

int main(int argc, char **argv)
{
	struct ibv_context *ctx;
	struct ibv_cq *cqa, *cqb;
	struct ibv_qp *qpa, *qpb;
	struct ibv_async_event ev;
	struct ibv_send_wr wr = {}, *bad;
	struct ibv_sge sge;
	struct ibv_qp_attr qa;
	struct ibv_qp_init_attr qia;
	struct ibv_wc wc;
	struct ibv_mr *mra, *mrb;
	struct rc_conn c = {};
	struct ibv_pd *pd;
	char *bufa, *bufb;
	bool got, comm_est, access_err;
	int err;

	if (argc != 3) {
		fprintf(stderr, "usage: %s DEVICE GID_INDEX\n", argv[0]);
		return 2;
	}
	printf("TAP version 13\n1..7\n");
	ctx = open_dev(argv[1]);
	c.gid_index = atoi(argv[2]);
	query_gid(ctx, c.gid_index, &c.gid);
	pd = ibv_alloc_pd(ctx);
	cqa = ibv_create_cq(ctx, 8, NULL, NULL, 0);
	cqb = ibv_create_cq(ctx, 8, NULL, NULL, 0);
	bufa = calloc(1, LEN);
	bufb = calloc(1, LEN);
	if (!pd || !cqa || !cqb || !bufa || !bufb)
		die("setup");
	memset(bufa, 0x5a, LEN);
	mra = ibv_reg_mr(pd, bufa, LEN, IBV_ACCESS_LOCAL_WRITE);
	/* B's MR would allow the write: the QP's access is what refuses it. */
	mrb = ibv_reg_mr(pd, bufb, LEN, IBV_ACCESS_LOCAL_WRITE |
			 IBV_ACCESS_REMOTE_WRITE);
	if (!mra || !mrb)
		die("ibv_reg_mr");
	qpa = create_rc_qp(pd, cqa, 4, 1);
	qpb = create_rc_qp(pd, cqb, 4, 1);

	c.mtu = IBV_MTU_1024;
	c.timeout = 14;
	c.dest_qpn = qpb->qp_num;
	c.label = "A ";
	connect_rc(qpa, &c);
	c.dest_qpn = qpa->qp_num;
	c.access = 0;
	c.rtr_only = true;
	c.label = "B ";
	connect_rc(qpb, &c);

	/* A send on a QP in RTR is refused (IBA 10.8.2). */
	sge = (struct ibv_sge){ (uintptr_t)bufa, LEN, mra->lkey };
	wr.wr_id = WR_FLUSHED;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_SIGNALED;
	err = ibv_post_send(qpb, &wr, &bad);
	result(err != 0, "a send on B in RTR is refused");

	wr.wr_id = WR_WRITE;
	wr.opcode = IBV_WR_RDMA_WRITE;
	wr.wr.rdma.remote_addr = (uintptr_t)bufb;
	wr.wr.rdma.rkey = mrb->rkey;
	if (ibv_post_send(qpa, &wr, &bad))
		die("ibv_post_send A");
	got = wait_cqe(cqa, &wc);
	result(got && wc.wr_id == WR_WRITE &&
	       wc.status == IBV_WC_REM_ACCESS_ERR,
	       "A's write to a QP without remote write: IBV_WC_REM_ACCESS_ERR");
	if (got && wc.status != IBV_WC_REM_ACCESS_ERR)
		printf("# A: wr_id %#llx status %s\n",
		       (unsigned long long)wc.wr_id,
		       ibv_wc_status_str(wc.status));

	/*
	 * B's first packet in RTR raises IBV_EVENT_COMM_EST (IBA 11.6.3.1),
	 * then the refused write IBV_EVENT_QP_ACCESS_ERR.
	 */
	comm_est = access_err = false;
	while (!access_err && next_event(ctx, &ev)) {
		if (ev.event_type == IBV_EVENT_COMM_EST &&
		    ev.element.qp == qpb)
			comm_est = true;
		else if (ev.event_type == IBV_EVENT_QP_ACCESS_ERR &&
			 ev.element.qp == qpb)
			access_err = true;
		else
			printf("# unexpected event %s\n",
			       ibv_event_type_str(ev.event_type));
	}
	result(comm_est, "B: IBV_EVENT_COMM_EST on its first packet in RTR");
	result(access_err, "B: IBV_EVENT_QP_ACCESS_ERR on B");

	/*
	 * The provider followed the event: B takes the send and flushes it.
	 * Before ibv_query_qp(), which would tell the provider too.
	 */
	wr.wr_id = WR_FLUSHED;
	wr.opcode = IBV_WR_SEND;
	err = ibv_post_send(qpb, &wr, &bad);
	if (err)
		printf("# ibv_post_send on B after the event: %s\n",
		       strerror(err));
	result(!err, "B: a send after the event is taken");
	got = !err && wait_cqe(cqb, &wc);
	result(got && wc.wr_id == WR_FLUSHED &&
	       wc.status == IBV_WC_WR_FLUSH_ERR,
	       "B: it completes with IBV_WC_WR_FLUSH_ERR and its wr_id");

	if (ibv_query_qp(qpb, &qa, IBV_QP_STATE, &qia))
		die("ibv_query_qp B");
	result(qa.qp_state == IBV_QPS_ERR, "B: ibv_query_qp says ERR");

	if (ibv_destroy_qp(qpa) || ibv_destroy_qp(qpb) || ibv_dereg_mr(mra) ||
	    ibv_dereg_mr(mrb) || ibv_destroy_cq(cqa) || ibv_destroy_cq(cqb) ||
	    ibv_dealloc_pd(pd) || ibv_close_device(ctx))
		die("teardown");
	free(bufa);
	free(bufb);
	return ktap_failed;
}

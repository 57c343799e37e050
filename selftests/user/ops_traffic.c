// SPDX-License-Identifier: GPL-2.0
/*
 * Known RDMA traffic on one device, for the operability test (what rdma
 * restrack, the counters and debugfs show of it):
 *
 *   ops_traffic DEV GID_INDEX N
 *
 * Two RC QPs of the same device connected to each other through its own
 * GID (the adapter's loopback): QP A (SQ 32, RQ 16, on CQ A) sends to QP B
 * (SQ 16, RQ 64, on CQ B), which keeps its 64 receives posted.  Messages
 * are 256 bytes, one packet each; A starts at PSN 1000, B at 2000.  MR
 * "src" is 8 KiB, MR "dst" 12 KiB.  An SRQ of 32 receives (one SGE) that
 * no QP uses holds 10 posted receives.
 *
 * First N SENDs, all completed on both sides; then it prints
 *   ready qpa=Q qpb=Q cqa_cqe=E cqb_cqe=E msgs=N
 * and stays quiet.  Each SIGUSR1 starts sending without pause, the next
 * one stops: it waits for every send and receive to complete and prints
 *   paused msgs=TOTAL
 * so a test can read values while traffic runs and exact ones while it
 * is paused.  SIGTERM releases everything and prints "done".
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "verbs_helpers.h"

#define MSG_SIZE	256
#define SRC_SIZE	8192
#define DST_SIZE	12288
#define A_SQ		32
#define A_RQ		16
#define B_SQ		16
#define B_RQ		64
#define IN_FLIGHT	8
#define SRQ_WR		32
#define SRQ_POSTED	10

struct ops {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cqa, *cqb;
	struct ibv_qp *a, *b;
	struct ibv_srq *srq;
	struct ibv_mr *src_mr, *dst_mr;
	char *src, *dst;
	union ibv_gid gid;
	int gid_index;
	unsigned long sent, acked, received;
};

static volatile sig_atomic_t usr1, term;

static void on_signal(int sig)
{
	if (sig == SIGUSR1)
		usr1++;
	else
		term = 1;
}

static void post_recv(struct ops *o, uint64_t id)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)o->dst + (id % (DST_SIZE / MSG_SIZE)) * MSG_SIZE,
		.length = MSG_SIZE,
		.lkey = o->dst_mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = id, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	if (ibv_post_recv(o->b, &wr, &bad))
		die("ibv_post_recv");
}

static void post_send(struct ops *o)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)o->src,
		.length = MSG_SIZE,
		.lkey = o->src_mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = o->sent,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;

	if (ibv_post_send(o->a, &wr, &bad))
		die("ibv_post_send");
	o->sent++;
}

static void reap(struct ops *o)
{
	struct ibv_wc wc;
	int r;

	while ((r = ibv_poll_cq(o->cqa, 1, &wc)) > 0) {
		if (wc.status != IBV_WC_SUCCESS || wc.opcode != IBV_WC_SEND) {
			fprintf(stderr, "ops_traffic: send completion %s\n",
				ibv_wc_status_str(wc.status));
			exit(1);
		}
		o->acked++;
	}
	if (r < 0)
		die("ibv_poll_cq A");
	while ((r = ibv_poll_cq(o->cqb, 1, &wc)) > 0) {
		if (wc.status != IBV_WC_SUCCESS || wc.byte_len != MSG_SIZE) {
			fprintf(stderr, "ops_traffic: receive completion %s\n",
				ibv_wc_status_str(wc.status));
			exit(1);
		}
		o->received++;
		post_recv(o, wc.wr_id + B_RQ);
	}
	if (r < 0)
		die("ibv_poll_cq B");
}

/* One step of traffic: keep IN_FLIGHT sends going. */
static void step(struct ops *o)
{
	while (o->sent - o->acked < IN_FLIGHT)
		post_send(o);
	reap(o);
}

/* Until every send is acknowledged and every message received. */
static void drain(struct ops *o)
{
	while (o->acked < o->sent || o->received < o->sent)
		reap(o);
}

static void setup_srq(struct ops *o)
{
	struct ibv_srq_init_attr sa = {
		.attr = { .max_wr = SRQ_WR, .max_sge = 1 },
	};
	struct ibv_sge sge = {
		.addr = (uintptr_t)o->dst,
		.length = MSG_SIZE,
		.lkey = o->dst_mr->lkey,
	};
	struct ibv_recv_wr wr = { .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;
	int i;

	o->srq = ibv_create_srq(o->pd, &sa);
	if (!o->srq)
		die("ibv_create_srq");
	for (i = 0; i < SRQ_POSTED; i++) {
		wr.wr_id = i;
		if (ibv_post_srq_recv(o->srq, &wr, &bad))
			die("ibv_post_srq_recv");
	}
}

static void setup(struct ops *o, const char *dev, int gid_index)
{
	int acc = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
	struct rc_conn conn;
	int i;

	o->ctx = open_dev(dev);
	o->gid_index = gid_index;
	query_gid(o->ctx, gid_index, &o->gid);
	o->pd = ibv_alloc_pd(o->ctx);
	if (!o->pd)
		die("ibv_alloc_pd");
	o->src = aligned_alloc(4096, SRC_SIZE);
	o->dst = aligned_alloc(4096, DST_SIZE);
	if (!o->src || !o->dst)
		die("aligned_alloc");
	memset(o->src, 0x5a, SRC_SIZE);
	o->src_mr = ibv_reg_mr(o->pd, o->src, SRC_SIZE, acc);
	o->dst_mr = ibv_reg_mr(o->pd, o->dst, DST_SIZE, acc);
	if (!o->src_mr || !o->dst_mr)
		die("ibv_reg_mr");
	/*
	 * A gets the provider's minimum (128, one page of CQEs); B asks for
	 * more so that its depth (256) tells its rows from A's.
	 */
	o->cqa = ibv_create_cq(o->ctx, A_SQ + A_RQ, NULL, NULL, 0);
	o->cqb = ibv_create_cq(o->ctx, B_SQ + B_RQ + 128, NULL, NULL, 0);
	if (!o->cqa || !o->cqb)
		die("ibv_create_cq");
	o->a = create_rc_qp(o->pd, o->cqa, A_SQ, A_RQ);
	o->b = create_rc_qp(o->pd, o->cqb, B_SQ, B_RQ);
	/* Through the device's own GID. */
	conn = (struct rc_conn){
		.gid = o->gid, .gid_index = o->gid_index,
		.mtu = IBV_MTU_1024, .timeout = 18,
		.access = IBV_ACCESS_REMOTE_WRITE,
	};
	conn.dest_qpn = o->b->qp_num;
	conn.sq_psn = 1000;
	conn.rq_psn = 3000;
	connect_rc(o->a, &conn);
	conn.dest_qpn = o->a->qp_num;
	conn.sq_psn = 2000;
	conn.rq_psn = 1000;
	connect_rc(o->b, &conn);
	for (i = 0; i < B_RQ; i++)
		post_recv(o, i);
	setup_srq(o);
}

static void teardown(struct ops *o)
{
	ibv_destroy_qp(o->a);
	ibv_destroy_qp(o->b);
	ibv_destroy_srq(o->srq);
	ibv_destroy_cq(o->cqa);
	ibv_destroy_cq(o->cqb);
	ibv_dereg_mr(o->src_mr);
	ibv_dereg_mr(o->dst_mr);
	ibv_dealloc_pd(o->pd);
	ibv_close_device(o->ctx);
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct ops o = {};
	sigset_t block, old;
	sig_atomic_t seen = 0;
	unsigned long n;

	if (argc != 4) {
		fprintf(stderr, "usage: %s DEV GID_INDEX N\n", argv[0]);
		return 2;
	}
	n = strtoul(argv[3], NULL, 0);
	sigemptyset(&block);
	sigaddset(&block, SIGUSR1);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	sigprocmask(SIG_BLOCK, &block, &old);
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);

	setup(&o, argv[1], atoi(argv[2]));
	while (o.sent < n) {
		if (o.sent - o.acked < IN_FLIGHT)
			post_send(&o);
		reap(&o);
	}
	drain(&o);
	printf("ready qpa=%u qpb=%u cqa_cqe=%d cqb_cqe=%d msgs=%lu\n",
	       o.a->qp_num, o.b->qp_num, o.cqa->cqe, o.cqb->cqe, o.sent);
	fflush(stdout);

	for (;;) {
		while (usr1 == seen && !term)
			sigsuspend(&old);
		if (term)
			break;
		seen = usr1;
		sigprocmask(SIG_SETMASK, &old, NULL);
		while (usr1 == seen && !term)
			step(&o);
		sigprocmask(SIG_BLOCK, &block, NULL);
		drain(&o);
		seen = usr1;
		printf("paused msgs=%lu\n", o.sent);
		fflush(stdout);
	}
	teardown(&o);
	printf("done\n");
	return 0;
}

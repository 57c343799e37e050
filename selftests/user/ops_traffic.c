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

#define PORT		1
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

static void die(const char *what)
{
	fprintf(stderr, "ops_traffic: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void on_signal(int sig)
{
	if (sig == SIGUSR1)
		usr1++;
	else
		term = 1;
}

static struct ibv_context *open_dev(const char *name)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx = NULL;
	int i;

	if (!list)
		die("ibv_get_device_list");
	for (i = 0; list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	if (!ctx) {
		errno = ENODEV;
		die(name);
	}
	return ctx;
}

static struct ibv_qp *create_qp(struct ops *o, struct ibv_cq *cq,
				unsigned int sq, unsigned int rq)
{
	struct ibv_qp_init_attr qa = {
		.send_cq = cq,
		.recv_cq = cq,
		.qp_type = IBV_QPT_RC,
		.cap = {
			.max_send_wr = sq, .max_recv_wr = rq,
			.max_send_sge = 1, .max_recv_sge = 1,
		},
	};
	struct ibv_qp *qp = ibv_create_qp(o->pd, &qa);

	if (!qp)
		die("ibv_create_qp");
	return qp;
}

/* RESET -> RTS, talking to @dest through the device's own GID. */
static void connect_qp(struct ops *o, struct ibv_qp *qp, uint32_t dest,
		       uint32_t sq_psn, uint32_t rq_psn)
{
	struct ibv_qp_attr a = {};

	a.qp_state = IBV_QPS_INIT;
	a.port_num = PORT;
	a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		die("to INIT");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = dest;
	a.rq_psn = rq_psn;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = o->gid;
	a.ah_attr.grh.sgid_index = o->gid_index;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.port_num = PORT;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		die("to RTR");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 18;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.sq_psn = sq_psn;
	a.max_rd_atomic = 1;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
			  IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
			  IBV_QP_MAX_QP_RD_ATOMIC))
		die("to RTS");
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
	int i;

	o->ctx = open_dev(dev);
	o->gid_index = gid_index;
	if (ibv_query_gid(o->ctx, PORT, gid_index, &o->gid))
		die("ibv_query_gid");
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
	o->a = create_qp(o, o->cqa, A_SQ, A_RQ);
	o->b = create_qp(o, o->cqb, B_SQ, B_RQ);
	connect_qp(o, o->a, o->b->qp_num, 1000, 3000);
	connect_qp(o, o->b, o->a->qp_num, 2000, 1000);
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

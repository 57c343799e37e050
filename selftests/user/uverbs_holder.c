// SPDX-License-Identifier: GPL-2.0
/*
 * A process that holds every kind of userspace verbs object of a device
 * and keeps its data path busy, for the teardown tests (what happens to
 * live objects when the process is killed, or when the driver goes away
 * under it):
 *
 *   uverbs_holder traffic DEV GID_INDEX
 *	PD, MRs, CQs with a completion channel, an SRQ, a UD QP with an AH,
 *	and an RC QP connected to itself (the adapter's loopback) that writes
 *	64 KiB with RDMA WRITE over and over, checking the first copy byte
 *	for byte.  Prints "ready" once traffic flows, then runs until killed.
 *
 *   uverbs_holder fatal DEV GID_INDEX
 *	The same objects and some traffic; prints "ready", then waits for an
 *	async event.  Exits 0 after IBV_EVENT_DEVICE_FATAL (releasing what it
 *	holds, as an application would), 1 after any other event or error.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "verbs_helpers.h"

#define BUF_SIZE	(64 * 1024)

struct holder {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_comp_channel *ch;
	struct ibv_cq *cq;
	struct ibv_cq *ud_cq;
	struct ibv_srq *srq;
	struct ibv_qp *rc;
	struct ibv_qp *ud;
	struct ibv_ah *ah;
	struct ibv_mr *src_mr;
	struct ibv_mr *dst_mr;
	char *src;
	char *dst;
	union ibv_gid gid;
	int gid_index;
};

/* The RC QP talks to itself: its own QPN behind its own GID. */
static void connect_self(struct holder *h)
{
	struct rc_conn c = {
		.gid = h->gid, .gid_index = h->gid_index,
		.dest_qpn = h->rc->qp_num, .sq_psn = 100, .rq_psn = 100,
		.mtu = IBV_MTU_1024, .timeout = 14,
		.access = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ,
		.label = "RC ",
	};

	connect_rc(h->rc, &c);
}

static void setup(struct holder *h, const char *dev, int gid_index)
{
	struct ibv_qp_init_attr qa = {};
	struct ibv_srq_init_attr sa = {};
	struct ibv_ah_attr aa = {};
	int acc = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		  IBV_ACCESS_REMOTE_READ;
	int i;

	h->ctx = open_dev(dev);
	h->gid_index = gid_index;
	query_gid(h->ctx, gid_index, &h->gid);
	h->pd = ibv_alloc_pd(h->ctx);
	if (!h->pd)
		die("ibv_alloc_pd");
	h->src = aligned_alloc(4096, BUF_SIZE);
	h->dst = aligned_alloc(4096, BUF_SIZE);
	if (!h->src || !h->dst)
		die("aligned_alloc");
	for (i = 0; i < BUF_SIZE; i++)
		h->src[i] = (char)(i * 7 + 3);
	memset(h->dst, 0, BUF_SIZE);
	h->src_mr = ibv_reg_mr(h->pd, h->src, BUF_SIZE, acc);
	h->dst_mr = ibv_reg_mr(h->pd, h->dst, BUF_SIZE, acc);
	if (!h->src_mr || !h->dst_mr)
		die("ibv_reg_mr");
	h->ch = ibv_create_comp_channel(h->ctx);
	if (!h->ch)
		die("ibv_create_comp_channel");
	h->cq = ibv_create_cq(h->ctx, 64, NULL, h->ch, 0);
	h->ud_cq = ibv_create_cq(h->ctx, 16, NULL, NULL, 0);
	if (!h->cq || !h->ud_cq)
		die("ibv_create_cq");
	if (ibv_req_notify_cq(h->cq, 0))
		die("ibv_req_notify_cq");

	sa.attr.max_wr = 16;
	sa.attr.max_sge = 1;
	h->srq = ibv_create_srq(h->pd, &sa);
	if (!h->srq)
		die("ibv_create_srq");

	qa.send_cq = h->cq;
	qa.recv_cq = h->cq;
	qa.qp_type = IBV_QPT_RC;
	qa.cap.max_send_wr = 32;
	qa.cap.max_recv_wr = 32;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_sge = 1;
	h->rc = ibv_create_qp(h->pd, &qa);
	if (!h->rc)
		die("ibv_create_qp RC");
	qa.send_cq = h->ud_cq;
	qa.recv_cq = h->ud_cq;
	qa.qp_type = IBV_QPT_UD;
	qa.srq = h->srq;
	h->ud = ibv_create_qp(h->pd, &qa);
	if (!h->ud)
		die("ibv_create_qp UD");

	aa.is_global = 1;
	aa.grh.dgid = h->gid;
	aa.grh.sgid_index = gid_index;
	aa.grh.hop_limit = 64;
	aa.port_num = PORT;
	h->ah = ibv_create_ah(h->pd, &aa);
	if (!h->ah)
		die("ibv_create_ah");
	connect_self(h);
}

static void post_write(struct holder *h, uint64_t id)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)h->src,
		.length = BUF_SIZE,
		.lkey = h->src_mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = id,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma.remote_addr = (uintptr_t)h->dst,
		.wr.rdma.rkey = h->dst_mr->rkey,
	}, *bad;

	if (ibv_post_send(h->rc, &wr, &bad))
		die("ibv_post_send");
}

/* Keep four writes in flight; returns after @n completions (0: forever). */
static void traffic(struct holder *h, unsigned long n)
{
	unsigned long done = 0, posted = 0;
	struct ibv_wc wc;
	int r;

	for (; posted < 4; posted++)
		post_write(h, posted);
	while (!n || done < n) {
		r = ibv_poll_cq(h->cq, 1, &wc);
		if (r < 0)
			die("ibv_poll_cq");
		if (!r)
			continue;
		if (wc.status != IBV_WC_SUCCESS) {
			fprintf(stderr, "uverbs_holder: completion %s\n",
				ibv_wc_status_str(wc.status));
			exit(1);
		}
		if (++done == 1 && memcmp(h->src, h->dst, BUF_SIZE)) {
			fprintf(stderr, "uverbs_holder: data mismatch\n");
			exit(1);
		}
		if (done == 50) {
			printf("ready\n");
			fflush(stdout);
		}
		post_write(h, posted++);
	}
}

/* What an application does after a fatal event: let go of everything. */
static void teardown(struct holder *h)
{
	ibv_destroy_ah(h->ah);
	ibv_destroy_qp(h->ud);
	ibv_destroy_qp(h->rc);
	ibv_destroy_srq(h->srq);
	ibv_destroy_cq(h->ud_cq);
	ibv_destroy_cq(h->cq);
	ibv_destroy_comp_channel(h->ch);
	ibv_dereg_mr(h->dst_mr);
	ibv_dereg_mr(h->src_mr);
	ibv_dealloc_pd(h->pd);
	ibv_close_device(h->ctx);
}

int main(int argc, char **argv)
{
	struct ibv_async_event ev;
	struct holder h = {};
	int fatal;

	if (argc != 4) {
		fprintf(stderr, "usage: %s traffic|fatal DEV GID_INDEX\n",
			argv[0]);
		return 2;
	}
	setup(&h, argv[2], atoi(argv[3]));
	if (!strcmp(argv[1], "traffic")) {
		traffic(&h, 0);
		return 1;
	}
	traffic(&h, 100);
	for (;;) {
		if (ibv_get_async_event(h.ctx, &ev))
			die("ibv_get_async_event");
		printf("event: %s\n", ibv_event_type_str(ev.event_type));
		fflush(stdout);
		fatal = ev.event_type == IBV_EVENT_DEVICE_FATAL;
		ibv_ack_async_event(&ev);
		if (fatal)
			break;
	}
	teardown(&h);
	printf("released\n");
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * What the driver and the provider refuse, and a destroy the adapter
 * refuses, as KTAP lines on stdout (exit status 1 if a case failed):
 *
 *   mr_access  ibv_reg_mr with a right the adapter lacks (on-demand paging
 *              without IBV_ODP_SUPPORT, memory window binding without
 *              IBV_DEVICE_MEM_WINDOW, a zero-based MR) fails with
 *              EOPNOTSUPP, as efa answers, instead of an MR without it;
 *              the rights it has register (on demand too, with the cap);
 *   depth      max_qp_wr and max_srq_wr are at most 65536 (a CQE names
 *              its WQE by 16 bits); a QP or SRQ one deeper than they say
 *              is refused (EINVAL), one as deep is created;
 *   refused    (only, with "refused": the caller wrote "fail-destroy 1"
 *              to the emulator's control file) a DESTROY_CQ the adapter
 *              refuses: ibv_destroy_cq succeeds
 *              (the driver keeps the memory), and loopback traffic on new
 *              CQs and QPs, whose doorbell records the provider places
 *              where the refused CQ's was, completes.  The caller checks
 *              the kernel log: a context whose doorbell page stayed listed
 *              warns when it goes.
 *
 * Usage: provider_limits DEV GID_INDEX [refused]
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <infiniband/verbs.h>

#include "verbs_helpers.h"

#define LEN		64
#define WAIT_MS		10000

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static union ibv_gid gid;
static int gid_index;

static void test_mr_access(const struct ibv_device_attr *da, bool odp)
{
	static unsigned char buf[4096];
	struct {
		int access;
		const char *name;
	} refused[] = {
		{ IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_ON_DEMAND, "ON_DEMAND" },
		{ IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_ZERO_BASED, "ZERO_BASED" },
		{ IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND, "MW_BIND" },
	};
	int rights = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		     IBV_ACCESS_REMOTE_READ;
	bool ok = true;
	struct ibv_mr *mr;
	unsigned int i;

	for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		if (refused[i].access & IBV_ACCESS_MW_BIND &&
		    da->device_cap_flags & IBV_DEVICE_MEM_WINDOW)
			continue;
		if (refused[i].access & IBV_ACCESS_ON_DEMAND && odp)
			continue;
		errno = 0;
		mr = ibv_reg_mr(pd, buf, sizeof(buf), refused[i].access);
		if (mr || errno != EOPNOTSUPP) {
			printf("# %s: %s\n", refused[i].name,
			       mr ? "registered" : strerror(errno));
			ok = false;
		}
		if (mr)
			ibv_dereg_mr(mr);
	}
	if (da->atomic_cap != IBV_ATOMIC_NONE)
		rights |= IBV_ACCESS_REMOTE_ATOMIC;
	/* On-demand paging (interface 1.10): registered, nothing pinned. */
	if (odp) {
		mr = ibv_reg_mr(pd, buf, sizeof(buf),
				rights | IBV_ACCESS_ON_DEMAND);
		if (!mr) {
			printf("# ON_DEMAND: %s\n", strerror(errno));
			ok = false;
		} else {
			ibv_dereg_mr(mr);
		}
	}
	mr = ibv_reg_mr(pd, buf, sizeof(buf), rights);
	if (!mr) {
		printf("# access %#x: %s\n", rights, strerror(errno));
		ok = false;
	} else {
		ibv_dereg_mr(mr);
	}
	result(ok, "mr_access: a right the adapter lacks fails with EOPNOTSUPP");
}

static struct ibv_qp *qp_of_depth(struct ibv_cq *cq, uint32_t send,
				  uint32_t recv)
{
	struct ibv_qp_init_attr qa = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = send, .max_recv_wr = recv,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	return ibv_create_qp(pd, &qa);
}

static void test_depth(const struct ibv_device_attr *da)
{
	uint32_t wr = da->max_qp_wr, swr = da->max_srq_wr;
	struct ibv_srq_init_attr sa = { .attr = { .max_sge = 1 } };
	bool ok = wr && wr <= 65536 && swr <= 65536;
	struct ibv_srq *srq;
	struct ibv_qp *qp;
	struct ibv_cq *cq;

	printf("# max_qp_wr %u max_srq_wr %u\n", wr, swr);
	cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	if (!cq)
		die("ibv_create_cq");
	errno = 0;
	qp = qp_of_depth(cq, wr + 1, 1);
	if (qp || errno != EINVAL) {
		printf("# send depth %u: %s\n", wr + 1,
		       qp ? "created" : strerror(errno));
		ok = false;
	}
	if (qp)
		ibv_destroy_qp(qp);
	errno = 0;
	qp = qp_of_depth(cq, 1, wr + 1);
	if (qp || errno != EINVAL) {
		printf("# receive depth %u: %s\n", wr + 1,
		       qp ? "created" : strerror(errno));
		ok = false;
	}
	if (qp)
		ibv_destroy_qp(qp);
	qp = qp_of_depth(cq, wr, wr);
	if (!qp) {
		printf("# depth %u: %s\n", wr, strerror(errno));
		ok = false;
	} else {
		ibv_destroy_qp(qp);
	}
	if (swr) {
		sa.attr.max_wr = swr + 1;
		errno = 0;
		srq = ibv_create_srq(pd, &sa);
		if (srq || errno != EINVAL) {
			printf("# SRQ depth %u: %s\n", swr + 1,
			       srq ? "created" : strerror(errno));
			ok = false;
		}
		if (srq)
			ibv_destroy_srq(srq);
		sa.attr.max_wr = swr;
		srq = ibv_create_srq(pd, &sa);
		if (!srq) {
			printf("# SRQ depth %u: %s\n", swr, strerror(errno));
			ok = false;
		} else {
			ibv_destroy_srq(srq);
		}
	}
	if (ibv_destroy_cq(cq))
		die("ibv_destroy_cq");
	result(ok, "depth: queues no deeper than max_qp_wr/max_srq_wr <= 65536");
}

/* One SEND from a to b on their own CQs, bytes checked. */
static bool loopback_send(char *why, size_t len)
{
	static unsigned char src[LEN], dst[LEN];
	struct rc_conn c = {
		.gid = gid, .gid_index = gid_index, .mtu = IBV_MTU_1024,
		.timeout = 14, .label = "refused: ",
	};
	struct ibv_cq *cqa, *cqb;
	struct ibv_qp *a, *b;
	struct ibv_mr *mr_s, *mr_d;
	struct ibv_wc wc;
	uint64_t deadline;
	int got = 0, i, n;
	bool ok = true;

	cqa = ibv_create_cq(ctx, 4, NULL, NULL, 0);
	cqb = ibv_create_cq(ctx, 4, NULL, NULL, 0);
	if (!cqa || !cqb)
		die("ibv_create_cq");
	mr_s = ibv_reg_mr(pd, src, LEN, IBV_ACCESS_LOCAL_WRITE);
	mr_d = ibv_reg_mr(pd, dst, LEN, IBV_ACCESS_LOCAL_WRITE);
	if (!mr_s || !mr_d)
		die("ibv_reg_mr");
	a = create_rc_qp(pd, cqa, 4, 4);
	b = create_rc_qp(pd, cqb, 4, 4);
	c.dest_qpn = b->qp_num;
	connect_rc(a, &c);
	c.dest_qpn = a->qp_num;
	connect_rc(b, &c);
	for (i = 0; i < LEN; i++)
		src[i] = (unsigned char)(i * 7 + 3);
	memset(dst, 0, LEN);
	{
		struct ibv_sge rs = { (uintptr_t)dst, LEN, mr_d->lkey };
		struct ibv_sge ss = { (uintptr_t)src, LEN, mr_s->lkey };
		struct ibv_recv_wr rw = { .wr_id = 2, .sg_list = &rs,
					  .num_sge = 1 }, *rbad;
		struct ibv_send_wr sw = { .wr_id = 1, .sg_list = &ss,
					  .num_sge = 1,
					  .opcode = IBV_WR_SEND,
					  .send_flags = IBV_SEND_SIGNALED },
				   *sbad;

		if (ibv_post_recv(b, &rw, &rbad) ||
		    ibv_post_send(a, &sw, &sbad))
			die("post");
	}
	deadline = now_ms() + WAIT_MS;
	while (got < 2 && ok) {
		n = ibv_poll_cq(got ? cqb : cqa, 1, &wc);
		if (n < 0) {
			snprintf(why, len, "ibv_poll_cq");
			ok = false;
		} else if (n && wc.status != IBV_WC_SUCCESS) {
			snprintf(why, len, "wr %llu: %s",
				 (unsigned long long)wc.wr_id,
				 ibv_wc_status_str(wc.status));
			ok = false;
		} else if (n) {
			got++;
		} else if (now_ms() > deadline) {
			snprintf(why, len, "%s completion missing after %d ms",
				 got ? "receive" : "send", WAIT_MS);
			ok = false;
		}
	}
	if (ok && memcmp(src, dst, LEN)) {
		snprintf(why, len, "received bytes differ");
		ok = false;
	}
	if (ibv_destroy_qp(a) || ibv_destroy_qp(b) ||
	    ibv_destroy_cq(cqa) || ibv_destroy_cq(cqb))
		die("destroy");
	ibv_dereg_mr(mr_s);
	ibv_dereg_mr(mr_d);
	return ok;
}

static void test_refused(void)
{
	char why[128] = "";
	struct ibv_cq *cq;
	bool ok;

	cq = ibv_create_cq(ctx, 4, NULL, NULL, 0);
	if (!cq)
		die("ibv_create_cq");
	ok = !ibv_destroy_cq(cq);
	if (!ok)
		printf("# ibv_destroy_cq: %s\n", strerror(errno));
	if (ok && !loopback_send(why, sizeof(why))) {
		printf("# after the refused destroy: %s\n", why);
		ok = false;
	}
	result(ok, "refused: a refused DESTROY_CQ, then traffic on new queues");
}

int main(int argc, char **argv)
{
	struct ibv_device_attr da;

	if (argc != 3 && (argc != 4 || strcmp(argv[3], "refused"))) {
		fprintf(stderr, "usage: provider_limits DEV GID_INDEX [refused]\n");
		return 2;
	}
	ctx = open_dev(argv[1]);
	gid_index = atoi(argv[2]);
	query_gid(ctx, gid_index, &gid);
	if (ibv_query_device(ctx, &da))
		die("ibv_query_device");
	pd = ibv_alloc_pd(ctx);
	if (!pd)
		die("ibv_alloc_pd");
	/* The refusal is for the first destroy: nothing else runs then. */
	if (argc == 4) {
		printf("TAP version 13\n1..1\n");
		test_refused();
	} else {
		struct ibv_device_attr_ex dx = {};

		if (ibv_query_device_ex(ctx, NULL, &dx))
			die("ibv_query_device_ex");
		printf("TAP version 13\n1..2\n");
		test_mr_access(&da, dx.odp_caps.general_caps &
				    IBV_ODP_SUPPORT);
		test_depth(&da);
	}
	ibv_dealloc_pd(pd);
	if (ibv_close_device(ctx))
		die("ibv_close_device");
	return ktap_failed;
}

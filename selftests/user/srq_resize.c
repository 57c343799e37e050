// SPDX-License-Identifier: GPL-2.0
/*
 * ibv_modify_srq(IBV_SRQ_MAX_WR) on a user SRQ with receives posted, as
 * KTAP lines on stdout (exit status 1 if a case failed).  Two RC QPs
 * connected to each other on one device; the receiver's receives come
 * from an SRQ of 8.  Every received message is checked byte for byte
 * against what was sent into the buffer its wr_id names, and the receive
 * completions must come in posting order.
 *
 *   grow     6 receives posted, 2 of them consumed; the SRQ grows to 32
 *            (ibv_query_srq says at least 32), 26 more are posted, which a
 *            depth of 8 would refuse (ENOMEM), and 30 messages complete
 *            the 4 old receives and the 26 new ones, in order
 *   shrink   with 10 receives posted, a depth of 4 is refused (EINVAL) and
 *            all 10 still complete, in order; with none posted, a depth of
 *            8 is taken, and an eighth receive fits, a ninth does not
 *   cap      the device says IBV_DEVICE_SRQ_RESIZE
 *
 * Usage: srq_resize DEV GID_INDEX
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

#define MSG		256
#define NBUF		64
#define WAIT_MS		10000

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *scq, *rcq;
static struct ibv_srq *srq;
static struct ibv_qp *sender, *receiver;
static struct ibv_mr *mr;
static struct {			/* one MR */
	unsigned char src[NBUF][MSG];
	unsigned char dst[NBUF][MSG];
} buf;
static uint64_t next_post, next_done;	/* receive numbers, posted/completed */

/* Post @n receives on the SRQ; the errno of a refused one, else 0. */
static int post_recvs(int n)
{
	int i;

	for (i = 0; i < n; i++) {
		unsigned int b = next_post % NBUF;
		struct ibv_sge sge = {
			(uintptr_t)buf.dst[b], MSG, mr->lkey,
		};
		struct ibv_recv_wr wr = {
			.wr_id = next_post, .sg_list = &sge, .num_sge = 1,
		}, *bad;
		int err;

		memset(buf.dst[b], 0, MSG);
		err = ibv_post_srq_recv(srq, &wr, &bad);
		if (err)
			return err;
		next_post++;
	}
	return 0;
}

/*
 * Send @n messages, each into the next receive posted; check every send
 * and receive completion, the receives' order and bytes.  0, or -1 with
 * why in @why.
 */
static int exchange(int n, char *why, size_t len)
{
	int sent = 0, sdone = 0, rdone = 0, k;
	uint64_t deadline = now_ms() + WAIT_MS, base = next_done;
	struct ibv_wc wc;

	while (sdone < n || rdone < n) {
		if (sent < n && sent - sdone < 4) {
			uint64_t m = base + sent;
			unsigned int b = m % NBUF;
			struct ibv_sge sge = {
				(uintptr_t)buf.src[b], MSG, mr->lkey,
			};
			struct ibv_send_wr wr = {
				.wr_id = m, .sg_list = &sge, .num_sge = 1,
				.opcode = IBV_WR_SEND,
				.send_flags = IBV_SEND_SIGNALED,
			}, *bad;

			for (k = 0; k < MSG; k++)
				buf.src[b][k] = (unsigned char)(m * 131 + k * 7);
			if (ibv_post_send(sender, &wr, &bad)) {
				snprintf(why, len, "ibv_post_send %llu: %s",
					 (unsigned long long)m, strerror(errno));
				return -1;
			}
			sent++;
		}
		k = ibv_poll_cq(scq, 1, &wc);
		if (k > 0) {
			if (wc.status != IBV_WC_SUCCESS) {
				snprintf(why, len, "send %llu: %s",
					 (unsigned long long)wc.wr_id,
					 ibv_wc_status_str(wc.status));
				return -1;
			}
			sdone++;
		}
		k = ibv_poll_cq(rcq, 1, &wc);
		if (k > 0) {
			unsigned int b = wc.wr_id % NBUF;

			if (wc.status != IBV_WC_SUCCESS || wc.byte_len != MSG) {
				snprintf(why, len, "receive %llu: %s, %u bytes",
					 (unsigned long long)wc.wr_id,
					 ibv_wc_status_str(wc.status),
					 wc.byte_len);
				return -1;
			}
			if (wc.wr_id != next_done) {
				snprintf(why, len,
					 "receive %llu completed where %llu was next",
					 (unsigned long long)wc.wr_id,
					 (unsigned long long)next_done);
				return -1;
			}
			if (memcmp(buf.src[b], buf.dst[b], MSG)) {
				snprintf(why, len, "receive %llu: bytes differ",
					 (unsigned long long)wc.wr_id);
				return -1;
			}
			next_done++;
			rdone++;
		}
		if (k < 0) {
			snprintf(why, len, "ibv_poll_cq failed");
			return -1;
		}
		if (now_ms() > deadline) {
			snprintf(why, len, "%d of %d sends, %d receives after %d ms",
				 sdone, n, rdone, WAIT_MS);
			return -1;
		}
	}
	return 0;
}

static int resize(uint32_t max_wr)
{
	struct ibv_srq_attr a = { .max_wr = max_wr };

	return ibv_modify_srq(srq, &a, IBV_SRQ_MAX_WR);
}

static uint32_t srq_depth(void)
{
	struct ibv_srq_attr a = {};

	if (ibv_query_srq(srq, &a))
		die("ibv_query_srq");
	return a.max_wr;
}

static void test_grow(void)
{
	char why[160] = "";
	bool ok = false;
	int err;

	if ((err = post_recvs(6))) {
		snprintf(why, sizeof(why), "posting 6: %s", strerror(err));
	} else if (exchange(2, why, sizeof(why))) {
		;
	} else if ((err = resize(32))) {
		snprintf(why, sizeof(why), "resize to 32: %s", strerror(err));
	} else if (srq_depth() < 32) {
		snprintf(why, sizeof(why), "ibv_query_srq: max_wr %u < 32",
			 srq_depth());
	} else if ((err = post_recvs(26))) {
		snprintf(why, sizeof(why), "posting 26 more (30 posted): %s",
			 strerror(err));
	} else if (!exchange(30, why, sizeof(why))) {
		ok = true;
	}
	if (!ok)
		printf("# grow: %s\n", why);
	result(ok, "grow: 8 -> 32 with 4 receives posted; 30 complete in order, bytes checked");
}

static void test_shrink(void)
{
	char why[160] = "";
	bool ok = false;
	int err;

	if ((err = post_recvs(10))) {
		snprintf(why, sizeof(why), "posting 10: %s", strerror(err));
	} else if ((err = resize(4)) != EINVAL) {
		snprintf(why, sizeof(why),
			 "resize to 4 with 10 posted: %s, not EINVAL",
			 err ? strerror(err) : "taken");
	} else if (srq_depth() < 32) {
		snprintf(why, sizeof(why), "refused, yet max_wr is %u",
			 srq_depth());
	} else if (exchange(10, why, sizeof(why))) {
		;
	} else if ((err = resize(8))) {
		snprintf(why, sizeof(why), "resize to 8, none posted: %s",
			 strerror(err));
	} else if (srq_depth() != 8) {
		snprintf(why, sizeof(why), "max_wr %u after the resize to 8",
			 srq_depth());
	} else if ((err = post_recvs(8))) {
		snprintf(why, sizeof(why), "posting 8 at depth 8: %s",
			 strerror(err));
	} else if ((err = post_recvs(1)) != ENOMEM) {
		snprintf(why, sizeof(why), "a ninth receive at depth 8: %s",
			 err ? strerror(err) : "posted");
	} else if (!exchange(8, why, sizeof(why))) {
		ok = true;
	}
	if (!ok)
		printf("# shrink: %s\n", why);
	result(ok, "shrink: below the receives posted refused, the SRQ intact; to 8 when empty");
}

int main(int argc, char **argv)
{
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 8, .max_sge = 1 } };
	struct ibv_device_attr da;
	struct rc_conn c = { .mtu = IBV_MTU_1024, .timeout = 14,
			     .label = "srq_resize: " };
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4, .max_send_sge = 1 },
	};

	if (argc != 3) {
		fprintf(stderr, "usage: srq_resize DEV GID_INDEX\n");
		return 2;
	}
	ctx = open_dev(argv[1]);
	c.gid_index = atoi(argv[2]);
	query_gid(ctx, c.gid_index, &c.gid);
	if (ibv_query_device(ctx, &da))
		die("ibv_query_device");
	printf("TAP version 13\n1..3\n");
	result(da.device_cap_flags & IBV_DEVICE_SRQ_RESIZE,
	       "cap: the device says IBV_DEVICE_SRQ_RESIZE");
	pd = ibv_alloc_pd(ctx);
	scq = ibv_create_cq(ctx, 64, NULL, NULL, 0);
	rcq = ibv_create_cq(ctx, 64, NULL, NULL, 0);
	if (!pd || !scq || !rcq)
		die("ibv_alloc_pd/ibv_create_cq");
	mr = ibv_reg_mr(pd, &buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	if (!mr)
		die("ibv_reg_mr");
	srq = ibv_create_srq(pd, &sa);
	if (!srq)
		die("ibv_create_srq");
	qa.send_cq = qa.recv_cq = scq;
	sender = ibv_create_qp(pd, &qa);
	qa.send_cq = qa.recv_cq = rcq;
	qa.srq = srq;
	receiver = ibv_create_qp(pd, &qa);
	if (!sender || !receiver)
		die("ibv_create_qp");
	c.dest_qpn = receiver->qp_num;
	connect_rc(sender, &c);
	c.dest_qpn = sender->qp_num;
	connect_rc(receiver, &c);

	test_grow();
	test_shrink();

	if (ibv_destroy_qp(sender) || ibv_destroy_qp(receiver) ||
	    ibv_destroy_srq(srq) || ibv_dereg_mr(mr) ||
	    ibv_destroy_cq(scq) || ibv_destroy_cq(rcq) ||
	    ibv_dealloc_pd(pd) || ibv_close_device(ctx))
		die("teardown");
	return ktap_failed;
}

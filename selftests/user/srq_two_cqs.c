// SPDX-License-Identifier: GPL-2.0
/*
 * One SRQ shared by two receiving RC QPs whose receive CQs differ (A and
 * B), its CQEs polled out of order, as KTAP lines on stdout (exit status 1
 * if a case failed).  Two sending QPs, each connected to one receiver on
 * this device.  The adapter takes SRQ WQEs in ring order, so a round sends
 * groups to B and A in turn ([b1 a1 b2 a2] or [a1 b1 a2 b2], sizes drawn
 * at random, nearly the whole ring): each CQ then holds WQEs from between
 * the other's.  CQ B is polled fully, receives are posted again, then CQ A
 * is polled.
 *
 * The test keeps its own model of the SRQ: DEPTH receive buffers, and the
 * index of the receive posted with each and not yet completed (wr_id =
 * TAG | buffer << 24 | index).  Every receive completion must name such a
 * receive (so wr_id is the one it was posted with), carry the bytes of the
 * next message of that CQ's sender in its buffer, and free it.  Every post
 * must succeed while fewer than DEPTH receives are outstanding, and fail
 * with ENOMEM when DEPTH are, as max_wr says.  The adapter's tagged SRQ
 * (data-path.rst, "Queues and indices") is what lets the provider post
 * while the WQE that last used the slot at the producer index still waits
 * for its CQE on the other CQ; the rounds do that many times.
 *
 *   rounds     every completion's wr_id, QP, opcode, length and bytes
 *   posting    each post taken while fewer than max_wr are outstanding,
 *              also past a slot still waiting, else refused (ENOMEM)
 *   between    receives posted between the two CQs' polls, taken later
 *
 * Usage: srq_two_cqs DEV GID_INDEX
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "verbs_helpers.h"

#define DEPTH		64	/* a power of two: the SRQ is this deep */
#define MSG		128
#define ROUNDS		40
#define WAIT_MS		20000
#define TAG		0x5352513200000000ULL	/* "SRQ2" */
#define NONE		UINT64_MAX

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *scq, *rcq[2];
static struct ibv_srq *srq;
static struct ibv_qp *sender[2], *receiver[2];
static struct ibv_mr *mr;
static struct {				/* one MR */
	unsigned char src[2][DEPTH][MSG];	/* by sender, send in group */
	unsigned char dst[DEPTH][MSG];		/* by receive buffer */
} buf;

/*
 * The model: the index of the receive posted with each buffer and not
 * completed, or NONE.
 */
static uint64_t buf_idx[DEPTH];
static uint64_t pi;			/* receives posted: the SRQ's index */
static unsigned int outstanding;	/* receives posted, not completed */
static uint32_t sent[2], received[2];	/* messages per sender */
static unsigned int refusals, between, past_slot;
static char why[200];

static bool fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static bool fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	return false;
}

static unsigned char pattern(int s, uint32_t seq, int k)
{
	return (unsigned char)(s * 131 + seq * 31 + k * 7);
}

/* Is the receive of index @idx outstanding? */
static bool idx_outstanding(uint64_t idx)
{
	unsigned int b;

	for (b = 0; b < DEPTH; b++)
		if (buf_idx[b] == idx)
			return true;
	return false;
}

/*
 * Post receives while fewer than DEPTH are outstanding, then one more that
 * must be refused with ENOMEM.  @n: set to the number posted.
 */
static bool post_recvs(unsigned int *n)
{
	for (*n = 0;; (*n)++) {
		unsigned int b = 0;
		bool slot_waits = pi >= DEPTH && idx_outstanding(pi - DEPTH);
		struct ibv_sge sge = { 0, MSG, mr->lkey };
		struct ibv_recv_wr wr = {
			.sg_list = &sge, .num_sge = 1,
		}, *bad;
		int err;

		while (b < DEPTH && buf_idx[b] != NONE)
			b++;
		if (b < DEPTH) {
			memset(buf.dst[b], 0, MSG);
			sge.addr = (uintptr_t)buf.dst[b];
		}
		wr.wr_id = TAG | (uint64_t)(b % DEPTH) << 24 | pi;
		err = ibv_post_srq_recv(srq, &wr, &bad);
		if (b == DEPTH) {
			if (err != ENOMEM)
				return fail("receive %llu posted with %u outstanding (%s)",
					    (unsigned long long)pi, outstanding,
					    err ? strerror(err) : "taken");
			refusals++;
			return true;
		}
		if (err)
			return fail("receive %llu with %u of %u outstanding%s: %s",
				    (unsigned long long)pi, outstanding, DEPTH,
				    slot_waits ? ", its slot's last one among them" : "",
				    strerror(err));
		past_slot += slot_waits;
		buf_idx[b] = pi++;
		outstanding++;
	}
}

/* Send @n messages from sender @s; wait for their send completions. */
static bool send_group(int s, unsigned int n)
{
	uint64_t deadline = now_ms() + WAIT_MS;
	unsigned int i, done = 0;
	struct ibv_wc wc;
	int k;

	for (i = 0; i < n; i++) {
		uint32_t seq = sent[s] + i;
		unsigned char *b = buf.src[s][i];
		struct ibv_sge sge = { (uintptr_t)b, MSG, mr->lkey };
		struct ibv_send_wr wr = {
			.wr_id = (uint64_t)s << 32 | seq, .sg_list = &sge,
			.num_sge = 1, .opcode = IBV_WR_SEND,
			.send_flags = IBV_SEND_SIGNALED,
		}, *bad;

		memcpy(b, &wr.wr_id, 8);
		for (k = 8; k < MSG; k++)
			b[k] = pattern(s, seq, k);
		if (ibv_post_send(sender[s], &wr, &bad))
			return fail("ibv_post_send %c%u: %s", 'A' + s, seq,
				    strerror(errno));
	}
	while (done < n) {
		k = ibv_poll_cq(scq, 1, &wc);
		if (k < 0)
			return fail("ibv_poll_cq (sends): %d", k);
		if (!k) {
			if (now_ms() > deadline)
				return fail("%u of %u sends of %c in %d ms",
					    done, n, 'A' + s, WAIT_MS);
			continue;
		}
		if (wc.status != IBV_WC_SUCCESS)
			return fail("send %c: %s", 'A' + s,
				    ibv_wc_status_str(wc.status));
		if (wc.wr_id != ((uint64_t)s << 32 | (sent[s] + done)))
			return fail("send completion wr_id %#llx, expected %#llx",
				    (unsigned long long)wc.wr_id,
				    (unsigned long long)((uint64_t)s << 32 |
							 (sent[s] + done)));
		done++;
	}
	sent[s] += n;
	return true;
}

/* One receive completion of CQ @s, checked against the model. */
static bool check_recv(int s, const struct ibv_wc *wc)
{
	uint64_t idx = wc->wr_id & 0xffffffULL, got;
	unsigned int b = (wc->wr_id >> 24) & 0xff;
	uint32_t seq = received[s];
	int k;

	if (wc->status != IBV_WC_SUCCESS)
		return fail("CQ %c: %s (wr_id %#llx)", 'A' + s,
			    ibv_wc_status_str(wc->status),
			    (unsigned long long)wc->wr_id);
	if ((wc->wr_id & ~0xffffffffULL) != TAG || b >= DEPTH ||
	    buf_idx[b] != idx)
		return fail("CQ %c: wr_id %#llx was not posted, or has completed (buffer %u holds %#llx)",
			    'A' + s, (unsigned long long)wc->wr_id, b % DEPTH,
			    (unsigned long long)buf_idx[b % DEPTH]);
	if (wc->qp_num != receiver[s]->qp_num ||
	    wc->opcode != IBV_WC_RECV || wc->byte_len != MSG)
		return fail("CQ %c: receive %llu: QP %u (receiver %u), opcode %d, %u bytes",
			    'A' + s, (unsigned long long)idx, wc->qp_num,
			    receiver[s]->qp_num, wc->opcode, wc->byte_len);
	memcpy(&got, buf.dst[b], 8);
	if (got != ((uint64_t)s << 32 | seq))
		return fail("CQ %c: receive %llu holds message %#llx, expected %c%u",
			    'A' + s, (unsigned long long)idx,
			    (unsigned long long)got, 'A' + s, seq);
	for (k = 8; k < MSG; k++)
		if (buf.dst[b][k] != pattern(s, seq, k))
			return fail("CQ %c: receive %llu: byte %d differs",
				    'A' + s, (unsigned long long)idx, k);
	buf_idx[b] = NONE;
	outstanding--;
	received[s]++;
	return true;
}

/* Poll CQ @s until it gave @n receives, then check that it is empty. */
static bool poll_recvs(int s, unsigned int n)
{
	uint64_t deadline = now_ms() + WAIT_MS;
	unsigned int done = 0;
	struct ibv_wc wc[8];
	int k, i;

	while (done < n) {
		k = ibv_poll_cq(rcq[s], 8, wc);
		if (k < 0)
			return fail("ibv_poll_cq (CQ %c): %d", 'A' + s, k);
		if (!k && now_ms() > deadline)
			return fail("CQ %c: %u of %u receives in %d ms", 'A' + s,
				    done, n, WAIT_MS);
		for (i = 0; i < k; i++) {
			if (done == n)
				return fail("CQ %c: more than %u receives",
					    'A' + s, n);
			if (!check_recv(s, &wc[i]))
				return false;
			done++;
		}
	}
	k = ibv_poll_cq(rcq[s], 8, wc);
	if (k)
		return fail("CQ %c: %d completions after its %u", 'A' + s, k,
			    n);
	return true;
}

static bool round_trip(unsigned int seed)
{
	unsigned int g[4], total, n, i;
	int first = seed & 1;		/* 1: B's group first */

	if (!post_recvs(&n))
		return false;
	/* Nearly the whole ring, in four groups of 1 or more. */
	total = DEPTH - (seed >> 1) % 8;
	g[0] = 1 + (seed >> 4) % (total / 4);
	g[1] = 1 + (seed >> 9) % (total / 4);
	g[2] = 1 + (seed >> 14) % (total / 4);
	g[3] = total - g[0] - g[1] - g[2];
	for (i = 0; i < 4; i++)
		if (!send_group((i + first) % 2, g[i]))
			return false;
	/* Groups 0 and 2 went to B when first is 1, else 1 and 3. */
	if (!poll_recvs(1, first ? g[0] + g[2] : g[1] + g[3]))
		return false;
	/* B's receives are done: as many posted again, past A's. */
	if (!post_recvs(&n))
		return false;
	between += n;
	return poll_recvs(0, first ? g[1] + g[3] : g[0] + g[2]);
}

int main(int argc, char **argv)
{
	struct ibv_srq_init_attr sa = {
		.attr = { .max_wr = DEPTH, .max_sge = 1 },
	};
	struct rc_conn c = { .mtu = IBV_MTU_1024, .timeout = 14,
			     .label = "srq_two_cqs: " };
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = DEPTH, .max_send_sge = 1 },
	};
	unsigned int seed = 0x5eed, r, i;
	bool ok = true;

	if (argc != 3) {
		fprintf(stderr, "usage: srq_two_cqs DEV GID_INDEX\n");
		return 2;
	}
	ctx = open_dev(argv[1]);
	c.gid_index = atoi(argv[2]);
	query_gid(ctx, c.gid_index, &c.gid);
	pd = ibv_alloc_pd(ctx);
	scq = ibv_create_cq(ctx, 2 * DEPTH, NULL, NULL, 0);
	rcq[0] = ibv_create_cq(ctx, 2 * DEPTH, NULL, NULL, 0);
	rcq[1] = ibv_create_cq(ctx, 2 * DEPTH, NULL, NULL, 0);
	if (!pd || !scq || !rcq[0] || !rcq[1])
		die("ibv_alloc_pd/ibv_create_cq");
	mr = ibv_reg_mr(pd, &buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	if (!mr)
		die("ibv_reg_mr");
	srq = ibv_create_srq(pd, &sa);
	if (!srq)
		die("ibv_create_srq");
	if (sa.attr.max_wr != DEPTH)
		die_err("ibv_create_srq: not DEPTH deep", EINVAL);
	for (i = 0; i < 2; i++) {
		qa.send_cq = qa.recv_cq = scq;
		qa.srq = NULL;
		sender[i] = ibv_create_qp(pd, &qa);
		qa.recv_cq = rcq[i];
		qa.srq = srq;
		receiver[i] = ibv_create_qp(pd, &qa);
		if (!sender[i] || !receiver[i])
			die("ibv_create_qp");
		c.dest_qpn = receiver[i]->qp_num;
		connect_rc(sender[i], &c);
		c.dest_qpn = sender[i]->qp_num;
		connect_rc(receiver[i], &c);
	}
	for (i = 0; i < DEPTH; i++)
		buf_idx[i] = NONE;

	printf("TAP version 13\n1..3\n");
	for (r = 0; ok && r < ROUNDS; r++) {
		seed = seed * 1103515245 + 12345;
		ok = round_trip(seed >> 8);
	}
	if (!ok)
		printf("# round %u: %s\n", r - 1, why);
	printf("# %u rounds, %u + %u messages, %llu receives posted (%u while their slot's last receive waited), %u refused, %u posted between the CQs' polls\n",
	       r, sent[0], sent[1], (unsigned long long)pi, past_slot,
	       refusals, between);
	result(ok, "rounds: CQ B polled before CQ A, every wr_id, QP and byte checked");
	result(ok && refusals >= ROUNDS && past_slot > 0,
	       "posting: taken while fewer than max_wr are outstanding, also past a waiting slot, else ENOMEM");
	result(ok && between > 0,
	       "between: receives posted after CQ B's poll, before CQ A's");

	for (i = 0; i < 2; i++)
		if (ibv_destroy_qp(sender[i]) || ibv_destroy_qp(receiver[i]))
			die("ibv_destroy_qp");
	if (ibv_destroy_srq(srq) || ibv_dereg_mr(mr) ||
	    ibv_destroy_cq(scq) || ibv_destroy_cq(rcq[0]) ||
	    ibv_destroy_cq(rcq[1]) || ibv_dealloc_pd(pd) ||
	    ibv_close_device(ctx))
		die("teardown");
	return ktap_failed;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * CQ event moderation through libibverbs (ibv_modify_cq, which the
 * provider passes to the kernel's uverbs modify_cq and the driver to the
 * adapter's MODIFY_CQ):
 *
 *   cq_moderation DEV GID_INDEX
 *
 * The device must report moderation limits (ibv_query_device_ex); one
 * above either is refused with EINVAL.  Then two RC QPs of DEV connected
 * through its own GID: A sends 64 messages of 64 bytes to B in batches of
 * 4, each batch's send completions awaited, and any event taken within a
 * millisecond (events reach userspace later than the kernel's handler).  B's CQ has a completion
 * channel and moderation count 16 with the longest period; the program
 * consumes events as an event-driven consumer does (get the event, poll
 * everything, re-arm, poll again).  Without moderation every batch brings
 * an event; with it one comes per 16 CQEs.  Every receive's bytes are
 * checked.  Prints "cq_moderation: N CQEs, E events" and exits 0 when all
 * 64 arrived with 1 <= E <= 64 / 16 + 1.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "verbs_helpers.h"

#define MSGS		64
#define LEN		64
#define COUNT		16
#define BATCH		4
#define WAIT_MS		20000

struct mod {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_comp_channel *ch;
	struct ibv_cq *cqa, *cqb;
	struct ibv_qp *a, *b;
	struct ibv_mr *src_mr, *dst_mr;
	unsigned char src[MSGS * LEN], dst[MSGS * LEN];
	union ibv_gid gid;
	int gid_index;
	int polled, events;
};

static unsigned char fill(int msg, int i)
{
	return (unsigned char)(msg * 31 + i * 7 + 1);
}

static int modify(struct ibv_cq *cq, unsigned int count, unsigned int period)
{
	struct ibv_modify_cq_attr attr = {
		.attr_mask = IBV_CQ_ATTR_MODERATE,
		.moderate = { .cq_count = count, .cq_period = period },
	};

	return ibv_modify_cq(cq, &attr);
}

/* Every CQE B's CQ has: receives in order, each message's bytes. */
static void drain(struct mod *m)
{
	struct ibv_wc wc;
	int r, i;

	while ((r = ibv_poll_cq(m->cqb, 1, &wc)) > 0) {
		if (wc.status != IBV_WC_SUCCESS || wc.opcode != IBV_WC_RECV ||
		    wc.wr_id != (uint64_t)m->polled || wc.byte_len != LEN) {
			fprintf(stderr, "cq_moderation: receive %d: %s wr_id %llu len %u\n",
				m->polled, ibv_wc_status_str(wc.status),
				(unsigned long long)wc.wr_id, wc.byte_len);
			exit(1);
		}
		for (i = 0; i < LEN; i++)
			if (m->dst[m->polled * LEN + i] != fill(m->polled, i)) {
				fprintf(stderr, "cq_moderation: message %d byte %d\n",
					m->polled, i);
				exit(1);
			}
		m->polled++;
	}
	if (r < 0)
		die_err("ibv_poll_cq B", EIO);
}

/* The consumer's answer to an event: poll, re-arm, poll what raced. */
static void consume(struct mod *m)
{
	drain(m);
	if (ibv_req_notify_cq(m->cqb, 0))
		die("ibv_req_notify_cq");
	drain(m);
}

/* Takes the channel's events; false if none came within @ms. */
static bool take_events(struct mod *m, int ms)
{
	struct pollfd pfd = { .fd = m->ch->fd, .events = POLLIN };
	struct ibv_cq *cq;
	void *cq_ctx;
	bool got = false;

	if (poll(&pfd, 1, ms) <= 0)
		return false;
	while (!ibv_get_cq_event(m->ch, &cq, &cq_ctx)) {
		ibv_ack_cq_events(cq, 1);
		m->events++;
		got = true;
	}
	return got;
}

static void send_batch(struct mod *m, int first)
{
	struct ibv_wc wc;
	int i, done = 0, r;

	for (i = first; i < first + BATCH; i++) {
		struct ibv_sge sge = {
			.addr = (uintptr_t)&m->src[i * LEN],
			.length = LEN,
			.lkey = m->src_mr->lkey,
		};
		struct ibv_send_wr wr = {
			.wr_id = i, .sg_list = &sge, .num_sge = 1,
			.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
		}, *bad;

		if (ibv_post_send(m->a, &wr, &bad))
			die("ibv_post_send");
	}
	while (done < BATCH) {
		r = ibv_poll_cq(m->cqa, 1, &wc);
		if (r < 0)
			die_err("ibv_poll_cq A", EIO);
		if (r && wc.status != IBV_WC_SUCCESS)
			die_err("send completion", EIO);
		done += r;
	}
}

int main(int argc, char **argv)
{
	struct ibv_device_attr_ex ax = {};
	struct ibv_cq_moderation_caps caps;
	static struct mod m;
	struct rc_conn conn;
	int i, err, flags;

	if (argc != 3) {
		fprintf(stderr, "usage: cq_moderation DEV GID_INDEX\n");
		return 2;
	}
	m.ctx = open_dev(argv[1]);
	m.gid_index = atoi(argv[2]);
	query_gid(m.ctx, m.gid_index, &m.gid);
	err = ibv_query_device_ex(m.ctx, NULL, &ax);
	if (err)
		die_err("ibv_query_device_ex", err);
	caps = ax.cq_mod_caps;
	printf("cq_moderation: caps count %u period %u us\n",
	       caps.max_cq_count, caps.max_cq_period);
	if (caps.max_cq_count < COUNT || !caps.max_cq_period)
		die_err("no CQ moderation caps", EOPNOTSUPP);

	m.pd = ibv_alloc_pd(m.ctx);
	m.ch = ibv_create_comp_channel(m.ctx);
	if (!m.pd || !m.ch)
		die("ibv_alloc_pd/ibv_create_comp_channel");
	flags = fcntl(m.ch->fd, F_GETFL);
	if (fcntl(m.ch->fd, F_SETFL, flags | O_NONBLOCK))
		die("O_NONBLOCK");
	m.cqa = ibv_create_cq(m.ctx, 2 * MSGS, NULL, NULL, 0);
	m.cqb = ibv_create_cq(m.ctx, 2 * MSGS, NULL, m.ch, 0);
	if (!m.cqa || !m.cqb)
		die("ibv_create_cq");
	m.a = create_rc_qp(m.pd, m.cqa, MSGS, MSGS);
	m.b = create_rc_qp(m.pd, m.cqb, MSGS, MSGS);
	/* Through the device's own GID. */
	conn = (struct rc_conn){
		.gid = m.gid, .gid_index = m.gid_index, .sq_psn = 100,
		.rq_psn = 100, .mtu = IBV_MTU_1024, .timeout = 18,
	};
	conn.dest_qpn = m.b->qp_num;
	connect_rc(m.a, &conn);
	conn.dest_qpn = m.a->qp_num;
	connect_rc(m.b, &conn);
	for (i = 0; i < MSGS * LEN; i++)
		m.src[i] = fill(i / LEN, i % LEN);
	memset(m.dst, 0xa5, sizeof(m.dst));
	m.src_mr = ibv_reg_mr(m.pd, m.src, sizeof(m.src), 0);
	m.dst_mr = ibv_reg_mr(m.pd, m.dst, sizeof(m.dst),
			      IBV_ACCESS_LOCAL_WRITE);
	if (!m.src_mr || !m.dst_mr)
		die("ibv_reg_mr");

	/* The limits hold; then count 16 with the longest period. */
	err = modify(m.cqb, caps.max_cq_count + 1, 1);
	if (err != EINVAL)
		die_err("count above the limit not refused", err ? err : EPERM);
	err = modify(m.cqb, 1, caps.max_cq_period + 1);
	if (err != EINVAL)
		die_err("period above the limit not refused", err ? err : EPERM);
	err = modify(m.cqb, COUNT, caps.max_cq_period);
	if (err)
		die_err("ibv_modify_cq", err);

	for (i = 0; i < MSGS; i++) {
		struct ibv_sge sge = {
			.addr = (uintptr_t)&m.dst[i * LEN],
			.length = LEN,
			.lkey = m.dst_mr->lkey,
		};
		struct ibv_recv_wr wr = {
			.wr_id = i, .sg_list = &sge, .num_sge = 1,
		}, *bad;

		if (ibv_post_recv(m.b, &wr, &bad))
			die("ibv_post_recv");
	}
	if (ibv_req_notify_cq(m.cqb, 0))
		die("ibv_req_notify_cq");
	for (i = 0; i < MSGS; i += BATCH) {
		send_batch(&m, i);
		if (take_events(&m, 1))
			consume(&m);
	}
	while (m.polled < MSGS) {
		if (!take_events(&m, WAIT_MS)) {
			fprintf(stderr, "cq_moderation: no event for the last %d CQEs\n",
				MSGS - m.polled);
			break;
		}
		consume(&m);
	}
	printf("cq_moderation: %d CQEs, %d events, count %d\n", m.polled,
	       m.events, COUNT);

	err = modify(m.cqb, 0, 0);
	if (err)
		die_err("moderation off", err);
	ibv_destroy_qp(m.a);
	ibv_destroy_qp(m.b);
	ibv_destroy_cq(m.cqa);
	ibv_destroy_cq(m.cqb);
	ibv_destroy_comp_channel(m.ch);
	ibv_dereg_mr(m.src_mr);
	ibv_dereg_mr(m.dst_mr);
	ibv_dealloc_pd(m.pd);
	ibv_close_device(m.ctx);
	return m.polled == MSGS && m.events >= 1 &&
	       m.events <= MSGS / COUNT + 1 ? 0 : 1;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The RoCEv2 transport end to end: two adapters (engines with fake hosts)
 * connected back to back by an in-process wire, or one adapter talking to
 * itself over its internal loopback, driven through their real command
 * queues, doorbell records, UAR doorbells, WQEs and CQEs.  Every byte moved
 * is verified; errors must surface as the right CQE status; 5% frame loss
 * must be repaired by retransmission.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ktap.h"
#include "roce_node.h"

#define WAIT_MS		10000
#define IOVA_A		0x7f0000001000ull
#define IOVA_B		0x7e0000000800ull	/* not page aligned */
#define BUF_LEN		(1u << 20)

struct pair {
	struct node a, b;		/* b == a for loopback */
	struct node *na, *nb;
	struct tcq acq, bcq;
	struct tqp aqp, bqp;
	struct tbuf abuf, bbuf;
};

static const uint32_t all_access = ORCA_QP_ACCESS_ALL;

static bool pair_init_to(struct pair *p, bool loopback, unsigned int loss,
			 uint8_t mtu, uint8_t timeout)
{
	struct rc_opts o = {
		.path_mtu = mtu, .timeout = timeout, .retry_cnt = 7,
		.rnr_retry = 7, .min_rnr_timer = 1,
		.access = all_access,
	};

	memset(p, 0, sizeof(*p));
	p->na = &p->a;
	p->nb = loopback ? &p->a : &p->b;
	if (!node_init(p->na, 1))
		return false;
	if (!loopback) {
		if (!node_init(p->nb, 2))
			return false;
		p->na->peer = p->nb;
		p->nb->peer = p->na;
	}
	p->na->loss_pct = p->nb->loss_pct = loss;
	return node_cq(p->na, &p->acq, 10) && node_cq(p->nb, &p->bcq, 10) &&
	       node_buf(p->na, &p->abuf, IOVA_A, BUF_LEN + 4096, all_access) &&
	       node_buf(p->nb, &p->bbuf, IOVA_B, BUF_LEN + 4096, all_access) &&
	       node_qp(p->na, &p->aqp, ORCA_QPT_RC, &p->acq, &p->acq) &&
	       node_qp(p->nb, &p->bqp, ORCA_QPT_RC, &p->bcq, &p->bcq) &&
	       node_connect(p->na, &p->aqp, p->nb, p->bqp.qpn, &o) &&
	       node_connect(p->nb, &p->bqp, p->na, p->aqp.qpn, &o);
}

static bool pair_init(struct pair *p, bool loopback, unsigned int loss,
		      uint8_t mtu)
{
	return pair_init_to(p, loopback, loss, mtu, 14);
}

static void dump_qps(struct node *n, const char *who);

/* Tears down; first, after a failure, shows both transports' state. */
static void pair_fini(struct pair *p)
{
	if (ktap_case_failures) {
		dump_qps(p->na, "A");
		if (p->nb != p->na)
			dump_qps(p->nb, "B");
	}
	engine_set_roce_tx(p->na->t.eng, NULL, NULL);
	if (p->nb != p->na) {
		engine_set_roce_tx(p->nb->t.eng, NULL, NULL);
		node_fini(p->nb);
	}
	node_fini(p->na);
	free(p->abuf.pages);
	free(p->bbuf.pages);
}

static struct roce_stats stats(struct node *n)
{
	struct roce_stats st;

	engine_flush(n->t.eng);
	roce_get_stats(n->t.eng, &st);
	return st;
}

static void dump_qps(struct node *n, const char *who)
{
	for (struct roce_qp *rq = n->t.eng->roce->qps; rq; rq = rq->next)
		printf("# %s qp %u st %u: una %x max_sent %x snd %x head %u "
		       "next %u started %u fetched %u off %u retry %u | "
		       "epsn %x nak_sent %d rcv %d wr %d jobs %u ack %d\n",
		       who, rq->qp->qpn, rq->qp->state, rq->una_psn,
		       rq->max_sent_psn, rq->snd_psn, rq->sq_head, rq->sq_next,
		       rq->sq_started, rq->sq_fetched, rq->next_off,
		       rq->retry_left, rq->epsn, rq->nak_seq_sent,
		       rq->rcv_active, rq->wr_active,
		       rq->job_tail - rq->job_head, rq->ack_pending);
	{
		struct roce_stats st;
		struct roce_rx_drops *d = &n->t.eng->roce->drops;

		roce_get_stats(n->t.eng, &st);
		printf("# %s rxq_full %llu no_qp %llu state %llu bad %llu "
		       "ghost %llu rnr_tx %llu seq_tx %llu err_tx %llu "
		       "err_rx %llu icrc %llu\n", who,
		       (unsigned long long)st.rxq_full,
		       (unsigned long long)st.drop_no_qp,
		       (unsigned long long)st.drop_state,
		       (unsigned long long)st.drop_bad_pkt,
		       (unsigned long long)st.drop_ghost,
		       (unsigned long long)st.rnr_naks_tx,
		       (unsigned long long)st.seq_naks_tx,
		       (unsigned long long)st.err_naks_tx,
		       (unsigned long long)st.err_naks_rx,
		       (unsigned long long)d->err[ROCE_RX_BAD_ICRC]);
	}
}

/* Polls one CQE and checks the essentials. */
static bool expect_cqe(struct node *n, struct tcq *cq, uint64_t wr_id,
		       uint8_t opcode, uint8_t status, struct orca_cqe *out)
{
	if (out)
		memset(out, 0, sizeof(*out));
	return node_expect_cqe(n, cq, wr_id, opcode, status, out, WAIT_MS);
}

static const uint32_t sizes[] = {
	0, 1, 255, 256, 1023, 1024, 1025, 2048, 4095, 4096, 4097, 12345,
	65536, 262144 + 3, BUF_LEN,
};

/*
 * Each transfer of a run its own seed, and no two runs share one: data a
 * transfer left behind never passes for the next one's.
 */
static uint32_t xfer_seed(uint32_t run, size_t i)
{
	return run << 8 | (uint32_t)i;
}

/* SEND: a receive WQE of two SGEs takes each size; every byte checked. */
static bool do_sends(struct pair *p, uint32_t seed)
{
	bool ok = true;

	for (size_t i = 0; i < ARRAY_SIZE_T(sizes); i++) {
		uint32_t len = sizes[i], half = len / 2;
		struct orca_send_wqe_hdr h = wqe(ORCA_WQE_SEND, 100 + i);
		struct tsge s = { IOVA_A + 17, len, p->abuf.key };
		struct tsge r[2] = {
			{ IOVA_B + 5, half, p->bbuf.key },
			{ IOVA_B + 5 + half + 100, len - half + 8, p->bbuf.key },
		};
		struct orca_cqe c;

		buf_fill(p->na, &p->abuf, 17, len, xfer_seed(seed, i));
		post_recv(p->nb, &p->bqp, 500 + i, r, 2);
		post_send(p->na, &p->aqp, &h, &s, 1);
		ok &= expect_cqe(p->na, &p->acq, 100 + i, ORCA_CQE_SEND,
				 ORCA_CQE_ST_SUCCESS, &c);
		ok &= le32toh(c.byte_len) == len;	/* bytes sent, as rxe */
		ok &= expect_cqe(p->nb, &p->bcq, 500 + i, ORCA_CQE_RECV,
				 ORCA_CQE_ST_SUCCESS, &c);
		ok &= le32toh(c.byte_len) == len;
		/* The halves land where the two SGEs point. */
		for (uint32_t k = 0; k < len; k++) {
			uint64_t off = k < half ? 5 + k : 5 + half + 100 +
							    (k - half);
			uint8_t want = *node_va(p->na, &p->abuf, 17 + k);

			if (*node_va(p->nb, &p->bbuf, off) != want) {
				printf("# send %u: byte %u differs\n", len, k);
				ok = false;
				break;
			}
		}
		if (!ok) {
			printf("# send of %u bytes failed\n", len);
			break;
		}
	}
	return ok;
}

static bool do_writes(struct pair *p, uint32_t seed, bool imm)
{
	bool ok = true;

	for (size_t i = 0; i < ARRAY_SIZE_T(sizes); i++) {
		uint32_t len = sizes[i];
		struct orca_send_wqe_hdr h = wqe(imm ? ORCA_WQE_RDMA_WRITE_IMM :
						 ORCA_WQE_RDMA_WRITE, 200 + i);
		struct tsge s = { IOVA_A + 3, len, p->abuf.key };
		struct orca_cqe c;

		buf_fill(p->na, &p->abuf, 3, len, xfer_seed(seed, i));
		h.remote_addr = htole64(IOVA_B + 40);
		h.rkey = htole32(p->bbuf.key);
		h.imm_or_inv = htole32(0x11223344 + i);
		if (imm)
			post_recv(p->nb, &p->bqp, 600 + i, NULL, 0);
		post_send(p->na, &p->aqp, &h, &s, 1);
		ok &= expect_cqe(p->na, &p->acq, 200 + i, ORCA_CQE_RDMA_WRITE,
				 ORCA_CQE_ST_SUCCESS, &c);
		ok &= le32toh(c.byte_len) == len;	/* bytes written */
		if (imm) {
			ok &= expect_cqe(p->nb, &p->bcq, 600 + i,
					 ORCA_CQE_RECV_RDMA_WITH_IMM,
					 ORCA_CQE_ST_SUCCESS, &c);
			ok &= le32toh(c.byte_len) == len &&
			      (c.flags & ORCA_CQE_F_IMM) &&
			      c.imm_or_inv == htole32(0x11223344 + i);
		} else {
			/* No CQE on the target: wait for the data. */
			engine_flush(p->nb->t.eng);
		}
		ok &= buf_check(p->nb, &p->bbuf, 40, len, xfer_seed(seed, i));
		if (!ok) {
			printf("# write%s of %u bytes failed\n",
			       imm ? "_imm" : "", len);
			break;
		}
	}
	return ok;
}

static bool do_reads(struct pair *p, uint32_t seed)
{
	bool ok = true;

	for (size_t i = 0; i < ARRAY_SIZE_T(sizes); i++) {
		uint32_t len = sizes[i];
		struct orca_send_wqe_hdr h = wqe(ORCA_WQE_RDMA_READ, 300 + i);
		struct tsge s[2] = {
			{ IOVA_A + 1, len / 3, p->abuf.key },
			{ IOVA_A + 1 + len / 3, len - len / 3, p->abuf.key },
		};
		struct orca_cqe c;

		buf_fill(p->nb, &p->bbuf, 9, len, xfer_seed(seed, i));
		h.remote_addr = htole64(IOVA_B + 9);
		h.rkey = htole32(p->bbuf.key);
		post_send(p->na, &p->aqp, &h, s, 2);
		ok &= expect_cqe(p->na, &p->acq, 300 + i, ORCA_CQE_RDMA_READ,
				 ORCA_CQE_ST_SUCCESS, &c);
		/* ibv_poll_cq(3): a READ's byte_len is the bytes read. */
		if (le32toh(c.byte_len) != len) {
			printf("# read %u: byte_len %u\n", len,
			       le32toh(c.byte_len));
			ok = false;
		}
		/* Compare what landed at A with B's source bytes. */
		for (uint32_t k = 0; k < len && ok; k++)
			if (*node_va(p->na, &p->abuf, 1 + k) !=
			    *node_va(p->nb, &p->bbuf, 9 + k)) {
				printf("# read %u: byte %u differs\n", len, k);
				ok = false;
			}
		if (!ok)
			break;
	}
	return ok;
}

static bool do_atomics(struct pair *p)
{
	uint64_t *target = (uint64_t *)node_va(p->nb, &p->bbuf, 64);
	uint64_t *result = (uint64_t *)node_va(p->na, &p->abuf, 128);
	struct tsge s = { IOVA_A + 128, 8, p->abuf.key };
	struct orca_send_wqe_hdr h;
	struct orca_cqe c;
	bool ok = true;

	/* IOVA_B + 64 is 8-byte aligned. */
	*target = htole64(1000);
	h = wqe(ORCA_WQE_ATOMIC_FA, 400);
	h.remote_addr = htole64(IOVA_B + 64);
	h.rkey = htole32(p->bbuf.key);
	h.compare_add = htole64(234);
	post_send(p->na, &p->aqp, &h, &s, 1);
	ok &= expect_cqe(p->na, &p->acq, 400, ORCA_CQE_FETCH_ADD,
			 ORCA_CQE_ST_SUCCESS, &c);
	ok &= le32toh(c.byte_len) == 8;		/* ibv_poll_cq(3) */
	ok &= le64toh(*result) == 1000 && le64toh(*target) == 1234;

	h = wqe(ORCA_WQE_ATOMIC_CS, 401);	/* compare fails */
	h.remote_addr = htole64(IOVA_B + 64);
	h.rkey = htole32(p->bbuf.key);
	h.compare_add = htole64(1);
	h.swap = htole64(77);
	post_send(p->na, &p->aqp, &h, &s, 1);
	ok &= expect_cqe(p->na, &p->acq, 401, ORCA_CQE_COMP_SWAP,
			 ORCA_CQE_ST_SUCCESS, &c);
	ok &= le32toh(c.byte_len) == 8;		/* ibv_poll_cq(3) */
	ok &= le64toh(*result) == 1234 && le64toh(*target) == 1234;

	h.compare_add = htole64(1234);		/* compare succeeds */
	h.wr_id_lo = htole32(402);
	post_send(p->na, &p->aqp, &h, &s, 1);
	ok &= expect_cqe(p->na, &p->acq, 402, ORCA_CQE_COMP_SWAP,
			 ORCA_CQE_ST_SUCCESS, &c);
	ok &= le32toh(c.byte_len) == 8;		/* ibv_poll_cq(3) */
	ok &= le64toh(*result) == 1234 && le64toh(*target) == 77;
	return ok;
}

/* The counters the driver reads: QUERY_STATS. */
static bool query_port_stats(struct node *n, struct orca_port_stats *ps)
{
	struct orca_cmd_query_port q = { .port = 1 };
	uint64_t out = galloc(&n->t, 4096, 0);
	struct tcmd c = {
		.opcode = ORCA_CMD_QUERY_STATS, .in = &q,
		.in_size = sizeof(q), .out_addr = out,
		.out_len = sizeof(struct orca_port_stats),
	};

	if (th_exec(&n->t, &c) != ORCA_CMD_ST_OK)
		return false;
	memcpy(ps, gptr(&n->t, out), sizeof(*ps));
	return true;
}

/*
 * The PMA's counters (1.4): the octets of every frame, Ethernet header to
 * ICRC, at least the smallest RoCEv2 frame (58 bytes) each; on a lossless
 * wire what one adapter sent is what the other received, to the byte; no
 * multicast frame among them.  In loopback the adapter receives all it sent.
 */
static bool check_traffic_counters(struct pair *p, bool loopback)
{
	struct orca_port_stats a, b;
	int tries = 0;
	bool ok;

	/* The last ACKs may still be on the wire: wait for it to settle. */
	do {
		if (tries)
			usleep(5000);
		if (!query_port_stats(p->na, &a) ||
		    !query_port_stats(p->nb, &b))
			return false;
	} while (++tries < 200 &&
		 (a.tx_bytes != b.rx_bytes || b.tx_bytes != a.rx_bytes));
	ok = le64toh(a.tx_packets) > 0 &&
	     le64toh(a.tx_bytes) >= 58 * le64toh(a.tx_packets) &&
	     le64toh(a.rx_bytes) >= 58 * le64toh(a.rx_packets) &&
	     !a.tx_mcast_packets && !a.rx_mcast_packets;
	if (loopback)
		return ok && a.tx_bytes == a.rx_bytes &&
		       a.tx_packets == a.rx_packets;
	printf("# A sent %llu frames, %llu bytes; B sent %llu, %llu bytes\n",
	       (unsigned long long)le64toh(a.tx_packets),
	       (unsigned long long)le64toh(a.tx_bytes),
	       (unsigned long long)le64toh(b.tx_packets),
	       (unsigned long long)le64toh(b.tx_bytes));
	/* Frames the receiving engine's queue refused never count. */
	if (stats(p->na).rxq_full || stats(p->nb).rxq_full)
		return ok && le64toh(b.rx_bytes) <= le64toh(a.tx_bytes) &&
		       le64toh(a.rx_bytes) <= le64toh(b.tx_bytes) &&
		       le64toh(b.rx_bytes) > 0 && le64toh(a.rx_bytes) > 0;
	return ok && a.tx_bytes == b.rx_bytes && b.tx_bytes == a.rx_bytes &&
	       a.tx_packets == b.rx_packets && b.tx_packets == a.rx_packets;
}

static void test_rc_ops(bool loopback, uint8_t mtu, const char *name)
{
	struct pair p;

	if (!pair_init(&p, loopback, 0, mtu)) {
		CHECK(!"setup");
		ktap_case_end("%s", name);
		return;
	}
	CHECK(do_sends(&p, 1));
	CHECK(do_writes(&p, 2, false));
	CHECK(do_writes(&p, 3, true));
	CHECK(do_reads(&p, 4));
	CHECK(do_atomics(&p));
	CHECK(check_traffic_counters(&p, loopback));
	if (loopback) {
		struct roce_stats st = stats(p.na);

		CHECK(st.loopback > 0 && st.tx_no_port == 0);
		CHECK(atomic_load(&p.na->sent) == 0);	/* never the wire */
	}
	pair_fini(&p);
	ktap_case_end("%s", name);
}

static void test_loss(void)
{
	struct pair p;
	struct roce_stats sa, sb;

	if (!pair_init(&p, false, 5, 3)) {
		CHECK(!"setup");
		ktap_case_end("rc_5pct_loss_retransmits");
		return;
	}
	CHECK(do_sends(&p, 11));
	CHECK(do_writes(&p, 12, true));
	CHECK(do_reads(&p, 13));
	CHECK(do_atomics(&p));
	sa = stats(p.na);
	sb = stats(p.nb);
	printf("# dropped %lu+%lu of %lu+%lu frames; retransmits %llu+%llu, "
	       "timeouts %llu+%llu, seq NAKs %llu, dup requests %llu\n",
	       atomic_load(&p.na->dropped), atomic_load(&p.nb->dropped),
	       atomic_load(&p.na->sent), atomic_load(&p.nb->sent),
	       (unsigned long long)sa.retransmits,
	       (unsigned long long)sb.retransmits,
	       (unsigned long long)sa.timeouts,
	       (unsigned long long)sb.timeouts,
	       (unsigned long long)sb.seq_naks_tx,
	       (unsigned long long)sb.dup_requests);
	CHECK(atomic_load(&p.na->dropped) > 0);
	CHECK(sa.retransmits > 0);
	/* The driver sees the same counters through QUERY_STATS. */
	{
		struct orca_cmd_query_port q = { .port = 1 };
		uint64_t out = galloc(&p.na->t, 4096, 0);
		struct tcmd c = {
			.opcode = ORCA_CMD_QUERY_STATS, .in = &q,
			.in_size = sizeof(q), .out_addr = out,
			.out_len = sizeof(struct orca_port_stats),
		};
		struct orca_port_stats ps;

		CHECK(th_exec(&p.na->t, &c) == ORCA_CMD_ST_OK);
		memcpy(&ps, gptr(&p.na->t, out), sizeof(ps));
		CHECK(le64toh(ps.retransmits) >= sa.retransmits);
		CHECK(le64toh(ps.tx_packets) > 0 && le64toh(ps.rx_packets) > 0);
	}
	pair_fini(&p);
	ktap_case_end("rc_5pct_loss_retransmits");
}

/* A bad rkey and an out-of-bounds write fail with REM_ACCESS_ERR. */
/*
 * A wire that also reorders: 5% of the frames are held back and sent after
 * the next one (then still subject to the node's loss).  Runs on the
 * sending engine's thread only, so it needs no lock.
 */
struct reorder {
	struct node *n;
	uint64_t rng;
	bool held;
	size_t len;
	uint8_t frame[ROCE_MAX_FRAME];
};

static void reorder_tx(void *ctx, const uint8_t *frame, size_t len)
{
	struct reorder *r = ctx;

	r->rng ^= r->rng << 13;
	r->rng ^= r->rng >> 7;
	r->rng ^= r->rng << 17;
	if (!r->held && len <= sizeof(r->frame) && r->rng % 100 < 5) {
		memcpy(r->frame, frame, len);
		r->len = len;
		r->held = true;
		return;
	}
	node_tx(r->n, frame, len);
	if (r->held) {
		r->held = false;
		node_tx(r->n, r->frame, r->len);
	}
}

/*
 * What NVMe-oF over rdma_cm does on a lossy wire: 128 KiB READs (~128
 * response packets at MTU 1024) and WRITEs, several outstanding, with the
 * QP timeout rdma_cm uses on RoCE (~1 s) and retry_cnt 7.  A lost packet
 * must be repaired by the gap/NAK machinery, not the slow timer, and the
 * retry budget must survive it: every WQE succeeds, quickly.
 */
#define LOSSY_LEN	(128u << 10)
#define LOSSY_DEPTH	4
#define LOSSY_ROUNDS	6

static void test_lossy_128k(void)
{
	static struct reorder ra, rb;
	struct pair p;
	struct roce_stats sa, sb;
	uint64_t t0, ms;
	bool ok = true;

	if (!pair_init_to(&p, false, 5, 3, 18)) {
		CHECK(!"setup");
		ktap_case_end("rc_128k_read_write_5pct_loss_reorder_cm_timeout");
		return;
	}
	ra = (struct reorder){ .n = p.na, .rng = 0x9e3779b97f4a7c15ull };
	rb = (struct reorder){ .n = p.nb, .rng = 0xc2b2ae3d27d4eb4full };
	engine_set_roce_tx(p.na->t.eng, reorder_tx, &ra);
	engine_set_roce_tx(p.nb->t.eng, reorder_tx, &rb);
	t0 = now_ms();
	for (unsigned int round = 0; round < LOSSY_ROUNDS && ok; round++) {
		/*
		 * Odd rounds post the READs back to back, as nvmet does, so
		 * several are outstanding at once; even rounds interleave.
		 */
		bool reads_first = round & 1;
		uint64_t order[2 * LOSSY_DEPTH];
		unsigned int n = 0;

		for (unsigned int i = 0; i < LOSSY_DEPTH; i++) {
			buf_fill(p.nb, &p.bbuf, (uint64_t)i * LOSSY_LEN,
				 LOSSY_LEN, round * 8 + i);
			buf_fill(p.na, &p.abuf, (uint64_t)i * LOSSY_LEN,
				 LOSSY_LEN, round * 8 + i + 100);
		}
		for (unsigned int k = 0; k < 2 * LOSSY_DEPTH; k++) {
			unsigned int i = reads_first ? k % LOSSY_DEPTH : k / 2;
			bool rd = reads_first ? k < LOSSY_DEPTH : !(k & 1);
			uint64_t off = (uint64_t)i * LOSSY_LEN;
			struct orca_send_wqe_hdr h;
			struct tsge sg = { IOVA_A + off, LOSSY_LEN, p.abuf.key };

			if (rd) {
				h = wqe(ORCA_WQE_RDMA_READ, 2 * i);
				sg.addr += BUF_LEN / 2;
				h.remote_addr = htole64(IOVA_B + off);
			} else {
				h = wqe(ORCA_WQE_RDMA_WRITE, 2 * i + 1);
				h.remote_addr = htole64(IOVA_B + BUF_LEN / 2 +
							off);
			}
			h.rkey = htole32(p.bbuf.key);
			post_send(p.na, &p.aqp, &h, &sg, 1);
			order[n++] = 2 * i + !rd;
		}
		for (unsigned int k = 0; k < n && ok; k++)
			ok &= expect_cqe(p.na, &p.acq, order[k],
					 order[k] & 1 ? ORCA_CQE_RDMA_WRITE :
							ORCA_CQE_RDMA_READ,
					 ORCA_CQE_ST_SUCCESS, NULL);
		for (unsigned int i = 0; i < LOSSY_DEPTH && ok; i++) {
			uint64_t off = (uint64_t)i * LOSSY_LEN;

			ok &= buf_check(p.na, &p.abuf, BUF_LEN / 2 + off,
					LOSSY_LEN, round * 8 + i);
			ok &= buf_check(p.nb, &p.bbuf, BUF_LEN / 2 + off,
					LOSSY_LEN, round * 8 + i + 100);
		}
		if (!ok)
			printf("# round %u failed\n", round);
	}
	ms = now_ms() - t0;
	CHECK(ok);
	sa = stats(p.na);
	sb = stats(p.nb);
	printf("# %u x %u KiB READ+WRITE in %llu ms; dropped %lu+%lu of "
	       "%lu+%lu; retransmits %llu+%llu, timeouts %llu+%llu, "
	       "early retries %llu, seq NAKs %llu, dup requests %llu\n",
	       LOSSY_ROUNDS * LOSSY_DEPTH, LOSSY_LEN >> 10,
	       (unsigned long long)ms,
	       atomic_load(&p.na->dropped), atomic_load(&p.nb->dropped),
	       atomic_load(&p.na->sent), atomic_load(&p.nb->sent),
	       (unsigned long long)sa.retransmits,
	       (unsigned long long)sb.retransmits,
	       (unsigned long long)sa.timeouts,
	       (unsigned long long)sb.timeouts,
	       (unsigned long long)sa.fast_retries,
	       (unsigned long long)sb.seq_naks_tx,
	       (unsigned long long)sb.dup_requests);
	CHECK(atomic_load(&p.nb->dropped) > 0);
	/* ~1 s per timer expiry: a few may happen, not one per loss. */
	CHECK(ms < 15000);
	pair_fini(&p);
	ktap_case_end("rc_128k_read_write_5pct_loss_reorder_cm_timeout");
}

/*
 * Go-back-N's cost on a lossy wire: every loss resends what was in flight
 * after it.  32 WRITEs of 64 KiB (2048 packets at MTU 1024), 8 outstanding,
 * 5% of the frames lost both ways: with the full 128-packet window the
 * requester sent each packet about 4-5 times more (10,000 packets again);
 * a window that halves on loss must keep that below one resend per packet
 * delivered, and the data must still arrive intact.
 */
#define WINDOW_LEN	(64u << 10)
#define WINDOW_MSGS	32
#define WINDOW_DEPTH	8

static void test_window_halves_on_loss(void)
{
	struct roce_stats sa;
	struct pair p;
	unsigned int posted = 0, done = 0;
	bool ok = true;
	uint32_t pkts = WINDOW_MSGS * (WINDOW_LEN / 1024);

	if (!pair_init_to(&p, false, 5, 3, 18)) {
		CHECK(!"setup");
		ktap_case_end("go_back_n_window_halves_on_loss");
		return;
	}
	for (unsigned int i = 0; i < WINDOW_DEPTH; i++)
		buf_fill(p.na, &p.abuf, (uint64_t)i * WINDOW_LEN, WINDOW_LEN,
			 1000 + i);
	while (done < WINDOW_MSGS && ok) {
		while (posted < WINDOW_MSGS && posted - done < WINDOW_DEPTH) {
			uint64_t off = (uint64_t)(posted % WINDOW_DEPTH) *
				       WINDOW_LEN;
			struct orca_send_wqe_hdr h =
				wqe(ORCA_WQE_RDMA_WRITE, posted);
			struct tsge sg = { IOVA_A + off, WINDOW_LEN,
					   p.abuf.key };

			h.remote_addr = htole64(IOVA_B + off);
			h.rkey = htole32(p.bbuf.key);
			post_send(p.na, &p.aqp, &h, &sg, 1);
			posted++;
		}
		ok = expect_cqe(p.na, &p.acq, done, ORCA_CQE_RDMA_WRITE,
				ORCA_CQE_ST_SUCCESS, NULL);
		done++;
	}
	CHECK(ok);
	engine_flush(p.nb->t.eng);
	for (unsigned int i = 0; i < WINDOW_DEPTH && ok; i++)
		CHECK(buf_check(p.nb, &p.bbuf, (uint64_t)i * WINDOW_LEN,
				WINDOW_LEN, 1000 + i));
	sa = stats(p.na);
	printf("# %u packets in %u WRITEs: dropped %lu+%lu frames; sent again "
	       "%llu, windows cut %llu, early retries %llu, timeouts %llu\n",
	       pkts, WINDOW_MSGS, atomic_load(&p.na->dropped),
	       atomic_load(&p.nb->dropped),
	       (unsigned long long)sa.retransmits,
	       (unsigned long long)sa.cwnd_cuts,
	       (unsigned long long)sa.fast_retries,
	       (unsigned long long)sa.timeouts);
	CHECK(atomic_load(&p.na->dropped) > 0);
	CHECK(sa.cwnd_cuts > 0);
	CHECK(sa.retransmits < pkts);
	pair_fini(&p);
	ktap_case_end("go_back_n_window_halves_on_loss");
}

/*
 * A slow but loss-free peer: every frame arrives DELAY_MS after it was
 * sent (a loaded host, a busy Soft-RoCE), a round trip of 2 * DELAY_MS,
 * well above the 10 ms early retransmission timeout we once had.  The
 * early timeout must follow the measured round trip (and stay off on a
 * wire that lost nothing), so every request goes out once:
 * before, each 64 KiB READ was requested two or three times, and each
 * duplicate READ request made the peer send the whole response again.
 */
#define DELAY_MS	25
#define DELAY_SLOTS	2048

struct delay_line {
	struct node *n;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool stop;
	unsigned int head, tail;	/* head - tail frames queued */
	struct {
		uint64_t due_ms;
		size_t len;
		uint8_t frame[ROCE_MAX_FRAME];
	} q[DELAY_SLOTS];
	unsigned long overflow;
	uint8_t out[ROCE_MAX_FRAME];	/* the frame being delivered */
};

static void delay_tx(void *ctx, const uint8_t *frame, size_t len)
{
	struct delay_line *d = ctx;

	pthread_mutex_lock(&d->lock);
	if (d->head - d->tail < DELAY_SLOTS && len <= ROCE_MAX_FRAME) {
		unsigned int i = d->head++ % DELAY_SLOTS;

		d->q[i].due_ms = now_ms() + DELAY_MS;
		d->q[i].len = len;
		memcpy(d->q[i].frame, frame, len);
		pthread_cond_signal(&d->cond);
	} else {
		d->overflow++;
	}
	pthread_mutex_unlock(&d->lock);
}

static void *delay_thread(void *arg)
{
	struct delay_line *d = arg;

	pthread_mutex_lock(&d->lock);
	while (!d->stop) {
		unsigned int i = d->tail % DELAY_SLOTS;
		uint64_t now = now_ms();
		size_t len;

		if (d->head == d->tail) {
			pthread_cond_wait(&d->cond, &d->lock);
			continue;
		}
		if (d->q[i].due_ms > now) {
			pthread_mutex_unlock(&d->lock);
			usleep((d->q[i].due_ms - now) * 1000);
			pthread_mutex_lock(&d->lock);
			continue;
		}
		len = d->q[i].len;
		memcpy(d->out, d->q[i].frame, len);
		d->tail++;
		pthread_mutex_unlock(&d->lock);
		node_tx(d->n, d->out, len);
		pthread_mutex_lock(&d->lock);
	}
	pthread_mutex_unlock(&d->lock);
	return NULL;
}

static void delay_start(struct delay_line *d, struct node *n)
{
	memset(d, 0, sizeof(*d));
	d->n = n;
	pthread_mutex_init(&d->lock, NULL);
	pthread_cond_init(&d->cond, NULL);
	pthread_create(&d->thread, NULL, delay_thread, d);
	engine_set_roce_tx(n->t.eng, delay_tx, d);
}

static void delay_stop(struct delay_line *d)
{
	engine_set_roce_tx(d->n->t.eng, node_tx, d->n);
	pthread_mutex_lock(&d->lock);
	d->stop = true;
	pthread_cond_signal(&d->cond);
	pthread_mutex_unlock(&d->lock);
	pthread_join(d->thread, NULL);
}

#define SLOW_LEN	(64u << 10)
#define SLOW_DEPTH	4
#define SLOW_ROUNDS	8

static void test_slow_peer(void)
{
	static struct delay_line da, db;
	struct roce_stats sa, sb;
	unsigned int reads = SLOW_ROUNDS * SLOW_DEPTH;
	struct pair p;
	bool ok = true;

	if (!pair_init_to(&p, false, 0, 3, 18)) {
		CHECK(!"setup");
		ktap_case_end("slow_peer_early_timeout_follows_rtt");
		return;
	}
	delay_start(&da, p.na);
	delay_start(&db, p.nb);
	for (unsigned int round = 0; round < SLOW_ROUNDS && ok; round++) {
		for (unsigned int i = 0; i < SLOW_DEPTH; i++) {
			uint64_t off = (uint64_t)i * SLOW_LEN;
			struct orca_send_wqe_hdr h = wqe(ORCA_WQE_RDMA_READ, i);
			struct tsge sg = { IOVA_A + off, SLOW_LEN, p.abuf.key };

			buf_fill(p.nb, &p.bbuf, off, SLOW_LEN, round * 8 + i);
			h.remote_addr = htole64(IOVA_B + off);
			h.rkey = htole32(p.bbuf.key);
			post_send(p.na, &p.aqp, &h, &sg, 1);
		}
		for (unsigned int i = 0; i < SLOW_DEPTH && ok; i++)
			ok &= expect_cqe(p.na, &p.acq, i, ORCA_CQE_RDMA_READ,
					 ORCA_CQE_ST_SUCCESS, NULL);
		for (unsigned int i = 0; i < SLOW_DEPTH && ok; i++)
			ok &= buf_check(p.na, &p.abuf, (uint64_t)i * SLOW_LEN,
					SLOW_LEN, round * 8 + i);
	}
	CHECK(ok);
	delay_stop(&da);
	delay_stop(&db);
	sa = stats(p.na);
	sb = stats(p.nb);
	printf("# %u x %u KiB READs over a %u ms round trip: requester "
	       "retransmits %llu, early retries %llu, timeouts %llu, rtt "
	       "samples %llu; responder dup requests %llu; queue overflow "
	       "%lu+%lu\n", reads, SLOW_LEN >> 10, 2 * DELAY_MS,
	       (unsigned long long)sa.retransmits,
	       (unsigned long long)sa.fast_retries,
	       (unsigned long long)sa.timeouts,
	       (unsigned long long)sa.rtt_samples,
	       (unsigned long long)sb.dup_requests, da.overflow, db.overflow);
	CHECK(da.overflow == 0 && db.overflow == 0);
	CHECK(sa.rtt_samples > 0);
	/*
	 * Nothing is sent twice: no early retransmission before the first
	 * round trip is measured, none on a wire that lost nothing, and the
	 * early timeout follows the round trip.  A fixed 10 ms timeout sent
	 * every one of the 32 READ requests again, most of them twice; the
	 * 10 ms floor before the first sample still a few.
	 */
	CHECK(sa.fast_retries == 0 && sa.retransmits == 0);
	CHECK(sb.dup_requests == 0);
	CHECK(sa.timeouts == 0);
	pair_fini(&p);
	ktap_case_end("slow_peer_early_timeout_follows_rtt");
}

/*
 * The early timeout's doubling ends when the peer acknowledges again.  On a
 * lossy wire go-back-N resends the PSN being timed, so round trips are
 * rarely measured; a doubling that waited for one grew with every early
 * retry until the early timeout met the QP's full one (~1 s with rdma_cm's
 * timeout 18), and NVMe-oF at 5% loss spent seconds in full timeouts.
 * Here: a round trip measured, a sequence NAK (the wire loses), a
 * single-packet WRITE lost three times (three early retries, then
 * progress), and another lost twice: its early retries must come at the
 * base timeout, not at 8x and 16x it, which the full timeout preempts.
 * (The first resend of each is the tail loss probe's, test_tail_loss_probe.)
 */
struct dropper {
	struct node *n;
	atomic_int middle;		/* WRITE MIDDLE packets to drop */
	atomic_int only;		/* WRITE ONLY packets to drop */
	atomic_int last;		/* WRITE LAST packets to drop */
};

/* True (and one fewer to go) if @left says to drop one more. */
static bool drop_one(atomic_int *left)
{
	return atomic_load(left) > 0 && atomic_fetch_sub(left, 1) > 0;
}

static void dropper_tx(void *ctx, const uint8_t *frame, size_t len)
{
	struct dropper *d = ctx;
	uint8_t op = len > 42 ? frame[42] : 0;	/* BTH after Eth, IPv4, UDP */

	if ((op == ROCE_RC_WRITE_MIDDLE && drop_one(&d->middle)) ||
	    (op == ROCE_RC_WRITE_ONLY && drop_one(&d->only)) ||
	    (op == ROCE_RC_WRITE_LAST && drop_one(&d->last)))
		return;
	node_tx(d->n, frame, len);
}

static bool backoff_write(struct pair *p, uint32_t len, int drop_middle,
			  int drop_only, struct dropper *d, uint64_t id)
{
	struct orca_send_wqe_hdr h = wqe(ORCA_WQE_RDMA_WRITE, id);
	struct tsge sg = { IOVA_A, len, p->abuf.key };

	buf_fill(p->na, &p->abuf, 0, len, (uint32_t)id);
	atomic_store(&d->middle, drop_middle);
	atomic_store(&d->only, drop_only);
	h.remote_addr = htole64(IOVA_B);
	h.rkey = htole32(p->bbuf.key);
	post_send(p->na, &p->aqp, &h, &sg, 1);
	if (!expect_cqe(p->na, &p->acq, id, ORCA_CQE_RDMA_WRITE,
			ORCA_CQE_ST_SUCCESS, NULL))
		return false;
	engine_flush(p->nb->t.eng);
	return buf_check(p->nb, &p->bbuf, 0, len, (uint32_t)id) &&
	       atomic_load(&d->middle) <= 0 && atomic_load(&d->only) <= 0;
}

static void test_early_backoff_ends_with_progress(void)
{
	static struct dropper d;
	struct roce_stats st;
	struct pair p;
	bool ok;

	if (!pair_init_to(&p, false, 0, 3, 18)) {
		CHECK(!"setup");
		ktap_case_end("early_timeout_doubling_ends_with_progress");
		return;
	}
	d.n = p.na;
	engine_set_roce_tx(p.na->t.eng, dropper_tx, &d);
	ok = backoff_write(&p, 4096, 0, 0, &d, 1) &&	/* a round trip */
	     backoff_write(&p, 4096, 1, 0, &d, 2) &&	/* a NAKed gap */
	     backoff_write(&p, 512, 0, 3, &d, 3) &&	/* 3 early retries */
	     backoff_write(&p, 512, 0, 2, &d, 4);	/* 2 more */
	CHECK(ok);
	st = stats(p.na);
	printf("# tail probes %llu, early retries %llu, timeouts %llu, rtt samples %llu, "
	       "sequence NAKs received %llu\n",
	       (unsigned long long)st.tail_probes,
	       (unsigned long long)st.fast_retries,
	       (unsigned long long)st.timeouts,
	       (unsigned long long)st.rtt_samples,
	       (unsigned long long)st.seq_naks_rx);
	CHECK(st.rtt_samples > 0 && st.seq_naks_rx > 0);
	/*
	 * Each WRITE's first loss is the tail loss probe's (one probe until
	 * progress), the others early retries: 2 + 1 of these.
	 */
	CHECK(st.tail_probes >= 2 && st.fast_retries >= 3);
	/* Before: the last WRITE's second retry was the full timeout. */
	CHECK(st.timeouts == 0);
	pair_fini(&p);
	ktap_case_end("early_timeout_doubling_ends_with_progress");
}

static void test_remote_access_errors(void)
{
	struct pair p;
	struct orca_send_wqe_hdr h;
	struct tsge s;

	for (int variant = 0; variant < 3; variant++) {
		if (!pair_init(&p, false, 0, 3)) {
			CHECK(!"setup");
			break;
		}
		s = (struct tsge){ IOVA_A, 100, p.abuf.key };
		h = wqe(variant == 2 ? ORCA_WQE_RDMA_READ :
			ORCA_WQE_RDMA_WRITE, 700);
		h.remote_addr = htole64(IOVA_B);
		h.rkey = htole32(p.bbuf.key);
		if (variant == 0)
			h.rkey = htole32(p.bbuf.key ^ 0x01);	/* key byte */
		else	/* runs past the end of the MR */
			h.remote_addr = htole64(IOVA_B + BUF_LEN + 4000);
		post_send(p.na, &p.aqp, &h, &s, 1);
		/* A later WQE is flushed once the QP is in ERR. */
		h = wqe(ORCA_WQE_SEND, 701);
		post_send(p.na, &p.aqp, &h, &s, 1);
		CHECK(expect_cqe(p.na, &p.acq, 700, variant == 2 ?
				 ORCA_CQE_RDMA_READ : ORCA_CQE_RDMA_WRITE,
				 ORCA_CQE_ST_REM_ACCESS_ERR, NULL));
		CHECK(expect_cqe(p.na, &p.acq, 701, ORCA_CQE_SEND,
				 ORCA_CQE_ST_WR_FLUSH_ERR, NULL));
		pair_fini(&p);
	}
	ktap_case_end("rc_bad_rkey_and_out_of_bounds_remote_access_error");
}

/* A bad lkey fails locally: LOC_PROT_ERR, nothing sent. */
static void test_local_errors(void)
{
	struct pair p;
	struct orca_send_wqe_hdr h = wqe(ORCA_WQE_SEND, 800);
	struct tsge s;

	if (!pair_init(&p, false, 0, 3)) {
		CHECK(!"setup");
		ktap_case_end("rc_bad_lkey_local_protection_error");
		return;
	}
	s = (struct tsge){ IOVA_A, 100, p.abuf.key + 0x100 };	/* index */
	post_send(p.na, &p.aqp, &h, &s, 1);
	CHECK(expect_cqe(p.na, &p.acq, 800, ORCA_CQE_SEND,
			 ORCA_CQE_ST_LOC_PROT_ERR, NULL));
	pair_fini(&p);
	ktap_case_end("rc_bad_lkey_local_protection_error");
}

/* A SEND with no receive posted is RNR NAKed until one appears. */
static void test_rnr(void)
{
	struct pair p;
	struct orca_send_wqe_hdr h = wqe(ORCA_WQE_SEND, 900);
	struct tsge s, r;
	struct roce_stats sb;

	if (!pair_init(&p, false, 0, 3)) {
		CHECK(!"setup");
		ktap_case_end("rc_rnr_nak_then_receive_posted");
		return;
	}
	s = (struct tsge){ IOVA_A, 3000, p.abuf.key };
	r = (struct tsge){ IOVA_B, 4000, p.bbuf.key };
	buf_fill(p.na, &p.abuf, 0, 3000, 9);
	post_send(p.na, &p.aqp, &h, &s, 1);
	th_sleep_ms(20);
	sb = stats(p.nb);
	CHECK(sb.rnr_naks_tx > 0);
	post_recv(p.nb, &p.bqp, 901, &r, 1);
	CHECK(expect_cqe(p.na, &p.acq, 900, ORCA_CQE_SEND,
			 ORCA_CQE_ST_SUCCESS, NULL));
	CHECK(expect_cqe(p.nb, &p.bcq, 901, ORCA_CQE_RECV,
			 ORCA_CQE_ST_SUCCESS, NULL));
	CHECK(buf_check(p.nb, &p.bbuf, 0, 3000, 9));
	pair_fini(&p);
	ktap_case_end("rc_rnr_nak_then_receive_posted");
}

/* UD: GRH area first, Q_Key checked; GSI QP1 uses the GSI Q_Key. */
static void test_ud(void)
{
	struct pair p;
	struct tqp ua, ub, ga, gb;
	struct orca_cmd_create_ah ahin = { 0 };
	struct orca_send_wqe_hdr h;
	struct orca_cqe c;
	struct tsge s, r;
	int64_t ahn;
	uint8_t *grh;

	if (!pair_init(&p, false, 0, 3)) {
		CHECK(!"setup");
		ktap_case_end("ud_and_gsi_send_recv_grh_qkey");
		return;
	}
	CHECK(node_qp(p.na, &ua, ORCA_QPT_UD, &p.acq, &p.acq));
	CHECK(node_qp(p.nb, &ub, ORCA_QPT_UD, &p.bcq, &p.bcq));
	CHECK(node_qp(p.na, &ga, ORCA_QPT_GSI, &p.acq, &p.acq));
	CHECK(node_qp(p.nb, &gb, ORCA_QPT_GSI, &p.bcq, &p.bcq));
	CHECK(ga.qpn == 1 && gb.qpn == 1);
	CHECK(node_ud_ready(p.na, &ua, 0x1234));
	CHECK(node_ud_ready(p.nb, &ub, 0x1234));
	CHECK(node_ud_ready(p.na, &ga, ROCE_GSI_QKEY));
	CHECK(node_ud_ready(p.nb, &gb, ROCE_GSI_QKEY));
	ahin.pdn = htole32(p.na->pdn);
	node_gid(p.nb, ahin.av.dgid);
	memcpy(ahin.av.dmac, p.nb->mac, 6);
	ahin.av.hop_limit = 64;
	ahn = th_handle_or_neg(&p.na->t, th_cmd(&p.na->t, ORCA_CMD_CREATE_AH,
						&ahin, sizeof(ahin)));
	CHECK(ahn > 0);

	s = (struct tsge){ IOVA_A, 600, p.abuf.key };
	r = (struct tsge){ IOVA_B, 2048, p.bbuf.key };
	buf_fill(p.na, &p.abuf, 0, 600, 21);
	post_recv(p.nb, &ub, 1000, &r, 1);
	h = wqe(ORCA_WQE_SEND_IMM, 1001);
	h.ahn = htole32((uint32_t)ahn);
	h.dest_qpn = htole32(ub.qpn);
	h.qkey = htole32(0x1234);
	h.imm_or_inv = htole32(0xcafe);
	post_send(p.na, &ua, &h, &s, 1);
	CHECK(expect_cqe(p.na, &p.acq, 1001, ORCA_CQE_SEND,
			 ORCA_CQE_ST_SUCCESS, NULL));
	CHECK(expect_cqe(p.nb, &p.bcq, 1000, ORCA_CQE_RECV,
			 ORCA_CQE_ST_SUCCESS, &c));
	CHECK(le32toh(c.byte_len) == 40 + 600);
	CHECK(le32toh(c.src_qpn) == ua.qpn);
	CHECK((c.flags & ORCA_CQE_F_GRH) && !(c.flags & ORCA_CQE_F_IPV6));
	CHECK((c.flags & ORCA_CQE_F_IMM) && c.imm_or_inv == htole32(0xcafe));
	grh = node_va(p.nb, &p.bbuf, 0);
	CHECK(grh[0] == 0 && grh[19] == 0);	/* 20 zero bytes */
	CHECK(grh[20] == 0x45 && grh[29] == 17);	/* IPv4, UDP */
	CHECK(!memcmp(grh + 32, p.na->ip, 4) && !memcmp(grh + 36, p.nb->ip, 4));
	CHECK(buf_check(p.nb, &p.bbuf, 40, 600, 21));

	/* Wrong Q_Key: dropped, the receive WQE stays for the next one. */
	h = wqe(ORCA_WQE_SEND, 1002);
	h.ahn = htole32((uint32_t)ahn);
	h.dest_qpn = htole32(ub.qpn);
	h.qkey = htole32(0x9999);
	post_recv(p.nb, &ub, 1003, &r, 1);
	post_send(p.na, &ua, &h, &s, 1);
	CHECK(expect_cqe(p.na, &p.acq, 1002, ORCA_CQE_SEND,
			 ORCA_CQE_ST_SUCCESS, NULL));
	CHECK(!poll_cq(p.nb, &p.bcq, &c, 50));
	CHECK(stats(p.nb).drop_qkey == 1);

	/* GSI: QP1 to QP1 with the well-known Q_Key. */
	post_recv(p.nb, &gb, 1004, &r, 1);
	h = wqe(ORCA_WQE_SEND, 1005);
	h.ahn = htole32((uint32_t)ahn);
	h.dest_qpn = htole32(1);
	h.qkey = htole32(ROCE_GSI_QKEY);
	s.len = 256;
	post_send(p.na, &ga, &h, &s, 1);
	CHECK(expect_cqe(p.na, &p.acq, 1005, ORCA_CQE_SEND,
			 ORCA_CQE_ST_SUCCESS, NULL));
	CHECK(expect_cqe(p.nb, &p.bcq, 1004, ORCA_CQE_RECV,
			 ORCA_CQE_ST_SUCCESS, &c));
	CHECK(le32toh(c.src_qpn) == 1 && le32toh(c.byte_len) == 296);

	/* IPv6: GID 1 on both sides; the GRH area is the IPv6 header. */
	{
		struct orca_cmd_set_gid g = {
			.port = 1, .type = ORCA_GID_TYPE_ROCE_V2,
			.index = htole16(1), .vlan = htole16(0xffff),
			.gid = { 0xfe, 0x80, [15] = 0 },
		};
		struct node *nodes[2] = { p.na, p.nb };
		int64_t ahn6;

		for (int i = 0; i < 2; i++) {
			memcpy(g.mac, nodes[i]->mac, 6);
			g.gid[15] = nodes[i]->mac[5];
			CHECK(th_cmd(&nodes[i]->t, ORCA_CMD_SET_GID, &g,
				     sizeof(g)) == 0);
		}
		ahin.av.sgid_index = 1;
		memcpy(ahin.av.dgid, g.gid, 16);	/* B's, set last */
		ahin.av.traffic_class = 0x28;
		ahin.av.flow_label = htole32(0x12345);
		ahn6 = th_handle_or_neg(&p.na->t,
					th_cmd(&p.na->t, ORCA_CMD_CREATE_AH,
					       &ahin, sizeof(ahin)));
		CHECK(ahn6 > 0);
		/* (receive 1003, left by the wrong-Q_Key datagram, takes it) */
		h = wqe(ORCA_WQE_SEND, 1008);
		h.ahn = htole32((uint32_t)ahn6);
		h.dest_qpn = htole32(ub.qpn);
		h.qkey = htole32(0x1234);
		s.len = 100;
		post_send(p.na, &ua, &h, &s, 1);
		CHECK(expect_cqe(p.na, &p.acq, 1008, ORCA_CQE_SEND,
				 ORCA_CQE_ST_SUCCESS, NULL));
		CHECK(expect_cqe(p.nb, &p.bcq, 1003, ORCA_CQE_RECV,
				 ORCA_CQE_ST_SUCCESS, &c));
		CHECK((c.flags & ORCA_CQE_F_GRH) && (c.flags & ORCA_CQE_F_IPV6));
		CHECK(le32toh(c.byte_len) == 140);
		grh = node_va(p.nb, &p.bbuf, 0);
		CHECK(grh[0] == 0x62 && grh[1] == 0x81 && grh[6] == 17);
		CHECK(grh[8] == 0xfe && grh[23] == p.na->mac[5]);
		CHECK(grh[24] == 0xfe && grh[39] == p.nb->mac[5]);
		CHECK(buf_check(p.nb, &p.bbuf, 40, 100, 21));
	}

	/* Too long for a UD datagram: LOC_LEN_ERR, nothing sent. */
	h = wqe(ORCA_WQE_SEND, 1006);
	h.ahn = htole32((uint32_t)ahn);
	h.dest_qpn = htole32(ub.qpn);
	h.qkey = htole32(0x1234);
	s.len = 4096;
	post_send(p.na, &ua, &h, &s, 1);
	CHECK(expect_cqe(p.na, &p.acq, 1006, ORCA_CQE_SEND,
			 ORCA_CQE_ST_LOC_LEN_ERR, NULL));
	pair_fini(&p);
	ktap_case_end("ud_and_gsi_send_recv_grh_qkey");
}


/* Fast registration, remote access through it, remote and local invalidate. */
static void test_fast_reg(void)
{
	struct pair p;
	struct orca_send_wqe_hdr h;
	struct orca_cqe c;
	struct tsge s, r;
	uint64_t pages[2], list, *l;
	uint32_t mrkey, rkey;
	int64_t key;

	if (!pair_init(&p, false, 0, 3)) {
		CHECK(!"setup");
		ktap_case_end("fast_reg_write_send_with_invalidate_local_inv");
		return;
	}
	key = node_mr_raw(p.nb, 0, 0, 0, ORCA_MR_F_FAST_REG, NULL, 4);
	CHECK(key > 0);
	mrkey = (uint32_t)key;
	rkey = (mrkey & ~0xffu) | 0x11;		/* new key byte */
	pages[0] = galloc(&p.nb->t, 4096, 0);
	pages[1] = galloc(&p.nb->t, 4096, 0);
	list = galloc(&p.nb->t, 16, 8);
	l = gptr(&p.nb->t, list);
	l[0] = htole64(pages[1]);		/* backwards on purpose */
	l[1] = htole64(pages[0]);

	/* Access before registration fails: the MR starts invalid. */
	h = wqe(ORCA_WQE_REG_MR, 1100);
	h.remote_addr = htole64(0x5000000);
	h.rkey = htole32(rkey);
	h.length = htole32(8192);
	h.compare_add = htole64(list);
	h.swap = htole64(ORCA_ACCESS_LOCAL_WRITE | ORCA_ACCESS_REMOTE_WRITE |
			 (2ull << 32));
	post_send(p.nb, &p.bqp, &h, NULL, 0);
	CHECK(expect_cqe(p.nb, &p.bcq, 1100, ORCA_CQE_REG_MR,
			 ORCA_CQE_ST_SUCCESS, NULL));

	/* A writes 5000 bytes at offset 100: spans both (reversed) pages. */
	buf_fill(p.na, &p.abuf, 0, 5000, 31);
	s = (struct tsge){ IOVA_A, 5000, p.abuf.key };
	h = wqe(ORCA_WQE_RDMA_WRITE, 1101);
	h.remote_addr = htole64(0x5000000 + 100);
	h.rkey = htole32(rkey);
	post_send(p.na, &p.aqp, &h, &s, 1);
	CHECK(expect_cqe(p.na, &p.acq, 1101, ORCA_CQE_RDMA_WRITE,
			 ORCA_CQE_ST_SUCCESS, NULL));
	for (uint32_t k = 0; k < 5000; k++) {
		uint8_t *dst = k < 3996 ? gptr(&p.nb->t, pages[1] + 100 + k) :
					  gptr(&p.nb->t, pages[0] + k - 3996);

		if (*dst != *node_va(p.na, &p.abuf, k)) {
			CHECK(!"fast-reg MR data");
			break;
		}
	}

	/* SEND with invalidate: B's CQE reports the rkey, the MR dies. */
	r = (struct tsge){ IOVA_B, 64, p.bbuf.key };
	post_recv(p.nb, &p.bqp, 1102, &r, 1);
	h = wqe(ORCA_WQE_SEND_INV, 1103);
	h.imm_or_inv = htole32(rkey);
	s.len = 10;
	post_send(p.na, &p.aqp, &h, &s, 1);
	CHECK(expect_cqe(p.na, &p.acq, 1103, ORCA_CQE_SEND,
			 ORCA_CQE_ST_SUCCESS, NULL));
	CHECK(expect_cqe(p.nb, &p.bcq, 1102, ORCA_CQE_RECV,
			 ORCA_CQE_ST_SUCCESS, &c));
	CHECK((c.flags & ORCA_CQE_F_INV) && le32toh(c.imm_or_inv) == rkey);

	/* Register again (key 0x12), then LOCAL_INV it. */
	rkey = (mrkey & ~0xffu) | 0x12;
	h = wqe(ORCA_WQE_REG_MR, 1104);
	h.remote_addr = htole64(0x6000000);
	h.rkey = htole32(rkey);
	h.length = htole32(4096);
	h.compare_add = htole64(list);
	h.swap = htole64(ORCA_ACCESS_LOCAL_WRITE | ORCA_ACCESS_REMOTE_WRITE |
			 (1ull << 32));
	post_send(p.nb, &p.bqp, &h, NULL, 0);
	CHECK(expect_cqe(p.nb, &p.bcq, 1104, ORCA_CQE_REG_MR,
			 ORCA_CQE_ST_SUCCESS, NULL));
	h = wqe(ORCA_WQE_LOCAL_INV, 1105);
	h.imm_or_inv = htole32(rkey);
	post_send(p.nb, &p.bqp, &h, NULL, 0);
	CHECK(expect_cqe(p.nb, &p.bcq, 1105, ORCA_CQE_LOCAL_INV,
			 ORCA_CQE_ST_SUCCESS, NULL));

	/* Invalid now: a write through the old rkey is refused. */
	h = wqe(ORCA_WQE_RDMA_WRITE, 1106);
	h.remote_addr = htole64(0x6000000);
	h.rkey = htole32(rkey);
	post_send(p.na, &p.aqp, &h, &s, 1);
	CHECK(expect_cqe(p.na, &p.acq, 1106, ORCA_CQE_RDMA_WRITE,
			 ORCA_CQE_ST_REM_ACCESS_ERR, NULL));
	pair_fini(&p);
	ktap_case_end("fast_reg_write_send_with_invalidate_local_inv");
}

/*
 * Interface 1.1: REG_MR with its own page size (8 KiB here, 4 KiB at
 * CREATE_MR) and a page list chained over two chunks, written through at an
 * entry of the second chunk; then the page shifts the device must refuse
 * instead of shifting by them: 64 at CREATE_MR, 64 and 31 in the WQE.
 */
static void test_fast_reg_page_shift_chain(void)
{
	const char *name = "fast_reg_page_shift_and_chained_page_list";
	const uint32_t np = ORCA_PGL_CHUNK_ENTRIES + 89;	/* two chunks */
	uint64_t pages[4], chunk[2], *c0, *c1, raddr;
	struct orca_send_wqe_hdr h;
	struct orca_cmd_create_mr in = {};
	struct tcmd cmd = { .opcode = ORCA_CMD_CREATE_MR, .in = &in,
			    .in_size = sizeof(in) };
	uint32_t rkey, target;
	struct tsge s;
	struct pair p;
	int64_t key;

	if (!pair_init(&p, false, 0, 3)) {
		CHECK(!"setup");
		ktap_case_end(name);
		return;
	}
	/* An unchecked CREATE_MR page shift would be a shift by 64 later. */
	in.pdn = htole32(p.nb->pdn);
	in.flags = htole32(ORCA_MR_F_FAST_REG);
	in.npages = htole32(4);
	in.page_shift = 64;
	CHECK(th_exec(&p.nb->t, &cmd) == ORCA_CMD_ST_BAD_PARAM);
	in.page_shift = 11;
	CHECK(th_exec(&p.nb->t, &cmd) == ORCA_CMD_ST_BAD_PARAM);

	key = node_mr_raw(p.nb, 0, 0, 0, ORCA_MR_F_FAST_REG, NULL, np);
	CHECK(key > 0);
	rkey = ((uint32_t)key & ~0xffu) | 0x21;
	for (uint32_t i = 0; i < 4; i++)
		pages[i] = galloc(&p.nb->t, 8192, 8192);
	chunk[0] = galloc(&p.nb->t, ORCA_PGL_CHUNK_SIZE, ORCA_PGL_CHUNK_SIZE);
	chunk[1] = galloc(&p.nb->t, ORCA_PGL_CHUNK_SIZE, ORCA_PGL_CHUNK_SIZE);
	c0 = gptr(&p.nb->t, chunk[0]);
	c1 = gptr(&p.nb->t, chunk[1]);
	/* Entry i is page i % 4, except one entry of the second chunk. */
	for (uint32_t i = 0; i < np; i++) {
		uint64_t *e = i < ORCA_PGL_CHUNK_ENTRIES ? &c0[i] :
			      &c1[i - ORCA_PGL_CHUNK_ENTRIES];

		*e = htole64(pages[i % 4]);
	}
	target = ORCA_PGL_CHUNK_ENTRIES + 40;
	c1[40] = htole64(pages[3]);
	c1[41] = htole64(pages[2]);
	c0[ORCA_PGL_CHUNK_ENTRIES] = htole64(chunk[1]);	/* the link */
	c1[ORCA_PGL_CHUNK_ENTRIES] = htole64(0xdead000);	/* ignored */

	h = wqe(ORCA_WQE_REG_MR, 1200);
	h.flags |= ORCA_WQE_F_PGL_CHAIN;
	h.page_shift = 13;
	h.remote_addr = htole64(0x8000000);
	h.rkey = htole32(rkey);
	h.length = htole32(np * 8192);
	h.compare_add = htole64(chunk[0]);
	h.swap = htole64(ORCA_ACCESS_LOCAL_WRITE | ORCA_ACCESS_REMOTE_WRITE |
			 ((uint64_t)np << 32));
	post_send(p.nb, &p.bqp, &h, NULL, 0);
	CHECK(expect_cqe(p.nb, &p.bcq, 1200, ORCA_CQE_REG_MR,
			 ORCA_CQE_ST_SUCCESS, NULL));

	/* 5000 bytes from 8192 - 100 into entry target: pages 3 then 2. */
	raddr = 0x8000000 + (uint64_t)target * 8192 + 8192 - 100;
	buf_fill(p.na, &p.abuf, 0, 5000, 41);
	s = (struct tsge){ IOVA_A, 5000, p.abuf.key };
	h = wqe(ORCA_WQE_RDMA_WRITE, 1201);
	h.remote_addr = htole64(raddr);
	h.rkey = htole32(rkey);
	post_send(p.na, &p.aqp, &h, &s, 1);
	CHECK(expect_cqe(p.na, &p.acq, 1201, ORCA_CQE_RDMA_WRITE,
			 ORCA_CQE_ST_SUCCESS, NULL));
	for (uint32_t k = 0; k < 5000; k++) {
		uint8_t *dst = k < 100 ? gptr(&p.nb->t, pages[3] + 8092 + k) :
					 gptr(&p.nb->t, pages[2] + k - 100);

		if (*dst != *node_va(p.na, &p.abuf, k)) {
			CHECK(!"chained 8 KiB fast-reg MR data");
			break;
		}
	}
	h = wqe(ORCA_WQE_LOCAL_INV, 1202);
	h.imm_or_inv = htole32(rkey);
	post_send(p.nb, &p.bqp, &h, NULL, 0);
	CHECK(expect_cqe(p.nb, &p.bcq, 1202, ORCA_CQE_LOCAL_INV,
			 ORCA_CQE_ST_SUCCESS, NULL));

	/* A page shift the device cannot do: an error completion. */
	h = wqe(ORCA_WQE_REG_MR, 1203);
	h.page_shift = 64;
	h.remote_addr = htole64(0x8000000);
	h.rkey = htole32(rkey);
	h.length = htole32(8192);
	h.compare_add = htole64(chunk[0]);
	h.swap = htole64(ORCA_ACCESS_LOCAL_WRITE | (2ull << 32));
	post_send(p.nb, &p.bqp, &h, NULL, 0);
	CHECK(expect_cqe(p.nb, &p.bcq, 1203, ORCA_CQE_REG_MR,
			 ORCA_CQE_ST_MW_BIND_ERR, NULL));
	pair_fini(&p);

	/* 31 (above the 1 GiB maximum) on a fresh pair, likewise. */
	if (!pair_init(&p, false, 0, 3)) {
		CHECK(!"setup");
		ktap_case_end(name);
		return;
	}
	key = node_mr_raw(p.nb, 0, 0, 0, ORCA_MR_F_FAST_REG, NULL, 2);
	CHECK(key > 0);
	pages[0] = galloc(&p.nb->t, 16, 8);
	h = wqe(ORCA_WQE_REG_MR, 1204);
	h.page_shift = 31;
	h.rkey = htole32((uint32_t)key);
	h.length = htole32(4096);
	h.compare_add = htole64(pages[0]);
	h.swap = htole64(ORCA_ACCESS_LOCAL_WRITE | (1ull << 32));
	post_send(p.nb, &p.bqp, &h, NULL, 0);
	CHECK(expect_cqe(p.nb, &p.bcq, 1204, ORCA_CQE_REG_MR,
			 ORCA_CQE_ST_MW_BIND_ERR, NULL));
	pair_fini(&p);
	ktap_case_end(name);
}

static void arm_cq(struct node *n, struct tcq *cq, uint32_t seq, uint32_t how)
{
	struct orca_cq_db_rec *rec = gptr(&n->t, cq->rec);

	atomic_store((_Atomic __le32 *)&rec->arm, htole32(seq | how));
}

static int comp_events(struct node *n, uint32_t cqn)
{
	struct orca_eqe e;
	int k = 0;

	engine_flush(n->t.eng);
	while (th_eq0_next(&n->t, &e))
		if (e.type == ORCA_EQE_COMP && le32toh(e.data) == cqn)
			k++;
	return k;
}

/* CQ arming: one COMP per arm; SOLICITED waits for a solicited CQE. */
/* QUERY_CQ: the adapter's view of @cqn, or the command's status. */
static int query_cq(struct node *n, uint32_t cqn, struct orca_cq_attr *a)
{
	struct orca_cmd_destroy_obj q = { .handle = htole32(cqn) };
	uint64_t out = galloc(&n->t, 4096, 0);
	struct tcmd c = {
		.opcode = ORCA_CMD_QUERY_CQ, .in = &q, .in_size = sizeof(q),
		.out_addr = out, .out_len = sizeof(*a),
	};
	int st;

	engine_flush(n->t.eng);
	st = th_exec(&n->t, &c);
	memcpy(a, gptr(&n->t, out), sizeof(*a));
	return st;
}

/* QUERY_QP: the QP's current send and expected receive PSNs. */
static int query_qp_psns(struct node *n, uint32_t qpn, uint32_t *sq_psn,
			 uint32_t *rq_psn)
{
	struct orca_cmd_destroy_obj q = { .handle = htole32(qpn) };
	uint64_t out = galloc(&n->t, 4096, 0);
	struct orca_qp_attr *a = gptr(&n->t, out);
	struct tcmd c = {
		.opcode = ORCA_CMD_QUERY_QP, .in = &q, .in_size = sizeof(q),
		.out_addr = out, .out_len = sizeof(*a),
	};
	int st;

	engine_flush(n->t.eng);
	st = th_exec(&n->t, &c);
	*sq_psn = le32toh(a->sq_psn);
	*rq_psn = le32toh(a->rq_psn);
	return st;
}

static void test_cq_arm(void)
{
	uint32_t sq_psn, rq_psn;
	struct orca_cq_attr qa;
	struct pair p;
	struct orca_send_wqe_hdr h;
	struct orca_cqe c;
	struct tsge s, r;

	if (!pair_init(&p, false, 0, 3)) {
		CHECK(!"setup");
		ktap_case_end("cq_arm_any_solicited_and_doorbell");
		return;
	}
	s = (struct tsge){ IOVA_A, 8, p.abuf.key };
	r = (struct tsge){ IOVA_B, 64, p.bbuf.key };
	comp_events(p.nb, p.bcq.cqn);

	arm_cq(p.nb, &p.bcq, 1, ORCA_CQ_ARM_ANY);
	for (int i = 0; i < 2; i++) {
		post_recv(p.nb, &p.bqp, 1200 + i, &r, 1);
		h = wqe(ORCA_WQE_SEND, 1210 + i);
		post_send(p.na, &p.aqp, &h, &s, 1);
		CHECK(expect_cqe(p.nb, &p.bcq, 1200 + i, ORCA_CQE_RECV,
				 ORCA_CQE_ST_SUCCESS, &c));
		CHECK(expect_cqe(p.na, &p.acq, 1210 + i, ORCA_CQE_SEND,
				 ORCA_CQE_ST_SUCCESS, NULL));
	}
	CHECK(comp_events(p.nb, p.bcq.cqn) == 1);	/* once per arm */
	/* QUERY_CQ: two CQEs written and consumed, arm 1 fired. */
	CHECK(query_cq(p.nb, p.bcq.cqn, &qa) == ORCA_CMD_ST_OK);
	CHECK(le32toh(qa.pi) == 2 && le32toh(qa.ci) == 2);
	CHECK(le32toh(qa.arm_fired) == 1 && qa.flags == 0);
	CHECK(qa.log_depth == 10 && le32toh(qa.overruns) == 0);

	arm_cq(p.nb, &p.bcq, 2, ORCA_CQ_ARM_SOLICITED);
	CHECK(query_cq(p.nb, p.bcq.cqn, &qa) == ORCA_CMD_ST_OK);
	CHECK(qa.flags == ORCA_CQ_ATTR_F_ARMED);
	post_recv(p.nb, &p.bqp, 1202, &r, 1);
	h = wqe(ORCA_WQE_SEND, 1212);
	post_send(p.na, &p.aqp, &h, &s, 1);
	CHECK(expect_cqe(p.nb, &p.bcq, 1202, ORCA_CQE_RECV,
			 ORCA_CQE_ST_SUCCESS, &c));
	CHECK(expect_cqe(p.na, &p.acq, 1212, ORCA_CQE_SEND,
			 ORCA_CQE_ST_SUCCESS, NULL));
	CHECK(comp_events(p.nb, p.bcq.cqn) == 0);	/* not solicited */
	post_recv(p.nb, &p.bqp, 1203, &r, 1);
	h = wqe(ORCA_WQE_SEND, 1213);
	h.flags |= ORCA_WQE_F_SOLICITED;
	post_send(p.na, &p.aqp, &h, &s, 1);
	CHECK(expect_cqe(p.nb, &p.bcq, 1203, ORCA_CQE_RECV,
			 ORCA_CQE_ST_SUCCESS, &c));
	CHECK(expect_cqe(p.na, &p.acq, 1213, ORCA_CQE_SEND,
			 ORCA_CQE_ST_SUCCESS, NULL));
	CHECK(comp_events(p.nb, p.bcq.cqn) == 1);

	/*
	 * The race the CQ doorbell closes: a CQE is already there when the
	 * driver arms; it rings ORCA_UAR_CQ_DB and the event fires at once.
	 */
	post_recv(p.nb, &p.bqp, 1204, &r, 1);
	h = wqe(ORCA_WQE_SEND, 1214);
	post_send(p.na, &p.aqp, &h, &s, 1);
	CHECK(expect_cqe(p.na, &p.acq, 1214, ORCA_CQE_SEND,
			 ORCA_CQE_ST_SUCCESS, NULL));
	engine_flush(p.nb->t.eng);
	arm_cq(p.nb, &p.bcq, 3, ORCA_CQ_ARM_ANY);
	CHECK(comp_events(p.nb, p.bcq.cqn) == 0);
	engine_uar_write(p.nb->t.eng, p.nb->uar, ORCA_UAR_CQ_DB, p.bcq.cqn);
	CHECK(comp_events(p.nb, p.bcq.cqn) == 1);
	CHECK(expect_cqe(p.nb, &p.bcq, 1204, ORCA_CQE_RECV,
			 ORCA_CQE_ST_SUCCESS, NULL));
	CHECK(query_cq(p.nb, p.bcq.cqn, &qa) == ORCA_CMD_ST_OK);
	CHECK(le32toh(qa.pi) == 5 && !(qa.flags & ORCA_CQ_ATTR_F_OVERRUN));
	/* QUERY_QP reports the transport's PSNs: 5 sends from each start. */
	CHECK(query_qp_psns(p.na, p.aqp.qpn, &sq_psn, &rq_psn) == 0);
	CHECK(sq_psn == ((0xfffff0 + p.bqp.qpn + 5) & 0xffffff));
	CHECK(query_qp_psns(p.nb, p.bqp.qpn, &sq_psn, &rq_psn) == 0);
	CHECK(rq_psn == ((0xfffff0 + p.bqp.qpn + 5) & 0xffffff));
	CHECK(sq_psn == ((0xfffff0 + p.aqp.qpn) & 0xffffff));

	/*
	 * Overrun: a consumer index a whole ring behind leaves no room; the
	 * next CQE is refused, counted, and the CQ reports it.
	 */
	atomic_store((_Atomic __le32 *)&((struct orca_cq_db_rec *)
		     gptr(&p.nb->t, p.bcq.rec))->ci, htole32(5 - 1024));
	post_recv(p.nb, &p.bqp, 1205, &r, 1);
	h = wqe(ORCA_WQE_SEND, 1215);
	post_send(p.na, &p.aqp, &h, &s, 1);
	for (int i = 0; i < 200; i++) {
		engine_flush(p.na->t.eng);
		CHECK(query_cq(p.nb, p.bcq.cqn, &qa) == ORCA_CMD_ST_OK);
		if (qa.flags & ORCA_CQ_ATTR_F_OVERRUN)
			break;
		th_sleep_ms(5);
	}
	CHECK(qa.flags & ORCA_CQ_ATTR_F_OVERRUN);
	CHECK(le32toh(qa.overruns) >= 1 && le32toh(qa.pi) == 5);
	pair_fini(&p);
	ktap_case_end("cq_arm_any_solicited_and_doorbell");
}

static int modify_cq(struct node *n, uint32_t cqn, uint16_t count,
		     uint16_t period)
{
	struct orca_cmd_modify_cq m = {
		.cqn = htole32(cqn), .count = htole16(count),
		.period = htole16(period),
	};
	struct tcmd c = {
		.opcode = ORCA_CMD_MODIFY_CQ, .in = &m, .in_size = sizeof(m),
	};

	engine_flush(n->t.eng);
	return th_exec(&n->t, &c);
}

static uint64_t mono_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + ts.tv_nsec / 1000;
}

/*
 * @k SENDs from A to B, posted back to back; A's send CQEs are polled,
 * and B's receive CQEs too unless @poll_b is false (they stay unpolled).
 */
static bool sends(struct pair *p, int k, uint64_t *id, bool poll_b)
{
	struct tsge s = { IOVA_A, 8, p->abuf.key };
	struct tsge r = { IOVA_B, 64, p->bbuf.key };
	struct orca_send_wqe_hdr h;
	uint64_t first = *id;
	bool ok = true;
	int i;

	for (i = 0; i < k; i++)
		post_recv(p->nb, &p->bqp, first + i, &r, 1);
	for (i = 0; i < k; i++) {
		h = wqe(ORCA_WQE_SEND, first + 1000 + i);
		post_send(p->na, &p->aqp, &h, &s, 1);
	}
	for (i = 0; i < k; i++) {
		ok &= expect_cqe(p->na, &p->acq, first + 1000 + i,
				 ORCA_CQE_SEND, ORCA_CQE_ST_SUCCESS, NULL);
		if (poll_b)
			ok &= expect_cqe(p->nb, &p->bcq, first + i,
					 ORCA_CQE_RECV, ORCA_CQE_ST_SUCCESS,
					 NULL);
	}
	*id += k;
	return ok;
}

/*
 * CQ event moderation (MODIFY_CQ, 1.3).  Count: an armed CQ with count 4
 * posts nothing for 3 CQEs and its event at the 4th.  The period is the
 * longest the device allows, so that only a stall of the whole machine
 * longer than it can fire the timer first; a try where the timer fired
 * (the device counts such events) says nothing about the count and is
 * done again.  Period: a lone CQE under count 16 gets its event from the
 * timer, after the period.  CQEs unpolled when the driver arms and rings
 * the CQ doorbell count too.  0/0: an event per arm at the first CQE, as
 * without MODIFY_CQ.  Last, the CQ is torn down with a timer running.
 */
static void test_cq_moderation(void)
{
	const char *name = "cq_event_moderation_count_period_off";
	uint64_t id = 2000, t0, t1, timer_ev;
	uint32_t seq = 1, cqn;
	int good = 0, ev3, ev4, ev;
	struct pair p;

	if (!pair_init(&p, false, 0, 3)) {
		CHECK(!"setup");
		ktap_case_end(name);
		return;
	}
	cqn = p.bcq.cqn;
	comp_events(p.nb, cqn);

	CHECK(modify_cq(p.nb, cqn, 4, EMU_MAX_CQ_MOD_PERIOD) == 0);
	for (int tries = 0; tries < 10 && good < 3; tries++) {
		timer_ev = stats(p.nb).cq_mod_timer_events;
		arm_cq(p.nb, &p.bcq, seq++, ORCA_CQ_ARM_ANY);
		CHECK(sends(&p, 3, &id, true));
		ev3 = comp_events(p.nb, cqn);
		CHECK(sends(&p, 1, &id, true));
		ev4 = comp_events(p.nb, cqn);
		if (stats(p.nb).cq_mod_timer_events != timer_ev) {
			printf("# try %d: the period ran out (a stall)\n",
			       tries);
			continue;
		}
		CHECK(ev3 == 0 && ev4 == 1);
		good++;
	}
	CHECK(good == 3);
	/* 12 CQEs on one arm: still one event (one per arm). */
	arm_cq(p.nb, &p.bcq, seq++, ORCA_CQ_ARM_ANY);
	CHECK(sends(&p, 12, &id, true));
	CHECK(comp_events(p.nb, cqn) == 1);

	/* Period: one CQE, count 16; the timer posts the event. */
	CHECK(modify_cq(p.nb, cqn, 16, 2000) == 0);
	timer_ev = stats(p.nb).cq_mod_timer_events;
	arm_cq(p.nb, &p.bcq, seq++, ORCA_CQ_ARM_ANY);
	t0 = mono_us();
	CHECK(sends(&p, 1, &id, true));
	for (ev = 0, t1 = t0; !ev && t1 - t0 < WAIT_MS * 1000ull;
	     t1 = mono_us()) {
		ev = comp_events(p.nb, cqn);
		if (!ev)
			th_sleep_ms(1);
	}
	CHECK(ev == 1);
	CHECK(t1 - t0 >= 2000);
	CHECK(stats(p.nb).cq_mod_timer_events == timer_ev + 1);
	th_sleep_ms(5);
	CHECK(comp_events(p.nb, cqn) == 0);

	/*
	 * A CQE unpolled when the driver arms and rings the doorbell: it
	 * counts (1 of 2), and the period posts the event.
	 */
	CHECK(modify_cq(p.nb, cqn, 2, 2000) == 0);
	CHECK(sends(&p, 1, &id, false));
	engine_flush(p.nb->t.eng);
	arm_cq(p.nb, &p.bcq, seq++, ORCA_CQ_ARM_ANY);
	t0 = mono_us();
	engine_uar_write(p.nb->t.eng, p.nb->uar, ORCA_UAR_CQ_DB, cqn);
	for (ev = 0, t1 = t0; !ev && t1 - t0 < WAIT_MS * 1000ull;
	     t1 = mono_us()) {
		ev = comp_events(p.nb, cqn);
		if (!ev)
			th_sleep_ms(1);
	}
	CHECK(ev == 1 && t1 - t0 >= 2000);
	CHECK(stats(p.nb).cq_mod_timer_events == timer_ev + 2);
	CHECK(expect_cqe(p.nb, &p.bcq, id - 1, ORCA_CQE_RECV,
			 ORCA_CQE_ST_SUCCESS, NULL));

	/* 0/0: no moderation, the event comes with the first CQE. */
	CHECK(modify_cq(p.nb, cqn, 0, 0) == 0);
	arm_cq(p.nb, &p.bcq, seq++, ORCA_CQ_ARM_ANY);
	CHECK(sends(&p, 1, &id, true));
	CHECK(comp_events(p.nb, cqn) == 1);
	CHECK(stats(p.nb).cq_mod_timer_events == timer_ev + 2);

	/* Torn down while a CQ's timer runs (ASan sees what it leaves). */
	CHECK(modify_cq(p.nb, cqn, 16, EMU_MAX_CQ_MOD_PERIOD) == 0);
	arm_cq(p.nb, &p.bcq, seq++, ORCA_CQ_ARM_ANY);
	CHECK(sends(&p, 1, &id, true));
	pair_fini(&p);
	ktap_case_end(name);
}

/*
 * More UAR writes than the doorbell queue holds, while the engine is held
 * (a driver arming thousands of CQs at once does this on a loaded host):
 * the lost doorbells must still act: a CQ whose CQE beat its arm gets its
 * event, a receive posted to a QP in ERR is flushed.  (Lost send queue
 * doorbells are covered by the queues' own polling and the kick.)
 */
static void test_doorbells_lost(void)
{
	struct orca_qp_attr a = { 0 };
	struct orca_send_wqe_hdr h;
	uint64_t lost;
	struct pair p;
	struct tsge s, r;
	struct tcq ecq;
	struct tqp eqp;

	if (!pair_init(&p, false, 0, 3) || !node_cq(p.nb, &ecq, 8) ||
	    !node_qp(p.nb, &eqp, ORCA_QPT_RC, &ecq, &ecq)) {
		CHECK(!"setup");
		ktap_case_end("doorbells_lost_to_a_full_queue_still_act");
		return;
	}
	s = (struct tsge){ IOVA_A, 8, p.abuf.key };
	r = (struct tsge){ IOVA_B, 64, p.bbuf.key };
	a.attr_mask = htole32(ORCA_QP_ATTR_STATE | ORCA_QP_ATTR_PKEY_INDEX |
			      ORCA_QP_ATTR_PORT | ORCA_QP_ATTR_ACCESS_FLAGS);
	a.qp_state = ORCA_QPS_INIT;
	a.port = 1;
	CHECK(node_modify(p.nb, &eqp, &a) == 0);
	a = (struct orca_qp_attr){ .attr_mask = htole32(ORCA_QP_ATTR_STATE),
				   .qp_state = ORCA_QPS_ERR };
	CHECK(node_modify(p.nb, &eqp, &a) == 0);
	/* A CQE on B's CQ before the arm: the arm needs its doorbell. */
	post_recv(p.nb, &p.bqp, 1400, &r, 1);
	h = wqe(ORCA_WQE_SEND, 1410);
	post_send(p.na, &p.aqp, &h, &s, 1);
	CHECK(expect_cqe(p.na, &p.acq, 1410, ORCA_CQE_SEND,
			 ORCA_CQE_ST_SUCCESS, NULL));
	comp_events(p.nb, p.bcq.cqn);
	lost = stats(p.nb).db_lost;

	/*
	 * Held, the engine takes no doorbell; a pass already under way takes
	 * at most one batch.  Twice the queue of writes for no QP fills it,
	 * so the three that matter are lost.
	 */
	p.nb->t.eng->host.ops = &fh_stall_ops;
	atomic_store(&fh_stall, true);
	for (int i = 0; i < 2 * ROCE_DBQ_LEN; i++)
		engine_uar_write(p.nb->t.eng, p.nb->uar, ORCA_UAR_SQ_DB,
				 0xfffff0);
	arm_cq(p.nb, &p.bcq, 1, ORCA_CQ_ARM_ANY);
	engine_uar_write(p.nb->t.eng, p.nb->uar, ORCA_UAR_CQ_DB, p.bcq.cqn);
	post_recv(p.nb, &eqp, 1401, &r, 1);	/* rings: the flush set none */
	atomic_store(&fh_stall, false);

	/* All but what the queue and one batch held; at least 2 of ours. */
	CHECK(stats(p.nb).db_lost >= lost + ROCE_DBQ_LEN + 2 - 64);
	CHECK(comp_events(p.nb, p.bcq.cqn) == 1);
	CHECK(expect_cqe(p.nb, &p.bcq, 1400, ORCA_CQE_RECV,
			 ORCA_CQE_ST_SUCCESS, NULL));
	CHECK(expect_cqe(p.nb, &ecq, 1401, ORCA_CQE_RECV,
			 ORCA_CQE_ST_WR_FLUSH_ERR, NULL));
	p.nb->t.eng->host.ops = &fh_ops;
	pair_fini(&p);
	ktap_case_end("doorbells_lost_to_a_full_queue_still_act");
}

/* An RC QP of @n on SRQ @q, both its queues' completions on @cq. */
static bool node_srq_qp(struct node *n, struct tsrq *q, struct tcq *cq,
			struct tqp *sq)
{
	unsigned int log = 7, sge = 4;
	uint32_t sq_bytes = orca_send_wqe_stride(sge) << log;
	struct orca_cmd_create_qp in = {
		.qp_type = ORCA_QPT_RC, .page_shift = 12,
		.log_sq_depth = log, .pdn = htole32(n->pdn),
		.send_cqn = htole32(cq->cqn), .recv_cqn = htole32(cq->cqn),
		.srqn = htole32(q->srqn),
		.flags = htole32(ORCA_QP_F_USE_SRQ),
		.max_send_sge = sge,
		.sq_npages = htole32(sq_bytes / 4096),
		.uar = htole32(n->uar),
	};
	struct tcmd cmd = { .opcode = ORCA_CMD_CREATE_QP, .in = &in,
			    .in_size = sizeof(in) };
	uint64_t list = galloc(&n->t, 8ull * (sq_bytes / 4096), 8);
	uint64_t *l = gptr(&n->t, list);
	int64_t v;

	memset(sq, 0, sizeof(*sq));
	sq->type = ORCA_QPT_RC;
	sq->log_sq = log;
	sq->max_sge = sge;
	sq->uar = n->uar;
	sq->sq = galloc(&n->t, sq_bytes, 0);
	sq->rec = galloc(&n->t, 64, 64);
	for (uint32_t i = 0; i < sq_bytes / 4096; i++)
		l[i] = htole64(sq->sq + 4096ull * i);
	in.db_rec_addr = htole64(sq->rec);
	cmd.in_addr = list;
	cmd.in_len = 8 * (sq_bytes / 4096);
	v = th_handle_or_neg(&n->t, th_exec(&n->t, &cmd));
	if (v <= 0)
		return false;
	sq->qpn = (uint32_t)v;
	return true;
}

/*
 * MODIFY_SRQ with ORCA_MODIFY_SRQ_F_RESIZE: @log_depth, a ring at @ring
 * (contiguous) described by a page list in guest memory, @flags added.
 */
static int srq_resize(struct node *n, struct tsrq *q, uint8_t log_depth,
		      uint64_t ring, uint32_t npages, uint32_t flags,
		      uint64_t bad_page)
{
	struct orca_cmd_modify_srq in = {
		.srqn = htole32(q->srqn),
		.flags = htole32(ORCA_MODIFY_SRQ_F_RESIZE |
				 ORCA_MODIFY_SRQ_F_KEEP_LIMIT | flags),
		.log_depth = log_depth, .page_shift = 12,
		.npages = htole32(npages),
	};
	uint32_t real = orca_queue_npages((uint64_t)orca_recv_wqe_stride(q->max_sge)
					  << log_depth, 12);
	uint64_t list = galloc(&n->t, 8ull * real, 8);
	uint64_t *l = gptr(&n->t, list);
	struct tcmd cmd = { .opcode = ORCA_CMD_MODIFY_SRQ, .in = &in,
			    .in_size = sizeof(in), .in_addr = list,
			    .in_len = 8 * real };

	for (uint32_t i = 0; i < real; i++)
		l[i] = htole64(ring + 4096ull * i);
	if (bad_page != UINT64_MAX)
		l[real - 1] = htole64(bad_page);
	return th_exec(&n->t, &cmd);
}

/* One SEND of 64 bytes from @aqp; B's next receive CQE must be @wr_id. */
static bool srq_take(struct pair *p, struct tqp *aqp, struct tcq *cq,
		     uint64_t wr_id, uint32_t idx)
{
	struct tsge s = { IOVA_A, 64, p->abuf.key };
	struct orca_send_wqe_hdr h = wqe(ORCA_WQE_SEND, 0x7000 + wr_id);
	struct orca_cqe c;

	post_send(p->na, aqp, &h, &s, 1);
	if (!expect_cqe(p->na, &p->acq, 0x7000 + wr_id, ORCA_CQE_SEND,
			ORCA_CQE_ST_SUCCESS, NULL) ||
	    !expect_cqe(p->nb, cq, wr_id, ORCA_CQE_RECV, ORCA_CQE_ST_SUCCESS,
			&c))
		return false;
	if (le16toh(c.wqe_idx) != (uint16_t)idx) {
		printf("# wr_id %llu: wqe_idx %u, want %u\n",
		       (unsigned long long)wr_id, le16toh(c.wqe_idx), idx);
		return false;
	}
	return true;
}

/*
 * SRQ resize (MODIFY_SRQ, 1.4): with 30 WQEs posted and unconsumed, a
 * resize to fewer slots than that, a page list of the wrong length, with
 * an unmapped or a zero page, or an unknown flag is refused and the SRQ
 * keeps its ring; a resize from 64 to 256 slots moves the 30 WQEs (the
 * old ring is then poisoned), 100 more posted into the new ring make 130,
 * more than the old ring held; all are taken in order, their wr_ids and
 * indices unchanged.  Shrinking back to 64 with nothing posted works.
 */
static void test_srq_resize(void)
{
	const char *name = "srq_resize_keeps_posted_wqes_in_order_refuses_bad";
	uint32_t stride, idx = 0;
	uint64_t big, old;
	struct tqp sq, aqp2;
	struct pair p;
	struct tsrq q;
	struct tcq cq;
	struct tsge r;
	struct rc_opts o = { .path_mtu = 3, .timeout = 14, .retry_cnt = 7,
			     .rnr_retry = 7, .min_rnr_timer = 1,
			     .access = all_access };
	bool ok = true;

	if (!pair_init(&p, false, 0, 3)) {
		CHECK(!"setup");
		ktap_case_end("%s", name);
		return;
	}
	CHECK(node_srq(p.nb, &q, 0));
	CHECK(node_cq(p.nb, &cq, 10));
	CHECK(node_srq_qp(p.nb, &q, &cq, &sq));
	CHECK(node_qp(p.na, &aqp2, ORCA_QPT_RC, &p.acq, &p.acq));
	CHECK(node_connect(p.na, &aqp2, p.nb, sq.qpn, &o));
	CHECK(node_connect(p.nb, &sq, p.na, aqp2.qpn, &o));
	stride = orca_recv_wqe_stride(q.max_sge);

	r = (struct tsge){ IOVA_B + 4096, 64, p.bbuf.key };
	for (int i = 0; i < 40; i++)
		post_srq_recv(p.nb, &q, 2000 + i, &r);
	for (int i = 0; i < 10 && ok; i++)
		ok = srq_take(&p, &aqp2, &cq, 2000 + i, idx++);
	CHECK(ok);

	/* 30 posted: refused, the SRQ keeps its ring. */
	big = galloc(&p.nb->t, (uint64_t)stride << 8, 0);
	CHECK(srq_resize(p.nb, &q, 4, big, 1, 0, UINT64_MAX) ==
	      ORCA_CMD_ST_BAD_PARAM);			/* 16 < 30 */
	CHECK(srq_resize(p.nb, &q, 8, big, 3, 0, UINT64_MAX) ==
	      ORCA_CMD_ST_BAD_PARAM);			/* npages */
	CHECK(srq_resize(p.nb, &q, 8, big, (stride << 8) / 4096, 0,
			 0x7ff0000000ull) == ORCA_CMD_ST_DMA_ERROR);
	CHECK(srq_resize(p.nb, &q, 8, big, (stride << 8) / 4096, 0, 0) ==
	      ORCA_CMD_ST_BAD_PARAM);			/* page 0 */
	CHECK(srq_resize(p.nb, &q, 8, big, (stride << 8) / 4096, 1u << 7,
			 UINT64_MAX) == ORCA_CMD_ST_BAD_PARAM);
	CHECK(srq_resize(p.nb, &q, 15, big, (stride << 15) / 4096, 0,
			 UINT64_MAX) == ORCA_CMD_ST_BAD_PARAM);	/* > max */
	ok = srq_take(&p, &aqp2, &cq, 2010, idx++);
	CHECK(ok);

	/* Grow to 256: the 29 left move; the old ring is poisoned. */
	CHECK(srq_resize(p.nb, &q, 8, big, (stride << 8) / 4096, 0,
			 UINT64_MAX) == ORCA_CMD_ST_OK);
	old = q.ring;
	memset(gptr(&p.nb->t, old), 0xff, (size_t)stride << q.log);
	q.ring = big;
	q.log = 8;
	for (int i = 40; i < 140; i++)
		post_srq_recv(p.nb, &q, 2000 + i, &r);
	for (int i = 11; i < 140 && ok; i++)
		ok = srq_take(&p, &aqp2, &cq, 2000 + i, idx++);
	CHECK(ok);

	/* Nothing posted: shrinking back to 64 slots is fine. */
	CHECK(srq_resize(p.nb, &q, 6, old, 1, 0, UINT64_MAX) ==
	      ORCA_CMD_ST_OK);
	memset(gptr(&p.nb->t, old), 0, (size_t)stride << 6);
	q.ring = old;
	q.log = 6;
	for (int i = 140; i < 143; i++)
		post_srq_recv(p.nb, &q, 2000 + i, &r);
	for (int i = 140; i < 143 && ok; i++)
		ok = srq_take(&p, &aqp2, &cq, 2000 + i, idx++);
	CHECK(ok);
	pair_fini(&p);
	ktap_case_end("%s", name);
}

/*
 * A tagged SRQ (1.5, ORCA_CREATE_SRQ_F_TAG): the WQEs are still taken in
 * ring order, and each CQE reports the tag its WQE carries, whatever its
 * value, in wqe_idx; the index is nowhere.  An untagged SRQ's CQEs report
 * the index, as test_srq_resize checks.
 */
static void test_srq_tagged(void)
{
	static const uint16_t tags[] = { 5, 0, 0xffff, 63, 64, 5, 0x8000, 1 };
	struct rc_opts o = { .path_mtu = 3, .timeout = 14, .retry_cnt = 7,
			     .rnr_retry = 7, .min_rnr_timer = 1,
			     .access = all_access };
	struct tqp sq, aqp2;
	struct pair p;
	struct tsrq q;
	struct tcq cq;
	struct tsge r;
	bool ok = true;
	unsigned int i;

	if (!pair_init(&p, false, 0, 3)) {
		CHECK(!"setup");
		ktap_case_end("srq_tagged_cqe_reports_the_tag");
		return;
	}
	CHECK(node_srq_flags(p.nb, &q, 0, ORCA_CREATE_SRQ_F_TAG));
	CHECK(node_cq(p.nb, &cq, 10));
	CHECK(node_srq_qp(p.nb, &q, &cq, &sq));
	CHECK(node_qp(p.na, &aqp2, ORCA_QPT_RC, &p.acq, &p.acq));
	CHECK(node_connect(p.na, &aqp2, p.nb, sq.qpn, &o));
	CHECK(node_connect(p.nb, &sq, p.na, aqp2.qpn, &o));
	r = (struct tsge){ IOVA_B + 4096, 64, p.bbuf.key };
	for (i = 0; i < 8; i++)
		post_srq_recv_tag(p.nb, &q, 3000 + i, &r, tags[i]);
	for (i = 0; i < 8 && ok; i++)
		ok = srq_take(&p, &aqp2, &cq, 3000 + i, tags[i]);
	CHECK(ok);
	pair_fini(&p);
	ktap_case_end("srq_tagged_cqe_reports_the_tag");
}

/* An RC QP on an SRQ; the SRQ limit event; RQ flush on ERR. */
static void test_srq_and_flush(void)
{
	struct pair p;
	struct tsrq q;
	struct tcq cq;
	struct tqp sq;
	struct orca_send_wqe_hdr h;
	struct orca_qp_attr a = { 0 };
	struct orca_cqe c;
	struct orca_eqe e;
	struct tsge s, r;
	struct rc_opts o = { .path_mtu = 3, .timeout = 14, .retry_cnt = 7,
			     .rnr_retry = 7, .min_rnr_timer = 1,
			     .access = all_access };
	struct tqp aqp2;
	int limit_events = 0;
	unsigned int rq_rings;

	if (!pair_init(&p, false, 0, 3)) {
		CHECK(!"setup");
		ktap_case_end("srq_receive_limit_event_and_rq_flush");
		return;
	}
	CHECK(node_srq(p.nb, &q, 2));
	CHECK(node_cq(p.nb, &cq, 8));
	/* B's QP on the SRQ, connected to a second QP on A. */
	CHECK(node_qp(p.na, &aqp2, ORCA_QPT_RC, &p.acq, &p.acq));
	CHECK(node_srq_qp(p.nb, &q, &cq, &sq));
	CHECK(node_connect(p.na, &aqp2, p.nb, sq.qpn, &o));
	CHECK(node_connect(p.nb, &sq, p.na, aqp2.qpn, &o));

	r = (struct tsge){ IOVA_B + 4096, 1000, p.bbuf.key };
	rq_rings = p.nb->rq_rings;
	for (int i = 0; i < 4; i++)
		post_srq_recv(p.nb, &q, 1300 + i, &r);
	s = (struct tsge){ IOVA_A, 700, p.abuf.key };
	buf_fill(p.na, &p.abuf, 0, 700, 41);
	for (int i = 0; i < 3; i++) {
		h = wqe(ORCA_WQE_SEND, 1310 + i);
		post_send(p.na, &aqp2, &h, &s, 1);
		CHECK(expect_cqe(p.nb, &cq, 1300 + i, ORCA_CQE_RECV,
				 ORCA_CQE_ST_SUCCESS, &c));
		CHECK(le32toh(c.qpn) == sq.qpn && le32toh(c.byte_len) == 700);
	}
	CHECK(buf_check(p.nb, &p.bbuf, 4096, 700, 41));
	engine_flush(p.nb->t.eng);
	while (th_eq0_next(&p.nb->t, &e))
		limit_events += e.type == ORCA_EQE_SRQ_LIMIT &&
				le32toh(e.data) == q.srqn;
	CHECK(limit_events == 1);	/* 1 left < limit 2, then disarmed */
	/* An SRQ's posts never ring (the SRQ ran empty in between). */
	post_srq_recv(p.nb, &q, 1304, &r);
	CHECK(p.nb->srq_rings == 0);

	/*
	 * B's first QP (own RQ) to ERR: its posted receives flush.  Until
	 * then posting receives rings no doorbell: the first ones after
	 * creation neither, nor those after its RQ ran empty.
	 */
	for (int i = 0; i < 3; i++)
		post_recv(p.nb, &p.bqp, 1320 + i, &r, 1);
	CHECK(p.nb->rq_rings == rq_rings);
	a.attr_mask = htole32(ORCA_QP_ATTR_STATE);
	a.qp_state = ORCA_QPS_ERR;
	CHECK(node_modify(p.nb, &p.bqp, &a) == 0);
	for (int i = 0; i < 3; i++)
		CHECK(expect_cqe(p.nb, &p.bcq, 1320 + i, ORCA_CQE_RECV,
				 ORCA_CQE_ST_WR_FLUSH_ERR, NULL));
	/* Posting to a QP in ERR rings, and completes flushed too. */
	post_recv(p.nb, &p.bqp, 1323, &r, 1);
	CHECK(p.nb->rq_rings == rq_rings + 1);
	CHECK(expect_cqe(p.nb, &p.bcq, 1323, ORCA_CQE_RECV,
			 ORCA_CQE_ST_WR_FLUSH_ERR, NULL));
	post_recv(p.nb, &p.bqp, 1324, &r, 1);
	CHECK(p.nb->rq_rings == rq_rings + 2);
	CHECK(expect_cqe(p.nb, &p.bcq, 1324, ORCA_CQE_RECV,
			 ORCA_CQE_ST_WR_FLUSH_ERR, NULL));
	pair_fini(&p);
	ktap_case_end("srq_receive_limit_event_and_rq_flush");
}

/*
 * Hostile peer: well-formed RoCE frames with random opcodes, PSNs, keys,
 * addresses and lengths aimed at a live RC QP (and random QPNs).  The
 * adapter must survive (this runs under ASan/UBSan), keep executing
 * commands, and never write outside what its MRs allow.
 */
static void test_hostile_peer(void)
{
	static const uint8_t ops[] = {
		ROCE_RC_SEND_FIRST, ROCE_RC_SEND_MIDDLE, ROCE_RC_SEND_LAST,
		ROCE_RC_SEND_ONLY_IMM, ROCE_RC_WRITE_FIRST, ROCE_RC_WRITE_LAST,
		ROCE_RC_WRITE_ONLY, ROCE_RC_WRITE_ONLY_IMM, ROCE_RC_READ_REQ,
		ROCE_RC_READ_RESP_FIRST, ROCE_RC_READ_RESP_ONLY, ROCE_RC_ACK,
		ROCE_RC_ATOMIC_ACK, ROCE_RC_CMP_SWAP, ROCE_RC_FETCH_ADD,
		ROCE_RC_SEND_ONLY_INV, ROCE_UD_SEND_ONLY,
	};
	static uint8_t frame[ROCE_MAX_FRAME], payload[4096];
	uint64_t guard_before, guard_after, *g1, *g2;
	uint64_t rng = 0x1234567;
	int revived = 0;
	struct pair p;
	struct tsge r;

	if (!pair_init(&p, false, 0, 3)) {
		CHECK(!"setup");
		ktap_case_end("hostile_peer_frames_no_crash");
		return;
	}
	/* Guard words just outside B's MR (not covered by it). */
	g1 = gptr(&p.nb->t, p.bbuf.pages[p.bbuf.npages - 1] - 8);
	g2 = gptr(&p.nb->t, p.bbuf.pages[0] + 4096);
	*g1 = guard_before = 0x5555aaaa5555aaaaull;
	*g2 = guard_after = 0xaaaa5555aaaa5555ull;
	r = (struct tsge){ IOVA_B, 2000, p.bbuf.key };
	for (int i = 0; i < 8; i++)
		post_recv(p.nb, &p.bqp, 1400 + i, &r, 1);
	for (int i = 0; i < 20000; i++) {
		struct roce_pkt k = { 0 };
		size_t len;

		rng ^= rng << 13;
		rng ^= rng >> 7;
		rng ^= rng << 17;
		k.opcode = ops[rng % sizeof(ops)];
		memcpy(k.dmac, p.nb->mac, 6);
		memcpy(k.smac, p.na->mac, 6);
		k.vlan = ROCE_NO_VLAN;
		node_gid(p.na, k.sgid);
		node_gid(p.nb, k.dgid);
		k.hop_limit = 64;
		k.pkey = ROCE_DEFAULT_PKEY;
		k.dest_qpn = (rng >> 8) % 8 ? p.bqp.qpn : (rng >> 12) & 0xffffff;
		k.psn = (0xfffff0 + p.bqp.qpn + (uint32_t)((rng >> 16) % 64) -
			 8) & ROCE_PSN_MASK;
		k.ack_req = rng & 1;
		k.reth_va = (rng >> 20) % 3 ? IOVA_B + (rng >> 24) % BUF_LEN :
					      rng;
		k.reth_rkey = (rng >> 30) % 4 ? p.bbuf.key : (uint32_t)rng;
		k.reth_len = (rng >> 33) % 2 ? (uint32_t)(rng >> 36) % 8192 :
					       (uint32_t)(rng >> 32);
		k.atm_va = k.reth_va;
		k.atm_rkey = k.reth_rkey;
		k.ieth_rkey = k.reth_rkey;
		k.aeth_syndrome = (uint8_t)(rng >> 40);
		k.deth_qkey = (uint32_t)(rng >> 8);
		if (roce_opinfo(k.opcode)->flags & ROCE_K_PAYLOAD)
			k.paylen = (rng >> 44) % 3 ? 1024 :
				   (uint32_t)(rng >> 48) % 1500;
		k.payload = payload;
		len = roce_build(frame, sizeof(frame), &k);
		if (len)
			engine_roce_rx(p.nb->t.eng, frame, len);
		if (!(i % 64)) {
			/* Revive B's QP when the garbage moved it to ERR. */
			struct orca_qp_attr a = { 0 };
			struct rc_opts o = { .path_mtu = 3, .timeout = 14,
					     .retry_cnt = 7, .rnr_retry = 7,
					     .access = all_access };

			engine_flush(p.nb->t.eng);
			a.attr_mask = htole32(ORCA_QP_ATTR_STATE);
			a.qp_state = ORCA_QPS_RESET;
			CHECK(node_modify(p.nb, &p.bqp, &a) == 0);
			p.bqp.sq_pi = p.bqp.rq_pi = 0;
			memset(qp_rec(p.nb, &p.bqp), 0,
			       sizeof(struct orca_qp_db_rec));
			CHECK(node_connect(p.nb, &p.bqp, p.na, p.aqp.qpn, &o));
			for (int j = 0; j < 8; j++)
				post_recv(p.nb, &p.bqp, 1400 + j, &r, 1);
			revived++;
		}
	}
	engine_flush(p.nb->t.eng);
	engine_flush(p.na->t.eng);
	CHECK(*g1 == guard_before && *g2 == guard_after);
	/* Both adapters still execute commands. */
	CHECK(th_cmd(&p.nb->t, ORCA_CMD_NOP, NULL, 0) == ORCA_CMD_ST_OK);
	CHECK(th_cmd(&p.na->t, ORCA_CMD_NOP, NULL, 0) == ORCA_CMD_ST_OK);
	printf("# B: %d QP revivals, %llu frames for unknown QPs, %llu in "
	       "bad states, %llu error NAKs sent\n", revived,
	       (unsigned long long)stats(p.nb).drop_no_qp,
	       (unsigned long long)stats(p.nb).drop_state,
	       (unsigned long long)stats(p.nb).err_naks_tx);
	pair_fini(&p);
	ktap_case_end("hostile_peer_frames_no_crash");
}

/* RTS -> SQD: in-flight WQEs finish, then SQ_DRAINED; nothing new starts. */
static void test_sqd_drain(void)
{
	struct pair p;
	struct orca_send_wqe_hdr h;
	struct orca_qp_attr a = { 0 };
	struct orca_eqe e;
	struct tsge s, r;
	int drained = 0;

	if (!pair_init(&p, false, 0, 1)) {
		CHECK(!"setup");
		ktap_case_end("sqd_drains_then_sq_drained_event");
		return;
	}
	r = (struct tsge){ IOVA_B, BUF_LEN, p.bbuf.key };
	s = (struct tsge){ IOVA_A, BUF_LEN, p.abuf.key };
	post_recv(p.nb, &p.bqp, 1500, &r, 1);
	post_recv(p.nb, &p.bqp, 1501, &r, 1);
	h = wqe(ORCA_WQE_SEND, 1502);		/* 4096 packets at MTU 256 */
	post_send(p.na, &p.aqp, &h, &s, 1);
	/* Once it is on the wire, it is in flight: SQD lets it finish. */
	for (int ms = 0; atomic_load(&p.na->sent) < 64 && ms < WAIT_MS; ms++)
		th_sleep_ms(1);
	a.attr_mask = htole32(ORCA_QP_ATTR_STATE | ORCA_QP_ATTR_EN_SQD_ASYNC);
	a.qp_state = ORCA_QPS_SQD;
	CHECK(node_modify(p.na, &p.aqp, &a) == 0);
	h = wqe(ORCA_WQE_SEND, 1503);		/* posted in SQD: waits */
	s.len = 10;
	post_send(p.na, &p.aqp, &h, &s, 1);
	CHECK(expect_cqe(p.na, &p.acq, 1502, ORCA_CQE_SEND,
			 ORCA_CQE_ST_SUCCESS, NULL));
	engine_flush(p.na->t.eng);
	while (th_eq0_next(&p.na->t, &e))
		drained += e.type == ORCA_EQE_SQ_DRAINED &&
			   le32toh(e.data) == p.aqp.qpn;
	CHECK(drained == 1);
	/* Back to RTS: the waiting WQE goes. */
	a.attr_mask = htole32(ORCA_QP_ATTR_STATE);
	a.qp_state = ORCA_QPS_RTS;
	CHECK(node_modify(p.na, &p.aqp, &a) == 0);
	CHECK(expect_cqe(p.na, &p.acq, 1503, ORCA_CQE_SEND,
			 ORCA_CQE_ST_SUCCESS, NULL));
	pair_fini(&p);
	ktap_case_end("sqd_drains_then_sq_drained_event");
}

/*
 * A pair on a wire that has lost (a NAKed gap) and has measured a round
 * trip: the ground the tail loss probe needs.  @d drops on p->na's side.
 */
static bool lossy_pair(struct pair *p, struct dropper *d)
{
	if (!pair_init_to(p, false, 0, 3, 18))
		return false;
	d->n = p->na;
	engine_set_roce_tx(p->na->t.eng, dropper_tx, d);
	if (backoff_write(p, 4096, 0, 0, d, 1) &&	/* a round trip */
	    backoff_write(p, 4096, 1, 0, d, 2) &&	/* a NAKed gap */
	    backoff_write(p, 4096, 0, 0, d, 3))
		return true;
	pair_fini(p);
	return false;
}

/*
 * A lost tail packet on a wire that loses (a NAKed gap seen, a round trip
 * measured): the last packet of a 4-packet WRITE is dropped once.  Nothing
 * follows it, so nobody sees a gap; the tail loss probe (roce_priv.h:
 * ROCE_TLP_MIN_US) sends that last packet again after twice the round
 * trip, and the WRITE completes having resent one packet, where the early
 * timeout (1 ms later at least) would have resent all four.
 */
static void test_tail_loss_probe(void)
{
	static struct dropper d;
	struct roce_stats st0, st;
	struct pair p;
	bool ok;

	if (!lossy_pair(&p, &d)) {
		CHECK(!"setup");
		ktap_case_end("tail_loss_probe_resends_the_last_packet_only");
		return;
	}
	ok = true;
	st0 = stats(p.na);
	atomic_store(&d.last, 1);
	ok = ok && backoff_write(&p, 4096, 0, 0, &d, 4);
	CHECK(ok && atomic_load(&d.last) <= 0);
	st = stats(p.na);
	printf("# the lost tail: %llu probe(s), %llu packet(s) resent, %llu early retries, %llu timeouts\n",
	       (unsigned long long)(st.tail_probes - st0.tail_probes),
	       (unsigned long long)(st.retransmits - st0.retransmits),
	       (unsigned long long)(st.fast_retries - st0.fast_retries),
	       (unsigned long long)(st.timeouts - st0.timeouts));
	CHECK(st.tail_probes - st0.tail_probes >= 1);
	/* Not the whole message again, as go-back-N from una would. */
	CHECK(st.retransmits - st0.retransmits < 4);
	CHECK(st.timeouts == st0.timeouts);
	pair_fini(&p);
	ktap_case_end("tail_loss_probe_resends_the_last_packet_only");
}

/* The responder's side: drops its next @nak sequence NAKs. */
struct nak_dropper {
	struct node *n;
	atomic_int nak;
};

static void nak_dropper_tx(void *ctx, const uint8_t *frame, size_t len)
{
	struct nak_dropper *d = ctx;

	/* BTH at 42, AETH after its 12 bytes: syndrome 011x xxxx, code 0. */
	if (len > 58 && frame[42] == ROCE_RC_ACK &&
	    (frame[54] & 0xe0) == 0x60 && (frame[54] & 0x1f) == 0 &&
	    drop_one(&d->nak))
		return;
	node_tx(d->n, frame, len);
}

/*
 * A gap whose sequence NAK is lost: the responder NAKs a gap once, then
 * drops everything but the PSN it waits for, the tail loss probe too.
 * The unanswered probe sends the QP back to una one round trip (and its
 * variance) later, not at the early timeout's 1 ms margin; every byte
 * arrives, no full timeout.  Which of the two went back is printed.
 */
static void test_lost_nak(void)
{
	static struct dropper d;
	static struct nak_dropper nd;
	struct roce_stats st0, st;
	struct pair p;
	bool ok;

	if (!lossy_pair(&p, &d)) {
		CHECK(!"setup");
		ktap_case_end("lost_sequence_nak_recovered_after_unanswered_probe");
		return;
	}
	nd.n = p.nb;
	engine_set_roce_tx(p.nb->t.eng, nak_dropper_tx, &nd);
	ok = true;
	st0 = stats(p.na);
	atomic_store(&nd.nak, 1);
	ok = ok && backoff_write(&p, 4096, 1, 0, &d, 4);
	CHECK(ok && atomic_load(&nd.nak) <= 0);
	st = stats(p.na);
	printf("# the lost NAK: %llu probe(s), %llu unanswered, %llu early retries, %llu timeouts\n",
	       (unsigned long long)(st.tail_probes - st0.tail_probes),
	       (unsigned long long)(st.probe_retries - st0.probe_retries),
	       (unsigned long long)(st.fast_retries - st0.fast_retries),
	       (unsigned long long)(st.timeouts - st0.timeouts));
	CHECK(st.tail_probes - st0.tail_probes >= 1);
	/*
	 * Back to una: after the unanswered probe (idle: every run), or at
	 * the early timeout when a loaded host's round trips vary by more
	 * than its 1 ms margin (seen with two tests at once).
	 */
	CHECK(st.fast_retries - st0.fast_retries >= 1);
	CHECK(st.timeouts == st0.timeouts);
	pair_fini(&p);
	ktap_case_end("lost_sequence_nak_recovered_after_unanswered_probe");
}

int main(void)
{
	ktap_plan(25);
	test_rc_ops(false, 3, "rc_send_write_read_atomics_two_adapters_mtu1024");
	test_rc_ops(false, 1, "rc_send_write_read_atomics_two_adapters_mtu256");
	test_rc_ops(true, 3, "rc_all_ops_loopback_one_adapter");
	test_loss();
	test_lossy_128k();
	test_window_halves_on_loss();
	test_slow_peer();
	test_early_backoff_ends_with_progress();
	test_tail_loss_probe();
	test_lost_nak();
	test_remote_access_errors();
	test_local_errors();
	test_rnr();
	test_ud();
	test_fast_reg();
	test_fast_reg_page_shift_chain();
	test_cq_arm();
	test_cq_moderation();
	test_doorbells_lost();
	test_srq_and_flush();
	test_srq_resize();
	test_srq_tagged();
	test_hostile_peer();
	test_sqd_drain();
	{
		/* Frames from nowhere: garbage and unknown QPs are counted. */
		struct node n;
		uint8_t junk[100] = { 0 };
		struct roce_stats st;

		CHECK(node_init(&n, 7));
		engine_roce_rx(n.t.eng, junk, sizeof(junk));
		st = stats(&n);
		CHECK(st.rx_frames == 1);
		node_fini(&n);
		ktap_case_end("garbage_frames_dropped");
	}
	return ktap_finish();
}

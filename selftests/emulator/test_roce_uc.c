// SPDX-License-Identifier: GPL-2.0
/*
 * UC QPs end to end between two adapters (engines with fake hosts) on an
 * in-process wire that sees every frame: SEND and WRITE, with and without
 * immediate, of one and many packets, every byte verified; nothing but UC
 * request opcodes on the wire, never AckReq and never an ACK; a lost
 * middle packet drops its message silently and the next message lands
 * (in the receive WQE the lost one had taken); requests the responder
 * cannot take are dropped, not NAKed, and the QP stays up; READ, atomics
 * and the other RC-only WQEs complete in error; the state machine takes
 * UC's attributes and refuses RC's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ktap.h"
#include "roce_node.h"

#define WAIT_MS		10000
#define IOVA_A		0x7f0000001000ull
#define IOVA_B		0x7e0000000800ull
#define BUF_LEN		(1u << 18)

/* The wire from one node to its peer, which sees (and may drop) frames. */
struct tap {
	struct node *n;
	atomic_uint frames;		/* RoCE frames seen */
	atomic_int drop_at;		/* frame index to drop, -1: none */
	atomic_uint dropped;
	atomic_uint not_uc;		/* frames with another opcode */
	atomic_uint ack_req;		/* frames asking for an ACK */
};

static void tap_tx(void *ctx, const uint8_t *frame, size_t len)
{
	struct tap *t = ctx;
	struct roce_pkt k;
	unsigned int i = atomic_fetch_add(&t->frames, 1);

	if (roce_parse(frame, len, &k) == ROCE_RX_OK) {
		if (k.opcode < ROCE_UC_SEND_FIRST ||
		    k.opcode > ROCE_UC_WRITE_ONLY_IMM)
			atomic_fetch_add(&t->not_uc, 1);
		if (k.ack_req)
			atomic_fetch_add(&t->ack_req, 1);
	} else {
		atomic_fetch_add(&t->not_uc, 1);
	}
	if ((int)i == atomic_load(&t->drop_at)) {
		atomic_fetch_add(&t->dropped, 1);
		return;
	}
	engine_roce_rx(t->n->peer->t.eng, frame, len);
}

struct ucpair {
	struct node a, b;
	struct tap ta, tb;
	struct tcq acq, bcq;
	struct tqp aqp, bqp;
	struct tbuf abuf, bbuf;
};

static int modify(struct node *n, struct tqp *qp, uint32_t mask,
		  uint8_t state, struct orca_qp_attr *a)
{
	a->attr_mask = htole32(mask | ORCA_QP_ATTR_STATE);
	a->qp_state = state;
	return node_modify(n, qp, a);
}

/*
 * RESET -> INIT -> RTR -> RTS with UC's attributes (ib_modify_qp_is_ok()):
 * first each transition with an RC-only attribute added, which the
 * adapter must refuse.
 */
static bool uc_connect(struct node *n, struct tqp *qp, struct node *peer,
		       uint32_t rqpn, uint32_t access)
{
	const uint32_t rtr = ORCA_QP_ATTR_AV | ORCA_QP_ATTR_PATH_MTU |
			     ORCA_QP_ATTR_DEST_QPN | ORCA_QP_ATTR_RQ_PSN;
	struct orca_qp_attr a = { 0 };

	a.port = 1;
	a.access = htole32(access);
	if (modify(n, qp, ORCA_QP_ATTR_PKEY_INDEX | ORCA_QP_ATTR_PORT |
		   ORCA_QP_ATTR_QKEY | ORCA_QP_ATTR_ACCESS_FLAGS,
		   ORCA_QPS_INIT, &a) != ORCA_CMD_ST_BAD_PARAM)
		return false;
	/* Without ACCESS_FLAGS, which UC requires. */
	if (modify(n, qp, ORCA_QP_ATTR_PKEY_INDEX | ORCA_QP_ATTR_PORT,
		   ORCA_QPS_INIT, &a) != ORCA_CMD_ST_BAD_PARAM)
		return false;
	if (modify(n, qp, ORCA_QP_ATTR_PKEY_INDEX | ORCA_QP_ATTR_PORT |
		   ORCA_QP_ATTR_ACCESS_FLAGS, ORCA_QPS_INIT, &a))
		return false;
	memset(&a, 0, sizeof(a));
	a.path_mtu = 3;				/* 1024 */
	a.dest_qpn = htole32(rqpn);
	a.rq_psn = htole32(0xfffffe - qp->qpn);	/* wraps soon */
	a.max_dest_rd_atomic = 1;
	node_gid(peer, a.av.dgid);
	memcpy(a.av.dmac, peer->mac, 6);
	a.av.hop_limit = 64;
	if (modify(n, qp, rtr | ORCA_QP_ATTR_MAX_DEST_RD_ATOMIC,
		   ORCA_QPS_RTR, &a) != ORCA_CMD_ST_BAD_PARAM ||
	    modify(n, qp, rtr | ORCA_QP_ATTR_MIN_RNR_TIMER,
		   ORCA_QPS_RTR, &a) != ORCA_CMD_ST_BAD_PARAM ||
	    modify(n, qp, rtr, ORCA_QPS_RTR, &a))
		return false;
	memset(&a, 0, sizeof(a));
	a.sq_psn = htole32(0xfffffe - rqpn);	/* the peer's rq_psn */
	a.timeout = 14;
	a.retry_cnt = 7;
	if (modify(n, qp, ORCA_QP_ATTR_SQ_PSN | ORCA_QP_ATTR_TIMEOUT,
		   ORCA_QPS_RTS, &a) != ORCA_CMD_ST_BAD_PARAM ||
	    modify(n, qp, ORCA_QP_ATTR_SQ_PSN | ORCA_QP_ATTR_RETRY_CNT,
		   ORCA_QPS_RTS, &a) != ORCA_CMD_ST_BAD_PARAM ||
	    modify(n, qp, ORCA_QP_ATTR_SQ_PSN | ORCA_QP_ATTR_MAX_QP_RD_ATOMIC,
		   ORCA_QPS_RTS, &a) != ORCA_CMD_ST_BAD_PARAM)
		return false;
	return modify(n, qp, ORCA_QP_ATTR_SQ_PSN, ORCA_QPS_RTS, &a) == 0;
}

static bool pair_init(struct ucpair *p, uint32_t b_access)
{
	memset(p, 0, sizeof(*p));
	if (!node_init(&p->a, 1) || !node_init(&p->b, 2))
		return false;
	p->a.peer = &p->b;
	p->b.peer = &p->a;
	p->ta.n = &p->a;
	p->tb.n = &p->b;
	atomic_store(&p->ta.drop_at, -1);
	atomic_store(&p->tb.drop_at, -1);
	engine_set_roce_tx(p->a.t.eng, tap_tx, &p->ta);
	engine_set_roce_tx(p->b.t.eng, tap_tx, &p->tb);
	return node_cq(&p->a, &p->acq, 10) && node_cq(&p->b, &p->bcq, 10) &&
	       node_buf(&p->a, &p->abuf, IOVA_A, BUF_LEN, ORCA_ACCESS_ALL) &&
	       node_buf(&p->b, &p->bbuf, IOVA_B, BUF_LEN, ORCA_ACCESS_ALL) &&
	       node_qp(&p->a, &p->aqp, ORCA_QPT_UC, &p->acq, &p->acq) &&
	       node_qp(&p->b, &p->bqp, ORCA_QPT_UC, &p->bcq, &p->bcq) &&
	       uc_connect(&p->a, &p->aqp, &p->b, p->bqp.qpn,
			  ORCA_ACCESS_REMOTE_WRITE) &&
	       uc_connect(&p->b, &p->bqp, &p->a, p->aqp.qpn, b_access);
}

static void pair_fini(struct ucpair *p)
{
	engine_set_roce_tx(p->a.t.eng, NULL, NULL);
	engine_set_roce_tx(p->b.t.eng, NULL, NULL);
	node_fini(&p->b);
	node_fini(&p->a);
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

/* The QP's state as the adapter has it (QUERY_QP). */
static int qp_state(struct node *n, struct tqp *qp)
{
	struct orca_cmd_destroy_obj q = { .handle = htole32(qp->qpn) };
	uint64_t out = galloc(&n->t, 4096, 0);
	struct orca_qp_attr *a = gptr(&n->t, out);
	struct tcmd c = {
		.opcode = ORCA_CMD_QUERY_QP, .in = &q, .in_size = sizeof(q),
		.out_addr = out, .out_len = sizeof(*a),
	};

	engine_flush(n->t.eng);
	if (th_exec(&n->t, &c))
		return -1;
	return a->qp_state;
}

#define expect_cqe(n, cq, wr_id, op, st, out) \
	node_expect_cqe(n, cq, wr_id, op, st, out, WAIT_MS)

/* No CQE shows up on @cq for a while (what was dropped stays dropped). */
static bool no_cqe(struct node *n, struct tcq *cq)
{
	struct orca_cqe c;

	engine_flush(n->t.eng);
	if (!poll_cq(n, cq, &c, 50))
		return true;
	printf("# unexpected CQE wr_id %llx op %#x st %u\n",
	       (unsigned long long)cqe_wr_id(&c), c.opcode, c.status);
	return false;
}

static const uint32_t sizes[] = { 0, 1, 1023, 1024, 1025, 4096, 12345,
				  65536 + 7 };

/* SEND, SEND_IMM, WRITE, WRITE_IMM of every size, every byte checked. */
static void test_ops(void)
{
	struct ucpair p;
	struct roce_stats sa, sb;
	bool ok = true;

	if (!pair_init(&p, ORCA_ACCESS_REMOTE_WRITE)) {
		CHECK(!"setup");
		ktap_case_end("uc_send_write_imm_delivered_no_acks");
		return;
	}
	for (int op = 0; op < 4; op++) {
		for (size_t i = 0; i < ARRAY_SIZE_T(sizes); i++) {
			static const uint8_t wops[] = {
				ORCA_WQE_SEND, ORCA_WQE_SEND_IMM,
				ORCA_WQE_RDMA_WRITE, ORCA_WQE_RDMA_WRITE_IMM,
			};
			uint32_t len = sizes[i], seed = op << 8 | (uint32_t)i;
			uint64_t id = 100 + op * 16 + i;
			struct orca_send_wqe_hdr h = wqe(wops[op], id);
			struct tsge s = { IOVA_A + 3, len, p.abuf.key };
			struct tsge r = { IOVA_B + 9, len + 16, p.bbuf.key };
			bool write = op >= 2, imm = op & 1;
			struct orca_cqe c;

			buf_fill(&p.a, &p.abuf, 3, len, seed);
			memset(node_va(&p.b, &p.bbuf, 9), 0, len);
			h.imm_or_inv = htole32(0x11223344u + (uint32_t)id);
			h.remote_addr = htole64(IOVA_B + 9);
			h.rkey = htole32(p.bbuf.key);
			if (!write || imm)
				post_recv(&p.b, &p.bqp, 500 + id, &r, 1);
			post_send(&p.a, &p.aqp, &h, &s, 1);
			ok &= expect_cqe(&p.a, &p.acq, id, write ?
					 ORCA_CQE_RDMA_WRITE : ORCA_CQE_SEND,
					 ORCA_CQE_ST_SUCCESS, NULL);
			if (!write || imm) {
				ok &= expect_cqe(&p.b, &p.bcq, 500 + id,
						 write ?
						 ORCA_CQE_RECV_RDMA_WITH_IMM :
						 ORCA_CQE_RECV,
						 ORCA_CQE_ST_SUCCESS, &c);
				ok &= le32toh(c.byte_len) == len;
				ok &= !imm || ((c.flags & ORCA_CQE_F_IMM) &&
					       c.imm_or_inv == h.imm_or_inv);
			} else {
				/* A WRITE has no completion there. */
				engine_flush(p.b.t.eng);
			}
			ok &= buf_check(&p.b, &p.bbuf, 9, len, seed);
			if (!ok) {
				printf("# op %d len %u failed\n", op, len);
				break;
			}
		}
	}
	CHECK(ok);
	CHECK(no_cqe(&p.b, &p.bcq));
	sa = stats(&p.a);
	sb = stats(&p.b);
	/* UC request opcodes only, never AckReq, nothing back from B. */
	CHECK(atomic_load(&p.ta.frames) > 4 * ARRAY_SIZE_T(sizes));
	CHECK(atomic_load(&p.ta.not_uc) == 0);
	CHECK(atomic_load(&p.ta.ack_req) == 0);
	CHECK(atomic_load(&p.tb.frames) == 0);
	CHECK(sb.acks_tx == 0 && sb.err_naks_tx == 0 && sb.seq_naks_tx == 0 &&
	      sb.rnr_naks_tx == 0 && sb.drop_uc == 0 && sb.uc_aborted == 0);
	CHECK(sa.retransmits == 0 && sa.timeouts == 0);
	CHECK(qp_state(&p.a, &p.aqp) == ORCA_QPS_RTS);
	CHECK(qp_state(&p.b, &p.bqp) == ORCA_QPS_RTS);
	pair_fini(&p);
	ktap_case_end("uc_send_write_imm_delivered_no_acks");
}

/*
 * A 4-packet message loses its second packet on the wire: the sender
 * completes it (nothing comes back to say otherwise), the receiver drops
 * the rest silently, and the next message lands: a SEND in the receive
 * WQE the lost one had taken, a WRITE where it points.
 */
static void test_lost_middle(void)
{
	struct ucpair p;
	struct roce_stats sb;
	struct orca_cqe c;

	if (!pair_init(&p, ORCA_ACCESS_REMOTE_WRITE)) {
		CHECK(!"setup");
		ktap_case_end("uc_lost_middle_packet_drops_message_next_lands");
		return;
	}
	for (int write = 0; write < 2; write++) {
		struct orca_send_wqe_hdr h;
		struct tsge s = { IOVA_A, 4096, p.abuf.key };
		struct tsge r = { IOVA_B, 8192, p.bbuf.key };
		uint32_t seed = 0x100 + write;
		uint64_t id = 10 + write * 10;

		buf_fill(&p.a, &p.abuf, 0, 4096, seed);
		memset(node_va(&p.b, &p.bbuf, 0), 0, 8192);
		if (!write) {
			post_recv(&p.b, &p.bqp, 600, &r, 1);
			post_recv(&p.b, &p.bqp, 601, &r, 1);
		}
		h = wqe(write ? ORCA_WQE_RDMA_WRITE : ORCA_WQE_SEND, id);
		h.remote_addr = htole64(IOVA_B + 4096);
		h.rkey = htole32(p.bbuf.key);
		atomic_store(&p.ta.drop_at, (int)atomic_load(&p.ta.frames) + 1);
		post_send(&p.a, &p.aqp, &h, &s, 1);
		CHECK(expect_cqe(&p.a, &p.acq, id, write ?
				 ORCA_CQE_RDMA_WRITE : ORCA_CQE_SEND,
				 ORCA_CQE_ST_SUCCESS, NULL));
		CHECK(atomic_load(&p.ta.dropped) == (unsigned int)write + 1);
		CHECK(no_cqe(&p.b, &p.bcq));
		sb = stats(&p.b);
		/* MIDDLE and LAST after the gap; one message given up. */
		CHECK(sb.drop_uc == 2u * (write + 1));
		CHECK(sb.uc_aborted == (uint64_t)write + 1);
		if (write)	/* the packets after the gap wrote nothing */
			CHECK(*node_va(&p.b, &p.bbuf, 4096 + 1024) == 0);

		/* The next message, of another length and content. */
		buf_fill(&p.a, &p.abuf, 0, 2500, seed + 2);
		h = wqe(write ? ORCA_WQE_RDMA_WRITE : ORCA_WQE_SEND, id + 1);
		h.remote_addr = htole64(IOVA_B + 4096);
		h.rkey = htole32(p.bbuf.key);
		s.len = 2500;
		post_send(&p.a, &p.aqp, &h, &s, 1);
		CHECK(expect_cqe(&p.a, &p.acq, id + 1, write ?
				 ORCA_CQE_RDMA_WRITE : ORCA_CQE_SEND,
				 ORCA_CQE_ST_SUCCESS, NULL));
		if (!write) {
			/* The WQE the lost message had taken: 600. */
			CHECK(expect_cqe(&p.b, &p.bcq, 600, ORCA_CQE_RECV,
					 ORCA_CQE_ST_SUCCESS, &c));
			CHECK(le32toh(c.byte_len) == 2500);
			CHECK(buf_check(&p.b, &p.bbuf, 0, 2500, seed + 2));
		} else {
			engine_flush(p.b.t.eng);
			CHECK(buf_check(&p.b, &p.bbuf, 4096, 2500, seed + 2));
		}
		CHECK(qp_state(&p.b, &p.bqp) == ORCA_QPS_RTS);
		CHECK(stats(&p.b).drop_uc == 2u * (write + 1));
	}
	/* 601 is still posted: one more SEND takes it. */
	{
		struct orca_send_wqe_hdr h = wqe(ORCA_WQE_SEND, 40);
		struct tsge s = { IOVA_A, 100, p.abuf.key };

		buf_fill(&p.a, &p.abuf, 0, 100, 0x200);
		post_send(&p.a, &p.aqp, &h, &s, 1);
		CHECK(expect_cqe(&p.a, &p.acq, 40, ORCA_CQE_SEND,
				 ORCA_CQE_ST_SUCCESS, NULL));
		CHECK(expect_cqe(&p.b, &p.bcq, 601, ORCA_CQE_RECV,
				 ORCA_CQE_ST_SUCCESS, &c));
		CHECK(le32toh(c.byte_len) == 100);
		CHECK(buf_check(&p.b, &p.bbuf, 0, 100, 0x200));
	}
	CHECK(atomic_load(&p.tb.frames) == 0);
	CHECK(atomic_load(&p.ta.ack_req) == 0);
	pair_fini(&p);
	ktap_case_end("uc_lost_middle_packet_drops_message_next_lands");
}

/*
 * What the responder cannot take (no receive WQE, a WQE too small, a bad
 * rkey, no remote write right) is dropped without a NAK and the QP stays
 * up; the next good message lands.
 */
static void test_responder_drops(void)
{
	struct ucpair p;
	struct roce_stats sb;
	struct orca_cqe c;

	for (int variant = 0; variant < 4; variant++) {
		struct orca_send_wqe_hdr h;
		struct tsge s, small, big;
		bool write = variant >= 2;

		/* variant 3: B's QP has no REMOTE_WRITE. */
		if (!pair_init(&p, variant == 3 ? ORCA_ACCESS_REMOTE_READ :
				   ORCA_ACCESS_REMOTE_WRITE)) {
			CHECK(!"setup");
			break;
		}
		s = (struct tsge){ IOVA_A, 3000, p.abuf.key };
		small = (struct tsge){ IOVA_B, 100, p.bbuf.key };
		big = (struct tsge){ IOVA_B, 4096, p.bbuf.key };
		buf_fill(&p.a, &p.abuf, 0, 3000, 0x300 + variant);
		memset(node_va(&p.b, &p.bbuf, 0), 0, 8192);
		if (variant == 1)
			post_recv(&p.b, &p.bqp, 700, &small, 1);
		h = wqe(write ? ORCA_WQE_RDMA_WRITE : ORCA_WQE_SEND, 70);
		h.remote_addr = htole64(IOVA_B);
		h.rkey = htole32(p.bbuf.key ^ (variant == 2 ? 0x01 : 0));
		post_send(&p.a, &p.aqp, &h, &s, 1);
		CHECK(expect_cqe(&p.a, &p.acq, 70, write ?
				 ORCA_CQE_RDMA_WRITE : ORCA_CQE_SEND,
				 ORCA_CQE_ST_SUCCESS, NULL));
		CHECK(no_cqe(&p.b, &p.bcq));
		sb = stats(&p.b);
		/* The FIRST refused, the 2 after it dropped: 3 packets. */
		CHECK(sb.drop_uc == 3 && sb.uc_aborted == 1);
		CHECK(sb.err_naks_tx == 0 && sb.rnr_naks_tx == 0 &&
		      sb.acks_tx == 0);
		CHECK(atomic_load(&p.tb.frames) == 0);
		CHECK(*node_va(&p.b, &p.bbuf, 0) == 0);
		CHECK(qp_state(&p.b, &p.bqp) == ORCA_QPS_RTS);
		CHECK(qp_state(&p.a, &p.aqp) == ORCA_QPS_RTS);

		/* A message it can take lands. */
		s.len = variant == 1 ? 90 : 3000;
		if (variant == 0)
			post_recv(&p.b, &p.bqp, 701, &big, 1);
		h = wqe(variant == 3 ? ORCA_WQE_SEND : h.opcode, 71);
		h.remote_addr = htole64(IOVA_B);
		h.rkey = htole32(p.bbuf.key);
		if (variant == 3)
			post_recv(&p.b, &p.bqp, 702, &big, 1);
		post_send(&p.a, &p.aqp, &h, &s, 1);
		CHECK(expect_cqe(&p.a, &p.acq, 71, h.opcode == ORCA_WQE_SEND ?
				 ORCA_CQE_SEND : ORCA_CQE_RDMA_WRITE,
				 ORCA_CQE_ST_SUCCESS, NULL));
		if (h.opcode == ORCA_WQE_SEND) {
			/* variant 1: in the WQE the too-long one left. */
			CHECK(expect_cqe(&p.b, &p.bcq, variant == 0 ? 701 :
					 variant == 1 ? 700 : 702,
					 ORCA_CQE_RECV, ORCA_CQE_ST_SUCCESS,
					 &c));
			CHECK(le32toh(c.byte_len) == s.len);
		} else {
			engine_flush(p.b.t.eng);
		}
		CHECK(buf_check(&p.b, &p.bbuf, 0, s.len, 0x300 + variant));
		pair_fini(&p);
	}
	ktap_case_end("uc_responder_drops_what_it_cannot_take_no_nak");
}

/*
 * READ, atomics, SEND with invalidate, LOCAL_INV and REG_MR are not UC
 * operations: LOC_QP_OP_ERR, the QP to SQE (IBA: UC and UD), nothing on
 * the wire; SQE -> RTS and UC works again.
 */
static void test_invalid_opcodes(void)
{
	static const struct {
		uint8_t wqe, cqe;
	} bad[] = {
		{ ORCA_WQE_RDMA_READ, ORCA_CQE_RDMA_READ },
		{ ORCA_WQE_ATOMIC_CS, ORCA_CQE_COMP_SWAP },
		{ ORCA_WQE_ATOMIC_FA, ORCA_CQE_FETCH_ADD },
		{ ORCA_WQE_SEND_INV, ORCA_CQE_SEND },
		{ ORCA_WQE_LOCAL_INV, ORCA_CQE_LOCAL_INV },
		{ ORCA_WQE_REG_MR, ORCA_CQE_REG_MR },
		{ 0x3f, ORCA_CQE_SEND },	/* no such opcode */
	};
	struct ucpair p;
	struct orca_cqe c;

	if (!pair_init(&p, ORCA_ACCESS_REMOTE_WRITE)) {
		CHECK(!"setup");
		ktap_case_end("uc_read_atomic_and_rc_only_wqes_error");
		return;
	}
	for (size_t i = 0; i < ARRAY_SIZE_T(bad); i++) {
		struct orca_send_wqe_hdr h = wqe(bad[i].wqe, 80 + i);
		struct tsge s = { IOVA_A, 8, p.abuf.key };
		struct orca_qp_attr a = { 0 };

		h.remote_addr = htole64(IOVA_B);
		h.rkey = htole32(p.bbuf.key);
		post_send(&p.a, &p.aqp, &h, &s, 1);
		CHECK(expect_cqe(&p.a, &p.acq, 80 + i, bad[i].cqe,
				 ORCA_CQE_ST_LOC_QP_OP_ERR, NULL));
		CHECK(qp_state(&p.a, &p.aqp) == ORCA_QPS_SQE);
		a.cur_qp_state = ORCA_QPS_SQE;
		CHECK(modify(&p.a, &p.aqp, ORCA_QP_ATTR_CUR_STATE,
			     ORCA_QPS_RTS, &a) == 0);
	}
	CHECK(atomic_load(&p.ta.frames) == 0);
	{
		struct orca_send_wqe_hdr h = wqe(ORCA_WQE_SEND, 90);
		struct tsge s = { IOVA_A, 64, p.abuf.key };
		struct tsge r = { IOVA_B, 64, p.bbuf.key };

		buf_fill(&p.a, &p.abuf, 0, 64, 0x400);
		post_recv(&p.b, &p.bqp, 900, &r, 1);
		post_send(&p.a, &p.aqp, &h, &s, 1);
		CHECK(expect_cqe(&p.a, &p.acq, 90, ORCA_CQE_SEND,
				 ORCA_CQE_ST_SUCCESS, NULL));
		CHECK(expect_cqe(&p.b, &p.bcq, 900, ORCA_CQE_RECV,
				 ORCA_CQE_ST_SUCCESS, &c));
		CHECK(buf_check(&p.b, &p.bbuf, 0, 64, 0x400));
	}
	pair_fini(&p);
	ktap_case_end("uc_read_atomic_and_rc_only_wqes_error");
}

/*
 * The transport of a packet must be the QP's: a UC packet for an RC QP
 * and an RC packet for a UC QP are dropped and counted; UC opcodes that
 * do not exist (UC READ) are dropped by the parser.
 */
static void test_wrong_transport(void)
{
	static uint8_t frame[ROCE_MAX_FRAME];
	static const uint8_t payload[64];
	struct roce_stats before, after;
	struct node a, b;
	struct tcq cq;
	struct tqp rc, uc;
	struct roce_pkt k = { 0 };
	size_t len;

	CHECK(node_init(&a, 1) && node_init(&b, 2));
	CHECK(node_cq(&b, &cq, 6));
	CHECK(node_qp(&b, &rc, ORCA_QPT_RC, &cq, &cq));
	CHECK(node_qp(&b, &uc, ORCA_QPT_UC, &cq, &cq));
	CHECK(uc_connect(&b, &uc, &a, 5, ORCA_ACCESS_REMOTE_WRITE));
	{
		struct rc_opts o = { .path_mtu = 3, .timeout = 14,
				     .access = ORCA_QP_ACCESS_ALL };

		CHECK(node_connect(&b, &rc, &a, 6, &o));
	}
	memcpy(k.smac, a.mac, 6);
	memcpy(k.dmac, b.mac, 6);
	k.vlan = ROCE_NO_VLAN;
	node_gid(&a, k.sgid);
	node_gid(&b, k.dgid);
	k.hop_limit = 64;
	k.pkey = ROCE_DEFAULT_PKEY;
	k.payload = payload;
	k.paylen = sizeof(payload);
	before = stats(&b);
	for (int i = 0; i < 2; i++) {
		k.opcode = i ? ROCE_RC_SEND_ONLY : ROCE_UC_SEND_ONLY;
		k.dest_qpn = i ? uc.qpn : rc.qpn;
		k.psn = 0;
		len = roce_build(frame, sizeof(frame), &k);
		CHECK(len > 0);
		engine_roce_rx(b.t.eng, frame, len);
	}
	/* UC READ request (0x2c) does not exist: a bad BTH. */
	k.opcode = ROCE_UC_SEND_ONLY;
	k.dest_qpn = uc.qpn;
	len = roce_build(frame, sizeof(frame), &k);
	frame[ROCE_ETH_HLEN + ROCE_IPV4_HLEN + ROCE_UDP_HLEN] = 0x2c;
	engine_roce_rx(b.t.eng, frame, len);
	after = stats(&b);
	CHECK(after.drop_bad_pkt == before.drop_bad_pkt + 2);
	CHECK(b.t.eng->roce->drops.err[ROCE_RX_BAD_BTH] == 1);
	CHECK(after.rx_frames == before.rx_frames + 3);
	CHECK(no_cqe(&b, &cq));
	CHECK(qp_state(&b, &uc) == ORCA_QPS_RTS);
	CHECK(qp_state(&b, &rc) == ORCA_QPS_RTS);
	node_fini(&b);
	node_fini(&a);
	ktap_case_end("uc_and_rc_packets_only_to_their_own_qps");
}

int main(void)
{
	ktap_plan(5);
	test_ops();
	test_lost_middle();
	test_responder_drops();
	test_invalid_opcodes();
	test_wrong_transport();
	return ktap_finish();
}

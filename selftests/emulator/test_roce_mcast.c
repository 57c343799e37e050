// SPDX-License-Identifier: GPL-2.0
/*
 * UD multicast (1.4, ORCA_DEV_CAP_MCAST): ATTACH_MCAST / DETACH_MCAST and
 * their limits; datagrams to a group reach every UD QP attached to it, on
 * another adapter over the wire and on the sender's own adapter (but never
 * the sending QP), with each copy's Q_Key checked; the frame a UD send to
 * a multicast address builds (group MAC, IP destination, TTL or hop limit,
 * DQPN 0xFFFFFF); and what the receive side drops and counts.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ktap.h"
#include "roce_node.h"

#define WAIT_MS		10000
#define IOVA_A		0x7f0000001000ull
#define IOVA_B		0x7e0000000000ull
#define BUF_LEN		(64u << 10)
#define QKEY		0x1234u
#define MCAST_QPN	0xffffffu

/* IPv4 239.1.2.3 as a GID (::ffff:239.1.2.3) */
static const uint8_t grp4[16] = { [10] = 0xff, [11] = 0xff,
				  239, 1, 2, 3 };
static const uint8_t grp4b[16] = { [10] = 0xff, [11] = 0xff,
				   239, 9, 9, 9 };
/* IPv6 ff0e::102:304 */
static const uint8_t grp6[16] = { 0xff, 0x0e, [12] = 1, 2, 3, 4 };

/* A's transmit side: keeps a copy of the last frame for the checks. */
static uint8_t last[2048];
static size_t last_len;
static unsigned int sent_frames;

static void tap_tx(void *ctx, const uint8_t *frame, size_t len)
{
	struct node *n = ctx;

	sent_frames++;
	last_len = len < sizeof(last) ? len : sizeof(last);
	memcpy(last, frame, last_len);
	if (n->peer)
		engine_roce_rx(n->peer->t.eng, frame, len);
}

static struct roce_stats stats(struct node *n)
{
	struct roce_stats st;

	engine_flush(n->t.eng);
	roce_get_stats(n->t.eng, &st);
	return st;
}

static int mcast_cmd(struct node *n, uint16_t op, uint32_t qpn,
		     const uint8_t mgid[16])
{
	struct orca_cmd_mcast in = { .qpn = htole32(qpn) };

	memcpy(in.mgid, mgid, 16);
	return th_cmd(&n->t, op, &in, sizeof(in));
}

static int attach(struct node *n, uint32_t qpn, const uint8_t mgid[16])
{
	return mcast_cmd(n, ORCA_CMD_ATTACH_MCAST, qpn, mgid);
}

static int detach(struct node *n, uint32_t qpn, const uint8_t mgid[16])
{
	return mcast_cmd(n, ORCA_CMD_DETACH_MCAST, qpn, mgid);
}

static bool expect_cqe(struct node *n, struct tcq *cq, uint64_t wr_id,
		       uint8_t opcode, struct orca_cqe *out)
{
	return node_expect_cqe(n, cq, wr_id, opcode, ORCA_CQE_ST_SUCCESS, out,
			       WAIT_MS);
}

static int64_t make_ah(struct node *n, const uint8_t dgid[16], uint8_t sgid,
		       uint8_t hop_limit)
{
	struct orca_cmd_create_ah in = { .pdn = htole32(n->pdn) };

	memcpy(in.av.dgid, dgid, 16);
	/* A wrong MAC: the adapter derives a group's MAC from its GID. */
	memset(in.av.dmac, 0x02, 6);
	in.av.sgid_index = sgid;
	in.av.hop_limit = hop_limit;
	return th_handle_or_neg(&n->t, th_cmd(&n->t, ORCA_CMD_CREATE_AH,
					      &in, sizeof(in)));
}

static void send_ud(struct node *n, struct tqp *qp, int64_t ahn,
		    uint32_t qkey, uint64_t wr_id, const struct tsge *s)
{
	struct orca_send_wqe_hdr h = wqe(ORCA_WQE_SEND, wr_id);

	h.ahn = htole32((uint32_t)ahn);
	h.dest_qpn = htole32(MCAST_QPN);
	h.qkey = htole32(qkey);
	post_send(n, qp, &h, s, 1);
}

/* A UD QP on its own CQ, ready, with one receive posted at @off. */
static bool ud_qp(struct node *n, struct tqp *qp, struct tcq *cq,
		  uint32_t qkey, struct tbuf *b, uint32_t off, uint64_t wr_id)
{
	struct tsge r = { b->iova + off, 2048, b->key };

	if (!node_cq(n, cq, 6) || !node_qp(n, qp, ORCA_QPT_UD, cq, cq) ||
	    !node_ud_ready(n, qp, qkey))
		return false;
	post_recv(n, qp, wr_id, &r, 1);
	return true;
}

static void test_commands_and_limits(void)
{
	struct node n;
	struct tcq cq;
	struct tqp ud, rc;
	uint32_t qpn[EMU_MAX_MCAST_QP_ATTACH + 1];
	uint8_t g[16];
	const uint8_t unicast[16] = { [10] = 0xff, [11] = 0xff, 10, 0, 0, 1 };

	if (!node_init(&n, 1) || !node_cq(&n, &cq, 6) ||
	    !node_qp(&n, &ud, ORCA_QPT_UD, &cq, &cq) ||
	    !node_qp(&n, &rc, ORCA_QPT_RC, &cq, &cq)) {
		CHECK(!"setup");
		ktap_case_end("attach_detach_commands");
		ktap_case_end("attach_limits");
		return;
	}
	CHECK(attach(&n, ud.qpn, grp4) == ORCA_CMD_ST_OK);
	CHECK(attach(&n, ud.qpn, grp4) == ORCA_CMD_ST_OK);	/* again */
	CHECK(attach(&n, ud.qpn, grp6) == ORCA_CMD_ST_OK);
	CHECK(attach(&n, rc.qpn, grp4) == ORCA_CMD_ST_BAD_PARAM);
	CHECK(attach(&n, 1, grp4) == ORCA_CMD_ST_BAD_HANDLE);	/* no GSI */
	CHECK(attach(&n, ud.qpn, unicast) == ORCA_CMD_ST_BAD_PARAM);
	CHECK(attach(&n, 77777, grp4) == ORCA_CMD_ST_BAD_HANDLE);
	CHECK(detach(&n, ud.qpn, grp4b) == ORCA_CMD_ST_BAD_PARAM);
	CHECK(detach(&n, ud.qpn, grp4) == ORCA_CMD_ST_OK);
	CHECK(detach(&n, ud.qpn, grp4) == ORCA_CMD_ST_BAD_PARAM);
	CHECK(detach(&n, ud.qpn, grp6) == ORCA_CMD_ST_OK);
	ktap_case_end("attach_detach_commands");

	/* Groups: max_mcast_grp of them, then NO_RESOURCES. */
	memcpy(g, grp6, 16);
	for (unsigned int i = 0; i < EMU_MAX_MCAST_GRP; i++) {
		g[14] = (uint8_t)(i >> 8);
		g[15] = (uint8_t)i;
		CHECK(attach(&n, ud.qpn, g) == ORCA_CMD_ST_OK);
	}
	g[13] = 0x55;
	CHECK(attach(&n, ud.qpn, g) == ORCA_CMD_ST_NO_RESOURCES);
	/* A destroyed QP leaves every group: they are free again. */
	CHECK(th_destroy(&n.t, ORCA_CMD_DESTROY_QP, ud.qpn) == 0);
	CHECK(node_qp(&n, &ud, ORCA_QPT_UD, &cq, &cq));
	CHECK(attach(&n, ud.qpn, g) == ORCA_CMD_ST_OK);
	/* QPs per group: max_mcast_qp_attach of them. */
	for (unsigned int i = 0; i <= EMU_MAX_MCAST_QP_ATTACH; i++) {
		int64_t v = th_create_qp(&n.t, ORCA_QPT_UD, n.pdn, cq.cqn,
					 n.uar, 0);

		CHECK(v > 1);
		qpn[i] = (uint32_t)v;
	}
	for (unsigned int i = 0; i < EMU_MAX_MCAST_QP_ATTACH; i++)
		CHECK(attach(&n, qpn[i], grp4) == ORCA_CMD_ST_OK);
	CHECK(attach(&n, qpn[EMU_MAX_MCAST_QP_ATTACH], grp4) ==
	      ORCA_CMD_ST_NO_RESOURCES);
	CHECK(detach(&n, qpn[3], grp4) == ORCA_CMD_ST_OK);
	CHECK(attach(&n, qpn[EMU_MAX_MCAST_QP_ATTACH], grp4) ==
	      ORCA_CMD_ST_OK);
	node_fini(&n);
	ktap_case_end("attach_limits");
}

static void test_traffic(void)
{
	struct node a, b;
	struct tcq acq, scq, lcq, cq[3];
	struct tqp sa, la, qb[3];
	struct tbuf abuf, bbuf;
	struct orca_cqe c;
	struct roce_stats st;
	struct tsge s;
	int64_t ah4, ah4b, ah6, ahu;
	uint8_t *grh;
	bool ok;

	ok = node_init(&a, 1) && node_init(&b, 2);
	a.peer = &b;
	b.peer = &a;
	ok = ok && node_cq(&a, &acq, 6) &&
	     node_buf(&a, &abuf, IOVA_A, BUF_LEN, ORCA_ACCESS_ALL) &&
	     node_buf(&b, &bbuf, IOVA_B, BUF_LEN, ORCA_ACCESS_ALL) &&
	     node_qp(&a, &sa, ORCA_QPT_UD, &acq, &acq) &&
	     node_ud_ready(&a, &sa, QKEY);
	for (int i = 0; i < 3 && ok; i++)
		ok = ud_qp(&b, &qb[i], &cq[i], i == 2 ? 0x5678 : QKEY, &bbuf,
			   4096u * i, 100 + i);
	ah4 = make_ah(&a, grp4, 0, 5);
	ah4b = make_ah(&a, grp4b, 0, 5);
	if (!ok || ah4 <= 0 || ah4b <= 0) {
		CHECK(!"setup");
		ktap_case_end("multicast_to_every_attached_qp");
		ktap_case_end("detached_qp_and_unjoined_group_get_nothing");
		ktap_case_end("ipv6_multicast_mac_and_hop_limit");
		ktap_case_end("local_members_get_a_copy_sender_does_not");
		return;
	}
	engine_set_roce_tx(a.t.eng, tap_tx, &a);
	for (int i = 0; i < 3; i++)
		CHECK(attach(&b, qb[i].qpn, grp4) == ORCA_CMD_ST_OK);

	s = (struct tsge){ IOVA_A, 700, abuf.key };
	buf_fill(&a, &abuf, 0, 700, 31);
	send_ud(&a, &sa, ah4, QKEY, 1, &s);
	CHECK(expect_cqe(&a, &acq, 1, ORCA_CQE_SEND, NULL));
	/* The frame: group MAC, IP destination and TTL, DQPN 0xFFFFFF. */
	CHECK(last_len > 60);
	CHECK(!memcmp(last, "\x01\x00\x5e\x01\x02\x03", 6));
	CHECK(!memcmp(last + 6, a.mac, 6));
	CHECK(last[14] == 0x45 && last[14 + 8] == 5);
	CHECK(!memcmp(last + 14 + 16, grp4 + 12, 4));
	CHECK(last[42 + 5] == 0xff && last[42 + 6] == 0xff &&
	      last[42 + 7] == 0xff);
	/* QPs 0 and 1 receive it, QP 2 (another Q_Key) drops it. */
	for (int i = 0; i < 2; i++) {
		CHECK(expect_cqe(&b, &cq[i], 100 + i, ORCA_CQE_RECV, &c));
		CHECK(le32toh(c.byte_len) == 40 + 700);
		CHECK(le32toh(c.src_qpn) == sa.qpn);
		CHECK((c.flags & ORCA_CQE_F_GRH) &&
		      !(c.flags & ORCA_CQE_F_IPV6));
		grh = node_va(&b, &bbuf, 4096u * i);
		CHECK(!memcmp(grh + 36, grp4 + 12, 4));
		CHECK(buf_check(&b, &bbuf, 4096u * i + 40, 700, 31));
	}
	CHECK(!poll_cq(&b, &cq[2], &c, 50));
	st = stats(&b);
	CHECK(st.mcast_rx == 3 && st.drop_qkey == 1);
	ktap_case_end("multicast_to_every_attached_qp");

	/* Detached: QP 1 gets nothing more, QP 0 still does. */
	CHECK(detach(&b, qb[1].qpn, grp4) == ORCA_CMD_ST_OK);
	for (int i = 0; i < 2; i++) {
		struct tsge r = { IOVA_B + 4096u * i, 2048, bbuf.key };

		post_recv(&b, &qb[i], 200 + i, &r, 1);
	}
	send_ud(&a, &sa, ah4, QKEY, 2, &s);
	CHECK(expect_cqe(&a, &acq, 2, ORCA_CQE_SEND, NULL));
	CHECK(expect_cqe(&b, &cq[0], 200, ORCA_CQE_RECV, NULL));
	CHECK(!poll_cq(&b, &cq[1], &c, 50));
	/* A group nobody on B joined: dropped, counted. */
	send_ud(&a, &sa, ah4b, QKEY, 3, &s);
	CHECK(expect_cqe(&a, &acq, 3, ORCA_CQE_SEND, NULL));
	st = stats(&b);
	CHECK(st.mcast_rx == 5 && st.drop_qkey == 2 && st.drop_mcast == 1);
	/* DQPN 0xFFFFFF to a unicast address: a bad packet. */
	{
		uint8_t bgid[16];

		node_gid(&b, bgid);
		ahu = make_ah(&a, bgid, 0, 64);
		CHECK(ahu > 0);
		send_ud(&a, &sa, ahu, QKEY, 4, &s);
		CHECK(expect_cqe(&a, &acq, 4, ORCA_CQE_SEND, NULL));
		CHECK(stats(&b).drop_bad_pkt == 1);
	}
	CHECK(!poll_cq(&b, &cq[1], &c, 20));
	ktap_case_end("detached_qp_and_unjoined_group_get_nothing");

	/* IPv6: 33:33 and the last 32 bits, the hop limit. */
	{
		struct orca_cmd_set_gid g = {
			.port = 1, .type = ORCA_GID_TYPE_ROCE_V2,
			.index = htole16(1), .vlan = htole16(0xffff),
			.gid = { 0xfe, 0x80 },
		};
		struct node *nodes[2] = { &a, &b };

		for (int i = 0; i < 2; i++) {
			memcpy(g.mac, nodes[i]->mac, 6);
			g.gid[15] = nodes[i]->mac[5];
			CHECK(th_cmd(&nodes[i]->t, ORCA_CMD_SET_GID, &g,
				     sizeof(g)) == 0);
		}
	}
	ah6 = make_ah(&a, grp6, 1, 7);
	CHECK(ah6 > 0);
	CHECK(attach(&b, qb[1].qpn, grp6) == ORCA_CMD_ST_OK);
	send_ud(&a, &sa, ah6, QKEY, 5, &s);
	CHECK(expect_cqe(&a, &acq, 5, ORCA_CQE_SEND, NULL));
	CHECK(!memcmp(last, "\x33\x33\x01\x02\x03\x04", 6));
	CHECK(last[14] >> 4 == 6 && last[14 + 7] == 7);
	CHECK(!memcmp(last + 14 + 24, grp6, 16));
	CHECK(expect_cqe(&b, &cq[1], 201, ORCA_CQE_RECV, &c));
	CHECK(c.flags & ORCA_CQE_F_IPV6);
	grh = node_va(&b, &bbuf, 4096);
	CHECK(!memcmp(grh + 24, grp6, 16));
	CHECK(buf_check(&b, &bbuf, 4096 + 40, 700, 31));
	ktap_case_end("ipv6_multicast_mac_and_hop_limit");

	/*
	 * On the sender's adapter: another QP of A in the group gets its
	 * copy, the sender (attached too) does not; B's member still does.
	 */
	{
		struct tsge r = { IOVA_A + 8192, 2048, abuf.key };
		struct tsge r2 = { IOVA_A + 12288, 2048, abuf.key };

		struct roce_stats sa0;

		/* Only the sender attached here: no copy made at all. */
		CHECK(attach(&a, sa.qpn, grp4) == ORCA_CMD_ST_OK);
		r.addr = IOVA_B;
		r.key = bbuf.key;
		post_recv(&b, &qb[0], 303, &r, 1);
		sa0 = stats(&a);
		send_ud(&a, &sa, ah4, QKEY, 7, &s);
		CHECK(expect_cqe(&a, &acq, 7, ORCA_CQE_SEND, NULL));
		CHECK(expect_cqe(&b, &cq[0], 303, ORCA_CQE_RECV, NULL));
		CHECK(stats(&a).loopback == sa0.loopback);
		CHECK(stats(&a).rx_frames == sa0.rx_frames);
		CHECK(detach(&a, sa.qpn, grp4) == ORCA_CMD_ST_OK);
		r.addr = IOVA_A + 8192;
		r.key = abuf.key;

		CHECK(node_cq(&a, &lcq, 6) && node_cq(&a, &scq, 6));
		CHECK(node_qp(&a, &la, ORCA_QPT_UD, &lcq, &lcq));
		CHECK(node_ud_ready(&a, &la, QKEY));
		post_recv(&a, &la, 300, &r, 1);
		/* the sender's own receives complete on acq */
		post_recv(&a, &sa, 301, &r2, 1);
		CHECK(attach(&a, la.qpn, grp4) == ORCA_CMD_ST_OK);
		CHECK(attach(&a, sa.qpn, grp4) == ORCA_CMD_ST_OK);
		r.addr = IOVA_B;
		r.key = bbuf.key;
		post_recv(&b, &qb[0], 302, &r, 1);
		sent_frames = 0;
		buf_fill(&a, &abuf, 0, 700, 47);
		send_ud(&a, &sa, ah4, QKEY, 6, &s);
		CHECK(expect_cqe(&a, &acq, 6, ORCA_CQE_SEND, NULL));
		CHECK(expect_cqe(&a, &lcq, 300, ORCA_CQE_RECV, &c));
		CHECK(le32toh(c.src_qpn) == sa.qpn);
		CHECK(buf_check(&a, &abuf, 8192 + 40, 700, 47));
		CHECK(expect_cqe(&b, &cq[0], 302, ORCA_CQE_RECV, NULL));
		CHECK(buf_check(&b, &bbuf, 40, 700, 47));
		CHECK(!poll_cq(&a, &acq, &c, 50));	/* not to itself */
		CHECK(sent_frames == 1);		/* one on the wire */
	}
	ktap_case_end("local_members_get_a_copy_sender_does_not");

	engine_set_roce_tx(a.t.eng, NULL, NULL);
	engine_set_roce_tx(b.t.eng, NULL, NULL);
	node_fini(&a);
	node_fini(&b);
	free(abuf.pages);
	free(bbuf.pages);
}

/* Frames from the wire that only look multicast are dropped, counted. */
static void test_garbage(void)
{
	struct node n;
	struct tcq cq;
	struct tqp qp;
	struct orca_cqe c;
	struct roce_stats st;
	struct roce_pkt pkt = {
		.dmac = { 0x01, 0x00, 0x5e, 0x01, 0x02, 0x03 },
		.smac = { 0x02, 0, 0, 0, 0, 9 },
		.vlan = ROCE_NO_VLAN, .hop_limit = 1, .pkey = 0xffff,
		.opcode = ROCE_UD_SEND_ONLY, .dest_qpn = MCAST_QPN,
		.deth_qkey = QKEY, .deth_sqpn = 5,
		.sgid = { [10] = 0xff, [11] = 0xff, 10, 0, 0, 9 },
	};
	uint8_t junk[100] = { 0x01, 0x00, 0x5e, 1, 2, 3 };
	uint8_t f[512];
	size_t len;

	memcpy(pkt.dgid, grp4, 16);
	if (!node_init(&n, 3) || !node_cq(&n, &cq, 6) ||
	    !node_qp(&n, &qp, ORCA_QPT_UD, &cq, &cq) ||
	    !node_ud_ready(&n, &qp, QKEY)) {
		CHECK(!"setup");
		ktap_case_end("garbage_multicast_frames_dropped");
		return;
	}
	CHECK(attach(&n, qp.qpn, grp4) == 0);
	/* junk behind a group MAC */
	engine_roce_rx(n.t.eng, junk, sizeof(junk));
	/* an RC opcode to the multicast QPN */
	pkt.opcode = 0x04;
	len = roce_build(f, sizeof(f), &pkt);
	CHECK(len > 0);
	engine_roce_rx(n.t.eng, f, len);
	/* a UD datagram to QPN 0xFFFFFF, unicast DGID (ours) */
	pkt.opcode = ROCE_UD_SEND_ONLY;
	node_gid(&n, pkt.dgid);
	len = roce_build(f, sizeof(f), &pkt);
	engine_roce_rx(n.t.eng, f, len);
	/* a multicast DGID to a unicast QPN (ours) */
	memcpy(pkt.dgid, grp4, 16);
	pkt.dest_qpn = qp.qpn;
	len = roce_build(f, sizeof(f), &pkt);
	engine_roce_rx(n.t.eng, f, len);
	/* a bad ICRC */
	pkt.dest_qpn = MCAST_QPN;
	len = roce_build(f, sizeof(f), &pkt);
	f[len - 1] ^= 1;
	engine_roce_rx(n.t.eng, f, len);
	st = stats(&n);
	CHECK(st.rx_frames == 5);
	CHECK(st.drop_bad_pkt == 3);
	CHECK(n.t.eng->roce->drops.err[ROCE_RX_BAD_ICRC] == 1);
	CHECK(st.mcast_rx == 0);
	CHECK(!poll_cq(&n, &cq, &c, 20));
	node_fini(&n);
	ktap_case_end("garbage_multicast_frames_dropped");
}

int main(void)
{
	ktap_plan(7);
	test_commands_and_limits();
	test_traffic();
	test_garbage();
	return ktap_finish();
}

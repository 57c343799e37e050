// SPDX-License-Identifier: GPL-2.0
/*
 * Two adapters on a point-to-point link (port.h: wire_peer), no switch
 * process between them: each port's "switch" is the other port, whose
 * shared-memory rings it uses as a switch's, mirrored (wire_link.h).
 *
 * p2p_rc_both_orders: the link comes up whichever port starts first (the
 * one whose socket sorts first creates it, the other takes it), and RC
 * SEND, WRITE and READ move every byte both ways through the engines'
 * RoCE lanes, with nothing sent again or dropped.
 *
 * p2p_guest_frames: a guest's own Ethernet frame (not RoCE) crosses the
 * link's other rings, from one port's virtio-net side to the other's.
 *
 * p2p_peer_gone: once the peer has stopped, the port says so (a send
 * fails at once, counted) instead of waiting for room that never comes.
 *
 * p2p_bad_config: a peer that is the port itself, or none, is refused.
 *
 * p2p_burst_wakes: a stream of 64 KiB WRITEs, 16 outstanding, costs the
 * responder's engine fewer than two wake-ups (eventfd writes by the
 * requester's port) per message: the responder asks for a kick only when
 * it really goes to sleep, and lingers while the requester says it is in
 * a burst.  Asking on every pass that found the lane empty made about
 * three per message, each a system call of microseconds for the
 * requester.  Every byte is checked.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ktap.h"
#include "port/port.h"
#include "util/clock.h"
#include "port_glue.h"
#include "roce_node.h"
#include "wire_harness.h"

#define WAIT_MS		10000
#define IOVA		0x10000000ull
#define LEN		(256u << 10)

static char dir[64];

struct p2p_end {
	char nic[96], qemu[96], wire[96];
	struct emu_port_config pc;
	struct node *n;
	struct emu_port *port;
	pthread_t thread;
};

static void end_config(struct p2p_end *e, struct node *n, const char *name)
{
	snprintf(e->nic, sizeof(e->nic), "%s/nic-%s", dir, name);
	snprintf(e->qemu, sizeof(e->qemu), "%s/qemu-%s", dir, name);
	snprintf(e->wire, sizeof(e->wire), "%s/wire-%s", dir, name);
	e->n = n;
	e->port = NULL;
	e->pc = (struct emu_port_config){
		.nic_path = e->nic, .nic_peer = e->qemu, .wire_path = e->wire,
		.wire_peer = true,
	};
	memcpy(e->pc.mac, n->mac, 6);
	port_glue_config(&e->pc, true);
}

static void *end_start(void *arg)
{
	struct p2p_end *e = arg;

	e->port = port_start(&e->pc, glue_port_rx, e->n->t.eng);
	return NULL;
}

/*
 * Starts both ends, @first a moment before the other (the two wait for
 * each other), and gives each engine its lane.  True if both came up.
 */
static bool p2p_up(struct p2p_end *e, int first)
{
	struct engine_roce_link link;
	int second = !first;

	e[0].pc.switch_path = e[1].wire;
	e[1].pc.switch_path = e[0].wire;
	if (pthread_create(&e[first].thread, NULL, end_start, &e[first]))
		return false;
	usleep(50000);
	end_start(&e[second]);
	pthread_join(e[first].thread, NULL);
	for (int i = 0; i < 2; i++) {
		if (!e[i].port || !port_wire_is_shm(e[i].port) ||
		    !port_has_roce_lane(e[i].port))
			return false;
		port_glue_link(&link, e[i].port, true);
		engine_set_roce_link(e[i].n->t.eng, &link);
	}
	return true;
}

static void p2p_down(struct p2p_end *e)
{
	for (int i = 0; i < 2; i++) {
		if (e[i].n)
			engine_set_roce_tx(e[i].n->t.eng, NULL, NULL);
		if (e[i].port)
			port_stop(e[i].port);
		e[i].port = NULL;
	}
}

/* Posts @h with SGE @s and waits for its successful completion. */
static bool op_done(struct node *n, struct tqp *qp, struct tcq *cq,
		    struct orca_send_wqe_hdr *h, struct tsge *s)
{
	uint64_t wr_id = le32toh(h->wr_id_lo) |
			 (uint64_t)le32toh(h->wr_id_hi) << 32;
	struct orca_cqe c;

	post_send(n, qp, h, s, 1);
	return poll_cq(n, cq, &c, WAIT_MS) && cqe_wr_id(&c) == wr_id &&
	       c.status == ORCA_CQE_ST_SUCCESS;
}

/* A WRITE or READ of the peer's buffer at IOVA, under @rkey. */
static struct orca_send_wqe_hdr rdma_wqe(uint8_t op, uint64_t wr_id,
					 uint32_t rkey)
{
	struct orca_send_wqe_hdr h = wqe(op, wr_id);

	h.remote_addr = htole64(IOVA);
	h.rkey = htole32(rkey);
	return h;
}

static void rc_traffic(struct node *a, struct node *b)
{
	struct rc_opts o = { .path_mtu = 3, .timeout = 14, .retry_cnt = 7,
			     .rnr_retry = 7, .min_rnr_timer = 1,
			     .access = ORCA_QP_ACCESS_ALL };
	struct tbuf abuf = { 0 }, bbuf = { 0 };
	struct orca_send_wqe_hdr h;
	struct roce_stats sa, sb;
	struct tcq acq, bcq;
	struct tqp aqp, bqp;
	struct orca_cqe c;
	struct tsge s, r;
	bool ok;

	ok = node_cq(a, &acq, 8) && node_cq(b, &bcq, 8) &&
	     node_buf(a, &abuf, IOVA, LEN, ORCA_ACCESS_ALL) &&
	     node_buf(b, &bbuf, IOVA, LEN, ORCA_ACCESS_ALL) &&
	     node_qp(a, &aqp, ORCA_QPT_RC, &acq, &acq) &&
	     node_qp(b, &bqp, ORCA_QPT_RC, &bcq, &bcq) &&
	     node_connect(a, &aqp, b, bqp.qpn, &o) &&
	     node_connect(b, &bqp, a, aqp.qpn, &o);
	CHECK(ok);
	if (ok) {
		/* SEND A -> B */
		buf_fill(a, &abuf, 0, LEN, 1);
		s = (struct tsge){ IOVA, LEN, abuf.key };
		r = (struct tsge){ IOVA, LEN, bbuf.key };
		post_recv(b, &bqp, 1, &r, 1);
		h = wqe(ORCA_WQE_SEND, 2);
		CHECK(op_done(a, &aqp, &acq, &h, &s));
		CHECK(poll_cq(b, &bcq, &c, WAIT_MS) && cqe_wr_id(&c) == 1 &&
		      c.status == ORCA_CQE_ST_SUCCESS &&
		      le32toh(c.byte_len) == LEN);
		CHECK(buf_check(b, &bbuf, 0, LEN, 1));

		/* WRITE B -> A, then READ it back from A into B. */
		buf_fill(b, &bbuf, 0, LEN, 2);
		h = rdma_wqe(ORCA_WQE_RDMA_WRITE, 3, abuf.key);
		CHECK(op_done(b, &bqp, &bcq, &h, &r));
		CHECK(buf_check(a, &abuf, 0, LEN, 2));
		buf_fill(b, &bbuf, 0, LEN, 3);
		h = rdma_wqe(ORCA_WQE_RDMA_READ, 4, abuf.key);
		CHECK(op_done(b, &bqp, &bcq, &h, &r));
		CHECK(buf_check(b, &bbuf, 0, LEN, 2));
	}
	engine_flush(a->t.eng);
	engine_flush(b->t.eng);
	roce_get_stats(a->t.eng, &sa);
	roce_get_stats(b->t.eng, &sb);
	/* At path MTU 1024: 3 x 256 KiB is at least 768 data frames. */
	CHECK(sa.rx_frames + sb.rx_frames >= 3 * LEN / 1024);
	CHECK(sa.retransmits == 0 && sb.retransmits == 0);
	CHECK(sa.tx_dropped == 0 && sb.tx_dropped == 0);
	free(abuf.pages);
	free(bbuf.pages);
}

/*
 * Two adapters and their ends, @first started a moment before the other;
 * @qemu: QEMU's sides of both virtio-nets are bound too (qemu_fd).
 */
struct p2p_rig {
	struct node a, b;
	struct p2p_end e[2];
	int qemu_fd[2];
};

static bool rig_up(struct p2p_rig *r, int first, bool qemu)
{
	bool ok;

	memset(r, 0, sizeof(*r));
	r->qemu_fd[0] = r->qemu_fd[1] = -1;
	ok = node_init(&r->a, 1) && node_init(&r->b, 2);
	if (ok) {
		end_config(&r->e[0], &r->a, "a");
		end_config(&r->e[1], &r->b, "b");
		for (int i = 0; qemu && i < 2; i++)
			r->qemu_fd[i] = wire_bind_dgram(r->e[i].qemu,
							SOCK_CLOEXEC);
		ok = p2p_up(r->e, first);
	}
	CHECK(ok);
	return ok;
}

static void rig_down(struct p2p_rig *r)
{
	p2p_down(r->e);
	for (int i = 0; i < 2; i++) {
		if (r->qemu_fd[i] < 0)
			continue;
		close(r->qemu_fd[i]);
		unlink(r->e[i].qemu);
	}
	th_fini(&r->a.t);
	th_fini(&r->b.t);
}

/* A 64-byte frame from @src to @dst, a local experimental EtherType. */
static void test_frame(uint8_t *f, const uint8_t *dst, const uint8_t *src)
{
	memset(f, 0, 64);
	memcpy(f, dst, 6);
	memcpy(f + 6, src, 6);
	f[12] = 0x88;
	f[13] = 0xb5;
	memcpy(f + 14, "a guest's own frame", 19);
}

static void p2p_rc_both_orders(void)
{
	struct emu_port_stats ps;
	struct p2p_rig r;

	for (int first = 0; first < 2; first++) {
		if (rig_up(&r, first, false)) {
			rc_traffic(&r.a, &r.b);
			for (int i = 0; i < 2; i++) {
				port_get_stats(r.e[i].port, &ps);
				CHECK(ps.roce_rx > 0 && ps.roce_tx > 0 &&
				      ps.dropped == 0);
			}
		}
		rig_down(&r);
	}
	ktap_case_end("p2p_rc_both_orders");
}

/* QEMU's side of a port's virtio-net: what the guest sends and gets. */
static void p2p_guest_frames(void)
{
	struct sockaddr_un to = { .sun_family = AF_UNIX };
	uint8_t f[64], got[128];
	struct p2p_rig r;
	struct pollfd pfd;

	if (rig_up(&r, 0, true)) {
		test_frame(f, r.b.mac, r.a.mac);
		snprintf(to.sun_path, sizeof(to.sun_path), "%s", r.e[0].nic);
		CHECK(sendto(r.qemu_fd[0], f, sizeof(f), 0,
			     (struct sockaddr *)&to, sizeof(to)) == sizeof(f));
		pfd = (struct pollfd){ .fd = r.qemu_fd[1], .events = POLLIN };
		CHECK(poll(&pfd, 1, WAIT_MS) == 1 &&
		      recv(r.qemu_fd[1], got, sizeof(got), 0) == sizeof(f) &&
		      !memcmp(got, f, sizeof(f)));
	}
	rig_down(&r);
	ktap_case_end("p2p_guest_frames");
}

static void p2p_peer_gone(void)
{
	struct emu_port_stats before, after;
	struct p2p_rig r;
	uint8_t f[64];
	uint64_t t0;
	int ret = 0;

	if (rig_up(&r, 1, false)) {
		engine_set_roce_tx(r.b.t.eng, NULL, NULL);
		port_stop(r.e[1].port);
		r.e[1].port = NULL;
		test_frame(f, r.b.mac, r.a.mac);
		port_get_stats(r.e[0].port, &before);
		/* The port thread sees the hang-up soon; sends fail then. */
		t0 = now_ms();
		while (now_ms() - t0 < WAIT_MS &&
		       (ret = port_send_roce(r.e[0].port, f, sizeof(f))) == 0)
			usleep(1000);
		CHECK(ret == -ENOTCONN);
		CHECK(now_ms() - t0 < WAIT_MS);
		port_get_stats(r.e[0].port, &after);
		CHECK(after.drop_to_wire > before.drop_to_wire);
	}
	rig_down(&r);
	ktap_case_end("p2p_peer_gone");
}

static void p2p_bad_config(void)
{
	struct p2p_end e = { 0 };
	struct node a;

	CHECK(node_init(&a, 1));
	end_config(&e, &a, "a");
	e.pc.switch_path = e.wire;	/* itself */
	errno = 0;
	CHECK(!port_start(&e.pc, glue_port_rx, a.t.eng) && errno == EINVAL);
	e.pc.switch_path = NULL;	/* nobody */
	errno = 0;
	CHECK(!port_start(&e.pc, glue_port_rx, a.t.eng) && errno == EINVAL);
	th_fini(&a.t);
	ktap_case_end("p2p_bad_config");
}

#define BURST_MSG	(64u << 10)
#define BURST_N		512u
#define BURST_DEPTH	16u

/* WRITEs of BURST_MSG from a to b, BURST_DEPTH outstanding; true if all did. */
static bool burst_writes(struct node *a, struct tqp *aqp, struct tcq *acq,
			 uint32_t rkey, uint32_t lkey)
{
	struct orca_send_wqe_hdr h;
	unsigned int posted = 0, done = 0;
	struct orca_cqe c;
	struct tsge s;
	bool ok = true;

	while (done < BURST_N && ok) {
		while (posted < BURST_N && posted - done < BURST_DEPTH) {
			uint64_t off = (uint64_t)(posted % (LEN / BURST_MSG)) *
				       BURST_MSG;

			h = rdma_wqe(ORCA_WQE_RDMA_WRITE, posted, rkey);
			h.remote_addr = htole64(IOVA + off);
			s = (struct tsge){ IOVA + off, BURST_MSG, lkey };
			post_send(a, aqp, &h, &s, 1);
			posted++;
		}
		ok = poll_cq(a, acq, &c, WAIT_MS) &&
		     c.status == ORCA_CQE_ST_SUCCESS && cqe_wr_id(&c) == done;
		done++;
	}
	return ok;
}

static void p2p_burst_wakes(void)
{
	struct rc_opts o = { .path_mtu = 3, .timeout = 14, .retry_cnt = 7,
			     .rnr_retry = 7, .min_rnr_timer = 1,
			     .access = ORCA_QP_ACCESS_ALL };
	struct tbuf abuf = { 0 }, bbuf = { 0 };
	struct emu_port_stats before, after;
	struct tcq acq, bcq;
	struct tqp aqp, bqp;
	struct p2p_rig r;
	double per_msg;
	bool ok;

	if (rig_up(&r, 0, false)) {
		ok = node_cq(&r.a, &acq, 8) && node_cq(&r.b, &bcq, 8) &&
		     node_buf(&r.a, &abuf, IOVA, LEN, ORCA_ACCESS_ALL) &&
		     node_buf(&r.b, &bbuf, IOVA, LEN, ORCA_ACCESS_ALL) &&
		     node_qp(&r.a, &aqp, ORCA_QPT_RC, &acq, &acq) &&
		     node_qp(&r.b, &bqp, ORCA_QPT_RC, &bcq, &bcq) &&
		     node_connect(&r.a, &aqp, &r.b, bqp.qpn, &o) &&
		     node_connect(&r.b, &bqp, &r.a, aqp.qpn, &o);
		CHECK(ok);
		if (ok) {
			buf_fill(&r.a, &abuf, 0, LEN, 5);
			port_get_stats(r.e[0].port, &before);
			CHECK(burst_writes(&r.a, &aqp, &acq, bbuf.key,
					   abuf.key));
			port_get_stats(r.e[0].port, &after);
			CHECK(buf_check(&r.b, &bbuf, 0, LEN, 5));
			per_msg = (double)(after.roce_tx_kicks -
					   before.roce_tx_kicks) / BURST_N;
			printf("# %u WRITEs of 64 KiB: %.2f wake-ups of the responder per message\n",
			       BURST_N, per_msg);
			CHECK(after.roce_tx_kicks > before.roce_tx_kicks);
			CHECK(per_msg < 2.0);
		}
		free(abuf.pages);
		free(bbuf.pages);
	}
	rig_down(&r);
	ktap_case_end("p2p_burst_wakes");
}

static const char *const cases[] = {
	"p2p_rc_both_orders", "p2p_guest_frames", "p2p_peer_gone",
	"p2p_bad_config", "p2p_burst_wakes",
};

int main(void)
{
	ktap_plan(5);
	snprintf(dir, sizeof(dir), "/tmp/orca-wire-p2p.XXXXXX");
	if (!mkdtemp(dir)) {
		/* Not a reason to check nothing: each case fails. */
		for (int i = 0; i < 5; i++) {
			printf("# no temporary directory: %s\n", strerror(errno));
			CHECK(0);
			ktap_case_end("%s", cases[i]);
		}
		return ktap_finish();
	}
	p2p_rc_both_orders();
	p2p_guest_frames();
	p2p_peer_gone();
	p2p_bad_config();
	p2p_burst_wakes();
	rmdir(dir);
	return ktap_finish();
}

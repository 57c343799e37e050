// SPDX-License-Identifier: GPL-2.0
/*
 * The transport's scheduler (roce_sched.c) and send queue polling
 * (roce_poll.c), with thousands of idle QPs beside a few active ones on two
 * adapters joined by an in-process wire:
 *   - a pass steps only QPs with work: the most QPs one pass looks at stays
 *     at the number of active QPs, with 2000 idle QPs on each adapter (the
 *     old engine looked at every QP four times in every pass);
 *   - timers still fire from the heap: a lost tail packet is sent again, an
 *     RNR NAK is retried, retry_cnt runs out with RETRY_EXC_ERR;
 *   - a QP destroyed with an armed timer, or while it is polled, leaves the
 *     heap and the run list (AddressSanitizer watches), and the other QPs'
 *     timers still fire;
 *   - polling: a poster that posts inside the window rings once, a poster
 *     without a window rings for every post after the queue went idle, the
 *     event index is published when a window ends (no stranded WQE);
 *   - the timer heap against a sorted reference, and the window's rules.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ktap.h"
#include "idle_qps.h"

#define WAIT_MS		10000
#define NIDLE		2000
#define NACT		6		/* active QP pairs, QPNs 2..7 */
#define IOVA_A		0x7f0000001000ull
#define IOVA_B		0x7e0000000800ull
#define BUF_LEN		(64u << 10)
#define FOREVER_US	10000000u	/* a polling window tests close */

/* A's frames to some of B's QPNs (< 64) are dropped: always or once. */
struct dropper {
	struct node *n;
	atomic_ullong always, once;	/* bit per destination QPN */
	atomic_ulong dropped;
};

struct world {
	struct node a, b;
	struct tcq acq, bcq;
	struct tbuf abuf, bbuf;
	struct tqp aqp[NACT], bqp[NACT];
	struct dropper drop;
	uint32_t first_idle_qpn;	/* A's idle QPs follow */
};

static struct world w;

static void drop_tx(void *ctx, const uint8_t *f, size_t len)
{
	struct dropper *d = ctx;
	/* IPv4 RoCEv2 without VLAN: the BTH's destination QP at 47..49. */
	uint32_t qpn = len > 50 ? (uint32_t)f[47] << 16 | f[48] << 8 | f[49] :
		       0;
	unsigned long long bit = qpn < 64 ? 1ull << qpn : 0;

	if (bit && (atomic_load(&d->always) & bit)) {
		atomic_fetch_add(&d->dropped, 1);
		return;
	}
	if (bit && (atomic_fetch_and(&d->once, ~bit) & bit)) {
		atomic_fetch_add(&d->dropped, 1);
		return;
	}
	node_tx(d->n, f, len);
}

static struct roce_stats stats(struct node *n)
{
	struct roce_stats st;

	engine_flush(n->t.eng);
	roce_get_stats(n->t.eng, &st);
	return st;
}

/* Engine-thread data: read while the engine is idle. */
static uint32_t armed_timers(struct node *n)
{
	engine_flush(n->t.eng);
	return timer_heap_count(&n->t.eng->roce->timers);
}

static uint64_t uar_writes(struct node *n)
{
	uint64_t v;

	pthread_mutex_lock(&n->t.eng->lock);
	v = n->t.eng->stats.uar_writes;
	pthread_mutex_unlock(&n->t.eng->lock);
	return v;
}

static void set_window(struct node *n, uint32_t min_us, uint32_t max_us)
{
	atomic_store(&n->t.eng->roce->poll_min_us, min_us);
	atomic_store(&n->t.eng->roce->poll_max_us, max_us);
}

static bool expect_cqe(struct node *n, struct tcq *cq, uint64_t wr_id,
		       uint8_t opcode, uint8_t status)
{
	return node_expect_cqe(n, cq, wr_id, opcode, status, NULL, WAIT_MS);
}

/* Successful WRITE completions of two QPs, which come in either order. */
static bool expect_two_writes(uint64_t id1, uint64_t id2)
{
	bool seen1 = false, seen2 = false;

	for (int i = 0; i < 2; i++) {
		struct orca_cqe c;

		if (!poll_cq(&w.a, &w.acq, &c, WAIT_MS) ||
		    c.status != ORCA_CQE_ST_SUCCESS ||
		    c.opcode != ORCA_CQE_RDMA_WRITE) {
			printf("# no successful WRITE CQE\n");
			return false;
		}
		seen1 |= cqe_wr_id(&c) == id1;
		seen2 |= cqe_wr_id(&c) == id2;
	}
	return seen1 && seen2;
}

static void post_write(int i, uint64_t wr_id, uint64_t off, uint32_t len)
{
	struct orca_send_wqe_hdr h = wqe(ORCA_WQE_RDMA_WRITE, wr_id);
	struct tsge s = { IOVA_A + off, len, w.abuf.key };

	h.remote_addr = htole64(IOVA_B + off);
	h.rkey = htole32(w.bbuf.key);
	post_send(&w.a, &w.aqp[i], &h, &s, 1);
}

/* A WRITE on pair @i, waited for; the bytes are checked at B. */
static bool do_write(int i, uint64_t wr_id, uint64_t off, uint32_t len,
		     uint8_t status)
{
	buf_fill(&w.a, &w.abuf, off, len, (uint32_t)wr_id);
	post_write(i, wr_id, off, len);
	if (!expect_cqe(&w.a, &w.acq, wr_id, ORCA_CQE_RDMA_WRITE, status))
		return false;
	return status || buf_check(&w.b, &w.bbuf, off, len, (uint32_t)wr_id);
}

static bool do_read(int i, uint64_t wr_id, uint64_t off, uint32_t len)
{
	struct orca_send_wqe_hdr h = wqe(ORCA_WQE_RDMA_READ, wr_id);
	struct tsge s = { IOVA_A + off, len, w.abuf.key };

	buf_fill(&w.b, &w.bbuf, off, len, (uint32_t)wr_id);
	h.remote_addr = htole64(IOVA_B + off);
	h.rkey = htole32(w.bbuf.key);
	post_send(&w.a, &w.aqp[i], &h, &s, 1);
	return expect_cqe(&w.a, &w.acq, wr_id, ORCA_CQE_RDMA_READ,
			  ORCA_CQE_ST_SUCCESS) &&
	       buf_check(&w.a, &w.abuf, off, len, (uint32_t)wr_id);
}

static bool world_init(void)
{
	struct rc_opts o = {
		.path_mtu = 3, .timeout = 14, .retry_cnt = 7, .rnr_retry = 7,
		.min_rnr_timer = 1, .access = ORCA_QP_ACCESS_ALL,
	};
	struct rc_opts quick = o, slow = o;
	unsigned int made;

	if (!node_init(&w.a, 1) || !node_init(&w.b, 2))
		return false;
	w.a.peer = &w.b;
	w.b.peer = &w.a;
	w.drop.n = &w.a;
	engine_set_roce_tx(w.a.t.eng, drop_tx, &w.drop);
	if (!node_cq(&w.a, &w.acq, 10) || !node_cq(&w.b, &w.bcq, 10) ||
	    !node_buf(&w.a, &w.abuf, IOVA_A, BUF_LEN, ORCA_ACCESS_ALL) ||
	    !node_buf(&w.b, &w.bbuf, IOVA_B, BUF_LEN, ORCA_ACCESS_ALL))
		return false;
	for (int i = 0; i < NACT; i++)
		if (!node_qp(&w.a, &w.aqp[i], ORCA_QPT_RC, &w.acq, &w.acq) ||
		    !node_qp(&w.b, &w.bqp[i], ORCA_QPT_RC, &w.bcq, &w.bcq))
			return false;
	/*
	 * Pair 2 gives up fast: a 4 ms timeout, one retry.  Pairs 3 to 5
	 * lose everything for a while and must not give up meanwhile, on a
	 * loaded machine either: a 268 ms timeout, 2 s to exhaustion.
	 */
	quick.timeout = 10;
	quick.retry_cnt = 1;
	slow.timeout = 16;
	for (int i = 0; i < NACT; i++) {
		const struct rc_opts *oi = i == 2 ? &quick :
					   i >= 3 ? &slow : &o;

		if (!node_connect(&w.a, &w.aqp[i], &w.b, w.bqp[i].qpn, oi) ||
		    !node_connect(&w.b, &w.bqp[i], &w.a, w.aqp[i].qpn, oi))
			return false;
	}
	w.first_idle_qpn = w.aqp[NACT - 1].qpn + 1;
	made = idle_qps_create(&w.a, &w.acq, &w.b, &w.bcq, NIDLE);
	if (made != NIDLE) {
		printf("# only %u idle QPs\n", made);
		return false;
	}
	return true;
}

static void world_fini(void)
{
	engine_set_roce_tx(w.a.t.eng, NULL, NULL);
	engine_set_roce_tx(w.b.t.eng, NULL, NULL);
	node_fini(&w.a);
	node_fini(&w.b);
	free(w.abuf.pages);
	free(w.bbuf.pages);
}

/*
 * Traffic on two of the 2006 QPs of each adapter: no pass may look at
 * more QPs than those two, each at most twice (its timer fired and its
 * step).  The old engine looked at all 2006 four times in every pass.
 */
static void test_pass_cost(void)
{
	struct roce_stats sa, sb;
	bool ok = true;

	for (int i = 0; i < 200 && ok; i++)
		ok = do_write(i & 1, 1000 + i, 64 * (i & 1), 64,
			      ORCA_CQE_ST_SUCCESS);
	CHECK(ok);
	/* Both QPs at once, many packets each, and READ responses. */
	buf_fill(&w.a, &w.abuf, 4096, 16384, 7);
	buf_fill(&w.a, &w.abuf, 32768, 16384, 8);
	post_write(0, 2000, 4096, 16384);
	post_write(1, 2001, 32768, 16384);
	CHECK(expect_two_writes(2000, 2001));
	CHECK(buf_check(&w.b, &w.bbuf, 4096, 16384, 7));
	CHECK(buf_check(&w.b, &w.bbuf, 32768, 16384, 8));
	CHECK(do_read(1, 2002, 8192, 20000));
	sa = stats(&w.a);
	sb = stats(&w.b);
	printf("# A: %llu passes, %llu QP steps, at most %llu in a pass; "
	       "B: %llu passes, %llu QP steps, at most %llu in a pass\n",
	       (unsigned long long)sa.passes,
	       (unsigned long long)sa.qp_steps,
	       (unsigned long long)sa.max_pass_steps,
	       (unsigned long long)sb.passes,
	       (unsigned long long)sb.qp_steps,
	       (unsigned long long)sb.max_pass_steps);
	CHECK(sa.passes > 200 && sb.passes > 200);
	CHECK(sa.max_pass_steps >= 1 && sa.max_pass_steps <= 4);
	CHECK(sb.max_pass_steps >= 1 && sb.max_pass_steps <= 4);
	CHECK(sa.qp_steps <= 2 * sa.passes && sb.qp_steps <= 2 * sb.passes);
	/* Nothing outstanding: no timer armed, nothing on the run list. */
	CHECK(armed_timers(&w.a) == 0 && armed_timers(&w.b) == 0);
	CHECK(w.a.t.eng->roce->run_head == NULL);
	ktap_case_end("pass_cost_independent_of_2000_idle_qps");
}

/* A lost tail packet: no later packet reveals the gap, only a timer. */
static void test_tail_loss(void)
{
	struct roce_stats s0 = stats(&w.a), s1;
	unsigned long d0 = atomic_load(&w.drop.dropped);

	atomic_store(&w.drop.once, 1ull << w.bqp[0].qpn);
	CHECK(do_write(0, 3000, 0, 1000, ORCA_CQE_ST_SUCCESS));
	s1 = stats(&w.a);
	CHECK(atomic_load(&w.drop.dropped) == d0 + 1);
	/* Early, unless a loaded machine's round trips made it the full one. */
	CHECK(s1.fast_retries + s1.timeouts > s0.fast_retries + s0.timeouts);
	CHECK(s1.retransmits > s0.retransmits);
	CHECK(s1.timers_fired > s0.timers_fired);
	CHECK(armed_timers(&w.a) == 0);
	ktap_case_end("tail_loss_retransmitted_by_timer_among_idle_qps");
}

/* SEND without a receive: RNR NAKs, each retried when the timer fires. */
static void test_rnr(void)
{
	struct orca_send_wqe_hdr h = wqe(ORCA_WQE_SEND, 4000);
	struct tsge s = { IOVA_A, 3000, w.abuf.key };
	struct tsge r = { IOVA_B, 4000, w.bbuf.key };
	struct roce_stats s0 = stats(&w.a), s1;
	int waited = 0;

	buf_fill(&w.a, &w.abuf, 0, 3000, 40);
	post_send(&w.a, &w.aqp[1], &h, &s, 1);
	/* Three RNR NAKs: the RNR timer fired and the SEND went again. */
	do {
		th_sleep_ms(1);
		s1 = stats(&w.a);
	} while (s1.rnr_naks_rx < s0.rnr_naks_rx + 3 && ++waited < WAIT_MS);
	CHECK(s1.rnr_naks_rx >= s0.rnr_naks_rx + 3);
	post_recv(&w.b, &w.bqp[1], 4001, &r, 1);
	CHECK(expect_cqe(&w.a, &w.acq, 4000, ORCA_CQE_SEND,
			 ORCA_CQE_ST_SUCCESS));
	CHECK(expect_cqe(&w.b, &w.bcq, 4001, ORCA_CQE_RECV,
			 ORCA_CQE_ST_SUCCESS));
	CHECK(buf_check(&w.b, &w.bbuf, 0, 3000, 40));
	CHECK(armed_timers(&w.a) == 0);
	ktap_case_end("rnr_nak_retried_by_timer_among_idle_qps");
}

/* Pair 2 (4 ms timeout, retry_cnt 1) loses everything: two timeouts. */
static void test_retry_exhausted(void)
{
	struct roce_stats s0 = stats(&w.a), s1;

	atomic_store(&w.drop.always, 1ull << w.bqp[2].qpn);
	post_write(2, 5000, 0, 100);
	CHECK(expect_cqe(&w.a, &w.acq, 5000, ORCA_CQE_RDMA_WRITE,
			 ORCA_CQE_ST_RETRY_EXC_ERR));
	atomic_store(&w.drop.always, 0);
	s1 = stats(&w.a);
	CHECK(s1.timeouts == s0.timeouts + 2);
	/* In ERR: its timer is gone from the heap. */
	CHECK(armed_timers(&w.a) == 0);
	ktap_case_end("retry_exhausted_by_timeouts_among_idle_qps");
}

/* Submits a command and waits for its completion without engine_flush(). */
static int exec_nowait(struct th *t, uint16_t op, const void *in,
		       size_t size)
{
	struct tcmd c = { .opcode = op, .in = in, .in_size = size };
	uint16_t n = t->pi;
	uint16_t token = th_post(t, &c);

	th_ring(t);
	for (int i = 0; i < WAIT_MS; i++) {
		if (th_completed(t, n, token))
			return t->last.status;
		th_sleep_ms(1);
	}
	return -1;
}

/*
 * Three QPs whose frames are all lost have armed timers; the middle one is
 * destroyed, with idle QPs; the other two recover when the loss ends.  A
 * QP is also destroyed while it is being polled (on the run list).
 */
static void test_destroy_queued(void)
{
	struct orca_cmd_destroy_obj d = { .handle = htole32(w.aqp[4].qpn) };
	uint64_t all = 1ull << w.bqp[3].qpn | 1ull << w.bqp[4].qpn |
		       1ull << w.bqp[5].qpn;
	struct roce_stats s0 = stats(&w.a), s1;
	uint32_t armed;

	atomic_store(&w.drop.always, all);
	/* Each WQE is sent (and lost) before the next is posted. */
	for (int q = 3; q <= 5; q++) {
		unsigned long d0 = atomic_load(&w.drop.dropped);

		post_write(q, 6000 + q, 4096 * (q - 3), 100);
		for (int i = 0; i < WAIT_MS &&
		     atomic_load(&w.drop.dropped) == d0; i++)
			th_sleep_ms(1);
	}
	armed = armed_timers(&w.a);
	CHECK(armed == 3);
	CHECK(th_destroy(&w.a.t, ORCA_CMD_DESTROY_QP, w.aqp[4].qpn) ==
	      ORCA_CMD_ST_OK);
	CHECK(armed_timers(&w.a) == 2);
	/* The survivors recover (their next timer) while idle QPs go. */
	atomic_store(&w.drop.always, 0);
	for (uint32_t q = w.first_idle_qpn; q < w.first_idle_qpn + 200; q++)
		CHECK(th_destroy(&w.a.t, ORCA_CMD_DESTROY_QP, q) ==
		      ORCA_CMD_ST_OK);
	CHECK(expect_two_writes(6003, 6005));
	s1 = stats(&w.a);
	CHECK(s1.timers_fired > s0.timers_fired);
	CHECK(armed_timers(&w.a) == 0);

	/* Destroyed while polled: on the run list, off it safely. */
	set_window(&w.a, FOREVER_US, FOREVER_US);
	CHECK(do_write(3, 6006, 0, 64, ORCA_CQE_ST_SUCCESS));
	d.handle = htole32(w.aqp[3].qpn);
	CHECK(exec_nowait(&w.a.t, ORCA_CMD_DESTROY_QP, &d, sizeof(d)) ==
	      ORCA_CMD_ST_OK);
	CHECK(do_write(5, 6007, 0, 64, ORCA_CQE_ST_SUCCESS));
	set_window(&w.a, 0, ROCE_POLL_MAX_US);
	engine_flush(w.a.t.eng);
	CHECK(w.a.t.eng->roce->run_head == NULL);
	CHECK(armed_timers(&w.a) == 0);
	ktap_case_end("destroy_qp_with_armed_timer_or_while_polled");
}

/*
 * A window that stays open: after the first post rang, the engine finds
 * every later one by polling.  When the window closes the event index is
 * published, and the next post rings again.
 */
static void test_polling(void)
{
	struct orca_qp_db_rec *rec = qp_rec(&w.a, &w.aqp[0]);
	struct roce_stats s0, s1;
	uint64_t u0;
	bool ok = true;
	int i;

	engine_flush(w.a.t.eng);
	s0 = stats(&w.a);
	set_window(&w.a, FOREVER_US, FOREVER_US);
	u0 = uar_writes(&w.a);
	for (i = 0; i < 50 && ok; i++)
		ok = do_write(0, 7000 + i, 64, 64, ORCA_CQE_ST_SUCCESS);
	CHECK(ok);
	CHECK(uar_writes(&w.a) == u0 + 1);
	set_window(&w.a, 0, 0);
	for (i = 0; i < WAIT_MS; i++) {
		_Atomic __le32 *e = (_Atomic __le32 *)&rec->sq_event_idx;

		if (le32toh(atomic_load(e)) == w.aqp[0].sq_pi)
			break;
		th_sleep_ms(1);
	}
	CHECK(i < WAIT_MS);
	s1 = stats(&w.a);
	CHECK(s1.poll_hits >= s0.poll_hits + 49);
	CHECK(s1.poll_misses >= s0.poll_misses + 1);
	CHECK(do_write(0, 7100, 64, 64, ORCA_CQE_ST_SUCCESS));
	CHECK(uar_writes(&w.a) == u0 + 2);
	ktap_case_end("polled_send_queue_rings_once_then_publishes");

	/* No window: the event index is out before each completion. */
	u0 = uar_writes(&w.a);
	for (i = 0, ok = true; i < 50 && ok; i++)
		ok = do_write(0, 7200 + i, 64, 64, ORCA_CQE_ST_SUCCESS);
	CHECK(ok);
	CHECK(uar_writes(&w.a) == u0 + 50);
	set_window(&w.a, 0, ROCE_POLL_MAX_US);
	ktap_case_end("unpolled_send_queue_rings_for_every_post");
}

static void test_adapt(void)
{
	/* A gap widens the window to twice itself, up to the maximum. */
	CHECK(roce_poll_adapt(0, 30, false, 100) == 60);
	CHECK(roce_poll_adapt(20, 80, false, 100) == 100);
	/* A shorter gap keeps it; one no window could catch leaves it. */
	CHECK(roce_poll_adapt(60, 20, false, 100) == 60);
	CHECK(roce_poll_adapt(20, 150, false, 100) == 20);
	/* A window without a post halves, down to none. */
	CHECK(roce_poll_adapt(60, 0, true, 100) == 30);
	CHECK(roce_poll_adapt(1, 0, true, 100) == 0);
	CHECK(roce_poll_adapt(0, 0, true, 100) == 0);
	ktap_case_end("poll_window_adapts_to_gaps");
}

/* Random arm/move/disarm against a brute-force minimum. */
static void test_heap(void)
{
	enum { N = 300 };
	static struct timer_node t[N];
	struct timer_heap h = { 0 };
	uint64_t rng = 12345;
	bool ok = true;

	CHECK(timer_heap_reserve(&h, N) == 0);
	for (int i = 0; i < N; i++)
		timer_node_init(&t[i]);
	for (int step = 0; step < 20000 && ok; step++) {
		struct timer_node *first, *want = NULL;
		uint32_t armed = 0;
		int i;

		rng ^= rng << 13;
		rng ^= rng >> 7;
		rng ^= rng << 17;
		i = rng % N;
		if ((rng >> 20) % 4 == 0)
			timer_heap_del(&h, &t[i]);
		else
			ok &= timer_heap_set(&h, &t[i],
					     (rng >> 24) % 1000 + 1) == 0;
		for (i = 0; i < N; i++) {
			if (!timer_armed(&t[i]))
				continue;
			armed++;
			if (!want || t[i].due < want->due)
				want = &t[i];
		}
		first = timer_heap_first(&h);
		ok &= armed == timer_heap_count(&h);
		ok &= want ? first && first->due == want->due : !first;
	}
	CHECK(ok);
	/* Popping in order gives sorted deadlines. */
	for (uint64_t last = 0; timer_heap_first(&h) && ok;) {
		struct timer_node *f = timer_heap_first(&h);

		ok &= f->due >= last;
		last = f->due;
		timer_heap_del(&h, f);
		ok &= !timer_armed(f);
	}
	CHECK(ok);
	CHECK(timer_heap_set(&h, &t[0], 5) == 0);
	timer_heap_fini(&h);
	CHECK(!timer_armed(&t[0]));
	ktap_case_end("timer_heap_matches_brute_force");
}

int main(void)
{
	ktap_plan(9);
	test_heap();
	test_adapt();
	if (!world_init()) {
		printf("# setup failed\n");
		return 1;
	}
	test_pass_cost();
	test_tail_loss();
	test_rnr();
	test_retry_exhausted();
	test_destroy_queued();
	test_polling();
	world_fini();
	return ktap_finish();
}

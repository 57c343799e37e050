// SPDX-License-Identifier: GPL-2.0
/*
 * The rules by which the driver and the provider retire WQEs
 * (drivers/infiniband/hw/orca/orca_wqe_track.h, which both include as it
 * is), replayed on CQE streams against a plain model of the queue:
 *   - an SQ/RQ CQE names an outstanding WQE only inside [ci, pi), across
 *     the 16-bit wrap of wqe_idx and the 32-bit wrap of the indices;
 *   - an SRQ shared by QPs on two CQs, its CQEs polled CQ B first, then CQ
 *     A, with posts in between: every wr_id is the one posted, and a post
 *     is refused exactly when the slot at pi still waits for its CQE;
 *   - an SRQ CQE that names no WQE outstanding (a second CQE for a WQE,
 *     an index outside the window below pi) is refused;
 *   - a resize after out-of-order completions: the span, not the count,
 *     is the smallest depth, and each record moves to its index's slot.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ktap.h"
#include "orca_hw.h"

/* What the driver gets from <linux/bitops.h>, the provider from orca_hw.h. */
#define LONG_BITS	(8 * sizeof(unsigned long))

static bool test_bit(unsigned long nr, const unsigned long *addr)
{
	return addr[nr / LONG_BITS] >> (nr % LONG_BITS) & 1;
}

static void __set_bit(unsigned long nr, unsigned long *addr)
{
	addr[nr / LONG_BITS] |= 1UL << (nr % LONG_BITS);
}

static void __clear_bit(unsigned long nr, unsigned long *addr)
{
	addr[nr / LONG_BITS] &= ~(1UL << (nr % LONG_BITS));
}

#include "../../drivers/infiniband/hw/orca/orca_wqe_track.h"

#define NONE		UINT64_MAX
#define MAX_DEPTH	64

static void test_wq_outstanding(void)
{
	static const uint32_t cis[] = { 0, 100, 0xfff0, 0xfffffff0 };
	uint32_t idx;
	unsigned int i;

	for (i = 0; i < 4; i++) {
		uint32_t ci = cis[i], pi = ci + 20;

		CHECK(orca_wq_outstanding(ci, pi, (uint16_t)ci, &idx) &&
		      idx == ci);
		CHECK(orca_wq_outstanding(ci, pi, (uint16_t)(ci + 19), &idx) &&
		      idx == ci + 19);
		/* Not yet posted, or already retired. */
		CHECK(!orca_wq_outstanding(ci, pi, (uint16_t)pi, &idx));
		CHECK(!orca_wq_outstanding(ci, pi, (uint16_t)(ci - 1), &idx));
		/* An empty queue has nothing to complete. */
		CHECK(!orca_wq_outstanding(ci, ci, (uint16_t)ci, &idx));
	}
	/* The emulator's "garbage-cqe" index, on an idle or a busy queue. */
	CHECK(!orca_wq_outstanding(100, 100, 0xffff, &idx));
	CHECK(!orca_wq_outstanding(100, 120, 0xffff, &idx));
	/* A full ring of 65536: every wqe_idx names one of them. */
	CHECK(orca_wq_outstanding(7, 7 + 65536, 6, &idx) && idx == 65542);
	CHECK(orca_wq_slot(65542, 4) == 6 && orca_wq_slot(65542, 16) == 6);
	ktap_case_end("wq_outstanding: [ci, pi) across the 16- and 32-bit wraps");
}

/* An SRQ's records and the test's own model of them. */
struct srq {
	uint32_t log_depth, pi;
	unsigned long posted[MAX_DEPTH / LONG_BITS + 1];
	uint64_t wrid[MAX_DEPTH];
	uint64_t model[1 << 16];	/* wr_id of each index outstanding */
};

static void srq_init(struct srq *s, uint32_t log_depth, uint32_t pi)
{
	memset(s, 0, sizeof(*s));
	s->log_depth = log_depth;
	s->pi = pi;
	for (unsigned int i = 0; i < 1 << 16; i++)
		s->model[i] = NONE;
}

/* Post at pi; the model says whether that may be: the slot's last WQE done. */
static bool srq_post(struct srq *s, uint64_t wr_id)
{
	uint32_t depth = 1U << s->log_depth;
	bool may = s->model[(uint16_t)(s->pi - depth)] == NONE;
	bool took = orca_srq_post_slot(s->posted, s->wrid, s->log_depth,
				       s->pi, wr_id);

	CHECK(took == may);
	if (took)
		s->model[(uint16_t)s->pi++] = wr_id;
	return took;
}

/* The CQE of index @idx; check the wr_id against what was posted. */
static bool srq_complete(struct srq *s, uint32_t idx)
{
	uint64_t wr_id = NONE;
	bool ok = orca_srq_complete_slot(s->posted, s->wrid, s->log_depth,
					 s->pi, (uint16_t)idx, &wr_id);

	CHECK(ok == (s->model[(uint16_t)idx] != NONE));
	if (ok) {
		CHECK(wr_id == s->model[(uint16_t)idx]);
		s->model[(uint16_t)idx] = NONE;
	}
	return ok;
}

/*
 * The device takes the SRQ's WQEs in ring order for QPs on CQ A or B;
 * CQ B is polled first, posts fill what they may, then CQ A is polled.
 */
static void test_srq_two_cqs(void)
{
	static struct srq s;
	uint32_t taken, cq_b[MAX_DEPTH], cq_a[MAX_DEPTH];
	unsigned int seed = 1, round, i, na, nb, n, refusals = 0;
	uint64_t next_id = 0x1000;

	srq_init(&s, 3, 0xfff0);	/* the 16-bit wrap comes soon */
	taken = s.pi;
	for (round = 0; round < 2000; round++) {
		while (srq_post(&s, next_id))
			next_id++;
		refusals++;
		/* Take some of what is posted, each for CQ A or B. */
		seed = seed * 1103515245 + 12345;
		n = 1 + (seed >> 16) % (s.pi - taken);
		for (na = nb = i = 0; i < n; i++, taken++) {
			if (seed >> (i % 16) & 1)
				cq_b[nb++] = taken;
			else
				cq_a[na++] = taken;
		}
		for (i = 0; i < nb; i++)
			CHECK(srq_complete(&s, cq_b[i]));
		while (srq_post(&s, next_id))
			next_id++;
		for (i = 0; i < na; i++)
			CHECK(srq_complete(&s, cq_a[i]));
		/* A second CQE for a WQE: refused, nothing freed. */
		if (nb)
			CHECK(!srq_complete(&s, cq_b[0]));
	}
	CHECK(refusals == 2000 && s.pi - 0xfff0 > 8000);
	ktap_case_end("srq_two_cqs: CQ B before CQ A, posts between, %u WQEs",
		      s.pi - 0xfff0);
}

static void test_srq_not_outstanding(void)
{
	static struct srq s;
	uint64_t wr_id;
	unsigned int i;

	srq_init(&s, 3, 100);
	for (i = 0; i < 8; i++)
		CHECK(srq_post(&s, i));
	/* Outside the 8 indices below pi: never posted, or long done. */
	CHECK(!orca_srq_complete_slot(s.posted, s.wrid, 3, s.pi,
				      (uint16_t)s.pi, &wr_id));
	CHECK(!orca_srq_complete_slot(s.posted, s.wrid, 3, s.pi,
				      (uint16_t)(s.pi - 9), &wr_id));
	CHECK(!orca_srq_complete_slot(s.posted, s.wrid, 3, s.pi, 0xffff,
				      &wr_id));
	/* Inside the window: completes once. */
	CHECK(srq_complete(&s, s.pi - 8));
	CHECK(!srq_complete(&s, s.pi - 8));
	CHECK(srq_post(&s, 8));
	CHECK(!srq_post(&s, 9));
	ktap_case_end("srq_not_outstanding: outside the window, or completed, refused");
}

static void test_srq_resize_span(void)
{
	static struct srq s;
	unsigned long posted[MAX_DEPTH / LONG_BITS + 1] = { 0 };
	uint64_t wrid[MAX_DEPTH], wr_id;
	unsigned int i;

	srq_init(&s, 5, 0xfffe);
	CHECK(orca_srq_span(s.posted, 5, s.pi) == 0);
	for (i = 0; i < 32; i++)
		CHECK(srq_post(&s, 0x500 + i));
	/* All done but two, out of order: pi - 32 and pi - 2. */
	for (i = 1; i < 32; i++)
		if (i != 30)
			CHECK(srq_complete(&s, s.pi - 32 + i));
	CHECK(orca_srq_span(s.posted, 5, s.pi) == 32);
	/* Two outstanding, yet a depth of 2 would give them one slot. */
	CHECK(orca_wq_slot(s.pi - 32, 1) == orca_wq_slot(s.pi - 2, 1));
	/* With the oldest done, the span is the count again. */
	CHECK(srq_complete(&s, s.pi - 32));
	CHECK(orca_srq_span(s.posted, 5, s.pi) == 2);
	for (i = 0; i < 3; i++)
		CHECK(srq_post(&s, 0x600 + i));
	CHECK(orca_srq_span(s.posted, 5, s.pi) == 5);
	/* To a depth of 8: each CQE finds its own record, once. */
	orca_srq_move_slots(s.posted, s.wrid, 5, posted, wrid, 3, s.pi);
	for (i = 1; i <= 8; i++) {
		uint32_t idx = s.pi - i;
		bool out = s.model[(uint16_t)idx] != NONE;

		wr_id = NONE;
		CHECK(orca_srq_complete_slot(posted, wrid, 3, s.pi,
					     (uint16_t)idx, &wr_id) == out);
		CHECK(!out || wr_id == s.model[(uint16_t)idx]);
	}
	CHECK(orca_srq_span(posted, 3, s.pi) == 0);
	ktap_case_end("srq_resize_span: the span after out-of-order completions, records moved");
}

int main(void)
{
	ktap_plan(4);
	test_wq_outstanding();
	test_srq_two_cqs();
	test_srq_not_outstanding();
	test_srq_resize_span();
	return ktap_finish();
}

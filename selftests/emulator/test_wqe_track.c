// SPDX-License-Identifier: GPL-2.0
/*
 * The rules by which the driver and the provider retire WQEs
 * (drivers/infiniband/hw/orca/orca_wqe_track.h, which both include as it
 * is), replayed on CQE streams against a plain model of the queue:
 *   - an SQ/RQ CQE names an outstanding WQE only inside [ci, pi), across
 *     the 16-bit wrap of wqe_idx and the 32-bit wrap of the indices;
 *   - an SRQ shared by QPs on two CQs, its CQEs polled CQ B first, then CQ
 *     A, with posts in between: every wr_id is the one posted; untagged, a
 *     post is refused exactly when the slot at pi still waits for its CQE,
 *     tagged (1.5) exactly when depth WQEs are outstanding, so it takes
 *     posts the slot rule refuses;
 *   - an SRQ CQE that names no WQE outstanding (a second CQE for a WQE, an
 *     index outside the window below pi, a tag beyond the depth or not in
 *     use) is refused;
 *   - a resize after out-of-order completions: untagged, the span, not the
 *     count, is the smallest depth, and each record moves to its index's
 *     slot; tagged, the records in use stay below the most WQEs ever
 *     outstanding at once and keep their tags.
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

/*
 * An SRQ's records and the test's own model of them: the wr_id of each
 * index outstanding, and for a tagged SRQ the tag each was posted with and
 * the index outstanding with each tag.
 */
struct srq {
	uint32_t log_depth, pi, outstanding;
	struct orca_srq_recs r;
	unsigned long posted[MAX_DEPTH / LONG_BITS + 1];
	uint64_t wrid[MAX_DEPTH];
	uint16_t free[MAX_DEPTH];
	uint64_t model[1 << 16];	/* wr_id of each index outstanding */
	uint16_t tag[1 << 16];		/* tagged: each index's tag */
	uint64_t owner[MAX_DEPTH];	/* tagged: each tag's index, or NONE */
	unsigned int slot_refusals;	/* tagged: posts the slot rule refuses */
};

static void srq_init(struct srq *s, bool tagged, uint32_t log_depth,
		     uint32_t pi)
{
	memset(s, 0, sizeof(*s));
	s->log_depth = log_depth;
	s->pi = pi;
	s->r = (struct orca_srq_recs){ .wrid = s->wrid, .posted = s->posted,
				       .free = s->free, .tagged = tagged };
	orca_srq_recs_init(&s->r, log_depth);
	for (unsigned int i = 0; i < 1 << 16; i++)
		s->model[i] = NONE;
	for (unsigned int i = 0; i < MAX_DEPTH; i++)
		s->owner[i] = NONE;
}

/* Is the tag of index @idx free again (so a CQE naming it is refused)? */
static bool srq_tag_free(const struct srq *s, uint32_t idx)
{
	return s->owner[s->tag[(uint16_t)idx]] == NONE;
}

/*
 * Post at pi; the model says whether that may be.  Untagged: the slot's
 * last WQE done.  Tagged: fewer than depth outstanding, and no two
 * outstanding with one tag.
 */
static bool srq_post(struct srq *s, uint64_t wr_id)
{
	uint32_t depth = 1U << s->log_depth;
	bool slot_free = s->model[(uint16_t)(s->pi - depth)] == NONE;
	bool may = s->r.tagged ? s->outstanding < depth : slot_free;
	uint16_t tag = 0xbeef;
	bool took = orca_srq_rec_post(&s->r, s->log_depth, s->pi, wr_id, &tag);

	CHECK(took == may);
	if (!took)
		return false;
	if (s->r.tagged) {
		CHECK(tag < depth && s->owner[tag] == NONE);
		s->owner[tag] = s->pi;
		s->tag[(uint16_t)s->pi] = tag;
		s->slot_refusals += !slot_free;
	} else {
		CHECK(tag == orca_wq_slot(s->pi, s->log_depth));
	}
	s->model[(uint16_t)s->pi++] = wr_id;
	s->outstanding++;
	return true;
}

/* What the CQE of index @idx says: its tag, or its index. */
static uint16_t srq_cqe_idx(const struct srq *s, uint32_t idx)
{
	return s->r.tagged ? s->tag[(uint16_t)idx] : (uint16_t)idx;
}

/* The CQE of index @idx; check the wr_id against what was posted. */
static bool srq_complete(struct srq *s, uint32_t idx)
{
	uint64_t wr_id = NONE;
	bool ok = orca_srq_rec_complete(&s->r, s->log_depth, s->pi,
					srq_cqe_idx(s, idx), &wr_id);

	CHECK(ok == (s->model[(uint16_t)idx] != NONE));
	if (ok) {
		CHECK(wr_id == s->model[(uint16_t)idx]);
		s->model[(uint16_t)idx] = NONE;
		s->outstanding--;
		if (s->r.tagged)
			s->owner[s->tag[(uint16_t)idx]] = NONE;
	}
	return ok;
}

/*
 * The device takes the SRQ's WQEs in ring order for QPs on CQ A or B;
 * CQ B is polled first, posts fill what they may, then CQ A is polled.
 */
static void test_srq_two_cqs(bool tagged)
{
	static struct srq s;
	uint32_t taken, cq_b[MAX_DEPTH], cq_a[MAX_DEPTH];
	unsigned int seed = 1, round, i, na, nb, n, refusals = 0;
	uint64_t next_id = 0x1000;

	srq_init(&s, tagged, 3, 0xfff0);	/* the 16-bit wrap comes soon */
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
		/*
		 * A second CQE for a WQE: refused, nothing freed (a tag taken
		 * again meanwhile names the new WQE).
		 */
		if (nb && (!tagged || srq_tag_free(&s, cq_b[0])))
			CHECK(!srq_complete(&s, cq_b[0]));
	}
	CHECK(refusals == 2000 && s.pi - 0xfff0 > 8000);
	/* Tagged, many posts are taken where a slot still waits. */
	CHECK(!tagged || s.slot_refusals > 1000);
	ktap_case_end("srq_two_cqs %s: CQ B before CQ A, posts between, %u WQEs, %u taken past a waiting slot",
		      tagged ? "tagged" : "untagged", s.pi - 0xfff0,
		      s.slot_refusals);
}

static void test_srq_not_outstanding(void)
{
	static struct srq s;
	uint64_t wr_id;
	unsigned int i;

	srq_init(&s, false, 3, 100);
	for (i = 0; i < 8; i++)
		CHECK(srq_post(&s, i));
	/* Outside the 8 indices below pi: never posted, or long done. */
	CHECK(!orca_srq_rec_complete(&s.r, 3, s.pi, (uint16_t)s.pi, &wr_id));
	CHECK(!orca_srq_rec_complete(&s.r, 3, s.pi, (uint16_t)(s.pi - 9),
				     &wr_id));
	CHECK(!orca_srq_rec_complete(&s.r, 3, s.pi, 0xffff, &wr_id));
	/* Inside the window: completes once. */
	CHECK(srq_complete(&s, s.pi - 8));
	CHECK(!srq_complete(&s, s.pi - 8));
	CHECK(srq_post(&s, 8));
	CHECK(!srq_post(&s, 9));
	ktap_case_end("srq_not_outstanding untagged: outside the window, or completed, refused");

	srq_init(&s, true, 3, 100);
	for (i = 0; i < 5; i++)
		CHECK(srq_post(&s, i));
	/* Tags beyond the depth, or not in use; the index is no tag. */
	CHECK(!orca_srq_rec_complete(&s.r, 3, s.pi, 8, &wr_id));
	CHECK(!orca_srq_rec_complete(&s.r, 3, s.pi, 0xffff, &wr_id));
	CHECK(!orca_srq_rec_complete(&s.r, 3, s.pi, 5, &wr_id));
	CHECK(!orca_srq_rec_complete(&s.r, 3, s.pi, 7, &wr_id));
	CHECK(s.r.nfree == 3);
	/* A tag in use completes once, and is taken by the next post. */
	CHECK(srq_complete(&s, s.pi - 3));
	CHECK(!srq_complete(&s, s.pi - 3));
	CHECK(s.r.nfree == 4);
	CHECK(srq_post(&s, 5) && s.tag[(uint16_t)(s.pi - 1)] == 2);
	for (i = 6; i < 9; i++)
		CHECK(srq_post(&s, i));
	CHECK(!srq_post(&s, 9) && s.outstanding == 8 && s.r.nfree == 0);
	ktap_case_end("srq_not_outstanding tagged: a tag beyond the depth, not in use, or completed, refused");
}

static void test_srq_resize_span(void)
{
	static struct srq s;
	unsigned long posted[MAX_DEPTH / LONG_BITS + 1] = { 0 };
	uint64_t wrid[MAX_DEPTH], wr_id;
	struct orca_srq_recs to = { .wrid = wrid, .posted = posted };
	unsigned int i;

	srq_init(&s, false, 5, 0xfffe);
	CHECK(orca_srq_rec_span(&s.r, 5, s.pi) == 0);
	for (i = 0; i < 32; i++)
		CHECK(srq_post(&s, 0x500 + i));
	/* All done but two, out of order: pi - 32 and pi - 2. */
	for (i = 1; i < 32; i++)
		if (i != 30)
			CHECK(srq_complete(&s, s.pi - 32 + i));
	CHECK(orca_srq_rec_span(&s.r, 5, s.pi) == 32);
	/* Two outstanding, yet a depth of 2 would give them one slot. */
	CHECK(orca_wq_slot(s.pi - 32, 1) == orca_wq_slot(s.pi - 2, 1));
	/* With the oldest done, the span is the count again. */
	CHECK(srq_complete(&s, s.pi - 32));
	CHECK(orca_srq_rec_span(&s.r, 5, s.pi) == 2);
	for (i = 0; i < 3; i++)
		CHECK(srq_post(&s, 0x600 + i));
	CHECK(orca_srq_rec_span(&s.r, 5, s.pi) == 5);
	/* To a depth of 8: each CQE finds its own record, once. */
	orca_srq_recs_move(&s.r, 5, &to, 3, s.pi);
	for (i = 1; i <= 8; i++) {
		uint32_t idx = s.pi - i;
		bool out = s.model[(uint16_t)idx] != NONE;

		wr_id = NONE;
		CHECK(orca_srq_rec_complete(&to, 3, s.pi, (uint16_t)idx,
					    &wr_id) == out);
		CHECK(!out || wr_id == s.model[(uint16_t)idx]);
	}
	CHECK(orca_srq_rec_span(&to, 3, s.pi) == 0);
	ktap_case_end("srq_resize_span untagged: the span after out-of-order completions, records moved");
}

static void test_srq_resize_tagged(void)
{
	static struct srq s;
	unsigned long posted[MAX_DEPTH / LONG_BITS + 1] = { 0 };
	uint64_t wrid[MAX_DEPTH], wr_id;
	uint16_t free_recs[MAX_DEPTH];
	struct orca_srq_recs to = { .wrid = wrid, .posted = posted,
				    .free = free_recs, .tagged = true };
	uint32_t out[6], first, max_tag;
	unsigned int seed = 7, i, k;

	srq_init(&s, true, 5, 0xfffe);
	CHECK(orca_srq_rec_span(&s.r, 5, s.pi) == 0);
	/*
	 * At most 6 outstanding, 300 times one of them completed at random
	 * and another posted: long after the first, none of them within
	 * the depth below pi, their tags all below 6.
	 */
	first = s.pi;
	for (i = 0; i < 6; i++) {
		out[i] = s.pi;
		CHECK(srq_post(&s, 0x500 + i));
	}
	for (i = 0; i < 300; i++) {
		seed = seed * 1103515245 + 12345;
		k = (seed >> 16) % (i < 290 ? 6 : 5);	/* out[5] stays at last */
		CHECK(srq_complete(&s, out[k]));
		out[k] = s.pi;
		CHECK(srq_post(&s, 0x600 + i));
	}
	CHECK(s.outstanding == 6 && orca_srq_rec_span(&s.r, 5, s.pi) == 6);
	CHECK(s.pi - out[5] > 8 && s.pi - first > 300);
	/* Four done: the span is one past the higher tag of the two left. */
	for (i = 1; i < 5; i++)
		CHECK(srq_complete(&s, out[i]));
	max_tag = s.tag[(uint16_t)out[0]] > s.tag[(uint16_t)out[5]] ?
		  s.tag[(uint16_t)out[0]] : s.tag[(uint16_t)out[5]];
	CHECK(orca_srq_rec_span(&s.r, 5, s.pi) == max_tag + 1);
	/* To a depth of 8: the tags stay, the rest of the records are free. */
	orca_srq_recs_move(&s.r, 5, &to, 3, s.pi);
	CHECK(to.nfree == 6);
	for (i = 0; i < 6; i++) {
		bool is_out = i == 0 || i == 5;

		wr_id = NONE;
		CHECK(orca_srq_rec_complete(&to, 3, s.pi,
					    srq_cqe_idx(&s, out[i]),
					    &wr_id) == is_out);
		CHECK(!is_out || wr_id == s.model[(uint16_t)out[i]]);
	}
	CHECK(orca_srq_rec_span(&to, 3, s.pi) == 0 && to.nfree == 8);
	ktap_case_end("srq_resize_tagged: records in use below the most outstanding, tags kept");
}

int main(void)
{
	ktap_plan(7);
	test_wq_outstanding();
	test_srq_two_cqs(false);
	test_srq_two_cqs(true);
	test_srq_not_outstanding();
	test_srq_resize_span();
	test_srq_resize_tagged();
	return ktap_finish();
}

// SPDX-License-Identifier: GPL-2.0
/*
 * A switch port's egress model (emulator/wire/egress.c, issue 33) on a clock
 * the test drives: the traffic class from the IP DSCP; the link's rate (a
 * frame leaves only with its bytes' tokens, and the wait says when); a full
 * queue drops and counts; RED marks ECN-capable packets Congestion
 * Experienced above its thresholds (IPv4 with a valid header checksum,
 * IPv6) and counts the packets it could not mark, or with ecn_dequeue
 * by the depth a packet leaves behind; higher classes leave first; what
 * each class queued is counted.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ktap.h"
#include "wire_harness.h"
#include "wire/egress.h"

#define LEN	1000u

/* An IPv4 (or, with @v6, IPv6) UDP frame of LEN bytes, TOS @tos, seq @n. */
static void frame(uint8_t *f, uint8_t tos, bool v6, unsigned int n)
{
	memset(f, 0, LEN);
	memset(f, 0x02, 6);
	memset(f + 6, 0x04, 6);
	if (v6) {
		f[12] = 0x86;
		f[13] = 0xdd;
		f[14] = 0x60 | tos >> 4;
		f[15] = (uint8_t)(tos << 4);
		f[20] = 17;
	} else {
		f[12] = 0x08;
		f[14] = 0x45;
		f[15] = tos;
		f[16] = (LEN - 14) >> 8;
		f[17] = (LEN - 14) & 0xff;
		f[22] = 64;
		f[23] = 17;
		wire_ipv4_csum(f + 14);
	}
	f[LEN - 1] = (uint8_t)n;
}

static void test_class(void)
{
	uint8_t f[LEN], vlan[LEN + 4];

	frame(f, 26 << 2, false, 0);		/* DSCP 26: rdma_cm's TOS 106 */
	CHECK(egress_class(f, LEN) == 3);
	frame(f, 46 << 2 | 2, true, 0);		/* DSCP 46, ECT(0), IPv6 */
	CHECK(egress_class(f, LEN) == 5);
	memcpy(vlan, f, 12);
	vlan[12] = 0x81;
	vlan[13] = 0x00;
	vlan[14] = 0x00;
	vlan[15] = 0x05;
	memcpy(vlan + 16, f + 12, LEN - 12);
	CHECK(egress_class(vlan, LEN + 4) == 5);
	f[12] = 0x88;				/* not IP */
	f[13] = 0xb5;
	CHECK(egress_class(f, LEN) == 0);
	CHECK(egress_class(f, 10) == 0);	/* runt */
	ktap_case_end("class_is_the_dscp_top_three_bits");
}

static void test_rate(void)
{
	struct egress_cfg cfg = { .rate_mbps = 1000, .queue_bytes = 1u << 20 };
	const struct egress_frame *ef;
	struct egress e;
	uint64_t now = 5000000000ull, wait = 0, sent = 0, t;
	uint8_t f[LEN];

	egress_init(&e, &cfg, 1);
	for (unsigned int i = 0; i < 400; i++) {
		frame(f, 0, false, i);
		CHECK(egress_enqueue(&e, f, LEN, now));
	}
	/* The full bucket first: 1 ms of the link, 125000 bytes. */
	while ((ef = egress_peek(&e, now, &wait))) {
		CHECK(ef->data[LEN - 1] == (uint8_t)sent);
		egress_pop(&e);
		sent++;
	}
	CHECK(sent == 125);
	/* Then 1000 bytes at 1 Gb/s: one frame every 8 us. */
	CHECK(wait > 0 && wait <= 8000);
	CHECK(!egress_peek(&e, now + wait - 1, &wait));
	for (t = now; sent < 400; t += 1000) {
		while ((ef = egress_peek(&e, t, &wait))) {
			CHECK(ef->data[LEN - 1] == (uint8_t)sent);
			egress_pop(&e);
			sent++;
		}
	}
	printf("# 275 frames after the burst took %llu us (2200 at 1 Gb/s)\n",
	       (unsigned long long)(t - now) / 1000);
	CHECK(t - now >= 2190000 && t - now <= 2210000);
	CHECK(e.st.sent == 400 && e.st.dropped == 0 && !e.queued);
	CHECK(!egress_peek(&e, t, &wait));
	egress_fini(&e);
	ktap_case_end("frames_leave_at_the_link_rate");
}

static void test_drop(void)
{
	struct egress_cfg cfg = { .rate_mbps = 10, .queue_bytes = 4 * LEN };
	struct egress e;
	uint8_t f[LEN];
	int queued = 0;

	egress_init(&e, &cfg, 1);
	for (unsigned int i = 0; i < 6; i++) {
		frame(f, 0, false, i);
		queued += egress_enqueue(&e, f, LEN, 0);
	}
	/* Another class has a queue of its own. */
	frame(f, 26 << 2, false, 9);
	CHECK(egress_enqueue(&e, f, LEN, 0));
	CHECK(queued == 4 && e.st.dropped == 2 && e.st.enqueued == 5);
	CHECK(e.st.deepest == 4 * LEN);
	egress_fini(&e);
	CHECK(e.st.dropped == 7);	/* what was left is dropped too */
	ktap_case_end("a_full_class_queue_drops_and_counts");
}

/* A fresh egress of @cfg with @n ECT(0) IPv4 frames queued, seq 0.. */
static void enqueue_ect(struct egress *e, const struct egress_cfg *cfg,
			unsigned int n)
{
	uint8_t f[LEN];

	egress_init(e, cfg, 7);
	for (unsigned int i = 0; i < n; i++) {
		frame(f, 2, false, i);
		CHECK(egress_enqueue(e, f, LEN, 0));
	}
}

static void test_ecn(void)
{
	struct egress_cfg cfg = { .rate_mbps = 10, .queue_bytes = 64 * LEN,
				  .ecn_min_bytes = 10 * LEN,
				  .ecn_max_bytes = 20 * LEN,
				  .ecn_max_pct = 50 };
	const struct egress_frame *ef;
	struct egress e;
	unsigned int marked_low = 0, marked_mid = 0, marked_high = 0;
	uint64_t wait;
	uint8_t f[LEN];

	enqueue_ect(&e, &cfg, 40);
	/* Not-ECT above the threshold: counted, left alone. */
	frame(f, 0, false, 40);
	CHECK(egress_enqueue(&e, f, LEN, 0));
	CHECK(e.st.not_ect == 1);
	for (unsigned int i = 0; i < 41; i++) {
		ef = egress_peek(&e, 1000000000ull * (i + 1), &wait);
		if (!ef)
			break;
		if (i < 40) {
			bool ce = (ef->data[15] & 3) == 3;

			CHECK(wire_ipv4_sum(ef->data + 14) == 0);
			if (i <= 10)
				marked_low += ce;
			else if (i < 20)
				marked_mid += ce;
			else
				marked_high += ce;
		} else {
			CHECK((ef->data[15] & 3) == 0);
		}
		egress_pop(&e);
	}
	printf("# marked: %u at or below MIN, %u of 9 between, %u of 20 above MAX\n",
	       marked_low, marked_mid, marked_high);
	CHECK(marked_low == 0 && marked_high == 20);
	CHECK(marked_mid >= 1 && marked_mid <= 8);
	CHECK(e.st.marked == marked_mid + marked_high);
	egress_fini(&e);

	/* IPv6: CE is the traffic class's low bits. */
	frame(f, 1, true, 0);				/* ECT(1) */
	CHECK(egress_mark_ce(f, LEN) && (f[15] >> 4 & 3) == 3 &&
	      (f[14] & 0x0f) == 0);
	frame(f, 0, true, 0);
	CHECK(!egress_mark_ce(f, LEN));
	ktap_case_end("red_marks_ect_packets_ce_above_its_thresholds");
}

/*
 * --ecn-at dequeue: nothing is marked as it enters; a packet is marked by
 * the depth it leaves behind, decided once though peeked again.  The same
 * 40 packets as test_ecn() then: the first 20 leave 39 to 20 behind them
 * (at or above MAX: every one marked), the last 11 at most MIN (none),
 * the opposite of marking as they enter.
 */
static void test_ecn_dequeue(void)
{
	struct egress_cfg cfg = { .rate_mbps = 10, .queue_bytes = 64 * LEN,
				  .ecn_min_bytes = 10 * LEN,
				  .ecn_max_bytes = 20 * LEN,
				  .ecn_max_pct = 50, .ecn_dequeue = true };
	unsigned int first = 0, mid = 0, last = 0;
	const struct egress_frame *ef;
	struct egress e;
	uint64_t wait;

	enqueue_ect(&e, &cfg, 40);
	CHECK(e.st.marked == 0 && e.st.not_ect == 0);
	for (unsigned int i = 0; i < 40; i++) {
		uint64_t marked;
		bool ce;

		ef = egress_peek(&e, 1000000000ull * (i + 1), &wait);
		CHECK(ef && ef->data[LEN - 1] == (uint8_t)i);
		if (!ef)
			break;
		marked = e.st.marked;
		/* Offered again (its ring was full): the same decision. */
		CHECK(egress_peek(&e, 1000000000ull * (i + 1), &wait) == ef &&
		      e.st.marked == marked);
		ce = (ef->data[15] & 3) == 3;
		CHECK(wire_ipv4_sum(ef->data + 14) == 0);
		if (i < 20)
			first += ce;
		else if (i < 29)
			mid += ce;
		else
			last += ce;
		egress_pop(&e);
	}
	printf("# marked as they left: %u of the first 20, %u of 9 between, %u of the last 11\n",
	       first, mid, last);
	CHECK(first == 20 && last == 0 && mid <= 8);
	CHECK(e.st.marked == first + mid);
	egress_fini(&e);
	ktap_case_end("red_at_dequeue_marks_by_the_depth_left_behind");
}

static void test_priority(void)
{
	struct egress_cfg cfg = { .rate_mbps = 1000, .queue_bytes = 1u << 20 };
	const struct egress_frame *ef;
	struct egress e;
	uint64_t wait;
	uint8_t f[LEN];

	egress_init(&e, &cfg, 1);
	frame(f, 0, false, 1);
	egress_enqueue(&e, f, LEN, 0);
	frame(f, 26 << 2, false, 2);
	egress_enqueue(&e, f, LEN, 0);
	ef = egress_peek(&e, 1, &wait);
	CHECK(ef && ef->data[LEN - 1] == 2);
	egress_pop(&e);
	ef = egress_peek(&e, 1, &wait);
	CHECK(ef && ef->data[LEN - 1] == 1);
	egress_pop(&e);
	CHECK(!e.queued);
	/* Counted by class: one frame each in 0 and 3. */
	for (int c = 0; c < EGRESS_CLASSES; c++)
		CHECK(e.st.class_enqueued[c] == (c == 0 || c == 3));
	egress_fini(&e);
	ktap_case_end("higher_classes_leave_first");
}

int main(void)
{
	ktap_plan(6);
	test_class();
	test_rate();
	test_drop();
	test_ecn();
	test_ecn_dequeue();
	test_priority();
	return ktap_finish();
}

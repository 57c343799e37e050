// SPDX-License-Identifier: GPL-2.0
/*
 * DCQCN's reaction point (emulator/roce/roce_dcqcn.c) on a clock the test
 * drives, one QP with no engine behind it, with ConnectX's parameters
 * (roce_dcqcn_defaults): a CNP cuts the rate by alpha / 2 (at most once per
 * rp_rate_reduce_monitor_period) and raises alpha; alpha decays without
 * CNPs; the pacer holds packets to the rate and its timer kicks the
 * requester; the rate recovers by the timer and by bytes, fast, then
 * additively, then hyper, back to line rate and unpaced; it never falls
 * below rp_min_rate.  Then other parameters (what SET_CC sets) change
 * each of those steps, and values out of range are refused.  Last, the line
 * rate is the port's link's when its switch announced one: cuts start
 * there and recovery ends there, unpaced; and the port's serializer
 * (roce_line.c) holds every requester to that rate.
 */
#include <stdio.h>
#include <string.h>

#include "ktap.h"
#include "roce/roce_priv.h"

static struct roce_dev dev;
static struct roce_qp rq;
static const struct roce_dcqcn_cfg *const D = &roce_dcqcn_defaults;

static void reset(void)
{
	memset(&dev, 0, sizeof(dev));
	memset(&rq, 0, sizeof(rq));
	dev.dcqcn = *D;
	rq.dev = &dev;
}

static void test_cut(void)
{
	uint64_t t = 1000000;

	reset();
	CHECK(!rq.dcqcn.limited);
	CHECK(roce_dcqcn_may_send(&rq, t * 1000));	/* unpaced */
	roce_dcqcn_cnp(&rq, t);
	/* Line rate, alpha 1: halved; the target is where it was. */
	CHECK(rq.dcqcn.limited && rq.dcqcn.rc_mbps == ROCE_DCQCN_LINE_MBPS / 2 &&
	      rq.dcqcn.rt_mbps == ROCE_DCQCN_LINE_MBPS);
	CHECK(rq.dcqcn.alpha == 1024 && dev.st.rp_rate_cuts == 1);
	/* A CNP within the cut period is the same congestion. */
	roce_dcqcn_cnp(&rq, t + D->cut_us - 1);
	CHECK(dev.st.rp_rate_cuts == 1 &&
	      rq.dcqcn.rc_mbps == ROCE_DCQCN_LINE_MBPS / 2);
	roce_dcqcn_cnp(&rq, t + D->cut_us);
	CHECK(dev.st.rp_rate_cuts == 2 &&
	      rq.dcqcn.rc_mbps == ROCE_DCQCN_LINE_MBPS / 4 &&
	      rq.dcqcn.rt_mbps == ROCE_DCQCN_LINE_MBPS / 2);
	/* Alpha decays by g per period without a CNP: the next cut is less. */
	t += D->cut_us + 100 * D->alpha_us;
	roce_dcqcn_cnp(&rq, t);
	printf("# after 100 quiet periods: alpha %u/1024, rate %u Mb/s\n",
	       rq.dcqcn.alpha, rq.dcqcn.rc_mbps);
	CHECK(rq.dcqcn.rc_mbps > ROCE_DCQCN_LINE_MBPS / 8);
	CHECK(rq.dcqcn.alpha < 1024);
	/* Never below the minimum, however many CNPs. */
	for (int i = 0; i < 200; i++) {
		t += D->cut_us;
		roce_dcqcn_cnp(&rq, t);
	}
	CHECK(rq.dcqcn.rc_mbps == D->min_mbps);
	ktap_case_end("cnp_cuts_by_alpha_half_once_per_period_to_the_minimum");
}

static void test_pacer(void)
{
	uint64_t t = 5000000, ns;
	int sent = 0;

	reset();
	roce_dcqcn_cnp(&rq, t);
	CHECK(rq.dcqcn.rc_mbps == 50000);
	ns = t * 1000;
	/* 64 bytes at 50 Gb/s: one packet every 10 ns (10.24, truncated). */
	CHECK(roce_dcqcn_may_send(&rq, ns));
	roce_dcqcn_sent(&rq, 64, ns);
	CHECK(!roce_dcqcn_may_send(&rq, ns + 9));
	CHECK(rq.dcqcn.pace_deadline == t + 1 && dev.st.rp_paced == 1);
	CHECK(roce_dcqcn_may_send(&rq, ns + 10));
	/* Its timer kicks the requester once the deadline has passed. */
	rq.sq_kick = false;
	roce_dcqcn_timer(&rq, t);
	CHECK(!rq.sq_kick);
	roce_dcqcn_timer(&rq, t + 1);
	CHECK(rq.sq_kick && !rq.dcqcn.pace_deadline);
	/* Over 1 us, polled every ns: 100 packets (no increase yet). */
	ns += 10;
	for (uint64_t now = ns; now < ns + 1000; now++)
		if (roce_dcqcn_may_send(&rq, now)) {
			roce_dcqcn_sent(&rq, 64, now);
			sent++;
		}
	printf("# %d packets of 64 bytes in 1 us at %u Mb/s\n", sent,
	       rq.dcqcn.rc_mbps);
	CHECK(sent == 100 && rq.dcqcn.rc_mbps == 50000);
	/* Idle for 200 us: one packet goes, not a saved-up burst. */
	ns += 200000;
	CHECK(roce_dcqcn_may_send(&rq, ns));
	roce_dcqcn_sent(&rq, 64, ns);
	CHECK(!roce_dcqcn_may_send(&rq, ns));
	ktap_case_end("pacer_holds_packets_to_the_rate_and_kicks");
}

static void test_recovery(void)
{
	uint64_t t = 9000000, ns;
	uint32_t prev;
	int steps;

	reset();
	roce_dcqcn_cnp(&rq, t);
	CHECK(rq.dcqcn.rc_mbps == 50000 && rq.dcqcn.rt_mbps == 100000);
	/* Timer only, fast recovery: halfway to the target each period. */
	t += D->timer_us;
	ns = t * 1000;
	roce_dcqcn_sent(&rq, 64, ns);
	CHECK(rq.dcqcn.t_stage == 1 && rq.dcqcn.rc_mbps == 75000 &&
	      rq.dcqcn.rt_mbps == 100000);
	/* A second cut: the target is the rate it had. */
	roce_dcqcn_cnp(&rq, t);
	CHECK(rq.dcqcn.rt_mbps == 75000 && rq.dcqcn.rc_mbps < 75000 &&
	      rq.dcqcn.t_stage == 0);
	/* Bytes count too: 32 KiB sent is one stage. */
	prev = rq.dcqcn.rc_mbps;
	roce_dcqcn_sent(&rq, D->bytes, t * 1000 + 1);
	CHECK(rq.dcqcn.b_stage == 1 && rq.dcqcn.rc_mbps > prev);
	/* Then back to line rate, unpaced, in bounded time. */
	for (steps = 0; rq.dcqcn.limited && steps < 100000; steps++) {
		t += 10;
		roce_dcqcn_sent(&rq, 1024, t * 1000);
	}
	printf("# line rate again after %d packets (timer stage %u, byte stage %u)\n",
	       steps, rq.dcqcn.t_stage, rq.dcqcn.b_stage);
	CHECK(!rq.dcqcn.limited && rq.dcqcn.rc_mbps == ROCE_DCQCN_LINE_MBPS);
	/* Past fast recovery both stages count: additive, then hyper. */
	CHECK(rq.dcqcn.t_stage > D->f || rq.dcqcn.b_stage > D->f);
	CHECK(roce_dcqcn_may_send(&rq, t * 1000));
	ktap_case_end("rate_recovers_by_timer_and_bytes_to_line_rate");
}

/*
 * Other parameters: the first cut starts from rp_initial_alpha_value and
 * never leaves more than rp_max_rate; with no monitor period every CNP
 * cuts; rp_dce_tcp_g 1024 takes alpha to 1 at once; rp_min_rate is the
 * floor; recovery stops at rp_max_rate, where the QP stays paced (below
 * line rate).  And a value out of its range is refused.
 */
static void test_params(void)
{
	struct roce_dcqcn_cfg c = *D, bad;
	uint64_t t = 3000000;
	int steps;

	reset();
	c.max_mbps = 20000;
	c.min_mbps = 1000;
	c.cut_us = 0;
	c.g = 1024;
	c.alpha0 = 512;
	c.ai_mbps = 100;
	CHECK(roce_dcqcn_cfg_valid(&c));
	dev.dcqcn = c;
	roce_dcqcn_cnp(&rq, t);
	/* 100000 * (1 - 512 / 2048) = 75000, clamped to 20000. */
	CHECK(rq.dcqcn.rc_mbps == 20000 && rq.dcqcn.alpha == 1024);
	roce_dcqcn_cnp(&rq, t);		/* the same microsecond: cut */
	CHECK(dev.st.rp_rate_cuts == 2 && rq.dcqcn.rc_mbps == 10000);
	for (int i = 0; i < 20; i++)
		roce_dcqcn_cnp(&rq, t);
	CHECK(rq.dcqcn.rc_mbps == 1000);
	for (steps = 0; steps < 100000 && rq.dcqcn.rc_mbps < 20000; steps++) {
		t += 10;
		roce_dcqcn_sent(&rq, 1024, t * 1000);
	}
	printf("# rp_max_rate 20000 after %d packets; alpha %u\n", steps,
	       rq.dcqcn.alpha);
	CHECK(rq.dcqcn.rc_mbps == 20000 && rq.dcqcn.limited);
	for (int i = 0; i < 1000; i++) {
		t += 10;
		roce_dcqcn_sent(&rq, 1024, t * 1000);
	}
	CHECK(rq.dcqcn.rc_mbps == 20000 && rq.dcqcn.limited);

	CHECK(roce_dcqcn_cfg_valid(D));
	bad = *D;
	bad.min_mbps = 0;
	CHECK(!roce_dcqcn_cfg_valid(&bad));
	bad = *D;
	bad.max_mbps = 500;
	bad.min_mbps = 600;
	CHECK(!roce_dcqcn_cfg_valid(&bad));
	bad = *D;
	bad.max_mbps = ROCE_DCQCN_LINE_MBPS + 1;
	CHECK(!roce_dcqcn_cfg_valid(&bad));
	bad = *D;
	bad.g = 1025;
	CHECK(!roce_dcqcn_cfg_valid(&bad));
	bad = *D;
	bad.timer_us = 0;
	CHECK(!roce_dcqcn_cfg_valid(&bad));
	bad = *D;
	bad.alpha_us = 0;
	CHECK(!roce_dcqcn_cfg_valid(&bad));
	bad = *D;
	bad.f = 0;
	CHECK(!roce_dcqcn_cfg_valid(&bad));
	bad = *D;
	bad.alpha0 = 1025;
	CHECK(!roce_dcqcn_cfg_valid(&bad));
	ktap_case_end("parameters_change_the_cut_floor_gain_and_ceiling");
}

/* A link of 1000 Mb/s (engine_set_line_rate()): DCQCN's line rate. */
static void test_link_rate(void)
{
	uint64_t t = 5000000;
	int steps;

	reset();
	dev.line_mbps = 1000;
	roce_dcqcn_cnp(&rq, t);
	CHECK(rq.dcqcn.limited && rq.dcqcn.rc_mbps == 500 &&
	      rq.dcqcn.rt_mbps == 1000);
	for (steps = 0; rq.dcqcn.limited && steps < 100000; steps++) {
		t += 10;
		roce_dcqcn_sent(&rq, 1024, t * 1000);
	}
	printf("# at the link's 1000 Mb/s again after %d packets\n", steps);
	CHECK(!rq.dcqcn.limited && rq.dcqcn.rc_mbps == 1000);
	/* rp_max_rate above the link's rate is the link's. */
	reset();
	dev.line_mbps = 1000;
	dev.dcqcn.max_mbps = 2000;
	roce_dcqcn_cnp(&rq, t);
	CHECK(rq.dcqcn.rc_mbps == 500 && rq.dcqcn.rt_mbps == 1000);
	for (steps = 0; rq.dcqcn.limited && steps < 100000; steps++) {
		t += 10;
		roce_dcqcn_sent(&rq, 1024, t * 1000);
	}
	CHECK(!rq.dcqcn.limited && rq.dcqcn.rc_mbps == 1000);
	/* A link slower than rp_min_rate: the floor is the link's rate. */
	reset();
	dev.line_mbps = 8;
	roce_dcqcn_cnp(&rq, t);
	CHECK(rq.dcqcn.rc_mbps == 8 && rq.dcqcn.rt_mbps == 8);
	/* No link rate: 100 Gb/s, as before. */
	reset();
	roce_dcqcn_cnp(&rq, t);
	CHECK(rq.dcqcn.rt_mbps == ROCE_DCQCN_LINE_MBPS);
	ktap_case_end("line_rate_is_the_links_when_announced");
}

/*
 * The port's serializer (roce_line.c): once the switch announced its link's
 * rate, a requester's packets leave no faster than it, with at most 8 KiB
 * saved up while idle; the held QP's pacer deadline is set and counted.
 */
static void test_line(void)
{
	uint64_t ns = 7000000000ull, now;
	int burst = 0, sent = 0;

	reset();
	/* No link rate announced: nothing is held or accounted. */
	for (int i = 0; i < 100; i++) {
		CHECK(roce_line_may_send(&rq, ns));
		roce_line_sent(&dev, 1024, ns);
	}
	CHECK(!dev.line_next_ns && !dev.st.line_paced);
	/* 1000 Mb/s: a packet of 1024 bytes every 8192 ns. */
	reset();
	dev.line_mbps = 1000;
	while (roce_line_may_send(&rq, ns) && burst < 100) {
		roce_line_sent(&dev, 1024, ns);
		burst++;
	}
	printf("# %d packets of 1 KiB at once after idling\n", burst);
	CHECK(burst == 9);		/* 8 KiB of credit, and the one due */
	CHECK(dev.st.line_paced == 1 && rq.dcqcn.pace_deadline == ns / 1000 + 9);
	CHECK(!roce_line_may_send(&rq, ns + 8191));
	CHECK(roce_line_may_send(&rq, ns + 8192));
	/* Over 1 ms, polled every 100 ns: the link's rate, no more. */
	for (now = ns + 8192; now < ns + 8192 + 1000000; now += 100)
		if (roce_line_may_send(&rq, now)) {
			roce_line_sent(&dev, 1024, now);
			sent++;
		}
	printf("# %d packets of 1 KiB in 1 ms at 1000 Mb/s\n", sent);
	CHECK(sent >= 121 && sent <= 123);
	/* Idle for a second: 8 KiB saved up, not a second's worth. */
	ns = now + 1000000000ull;
	for (burst = 0; roce_line_may_send(&rq, ns) && burst < 100; burst++)
		roce_line_sent(&dev, 1024, ns);
	CHECK(burst == 9);
	ktap_case_end("requests_leave_at_the_links_rate_when_announced");
}

int main(void)
{
	ktap_plan(6);
	test_cut();
	test_pacer();
	test_recovery();
	test_params();
	test_link_rate();
	test_line();
	return ktap_finish();
}

// SPDX-License-Identifier: GPL-2.0
/*
 * DCQCN's reaction point (emulator/roce/roce_dcqcn.c) on a clock the test
 * drives, one QP with no engine behind it: a CNP cuts the rate by alpha / 2
 * (at most once per ROCE_DCQCN_CUT_US) and raises alpha; alpha decays
 * without CNPs; the pacer holds packets to the rate and its timer kicks the
 * requester; the rate recovers by the timer and by bytes, fast, then
 * additively, then hyper, back to line rate and unpaced; it never falls
 * below ROCE_DCQCN_MIN_MBPS.
 */
#include <stdio.h>
#include <string.h>

#include "ktap.h"
#include "roce/roce_priv.h"

static struct roce_dev dev;
static struct roce_qp rq;

static void reset(void)
{
	memset(&dev, 0, sizeof(dev));
	memset(&rq, 0, sizeof(rq));
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
	roce_dcqcn_cnp(&rq, t + ROCE_DCQCN_CUT_US - 1);
	CHECK(dev.st.rp_rate_cuts == 1 &&
	      rq.dcqcn.rc_mbps == ROCE_DCQCN_LINE_MBPS / 2);
	roce_dcqcn_cnp(&rq, t + ROCE_DCQCN_CUT_US);
	CHECK(dev.st.rp_rate_cuts == 2 &&
	      rq.dcqcn.rc_mbps == ROCE_DCQCN_LINE_MBPS / 4 &&
	      rq.dcqcn.rt_mbps == ROCE_DCQCN_LINE_MBPS / 2);
	/* Alpha decays by g per period without a CNP: the next cut is less. */
	t += ROCE_DCQCN_CUT_US + 100 * ROCE_DCQCN_ALPHA_US;
	roce_dcqcn_cnp(&rq, t);
	printf("# after 100 quiet periods: alpha %u/1024, rate %u Mb/s\n",
	       rq.dcqcn.alpha, rq.dcqcn.rc_mbps);
	CHECK(rq.dcqcn.rc_mbps > ROCE_DCQCN_LINE_MBPS / 8);
	CHECK(rq.dcqcn.alpha < 1024);
	/* Never below the minimum, however many CNPs. */
	for (int i = 0; i < 200; i++) {
		t += ROCE_DCQCN_CUT_US;
		roce_dcqcn_cnp(&rq, t);
	}
	CHECK(rq.dcqcn.rc_mbps == ROCE_DCQCN_MIN_MBPS);
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
	t += ROCE_DCQCN_TIMER_US;
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
	roce_dcqcn_sent(&rq, ROCE_DCQCN_BYTES, t * 1000 + 1);
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
	CHECK(rq.dcqcn.t_stage > ROCE_DCQCN_F || rq.dcqcn.b_stage > ROCE_DCQCN_F);
	CHECK(roce_dcqcn_may_send(&rq, t * 1000));
	ktap_case_end("rate_recovers_by_timer_and_bytes_to_line_rate");
}

int main(void)
{
	ktap_plan(3);
	test_cut();
	test_pacer();
	test_recovery();
	return ktap_finish();
}

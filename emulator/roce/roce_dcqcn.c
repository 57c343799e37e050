// SPDX-License-Identifier: GPL-2.0
/*
 * DCQCN's reaction point (Zhu et al., "Congestion Control for Large-Scale
 * RDMA Deployments", SIGCOMM 2015; the algorithm ConnectX runs): a CNP for
 * a QP cuts the rate its requester sends at, and the rate recovers with
 * time and bytes.  The constants are in roce.h (ROCE_DCQCN_*).
 *
 * A QP is unpaced until its first CNP.  From then on its packets leave on
 * a virtual clock: a packet of L bytes at rate R moves the next departure
 * L * 8 / R later, and the requester stops when that is in the future; the
 * QP's timer wakes it then (pace_deadline).  Alpha's decay and the timer's
 * rate increases are caught up on lazily, when a CNP comes or a packet
 * goes, by the periods that have passed: a QP that sends nothing needs no
 * timer of its own for them.  Once the rate has recovered to line rate the
 * QP is unpaced again.
 */
#include "roce_priv.h"

#define ALPHA_ONE	1024u

static uint32_t clamp_rate(uint64_t mbps)
{
	if (mbps < ROCE_DCQCN_MIN_MBPS)
		return ROCE_DCQCN_MIN_MBPS;
	return mbps > ROCE_DCQCN_LINE_MBPS ? ROCE_DCQCN_LINE_MBPS :
					     (uint32_t)mbps;
}

/* One rate increase event (the timer's or the byte counter's). */
static void increase(struct roce_dcqcn *d)
{
	uint32_t lo = d->t_stage < d->b_stage ? d->t_stage : d->b_stage;
	uint32_t hi = d->t_stage > d->b_stage ? d->t_stage : d->b_stage;

	if (hi < ROCE_DCQCN_F)
		;				/* fast recovery */
	else if (lo > ROCE_DCQCN_F)		/* hyper increase */
		d->rt_mbps = clamp_rate((uint64_t)d->rt_mbps +
					(uint64_t)(lo - ROCE_DCQCN_F) *
					ROCE_DCQCN_HAI_MBPS);
	else					/* additive increase */
		d->rt_mbps = clamp_rate((uint64_t)d->rt_mbps +
					ROCE_DCQCN_AI_MBPS);
	/* Rounded up: halving towards the target must reach it. */
	d->rc_mbps = clamp_rate(((uint64_t)d->rt_mbps + d->rc_mbps + 1) / 2);
	if (d->rc_mbps >= ROCE_DCQCN_LINE_MBPS)
		d->limited = false;		/* recovered: unpaced */
}

/* Alpha's decay and the timer's increases since they were last applied. */
static void catch_up(struct roce_dcqcn *d, uint64_t now)
{
	uint64_t n;

	n = (now - d->alpha_us) / ROCE_DCQCN_ALPHA_US;
	d->alpha_us += n * ROCE_DCQCN_ALPHA_US;
	for (; n && d->alpha; n--)
		d->alpha -= (d->alpha >> ROCE_DCQCN_G_SHIFT) ?
			    d->alpha >> ROCE_DCQCN_G_SHIFT : 1;
	n = (now - d->timer_us) / ROCE_DCQCN_TIMER_US;
	d->timer_us += n * ROCE_DCQCN_TIMER_US;
	for (; n && d->limited; n--) {
		d->t_stage++;
		increase(d);
	}
}

void roce_dcqcn_cnp(struct roce_qp *rq, uint64_t now)
{
	struct roce_dcqcn *d = &rq->dcqcn;

	if (!d->limited) {
		d->limited = true;
		d->rc_mbps = d->rt_mbps = ROCE_DCQCN_LINE_MBPS;
		d->alpha = ALPHA_ONE;
		d->alpha_us = d->timer_us = now;
		d->cut_us = 0;
		d->next_ns = 0;
	} else {
		catch_up(d, now);
	}
	/* At most one cut per period: a burst of CNPs is one congestion. */
	if (d->cut_us && now - d->cut_us < ROCE_DCQCN_CUT_US)
		return;
	d->cut_us = now;
	d->rt_mbps = d->rc_mbps;
	d->rc_mbps = clamp_rate((uint64_t)d->rc_mbps *
				(2 * ALPHA_ONE - d->alpha) / (2 * ALPHA_ONE));
	d->alpha += (ALPHA_ONE - d->alpha) >> ROCE_DCQCN_G_SHIFT;
	d->alpha_us = d->timer_us = now;
	d->t_stage = d->b_stage = 0;
	d->bytes = 0;
	rq->dev->st.rp_rate_cuts++;
}

bool roce_dcqcn_may_send(struct roce_qp *rq, uint64_t now_ns)
{
	struct roce_dcqcn *d = &rq->dcqcn;

	if (!d->limited || now_ns >= d->next_ns)
		return true;
	d->pace_deadline = d->next_ns / 1000 + 1;
	rq->dev->st.rp_paced++;
	return false;
}

void roce_dcqcn_sent(struct roce_qp *rq, uint64_t bytes, uint64_t now_ns)
{
	struct roce_dcqcn *d = &rq->dcqcn;

	if (!d->limited)
		return;
	catch_up(d, now_ns / 1000);
	if (!d->limited)
		return;
	/* The departure clock never runs behind now: no saved-up burst. */
	if (d->next_ns < now_ns)
		d->next_ns = now_ns;
	d->next_ns += bytes * 8000 / d->rc_mbps;
	d->bytes += bytes;
	if (d->bytes >= ROCE_DCQCN_BYTES) {
		d->bytes = 0;
		d->b_stage++;
		increase(d);
	}
}

void roce_dcqcn_timer(struct roce_qp *rq, uint64_t now)
{
	struct roce_dcqcn *d = &rq->dcqcn;

	if (d->pace_deadline && now >= d->pace_deadline) {
		d->pace_deadline = 0;
		rq->sq_kick = true;
	}
}

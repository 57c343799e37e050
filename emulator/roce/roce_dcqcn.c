// SPDX-License-Identifier: GPL-2.0
/*
 * DCQCN's reaction point (Zhu et al., "Congestion Control for Large-Scale
 * RDMA Deployments", SIGCOMM 2015; the algorithm ConnectX runs): a CNP for
 * a QP cuts the rate its requester sends at, and the rate recovers with
 * time and bytes, with the parameters of struct roce_dcqcn_cfg (roce.h).
 *
 * A QP is unpaced until its first CNP.  From then on its packets leave on
 * a virtual clock: a packet of L bytes at rate R moves the next departure
 * L * 8 / R later, and the requester stops when that is in the future; the
 * QP's timer wakes it then (pace_deadline).  Alpha's decay and the timer's
 * rate increases are caught up on lazily, when a CNP comes or a packet
 * goes, by the periods that have passed: a QP that sends nothing needs no
 * timer of its own for them.  Once the rate has recovered to line rate the
 * QP is unpaced again.  The line rate is the port's link's, as its switch
 * announced it (engine_set_line_rate()), else ROCE_DCQCN_LINE_MBPS.
 *
 * The parameters are the adapter's (roce_set_dcqcn(), SET_CC), read field
 * by field as each step needs one: a SET_CC applies from the next step.
 */
#include "roce_priv.h"

#define ALPHA_ONE	ORCA_CC_ALPHA_ONE

const struct roce_dcqcn_cfg roce_dcqcn_defaults = {
	.max_mbps = 0, .min_mbps = 10, .ai_mbps = 5, .hai_mbps = 50,
	.f = 5, .timer_us = 300, .bytes = 32u << 10, .g = 4,
	.alpha_us = 55, .cut_us = 4, .alpha0 = ALPHA_ONE,
};

bool roce_dcqcn_cfg_valid(const struct roce_dcqcn_cfg *c)
{
	uint32_t max = c->max_mbps ? c->max_mbps : ROCE_DCQCN_LINE_MBPS;

	return max <= ROCE_DCQCN_LINE_MBPS &&
	       c->min_mbps >= 1 && c->min_mbps <= max &&
	       c->ai_mbps >= 1 && c->ai_mbps <= ROCE_DCQCN_LINE_MBPS &&
	       c->hai_mbps >= 1 && c->hai_mbps <= ROCE_DCQCN_LINE_MBPS &&
	       c->f >= 1 && c->f <= ORCA_CC_MAX_THRESHOLD &&
	       c->timer_us >= 1 && c->timer_us <= ORCA_CC_MAX_US &&
	       c->bytes >= ORCA_CC_MIN_BYTE_RESET &&
	       c->bytes <= ORCA_CC_MAX_BYTE_RESET &&
	       c->g >= 1 && c->g <= ALPHA_ONE &&
	       c->alpha_us >= 1 && c->alpha_us <= ORCA_CC_MAX_US &&
	       c->cut_us <= ORCA_CC_MAX_US && c->alpha0 <= ALPHA_ONE;
}

#define SET(dst, src, f) __atomic_store_n(&(dst)->f, (src)->f, __ATOMIC_RELAXED)
#define GET(dst, src, f) ((dst)->f = __atomic_load_n(&(src)->f, __ATOMIC_RELAXED))

void roce_set_dcqcn(struct orca_engine *eng, const struct roce_dcqcn_cfg *cfg)
{
	struct roce_dcqcn_cfg *c = &eng->roce->dcqcn;

	SET(c, cfg, max_mbps);
	SET(c, cfg, min_mbps);
	SET(c, cfg, ai_mbps);
	SET(c, cfg, hai_mbps);
	SET(c, cfg, f);
	SET(c, cfg, timer_us);
	SET(c, cfg, bytes);
	SET(c, cfg, g);
	SET(c, cfg, alpha_us);
	SET(c, cfg, cut_us);
	SET(c, cfg, alpha0);
}

void roce_get_cc(struct orca_engine *eng, struct roce_ecn_cfg *ecn,
		 struct roce_dcqcn_cfg *dcqcn)
{
	const struct roce_dev *dev = eng->roce;

	GET(ecn, &dev->ecn, ect);
	GET(ecn, &dev->ecn, np);
	GET(ecn, &dev->ecn, rp);
	GET(ecn, &dev->ecn, cnp_interval_us);
	GET(dcqcn, &dev->dcqcn, max_mbps);
	GET(dcqcn, &dev->dcqcn, min_mbps);
	GET(dcqcn, &dev->dcqcn, ai_mbps);
	GET(dcqcn, &dev->dcqcn, hai_mbps);
	GET(dcqcn, &dev->dcqcn, f);
	GET(dcqcn, &dev->dcqcn, timer_us);
	GET(dcqcn, &dev->dcqcn, bytes);
	GET(dcqcn, &dev->dcqcn, g);
	GET(dcqcn, &dev->dcqcn, alpha_us);
	GET(dcqcn, &dev->dcqcn, cut_us);
	GET(dcqcn, &dev->dcqcn, alpha0);
}

void engine_set_line_rate(struct orca_engine *eng, uint32_t mbps)
{
	__atomic_store_n(&eng->roce->line_mbps, mbps, __ATOMIC_RELAXED);
}

/*
 * The line rate: the port's link's (its switch announced it), else
 * ROCE_DCQCN_LINE_MBPS, never above that.
 */
static uint32_t line_rate(const struct roce_dev *dev)
{
	uint32_t v = __atomic_load_n(&dev->line_mbps, __ATOMIC_RELAXED);

	return v && v < ROCE_DCQCN_LINE_MBPS ? v : ROCE_DCQCN_LINE_MBPS;
}

/*
 * Engine thread: the adapter's parameters, each field read on its own;
 * returns the line rate, which max_mbps is at most.
 */
static uint32_t snapshot(const struct roce_dev *dev, struct roce_dcqcn_cfg *c)
{
	uint32_t line = line_rate(dev);

	GET(c, &dev->dcqcn, max_mbps);
	GET(c, &dev->dcqcn, min_mbps);
	GET(c, &dev->dcqcn, ai_mbps);
	GET(c, &dev->dcqcn, hai_mbps);
	GET(c, &dev->dcqcn, f);
	GET(c, &dev->dcqcn, timer_us);
	GET(c, &dev->dcqcn, bytes);
	GET(c, &dev->dcqcn, g);
	GET(c, &dev->dcqcn, alpha_us);
	GET(c, &dev->dcqcn, cut_us);
	GET(c, &dev->dcqcn, alpha0);
	if (!c->max_mbps || c->max_mbps > line)
		c->max_mbps = line;
	if (c->min_mbps > c->max_mbps)
		c->min_mbps = c->max_mbps;
	return line;
}

static uint32_t clamp_rate(const struct roce_dcqcn_cfg *c, uint64_t mbps)
{
	if (mbps < c->min_mbps)
		return c->min_mbps;
	return mbps > c->max_mbps ? c->max_mbps : (uint32_t)mbps;
}

/* One rate increase event (the timer's or the byte counter's). */
static void increase(const struct roce_dcqcn_cfg *c, struct roce_dcqcn *d,
		     uint32_t line)
{
	uint32_t lo = d->t_stage < d->b_stage ? d->t_stage : d->b_stage;
	uint32_t hi = d->t_stage > d->b_stage ? d->t_stage : d->b_stage;

	if (hi < c->f)
		;				/* fast recovery */
	else if (lo > c->f)			/* hyper increase */
		d->rt_mbps = clamp_rate(c, (uint64_t)d->rt_mbps +
					(uint64_t)(lo - c->f) * c->hai_mbps);
	else					/* additive increase */
		d->rt_mbps = clamp_rate(c, (uint64_t)d->rt_mbps + c->ai_mbps);
	/* Rounded up: halving towards the target must reach it. */
	d->rc_mbps = clamp_rate(c, ((uint64_t)d->rt_mbps + d->rc_mbps + 1) / 2);
	if (d->rc_mbps >= line)
		d->limited = false;		/* recovered: unpaced */
}

/* Alpha's decay and the timer's increases since they were last applied. */
static void catch_up(const struct roce_dcqcn_cfg *c, struct roce_dcqcn *d,
		     uint64_t now, uint32_t line)
{
	uint64_t n;

	n = (now - d->alpha_us) / c->alpha_us;
	d->alpha_us += n * c->alpha_us;
	for (; n && d->alpha; n--) {
		uint32_t dec = d->alpha * c->g / ALPHA_ONE;

		d->alpha -= dec ? dec : 1;
	}
	n = (now - d->timer_us) / c->timer_us;
	d->timer_us += n * c->timer_us;
	for (; n && d->limited; n--) {
		d->t_stage++;
		increase(c, d, line);
	}
}

void roce_dcqcn_cnp(struct roce_qp *rq, uint64_t now)
{
	struct roce_dcqcn *d = &rq->dcqcn;
	struct roce_dcqcn_cfg c;
	uint32_t line = snapshot(rq->dev, &c);

	if (!d->limited) {
		d->limited = true;
		d->rc_mbps = d->rt_mbps = line;
		d->alpha = c.alpha0;
		d->alpha_us = d->timer_us = now;
		d->cut_us = 0;
		d->next_ns = 0;
	} else {
		catch_up(&c, d, now, line);
	}
	/* At most one cut per period: a burst of CNPs is one congestion. */
	if (d->cut_us && now - d->cut_us < c.cut_us)
		return;
	d->cut_us = now;
	d->rt_mbps = d->rc_mbps;
	d->rc_mbps = clamp_rate(&c, (uint64_t)d->rc_mbps *
				    (2 * ALPHA_ONE - d->alpha) / (2 * ALPHA_ONE));
	d->alpha += (ALPHA_ONE - d->alpha) * c.g / ALPHA_ONE;
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
	struct roce_dcqcn_cfg c;
	uint32_t line;

	if (!d->limited)
		return;
	line = snapshot(rq->dev, &c);
	catch_up(&c, d, now_ns / 1000, line);
	if (!d->limited)
		return;
	/* The departure clock never runs behind now: no saved-up burst. */
	if (d->next_ns < now_ns)
		d->next_ns = now_ns;
	d->next_ns += bytes * 8000 / d->rc_mbps;
	d->bytes += bytes;
	if (d->bytes >= c.bytes) {
		d->bytes = 0;
		d->b_stage++;
		increase(&c, d, line);
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

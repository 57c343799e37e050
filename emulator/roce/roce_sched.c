// SPDX-License-Identifier: GPL-2.0
/*
 * The transport's scheduler: which QPs an engine pass looks at.  A pass
 * costs what the QPs with work cost, however many idle QPs the adapter
 * holds (it used to walk every QP four times a pass: with 2000 idle QPs,
 * depth-1 WRITEs ran at a sixth of their rate).
 *
 * The run list holds the QPs with something to do now: rung for, sent a
 * frame, a timer fired, a state change.  A pass steps each QP on it once
 * (its requester, then its queued responses and coalesced ACK) and keeps
 * it there only while it has more: a requester that used up its burst,
 * READ responses still to send, a send queue being polled (roce_poll.c).
 * A QP scheduled while the pass runs is stepped by it if it has not been
 * yet, else by the next pass (which then runs at once: see roce_run()).
 *
 * The timer heap holds each QP's earliest deadline (retransmission, early
 * retransmission, RNR wait, DCQCN's pacer, the end of a PFC pause; a QP
 * held by PFC has only that one: its other clocks stop, roce_pfc.c).  A QP's deadlines only change while the
 * engine works on it (a frame, a timer, a step, a state change), and
 * every one of those puts it on the run list, whose step brings its heap
 * entry up to date.  So an entry is never later than the QP's deadline;
 * one earlier (a timer stopped or pushed back meanwhile) only fires a
 * step that finds nothing due.
 */
#include <stddef.h>

#include "roce_priv.h"

#define container_of(p, type, member) \
	((type *)((char *)(p) - offsetof(type, member)))

void roce_sched_qp(struct roce_qp *rq)
{
	struct roce_dev *dev = rq->dev;

	if (rq->on_run)
		return;
	rq->on_run = true;
	rq->run_next = NULL;
	rq->run_prev = dev->run_tail;
	if (dev->run_tail)
		dev->run_tail->run_next = rq;
	else
		dev->run_head = rq;
	dev->run_tail = rq;
}

static void run_del(struct roce_qp *rq)
{
	struct roce_dev *dev = rq->dev;

	if (rq->run_prev)
		rq->run_prev->run_next = rq->run_next;
	else
		dev->run_head = rq->run_next;
	if (rq->run_next)
		rq->run_next->run_prev = rq->run_prev;
	else
		dev->run_tail = rq->run_prev;
	rq->run_next = rq->run_prev = NULL;
	rq->on_run = false;
}

int roce_sched_reserve(struct roce_dev *dev)
{
	return timer_heap_reserve(&dev->timers, dev->nqps + 1);
}

void roce_sched_forget(struct roce_qp *rq)
{
	struct roce_dev *dev = rq->dev;

	if (rq->on_run) {
		/* A pass that was to end with this QP ends before it. */
		if (dev->run_end == rq)
			dev->run_end = rq->run_prev;
		run_del(rq);
	}
	timer_heap_del(&dev->timers, &rq->timer);
}

void roce_sched_fini(struct roce_dev *dev)
{
	timer_heap_fini(&dev->timers);
}

uint64_t roce_sched_deadline(const struct roce_dev *dev)
{
	const struct timer_node *t = timer_heap_first(&dev->timers);

	return t ? t->due : 0;
}

/* The QP's earliest deadline into the heap (room was reserved for it). */
static void timer_sync(struct roce_qp *rq)
{
	uint64_t due = rq->retry_deadline;

	if (rq->pfc_held) {
		timer_heap_set(&rq->dev->timers, &rq->timer, rq->pfc_deadline);
		return;
	}

	if (rq->rnr_deadline && (!due || rq->rnr_deadline < due))
		due = rq->rnr_deadline;
	if (rq->dcqcn.pace_deadline &&
	    (!due || rq->dcqcn.pace_deadline < due))
		due = rq->dcqcn.pace_deadline;
	if (rq->tlp_deadline && (!due || rq->tlp_deadline < due))
		due = rq->tlp_deadline;
	timer_heap_set(&rq->dev->timers, &rq->timer, due);
}

static bool req_wants_run(const struct roce_qp *rq)
{
	uint8_t st = rq->qp->state;

	/* An XRC target sends answers only: no requester, no send queue. */
	return (st == ORCA_QPS_RTS || st == ORCA_QPS_SQD) && rq->sq_kick &&
	       engine_qp_has_sq(rq->qp);
}

/* One QP's share of a pass; true if it has more to do right away. */
static bool step(struct roce_qp *rq, uint64_t now)
{
	bool more = false;

	/* Its priority is paused (PFC): nothing leaves it, not even ACKs. */
	if (roce_pfc_hold(rq, now)) {
		timer_sync(rq);
		return false;
	}

	if (req_wants_run(rq)) {
		roce_req_run(rq);
		more = req_wants_run(rq);
	}
	more |= roce_resp_send_acks(rq);
	timer_sync(rq);
	return more;
}

bool roce_sched_pass(struct roce_dev *dev, uint64_t now)
{
	struct timer_node *t;
	struct roce_qp *rq;
	uint64_t steps = 0;

	/*
	 * Frames wait for the port's room (roce_qp.c): nothing new is built
	 * until they have gone, and no timer fires meanwhile (the frames it
	 * would retransmit may well be among them).
	 */
	if (roce_tx_blocked(dev))
		return dev->run_head != NULL;
	/* Due timers fire first; their QPs are stepped below. */
	while ((t = timer_heap_first(&dev->timers)) && t->due <= now) {
		rq = container_of(t, struct roce_qp, timer);
		timer_heap_del(&dev->timers, t);
		/*
		 * Its priority paused (PFC): no timer of its runs out, its
		 * packets wait in the switch; held, the pause's end is due.
		 */
		if (!roce_pfc_hold(rq, now))
			roce_comp_timers(rq, now);
		dev->st.timers_fired++;
		steps++;
		roce_sched_qp(rq);
	}
	/* QPs scheduled from here on go after run_end: the next pass. */
	dev->run_end = dev->run_tail;
	while (dev->run_end && (rq = dev->run_head) && !roce_tx_blocked(dev)) {
		if (rq == dev->run_end)
			dev->run_end = NULL;
		run_del(rq);
		steps++;
		if (step(rq, now))
			roce_sched_qp(rq);
	}
	dev->run_end = NULL;
	dev->st.passes++;
	dev->st.qp_steps += steps;
	if (steps > dev->st.max_pass_steps)
		dev->st.max_pass_steps = steps;
	return dev->run_head != NULL;
}

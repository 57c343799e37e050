// SPDX-License-Identifier: GPL-2.0
/*
 * Priority flow control (IEEE 802.1Qbb, issue 33): the adapter honours the
 * pauses its link's switch sends, per priority.
 *
 * The port takes a PFC frame off the wire (a MAC Control frame never
 * reaches the guest) and passes each priority's pause, in nanoseconds at
 * the link's rate, to engine_pfc_pause().  A priority is a traffic class:
 * the DSCP's top three bits of the QP's address vector, as the switch's
 * queues classify.  While its priority is paused a QP of a connected
 * transport (RC, UC, XRC) is held: its step is skipped whole (requests,
 * READ and atomic responses, coalesced ACKs), and its timer wakes it when
 * the pause runs out; a resume, or a pause cut short, steps every held QP
 * at once.  A held QP's retransmission and RNR clocks stop while it is
 * held, and a QP whose timer runs out while its priority is paused is
 * held then: what it sent waits in the switch's queue, and a pause is no
 * loss.  What the receive path answers at once (NAKs, CNPs)
 * and UD's datagrams are not held.
 *
 * Counted as mlx5 counts them per priority (rx_prioN_pause,
 * rx_prioN_pause_transition, rx_prioN_pause_duration), summed here:
 * frames, pauses begun, and the microseconds priorities spent paused.
 */
#include "roce_priv.h"

void engine_pfc_pause(struct orca_engine *eng, uint8_t enable,
		      const uint64_t *pause_ns)
{
	struct roce_pfc *p = &eng->roce->pfc;
	uint64_t now = now_us();

	pthread_mutex_lock(&eng->lock);
	p->frames++;
	for (int i = 0; i < ROCE_PFC_PRIOS; i++) {
		uint64_t until = p->until_us[i];

		if (!(enable >> i & 1))
			continue;
		/* The pause so far ends now (or ended when it ran out). */
		if (until) {
			p->paused_us += (until < now ? until : now) -
					p->start_us[i];
			if (until <= now)
				until = 0;
		}
		if (!pause_ns[i]) {
			__atomic_store_n(&p->until_us[i], 0, __ATOMIC_RELAXED);
			continue;
		}
		if (!until)
			p->transitions++;
		p->start_us[i] = now;
		__atomic_store_n(&p->until_us[i], now + (pause_ns[i] + 999) / 1000,
				 __ATOMIC_RELAXED);
	}
	p->changed = true;
	engine_wake_locked(eng);
	pthread_mutex_unlock(&eng->lock);
}

/* The QP's priority, if its transport can be held; -1 if not. */
static int qp_prio(const struct roce_qp *rq)
{
	const struct emu_qp *qp = rq->qp;

	if (qp->type == ORCA_QPT_UD || qp->type == ORCA_QPT_GSI)
		return -1;
	return qp->attr.av.traffic_class >> 5;
}

/* A held QP sends again: its clocks resume where they stopped. */
static void release(struct roce_qp *rq, uint64_t now)
{
	uint64_t waited = now - rq->pfc_since_us;

	rq->pfc_held = false;
	rq->pfc_deadline = 0;
	if (rq->retry_deadline) {
		rq->retry_deadline += waited;
		rq->retry_full += waited;
	}
	if (rq->rnr_deadline)
		rq->rnr_deadline += waited;
}

bool roce_pfc_hold(struct roce_qp *rq, uint64_t now)
{
	int prio = qp_prio(rq);
	uint64_t until = prio < 0 ? 0 :
			 __atomic_load_n(&rq->dev->pfc.until_us[prio],
					 __ATOMIC_RELAXED);

	if (until <= now) {
		if (rq->pfc_held)
			release(rq, now);
		return false;
	}
	if (!rq->pfc_held) {
		rq->pfc_held = true;
		rq->pfc_since_us = now;
	}
	rq->pfc_deadline = until;
	rq->dev->st.pfc_held++;
	return true;
}

void roce_pfc_changed(struct roce_dev *dev)
{
	for (struct roce_qp *rq = dev->qps; rq; rq = rq->next)
		if (rq->pfc_held)
			roce_sched_qp(rq);
}

void roce_pfc_stats(struct roce_dev *dev, struct roce_stats *st)
{
	struct roce_pfc *p = &dev->pfc;
	uint64_t now = now_us();

	pthread_mutex_lock(&dev->eng->lock);
	st->rx_pfc_frames = p->frames;
	st->rx_pfc_pause_transitions = p->transitions;
	st->rx_pfc_pause_us = p->paused_us;
	/* Pauses under way count up to now. */
	for (int i = 0; i < ROCE_PFC_PRIOS; i++)
		if (p->until_us[i])
			st->rx_pfc_pause_us += (p->until_us[i] < now ?
						p->until_us[i] : now) -
					       p->start_us[i];
	pthread_mutex_unlock(&dev->eng->lock);
}

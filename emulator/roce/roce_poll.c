// SPDX-License-Identifier: GPL-2.0
/*
 * Doorbell record polling for send queues.  The engine learns of new send
 * WQEs from the QP's doorbell record; the driver traps a UAR write only
 * when its producer index passes the event index, which the engine writes
 * when it stops working on the queue (programming interface, data-path.rst,
 * "Doorbell records and event indices").  A trap costs the poster a VM exit
 * and the engine a wake-up, for every message of a poster that waits for
 * each completion.  So a send queue found empty is not given up at once: the
 * engine keeps polling the record for a window and writes the event index
 * only when the window ends without a post.  That is the device side of
 * the protocol as it stands: while it polls, the engine is still working
 * on the queue, and it publishes (then looks once more) before it stops.
 * That handshake needs the poster's full barrier between its producer
 * index store and its event index load to be a real one: the provider's
 * once was a LOCK-prefixed instruction, which a single-vCPU TCG guest runs
 * without ordering, and a window ending as a post came then stranded the
 * post (see orca_mb() in providers/orca/orca.h).
 *
 * Polling spins the engine thread, so the window adapts per QP to the gap
 * its poster leaves between the queue going idle and the next post: a gap
 * of up to the maximum, seen while polling or as a doorbell after the
 * event index was written, widens the window to twice the gap; a window
 * that ends without a post halves it.  A QP posted to in bursts seconds
 * apart costs a few ever shorter windows; a streaming poster never traps.
 */
#include "roce_priv.h"

uint32_t roce_poll_adapt(uint32_t window, uint64_t gap_us, bool missed,
			 uint32_t max_us)
{
	if (missed)
		return window / 2;
	/* No window could have caught it: nothing to learn. */
	if (gap_us > max_us)
		return window;
	if (2 * gap_us > window)
		window = 2 * gap_us > max_us ? max_us : (uint32_t)(2 * gap_us);
	return window;
}

static uint32_t poll_max(const struct roce_dev *dev)
{
	return atomic_load_explicit(&dev->poll_max_us, memory_order_relaxed);
}

static uint32_t window(const struct roce_qp *rq)
{
	uint32_t lo = atomic_load_explicit(&rq->dev->poll_min_us,
					   memory_order_relaxed);
	uint32_t hi = poll_max(rq->dev), w = rq->poll_us;

	if (w > hi)
		w = hi;
	return w < lo ? lo : w;
}

bool roce_poll_idle(struct roce_qp *rq, uint64_t now)
{
	if (!rq->sq_idle_at)
		rq->sq_idle_at = now ? now : 1;
	if (now - rq->sq_idle_at < window(rq)) {
		rq->sq_polling = true;
		return true;
	}
	if (rq->sq_polling) {
		rq->sq_polling = false;
		rq->poll_us = roce_poll_adapt(rq->poll_us, 0, true,
					      poll_max(rq->dev));
		rq->dev->st.poll_misses++;
	}
	return false;
}

void roce_poll_found(struct roce_qp *rq, uint64_t now)
{
	uint64_t gap = now > rq->sq_idle_at ? now - rq->sq_idle_at : 0;

	if (!rq->sq_idle_at)
		return;
	if (rq->sq_polling)
		rq->dev->st.poll_hits++;
	rq->poll_us = roce_poll_adapt(rq->poll_us, gap, false,
				      poll_max(rq->dev));
	rq->sq_idle_at = 0;
	rq->sq_polling = false;
}

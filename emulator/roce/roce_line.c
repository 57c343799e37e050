// SPDX-License-Identifier: GPL-2.0
/*
 * The port's serializer: a NIC puts packets on its link no faster than
 * the link's rate.  Without it a requester hands the port frames as fast
 * as the engine builds them (gigabits per second natively), which a link
 * modelled at 200 Mb/s (orca-wire --link-rate) would carry only because
 * the switch reads its input as fast as it comes: an incast of three
 * unpaced senders is then a burst of many times the bottleneck's rate,
 * and DCQCN's line rate (where a recovered QP is unpaced again) means
 * nothing.  Once the switch has announced its link's rate
 * (engine_set_line_rate()), the requesters' packets leave on one clock
 * per adapter: a packet of L bytes moves it L * 8 / rate later, and a
 * requester whose packet is not due yet stops until then, its QP's timer
 * set (the DCQCN pacer's deadline, roce_dcqcn.c).  The clock may fall
 * behind now by LINE_CREDIT_BYTES at most: an engine that woke late
 * catches up with that small burst, never with a saved-up second.
 * Responses (ACKs, READ responses) and CNPs are not held: they are few,
 * or answer a requester that is paced itself.
 */
#include "roce_priv.h"

#define LINE_CREDIT_BYTES	(8u << 10)

/* The rate the switch announced, or 0: the link is not modelled. */
static uint32_t announced(const struct roce_dev *dev)
{
	return __atomic_load_n(&dev->line_mbps, __ATOMIC_RELAXED);
}

bool roce_line_paced(const struct roce_dev *dev)
{
	return announced(dev) != 0;
}

bool roce_line_may_send(struct roce_qp *rq, uint64_t now_ns)
{
	struct roce_dev *dev = rq->dev;

	if (!announced(dev) || now_ns >= dev->line_next_ns)
		return true;
	if (!rq->dcqcn.pace_deadline ||
	    rq->dcqcn.pace_deadline > dev->line_next_ns / 1000 + 1)
		rq->dcqcn.pace_deadline = dev->line_next_ns / 1000 + 1;
	dev->st.line_paced++;
	return false;
}

void roce_line_sent(struct roce_dev *dev, uint64_t bytes, uint64_t now_ns)
{
	uint32_t mbps = announced(dev);
	uint64_t credit_ns;

	if (!mbps)
		return;
	credit_ns = (uint64_t)LINE_CREDIT_BYTES * 8000 / mbps;
	if (dev->line_next_ns + credit_ns < now_ns)
		dev->line_next_ns = now_ns - credit_ns;
	dev->line_next_ns += bytes * 8000 / mbps;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The shared full-peer policy (link_policy.h): how long to wait, when to
 * give up.  Times are CLOCK_MONOTONIC milliseconds (clock.h).
 */
#include "link_policy.h"

const struct link_policy wire_link_policy_dgram = {
	.wait_ms = 20,
	.stall_ms = 200,
};

const struct link_policy wire_link_policy_qemu = {
	.wait_ms = 500,
	.stall_ms = 30000,
};

/*
 * A ring peer's stall is long: it ends anyway as soon as the peer takes a
 * frame again (a push into a ring with room succeeds), so it only spares
 * the rest of the wire a new wait for a peer that still drains nothing.
 */
const struct link_policy wire_link_policy_ring_switch = {
	.wait_ms = 2000,
	.stall_ms = 30000,
};

const struct link_policy wire_link_policy_ring_tx = {
	.wait_ms = 5000,
	.stall_ms = 30000,
};

uint32_t wire_link_full(struct link_state *s, const struct link_policy *p,
			uint64_t now)
{
	uint64_t waited;

	if (!link_may_wait(s, now))
		return 0;
	if (!s->full_since_ms) {
		s->full_since_ms = now;
		return p->wait_ms ? p->wait_ms : 0;
	}
	waited = now - s->full_since_ms;
	if (waited < p->wait_ms)
		return (uint32_t)(p->wait_ms - waited);
	wire_link_timed_out(s, p, now);
	return 0;
}

void wire_link_timed_out(struct link_state *s, const struct link_policy *p,
			 uint64_t now)
{
	s->full_since_ms = 0;
	s->stalled_until_ms = now + p->stall_ms;
}

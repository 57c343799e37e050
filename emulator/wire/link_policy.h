/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a sender does when the receiver of a link is full: one policy for
 * the adapter's port and the wire switch, for datagram peers (QEMU's
 * -netdev dgram, which we do not control) and shared-memory ring peers.
 *
 * A full peer is waited for, but only for wait_ms; a peer that stayed full
 * that long is "stalled" for stall_ms: frames to it are dropped at once
 * instead of being waited for, so one stuck reader never stops the rest of
 * the wire.  Any frame the peer takes (a send that succeeds) ends the
 * stall: a slow but live peer is waited for, never dropped to.
 */
#ifndef ORCA_EMU_LINK_POLICY_H
#define ORCA_EMU_LINK_POLICY_H

#include <stdbool.h>
#include <stdint.h>

struct link_policy {
	uint32_t wait_ms;	/* wait this long for a full peer */
	uint32_t stall_ms;	/* then do not wait for it again this long */
};

/*
 * QEMU's datagram socket: its queue holds a few frames, and a guest whose
 * virtio-net driver is not up stops reading it for good.  The port waits
 * for it in sendto(), holding up its other direction meanwhile: briefly
 * (wire_link_policy_dgram).  The switch waits without blocking its other inputs
 * (a frame for QEMU stays in its input), so it can give a TCG guest that
 * refills its receive ring slowly more time (wire_link_policy_qemu); its stall
 * ends, as any, once the guest reads again.
 */
extern const struct link_policy wire_link_policy_dgram;
extern const struct link_policy wire_link_policy_qemu;
/*
 * A ring to an adapter (either direction): a live peer drains it within
 * milliseconds, so a full ring is backpressure; only a peer that has not
 * taken a frame for seconds is treated as stalled.  The switch gives up on
 * an adapter before an adapter gives up on the switch (wire_link_policy_ring_tx
 * waits longer): a sender stuck behind a dead port then sees the switch
 * move again instead of dropping frames itself.
 */
extern const struct link_policy wire_link_policy_ring_switch;
extern const struct link_policy wire_link_policy_ring_tx;

/**
 * struct link_state - one sender's view of one full-or-not peer
 * @full_since_ms: when the peer was first seen full, 0: it is not
 * @stalled_until_ms: do not wait for the peer before this time
 */
struct link_state {
	uint64_t full_since_ms;
	uint64_t stalled_until_ms;
};

/* The peer took a frame: it is neither full nor stalled. */
static inline void link_taken(struct link_state *s)
{
	s->full_since_ms = 0;
	s->stalled_until_ms = 0;
}

/* True if a sender may wait for this peer at @now (it is not stalled). */
static inline bool link_may_wait(const struct link_state *s, uint64_t now)
{
	return s->stalled_until_ms <= now;
}

/*
 * The peer is full at @now: returns how many ms more a sender may wait for
 * it (> 0), or 0 if the frame is to be dropped: the peer has now been full
 * for wait_ms (it becomes stalled) or was stalled already.
 */
uint32_t wire_link_full(struct link_state *s, const struct link_policy *p,
			uint64_t now);

/* A send that waited the whole wait_ms in one go failed: stall the peer. */
void wire_link_timed_out(struct link_state *s, const struct link_policy *p,
			 uint64_t now);

#endif /* ORCA_EMU_LINK_POLICY_H */

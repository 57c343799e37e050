/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A switch port's egress, as a fabric switch has one (issue 33): a link
 * rate, enforced by a token bucket, and one FIFO queue per traffic class,
 * each holding at most a configured number of bytes.  A frame that finds
 * its class's queue full is dropped (a lossy class) and counted; an
 * ECN-capable IP packet (ECT(0) or ECT(1)) that finds the queue above a
 * threshold is marked Congestion Experienced first, with a probability
 * that grows from 0 at ecn_min to ecn_max_pct at ecn_max and is 1 above
 * it (RED's marking curve, as switches configure it for DCQCN).  Marking
 * is decided as a frame enters its queue, by the depth it finds, or with
 * ecn_dequeue as it leaves, by the depth it leaves behind: then the mark
 * reaches the receiver, and its CNP the sender, without first waiting out
 * the queue it reports (at a slow link, milliseconds).  The RoCE
 * ICRC does not cover the ECN bits (IBA A17.3.3: TOS/traffic class masked),
 * so marking keeps a frame valid; an IPv4 header's checksum is updated.
 *
 * A lossless class (802.1Qbb, configured with PFC: wire/pfc.h) does not
 * drop: the switch offers a frame only when its queue has room, and keeps
 * it in its input meanwhile, as a switch's headroom holds what is in
 * flight; and it pauses the ports that feed the queue long before (each
 * frame carries its ingress port for that accounting).  A lossless queue that sends nothing for the PFC
 * storm watchdog's time is flushed (counted) and lossy until a frame of
 * its class leaves again.
 *
 * The class of a frame is its IP DSCP's top three bits (DSCP 26, what
 * rdma_cm's TOS 106 gives, is class 3); non-IP frames are class 0.  The
 * queues are served highest class first.  Times are in nanoseconds of
 * CLOCK_MONOTONIC, passed in, so that a test drives its own clock.
 */
#ifndef ORCA_EMU_EGRESS_H
#define ORCA_EMU_EGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "token_bucket.h"

#define EGRESS_CLASSES		8

/**
 * struct egress_cfg - what every port's egress is given
 * @rate_mbps: the link's rate in Mb/s (0: no egress model, frames go as
 *	they come, with the wire's own backpressure)
 * @queue_bytes: each class's queue holds at most this many bytes
 * @ecn_min_bytes: no marking at or below this queue depth
 * @ecn_max_bytes: every ECN-capable packet marked above it (0: no marking)
 * @ecn_max_pct: the marking probability just below @ecn_max_bytes
 * @ecn_dequeue: the marking is decided as a frame leaves, not as it enters
 * @lossless: classes (bit c: class c) whose queues pause rather than drop
 */
struct egress_cfg {
	uint32_t rate_mbps;
	uint32_t queue_bytes;
	uint32_t ecn_min_bytes;
	uint32_t ecn_max_bytes;
	uint32_t ecn_max_pct;
	bool ecn_dequeue;
	uint8_t lossless;
};

struct egress_frame {
	struct egress_frame *next;
	int src;			/* ingress port PFC accounts it to, or -1 */
	bool ecn_undecided;		/* ecn_dequeue: marked or not as it leaves */
	size_t len;
	uint8_t data[];
};

struct egress_stats {
	uint64_t enqueued;
	uint64_t sent;
	uint64_t dropped;		/* a full queue: the lossy class's drop */
	uint64_t lossless_dropped;	/* of dropped: a lossless queue's */
	uint64_t storm_dropped;		/* flushed by the PFC storm watchdog */
	uint64_t marked;		/* CE set on an ECN-capable packet */
	uint64_t not_ect;		/* above a threshold, but not ECN-capable */
	uint32_t deepest;		/* the most bytes one queue held */
	uint32_t deepest_since;		/* the same since the last SIGUSR1 */
	uint64_t class_enqueued[EGRESS_CLASSES];	/* of enqueued */
};

struct egress {
	const struct egress_cfg *cfg;
	struct {
		struct egress_frame *head, **tail;
		uint32_t bytes;
	} q[EGRESS_CLASSES];
	uint32_t queued;		/* frames in all queues */
	uint8_t lossy_now;		/* lossless classes the watchdog flushed */
	uint64_t progress_ns[EGRESS_CLASSES];	/* last left, or first queued */
	struct token_bucket bucket;	/* the link's rate */
	uint64_t rng;
	struct egress_stats st;
};

void egress_init(struct egress *e, const struct egress_cfg *cfg,
		 uint64_t seed);
/* Frees what the queues still hold (counted as dropped). */
void egress_fini(struct egress *e);

/* The class of an Ethernet frame (its DSCP's top three bits, else 0). */
unsigned int egress_class(const uint8_t *frame, size_t len);

/*
 * Queue a copy of @frame: true if queued (and marked CE if due), false if
 * its class's queue had no room (dropped, counted) or no memory.
 */
bool egress_enqueue(struct egress *e, const uint8_t *frame, size_t len,
		    uint64_t now_ns);
/*
 * The same for a frame from ingress port @src: in a lossless class the
 * queued copy keeps @src (PFC's accounting), else -1.
 */
bool egress_enqueue_from(struct egress *e, const uint8_t *frame, size_t len,
			 int src, uint64_t now_ns);

/* True if class @c's queue pauses rather than drops now. */
bool egress_lossless(const struct egress *e, unsigned int c);
/* True if class @c's queue has room for @len bytes. */
bool egress_has_room(const struct egress *e, unsigned int c, size_t len);

/*
 * The PFC storm watchdog's flush of class @c's queue: every frame freed
 * (storm_dropped), @gone told of each first, and the class lossy until a
 * frame of it leaves again.  Returns the frames flushed.
 */
unsigned int egress_flush_class(struct egress *e, unsigned int c,
				void (*gone)(void *ctx,
					     const struct egress_frame *f),
				void *ctx);

/*
 * The next frame the link may send at @now_ns (highest class first), or
 * NULL: nothing queued, or not enough tokens yet, in which case *wait_ns
 * says when there will be (untouched when nothing is queued).  The frame
 * stays queued until egress_pop().
 */
const struct egress_frame *egress_peek(struct egress *e, uint64_t now_ns,
				       uint64_t *wait_ns);
/* Send the frame egress_peek() gave: its bytes leave the bucket. */
void egress_pop(struct egress *e);

/* Sets CE on an ECT IP packet: true if it was ECN-capable (and is now CE). */
bool egress_mark_ce(uint8_t *frame, size_t len);

#endif /* ORCA_EMU_EGRESS_H */

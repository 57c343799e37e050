/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A link's token bucket: bytes pass at a rate in Mb/s, with a burst of at
 * most two jumbo frames or 1 ms of the link's bytes (a switch that woke
 * late catches up that much, no more).  A port's egress (egress.h) sends
 * by one; the switch's ingress from an adapter takes frames by another,
 * as a link delivers them no faster than its rate.  Times in nanoseconds,
 * passed in, so that a test drives its own clock.
 */
#ifndef ORCA_EMU_TOKEN_BUCKET_H
#define ORCA_EMU_TOKEN_BUCKET_H

#include <stddef.h>
#include <stdint.h>

struct token_bucket {
	uint64_t tokens;		/* bytes times 8000 that may pass now */
	uint64_t last_ns;		/* tokens were last added then */
};

/* A full bucket for @rate_mbps. */
void token_bucket_init(struct token_bucket *b, uint32_t rate_mbps);
/* Adds what @rate_mbps earned since the last call, up to the burst. */
void token_bucket_refill(struct token_bucket *b, uint32_t rate_mbps,
			 uint64_t now_ns);
/* 0 if @len bytes may pass now, else the ns until they may. */
uint64_t token_bucket_wait(const struct token_bucket *b, uint32_t rate_mbps,
			   size_t len);
/* @len bytes passed. */
void token_bucket_take(struct token_bucket *b, size_t len);

#endif /* ORCA_EMU_TOKEN_BUCKET_H */

// SPDX-License-Identifier: GPL-2.0
/* A link's token bucket (token_bucket.h). */
#include "token_bucket.h"

/*
 * Tokens count bytes times 8000, so that t ns at R Mb/s add exactly t * R
 * (R Mb/s is R / 8000 bytes per ns).
 */
#define TOKEN_UNIT	8000u
#define BURST_MIN	(2u * 9018u)
#define BURST_NS	1000000u

static uint64_t burst(uint32_t rate_mbps)
{
	uint64_t b = (uint64_t)BURST_NS * rate_mbps;

	return b > (uint64_t)BURST_MIN * TOKEN_UNIT ? b :
	       (uint64_t)BURST_MIN * TOKEN_UNIT;
}

void token_bucket_init(struct token_bucket *b, uint32_t rate_mbps)
{
	b->tokens = burst(rate_mbps);
	b->last_ns = 0;
}

void token_bucket_refill(struct token_bucket *b, uint32_t rate_mbps,
			 uint64_t now_ns)
{
	uint64_t cap = burst(rate_mbps);

	if (now_ns > b->last_ns) {
		uint64_t el = now_ns - b->last_ns;

		/* A long sleep fills the bucket (and must not overflow). */
		if (el >= cap / rate_mbps)
			b->tokens = cap;
		else if (b->tokens + el * rate_mbps >= cap)
			b->tokens = cap;
		else
			b->tokens += el * rate_mbps;
	}
	b->last_ns = now_ns;
}

uint64_t token_bucket_wait(const struct token_bucket *b, uint32_t rate_mbps,
			   size_t len)
{
	uint64_t need = (uint64_t)len * TOKEN_UNIT;

	if (b->tokens >= need)
		return 0;
	return (need - b->tokens + rate_mbps - 1) / rate_mbps;
}

void token_bucket_take(struct token_bucket *b, size_t len)
{
	uint64_t need = (uint64_t)len * TOKEN_UNIT;

	b->tokens = b->tokens > need ? b->tokens - need : 0;
}

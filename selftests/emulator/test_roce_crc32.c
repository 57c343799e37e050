// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for the CRC-32 under the RoCEv2 ICRC (emulator/roce/roce_crc32.c,
 * roce_crc32_clmul.c): the PCLMULQDQ folding, 128 and 256 bits wide, and the
 * slice-by-16 fallback, each called directly, and roce_crc32(), which picks between them, must
 * equal a bitwise CRC-32 for every length 0..4096 at every start alignment
 * 0..15 and for random lengths up to a 9100-byte jumbo frame, from random
 * initial registers, and chain like one CRC when a buffer is split.  Each
 * buffer is a heap block ending with it, so ASan sees any vector load past
 * the end.  (The ICRC's known answers are in test_roce_wire.)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ktap.h"
#include "roce/roce_crc32.h"

#define MAX_EVERY	4096
#define MAX_RANDOM	9100
#define ALIGNMENTS	16
#define RANDOM_RUNS	400
#define NR_IMPLS	(sizeof(impls) / sizeof(impls[0]))

typedef uint32_t (*crc_fn)(uint32_t crc, const void *buf, size_t len);

struct impl {
	const char *name;
	crc_fn fn;
	bool (*usable_here)(void);	/* NULL: any CPU */
	const char *needs;
};

static const struct impl impls[] = {
	{ "vpclmul", roce_crc32_vclmul, roce_crc32_have_vclmul,
	  "VPCLMULQDQ/AVX2" },
	{ "pclmul", roce_crc32_clmul, roce_crc32_have_clmul,
	  "PCLMULQDQ/SSE4.1" },
	{ "slice_by_16", roce_crc32_sb16, NULL, NULL },
	{ "roce_crc32", roce_crc32, NULL, NULL },
};

/* The definition, one bit at a time. */
static uint32_t crc32_bitwise(uint32_t crc, const uint8_t *p, size_t len)
{
	while (len--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xedb88320u & -(crc & 1));
	}
	return crc;
}

static uint64_t rnd_state = 0x2545f4914f6cdd1dull;

static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

static void fill_random(uint8_t *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
		p[i] = (uint8_t)rnd();
}

/* @fn over a copy of @src at offset @align of a block that ends with it. */
static uint32_t crc_at(crc_fn fn, uint32_t crc, const uint8_t *src,
		       size_t len, size_t align)
{
	uint8_t *block = malloc(align + len ? align + len : 1);
	uint32_t r;

	if (!block)
		abort();
	if (len)
		memcpy(block + align, src, len);
	r = fn(crc, block + align, len);
	free(block);
	return r;
}

static void test_check_values(void)
{
	static const char s[] = "123456789";
	uint8_t buf[9000];

	/* The CRC-32 catalogue's check value, and two from zlib.crc32(). */
	CHECK(~crc32_bitwise(~0u, (const uint8_t *)s, 9) == 0xcbf43926u);
	for (size_t i = 0; i < NR_IMPLS; i++)
		CHECK(~impls[i].fn(~0u, s, 9) == 0xcbf43926u);
	for (size_t i = 0; i < 100; i++)
		buf[i] = (uint8_t)s[i % 9];
	for (size_t i = 0; i < NR_IMPLS; i++)
		CHECK(~impls[i].fn(~0u, buf, 100) == 0x73a9aca6u);
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)i;
	for (size_t i = 0; i < NR_IMPLS; i++)
		CHECK(~impls[i].fn(~0u, buf, sizeof(buf)) == 0x38b1ad4au);
	ktap_case_end("crc32_check_values");
}

/* Is @im runnable here?  Reports a skip if not. */
static bool usable(const struct impl *im, const char *name)
{
	if (im->usable_here && !im->usable_here()) {
		char why[64];

		snprintf(why, sizeof(why), "CPU has no %s", im->needs);
		ktap_skip(name, why);
		return false;
	}
	return true;
}

/*
 * Every length 0..MAX_EVERY at every alignment, one random buffer: the
 * bitwise CRC of each prefix comes from one pass over it.
 */
static void test_every_length(const struct impl *im)
{
	static uint8_t data[MAX_EVERY];
	static uint32_t ref[MAX_EVERY + 1];
	char name[80];
	int bad = 0;

	snprintf(name, sizeof(name), "%s_every_length_0_%d_alignment_0_15",
		 im->name, MAX_EVERY);
	if (!usable(im, name))
		return;
	for (int pass = 0; pass < 2; pass++) {
		/* the standard start, then a random register */
		uint32_t init = pass ? (uint32_t)rnd() : ~0u;

		fill_random(data, sizeof(data));
		ref[0] = init;
		for (size_t n = 0; n < MAX_EVERY; n++)
			ref[n + 1] = crc32_bitwise(ref[n], data + n, 1);
		for (size_t a = 0; a < ALIGNMENTS; a++) {
			for (size_t n = 0; n <= MAX_EVERY; n++) {
				uint32_t c = crc_at(im->fn, init, data, n, a);

				if (c != ref[n] && bad++ < 5)
					printf("# %s: len %zu align %zu\n",
					       im->name, n, a);
			}
		}
	}
	CHECK(bad == 0);
	ktap_case_end("%s", name);
}

static void test_random_lengths(const struct impl *im)
{
	static uint8_t data[MAX_RANDOM];
	char name[80];
	int bad = 0;

	snprintf(name, sizeof(name), "%s_random_lengths_to_%d", im->name,
		 MAX_RANDOM);
	if (!usable(im, name))
		return;
	for (int i = 0; i < RANDOM_RUNS; i++) {
		size_t n = rnd() % (MAX_RANDOM + 1), a = rnd() % ALIGNMENTS;
		uint32_t init = (uint32_t)rnd();

		fill_random(data, n);
		if (crc_at(im->fn, init, data, n, a) !=
		    crc32_bitwise(init, data, n) && bad++ < 5)
			printf("# %s: len %zu align %zu wrong\n", im->name, n,
			       a);
	}
	/* all zeros and all ones, the inputs that hide constant errors */
	for (int v = 0; v < 2; v++) {
		memset(data, v ? 0xff : 0, sizeof(data));
		CHECK(im->fn(0, data, sizeof(data)) ==
		      crc32_bitwise(0, data, sizeof(data)));
		CHECK(im->fn(~0u, data, sizeof(data)) ==
		      crc32_bitwise(~0u, data, sizeof(data)));
	}
	CHECK(bad == 0);
	ktap_case_end("%s", name);
}

/* A buffer CRC'd in two pieces, by any mix of implementations, is one. */
static void test_chaining(void)
{
	static uint8_t data[MAX_RANDOM];
	const struct impl *use[NR_IMPLS];
	size_t nr = 0;

	for (size_t i = 0; i < NR_IMPLS; i++)
		if (!impls[i].usable_here || impls[i].usable_here())
			use[nr++] = &impls[i];
	for (int i = 0; i < 200; i++) {
		size_t n = rnd() % (MAX_RANDOM + 1);
		size_t cut = n ? rnd() % (n + 1) : 0;
		const struct impl *x = use[rnd() % nr], *y = use[rnd() % nr];
		uint32_t whole;

		fill_random(data, n);
		whole = crc32_bitwise(~0u, data, n);
		CHECK(y->fn(x->fn(~0u, data, cut), data + cut, n - cut) ==
		      whole);
	}
	ktap_case_end("crc32_split_anywhere_chains");
}

int main(void)
{
	ktap_plan(2 + 2 * NR_IMPLS);
	printf("# pclmul %s, vpclmul %s on this CPU\n",
	       roce_crc32_have_clmul() ? "available" : "not available",
	       roce_crc32_have_vclmul() ? "available" : "not available");
	test_check_values();
	for (size_t i = 0; i < NR_IMPLS; i++) {
		test_every_length(&impls[i]);
		test_random_lengths(&impls[i]);
	}
	test_chaining();
	return ktap_finish();
}

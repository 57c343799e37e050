// SPDX-License-Identifier: GPL-2.0
/*
 * The RoCE tests' fill pattern and its verifier (roce_node.h: buf_fill(),
 * buf_check()) see what a transport bug does to the data: each case fills
 * a registered buffer, does to it what a bug would, and expects the check
 * to fail in the first 8-byte word the bug touched.  The pattern they replace
 * repeated every 512 bytes, so a misplaced page or a repeated packet (of a
 * 512, 1024, 2048 or 4096 byte MTU) read as correct; the kernel tests'
 * kv_fill() repeated every 64 KiB.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ktap.h"
#include "roce_node.h"

#define IOVA		0x7f0000000000ull	/* page aligned: page k holds */
#define PAGES		20			/* bytes 4096k.. of a fill */
#define BUF_LEN		(PAGES * 4096u)
#define SEED		0x1234

static struct node n;
static struct tbuf buf;

static void fill(void)
{
	buf_fill(&n, &buf, 0, BUF_LEN, SEED);
}

/* Copy @len bytes of the buffer from @from to @to, as a bug would. */
static void copy(uint64_t to, uint64_t from, uint64_t len)
{
	for (uint64_t i = 0; i < len; i++)
		*node_va(&n, &buf, to + i) = *node_va(&n, &buf, from + i);
}

/*
 * The check fails, and its first mismatch is in the 8-byte word at @at,
 * the first the bug touched (which byte of it depends on the values).
 */
static bool fails_at(uint64_t off, uint64_t len, uint32_t seed, uint64_t at)
{
	uint64_t m = buf_mismatch(&n, &buf, off, len, seed);

	return !buf_check(&n, &buf, off, len, seed) && m >= at && m < at + 8;
}

static void test_intact(void)
{
	uint64_t zero = 0;

	fill();
	CHECK(buf_check(&n, &buf, 0, BUF_LEN, SEED));
	/* A fill at any offset checks against its own start. */
	buf_fill(&n, &buf, 4096 + 17, 5000, SEED + 1);
	CHECK(buf_check(&n, &buf, 4096 + 17, 5000, SEED + 1));
	CHECK(buf_check(&n, &buf, 0, 0, SEED));
	/* No word is zero, not even seed 0's first: zeroed memory fails. */
	buf_fill(&n, &buf, 0, 8, 0);
	CHECK(memcmp(node_va(&n, &buf, 0), &zero, 8) != 0);
	ktap_case_end("pattern_checks_clean");
}

/*
 * A wrong page-list translation: the MR's pages 3 and 5 swapped, so each
 * holds the other's 4 KiB of the transfer.
 */
static void test_swapped_pages(void)
{
	uint64_t p3;

	fill();
	p3 = buf.pages[3];
	buf.pages[3] = buf.pages[5];
	buf.pages[5] = p3;
	CHECK(fails_at(0, BUF_LEN, SEED, 3 * 4096));
	buf.pages[5] = buf.pages[3];
	buf.pages[3] = p3;
	CHECK(buf_check(&n, &buf, 0, BUF_LEN, SEED));
	ktap_case_end("swapped_pages_fail_the_check");
}

/*
 * One packet's payload written twice, the next one's never: bytes
 * [2048, 3072) of a 1024-byte MTU transfer are a copy of [1024, 2048).
 * Then the same with a 4096-byte MTU.
 */
static void test_repeated_packet(void)
{
	fill();
	copy(2048, 1024, 1024);
	CHECK(fails_at(0, BUF_LEN, SEED, 2048));
	fill();
	copy(8 * 4096, 7 * 4096, 4096);
	CHECK(fails_at(0, BUF_LEN, SEED, 8 * 4096));
	ktap_case_end("repeated_packet_fails_the_check");
}

/* A page of the transfer 64 KiB before it (kv_fill's old period). */
static void test_page_64k_away(void)
{
	fill();
	copy(16 * 4096, 0, 4096);
	CHECK(fails_at(0, BUF_LEN, SEED, 16 * 4096));
	ktap_case_end("page_from_64k_before_fails_the_check");
}

/*
 * Stale data: the whole buffer as the previous transfer (the previous
 * seed) left it, then the same but for one page a write skipped.  The
 * offsets agree, the seed half of a word tells.
 */
static void test_other_transfer(void)
{
	static uint8_t stale[4096];

	buf_fill(&n, &buf, 0, BUF_LEN, SEED - 1);
	CHECK(fails_at(0, BUF_LEN, SEED, 0));
	for (uint64_t i = 0; i < 4096; i++)
		stale[i] = *node_va(&n, &buf, 9 * 4096 + i);
	fill();
	for (uint64_t i = 0; i < 4096; i++)
		*node_va(&n, &buf, 9 * 4096 + i) = stale[i];
	CHECK(fails_at(0, BUF_LEN, SEED, 9 * 4096));
	ktap_case_end("data_of_another_transfer_fails_the_check");
}

/* The data one byte late: everything from the slip on reads wrong. */
static void test_shifted(void)
{
	fill();
	for (uint64_t i = BUF_LEN - 1; i > 4096; i--)
		*node_va(&n, &buf, i) = *node_va(&n, &buf, i - 1);
	CHECK(fails_at(0, BUF_LEN, SEED, 4096));
	ktap_case_end("data_shifted_by_a_byte_fails_the_check");
}

int main(void)
{
	ktap_plan(6);
	if (!node_init(&n, 1) ||
	    !node_buf(&n, &buf, IOVA, BUF_LEN, ORCA_ACCESS_LOCAL_WRITE)) {
		printf("# cannot set up a node and a buffer\n");
		return 1;
	}
	test_intact();
	test_swapped_pages();
	test_repeated_packet();
	test_page_64k_away();
	test_other_transfer();
	test_shifted();
	node_fini(&n);
	free(buf.pages);
	return ktap_finish();
}

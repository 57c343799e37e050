// SPDX-License-Identifier: GPL-2.0
/*
 * The engine's handle tables (objtab.c): index ranges, limits, FIFO reuse
 * of released handles (or lowest-free reuse), lookups of free and out-of-range handles, and a
 * full 2^20-entry table as the MR table uses.
 */
#include <stdint.h>
#include <stdlib.h>

#include "ktap.h"
#include "util/objtab.h"

static void count_obj(uint32_t idx, void *obj, void *arg)
{
	(*(unsigned int *)arg)++;
}

static void free_obj(void *obj, void *arg)
{
	(*(unsigned int *)arg)++;
	free(obj);
}

static void test_range_and_limit(void)
{
	struct objtab t;
	int *objs[4];
	int i;

	CHECK(objtab_init(&t, 1, 4) == 0);	/* handles 1, 2, 3 */
	for (i = 0; i < 3; i++) {
		objs[i] = malloc(sizeof(int));
		CHECK(objtab_alloc(&t, objs[i]) == i + 1);
	}
	objs[3] = malloc(sizeof(int));
	CHECK(objtab_alloc(&t, objs[3]) == -1);
	CHECK(objtab_count(&t) == 3);
	CHECK(objtab_get(&t, 0) == NULL);
	CHECK(objtab_get(&t, 1) == objs[0]);
	CHECK(objtab_get(&t, 3) == objs[2]);
	CHECK(objtab_get(&t, 4) == NULL);
	CHECK(objtab_get(&t, UINT32_MAX) == NULL);
	CHECK(objtab_remove(&t, 0) == NULL);
	CHECK(objtab_remove(&t, 9) == NULL);
	free(objs[3]);
	objtab_fini(&t, free_obj, &(unsigned int){ 0 });
	ktap_case_end("objtab_range_and_limit");
}

static void test_fifo_reuse(void)
{
	unsigned int n = 0;
	struct objtab t;
	int a, b, c, d;

	CHECK(objtab_init(&t, 0, 3) == 0);
	CHECK(objtab_alloc(&t, &a) == 0);
	CHECK(objtab_alloc(&t, &b) == 1);
	CHECK(objtab_alloc(&t, &c) == 2);
	CHECK(objtab_remove(&t, 1) == &b);
	CHECK(objtab_remove(&t, 1) == NULL);	/* already free */
	CHECK(objtab_get(&t, 1) == NULL);
	CHECK(objtab_remove(&t, 0) == &a);
	/* Released handles come back oldest first. */
	CHECK(objtab_alloc(&t, &d) == 1);
	CHECK(objtab_alloc(&t, &a) == 0);
	CHECK(objtab_alloc(&t, &b) == -1);
	objtab_for_each(&t, count_obj, &n);
	CHECK(n == 3);
	objtab_fini(&t, NULL, NULL);
	ktap_case_end("objtab_fifo_reuse");
}

static void test_large_table(void)
{
	static int dummy[2];
	unsigned int n = 0;
	struct objtab t;
	uint32_t i, ok = 0;

	CHECK(objtab_init(&t, 1, 1u << 20) == 0);
	for (i = 1; i < (1u << 20); i++)
		ok += objtab_alloc(&t, &dummy[i & 1]) == i;
	CHECK(ok == (1u << 20) - 1);
	CHECK(objtab_alloc(&t, &dummy[0]) == -1);
	CHECK(objtab_get(&t, (1u << 20) - 1) == &dummy[1]);
	for (i = 1; i < (1u << 20); i += 2)
		objtab_remove(&t, i);
	CHECK(objtab_count(&t) == (1u << 19) - 1);
	objtab_for_each(&t, count_obj, &n);
	CHECK(n == (1u << 19) - 1);
	CHECK(objtab_alloc(&t, &dummy[0]) == 1);
	objtab_fini(&t, NULL, NULL);
	ktap_case_end("objtab_2_20_entries");
}

static void test_lowest_mode(void)
{
	struct objtab t;
	int o[70], i, ok = 0;

	CHECK(objtab_init_lowest(&t, 0, 64) == 0);
	for (i = 0; i < 64; i++)
		ok += objtab_alloc(&t, &o[i]) == i;
	CHECK(ok == 64);
	CHECK(objtab_alloc(&t, &o[64]) == -1);
	CHECK(objtab_remove(&t, 40) == &o[40]);
	CHECK(objtab_remove(&t, 3) == &o[3]);
	CHECK(objtab_remove(&t, 0) == &o[0]);
	CHECK(objtab_remove(&t, 0) == NULL);
	CHECK(objtab_get(&t, 3) == NULL);
	/* Lowest first, whatever the order of release. */
	CHECK(objtab_alloc(&t, &o[65]) == 0);
	CHECK(objtab_alloc(&t, &o[66]) == 3);
	CHECK(objtab_alloc(&t, &o[67]) == 40);
	CHECK(objtab_get(&t, 40) == &o[67]);
	CHECK(objtab_count(&t) == 64);
	objtab_fini(&t, NULL, NULL);

	/* A range starting at 1 with a limit off a word boundary. */
	CHECK(objtab_init_lowest(&t, 1, 70) == 0);
	ok = 0;
	for (i = 1; i < 70; i++)
		ok += objtab_alloc(&t, &o[i]) == i;
	CHECK(ok == 69);
	CHECK(objtab_alloc(&t, &o[0]) == -1);
	CHECK(objtab_get(&t, 0) == NULL);
	objtab_fini(&t, NULL, NULL);
	ktap_case_end("objtab_lowest_free_mode");
}

int main(void)
{
	ktap_plan(4);
	test_range_and_limit();
	test_fifo_reuse();
	test_large_table();
	test_lowest_mode();
	return ktap_finish();
}

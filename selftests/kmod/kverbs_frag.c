// SPDX-License-Identifier: GPL-2.0
/*
 * orca_kverbs: fragmenting the page allocator, so that a case can show an
 * object is built without contiguous memory.  Every free block of order
 * KV_FRAG_ORDER or more is taken, split, and given back except one page of
 * every 2^KV_FRAG_ORDER: the page kept pins each aligned block, so the
 * buddy allocator cannot merge it again and compaction cannot move it
 * (kernel pages are not movable).  That holds 1/16 of free memory; the
 * rest stays free in blocks of at most 15 pages.
 */
#include <linux/delay.h>
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/vmalloc.h>

#include "kverbs.h"

#define KV_FRAG_MAX_ZONES	4
#define KV_FRAG_ROUNDS		20

/* Take every block of order KV_FRAG_ORDER or more @gfp gets; 0 or -ENOSPC. */
static int kv_frag_take(struct kv_frag *f, gfp_t gfp, unsigned long *taken)
{
	unsigned int order, i, step = 1U << KV_FRAG_ORDER;
	struct page *pg;

	for (order = MAX_PAGE_ORDER; order >= KV_FRAG_ORDER; order--) {
		while ((pg = alloc_pages(gfp | __GFP_NOWARN, order))) {
			if (f->n + (1UL << (order - KV_FRAG_ORDER)) > f->cap) {
				__free_pages(pg, order);
				return -ENOSPC;
			}
			split_page(pg, order);
			for (i = 0; i < 1U << order; i++) {
				if (i % step)
					__free_page(pg + i);
				else
					f->held[f->n++] = pg + i;
			}
			(*taken)++;
			cond_resched();
		}
	}
	return 0;
}

/* The zones the held pages are in; returns how many. */
static int kv_frag_zones(struct kv_frag *f, struct zone **zones)
{
	unsigned long i;
	int nz = 0, z;

	for (i = 0; i < f->n; i++) {
		struct zone *zone = page_zone(f->held[i]);

		for (z = 0; z < nz && zones[z] != zone; z++)
			;
		if (z == nz && nz < KV_FRAG_MAX_ZONES)
			zones[nz++] = zone;
	}
	return nz;
}

/* Free blocks of @order in @zone, as /proc/buddyinfo shows them. */
static unsigned long kv_frag_nr_free(struct zone *zone, int order)
{
	/* A racy snapshot, as buddyinfo takes it without the zone lock. */
	return data_race(zone->free_area[order].nr_free);
}

/* Free blocks of order KV_FRAG_ORDER or more in @zone. */
static unsigned long kv_frag_left(struct zone *zone)
{
	unsigned long left = 0;
	int o;

	for (o = KV_FRAG_ORDER; o < NR_PAGE_ORDERS; o++)
		left += kv_frag_nr_free(zone, o);
	return left;
}

/**
 * kv_frag_begin() - leave no free block of order KV_FRAG_ORDER or more
 * @t: the case, for reports
 * @f: state for kv_frag_end()
 *
 * Rounds of three passes: what is free now (no reclaim), what one round of
 * direct reclaim and compaction per block still assembles, and the
 * high-order atomic reserve; until the zones show no such block, since
 * others free memory meanwhile.
 *
 * Return: true on success.
 */
bool kv_frag_begin(struct kv_test *t, struct kv_frag *f)
{
	static const gfp_t passes[] = {
		GFP_NOWAIT, GFP_KERNEL | __GFP_NORETRY, GFP_ATOMIC,
	};
	unsigned long taken;
	int err = 0, i;

	f->n = 0;
	f->cap = totalram_pages() >> KV_FRAG_ORDER;
	f->held = kvcalloc(f->cap, sizeof(*f->held), GFP_KERNEL);
	if (!KV_EXPECT(t, f->held, "%lu page pointers", f->cap))
		return false;
	/* Others free memory meanwhile (RCU, the previous case): again. */
	for (f->rounds = 1; !err; f->rounds++) {
		struct zone *zones[KV_FRAG_MAX_ZONES];
		unsigned long left = 0;
		int z, nz;

		taken = 0;
		for (i = 0; i < ARRAY_SIZE(passes) && !err; i++)
			err = kv_frag_take(f, passes[i], &taken);
		nz = kv_frag_zones(f, zones);
		for (z = 0; z < nz; z++)
			left += kv_frag_left(zones[z]);
		if (!left || f->rounds == KV_FRAG_ROUNDS)
			break;
		msleep(20);
	}
	return KV_EXPECT(t, !err, "fragmenting: %d", err);
}

/*
 * A reading of @zone's free blocks by order into @nr; returns how many are
 * of order KV_FRAG_ORDER or more.
 */
static unsigned long kv_frag_snapshot(struct zone *zone,
				      unsigned long nr[NR_PAGE_ORDERS])
{
	unsigned long left = 0;
	int o;

	for (o = 0; o < NR_PAGE_ORDERS; o++) {
		nr[o] = kv_frag_nr_free(zone, o);
		if (o >= KV_FRAG_ORDER)
			left += nr[o];
	}
	return left;
}

/**
 * kv_frag_check() - the zones the pages came from have no free block of
 * order KV_FRAG_ORDER or more (as /proc/buddyinfo would show them)
 * @t: the case
 * @f: fragmented state
 *
 * Others keep freeing memory (pages others freed to the per-CPU lists merge
 * into blocks when the lists are drained), so each round takes what is
 * free again and then reads every zone once; the verdict and the report
 * are that one reading, never a second look that a free in between could
 * contradict.
 *
 * Return: true when a reading found none left.
 */
bool kv_frag_check(struct kv_test *t, struct kv_frag *f)
{
	unsigned long nr[KV_FRAG_MAX_ZONES][NR_PAGE_ORDERS];
	unsigned long left[KV_FRAG_MAX_ZONES], total = 0, taken = 0;
	struct zone *zones[KV_FRAG_MAX_ZONES];
	bool ok = true;
	int nz, z, o, i;

	nz = kv_frag_zones(f, zones);
	for (i = 0; i < KV_FRAG_ROUNDS; i++) {
		int err = kv_frag_take(f, GFP_NOWAIT, &taken);

		if (!err)
			err = kv_frag_take(f, GFP_ATOMIC, &taken);
		if (!KV_EXPECT(t, !err, "fragmenting: %d", err))
			return false;
		for (total = 0, z = 0; z < nz; z++) {
			left[z] = kv_frag_snapshot(zones[z], nr[z]);
			total += left[z];
		}
		if (!total)
			break;
		if (i + 1 < KV_FRAG_ROUNDS)
			msleep(20);
	}
	for (z = 0; z < nz; z++) {
		char line[160];
		int len = 0;

		for (o = 0; o < NR_PAGE_ORDERS; o++)
			len += scnprintf(line + len, sizeof(line) - len, " %lu",
					 nr[z][o]);
		kv_diag(t, "fragmented: zone %s free blocks by order:%s",
			zones[z]->name, line);
		ok &= KV_EXPECT(t, !left[z], "zone %s: %lu blocks of order >= %d",
				zones[z]->name, left[z], KV_FRAG_ORDER);
	}
	kv_diag(t, "fragmented: %lu pages held in %d zones after %d rounds and %d checks",
		f->n, nz, f->rounds, min(i + 1, KV_FRAG_ROUNDS));
	return ok && KV_EXPECT(t, nz, "no pages taken");
}

/* Give every page back; the allocator merges the blocks again. */
void kv_frag_end(struct kv_frag *f)
{
	unsigned long i;

	for (i = 0; i < f->n; i++)
		__free_page(f->held[i]);
	kvfree(f->held);
	f->held = NULL;
	f->n = 0;
}

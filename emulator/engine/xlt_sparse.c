// SPDX-License-Identifier: GPL-2.0
/*
 * An implicit on-demand MR's translations (1.10, commands.rst "On-demand
 * MRs"): the MR spans the whole address space, [0, 2^EMU_ODP_VA_BITS),
 * so its table cannot be a flat list.  It is a hash of 2 MiB leaves (512
 * entries of 4 KiB pages, ORCA_XLT_* as in any on-demand MR's list), keyed
 * by the leaf's number; a leaf exists while it holds a present entry and
 * costs EMU_XLT_LEAF_COST of the device's budget (@mem) meanwhile.
 *
 * The data path reads entries with engine_xlt_get(); MR_INSTALL writes
 * them with engine_xlt_set() and MR_INVALIDATE clears them with
 * engine_xlt_clear().  Engine thread only, like every MR table.
 */
#include <errno.h>
#include <stdlib.h>

#include "engine_priv.h"

#define LEAF_SHIFT	9		/* 512 entries */
#define MIN_BUCKETS	64

static uint32_t bucket_of(const struct emu_xlt_sparse *t, uint64_t leaf)
{
	/* Fibonacci hashing: neighbouring leaves spread over the buckets. */
	return (uint32_t)((leaf * 0x9e3779b97f4a7c15ull) >>
			  (64 - __builtin_ctz(t->nbuckets)));
}

static struct emu_xlt_leaf *find_leaf(const struct emu_xlt_sparse *t,
				      uint64_t leaf)
{
	struct emu_xlt_leaf *l;

	if (!t->nleaves)
		return NULL;
	for (l = t->bucket[bucket_of(t, leaf)]; l; l = l->next)
		if (l->leaf == leaf)
			return l;
	return NULL;
}

uint64_t engine_xlt_get(const struct emu_xlt_sparse *t, uint64_t page)
{
	const struct emu_xlt_leaf *l = find_leaf(t, page >> LEAF_SHIFT);

	return l ? l->e[page & (EMU_XLT_LEAF_ENTRIES - 1)] : 0;
}

/* Twice the buckets once there are more leaves than buckets. */
static int grow(struct emu_xlt_sparse *t)
{
	uint32_t n = t->nbuckets ? 2 * t->nbuckets : MIN_BUCKETS;
	struct emu_xlt_sparse bigger = { .nbuckets = n };

	if (t->nbuckets && t->nleaves < t->nbuckets)
		return 0;
	bigger.bucket = calloc(n, sizeof(*bigger.bucket));
	if (!bigger.bucket)
		return -ENOMEM;
	for (uint32_t b = 0; b < t->nbuckets; b++) {
		struct emu_xlt_leaf *l = t->bucket[b], *next;

		for (; l; l = next) {
			uint32_t i = bucket_of(&bigger, l->leaf);

			next = l->next;
			l->next = bigger.bucket[i];
			bigger.bucket[i] = l;
		}
	}
	free(t->bucket);
	t->bucket = bigger.bucket;
	t->nbuckets = n;
	return 0;
}

static void unlink_leaf(struct emu_xlt_sparse *t, struct emu_xlt_leaf *gone)
{
	struct emu_xlt_leaf **p = &t->bucket[bucket_of(t, gone->leaf)];

	while (*p != gone)
		p = &(*p)->next;
	*p = gone->next;
	free(gone);
	t->nleaves--;
	engine_mem_uncharge(t->mem, EMU_XLT_LEAF_COST);
}

/* Leaves that entries [page, page + n) would add. */
static uint32_t new_leaves(const struct emu_xlt_sparse *t, uint64_t page,
			   const uint64_t *e, uint32_t n)
{
	uint32_t need = 0;
	uint64_t counted = UINT64_MAX;

	for (uint32_t i = 0; i < n; i++) {
		uint64_t leaf = (page + i) >> LEAF_SHIFT;

		if (e[i] && leaf != counted && !find_leaf(t, leaf)) {
			need++;
			counted = leaf;
		}
	}
	return need;
}

int engine_xlt_set(struct emu_xlt_sparse *t, uint64_t page,
		   const uint64_t *e, uint32_t n)
{
	uint64_t cost = (uint64_t)new_leaves(t, page, e, n) * EMU_XLT_LEAF_COST;
	struct emu_mem *m = t->mem;
	struct emu_xlt_leaf *l = NULL;

	/* Over the budget: nothing changes. */
	if (cost > m->limit - m->used) {
		m->refused++;
		return -ENOSPC;
	}

	for (uint32_t i = 0; i < n; i++) {
		uint64_t p = page + i, leaf = p >> LEAF_SHIFT;
		uint64_t *slot;

		if (!l || l->leaf != leaf)
			l = find_leaf(t, leaf);
		if (!l) {
			if (!e[i])
				continue;	/* absent stays absent */
			if (grow(t))
				return -ENOMEM;
			l = calloc(1, sizeof(*l));
			if (!l)
				return -ENOMEM;
			l->leaf = leaf;
			l->next = t->bucket[bucket_of(t, leaf)];
			t->bucket[bucket_of(t, leaf)] = l;
			t->nleaves++;
			m->used += EMU_XLT_LEAF_COST;
			if (m->used > m->peak)
				m->peak = m->used;
		}
		slot = &l->e[p & (EMU_XLT_LEAF_ENTRIES - 1)];
		l->present += !*slot - !e[i];
		*slot = e[i];
		if (!l->present) {
			unlink_leaf(t, l);
			l = NULL;
		}
	}
	return 0;
}

/* Clears what of [first, end) pages @l holds; frees it if that empties it. */
static void clear_in_leaf(struct emu_xlt_sparse *t, struct emu_xlt_leaf *l,
			  uint64_t first, uint64_t end)
{
	uint64_t base = l->leaf << LEAF_SHIFT;
	uint64_t lo = first > base ? first - base : 0;
	uint64_t hi = end - base < EMU_XLT_LEAF_ENTRIES ? end - base :
		      EMU_XLT_LEAF_ENTRIES;

	for (uint64_t i = lo; i < hi; i++) {
		l->present -= !!l->e[i];
		l->e[i] = 0;
	}
	if (!l->present)
		unlink_leaf(t, l);
}

void engine_xlt_clear(struct emu_xlt_sparse *t, uint64_t page, uint64_t n)
{
	uint64_t end = page + n < page ? UINT64_MAX : page + n;
	uint64_t first_leaf = page >> LEAF_SHIFT;
	uint64_t last_leaf = (end - 1) >> LEAF_SHIFT;

	if (!n || !t->nleaves)
		return;
	/* A wide range: walk the leaves there are, not the leaves it spans. */
	if (last_leaf - first_leaf >= t->nleaves) {
		for (uint32_t b = 0; b < t->nbuckets; b++) {
			struct emu_xlt_leaf *l = t->bucket[b], *next;

			for (; l; l = next) {
				next = l->next;
				if (l->leaf >= first_leaf && l->leaf <= last_leaf)
					clear_in_leaf(t, l, page, end);
			}
		}
		return;
	}
	for (uint64_t leaf = first_leaf; leaf <= last_leaf; leaf++) {
		struct emu_xlt_leaf *l = find_leaf(t, leaf);

		if (l)
			clear_in_leaf(t, l, page, end);
	}
}

void engine_xlt_free(struct emu_xlt_sparse *t)
{
	for (uint32_t b = 0; b < t->nbuckets; b++) {
		struct emu_xlt_leaf *l = t->bucket[b], *next;

		for (; l; l = next) {
			next = l->next;
			free(l);
			engine_mem_uncharge(t->mem, EMU_XLT_LEAF_COST);
		}
	}
	free(t->bucket);
	t->bucket = NULL;
	t->nbuckets = 0;
	t->nleaves = 0;
}

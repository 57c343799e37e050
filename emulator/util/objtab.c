// SPDX-License-Identifier: GPL-2.0
/*
 * Handle tables: a lazily allocated two-level slot array with a FIFO free
 * list kept inside the free slots.  A slot holds 0 (never used), an object
 * pointer (even), or a free-list link ((next << 1) | 1).
 */
#include <stdlib.h>

#include "objtab.h"

#define OBJTAB_CHUNK_SHIFT	10
#define OBJTAB_CHUNK		(1u << OBJTAB_CHUNK_SHIFT)

static inline bool slot_is_obj(uintptr_t v)
{
	return v && !(v & 1);
}

static inline uintptr_t free_link(uint32_t next)
{
	return ((uintptr_t)next << 1) | 1;
}

static inline uint32_t free_next(uintptr_t v)
{
	return (uint32_t)(v >> 1);
}

int objtab_init(struct objtab *t, uint32_t first, uint32_t limit)
{
	*t = (struct objtab){
		.first = first,
		.limit = limit,
		.next_new = first,
		.free_head = OBJTAB_NONE,
		.free_tail = OBJTAB_NONE,
	};
	t->nchunks = (limit + OBJTAB_CHUNK - 1) >> OBJTAB_CHUNK_SHIFT;
	t->chunks = calloc(t->nchunks, sizeof(*t->chunks));
	return t->chunks ? 0 : -1;
}

int objtab_init_lowest(struct objtab *t, uint32_t first, uint32_t limit)
{
	uint32_t words = (limit + 63) / 64, i;

	if (objtab_init(t, first, limit))
		return -1;
	t->used = calloc(words, sizeof(*t->used));
	if (!t->used)
		return -1;
	/* Handles below first and beyond limit are never free. */
	for (i = 0; i < first; i++)
		t->used[i / 64] |= 1ull << (i % 64);
	for (i = limit; i < words * 64; i++)
		t->used[i / 64] |= 1ull << (i % 64);
	return 0;
}

static uintptr_t *slot(const struct objtab *t, uint32_t idx)
{
	uintptr_t *chunk = t->chunks[idx >> OBJTAB_CHUNK_SHIFT];

	return chunk ? &chunk[idx & (OBJTAB_CHUNK - 1)] : NULL;
}

void objtab_fini(struct objtab *t, void (*release)(void *obj, void *arg),
		 void *arg)
{
	uint32_t i;

	if (!t->chunks)
		return;
	for (i = 0; i < t->nchunks; i++) {
		uintptr_t *chunk = t->chunks[i];
		uint32_t j;

		if (!chunk)
			continue;
		for (j = 0; release && j < OBJTAB_CHUNK; j++)
			if (slot_is_obj(chunk[j]))
				release((void *)chunk[j], arg);
		free(chunk);
	}
	free(t->chunks);
	t->chunks = NULL;
	free(t->used);
	t->used = NULL;
	t->count = 0;
}

static int64_t alloc_lowest(struct objtab *t, void *obj)
{
	uint32_t words = (t->limit + 63) / 64, w, idx, c;

	for (w = 0; w < words && !~t->used[w]; w++)
		;
	if (w == words)
		return -1;
	idx = w * 64 + __builtin_ctzll(~t->used[w]);
	c = idx >> OBJTAB_CHUNK_SHIFT;
	if (!t->chunks[c]) {
		t->chunks[c] = calloc(OBJTAB_CHUNK, sizeof(uintptr_t));
		if (!t->chunks[c])
			return -1;
	}
	t->used[w] |= 1ull << (idx % 64);
	if (idx >= t->next_new)
		t->next_new = idx + 1;
	*slot(t, idx) = (uintptr_t)obj;
	t->count++;
	return idx;
}

int64_t objtab_alloc(struct objtab *t, void *obj)
{
	uint32_t idx;
	uintptr_t *s;

	if (t->used)
		return alloc_lowest(t, obj);
	if (t->free_head != OBJTAB_NONE) {
		idx = t->free_head;
		s = slot(t, idx);
		t->free_head = free_next(*s);
		if (t->free_head == OBJTAB_NONE)
			t->free_tail = OBJTAB_NONE;
	} else {
		uint32_t c;

		if (t->next_new >= t->limit)
			return -1;
		idx = t->next_new;
		c = idx >> OBJTAB_CHUNK_SHIFT;
		if (!t->chunks[c]) {
			t->chunks[c] = calloc(OBJTAB_CHUNK, sizeof(uintptr_t));
			if (!t->chunks[c])
				return -1;
		}
		t->next_new++;
		s = slot(t, idx);
	}
	*s = (uintptr_t)obj;
	t->count++;
	return idx;
}

void *objtab_get(const struct objtab *t, uint32_t idx)
{
	uintptr_t *s;

	if (idx < t->first || idx >= t->next_new)
		return NULL;
	s = slot(t, idx);
	return s && slot_is_obj(*s) ? (void *)*s : NULL;
}

void *objtab_remove(struct objtab *t, uint32_t idx)
{
	void *obj = objtab_get(t, idx);
	uintptr_t *s;

	if (!obj)
		return NULL;
	s = slot(t, idx);
	if (t->used) {
		t->used[idx / 64] &= ~(1ull << (idx % 64));
		*s = 0;
		t->count--;
		return obj;
	}
	*s = free_link(OBJTAB_NONE);
	if (t->free_tail == OBJTAB_NONE)
		t->free_head = idx;
	else
		*slot(t, t->free_tail) = free_link(idx);
	t->free_tail = idx;
	t->count--;
	return obj;
}

void objtab_for_each(const struct objtab *t,
		     void (*fn)(uint32_t idx, void *obj, void *arg), void *arg)
{
	uint32_t idx;

	for (idx = t->first; idx < t->next_new; idx++) {
		uintptr_t *s = slot(t, idx);

		if (s && slot_is_obj(*s))
			fn(idx, (void *)*s, arg);
	}
}

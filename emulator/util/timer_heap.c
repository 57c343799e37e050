// SPDX-License-Identifier: GPL-2.0
/*
 * Binary min-heap of deadlines (timer_heap.h): slot 0 is the earliest,
 * slot i's children are 2i + 1 and 2i + 2.
 */
#include <errno.h>
#include <stdlib.h>

#include "timer_heap.h"

int timer_heap_reserve(struct timer_heap *h, uint32_t n)
{
	struct timer_node **v;
	uint32_t cap = h->cap ? h->cap : 16;

	if (n <= h->cap)
		return 0;
	while (cap < n)
		cap *= 2;
	v = realloc(h->v, (size_t)cap * sizeof(*v));
	if (!v)
		return -ENOMEM;
	h->v = v;
	h->cap = cap;
	return 0;
}

void timer_heap_fini(struct timer_heap *h)
{
	for (uint32_t i = 0; i < h->n; i++)
		h->v[i]->pos = TIMER_IDLE;
	free(h->v);
	h->v = NULL;
	h->n = h->cap = 0;
}

static void place(struct timer_heap *h, struct timer_node *t, uint32_t i)
{
	h->v[i] = t;
	t->pos = i;
}

static void sift_up(struct timer_heap *h, uint32_t i)
{
	struct timer_node *t = h->v[i];

	while (i) {
		uint32_t parent = (i - 1) / 2;

		if (h->v[parent]->due <= t->due)
			break;
		place(h, h->v[parent], i);
		i = parent;
	}
	place(h, t, i);
}

static void sift_down(struct timer_heap *h, uint32_t i)
{
	struct timer_node *t = h->v[i];

	for (;;) {
		uint32_t c = 2 * i + 1;

		if (c >= h->n)
			break;
		if (c + 1 < h->n && h->v[c + 1]->due < h->v[c]->due)
			c++;
		if (t->due <= h->v[c]->due)
			break;
		place(h, h->v[c], i);
		i = c;
	}
	place(h, t, i);
}

void timer_heap_del(struct timer_heap *h, struct timer_node *t)
{
	uint32_t i = t->pos;
	struct timer_node *last;

	if (i == TIMER_IDLE || i >= h->n || h->v[i] != t)
		return;
	t->pos = TIMER_IDLE;
	last = h->v[--h->n];
	if (last == t)
		return;
	/* The last timer fills the hole and goes whichever way it must. */
	place(h, last, i);
	sift_up(h, i);
	sift_down(h, last->pos);
}

int timer_heap_set(struct timer_heap *h, struct timer_node *t, uint64_t due)
{
	uint64_t old = t->due;

	if (!due) {
		timer_heap_del(h, t);
		return 0;
	}
	if (!timer_armed(t)) {
		if (h->n >= h->cap)
			return -ENOSPC;
		t->due = due;
		place(h, t, h->n++);
		sift_up(h, t->pos);
		return 0;
	}
	t->due = due;
	if (due < old)
		sift_up(h, t->pos);
	else if (due > old)
		sift_down(h, t->pos);
	return 0;
}

struct timer_node *timer_heap_first(const struct timer_heap *h)
{
	return h->n ? h->v[0] : NULL;
}

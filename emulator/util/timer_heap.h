/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A binary min-heap of deadlines, for timers whose owners are many but
 * whose armed timers are few: finding the earliest is O(1), arming,
 * moving and disarming one are O(log n), and nothing is ever walked.
 *
 * A timer is embedded in its owner; the heap holds pointers to the
 * timers, and each timer knows its slot, so it can be moved or removed
 * wherever it is.  The heap never allocates while timers are armed:
 * timer_heap_reserve() makes room beforehand (when an owner is created),
 * so arming a timer cannot fail on the engine's data path.
 */
#ifndef ORCA_EMU_TIMER_HEAP_H
#define ORCA_EMU_TIMER_HEAP_H

#include <stdbool.h>
#include <stdint.h>

#define TIMER_IDLE	UINT32_MAX	/* timer_node.pos: not armed */

struct timer_node {
	uint64_t due;			/* valid while armed */
	uint32_t pos;			/* heap slot, or TIMER_IDLE */
};

struct timer_heap {
	struct timer_node **v;
	uint32_t n, cap;
};

static inline void timer_node_init(struct timer_node *t)
{
	t->due = 0;
	t->pos = TIMER_IDLE;
}

static inline bool timer_armed(const struct timer_node *t)
{
	return t->pos != TIMER_IDLE;
}

static inline uint32_t timer_heap_count(const struct timer_heap *h)
{
	return h->n;
}

/* Room for @n armed timers; 0 or -ENOMEM. */
int timer_heap_reserve(struct timer_heap *h, uint32_t n);
void timer_heap_fini(struct timer_heap *h);
/*
 * Arms @t for @due, or moves it there if it is armed; @due 0 disarms.
 * Returns -ENOSPC if the heap has no room reserved (a caller bug; the
 * timer stays as it was).
 */
int timer_heap_set(struct timer_heap *h, struct timer_node *t, uint64_t due);
void timer_heap_del(struct timer_heap *h, struct timer_node *t);
/* The earliest armed timer, or NULL. */
struct timer_node *timer_heap_first(const struct timer_heap *h);

#endif /* ORCA_EMU_TIMER_HEAP_H */

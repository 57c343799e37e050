/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Handle tables for the engine's objects (EQs, UARs, PDs, CQs, MRs, QPs,
 * AHs, SRQs): O(1) handle allocation, lookup and release.
 *
 * A table owns the index space [first, limit).  Slots live in a two-level
 * array whose second-level chunks are allocated on first use, so a 2^20-entry
 * MR table costs a few KiB until MRs are created.  Released indices go to a
 * FIFO free list threaded through the free slots themselves, so a handle is
 * reused as late as possible (a stale QPN or MR key from the wire is less
 * likely to hit a new object).  A small table can instead hand out the
 * lowest free handle (a bitmap scan), which the interface requires for
 * EQs: the first EQ created after the others are gone is always EQ 0.
 */
#ifndef ORCA_EMU_OBJTAB_H
#define ORCA_EMU_OBJTAB_H

#include <stdbool.h>
#include <stdint.h>

struct objtab {
	uintptr_t **chunks;	/* [nchunks] of [OBJTAB_CHUNK] slots */
	uint32_t nchunks;
	uint32_t first;		/* lowest handle handed out */
	uint32_t limit;		/* handles are < limit */
	uint32_t next_new;	/* lowest never-used handle */
	uint32_t free_head;	/* FIFO of released handles; OBJTAB_NONE */
	uint32_t free_tail;
	uint32_t count;		/* live objects */
	uint64_t *used;		/* lowest-free mode: bit set = taken */
};

#define OBJTAB_NONE	UINT32_MAX

int objtab_init(struct objtab *t, uint32_t first, uint32_t limit);
/* Same, but objtab_alloc() returns the lowest free handle. */
int objtab_init_lowest(struct objtab *t, uint32_t first, uint32_t limit);
/* Calls @release on every live object, then frees the table's memory. */
void objtab_fini(struct objtab *t, void (*release)(void *obj, void *arg),
		 void *arg);
/*
 * Stores @obj (at least 2-byte aligned, e.g. from malloc) under a new handle.
 * Returns the handle, or -1 when the table is full or out of memory.
 */
int64_t objtab_alloc(struct objtab *t, void *obj);
/* The object under @idx, or NULL for a free or out-of-range handle. */
void *objtab_get(const struct objtab *t, uint32_t idx);
/* Releases @idx and returns its object (NULL if it was not live). */
void *objtab_remove(struct objtab *t, uint32_t idx);
/* Visits every live object in handle order. */
void objtab_for_each(const struct objtab *t,
		     void (*fn)(uint32_t idx, void *obj, void *arg), void *arg);

static inline uint32_t objtab_count(const struct objtab *t)
{
	return t->count;
}

#endif /* ORCA_EMU_OBJTAB_H */

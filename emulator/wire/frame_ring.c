// SPDX-License-Identifier: GPL-2.0
/*
 * Shared-memory frame rings (frame_ring.h).  Indices run freely and wrap
 * at 2^32; prod - cons is the number of frames in the ring.
 */
#include <string.h>
#include <unistd.h>

#include "frame_ring.h"

#define LOAD_ACQ(p)	__atomic_load_n((p), __ATOMIC_ACQUIRE)
#define STORE_REL(p, v)	__atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define FENCE()		__atomic_thread_fence(__ATOMIC_SEQ_CST)

void wire_frame_ring_init(struct frame_ring *r, struct frame_ring_mem *mem,
			  int data_fd, int space_fd)
{
	r->mem = mem;
	r->data_fd = data_fd;
	r->space_fd = space_fd;
	r->broken = false;
	r->busy_shown = false;
	r->data_kicks = 0;
}

static void kick(int fd)
{
	uint64_t one = 1;

	/* Fails only if the counter would overflow: it is awake anyway. */
	if (write(fd, &one, sizeof(one)) < 0)
		return;
}

void wire_frame_ring_clear_fd(int fd)
{
	uint64_t v;

	if (read(fd, &v, sizeof(v)) < 0)
		return;		/* EAGAIN: someone else reset it */
}

/* Frames in the ring as one side sees it; the peer's index is checked. */
static uint32_t ring_used(struct frame_ring *r, uint32_t prod, uint32_t cons)
{
	uint32_t used = prod - cons;

	if (used > FRAME_RING_SLOTS) {
		r->broken = true;
		return FRAME_RING_SLOTS;
	}
	return used;
}

/* Producer side: only we write prod, so a plain read of it is ours. */
bool wire_frame_ring_has_space(struct frame_ring *r)
{
	struct frame_ring_shared *sh = &r->mem->sh;
	uint32_t prod = __atomic_load_n(&sh->prod, __ATOMIC_RELAXED);

	/* A broken ring reads as full: ring_used() says FRAME_RING_SLOTS. */
	return !r->broken &&
	       ring_used(r, prod, LOAD_ACQ(&sh->cons)) < FRAME_RING_SLOTS;
}

uint8_t *wire_frame_ring_reserve(struct frame_ring *r)
{
	struct frame_ring_shared *sh = &r->mem->sh;
	uint32_t prod = __atomic_load_n(&sh->prod, __ATOMIC_RELAXED);

	if (!wire_frame_ring_has_space(r))
		return NULL;
	return r->mem->slot[prod % FRAME_RING_SLOTS].data;
}

void wire_frame_ring_commit(struct frame_ring *r, size_t len)
{
	struct frame_ring_shared *sh = &r->mem->sh;
	uint32_t prod = __atomic_load_n(&sh->prod, __ATOMIC_RELAXED);

	r->mem->slot[prod % FRAME_RING_SLOTS].len = (uint32_t)len;
	STORE_REL(&sh->prod, prod + 1);
	FENCE();
	if (__atomic_load_n(&sh->cons_sleeping, __ATOMIC_RELAXED) &&
	    __atomic_exchange_n(&sh->cons_sleeping, 0, __ATOMIC_ACQ_REL)) {
		kick(r->data_fd);
		__atomic_fetch_add(&r->data_kicks, 1, __ATOMIC_RELAXED);
	}
}

bool wire_frame_ring_push(struct frame_ring *r, const void *frame, size_t len)
{
	uint8_t *slot;

	if (len > FRAME_RING_MTU || !(slot = wire_frame_ring_reserve(r)))
		return false;
	memcpy(slot, frame, len);
	wire_frame_ring_commit(r, len);
	return true;
}

bool wire_frame_ring_want_space(struct frame_ring *r)
{
	struct frame_ring_shared *sh = &r->mem->sh;

	__atomic_store_n(&sh->prod_waiting, 1, __ATOMIC_RELAXED);
	FENCE();
	return wire_frame_ring_has_space(r);
}

const uint8_t *wire_frame_ring_peek(struct frame_ring *r, size_t *len)
{
	struct frame_ring_shared *sh = &r->mem->sh;
	uint32_t cons = __atomic_load_n(&sh->cons, __ATOMIC_RELAXED);
	struct frame_slot *s;
	uint32_t n;

	if (r->broken || !ring_used(r, LOAD_ACQ(&sh->prod), cons) ||
	    r->broken)
		return NULL;
	s = &r->mem->slot[cons % FRAME_RING_SLOTS];
	/* Read the length once: the peer could change it under us. */
	n = __atomic_load_n(&s->len, __ATOMIC_RELAXED);
	*len = n >= FRAME_RING_MIN && n <= FRAME_RING_MTU ? n : 0;
	return s->data;
}

/*
 * A waiting producer is woken only once half the ring is free again: it
 * then has a batch of room instead of one slot per wake-up.
 */
void wire_frame_ring_pop(struct frame_ring *r)
{
	struct frame_ring_shared *sh = &r->mem->sh;
	uint32_t cons = __atomic_load_n(&sh->cons, __ATOMIC_RELAXED) + 1;

	STORE_REL(&sh->cons, cons);
	FENCE();
	if (__atomic_load_n(&sh->prod_waiting, __ATOMIC_RELAXED) &&
	    ring_used(r, LOAD_ACQ(&sh->prod), cons) <= FRAME_RING_SLOTS / 2 &&
	    __atomic_exchange_n(&sh->prod_waiting, 0, __ATOMIC_ACQ_REL))
		kick(r->space_fd);
}

bool wire_frame_ring_want_data(struct frame_ring *r)
{
	struct frame_ring_shared *sh = &r->mem->sh;

	__atomic_store_n(&sh->cons_sleeping, 1, __ATOMIC_RELAXED);
	FENCE();
	if (r->broken ||
	    !ring_used(r, LOAD_ACQ(&sh->prod),
		       __atomic_load_n(&sh->cons, __ATOMIC_RELAXED)))
		return false;
	/* Not sleeping after all: spare the producer a kick nobody waits on. */
	__atomic_store_n(&sh->cons_sleeping, 0, __ATOMIC_RELAXED);
	return true;
}

void wire_frame_ring_set_busy(struct frame_ring *r, bool busy)
{
	if (r->busy_shown == busy)
		return;
	r->busy_shown = busy;
	__atomic_store_n(&r->mem->sh.prod_busy, busy, __ATOMIC_RELAXED);
}

bool wire_frame_ring_producer_busy(struct frame_ring *r)
{
	return __atomic_load_n(&r->mem->sh.prod_busy, __ATOMIC_RELAXED) != 0;
}

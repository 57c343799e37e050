/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A single-producer single-consumer ring of Ethernet frames in memory that
 * two processes share (an adapter's port and the wire switch).  A frame is
 * copied in once by the producer, or built in its slot (reserve, commit),
 * and read in place by the consumer.
 *
 * Neither side makes a system call per frame while the other keeps up: the
 * consumer asks for a wake-up (an eventfd write) only when it found the
 * ring empty and is about to sleep, and the producer asks for one only when
 * it found the ring full.  Both flags follow the same pattern: set the
 * flag, full barrier, look at the ring again; the other side publishes its
 * index, full barrier, then reads the flag.  One of the two always sees the
 * other, so no wake-up is lost.
 *
 * The other process is trusted to be the emulator's own code, but not to
 * be bug free: indices and lengths it wrote are checked before use.
 */
#ifndef ORCA_EMU_FRAME_RING_H
#define ORCA_EMU_FRAME_RING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FRAME_RING_SLOTS	256		/* a power of two */
#define FRAME_RING_MTU		9018		/* jumbo + Ethernet + VLAN */
#define FRAME_RING_MIN		14		/* an Ethernet header */

/* The shared part; each index on its own cache line. */
struct frame_ring_shared {
	_Alignas(64) uint32_t prod;		/* written by the producer */
	_Alignas(64) uint32_t cons;		/* written by the consumer */
	_Alignas(64) uint32_t cons_sleeping;	/* consumer: kick me */
	_Alignas(64) uint32_t prod_waiting;	/* producer: kick me */
	_Alignas(64) uint32_t prod_busy;	/* producer: more frames soon */
};

struct frame_slot {
	uint32_t len;
	uint8_t data[FRAME_RING_MTU];
} __attribute__((aligned(64)));

struct frame_ring_mem {
	struct frame_ring_shared sh;
	struct frame_slot slot[FRAME_RING_SLOTS];
};

/**
 * struct frame_ring - one side's handle on a shared ring
 * @mem: the shared memory
 * @data_fd: eventfd the producer writes to wake a sleeping consumer
 * @space_fd: eventfd the consumer writes to wake a waiting producer
 * @broken: the peer wrote an impossible index: treat the link as dead
 * @busy_shown: the producer's last wire_frame_ring_set_busy()
 * @data_kicks: data_fd writes this producer made (read with __atomic)
 */
struct frame_ring {
	struct frame_ring_mem *mem;
	int data_fd;
	int space_fd;
	bool broken;
	bool busy_shown;
	uint64_t data_kicks;
};

void wire_frame_ring_init(struct frame_ring *r, struct frame_ring_mem *mem,
			  int data_fd, int space_fd);

/* Producer.  Copies the frame in; false if the ring is full (or broken). */
bool wire_frame_ring_push(struct frame_ring *r, const void *frame, size_t len);
/*
 * Producer, in place: the next free slot's FRAME_RING_MTU bytes, NULL if the
 * ring is full.  The frame is built there and published, with its length
 * (at most FRAME_RING_MTU), by wire_frame_ring_commit(); until then the
 * consumer cannot see it, and not committing leaves the ring as it was.
 */
uint8_t *wire_frame_ring_reserve(struct frame_ring *r);
void wire_frame_ring_commit(struct frame_ring *r, size_t len);
/* True if a push would succeed now. */
bool wire_frame_ring_has_space(struct frame_ring *r);
/*
 * The ring was full: ask the consumer for a space_fd kick.  Returns true if
 * there is room after all (the caller must not sleep then).
 */
bool wire_frame_ring_want_space(struct frame_ring *r);

/*
 * Consumer.  The oldest frame in place and its length, NULL if the ring is
 * empty; a frame with an impossible length comes back with *len = 0 (pop
 * it and count it).  It stays valid until wire_frame_ring_pop().
 */
const uint8_t *wire_frame_ring_peek(struct frame_ring *r, size_t *len);
void wire_frame_ring_pop(struct frame_ring *r);
/*
 * The ring was empty: ask the producer for a data_fd kick.  Returns true if
 * a frame arrived after all (the caller must not sleep then).
 */
bool wire_frame_ring_want_data(struct frame_ring *r);

/*
 * A hint, never needed for correctness: the producer says it is in the
 * middle of a burst (more frames follow within microseconds) or not.  A
 * consumer that finds the ring empty meanwhile may look again a little
 * later instead of asking for a kick: the producer then makes no system
 * call for a consumer that would wake a moment later anyway.  The shared
 * line is written only when the hint changes.
 */
void wire_frame_ring_set_busy(struct frame_ring *r, bool busy);
bool wire_frame_ring_producer_busy(struct frame_ring *r);

/* Reset an eventfd after poll() said it was readable. */
void wire_frame_ring_clear_fd(int fd);

#endif /* ORCA_EMU_FRAME_RING_H */

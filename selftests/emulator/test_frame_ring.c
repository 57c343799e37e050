// SPDX-License-Identifier: GPL-2.0
/*
 * The shared-memory frame ring's wake-up protocol (wire/frame_ring.h),
 * both sides in one thread so that every step is deterministic.  An
 * eventfd write is a system call of several microseconds on a virtual
 * machine and wakes a thread, so the ring makes one only for a consumer
 * that is really going to sleep.
 *
 * ring_frames_in_order: frames come out as they went in, whole, and a
 * full ring refuses the next.
 *
 * ring_kick_only_a_sleeper: a consumer that asked for a kick and found
 * the ring empty is kicked once by the next commit, not again by the
 * commits after it; one that asked but found a frame (and so does not
 * sleep) is not kicked at all.  data_kicks counts the writes.
 *
 * ring_space_kick_at_half: a producer that found the ring full is woken
 * once half of it is free, not per frame taken.
 *
 * ring_busy_hint: the producer's burst hint reaches the consumer, and
 * the shared line is written only when it changes.
 */
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "ktap.h"
#include "wire/frame_ring.h"

struct rig {
	struct frame_ring_mem *mem;
	struct frame_ring prod, cons;
	int data_fd, space_fd;
};

static int rig_up(struct rig *r)
{
	r->mem = aligned_alloc(64, sizeof(*r->mem));
	r->data_fd = eventfd(0, EFD_NONBLOCK);
	r->space_fd = eventfd(0, EFD_NONBLOCK);
	if (!r->mem || r->data_fd < 0 || r->space_fd < 0)
		return -1;
	memset(&r->mem->sh, 0, sizeof(r->mem->sh));
	wire_frame_ring_init(&r->prod, r->mem, r->data_fd, r->space_fd);
	wire_frame_ring_init(&r->cons, r->mem, r->data_fd, r->space_fd);
	return 0;
}

static void rig_down(struct rig *r)
{
	if (r->data_fd >= 0)
		close(r->data_fd);
	if (r->space_fd >= 0)
		close(r->space_fd);
	free(r->mem);
}

/* The eventfd's counter, read and reset: the kicks since the last look. */
static uint64_t kicks(int fd)
{
	uint64_t v = 0;

	if (read(fd, &v, sizeof(v)) != sizeof(v))
		return 0;	/* EAGAIN: none */
	return v;
}

static void frame(uint8_t *f, size_t len, uint8_t tag)
{
	memset(f, tag, len);
}

static void ring_frames_in_order(void)
{
	uint8_t f[FRAME_RING_MTU], want[FRAME_RING_MTU];
	struct rig r;
	const uint8_t *p;
	size_t len;
	unsigned int i;

	CHECK(rig_up(&r) == 0);
	for (i = 0; i < FRAME_RING_SLOTS; i++) {
		frame(f, 60 + i, (uint8_t)i);
		CHECK(wire_frame_ring_push(&r.prod, f, 60 + i));
	}
	CHECK(!wire_frame_ring_push(&r.prod, f, 60));
	CHECK(!wire_frame_ring_has_space(&r.prod));
	for (i = 0; i < FRAME_RING_SLOTS; i++) {
		p = wire_frame_ring_peek(&r.cons, &len);
		CHECK(p && len == 60 + i);
		frame(want, 60 + i, (uint8_t)i);
		CHECK(p && !memcmp(p, want, 60 + i));
		wire_frame_ring_pop(&r.cons);
	}
	CHECK(!wire_frame_ring_peek(&r.cons, &len));
	/* Nobody asked for a kick: none was made. */
	CHECK(kicks(r.data_fd) == 0 && kicks(r.space_fd) == 0);
	CHECK(r.prod.data_kicks == 0);
	rig_down(&r);
	ktap_case_end("ring_frames_in_order");
}

static void ring_kick_only_a_sleeper(void)
{
	uint8_t f[64];
	struct rig r;
	size_t len;

	CHECK(rig_up(&r) == 0);
	frame(f, sizeof(f), 1);

	/* Empty: the consumer will sleep, the next commit kicks it once. */
	CHECK(!wire_frame_ring_want_data(&r.cons));
	CHECK(wire_frame_ring_push(&r.prod, f, sizeof(f)));
	CHECK(wire_frame_ring_push(&r.prod, f, sizeof(f)));
	CHECK(kicks(r.data_fd) == 1);
	CHECK(r.prod.data_kicks == 1);

	/*
	 * Frames are there: the consumer does not sleep, so the commits
	 * that follow owe it nothing.
	 */
	CHECK(wire_frame_ring_want_data(&r.cons));
	CHECK(wire_frame_ring_push(&r.prod, f, sizeof(f)));
	CHECK(kicks(r.data_fd) == 0);
	CHECK(r.prod.data_kicks == 1);

	/* Drained, asks again: kicked again. */
	while (wire_frame_ring_peek(&r.cons, &len))
		wire_frame_ring_pop(&r.cons);
	CHECK(!wire_frame_ring_want_data(&r.cons));
	CHECK(wire_frame_ring_push(&r.prod, f, sizeof(f)));
	CHECK(kicks(r.data_fd) == 1);
	CHECK(r.prod.data_kicks == 2);
	rig_down(&r);
	ktap_case_end("ring_kick_only_a_sleeper");
}

static void ring_space_kick_at_half(void)
{
	uint8_t f[64];
	struct rig r;
	size_t len;
	unsigned int i;

	CHECK(rig_up(&r) == 0);
	frame(f, sizeof(f), 2);
	for (i = 0; i < FRAME_RING_SLOTS; i++)
		CHECK(wire_frame_ring_push(&r.prod, f, sizeof(f)));
	CHECK(!wire_frame_ring_want_space(&r.prod));
	for (i = 0; i < FRAME_RING_SLOTS / 2 - 1; i++) {
		CHECK(wire_frame_ring_peek(&r.cons, &len) != NULL);
		wire_frame_ring_pop(&r.cons);
	}
	CHECK(kicks(r.space_fd) == 0);
	CHECK(wire_frame_ring_peek(&r.cons, &len) != NULL);
	wire_frame_ring_pop(&r.cons);
	CHECK(kicks(r.space_fd) == 1);
	/* Once: the rest of the pops do not write again. */
	while (wire_frame_ring_peek(&r.cons, &len))
		wire_frame_ring_pop(&r.cons);
	CHECK(kicks(r.space_fd) == 0);
	rig_down(&r);
	ktap_case_end("ring_space_kick_at_half");
}

static void ring_busy_hint(void)
{
	struct rig r;

	CHECK(rig_up(&r) == 0);
	CHECK(!wire_frame_ring_producer_busy(&r.cons));
	wire_frame_ring_set_busy(&r.prod, true);
	CHECK(wire_frame_ring_producer_busy(&r.cons));
	/*
	 * Unchanged, the producer leaves the line alone: a value planted
	 * there survives a repeated set.
	 */
	r.mem->sh.prod_busy = 7;
	wire_frame_ring_set_busy(&r.prod, true);
	CHECK(r.mem->sh.prod_busy == 7);
	wire_frame_ring_set_busy(&r.prod, false);
	CHECK(!wire_frame_ring_producer_busy(&r.cons));
	/* A hint only: it changes no kick. */
	CHECK(!wire_frame_ring_want_data(&r.cons));
	CHECK(kicks(r.data_fd) == 0);
	rig_down(&r);
	ktap_case_end("ring_busy_hint");
}

int main(void)
{
	ktap_plan(4);
	ring_frames_in_order();
	ring_kick_only_a_sleeper();
	ring_space_kick_at_half();
	ring_busy_hint();
	return ktap_finish();
}

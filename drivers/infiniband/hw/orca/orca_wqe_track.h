/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * ORCA: which WQEs of a queue are outstanding, and which one a CQE
 * completes.  The CQE is the adapter's word, so a consumer keeps its own
 * records: the wr_id of each ring slot as it was posted, and for an SRQ a
 * bitmap of the slots posted and not yet completed.  These are the rules
 * on those records and on the free-running indices, as pure functions
 * with no locking or allocation (the caller holds the queue's lock).
 *
 * The kernel driver and the rdma-core provider both include this very
 * file (the provider's copy is this one, as orca_io_defs.h is), so the two
 * cannot retire WQEs by different rules.  Like orca_io_defs.h it includes
 * nothing: the includer supplies u16, u32, u64, bool and the kernel's
 * non-atomic bit operations test_bit(), __set_bit() and __clear_bit().
 *
 * The spec's "Queues and indices" (data-path.rst): a CQE names its WQE by
 * the low 16 bits of the WQE's free-running index (wqe_idx).  An SQ or RQ
 * completes in order, so one consumer index is enough.  An SRQ is taken in
 * ring order, but the CQEs of its WQEs go to the CQs of several QPs and may
 * be polled in any order: a slot is free again only once its own CQE was
 * polled, which the bitmap records.  The adapter copies a receive WQE whole
 * when it takes it, so a slot whose CQE was polled may be reused at once.
 */
#ifndef _ORCA_WQE_TRACK_H_
#define _ORCA_WQE_TRACK_H_

/* The slot of free-running index @idx in a ring of 1 << @log_depth. */
static inline u32 orca_wq_slot(u32 idx, u32 log_depth)
{
	return idx & ((1U << log_depth) - 1);
}

/*
 * The free-running index with the low 16 bits @wqe_idx, at or after
 * @base: rings are at most 65536 deep, so of the indices outstanding at
 * most one has those bits.
 */
static inline u32 orca_wqe_index(u32 base, u16 wqe_idx)
{
	return base + (u16)(wqe_idx - (u16)base);
}

/**
 * orca_wq_outstanding() - does a CQE name an outstanding WQE of an SQ or RQ?
 * @ci: the queue's consumer index (one past the last WQE retired)
 * @pi: its producer index
 * @wqe_idx: the CQE's WQE index
 * @idx: set to the free-running index it names
 *
 * A send CQE retires its WQE and the unsignaled ones before it, a receive
 * CQE its WQE: either way the consumer index becomes @idx + 1, and the
 * completion's wr_id is the one recorded for slot orca_wq_slot(@idx).
 *
 * Return: false for an index outside [@ci, @pi), a WQE never posted or
 * already retired: its CQE is dropped, since retiring it would free slots
 * still in use.
 */
static inline bool orca_wq_outstanding(u32 ci, u32 pi, u16 wqe_idx, u32 *idx)
{
	*idx = orca_wqe_index(ci, wqe_idx);
	return *idx - ci < pi - ci;
}

/*
 * An SRQ's WQEs outstanding all lie in [pi - depth, pi): a slot is not
 * posted again before its CQE is polled, and a resize keeps them in the
 * new depth (orca_srq_span()).  So of each slot's indices only one can be
 * outstanding, the one in that window.
 */

/**
 * orca_srq_post_slot() - record the WQE posted at an SRQ's producer index
 * @posted: bitmap of the slots posted and not completed
 * @wrid: wr_id of each slot
 * @log_depth: slots = 1 << @log_depth
 * @pi: the SRQ's producer index, the new WQE's
 * @wr_id: its work request id
 *
 * The slot of @pi may still wait for its CQE, polled later from another
 * CQ: it is not reused before (its record would be lost).  A full SRQ has
 * every slot posted, so this is the only check.
 *
 * Return: false, with nothing recorded, if the slot is still posted.
 */
static inline bool orca_srq_post_slot(unsigned long *posted, u64 *wrid,
				      u32 log_depth, u32 pi, u64 wr_id)
{
	u32 slot = orca_wq_slot(pi, log_depth);

	if (test_bit(slot, posted))
		return false;
	wrid[slot] = wr_id;
	__set_bit(slot, posted);
	return true;
}

/**
 * orca_srq_complete_slot() - retire the SRQ WQE a receive CQE names
 * @posted: bitmap of the slots posted and not completed
 * @wrid: wr_id of each slot
 * @log_depth: slots = 1 << @log_depth
 * @pi: the SRQ's producer index
 * @wqe_idx: the CQE's WQE index
 * @wr_id: set to the wr_id the WQE was posted with
 *
 * Return: false for a WQE that is not outstanding: an index outside the
 * window below @pi, or a slot not posted (a second CQE for one WQE).  The
 * CQE is dropped.
 */
static inline bool orca_srq_complete_slot(unsigned long *posted,
					  const u64 *wrid, u32 log_depth,
					  u32 pi, u16 wqe_idx, u64 *wr_id)
{
	u32 base = pi - (1U << log_depth);
	u32 idx = orca_wqe_index(base, wqe_idx);
	u32 slot = orca_wq_slot(idx, log_depth);

	if (idx - base >= (1U << log_depth) || !test_bit(slot, posted))
		return false;
	__clear_bit(slot, posted);
	*wr_id = wrid[slot];
	return true;
}

/**
 * orca_srq_span() - how far below @pi the oldest WQE outstanding is
 * @posted: bitmap of the slots posted and not completed
 * @log_depth: slots = 1 << @log_depth
 * @pi: the SRQ's producer index
 *
 * The smallest depth that keeps every WQE outstanding in a slot of its
 * own (orca_srq_move_slots()).  When CQEs were polled in posting order it
 * is their number; polled out of order, a completed WQE between
 * outstanding ones still counts.
 *
 * Return: 0 with none outstanding, else pi - that WQE's index.
 */
static inline u32 orca_srq_span(const unsigned long *posted, u32 log_depth,
				u32 pi)
{
	u32 n;

	for (n = 1U << log_depth; n; n--)
		if (test_bit(orca_wq_slot(pi - n, log_depth), posted))
			return n;
	return 0;
}

/**
 * orca_srq_move_slots() - an SRQ's records into arrays of another depth
 * @posted: bitmap of the slots posted and not completed
 * @wrid: wr_id of each slot
 * @log_depth: slots = 1 << @log_depth
 * @new_posted: the new depth's bitmap, zeroed
 * @new_wrid: the new depth's wr_ids
 * @new_log_depth: the new depth, at least orca_srq_span() of the old
 * @pi: the SRQ's producer index
 *
 * Each WQE outstanding keeps its index, so its CQE (which names the index)
 * finds its record in the slot of that index in the new depth, as the
 * adapter moves the WQEs it has not taken to their indices' slots in the
 * new ring.
 */
static inline void orca_srq_move_slots(const unsigned long *posted,
				       const u64 *wrid, u32 log_depth,
				       unsigned long *new_posted,
				       u64 *new_wrid, u32 new_log_depth,
				       u32 pi)
{
	u32 idx, slot;

	for (idx = pi - (1U << log_depth); idx != pi; idx++) {
		if (!test_bit(orca_wq_slot(idx, log_depth), posted))
			continue;
		slot = orca_wq_slot(idx, new_log_depth);
		new_wrid[slot] = wrid[orca_wq_slot(idx, log_depth)];
		__set_bit(slot, new_posted);
	}
}

#endif /* _ORCA_WQE_TRACK_H_ */

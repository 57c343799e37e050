/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * ORCA: which WQEs of a queue are outstanding, and which one a CQE
 * completes.  The CQE is the adapter's word, so a consumer keeps its own
 * records: the wr_id of each ring slot as it was posted, and for an SRQ a
 * record per WQE outstanding, with a bitmap of the records in use.  These
 * are the rules on those records and on the free-running indices, as pure
 * functions with no locking or allocation (the caller holds the queue's
 * lock).
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
 * be polled in any order: a record is free again only once its own CQE was
 * polled.  Since 1.5 the CQE of a tagged SRQ's WQE names the record itself
 * (struct orca_srq_recs).  The adapter copies a receive WQE whole when it
 * takes it, so a record whose CQE was polled may be reused at once.
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

/**
 * struct orca_srq_recs - a consumer's records of an SRQ's WQEs
 * @wrid: the wr_id of each record, as posted
 * @posted: bitmap of the records in use: WQEs posted whose CQE was not
 *	polled
 * @free: a tagged SRQ's records not in use, a stack (top at @nfree - 1)
 *	that starts with record 0 on top: freed records are taken again
 *	before new ones, so the records in use stay below the most WQEs
 *	ever outstanding at once (orca_srq_rec_span()); unused untagged
 * @nfree: entries of @free
 * @tagged: the SRQ was created with ORCA_CREATE_SRQ_F_TAG
 *
 * Each array has one entry per WQE of the SRQ's depth (1 << log_depth,
 * which the functions below take as a parameter, as the SRQ keeps it).
 *
 * A tagged SRQ (interface 1.5, ORCA_DEV_CAP_SRQ_TAG): a WQE carries the
 * number of its record as its tag, and its CQE reports the tag.  Any free
 * record will do, so a post succeeds while fewer than depth WQEs are
 * outstanding, whatever the order their CQEs were polled in; the ring has
 * room then, as every WQE the adapter has not taken is outstanding.
 *
 * An untagged SRQ (a 1.4 adapter, or a consumer that did not ask): the CQE
 * names the WQE by the low 16 bits of its index, and the record is the
 * slot of that index, which is not posted again before its CQE is polled.
 * So the WQEs outstanding all lie in [pi - depth, pi), where each slot has
 * one index: a post fails while the slot of pi waits for its CQE, even
 * with fewer than depth WQEs outstanding.
 */
struct orca_srq_recs {
	u64 *wrid;
	unsigned long *posted;
	u16 *free;
	u32 nfree;
	bool tagged;
};

/**
 * orca_srq_recs_init() - no WQE outstanding
 * @r: the records; @posted zeroed by the caller
 * @log_depth: records = 1 << @log_depth
 */
static inline void orca_srq_recs_init(struct orca_srq_recs *r, u32 log_depth)
{
	u32 n = 1U << log_depth;

	r->nfree = 0;
	if (r->tagged)
		while (n--)
			r->free[r->nfree++] = (u16)n;
}

/**
 * orca_srq_rec_post() - record the WQE posted at an SRQ's producer index
 * @r: the records
 * @log_depth: records = 1 << @log_depth
 * @pi: the SRQ's producer index, the new WQE's
 * @wr_id: its work request id
 * @tag: set to the tag the WQE carries (an untagged SRQ's adapter ignores
 *	it)
 *
 * Return: false, with nothing recorded, if no record is free: the SRQ has
 * depth WQEs outstanding, or (untagged) the slot of @pi still waits for
 * its CQE, polled later from another CQ.
 */
static inline bool orca_srq_rec_post(struct orca_srq_recs *r, u32 log_depth,
				     u32 pi, u64 wr_id, u16 *tag)
{
	u32 rec;

	if (r->tagged) {
		if (!r->nfree)
			return false;
		rec = r->free[--r->nfree];
	} else {
		rec = orca_wq_slot(pi, log_depth);
		if (test_bit(rec, r->posted))
			return false;
	}
	r->wrid[rec] = wr_id;
	__set_bit(rec, r->posted);
	*tag = (u16)rec;
	return true;
}

/**
 * orca_srq_rec_complete() - retire the SRQ WQE a receive CQE names
 * @r: the records
 * @log_depth: records = 1 << @log_depth
 * @pi: the SRQ's producer index
 * @wqe_idx: the CQE's WQE index: a tagged SRQ's tag
 * @wr_id: set to the wr_id the WQE was posted with
 *
 * Return: false for a WQE that is not outstanding: a tag beyond the depth,
 * an index outside the depth below @pi (untagged), or a record not in use
 * (a second CQE for one WQE).  The CQE is dropped.
 */
static inline bool orca_srq_rec_complete(struct orca_srq_recs *r,
					 u32 log_depth, u32 pi, u16 wqe_idx,
					 u64 *wr_id)
{
	u32 depth = 1U << log_depth, base, idx, rec;

	if (r->tagged) {
		rec = wqe_idx;
		if (rec >= depth)
			return false;
	} else {
		base = pi - depth;
		idx = orca_wqe_index(base, wqe_idx);
		if (idx - base >= depth)
			return false;
		rec = orca_wq_slot(idx, log_depth);
	}
	if (!test_bit(rec, r->posted))
		return false;
	__clear_bit(rec, r->posted);
	*wr_id = r->wrid[rec];
	if (r->tagged)
		r->free[r->nfree++] = (u16)rec;
	return true;
}

/**
 * orca_srq_rec_span() - the smallest depth the records in use fit in
 * @r: the records
 * @log_depth: records = 1 << @log_depth
 * @pi: the SRQ's producer index
 *
 * Tagged: one past the highest record in use.  Untagged:
 * how far below @pi the oldest WQE outstanding is; when CQEs were polled
 * in posting order that is their number, polled out of order a completed
 * WQE between outstanding ones still counts.  A resize to a depth below
 * it is refused, as two WQEs outstanding would share a record.
 *
 * Return: 0 with none outstanding.
 */
static inline u32 orca_srq_rec_span(const struct orca_srq_recs *r,
				    u32 log_depth, u32 pi)
{
	u32 n;

	for (n = 1U << log_depth; n; n--)
		if (test_bit(r->tagged ? n - 1 :
			     orca_wq_slot(pi - n, log_depth), r->posted))
			return n;
	return 0;
}

/**
 * orca_srq_recs_move() - an SRQ's records into arrays of another depth
 * @r: the records
 * @log_depth: records = 1 << @log_depth
 * @to: the new depth's records: @posted zeroed, @tagged as @r's
 * @new_log_depth: the new depth, at least orca_srq_rec_span() of @r
 * @pi: the SRQ's producer index
 *
 * A tagged WQE keeps its tag, and so its record.  An untagged WQE keeps its
 * index, so its CQE (which names the index) finds its record in the slot of
 * that index in the new depth, as the adapter moves the WQEs it has not
 * taken to their indices' slots in the new ring.
 */
static inline void orca_srq_recs_move(const struct orca_srq_recs *r,
				      u32 log_depth, struct orca_srq_recs *to,
				      u32 new_log_depth, u32 pi)
{
	u32 n, from, rec;

	for (n = 1U << log_depth; n; n--) {
		from = r->tagged ? n - 1 : orca_wq_slot(pi - n, log_depth);
		if (!test_bit(from, r->posted))
			continue;
		rec = r->tagged ? from : orca_wq_slot(pi - n, new_log_depth);
		to->wrid[rec] = r->wrid[from];
		__set_bit(rec, to->posted);
	}
	to->nfree = 0;
	if (to->tagged)
		for (n = 1U << new_log_depth; n; n--)
			if (!test_bit(n - 1, to->posted))
				to->free[to->nfree++] = (u16)(n - 1);
}

#endif /* _ORCA_WQE_TRACK_H_ */

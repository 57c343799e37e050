// SPDX-License-Identifier: GPL-2.0
/*
 * Completion queues on the data path: writing CQEs with the phase protocol,
 * detecting overrun from the driver's consumer index, CQ arming (the
 * doorbell record's arm word, a COMP event at most once per arm) and event
 * moderation (MODIFY_CQ), as the "CQ arming" and "CQ event moderation"
 * sections of the programming interface's data-path.rst specify.
 *
 * Moderation holds an armed CQ's event back until mod_count matching CQEs
 * have accumulated or mod_period microseconds have passed since the first
 * of them.  An event held back is never lost: the period's timer (a heap
 * of CQ deadlines that roce_run() fires and sleeps on) posts it when no
 * more CQEs come, a new arm restarts the count, and MODIFY_CQ and the
 * CQ's destruction settle it at once.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>
#include <string.h>

#include "roce_priv.h"

#define container_of(p, type, member) \
	((type *)((char *)(p) - offsetof(type, member)))

static bool cq_read_rec(struct orca_engine *eng, struct emu_cq *cq,
			uint32_t *ci, uint32_t *arm)
{
	struct orca_cq_db_rec *rec = engine_dma(eng, cq->db_rec, sizeof(*rec));

	if (!rec)
		return false;
	*ci = le32toh(atomic_load_explicit((_Atomic __le32 *)&rec->ci,
					   memory_order_acquire));
	*arm = le32toh(atomic_load_explicit((_Atomic __le32 *)&rec->arm,
					    memory_order_acquire));
	return true;
}

static bool cq_armed_for(const struct emu_cq *cq, uint32_t arm, bool sol)
{
	if (FIELD_GET(ORCA_CQ_ARM_SEQ, arm) == cq->arm_fired)
		return false;
	return (arm & ORCA_CQ_ARM_ANY) || ((arm & ORCA_CQ_ARM_SOLICITED) && sol);
}

static void cq_fire_seq(struct orca_engine *eng, struct emu_cq *cq,
			uint32_t seq)
{
	cq->arm_fired = seq;
	cq->mod_pending = 0;
	timer_heap_del(&eng->roce->cq_timers, &cq->mod_timer);
	engine_eq_post(eng, cq->eqn, ORCA_EQE_COMP, cq->cqn, 0);
}

/* Both or neither: with either 0 a CQE could wait forever, or not at all. */
static bool cq_moderated(const struct emu_cq *cq)
{
	return cq->mod_count && cq->mod_period;
}

/*
 * Matching CQEs the driver has not polled when the device first sees an
 * arm: they count toward it, as if they had come after it.  At least one,
 * since the caller saw one (a ci the device never reached is bogus and
 * counts as nothing more).
 */
static uint32_t cq_unpolled(const struct emu_cq *cq, uint32_t arm, uint32_t ci)
{
	uint32_t n = cq->pi - ci;

	if (!(arm & ORCA_CQ_ARM_ANY) || n > (1u << cq->log_depth) || !n)
		return 1;
	return n;
}

/*
 * The CQ is armed (@arm) and has a matching CQE: a new one (@fresh), or one
 * already written when the driver rang ORCA_UAR_CQ_DB.  Without moderation
 * the event goes at once.  With it, the CQEs are counted for the arm (the
 * count restarts with each arm the device sees), the first starts the
 * period's timer, and the event goes when the count is reached.
 */
static void cq_event(struct orca_engine *eng, struct emu_cq *cq, uint32_t arm,
		     uint32_t ci, bool fresh)
{
	uint32_t seq = FIELD_GET(ORCA_CQ_ARM_SEQ, arm);

	if (!cq_moderated(cq)) {
		cq_fire_seq(eng, cq, seq);
		return;
	}
	if (seq != cq->mod_seq) {
		cq->mod_seq = seq;
		cq->mod_pending = cq_unpolled(cq, arm, ci);
		/* Room was reserved when moderation was turned on. */
		timer_heap_set(&eng->roce->cq_timers, &cq->mod_timer,
			       now_us() + cq->mod_period);
	} else if (fresh) {
		cq->mod_pending++;
	} else {
		/* A doorbell for an arm whose CQEs are counted already. */
		return;
	}
	if (cq->mod_pending >= cq->mod_count)
		cq_fire_seq(eng, cq, seq);
}

/*
 * Posts the event the CQ holds back, if any; true if it did.  Counted CQEs
 * mean the arm they were counted for has not fired.  The arm word is read
 * again: if the driver has armed anew meanwhile (without a doorbell, so the
 * device has not seen it), the one event answers both arms, as without
 * moderation, so that a CQ never has more than one event per arm it was
 * given before the driver saw the last.  Also after an overrun: the
 * counted CQEs are in the ring.
 */
static bool cq_fire_pending(struct orca_engine *eng, struct emu_cq *cq)
{
	uint32_t ci, arm, seq;

	if (!cq->mod_pending)
		return false;
	timer_heap_del(&eng->roce->cq_timers, &cq->mod_timer);
	seq = cq->mod_seq;
	if (cq_read_rec(eng, cq, &ci, &arm) &&
	    FIELD_GET(ORCA_CQ_ARM_SEQ, arm) != cq->arm_fired &&
	    (arm & (ORCA_CQ_ARM_ANY | ORCA_CQ_ARM_SOLICITED)))
		seq = FIELD_GET(ORCA_CQ_ARM_SEQ, arm);
	cq_fire_seq(eng, cq, seq);
	return true;
}

int roce_cq_set_moderation(struct orca_engine *eng, struct emu_cq *cq,
			   uint16_t count, uint16_t period)
{
	struct roce_dev *dev = eng->roce;
	bool was = cq_moderated(cq);
	bool will = count && period;

	if (will && !was) {
		if (timer_heap_reserve(&dev->cq_timers, dev->cq_mod + 1))
			return -ENOMEM;
		dev->cq_mod++;
	} else if (was && !will) {
		dev->cq_mod--;
	}
	/*
	 * An event held back under the old values goes now rather than
	 * under rules it was not counted by.
	 */
	cq_fire_pending(eng, cq);
	cq->mod_count = count;
	cq->mod_period = period;
	return 0;
}

void roce_cq_forget(struct orca_engine *eng, struct emu_cq *cq)
{
	if (!eng->roce)
		return;
	timer_heap_del(&eng->roce->cq_timers, &cq->mod_timer);
	if (cq_moderated(cq))
		eng->roce->cq_mod--;
	cq->mod_count = cq->mod_period = 0;
	cq->mod_pending = 0;
}

uint64_t roce_cq_deadline(const struct roce_dev *dev)
{
	const struct timer_node *t = timer_heap_first(&dev->cq_timers);

	return t ? t->due : 0;
}

void roce_cq_timers(struct orca_engine *eng, uint64_t now)
{
	struct roce_dev *dev = eng->roce;
	struct timer_node *t;
	struct emu_cq *cq;

	while ((t = timer_heap_first(&dev->cq_timers)) && t->due <= now) {
		cq = container_of(t, struct emu_cq, mod_timer);
		timer_heap_del(&dev->cq_timers, t);
		if (cq_fire_pending(eng, cq))
			dev->st.cq_mod_timer_events++;
	}
}

int roce_cq_post(struct orca_engine *eng, uint32_t cqn, struct orca_cqe *cqe,
		 bool solicited)
{
	struct emu_cq *cq = objtab_get(&eng->cqs, cqn);
	uint32_t depth, ci, arm;
	struct orca_cqe *slot;
	uint8_t flags;

	if (!cq)
		return -ENOSPC;
	if (cq->overrun) {
		cq->overruns++;
		return -ENOSPC;
	}
	depth = 1u << cq->log_depth;
	if (!cq_read_rec(eng, cq, &ci, &arm) || cq->pi - ci >= depth)
		goto overrun;
	slot = roce_queue_entry(eng, &cq->buf, 0, cq->buf.npages, cq->pi,
				cq->log_depth, sizeof(*slot));
	if (!slot)
		goto overrun;

	flags = cqe->flags & ~ORCA_CQE_F_PHASE;
	if (!((cq->pi >> cq->log_depth) & 1))
		flags |= ORCA_CQE_F_PHASE;
	memcpy(slot, cqe, offsetof(struct orca_cqe, flags));
	if (atomic_load_explicit(&eng->wrid_lie, memory_order_relaxed)) {
		slot->wr_id_lo = ~cqe->wr_id_lo;
		slot->wr_id_hi = ~cqe->wr_id_hi;
		atomic_fetch_add_explicit(&eng->wrid_lies, 1,
					  memory_order_relaxed);
	}
	atomic_store_explicit((_Atomic uint8_t *)&slot->flags, flags,
			      memory_order_release);
	if (solicited || cqe->status != ORCA_CQE_ST_SUCCESS) {
		cq->sol_idx = cq->pi;
		cq->sol_valid = true;
	}
	cq->pi++;

	/* The CQE is visible before we look at the arm word (see spec). */
	atomic_thread_fence(memory_order_seq_cst);
	if (cq_read_rec(eng, cq, &ci, &arm) &&
	    cq_armed_for(cq, arm, solicited ||
			 cqe->status != ORCA_CQE_ST_SUCCESS))
		cq_event(eng, cq, arm, ci, true);
	return 0;

overrun:
	cq->overrun = true;
	cq->overruns++;
	eng->roce->st.cq_overruns++;
	engine_eq_post(eng, 0, ORCA_EQE_CQ_ERR, cqn, 0);
	return -ENOSPC;
}

/* ORCA_UAR_CQ_DB: the arm word changed; a matching CQE may be waiting. */
void roce_cq_doorbell(struct orca_engine *eng, uint32_t cqn)
{
	struct emu_cq *cq = objtab_get(&eng->cqs, cqn);
	uint32_t ci, arm;
	bool any_new, sol_new;

	if (!cq || !cq_read_rec(eng, cq, &ci, &arm))
		return;
	any_new = cq->pi != ci && cq->pi - ci <= (1u << cq->log_depth);
	sol_new = cq->sol_valid && cq->sol_idx - ci < cq->pi - ci;
	if (FIELD_GET(ORCA_CQ_ARM_SEQ, arm) == cq->arm_fired)
		return;
	if (((arm & ORCA_CQ_ARM_ANY) && any_new) ||
	    ((arm & ORCA_CQ_ARM_SOLICITED) && sol_new))
		cq_event(eng, cq, arm, ci, false);
}

/*
 * "garbage-cqe": CQEs a correct device never writes, with a valid phase:
 * QPNs outside the QP space (0 and 2^24 - 1), and for a QP that really
 * completes on this CQ an unknown opcode and status with an out-of-range
 * WQE index.  Written only while the CQ has room for them and half its
 * depth more, so they never overrun it.
 */
struct cq_garbage_ctx {
	struct orca_engine *eng;
	uint32_t cqn;
	uint32_t qpn;			/* a QP bound to the CQ, or 0 */
};

static void cq_find_qp(uint32_t qpn, void *obj, void *arg)
{
	struct cq_garbage_ctx *g = arg;
	struct emu_qp *qp = obj;

	if (!g->qpn && (qp->send_cqn == g->cqn || qp->recv_cqn == g->cqn))
		g->qpn = qpn;
}

static void cq_garbage_one(uint32_t cqn, void *obj, void *arg)
{
	struct orca_engine *eng = arg;
	struct cq_garbage_ctx g = { .eng = eng, .cqn = cqn };
	struct emu_cq *cq = obj;
	struct orca_cqe cqe[3];
	uint32_t ci, arm, n, i, posted = 0;

	objtab_for_each(&eng->qps, cq_find_qp, &g);
	memset(cqe, 0, sizeof(cqe));
	cqe[0].qpn = htole32(0xffffff);
	cqe[0].opcode = ORCA_CQE_SEND;
	cqe[0].wr_id_lo = htole32(0xdeadbeef);
	cqe[1].qpn = htole32(0);
	cqe[1].opcode = ORCA_CQE_RECV;
	cqe[1].byte_len = htole32(0xffffffff);
	cqe[2].qpn = htole32(g.qpn);
	cqe[2].opcode = 0x7f;
	cqe[2].status = 0xee;
	cqe[2].wqe_idx = htole16(0xffff);
	cqe[2].byte_len = htole32(0xffffffff);
	n = g.qpn ? 3 : 2;
	if (cq->overrun || !cq_read_rec(eng, cq, &ci, &arm) ||
	    cq->pi - ci + n > (1u << cq->log_depth) / 2)
		return;
	for (i = 0; i < n; i++) {
		memset(cqe[i].rsvd, 0xff, sizeof(cqe[i].rsvd));
		if (roce_cq_post(eng, cqn, &cqe[i], false))
			break;
		posted++;
	}
	eng_log("garbage-cqe: %u entries on CQ %u", posted, cqn);
}

void roce_cq_post_garbage(struct orca_engine *eng)
{
	objtab_for_each(&eng->cqs, cq_garbage_one, eng);
}

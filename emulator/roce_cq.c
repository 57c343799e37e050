// SPDX-License-Identifier: GPL-2.0
/*
 * Completion queues on the data path: writing CQEs with the phase protocol,
 * detecting overrun from the driver's consumer index, and CQ arming (the
 * doorbell record's arm word, a COMP event at most once per arm), as the
 * programming interface's "CQ arming" section specifies.
 */
#include <errno.h>
#include <stdatomic.h>
#include <string.h>

#include "roce.h"
#include "eq.h"

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

static void cq_fire(struct orca_engine *eng, struct emu_cq *cq, uint32_t arm)
{
	cq->arm_fired = FIELD_GET(ORCA_CQ_ARM_SEQ, arm);
	eq_post(eng, cq->eqn, ORCA_EQE_COMP, cq->cqn, 0);
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
		cq_fire(eng, cq, arm);
	return 0;

overrun:
	cq->overrun = true;
	cq->overruns++;
	eng->roce->st.cq_overruns++;
	eq_post(eng, 0, ORCA_EQE_CQ_ERR, cqn, 0);
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
		cq_fire(eng, cq, arm);
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

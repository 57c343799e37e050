// SPDX-License-Identifier: GPL-2.0
/*
 * The IB queue pair state machine: which (current, next) state pairs
 * MODIFY_QP accepts and, per QP type, which attributes each transition
 * requires and which it also allows.  The table follows the IB spec as the
 * kernel encodes it in ib_modify_qp_is_ok() (drivers/infiniband/core/
 * verbs.c), restricted to RC, UC, UD, GSI and (1.6) the XRC initiator and
 * target (T_XI, T_XT); attributes ORCA does not support
 * (alternate path, path migration) are refused before this table is
 * consulted.  A modify without ORCA_QP_ATTR_STATE is the transition from the
 * current state to itself.
 */
#include <endian.h>
#include <stdatomic.h>

#include "engine_priv.h"
#include "roce/roce.h"

enum { T_RC, T_UC, T_UD, T_GSI, T_XI, T_XT, T_NUM };

struct qp_transition {
	bool valid;
	uint32_t req[T_NUM];
	uint32_t opt[T_NUM];
};

#define A(x)	ORCA_QP_ATTR_##x

#define NSTATES	(ORCA_QPS_ERR + 1)

static const struct qp_transition qp_table[NSTATES][NSTATES] = {
	[ORCA_QPS_RESET] = {
		[ORCA_QPS_RESET] = { .valid = true },
		[ORCA_QPS_INIT] = {
			.valid = true,
			.req = {
				[T_RC] = A(PKEY_INDEX) | A(PORT) |
					 A(ACCESS_FLAGS),
				[T_UC] = A(PKEY_INDEX) | A(PORT) |
					 A(ACCESS_FLAGS),
				[T_UD] = A(PKEY_INDEX) | A(PORT) | A(QKEY),
				[T_GSI] = A(PKEY_INDEX) | A(QKEY),
				[T_XI] = A(PKEY_INDEX) | A(PORT) |
					 A(ACCESS_FLAGS),
				[T_XT] = A(PKEY_INDEX) | A(PORT) |
					 A(ACCESS_FLAGS),
			},
		},
	},
	[ORCA_QPS_INIT] = {
		[ORCA_QPS_RESET] = { .valid = true },
		[ORCA_QPS_ERR] = { .valid = true },
		[ORCA_QPS_INIT] = {
			.valid = true,
			.opt = {
				[T_RC] = A(PKEY_INDEX) | A(PORT) |
					 A(ACCESS_FLAGS),
				[T_UC] = A(PKEY_INDEX) | A(PORT) |
					 A(ACCESS_FLAGS),
				[T_UD] = A(PKEY_INDEX) | A(PORT) | A(QKEY),
				[T_GSI] = A(PKEY_INDEX) | A(QKEY),
				[T_XI] = A(PKEY_INDEX) | A(PORT) |
					 A(ACCESS_FLAGS),
				[T_XT] = A(PKEY_INDEX) | A(PORT) |
					 A(ACCESS_FLAGS),
			},
		},
		[ORCA_QPS_RTR] = {
			.valid = true,
			.req = {
				[T_RC] = A(AV) | A(PATH_MTU) | A(DEST_QPN) |
					 A(RQ_PSN) | A(MAX_DEST_RD_ATOMIC) |
					 A(MIN_RNR_TIMER),
				[T_UC] = A(AV) | A(PATH_MTU) | A(DEST_QPN) |
					 A(RQ_PSN),
				[T_XI] = A(AV) | A(PATH_MTU) | A(DEST_QPN) |
					 A(RQ_PSN),
				[T_XT] = A(AV) | A(PATH_MTU) | A(DEST_QPN) |
					 A(RQ_PSN) | A(MAX_DEST_RD_ATOMIC) |
					 A(MIN_RNR_TIMER),
			},
			.opt = {
				[T_RC] = A(ALT_PATH) | A(ACCESS_FLAGS) |
					 A(PKEY_INDEX),
				[T_UC] = A(ALT_PATH) | A(ACCESS_FLAGS) |
					 A(PKEY_INDEX),
				[T_UD] = A(PKEY_INDEX) | A(QKEY),
				[T_GSI] = A(PKEY_INDEX) | A(QKEY),
				[T_XI] = A(ALT_PATH) | A(ACCESS_FLAGS) |
					 A(PKEY_INDEX),
				[T_XT] = A(ALT_PATH) | A(ACCESS_FLAGS) |
					 A(PKEY_INDEX),
			},
		},
	},
	[ORCA_QPS_RTR] = {
		[ORCA_QPS_RESET] = { .valid = true },
		[ORCA_QPS_ERR] = { .valid = true },
		[ORCA_QPS_RTS] = {
			.valid = true,
			.req = {
				[T_RC] = A(TIMEOUT) | A(RETRY_CNT) |
					 A(RNR_RETRY) | A(SQ_PSN) |
					 A(MAX_QP_RD_ATOMIC),
				[T_UC] = A(SQ_PSN),
				[T_UD] = A(SQ_PSN),
				[T_GSI] = A(SQ_PSN),
				[T_XI] = A(TIMEOUT) | A(RETRY_CNT) |
					 A(RNR_RETRY) | A(SQ_PSN) |
					 A(MAX_QP_RD_ATOMIC),
				[T_XT] = A(TIMEOUT) | A(SQ_PSN),
			},
			.opt = {
				[T_RC] = A(CUR_STATE) | A(ALT_PATH) |
					 A(ACCESS_FLAGS) | A(MIN_RNR_TIMER) |
					 A(PATH_MIG_STATE),
				[T_UC] = A(CUR_STATE) | A(ALT_PATH) |
					 A(ACCESS_FLAGS) | A(PATH_MIG_STATE),
				[T_UD] = A(CUR_STATE) | A(QKEY),
				[T_GSI] = A(CUR_STATE) | A(QKEY),
				[T_XI] = A(CUR_STATE) | A(ALT_PATH) |
					 A(ACCESS_FLAGS) | A(PATH_MIG_STATE),
				[T_XT] = A(CUR_STATE) | A(ALT_PATH) |
					 A(ACCESS_FLAGS) | A(MIN_RNR_TIMER) |
					 A(PATH_MIG_STATE),
			},
		},
	},
	[ORCA_QPS_RTS] = {
		[ORCA_QPS_RESET] = { .valid = true },
		[ORCA_QPS_ERR] = { .valid = true },
		[ORCA_QPS_RTS] = {
			.valid = true,
			.opt = {
				[T_RC] = A(CUR_STATE) | A(ACCESS_FLAGS) |
					 A(ALT_PATH) | A(PATH_MIG_STATE) |
					 A(MIN_RNR_TIMER),
				[T_UC] = A(CUR_STATE) | A(ACCESS_FLAGS) |
					 A(ALT_PATH) | A(PATH_MIG_STATE),
				[T_UD] = A(CUR_STATE) | A(QKEY),
				[T_GSI] = A(CUR_STATE) | A(QKEY),
				[T_XI] = A(CUR_STATE) | A(ACCESS_FLAGS) |
					 A(ALT_PATH) | A(PATH_MIG_STATE),
				[T_XT] = A(CUR_STATE) | A(ACCESS_FLAGS) |
					 A(ALT_PATH) | A(PATH_MIG_STATE) |
					 A(MIN_RNR_TIMER),
			},
		},
		[ORCA_QPS_SQD] = {
			.valid = true,
			.opt = {
				[T_RC] = A(EN_SQD_ASYNC),
				[T_UC] = A(EN_SQD_ASYNC),
				[T_UD] = A(EN_SQD_ASYNC),
				[T_GSI] = A(EN_SQD_ASYNC),
				[T_XI] = A(EN_SQD_ASYNC),
				[T_XT] = A(EN_SQD_ASYNC),
			},
		},
	},
	[ORCA_QPS_SQD] = {
		[ORCA_QPS_RESET] = { .valid = true },
		[ORCA_QPS_ERR] = { .valid = true },
		[ORCA_QPS_RTS] = {
			.valid = true,
			.opt = {
				[T_RC] = A(CUR_STATE) | A(ALT_PATH) |
					 A(ACCESS_FLAGS) | A(MIN_RNR_TIMER) |
					 A(PATH_MIG_STATE),
				[T_UC] = A(CUR_STATE) | A(ALT_PATH) |
					 A(ACCESS_FLAGS) | A(PATH_MIG_STATE),
				[T_UD] = A(CUR_STATE) | A(QKEY),
				[T_GSI] = A(CUR_STATE) | A(QKEY),
				[T_XI] = A(CUR_STATE) | A(ALT_PATH) |
					 A(ACCESS_FLAGS) | A(PATH_MIG_STATE),
				[T_XT] = A(CUR_STATE) | A(ALT_PATH) |
					 A(ACCESS_FLAGS) | A(MIN_RNR_TIMER) |
					 A(PATH_MIG_STATE),
			},
		},
		[ORCA_QPS_SQD] = {
			.valid = true,
			.opt = {
				[T_RC] = A(PORT) | A(AV) | A(TIMEOUT) |
					 A(RETRY_CNT) | A(RNR_RETRY) |
					 A(MAX_QP_RD_ATOMIC) |
					 A(MAX_DEST_RD_ATOMIC) | A(ALT_PATH) |
					 A(ACCESS_FLAGS) | A(PKEY_INDEX) |
					 A(MIN_RNR_TIMER) | A(PATH_MIG_STATE),
				[T_UC] = A(AV) | A(ALT_PATH) |
					 A(ACCESS_FLAGS) | A(PKEY_INDEX) |
					 A(PATH_MIG_STATE),
				[T_UD] = A(PKEY_INDEX) | A(QKEY),
				[T_GSI] = A(PKEY_INDEX) | A(QKEY),
				[T_XI] = A(PORT) | A(AV) | A(TIMEOUT) |
					 A(RETRY_CNT) | A(RNR_RETRY) |
					 A(MAX_QP_RD_ATOMIC) | A(ALT_PATH) |
					 A(ACCESS_FLAGS) | A(PKEY_INDEX) |
					 A(PATH_MIG_STATE),
				[T_XT] = A(PORT) | A(AV) | A(TIMEOUT) |
					 A(MAX_DEST_RD_ATOMIC) | A(ALT_PATH) |
					 A(ACCESS_FLAGS) | A(PKEY_INDEX) |
					 A(MIN_RNR_TIMER) | A(PATH_MIG_STATE),
			},
		},
	},
	[ORCA_QPS_SQE] = {
		[ORCA_QPS_RESET] = { .valid = true },
		[ORCA_QPS_ERR] = { .valid = true },
		[ORCA_QPS_RTS] = {
			.valid = true,
			.opt = {
				[T_UC] = A(CUR_STATE) | A(ACCESS_FLAGS),
				[T_UD] = A(CUR_STATE) | A(QKEY),
				[T_GSI] = A(CUR_STATE) | A(QKEY),
			},
		},
	},
	[ORCA_QPS_ERR] = {
		[ORCA_QPS_RESET] = { .valid = true },
		[ORCA_QPS_ERR] = { .valid = true },
	},
};

#undef A

static int qp_type_index(uint8_t type)
{
	switch (type) {
	case ORCA_QPT_RC:
		return T_RC;
	case ORCA_QPT_UC:
		return T_UC;
	case ORCA_QPT_UD:
		return T_UD;
	case ORCA_QPT_GSI:
		return T_GSI;
	case ORCA_QPT_XRC_INI:
		return T_XI;
	case ORCA_QPT_XRC_TGT:
		return T_XT;
	}
	return -1;
}

/*
 * Returns OK, BAD_STATE for a transition the state machine does not have,
 * or BAD_PARAM when a required attribute is missing or one outside
 * required + optional is present.
 */
int engine_qp_check_transition(uint8_t type, uint8_t cur, uint8_t next,
			       uint32_t mask)
{
	const struct qp_transition *t;
	int ti = qp_type_index(type);
	uint32_t req, opt;

	if (ti < 0 || cur > ORCA_QPS_ERR || next > ORCA_QPS_ERR)
		return ORCA_CMD_ST_BAD_PARAM;
	t = &qp_table[cur][next];
	if (!t->valid)
		return ORCA_CMD_ST_BAD_STATE;
	req = t->req[ti];
	opt = t->opt[ti];
	if ((mask & req) != req)
		return ORCA_CMD_ST_BAD_PARAM;
	if (mask & ~(req | opt | ORCA_QP_ATTR_STATE))
		return ORCA_CMD_ST_BAD_PARAM;
	return ORCA_CMD_ST_OK;
}

/*
 * SQ event index 0: the driver's first post after creation or RESET (old
 * 0, new >= 1) then rings the UAR.  The RQ's is one behind the producer
 * index 0, which no post passes (but the one that wraps 2^32): the engine
 * reads rq_pi when a request arrives and needs an RQ doorbell only in ERR,
 * where take_rwqe() moves the index up to the flushed WQEs.
 */
void engine_qp_reset_event_idx(struct orca_engine *eng, struct emu_qp *qp)
{
	struct orca_qp_db_rec *rec;

	/* An XRC target has no record: its db_rec is 0, not an address. */
	if (!engine_qp_has_sq(qp))
		return;
	rec = engine_dma(eng, qp->db_rec, sizeof(*rec));
	if (!rec)
		return;
	atomic_store_explicit((_Atomic __le32 *)&rec->sq_event_idx, 0,
			      memory_order_relaxed);
	atomic_store_explicit((_Atomic __le32 *)&rec->rq_event_idx,
			      htole32(ORCA_EVENT_IDX_BEHIND),
			      memory_order_release);
}

/* Side effects of entering a state (attributes are already applied). */
void engine_qp_enter_state(struct orca_engine *eng, struct emu_qp *qp,
			   uint8_t next)
{
	uint8_t cur = qp->state;

	qp->state = next;
	switch (next) {
	case ORCA_QPS_RESET:
		/* A QP back in RESET starts its queues from scratch. */
		qp->sq_ci = 0;
		qp->rq_ci = 0;
		qp->flush_pending = false;
		engine_qp_reset_event_idx(eng, qp);
		break;
	case ORCA_QPS_ERR:
		/*
		 * Outstanding WQEs complete with WR_FLUSH_ERR: the transport
		 * does that in roce_qp_state_change() below.  A QP on an SRQ
		 * takes no WQE from it from now on: its last one is taken.
		 */
		qp->flush_pending = true;
		if (cur != ORCA_QPS_ERR && (qp->flags & ORCA_QP_F_USE_SRQ))
			engine_eq_post(eng, 0, ORCA_EQE_QP_LAST_WQE,
				       qp->qpn, 0);
		break;
	case ORCA_QPS_SQD:
		/*
		 * The transport posts SQ_DRAINED (if the driver asked) once
		 * the WQEs in flight have completed: see roce_qp.c.
		 */
		break;
	default:
		break;
	}
	/* The transport flushes on ERR and forgets its state on RESET. */
	roce_qp_state_change(eng, qp, cur, next);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * On-demand paging in the transport (1.10, data-path.rst "On-demand
 * paging").  A copy that finds no translation in an on-demand MR's page
 * (roce_mr.c) leaves the miss in dev->odp_miss and the step returns
 * ROCE_ST_ODP_MISS; here the step's QP posts a page fault (engine/odp.c)
 * and stops, and the fault's end lets it go on.
 *
 * The requester stops at the packet whose gather missed: nothing of it is
 * sent and no PSN is used, so resuming builds that very packet again (a
 * new miss is a new fault).  Packets in flight and their ACKs go on, and
 * earlier WQEs complete; later ones wait behind it, so nothing is
 * reordered.  A fault that ends unresolved fails that WQE as a bad lkey
 * would (LOC_PROT_ERR).  A READ response or atomic result that cannot be
 * placed is dropped, and asked for again on resume (REQ_RESP).
 *
 * The responder (RC, XRC) RNR-NAKs the PSN that missed, keeping what it
 * had of the message (roce_resp.c), and posts one fault per QP; the peer's
 * retries are NAKed until it is resolved.  After an unresolved one the
 * retry's miss is the access error it would have been.
 */
#include <endian.h>

#include "roce_priv.h"

#define ODP_MAX_PREFETCH	(16u << 20)	/* the record's hint, at most */

static void waiters_add(struct roce_dev *dev, struct roce_qp *rq)
{
	if (!dev->odp_waiters_tail)
		dev->odp_waiters_tail = &dev->odp_waiters;
	rq->odp_wait_next = NULL;
	*dev->odp_waiters_tail = rq;
	dev->odp_waiters_tail = &rq->odp_wait_next;
}

static void waiters_del(struct roce_dev *dev, struct roce_qp *rq)
{
	struct roce_qp **pp = &dev->odp_waiters;

	while (*pp && *pp != rq)
		pp = &(*pp)->odp_wait_next;
	if (!*pp)
		return;
	*pp = rq->odp_wait_next;
	if (dev->odp_waiters_tail == &rq->odp_wait_next)
		dev->odp_waiters_tail = pp;
	rq->odp_wait_next = NULL;
}

static void go_on(struct roce_qp *rq)
{
	/* A response was dropped: ask for it again (the READ, the atomic). */
	if (rq->odp_req == ORCA_PF_REQ_RESP)
		roce_req_rewind(rq, rq->odp_req_psn);
	rq->odp_req = 0;
	rq->odp_req_no_slot = false;
	rq->sq_kick = true;
	roce_sched_qp(rq);
}

/* The fault record of the device's last miss, for @rq's step. */
static struct orca_page_fault miss_record(struct roce_qp *rq, uint8_t kind,
					  uint8_t flags, uint32_t wqe_idx,
					  uint32_t psn)
{
	const struct roce_odp_miss *m = &rq->dev->odp_miss;

	return (struct orca_page_fault){
		.kind = kind,
		.flags = flags | (m->write ? ORCA_PF_F_WRITE : 0),
		.qpn = htole32(rq->qp->qpn),
		.mkey = htole32(m->mkey),
		.va = htole64(m->va),
		.length = htole32(m->len),
		.prefetch = htole32(m->prefetch < ODP_MAX_PREFETCH ?
				    m->prefetch : ODP_MAX_PREFETCH),
		.wqe_idx = htole32(wqe_idx),
		.psn = htole32(psn),
	};
}

bool roce_odp_stop_req(struct roce_qp *rq, uint8_t kind, uint32_t wqe_idx)
{
	struct roce_dev *dev = rq->dev;
	struct orca_page_fault rec = miss_record(rq, kind, 0, wqe_idx, 0);
	int64_t token = engine_odp_post(dev->eng, &rec);

	if (token < 0)
		return false;
	rq->odp_req = kind;
	rq->odp_req_wqe = wqe_idx;
	if (!token) {
		/* No slot: wait stopped for one (odp_resume, qpn 0). */
		rq->odp_req_no_slot = true;
		waiters_add(dev, rq);
		dev->st.odp_slot_waits++;
	}
	return true;
}

bool roce_odp_stop_resp(struct roce_qp *rq, uint8_t kind, uint32_t psn,
			uint32_t wqe_idx)
{
	struct roce_dev *dev = rq->dev;
	struct orca_page_fault rec = miss_record(rq, kind, ORCA_PF_F_RNR,
						 wqe_idx, psn);
	int64_t token;

	if (rq->odp_resp_failed) {
		rq->odp_resp_failed = false;
		return false;
	}
	/* One fault per responder: its retries are NAKed meanwhile. */
	if (!rq->odp_resp) {
		token = engine_odp_post(dev->eng, &rec);
		if (token < 0)
			return false;
		/* No slot free: NAKed without a fault, tried again later. */
		if (token)
			rq->odp_resp = kind;
		else
			dev->st.odp_slot_waits++;
	}
	dev->st.odp_fault_rnr_naks++;
	return true;
}

/* The fault of @rq's requester ended; @fail: its WQE fails. */
static void resume_req(struct roce_qp *rq, bool fail)
{
	if (!rq->odp_req || rq->odp_req_no_slot)
		return;		/* cancelled meanwhile */
	if (fail && rq->odp_req == ORCA_PF_REQ_RESP) {
		rq->odp_req = 0;
		rq->dev->st.odp_fails++;
		roce_comp_fail_at(rq, rq->odp_req_psn,
				  ORCA_CQE_ST_LOC_PROT_ERR);
		return;
	}
	if (fail) {
		for (uint32_t i = rq->sq_head; i != rq->sq_fetched; i++) {
			struct roce_swqe *w = swqe(rq, i);

			if (w->idx == rq->odp_req_wqe) {
				w->odp_failed = true;
				break;
			}
		}
		rq->dev->st.odp_fails++;
	} else {
		rq->dev->st.odp_resumes++;
	}
	go_on(rq);
}

void roce_odp_resume(struct orca_engine *eng, uint32_t qpn, uint8_t kind,
		     bool fail)
{
	struct roce_dev *dev = eng->roce;
	struct roce_qp *rq, *next;
	struct emu_qp *qp;

	if (!qpn) {
		/*
		 * A slot came free: every waiter tries again, and those that
		 * miss again and find none queue up anew.
		 */
		rq = dev->odp_waiters;
		dev->odp_waiters = NULL;
		dev->odp_waiters_tail = &dev->odp_waiters;
		for (; rq; rq = next) {
			next = rq->odp_wait_next;
			rq->odp_wait_next = NULL;
			go_on(rq);
		}
		return;
	}
	qp = engine_qp_lookup(eng, qpn);
	rq = qp ? qp->roce : NULL;
	if (!rq)
		return;
	switch (kind) {
	case ORCA_PF_REQ_DATA:
	case ORCA_PF_REQ_RESP:
		resume_req(rq, fail);
		break;
	default:
		/*
		 * The responder: the peer retries when its RNR timer runs
		 * out; an unresolved fault makes that retry's miss an error.
		 */
		if (rq->odp_resp != kind)
			return;		/* cancelled meanwhile */
		rq->odp_resp = 0;
		rq->odp_resp_failed = fail;
		if (fail)
			dev->st.odp_fails++;
		else
			dev->st.odp_resumes++;
		break;
	}
}

void roce_odp_forget(struct roce_qp *rq)
{
	waiters_del(rq->dev, rq);
	rq->odp_req = 0;
	rq->odp_req_no_slot = false;
	rq->odp_resp = 0;
	rq->odp_resp_failed = false;
	engine_odp_cancel_qp(rq->dev->eng, rq->qp->qpn);
}

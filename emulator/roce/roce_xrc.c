// SPDX-License-Identifier: GPL-2.0
/*
 * The XRC target's side of the XRCETH (1.6; IBA 1.2 Annex A14): every
 * request an XRC target QP takes names, in its XRCETH, the XRC SRQ whose
 * receive WQEs, CQ and PD serve it.  The SRQ must exist, be an XRC SRQ
 * and belong to the target's domain; the packets of one message must all
 * name the SRQ its first packet named.  A request that fails any of this
 * is NAKed Invalid Request and the target goes to ERR (roce_resp.c); the
 * wire cannot name what the domain does not hold.
 *
 * And the other way round: an XRC SRQ going away while a target holds one
 * of its WQEs for a message in progress (DESTROY_SRQ does not wait for
 * targets, which hold no reference) takes that WQE with it, unreported;
 * the message's next packet names an SRQ that is no more, and is NAKed.
 */
#include "roce_priv.h"

struct emu_srq *roce_xrc_srq(struct roce_qp *rq, const struct roce_pkt *pkt)
{
	struct emu_srq *srq = objtab_get(&rq->dev->eng->srqs, pkt->xrc_srqn);

	if (!srq || !srq->xrc || srq->xrcdn != rq->qp->xrcdn)
		return NULL;
	return srq;
}

bool roce_xrc_take(struct roce_qp *rq, const struct roce_pkt *pkt,
		   uint32_t flags)
{
	struct emu_srq *srq = roce_xrc_srq(rq, pkt);

	if (!srq)
		return false;
	/* MIDDLE and LAST: the SRQ their message's FIRST named. */
	if (!(flags & ROCE_K_FIRST) && srq->srqn != rq->xrc_srqn)
		return false;
	rq->xrc_srqn = srq->srqn;
	rq->resp_pdn = srq->pdn;
	return true;
}

void roce_srq_forget(struct orca_engine *eng, uint32_t srqn)
{
	for (struct roce_qp *rq = eng->roce->qps; rq; rq = rq->next) {
		if (rq->qp->type != ORCA_QPT_XRC_TGT ||
		    !(rq->rcv_active || rq->rcv_held) ||
		    rq->rcv.xrc_srqn != srqn)
			continue;
		rq->rcv_active = rq->rcv_held = false;
	}
}

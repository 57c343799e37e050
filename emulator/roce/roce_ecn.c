// SPDX-License-Identifier: GPL-2.0
/*
 * ECN and congestion notification (IBA Annex A17.9, issue 33): the
 * adapter's halves of DCQCN that live on the wire.
 *
 * - ECT: with ect on, every RoCE packet (UD and the CM's MADs too) leaves
 *   ECN-capable (ECT(0) in the IP header's ECN bits), so that a congested
 *   switch marks it instead of dropping it (orca-wire --ecn).  CNPs
 *   themselves do not.
 * - The notification point: a CE-marked packet that a QP takes (a request,
 *   a response or an ACK, from its connected peer) is counted; with np on,
 *   the QP's peer gets a CNP, at most one per QP per cnp_interval_us, as a
 *   ConnectX sends them.  A CNP carries the peer QP's number, BECN and 16
 *   reserved bytes, and goes with the QP's own address vector.
 * - The reaction point: a CNP for a QP of this adapter, from that QP's
 *   peer, is handled when rp is on, and ignored otherwise (both counted).
 *   Handling it cuts the QP's rate, as DCQCN does (roce_dcqcn.c).
 */
#include <string.h>

#include "roce_priv.h"

void roce_set_ecn(struct orca_engine *eng, const struct roce_ecn_cfg *cfg)
{
	struct roce_ecn_cfg *c = &eng->roce->ecn;

	__atomic_store_n(&c->ect, cfg->ect, __ATOMIC_RELAXED);
	__atomic_store_n(&c->np, cfg->np, __ATOMIC_RELAXED);
	__atomic_store_n(&c->rp, cfg->rp, __ATOMIC_RELAXED);
	__atomic_store_n(&c->cnp_interval_us, cfg->cnp_interval_us,
			 __ATOMIC_RELAXED);
}

/* Engine thread: each field is set on its own (roce_set_ecn()). */
#define ECN(dev, field) __atomic_load_n(&(dev)->ecn.field, __ATOMIC_RELAXED)

uint8_t roce_ecn_tx_tclass(struct roce_dev *dev, const struct roce_pkt *pkt,
			   uint8_t tclass)
{
	if (pkt->opcode == ROCE_CNP || !ECN(dev, ect))
		return tclass;
	return (tclass & ~ROCE_ECN_MASK) | ROCE_ECN_ECT0;
}

void roce_ecn_rx(struct roce_qp *rq, const struct roce_pkt *pkt)
{
	struct roce_dev *dev = rq->dev;
	struct emu_qp *qp = rq->qp;
	struct roce_pkt cnp = { 0 };
	uint64_t now;

	if ((pkt->traffic_class & ROCE_ECN_MASK) != ROCE_ECN_CE)
		return;
	dev->st.np_ecn_marked_roce_packets++;
	if (!ECN(dev, np))
		return;
	now = now_us();
	if (rq->cnp_sent_us &&
	    now - rq->cnp_sent_us < ECN(dev, cnp_interval_us))
		return;
	cnp.opcode = ROCE_CNP;
	cnp.dest_qpn = le32toh(qp->attr.dest_qpn) & ROCE_QPN_MASK;
	cnp.becn = true;
	if (roce_send_pkt(rq, &qp->attr.av, &cnp, NULL, NULL))
		return;
	rq->cnp_sent_us = now;
	dev->st.np_cnp_sent++;
}

void roce_ecn_cnp_rx(struct roce_dev *dev, const struct roce_pkt *pkt)
{
	struct emu_qp *qp = pkt->dest_qpn ?
		engine_qp_lookup(dev->eng, pkt->dest_qpn) : NULL;
	bool peer = qp && (qp->type == ORCA_QPT_RC ||
			   qp->type == ORCA_QPT_UC ||
			   qp->type == ORCA_QPT_XRC_INI) &&
		    !memcmp(pkt->sgid, qp->attr.av.dgid, 16);

	if (peer && ECN(dev, rp)) {
		struct roce_qp *rq = roce_qp_get(dev->eng, qp);

		dev->st.rp_cnp_handled++;
		if (rq)
			roce_dcqcn_cnp(rq, now_us());
	} else {
		dev->st.rp_cnp_ignored++;
	}
}

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Many idle QPs for the engine tests and the benchmark: what a host with
 * thousands of connected, quiet RC connections looks like to the adapter.
 * Each QP pair is connected across two nodes (roce_node.h) and in RTS, so
 * it has transport state, but nothing is ever posted to it.  The rings are
 * shared by all of them (the engine never reads a ring nobody posted to),
 * which keeps thousands of QPs inside the harness's 16 MiB of guest RAM;
 * each QP has its own doorbell record.
 */
#ifndef ORCA_IDLE_QPS_H
#define ORCA_IDLE_QPS_H

#include "roce_node.h"

struct idle_rings {
	uint64_t list;			/* page list: SQ page, RQ page */
};

#define IDLE_LOG_DEPTH	2
#define IDLE_SGE	1

static inline void idle_rings_init(struct node *n, struct idle_rings *r)
{
	uint64_t *l;

	r->list = galloc(&n->t, 16, 8);
	l = gptr(&n->t, r->list);
	l[0] = htole64(galloc(&n->t, 4096, 0));
	l[1] = htole64(galloc(&n->t, 4096, 0));
}

static inline bool idle_qp(struct node *n, const struct idle_rings *r,
			   struct tcq *cq, struct tqp *qp)
{
	struct orca_cmd_create_qp in = {
		.qp_type = ORCA_QPT_RC, .page_shift = 12,
		.log_sq_depth = IDLE_LOG_DEPTH, .log_rq_depth = IDLE_LOG_DEPTH,
		.pdn = htole32(n->pdn), .send_cqn = htole32(cq->cqn),
		.recv_cqn = htole32(cq->cqn), .max_send_sge = IDLE_SGE,
		.max_recv_sge = IDLE_SGE, .sq_npages = htole32(1),
		.rq_npages = htole32(1), .uar = htole32(n->uar),
	};
	struct tcmd c = { .opcode = ORCA_CMD_CREATE_QP, .in = &in,
			  .in_size = sizeof(in), .in_addr = r->list,
			  .in_len = 16 };
	int64_t v;

	memset(qp, 0, sizeof(*qp));
	qp->type = ORCA_QPT_RC;
	qp->log_sq = qp->log_rq = IDLE_LOG_DEPTH;
	qp->max_sge = IDLE_SGE;
	qp->uar = n->uar;
	qp->rec = galloc(&n->t, 16, 16);
	in.db_rec_addr = htole64(qp->rec);
	v = th_handle_or_neg(&n->t, th_exec(&n->t, &c));
	if (v <= 0)
		return false;
	qp->qpn = v;
	return true;
}

/*
 * RESET -> INIT -> RTR -> RTS, connected to @rqpn on @peer, with PSNs 0
 * (node_connect()'s PSNs near the wrap only fit small QPNs).
 */
static inline bool idle_connect(struct node *n, struct tqp *qp,
				struct node *peer, uint32_t rqpn)
{
	struct orca_qp_attr a = { 0 };

	a.attr_mask = htole32(ORCA_QP_ATTR_STATE | ORCA_QP_ATTR_PKEY_INDEX |
			      ORCA_QP_ATTR_PORT | ORCA_QP_ATTR_ACCESS_FLAGS);
	a.qp_state = ORCA_QPS_INIT;
	a.port = 1;
	a.access = htole32(ORCA_QP_ACCESS_ALL);
	if (node_modify(n, qp, &a))
		return false;
	memset(&a, 0, sizeof(a));
	a.attr_mask = htole32(ORCA_QP_ATTR_STATE | ORCA_QP_ATTR_AV |
			      ORCA_QP_ATTR_PATH_MTU | ORCA_QP_ATTR_DEST_QPN |
			      ORCA_QP_ATTR_RQ_PSN |
			      ORCA_QP_ATTR_MAX_DEST_RD_ATOMIC |
			      ORCA_QP_ATTR_MIN_RNR_TIMER);
	a.qp_state = ORCA_QPS_RTR;
	a.path_mtu = 3;
	a.dest_qpn = htole32(rqpn);
	a.max_dest_rd_atomic = 8;
	a.min_rnr_timer = 1;
	node_gid(peer, a.av.dgid);
	memcpy(a.av.dmac, peer->mac, 6);
	a.av.hop_limit = 64;
	if (node_modify(n, qp, &a))
		return false;
	memset(&a, 0, sizeof(a));
	a.attr_mask = htole32(ORCA_QP_ATTR_STATE | ORCA_QP_ATTR_SQ_PSN |
			      ORCA_QP_ATTR_TIMEOUT | ORCA_QP_ATTR_RETRY_CNT |
			      ORCA_QP_ATTR_RNR_RETRY |
			      ORCA_QP_ATTR_MAX_QP_RD_ATOMIC);
	a.qp_state = ORCA_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 8;
	return node_modify(n, qp, &a) == 0;
}

/*
 * @count connected QP pairs between @a and @b in RTS, completing to @acq
 * and @bcq.  Returns the number made (count on success).
 */
static inline unsigned int idle_qps_create(struct node *a, struct tcq *acq,
					   struct node *b, struct tcq *bcq,
					   unsigned int count)
{
	struct idle_rings ra, rb;
	struct tqp qa, qb;
	unsigned int i;

	idle_rings_init(a, &ra);
	idle_rings_init(b, &rb);
	for (i = 0; i < count; i++) {
		if (!idle_qp(a, &ra, acq, &qa) || !idle_qp(b, &rb, bcq, &qb) ||
		    !idle_connect(a, &qa, b, qb.qpn) ||
		    !idle_connect(b, &qb, a, qa.qpn))
			break;
	}
	return i;
}

/*
 * A pair for traffic among the idle ones: rings of its own (node_qp()),
 * connected like them, so that it works at any QPN.
 */
static inline bool idle_active_pair(struct node *a, struct tcq *acq,
				    struct tqp *qa, struct node *b,
				    struct tcq *bcq, struct tqp *qb)
{
	return node_qp(a, qa, ORCA_QPT_RC, acq, acq) &&
	       node_qp(b, qb, ORCA_QPT_RC, bcq, bcq) &&
	       idle_connect(a, qa, b, qb->qpn) &&
	       idle_connect(b, qb, a, qa->qpn);
}

#endif /* ORCA_IDLE_QPS_H */

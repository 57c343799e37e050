// SPDX-License-Identifier: GPL-2.0
/*
 * ORCA resource dumps for rdma restrack (`rdma resource show ... -dd` and
 * `-r`): the driver's view of each QP, CQ, MR and SRQ as driver
 * attributes, and the adapter's own view of QPs and CQs (QUERY_QP,
 * QUERY_CQ) as raw data in the adapter's layout.
 *
 * The core holds a restrack reference while it calls these, and destroy
 * waits for it, so the object and its memory stay.  Indices the data path
 * moves are read without its locks: a dump is a snapshot, not a barrier.
 * A user queue's indices are the ones its provider published in the
 * doorbell record, which the kernel keeps pinned.
 */
#include <rdma/ib_umem.h>
#include <rdma/restrack.h>
#include <uapi/rdma/rdma_netlink.h>

#include "orca_diag.h"
#include "orca_verbs.h"

/*
 * The attributes go into one RDMA_NLDEV_ATTR_DRIVER nest; @fill returns
 * non-zero when the message is full, and the nest is then dropped.
 */
static int orca_res_nest(struct sk_buff *msg, const void *obj,
			 int (*fill)(struct sk_buff *msg, const void *obj))
{
	struct nlattr *nest;

	nest = nla_nest_start_noflag(msg, RDMA_NLDEV_ATTR_DRIVER);
	if (!nest)
		return -EMSGSIZE;
	if (fill(msg, obj)) {
		nla_nest_cancel(msg, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(msg, nest);
	return 0;
}

static int orca_res_put_u32s(struct sk_buff *msg, const char *const *names,
			     const u32 *vals, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (rdma_nl_put_driver_u32(msg, names[i], vals[i]))
			return -EMSGSIZE;
	return 0;
}

static int orca_res_fill_qp(struct sk_buff *msg, const void *obj)
{
	const struct orca_qp *qp = obj;
	const struct ib_qp *ibqp = &qp->ibqp;
	static const char *const names[] = {
		"qp_state", "sq_depth", "rq_depth", "sq_max_sge", "rq_max_sge",
		"max_inline", "sq_stride", "rq_stride", "send_cqn", "recv_cqn",
	};
	bool tgt = orca_qp_is_xrc_tgt(qp);
	u32 vals[] = {
		READ_ONCE(qp->state), tgt ? 0 : 1U << qp->log_sq_depth,
		qp->rq_stride ? 1U << qp->log_rq_depth : 0, qp->max_send_sge,
		qp->max_recv_sge, qp->max_inline_data, qp->sq_stride,
		qp->rq_stride,
		ibqp->send_cq ? to_ocq(ibqp->send_cq)->cqn : 0,
		ibqp->recv_cq ? to_ocq(ibqp->recv_cq)->cqn : 0,
	};
	struct orca_qp_db_rec rec;

	static_assert(ARRAY_SIZE(names) == ARRAY_SIZE(vals));
	if (orca_res_put_u32s(msg, names, vals, ARRAY_SIZE(vals)))
		return -EMSGSIZE;
	if (ibqp->srq &&
	    rdma_nl_put_driver_u32(msg, "srqn", to_osrq(ibqp->srq)->srqn))
		return -EMSGSIZE;
	/* A target QP has no rings or record: its domain is all there is. */
	if (tgt)
		return rdma_nl_put_driver_u32(msg, "xrcdn",
					      to_oxrcd(qp->xrcd)->xrcdn);
	if (qp->user) {
		/* What the provider published; it alone knows its ci. */
		orca_udb_read(qp->udb, qp->db_dma, &rec, sizeof(rec));
		return rdma_nl_put_driver_u32(msg, "user", 1) ||
		       rdma_nl_put_driver_u32(msg, "sq_pi",
					      le32_to_cpu(rec.sq_pi)) ||
		       rdma_nl_put_driver_u32(msg, "rq_pi",
					      le32_to_cpu(rec.rq_pi));
	}
	return rdma_nl_put_driver_u32(msg, "sq_pi", READ_ONCE(qp->sq_pi)) ||
	       rdma_nl_put_driver_u32(msg, "sq_ci", READ_ONCE(qp->sq_ci)) ||
	       rdma_nl_put_driver_u32(msg, "rq_pi", READ_ONCE(qp->rq_pi)) ||
	       rdma_nl_put_driver_u32(msg, "rq_ci", READ_ONCE(qp->rq_ci));
}

int orca_fill_res_qp_entry(struct sk_buff *msg, struct ib_qp *ibqp)
{
	return orca_res_nest(msg, to_oqp(ibqp), orca_res_fill_qp);
}

/* The adapter's struct orca_qp_attr for the QP, as QUERY_QP wrote it. */
int orca_fill_res_qp_entry_raw(struct sk_buff *msg, struct ib_qp *ibqp)
{
	struct orca_qp_attr hw;
	int err;

	err = orca_com_query_raw(to_odev(ibqp->device), ORCA_CMD_QUERY_QP,
				 to_oqp(ibqp)->qpn, &hw, sizeof(hw));
	if (err)
		return err;
	return nla_put(msg, RDMA_NLDEV_ATTR_RES_RAW, sizeof(hw), &hw);
}

static int orca_res_fill_cq(struct sk_buff *msg, const void *obj)
{
	const struct orca_cq *cq = obj;
	struct orca_cq_db_rec rec;

	/* The adapter's numbers: restrack's cqn and srqn are its own. */
	if (rdma_nl_put_driver_u32(msg, "cqn", cq->cqn) ||
	    rdma_nl_put_driver_u32(msg, "eqn", cq->eqn) ||
	    rdma_nl_put_driver_u32(msg, "comp_vector", cq->comp_vector) ||
	    rdma_nl_put_driver_u32(msg, "depth", 1U << READ_ONCE(cq->log_depth)))
		return -EMSGSIZE;
	if (cq->user) {
		orca_udb_read(cq->udb, cq->db_dma, &rec, sizeof(rec));
		return rdma_nl_put_driver_u32(msg, "user", 1) ||
		       rdma_nl_put_driver_u32(msg, "ci", le32_to_cpu(rec.ci)) ||
		       rdma_nl_put_driver_u32_hex(msg, "arm",
						  le32_to_cpu(rec.arm));
	}
	return rdma_nl_put_driver_u32(msg, "ci", READ_ONCE(cq->ci)) ||
	       rdma_nl_put_driver_u32(msg, "arm_seq", READ_ONCE(cq->arm_seq)) ||
	       rdma_nl_put_driver_u32(msg, "armed", READ_ONCE(cq->armed));
}

int orca_fill_res_cq_entry(struct sk_buff *msg, struct ib_cq *ibcq)
{
	return orca_res_nest(msg, to_ocq(ibcq), orca_res_fill_cq);
}

/* The adapter's struct orca_cq_attr (QUERY_CQ, interface 1.2). */
int orca_fill_res_cq_entry_raw(struct sk_buff *msg, struct ib_cq *ibcq)
{
	struct orca_cq_attr hw;
	int err;

	err = orca_com_query_raw(to_odev(ibcq->device), ORCA_CMD_QUERY_CQ,
				 to_ocq(ibcq)->cqn, &hw, sizeof(hw));
	if (err)
		return err;
	return nla_put(msg, RDMA_NLDEV_ATTR_RES_RAW, sizeof(hw), &hw);
}

static int orca_res_fill_mr(struct sk_buff *msg, const void *obj)
{
	const struct orca_mr *mr = obj;
	u8 shift = READ_ONCE(mr->page_shift);

	if (mr->umem)
		return rdma_nl_put_driver_string(msg, "type",
						 mr->umem->is_dmabuf ?
						 "dmabuf" : "user") ||
		       rdma_nl_put_driver_u64(msg, "page_size", 1ULL << shift) ||
		       rdma_nl_put_driver_u64(msg, "npages",
					      ib_umem_num_dma_blocks(mr->umem,
								     1UL << shift));
	if (mr->pgl.npages)
		return rdma_nl_put_driver_string(msg, "type", "fast_reg") ||
		       rdma_nl_put_driver_u64(msg, "page_size", 1ULL << shift) ||
		       rdma_nl_put_driver_u32(msg, "max_pages", mr->pgl.npages) ||
		       rdma_nl_put_driver_u32(msg, "mapped_pages",
					      READ_ONCE(mr->pgl.used));
	return rdma_nl_put_driver_string(msg, "type", "dma");
}

int orca_fill_res_mr_entry(struct sk_buff *msg, struct ib_mr *ibmr)
{
	return orca_res_nest(msg, to_omr(ibmr), orca_res_fill_mr);
}

static int orca_res_fill_srq(struct sk_buff *msg, const void *obj)
{
	const struct orca_srq *srq = obj;
	struct orca_srq_db_rec rec;

	if (rdma_nl_put_driver_u32(msg, "srqn", srq->srqn) ||
	    rdma_nl_put_driver_u32(msg, "depth", 1U << srq->log_depth) ||
	    rdma_nl_put_driver_u32(msg, "max_sge", srq->max_sge) ||
	    rdma_nl_put_driver_u32(msg, "stride", srq->stride) ||
	    rdma_nl_put_driver_u32(msg, "limit", READ_ONCE(srq->limit)))
		return -EMSGSIZE;
	if (orca_srq_is_xrc(srq) &&
	    (rdma_nl_put_driver_u32(msg, "xrcdn",
				    to_oxrcd(srq->ibsrq.ext.xrc.xrcd)->xrcdn) ||
	     rdma_nl_put_driver_u32(msg, "cqn",
				    to_ocq(srq->ibsrq.ext.cq)->cqn)))
		return -EMSGSIZE;
	if (srq->user) {
		orca_udb_read(srq->udb, srq->db_dma, &rec, sizeof(rec));
		return rdma_nl_put_driver_u32(msg, "user", 1) ||
		       rdma_nl_put_driver_u32(msg, "pi", le32_to_cpu(rec.pi));
	}
	return rdma_nl_put_driver_u32(msg, "pi", READ_ONCE(srq->pi)) ||
	       rdma_nl_put_driver_u32(msg, "ci", atomic_read(&srq->ci));
}

int orca_fill_res_srq_entry(struct sk_buff *msg, struct ib_srq *ibsrq)
{
	return orca_res_nest(msg, to_osrq(ibsrq), orca_res_fill_srq);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Port counters for `rdma statistic`: the adapter's RoCE engine counters
 * (QUERY_STATS) and the driver's own (enum orca_drv_stat), exposed as
 * rdma_hw_stats; and the same counters as the port's Performance
 * Management Agent answers them (perfquery, sysfs' counters/).
 */
#include <rdma/ib_mad.h>
#include <rdma/ib_pma.h>

#include "orca_diag.h"

/*
 * One name per counter orca_com_query_stats() reads, in its order: the
 * transport's (the i-th __le64 of struct orca_port_stats is the counter at
 * index i), then congestion notification's and priority flow control's.
 *
 * The names are ABI.  Where another RoCE driver counts the same thing, its
 * name is used (mlx5 and bnxt_re for the requester's view, rxe where it is
 * the only one counting exactly this); the rest are ORCA's own.  No rdma
 * driver counts priority flow control: ORCA's three are summed over the 8
 * priorities that mlx5's ethtool counters (rx_prioN_pause,
 * rx_prioN_pause_transition, rx_prioN_pause_duration) count one by one.
 */
static const struct rdma_stat_desc orca_port_stat_descs[] = {
	{ .name = "sent_pkts" },		/* rxe */
	{ .name = "rcvd_pkts" },		/* rxe */
	{ .name = "loopback_packets" },
	{ .name = "rx_roce_discards" },		/* bnxt_re */
	{ .name = "rx_roce_errors" },		/* bnxt_re */
	{ .name = "rx_qkey_drops" },
	{ .name = "out_of_buffer" },		/* mlx5, bnxt_re */
	{ .name = "retransmits" },
	{ .name = "local_ack_timeout_err" },	/* mlx5, bnxt_re */
	{ .name = "rnr_nak_retry_err" },	/* mlx5, bnxt_re: received */
	{ .name = "send_rnr_err" },		/* rxe: sent */
	{ .name = "packet_seq_err" },		/* mlx5, bnxt_re: received */
	{ .name = "out_of_seq_request" },	/* rxe: one NAK per episode */
	{ .name = "err_naks_rx" },
	{ .name = "err_naks_tx" },
	{ .name = "acks_tx" },
	{ .name = "duplicate_request" },	/* mlx5, bnxt_re, rxe */
	{ .name = "cq_overruns" },
	/* 1.7: congestion notification, as mlx5 names it */
	{ .name = "np_ecn_marked_roce_packets" },
	{ .name = "np_cnp_sent" },
	{ .name = "rp_cnp_handled" },
	{ .name = "rp_cnp_ignored" },
	/* 1.9: priority flow control */
	{ .name = "rx_pfc_frames" },		/* mlx5: rx_prioN_pause */
	{ .name = "rx_pfc_pause_transitions" },	/* mlx5: rx_prioN_pause_transition */
	{ .name = "rx_pfc_pause_duration" },	/* mlx5: rx_prioN_pause_duration */
	/* 1.10: on-demand paging, the adapter's side */
	{ .name = "odp_faults" },
	{ .name = "odp_fault_rnr_naks" },
	{ .name = "odp_fault_timeouts" },
	/* The driver's counters (enum orca_drv_stat) follow the adapter's. */
	{ .name = "driver_bad_eqes" },
	{ .name = "driver_bad_cqes" },
	{ .name = "driver_stale_events" },
	{ .name = "driver_eq_budget_yields" },
	{ .name = "driver_bad_user_queues" },
	{ .name = "driver_odp_faults" },
	{ .name = "driver_odp_fault_errors" },
	{ .name = "driver_odp_fault_pages" },
	{ .name = "driver_odp_stale" },
	{ .name = "driver_odp_invalidations" },
	{ .name = "driver_odp_fault_us" },
	{ .name = "driver_odp_fault_us_max" },
};

#define ORCA_NUM_DEV_STATS	(ARRAY_SIZE(orca_port_stat_descs) - \
				 ORCA_DRV_STAT_MAX)

static_assert(offsetof(struct orca_port_stats, cq_overruns) ==
	      sizeof(__le64) * (ORCA_COM_NUM_XPORT_STATS - 1));
static_assert(ORCA_NUM_DEV_STATS == ORCA_COM_NUM_PORT_STATS);

struct rdma_hw_stats *orca_alloc_hw_port_stats(struct ib_device *ibdev,
					       u32 port_num)
{
	return rdma_alloc_hw_stats_struct(orca_port_stat_descs,
					  ARRAY_SIZE(orca_port_stat_descs),
					  RDMA_HW_STATS_DEFAULT_LIFESPAN);
}

int orca_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
		      u32 port_num, int index)
{
	struct orca_dev *odev = to_odev(ibdev);
	int i, err;

	/* The adapter's counters first, in the table's order. */
	err = orca_com_query_stats(odev, stats->value);
	if (!err)
		for (i = 0; i < ORCA_DRV_STAT_MAX; i++)
			stats->value[ORCA_NUM_DEV_STATS + i] =
				atomic64_read(&odev->drv_stats[i]);
	return err ? err : ARRAY_SIZE(orca_port_stat_descs);
}

/* IBA 16.1.3.5: a counter stops at all ones instead of wrapping. */
static __be32 orca_pma_u32(u64 v)
{
	return cpu_to_be32(min_t(u64, v, U32_MAX));
}

static void orca_pma_counters(const struct orca_com_port_traffic *t,
			      struct ib_pma_portcounters *pc)
{
	pc->port_rcv_errors = cpu_to_be16(min_t(u64, t->rx_bad_packets,
						U16_MAX));
	/* Data counters count 4-octet words. */
	pc->port_xmit_data = orca_pma_u32(t->tx_bytes >> 2);
	pc->port_rcv_data = orca_pma_u32(t->rx_bytes >> 2);
	pc->port_xmit_packets = orca_pma_u32(t->tx_packets);
	pc->port_rcv_packets = orca_pma_u32(t->rx_packets);
}

static void orca_pma_counters_ext(const struct orca_com_port_traffic *t,
				  struct ib_pma_portcounters_ext *pc)
{
	pc->port_xmit_data = cpu_to_be64(t->tx_bytes >> 2);
	pc->port_rcv_data = cpu_to_be64(t->rx_bytes >> 2);
	pc->port_xmit_packets = cpu_to_be64(t->tx_packets);
	pc->port_rcv_packets = cpu_to_be64(t->rx_packets);
	pc->port_unicast_xmit_packets =
		cpu_to_be64(t->tx_packets - min(t->tx_mcast_packets,
						t->tx_packets));
	pc->port_unicast_rcv_packets =
		cpu_to_be64(t->rx_packets - min(t->rx_mcast_packets,
						t->rx_packets));
	pc->port_multicast_xmit_packets = cpu_to_be64(t->tx_mcast_packets);
	pc->port_multicast_rcv_packets = cpu_to_be64(t->rx_mcast_packets);
}

/*
 * The answer to a Get or Set of the PerformanceManagement class: a
 * GetResp, with a MAD status for what the agent does not do.  Returns the
 * MAD status, or -errno when the counters cannot be read.
 */
static int orca_pma_answer(struct orca_dev *odev, const struct ib_pma_mad *in,
			   struct ib_pma_mad *out)
{
	/* PortSelect and CounterSelect lead both counter attributes. */
	const struct ib_pma_portcounters *req = (const void *)in->data;
	struct orca_com_port_traffic t;
	struct ib_class_port_info cpi = {};
	__be16 attr = in->mad_hdr.attr_id;
	int err;

	if (in->mad_hdr.class_version != 1)
		return IB_MGMT_MAD_STATUS_BAD_VERSION;
	if (in->mad_hdr.method != IB_MGMT_METHOD_GET &&
	    in->mad_hdr.method != IB_MGMT_METHOD_SET)
		return IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD;
	if (attr != IB_PMA_CLASS_PORT_INFO && attr != IB_PMA_PORT_COUNTERS &&
	    attr != IB_PMA_PORT_COUNTERS_EXT)
		return IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD_ATTRIB;
	/* The counters run free: nothing can be set or cleared. */
	if (in->mad_hdr.method == IB_MGMT_METHOD_SET)
		return IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD_ATTRIB;
	if (attr == IB_PMA_CLASS_PORT_INFO) {
		/* 64-bit counters, unicast and multicast packets included. */
		cpi.base_version = IB_MGMT_BASE_VERSION;
		cpi.class_version = 1;
		cpi.capability_mask = IB_PMA_CLASS_CAP_EXT_WIDTH;
		ib_set_cpi_resp_time(&cpi, 18);
		memcpy(out->data, &cpi, sizeof(cpi));
		return 0;
	}
	/* One port: PortSelect names it, or all ports (0xFF) aggregate it. */
	if (req->port_select != ORCA_PORT && req->port_select != 0xff)
		return IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE;
	err = orca_com_query_traffic(odev, &t);
	if (err)
		return err;
	if (attr == IB_PMA_PORT_COUNTERS)
		orca_pma_counters(&t, (struct ib_pma_portcounters *)out->data);
	else
		orca_pma_counters_ext(&t,
				      (struct ib_pma_portcounters_ext *)out->data);
	out->data[1] = req->port_select;
	memcpy(&out->data[2], &req->counter_select,
	       sizeof(req->counter_select));
	return 0;
}

/**
 * orca_process_mad - the port's Performance Management Agent
 * @ibdev: the device
 * @mad_flags: IB_MAD_IGNORE_* (no key is checked here)
 * @port_num: the port the MAD came in on
 * @in_wc: its work completion, NULL when the core asks itself (sysfs)
 * @in_grh: its GRH
 * @in: the MAD
 * @out: the response, when the return value says IB_MAD_RESULT_REPLY
 * @out_mad_size: the size of @out
 * @out_mad_pkey_index: unused (OPA only)
 *
 * The core's MAD layer offers every MAD QP1 receives here first, and
 * sysfs' ports/1/counters ask without a work completion.  Get and Set of
 * the PerformanceManagement class (IBA 16.1) are answered, as mlx4, mlx5
 * and rxe answer them on RoCE: ClassPortInfo, PortCounters and
 * PortCountersExtended from the adapter's QUERY_STATS, any other attribute
 * or method with a MAD status.  Everything else (responses, other classes)
 * is left to the MAD agents.
 *
 * Return: IB_MAD_RESULT_* flags.
 */
int orca_process_mad(struct ib_device *ibdev, int mad_flags, u32 port_num,
		     const struct ib_wc *in_wc, const struct ib_grh *in_grh,
		     const struct ib_mad *in, struct ib_mad *out,
		     size_t *out_mad_size, u16 *out_mad_pkey_index)
{
	const struct ib_pma_mad *pin = (const struct ib_pma_mad *)in;
	struct ib_pma_mad *pout = (struct ib_pma_mad *)out;
	u8 method = in->mad_hdr.method;
	int st;

	static_assert(sizeof(struct ib_pma_mad) == sizeof(struct ib_mad));
	if (in->mad_hdr.mgmt_class != IB_MGMT_CLASS_PERF_MGMT ||
	    (method != IB_MGMT_METHOD_GET && method != IB_MGMT_METHOD_SET))
		return IB_MAD_RESULT_SUCCESS;
	if (port_num != ORCA_PORT || !out_mad_size ||
	    *out_mad_size < sizeof(*out) ||
	    in->mad_hdr.base_version != IB_MGMT_BASE_VERSION)
		return IB_MAD_RESULT_FAILURE;

	memset(out, 0, sizeof(*out));
	st = orca_pma_answer(to_odev(ibdev), pin, pout);
	if (st < 0)
		return IB_MAD_RESULT_FAILURE;
	pout->mad_hdr = in->mad_hdr;
	pout->mad_hdr.method = IB_MGMT_METHOD_GET_RESP;
	pout->mad_hdr.status = cpu_to_be16(st);
	*out_mad_size = sizeof(*out);
	return IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_REPLY;
}

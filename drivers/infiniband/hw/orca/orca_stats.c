// SPDX-License-Identifier: GPL-2.0
/*
 * Port counters for `rdma statistic`: the adapter's RoCE engine counters
 * (QUERY_STATS) and the driver's own (enum orca_drv_stat), exposed as
 * rdma_hw_stats.
 */
#include "orca_diag.h"

/*
 * One name per __le64 of struct orca_port_stats, in the header's order: the
 * counter at index i is the i-th __le64 of the structure.
 *
 * The names are ABI.  Where another RoCE driver counts the same thing, its
 * name is used (mlx5 and bnxt_re for the requester's view, rxe where it is
 * the only one counting exactly this); the rest are ORCA's own.
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
	/* The driver's counters (enum orca_drv_stat) follow the adapter's. */
	{ .name = "driver_bad_eqes" },
	{ .name = "driver_bad_cqes" },
	{ .name = "driver_stale_events" },
	{ .name = "driver_eq_budget_yields" },
};

#define ORCA_NUM_DEV_STATS	(ARRAY_SIZE(orca_port_stat_descs) - \
				 ORCA_DRV_STAT_MAX)

static_assert(offsetof(struct orca_port_stats, cq_overruns) ==
	      sizeof(__le64) * (ORCA_NUM_DEV_STATS - 1));
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

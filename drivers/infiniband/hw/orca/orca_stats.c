// SPDX-License-Identifier: GPL-2.0
/*
 * Port counters for `rdma statistic`: the adapter's RoCE engine counters
 * (QUERY_STATS) and the driver's own (enum orca_drv_stat), exposed as
 * rdma_hw_stats.
 */
#include "orca.h"

/*
 * One name per __le64 of struct orca_port_stats, in the header's order: the
 * counter at index i is the i-th __le64 of the structure.
 */
static const struct rdma_stat_desc orca_port_stat_descs[] = {
	{ .name = "tx_packets" },
	{ .name = "rx_packets" },
	{ .name = "loopback_packets" },
	{ .name = "rx_drops" },
	{ .name = "rx_bad_packets" },
	{ .name = "rx_qkey_drops" },
	{ .name = "rx_no_recv_wqe" },
	{ .name = "retransmits" },
	{ .name = "retry_timeouts" },
	{ .name = "rnr_naks_rx" },
	{ .name = "rnr_naks_tx" },
	{ .name = "seq_naks_rx" },
	{ .name = "seq_naks_tx" },
	{ .name = "err_naks_rx" },
	{ .name = "err_naks_tx" },
	{ .name = "acks_tx" },
	{ .name = "dup_requests" },
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
static_assert(ORCA_NUM_DEV_STATS == ORCA_CMD_NUM_PORT_STATS);

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
	err = orca_cmd_query_stats(odev, stats->value);
	if (!err)
		for (i = 0; i < ORCA_DRV_STAT_MAX; i++)
			stats->value[ORCA_NUM_DEV_STATS + i] =
				atomic64_read(&odev->drv_stats[i]);
	return err ? err : ARRAY_SIZE(orca_port_stat_descs);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Port counters for `rdma statistic`: the adapter's RoCE engine counters
 * (QUERY_STATS), exposed as rdma_hw_stats.
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
};

static_assert(offsetof(struct orca_port_stats, cq_overruns) ==
	      sizeof(__le64) * (ARRAY_SIZE(orca_port_stat_descs) - 1));
static_assert(ARRAY_SIZE(orca_port_stat_descs) == ORCA_CMD_NUM_PORT_STATS);

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
	int err;

	err = orca_cmd_query_stats(to_odev(ibdev), stats->value);
	return err ? err : ARRAY_SIZE(orca_port_stat_descs);
}

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ORCA's state as tools see it: port counters for `rdma statistic`,
 * restrack attributes and raw dumps for `rdma resource`, and debugfs.
 */
#ifndef ORCA_DIAG_H
#define ORCA_DIAG_H

#include "orca.h"

/* orca_stats.c: rdma_hw_stats from QUERY_STATS */
struct rdma_hw_stats *orca_alloc_hw_port_stats(struct ib_device *ibdev,
					       u32 port_num);
int orca_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
		      u32 port_num, int index);
int orca_process_mad(struct ib_device *ibdev, int mad_flags, u32 port_num,
		     const struct ib_wc *in_wc, const struct ib_grh *in_grh,
		     const struct ib_mad *in, struct ib_mad *out,
		     size_t *out_mad_size, u16 *out_mad_pkey_index);

/* orca_restrack.c: rdma restrack driver attributes and raw dumps */
int orca_fill_res_qp_entry(struct sk_buff *msg, struct ib_qp *ibqp);
int orca_fill_res_qp_entry_raw(struct sk_buff *msg, struct ib_qp *ibqp);
int orca_fill_res_cq_entry(struct sk_buff *msg, struct ib_cq *ibcq);
int orca_fill_res_cq_entry_raw(struct sk_buff *msg, struct ib_cq *ibcq);
int orca_fill_res_mr_entry(struct sk_buff *msg, struct ib_mr *ibmr);
int orca_fill_res_srq_entry(struct sk_buff *msg, struct ib_srq *ibsrq);

/* orca_debugfs.c: /sys/kernel/debug/orca/<PCI name>/ */
int orca_debugfs_init(struct orca_dev *odev);
void orca_debugfs_cleanup(struct orca_dev *odev);
void orca_debugfs_register(void);
void orca_debugfs_unregister(void);

#endif /* ORCA_DIAG_H */

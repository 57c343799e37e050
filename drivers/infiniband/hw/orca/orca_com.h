/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ORCA typed firmware commands (orca_com_*, as efa_com_* over efa's admin
 * queue): one function per command, taking its parameters as a CPU-order
 * struct (or plain values) and returning its result the same way.  Only
 * orca_com.c knows the wire layouts of orca_cmds_defs.h (struct
 * orca_cmd_*, the spec's names); callers never build a struct orca_cmd
 * themselves, and the command engine below (orca_cmdq.c) knows none of
 * them.
 */
#ifndef ORCA_COM_H
#define ORCA_COM_H

#include <linux/if_ether.h>
#include <linux/types.h>

struct orca_dev;
struct orca_caps;
struct orca_pgl;
struct orca_cc_params;

/**
 * struct orca_com_ring - where a queue's ring is, for CREATE_* commands
 * @pgl: page list of the ring, or NULL for a ring of one page
 * @page_addr: bus address of that one page when @pgl is NULL
 * @npages: pages in the ring
 * @page_shift: log2 of the page size the device is told
 */
struct orca_com_ring {
	const struct orca_pgl *pgl;
	dma_addr_t page_addr;
	u32 npages;
	u8 page_shift;
};

struct orca_com_eq_params {
	struct orca_com_ring ring;
	u8 log_depth;
	u16 msix_vector;
};

struct orca_com_cq_params {
	struct orca_com_ring ring;
	u8 log_depth;
	u32 eqn;
	u32 uar;
	dma_addr_t db_rec;
};

struct orca_com_srq_params {
	struct orca_com_ring ring;
	u32 pdn;
	u8 log_depth;
	u8 max_sge;
	bool tagged;			/* ORCA_CREATE_SRQ_F_TAG (1.5) */
	bool xrc;			/* ORCA_CREATE_SRQ_F_XRC (1.6) */
	u32 cqn;			/* XRC: the CQ of its receives */
	u32 xrcdn;			/* XRC: its domain */
	u32 limit;
	u32 uar;
	dma_addr_t db_rec;
};

/*
 * struct orca_com_qp_params - CREATE_QP
 * @pgl: send ring pages, then receive ring pages
 * @sq_npages: send ring pages in @pgl
 * @rq_npages: receive ring pages in @pgl (0 with an SRQ)
 * @page_shift: log2 of the page size of both rings
 * Other fields as in struct orca_cmd_create_qp, in CPU order.
 */
struct orca_com_qp_params {
	u8 qp_type;
	u8 log_sq_depth;
	u8 log_rq_depth;
	u8 max_send_sge;
	u8 max_recv_sge;
	u16 max_inline_data;
	u32 flags;
	u32 pdn;
	u32 send_cqn;
	u32 recv_cqn;
	u32 srqn;
	const struct orca_pgl *pgl;
	u32 sq_npages;
	u32 rq_npages;
	u8 page_shift;
	u32 uar;
	dma_addr_t db_rec;
	u32 xrcdn;			/* ORCA_QPT_XRC_TGT (1.6) */
};

/*
 * struct orca_com_mr_params - CREATE_MR
 * @pgl: the pages of a page-list MR; NULL for PHYS and FAST_REG MRs
 * @npages: pages in @pgl, or the page list length of a FAST_REG MR
 * Other fields as in struct orca_cmd_create_mr, in CPU order.
 */
struct orca_com_mr_params {
	u32 pdn;
	u32 access;
	u32 flags;
	u8 page_shift;
	u64 iova;
	u64 length;
	u32 npages;
	const struct orca_pgl *pgl;
};

struct orca_com_mr_keys {
	u32 lkey;
	u32 rkey;
};

/* A RoCE address vector (struct orca_av), in CPU order. */
struct orca_com_av {
	u8 dgid[16];
	u8 dmac[ETH_ALEN];
	u8 sgid_index;
	u8 hop_limit;
	u8 traffic_class;
	u32 flow_label;
};

/*
 * struct orca_com_qp_attr - MODIFY_QP input and QUERY_QP output
 * @attr_mask: ORCA_QP_ATTR_* valid in a MODIFY_QP (QUERY_QP: all)
 * Other fields as in struct orca_qp_attr, in CPU order.
 */
struct orca_com_qp_attr {
	u32 qpn;
	u32 attr_mask;
	u8 qp_state;
	u8 cur_qp_state;
	u8 path_mtu;
	u8 timeout;
	u8 retry_cnt;
	u8 rnr_retry;
	u8 min_rnr_timer;
	u8 max_rd_atomic;
	u8 max_dest_rd_atomic;
	u8 port;
	u16 pkey_index;
	u32 qkey;
	u32 access;
	u32 rq_psn;
	u32 sq_psn;
	u32 dest_qpn;
	struct orca_com_av av;
	bool sq_draining;
};

/* QUERY_CQ (1.2), in CPU order; struct orca_cq_attr says what each is. */
struct orca_com_cq_attr {
	u32 cqn;
	u32 eqn;
	u32 pi;
	u32 ci;
	u32 arm;
	u32 arm_fired;
	u32 overruns;
	u8 log_depth;
	bool armed;
	bool overrun;
};

/* QUERY_PORT, in CPU order. */
struct orca_com_port_info {
	u8 state;
	u8 max_mtu;
	u8 active_mtu;
	u32 eth_mtu;
	u8 mac[ETH_ALEN];
	u16 gid_table_len;
	u32 speed_mbps;
};

/*
 * Counters of QUERY_STATS (struct orca_port_stats) the driver reports: its
 * first ORCA_COM_NUM_XPORT_STATS words (the transport's), then the four of
 * congestion notification (1.7; a 1.6 device reads 0) and the three of
 * priority flow control (1.9; a 1.8 device reads 0).
 */
#define ORCA_COM_NUM_XPORT_STATS	18
#define ORCA_COM_NUM_PORT_STATS		(ORCA_COM_NUM_XPORT_STATS + 4 + 3 + 3)

/* QUERY_STATS' traffic counters (1.4), for the PMA, in CPU order. */
struct orca_com_port_traffic {
	u64 tx_packets;
	u64 rx_packets;
	u64 tx_bytes;
	u64 rx_bytes;
	u64 tx_mcast_packets;
	u64 rx_mcast_packets;
	u64 rx_bad_packets;
};

u32 orca_com_out_handle(const u8 *out);
int orca_com_query_device(struct orca_dev *odev, struct orca_caps *caps,
			  u8 *num_ports);
int orca_com_query_port(struct orca_dev *odev, struct orca_com_port_info *info);
int orca_com_query_stats(struct orca_dev *odev,
			 u64 counters[ORCA_COM_NUM_PORT_STATS]);
int orca_com_query_traffic(struct orca_dev *odev,
			   struct orca_com_port_traffic *t);
int orca_com_query_cc(struct orca_dev *odev, struct orca_cc_params *p);
int orca_com_set_cc(struct orca_dev *odev, const struct orca_cc_params *p);
int orca_com_set_port(struct orca_dev *odev, u32 eth_mtu);
int orca_com_set_gid(struct orca_dev *odev, u32 index, u8 type,
		     const u8 *mac, u16 vlan, const u8 *gid);
int orca_com_create_eq(struct orca_dev *odev,
		       const struct orca_com_eq_params *p, u32 *eqn);
int orca_com_destroy_obj(struct orca_dev *odev, u16 opcode, u32 handle);
bool orca_com_undo_create(struct orca_dev *odev, u16 opcode, u32 handle,
			  const char *what);
int orca_com_alloc_uar(struct orca_dev *odev, u32 *uar);
int orca_com_create_pd(struct orca_dev *odev, u32 *pdn);
int orca_com_alloc_xrcd(struct orca_dev *odev, u32 *xrcdn);
int orca_com_create_cq(struct orca_dev *odev,
		       const struct orca_com_cq_params *p, u32 *cqn);
int orca_com_resize_cq(struct orca_dev *odev, u32 cqn, u8 log_depth,
		       const struct orca_com_ring *ring);
int orca_com_modify_cq(struct orca_dev *odev, u32 cqn, u16 count,
		       u16 period);
int orca_com_mcast(struct orca_dev *odev, u16 opcode, u32 qpn,
		   const u8 mgid[16]);
int orca_com_create_mr(struct orca_dev *odev,
		       const struct orca_com_mr_params *p,
		       struct orca_com_mr_keys *keys);
int orca_com_set_odp(struct orca_dev *odev, dma_addr_t table, u16 n,
		     u32 timeout_ms);
int orca_com_mr_install(struct orca_dev *odev, u32 lkey, u64 va, u32 npages,
			dma_addr_t list, u32 flags, u32 token, bool *resumed);
int orca_com_mr_invalidate(struct orca_dev *odev, u32 lkey, u64 va, u64 len,
			   bool all);
int orca_com_alloc_mw(struct orca_dev *odev, u32 pdn, u8 type, u8 key,
		      u32 *rkey);
int orca_com_create_qp(struct orca_dev *odev,
		       const struct orca_com_qp_params *p, u32 *qpn);
int orca_com_modify_qp(struct orca_dev *odev,
		       const struct orca_com_qp_attr *attr);
int orca_com_query_qp(struct orca_dev *odev, u32 qpn,
		      struct orca_com_qp_attr *attr);
int orca_com_query_cq(struct orca_dev *odev, u32 cqn,
		      struct orca_com_cq_attr *attr);
int orca_com_query_raw(struct orca_dev *odev, u16 opcode, u32 handle,
		       void *buf, size_t len);
int orca_com_create_ah(struct orca_dev *odev, u32 pdn,
		       const struct orca_com_av *av, bool sleepable,
		       void (*orphaned)(struct orca_dev *odev, int err,
					const u8 *out),
		       u32 *ahn);
int orca_com_destroy_ah(struct orca_dev *odev, u32 ahn, bool sleepable);
int orca_com_create_srq(struct orca_dev *odev,
			const struct orca_com_srq_params *p, u32 *srqn);
int orca_com_modify_srq(struct orca_dev *odev, u32 srqn, u32 limit);
int orca_com_resize_srq(struct orca_dev *odev, u32 srqn, u8 log_depth,
			const struct orca_com_ring *ring);
int orca_com_query_srq(struct orca_dev *odev, u32 srqn, u32 *limit);

#endif /* ORCA_COM_H */

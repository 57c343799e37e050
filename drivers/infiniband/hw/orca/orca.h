/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ORCA RoCE HCA driver: the device and verbs object structures, and the
 * prototypes of every file, grouped by the file that defines them.
 */
#ifndef ORCA_H
#define ORCA_H

#include <linux/bitfield.h>
#include <linux/dmapool.h>
#include <linux/interrupt.h>
#include <linux/irq_poll.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/pci.h>
#include <linux/refcount.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>
#include <rdma/orca-abi.h>

#include "orca_com.h"
#include "orca_cmdq.h"
#include "orca_io_defs.h"
#include "orca_regs_defs.h"

#define ORCA_PORT			1
#define ORCA_HEARTBEAT_PERIOD		HZ
#define ORCA_HEARTBEAT_MAX_STALLS	3

/*
 * Counters of what the driver saw go wrong, after the adapter's own in
 * rdma_hw_stats (orca_stats.c).  The adapter is not trusted: a value it
 * writes that makes no sense is counted and dropped, never a WARN.
 */
enum orca_drv_stat {
	ORCA_DRV_STAT_BAD_EQES,		/* EQEs of unknown or misplaced type */
	ORCA_DRV_STAT_BAD_CQES,		/* CQEs naming a WQE never posted */
	ORCA_DRV_STAT_STALE_EVENTS,	/* events for objects that do not exist */
	ORCA_DRV_STAT_EQ_BUDGET_YIELDS,	/* EQ runs that stopped at the budget */
	ORCA_DRV_STAT_MAX
};

/* Who changed a QP's state, for the orca_qp_state tracepoint. */
enum orca_qp_state_src {
	ORCA_QPS_SRC_MODIFY,	/* the consumer's modify_qp */
	ORCA_QPS_SRC_ADAPTER,	/* the adapter, by an event, CQE or query */
};

/* struct orca_dev.flags bits */
enum {
	ORCA_DEV_DEAD,		/* no further commands are sent */
	ORCA_DEV_FENCED,	/* dead, and its DMA stopped: all may be freed */
	ORCA_DEV_REGISTERED,	/* the ib_device is registered */
	ORCA_DEV_LEAK_LOGGED,	/* a leak after a failed destroy was logged */
	ORCA_DEV_FATAL_SENT,	/* IB_EVENT_DEVICE_FATAL was dispatched */
	ORCA_DEV_HEALTH_REPORTED, /* the death went to devlink health */
	ORCA_DEV_DEATH_DUMP,	/* the adapter took a snapshot at the death */
};

/**
 * struct orca_pf - the PCI function: what outlives an orca_dev
 * @pdev: the function
 * @regs: BAR 0 register file, mapped once; each orca_dev uses it
 * @odev: the current orca_dev; NULL after a recovery that failed.  Set at
 *	probe, then changed only by a recovery, under the devlink instance
 *	lock; remove reads it once no recovery can run any more.
 * @fw_reporter: the "fw_fatal" devlink health reporter
 * @fatal_work: reports the death of @odev to @fw_reporter.  Not a work of
 *	the orca_dev: the recovery it may run destroys that orca_dev, which
 *	flushes the orca_dev's own works.
 *
 * The devlink instance's private data (orca_devlink.c); the ib_device is
 * the orca_dev's, so a recovery replaces it while this stays.
 */
struct orca_pf {
	struct pci_dev *pdev;
	void __iomem *regs;
	struct orca_dev *odev;
	struct devlink_health_reporter *fw_reporter;
	struct work_struct fatal_work;
};

/*
 * Device capabilities in CPU byte order, copied from struct orca_dev_caps
 * (QUERY_DEVICE) once at probe; orca_cmds_defs.h describes each field.
 */
struct orca_caps {
	u64 sys_image_guid;
	u64 max_mr_size;
	u64 page_size_cap;
	u32 dev_caps;
	u32 vendor_part_id;
	u32 hw_rev;
	u32 max_qp;
	u32 max_qp_wr;
	u32 max_send_sge;
	u32 max_recv_sge;
	u32 max_inline_data;
	u32 max_cq;
	u32 max_cqe;
	u32 max_mr;
	u32 max_pd;
	u32 max_ah;
	u32 max_srq;
	u32 max_srq_wr;
	u32 max_srq_sge;
	u32 max_eq;
	u32 max_eqe;
	u32 max_fast_reg_page_list_len;
	u32 max_msg_size;
	u32 gid_table_len;
	u8 max_qp_rd_atom;
	u8 max_qp_init_rd_atom;
	u8 local_ca_ack_delay;
	/* ORCA_DEV_CAP_CQ_MODERATION, else 0: MODIFY_CQ's limits */
	u16 max_cq_mod_count;
	u16 max_cq_mod_period;
	/* ORCA_DEV_CAP_IDENTITY, else empty; printable ASCII */
	char hca_type[ORCA_DEV_HCA_TYPE_LEN + 1];
	char board_id[ORCA_DEV_BOARD_ID_LEN + 1];
};

/**
 * struct orca_qbuf - a queue ring the device reads or writes
 * @pages: CPU address of each PAGE_SIZE page; NULL when the ring has none
 *	   (a user ring lives in its umem)
 * @dma: bus address of each of @pages
 * @nalloc: entries in @pages and @dma
 * @size: bytes allocated, a multiple of PAGE_SIZE for a kernel ring
 * @page_shift: page size the device is told, from its page_size_cap
 * @npages: pages of 1 << @page_shift in the page list
 *
 * Kernel rings are built from single coherent pages, not one contiguous
 * block: a ring at the advertised maximum depth and SGE count is 8 MiB,
 * which the page allocator cannot be relied on to provide in one piece.
 * The device's page size is the largest it accepts that is no larger than
 * PAGE_SIZE, so a kernel page may be several device pages (64 KiB pages
 * on a device that takes 4 KiB).  Entries are powers of two no larger than
 * 4 KiB, so none straddles two pages; orca_qbuf_entry() finds one.
 */
struct orca_qbuf {
	void **pages;
	dma_addr_t *dma;
	u32 nalloc;
	size_t size;
	u8 page_shift;
	u32 npages;
};

/**
 * struct orca_eq - an event queue and its MSI-X vector
 * @odev: owning device
 * @buf: 1 << @log_depth entries written by the device
 * @log_depth: log2 of the number of entries
 * @ci: free-running consumer index
 * @eqn: the device's EQ number
 * @vector: MSI-X vector index
 * @irq: Linux IRQ of @vector
 * @created: the device knows this EQ (DESTROY_EQ needed)
 * @name: IRQ name
 * @async_lock: EQ 0: one consumer at a time (IRQ thread, work, scrub)
 * @async_work: EQ 0: the run after one that used its budget
 * @comp_lock: completion EQ: one consumer at a time (irq_poll, scrub)
 * @comp_iop: completion EQ: consumes the EQ in softirq context
 * @ncqs: completion EQ: CQs bound to it
 * @max_cqs: completion EQ: CQs it can take events from without overflow
 */
struct orca_eq {
	struct orca_dev *odev;
	struct orca_qbuf buf;
	u8 log_depth;
	u32 ci;
	u32 eqn;
	u16 vector;
	int irq;
	bool created;
	char name[32];
	struct mutex async_lock;	/* EQ 0 consumers */
	struct work_struct async_work;
	spinlock_t comp_lock;		/* completion EQ consumers */
	struct irq_poll comp_iop;
	atomic_t ncqs;
	u32 max_cqs;
};

/**
 * struct orca_port - the RoCE port and its paired netdev
 * @mac: the port's MAC (ORCA_REG_PORT_MAC_LO/HI)
 * @netdev: paired netdev; identity only, the core holds the reference
 * @lock: protects the fields below
 * @link_up: the adapter reports its wire link up
 * @max_mtu: largest IB MTU the adapter carries (enum ib_mtu)
 * @speed_mbps: link speed the adapter reports
 * @gid_tbl_len: GID table entries
 * @eth_mtu: Ethernet MTU last told to the adapter (0: none yet)
 * @state: port state last reported to the RDMA core
 * @work: re-reads the port, programs the MTU, reports state changes
 * @nb: netdevice notifier
 * @need_rescan: the pairing changed, the core must re-read the GIDs
 * @closing: the notifier ignores the events its unregistration replays
 */
struct orca_port {
	u8 mac[ETH_ALEN];
	struct net_device *netdev;
	struct mutex lock;		/* port state below */
	bool link_up;
	enum ib_mtu max_mtu;
	u32 speed_mbps;
	u32 gid_tbl_len;
	u32 eth_mtu;
	enum ib_port_state state;
	struct work_struct work;
	struct notifier_block nb;
	bool need_rescan;
	bool closing;
};

/**
 * struct orca_dev - one ORCA PCI function and its ib_device
 * @ibdev: the RDMA core device; first, for ib_alloc_device()
 * @pf: the PCI function's devlink side
 * @pdev: the PCI function
 * @regs: BAR 0 register file (@pf's mapping)
 * @uar: BAR 4 mapping of the kernel's UAR page
 * @uar_idx: the kernel's UAR index (ALLOC_UAR)
 * @flags: ORCA_DEV_* bits
 * @caps: capabilities from QUERY_DEVICE
 * @fw_ver: ORCA_REG_FW_VERSION
 * @has_dump: the adapter has the diagnostic dump window (ORCA_CAPS_DUMP)
 * @reset_timeout_ms: ORCA_REG_RESET_TIMEOUT_MS, bounded
 * @cmdq: firmware command queue
 * @async_eq: EQ 0, async and command events
 * @comp_eqs: completion EQs, one per completion vector
 * @num_comp_eqs: entries in @comp_eqs
 * @num_irqs: MSI-X vectors allocated
 * @heartbeat: watchdog work
 * @last_heartbeat: ORCA_REG_HEARTBEAT at the previous check
 * @heartbeat_stalls: consecutive checks without progress
 * @dead_work: after death (orca_main.c): reports IB_EVENT_DEVICE_FATAL,
 *	gives kernel QPs on an SRQ their IB_EVENT_QP_LAST_WQE_REACHED and
 *	runs the completion handlers of armed kernel CQs, whose pollers then
 *	flush; then has the death reported to devlink health
 * @dead_reason: why it died (a string constant), once ORCA_DEV_DEAD is set
 * @leaked: objects whose memory was kept after a failed destroy
 * @kept_lock: protects @kept
 * @kept: memory of kernel objects whose destroy the device refused, freed
 *	after the reset at teardown (orca_dev_keep())
 * @db_pool: doorbell records of CQs, QPs and SRQs
 * @cq_xa: cqn -> struct orca_cq, IRQ-safe lock (looked up in hard IRQ)
 * @qp_xa: qpn -> struct orca_qp, IRQ-safe lock (pollers clean under it)
 * @srq_xa: srqn -> struct orca_srq
 * @orphan_ahs: AHs nobody holds, to destroy (orca_ah.c): made by CREATE_AH
 *	commands orphaned in the command queue, or given up by a DESTROY_AH
 *	that found no free slot in time; indexed by ahn, IRQ-safe lock
 *	(taken under the command queue's lock)
 * @orphan_ah_work: destroys @orphan_ahs
 * @port: the RoCE port
 * @drv_stats: enum orca_drv_stat counters
 * @dbg: debugfs (orca_debugfs.c): the device's directory and the QP and
 *	 CQ numbers the qp and cq files show
 */
struct orca_dev {
	struct ib_device ibdev;
	struct orca_pf *pf;
	struct pci_dev *pdev;
	void __iomem *regs;
	void __iomem *uar;
	u32 uar_idx;
	unsigned long flags;
	struct orca_caps caps;
	u32 fw_ver;
	bool has_dump;
	u32 reset_timeout_ms;
	struct orca_cmdq cmdq;
	struct orca_eq async_eq;
	struct orca_eq *comp_eqs;
	int num_comp_eqs;
	int num_irqs;
	struct delayed_work heartbeat;
	u32 last_heartbeat;
	int heartbeat_stalls;
	struct work_struct dead_work;
	const char *dead_reason;
	atomic_t leaked;
	spinlock_t kept_lock;	/* protects kept */
	struct list_head kept;
	struct dma_pool *db_pool;
	struct xarray cq_xa;
	struct xarray qp_xa;
	struct xarray srq_xa;
	struct xarray orphan_ahs;
	struct work_struct orphan_ah_work;
	struct orca_port port;
	atomic64_t drv_stats[ORCA_DRV_STAT_MAX];
	struct {
		struct dentry *dir;
		u32 qpn;
		u32 cqn;
	} dbg;
};

static inline void orca_drv_stat_inc(struct orca_dev *odev,
				     enum orca_drv_stat stat)
{
	atomic64_inc(&odev->drv_stats[stat]);
}

/**
 * struct orca_ucontext - a process's verbs context
 * @ibuctx: the core's context
 * @uar_idx: the context's UAR page (ALLOC_UAR), the wakeups of its queues
 * @uar_entry: mmap entry of the UAR page; DEALLOC_UAR when its last map goes
 * @db_lock: protects @db_pages
 * @db_pages: pinned pages holding the doorbell records of its queues
 */
struct orca_ucontext {
	struct ib_ucontext ibuctx;
	u32 uar_idx;
	struct rdma_user_mmap_entry *uar_entry;
	struct mutex db_lock;		/* db_pages */
	struct list_head db_pages;
};

/**
 * struct orca_udb_page - a user page of doorbell records, pinned once
 * @list: entry in orca_ucontext.db_pages
 * @uctx: owning context
 * @mm: address space of @va; a forked child's page is another page
 * @va: page-aligned user address
 * @umem: the pinned page
 * @refcnt: records of live queues in the page; under @uctx->db_lock
 */
struct orca_udb_page {
	struct list_head list;
	struct orca_ucontext *uctx;
	struct mm_struct *mm;
	unsigned long va;
	struct ib_umem *umem;
	unsigned int refcnt;
};

struct orca_pd {
	struct ib_pd ibpd;
	u32 pdn;
};

/* Entry @idx of a kernel ring of @stride-byte entries. */
static inline void *orca_qbuf_entry(const struct orca_qbuf *q, u32 idx,
				    u32 stride)
{
	size_t off = (size_t)idx * stride;

	return q->pages[off >> PAGE_SHIFT] + (off & ~PAGE_MASK);
}

/**
 * struct orca_pgl - a page list the device reads (CREATE_*, REG_MR)
 * @chunks: CPU address of each chunk of little-endian page addresses
 * @chunk_dma: bus address of each of @chunks
 * @nchunks: entries in @chunks
 * @chunk_bytes: bytes of each chunk
 * @per_chunk: page addresses in each chunk
 * @chained: the chunks form a chain (ORCA_DEV_CAP_PGL_CHAIN): the last
 *	     slot of each holds the bus address of the next
 * @npages: entries allocated
 * @used: entries filled
 *
 * A list of more than ORCA_PGL_CHUNK_ENTRIES entries is a chain of 4 KiB
 * chunks when the device takes one, so no page list needs more than one
 * page of contiguous memory; otherwise it is one block, as in 1.0.
 */
struct orca_pgl {
	__le64 **chunks;
	dma_addr_t *chunk_dma;
	u32 nchunks;
	u32 chunk_bytes;
	u32 per_chunk;
	bool chained;
	u32 npages;
	u32 used;
};

/* Append @addr; the caller sized the list (orca_pgl_alloc()) for it. */
static inline void orca_pgl_add(struct orca_pgl *pgl, u64 addr)
{
	u32 i = pgl->used++;

	pgl->chunks[i / pgl->per_chunk][i % pgl->per_chunk] = cpu_to_le64(addr);
}

/* Bus address the device starts reading the list at. */
static inline dma_addr_t orca_pgl_dma(const struct orca_pgl *pgl)
{
	return pgl->chunk_dma[0];
}

/*
 * CQs, QPs and SRQs can be the target of a device event that races their
 * destruction: the EQ handler takes a reference under the xarray lock and
 * the destroy path waits for @free after dropping its own.
 *
 * A user queue (@user) has its ring in pinned user memory (@umem; @buf then
 * only records its geometry) and its doorbell record in a pinned user page
 * (@udb); the provider polls and posts, so the kernel data path never
 * touches it.
 */
struct orca_cq {
	struct ib_cq ibcq;
	u32 cqn;
	u32 eqn;
	u32 comp_vector;
	u32 uar;
	u8 log_depth;
	bool user;
	struct orca_qbuf buf;
	struct orca_cq_db_rec *db;
	dma_addr_t db_dma;
	struct ib_umem *umem;
	struct orca_udb_page *udb;
	struct mutex resize_lock;	/* user CQs: log_depth, umem */
	refcount_t refcnt;
	struct completion free;
	spinlock_t lock;		/* ci, arm_seq; polling */
	u32 ci;				/* free-running consumer index */
	u32 arm_seq;			/* ORCA_CQ_ARM_SEQ of the last arm */
	bool armed;			/* armed since the last event */
};

struct orca_srq {
	struct ib_srq ibsrq;
	u32 srqn;
	u32 uar;
	u8 log_depth;
	u8 max_sge;
	bool user;
	u32 stride;
	u32 limit;
	struct orca_qbuf buf;
	u64 *wrid;			/* wr_id of each ring slot, as posted */
	unsigned long *posted;		/* slots posted and not yet completed */
	struct orca_srq_db_rec *db;
	dma_addr_t db_dma;
	struct ib_umem *umem;
	struct orca_udb_page *udb;
	refcount_t refcnt;
	struct completion free;
	spinlock_t lock;		/* pi; posting */
	u32 pi;				/* free-running producer index */
	atomic_t ci;			/* receive WQEs completed */
};

/**
 * struct orca_qp - a QP
 * @ibqp: the core's QP
 * @qpn: the device's QP number (1 for GSI)
 * @user: a user QP: rings in @sq_umem and @rq_umem, record in @udb; the
 *	fields from @sq_lock on are unused
 * @log_sq_depth: send WQEs = 1 << @log_sq_depth
 * @log_rq_depth: receive WQEs = 1 << @log_rq_depth; 0 with an SRQ
 * @max_send_sge: SGEs per send WQE, as told to the device
 * @max_recv_sge: SGEs per receive WQE, as told to the device
 * @max_inline_data: inline bytes per send WQE
 * @sq_stride: bytes per send WQE (orca_send_wqe_stride())
 * @rq_stride: bytes per receive WQE (orca_recv_wqe_stride())
 * @sig_all: every send WQE generates a completion
 * @sq: send ring
 * @rq: receive ring; unused with an SRQ
 * @sq_wrid: the wr_id of each send ring slot, as posted
 * @rq_wrid: the wr_id of each receive ring slot, as posted; NULL with an SRQ
 * @db: doorbell record
 * @db_dma: bus address of @db
 * @sq_umem: user send ring
 * @rq_umem: user receive ring; NULL with an SRQ
 * @udb: user page holding the doorbell record
 * @lock: serialises modify_qp and query_qp against each other
 * @state: state after the last successful MODIFY_QP
 * @dead_last_wqe: a kernel QP on an SRQ got its IB_EVENT_QP_LAST_WQE_REACHED
 *	from the dead work (orca_qp_dead_last_wqe()), which alone uses it
 * @refcnt: references held by event handlers, plus one for the QP
 * @free: completed when @refcnt drops to zero
 * @sq_lock: serialises posting to the send queue
 * @sq_pi: send WQEs ever posted (free-running)
 * @sq_ci: send WQEs retired by polled CQEs; written by the send CQ's poller
 * @rq_lock: serialises posting to the receive queue
 * @rq_pi: receive WQEs ever posted
 * @rq_ci: receive WQEs retired; written by the receive CQ's poller
 */
struct orca_qp {
	struct ib_qp ibqp;
	u32 qpn;
	u8 log_sq_depth;
	u8 log_rq_depth;
	u8 max_send_sge;
	u8 max_recv_sge;
	u32 max_inline_data;
	u32 sq_stride;
	u32 rq_stride;
	bool sig_all;
	bool user;
	struct orca_qbuf sq;
	struct orca_qbuf rq;
	u64 *sq_wrid;
	u64 *rq_wrid;
	struct orca_qp_db_rec *db;
	dma_addr_t db_dma;
	struct ib_umem *sq_umem;
	struct ib_umem *rq_umem;
	struct orca_udb_page *udb;
	struct mutex lock;		/* modify/query vs each other */
	enum ib_qp_state state;
	bool dead_last_wqe;
	refcount_t refcnt;
	struct completion free;
	spinlock_t sq_lock;		/* sq_pi, send ring */
	u32 sq_pi;
	u32 sq_ci;
	spinlock_t rq_lock;		/* rq_pi, receive ring */
	u32 rq_pi;
	u32 rq_ci;
};

/**
 * struct orca_mr - a memory region
 * @ibmr: the core's MR
 * @pgl: FAST_REG page list the REG_MR WQE points at; @pgl.used entries
 *	 were filled by the last map_mr_sg
 * @page_shift: page size fixed at CREATE_MR; FAST_REG: of the last
 *		map_mr_sg, which the REG_MR WQE carries
 * @umem: pinned user memory of a user MR
 */
struct orca_mr {
	struct ib_mr ibmr;
	struct orca_pgl pgl;
	u8 page_shift;
	struct ib_umem *umem;
};

struct orca_ah {
	struct ib_ah ibah;
	u32 ahn;
};

static inline struct orca_dev *to_odev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct orca_dev, ibdev);
}

static inline struct orca_ucontext *to_ouctx(struct ib_ucontext *ibuctx)
{
	return container_of(ibuctx, struct orca_ucontext, ibuctx);
}

static inline struct orca_pd *to_opd(struct ib_pd *ibpd)
{
	return container_of(ibpd, struct orca_pd, ibpd);
}

static inline struct orca_cq *to_ocq(struct ib_cq *ibcq)
{
	return container_of(ibcq, struct orca_cq, ibcq);
}

static inline struct orca_qp *to_oqp(struct ib_qp *ibqp)
{
	return container_of(ibqp, struct orca_qp, ibqp);
}

static inline struct orca_srq *to_osrq(struct ib_srq *ibsrq)
{
	return container_of(ibsrq, struct orca_srq, ibsrq);
}

static inline struct orca_mr *to_omr(struct ib_mr *ibmr)
{
	return container_of(ibmr, struct orca_mr, ibmr);
}

static inline struct orca_ah *to_oah(struct ib_ah *ibah)
{
	return container_of(ibah, struct orca_ah, ibah);
}

static inline u32 orca_rd32(struct orca_dev *odev, u32 reg)
{
	return readl(odev->regs + reg);
}

static inline void orca_wr32(struct orca_dev *odev, u32 reg, u32 val)
{
	writel(val, odev->regs + reg);
}

static inline bool orca_dev_is_dead(struct orca_dev *odev)
{
	return test_bit(ORCA_DEV_DEAD, &odev->flags);
}

static inline bool orca_dev_is_fenced(struct orca_dev *odev)
{
	return test_bit(ORCA_DEV_FENCED, &odev->flags);
}

/* orca_main.c: bring-up and teardown of an orca_dev, and its death */
struct orca_dev *orca_dev_create(struct orca_pf *pf);
void orca_dev_destroy(struct orca_dev *odev);
void orca_dev_mark_dead(struct orca_dev *odev, const char *reason);
void orca_dev_kick_flush(struct orca_dev *odev);

/* orca_devlink.c: the devlink instance and its fw_fatal health reporter */
struct orca_pf *orca_pf_alloc(struct pci_dev *pdev);
int orca_pf_register(struct orca_pf *pf);
void orca_pf_unregister(struct orca_pf *pf);
void orca_pf_free(struct orca_pf *pf);
void orca_devlink_report_dead(struct orca_dev *odev);

/* orca_eq.c */
#define ORCA_QP_EVENT_TYPES	(BIT(ORCA_EQE_QP_FATAL) | \
				 BIT(ORCA_EQE_QP_REQ_ERR) | \
				 BIT(ORCA_EQE_QP_ACCESS_ERR) | \
				 BIT(ORCA_EQE_QP_LAST_WQE) | \
				 BIT(ORCA_EQE_SQ_DRAINED) | \
				 BIT(ORCA_EQE_COMM_EST))

int orca_async_eq_init(struct orca_dev *odev);
void orca_async_eq_cleanup(struct orca_dev *odev);
int orca_comp_eqs_init(struct orca_dev *odev);
void orca_comp_eqs_cleanup(struct orca_dev *odev);
int orca_comp_eq_bind_cq(struct orca_dev *odev, u32 comp_vector, u32 *eqn);
void orca_comp_eq_unbind_cq(struct orca_dev *odev, u32 eqn, u32 cqn);
void orca_async_eq_scrub(struct orca_dev *odev, u32 types, u32 handle);
void orca_unknown_object_event(struct orca_dev *odev, const char *what,
			       u32 handle);

/* orca_health.c: the watchdog, the fence and the kept memory */
bool orca_dev_fence_dead(struct orca_dev *odev, const char *reason);
void orca_dev_fence(struct orca_dev *odev);
int orca_dev_reset(struct orca_dev *odev);
bool orca_dev_may_free(struct orca_dev *odev, int err, const char *what,
		       u32 handle);
void orca_dev_keep(struct orca_dev *odev, const void *mem, size_t size,
		   void (*release)(struct orca_dev *odev, void *mem));
int orca_kept_init(struct orca_dev *odev);
void orca_kept_cleanup(struct orca_dev *odev);
void orca_dev_quiesce(struct orca_dev *odev);
int orca_health_init(struct orca_dev *odev);
void orca_health_cleanup(struct orca_dev *odev);

/* orca_port.c */
int orca_port_init_hw(struct orca_dev *odev);
int orca_port_init(struct orca_dev *odev);
void orca_port_cleanup(struct orca_dev *odev);
void orca_port_changed(struct orca_dev *odev);
int orca_query_port(struct ib_device *ibdev, u32 port,
		    struct ib_port_attr *attr);
int orca_get_port_immutable(struct ib_device *ibdev, u32 port,
			    struct ib_port_immutable *immutable);
enum rdma_link_layer orca_get_link_layer(struct ib_device *ibdev, u32 port);
int orca_query_pkey(struct ib_device *ibdev, u32 port, u16 index, u16 *pkey);
int orca_add_gid(const struct ib_gid_attr *attr, void **context);
int orca_del_gid(const struct ib_gid_attr *attr, void **context);

/* orca_queue.c: DMA memory of queues, page lists and doorbell records */
u8 orca_dev_page_shift(const struct orca_dev *odev);
int orca_qbuf_alloc(struct orca_dev *odev, struct orca_qbuf *q, size_t size);
void orca_qbuf_free(struct orca_dev *odev, struct orca_qbuf *q);
void orca_qbuf_ring(const struct orca_qbuf *q, const struct orca_pgl *pgl,
		    struct orca_com_ring *ring);
int orca_db_pool_init(struct orca_dev *odev);
void orca_db_pool_cleanup(struct orca_dev *odev);
int orca_pgl_alloc(struct orca_dev *odev, struct orca_pgl *pgl, u32 npages);
void orca_pgl_add_qbuf(struct orca_pgl *pgl, const struct orca_qbuf *q);
void orca_pgl_free(struct orca_dev *odev, struct orca_pgl *pgl);
void *orca_db_alloc(struct orca_dev *odev, dma_addr_t *dma);
void orca_db_free(struct orca_dev *odev, void *db, dma_addr_t dma);
int orca_queue_log_depth(u32 entries, u32 max, u8 *log_depth);

/* orca_ucontext.c: user contexts, their UAR page and doorbell records */
int orca_alloc_ucontext(struct ib_ucontext *ibuctx, struct ib_udata *udata);
void orca_dealloc_ucontext(struct ib_ucontext *ibuctx);
void orca_disassociate_ucontext(struct ib_ucontext *ibuctx);
int orca_mmap(struct ib_ucontext *ibuctx, struct vm_area_struct *vma);
void orca_mmap_free(struct rdma_user_mmap_entry *entry);
int orca_udb_get(struct orca_ucontext *uctx, u64 va, size_t len,
		 struct orca_udb_page **page, dma_addr_t *dma);
void orca_udb_put(struct orca_udb_page *page);
void orca_udb_read(const struct orca_udb_page *page, dma_addr_t dma,
		   void *buf, size_t len);

/* orca_umem.c: user queue rings */
#define ORCA_UQUEUE_PAGE_SHIFT	12
int orca_uring_check(u64 va, u64 len, size_t bytes, size_t *needed);
struct ib_umem *orca_uring_get(struct orca_dev *odev, u64 va, size_t needed);
int orca_pgl_add_umem(struct orca_pgl *pgl, struct ib_umem *umem,
		      size_t needed);
int orca_uqueue_create(struct orca_ucontext *uctx, struct orca_cq *cq,
		       struct orca_srq *srq, size_t needed, u64 db_rec_va,
		       struct ib_udata *udata);

/* orca_stats.c: rdma_hw_stats from QUERY_STATS */
struct rdma_hw_stats *orca_alloc_hw_port_stats(struct ib_device *ibdev,
					       u32 port_num);
int orca_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
		      u32 port_num, int index);

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

/* orca_device.c: the device's capabilities and attributes */
int orca_caps_init(struct orca_dev *odev);
int orca_query_device(struct ib_device *ibdev, struct ib_device_attr *attr,
		      struct ib_udata *udata);
void orca_get_dev_fw_str(struct ib_device *ibdev, char *str);
extern const struct attribute_group orca_dev_attr_group;

/* orca_pd.c */
int orca_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);
int orca_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);

/* orca_cq.c */
int orca_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		   struct uverbs_attr_bundle *attrs);
int orca_cq_setup(struct orca_dev *odev, struct orca_cq *cq,
		  const struct ib_cq_init_attr *attr, size_t *bytes);
int orca_cq_finish(struct orca_dev *odev, struct orca_cq *cq,
		   const struct orca_pgl *pgl, bool *may_free);
bool orca_cq_remove(struct orca_dev *odev, struct orca_cq *cq);
struct orca_cq *orca_cq_get(struct orca_dev *odev, u32 cqn);
void orca_cq_put(struct orca_cq *cq);
int orca_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata);
int orca_modify_cq(struct ib_cq *ibcq, u16 cq_count, u16 cq_period);
void orca_cq_comp_event(struct orca_dev *odev, u32 cqn);
void orca_cq_async_event(struct orca_dev *odev, u32 cqn);
void orca_cq_kick_armed(struct orca_dev *odev);

/* orca_user_cq.c */
int orca_create_user_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
			struct uverbs_attr_bundle *attrs);
int orca_resize_user_cq(struct ib_cq *ibcq, unsigned int cqe,
			struct ib_udata *udata);

/* orca_qp.c */
int orca_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init_attr,
		   struct ib_udata *udata);
int orca_qp_setup(struct orca_dev *odev, struct orca_qp *qp,
		  struct ib_qp_init_attr *init, struct orca_com_qp_params *p);
int orca_qp_finish(struct orca_dev *odev, struct orca_qp *qp,
		   const struct orca_com_qp_params *p, bool *may_free);
bool orca_qp_remove(struct orca_dev *odev, struct orca_qp *qp);
struct orca_qp *orca_qp_get(struct orca_dev *odev, u32 qpn);
void orca_qp_put(struct orca_qp *qp);
int orca_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		   struct ib_udata *udata);
int orca_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		  struct ib_qp_init_attr *init_attr);
int orca_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata);
void orca_qp_async_event(struct orca_dev *odev, u32 qpn,
			 enum ib_event_type type);
void orca_qp_set_err_state(struct orca_qp *qp, enum ib_qp_state state);
void orca_qp_dead_last_wqe(struct orca_dev *odev);

/* orca_user_qp.c */
int orca_create_user_qp(struct orca_qp *qp, struct ib_qp_init_attr *init,
			struct orca_com_qp_params *p, struct ib_udata *udata);
void orca_user_qp_free(struct orca_qp *qp);

/* orca_post.c: send and receive work requests */
int orca_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		   const struct ib_send_wr **bad_wr);
int orca_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		   const struct ib_recv_wr **bad_wr);
int orca_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
		       const struct ib_recv_wr **bad_wr);
void orca_qp_reset_indices(struct orca_qp *qp);

/* orca_poll.c: completions */
int orca_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc);
int orca_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags);
void orca_qp_clean_cqs(struct orca_dev *odev, struct orca_qp *qp,
		       bool unlink);

/* orca_mr.c */
struct ib_mr *orca_get_dma_mr(struct ib_pd *ibpd, int access);
struct ib_mr *orca_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type type,
			    u32 max_num_sg);
int orca_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		   unsigned int *sg_offset);
int orca_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata);

/* orca_user_mr.c */
struct ib_mr *orca_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
			       u64 iova, int access, struct ib_dmah *dmah,
			       struct ib_udata *udata);

/* orca_ah.c */
void orca_av_from_ah_attr(struct orca_com_av *av,
			  const struct rdma_ah_attr *ah_attr);
int orca_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init_attr,
		   struct ib_udata *udata);
int orca_create_user_ah(struct ib_ah *ibah,
			struct rdma_ah_init_attr *init_attr,
			struct ib_udata *udata);
int orca_destroy_ah(struct ib_ah *ibah, u32 flags);
int orca_ah_orphans_init(struct orca_dev *odev);
void orca_ah_stop_orphans(struct orca_dev *odev);
void orca_ah_orphans_cleanup(struct orca_dev *odev);
void orca_ah_flush_orphans(struct orca_dev *odev);

/* orca_srq.c */
int orca_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init_attr,
		    struct ib_udata *udata);
int orca_srq_finish(struct orca_dev *odev, struct orca_srq *srq,
		    const struct orca_pgl *pgl, bool *may_free);
bool orca_srq_remove(struct orca_dev *odev, struct orca_srq *srq);
bool orca_srq_complete(struct orca_srq *srq, u16 wqe_idx, u64 *wr_id);
int orca_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		    enum ib_srq_attr_mask mask, struct ib_udata *udata);
int orca_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr);
int orca_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata);
void orca_srq_async_event(struct orca_dev *odev, u32 srqn,
			  enum ib_event_type type);

/* orca_user_srq.c */
int orca_create_user_srq(struct orca_srq *srq, size_t bytes,
			 struct ib_udata *udata);

#endif /* ORCA_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ORCA RoCE HCA driver: the device (struct orca_dev and what it embeds),
 * its register access, the DMA memory of its queues, and the prototypes
 * of the files that make up the device itself: its bring-up and death
 * (orca_main.c), its health (orca_health.c), its queue memory
 * (orca_queue.c) and its capabilities (orca_device.c).  The command queue
 * (orca_cmdq.h) and the typed commands (orca_com.h) come with it; each
 * later layer has its own header: orca_eq.h, orca_port.h, orca_verbs.h
 * (verbs objects), orca_diag.h, orca_user.h (user verbs and the uverbs
 * ABI) and orca_devlink.h.
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

#include "orca_cmdq.h"
#include "orca_com.h"
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
	ORCA_DRV_STAT_BAD_USER_QUEUES,	/* user rings refused: geometry, memory */
	/* On-demand paging (orca_odp.c) */
	ORCA_DRV_STAT_ODP_FAULTS,	/* page faults taken */
	ORCA_DRV_STAT_ODP_FAULT_ERRORS,	/* ... ended unresolved (FAIL) */
	ORCA_DRV_STAT_ODP_PAGES,	/* pages installed */
	ORCA_DRV_STAT_ODP_STALE,	/* faults cancelled before resolved */
	ORCA_DRV_STAT_ODP_INVALIDATIONS, /* MR_INVALIDATEs sent */
	ORCA_DRV_STAT_ODP_FAULT_US,	/* event to resolution, summed (us) */
	ORCA_DRV_STAT_ODP_FAULT_US_MAX,	/* ... the longest */
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
	/* ORCA_DEV_CAP_MW, else 0: memory windows */
	u32 max_mw;
	/* ORCA_DEV_CAP_MCAST, else 0: ATTACH_MCAST's limits */
	u32 max_mcast_grp;
	u32 max_mcast_qp_attach;
	/* ORCA_DEV_CAP_XRC, else 0: XRC domains */
	u32 max_xrcd;
	/* ORCA_DEV_CAP_ODP, else 0: on-demand paging (ORCA_ODP_OP_*) */
	u32 odp_rc_ops;
	u32 odp_ud_ops;
	u32 odp_xrc_ops;
	u16 odp_max_faults;
	u16 odp_max_install_pages;
	u32 odp_caps;			/* ORCA_ODP_CAP_* */
	u8 odp_implicit_va_bits;	/* ORCA_ODP_CAP_IMPLICIT: [0, 2^n) */
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
 * @async_wq: EQ 0: @async_work's own queue (WQ_MEM_RECLAIM: the commands
 *	an on-demand MR's mmu notifier sends in reclaim complete through
 *	EQ 0, which must not wait for a new worker then)
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
	struct workqueue_struct *async_wq;
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

struct orca_odp_fault;

/**
 * struct orca_odp - on-demand paging (orca_odp.c), with ORCA_DEV_CAP_ODP
 * @wq: the fault work's queue (WQ_MEM_RECLAIM: the notifier may wait)
 * @setup_lock: serializes the lazy SET_ODP
 * @max_faults: slots of @table and @slots, once set up
 * @slots: per slot: the record copied from @table and its work
 * @table: the records the device writes (SET_ODP)
 * @table_dma: its bus address
 * @mrs: on-demand MRs by MR index, for the fault records' keys
 */
struct orca_odp {
	struct workqueue_struct *wq;
	struct mutex setup_lock;	/* serializes the lazy SET_ODP */
	u32 max_faults;
	struct orca_odp_fault *slots;
	struct orca_page_fault *table;
	dma_addr_t table_dma;
	struct xarray mrs;
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
 * @odp: on-demand paging (orca_odp.c)
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
	struct orca_odp odp;
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

static inline void orca_drv_stat_add(struct orca_dev *odev,
				     enum orca_drv_stat stat, u64 n)
{
	atomic64_add(n, &odev->drv_stats[stat]);
}

/* Raises counter @stat to @n if it is lower: a high-water mark. */
static inline void orca_drv_stat_max(struct orca_dev *odev,
				     enum orca_drv_stat stat, u64 n)
{
	s64 old = atomic64_read(&odev->drv_stats[stat]);

	while ((u64)old < n &&
	       !atomic64_try_cmpxchg(&odev->drv_stats[stat], &old, n))
		;
}

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

static inline struct orca_dev *to_odev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct orca_dev, ibdev);
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

/* orca_device.c: the device's capabilities and attributes */
int orca_caps_init(struct orca_dev *odev);
int orca_query_device(struct ib_device *ibdev, struct ib_device_attr *attr,
		      struct ib_udata *udata);
void orca_get_dev_fw_str(struct ib_device *ibdev, char *str);
extern const struct attribute_group orca_dev_attr_group;

/* orca_odp.c: on-demand paging, the device's side of it */
void orca_odp_query(struct orca_dev *odev, struct ib_device_attr *attr);
void orca_odp_fault_event(struct orca_dev *odev, const struct orca_eqe *eqe);
int orca_odp_init(struct orca_dev *odev);
void orca_odp_cleanup(struct orca_dev *odev);

#endif /* ORCA_H */

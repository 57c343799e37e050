/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The engine's state: the register file, the command queue's running
 * state, and the resource objects the firmware commands create; and the
 * hooks by which the layers above the engine core register the work its
 * thread runs (struct engine_work_ops).
 *
 * Who includes it: the engine's own files (engine/), and the RoCEv2
 * transport (roce/roce_priv.h), which runs on the engine thread and works
 * on these objects (QPs, CQs, MRs, their pages) and posts events.  The
 * command handlers take it through cmd_toolkit.h.  Nothing of the shell
 * (vfio/, port/, main.c) includes it: engine.h is the engine's interface
 * for them.
 *
 * Threading: registers, doorbells and the flags that wake the engine thread
 * are protected by eng->lock, which is only ever held for a few loads and
 * stores (the socket thread must never wait behind a command).  Every
 * resource object is owned by the engine thread: commands, event posting and
 * reset all run there, so objects need no locking.
 */
#ifndef ORCA_EMU_ENGINE_PRIV_H
#define ORCA_EMU_ENGINE_PRIV_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "orca_hw.h"

#include "engine.h"
#include "util/log.h"
#include "util/objtab.h"
#include "util/timer_heap.h"

struct roce_dev;			/* the transport's, roce/roce_priv.h */
struct roce_qp;

/* Device limits: handle spaces and what QUERY_DEVICE advertises. */
#define EMU_MAX_EQ		64
#define EMU_MAX_UAR		ORCA_NUM_UARS
#define EMU_TAB_LIMIT		65536	/* PD, CQ, AH, SRQ */
#define EMU_MAX_XRCD		64	/* XRC domains (1.6) at a time */
/*
 * QPNs 2 .. 2^17 - 1 (plus the GSI QP): 64K connected QPs and more fit,
 * as far as the memory budget goes (an idle QP costs about 3 KiB of it).
 */
#define EMU_QP_LIMIT		(1u << 17)
#define EMU_MR_LIMIT		(1u << 20)
#define EMU_LOG_MAX_CMDQ	8
#define EMU_LOG_MAX_EQ		16
/*
 * 256K CQEs (8 MiB): libfabric's verbs;ofi_rxm (2.1) opens one CQ for all of
 * an endpoint's connections, sized for FI_UNIVERSE_SIZE (1024) peers of 128
 * sends and 128 receives each, and fails fi_enable() on a device with less.
 */
#define EMU_LOG_MAX_CQ		18
#define EMU_LOG_MAX_WQ		14		/* SQ, RQ and SRQ */
static_assert(EMU_LOG_MAX_WQ <= ORCA_MAX_LOG_WQ_DEPTH, "CQE wqe_idx");
#define EMU_MAX_INLINE		ORCA_MAX_INLINE_DATA
#define EMU_MAX_RD_ATOM		128
#define EMU_MAX_FRPL		65536	/* 256 MiB in 4 KiB pages */
#define EMU_MAX_MR_PAGES	(1u << 21)
#define EMU_MAX_MR_SIZE		((uint64_t)EMU_MAX_MR_PAGES << 12) /* 8 GiB */
#define EMU_GID_TABLE_LEN	128
#define EMU_MAX_IB_MTU		5		/* 4096 */
#define EMU_SPEED_MBPS		25000
#define EMU_CMD_TIMEOUT_MS	5000
#define EMU_RESET_TIMEOUT_MS	2000
#define EMU_FAIL_DESTROY_MAX	1000	/* "fail-destroy N" */
#define EMU_DUP_HANDLE_MAX	1000	/* "dup-handle N" */
#define EMU_FW_VERSION		0x010a0000	/* 1.10.0 */
/* QUERY_DEVICE identity (1.2, ORCA_DEV_CAP_IDENTITY). */
#define EMU_HCA_TYPE		"ORCA-EMU"
#define EMU_BOARD_ID		"ORCA_EMU_0001"
/*
 * MODIFY_CQ's limits (1.3, ORCA_DEV_CAP_CQ_MODERATION).  A count of 12
 * bits, as mlx5's.  The period goes to 15 bits (~33 ms), beyond mlx5's
 * 4095 us: completions of this adapter in a guest without hardware
 * virtualization come milliseconds apart, and a consumer that coalesces
 * them needs a period that covers several.  Both stay below what the
 * verbs API can ask (u16), so that asking too much is refused, testably.
 */
#define EMU_MAX_CQ_MOD_COUNT	4095		/* CQEs */
#define EMU_MAX_CQ_MOD_PERIOD	32767		/* microseconds */
#define EMU_QPN_GSI		1
/*
 * UD multicast (1.4, ORCA_DEV_CAP_MCAST): groups with a QP attached, and
 * QPs attached to one group (rxe's per-group limit).
 */
#define EMU_MAX_MCAST_GRP	256
#define EMU_MAX_MCAST_QP_ATTACH	56
#define EMU_EQ_DB_CI_MASK	ORCA_EQ_DB_CI
/*
 * The adapter's memory for what commands make it keep (programming
 * interface, command-interface.rst, "Device memory"): every object costs
 * EMU_OBJ_COST, every page list 8 bytes a page (a FAST_REG MR its
 * max_pages), a QP also its transport state.  A command that would pass the
 * budget fails with NO_RESOURCES, whatever the max_* caps say.
 */
#define EMU_MEM_BUDGET		(256ull << 20)
#define EMU_OBJ_COST		1024
/*
 * On-demand paging (1.10, odp.c, cmd_odp.c): outstanding faults, pages
 * one MR_INSTALL may carry, the fault timeout (the default and the most a
 * driver may set, and the least), and the fault record's device memory.
 */
#define EMU_ODP_MAX_FAULTS	256
#define EMU_ODP_MAX_INSTALL	4096
#define EMU_ODP_TIMEOUT_MS	30000
#define EMU_ODP_MIN_TIMEOUT_MS	100
#define EMU_ODP_VA_BITS		57
#define EMU_ODP_SLOT_COST	64

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#endif

#define eng_log(fmt, ...)	emu_log("engine: " fmt, ##__VA_ARGS__)
#define eng_dbg(fmt, ...)	emu_dbg("engine: " fmt, ##__VA_ARGS__)
/* A line the guest can cause at will: rate-limited (log.h). */
#define eng_log_guest(fmt, ...)	emu_log_guest("engine: " fmt, ##__VA_ARGS__)

/* The device memory budget (EMU_MEM_BUDGET); engine thread only. */
struct emu_mem {
	uint64_t used, limit, peak;
	uint64_t refused;		/* commands failed for it */
};

/*
 * A queue's or MR's pages, copied from the command (never re-read).
 * @charged bytes of @mem's budget go with it and return in engine_pages_free().
 */
struct emu_pages {
	uint32_t npages;
	uint8_t page_shift;
	uint64_t *addr;
	struct emu_mem *mem;
	uint64_t charged;
};

/*
 * An implicit on-demand MR's translations (xlt_sparse.c): 2 MiB leaves of
 * 4 KiB pages' ORCA_XLT_* entries, hashed by leaf number, each charged
 * EMU_XLT_LEAF_COST of @mem while it holds a present entry.
 */
#define EMU_XLT_LEAF_ENTRIES	512
#define EMU_XLT_LEAF_COST	4096

struct emu_xlt_leaf {
	struct emu_xlt_leaf *next;
	uint64_t leaf;			/* page number / EMU_XLT_LEAF_ENTRIES */
	uint32_t present;		/* entries not 0 */
	uint64_t e[EMU_XLT_LEAF_ENTRIES];
};

struct emu_xlt_sparse {
	struct emu_xlt_leaf **bucket;
	uint32_t nbuckets;		/* a power of two, or 0 */
	uint32_t nleaves;
	struct emu_mem *mem;
};

struct emu_uar {
	uint32_t refcnt;		/* CQs, QPs and SRQs ringing here */
};

struct emu_pd {
	uint32_t refcnt;		/* MRs, QPs, AHs, SRQs */
};

/* An XRC domain (1.6, ALLOC_XRCD, cmd_xrcd.c). */
struct emu_xrcd {
	uint32_t refcnt;		/* its XRC SRQs and XRC target QPs */
};

struct emu_eq {
	uint32_t eqn;
	uint8_t log_depth;
	uint16_t vector;
	struct emu_pages buf;
	uint32_t pi;			/* free running; phase by pass */
	uint32_t ci;			/* last EQ_DB value, modulo 2^20 */
	bool armed;
	uint32_t refcnt;		/* CQs */
};

struct emu_cq {
	uint32_t cqn;
	uint8_t log_depth;
	uint32_t eqn;
	uint32_t uar;
	uint64_t db_rec;
	struct emu_pages buf;
	uint32_t pi;			/* for the data path */
	uint32_t refcnt;		/* QP bindings (send, recv), XRC SRQs */
	/* RoCE data path (roce_cq.c): arming and overrun. */
	uint32_t arm_fired;		/* arm sequence last fired for */
	uint32_t sol_idx;		/* last solicited or error CQE */
	bool sol_valid;
	bool overrun;
	uint32_t overruns;		/* CQEs refused for lack of room */
	/*
	 * Event moderation (MODIFY_CQ, roce_cq.c): matching CQEs counted
	 * for the arm mod_seq and not yet reported, and the period's timer
	 * from the first of them (in roce_dev's heap of CQ timers).
	 */
	uint16_t mod_count;		/* CQEs; 0: off */
	uint16_t mod_period;		/* us; 0: off */
	uint32_t mod_seq;		/* the arm the count belongs to */
	uint32_t mod_pending;
	struct timer_node mod_timer;
};

struct emu_srq {
	uint32_t srqn;
	uint32_t pdn;
	uint8_t log_depth;
	uint8_t max_sge;
	bool tagged;			/* ORCA_CREATE_SRQ_F_TAG (1.5) */
	/*
	 * ORCA_CREATE_SRQ_F_XRC (1.6): an XRC SRQ of domain xrcdn, whose
	 * receive CQEs go to CQ cqn; it holds a reference on both.
	 */
	bool xrc;
	uint32_t cqn, xrcdn;
	uint32_t limit;			/* SRQ_LIMIT threshold; 0: off */
	uint32_t uar;
	uint64_t db_rec;
	struct emu_pages buf;
	uint32_t refcnt;		/* QPs */
	uint32_t ci;			/* RoCE data path: WQEs taken */
};

struct emu_mr {
	uint32_t index;
	uint8_t key;
	uint32_t pdn;
	uint32_t access;
	uint32_t flags;			/* ORCA_MR_F_* */
	bool valid;			/* FAST_REG MRs start invalid */
	uint64_t iova;
	uint64_t length;
	uint32_t max_pages;		/* FAST_REG */
	uint8_t fr_page_shift;		/* FAST_REG: CREATE_MR's page size */
	struct emu_pages pages;
	struct emu_xlt_sparse xlt;	/* ORCA_MR_F_IMPLICIT: not pages */
	uint32_t mw_binds;		/* MR: windows bound to it */
	/*
	 * A memory window (1.4) shares the MRs' table and key space: then
	 * mw_type is ORCA_MW_TYPE_*, and once bound (valid with a length)
	 * iova/length/access are the window's as the wire addresses it,
	 * mw_base the MR address of its first byte and mw_mr the MR's index.
	 */
	uint8_t mw_type;		/* 0: an MR */
	uint32_t mw_mr;
	uint64_t mw_base;
	uint64_t mw_qp_serial;		/* type 2: the QP it was bound through */
};

/*
 * On-demand paging (1.10): the fault slots SET_ODP configured (odp.c).
 * A slot is busy from the fault's post until a resume, a fail, its
 * timeout or a cancellation frees it; gen makes each use's token unique.
 */
struct emu_odp_slot {
	bool busy;
	uint8_t kind;			/* enum orca_page_fault_kind */
	uint16_t gen;			/* the token's generation, never 0 */
	uint32_t qpn;
	uint32_t mr_index;
	uint64_t deadline_us;
};

struct emu_odp {
	uint64_t table;			/* the records' DMA address; 0: none */
	uint16_t max_faults;
	uint16_t outstanding;
	uint32_t timeout_ms;
	uint32_t on_demand_mrs;		/* SET_ODP is refused while any */
	uint64_t charged;		/* device memory of the slots */
	/* The earliest slot deadline (0: none); read under eng->lock too. */
	_Atomic uint64_t next_deadline_us;
	/* "odp-drop-faults N": faults left to hold without a record. */
	_Atomic uint32_t drop_faults;
	/* "odp-fault-timeout MS": overrides SET_ODP's (0: not set). */
	_Atomic uint32_t timeout_override_ms;
	uint64_t faults, timeouts, stale_resumes;
	struct emu_odp_slot slot[EMU_ODP_MAX_FAULTS];
};

struct emu_ah {
	uint32_t pdn;
	struct orca_av av;
};

struct emu_qp {
	uint32_t qpn;
	uint8_t type;			/* ORCA_QPT_* */
	uint32_t flags;			/* ORCA_QP_F_* */
	uint8_t state;			/* enum orca_qp_state */
	uint32_t pdn, send_cqn, recv_cqn, srqn, uar;
	uint32_t xrcdn;			/* ORCA_QPT_XRC_TGT (1.6): its domain */
	uint64_t db_rec;
	uint8_t log_sq_depth, log_rq_depth;
	uint8_t max_send_sge, max_recv_sge;
	uint16_t max_inline;
	uint32_t sq_npages;		/* buf: SQ pages, then RQ pages */
	struct emu_pages buf;
	/* Attributes as last set by MODIFY_QP (QUERY_QP reads them back). */
	struct orca_qp_attr attr;
	bool sqd_notify;
	/* Data path state: reset to 0 on RESET, flushed on ERR. */
	uint32_t sq_ci, rq_ci;
	bool flush_pending;
	struct roce_qp *roce;		/* transport state, roce_qp.c */
	/* Responder resources the budget holds for (>= 1, only grows). */
	uint8_t resp_res;
	/* Unique for the adapter's life: a type 2 window's QP (roce_mr.c). */
	uint64_t serial;
};

/*
 * A multicast group: a MGID and the UD QPs attached to it (ATTACH_MCAST).
 * A slot with no QP is free.
 */
struct emu_mcg {
	uint8_t mgid[16];
	uint32_t nqp;
	uint32_t qpn[EMU_MAX_MCAST_QP_ATTACH];
};

struct emu_gid {
	uint8_t type;			/* 0: empty; ORCA_GID_TYPE_* */
	uint8_t mac[6];
	uint16_t vlan;
	uint8_t gid[16];
};

struct engine_stats {
	uint64_t cmds;
	uint64_t cmd_status[ORCA_CMD_ST_INTERNAL + 1];
	uint64_t events;
	uint64_t irqs;
	uint64_t uar_writes;
	uint64_t resets;
};

struct orca_engine {
	struct emu_host host;
	struct emu_config cfg;
	pthread_t thread;
	pid_t tid;	/* the engine thread's, once it runs: /proc, perf */

	/* --- protected by lock (socket thread <-> engine thread) --- */
	pthread_mutex_t lock;
	/*
	 * The engine thread sleeps in poll() on wake_fd (an eventfd) and on
	 * what the data path gives it (its port's lane); asleep says it may
	 * be there, and engine_wake_locked() writes wake_fd only then.
	 */
	int wake_fd;
	bool asleep;
	pthread_cond_t idle;		/* flush/reset waiters */
	uint32_t status;		/* ORCA_STATUS_* */
	uint32_t syndrome;
	uint64_t cmdq_base, cmdq_comp_base;
	uint32_t cmdq_cfg;
	uint16_t cmdq_pi;		/* last CMDQ_DB value */
	uint16_t cmdq_ci;		/* next command to run */
	uint8_t cmdq_log_depth;		/* latched at CMDQ_ENABLE */
	uint32_t cmdq_gen;		/* bumped by enable/disable/reset */
	uint64_t cmdq_run_base, cmdq_run_comp;
	bool hang;
	bool hb_stop;			/* "heartbeat-stop": only the heartbeat */
	uint64_t hb_start_ms;		/* heartbeat epoch */
	uint32_t hb_frozen;
	/* "slow MS": each command completes no sooner than MS ms after it
	 * became the next one to run; slow_ci/slow_gen say which one. */
	uint32_t slow_ms;
	bool slow_timing;
	uint16_t slow_ci;
	uint32_t slow_gen;
	uint64_t slow_start_us;
	/* "garbage-eqe"/"garbage-cqe": malformed entries to write. */
	bool garbage_eqe, garbage_cqe;
	/* "fail-destroy N": DESTROY_CQ/QP/SRQ/MR commands left to refuse. */
	_Atomic uint32_t fail_destroys;
	/*
	 * "dup-handle N": CREATE_CQ/QP/SRQ commands left to answer with the
	 * handle of dup_ref[kind] (CQ, QP, SRQ), the first one of their kind
	 * made since the word; UINT32_MAX: none yet.
	 */
	_Atomic uint32_t dup_handles;
	_Atomic uint32_t dup_ref[3];
	/* "wrid-lie on": CQEs carry a false wr_id; how many did so far. */
	_Atomic bool wrid_lie;
	_Atomic uint64_t wrid_lies;
	/* A hang or heartbeat-stop is in place and no reset happened since. */
	bool fault_active;
	uint64_t fault_resets;		/* stats.resets when it began */
	bool stop;
	bool reset_req;
	uint64_t reset_ticket;		/* reset requests so far */
	uint64_t reset_done;		/* last request a reset served */
	bool busy;			/* engine thread is working */
	bool link_up;
	bool link_event;		/* PORT_CHANGE to post */
	bool fatal_event;		/* DEVICE_FATAL to post */
	struct {
		uint32_t ci;
		bool arm;
	} eq_db[EMU_MAX_EQ];
	uint64_t eq_db_pending;		/* bit per eqn */
	bool uar_pending;		/* UAR write: data path hook */
	struct engine_stats stats;
	uint16_t last_cmd_opcode;	/* for the diagnostic dump */
	uint8_t last_cmd_status;
	/*
	 * The diagnostic dump window (dump.c): a snapshot request for the
	 * engine thread, then the snapshot the registers read.
	 */
	bool dump_req;			/* DUMP_CTRL asked for a snapshot */
	bool dump_busy;			/* ... and it is not complete yet */
	uint8_t *dump;			/* the snapshot, dump_len bytes */
	uint32_t dump_len;
	uint32_t dump_off;		/* ORCA_REG_DUMP_OFFSET */

	/*
	 * --- atomics: set on the socket thread, read on every DMA ---
	 * bus_master mirrors the PCI command register's Bus Master Enable.
	 * late_window is set by a "resume" that revived work which no reset
	 * ended (the driver gave that work up) and cleared by a reset.
	 */
	atomic_bool bus_master;
	atomic_bool late_window;
	atomic_uint_fast64_t dma_blocked;	/* attempts with BME clear */
	atomic_uint_fast64_t dma_late;		/* done in the late window */

	/* --- engine thread only --- */
	struct emu_mem mem;
	bool eq_stopped;		/* after a fatal error: post nothing */
	struct objtab eqs, uars, pds, cqs, mrs, qps, ahs, srqs, xrcds;
	uint64_t qp_serial;		/* the last QP's serial (emu_qp) */
	struct emu_qp *gsi_qp;		/* QPN 1, outside the table */
	uint32_t eth_mtu;
	uint8_t active_mtu;		/* IB MTU for eth_mtu */
	struct emu_gid gids[EMU_GID_TABLE_LEN];
	struct emu_mcg mcgs[EMU_MAX_MCAST_GRP];
	struct emu_odp odp;		/* 1.10 on-demand paging, odp.c */
	const struct engine_work_ops *work;	/* device.c's */
	struct roce_dev *roce;		/* the RoCEv2 transport, roce/ */
};

/* engine.c */
void engine_set_fatal(struct orca_engine *eng, uint32_t syndrome);
uint32_t engine_heartbeat_locked(struct orca_engine *eng);
void *engine_dma(struct orca_engine *eng, uint64_t addr, size_t len);
void engine_irq(struct orca_engine *eng, unsigned int vector);
void engine_free_objects(struct orca_engine *eng);
void engine_init_port(struct orca_engine *eng);

/*
 * dump.c: the diagnostic dump.  engine_dump_take() runs on the engine thread,
 * without the lock (it reads engine-thread objects), and publishes the
 * snapshot under it; engine_dump_reg_*() are the window's registers, lock
 * held.
 */
void engine_dump_take(struct orca_engine *eng);
uint32_t engine_dump_reg_read_locked(struct orca_engine *eng, uint32_t off);
void engine_dump_reg_write_locked(struct orca_engine *eng, uint32_t off,
				  uint32_t val);
void engine_dump_free(struct orca_engine *eng);

/*
 * cmdq.c: the command queue's dispatcher: runs command @ci of the ring
 * latched at generation @gen.
 */
void cmdq_run_one(struct orca_engine *eng, uint16_t ci, uint64_t base,
		  uint64_t comp_base, uint8_t log_depth, uint32_t gen);

/*
 * pages.c: a queue's or MR's pages (loaded by the command handlers'
 * toolkit, cmd_toolkit.h) and the device memory budget they hold.
 */
void engine_mem_uncharge(struct emu_mem *m, uint64_t bytes);
void *engine_pages_entry(struct orca_engine *eng, const struct emu_pages *p,
			 uint64_t off, size_t len);
void engine_pages_free(struct emu_pages *p);

/*
 * pgl.c: entries [first, first + n) of the page list at @addr (a flat array,
 * or a chunk chain when @chain) into @out, host endian.  Returns PGL_OK,
 * PGL_UNMAPPED or PGL_BAD_CHUNK (zero or misaligned chunk address).  For
 * the commands' page lists and the transport's REG_MR.
 */
enum { PGL_OK, PGL_UNMAPPED, PGL_BAD_CHUNK };
int engine_pgl_read(struct orca_engine *eng, uint64_t addr, bool chain,
		    uint64_t first, uint32_t n, uint64_t *out);

/* cmd_device.c */
uint8_t engine_ib_mtu_for_eth(uint32_t eth_mtu);

/* cmd_qp.c */
struct emu_qp *engine_qp_lookup(struct orca_engine *eng, uint32_t qpn);
void engine_qp_release(void *obj, void *arg);

/*
 * An XRC target QP (1.6) has no rings, no CQs, no PD, no UAR and no
 * doorbell record: the data path never reads a queue of its own, never
 * rings for it, and takes its receive WQEs from the XRC SRQ each request
 * names.  An XRC initiator has a send queue only.
 */
static inline bool engine_qp_has_sq(const struct emu_qp *qp)
{
	return qp->type != ORCA_QPT_XRC_TGT;
}

/* The QP has a receive queue of its own (not an SRQ, not XRC). */
static inline bool engine_qp_has_rq(const struct emu_qp *qp)
{
	return qp->type != ORCA_QPT_XRC_INI && qp->type != ORCA_QPT_XRC_TGT &&
	       !(qp->flags & ORCA_QP_F_USE_SRQ);
}

/* RC and both XRC types: acknowledged, retried, RC's state machine. */
static inline bool engine_qp_is_rc(const struct emu_qp *qp)
{
	return qp->type == ORCA_QPT_RC || qp->type == ORCA_QPT_XRC_INI ||
	       qp->type == ORCA_QPT_XRC_TGT;
}

/*
 * cmd_mcast.c: the multicast groups.  engine_mcg_find() returns the group
 * of @mgid with at least one QP attached, or NULL; engine_mcg_forget_qp()
 * detaches @qpn from every group (the QP is destroyed); engine_mcg_clear()
 * empties the table (reset).
 */
bool engine_gid_is_mcast(const uint8_t gid[16]);
const struct emu_mcg *engine_mcg_find(struct orca_engine *eng,
				      const uint8_t mgid[16]);
void engine_mcg_forget_qp(struct orca_engine *eng, uint32_t qpn);
void engine_mcg_clear(struct orca_engine *eng);

/* qp_state.c */
int engine_qp_check_transition(uint8_t type, uint8_t cur, uint8_t next,
			       uint32_t mask);
void engine_qp_enter_state(struct orca_engine *eng, struct emu_qp *qp,
			   uint8_t next);
void engine_qp_reset_event_idx(struct orca_engine *eng, struct emu_qp *qp);

/*
 * eq.c: event queues: posting entries to host memory with the phase
 * protocol, interrupt arming through ORCA_REG_EQ_DB, and the overflow rule.
 * Everything here runs on the engine thread inside dma_begin/dma_end.
 */

/*
 * Posts one event on EQ @eqn: writes entry (pi % depth) with the phase bit
 * last, raises the EQ's MSI-X vector if it is armed and disarms it.
 * Returns 0, -ENOENT (no such EQ), or -EIO when the device is in the fatal
 * state or this post made it fatal (EQ full or unmapped).  The data path
 * posts ORCA_EQE_COMP for CQs through this.
 */
int engine_eq_post(struct orca_engine *eng, uint32_t eqn, uint8_t type,
		   uint32_t data, uint32_t data2);

/* The same with a subtype (ORCA_EQE_PAGE_FAULT's kind). */
int engine_eq_post_sub(struct orca_engine *eng, uint32_t eqn, uint8_t type,
		       uint8_t subtype, uint32_t data, uint32_t data2);

/* ORCA_EQE_DEVICE_FATAL on EQ 0, the one event posted after a fatal error. */
void engine_eq_post_fatal(struct orca_engine *eng, uint32_t syndrome);

/* Applies an EQ_DB write (new consumer index, optional re-arm). */
void engine_eq_doorbell(struct orca_engine *eng, uint32_t eqn, uint32_t ci,
			bool arm);

/* "garbage-eqe": malformed entries on every EQ that has room (engine.h). */
void engine_eq_post_garbage(struct orca_engine *eng);

void engine_eq_release(void *obj, void *arg);

/*
 * The work the engine thread runs for the layers above its core: the
 * command queue's dispatcher (cmdq.c), the diagnostic dump (dump.c) and
 * the data path (the RoCEv2 transport, roce/).  The engine thread only
 * decides when each may run (a command is due, a dump was asked, the
 * firmware is alive) and calls it through these hooks, which device.c
 * sets when it creates the device: engine.c names none of the layers
 * whose work it runs, so the core depends on nothing above it.  The
 * dump window's registers (engine_dump_reg_*) stay direct calls: they are
 * part of the register file and only copy the snapshot out.
 */
struct engine_data_path_ops;

struct engine_work_ops {
	/* Runs command @ci of the ring latched at generation @gen. */
	void (*run_command)(struct orca_engine *eng, uint16_t ci,
			    uint64_t base, uint64_t comp_base,
			    uint8_t log_depth, uint32_t gen);
	/* Takes the diagnostic dump's snapshot; without the lock. */
	void (*take_dump)(struct orca_engine *eng);
	const struct engine_data_path_ops *data_path;
};

/*
 * The data path's hooks.  *_locked ones are called with eng->lock held,
 * the others on the engine thread without it.
 */
struct engine_data_path_ops {
	int (*create)(struct orca_engine *eng);
	void (*destroy)(struct orca_engine *eng);
	void (*reset_locked)(struct orca_engine *eng);
	bool (*work_pending_locked)(struct orca_engine *eng);
	/* The earliest timer, 0: none. */
	uint64_t (*deadline_locked)(struct orca_engine *eng);
	/* A UAR write (socket thread: only queue it). */
	void (*doorbell_locked)(struct orca_engine *eng, uint32_t uar,
				uint32_t off, uint32_t val);
	/* One pass over the data path, inside dma_begin/dma_end. */
	void (*run)(struct orca_engine *eng);
	/* The last run did nothing but poll send queues' doorbell records. */
	bool (*poll_only)(struct orca_engine *eng);
	/* "garbage-cqe": malformed CQEs on every CQ with room. */
	void (*post_garbage)(struct orca_engine *eng);
	/* The CQ is going away: what the data path keeps for it goes too. */
	void (*cq_forget)(struct orca_engine *eng, struct emu_cq *cq);
	/*
	 * A dead adapter (hung, fatal) runs no pass but still drains the
	 * port's RoCE lane, dropping: frames are waiting (asking for a kick
	 * when none are), and drop them.
	 */
	bool (*dead_rx_locked)(struct orca_engine *eng);
	void (*drop_rx)(struct orca_engine *eng);
	/*
	 * The engine thread is about to sleep (without the lock): the file
	 * descriptor it is to poll as well, whose readiness is work (the
	 * lane's kick), or -1.  sleep_end() follows with whether it fired
	 * and lets go of it.
	 */
	int (*sleep_begin)(struct orca_engine *eng);
	void (*sleep_end)(struct orca_engine *eng, bool fired);
	/*
	 * On-demand paging (odp.c): QP @qpn's fault of @kind ended: resolved
	 * (retry where it stopped), or @fail (the step's error completion).
	 * With @qpn 0, a fault slot came free: a QP waiting for one posts.
	 */
	void (*odp_resume)(struct orca_engine *eng, uint32_t qpn,
			   uint8_t kind, bool fail);
};

/*
 * odp.c: on-demand paging's fault slots (1.10), engine thread only.
 * engine_odp_post() takes a slot for @rec (its token and generation are
 * filled in), writes the record and posts ORCA_EQE_PAGE_FAULT: > 0 the
 * token, 0 no slot is free (wait for odp_resume() with qpn 0), < 0 the
 * fault cannot be posted (no SET_ODP, the table not mapped): fail the step.
 * engine_odp_resolve() ends fault @token (true: it was outstanding).
 * engine_odp_cancel_qp() frees a QP's slots with no event and no resume;
 * engine_odp_cancel_mr() frees an MR's and resumes their QPs, which then
 * find no MR.  engine_odp_expire() fails the faults past their deadline.
 */
int64_t engine_odp_post(struct orca_engine *eng, struct orca_page_fault *rec);

/*
 * xlt_sparse.c: an implicit MR's table.  engine_xlt_get() gives page
 * @page's entry (0: none); engine_xlt_set() writes @n entries from @page
 * (0 removes one), -ENOSPC over the budget (nothing written) or -ENOMEM;
 * engine_xlt_clear() removes [page, page + n); engine_xlt_free() all.
 */
uint64_t engine_xlt_get(const struct emu_xlt_sparse *t, uint64_t page);
int engine_xlt_set(struct emu_xlt_sparse *t, uint64_t page,
		   const uint64_t *e, uint32_t n);
void engine_xlt_clear(struct emu_xlt_sparse *t, uint64_t page, uint64_t n);
void engine_xlt_free(struct emu_xlt_sparse *t);
bool engine_odp_resolve(struct orca_engine *eng, uint32_t token, bool fail);
void engine_odp_cancel_qp(struct orca_engine *eng, uint32_t qpn);
void engine_odp_cancel_mr(struct orca_engine *eng, uint32_t mr_index);
void engine_odp_expire(struct orca_engine *eng, uint64_t now_us);
void engine_odp_reset(struct orca_engine *eng);
static inline uint64_t engine_odp_deadline(struct orca_engine *eng)
{
	return atomic_load_explicit(&eng->odp.next_deadline_us,
				    memory_order_relaxed);
}

/* Work arrived for the engine thread: wakes it if it sleeps.  Under lock. */
void engine_wake_locked(struct orca_engine *eng);

/*
 * engine.c: creates the engine with @work as the work its thread runs
 * and starts the thread (engine_create() in device.c is the public face).
 */
struct orca_engine *engine_start(const struct emu_host *host,
				 const struct emu_config *cfg,
				 const struct engine_work_ops *work);

/*
 * Unbinds memory window @mw (DEALLOC_MW, invalidation, a rebind): its MR
 * loses the binding that keeps DESTROY_MR away.  Engine thread only.
 */
static inline void engine_mw_unbind(struct orca_engine *eng,
				    struct emu_mr *mw)
{
	struct emu_mr *mr;

	if (mw->length) {
		mr = objtab_get(&eng->mrs, mw->mw_mr);
		if (mr && !mr->mw_type && mr->mw_binds)
			mr->mw_binds--;
	}
	mw->iova = 0;
	mw->length = 0;
	mw->access = 0;
	mw->mw_base = 0;
	mw->mw_qp_serial = 0;
}

#endif /* ORCA_EMU_ENGINE_PRIV_H */

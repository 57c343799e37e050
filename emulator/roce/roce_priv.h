/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The adapter's RoCEv2 transport, private to roce_*.c: per-device and
 * per-QP transport state and the functions the transport files give each
 * other.  The engine calls only what roce.h declares.
 *
 * Roles, one file each, as in IBA chapter 9:
 *   roce_qp.c    glue: frame and doorbell queues, the engine thread's
 *                transport pass, QP state hooks, flushing, tx
 *   roce_sched.c which QPs a pass steps: the run list of QPs with work
 *                and the heap of their deadlines (timer_heap.c)
 *   roce_poll.c  how long a send queue found empty is polled before its
 *                event index is published
 *   roce_req.c   requester: send WQEs -> request packets, segmentation,
 *                PSNs, go-back-N retransmission
 *   roce_comp.c  completer: ACK/NAK/read response/atomic ACK handling,
 *                retry and RNR timers, send completions
 *   roce_resp.c  responder: incoming requests, receive WQEs, ACK
 *                coalescing, NAKs, duplicate READ/atomic replay, UC and
 *                UD receive
 *   roce_xrc.c   the XRC target's check of each request's XRCETH: which
 *                SRQ, of which domain, with which PD
 *   roce_mr.c    lkey/rkey lookup and checks, data movement through MRs
 *   roce_cq.c    CQE writing, CQ arming and COMP events
 *
 * Threading: everything runs on the engine thread except roce_enqueue_rx()
 * and roce_doorbell_locked(), which only append to queues under eng->lock.
 */
#ifndef ORCA_EMU_ROCE_PRIV_H
#define ORCA_EMU_ROCE_PRIV_H

#include <endian.h>
#include <stdbool.h>
#include <stdint.h>

#include "util/clock.h"
#include "engine/engine_priv.h"
#include "roce.h"
#include "util/timer_heap.h"

#define ROCE_RXQ_LEN		1024	/* frames queued for the engine */
#define ROCE_DBQ_LEN		1024	/* UAR doorbells queued */
#define ROCE_MAX_INFLIGHT	128	/* unacked request packets per QP */
#define ROCE_ACK_REQ_EVERY	32	/* AckReq at least this often */
/*
 * The send window (roce_req.c: roce_req_loss, roce_req_acked): go-back-N
 * resends everything after a lost packet, so on a wire that loses a
 * fraction p of the frames a window of W packets sends about p * W packets
 * again per packet delivered: at 5% loss with the full 128-packet window
 * the requester sent each packet 4-5 times more (test_roce_transport's
 * go_back_n_window_halves_on_loss).  Each QP keeps a window that halves on
 * a loss (once per window of packets in flight when it was seen) and grows
 * back by one packet per window of packets acknowledged (Reno's
 * multiplicative decrease and additive increase, RFC 5681's congestion
 * avoidance; still go-back-N on the wire, so rxe interoperates).  It bounds SEND and WRITE packets:
 * READ responses are the peer's, and a gap in them is asked again for that
 * READ alone.  It does not go below ROCE_CWND_MIN:
 * a loss here is random, not congestion, and a window of 2 starved the
 * 16 small WRITEs the native bench keeps outstanding (half their rate),
 * while 16 keeps them all in flight and a resend as cheap as the round
 * trip that detects it.  On a wire that loses nothing the window stays at
 * ROCE_MAX_INFLIGHT, and it goes back there once the wire has lost
 * nothing for ROCE_LOSSY_US.
 */
#define ROCE_CWND_MIN		16
#define ROCE_TX_BURST		64	/* packets per QP per engine pass */
/*
 * Early retransmission: a lost tail packet (last WRITE/SEND packet, last
 * READ response, READ request) shows no gap to anybody, and the QP's
 * timeout from rdma_cm is ~1 s.  Like other RoCE adapters we retransmit
 * early, without spending retry_cnt: only the QP's full timeout without
 * progress counts as a retry, so the time to retry exhaustion is
 * unchanged.  Duplicates are harmless to any IBA responder, but not free:
 * go-back-N sends the whole window again, and a duplicate READ request
 * makes the responder send the whole response again.  The early timeout is
 *
 *   SRTT + max(4 * RTTVAR, ROCE_RTO_NOISE_US)	(RFC 6298's SRTT and
 *   RTTVAR, Karn's rule: no sample across a retransmission)
 *
 * doubled on each early retry until the QP makes progress, and none at all
 * before the QP's first sample (RFC 6298's conservative initial RTO: the
 * full timeout).  ROCE_RTO_NOISE_US is the floor of the margin for a round
 * trip that takes longer for no fault of the wire: our adapters and the
 * switch are processes on a shared host, and a peer that is not scheduled
 * for a time slice delays its ACKs; 4 * RTTVAR covers more of that where
 * the QP has seen it.  A wire that loses nothing never sees an early
 * retransmission at all (ROCE_LOSSY_US below: stalls of hundreds of ms
 * defeat any margin), so the floor only trades, on a wire that loses,
 * a duplicate window after a stall (bounded by the send window, and the
 * doubling) against the time every lost tail packet, lost ACK and lost
 * sequence NAK costs.  At 5% loss the native bench (bench_native -l 5)
 * moved 4-5 MiB/s of 64 KiB WRITEs with a 10 ms floor and 11 MiB/s with
 * 1 ms; NVMe-oF at 5% loss (61-nvmeof-orca-lossy) ran 4k random writes
 * at 150-470 IOPS with a 50 ms margin and at 670-890 with 10 ms.
 */
#define ROCE_RTO_NOISE_US	1000
/*
 * And early retransmission is only for a wire that loses: an adapter that
 * has seen no loss (a sequence NAK, a READ response gap, a full timeout)
 * for ROCE_LOSSY_US waits out the QP's timeout like any IBA requester.  A
 * round trip on the loaded test host has been measured at 791 ms (a peer
 * emulator not scheduled) on a wire that lost nothing: no margin on the
 * round trip tells that from a lost tail packet, but the wire's history
 * does.  On a lossy wire the first loss is seen within a few packets (a
 * gap NAKed), and from then on tail losses are recovered early.
 */
#define ROCE_LOSSY_US		10000000
/*
 * Tail loss probe (RFC 8985's TLP, for go-back-N): on a wire that loses
 * (ROCE_LOSSY_US), a QP that has sent nothing new and heard nothing for
 * twice its smoothed round trip (at least ROCE_TLP_MIN_US) sends its last
 * packet again, once until it makes progress.  A lost tail packet is then
 * accepted, a lost ACK answered by the responder's ACK of a duplicate, and
 * a gap further back NAKed: each costs a round trip and one packet, not
 * the early timeout's margin (ROCE_RTO_NOISE_US) and a window.  A probe
 * that was not needed is one duplicate packet, which any IBA responder
 * acknowledges.  A probe nobody answers within max(2 * SRTT, SRTT +
 * 4 * RTTVAR) more met a responder that NAKed a gap and lost the NAK (it
 * NAKs a gap once, then drops all but the PSN it waits for): the QP goes
 * back to una then (an early retry), not a millisecond later.  The last packet of a READ or atomic request is not
 * probed: its duplicate makes the responder send the whole response again.
 */
#define ROCE_TLP_MIN_US		50
/*
 * Doorbell record polling (roce_poll.c): a send queue found empty is polled
 * for up to its QP's adaptive window before the event index is published,
 * so a poster that posts again within it never traps.  The window follows
 * the gaps the QP's poster actually leaves, never above ROCE_POLL_MAX_US:
 * polling spins the engine thread, which is worth it only for gaps shorter
 * than a trapped doorbell and the engine's wake-up cost.
 */
#define ROCE_POLL_MAX_US	100

struct roce_rx_slot {
	uint32_t len;
	uint8_t data[ROCE_MAX_FRAME];
};

/* A frame waiting in the transmit backlog (roce_qp.c). */
struct roce_txb {
	struct roce_txb *next;
	bool loopback;			/* to our own receive queue */
	uint32_t len;
	uint8_t data[];
};

struct roce_db {
	uint32_t uar;
	uint32_t off;
	uint32_t val;
};

struct roce_qp;

#define ROCE_PFC_PRIOS		8

/**
 * struct roce_pfc - the PFC pauses the port passed on (roce_pfc.c), under
 * eng->lock: set on the port's thread (engine_pfc_pause()), read by the
 * engine thread
 * @until_us: per priority, paused until then (0: not); also read without
 *	the lock, atomically, on the engine thread's hot path
 * @start_us: when its current pause began
 * @changed: a PFC frame came since the engine thread last looked
 * @frames: PFC frames taken
 * @transitions: a priority went from sending to paused
 * @paused_us: the finished pauses' time, summed over priorities
 */
struct roce_pfc {
	uint64_t until_us[ROCE_PFC_PRIOS];
	uint64_t start_us[ROCE_PFC_PRIOS];
	bool changed;
	uint64_t frames;
	uint64_t transitions;
	uint64_t paused_us;
};

/*
 * On-demand paging (1.10): an access found no translation (or no write
 * right) in an on-demand MR's page: the step waits for a page fault.  Not
 * a CQE status; roce_mr_copy() and roce_sgl_copy() return it and leave
 * what the fault record needs in the device's odp_miss.
 */
#define ROCE_ST_ODP_MISS	0x100

struct roce_odp_miss {
	uint32_t mkey;			/* the MR's lkey */
	uint64_t va;			/* first byte not translated */
	uint32_t len;			/* bytes the step needs from va */
	uint32_t prefetch;		/* bytes after those it will touch */
	bool write;
};

struct roce_dev {
	struct orca_engine *eng;

	/* --- under eng->lock: filled by other threads --- */
	struct roce_rx_slot *rxq;
	uint32_t rx_head, rx_tail;	/* free running */
	struct roce_db dbq[ROCE_DBQ_LEN];
	uint32_t db_head, db_tail;
	bool db_overflow;		/* lost doorbells: ring them all */
	bool again;			/* a QP has more to send now */
	uint64_t next_deadline_us;	/* earliest timer, 0 none */
	bool rx_waiter;			/* a refused port waits for rx_ready */
	bool tx_blocked;		/* the backlog waits for the port */
	bool tx_ready;			/* the port has made room since */
	uint64_t tx_retry_us;		/* retry the port then anyway */
	uint64_t cq_due_us;		/* CQ moderation timers, 0 none */
	struct roce_pfc pfc;

	/*
	 * The polling window's bounds, for tests that need it off or
	 * open (atomics: set from a test's thread while the engine runs).
	 */
	_Atomic uint32_t poll_min_us, poll_max_us;
	/* ECN (roce_ecn.c) and DCQCN (roce_dcqcn.c): each field set atomically, by any thread. */
	struct roce_ecn_cfg ecn;
	struct roce_dcqcn_cfg dcqcn;
	uint32_t line_mbps;		/* the link's rate, 0: unknown */

	/* --- engine thread only --- */
	struct roce_qp *qps;		/* every QP with transport state */
	uint32_t nqps;
	/* The scheduler (roce_sched.c): QPs with work, QPs' deadlines. */
	struct roce_qp *run_head, *run_tail;
	struct roce_qp *run_end;	/* the current pass ends after it */
	struct timer_heap timers;
	uint64_t line_next_ns;		/* roce_line.c's clock */
	/*
	 * CQ event moderation (roce_cq.c): the period timers of CQs holding
	 * back an event, with room for every CQ that moderates (cq_mod).
	 */
	struct timer_heap cq_timers;
	uint32_t cq_mod;
	bool poll_only;			/* the last pass only polled */
	/*
	 * The lane's burst hint (engine.h: tx_busy, rx_busy): tx_busy_shown
	 * is what we told the link last; lane_rx_us when the lane last gave
	 * frames; lingering that the engine polls the lane instead of
	 * sleeping because its producer said it is busy.
	 */
	bool tx_busy_shown;
	bool lingering;
	uint64_t lane_rx_us;
	/*
	 * The port: tx_lock is held while sending, so it cannot vanish.  The
	 * lane's frames are processed without it (a frame's processing may
	 * send): lane_active says the engine is reading the port's ring,
	 * lane_polled that it sleeps on the lane's kick (link.rx_fd), and the
	 * port is not let go (engine_set_roce_*()) until neither is, at
	 * lane_idle; lane_hold keeps the engine off rx_fd meanwhile.
	 */
	pthread_mutex_t tx_lock;
	bool lane_active;
	bool lane_polled;		/* written by the engine thread only */
	unsigned int lane_hold;
	pthread_cond_t lane_idle;
	void (*tx)(void *ctx, const uint8_t *frame, size_t len);
	void *tx_ctx;
	struct engine_roce_link link;	/* a lossless port, if tx is NULL */
	/* Frames the port or our own queue had no room for yet, in order. */
	struct roce_txb *txb_head, **txb_tail;
	uint64_t txb_len;
	uint64_t txb_since_us;		/* when the backlog last filled */
	uint64_t loss_us;		/* the last loss seen, 0: none yet */
	uint8_t frame[ROCE_MAX_FRAME];
	struct roce_stats st;
	/* On-demand paging (roce_odp.c): the last miss; QPs with no slot. */
	struct roce_odp_miss odp_miss;
	struct roce_qp *odp_waiters, **odp_waiters_tail;
	struct roce_rx_drops drops;
};

/* Requester copy of a send WQE and its progress. */
struct roce_swqe {
	uint32_t idx;			/* free-running WQE index */
	uint8_t opcode;			/* enum orca_wqe_opcode */
	uint8_t flags;			/* ORCA_WQE_F_* */
	uint8_t num_sge;
	uint8_t status;			/* ORCA_CQE_ST_* once done */
	uint8_t page_shift;		/* REG_MR: as posted, 0: the MR's */
	uint64_t wr_id;
	uint32_t imm_or_inv;
	uint64_t raddr;
	uint32_t rkey;
	uint32_t len;			/* message length */
	uint64_t cmp_add, swap;		/* ATOMIC_WRITE: cmp_add's bytes */
	uint32_t ahn, dest_qpn, qkey;
	uint32_t first_psn, npsn;	/* PSNs, valid once started */
	uint32_t rd_next;		/* READ: next response PSN */
	bool started;			/* PSNs assigned */
	bool done;			/* may be completed (in order) */
	bool odp_failed;		/* its page fault ended unresolved */
};

/*
 * A receive WQE taken from the RQ or SRQ.  One of an XRC SRQ (1.6)
 * completes on that SRQ's CQ, reporting the SRQ's number (xrc_srqn, never
 * 0 for an XRC SRQ's WQE) rather than on the QP's receive CQ.
 */
struct roce_rwqe {
	uint64_t wr_id;
	uint32_t idx;
	uint8_t num_sge;
	uint32_t xrc_srqn, xrc_cqn;
	struct orca_sge sge[ORCA_MAX_SGE];
};

/*
 * Responder output that must leave in PSN order: READ responses (sent a
 * burst per engine pass, so a 1 MiB READ does not flood the peer) and
 * atomic ACKs.
 */
struct roce_rjob {
	bool atomic;
	uint32_t psn;			/* next response PSN */
	uint64_t va;			/* READ: next byte */
	uint32_t rkey;
	uint32_t pdn;			/* READ: the PD rkey is checked in */
	uint32_t left;			/* READ: bytes still to send */
	bool first;			/* READ: next is the first response */
	uint64_t orig;			/* atomic: value returned */
	bool placed;			/* FLUSH, ATOMIC WRITE: ACK only ... */
	uint32_t msn;			/* ... with the MSN of its execution */
};

/*
 * A QP's responder keeps max_dest_rd_atomic resources (at least one) and
 * twice as many queued jobs, rounded up to a power of two (the job ring's
 * free-running indices): a 64K-QP adapter cannot afford the most for all.
 */
static inline uint32_t roce_resp_jobs(uint32_t nres)
{
	uint32_t n = 2;

	while (n < 2 * nres)
		n <<= 1;
	return n;
}

/* Responder resource: an executed READ or atomic, for duplicates. */
struct roce_res {
	bool valid;
	bool atomic;
	bool placed;			/* FLUSH or ATOMIC WRITE: ACK only */
	uint32_t psn, npsn;
	uint64_t orig;			/* atomic: value returned */
};

/**
 * struct roce_dcqcn - a requester's DCQCN rate (roce_dcqcn.c)
 * @limited: a CNP cut the rate; paced until it is back at line rate
 * @rc_mbps: the current rate, @rt_mbps: the target it recovers towards
 * @alpha: DCQCN's congestion estimate, in 1/1024ths
 * @cut_us: the last rate cut (at most one per rp_rate_reduce_monitor_period)
 * @alpha_us: alpha last decayed then
 * @timer_us: the last rate increase by the timer
 * @bytes: sent since the last increase by the byte counter
 * @t_stage, @b_stage: increases by the timer and by bytes since the cut
 * @next_ns: the pacer's clock: the next packet may leave then
 * @pace_deadline: us, 0: not waiting for the pacer
 */
struct roce_dcqcn {
	bool limited;
	uint32_t rc_mbps, rt_mbps;
	uint32_t alpha;
	uint64_t cut_us, alpha_us, timer_us;
	uint64_t bytes;
	uint32_t t_stage, b_stage;
	uint64_t next_ns;
	uint64_t pace_deadline;
};

struct roce_qp {
	struct roce_dev *dev;
	struct emu_qp *qp;
	struct roce_qp *next, **pprev;
	/* roce_sched.c: on the run list, and the earliest deadline */
	struct roce_qp *run_next, *run_prev;
	bool on_run;
	struct timer_node timer;
	uint64_t cnp_sent_us;		/* the last CNP for it (roce_ecn.c) */
	struct roce_dcqcn dcqcn;	/* its rate, once a CNP cut it */
	/* roce_pfc.c: held while its priority is paused, since, until */
	bool pfc_held;
	uint64_t pfc_since_us;
	uint64_t pfc_deadline;

	/* requester + completer */
	struct roce_swqe *sw;		/* [sq depth] */
	uint32_t sq_fetched;		/* WQEs copied from the ring */
	uint32_t sq_head;		/* oldest not completed */
	uint32_t sq_next;		/* next to transmit */
	uint32_t sq_started;		/* WQEs [head, started) have PSNs */
	uint32_t next_off;		/* byte offset in sq_next's message */
	uint32_t snd_psn;		/* next unused PSN */
	uint32_t una_psn;		/* oldest unacknowledged PSN */
	uint32_t max_sent_psn;		/* one past the highest PSN sent */
	uint32_t rd_atomic;		/* READ/atomic WQEs outstanding */
	uint8_t retry_left, rnr_left;
	uint64_t retry_deadline;	/* us, 0: off */
	uint64_t tlp_deadline;		/* us: the tail loss probe; 0: off */
	bool tlp_sent;			/* probed; no progress since */
	uint64_t retry_full;		/* us: the QP's own timeout */
	uint8_t rto_shift;		/* early timeout doublings (Karn) */
	uint32_t cwnd;			/* send window, packets (roce_priv.h) */
	uint32_t cwnd_acked;		/* acked towards the next increment */
	uint32_t recover_psn;		/* losses before it: window cut already */
	uint32_t rtt_psn;		/* the PSN being timed ... */
	uint64_t rtt_start;		/* ... sent at (us); 0: none */
	uint32_t srtt_us, rttvar_us;	/* 0, 0: no sample yet */
	bool retried;			/* a retry counted since progress */
	bool rnr_resend;		/* resending what an RNR NAK refused */
	uint64_t rnr_deadline;		/* us, 0: not waiting */
	bool rd_gap_asked;		/* READ gap: asked again already */
	uint32_t rd_gap_psn;		/* ... from this PSN */
	bool sq_kick;
	bool sqd_notify;		/* post SQ_DRAINED when drained */
	/*
	 * On-demand paging (roce_odp.c): the requester stopped on a page
	 * fault of this kind (0: not), its WQE, and whether it still waits
	 * for a free fault slot (then it is on the device's odp_waiters).
	 */
	uint8_t odp_req;
	uint32_t odp_req_wqe;
	uint32_t odp_req_psn;		/* REQ_RESP: the response dropped */
	bool odp_req_no_slot;
	struct roce_qp *odp_wait_next;
	/*
	 * ... and its responder: a fault of this kind outstanding (0: none;
	 * at most one, later misses are RNR-NAKed without one), or the last
	 * one ended unresolved: the retry's miss is the access's error.
	 */
	uint8_t odp_resp;
	bool odp_resp_failed;
	/* roce_poll.c: the send queue's doorbell record polling */
	uint32_t poll_us;		/* adaptive window, 0: publish at once */
	uint64_t sq_idle_at;		/* us: found empty since; 0: busy */
	bool sq_polling;		/* window open, event index not written */

	/* responder */
	/*
	 * The PD of the request being executed: the QP's, or for an XRC
	 * target that of the SRQ its XRCETH names (roce_xrc.c), which also
	 * names the SRQ of the message in progress.
	 */
	uint32_t resp_pdn;
	uint32_t xrc_srqn;
	uint32_t epsn;
	uint32_t msn;
	bool nak_seq_sent;
	bool comm_est;
	bool rcv_active;		/* a multi-packet SEND is arriving */
	bool rcv_held;			/* UC: rcv kept for the next SEND */
	bool rcv_odp;			/* rcv kept for a retry after a fault */
	bool uc_drop;			/* UC: drop until a FIRST or ONLY */
	struct roce_rwqe rcv;
	uint32_t rcv_off;
	bool wr_active;			/* a multi-packet WRITE is arriving */
	uint64_t wr_va;
	uint32_t wr_rkey;
	uint32_t wr_left;
	uint32_t wr_len;
	struct roce_res *res;		/* [nres] */
	uint32_t nres;			/* qp->resp_res when allocated */
	uint32_t res_next;
	struct roce_rjob *jobs;		/* [njobs], a power of two */
	uint32_t njobs;
	uint32_t job_head, job_tail;
	/* ACK or NAK to send once the jobs before it have gone out */
	bool ack_pending;
	uint32_t ack_psn;
	uint8_t ack_syndrome;
};

/* ---- send queue helpers, for the requester and the completer ---- */

/* Index mask of the send queue, whose depth is a power of two. */
static inline uint32_t sq_mask(const struct roce_qp *rq)
{
	return (1u << rq->qp->log_sq_depth) - 1;
}

/* The requester's copy of send WQE @idx (a free-running index). */
static inline struct roce_swqe *swqe(struct roce_qp *rq, uint32_t idx)
{
	return &rq->sw[idx & sq_mask(rq)];
}

/*
 * The opcode of RC packet @rc_op on @qp's transport: the same packet's
 * XRC opcode (IBA A14) for an XRC initiator or target.
 */
static inline uint8_t roce_wire_op(const struct emu_qp *qp, uint8_t rc_op)
{
	if (qp->type == ORCA_QPT_XRC_INI || qp->type == ORCA_QPT_XRC_TGT)
		return rc_op | ROCE_XRC_BASE;
	return rc_op;
}

/* FLUSH and ATOMIC WRITE: answered by an empty READ Response Only. */
static inline bool is_flush_or_atomic_write(uint8_t op)
{
	return op == ORCA_WQE_FLUSH || op == ORCA_WQE_ATOMIC_WRITE;
}

/*
 * RDMA READ, atomics, FLUSH and ATOMIC WRITE: the WQEs that wait for a
 * response and take a responder resource, which max_rd_atomic limits
 * (rq->rd_atomic).
 */
static inline bool is_rd_atomic(uint8_t op)
{
	return op == ORCA_WQE_RDMA_READ || op == ORCA_WQE_ATOMIC_CS ||
	       op == ORCA_WQE_ATOMIC_FA || is_flush_or_atomic_write(op);
}

/*
 * The device's side of the event index handshake (spec, data-path.rst,
 * "Doorbell records and event indices"), for a queue found empty at
 * producer index @pi: publish @pi as the event index, then read the
 * producer index again after a full barrier.  The driver stores its index,
 * fences, then reads ours: of the two, at least one sees the other's store,
 * so a WQE posted meanwhile is either in the returned index or rung for.
 * A return value other than @pi means there is more to take.
 */
static inline uint32_t roce_publish_event_idx(__le32 *event_idx,
					      const __le32 *prod_idx,
					      uint32_t pi)
{
	atomic_store_explicit((_Atomic __le32 *)event_idx, htole32(pi),
			      memory_order_release);
	atomic_thread_fence(memory_order_seq_cst);
	return le32toh(atomic_load_explicit((_Atomic __le32 *)prod_idx,
					    memory_order_acquire));
}

/*
 * ---- roce_qp.c, roce_cq.c: the data path's hooks (roce_data_path, the
 * engine's struct engine_data_path_ops) ----
 */
int roce_dev_create(struct orca_engine *eng);
void roce_dev_destroy(struct orca_engine *eng);
void roce_dev_reset_locked(struct orca_engine *eng);
bool roce_work_pending_locked(struct orca_engine *eng);
uint64_t roce_deadline_locked(struct orca_engine *eng);
void roce_doorbell_locked(struct orca_engine *eng, uint32_t uar, uint32_t off,
			  uint32_t val);
void roce_run(struct orca_engine *eng);
/* The last roce_run() did nothing but poll send queues' doorbell records. */
bool roce_poll_only(struct orca_engine *eng);
/* "garbage-cqe", malformed CQEs on every CQ with room. */
void roce_cq_post_garbage(struct orca_engine *eng);

/* ---- roce_qp.c ---- */
struct roce_qp *roce_qp_get(struct orca_engine *eng, struct emu_qp *qp);
uint32_t roce_qp_mtu(struct orca_engine *eng, const struct emu_qp *qp);
uint32_t roce_qp_mtu_ud(struct orca_engine *eng);
/* In SQD: posts SQ_DRAINED once nothing started is outstanding. */
void roce_qp_check_drained(struct roce_qp *rq);
/* Moves a QP to ERR from the data path, with an optional async event. */
void roce_qp_to_err(struct roce_qp *rq, uint8_t event);
/* Transmits @pkt to @av; payload from @fill (or none). */
typedef int (*roce_fill_fn)(struct roce_qp *rq, void *arg, uint8_t *dst,
			    uint32_t len);
int roce_send_pkt(struct roce_qp *rq, const struct orca_av *av,
		  struct roce_pkt *pkt, roce_fill_fn fill, void *arg);
bool roce_local_gid(struct orca_engine *eng, const uint8_t gid[16]);
void *roce_queue_entry(struct orca_engine *eng, const struct emu_pages *p,
		       uint32_t first_page, uint32_t npages, uint32_t idx,
		       uint8_t log_depth, uint32_t stride);

/* ---- roce_cq.c ---- */
/* Posts the events whose moderation period ended by @now. */
void roce_cq_timers(struct orca_engine *eng, uint64_t now);
/* The earliest moderation deadline of any CQ, 0: none. */
uint64_t roce_cq_deadline(const struct roce_dev *dev);

/* ---- roce_sched.c ---- */
/*
 * The QP has something to do: a doorbell, a received frame, a state
 * change.  The pass under way steps it if it has not yet, else the next.
 */
void roce_sched_qp(struct roce_qp *rq);
/* Room for one more QP's timer; 0 or -ENOMEM (before it exists). */
int roce_sched_reserve(struct roce_dev *dev);
/* The QP is going away: off the run list and the timer heap. */
void roce_sched_forget(struct roce_qp *rq);
void roce_sched_fini(struct roce_dev *dev);
/* Frames wait in the transmit backlog for room (roce_qp.c). */
bool roce_tx_blocked(const struct roce_dev *dev);
/* Fires due timers, then steps the run list; true if QPs have more. */
bool roce_sched_pass(struct roce_dev *dev, uint64_t now);
/* The earliest deadline of any QP, 0: none. */
uint64_t roce_sched_deadline(const struct roce_dev *dev);

/* ---- roce_poll.c ---- */
/*
 * The send queue has nothing new at @now: true to keep polling it (the
 * event index stays unwritten), false to publish the event index now.
 */
bool roce_poll_idle(struct roce_qp *rq, uint64_t now);
/* The send queue has new WQEs at @now (polled or rung for). */
void roce_poll_found(struct roce_qp *rq, uint64_t now);
/*
 * The window after a gap of @gap_us between the queue going idle and
 * the next post, or after a window that ended without one (@gap_us 0).
 */
uint32_t roce_poll_adapt(uint32_t window, uint64_t gap_us, bool missed,
			 uint32_t max_us);

/* ---- roce_odp.c: on-demand paging (1.10) ---- */
/*
 * The step of @rq's requester (kind ORCA_PF_REQ_*) at send WQE @wqe_idx
 * missed a translation (dev->odp_miss): post a fault and stop the QP, or
 * wait stopped for a free slot.  False: no fault can be posted (fail the
 * step as a bad key would).
 */
bool roce_odp_stop_req(struct roce_qp *rq, uint8_t kind, uint32_t wqe_idx);
/*
 * The responder's step at @psn (kind ORCA_PF_RESP_*, receive WQE @wqe_idx
 * or 0) missed: true if it waits for a fault (posted now, or already
 * outstanding for the QP, or no slot free): the caller RNR-NAKs @psn.
 * False if it cannot wait (the QP's last fault ended unresolved, no fault
 * can be posted): the caller ends the step as an access error.
 */
bool roce_odp_stop_resp(struct roce_qp *rq, uint8_t kind, uint32_t psn,
			uint32_t wqe_idx);
/* The data path's odp_resume hook (engine_priv.h). */
void roce_odp_resume(struct orca_engine *eng, uint32_t qpn, uint8_t kind,
		     bool fail);
/* The QP leaves RTS/SQD/RTR for good (ERR, RESET, destroyed). */
void roce_odp_forget(struct roce_qp *rq);
/* A responder's copy cannot fault yet: a miss is the old error. */
static inline int roce_odp_no_fault(int st)
{
	return st == ROCE_ST_ODP_MISS ? ORCA_CQE_ST_LOC_PROT_ERR : st;
}

/* ---- roce_mr.c ---- */
/*
 * Checks that key @key names a valid MR of @pdn allowing @access over
 * [va, va + len); returns 0 or the CQE status to report.
 */
int roce_mr_check(struct orca_engine *eng, uint32_t key, uint32_t pdn,
		  uint64_t va, uint64_t len, uint32_t access,
		  struct emu_mr **out);
/* roce_mr_check() without the bounds (a FLUSH of a whole MR); sets *@out. */
int roce_mr_check_key(struct orca_engine *eng, uint32_t key, uint32_t pdn,
		      uint32_t access, struct emu_mr **out);
/* Copies between an MR range (already checked) and @buf. */
int roce_mr_copy(struct orca_engine *eng, const struct emu_mr *mr,
		 uint64_t va, void *buf, uint32_t len, bool to_mr);
/*
 * On-demand paging: 0 if every page of [va, va + len) of @mr has a
 * translation (allowing @write), else ROCE_ST_ODP_MISS with the first
 * missing page in dev->odp_miss, its length at most @step bytes; 0 for
 * any other MR.  Bounds are roce_mr_check()'s.
 */
int roce_mr_probe(struct orca_engine *eng, const struct emu_mr *mr,
		  uint64_t va, uint64_t len, bool write, uint32_t step);
/* Host pointer to 8 aligned bytes at @va of @mr, or NULL. */
uint64_t *roce_mr_u64(struct orca_engine *eng, const struct emu_mr *mr,
		      uint64_t va);
/*
 * Copies @len bytes at byte offset @off of the SGE list to (@to_sgl) or
 * from @buf.  Returns 0, ORCA_CQE_ST_LOC_PROT_ERR or LOC_LEN_ERR.
 */
int roce_sgl_copy(struct orca_engine *eng, uint32_t pdn,
		  const struct orca_sge *sge, unsigned int num_sge,
		  uint32_t off, void *buf, uint32_t len, bool to_sgl);
uint64_t roce_sgl_len(const struct orca_sge *sge, unsigned int num_sge);
/*
 * REG_MR / LOCAL_INV / remote invalidate (of a key in PD @pdn, the QP's
 * or, for an XRC target, the SRQ's); return 0 or a CQE status.
 */
int roce_mr_fast_reg(struct orca_engine *eng, uint32_t pdn,
		     const struct roce_swqe *w);
int roce_mr_invalidate(struct orca_engine *eng, const struct emu_qp *qp,
		       uint32_t pdn, uint32_t key, bool remote);
/*
 * Memory windows (1.4).  roce_rkey_check() is roce_mr_check() for a
 * remote key on @qp, in PD @pdn (the QP's, for an XRC target the SRQ's):
 * an MR's or a bound window's, checked against the
 * window and its MR; it gives the MR and the MR address @va is (a
 * window's, zero-based or not, is not the MR's).  roce_mw_bind() executes
 * a BIND_MW work request; both return 0 or a CQE status.
 */
int roce_rkey_check(struct orca_engine *eng, const struct emu_qp *qp,
		    uint32_t pdn, uint32_t rkey, uint64_t va, uint64_t len,
		    uint32_t access, struct emu_mr **out, uint64_t *mr_va);
int roce_mw_bind(struct orca_engine *eng, const struct emu_qp *qp,
		 const struct roce_swqe *w);

/* ---- roce_cq.c ---- */
/*
 * Writes one CQE (flags holds F_IMM/INV/GRH/IPV6; the phase is added) and
 * raises the COMP event if the CQ is armed for it.  Returns 0 or -ENOSPC
 * when the CQ overran (the QP must go to ERR).
 */
int roce_cq_post(struct orca_engine *eng, uint32_t cqn, struct orca_cqe *cqe,
		 bool solicited);
void roce_cq_doorbell(struct orca_engine *eng, uint32_t cqn);

/* ---- roce_req.c ---- */
void roce_req_run(struct roce_qp *rq);
/* Go back to PSN @psn (inside the outstanding window). */
void roce_req_rewind(struct roce_qp *rq, uint32_t psn);
bool roce_req_outstanding(const struct roce_qp *rq);
/* (Re)arms the retransmit timer while request packets are unacked. */
void roce_req_arm_timer(struct roce_qp *rq);
/*
 * The retransmit timer fired before the QP's own timeout: resends from the
 * oldest unacknowledged PSN and re-arms with a doubled delay, not counting
 * a retry.  False when the full timeout has passed (a real retry is due).
 */
bool roce_req_early_retry(struct roce_qp *rq, uint64_t now);
/* Arms the tail loss probe (ROCE_TLP_MIN_US; roce_comp.c sends it). */
void roce_req_arm_probe(struct roce_qp *rq, uint64_t now);
void roce_req_rtt_acked(struct roce_qp *rq, uint32_t una, uint64_t now);
uint64_t roce_req_early_rto(const struct roce_qp *rq);
/*
 * Loss seen (a NAKed gap, a READ gap, a timeout): early retries on, and
 * the send window is cut.
 */
void roce_req_loss(struct roce_qp *rq);
/* una moved forward by @n packets at @now: the send window grows. */
void roce_req_acked(struct roce_qp *rq, uint32_t n, uint64_t now);
/* The send window at its full size, for a QP that starts sending. */
void roce_req_window_init(struct roce_qp *rq);
bool roce_wire_lossy(const struct roce_dev *dev, uint64_t now);
/* Sends READ @w's request again from rd_next; false if it could not. */
bool roce_req_reread(struct roce_qp *rq, struct roce_swqe *w);
/* Copies WQE @w's SGEs from the send queue; false if unreachable. */
bool roce_req_sges(struct roce_qp *rq, const struct roce_swqe *w,
		   struct orca_sge *sge);

/* ---- roce_comp.c ---- */
void roce_comp_rx(struct roce_qp *rq, const struct roce_pkt *pkt);
void roce_comp_timers(struct roce_qp *rq, uint64_t now);
/* Completes WQEs at the head that are done, in order. */
void roce_comp_retire(struct roce_qp *rq);
/* Completes the WQE of @psn with @status (the QP then goes to ERR). */
void roce_comp_fail_at(struct roce_qp *rq, uint32_t psn, uint8_t status);
void roce_comp_swqe(struct roce_qp *rq, struct roce_swqe *w, uint8_t status);
void roce_comp_flush_sq(struct roce_qp *rq);

/* ---- roce_resp.c ---- */
void roce_resp_rx(struct roce_qp *rq, const struct roce_pkt *pkt);

/* ECN (roce_ecn.c): a packet's traffic class out, CE in, a CNP in. */
uint8_t roce_ecn_tx_tclass(struct roce_dev *dev, const struct roce_pkt *pkt,
			   uint8_t tclass);
void roce_ecn_rx(struct roce_qp *rq, const struct roce_pkt *pkt);
void roce_ecn_cnp_rx(struct roce_dev *dev, const struct roce_pkt *pkt);

/* DCQCN's reaction point (roce_dcqcn.c). */
void roce_dcqcn_cnp(struct roce_qp *rq, uint64_t now_us);
bool roce_dcqcn_may_send(struct roce_qp *rq, uint64_t now_ns);
void roce_dcqcn_sent(struct roce_qp *rq, uint64_t bytes, uint64_t now_ns);
void roce_dcqcn_timer(struct roce_qp *rq, uint64_t now_us);

/*
 * The port's serializer (roce_line.c): requester packets at the link's
 * rate, when the link announced one (roce_line_paced(): else no clock is
 * read for it on the data path).
 */
bool roce_line_paced(const struct roce_dev *dev);
bool roce_line_may_send(struct roce_qp *rq, uint64_t now_ns);
void roce_line_sent(struct roce_dev *dev, uint64_t bytes, uint64_t now_ns);

/* roce_pfc.c: PFC's pauses, on the engine thread */
bool roce_pfc_hold(struct roce_qp *rq, uint64_t now_us);
void roce_pfc_changed(struct roce_dev *dev);
void roce_pfc_stats(struct roce_dev *dev, struct roce_stats *st);
void roce_resp_uc_rx(struct roce_qp *rq, const struct roce_pkt *pkt);
void roce_resp_ud_rx(struct roce_qp *rq, const struct roce_pkt *pkt);
/* Sends queued responses and the coalesced ACK; true if more remain. */
bool roce_resp_send_acks(struct roce_qp *rq);
void roce_resp_flush_rq(struct roce_qp *rq);

/* ---- roce_xrc.c ---- */
/*
 * The XRC SRQ request @pkt's XRCETH names, if it exists, is an XRC SRQ
 * and is of XRC target @rq's domain; else NULL.
 */
struct emu_srq *roce_xrc_srq(struct roce_qp *rq, const struct roce_pkt *pkt);
/*
 * An in-sequence request (@flags its opcode's) on XRC target @rq: the
 * SRQ must be roce_xrc_srq()'s and, unless @pkt starts a message, the
 * one its message started with.  Then it is the responder's SRQ and PD
 * for @pkt and true; false if the request must be NAKed (Invalid
 * Request).
 */
bool roce_xrc_take(struct roce_qp *rq, const struct roce_pkt *pkt,
		   uint32_t flags);

#endif /* ORCA_EMU_ROCE_PRIV_H */

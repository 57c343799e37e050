/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The RoCEv2 transport's interface: all that the layers around it may
 * call; the rest of roce/ is private to it (roce_priv.h).
 *
 *  - The engine runs the transport as its data path: device.c registers
 *    roce_data_path (struct engine_data_path_ops, engine/engine_priv.h)
 *    and the engine thread calls it through that.  The command handlers
 *    size and configure the transport's state of QPs and CQs, and read
 *    its counters (QUERY_STATS, the diagnostic dump).
 *  - The port and the switch classify frames with the frame format,
 *    roce_wire.h, which this header includes.
 *
 * Threading: everything runs on the engine thread.
 */
#ifndef ORCA_EMU_ROCE_H
#define ORCA_EMU_ROCE_H

#include <stdbool.h>
#include <stdint.h>

#include "orca_hw.h"
#include "roce_wire.h"

struct orca_engine;
struct emu_qp;
struct emu_cq;
struct engine_data_path_ops;

/* The data path's hooks the engine thread calls (roce_qp.c). */
extern const struct engine_data_path_ops roce_data_path;

/* Counters, readable in tests and logged at exit. */
struct roce_stats {
	uint64_t tx_frames;
	uint64_t tx_in_place;		/* of those, built in the link's ring */
	uint64_t rx_frames;
	uint64_t tx_bytes;		/* of those frames, Ethernet header to ICRC */
	uint64_t rx_bytes;
	uint64_t tx_mcast;		/* frames to a multicast MAC */
	uint64_t rx_mcast;
	uint64_t loopback;
	uint64_t rxq_full;		/* dropped: engine queue full */
	uint64_t rx_too_big;
	/*
	 * Backpressure (roce_qp.c): frames the queue refused to a port that
	 * keeps them (not drops), frames a dead engine dropped, and frames
	 * that waited in the transmit backlog for the port's room.
	 */
	uint64_t rx_refused;
	uint64_t rx_dead;
	uint64_t tx_backlogged;
	uint64_t tx_backlog_max;
	uint64_t tx_dropped;		/* the port refused them for good */
	uint64_t tx_no_port;		/* dropped: no wire attached */
	uint64_t drop_no_qp;
	uint64_t drop_state;		/* QP not in a state to take it */
	uint64_t drop_bad_pkt;		/* wrong transport, P_Key, address */
	uint64_t drop_qkey;
	uint64_t drop_no_rwqe;		/* UD: no receive WQE */
	uint64_t drop_ghost;		/* response to nothing outstanding */
	/*
	 * UC (roce_resp.c): request packets the responder discarded
	 * silently (after a PSN gap until the next FIRST or ONLY, out of
	 * sequence, or of a message it could not take), and the messages it
	 * gave up on that way.
	 */
	uint64_t drop_uc;
	uint64_t uc_aborted;
	/*
	 * UD multicast (1.4): copies of multicast datagrams handed to the
	 * attached QPs (each still checked: Q_Key, a receive WQE), and
	 * multicast datagrams for a group no QP here is attached to.
	 */
	uint64_t mcast_rx;
	uint64_t drop_mcast;
	uint64_t retransmits;		/* request packets sent again */
	uint64_t rnr_resends;		/* of them, after an RNR NAK */
	uint64_t timeouts;
	uint64_t fast_retries;		/* early retransmissions */
	uint64_t tail_probes;		/* last packets sent again (TLP) */
	uint64_t probe_retries;		/* of fast_retries: a probe unanswered */
	uint64_t rtt_samples;		/* round trips measured */
	uint64_t rtt_max_us;		/* the longest of them */
	uint64_t losses;		/* NAKed gaps, READ gaps, timeouts */
	uint64_t cwnd_cuts;		/* send windows halved after a loss */
	uint64_t rnr_naks_rx, rnr_naks_tx;
	uint64_t seq_naks_rx, seq_naks_tx;
	uint64_t err_naks_rx, err_naks_tx;
	uint64_t acks_tx;
	uint64_t dup_requests;
	uint64_t flushes;		/* RDMA FLUSHes executed (responder) */
	uint64_t flush_icrc_rxe;	/* of the FLUSHes received, rxe's ICRC */
	uint64_t atomic_writes;		/* ATOMIC WRITEs executed (responder) */
	uint64_t cq_overruns;
	/*
	 * UAR writes that found the doorbell queue full; each overflow makes
	 * the engine act as if every QP and CQ had been rung (roce_qp.c).
	 */
	uint64_t db_lost;
	/* CQ event moderation (roce_cq.c): COMP events its period posted. */
	uint64_t cq_mod_timer_events;
	/*
	 * The scheduler (roce_sched.c): transport passes, QPs stepped in
	 * them (each QP taken from the run list or the timer heap counts),
	 * and the most QPs one pass stepped.  With idle QPs only, a pass
	 * steps none: its cost does not grow with them.
	 */
	uint64_t passes;
	uint64_t qp_steps;
	uint64_t max_pass_steps;
	uint64_t timers_fired;
	/* Send queue polling (roce_poll.c). */
	uint64_t poll_hits;		/* posts found while polling */
	uint64_t poll_misses;		/* windows ended without a post */
	/*
	 * Congestion notification (roce_ecn.c), named as mlx5 names them:
	 * CE-marked packets a QP took, the CNPs sent for them (at most one
	 * per QP per interval), and CNPs received for a QP that takes them
	 * or not (reaction point off, no such QP, not its peer).
	 */
	uint64_t np_ecn_marked_roce_packets;
	uint64_t np_cnp_sent;
	uint64_t rp_cnp_handled;
	uint64_t rp_cnp_ignored;
	/* DCQCN (roce_dcqcn.c): rate cuts, and packets the pacer held. */
	uint64_t rp_rate_cuts;
	uint64_t rp_paced;
	/* Packets the port's serializer held (roce_line.c): the link's rate. */
	uint64_t line_paced;
	/*
	 * Priority flow control (roce_pfc.c): 802.1Qbb PAUSE frames the port
	 * took, how often a priority went from sending to paused, and the
	 * microseconds priorities spent paused (summed over priorities, as
	 * mlx5's rx_prioN_pause_duration are per priority).  pfc_held: QP
	 * steps skipped because the QP's priority was paused.
	 */
	uint64_t rx_pfc_frames;
	uint64_t rx_pfc_pause_transitions;
	uint64_t rx_pfc_pause_us;
	uint64_t pfc_held;
	/*
	 * On-demand paging (1.10, roce_odp.c): steps stopped on a missing
	 * translation (requester and responder), RNR NAKs sent for one, QPs
	 * that found no free fault slot, and resumes and fails the QPs got.
	 */
	uint64_t odp_misses;
	uint64_t odp_fault_rnr_naks;
	uint64_t odp_slot_waits;
	uint64_t odp_resumes;
	uint64_t odp_fails;
};

/**
 * struct roce_ecn_cfg - ECN and congestion notification of one adapter
 * @ect: RoCE packets but CNPs go out ECN-capable (ECT(0))
 * @np: the notification point: a CE-marked packet a QP takes is answered
 *	with a CNP to the QP's peer
 * @rp: the reaction point: CNPs for a QP are taken (counted)
 * @cnp_interval_us: at most one CNP per QP in this time (mlx5's
 *	min_time_between_cnps)
 */
struct roce_ecn_cfg {
	bool ect, np, rp;
	uint32_t cnp_interval_us;
};

/**
 * struct roce_dcqcn_cfg - DCQCN's reaction point of one adapter (roce_dcqcn.c)
 *
 * Named after the fields of SET_CC (struct orca_cc_params), which sets
 * them.  A QP starts at line rate; a CNP cuts its rate to
 * rc * (1 - alpha / 2), at most once per @cut_us, and raises alpha by
 * @g / 1024 of what it lacks to 1; alpha decays by @g / 1024 of itself
 * every @alpha_us without one; every @timer_us, and every @bytes sent, the
 * rate recovers: halfway to the target (@f fast recovery stages), then
 * additively (@ai_mbps), then by @hai_mbps per stage beyond @f.
 *
 * @max_mbps: rp_max_rate, the most a cut QP recovers to (0: line rate,
 *	where it is unpaced again: the link's, engine_set_line_rate(), else
 *	ROCE_DCQCN_LINE_MBPS; a rate above the line's is the line's)
 * @min_mbps: rp_min_rate, the least a cut leaves
 * @ai_mbps: rp_ai_rate; @hai_mbps: rp_hai_rate
 * @f: rp_threshold
 * @timer_us: rp_time_reset; @bytes: rp_byte_reset
 * @g: rp_dce_tcp_g, in 1/1024ths; @alpha_us: rp_dce_tcp_rtt
 * @cut_us: rp_rate_reduce_monitor_period
 * @alpha0: rp_initial_alpha_value, alpha at a QP's first cut (1/1024ths)
 */
struct roce_dcqcn_cfg {
	uint32_t max_mbps, min_mbps, ai_mbps, hai_mbps;
	uint32_t f, timer_us, bytes, g, alpha_us, cut_us, alpha0;
};

/*
 * The DCQCN paper's and ConnectX's defaults, which an adapter starts
 * with: at least 10 Mb/s, a cut per 4 us at most, g = 1/256 every 55 us,
 * an increase per 300 us or 32 KiB, 5 stages, 5 and 50 Mb/s.
 */
#define ROCE_DCQCN_LINE_MBPS	ORCA_CC_LINE_MBPS
extern const struct roce_dcqcn_cfg roce_dcqcn_defaults;

/* Whether each field is in its range (Documentation/orca/commands.rst). */
bool roce_dcqcn_cfg_valid(const struct roce_dcqcn_cfg *cfg);

/* Sets them (any thread; the engine reads each field on its own). */
void roce_set_dcqcn(struct orca_engine *eng, const struct roce_dcqcn_cfg *cfg);

/* Reads what roce_set_ecn() and roce_set_dcqcn() set. */
void roce_get_cc(struct orca_engine *eng, struct roce_ecn_cfg *ecn,
		 struct roce_dcqcn_cfg *dcqcn);

/* Sets it (any thread; the engine reads it per packet). */
void roce_set_ecn(struct orca_engine *eng, const struct roce_ecn_cfg *cfg);

/* Counters, for tests and the exit log. */
void roce_get_stats(struct orca_engine *eng, struct roce_stats *st);

/*
 * XRC SRQ @srqn is going away (DESTROY_SRQ): an XRC target QP that took
 * one of its WQEs for a message in progress forgets it (roce_xrc.c).
 */
void roce_srq_forget(struct orca_engine *eng, uint32_t srqn);

void roce_qp_state_change(struct orca_engine *eng, struct emu_qp *qp,
			  uint8_t cur, uint8_t next);
void roce_qp_free(struct emu_qp *qp);
/* The QP's PSNs (QUERY_QP); false if it has no transport state. */
bool roce_qp_psns(const struct emu_qp *qp, uint32_t *rq_psn, uint32_t *sq_psn);
uint64_t roce_qp_footprint(uint8_t log_sq_depth);
/* What the responder's READ/atomic state costs for @nres resources. */
uint64_t roce_resp_footprint(uint32_t nres);
/* Grows a live QP's responder state to @nres resources; 0 or -ENOMEM. */
int roce_qp_resp_grow(struct emu_qp *qp, uint32_t nres);
/*
 * roce_cq.c: a CQ's event moderation (values checked by the caller);
 * 0 or -ENOMEM.  An event it held back is posted at once.
 */
int roce_cq_set_moderation(struct orca_engine *eng, struct emu_cq *cq,
			   uint16_t count, uint16_t period);
/* The CQ is going away: its moderation timer goes too. */
void roce_cq_forget(struct orca_engine *eng, struct emu_cq *cq);

#endif /* ORCA_EMU_ROCE_H */

// SPDX-License-Identifier: GPL-2.0
/*
 * RoCEv2 transport glue: the queues that hand received frames and UAR
 * doorbells from other threads to the engine thread, the transport's pass
 * on the engine thread (doorbells and received frames, which schedule
 * their QPs; timers, requesters and coalesced ACKs of the scheduled QPs:
 * roce_sched.c), per-QP transport state and its life cycle with the QP
 * state machine (flush on ERR, forget on RESET), and frame transmission
 * (wire or internal loopback).
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "roce_priv.h"

int roce_dev_create(struct orca_engine *eng)
{
	struct roce_dev *dev = calloc(1, sizeof(*dev));

	if (!dev)
		return -ENOMEM;
	dev->rxq = calloc(ROCE_RXQ_LEN, sizeof(*dev->rxq));
	if (!dev->rxq) {
		free(dev);
		return -ENOMEM;
	}
	pthread_mutex_init(&dev->tx_lock, NULL);
	pthread_cond_init(&dev->lane_idle, NULL);
	atomic_init(&dev->poll_min_us, 0);
	atomic_init(&dev->poll_max_us, ROCE_POLL_MAX_US);
	dev->eng = eng;
	dev->txb_tail = &dev->txb_head;
	/* ECN off until --ecn or SET_CC; DCQCN's parameters as ConnectX's. */
	dev->ecn.cnp_interval_us = 4;
	dev->dcqcn = roce_dcqcn_defaults;
	eng->roce = dev;
	return 0;
}

static void txb_free(struct roce_dev *dev)
{
	struct roce_txb *b;

	while ((b = dev->txb_head)) {
		dev->txb_head = b->next;
		free(b);
	}
	dev->txb_tail = &dev->txb_head;
	dev->txb_len = 0;
}

void roce_dev_destroy(struct orca_engine *eng)
{
	struct roce_dev *dev = eng->roce;

	if (!dev)
		return;
	if (dev->st.tx_frames || dev->st.rx_frames)
		eng_log("roce: tx %llu rx %llu loopback %llu retransmits %llu (after RNR NAKs %llu) timeouts %llu early %llu (rtt samples %llu) send windows cut %llu rx queue full %llu tail probes %llu (unanswered %llu)",
			(unsigned long long)dev->st.tx_frames,
			(unsigned long long)dev->st.rx_frames,
			(unsigned long long)dev->st.loopback,
			(unsigned long long)dev->st.retransmits,
			(unsigned long long)dev->st.rnr_resends,
			(unsigned long long)dev->st.timeouts,
			(unsigned long long)dev->st.fast_retries,
			(unsigned long long)dev->st.rtt_samples,
			(unsigned long long)dev->st.cwnd_cuts,
			(unsigned long long)dev->st.rxq_full,
			(unsigned long long)dev->st.tail_probes,
			(unsigned long long)dev->st.probe_retries);
	if (dev->st.np_ecn_marked_roce_packets || dev->st.rp_cnp_handled ||
	    dev->st.rp_cnp_ignored)
		eng_log("roce: ecn: CE-marked packets %llu, CNPs sent %llu, CNPs handled %llu, ignored %llu; DCQCN rate cuts %llu, packets paced %llu",
			(unsigned long long)dev->st.np_ecn_marked_roce_packets,
			(unsigned long long)dev->st.np_cnp_sent,
			(unsigned long long)dev->st.rp_cnp_handled,
			(unsigned long long)dev->st.rp_cnp_ignored,
			(unsigned long long)dev->st.rp_rate_cuts,
			(unsigned long long)dev->st.rp_paced);
	if (dev->st.line_paced)
		eng_log("roce: the link's rate (%u Mb/s) held packets %llu times",
			__atomic_load_n(&dev->line_mbps, __ATOMIC_RELAXED),
			(unsigned long long)dev->st.line_paced);
	if (dev->pfc.frames)
		eng_log("roce: pfc: frames %llu, pauses begun %llu, paused %llu us (priorities summed), QP steps held %llu",
			(unsigned long long)dev->pfc.frames,
			(unsigned long long)dev->pfc.transitions,
			(unsigned long long)dev->pfc.paused_us,
			(unsigned long long)dev->st.pfc_held);
	if (dev->st.tx_in_place)
		eng_log("roce: tx built in the link's ring: %llu of %llu frames",
			(unsigned long long)dev->st.tx_in_place,
			(unsigned long long)dev->st.tx_frames);
	if (dev->st.drop_uc)
		eng_log("roce: UC: packets dropped %llu, messages given up %llu",
			(unsigned long long)dev->st.drop_uc,
			(unsigned long long)dev->st.uc_aborted);
	if (dev->st.rx_frames)
		eng_log("roce: rx dropped: no QP %llu, QP state %llu, bad packet %llu, Q_Key %llu, no receive WQE %llu, too big %llu, response to nothing outstanding %llu, multicast group not joined %llu",
			(unsigned long long)dev->st.drop_no_qp,
			(unsigned long long)dev->st.drop_state,
			(unsigned long long)dev->st.drop_bad_pkt,
			(unsigned long long)dev->st.drop_qkey,
			(unsigned long long)dev->st.drop_no_rwqe,
			(unsigned long long)dev->st.rx_too_big,
			(unsigned long long)dev->st.drop_ghost,
			(unsigned long long)dev->st.drop_mcast);
	if (dev->st.tx_mcast || dev->st.rx_mcast)
		eng_log("roce: multicast: frames tx %llu rx %llu, copies to attached QPs %llu, for a group not joined %llu",
			(unsigned long long)dev->st.tx_mcast,
			(unsigned long long)dev->st.rx_mcast,
			(unsigned long long)dev->st.mcast_rx,
			(unsigned long long)dev->st.drop_mcast);
	if (dev->st.rtt_samples)
		eng_log("roce: round trips: longest %llu us; losses seen %llu",
			(unsigned long long)dev->st.rtt_max_us,
			(unsigned long long)dev->st.losses);
	if (dev->st.tx_frames || dev->st.rx_frames)
		eng_log("roce: duplicate requests %llu, sequence NAKs tx %llu rx %llu, RNR NAKs tx %llu rx %llu",
			(unsigned long long)dev->st.dup_requests,
			(unsigned long long)dev->st.seq_naks_tx,
			(unsigned long long)dev->st.seq_naks_rx,
			(unsigned long long)dev->st.rnr_naks_tx,
			(unsigned long long)dev->st.rnr_naks_rx);
	if (dev->st.rx_refused || dev->st.tx_backlogged || dev->st.rx_dead ||
	    dev->st.tx_dropped || dev->txb_len)
		eng_log("roce: backpressure: rx refused %llu (then taken), tx backlogged %llu (at most %llu at once, %llu unsent at exit), tx dropped %llu, rx dropped by a dead adapter %llu",
			(unsigned long long)dev->st.rx_refused,
			(unsigned long long)dev->st.tx_backlogged,
			(unsigned long long)dev->st.tx_backlog_max,
			(unsigned long long)dev->txb_len,
			(unsigned long long)dev->st.tx_dropped,
			(unsigned long long)dev->st.rx_dead);
	if (dev->st.flushes || dev->st.atomic_writes)
		eng_log("roce: responder: FLUSHes %llu (%llu with rxe's ICRC), ATOMIC WRITEs %llu",
			(unsigned long long)dev->st.flushes,
			(unsigned long long)dev->st.flush_icrc_rxe,
			(unsigned long long)dev->st.atomic_writes);
	if (dev->st.db_lost)
		eng_log("roce: doorbell queue full: %llu UAR writes lost, every QP and CQ rung instead",
			(unsigned long long)dev->st.db_lost);
	if (dev->st.passes)
		eng_log("roce: %llu passes stepped %llu QPs (at most %llu in one), %llu timers fired; send queue polls: %llu found a post, %llu ended without",
			(unsigned long long)dev->st.passes,
			(unsigned long long)dev->st.qp_steps,
			(unsigned long long)dev->st.max_pass_steps,
			(unsigned long long)dev->st.timers_fired,
			(unsigned long long)dev->st.poll_hits,
			(unsigned long long)dev->st.poll_misses);
	for (int i = 1; i < ROCE_RX_NERR; i++)
		if (dev->drops.err[i])
			eng_log("roce: dropped %llu received frames: %s",
				(unsigned long long)dev->drops.err[i],
				roce_rx_err_name(i));
	txb_free(dev);
	pthread_mutex_destroy(&dev->tx_lock);
	pthread_cond_destroy(&dev->lane_idle);
	roce_sched_fini(dev);
	timer_heap_fini(&dev->cq_timers);
	free(dev->rxq);
	free(dev);
	eng->roce = NULL;
}

/* Function reset: queued frames and doorbells belong to the old life. */
void roce_dev_reset_locked(struct orca_engine *eng)
{
	struct roce_dev *dev = eng->roce;

	dev->rx_head = dev->rx_tail;
	dev->db_head = dev->db_tail;
	dev->db_overflow = false;
	dev->again = false;
	dev->next_deadline_us = 0;
	/* Frames built in the old life are not sent in the new one. */
	txb_free(dev);
	dev->tx_blocked = false;
	/* A pause was the old link's word to the old life. */
	memset(dev->pfc.until_us, 0, sizeof(dev->pfc.until_us));
	dev->pfc.changed = true;
}

/*
 * Backpressure and why it cannot deadlock.
 *
 * On a shared-memory wire nothing between two engines drops a frame: the
 * sender's port waits for room in its ring to the switch, the switch
 * leaves a frame in its input ring while the ring to its destination is
 * full, and the destination port leaves it in that ring while the
 * engine's receive queue is full (engine_roce_rx_try()).  Every one of
 * those waits ends when the next hop drains.  A wait-for cycle would need
 * a hop that drains only once it could send: the engine, which sends
 * while it processes what it received (ACKs, READ responses, requests
 * that ACKs let go).  Engines A and B, both queues full and both rings
 * towards the switch full, each waiting in its send for the switch, which
 * waits for the other's port, which waits for that engine: deadlock.
 *
 * So the engine never waits to send.  Taking a received frame only
 * changes QP state (roce_resp.c queues READ responses as jobs bounded by
 * the responder resources it granted, coalesces ACKs into one pending
 * ACK; roce_comp.c retires WQEs and rewinds requesters): it needs no room
 * on the wire.  A frame the port has no room for goes to the backlog,
 * with every frame built after it (one destination per QP, so a QP's
 * packets stay in order; loopback frames wait there for room in our own
 * queue likewise).  While the backlog is not empty the scheduler steps no
 * QP (roce_sched_pass()), so it holds at most what the step in progress
 * built; the engine thread meanwhile sleeps until the port says there is
 * room (engine_roce_tx_ready()) or a frame comes, and still drains its
 * receive queue at every wake-up.  The engine's receive queue therefore
 * always drains, so the port's wait for it always ends, so the switch's,
 * so the sending port's: no cycle can close.  A dead adapter's engine
 * drains nothing: its frames are dropped instead (rx_dead), and a
 * switch that stopped draining for wire_link_policy_ring_tx is given up on by
 * the port, which then drops (tx_dropped) rather than wait forever.
 */
#define TX_RETRY_US	100000	/* the port is asked again this often */

static bool rx_room(const struct roce_dev *dev)
{
	return dev->rx_tail - dev->rx_head < ROCE_RXQ_LEN;
}

/* Under eng->lock, with room. */
static void rx_put(struct roce_dev *dev, const uint8_t *frame, size_t len)
{
	struct roce_rx_slot *s = &dev->rxq[dev->rx_tail % ROCE_RXQ_LEN];

	memcpy(s->data, frame, len);
	s->len = (uint32_t)len;
	dev->rx_tail++;
	engine_wake_locked(dev->eng);
}

/* The data path runs unless the firmware is dead (hang or fatal). */
static bool roce_alive(const struct orca_engine *eng)
{
	return !eng->hang && !(eng->status & ORCA_STATUS_FATAL);
}

void engine_roce_rx(struct orca_engine *eng, const uint8_t *frame, size_t len)
{
	struct roce_dev *dev = eng->roce;

	pthread_mutex_lock(&eng->lock);
	if (len > ROCE_MAX_FRAME)
		dev->st.rx_too_big++;
	else if (!rx_room(dev))
		dev->st.rxq_full++;
	else
		rx_put(dev, frame, len);
	pthread_mutex_unlock(&eng->lock);
}

bool engine_roce_rx_try(struct orca_engine *eng, const uint8_t *frame,
			size_t len)
{
	struct roce_dev *dev = eng->roce;
	bool taken = true;

	pthread_mutex_lock(&eng->lock);
	if (len > ROCE_MAX_FRAME) {
		dev->st.rx_too_big++;
	} else if (rx_room(dev)) {
		rx_put(dev, frame, len);
	} else if (!roce_alive(eng)) {
		dev->st.rx_dead++;
	} else {
		/* roce_run() calls rx_ready once it has made room. */
		dev->st.rx_refused++;
		dev->rx_waiter = true;
		engine_wake_locked(eng);
		taken = false;
	}
	pthread_mutex_unlock(&eng->lock);
	return taken;
}

static void rx_frame(struct roce_dev *dev, const uint8_t *frame, size_t len);

/* Wakes the engine to look at its link again (any thread but its own). */
static void lane_kick(struct orca_engine *eng)
{
	pthread_mutex_lock(&eng->lock);
	engine_wake_locked(eng);
	pthread_mutex_unlock(&eng->lock);
}

/*
 * The port's RoCE lane (engine.h).  The link is read under tx_lock, which
 * engine_set_roce_link() takes to change it; a frame is processed in the
 * switch's ring, where rx_frame() reads it once, as from our own queue.
 */
static bool lane_want(struct roce_dev *dev)
{
	bool came = false;

	pthread_mutex_lock(&dev->tx_lock);
	if (dev->link.rx_want)
		came = dev->link.rx_want(dev->link.ctx);
	pthread_mutex_unlock(&dev->tx_lock);
	return came;
}

#define LANE_BATCH	256	/* frames per pass: doorbells keep a turn */
/*
 * How long after its last frame the engine keeps looking at a lane whose
 * producer says it is mid-burst, instead of sleeping on its kick: a kick
 * costs the producer a system call (microseconds on a virtual machine)
 * and the wake-up costs more; a burst's frames come closer than this.
 */
#define LANE_LINGER_US	20

/* Under the engine's lock, about to sleep: should it poll the lane? */
static bool lane_linger(struct roce_dev *dev)
{
	bool busy = false;

	if (!dev->lane_rx_us || now_us() - dev->lane_rx_us > LANE_LINGER_US)
		return false;
	pthread_mutex_lock(&dev->tx_lock);
	if (dev->link.rx_busy)
		busy = dev->link.rx_busy(dev->link.ctx);
	pthread_mutex_unlock(&dev->tx_lock);
	return busy;
}

/* On the engine thread: tell the link whether a burst goes on. */
static void lane_tx_busy(struct roce_dev *dev, bool busy)
{
	if (dev->tx_busy_shown == busy)
		return;
	dev->tx_busy_shown = busy;
	pthread_mutex_lock(&dev->tx_lock);
	if (dev->link.tx_busy)
		dev->link.tx_busy(dev->link.ctx, busy);
	pthread_mutex_unlock(&dev->tx_lock);
}

/*
 * Frames taken from the lane, handled (or, @drop, counted as rx_dead).
 * The port, whose ring the frames lie in, stays while lane_active is set.
 */
static uint32_t lane_rx(struct roce_dev *dev, bool drop)
{
	struct engine_roce_link l;
	const uint8_t *f;
	uint32_t n = 0;
	size_t len;

	pthread_mutex_lock(&dev->tx_lock);
	l = dev->link;
	dev->lane_active = l.rx_peek != NULL;
	pthread_mutex_unlock(&dev->tx_lock);
	if (!l.rx_peek)
		return 0;
	while (n < LANE_BATCH && (f = l.rx_peek(l.ctx, &len))) {
		if (drop)
			dev->st.rx_dead++;
		else if (len > ROCE_MAX_FRAME)
			dev->st.rx_too_big++;
		else
			rx_frame(dev, f, len);
		l.rx_pop(l.ctx);
		n++;
	}
	pthread_mutex_lock(&dev->tx_lock);
	dev->lane_active = false;
	pthread_cond_broadcast(&dev->lane_idle);
	pthread_mutex_unlock(&dev->tx_lock);
	return n;
}

/*
 * Under tx_lock: the engine has let go of the port's ring and of its kick.
 * An engine asleep on the kick is woken (without tx_lock: the engine's
 * lock comes first) and, held off it, does not poll it again.
 */
static void lane_quiesce(struct roce_dev *dev)
{
	bool kicked = false;

	dev->lane_hold++;
	while (dev->lane_active || dev->lane_polled) {
		if (dev->lane_polled && !kicked) {
			pthread_mutex_unlock(&dev->tx_lock);
			lane_kick(dev->eng);
			pthread_mutex_lock(&dev->tx_lock);
			kicked = true;
			continue;
		}
		pthread_cond_wait(&dev->lane_idle, &dev->tx_lock);
	}
	dev->lane_hold--;
}

/*
 * The engine sleeps on the lane's kick itself: the switch's eventfd wakes
 * it, with no port thread in between.  It asked for the kick (rx_want)
 * before, in work_pending.
 */
static int roce_sleep_begin(struct orca_engine *eng)
{
	struct roce_dev *dev = eng->roce;
	int fd = -1;

	pthread_mutex_lock(&dev->tx_lock);
	/* A sleeping engine is in no burst. */
	if (dev->tx_busy_shown && dev->link.tx_busy)
		dev->link.tx_busy(dev->link.ctx, false);
	dev->tx_busy_shown = false;
	if (!dev->lane_hold && dev->link.rx_peek && dev->link.rx_fd >= 0) {
		fd = dev->link.rx_fd;
		dev->lane_polled = true;
	}
	pthread_mutex_unlock(&dev->tx_lock);
	return fd;
}

static void roce_sleep_end(struct orca_engine *eng, bool fired)
{
	struct roce_dev *dev = eng->roce;
	uint64_t kicks;

	if (!dev->lane_polled)
		return;
	pthread_mutex_lock(&dev->tx_lock);
	/* Nonblocking: someone may have read the kick first (EAGAIN). */
	if (fired && read(dev->link.rx_fd, &kicks, sizeof(kicks)) < 0 &&
	    errno != EAGAIN)
		abort();
	dev->lane_polled = false;
	pthread_cond_broadcast(&dev->lane_idle);
	pthread_mutex_unlock(&dev->tx_lock);
}

static bool roce_dead_rx_locked(struct orca_engine *eng)
{
	return lane_want(eng->roce);
}

static void roce_drop_rx(struct orca_engine *eng)
{
	lane_rx(eng->roce, true);
}

void engine_set_roce_link(struct orca_engine *eng,
			  const struct engine_roce_link *link)
{
	pthread_mutex_lock(&eng->roce->tx_lock);
	lane_quiesce(eng->roce);
	eng->roce->tx = NULL;
	eng->roce->tx_ctx = NULL;
	if (eng->roce->tx_busy_shown && eng->roce->link.tx_busy)
		eng->roce->link.tx_busy(eng->roce->link.ctx, false);
	eng->roce->tx_busy_shown = false;
	if (link)
		eng->roce->link = *link;
	else
		memset(&eng->roce->link, 0, sizeof(eng->roce->link));
	pthread_mutex_unlock(&eng->roce->tx_lock);
	/*
	 * A lane's frames kick the engine only once it has asked for it
	 * (rx_want, before it sleeps): an engine asleep since before it had
	 * the lane has not, and must look again now.
	 */
	lane_kick(eng);
}

void engine_roce_tx_ready(struct orca_engine *eng)
{
	pthread_mutex_lock(&eng->lock);
	eng->roce->tx_ready = true;
	engine_wake_locked(eng);
	pthread_mutex_unlock(&eng->lock);
}

/* Append a copy of a frame to the backlog; engine thread. */
static void txb_add(struct roce_dev *dev, const uint8_t *frame, size_t len,
		    bool loopback)
{
	struct roce_txb *b = malloc(sizeof(*b) + len);

	if (!b) {
		dev->st.tx_dropped++;
		return;
	}
	b->next = NULL;
	b->loopback = loopback;
	b->len = (uint32_t)len;
	memcpy(b->data, frame, len);
	if (!dev->txb_head)
		dev->txb_since_us = now_us();
	*dev->txb_tail = b;
	dev->txb_tail = &b->next;
	dev->st.tx_backlogged++;
	if (++dev->txb_len > dev->st.tx_backlog_max)
		dev->st.tx_backlog_max = dev->txb_len;
}

/* Into our own receive queue: false if it is full. */
static bool loopback_put(struct roce_dev *dev, const uint8_t *frame,
			 size_t len)
{
	bool ok;

	pthread_mutex_lock(&dev->eng->lock);
	ok = rx_room(dev);
	if (ok)
		rx_put(dev, frame, len);
	pthread_mutex_unlock(&dev->eng->lock);
	return ok;
}

/* Out to the port, under tx_lock: false if it has no room (-EBUSY). */
static bool port_put(struct roce_dev *dev, const uint8_t *frame, size_t len)
{
	int err;

	if (dev->tx) {
		dev->tx(dev->tx_ctx, frame, len);
		return true;
	}
	if (!dev->link.tx) {
		dev->st.tx_no_port++;
		return true;
	}
	err = dev->link.tx(dev->link.ctx, frame, len);
	if (err == -EBUSY)
		return false;
	if (err)
		dev->st.tx_dropped++;
	return true;
}

/*
 * The backlog has drained after @waited us: that long nothing of ours
 * reached the wire, so the QPs' retransmission clocks stop for it.  A
 * frame held back by our own queue is not late, and retransmitting it
 * would only queue it twice.  (The round trip being timed keeps its start:
 * the wait is part of what the next packets meet.)
 */
static void txb_unblocked(struct roce_dev *dev, uint64_t waited)
{
	for (struct roce_qp *rq = dev->qps; rq; rq = rq->next) {
		if (!rq->retry_deadline)
			continue;
		rq->retry_deadline += waited;
		rq->retry_full += waited;
		roce_sched_qp(rq);	/* its step syncs the timer */
	}
}

/* Send what the backlog holds, in order, until something has no room. */
static void txb_flush(struct roce_dev *dev)
{
	struct roce_txb *b;
	bool ok;

	if (!dev->txb_head)
		return;

	while ((b = dev->txb_head)) {
		if (b->loopback) {
			ok = loopback_put(dev, b->data, b->len);
		} else {
			pthread_mutex_lock(&dev->tx_lock);
			ok = port_put(dev, b->data, b->len);
			pthread_mutex_unlock(&dev->tx_lock);
		}
		if (!ok)
			return;
		dev->txb_head = b->next;
		if (!dev->txb_head)
			dev->txb_tail = &dev->txb_head;
		dev->txb_len--;
		free(b);
	}
	txb_unblocked(dev, now_us() - dev->txb_since_us);
}

bool roce_tx_blocked(const struct roce_dev *dev)
{
	return dev->txb_head != NULL;
}

void engine_set_roce_tx(struct orca_engine *eng,
			void (*tx)(void *ctx, const uint8_t *frame,
				   size_t len),
			void *ctx)
{
	pthread_mutex_lock(&eng->roce->tx_lock);
	lane_quiesce(eng->roce);
	memset(&eng->roce->link, 0, sizeof(eng->roce->link));
	eng->roce->tx = tx;
	eng->roce->tx_ctx = ctx;
	pthread_mutex_unlock(&eng->roce->tx_lock);
}

void roce_doorbell_locked(struct orca_engine *eng, uint32_t uar, uint32_t off,
			  uint32_t val)
{
	struct roce_dev *dev = eng->roce;
	struct roce_db *db;

	if (dev->db_tail - dev->db_head >= ROCE_DBQ_LEN) {
		dev->db_overflow = true;
		dev->st.db_lost++;
		return;
	}
	db = &dev->dbq[dev->db_tail++ % ROCE_DBQ_LEN];
	db->uar = uar;
	db->off = off;
	db->val = val;
}

bool roce_work_pending_locked(struct orca_engine *eng)
{
	struct roce_dev *dev = eng->roce;

	if (dev->rx_head != dev->rx_tail || dev->db_head != dev->db_tail ||
	    dev->db_overflow || dev->rx_waiter)
		return true;
	/* Waiting for the port: no pass, no QP timer, until it has room. */
	if (dev->tx_blocked) {
		if (dev->tx_ready || now_us() >= dev->tx_retry_us ||
		    (dev->cq_due_us && now_us() >= dev->cq_due_us))
			return true;
	} else if (dev->again ||
		   (dev->next_deadline_us &&
		    now_us() >= dev->next_deadline_us)) {
		return true;
	}
	/*
	 * Last: the lane's kick is asked for only by an engine about to
	 * sleep.  A busy one that asked would make its peer write the
	 * eventfd for frames it takes in its next pass anyway; one whose
	 * peer is mid-burst looks again instead, for a moment.
	 */
	dev->lingering = lane_linger(dev);
	return dev->lingering || lane_want(dev);
}

uint64_t roce_deadline_locked(struct orca_engine *eng)
{
	struct roce_dev *dev = eng->roce;

	if (!dev->tx_blocked)
		return dev->next_deadline_us;
	if (dev->cq_due_us && dev->cq_due_us < dev->tx_retry_us)
		return dev->cq_due_us;
	return dev->tx_retry_us;
}

/* ---- per-QP state ---- */

uint32_t roce_qp_mtu_ud(struct orca_engine *eng)
{
	uint8_t m = eng->active_mtu;

	if (m < 1 || m > 5)
		m = 3;
	return 256u << (m - 1);
}

uint32_t roce_qp_mtu(struct orca_engine *eng, const struct emu_qp *qp)
{
	uint8_t m = qp->attr.path_mtu;

	if (m < 1 || m > 5)
		m = 3;		/* 1024, what rxe picks for 1500 */
	if (eng->active_mtu >= 1 && m > eng->active_mtu)
		m = eng->active_mtu;
	return 256u << (m - 1);
}

struct roce_qp *roce_qp_get(struct orca_engine *eng, struct emu_qp *qp)
{
	struct roce_dev *dev = eng->roce;
	struct roce_qp *rq = qp->roce;

	if (rq)
		return rq;
	/* Arming its timer later must not fail: make room now. */
	if (roce_sched_reserve(dev))
		return NULL;
	rq = calloc(1, sizeof(*rq));
	if (!rq)
		return NULL;
	rq->sw = calloc(1u << qp->log_sq_depth, sizeof(*rq->sw));
	rq->nres = qp->resp_res ? qp->resp_res : 1;
	rq->njobs = roce_resp_jobs(rq->nres);
	rq->res = calloc(rq->nres, sizeof(*rq->res));
	rq->jobs = calloc(rq->njobs, sizeof(*rq->jobs));
	if (!rq->sw || !rq->res || !rq->jobs) {
		free(rq->sw);
		free(rq->res);
		free(rq->jobs);
		free(rq);
		return NULL;
	}
	rq->dev = dev;
	rq->qp = qp;
	timer_node_init(&rq->timer);
	rq->sq_fetched = rq->sq_head = rq->sq_next = rq->sq_started = qp->sq_ci;
	rq->next = dev->qps;
	if (dev->qps)
		dev->qps->pprev = &rq->next;
	rq->pprev = &dev->qps;
	dev->qps = rq;
	dev->nqps++;
	qp->roce = rq;
	return rq;
}

/*
 * What roce_qp_get() allocates for a QP, for the memory budget, with one
 * responder resource; MODIFY_QP charges more as max_dest_rd_atomic asks.
 */
uint64_t roce_qp_footprint(uint8_t log_sq_depth)
{
	return sizeof(struct roce_qp) +
	       ((uint64_t)1 << log_sq_depth) * sizeof(struct roce_swqe) +
	       roce_resp_footprint(1);
}

/*
 * The QP's PSNs now, for QUERY_QP: the responder's next expected and the
 * requester's next to send.  False if the QP has no transport state.
 */
bool roce_qp_psns(const struct emu_qp *qp, uint32_t *rq_psn, uint32_t *sq_psn)
{
	if (!qp->roce)
		return false;
	*rq_psn = qp->roce->epsn;
	*sq_psn = qp->roce->snd_psn;
	return true;
}

uint64_t roce_resp_footprint(uint32_t nres)
{
	if (!nres)
		nres = 1;
	return (uint64_t)nres * sizeof(struct roce_res) +
	       (uint64_t)roce_resp_jobs(nres) * sizeof(struct roce_rjob);
}

/*
 * More responder resources for a QP that has transport state: the
 * executed READs/atomics stay where they are (duplicates still find
 * them), the queued jobs keep their free-running indices in the larger
 * ring.  Engine thread (a MODIFY_QP).
 */
int roce_qp_resp_grow(struct emu_qp *qp, uint32_t nres)
{
	struct roce_qp *rq = qp->roce;
	struct roce_rjob *jobs;
	struct roce_res *res;
	uint32_t njobs;

	if (!rq || nres <= rq->nres)
		return 0;
	njobs = roce_resp_jobs(nres);
	res = calloc(nres, sizeof(*res));
	jobs = calloc(njobs, sizeof(*jobs));
	if (!res || !jobs) {
		free(res);
		free(jobs);
		return -ENOMEM;
	}
	memcpy(res, rq->res, rq->nres * sizeof(*res));
	for (uint32_t i = rq->job_head; i != rq->job_tail; i++)
		jobs[i & (njobs - 1)] = rq->jobs[i & (rq->njobs - 1)];
	free(rq->res);
	free(rq->jobs);
	rq->res = res;
	rq->nres = nres;
	rq->jobs = jobs;
	rq->njobs = njobs;
	return 0;
}

void roce_qp_free(struct emu_qp *qp)
{
	struct roce_qp *rq = qp->roce;

	if (!rq)
		return;
	roce_odp_forget(rq);
	roce_sched_forget(rq);
	*rq->pprev = rq->next;
	if (rq->next)
		rq->next->pprev = rq->pprev;
	rq->dev->nqps--;
	free(rq->sw);
	free(rq->res);
	free(rq->jobs);
	free(rq);
	qp->roce = NULL;
}

static void start_requester(struct roce_qp *rq)
{
	const struct orca_qp_attr *a = &rq->qp->attr;
	uint32_t psn = le32toh(a->sq_psn) & ROCE_PSN_MASK;

	rq->snd_psn = rq->una_psn = rq->max_sent_psn = psn;
	roce_req_window_init(rq);
	rq->rtt_start = 0;
	rq->srtt_us = rq->rttvar_us = 0;
	rq->rto_shift = 0;
	rq->retry_left = a->retry_cnt;
	rq->retried = false;
	rq->rnr_left = a->rnr_retry;
	rq->sq_kick = true;
}

/*
 * Called by engine_qp_enter_state() after the state changed, from a command or
 * from the data path; always on the engine thread inside a DMA section.
 */
void roce_qp_state_change(struct orca_engine *eng, struct emu_qp *qp,
			  uint8_t cur, uint8_t next)
{
	struct roce_qp *rq;

	if (next == ORCA_QPS_RESET) {
		roce_qp_free(qp);
		return;
	}
	rq = roce_qp_get(eng, qp);
	if (!rq)
		return;
	switch (next) {
	case ORCA_QPS_RTR:
		rq->epsn = le32toh(qp->attr.rq_psn) & ROCE_PSN_MASK;
		rq->msn = 0;
		rq->uc_drop = false;
		break;
	case ORCA_QPS_RTS:
		if (cur == ORCA_QPS_RTR || cur == ORCA_QPS_INIT)
			start_requester(rq);
		rq->sq_kick = true;
		break;
	case ORCA_QPS_SQD:
		/* No new WQEs start; SQ_DRAINED when the started ones end. */
		rq->sqd_notify = cur == ORCA_QPS_RTS && qp->sqd_notify;
		roce_qp_check_drained(rq);
		break;
	case ORCA_QPS_SQE:
		roce_comp_flush_sq(rq);
		break;
	case ORCA_QPS_ERR:
		/* Its faults end with no event; a late resume is stale. */
		roce_odp_forget(rq);
		rq->sqd_notify = false;
		rq->retry_deadline = rq->rnr_deadline = 0;
		rq->tlp_deadline = 0;
		rq->dcqcn.pace_deadline = 0;
		rq->ack_pending = false;
		roce_comp_flush_sq(rq);
		roce_resp_flush_rq(rq);
		break;
	}
	/* The next pass starts a requester, or drops a stopped timer. */
	roce_sched_qp(rq);
}

void roce_qp_check_drained(struct roce_qp *rq)
{
	if (!rq->sqd_notify || rq->qp->state != ORCA_QPS_SQD ||
	    rq->sq_head != rq->sq_started)
		return;
	rq->sqd_notify = false;
	engine_eq_post(rq->dev->eng, 0, ORCA_EQE_SQ_DRAINED, rq->qp->qpn, 0);
}

void roce_qp_to_err(struct roce_qp *rq, uint8_t event)
{
	struct orca_engine *eng = rq->dev->eng;
	struct emu_qp *qp = rq->qp;

	if (qp->state == ORCA_QPS_ERR || qp->state == ORCA_QPS_RESET)
		return;
	if (event)
		engine_eq_post(eng, 0, event, qp->qpn, 0);
	engine_qp_enter_state(eng, qp, ORCA_QPS_ERR);
}

/* ---- queue memory ---- */

void *roce_queue_entry(struct orca_engine *eng, const struct emu_pages *p,
		       uint32_t first_page, uint32_t npages, uint32_t idx,
		       uint8_t log_depth, uint32_t stride)
{
	uint64_t off = (uint64_t)(idx & ((1u << log_depth) - 1)) * stride;
	uint64_t page = off >> p->page_shift;

	if (page >= npages || first_page + page >= p->npages)
		return NULL;
	return engine_dma(eng, p->addr[first_page + page] +
			  (off & ((1ull << p->page_shift) - 1)), stride);
}

/* ---- transmit ---- */

bool roce_local_gid(struct orca_engine *eng, const uint8_t gid[16])
{
	for (unsigned int i = 0; i < EMU_GID_TABLE_LEN; i++)
		if (eng->gids[i].type == ORCA_GID_TYPE_ROCE_V2 &&
		    !memcmp(eng->gids[i].gid, gid, 16))
			return true;
	return false;
}

/*
 * The Ethernet group address of a multicast GID, as the IP layer maps it
 * (ip_eth_mc_map, ipv6_eth_mc_map): IPv4 01:00:5e and the low 23 bits of
 * the address, IPv6 33:33 and its last 32 bits.
 */
static void mcast_mac(const uint8_t gid[16], uint8_t mac[6])
{
	if (roce_gid_is_v4(gid)) {
		mac[0] = 0x01;
		mac[1] = 0x00;
		mac[2] = 0x5e;
		mac[3] = gid[13] & 0x7f;
	} else {
		mac[0] = 0x33;
		mac[1] = 0x33;
		mac[2] = gid[12];
		mac[3] = gid[13];
	}
	mac[4] = gid[14];
	mac[5] = gid[15];
}

/* A QP other than @qpn is attached to the group @mgid. */
static bool mcg_has_other(struct orca_engine *eng, const uint8_t mgid[16],
			  uint32_t qpn)
{
	const struct emu_mcg *g = engine_mcg_find(eng, mgid);

	return g && (g->nqp > 1 || g->qpn[0] != qpn);
}

static void count_tx(struct roce_dev *dev, const struct roce_pkt *pkt,
		     size_t len)
{
	dev->st.tx_frames++;
	dev->st.tx_bytes += len;
	if (pkt->dmac[0] & 1)
		dev->st.tx_mcast++;
}

/*
 * A unicast frame for the wire, with nothing of ours waiting before it, on a
 * link that takes frames in place: built there (send_in_place()).  Others
 * are built in dev->frame: a multicast frame may go to the wire and back
 * in, one to our own MAC only back in, and one behind the backlog keeps its
 * place in it.
 */
static bool in_place_ok(const struct roce_dev *dev, const struct roce_pkt *pkt)
{
	return dev->link.tx_slot && !dev->tx && !dev->txb_head &&
	       !(pkt->dmac[0] & 1) && memcmp(pkt->dmac, pkt->smac, 6) &&
	       memcmp(pkt->dmac, dev->eng->cfg.mac, 6);
}

/*
 * The frame built once, in the link's ring: the payload goes from guest
 * memory (@fill) straight to the slot the peer reads, and its ICRC is
 * computed there.  False: no slot (a full ring, or no shared memory): the
 * caller builds and sends it the usual way, which waits for room.  True:
 * done, with *err the build's outcome.
 */
static bool send_in_place(struct roce_dev *dev, struct roce_qp *rq,
			  struct roce_pkt *pkt, roce_fill_fn fill, void *arg,
			  int *err)
{
	size_t hdr, len, cap;
	uint8_t *f;

	pthread_mutex_lock(&dev->tx_lock);
	f = dev->link.tx_slot(dev->link.ctx, &cap);
	if (!f) {
		pthread_mutex_unlock(&dev->tx_lock);
		return false;
	}
	hdr = roce_build_hdrs(f, cap, pkt);
	*err = hdr ? 0 : -EINVAL;
	if (!*err && pkt->paylen && fill)
		*err = fill(rq, arg, f + hdr, pkt->paylen);
	if (*err) {
		dev->link.tx_abort(dev->link.ctx);
		pthread_mutex_unlock(&dev->tx_lock);
		return true;
	}
	len = roce_build_finish(f, pkt);
	count_tx(dev, pkt, len);
	dev->st.tx_in_place++;
	if (dev->link.tx_commit(dev->link.ctx, len))
		dev->st.tx_dropped++;
	pthread_mutex_unlock(&dev->tx_lock);
	return true;
}

int roce_send_pkt(struct roce_qp *rq, const struct orca_av *av,
		  struct roce_pkt *pkt, roce_fill_fn fill, void *arg)
{
	struct roce_dev *dev = rq->dev;
	struct orca_engine *eng = dev->eng;
	const struct emu_gid *gid;
	size_t hdr, len;
	int err;

	if (av->sgid_index >= EMU_GID_TABLE_LEN)
		return -EINVAL;
	gid = &eng->gids[av->sgid_index];
	if (gid->type != ORCA_GID_TYPE_ROCE_V2)
		return -EINVAL;
	if (engine_gid_is_mcast(av->dgid))
		mcast_mac(av->dgid, pkt->dmac);
	else
		memcpy(pkt->dmac, av->dmac, 6);
	memcpy(pkt->smac, gid->mac, 6);
	pkt->vlan = gid->vlan < 4096 ? gid->vlan : ROCE_NO_VLAN;
	pkt->ipv6 = !roce_gid_is_v4(av->dgid);
	if (pkt->ipv6 == roce_gid_is_v4(gid->gid))
		return -EINVAL;		/* IPv4 to IPv6 cannot be routed */
	memcpy(pkt->sgid, gid->gid, 16);
	memcpy(pkt->dgid, av->dgid, 16);
	pkt->traffic_class = roce_ecn_tx_tclass(dev, pkt, av->traffic_class);
	pkt->hop_limit = av->hop_limit ? av->hop_limit : 64;
	pkt->flow_label = le32toh(av->flow_label) & 0xfffff;
	pkt->udp_sport = roce_udp_sport(rq->qp->qpn);
	pkt->pkey = ROCE_DEFAULT_PKEY;

	if (in_place_ok(dev, pkt) && send_in_place(dev, rq, pkt, fill, arg, &err))
		return err;
	hdr = roce_build_hdrs(dev->frame, sizeof(dev->frame), pkt);
	if (!hdr)
		return -EINVAL;
	if (pkt->paylen && fill) {
		err = fill(rq, arg, dev->frame + hdr, pkt->paylen);
		if (err)
			return err;
	}
	len = roce_build_finish(dev->frame, pkt);
	count_tx(dev, pkt, len);

	/*
	 * Multicast to a group that other QPs of ours joined: a copy back in
	 * for them (the switch never reflects a frame to its sender), and
	 * the frame on the wire for the other ports' members.
	 */
	if ((pkt->dmac[0] & 1) && mcg_has_other(eng, pkt->dgid, rq->qp->qpn)) {
		dev->st.loopback++;
		if (dev->txb_head || !loopback_put(dev, dev->frame, len))
			txb_add(dev, dev->frame, len, true);
	}
	/*
	 * Our own MAC: straight back in, as rxe does, never on the wire.
	 * Behind a backlog, or without room: into the backlog, in order.
	 */
	if (!memcmp(pkt->dmac, pkt->smac, 6) ||
	    !memcmp(pkt->dmac, eng->cfg.mac, 6)) {
		dev->st.loopback++;
		if (dev->txb_head || !loopback_put(dev, dev->frame, len))
			txb_add(dev, dev->frame, len, true);
		return 0;
	}
	if (dev->txb_head) {
		txb_add(dev, dev->frame, len, false);
		return 0;
	}
	pthread_mutex_lock(&dev->tx_lock);
	if (!port_put(dev, dev->frame, len))
		txb_add(dev, dev->frame, len, false);
	pthread_mutex_unlock(&dev->tx_lock);
	return 0;
}

/* ---- receive dispatch ---- */

static bool qp_takes_requests(const struct emu_qp *qp)
{
	return qp->state == ORCA_QPS_RTR || qp->state == ORCA_QPS_RTS ||
	       qp->state == ORCA_QPS_SQD || qp->state == ORCA_QPS_SQE;
}

/*
 * A multicast datagram (IBTA: destination QPN 0xFFFFFF, a multicast
 * destination GID, as rxe_rcv_mcast_pkt() takes it): a copy to every UD
 * QP attached to its group, each checked as a unicast datagram would be
 * (state, Q_Key, a receive WQE).  A QP never receives its own datagram:
 * a copy from our GID and the QP's own number is skipped for it (the
 * other QPs of this adapter in the group get it, as those of other ports
 * do).
 */
static void rx_mcast(struct roce_dev *dev, const struct roce_opinfo *op,
		     const struct roce_pkt *pkt)
{
	struct orca_engine *eng = dev->eng;
	const struct emu_mcg *g;
	bool ours;

	if (pkt->dest_qpn != ROCE_MCAST_QPN || !(op->flags & ROCE_K_UD) ||
	    !engine_gid_is_mcast(pkt->dgid)) {
		dev->st.drop_bad_pkt++;
		return;
	}
	g = engine_mcg_find(eng, pkt->dgid);
	if (!g) {
		dev->st.drop_mcast++;
		return;
	}
	ours = roce_local_gid(eng, pkt->sgid);
	for (uint32_t i = 0; i < g->nqp; i++) {
		struct emu_qp *qp = engine_qp_lookup(eng, g->qpn[i]);
		struct roce_qp *rq;

		if (!qp || (ours && pkt->deth_sqpn == qp->qpn))
			continue;
		if (!qp_takes_requests(qp)) {
			dev->st.drop_state++;
			continue;
		}
		rq = roce_qp_get(eng, qp);
		if (!rq)
			continue;
		dev->st.mcast_rx++;
		roce_resp_ud_rx(rq, pkt);
	}
}

/* The QP type a connected packet of opcode flags @flags is for. */
static uint8_t rx_qp_type(uint32_t flags)
{
	if (flags & ROCE_K_UC)
		return ORCA_QPT_UC;
	if (flags & ROCE_K_XRC)
		return flags & ROCE_K_RESP ? ORCA_QPT_XRC_INI :
					     ORCA_QPT_XRC_TGT;
	return ORCA_QPT_RC;
}

static void rx_frame(struct roce_dev *dev, const uint8_t *frame, size_t len)
{
	struct orca_engine *eng = dev->eng;
	const struct roce_opinfo *op;
	enum roce_rx_err err;
	struct roce_pkt pkt;
	struct emu_qp *qp;
	struct roce_qp *rq;

	dev->st.rx_frames++;
	dev->st.rx_bytes += len;
	if (len && (frame[0] & 1))
		dev->st.rx_mcast++;
	err = roce_parse(frame, len, &pkt);
	if (err) {
		dev->drops.err[err]++;
		return;
	}
	op = roce_opinfo(pkt.opcode);
	if ((pkt.pkey & 0x7fff) != 0x7fff) {
		dev->st.drop_bad_pkt++;
		return;
	}
	if (pkt.dest_qpn == ROCE_MCAST_QPN || engine_gid_is_mcast(pkt.dgid)) {
		rx_mcast(dev, op, &pkt);
		return;
	}
	if (!roce_local_gid(eng, pkt.dgid)) {
		dev->st.drop_bad_pkt++;
		return;
	}
	if (op->flags & ROCE_K_CNP) {
		roce_ecn_cnp_rx(dev, &pkt);
		return;
	}
	qp = pkt.dest_qpn ? engine_qp_lookup(eng, pkt.dest_qpn) : NULL;
	if (!qp) {
		dev->st.drop_no_qp++;
		return;
	}
	if (op->flags & ROCE_K_UD) {
		if (qp->type != ORCA_QPT_UD && qp->type != ORCA_QPT_GSI) {
			dev->st.drop_bad_pkt++;
			return;
		}
		if (!qp_takes_requests(qp)) {
			dev->st.drop_state++;
			return;
		}
		rq = roce_qp_get(eng, qp);
		if (rq)
			roce_resp_ud_rx(rq, &pkt);
		return;
	}
	/*
	 * RC, UC and XRC: only from the peer the QP is connected to, and
	 * only the QP's own transport: XRC requests for an XRC target, XRC
	 * responses for an XRC initiator, RC packets for neither.
	 */
	if (qp->type != rx_qp_type(op->flags) ||
	    memcmp(pkt.sgid, qp->attr.av.dgid, 16)) {
		dev->st.drop_bad_pkt++;
		return;
	}
	rq = roce_qp_get(eng, qp);
	if (!rq)
		return;
	roce_ecn_rx(rq, &pkt);
	if (op->flags & ROCE_K_UC) {
		/* UC has requests only: no ACKs, nothing for a completer. */
		if (!qp_takes_requests(qp)) {
			dev->st.drop_state++;
			return;
		}
		if (qp->state == ORCA_QPS_RTR && !rq->comm_est) {
			rq->comm_est = true;
			engine_eq_post(eng, 0, ORCA_EQE_COMM_EST, qp->qpn, 0);
		}
		roce_resp_uc_rx(rq, &pkt);
	} else if (op->flags & ROCE_K_RESP) {
		if (qp->state != ORCA_QPS_RTS && qp->state != ORCA_QPS_SQD) {
			dev->st.drop_state++;
			return;
		}
		roce_comp_rx(rq, &pkt);
	} else {
		if (!qp_takes_requests(qp)) {
			dev->st.drop_state++;
			return;
		}
		if (qp->state == ORCA_QPS_RTR && !rq->comm_est) {
			rq->comm_est = true;
			engine_eq_post(eng, 0, ORCA_EQE_COMM_EST, qp->qpn, 0);
		}
		roce_resp_rx(rq, &pkt);
	}
	/*
	 * What it leaves to do (an ACK, READ responses, a requester kicked
	 * by progress or a NAK, a timer moved) happens in this pass's step.
	 * A UD receive leaves nothing.
	 */
	roce_sched_qp(rq);
}

/* ---- doorbells ---- */

static void doorbell(struct roce_dev *dev, const struct roce_db *db)
{
	struct orca_engine *eng = dev->eng;
	struct emu_qp *qp;
	struct emu_cq *cq;
	struct roce_qp *rq;

	switch (db->off) {
	case ORCA_UAR_SQ_DB:
	case ORCA_UAR_RQ_DB:
		qp = engine_qp_lookup(eng, db->val & ROCE_QPN_MASK);
		/* An XRC target has no UAR (its uar 0 is no UAR of its). */
		if (!qp || !engine_qp_has_sq(qp) || qp->uar != db->uar ||
		    qp->state == ORCA_QPS_RESET)
			return;
		rq = roce_qp_get(eng, qp);
		if (!rq)
			return;
		if (qp->state == ORCA_QPS_ERR) {
			/* WQEs posted to a QP in ERR complete flushed. */
			roce_comp_flush_sq(rq);
			roce_resp_flush_rq(rq);
		} else if (db->off == ORCA_UAR_SQ_DB) {
			rq->sq_kick = true;
			roce_sched_qp(rq);
		}
		break;
	case ORCA_UAR_CQ_DB:
		cq = objtab_get(&eng->cqs, db->val);
		if (cq && cq->uar == db->uar)
			roce_cq_doorbell(eng, db->val);
		break;
	}
}

static void ring_qp(uint32_t qpn, void *obj, void *arg)
{
	struct emu_qp *qp = obj;
	struct roce_db db = { .uar = qp->uar, .off = ORCA_UAR_SQ_DB,
			      .val = qpn };

	doorbell(arg, &db);
}

static void ring_cq(uint32_t cqn, void *obj, void *arg)
{
	struct emu_cq *cq = obj;
	struct roce_db db = { .uar = cq->uar, .off = ORCA_UAR_CQ_DB,
			      .val = cqn };

	doorbell(arg, &db);
}

/*
 * Doorbells were lost to a full queue: any QP or CQ may have been rung
 * for, so each is rung now.  Every doorbell is idempotent: a send queue
 * reads its producer index, a QP in ERR flushes what is posted, a CQ
 * raises at most one event per arm.  A lost CQ doorbell would otherwise
 * be a lost wakeup: the driver saw a CQE that beat its arm and relies on
 * the doorbell for the event (thousands of CQs armed at once do this).
 */
static void ring_all(struct roce_dev *dev)
{
	objtab_for_each(&dev->eng->qps, ring_qp, dev);
	objtab_for_each(&dev->eng->cqs, ring_cq, dev);
}

/*
 * The transport's share of one engine pass; engine thread, inside a DMA
 * section, without eng->lock.  Doorbells and frames schedule their QPs;
 * the scheduler then fires due timers and steps the QPs with work, so a
 * pass never looks at an idle QP.
 */
void roce_run(struct orca_engine *eng)
{
	struct roce_dev *dev = eng->roce;
	uint64_t tx = dev->st.tx_frames, fired = dev->st.timers_fired;
	struct roce_db dbs[64];
	uint32_t n = 0, head, tail, i;
	bool overflow, again;
	uint64_t deadline, cq_due, now;
	uint32_t lane_n;
	bool rx_wake, pfc;

	pthread_mutex_lock(&eng->lock);
	while (dev->db_head != dev->db_tail && n < ARRAY_SIZE(dbs))
		dbs[n++] = dev->dbq[dev->db_head++ % ROCE_DBQ_LEN];
	overflow = dev->db_overflow;
	dev->db_overflow = false;
	dev->again = false;
	head = dev->rx_head;
	tail = dev->rx_tail;
	dev->tx_ready = false;
	pfc = dev->pfc.changed;
	dev->pfc.changed = false;
	pthread_mutex_unlock(&eng->lock);

	/* A PFC frame came: held QPs look again (a resume lets them go). */
	if (pfc)
		roce_pfc_changed(dev);
	for (i = 0; i < n; i++)
		doorbell(dev, &dbs[i]);
	if (overflow)
		ring_all(dev);

	/* The producer only writes slots past tail; these stay ours. */
	for (i = head; i != tail; i++)
		rx_frame(dev, dev->rxq[i % ROCE_RXQ_LEN].data,
			 dev->rxq[i % ROCE_RXQ_LEN].len);
	pthread_mutex_lock(&eng->lock);
	dev->rx_head = tail;
	rx_wake = dev->rx_waiter;
	dev->rx_waiter = false;
	pthread_mutex_unlock(&eng->lock);
	lane_n = lane_rx(dev, false);
	/* The port kept a frame we had no room for: there is room now. */
	if (rx_wake) {
		pthread_mutex_lock(&dev->tx_lock);
		if (dev->link.rx_ready)
			dev->link.rx_ready(dev->link.ctx);
		pthread_mutex_unlock(&dev->tx_lock);
	}

	/* What waited for room first; no new frames while some still wait. */
	txb_flush(dev);
	now = now_us();
	again = roce_sched_pass(dev, now) || lane_n == LANE_BATCH;
	/* After the pass: its CQEs may have completed a held-back event. */
	roce_cq_timers(eng, now);
	deadline = roce_sched_deadline(dev);
	cq_due = roce_cq_deadline(dev);
	if (cq_due && (!deadline || cq_due < deadline))
		deadline = cq_due;
	if (lane_n)
		dev->lane_rx_us = now;
	/* Still sending next pass: the lane's consumer need not sleep. */
	lane_tx_busy(dev, again && tx != dev->st.tx_frames);
	/*
	 * Nothing came, nothing fired: only send queues polled, or the lane
	 * while its producer is busy.
	 */
	dev->poll_only = (again || dev->lingering) && !n && !overflow &&
			 head == tail && !lane_n &&
			 tx == dev->st.tx_frames && fired == dev->st.timers_fired;
	pthread_mutex_lock(&eng->lock);
	dev->next_deadline_us = deadline;
	dev->again = again;
	dev->cq_due_us = cq_due;
	dev->tx_blocked = dev->txb_head != NULL;
	if (dev->tx_blocked)
		dev->tx_retry_us = now_us() + TX_RETRY_US;
	pthread_mutex_unlock(&eng->lock);
}

bool roce_poll_only(struct orca_engine *eng)
{
	return eng->roce->poll_only;
}

void roce_get_stats(struct orca_engine *eng, struct roce_stats *st)
{
	*st = eng->roce->st;
	roce_pfc_stats(eng->roce, st);
}

/*
 * The transport as the engine's data path: engine/device.c registers it,
 * and the engine thread calls it through this only.
 */
const struct engine_data_path_ops roce_data_path = {
	.create			= roce_dev_create,
	.destroy		= roce_dev_destroy,
	.reset_locked		= roce_dev_reset_locked,
	.work_pending_locked	= roce_work_pending_locked,
	.deadline_locked	= roce_deadline_locked,
	.doorbell_locked	= roce_doorbell_locked,
	.run			= roce_run,
	.poll_only		= roce_poll_only,
	.post_garbage		= roce_cq_post_garbage,
	.cq_forget		= roce_cq_forget,
	.dead_rx_locked		= roce_dead_rx_locked,
	.drop_rx		= roce_drop_rx,
	.sleep_begin		= roce_sleep_begin,
	.sleep_end		= roce_sleep_end,
	.odp_resume		= roce_odp_resume,
};

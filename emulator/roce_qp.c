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

#include "roce.h"
#include "eq.h"

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
	atomic_init(&dev->poll_min_us, 0);
	atomic_init(&dev->poll_max_us, ROCE_POLL_MAX_US);
	dev->eng = eng;
	eng->roce = dev;
	return 0;
}

void roce_dev_destroy(struct orca_engine *eng)
{
	struct roce_dev *dev = eng->roce;

	if (!dev)
		return;
	if (dev->st.tx_frames || dev->st.rx_frames)
		eng_log("roce: tx %llu rx %llu loopback %llu retransmits %llu timeouts %llu early %llu (rtt samples %llu) rx queue full %llu",
			(unsigned long long)dev->st.tx_frames,
			(unsigned long long)dev->st.rx_frames,
			(unsigned long long)dev->st.loopback,
			(unsigned long long)dev->st.retransmits,
			(unsigned long long)dev->st.timeouts,
			(unsigned long long)dev->st.fast_retries,
			(unsigned long long)dev->st.rtt_samples,
			(unsigned long long)dev->st.rxq_full);
	if (dev->st.rx_frames)
		eng_log("roce: rx dropped: no QP %llu, QP state %llu, bad packet %llu, Q_Key %llu, no receive WQE %llu, too big %llu, response to nothing outstanding %llu",
			(unsigned long long)dev->st.drop_no_qp,
			(unsigned long long)dev->st.drop_state,
			(unsigned long long)dev->st.drop_bad_pkt,
			(unsigned long long)dev->st.drop_qkey,
			(unsigned long long)dev->st.drop_no_rwqe,
			(unsigned long long)dev->st.rx_too_big,
			(unsigned long long)dev->st.drop_ghost);
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
	pthread_mutex_destroy(&dev->tx_lock);
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
}

static void rx_enqueue(struct roce_dev *dev, const uint8_t *frame, size_t len)
{
	struct roce_rx_slot *s;

	if (dev->rx_tail - dev->rx_head >= ROCE_RXQ_LEN) {
		dev->st.rxq_full++;
		return;
	}
	s = &dev->rxq[dev->rx_tail % ROCE_RXQ_LEN];
	memcpy(s->data, frame, len);
	s->len = (uint32_t)len;
	dev->rx_tail++;
	pthread_cond_signal(&dev->eng->wake);
}

void engine_roce_rx(struct orca_engine *eng, const uint8_t *frame, size_t len)
{
	struct roce_dev *dev = eng->roce;

	pthread_mutex_lock(&eng->lock);
	if (len > ROCE_MAX_FRAME)
		dev->st.rx_too_big++;
	else
		rx_enqueue(dev, frame, len);
	pthread_mutex_unlock(&eng->lock);
}

void engine_set_roce_tx(struct orca_engine *eng,
			void (*tx)(void *ctx, const uint8_t *frame,
				   size_t len),
			void *ctx)
{
	pthread_mutex_lock(&eng->roce->tx_lock);
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

	return dev->rx_head != dev->rx_tail || dev->db_head != dev->db_tail ||
	       dev->db_overflow || dev->again ||
	       (dev->next_deadline_us && now_us() >= dev->next_deadline_us);
}

uint64_t roce_deadline_locked(struct orca_engine *eng)
{
	return eng->roce->next_deadline_us;
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
	rq->rtt_start = 0;
	rq->srtt_us = rq->rttvar_us = 0;
	rq->rto_shift = 0;
	rq->retry_left = a->retry_cnt;
	rq->retried = false;
	rq->rnr_left = a->rnr_retry;
	rq->sq_kick = true;
}

/*
 * Called by qp_enter_state() after the state changed, from a command or
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
		rq->sqd_notify = false;
		rq->retry_deadline = rq->rnr_deadline = 0;
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
	eq_post(rq->dev->eng, 0, ORCA_EQE_SQ_DRAINED, rq->qp->qpn, 0);
}

void roce_qp_to_err(struct roce_qp *rq, uint8_t event)
{
	struct orca_engine *eng = rq->dev->eng;
	struct emu_qp *qp = rq->qp;

	if (qp->state == ORCA_QPS_ERR || qp->state == ORCA_QPS_RESET)
		return;
	if (event)
		eq_post(eng, 0, event, qp->qpn, 0);
	qp_enter_state(eng, qp, ORCA_QPS_ERR);
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
	memcpy(pkt->dmac, av->dmac, 6);
	memcpy(pkt->smac, gid->mac, 6);
	pkt->vlan = gid->vlan < 4096 ? gid->vlan : ROCE_NO_VLAN;
	pkt->ipv6 = !roce_gid_is_v4(av->dgid);
	if (pkt->ipv6 == roce_gid_is_v4(gid->gid))
		return -EINVAL;		/* IPv4 to IPv6 cannot be routed */
	memcpy(pkt->sgid, gid->gid, 16);
	memcpy(pkt->dgid, av->dgid, 16);
	pkt->traffic_class = av->traffic_class;
	pkt->hop_limit = av->hop_limit ? av->hop_limit : 64;
	pkt->flow_label = le32toh(av->flow_label) & 0xfffff;
	pkt->udp_sport = roce_udp_sport(rq->qp->qpn);
	pkt->pkey = ROCE_DEFAULT_PKEY;

	hdr = roce_build_hdrs(dev->frame, sizeof(dev->frame), pkt);
	if (!hdr)
		return -EINVAL;
	if (pkt->paylen && fill) {
		err = fill(rq, arg, dev->frame + hdr, pkt->paylen);
		if (err)
			return err;
	}
	len = roce_build_finish(dev->frame, pkt);
	dev->st.tx_frames++;

	/* Our own MAC: straight back in, as rxe does, never on the wire. */
	if (!memcmp(pkt->dmac, pkt->smac, 6) ||
	    !memcmp(pkt->dmac, eng->cfg.mac, 6)) {
		dev->st.loopback++;
		pthread_mutex_lock(&eng->lock);
		rx_enqueue(dev, dev->frame, len);
		pthread_mutex_unlock(&eng->lock);
		return 0;
	}
	pthread_mutex_lock(&dev->tx_lock);
	if (dev->tx)
		dev->tx(dev->tx_ctx, dev->frame, len);
	else
		dev->st.tx_no_port++;
	pthread_mutex_unlock(&dev->tx_lock);
	return 0;
}

/* ---- receive dispatch ---- */

static bool qp_takes_requests(const struct emu_qp *qp)
{
	return qp->state == ORCA_QPS_RTR || qp->state == ORCA_QPS_RTS ||
	       qp->state == ORCA_QPS_SQD || qp->state == ORCA_QPS_SQE;
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
	err = roce_parse(frame, len, &pkt);
	if (err) {
		dev->drops.err[err]++;
		return;
	}
	op = roce_opinfo(pkt.opcode);
	if ((pkt.pkey & 0x7fff) != 0x7fff || !roce_local_gid(eng, pkt.dgid)) {
		dev->st.drop_bad_pkt++;
		return;
	}
	qp = pkt.dest_qpn ? qp_lookup(eng, pkt.dest_qpn) : NULL;
	if (!qp) {
		dev->st.drop_no_qp++;
		return;
	}
	if (op->flags & ROCE_K_UD) {
		if (qp->type == ORCA_QPT_RC) {
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
	/* RC: only from the peer the QP is connected to. */
	if (qp->type != ORCA_QPT_RC ||
	    memcmp(pkt.sgid, qp->attr.av.dgid, 16)) {
		dev->st.drop_bad_pkt++;
		return;
	}
	rq = roce_qp_get(eng, qp);
	if (!rq)
		return;
	if (op->flags & ROCE_K_RESP) {
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
			eq_post(eng, 0, ORCA_EQE_COMM_EST, qp->qpn, 0);
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
		qp = qp_lookup(eng, db->val & ROCE_QPN_MASK);
		if (!qp || qp->uar != db->uar || qp->state == ORCA_QPS_RESET)
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
	struct roce_qp *rq;

	pthread_mutex_lock(&eng->lock);
	while (dev->db_head != dev->db_tail && n < ARRAY_SIZE(dbs))
		dbs[n++] = dev->dbq[dev->db_head++ % ROCE_DBQ_LEN];
	overflow = dev->db_overflow;
	dev->db_overflow = false;
	dev->again = false;
	head = dev->rx_head;
	tail = dev->rx_tail;
	pthread_mutex_unlock(&eng->lock);

	for (i = 0; i < n; i++)
		doorbell(dev, &dbs[i]);
	/* Doorbells were lost: any QP may have been rung for. */
	if (overflow)
		for (rq = dev->qps; rq; rq = rq->next) {
			rq->sq_kick = true;
			roce_sched_qp(rq);
		}

	/* The producer only writes slots past tail; these stay ours. */
	for (i = head; i != tail; i++)
		rx_frame(dev, dev->rxq[i % ROCE_RXQ_LEN].data,
			 dev->rxq[i % ROCE_RXQ_LEN].len);
	pthread_mutex_lock(&eng->lock);
	dev->rx_head = tail;
	pthread_mutex_unlock(&eng->lock);

	now = now_us();
	again = roce_sched_pass(dev, now);
	/* After the pass: its CQEs may have completed a held-back event. */
	roce_cq_timers(eng, now);
	deadline = roce_sched_deadline(dev);
	cq_due = roce_cq_deadline(dev);
	if (cq_due && (!deadline || cq_due < deadline))
		deadline = cq_due;
	/* Nothing came, nothing fired, nothing left: only send queue polls. */
	dev->poll_only = again && !n && !overflow && head == tail &&
			 tx == dev->st.tx_frames && fired == dev->st.timers_fired;
	pthread_mutex_lock(&eng->lock);
	dev->next_deadline_us = deadline;
	dev->again = again;
	pthread_mutex_unlock(&eng->lock);
}

bool roce_poll_only(struct orca_engine *eng)
{
	return eng->roce->poll_only;
}

void roce_get_stats(struct orca_engine *eng, struct roce_stats *st)
{
	*st = eng->roce->st;
}

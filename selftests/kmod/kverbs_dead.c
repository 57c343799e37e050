// SPDX-License-Identifier: GPL-2.0
/*
 * orca_kverbs "dead" suite: a dead or busy adapter as a kernel ULP sees it.
 * The cases need the emulator's fault controls, which only the guest
 * script can drive, so 40-dead-adapter runs each case by name:
 *
 *   ah_saturated       (emulator "slow 100" set): AHs created and destroyed
 *                      in atomic context while slow commands fill the
 *                      command queue never stall longer than the bound and
 *                      never kill the adapter.
 *   ah_slow_adapter    (emulator "slow 300" set): on an idle adapter
 *                      whose every command takes 300 ms, AHs created and
 *                      destroyed in atomic context (the CM's connect and
 *                      accept) succeed: the bound is not so tight that a
 *                      slow but working adapter fails every connection.
 *   ah_destroy_deferred (emulator "slow 100" set): AHs destroyed in atomic
 *                      context while more sleeping callers than the queue
 *                      has slots keep it full get no slot within the
 *                      bound; the driver destroys them later, before their
 *                      PD, which the script checks in the adapter's object
 *                      counts.
 *   destroy_fails      (emulator "fail-destroy 1" set): the adapter
 *                      refuses to destroy a CQ.  The core sees it gone (a
 *                      kernel CQ's destroy cannot fail) and a new CQ works;
 *                      the script checks that the driver kept the ring the
 *                      adapter still owns, then has the adapter write it.
 *   create_refused     (emulator "fail-destroy 3" and "dup-handle 3"
 *                      set): for a second CQ, QP and SRQ the adapter
 *                      reports the handle of the first one; the create
 *                      fails, and the adapter refuses the DESTROY that
 *                      undoes it.  The first ones still work; the script
 *                      checks that the driver kept the memory of each
 *                      object the adapter still has.
 *   drain_after_death  (the script writes "hang" once the case logs that
 *                      it is ready): after death, posting still works,
 *                      modify to ERR succeeds and ib_drain_qp() completes,
 *                      with every posted WR flushed.
 *   srq_last_wqe       (the script writes "fatal" once the case logs that
 *                      it is ready): RC QPs on an SRQ, connected when the
 *                      adapter dies, get IB_EVENT_QP_LAST_WQE_REACHED, and
 *                      ib_drain_qp(), which waits for it, completes with
 *                      the sends posted after the death flushed.
 */
#include <linux/kthread.h>
#include <linux/slab.h>

#include "kverbs.h"

/*
 * The driver waits at most 1 s in atomic context; a TCG vCPU may lose the
 * host CPU for a while on top of that.  The old driver stalled 5 s.
 */
#define KV_AH_STALL_MAX_US	1500000
#define KV_SLOW_AHS		4
#define KV_SAT_THREADS		48
#define KV_SAT_SECONDS		7

struct kv_fatal {
	struct ib_event_handler eh;
	atomic_t count;
	struct completion seen;
};

static void kv_fatal_handler(struct ib_event_handler *eh, struct ib_event *ev)
{
	struct kv_fatal *f = container_of(eh, struct kv_fatal, eh);

	if (ev->event != IB_EVENT_DEVICE_FATAL)
		return;
	atomic_inc(&f->count);
	complete(&f->seen);
}

static void kv_fatal_watch(struct kv_test *t, struct kv_fatal *f)
{
	atomic_set(&f->count, 0);
	init_completion(&f->seen);
	INIT_IB_EVENT_HANDLER(&f->eh, t->ibdev, kv_fatal_handler);
	ib_register_event_handler(&f->eh);
}

struct kv_sat {
	struct ib_srq *srq;
	atomic_t ops;
	atomic_t errs;
	bool stop;
};

/*
 * One QUERY_SRQ after the other: each thread keeps one command queued, 48
 * of the 64 slots, so atomic AH commands get slots and wait behind them.
 */
static int kv_sat_thread(void *arg)
{
	struct kv_sat *s = arg;
	struct ib_srq_attr attr;

	while (!READ_ONCE(s->stop)) {
		if (ib_query_srq(s->srq, &attr))
			atomic_inc(&s->errs);
		else
			atomic_inc(&s->ops);
	}
	while (!kthread_should_stop())
		schedule_timeout_interruptible(HZ / 10);
	return 0;
}

/*
 * kv_atomic_ah_pair() - create and destroy an AH as the CM does: under a
 * spinlock, interrupts off, without RDMA_CREATE_AH_SLEEPABLE.  *@max_us
 * grows to the longer of the two calls.  Returns 0 or the create's errno.
 */
static int kv_atomic_ah_pair(struct ib_pd *pd, struct rdma_ah_attr *attr,
			     spinlock_t *lock, s64 *max_us)
{
	unsigned long flags;
	struct ib_ah *ah;
	ktime_t t0;

	spin_lock_irqsave(lock, flags);
	t0 = ktime_get();
	ah = rdma_create_ah(pd, attr, 0);
	*max_us = max(*max_us, ktime_us_delta(ktime_get(), t0));
	if (!IS_ERR(ah)) {
		t0 = ktime_get();
		rdma_destroy_ah(ah, 0);
		*max_us = max(*max_us, ktime_us_delta(ktime_get(), t0));
	}
	spin_unlock_irqrestore(lock, flags);
	return PTR_ERR_OR_ZERO(ah);
}

static void kv_ah_saturated(struct kv_test *t)
{
	struct task_struct **th;
	struct rdma_ah_attr attr;
	struct kv_fatal fatal;
	struct kv_sat sat = {};
	int ok = 0, busy = 0, other = 0, last_err = 0, i, gidx, err;
	unsigned long end;
	s64 max_us = 0;
	union ib_gid gid;
	struct ib_ah *ah;
	struct ib_pd *pd;
	spinlock_t lock;	/* the CM's kind of lock, to hold around the AHs */

	/* On the stack: lockdep needs a key of its own (not DEFINE_SPINLOCK). */
	spin_lock_init(&lock);
	pd = kv_pd(t);
	sat.srq = kv_srq(t, 16, 1);
	gidx = kv_roce_v2_gid(t, &gid);
	if (!pd || !sat.srq || !KV_EXPECT(t, gidx >= 0, "no RoCE v2 GID"))
		return;
	kv_ah_attr(t, &attr, &gid, gidx);
	th = kcalloc(KV_SAT_THREADS, sizeof(*th), GFP_KERNEL);
	if (!KV_EXPECT(t, th, "no memory"))
		return;
	kv_fatal_watch(t, &fatal);
	for (i = 0; i < KV_SAT_THREADS; i++) {
		th[i] = kthread_run(kv_sat_thread, &sat, "kv_sat%d", i);
		if (IS_ERR(th[i])) {
			th[i] = NULL;
			break;
		}
	}
	msleep(1000);

	/* As the CM does: under a spinlock, interrupts off. */
	end = jiffies + KV_SAT_SECONDS * HZ;
	while (time_before(jiffies, end)) {
		err = kv_atomic_ah_pair(pd, &attr, &lock, &max_us);
		if (!err) {
			ok++;
		} else if (err == -EBUSY) {
			busy++;
		} else {
			other++;
			last_err = err;
		}
		msleep(20);
	}

	WRITE_ONCE(sat.stop, true);
	for (i = 0; i < KV_SAT_THREADS; i++)
		if (th[i])
			kthread_stop(th[i]);
	kfree(th);
	kv_diag(t, "atomic AH: %d created, %d busy, %d other (last %d)",
		ok, busy, other, last_err);
	kv_diag(t, "longest stall %lld us; %d slow commands, %d failed",
		max_us, atomic_read(&sat.ops), atomic_read(&sat.errs));
	KV_EXPECT(t, max_us <= KV_AH_STALL_MAX_US,
		  "an atomic AH command stalled %lld us", max_us);
	KV_EXPECT(t, !other, "%d atomic AH calls failed with other than -EBUSY (last %d)",
		  other, last_err);
	KV_EXPECT(t, atomic_read(&sat.ops) > KV_SAT_THREADS,
		  "the queue was not kept busy (%d commands)",
		  atomic_read(&sat.ops));
	KV_EXPECT(t, !atomic_read(&sat.errs), "%d queued commands failed",
		  atomic_read(&sat.errs));
	/* Still alive: a sleeping AH create goes through. */
	ah = rdma_create_ah(pd, &attr, RDMA_CREATE_AH_SLEEPABLE);
	if (KV_EXPECT(t, !IS_ERR(ah), "AH after the load: %pe", ah))
		rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
	KV_EXPECT(t, !atomic_read(&fatal.count),
		  "a busy adapter was declared dead");
	ib_unregister_event_handler(&fatal.eh);
}

static void kv_ah_slow_adapter(struct kv_test *t)
{
	struct rdma_ah_attr attr;
	int i, err, ok = 0, gidx;
	union ib_gid gid;
	struct ib_pd *pd;
	spinlock_t lock;	/* the CM's kind of lock, to hold around the AHs */
	s64 max_us = 0;

	spin_lock_init(&lock);
	pd = kv_pd(t);
	gidx = kv_roce_v2_gid(t, &gid);
	if (!pd || !KV_EXPECT(t, gidx >= 0, "no RoCE v2 GID"))
		return;
	kv_ah_attr(t, &attr, &gid, gidx);
	for (i = 0; i < KV_SLOW_AHS; i++) {
		err = kv_atomic_ah_pair(pd, &attr, &lock, &max_us);
		if (KV_EXPECT(t, !err, "atomic AH %d on a slow adapter: %d", i, err))
			ok++;
	}
	kv_diag(t, "%d of %d atomic AHs created and destroyed, longest call %lld us",
		ok, KV_SLOW_AHS, max_us);
}

/*
 * More sleeping callers than the queue has slots (64): a slot given back
 * goes to one of them at once (up() hands it to a waiter), so an atomic
 * caller never finds one free.
 */
#define KV_DEFER_THREADS	80
#define KV_DEFER_AHS		4

static void kv_ah_destroy_deferred(struct kv_test *t)
{
	struct ib_ah *ahs[KV_DEFER_AHS] = {};
	struct task_struct **th;
	struct rdma_ah_attr attr;
	struct kv_fatal fatal;
	struct kv_sat sat = {};
	unsigned long flags;
	union ib_gid gid;
	struct ib_pd *pd;
	spinlock_t lock;	/* the CM's kind of lock, to hold around the AHs */
	s64 us, max_us = 0;
	int i, n, gidx;
	ktime_t t0;

	spin_lock_init(&lock);
	pd = kv_pd(t);
	sat.srq = kv_srq(t, 16, 1);
	gidx = kv_roce_v2_gid(t, &gid);
	if (!pd || !sat.srq || !KV_EXPECT(t, gidx >= 0, "no RoCE v2 GID"))
		return;
	kv_ah_attr(t, &attr, &gid, gidx);
	for (n = 0; n < KV_DEFER_AHS; n++) {
		ahs[n] = rdma_create_ah(pd, &attr, RDMA_CREATE_AH_SLEEPABLE);
		if (!KV_EXPECT(t, !IS_ERR(ahs[n]), "AH %d: %pe", n, ahs[n]))
			break;
	}
	th = kcalloc(KV_DEFER_THREADS, sizeof(*th), GFP_KERNEL);
	if (!KV_EXPECT(t, th, "no memory")) {
		while (n--)
			rdma_destroy_ah(ahs[n], RDMA_DESTROY_AH_SLEEPABLE);
		return;
	}
	kv_fatal_watch(t, &fatal);
	for (i = 0; i < KV_DEFER_THREADS; i++) {
		th[i] = kthread_run(kv_sat_thread, &sat, "kv_defer%d", i);
		if (IS_ERR(th[i])) {
			th[i] = NULL;
			break;
		}
	}
	KV_EXPECT(t, i == KV_DEFER_THREADS, "%d of %d threads started", i,
		  KV_DEFER_THREADS);
	msleep(1000);

	/* As the CM does: under a spinlock, interrupts off. */
	for (i = 0; i < n; i++) {
		spin_lock_irqsave(&lock, flags);
		t0 = ktime_get();
		rdma_destroy_ah(ahs[i], 0);
		us = ktime_us_delta(ktime_get(), t0);
		spin_unlock_irqrestore(&lock, flags);
		max_us = max(max_us, us);
	}

	/* The driver's destroys wait for slots behind the threads' last. */
	WRITE_ONCE(sat.stop, true);
	for (i = 0; i < KV_DEFER_THREADS; i++)
		if (th[i])
			kthread_stop(th[i]);
	kfree(th);
	kv_diag(t, "%d AHs destroyed in atomic context, longest %lld us; %d slow commands",
		n, max_us, atomic_read(&sat.ops));
	KV_EXPECT(t, max_us <= KV_AH_STALL_MAX_US,
		  "an atomic destroy_ah stalled %lld us", max_us);
	KV_EXPECT(t, !atomic_read(&sat.errs), "%d queued commands failed",
		  atomic_read(&sat.errs));
	KV_EXPECT(t, !atomic_read(&fatal.count),
		  "a busy adapter was declared dead");
	ib_unregister_event_handler(&fatal.eh);
	/* The runner deallocates the PD: the AHs must be gone by then. */
}

struct kv_flush {
	struct ib_cqe cqe;
	atomic_t flushed;
	atomic_t other;
};

static void kv_flush_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct kv_flush *f = container_of(wc->wr_cqe, struct kv_flush, cqe);

	if (wc->status == IB_WC_WR_FLUSH_ERR)
		atomic_inc(&f->flushed);
	else
		atomic_inc(&f->other);
}

struct kv_drainer {
	struct work_struct work;
	struct ib_qp *a, *b;
	struct completion done;
};

static void kv_drain_work(struct work_struct *work)
{
	struct kv_drainer *d = container_of(work, struct kv_drainer, work);

	ib_drain_qp(d->a);
	ib_drain_qp(d->b);
	complete(&d->done);
}

static int kv_post_recvs(struct ib_qp *qp, struct kv_flush *f,
			 struct ib_sge *sge, int n)
{
	struct ib_recv_wr wr = { .wr_cqe = &f->cqe, .sg_list = sge,
				 .num_sge = 1 };
	int i, err = 0;

	for (i = 0; i < n && !err; i++)
		err = ib_post_recv(qp, &wr, NULL);
	return err;
}

static void kv_drain_after_death(struct kv_test *t)
{
	struct ib_qp_init_attr init = {
		.qp_type = IB_QPT_RC,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ib_qp_attr qattr = { .qp_state = IB_QPS_ERR };
	struct kv_drainer *d = NULL;
	struct ib_qp *a = NULL, *b = NULL;
	struct kv_flush *f;
	struct kv_fatal fatal;
	struct kv_buf *buf;
	struct ib_sge sge;
	struct ib_cq *cq;
	struct ib_pd *pd;
	int i, err;

	pd = kv_pd(t);
	buf = kv_buf_alloc(t, 4096);
	f = kzalloc_obj(*f);
	if (!pd || !buf || !KV_EXPECT(t, f, "no memory"))
		goto out_free;
	f->cqe.done = kv_flush_done;
	sge = (struct ib_sge){ .addr = buf->dma, .length = 64,
			       .lkey = pd->local_dma_lkey };
	/* A ULP's CQ: polled from a workqueue after completion events. */
	cq = ib_alloc_cq(t->ibdev, NULL, 128, 0, IB_POLL_WORKQUEUE);
	if (!KV_EXPECT(t, !IS_ERR(cq), "ib_alloc_cq: %pe", cq))
		goto out_free;
	init.send_cq = cq;
	init.recv_cq = cq;
	a = ib_create_qp(pd, &init);
	b = ib_create_qp(pd, &init);
	if (!KV_EXPECT(t, !IS_ERR(a) && !IS_ERR(b), "QPs %pe %pe", a, b))
		goto out_qp;
	if (kv_rc_connect(t, a, b->qp_num) || kv_rc_connect(t, b, a->qp_num))
		goto out_qp;
	if (!KV_EXPECT(t, !kv_post_recvs(a, f, &sge, 8) &&
		       !kv_post_recvs(b, f, &sge, 8), "receives before death"))
		goto out_qp;

	kv_fatal_watch(t, &fatal);
	pr_info("orca_kverbs: drain_after_death: ready\n");
	if (!KV_EXPECT(t, wait_for_completion_timeout(&fatal.seen, 120 * HZ),
		       "no IB_EVENT_DEVICE_FATAL within 120 s"))
		goto out_events;

	/* Posting after death is accepted, and flushed like the rest. */
	for (i = 0; i < 4; i++) {
		struct ib_send_wr swr = { .wr_cqe = &f->cqe, .sg_list = &sge,
					  .num_sge = 1, .opcode = IB_WR_SEND,
					  .send_flags = IB_SEND_SIGNALED };

		err = ib_post_send(a, &swr, NULL);
		if (!KV_EXPECT(t, !err, "post_send after death: %d", err))
			goto out_events;
	}
	err = kv_post_recvs(b, f, &sge, 4);
	if (!KV_EXPECT(t, !err, "post_recv after death: %d", err))
		goto out_events;
	err = ib_modify_qp(a, &qattr, IB_QP_STATE);
	KV_EXPECT(t, !err, "modify to ERR after death: %d", err);

	d = kzalloc_obj(*d);
	if (!KV_EXPECT(t, d, "no memory"))
		goto out_events;
	d->a = a;
	d->b = b;
	init_completion(&d->done);
	INIT_WORK(&d->work, kv_drain_work);
	queue_work(system_long_wq, &d->work);
	if (!KV_EXPECT(t, wait_for_completion_timeout(&d->done, 60 * HZ),
		       "ib_drain_qp() did not complete within 60 s")) {
		/* The drainer still uses the QPs: leak them all. */
		ib_unregister_event_handler(&fatal.eh);
		return;
	}
	kfree(d);
	KV_EXPECT(t, atomic_read(&f->flushed) == 8 + 8 + 4 + 4,
		  "%d of 24 WRs flushed", atomic_read(&f->flushed));
	KV_EXPECT(t, !atomic_read(&f->other), "%d completions not flushed",
		  atomic_read(&f->other));
out_events:
	ib_unregister_event_handler(&fatal.eh);
out_qp:
	if (!IS_ERR_OR_NULL(b))
		ib_destroy_qp(b);
	if (!IS_ERR_OR_NULL(a))
		ib_destroy_qp(a);
	ib_free_cq(cq);
out_free:
	kfree(f);
}

/* Big enough that its ring spans several pages. */
#define KV_REFUSED_CQ_CQES	1024

static void kv_destroy_fails(struct kv_test *t)
{
	struct ib_cq_init_attr attr = { .cqe = KV_REFUSED_CQ_CQES };
	struct ib_cq *cq;
	int err;

	cq = ib_create_cq(t->ibdev, NULL, NULL, NULL, &attr);
	if (!KV_EXPECT(t, !IS_ERR(cq), "create CQ: %pe", cq))
		return;
	/* The adapter refuses; the driver keeps the memory, not the CQ. */
	err = ib_destroy_cq_user(cq, NULL);
	if (!KV_EXPECT(t, !err, "refused destroy returned %d, want 0", err))
		return;
	cq = ib_create_cq(t->ibdev, NULL, NULL, NULL, &attr);
	if (!KV_EXPECT(t, !IS_ERR(cq), "a CQ after the refusal: %pe", cq))
		return;
	err = ib_destroy_cq_user(cq, NULL);
	KV_EXPECT(t, !err, "destroying that CQ: %d", err);
}

/*
 * With "dup-handle 3" the first CQ, QP and SRQ made here are created as
 * usual; for the second of each kind the adapter reports the first one's
 * handle, which the driver cannot record: it undoes the create with a
 * DESTROY of that handle, which "fail-destroy 3" refuses.  So the second
 * ones live on in the adapter, their memory the driver's to keep, and the
 * first ones are not destroyed.
 */
static void kv_create_refused(struct kv_test *t)
{
	struct ib_cq_init_attr cq_attr = { .cqe = KV_REFUSED_CQ_CQES };
	struct ib_srq_init_attr srq_init = {
		.srq_type = IB_SRQT_BASIC,
		.attr = { .max_wr = 256, .max_sge = 1 },
	};
	struct ib_qp_init_attr init = {
		.qp_type = IB_QPT_RC,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.cap = { .max_send_wr = 256, .max_recv_wr = 256,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ib_qp_init_attr qinit;
	struct ib_srq_attr srq_attr;
	struct ib_qp_attr qattr;
	struct ib_srq *srq, *srq2;
	struct ib_qp *qp, *qp2;
	struct ib_cq *cq, *cq2;
	struct ib_pd *pd;
	int err;

	pd = kv_pd(t);
	cq = kv_cq(t, KV_REFUSED_CQ_CQES, 0);
	if (!pd || !cq)
		return;
	cq2 = ib_create_cq(t->ibdev, NULL, NULL, NULL, &cq_attr);
	if (!KV_EXPECT(t, IS_ERR(cq2), "a CQ with the handle of another")) {
		ib_destroy_cq(cq2);
		return;
	}

	init.send_cq = cq;
	init.recv_cq = cq;
	qp = kv_qp(t, &init);
	if (!qp)
		return;
	qp2 = ib_create_qp(pd, &init);
	if (!KV_EXPECT(t, IS_ERR(qp2), "a QP with the handle of another")) {
		ib_destroy_qp(qp2);
		return;
	}

	srq = kv_srq(t, srq_init.attr.max_wr, srq_init.attr.max_sge);
	if (!srq)
		return;
	srq2 = ib_create_srq(pd, &srq_init);
	if (!KV_EXPECT(t, IS_ERR(srq2), "an SRQ with the handle of another")) {
		ib_destroy_srq(srq2);
		return;
	}
	kv_diag(t, "creates failed: CQ %pe, QP %pe, SRQ %pe", cq2, qp2, srq2);

	/* The refused DESTROYs named the first ones: still alive. */
	err = ib_query_qp(qp, &qattr, IB_QP_STATE, &qinit);
	KV_EXPECT(t, !err, "query of the first QP: %d", err);
	err = ib_query_srq(srq, &srq_attr);
	KV_EXPECT(t, !err, "query of the first SRQ: %d", err);
}

struct kv_last_wqe {
	struct kv_flush flush;
	atomic_t last_wqe;
	atomic_t other_events;
};

static void kv_last_wqe_handler(struct ib_event *ev, void *ctx)
{
	struct kv_last_wqe *l = ctx;

	if (ev->event == IB_EVENT_QP_LAST_WQE_REACHED)
		atomic_inc(&l->last_wqe);
	else
		atomic_inc(&l->other_events);
}

/*
 * The core's ib_drain_qp() of a QP on an SRQ waits up to 60 s for
 * IB_EVENT_QP_LAST_WQE_REACHED (__ib_drain_srq()); the adapter is dead and
 * raises nothing, so only the driver can.
 */
#define KV_SRQ_DRAIN_SECS	20

static void kv_srq_last_wqe(struct kv_test *t)
{
	struct ib_qp_init_attr init = {
		.qp_type = IB_QPT_RC,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.cap = { .max_send_wr = 16, .max_send_sge = 1 },
		.event_handler = kv_last_wqe_handler,
	};
	struct ib_recv_wr rwr = {};
	struct kv_drainer *d = NULL;
	struct ib_qp *a = NULL, *b = NULL;
	struct kv_last_wqe *l;
	struct kv_fatal fatal;
	struct kv_buf *buf;
	struct ib_srq *srq;
	struct ib_sge sge;
	struct ib_cq *cq;
	struct ib_pd *pd;
	int i, err;

	pd = kv_pd(t);
	srq = kv_srq(t, 16, 1);
	buf = kv_buf_alloc(t, 4096);
	l = kzalloc_obj(*l);
	if (!pd || !srq || !buf || !KV_EXPECT(t, l, "no memory"))
		goto out_free;
	l->flush.cqe.done = kv_flush_done;
	sge = (struct ib_sge){ .addr = buf->dma, .length = 64,
			       .lkey = pd->local_dma_lkey };
	cq = ib_alloc_cq(t->ibdev, NULL, 128, 0, IB_POLL_WORKQUEUE);
	if (!KV_EXPECT(t, !IS_ERR(cq), "ib_alloc_cq: %pe", cq))
		goto out_free;
	init.send_cq = cq;
	init.recv_cq = cq;
	init.srq = srq;
	init.qp_context = l;
	a = ib_create_qp(pd, &init);
	b = ib_create_qp(pd, &init);
	if (!KV_EXPECT(t, !IS_ERR(a) && !IS_ERR(b), "QPs %pe %pe", a, b))
		goto out_qp;
	if (kv_rc_connect(t, a, b->qp_num) || kv_rc_connect(t, b, a->qp_num))
		goto out_qp;
	/* Receives of the SRQ's: a dead adapter does not flush them. */
	rwr.wr_cqe = &l->flush.cqe;
	rwr.sg_list = &sge;
	rwr.num_sge = 1;
	for (i = 0, err = 0; i < 8 && !err; i++)
		err = ib_post_srq_recv(srq, &rwr, NULL);
	if (!KV_EXPECT(t, !err, "SRQ receives before death: %d", err))
		goto out_qp;

	kv_fatal_watch(t, &fatal);
	pr_info("orca_kverbs: srq_last_wqe: ready\n");
	if (!KV_EXPECT(t, wait_for_completion_timeout(&fatal.seen, 120 * HZ),
		       "no IB_EVENT_DEVICE_FATAL within 120 s"))
		goto out_events;

	for (i = 0; i < 4; i++) {
		struct ib_send_wr swr = { .wr_cqe = &l->flush.cqe,
					  .sg_list = &sge, .num_sge = 1,
					  .opcode = IB_WR_SEND,
					  .send_flags = IB_SEND_SIGNALED };

		err = ib_post_send(a, &swr, NULL);
		if (!KV_EXPECT(t, !err, "post_send after death: %d", err))
			goto out_events;
	}

	d = kzalloc_obj(*d);
	if (!KV_EXPECT(t, d, "no memory"))
		goto out_events;
	d->a = a;
	d->b = b;
	init_completion(&d->done);
	INIT_WORK(&d->work, kv_drain_work);
	queue_work(system_long_wq, &d->work);
	if (!KV_EXPECT(t, wait_for_completion_timeout(&d->done,
						      KV_SRQ_DRAIN_SECS * HZ),
		       "ib_drain_qp() did not complete within %d s",
		       KV_SRQ_DRAIN_SECS)) {
		/* The core gives up after 60 s per QP: then clean up. */
		if (!wait_for_completion_timeout(&d->done, 150 * HZ)) {
			ib_unregister_event_handler(&fatal.eh);
			return;		/* the drainer still uses the QPs */
		}
	}
	kfree(d);
	KV_EXPECT(t, atomic_read(&l->last_wqe) == 2,
		  "%d IB_EVENT_QP_LAST_WQE_REACHED for 2 QPs on the SRQ",
		  atomic_read(&l->last_wqe));
	KV_EXPECT(t, !atomic_read(&l->other_events), "%d other QP events",
		  atomic_read(&l->other_events));
	KV_EXPECT(t, atomic_read(&l->flush.flushed) == 4,
		  "%d of 4 sends flushed", atomic_read(&l->flush.flushed));
	KV_EXPECT(t, !atomic_read(&l->flush.other),
		  "%d completions not flushed", atomic_read(&l->flush.other));
out_events:
	ib_unregister_event_handler(&fatal.eh);
out_qp:
	if (!IS_ERR_OR_NULL(b))
		ib_destroy_qp(b);
	if (!IS_ERR_OR_NULL(a))
		ib_destroy_qp(a);
	ib_free_cq(cq);
out_free:
	kfree(l);
}

static const struct kv_case kv_dead_cases[] = {
	{ "ah_saturated", kv_ah_saturated },
	{ "ah_slow_adapter", kv_ah_slow_adapter },
	{ "ah_destroy_deferred", kv_ah_destroy_deferred },
	{ "destroy_fails", kv_destroy_fails },
	{ "create_refused", kv_create_refused },
	{ "drain_after_death", kv_drain_after_death },
	{ "srq_last_wqe", kv_srq_last_wqe },
};

const struct kv_suite kv_dead_suite = {
	.name = "dead",
	.cases = kv_dead_cases,
	.ncases = ARRAY_SIZE(kv_dead_cases),
};

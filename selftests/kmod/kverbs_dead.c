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
 *   destroy_fails      (emulator "fail-destroy 1" set): the adapter
 *                      refuses to destroy a CQ.  The core sees it gone (a
 *                      kernel CQ's destroy cannot fail) and a new CQ works;
 *                      the script checks that the driver kept the ring the
 *                      adapter still owns, then has the adapter write it.
 *   drain_after_death  (the script writes "hang" once the case logs that
 *                      it is ready): after death, posting still works,
 *                      modify to ERR succeeds and ib_drain_qp() completes,
 *                      with every posted WR flushed.
 */
#include <linux/kthread.h>
#include <linux/slab.h>

#include "kverbs.h"

/*
 * The driver waits at most 50 ms in atomic context; a TCG vCPU may lose
 * the host CPU for a while on top of that.  The old driver stalled 5 s.
 */
#define KV_AH_STALL_MAX_US	150000
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

static void kv_ah_saturated(struct kv_test *t)
{
	struct task_struct **th;
	struct rdma_ah_attr attr;
	struct kv_fatal fatal;
	struct kv_sat sat = {};
	int ok = 0, busy = 0, other = 0, last_err = 0, i, gidx;
	s64 us, max_us = 0;
	unsigned long end, flags;
	union ib_gid gid;
	struct ib_ah *ah;
	struct ib_pd *pd;
	spinlock_t lock;	/* the CM's kind of lock, to hold around the AHs */
	ktime_t t0;

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
		spin_lock_irqsave(&lock, flags);
		t0 = ktime_get();
		ah = rdma_create_ah(pd, &attr, 0);
		us = ktime_us_delta(ktime_get(), t0);
		max_us = max(max_us, us);
		if (!IS_ERR(ah)) {
			t0 = ktime_get();
			rdma_destroy_ah(ah, 0);
			us = ktime_us_delta(ktime_get(), t0);
			max_us = max(max_us, us);
		}
		spin_unlock_irqrestore(&lock, flags);
		if (!IS_ERR(ah)) {
			ok++;
		} else if (PTR_ERR(ah) == -EBUSY) {
			busy++;
		} else {
			other++;
			last_err = PTR_ERR(ah);
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

static const struct kv_case kv_dead_cases[] = {
	{ "ah_saturated", kv_ah_saturated },
	{ "destroy_fails", kv_destroy_fails },
	{ "drain_after_death", kv_drain_after_death },
};

const struct kv_suite kv_dead_suite = {
	.name = "dead",
	.cases = kv_dead_cases,
	.ncases = ARRAY_SIZE(kv_dead_cases),
};

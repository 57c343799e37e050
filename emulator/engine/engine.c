// SPDX-License-Identifier: GPL-2.0
/*
 * The adapter engine: the BAR 0 register file, the engine thread that
 * executes firmware commands and posts events, function reset, link state
 * and fault injection.  Command execution lives in cmdq.c and cmd_*.c,
 * event queues in eq.c.  The engine thread runs the command queue, the
 * diagnostic dump and the data path through the hooks device.c registered
 * (struct engine_work_ops), never by name.
 *
 * The socket thread only touches registers under eng->lock (never held
 * while a command runs) and wakes the engine thread with a condition
 * variable; there is no polling loop.  Everything that changes resource
 * objects, including a reset, runs on the engine thread between two
 * commands, so a reset can never free an object a command is using.
 */
#include <endian.h>
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "util/clock.h"
#include "engine_priv.h"

/* The data path's hooks, which device.c registered (engine_priv.h). */
static const struct engine_data_path_ops *
data_path(const struct orca_engine *eng)
{
	return eng->work->data_path;
}

static bool hb_frozen(const struct orca_engine *eng)
{
	return eng->hang || eng->hb_stop;
}

/* Heartbeat: ms/100 since power-on while alive, frozen by a fault. */
static uint32_t heartbeat(struct orca_engine *eng)
{
	if (hb_frozen(eng))
		return eng->hb_frozen;
	return (uint32_t)((now_ms() - eng->hb_start_ms) / 100);
}

uint32_t engine_heartbeat_locked(struct orca_engine *eng)
{
	return heartbeat(eng);
}

/* Call before setting hang or hb_stop; eng->lock held. */
static void hb_freeze(struct orca_engine *eng)
{
	if (!hb_frozen(eng))
		eng->hb_frozen = heartbeat(eng);
}

/*
 * Call after clearing hang or hb_stop (with @was_frozen from before): the
 * heartbeat continues from where it froze, not jumped by the fault's length.
 */
static void hb_thaw(struct orca_engine *eng, bool was_frozen)
{
	if (was_frozen && !hb_frozen(eng))
		eng->hb_start_ms = now_ms() - (uint64_t)eng->hb_frozen * 100;
}

/*
 * Every DMA of the engine comes here: the bus-master fence, then the
 * translation.  Runs on the engine thread, so the counters are atomics the
 * socket thread can read at any time.
 */
void *engine_dma(struct orca_engine *eng, uint64_t addr, size_t len)
{
	void *p;

	if (!len || addr + len < addr)
		return NULL;
	if (!atomic_load_explicit(&eng->bus_master, memory_order_relaxed)) {
		atomic_fetch_add_explicit(&eng->dma_blocked, 1,
					  memory_order_relaxed);
		return NULL;
	}
	p = eng->host.ops->dma_ptr(eng->host.priv, addr, len);
	if (p && atomic_load_explicit(&eng->late_window, memory_order_relaxed))
		atomic_fetch_add_explicit(&eng->dma_late, 1,
					  memory_order_relaxed);
	return p;
}

/* An MSI-X message is a DMA write: the same fence applies. */
void engine_irq(struct orca_engine *eng, unsigned int vector)
{
	if (!atomic_load_explicit(&eng->bus_master, memory_order_relaxed)) {
		atomic_fetch_add_explicit(&eng->dma_blocked, 1,
					  memory_order_relaxed);
		return;
	}
	if (atomic_load_explicit(&eng->late_window, memory_order_relaxed))
		atomic_fetch_add_explicit(&eng->dma_late, 1,
					  memory_order_relaxed);
	eng->host.ops->irq_raise(eng->host.priv, vector);
}

/* Called with eng->lock held. */
static void set_fatal_locked(struct orca_engine *eng, uint32_t syndrome)
{
	if (eng->status & ORCA_STATUS_FATAL)
		return;
	eng->status |= ORCA_STATUS_FATAL;
	eng->status &= ~ORCA_STATUS_CMDQ_ENABLED;
	eng->syndrome = syndrome;
	eng_log_guest("fatal error, syndrome %u", syndrome);
}

/* Engine thread: the device stops executing commands until a reset. */
void engine_set_fatal(struct orca_engine *eng, uint32_t syndrome)
{
	pthread_mutex_lock(&eng->lock);
	set_fatal_locked(eng, syndrome);
	pthread_mutex_unlock(&eng->lock);
}

static void plain_release(void *obj, void *arg)
{
	free(obj);
}

static void cq_release(void *obj, void *arg)
{
	struct orca_engine *eng = arg;
	struct emu_cq *cq = obj;

	data_path(eng)->cq_forget(eng, cq);
	engine_pages_free(&cq->buf);
	free(cq);
}

static void srq_release(void *obj, void *arg)
{
	struct emu_srq *srq = obj;

	engine_pages_free(&srq->buf);
	free(srq);
}

static void mr_release(void *obj, void *arg)
{
	struct emu_mr *mr = obj;

	engine_pages_free(&mr->pages);
	free(mr);
}

static int tables_init(struct orca_engine *eng)
{
	int err = 0;

	/* The interface promises the lowest free eqn (EQ 0 first). */
	err |= objtab_init_lowest(&eng->eqs, 0, EMU_MAX_EQ);
	err |= objtab_init(&eng->uars, 0, EMU_MAX_UAR);
	err |= objtab_init(&eng->pds, 1, EMU_TAB_LIMIT);
	err |= objtab_init(&eng->cqs, 1, EMU_TAB_LIMIT);
	err |= objtab_init(&eng->mrs, 1, EMU_MR_LIMIT);
	/* QPN 0 is invalid and QPN 1 is the GSI QP (eng->gsi_qp). */
	err |= objtab_init(&eng->qps, 2, EMU_QP_LIMIT);
	err |= objtab_init(&eng->ahs, 1, EMU_TAB_LIMIT);
	err |= objtab_init(&eng->srqs, 1, EMU_TAB_LIMIT);
	err |= objtab_init(&eng->xrcds, 1, EMU_MAX_XRCD + 1);
	return err ? -ENOMEM : 0;
}

/* Frees every resource object; tables are left empty and usable. */
void engine_free_objects(struct orca_engine *eng)
{
	/*
	 * What a driver left behind when the device is reset is how a test
	 * sees a driver that leaks objects (a clean unload destroys its
	 * resources before the final reset, keeping only the EQs and UARs).
	 */
	eng_log_guest("freeing objects: pd %u cq %u mr %u qp %u ah %u srq %u gsi %d eq %u uar %u",
		objtab_count(&eng->pds), objtab_count(&eng->cqs),
		objtab_count(&eng->mrs), objtab_count(&eng->qps),
		objtab_count(&eng->ahs), objtab_count(&eng->srqs),
		eng->gsi_qp != NULL, objtab_count(&eng->eqs),
		objtab_count(&eng->uars));
	/*
	 * XRC domains (1.6) on a line of their own, only when there are any:
	 * the line above is what the tests' leak checks match whole.
	 */
	if (objtab_count(&eng->xrcds))
		eng_log_guest("freeing objects: xrcd %u",
			      objtab_count(&eng->xrcds));
	objtab_fini(&eng->qps, engine_qp_release, NULL);
	if (eng->gsi_qp)
		engine_qp_release(eng->gsi_qp, NULL);
	eng->gsi_qp = NULL;
	objtab_fini(&eng->ahs, plain_release, NULL);
	objtab_fini(&eng->srqs, srq_release, NULL);
	objtab_fini(&eng->xrcds, plain_release, NULL);
	objtab_fini(&eng->mrs, mr_release, NULL);
	objtab_fini(&eng->cqs, cq_release, eng);
	objtab_fini(&eng->eqs, engine_eq_release, NULL);
	objtab_fini(&eng->pds, plain_release, NULL);
	objtab_fini(&eng->uars, plain_release, NULL);
	engine_mcg_clear(eng);
	/* Page lists returned theirs; the objects' fixed costs go too. */
	eng->mem.used = 0;
}

/* Port state a reset returns to: the configured MTU and an empty GID table. */
void engine_init_port(struct orca_engine *eng)
{
	uint32_t mtu = eng->cfg.eth_mtu;

	if (mtu < 576 || mtu > 9000)
		mtu = 1500;
	eng->eth_mtu = mtu;
	eng->active_mtu = engine_ib_mtu_for_eth(mtu);
	memset(eng->gids, 0, sizeof(eng->gids));
}

/*
 * Register file power-on values; eng->lock held.  A reset also revives a
 * "hung" firmware: that is how a driver recovers from a command timeout.
 */
static void regs_power_on(struct orca_engine *eng)
{
	bool was_frozen = hb_frozen(eng);

	eng->hang = false;
	eng->hb_stop = false;
	hb_thaw(eng, was_frozen);
	/* Work the driver gave up ends here: nothing of it is late any more. */
	eng->fault_active = false;
	atomic_store(&eng->late_window, false);
	eng->slow_timing = false;
	eng->garbage_eqe = false;
	eng->garbage_cqe = false;
	eng->status = ORCA_STATUS_READY;
	eng->syndrome = ORCA_FATAL_NONE;
	eng->cmdq_base = 0;
	eng->cmdq_comp_base = 0;
	eng->cmdq_cfg = 0;
	eng->cmdq_pi = 0;
	eng->cmdq_ci = 0;
	eng->cmdq_log_depth = 0;
	eng->cmdq_gen++;
	memset(eng->eq_db, 0, sizeof(eng->eq_db));
	eng->eq_db_pending = 0;
	eng->uar_pending = false;
	eng->fatal_event = false;
	eng->link_event = false;
}

static bool cmdq_runnable(const struct orca_engine *eng)
{
	return (eng->status & ORCA_STATUS_CMDQ_ENABLED) &&
	       !(eng->status & ORCA_STATUS_FATAL) && !eng->hang &&
	       eng->cmdq_ci != eng->cmdq_pi;
}

/*
 * A runnable command that "slow" has not held long enough yet; *due_us
 * says when it will be.  The clock starts when a command becomes the next
 * to run, so commands queued behind it wait their turn and then MS more:
 * a driver can fill its queue with slow commands.  eng->lock held.
 */
static bool cmdq_held(struct orca_engine *eng, uint64_t *due_us)
{
	uint64_t due;

	if (!eng->slow_ms || !cmdq_runnable(eng))
		return false;
	if (!eng->slow_timing || eng->slow_ci != eng->cmdq_ci ||
	    eng->slow_gen != eng->cmdq_gen) {
		eng->slow_timing = true;
		eng->slow_ci = eng->cmdq_ci;
		eng->slow_gen = eng->cmdq_gen;
		eng->slow_start_us = now_us();
	}
	due = eng->slow_start_us + (uint64_t)eng->slow_ms * 1000;
	if (now_us() >= due)
		return false;
	if (due_us)
		*due_us = due;
	return true;
}

static bool cmdq_due(struct orca_engine *eng)
{
	return cmdq_runnable(eng) && !cmdq_held(eng, NULL);
}

/* The data path runs unless the firmware is dead (hang or fatal). */
static bool data_path_runnable(const struct orca_engine *eng)
{
	return eng->roce && !eng->hang && !(eng->status & ORCA_STATUS_FATAL);
}

/* A dead adapter's RoCE lane still drains (dropping): see drop_rx. */
static bool dead_rx_pending(struct orca_engine *eng)
{
	return eng->roce && !data_path_runnable(eng) &&
	       data_path(eng)->dead_rx_locked(eng);
}

/* Garbage is written by a live firmware only. */
static bool garbage_pending(const struct orca_engine *eng)
{
	return (eng->garbage_eqe || eng->garbage_cqe) && !eng->hang &&
	       !(eng->status & ORCA_STATUS_FATAL);
}

/* A page fault's timeout has come (odp.c); a dead adapter fails none. */
static bool odp_due(struct orca_engine *eng)
{
	uint64_t due = engine_odp_deadline(eng);

	return due && data_path_runnable(eng) && now_us() >= due;
}

static bool work_pending(struct orca_engine *eng)
{
	return eng->reset_req || eng->dump_req || eng->eq_db_pending ||
	       eng->link_event ||
	       eng->fatal_event || eng->uar_pending || cmdq_due(eng) ||
	       garbage_pending(eng) || dead_rx_pending(eng) || odp_due(eng) ||
	       (data_path_runnable(eng) &&
		data_path(eng)->work_pending_locked(eng));
}

void engine_wake_locked(struct orca_engine *eng)
{
	uint64_t one = 1;

	if (!eng->asleep)
		return;
	eng->asleep = false;
	/* EAGAIN: the counter is full of kicks already; one is enough. */
	if (write(eng->wake_fd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		abort();
}

/*
 * Sleeps until woken, or until the transport's next timer or a slow
 * command is due.  The lock is dropped meanwhile.  One poll() covers both
 * the socket thread's kicks (wake_fd) and the data path's (its RoCE lane),
 * so a frame from the wire wakes the engine with no thread in between.
 */
static void engine_wait(struct orca_engine *eng)
{
	uint64_t held_due, now, due = 0;
	struct pollfd pfd[2] = {
		{ .fd = eng->wake_fd, .events = POLLIN },
		{ .fd = -1, .events = POLLIN },
	};
	struct timespec ts, *tsp = NULL;
	uint64_t drain;

	if (data_path_runnable(eng))
		due = data_path(eng)->deadline_locked(eng);
	if (cmdq_held(eng, &held_due) && (!due || held_due < due))
		due = held_due;
	held_due = engine_odp_deadline(eng);
	if (held_due && (!due || held_due < due))
		due = held_due;
	if (due) {
		now = now_us();
		if (due <= now)
			return;
		ts.tv_sec = (time_t)((due - now) / 1000000);
		ts.tv_nsec = (long)((due - now) % 1000000) * 1000;
		tsp = &ts;
	}
	eng->asleep = true;
	pthread_mutex_unlock(&eng->lock);
	pfd[1].fd = data_path(eng)->sleep_begin(eng);
	while (ppoll(pfd, 2, tsp, NULL) < 0 && errno == EINTR)
		;
	if (pfd[0].revents && read(eng->wake_fd, &drain, sizeof(drain)) < 0 &&
	    errno != EAGAIN)
		abort();
	data_path(eng)->sleep_end(eng, pfd[1].fd >= 0 && pfd[1].revents);
	pthread_mutex_lock(&eng->lock);
	eng->asleep = false;
}

/* The reset itself, on the engine thread; called and returns with lock. */
static void do_reset(struct orca_engine *eng)
{
	uint64_t ticket = eng->reset_ticket;
	int err;

	eng->reset_req = false;
	pthread_mutex_unlock(&eng->lock);
	engine_free_objects(eng);
	engine_odp_reset(eng);
	err = tables_init(eng);
	engine_init_port(eng);
	eng->eq_stopped = false;
	pthread_mutex_lock(&eng->lock);
	data_path(eng)->reset_locked(eng);
	regs_power_on(eng);
	if (err)
		set_fatal_locked(eng, ORCA_FATAL_INTERNAL);
	eng->reset_done = ticket;
	eng->stats.resets++;
	pthread_cond_broadcast(&eng->idle);
}

/*
 * Events the socket thread asked for (EQ doorbells, link changes, injected
 * fatal errors); called without the lock, inside a DMA section.
 */
static void post_async(struct orca_engine *eng, uint64_t db_bits,
		       const uint32_t *db_ci, const bool *db_arm,
		       bool link, bool fatal, uint32_t syndrome)
{
	unsigned int eqn;

	for (eqn = 0; eqn < EMU_MAX_EQ; eqn++)
		if (db_bits & (1ull << eqn))
			engine_eq_doorbell(eng, eqn, db_ci[eqn], db_arm[eqn]);
	if (fatal)
		engine_eq_post_fatal(eng, syndrome);
	if (link)
		engine_eq_post(eng, 0, ORCA_EQE_PORT_CHANGE, 1, 0);
}

static void *engine_thread(void *arg)
{
	struct orca_engine *eng = arg;

	/* Named so that top, perf and the benches tell it from the others. */
	pthread_setname_np(pthread_self(), "orca-engine");
	__atomic_store_n(&eng->tid, gettid(), __ATOMIC_RELEASE);
	pthread_mutex_lock(&eng->lock);
	while (!eng->stop) {
		uint32_t db_ci[EMU_MAX_EQ];
		bool db_arm[EMU_MAX_EQ];
		uint64_t db_bits, base, comp;
		bool link, fatal, run, dp_ok, dead_rx, g_eqe = false;
		bool g_cqe = false;
		uint32_t syndrome, gen;
		uint16_t ci;
		uint8_t log_depth;
		unsigned int i;

		if (!work_pending(eng)) {
			eng->busy = false;
			pthread_cond_broadcast(&eng->idle);
			engine_wait(eng);
			continue;
		}
		eng->busy = true;
		/*
		 * Also when hung or fatal: a dump is for a dead adapter.  And
		 * before a reset: a driver fencing a dead adapter asks for a
		 * snapshot, then resets it, and wants the state before.
		 */
		if (eng->dump_req) {
			eng->dump_req = false;
			pthread_mutex_unlock(&eng->lock);
			eng->work->take_dump(eng);
			pthread_mutex_lock(&eng->lock);
			continue;
		}
		if (eng->reset_req) {
			do_reset(eng);
			continue;
		}
		db_bits = eng->eq_db_pending;
		for (i = 0; i < EMU_MAX_EQ; i++) {
			db_ci[i] = eng->eq_db[i].ci;
			db_arm[i] = eng->eq_db[i].arm;
			eng->eq_db[i].arm = false;
		}
		eng->eq_db_pending = 0;
		link = eng->link_event;
		eng->link_event = false;
		fatal = eng->fatal_event;
		eng->fatal_event = false;
		syndrome = eng->syndrome;
		/* UAR doorbells belong to the data path (not yet present). */
		eng->uar_pending = false;
		if (garbage_pending(eng)) {
			g_eqe = eng->garbage_eqe;
			g_cqe = eng->garbage_cqe;
		}
		eng->garbage_eqe = false;
		eng->garbage_cqe = false;
		run = cmdq_due(eng);
		ci = eng->cmdq_ci;
		base = eng->cmdq_run_base;
		comp = eng->cmdq_run_comp;
		log_depth = eng->cmdq_log_depth;
		gen = eng->cmdq_gen;
		dp_ok = data_path_runnable(eng);
		dead_rx = dead_rx_pending(eng);
		pthread_mutex_unlock(&eng->lock);

		if (db_bits || link || fatal) {
			eng->host.ops->dma_begin(eng->host.priv);
			post_async(eng, db_bits, db_ci, db_arm, link, fatal,
				   syndrome);
			eng->host.ops->dma_end(eng->host.priv);
		}
		if (g_eqe || g_cqe) {
			eng->host.ops->dma_begin(eng->host.priv);
			if (g_eqe)
				engine_eq_post_garbage(eng);
			if (g_cqe)
				data_path(eng)->post_garbage(eng);
			eng->host.ops->dma_end(eng->host.priv);
		}
		if (run)
			eng->work->run_command(eng, ci, base, comp, log_depth,
					       gen);
		if (dp_ok) {
			eng->host.ops->dma_begin(eng->host.priv);
			/* Page faults past their timeout fail first. */
			if (odp_due(eng))
				engine_odp_expire(eng, now_us());
			data_path(eng)->run(eng);
			eng->host.ops->dma_end(eng->host.priv);
			/*
			 * Polling a doorbell record spins: let a thread that
			 * shares this CPU (the poster, a peer) run meanwhile.
			 */
			if (data_path(eng)->poll_only(eng))
				sched_yield();
		} else if (dead_rx) {
			data_path(eng)->drop_rx(eng);
		}

		pthread_mutex_lock(&eng->lock);
	}
	eng->busy = false;
	pthread_cond_broadcast(&eng->idle);
	pthread_mutex_unlock(&eng->lock);
	return NULL;
}

struct orca_engine *engine_start(const struct emu_host *host,
				 const struct emu_config *cfg,
				 const struct engine_work_ops *work)
{
	struct orca_engine *eng = calloc(1, sizeof(*eng));

	if (!eng)
		return NULL;
	eng->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (eng->wake_fd < 0) {
		free(eng);
		return NULL;
	}
	eng->work = work;
	eng->host = *host;
	eng->cfg = *cfg;
	eng->mem.limit = EMU_MEM_BUDGET;
	if (eng->cfg.num_msix > ORCA_MAX_MSIX)
		eng->cfg.num_msix = ORCA_MAX_MSIX;
	if (tables_init(eng) || data_path(eng)->create(eng))
		goto err_tables;
	engine_init_port(eng);
	pthread_mutex_init(&eng->lock, NULL);
	pthread_cond_init(&eng->idle, NULL);
	eng->hb_start_ms = now_ms();
	eng->link_up = true;
	regs_power_on(eng);
	if (pthread_create(&eng->thread, NULL, engine_thread, eng))
		goto err_thread;
	return eng;

err_thread:
	pthread_cond_destroy(&eng->idle);
	pthread_mutex_destroy(&eng->lock);
err_tables:
	engine_free_objects(eng);
	data_path(eng)->destroy(eng);
	close(eng->wake_fd);
	free(eng);
	return NULL;
}

/*
 * The DMA fence's counters, for tests that check that a dead adapter's
 * late work never reached guest memory.
 */
static void log_dma_fence(struct orca_engine *eng)
{
	struct engine_dma_fence f;

	engine_dma_fence(eng, &f);
	eng_log("dma: blocked %llu (bus master off), late %llu (after resume, before a reset)",
		(unsigned long long)f.blocked, (unsigned long long)f.late);
}

void engine_dma_fence(struct orca_engine *eng, struct engine_dma_fence *out)
{
	out->blocked = atomic_load(&eng->dma_blocked);
	out->late = atomic_load(&eng->dma_late);
}

void engine_set_bus_master(struct orca_engine *eng, bool on)
{
	if (atomic_exchange(&eng->bus_master, on) != on)
		eng_log_guest("bus master %s", on ? "enabled" : "disabled");
	if (on) {
		/* Work it held back may go on now. */
		pthread_mutex_lock(&eng->lock);
		engine_wake_locked(eng);
		pthread_mutex_unlock(&eng->lock);
	}
}

void engine_mem_usage(struct orca_engine *eng, uint64_t *used,
		      uint64_t *limit)
{
	*used = eng->mem.used;
	*limit = eng->mem.limit;
}

static void log_mem(struct orca_engine *eng)
{
	eng_log("memory: %llu of %llu bytes in use, peak %llu, %llu commands refused",
		(unsigned long long)eng->mem.used,
		(unsigned long long)eng->mem.limit,
		(unsigned long long)eng->mem.peak,
		(unsigned long long)eng->mem.refused);
}

static void log_stats(const struct engine_stats *s)
{
	char fails[256] = "";
	size_t n = 0;
	unsigned int st;

	if (!s->cmds)
		return;
	for (st = 1; st < ARRAY_SIZE(s->cmd_status) && n < sizeof(fails);
	     st++)
		if (s->cmd_status[st])
			n += snprintf(fails + n, sizeof(fails) - n,
				      " st%u=%llu", st,
				      (unsigned long long)s->cmd_status[st]);
	eng_log("%llu commands (failed:%s), %llu events, %llu irqs, %llu UAR writes, %llu resets",
		(unsigned long long)s->cmds, n ? fails : " none",
		(unsigned long long)s->events, (unsigned long long)s->irqs,
		(unsigned long long)s->uar_writes,
		(unsigned long long)s->resets);
}

void engine_destroy(struct orca_engine *eng)
{
	const struct engine_stats *s;

	if (!eng)
		return;
	s = &eng->stats;
	pthread_mutex_lock(&eng->lock);
	eng->stop = true;
	engine_wake_locked(eng);
	pthread_mutex_unlock(&eng->lock);
	pthread_join(eng->thread, NULL);
	engine_free_objects(eng);
	data_path(eng)->destroy(eng);
	log_stats(s);
	log_dma_fence(eng);
	log_mem(eng);
	engine_dump_free(eng);
	pthread_cond_destroy(&eng->idle);
	pthread_mutex_destroy(&eng->lock);
	close(eng->wake_fd);
	free(eng);
}

uint32_t engine_reg_read(struct orca_engine *eng, uint32_t off)
{
	const uint8_t *mac = eng->cfg.mac;
	uint32_t val = 0;

	pthread_mutex_lock(&eng->lock);
	switch (off) {
	case ORCA_REG_MAGIC:
		val = ORCA_MAGIC;
		break;
	case ORCA_REG_IF_VERSION:
		val = FIELD_PREP(ORCA_IF_VERSION_MAJOR, ORCA_IF_MAJOR) |
		      FIELD_PREP(ORCA_IF_VERSION_MINOR, ORCA_IF_MINOR);
		break;
	case ORCA_REG_FW_VERSION:
		val = EMU_FW_VERSION;
		break;
	case ORCA_REG_DEV_STATUS:
		val = eng->status;
		break;
	case ORCA_REG_FATAL_SYNDROME:
		val = eng->syndrome;
		break;
	case ORCA_REG_HEARTBEAT:
		val = heartbeat(eng);
		break;
	case ORCA_REG_DEV_CTRL:
		val = eng->status & ORCA_STATUS_CMDQ_ENABLED ?
		      ORCA_CTRL_CMDQ_ENABLE : 0;
		break;
	case ORCA_REG_CAPS:
		val = FIELD_PREP(ORCA_CAPS_NUM_MSIX, eng->cfg.num_msix) |
		      FIELD_PREP(ORCA_CAPS_LOG_MAX_CMDQ, EMU_LOG_MAX_CMDQ) |
		      ORCA_CAPS_DUMP;
		break;
	case ORCA_REG_CMD_TIMEOUT_MS:
		val = EMU_CMD_TIMEOUT_MS;
		break;
	case ORCA_REG_RESET_TIMEOUT_MS:
		val = EMU_RESET_TIMEOUT_MS;
		break;
	case ORCA_REG_CMDQ_BASE_LO:
		val = (uint32_t)eng->cmdq_base;
		break;
	case ORCA_REG_CMDQ_BASE_HI:
		val = (uint32_t)(eng->cmdq_base >> 32);
		break;
	case ORCA_REG_CMDQ_COMP_BASE_LO:
		val = (uint32_t)eng->cmdq_comp_base;
		break;
	case ORCA_REG_CMDQ_COMP_BASE_HI:
		val = (uint32_t)(eng->cmdq_comp_base >> 32);
		break;
	case ORCA_REG_CMDQ_CFG:
		val = eng->cmdq_cfg;
		break;
	case ORCA_REG_PORT_MAC_LO:
		val = mac[0] | mac[1] << 8 | mac[2] << 16 |
		      (uint32_t)mac[3] << 24;
		break;
	case ORCA_REG_PORT_MAC_HI:
		val = mac[4] | mac[5] << 8;
		break;
	case ORCA_REG_DUMP_CTRL:
	case ORCA_REG_DUMP_LEN:
	case ORCA_REG_DUMP_OFFSET:
	case ORCA_REG_DUMP_DATA:
		val = engine_dump_reg_read_locked(eng, off);
		break;
	default:
		/* Write-only and unknown registers read as 0. */
		break;
	}
	pthread_mutex_unlock(&eng->lock);
	return val;
}

/*
 * CMDQ_ENABLE: the rings must be 64-byte aligned, non-zero, and the depth in
 * [1, LOG_MAX_CMDQ].  A bad configuration is not fatal: CMDQ_ENABLED simply
 * stays clear (READY stays set), which the driver sees when it polls.
 */
static void cmdq_enable(struct orca_engine *eng)
{
	uint8_t log_depth = FIELD_GET(ORCA_CMDQ_CFG_LOG_DEPTH, eng->cmdq_cfg);

	if (eng->status & ORCA_STATUS_CMDQ_ENABLED)
		return;
	if (!(eng->status & ORCA_STATUS_READY) ||
	    (eng->status & ORCA_STATUS_FATAL))
		return;
	if (!eng->cmdq_base || !eng->cmdq_comp_base ||
	    (eng->cmdq_base & 63) || (eng->cmdq_comp_base & 63) ||
	    log_depth < 1 || log_depth > EMU_LOG_MAX_CMDQ) {
		eng_log_guest("CMDQ_ENABLE refused: base %#llx comp %#llx log %u",
			(unsigned long long)eng->cmdq_base,
			(unsigned long long)eng->cmdq_comp_base, log_depth);
		return;
	}
	eng->cmdq_run_base = eng->cmdq_base;
	eng->cmdq_run_comp = eng->cmdq_comp_base;
	eng->cmdq_log_depth = log_depth;
	eng->cmdq_pi = 0;
	eng->cmdq_ci = 0;
	eng->cmdq_gen++;
	eng->status |= ORCA_STATUS_CMDQ_ENABLED;
}

static void dev_ctrl_write(struct orca_engine *eng, uint32_t val)
{
	if (val & ORCA_CTRL_RESET) {
		/* The engine thread resets between two commands. */
		eng->status &= ~(ORCA_STATUS_READY | ORCA_STATUS_CMDQ_ENABLED);
		eng->cmdq_gen++;
		eng->reset_req = true;
		eng->reset_ticket++;
		engine_wake_locked(eng);
		return;
	}
	if (val & ORCA_CTRL_CMDQ_ENABLE) {
		cmdq_enable(eng);
	} else if (eng->status & ORCA_STATUS_CMDQ_ENABLED) {
		eng->status &= ~ORCA_STATUS_CMDQ_ENABLED;
		eng->cmdq_gen++;
	}
}

static void set_lo(uint64_t *r, uint32_t v)
{
	*r = (*r & ~0xffffffffull) | v;
}

static void set_hi(uint64_t *r, uint32_t v)
{
	*r = (*r & 0xffffffffull) | (uint64_t)v << 32;
}

void engine_reg_write(struct orca_engine *eng, uint32_t off, uint32_t val)
{
	/* Queue configuration is frozen while the queue runs. */
	bool cfg_ok;

	pthread_mutex_lock(&eng->lock);
	cfg_ok = !(eng->status & ORCA_STATUS_CMDQ_ENABLED);
	switch (off) {
	case ORCA_REG_DEV_CTRL:
		dev_ctrl_write(eng, val);
		break;
	case ORCA_REG_CMDQ_BASE_LO:
		if (cfg_ok)
			set_lo(&eng->cmdq_base, val);
		break;
	case ORCA_REG_CMDQ_BASE_HI:
		if (cfg_ok)
			set_hi(&eng->cmdq_base, val);
		break;
	case ORCA_REG_CMDQ_COMP_BASE_LO:
		if (cfg_ok)
			set_lo(&eng->cmdq_comp_base, val);
		break;
	case ORCA_REG_CMDQ_COMP_BASE_HI:
		if (cfg_ok)
			set_hi(&eng->cmdq_comp_base, val);
		break;
	case ORCA_REG_CMDQ_CFG:
		if (cfg_ok)
			eng->cmdq_cfg = val & ORCA_CMDQ_CFG_LOG_DEPTH;
		break;
	case ORCA_REG_CMDQ_DB: {
		uint16_t pi = val & 0xffff;

		if (!(eng->status & ORCA_STATUS_CMDQ_ENABLED))
			break;
		/*
		 * More outstanding commands than ring slots cannot be
		 * real (the device advances its consumer index before it
		 * writes a completion): ignore such a doorbell.
		 */
		if ((uint16_t)(pi - eng->cmdq_ci) >
		    (1u << eng->cmdq_log_depth))
			break;
		eng->cmdq_pi = pi;
		engine_wake_locked(eng);
		break;
	}
	case ORCA_REG_EQ_DB: {
		uint32_t eqn = FIELD_GET(ORCA_EQ_DB_EQN, val);

		if (eqn >= EMU_MAX_EQ)
			break;
		eng->eq_db[eqn].ci = FIELD_GET(ORCA_EQ_DB_CI, val);
		eng->eq_db[eqn].arm |= !!(val & ORCA_EQ_DB_ARM);
		eng->eq_db_pending |= 1ull << eqn;
		engine_wake_locked(eng);
		break;
	}
	case ORCA_REG_DUMP_CTRL:
	case ORCA_REG_DUMP_OFFSET:
		engine_dump_reg_write_locked(eng, off, val);
		break;
	default:
		/* Read-only and unknown registers ignore writes. */
		break;
	}
	pthread_mutex_unlock(&eng->lock);
}

void engine_uar_write(struct orca_engine *eng, uint32_t uar, uint32_t off,
		      uint32_t val)
{
	if (uar >= ORCA_NUM_UARS || off >= ORCA_UAR_PAGE_SIZE)
		return;
	pthread_mutex_lock(&eng->lock);
	eng->stats.uar_writes++;
	eng->uar_pending = true;
	data_path(eng)->doorbell_locked(eng, uar, off, val);
	engine_wake_locked(eng);
	pthread_mutex_unlock(&eng->lock);
}

void engine_reset(struct orca_engine *eng)
{
	uint64_t ticket;

	pthread_mutex_lock(&eng->lock);
	dev_ctrl_write(eng, ORCA_CTRL_RESET);
	ticket = eng->reset_ticket;
	/* A reset already under way started before this request: wait more. */
	while (eng->reset_done < ticket && !eng->stop)
		pthread_cond_wait(&eng->idle, &eng->lock);
	pthread_mutex_unlock(&eng->lock);
}

void engine_set_link(struct orca_engine *eng, bool up)
{
	pthread_mutex_lock(&eng->lock);
	if (eng->link_up != up) {
		eng->link_up = up;
		eng->link_event = true;
		engine_wake_locked(eng);
	}
	pthread_mutex_unlock(&eng->lock);
}

int engine_inject(struct orca_engine *eng, const char *what)
{
	int ret = 0;

	unsigned long ms;
	char *end;

	pthread_mutex_lock(&eng->lock);
	if (!strcmp(what, "hang") || !strcmp(what, "heartbeat-stop")) {
		hb_freeze(eng);
		if (!eng->fault_active) {
			eng->fault_active = true;
			eng->fault_resets = eng->stats.resets;
		}
		if (!strcmp(what, "hang"))
			eng->hang = true;
		else
			eng->hb_stop = true;
	} else if (!strcmp(what, "resume")) {
		bool was_frozen = hb_frozen(eng);

		/*
		 * What the fault held back now runs.  If no reset came in
		 * between, the driver never took that work back from the
		 * device: whatever it DMAs from now until a reset is late.
		 */
		if (eng->fault_active && eng->fault_resets == eng->stats.resets)
			atomic_store(&eng->late_window, true);
		eng->fault_active = false;
		eng->hang = false;
		eng->hb_stop = false;
		hb_thaw(eng, was_frozen);
		engine_wake_locked(eng);
	} else if (!strncmp(what, "slow ", 5)) {
		errno = 0;
		ms = strtoul(what + 5, &end, 10);
		if (errno || *end || end == what + 5 || ms > 600000) {
			ret = -EINVAL;
		} else {
			eng->slow_ms = ms;
			eng->slow_timing = false;
			engine_wake_locked(eng);
		}
	} else if (!strcmp(what, "garbage-eqe")) {
		eng->garbage_eqe = true;
		engine_wake_locked(eng);
	} else if (!strcmp(what, "garbage-cqe")) {
		eng->garbage_cqe = true;
		engine_wake_locked(eng);
	} else if (!strncmp(what, "fail-destroy ", 13)) {
		errno = 0;
		ms = strtoul(what + 13, &end, 10);
		if (errno || *end || end == what + 13 ||
		    ms > EMU_FAIL_DESTROY_MAX)
			ret = -EINVAL;
		else
			atomic_store(&eng->fail_destroys, (uint32_t)ms);
	} else if (!strncmp(what, "dup-handle ", 11)) {
		errno = 0;
		ms = strtoul(what + 11, &end, 10);
		if (errno || *end || end == what + 11 ||
		    ms > EMU_DUP_HANDLE_MAX) {
			ret = -EINVAL;
		} else {
			for (unsigned int i = 0; i < 3; i++)
				atomic_store(&eng->dup_ref[i], UINT32_MAX);
			atomic_store(&eng->dup_handles, (uint32_t)ms);
		}
	} else if (!strncmp(what, "odp-drop-faults ", 16)) {
		errno = 0;
		ms = strtoul(what + 16, &end, 10);
		if (errno || *end || end == what + 16 ||
		    ms > EMU_FAIL_DESTROY_MAX)
			ret = -EINVAL;
		else
			atomic_store(&eng->odp.drop_faults, (uint32_t)ms);
	} else if (!strncmp(what, "odp-fault-timeout ", 18)) {
		errno = 0;
		ms = strtoul(what + 18, &end, 10);
		if (errno || *end || end == what + 18 ||
		    (ms && (ms < EMU_ODP_MIN_TIMEOUT_MS ||
			    ms > EMU_ODP_TIMEOUT_MS)))
			ret = -EINVAL;
		else
			atomic_store(&eng->odp.timeout_override_ms,
				     (uint32_t)ms);
	} else if (!strcmp(what, "wrid-lie on")) {
		atomic_store(&eng->wrid_lie, true);
		eng_log("wrid-lie: on");
	} else if (!strcmp(what, "wrid-lie off")) {
		atomic_store(&eng->wrid_lie, false);
		eng_log("wrid-lie: off, %llu CQEs carried a false wr_id",
			(unsigned long long)atomic_load(&eng->wrid_lies));
	} else if (!strcmp(what, "counts")) {
		/*
		 * Live object counts, for tests that check that a driver
		 * released everything a process or a ULP had created.
		 */
		eng_log("objects: pd %u cq %u mr %u qp %u ah %u srq %u gsi %d uar %u xrcd %u",
			objtab_count(&eng->pds), objtab_count(&eng->cqs),
			objtab_count(&eng->mrs), objtab_count(&eng->qps),
			objtab_count(&eng->ahs), objtab_count(&eng->srqs),
			eng->gsi_qp != NULL, objtab_count(&eng->uars),
			objtab_count(&eng->xrcds));
		log_dma_fence(eng);
		/* Engine-thread data, read racily: a report, not a decision. */
		log_mem(eng);
		eng_log("odp: outstanding %u of %u, faults %llu, timeouts %llu, stale resumes %llu",
			eng->odp.outstanding, eng->odp.max_faults,
			(unsigned long long)eng->odp.faults,
			(unsigned long long)eng->odp.timeouts,
			(unsigned long long)eng->odp.stale_resumes);
	} else if (!strcmp(what, "fatal") || !strncmp(what, "fatal ", 6)) {
		unsigned long syndrome = ORCA_FATAL_INTERNAL;

		if (what[5]) {
			errno = 0;
			syndrome = strtoul(what + 6, &end, 0);
			if (errno || *end || end == what + 6 ||
			    syndrome == ORCA_FATAL_NONE ||
			    syndrome > UINT32_MAX) {
				pthread_mutex_unlock(&eng->lock);
				return -EINVAL;
			}
		}
		if (!(eng->status & ORCA_STATUS_FATAL)) {
			set_fatal_locked(eng, syndrome);
			eng->fatal_event = true;
			engine_wake_locked(eng);
		}
	} else {
		ret = -EINVAL;
	}
	pthread_mutex_unlock(&eng->lock);
	return ret;
}

void engine_flush(struct orca_engine *eng)
{
	pthread_mutex_lock(&eng->lock);
	while ((eng->busy || work_pending(eng)) && !eng->stop)
		pthread_cond_wait(&eng->idle, &eng->lock);
	pthread_mutex_unlock(&eng->lock);
}

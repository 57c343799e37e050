// SPDX-License-Identifier: GPL-2.0
/*
 * ORCA firmware command queue engine.
 *
 * Every firmware command goes through orca_cmdq_exec(): take a credit, take
 * a token (the index of the command's completion context), write the ring
 * entry and ring ORCA_REG_CMDQ_DB, then wait for the completion either by
 * polling the completion ring (during probe, before EQ 0 exists) or for the
 * EQ 0 handler to process it.  A command times out when the device has
 * held it, as the oldest outstanding command, for longer than its command
 * timeout (the spec's rule): queueing behind slow commands never counts.
 * A timeout marks the device dead, which fences it; the context and credit
 * are never given back, so a late completion can never be confused with a
 * newer command's.  Atomic callers wait at most ORCA_CMDQ_ATOMIC_WAIT_US
 * and then orphan their command instead of declaring the device dead; the
 * caller's orca_cmdq_out.orphaned hook takes the late outcome.  The engine
 * knows no opcode: what an orphaned command leaves behind is its caller's
 * business (orca_ah.c, for the CM's atomic CREATE_AH and DESTROY_AH).
 */
#include <linux/delay.h>
#include <linux/dma-mapping.h>
#include <linux/jiffies.h>
#include <linux/slab.h>

#include "orca.h"
#include "orca_trace.h"

/* Polling interval while waiting for a completion without events. */
#define ORCA_CMDQ_POLL_MIN_US	20
#define ORCA_CMDQ_POLL_MAX_US	200

/**
 * orca_cmdq_status_to_errno() - map an ORCA command status to an errno
 * @status: enum orca_cmd_status from a completion
 *
 * BAD_HANDLE maps to -EINVAL: every handle the driver sends came from the
 * device, so a stale one means the caller passed an invalid object, not
 * that the device lacks a resource.  Unknown codes are -EIO.
 *
 * Return: 0 or a negative errno.
 */
int orca_cmdq_status_to_errno(u8 status)
{
	switch (status) {
	case ORCA_CMD_ST_OK:
		return 0;
	case ORCA_CMD_ST_BAD_OPCODE:
		return -EOPNOTSUPP;
	case ORCA_CMD_ST_NO_RESOURCES:
		return -ENOMEM;
	case ORCA_CMD_ST_BAD_PARAM:
	case ORCA_CMD_ST_BAD_LENGTH:
	case ORCA_CMD_ST_BAD_HANDLE:
	case ORCA_CMD_ST_BAD_STATE:
		return -EINVAL;
	case ORCA_CMD_ST_BUSY:
		return -EBUSY;
	case ORCA_CMD_ST_DMA_ERROR:
		return -EFAULT;
	case ORCA_CMD_ST_INTERNAL:
	default:
		return -EIO;
	}
}

static int orca_cmdq_wait_enabled(struct orca_dev *odev, bool enabled)
{
	unsigned long deadline = jiffies +
				 msecs_to_jiffies(odev->reset_timeout_ms);
	u32 st;

	for (;;) {
		st = orca_rd32(odev, ORCA_REG_DEV_STATUS);
		if (!!(st & ORCA_STATUS_CMDQ_ENABLED) == enabled)
			return 0;
		if (st & ORCA_STATUS_FATAL)
			return -EIO;
		if (time_after(jiffies, deadline))
			return -ETIMEDOUT;
		usleep_range(100, 1000);
	}
}

/**
 * orca_cmdq_init() - allocate the command rings and start the queue
 * @odev: device, freshly reset
 *
 * The queue starts in polling mode; orca_cmdq_set_event_mode() switches it
 * once EQ 0 exists.
 *
 * Return: 0 or a negative errno.
 */
int orca_cmdq_init(struct orca_dev *odev)
{
	struct orca_cmdq *cmdq = &odev->cmdq;
	struct device *dev = &odev->pdev->dev;
	u32 caps = orca_rd32(odev, ORCA_REG_CAPS);
	u32 tmo = orca_rd32(odev, ORCA_REG_CMD_TIMEOUT_MS);
	u32 log_depth, i;
	int err;

	log_depth = min_t(u32, FIELD_GET(ORCA_CAPS_LOG_MAX_CMDQ, caps),
			  ORCA_CMDQ_MAX_LOG_DEPTH);
	cmdq->depth = 1U << log_depth;
	/* A device reporting 0 would make every command time out at once. */
	cmdq->timeout = msecs_to_jiffies(clamp_t(u32, tmo, 100, 600000));
	cmdq->pi = 0;
	cmdq->ci = 0;
	cmdq->outstanding = 0;
	cmdq->progress = jiffies;
	cmdq->event_mode = false;
	spin_lock_init(&cmdq->lock);
	sema_init(&cmdq->credits, cmdq->depth);
	ida_init(&cmdq->tokens);

	cmdq->ctx = kcalloc(cmdq->depth, sizeof(*cmdq->ctx), GFP_KERNEL);
	if (!cmdq->ctx)
		return -ENOMEM;
	for (i = 0; i < cmdq->depth; i++)
		init_completion(&cmdq->ctx[i].done);

	cmdq->ring = dma_alloc_coherent(dev, cmdq->depth * sizeof(*cmdq->ring),
					&cmdq->ring_dma, GFP_KERNEL);
	if (!cmdq->ring) {
		err = -ENOMEM;
		goto err_ctx;
	}
	cmdq->comp = dma_alloc_coherent(dev,
					cmdq->depth * sizeof(*cmdq->comp),
					&cmdq->comp_dma, GFP_KERNEL);
	if (!cmdq->comp) {
		err = -ENOMEM;
		goto err_ring;
	}
	cmdq->out_bufs = dma_alloc_coherent(dev,
					    cmdq->depth * ORCA_CMDQ_OUT_BUF_BYTES,
					    &cmdq->out_bufs_dma, GFP_KERNEL);
	if (!cmdq->out_bufs) {
		err = -ENOMEM;
		goto err_comp;
	}
	for (i = 0; i < cmdq->depth; i++) {
		cmdq->ctx[i].buf = cmdq->out_bufs + i * ORCA_CMDQ_OUT_BUF_BYTES;
		cmdq->ctx[i].buf_dma = cmdq->out_bufs_dma +
				       i * ORCA_CMDQ_OUT_BUF_BYTES;
	}

	orca_wr32(odev, ORCA_REG_CMDQ_BASE_LO, lower_32_bits(cmdq->ring_dma));
	orca_wr32(odev, ORCA_REG_CMDQ_BASE_HI, upper_32_bits(cmdq->ring_dma));
	orca_wr32(odev, ORCA_REG_CMDQ_COMP_BASE_LO,
		  lower_32_bits(cmdq->comp_dma));
	orca_wr32(odev, ORCA_REG_CMDQ_COMP_BASE_HI,
		  upper_32_bits(cmdq->comp_dma));
	orca_wr32(odev, ORCA_REG_CMDQ_CFG,
		  FIELD_PREP(ORCA_CMDQ_CFG_LOG_DEPTH, log_depth));
	orca_wr32(odev, ORCA_REG_DEV_CTRL, ORCA_CTRL_CMDQ_ENABLE);

	err = orca_cmdq_wait_enabled(odev, true);
	if (err) {
		dev_err(dev, "command queue did not start (%d)\n", err);
		goto err_bufs;
	}
	return 0;

err_bufs:
	dma_free_coherent(dev, cmdq->depth * ORCA_CMDQ_OUT_BUF_BYTES,
			  cmdq->out_bufs, cmdq->out_bufs_dma);
err_comp:
	dma_free_coherent(dev, cmdq->depth * sizeof(*cmdq->comp), cmdq->comp,
			  cmdq->comp_dma);
err_ring:
	dma_free_coherent(dev, cmdq->depth * sizeof(*cmdq->ring), cmdq->ring,
			  cmdq->ring_dma);
err_ctx:
	kfree(cmdq->ctx);
	return err;
}

/**
 * orca_cmdq_cleanup() - stop the device and free the command rings
 * @odev: device
 *
 * The spec's teardown: reset the function and wait for READY, and only
 * then free what the device was given.  A device that does not come back
 * from the reset is fenced (bus mastering off) instead; a dead device was
 * fenced when it was found dead.  The owners of orphaned commands stopped
 * issuing commands of their own before this.
 */
void orca_cmdq_cleanup(struct orca_dev *odev)
{
	struct orca_cmdq *cmdq = &odev->cmdq;
	struct device *dev = &odev->pdev->dev;

	orca_dev_quiesce(odev);
	dma_free_coherent(dev, cmdq->depth * ORCA_CMDQ_OUT_BUF_BYTES,
			  cmdq->out_bufs, cmdq->out_bufs_dma);
	dma_free_coherent(dev, cmdq->depth * sizeof(*cmdq->comp), cmdq->comp,
			  cmdq->comp_dma);
	dma_free_coherent(dev, cmdq->depth * sizeof(*cmdq->ring), cmdq->ring,
			  cmdq->ring_dma);
	ida_destroy(&cmdq->tokens);
	kfree(cmdq->ctx);
	cmdq->ctx = NULL;
}

/**
 * orca_cmdq_set_event_mode() - choose how command completions are signalled
 * @odev: device
 * @on: true once EQ 0 is armed; false before EQ 0 is destroyed
 *
 * Only affects commands posted afterwards; callers switch modes while no
 * command is in flight (probe and remove are single-threaded).
 */
void orca_cmdq_set_event_mode(struct orca_dev *odev, bool on)
{
	WRITE_ONCE(odev->cmdq.event_mode, on);
}

static void orca_cmdq_put_slot(struct orca_cmdq *cmdq, int token)
{
	ida_free(&cmdq->tokens, token);
	up(&cmdq->credits);
}

/*
 * The late completion of a command its atomic caller gave up on: hand its
 * outcome to the caller's hook (a CREATE_AH made an AH nobody holds) and
 * free the context.
 */
static void orca_cmdq_reclaim_orphan(struct orca_dev *odev,
				     struct orca_cmdq_ctx *ctx, int token)
{
	struct orca_cmdq *cmdq = &odev->cmdq;

	lockdep_assert_held(&cmdq->lock);
	if (ctx->orphaned)
		ctx->orphaned(odev, orca_cmdq_status_to_errno(ctx->status),
			      ctx->out);
	ctx->state = ORCA_CMDQ_CTX_FREE;
	orca_cmdq_put_slot(cmdq, token);
}

/**
 * orca_cmdq_process_comps() - consume the completion ring
 * @odev: device
 *
 * Called by polling waiters and by the EQ 0 handler on ORCA_EQE_CMD_DONE.
 * A completion whose token has no pending context (a command that already
 * timed out, or a device bug) is consumed and ignored.
 */
void orca_cmdq_process_comps(struct orca_dev *odev)
{
	struct orca_cmdq *cmdq = &odev->cmdq;
	struct orca_cmd_comp *comp;
	struct orca_cmdq_ctx *ctx;
	unsigned long flags;
	u8 phase;
	u16 token;

	spin_lock_irqsave(&cmdq->lock, flags);
	for (;;) {
		comp = &cmdq->comp[cmdq->ci & (cmdq->depth - 1)];
		phase = (cmdq->ci & cmdq->depth) ? 0 : ORCA_CMD_COMP_PHASE;
		if ((READ_ONCE(comp->flags) & ORCA_CMD_COMP_PHASE) != phase)
			break;
		/* Read the entry only after seeing its phase bit. */
		dma_rmb();
		token = le16_to_cpu(comp->token);
		cmdq->ci++;
		if (token >= cmdq->depth) {
			dev_warn_ratelimited(&odev->pdev->dev,
					     "completion with bad token %u\n",
					     token);
			continue;
		}
		ctx = &cmdq->ctx[token];
		if (ctx->state != ORCA_CMDQ_CTX_PENDING &&
		    ctx->state != ORCA_CMDQ_CTX_ORPHAN)
			continue;
		/* The device moved on: the next command's clock starts. */
		cmdq->outstanding--;
		cmdq->progress = jiffies;
		ctx->status = comp->status;
		ctx->syndrome = le32_to_cpu(comp->syndrome);
		trace_orca_cmd_complete(odev, ctx->opcode, token, ctx->status,
					ctx->syndrome, ctx->posted);
		memcpy(ctx->out, comp->out, sizeof(ctx->out));
		if (ctx->state == ORCA_CMDQ_CTX_ORPHAN) {
			orca_cmdq_reclaim_orphan(odev, ctx, token);
			continue;
		}
		ctx->state = ORCA_CMDQ_CTX_DONE;
		complete(&ctx->done);
	}
	spin_unlock_irqrestore(&cmdq->lock, flags);
}

/**
 * orca_cmdq_fail_all() - wake every waiter of a dead device
 * @odev: device, already marked dead
 *
 * The contexts become stale and are never reused; the waiters see the dead
 * flag and return -EIO instead of waiting for their timeout.
 */
void orca_cmdq_fail_all(struct orca_dev *odev)
{
	struct orca_cmdq *cmdq = &odev->cmdq;
	unsigned long flags;
	u32 i;

	if (!cmdq->ctx)
		return;
	spin_lock_irqsave(&cmdq->lock, flags);
	for (i = 0; i < cmdq->depth; i++) {
		if (cmdq->ctx[i].state != ORCA_CMDQ_CTX_PENDING &&
		    cmdq->ctx[i].state != ORCA_CMDQ_CTX_ORPHAN)
			continue;
		cmdq->ctx[i].state = ORCA_CMDQ_CTX_STALE;
		complete(&cmdq->ctx[i].done);
	}
	spin_unlock_irqrestore(&cmdq->lock, flags);
}

/* The oldest outstanding command was held longer than the timeout. */
static bool orca_cmdq_head_expired(struct orca_cmdq *cmdq)
{
	lockdep_assert_held(&cmdq->lock);
	return cmdq->outstanding &&
	       time_after_eq(jiffies, cmdq->progress + cmdq->timeout);
}

/**
 * orca_cmdq_timed_out() - has the device held a command past its timeout?
 * @odev: device
 *
 * For the watchdog: commands of atomic callers that gave up (orphans) have
 * no waiter to notice.
 *
 * Return: true if the oldest outstanding command has been held longer than
 * the command timeout.
 */
bool orca_cmdq_timed_out(struct orca_dev *odev)
{
	struct orca_cmdq *cmdq = &odev->cmdq;
	unsigned long flags;
	bool expired;

	spin_lock_irqsave(&cmdq->lock, flags);
	expired = orca_cmdq_head_expired(cmdq);
	spin_unlock_irqrestore(&cmdq->lock, flags);
	return expired;
}

/*
 * Wait for @ctx until it completes or the device has held the oldest
 * outstanding command for the timeout; the deadline moves with every
 * completion of an older command.  Sleeps, on an event or between polls.
 */
static bool orca_cmdq_wait(struct orca_dev *odev, struct orca_cmdq_ctx *ctx,
			   bool events)
{
	struct orca_cmdq *cmdq = &odev->cmdq;
	unsigned long left, flags;
	bool expired;

	for (;;) {
		if (events) {
			spin_lock_irqsave(&cmdq->lock, flags);
			left = cmdq->progress + cmdq->timeout - jiffies;
			spin_unlock_irqrestore(&cmdq->lock, flags);
			if ((long)left > 0 &&
			    wait_for_completion_timeout(&ctx->done, left))
				return true;
		} else {
			usleep_range(ORCA_CMDQ_POLL_MIN_US,
				     ORCA_CMDQ_POLL_MAX_US);
		}
		/* Polling mode, or a lost interrupt: look at the ring. */
		orca_cmdq_process_comps(odev);
		if (completion_done(&ctx->done))
			return true;
		spin_lock_irqsave(&cmdq->lock, flags);
		expired = orca_cmdq_head_expired(cmdq);
		spin_unlock_irqrestore(&cmdq->lock, flags);
		if (expired)
			return false;
	}
}

/*
 * Atomic context: busy-poll until @deadline (ktime: jiffies may stand
 * still with interrupts off).
 */
static bool orca_cmdq_spin(struct orca_dev *odev, struct orca_cmdq_ctx *ctx,
			   ktime_t deadline)
{
	for (;;) {
		orca_cmdq_process_comps(odev);
		if (completion_done(&ctx->done))
			return true;
		if (ktime_after(ktime_get(), deadline))
			return false;
		udelay(ORCA_CMDQ_POLL_MIN_US);
	}
}

/*
 * Take a credit and a token; returns the token or a negative errno.  A
 * sleeping caller waits as long as it takes (each command ahead of it is
 * bounded by its own timeout, and a dead device fails it with -EIO); an
 * atomic one until @deadline, then -EAGAIN.  Queueing never kills a
 * device.
 */
static int orca_cmdq_get_slot(struct orca_dev *odev, bool sleepable,
			      ktime_t deadline)
{
	struct orca_cmdq *cmdq = &odev->cmdq;
	int token;

	if (sleepable) {
		while (down_timeout(&cmdq->credits, msecs_to_jiffies(100)))
			if (orca_dev_is_dead(odev))
				return -EIO;
	} else {
		while (down_trylock(&cmdq->credits)) {
			if (orca_dev_is_dead(odev))
				return -EIO;
			if (ktime_after(ktime_get(), deadline))
				return -EAGAIN;
			orca_cmdq_process_comps(odev);
			udelay(ORCA_CMDQ_POLL_MIN_US);
		}
	}
	if (orca_dev_is_dead(odev)) {
		up(&cmdq->credits);
		return -EIO;
	}
	token = ida_alloc_max(&cmdq->tokens, cmdq->depth - 1,
			      sleepable ? GFP_KERNEL : GFP_ATOMIC);
	/* Cannot be -ENOSPC: a stale token keeps its credit. */
	if (token < 0)
		up(&cmdq->credits);
	return token;
}

/**
 * orca_cmdq_exec() - execute one firmware command and wait for it
 * @odev: device
 * @cmd: the command; opcode, lengths, addresses and @in filled by the
 *	 caller, with any flags but ORCA_CMD_F_EVENT; the token,
 *	 ORCA_CMD_F_EVENT and (for @res->data) out_addr are set here
 * @res: if not NULL, receives the syndrome, the inline output and, if
 *	 @res->data is set, the output the device wrote at out_addr
 * @sleepable: false in atomic context: no event, the completion ring is
 *	       busy-polled, and the whole wait (credit and completion) lasts
 *	       at most ORCA_CMDQ_ATOMIC_WAIT_US.  A command still running then
 *	       is orphaned: the caller gets -EBUSY, the device stays alive,
 *	       and the late completion frees the context (and runs
 *	       @res->orphaned).  A command that gets no slot in that time is
 *	       not posted: the caller gets -EAGAIN.
 *
 * A command the device holds as its oldest for longer than the command
 * timeout marks the device dead (which fences it before this returns).
 *
 * Return: 0, a negative errno from orca_cmdq_status_to_errno(), -ETIMEDOUT
 * for this command's own timeout, -EIO when the device is or was found
 * dead while waiting, or (atomic only) -EAGAIN when not posted or -EBUSY
 * when orphaned.
 */
int orca_cmdq_exec(struct orca_dev *odev, struct orca_cmd *cmd,
		   struct orca_cmdq_out *res, bool sleepable)
{
	struct orca_cmdq *cmdq = &odev->cmdq;
	u16 opcode = le16_to_cpu(cmd->opcode);
	ktime_t deadline = 0;
	struct orca_cmdq_ctx *ctx;
	unsigned long flags;
	bool events, done;
	int token, err;

	if (WARN_ON_ONCE(res && res->data_len > ORCA_CMDQ_OUT_BUF_BYTES))
		return -EINVAL;
	if (orca_dev_is_dead(odev))
		goto dead;
	if (!sleepable)
		deadline = ktime_add_us(ktime_get(), ORCA_CMDQ_ATOMIC_WAIT_US);
	token = orca_cmdq_get_slot(odev, sleepable, deadline);
	if (token == -EIO)
		goto dead;
	if (token < 0)
		return token;
	ctx = &cmdq->ctx[token];
	ctx->opcode = opcode;
	ctx->orphaned = res ? res->orphaned : NULL;
	events = sleepable && READ_ONCE(cmdq->event_mode);
	if (res && res->data) {
		memset(ctx->buf, 0, ORCA_CMDQ_OUT_BUF_BYTES);
		cmd->out_addr = cpu_to_le64(ctx->buf_dma);
		cmd->out_len = cpu_to_le32(res->data_len);
	}

	spin_lock_irqsave(&cmdq->lock, flags);
	if (orca_dev_is_dead(odev)) {
		spin_unlock_irqrestore(&cmdq->lock, flags);
		orca_cmdq_put_slot(cmdq, token);
		goto dead;
	}
	reinit_completion(&ctx->done);
	ctx->state = ORCA_CMDQ_CTX_PENDING;
	if (!cmdq->outstanding++)
		cmdq->progress = jiffies;
	cmd->token = cpu_to_le16(token);
	/* The caller's flags (ORCA_CMD_F_IN_CHAIN) stay. */
	if (events)
		cmd->flags |= cpu_to_le16(ORCA_CMD_F_EVENT);
	cmdq->ring[cmdq->pi & (cmdq->depth - 1)] = *cmd;
	cmdq->pi++;
	ctx->posted = trace_orca_cmd_complete_enabled() ? ktime_get() : 0;
	trace_orca_cmd_submit(odev, opcode, token);
	/* writel() orders the ring entry before the doorbell. */
	orca_wr32(odev, ORCA_REG_CMDQ_DB, cmdq->pi & 0xffff);
	spin_unlock_irqrestore(&cmdq->lock, flags);

	done = sleepable ? orca_cmdq_wait(odev, ctx, events) :
			   orca_cmdq_spin(odev, ctx, deadline);

	spin_lock_irqsave(&cmdq->lock, flags);
	if (!done && ctx->state == ORCA_CMDQ_CTX_PENDING) {
		if (sleepable || orca_cmdq_head_expired(cmdq)) {
			ctx->state = ORCA_CMDQ_CTX_STALE;
		} else {
			/* Queued behind slow commands: not a dead device. */
			ctx->state = ORCA_CMDQ_CTX_ORPHAN;
			spin_unlock_irqrestore(&cmdq->lock, flags);
			dev_dbg_ratelimited(&odev->pdev->dev,
					    "command 0x%x (token %d) orphaned after %u us\n",
					    opcode, token,
					    ORCA_CMDQ_ATOMIC_WAIT_US);
			return -EBUSY;
		}
		cmdq->timeouts++;
		spin_unlock_irqrestore(&cmdq->lock, flags);
		dev_err(&odev->pdev->dev, "command 0x%x (token %d) timed out\n",
			opcode, token);
		orca_dev_mark_dead(odev, "command timeout");
		return -ETIMEDOUT;
	}
	if (ctx->state == ORCA_CMDQ_CTX_STALE) {
		/* The watchdog or a fatal event found the device dead. */
		spin_unlock_irqrestore(&cmdq->lock, flags);
		dev_err(&odev->pdev->dev,
			"command 0x%x (token %d) not completed: device is dead\n",
			opcode, token);
		return -EIO;
	}
	ctx->state = ORCA_CMDQ_CTX_FREE;
	if (ctx->status != ORCA_CMD_ST_OK)
		cmdq->failed++;
	spin_unlock_irqrestore(&cmdq->lock, flags);

	err = orca_cmdq_status_to_errno(ctx->status);
	if (err)
		dev_dbg_ratelimited(&odev->pdev->dev,
				    "command 0x%x failed: status 0x%x syndrome 0x%x\n",
				    opcode, ctx->status, ctx->syndrome);
	if (res) {
		res->syndrome = ctx->syndrome;
		memcpy(res->out, ctx->out, sizeof(res->out));
		if (res->data && !err)
			memcpy(res->data, ctx->buf, res->data_len);
	}
	orca_cmdq_put_slot(cmdq, token);
	return err;

dead:
	dev_dbg_ratelimited(&odev->pdev->dev,
			    "command 0x%x refused: device is dead\n", opcode);
	return -EIO;
}

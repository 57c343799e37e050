/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ORCA firmware command queue engine: the one path by which every firmware
 * command is posted, completed (by polling or by EQ 0 events), timed out
 * and turned into an errno.  It knows nothing of the RDMA core.
 */
#ifndef ORCA_CMDQ_H
#define ORCA_CMDQ_H

#include <linux/bitfield.h>
#include <linux/bits.h>
#include <linux/build_bug.h>
#include <linux/completion.h>
#include <linux/idr.h>
#include <linux/ktime.h>
#include <linux/semaphore.h>
#include <linux/spinlock.h>
#include <linux/types.h>

#include "orca_cmds_defs.h"

struct orca_dev;

/* Longest command queue the driver asks for, whatever the device allows. */
#define ORCA_CMDQ_MAX_LOG_DEPTH	6

/*
 * Bytes of each context's output buffer (out_addr): the largest query
 * output (struct orca_dev_caps, struct orca_port_stats) fits.
 */
#define ORCA_CMDQ_OUT_BUF_BYTES	256

/*
 * The longest an atomic caller (the CM creates and destroys AHs under its
 * spinlocks, with interrupts off) waits, for a credit and for its
 * completion together: 1 s.  A command not completed by then is orphaned
 * (ORCA_CMDQ_CTX_ORPHAN), not timed out; the device stays alive, but the
 * caller fails: the CM's connect or accept with -EBUSY.  50 ms was too
 * short for an adapter whose firmware is scheduled like any process (the
 * emulator on a loaded host: blktests' NVMe-oF connects failed), and
 * ionic's atomic admin commands wait up to 2 s the same way.
 */
#define ORCA_CMDQ_ATOMIC_WAIT_US	1000000

enum orca_cmdq_ctx_state {
	ORCA_CMDQ_CTX_FREE,
	ORCA_CMDQ_CTX_PENDING,
	ORCA_CMDQ_CTX_DONE,
	/* timed out or failed by a dead device: never reused until reset */
	ORCA_CMDQ_CTX_STALE,
	/*
	 * given up by an atomic caller after ORCA_CMDQ_ATOMIC_WAIT_US: still
	 * the device's, reclaimed when its completion arrives
	 */
	ORCA_CMDQ_CTX_ORPHAN,
};

/**
 * struct orca_cmdq_ctx - completion context of one in-flight command
 * @done: completed when the command's completion has been copied here
 * @state: enum orca_cmdq_ctx_state, protected by the queue lock
 * @status: enum orca_cmd_status from the completion
 * @syndrome: device detail for a failure
 * @out: inline output of the completion
 * @buf: this context's slice of orca_cmdq.out_bufs, the command's out_addr
 * @buf_dma: bus address of @buf
 * @opcode: the command's opcode, for the log and the tracepoints
 * @posted: when it was posted, if the orca_cmd_complete tracepoint was on
 * @orphaned: the caller's orca_cmdq_out.orphaned, for an orphan's completion
 */
struct orca_cmdq_ctx {
	struct completion done;
	enum orca_cmdq_ctx_state state;
	u8 status;
	u32 syndrome;
	u8 out[ORCA_CMD_OUT_INLINE_BYTES];
	void *buf;
	dma_addr_t buf_dma;
	u16 opcode;
	ktime_t posted;
	void (*orphaned)(struct orca_dev *odev, int err, const u8 *out);
};

/**
 * struct orca_cmdq - the firmware command queue
 * @ring: command ring, @depth entries
 * @ring_dma: bus address of @ring
 * @comp: completion ring, @depth entries
 * @comp_dma: bus address of @comp
 * @depth: entries in each ring (a power of two)
 * @pi: free-running producer index (the doorbell takes its low 16 bits)
 * @ci: free-running completion consumer index
 * @lock: protects @ring, @pi, @ci and every context's state
 * @credits: one per command that may be outstanding
 * @tokens: allocator of context indices, the commands' tokens
 * @ctx: @depth completion contexts, indexed by token
 * @out_bufs: @depth output buffers of ORCA_CMDQ_OUT_BUF_BYTES, one per
 *	      context: allocated once, so no command allocates DMA memory, and
 *	      freed only after the reset in orca_cmdq_cleanup(), so a command
 *	      that timed out never has its output buffer freed under it
 * @out_bufs_dma: bus address of @out_bufs
 * @event_mode: completions are signalled by ORCA_EQE_CMD_DONE on EQ 0
 * @timeout: per-command timeout in jiffies (ORCA_REG_CMD_TIMEOUT_MS)
 * @outstanding: commands posted and not yet completed (orphans included)
 * @progress: jiffies when the oldest outstanding command became the
 *	      oldest: the last completion, or the post into an empty queue.
 *	      The spec's timeout runs from there, so commands queued behind
 *	      slow ones never count as timed out.
 * @failed: commands the device completed with a failure status
 * @timeouts: commands that timed out (each one declared the device dead)
 */
struct orca_cmdq {
	struct orca_cmd *ring;
	dma_addr_t ring_dma;
	struct orca_cmd_comp *comp;
	dma_addr_t comp_dma;
	u32 depth;
	u32 pi;
	u32 ci;
	spinlock_t lock;		/* rings, indices, ctx states */
	struct semaphore credits;
	struct ida tokens;
	struct orca_cmdq_ctx *ctx;
	void *out_bufs;
	dma_addr_t out_bufs_dma;
	bool event_mode;
	unsigned long timeout;
	u32 outstanding;
	unsigned long progress;
	u64 failed;
	u64 timeouts;
};

/**
 * struct orca_cmdq_out - what a completed command returned
 * @data: if not NULL, the command has output at out_addr (a query):
 *	  receives its first @data_len bytes
 * @data_len: at most ORCA_CMDQ_OUT_BUF_BYTES
 * @syndrome: device detail for a failure
 * @out: inline output (struct orca_cmd_handle_out etc.)
 * @orphaned: atomic callers: if not NULL, called when the command, given
 *	      up on with -EBUSY after it was posted, completes after all,
 *	      with its errno and inline output; from the completion path (any
 *	      context, the queue lock held), so it may only hand work on
 */
struct orca_cmdq_out {
	void *data;
	size_t data_len;
	u32 syndrome;
	u8 out[ORCA_CMD_OUT_INLINE_BYTES];
	void (*orphaned)(struct orca_dev *odev, int err, const u8 *out);
};

int orca_cmdq_init(struct orca_dev *odev);
void orca_cmdq_cleanup(struct orca_dev *odev);
void orca_cmdq_set_event_mode(struct orca_dev *odev, bool on);
void orca_cmdq_process_comps(struct orca_dev *odev);
void orca_cmdq_fail_all(struct orca_dev *odev);
bool orca_cmdq_timed_out(struct orca_dev *odev);
int orca_cmdq_exec(struct orca_dev *odev, struct orca_cmd *cmd,
		   struct orca_cmdq_out *res, bool sleepable);
int orca_cmdq_status_to_errno(u8 status);

#endif /* ORCA_CMDQ_H */

// SPDX-License-Identifier: GPL-2.0
/*
 * The firmware command queue's dispatcher: fetches one struct orca_cmd from
 * the host ring, dispatches it to its handler (cmd_*.c), writes the
 * completion with the phase protocol and posts CMD_DONE.  What the handlers
 * use to reach the command's input and output is in cmd_toolkit.c.
 */
#include <endian.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "cmd_handlers.h"

static int cmd_nop(struct cmd_ctx *c)
{
	return ORCA_CMD_ST_OK;
}

static const cmd_handler_t cmd_handlers[ORCA_CMD_MAX] = {
	[ORCA_CMD_NOP]		= cmd_nop,
	[ORCA_CMD_QUERY_DEVICE]	= cmd_query_device,
	[ORCA_CMD_QUERY_PORT]	= cmd_query_port,
	[ORCA_CMD_SET_PORT]	= cmd_set_port,
	[ORCA_CMD_SET_GID]	= cmd_set_gid,
	[ORCA_CMD_QUERY_STATS]	= cmd_query_stats,
	[ORCA_CMD_QUERY_CC]	= cmd_query_cc,
	[ORCA_CMD_SET_CC]	= cmd_set_cc,
	[ORCA_CMD_SET_ODP]	= cmd_set_odp,
	[ORCA_CMD_CREATE_EQ]	= cmd_create_eq,
	[ORCA_CMD_DESTROY_EQ]	= cmd_destroy_eq,
	[ORCA_CMD_ALLOC_UAR]	= cmd_alloc_uar,
	[ORCA_CMD_DEALLOC_UAR]	= cmd_dealloc_uar,
	[ORCA_CMD_CREATE_PD]	= cmd_create_pd,
	[ORCA_CMD_DESTROY_PD]	= cmd_destroy_pd,
	[ORCA_CMD_CREATE_CQ]	= cmd_create_cq,
	[ORCA_CMD_RESIZE_CQ]	= cmd_resize_cq,
	[ORCA_CMD_DESTROY_CQ]	= cmd_destroy_cq,
	[ORCA_CMD_QUERY_CQ]	= cmd_query_cq,
	[ORCA_CMD_MODIFY_CQ]	= cmd_modify_cq,
	[ORCA_CMD_CREATE_MR]	= cmd_create_mr,
	[ORCA_CMD_DESTROY_MR]	= cmd_destroy_mr,
	[ORCA_CMD_MR_INSTALL]	= cmd_mr_install,
	[ORCA_CMD_MR_INVALIDATE] = cmd_mr_invalidate,
	[ORCA_CMD_CREATE_QP]	= cmd_create_qp,
	[ORCA_CMD_MODIFY_QP]	= cmd_modify_qp,
	[ORCA_CMD_QUERY_QP]	= cmd_query_qp,
	[ORCA_CMD_DESTROY_QP]	= cmd_destroy_qp,
	[ORCA_CMD_CREATE_AH]	= cmd_create_ah,
	[ORCA_CMD_DESTROY_AH]	= cmd_destroy_ah,
	[ORCA_CMD_CREATE_SRQ]	= cmd_create_srq,
	[ORCA_CMD_MODIFY_SRQ]	= cmd_modify_srq,
	[ORCA_CMD_QUERY_SRQ]	= cmd_query_srq,
	[ORCA_CMD_DESTROY_SRQ]	= cmd_destroy_srq,
	[ORCA_CMD_ALLOC_MW]	= cmd_alloc_mw,
	[ORCA_CMD_DEALLOC_MW]	= cmd_dealloc_mw,
	[ORCA_CMD_ATTACH_MCAST]	= cmd_attach_mcast,
	[ORCA_CMD_DETACH_MCAST]	= cmd_detach_mcast,
	[ORCA_CMD_ALLOC_XRCD]	= cmd_alloc_xrcd,
	[ORCA_CMD_DEALLOC_XRCD]	= cmd_dealloc_xrcd,
};

static void cmdq_dma_fatal(struct orca_engine *eng, const char *what,
			   uint16_t ci)
{
	eng_log_guest("command queue %s DMA failed at index %u", what, ci);
	engine_set_fatal(eng, ORCA_FATAL_CMDQ_DMA);
	engine_eq_post_fatal(eng, ORCA_FATAL_CMDQ_DMA);
}

/* Commands that make one object, and those that free one. */
static bool cmd_creates(uint16_t op)
{
	return op == ORCA_CMD_CREATE_EQ || op == ORCA_CMD_ALLOC_UAR ||
	       op == ORCA_CMD_CREATE_PD || op == ORCA_CMD_CREATE_CQ ||
	       op == ORCA_CMD_CREATE_MR || op == ORCA_CMD_CREATE_QP ||
	       op == ORCA_CMD_CREATE_AH || op == ORCA_CMD_CREATE_SRQ ||
	       op == ORCA_CMD_ALLOC_MW || op == ORCA_CMD_ALLOC_XRCD;
}

static bool cmd_destroys(uint16_t op)
{
	return op == ORCA_CMD_DESTROY_EQ || op == ORCA_CMD_DEALLOC_UAR ||
	       op == ORCA_CMD_DESTROY_PD || op == ORCA_CMD_DESTROY_CQ ||
	       op == ORCA_CMD_DESTROY_MR || op == ORCA_CMD_DESTROY_QP ||
	       op == ORCA_CMD_DESTROY_AH || op == ORCA_CMD_DESTROY_SRQ ||
	       op == ORCA_CMD_DEALLOC_MW || op == ORCA_CMD_DEALLOC_XRCD;
}

/*
 * "fail-destroy N": the next N destroys of an object that holds guest
 * memory fail without effect, as a firmware error would leave them: the
 * object lives on and the adapter may still write its rings.  A driver
 * must keep that memory (spec, commands.rst, "Destroy commands, common
 * rules").
 */
static bool cmd_refuse_destroy(struct cmd_ctx *c, uint16_t op)
{
	uint32_t left;

	if (op != ORCA_CMD_DESTROY_CQ && op != ORCA_CMD_DESTROY_QP &&
	    op != ORCA_CMD_DESTROY_SRQ && op != ORCA_CMD_DESTROY_MR)
		return false;
	left = atomic_load(&c->eng->fail_destroys);
	do {
		if (!left)
			return false;
	} while (!atomic_compare_exchange_weak(&c->eng->fail_destroys, &left,
					       left - 1));
	eng_log("fail-destroy: command %#x on handle %u refused, %u more",
		op, cmd_in_handle(c), left - 1);
	return true;
}

/*
 * "dup-handle N" (engine.h): a successful CREATE_CQ/QP/SRQ may report the
 * handle of an earlier object of its kind instead of its own, which a
 * driver cannot record (it has that handle already): it undoes its create
 * with a DESTROY of the handle it got, which "fail-destroy" can refuse.
 */
static void cmd_dup_handle(struct cmd_ctx *c, uint16_t op)
{
	struct orca_engine *eng = c->eng;
	struct orca_cmd_handle_out out;
	const struct objtab *t;
	uint32_t handle, ref, left;
	unsigned int kind;

	switch (op) {
	case ORCA_CMD_CREATE_CQ:
		kind = 0;
		t = &eng->cqs;
		break;
	case ORCA_CMD_CREATE_QP:
		kind = 1;
		t = &eng->qps;
		break;
	case ORCA_CMD_CREATE_SRQ:
		kind = 2;
		t = &eng->srqs;
		break;
	default:
		return;
	}
	memcpy(&out, c->out, sizeof(out));
	handle = le32toh(out.handle);
	left = atomic_load(&eng->dup_handles);
	if (!left || (op == ORCA_CMD_CREATE_QP && handle == EMU_QPN_GSI))
		return;
	ref = atomic_load(&eng->dup_ref[kind]);
	if (ref == UINT32_MAX || !objtab_get(t, ref)) {
		/* The driver knows this one: the next may report it. */
		atomic_store(&eng->dup_ref[kind], handle);
		return;
	}
	do {
		if (!left)
			return;
	} while (!atomic_compare_exchange_weak(&eng->dup_handles, &left,
					       left - 1));
	eng_log("dup-handle: command %#x made handle %u, reported %u, %u more",
		op, handle, ref, left - 1);
	cmd_set_handle(c, ref);
}

/*
 * Every object's fixed cost is charged here, around its handler; what
 * varies (page lists, transport state) the handlers charge themselves.
 */
static int cmd_execute(struct cmd_ctx *c)
{
	uint16_t op = le16toh(c->cmd.opcode);
	int st;

	if (op >= ORCA_CMD_MAX || !cmd_handlers[op])
		return cmd_fail(c, ORCA_CMD_ST_BAD_OPCODE);
	if (cmd_refuse_destroy(c, op))
		return cmd_fail(c, ORCA_CMD_ST_INTERNAL);
	if (cmd_creates(op)) {
		st = cmd_mem_charge(c, EMU_OBJ_COST);
		if (st)
			return st;
	}
	st = cmd_handlers[op](c);
	if ((cmd_creates(op) && st) || (cmd_destroys(op) && !st))
		engine_mem_uncharge(&c->eng->mem, EMU_OBJ_COST);
	if (!st)
		cmd_dup_handle(c, op);
	return st;
}

/*
 * Runs command @ci of the ring latched at CMDQ_ENABLE (generation @gen).
 * The consumer index advances before the completion is visible, so a
 * driver that reuses the slot at once never rings past the ring.  If the
 * queue was disabled or reset meanwhile, the completion is dropped: the
 * driver has abandoned that ring.
 */
void cmdq_run_one(struct orca_engine *eng, uint16_t ci, uint64_t base,
		  uint64_t comp_base, uint8_t log_depth, uint32_t gen)
{
	uint32_t slot = ci & ((1u << log_depth) - 1);
	uint8_t phase = ((ci >> log_depth) & 1) ? 0 : ORCA_CMD_COMP_PHASE;
	struct cmd_ctx c = { .eng = eng };
	struct orca_cmd_comp *comp;
	const void *src;
	bool stale;
	int st;

	eng->host.ops->dma_begin(eng->host.priv);
	src = engine_dma(eng, base + (uint64_t)slot * sizeof(c.cmd),
			 sizeof(c.cmd));
	if (!src) {
		cmdq_dma_fatal(eng, "fetch", ci);
		goto out;
	}
	/* Private copy: the guest can rewrite the slot while we run. */
	memcpy(&c.cmd, src, sizeof(c.cmd));
	c.in_len = le32toh(c.cmd.in_len);
	c.out_len = le32toh(c.cmd.out_len);
	c.in_addr = le64toh(c.cmd.in_addr);
	c.out_addr = le64toh(c.cmd.out_addr);

	st = cmd_execute(&c);
	if (st)
		eng_dbg("command %#x token %u: status %d (engine line %u)",
			le16toh(c.cmd.opcode), le16toh(c.cmd.token), st,
			c.syndrome);

	pthread_mutex_lock(&eng->lock);
	eng->stats.cmds++;
	eng->stats.cmd_status[st <= ORCA_CMD_ST_INTERNAL ? st :
			      ORCA_CMD_ST_INTERNAL]++;
	eng->last_cmd_opcode = le16toh(c.cmd.opcode);
	eng->last_cmd_status = st;
	stale = gen != eng->cmdq_gen;
	if (!stale)
		eng->cmdq_ci = ci + 1;
	pthread_mutex_unlock(&eng->lock);
	if (stale)
		goto out;

	comp = engine_dma(eng, comp_base + (uint64_t)slot * sizeof(*comp),
			  sizeof(*comp));
	if (!comp) {
		cmdq_dma_fatal(eng, "completion", ci);
		goto out;
	}
	comp->token = c.cmd.token;
	comp->status = st;
	comp->syndrome = htole32(st ? c.syndrome : 0);
	/* A failed command has no output, whatever a handler left there. */
	if (st)
		memset(c.out, 0, sizeof(c.out));
	memcpy(comp->out, c.out, sizeof(comp->out));
	atomic_store_explicit((_Atomic uint8_t *)&comp->flags, phase,
			      memory_order_release);

	/* Without an EQ 0 the driver polls; the flag is then ignored. */
	if (le16toh(c.cmd.flags) & ORCA_CMD_F_EVENT)
		engine_eq_post(eng, 0, ORCA_EQE_CMD_DONE,
			       le16toh(c.cmd.token), 0);
out:
	eng->host.ops->dma_end(eng->host.priv);
}

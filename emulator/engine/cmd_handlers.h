/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The command handlers, one per opcode (cmd_*.c), which the dispatcher's
 * table (cmdq.c) calls, and the checks one handler's file lends another.
 * Included by cmdq.c and the cmd_*.c files only.
 */
#ifndef ORCA_EMU_CMD_HANDLERS_H
#define ORCA_EMU_CMD_HANDLERS_H

#include "cmd_toolkit.h"

/* Command handlers (cmd_*.c), one per opcode. */
typedef int (*cmd_handler_t)(struct cmd_ctx *c);
int cmd_query_device(struct cmd_ctx *c);
int cmd_query_port(struct cmd_ctx *c);
int cmd_query_stats(struct cmd_ctx *c);
int cmd_set_port(struct cmd_ctx *c);
int cmd_set_gid(struct cmd_ctx *c);
int cmd_query_cc(struct cmd_ctx *c);
int cmd_set_cc(struct cmd_ctx *c);
int cmd_create_eq(struct cmd_ctx *c);
int cmd_destroy_eq(struct cmd_ctx *c);
int cmd_alloc_uar(struct cmd_ctx *c);
int cmd_dealloc_uar(struct cmd_ctx *c);
int cmd_create_pd(struct cmd_ctx *c);
int cmd_destroy_pd(struct cmd_ctx *c);
int cmd_create_cq(struct cmd_ctx *c);
int cmd_resize_cq(struct cmd_ctx *c);
int cmd_destroy_cq(struct cmd_ctx *c);
int cmd_query_cq(struct cmd_ctx *c);
int cmd_modify_cq(struct cmd_ctx *c);
int cmd_create_mr(struct cmd_ctx *c);
int cmd_destroy_mr(struct cmd_ctx *c);
int cmd_alloc_mw(struct cmd_ctx *c);
int cmd_dealloc_mw(struct cmd_ctx *c);
int cmd_create_qp(struct cmd_ctx *c);
int cmd_modify_qp(struct cmd_ctx *c);
int cmd_query_qp(struct cmd_ctx *c);
int cmd_destroy_qp(struct cmd_ctx *c);
int cmd_create_ah(struct cmd_ctx *c);
int cmd_destroy_ah(struct cmd_ctx *c);
int cmd_create_srq(struct cmd_ctx *c);
int cmd_modify_srq(struct cmd_ctx *c);
int cmd_query_srq(struct cmd_ctx *c);
int cmd_destroy_srq(struct cmd_ctx *c);
int cmd_attach_mcast(struct cmd_ctx *c);
int cmd_detach_mcast(struct cmd_ctx *c);
int cmd_alloc_xrcd(struct cmd_ctx *c);
int cmd_dealloc_xrcd(struct cmd_ctx *c);
int cmd_set_odp(struct cmd_ctx *c);
int cmd_mr_install(struct cmd_ctx *c);
int cmd_mr_invalidate(struct cmd_ctx *c);

/* cmd_odp.c: CREATE_MR's on-demand kind (ORCA_MR_F_ON_DEMAND) */
int cmd_mr_on_demand(struct cmd_ctx *c, struct emu_mr *mr,
		     const struct orca_cmd_create_mr *in);

/* cmd_device.c */
bool cmd_gid_entry_valid(struct orca_engine *eng, uint32_t index);

/* cmd_ah.c: also validates MODIFY_QP's AV */
int cmd_av_check(struct orca_engine *eng, const struct orca_av *av);

#endif /* ORCA_EMU_CMD_HANDLERS_H */

// SPDX-License-Identifier: GPL-2.0
/*
 * Congestion control (1.8, ORCA_DEV_CAP_CC): QUERY_CC and SET_CC, the
 * adapter's ECN switches and DCQCN's parameters (struct orca_cc_params),
 * which the RoCE engine applies from its next packet (roce_ecn.c,
 * roce_dcqcn.c).  SET_CC checks every field before it changes any: a bad
 * one fails the command with BAD_PARAM and leaves the adapter as it was.
 * The values hold until the adapter is powered off (a function reset
 * keeps them, as a ConnectX keeps its cc_params across a driver reload).
 */
#include <endian.h>
#include <string.h>

#include "cmd_handlers.h"
#include "roce/roce.h"

int cmd_query_cc(struct cmd_ctx *c)
{
	struct roce_ecn_cfg e;
	struct roce_dcqcn_cfg d;
	struct orca_cc_params out;

	roce_get_cc(c->eng, &e, &d);
	out = (struct orca_cc_params){
		.flags = htole32((e.ect ? ORCA_CC_F_ECT : 0) |
				 (e.np ? ORCA_CC_F_NP : 0) |
				 (e.rp ? ORCA_CC_F_RP : 0)),
		.np_min_time_between_cnps = htole32(e.cnp_interval_us),
		.rp_max_rate = htole32(d.max_mbps),
		.rp_min_rate = htole32(d.min_mbps),
		.rp_ai_rate = htole32(d.ai_mbps),
		.rp_hai_rate = htole32(d.hai_mbps),
		.rp_threshold = htole32(d.f),
		.rp_time_reset = htole32(d.timer_us),
		.rp_byte_reset = htole32(d.bytes),
		.rp_dce_tcp_g = htole32(d.g),
		.rp_dce_tcp_rtt = htole32(d.alpha_us),
		.rp_rate_reduce_monitor_period = htole32(d.cut_us),
		.rp_initial_alpha_value = htole32(d.alpha0),
	};
	return cmd_write_out(c, &out, sizeof(out));
}

int cmd_set_cc(struct cmd_ctx *c)
{
	struct orca_cc_params in;
	struct roce_ecn_cfg e;
	struct roce_dcqcn_cfg d;
	uint32_t flags;

	memcpy(&in, c->cmd.in, sizeof(in));
	flags = le32toh(in.flags);
	d = (struct roce_dcqcn_cfg){
		.max_mbps = le32toh(in.rp_max_rate),
		.min_mbps = le32toh(in.rp_min_rate),
		.ai_mbps = le32toh(in.rp_ai_rate),
		.hai_mbps = le32toh(in.rp_hai_rate),
		.f = le32toh(in.rp_threshold),
		.timer_us = le32toh(in.rp_time_reset),
		.bytes = le32toh(in.rp_byte_reset),
		.g = le32toh(in.rp_dce_tcp_g),
		.alpha_us = le32toh(in.rp_dce_tcp_rtt),
		.cut_us = le32toh(in.rp_rate_reduce_monitor_period),
		.alpha0 = le32toh(in.rp_initial_alpha_value),
	};
	e = (struct roce_ecn_cfg){
		.ect = flags & ORCA_CC_F_ECT,
		.np = flags & ORCA_CC_F_NP,
		.rp = flags & ORCA_CC_F_RP,
		.cnp_interval_us = le32toh(in.np_min_time_between_cnps),
	};
	if ((flags & ~ORCA_CC_FLAGS) || in.rsvd[0] || in.rsvd[1] || in.rsvd[2] ||
	    e.cnp_interval_us > ORCA_CC_MAX_US || !roce_dcqcn_cfg_valid(&d))
		return cmd_fail(c, ORCA_CMD_ST_BAD_PARAM);
	roce_set_dcqcn(c->eng, &d);
	roce_set_ecn(c->eng, &e);
	return ORCA_CMD_ST_OK;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * ORCA congestion control as devlink parameters of the PCI function
 * (interface 1.8, ORCA_DEV_CAP_CC): whether the adapter sends ECN-capable
 * packets, answers CE marks with CNPs and cuts a QP's rate on a CNP
 * (DCQCN), and DCQCN's parameters, named as mlx5 names its cc_params:
 *
 *	devlink dev param set pci/0000:00:04.0 name rp_ai_rate value 20 \
 *		cmode runtime
 *
 * Each get reads the adapter (QUERY_CC); each set reads it, changes the
 * one field and writes all of them back (SET_CC), so the adapter checks
 * the parameters against each other (rp_min_rate at most rp_max_rate);
 * what it refuses fails the set with -EINVAL and changes nothing.  devlink
 * calls both with the instance lock held, which also keeps orca_pf.odev
 * from changing (orca_devlink.c); without a device (a recovery failed) or
 * on an adapter older than 1.8 they fail.  The adapter keeps the values
 * across a function reset; Documentation/orca/data-path.rst says what
 * each one does.
 */
#include <net/devlink.h>

#include "orca_com.h"
#include "orca_devlink.h"

enum orca_cc_param_id {
	ORCA_CC_PARAM_NP_ENABLE = DEVLINK_PARAM_GENERIC_ID_MAX + 1,
	ORCA_CC_PARAM_RP_ENABLE,
	ORCA_CC_PARAM_ECT_ENABLE,
	ORCA_CC_PARAM_NP_MIN_TIME_BETWEEN_CNPS,
	ORCA_CC_PARAM_RP_MAX_RATE,
	ORCA_CC_PARAM_RP_MIN_RATE,
	ORCA_CC_PARAM_RP_AI_RATE,
	ORCA_CC_PARAM_RP_HAI_RATE,
	ORCA_CC_PARAM_RP_THRESHOLD,
	ORCA_CC_PARAM_RP_TIME_RESET,
	ORCA_CC_PARAM_RP_BYTE_RESET,
	ORCA_CC_PARAM_RP_DCE_TCP_G,
	ORCA_CC_PARAM_RP_DCE_TCP_RTT,
	ORCA_CC_PARAM_RP_RATE_REDUCE_MONITOR_PERIOD,
	ORCA_CC_PARAM_RP_INITIAL_ALPHA_VALUE,
};

#define ORCA_CC_FIRST	ORCA_CC_PARAM_NP_ENABLE

/*
 * Where each parameter lives in struct orca_cc_params: a flag of its flags
 * word (@flag), or a whole word (@offset), whose range (@min, @max) the
 * set checks before it asks the adapter.
 */
struct orca_cc_field {
	u32 flag;
	size_t offset;
	u32 min, max;
};

#define ORCA_CC_WORD(f, lo, hi) \
	{ .offset = offsetof(struct orca_cc_params, f), .min = lo, .max = hi }

static const struct orca_cc_field orca_cc_fields[] = {
	[ORCA_CC_PARAM_NP_ENABLE - ORCA_CC_FIRST] = { .flag = ORCA_CC_F_NP },
	[ORCA_CC_PARAM_RP_ENABLE - ORCA_CC_FIRST] = { .flag = ORCA_CC_F_RP },
	[ORCA_CC_PARAM_ECT_ENABLE - ORCA_CC_FIRST] = { .flag = ORCA_CC_F_ECT },
	[ORCA_CC_PARAM_NP_MIN_TIME_BETWEEN_CNPS - ORCA_CC_FIRST] =
		ORCA_CC_WORD(np_min_time_between_cnps, 0, ORCA_CC_MAX_US),
	[ORCA_CC_PARAM_RP_MAX_RATE - ORCA_CC_FIRST] =
		ORCA_CC_WORD(rp_max_rate, 0, ORCA_CC_LINE_MBPS),
	[ORCA_CC_PARAM_RP_MIN_RATE - ORCA_CC_FIRST] =
		ORCA_CC_WORD(rp_min_rate, 1, ORCA_CC_LINE_MBPS),
	[ORCA_CC_PARAM_RP_AI_RATE - ORCA_CC_FIRST] =
		ORCA_CC_WORD(rp_ai_rate, 1, ORCA_CC_LINE_MBPS),
	[ORCA_CC_PARAM_RP_HAI_RATE - ORCA_CC_FIRST] =
		ORCA_CC_WORD(rp_hai_rate, 1, ORCA_CC_LINE_MBPS),
	[ORCA_CC_PARAM_RP_THRESHOLD - ORCA_CC_FIRST] =
		ORCA_CC_WORD(rp_threshold, 1, ORCA_CC_MAX_THRESHOLD),
	[ORCA_CC_PARAM_RP_TIME_RESET - ORCA_CC_FIRST] =
		ORCA_CC_WORD(rp_time_reset, 1, ORCA_CC_MAX_US),
	[ORCA_CC_PARAM_RP_BYTE_RESET - ORCA_CC_FIRST] =
		ORCA_CC_WORD(rp_byte_reset, ORCA_CC_MIN_BYTE_RESET,
			     ORCA_CC_MAX_BYTE_RESET),
	[ORCA_CC_PARAM_RP_DCE_TCP_G - ORCA_CC_FIRST] =
		ORCA_CC_WORD(rp_dce_tcp_g, 1, ORCA_CC_ALPHA_ONE),
	[ORCA_CC_PARAM_RP_DCE_TCP_RTT - ORCA_CC_FIRST] =
		ORCA_CC_WORD(rp_dce_tcp_rtt, 1, ORCA_CC_MAX_US),
	[ORCA_CC_PARAM_RP_RATE_REDUCE_MONITOR_PERIOD - ORCA_CC_FIRST] =
		ORCA_CC_WORD(rp_rate_reduce_monitor_period, 0, ORCA_CC_MAX_US),
	[ORCA_CC_PARAM_RP_INITIAL_ALPHA_VALUE - ORCA_CC_FIRST] =
		ORCA_CC_WORD(rp_initial_alpha_value, 0, ORCA_CC_ALPHA_ONE),
};

static const struct orca_cc_field *orca_cc_field(u32 id)
{
	if (id < ORCA_CC_FIRST ||
	    id - ORCA_CC_FIRST >= ARRAY_SIZE(orca_cc_fields))
		return NULL;
	return &orca_cc_fields[id - ORCA_CC_FIRST];
}

static __le32 *orca_cc_word(struct orca_cc_params *p,
			    const struct orca_cc_field *f)
{
	return (__le32 *)((u8 *)p + f->offset);
}

/* The device to ask, under the instance lock; NULL with the reason set. */
static struct orca_dev *orca_cc_dev(struct devlink *devlink,
				    struct netlink_ext_ack *extack)
{
	struct orca_pf *pf = devlink_priv(devlink);
	struct orca_dev *odev = pf->odev;

	if (!odev) {
		NL_SET_ERR_MSG_MOD(extack, "no adapter (a recovery failed)");
		return NULL;
	}
	if (!(odev->caps.dev_caps & ORCA_DEV_CAP_CC)) {
		NL_SET_ERR_MSG_MOD(extack,
				   "the adapter has no congestion control (interface 1.8)");
		return NULL;
	}
	return odev;
}

/*
 * The device and field of parameter @id, and the device's parameters now
 * (QUERY_CC): what a get reports and a set changes one field of.
 */
static int orca_cc_read(struct devlink *devlink, u32 id,
			struct orca_dev **odev,
			const struct orca_cc_field **f,
			struct orca_cc_params *p,
			struct netlink_ext_ack *extack)
{
	int err;

	*odev = orca_cc_dev(devlink, extack);
	if (!*odev)
		return -EOPNOTSUPP;
	*f = orca_cc_field(id);
	if (!*f)
		return -EINVAL;
	err = orca_com_query_cc(*odev, p);
	if (err)
		NL_SET_ERR_MSG_MOD(extack, "QUERY_CC failed");
	return err;
}

static int orca_cc_get(struct devlink *devlink, u32 id,
		       struct devlink_param_gset_ctx *ctx,
		       struct netlink_ext_ack *extack)
{
	const struct orca_cc_field *f;
	struct orca_cc_params p;
	struct orca_dev *odev;
	int err;

	err = orca_cc_read(devlink, id, &odev, &f, &p, extack);
	if (err)
		return err;
	if (f->flag)
		ctx->val.vbool = le32_to_cpu(p.flags) & f->flag;
	else
		ctx->val.vu32 = le32_to_cpu(*orca_cc_word(&p, f));
	return 0;
}

static int orca_cc_set(struct devlink *devlink, u32 id,
		       struct devlink_param_gset_ctx *ctx,
		       struct netlink_ext_ack *extack)
{
	const struct orca_cc_field *f;
	struct orca_cc_params p;
	struct orca_dev *odev;
	u32 flags;
	int err;

	err = orca_cc_read(devlink, id, &odev, &f, &p, extack);
	if (err)
		return err;
	if (f->flag) {
		flags = le32_to_cpu(p.flags) & ~f->flag;
		p.flags = cpu_to_le32(flags | (ctx->val.vbool ? f->flag : 0));
	} else {
		*orca_cc_word(&p, f) = cpu_to_le32(ctx->val.vu32);
	}
	err = orca_com_set_cc(odev, &p);
	if (err == -EINVAL)
		NL_SET_ERR_MSG_MOD(extack,
				   "the adapter refused it (rp_min_rate above rp_max_rate?)");
	else if (err)
		NL_SET_ERR_MSG_MOD(extack, "SET_CC failed");
	return err;
}

static int orca_cc_validate(struct devlink *devlink, u32 id,
			    union devlink_param_value *val,
			    struct netlink_ext_ack *extack)
{
	const struct orca_cc_field *f = orca_cc_field(id);

	if (!f)
		return -EINVAL;
	if (!f->flag && (val->vu32 < f->min || val->vu32 > f->max)) {
		NL_SET_ERR_MSG_FMT_MOD(extack, "out of range %u..%u",
				       f->min, f->max);
		return -ERANGE;
	}
	return 0;
}

#define ORCA_CC_PARAM(id, name, type)					\
	DEVLINK_PARAM_DRIVER(ORCA_CC_PARAM_##id, name,			\
			     DEVLINK_PARAM_TYPE_##type,			\
			     BIT(DEVLINK_PARAM_CMODE_RUNTIME),		\
			     orca_cc_get, orca_cc_set, orca_cc_validate)

static const struct devlink_param orca_cc_params[] = {
	ORCA_CC_PARAM(NP_ENABLE, "np_enable", BOOL),
	ORCA_CC_PARAM(RP_ENABLE, "rp_enable", BOOL),
	ORCA_CC_PARAM(ECT_ENABLE, "ect_enable", BOOL),
	ORCA_CC_PARAM(NP_MIN_TIME_BETWEEN_CNPS, "np_min_time_between_cnps",
		      U32),
	ORCA_CC_PARAM(RP_MAX_RATE, "rp_max_rate", U32),
	ORCA_CC_PARAM(RP_MIN_RATE, "rp_min_rate", U32),
	ORCA_CC_PARAM(RP_AI_RATE, "rp_ai_rate", U32),
	ORCA_CC_PARAM(RP_HAI_RATE, "rp_hai_rate", U32),
	ORCA_CC_PARAM(RP_THRESHOLD, "rp_threshold", U32),
	ORCA_CC_PARAM(RP_TIME_RESET, "rp_time_reset", U32),
	ORCA_CC_PARAM(RP_BYTE_RESET, "rp_byte_reset", U32),
	ORCA_CC_PARAM(RP_DCE_TCP_G, "rp_dce_tcp_g", U32),
	ORCA_CC_PARAM(RP_DCE_TCP_RTT, "rp_dce_tcp_rtt", U32),
	ORCA_CC_PARAM(RP_RATE_REDUCE_MONITOR_PERIOD,
		      "rp_rate_reduce_monitor_period", U32),
	ORCA_CC_PARAM(RP_INITIAL_ALPHA_VALUE, "rp_initial_alpha_value", U32),
};

static_assert(ARRAY_SIZE(orca_cc_params) == ARRAY_SIZE(orca_cc_fields));

/**
 * orca_cc_params_register() - the congestion control parameters
 * @pf: the function's devlink instance, before devlink_register()
 *
 * Return: 0 or a negative errno.
 */
int orca_cc_params_register(struct orca_pf *pf)
{
	return devlink_params_register(priv_to_devlink(pf), orca_cc_params,
				       ARRAY_SIZE(orca_cc_params));
}

/**
 * orca_cc_params_unregister() - undo orca_cc_params_register()
 * @pf: the function's devlink instance, under its lock
 */
void orca_cc_params_unregister(struct orca_pf *pf)
{
	devl_params_unregister(priv_to_devlink(pf), orca_cc_params,
			       ARRAY_SIZE(orca_cc_params));
}

// SPDX-License-Identifier: GPL-2.0
/*
 * UD multicast (1.4): ATTACH_MCAST / DETACH_MCAST and the group table the
 * transport delivers multicast datagrams by (roce/roce_qp.c).  A group is
 * named by its MGID, the destination IP of its datagrams as a GID; a UD
 * QP attached to it receives a copy of each.  As in the verbs (and rxe),
 * attaching twice is no error, and detaching what is not attached is.
 */
#include <endian.h>
#include <string.h>

#include "cmd_handlers.h"

/* As rdma_is_multicast_addr(): IPv6 ff00::/8, or IPv4-mapped 224/4. */
bool engine_gid_is_mcast(const uint8_t gid[16])
{
	static const uint8_t v4_prefix[12] = { [10] = 0xff, [11] = 0xff };

	if (!memcmp(gid, v4_prefix, sizeof(v4_prefix)))
		return (gid[12] & 0xf0) == 0xe0;
	return gid[0] == 0xff;
}

static struct emu_mcg *mcg_find(struct orca_engine *eng,
				const uint8_t mgid[16])
{
	for (unsigned int i = 0; i < EMU_MAX_MCAST_GRP; i++)
		if (eng->mcgs[i].nqp && !memcmp(eng->mcgs[i].mgid, mgid, 16))
			return &eng->mcgs[i];
	return NULL;
}

const struct emu_mcg *engine_mcg_find(struct orca_engine *eng,
				      const uint8_t mgid[16])
{
	return mcg_find(eng, mgid);
}

static int mcg_index(const struct emu_mcg *g, uint32_t qpn)
{
	for (uint32_t i = 0; i < g->nqp; i++)
		if (g->qpn[i] == qpn)
			return (int)i;
	return -1;
}

static void mcg_remove(struct emu_mcg *g, int i)
{
	g->qpn[i] = g->qpn[--g->nqp];
}

void engine_mcg_forget_qp(struct orca_engine *eng, uint32_t qpn)
{
	for (unsigned int i = 0; i < EMU_MAX_MCAST_GRP; i++) {
		struct emu_mcg *g = &eng->mcgs[i];
		int at = g->nqp ? mcg_index(g, qpn) : -1;

		if (at >= 0)
			mcg_remove(g, at);
	}
}

void engine_mcg_clear(struct orca_engine *eng)
{
	memset(eng->mcgs, 0, sizeof(eng->mcgs));
}

/* The command's QP (a UD QP) and MGID (multicast), or a status. */
static int mcast_args(struct cmd_ctx *c, struct orca_cmd_mcast *in)
{
	struct emu_qp *qp;

	memcpy(in, c->cmd.in, sizeof(*in));
	qp = engine_qp_lookup(c->eng, le32toh(in->qpn));
	if (!qp)
		return ORCA_CMD_ST_BAD_HANDLE;
	if (qp->type != ORCA_QPT_UD || !engine_gid_is_mcast(in->mgid))
		return ORCA_CMD_ST_BAD_PARAM;
	return ORCA_CMD_ST_OK;
}

int cmd_attach_mcast(struct cmd_ctx *c)
{
	struct orca_engine *eng = c->eng;
	struct orca_cmd_mcast in;
	struct emu_mcg *g;
	int st = mcast_args(c, &in);

	if (st)
		return cmd_fail(c, st);
	g = mcg_find(eng, in.mgid);
	if (g && mcg_index(g, le32toh(in.qpn)) >= 0)
		return ORCA_CMD_ST_OK;
	if (!g) {
		for (unsigned int i = 0; i < EMU_MAX_MCAST_GRP && !g; i++)
			if (!eng->mcgs[i].nqp)
				g = &eng->mcgs[i];
		if (!g)
			return cmd_fail(c, ORCA_CMD_ST_NO_RESOURCES);
		memcpy(g->mgid, in.mgid, 16);
	}
	if (g->nqp == EMU_MAX_MCAST_QP_ATTACH)
		return cmd_fail(c, ORCA_CMD_ST_NO_RESOURCES);
	g->qpn[g->nqp++] = le32toh(in.qpn);
	return ORCA_CMD_ST_OK;
}

int cmd_detach_mcast(struct cmd_ctx *c)
{
	struct orca_cmd_mcast in;
	struct emu_mcg *g;
	int st = mcast_args(c, &in);
	int at;

	if (st)
		return cmd_fail(c, st);
	g = mcg_find(c->eng, in.mgid);
	at = g ? mcg_index(g, le32toh(in.qpn)) : -1;
	if (at < 0)
		return cmd_fail(c, ORCA_CMD_ST_BAD_PARAM);
	mcg_remove(g, at);
	return ORCA_CMD_ST_OK;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The diagnostic dump window (interface 1.2, ORCA_CAPS_DUMP): a snapshot of
 * the adapter's state that the driver reads through four registers, one
 * word at a time, with no DMA, so that it can be read from a dead adapter
 * (FATAL, command queue stopped, bus mastering off).
 *
 * A write of ORCA_DUMP_CTRL_SNAPSHOT asks the engine thread for a snapshot;
 * the engine thread takes it between two commands (its objects are its
 * own), also while the firmware is hung or fatal, since a dump is what a
 * dead adapter is asked for.  The registers then read the published copy
 * under eng->lock.  Nothing the driver writes can make a read leave the
 * snapshot: offsets past its end read 0.
 */
#include <endian.h>
#include <stdlib.h>
#include <string.h>

#include "engine_priv.h"
#include "roce/roce.h"

/* A snapshot being built: records are appended while they fit. */
struct dump_buf {
	uint8_t *p;
	uint32_t len;
	uint32_t num_records;
};

static void *dump_rec(struct dump_buf *b, uint16_t type, size_t size)
{
	struct orca_dump_rec *rec;

	if (b->len + size > ORCA_DUMP_MAX_BYTES)
		return NULL;
	rec = (struct orca_dump_rec *)(b->p + b->len);
	memset(rec, 0, size);
	rec->type = htole16(type);
	rec->len = htole16(size);
	b->len += size;
	b->num_records++;
	return rec;
}

static void dump_eq(uint32_t idx, void *obj, void *arg)
{
	const struct emu_eq *eq = obj;
	struct orca_dump_eq *r;

	r = dump_rec(arg, ORCA_DUMP_REC_EQ, sizeof(*r));
	if (!r)
		return;
	r->eqn = htole32(eq->eqn);
	r->pi = htole32(eq->pi);
	r->ci = htole32(eq->ci);
	r->vector = htole16(eq->vector);
	r->log_depth = eq->log_depth;
	r->armed = eq->armed;
	r->cqs = htole32(eq->refcnt);
}

struct dump_qp_walk {
	struct dump_buf *b;
	uint32_t left;			/* QP records still allowed */
};

static void dump_qp_one(struct dump_buf *b, const struct emu_qp *qp)
{
	struct orca_dump_qp *r;

	r = dump_rec(b, ORCA_DUMP_REC_QP, sizeof(*r));
	if (!r)
		return;
	r->qpn = htole32(qp->qpn);
	r->type = qp->type;
	r->state = qp->state;
	r->send_cqn = htole32(qp->send_cqn);
	r->recv_cqn = htole32(qp->recv_cqn);
	r->srqn = htole32(qp->srqn);
	r->sq_ci = htole32(qp->sq_ci);
	r->rq_ci = htole32(qp->rq_ci);
}

static void dump_qp(uint32_t idx, void *obj, void *arg)
{
	struct dump_qp_walk *w = arg;

	if (!w->left)
		return;
	w->left--;
	dump_qp_one(w->b, obj);
}

static void dump_objects(struct orca_engine *eng, struct dump_buf *b)
{
	struct orca_dump_objects *r;

	r = dump_rec(b, ORCA_DUMP_REC_OBJECTS, sizeof(*r));
	if (!r)
		return;
	r->eqs = htole32(objtab_count(&eng->eqs));
	r->uars = htole32(objtab_count(&eng->uars));
	r->pds = htole32(objtab_count(&eng->pds));
	r->cqs = htole32(objtab_count(&eng->cqs));
	r->mrs = htole32(objtab_count(&eng->mrs));
	r->qps = htole32(objtab_count(&eng->qps) + (eng->gsi_qp != NULL));
	r->ahs = htole32(objtab_count(&eng->ahs));
	r->srqs = htole32(objtab_count(&eng->srqs));
	r->mem_used = htole64(eng->mem.used);
}

static void dump_port(struct orca_engine *eng, struct dump_buf *b,
		      bool link_up)
{
	struct orca_dump_port *r;
	struct roce_stats st;

	r = dump_rec(b, ORCA_DUMP_REC_PORT, sizeof(*r));
	if (!r)
		return;
	roce_get_stats(eng, &st);
	r->link_up = link_up;
	r->active_mtu = eng->active_mtu;
	r->eth_mtu = htole32(eng->eth_mtu);
	r->tx_packets = htole64(st.tx_frames);
	r->rx_packets = htole64(st.rx_frames);
	r->rx_drops = htole64(st.rxq_full + st.rx_dead + st.rx_too_big +
			      st.drop_no_qp + st.drop_state + st.drop_bad_pkt +
			      st.drop_qkey + st.drop_no_rwqe + st.drop_ghost +
			      st.drop_uc);
	r->retransmits = htole64(st.retransmits);
	r->retry_timeouts = htole64(st.timeouts);
	r->cq_overruns = htole64(st.cq_overruns);
}

/*
 * Engine thread, called and returning without eng->lock: the register
 * values are read under it, the objects without (they are this thread's).
 */
void engine_dump_take(struct orca_engine *eng)
{
	struct dump_buf b = { .len = sizeof(struct orca_dump_hdr) };
	struct dump_qp_walk w = { .b = &b, .left = ORCA_DUMP_MAX_QPS };
	struct orca_dump_hdr *h;
	bool link_up;

	b.p = calloc(1, ORCA_DUMP_MAX_BYTES);
	h = (struct orca_dump_hdr *)b.p;
	pthread_mutex_lock(&eng->lock);
	if (h) {
		h->magic = htole32(ORCA_DUMP_MAGIC);
		h->version = htole16(ORCA_DUMP_VERSION);
		h->hdr_len = htole16(sizeof(*h));
		h->fw_version = htole32(EMU_FW_VERSION);
		h->dev_status = htole32(eng->status);
		h->fatal_syndrome = htole32(eng->syndrome);
		h->heartbeat = htole32(engine_heartbeat_locked(eng));
		h->cmdq_pi = htole16(eng->cmdq_pi);
		h->cmdq_ci = htole16(eng->cmdq_ci);
		h->last_cmd_opcode = htole16(eng->last_cmd_opcode);
		h->last_cmd_status = eng->last_cmd_status;
		h->cmdq_log_depth = eng->status & ORCA_STATUS_CMDQ_ENABLED ?
				    eng->cmdq_log_depth : 0;
		h->cmds = htole64(eng->stats.cmds);
		h->events = htole64(eng->stats.events);
		h->resets = htole64(eng->stats.resets);
	}
	link_up = eng->link_up;
	pthread_mutex_unlock(&eng->lock);

	if (h) {
		dump_objects(eng, &b);
		objtab_for_each(&eng->eqs, dump_eq, &b);
		if (eng->gsi_qp) {
			w.left--;
			dump_qp_one(&b, eng->gsi_qp);
		}
		objtab_for_each(&eng->qps, dump_qp, &w);
		dump_port(eng, &b, link_up);
		h->length = htole32(b.len);
		h->num_records = htole32(b.num_records);
	}

	pthread_mutex_lock(&eng->lock);
	free(eng->dump);
	/* Out of memory: an empty snapshot (DUMP_LEN 0), not a stuck BUSY. */
	eng->dump = b.p;
	eng->dump_len = h ? b.len : 0;
	eng->dump_busy = eng->dump_req;
	pthread_mutex_unlock(&eng->lock);
}

uint32_t engine_dump_reg_read_locked(struct orca_engine *eng, uint32_t off)
{
	uint32_t val = 0;

	switch (off) {
	case ORCA_REG_DUMP_CTRL:
		return eng->dump_busy ? ORCA_DUMP_CTRL_BUSY : 0;
	case ORCA_REG_DUMP_LEN:
		return eng->dump_busy ? 0 : eng->dump_len;
	case ORCA_REG_DUMP_OFFSET:
		return eng->dump_off;
	case ORCA_REG_DUMP_DATA:
		/* dump_len is a multiple of 4: a word is all in or all out. */
		if (!eng->dump_busy && eng->dump &&
		    eng->dump_off < eng->dump_len)
			memcpy(&val, eng->dump + eng->dump_off, sizeof(val));
		return le32toh(val);
	}
	return 0;
}

void engine_dump_reg_write_locked(struct orca_engine *eng, uint32_t off,
				  uint32_t val)
{
	switch (off) {
	case ORCA_REG_DUMP_CTRL:
		if (!(val & ORCA_DUMP_CTRL_SNAPSHOT))
			break;
		eng->dump_req = true;
		eng->dump_busy = true;
		engine_wake_locked(eng);
		break;
	case ORCA_REG_DUMP_OFFSET:
		/* Word aligned; any value, a read past the end gives 0. */
		eng->dump_off = val & ~3u;
		break;
	}
}

void engine_dump_free(struct orca_engine *eng)
{
	free(eng->dump);
	eng->dump = NULL;
	eng->dump_len = 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Event queue engine: writes struct orca_eqe entries into the EQ's pages,
 * tracks the producer/consumer indices and the armed state, and raises the
 * EQ's MSI-X vector.  An EQ never overwrites an entry the driver has not
 * consumed: a post into a full EQ makes the device fatal instead
 * (ORCA_FATAL_EQ_OVERFLOW), because a silently lost completion or async
 * event would hang the driver in ways far harder to diagnose.
 */
#include <endian.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "engine_priv.h"

static uint32_t eq_used(const struct emu_eq *eq)
{
	return (eq->pi - eq->ci) & EMU_EQ_DB_CI_MASK;
}

static void eq_raise(struct orca_engine *eng, struct emu_eq *eq)
{
	eq->armed = false;
	engine_irq(eng, eq->vector);
	pthread_mutex_lock(&eng->lock);
	eng->stats.irqs++;
	pthread_mutex_unlock(&eng->lock);
}

/*
 * Writes the entry; the phase byte goes last with release ordering.
 * @junk fills the subtype and reserved bytes (0 for every real event,
 * whose subtype is @subtype).
 */
static int eq_write_sub(struct orca_engine *eng, struct emu_eq *eq,
			uint8_t type, uint8_t subtype, uint32_t data,
			uint32_t data2, uint8_t junk)
{
	uint32_t slot = eq->pi & ((1u << eq->log_depth) - 1);
	uint8_t phase = ((eq->pi >> eq->log_depth) & 1) ? 0 : ORCA_EQE_PHASE;
	struct orca_eqe *e;

	e = engine_pages_entry(eng, &eq->buf, (uint64_t)slot * sizeof(*e),
			       sizeof(*e));
	if (!e)
		return -EIO;
	e->type = type;
	e->subtype = junk ? junk : subtype;
	e->rsvd0 = junk ? 0xffff : 0;
	e->data = htole32(data);
	e->data2 = htole32(data2);
	memset(e->rsvd1, junk, sizeof(e->rsvd1));
	atomic_store_explicit((_Atomic uint8_t *)&e->flags, phase,
			      memory_order_release);
	eq->pi++;
	return 0;
}

static int eq_write(struct orca_engine *eng, struct emu_eq *eq, uint8_t type,
		    uint32_t data, uint32_t data2)
{
	return eq_write_sub(eng, eq, type, 0, data, data2, 0);
}

static int eq_post_one(struct orca_engine *eng, struct emu_eq *eq,
		       uint8_t type, uint8_t subtype, uint32_t data,
		       uint32_t data2)
{
	if (eq_used(eq) >= (1u << eq->log_depth)) {
		engine_set_fatal(eng, ORCA_FATAL_EQ_OVERFLOW);
		eng_log_guest("EQ %u overflow (pi %u ci %u)", eq->eqn, eq->pi,
			eq->ci);
		if (eq->eqn != 0)
			engine_eq_post_fatal(eng, ORCA_FATAL_EQ_OVERFLOW);
		eng->eq_stopped = true;
		return -EIO;
	}
	if (eq_write_sub(eng, eq, type, subtype, data, data2, 0)) {
		engine_set_fatal(eng, ORCA_FATAL_EQ_DMA);
		eng_log_guest("EQ %u entry not mapped", eq->eqn);
		if (eq->eqn != 0)
			engine_eq_post_fatal(eng, ORCA_FATAL_EQ_DMA);
		eng->eq_stopped = true;
		return -EIO;
	}
	pthread_mutex_lock(&eng->lock);
	eng->stats.events++;
	pthread_mutex_unlock(&eng->lock);
	if (eq->armed)
		eq_raise(eng, eq);
	return 0;
}

int engine_eq_post(struct orca_engine *eng, uint32_t eqn, uint8_t type,
		   uint32_t data, uint32_t data2)
{
	return engine_eq_post_sub(eng, eqn, type, 0, data, data2);
}

int engine_eq_post_sub(struct orca_engine *eng, uint32_t eqn, uint8_t type,
		       uint8_t subtype, uint32_t data, uint32_t data2)
{
	struct emu_eq *eq;

	if (eng->eq_stopped)
		return -EIO;
	eq = objtab_get(&eng->eqs, eqn);
	if (!eq)
		return -ENOENT;
	return eq_post_one(eng, eq, type, subtype, data, data2);
}

void engine_eq_post_fatal(struct orca_engine *eng, uint32_t syndrome)
{
	struct emu_eq *eq;

	if (eng->eq_stopped)
		return;
	eq = objtab_get(&eng->eqs, 0);
	/* A full or unmapped EQ 0 cannot carry it; the register still can. */
	if (eq && eq_used(eq) < (1u << eq->log_depth) &&
	    !eq_write(eng, eq, ORCA_EQE_DEVICE_FATAL, syndrome, 0)) {
		pthread_mutex_lock(&eng->lock);
		eng->stats.events++;
		pthread_mutex_unlock(&eng->lock);
		if (eq->armed)
			eq_raise(eng, eq);
	}
	eng->eq_stopped = true;
}

/*
 * "garbage-eqe": entries a correct device never writes, each with a valid
 * phase so that the driver reads it: an unknown type, numbers outside
 * every handle space, a token no command has, a port that does not exist,
 * and junk in the reserved bytes.  EQ 0 gets the async kinds, completion
 * EQs the COMP kinds.
 */
static const struct eq_garbage {
	uint8_t type;
	uint32_t data;
	bool async;
} eq_garbage[] = {
	{ 0x7e, 0xdeadbeef, true },
	{ 0x7e, 0xdeadbeef, false },
	{ ORCA_EQE_COMP, 0xffffff, false },
	{ ORCA_EQE_COMP, 0, false },
	{ ORCA_EQE_COMP, 0xffffff, true },
	{ ORCA_EQE_CMD_DONE, 0xfffe, true },
	{ ORCA_EQE_PORT_CHANGE, 7, true },
	{ ORCA_EQE_QP_FATAL, 0xffffff, true },
	{ ORCA_EQE_QP_REQ_ERR, 0, true },
	{ ORCA_EQE_QP_LAST_WQE, 0xfffffe, true },
	{ ORCA_EQE_CQ_ERR, 0xffffff, true },
	{ ORCA_EQE_CQ_ERR, 0, true },
	{ ORCA_EQE_SRQ_LIMIT, 0xffffff, true },
	{ ORCA_EQE_SRQ_ERR, 0, true },
};

static void eq_garbage_one(uint32_t eqn, void *obj, void *arg)
{
	struct orca_engine *eng = arg;
	struct emu_eq *eq = obj;
	uint32_t depth = 1u << eq->log_depth, n = 0, posted = 0, i;

	for (i = 0; i < ARRAY_SIZE(eq_garbage); i++)
		n += eq_garbage[i].async == (eqn == 0);
	/* Leave at least half the EQ for real events. */
	if (eng->eq_stopped || eq_used(eq) + n > depth / 2)
		return;
	for (i = 0; i < ARRAY_SIZE(eq_garbage); i++) {
		if (eq_garbage[i].async != (eqn == 0))
			continue;
		if (eq_write_sub(eng, eq, eq_garbage[i].type, 0,
				  eq_garbage[i].data, 0xffffffff, 0xff))
			break;
		posted++;
	}
	pthread_mutex_lock(&eng->lock);
	eng->stats.events += posted;
	pthread_mutex_unlock(&eng->lock);
	eng_log("garbage-eqe: %u entries on EQ %u", posted, eqn);
	if (posted && eq->armed)
		eq_raise(eng, eq);
}

void engine_eq_post_garbage(struct orca_engine *eng)
{
	objtab_for_each(&eng->eqs, eq_garbage_one, eng);
}

void engine_eq_doorbell(struct orca_engine *eng, uint32_t eqn, uint32_t ci,
			bool arm)
{
	struct emu_eq *eq = objtab_get(&eng->eqs, eqn);

	if (!eq)
		return;
	/*
	 * A consumer index beyond the producer is a driver bug; keep the
	 * old one rather than believe the EQ has room it does not have.
	 */
	if (((eq->pi - ci) & EMU_EQ_DB_CI_MASK) <= (1u << eq->log_depth))
		eq->ci = ci & EMU_EQ_DB_CI_MASK;
	if (!arm)
		return;
	eq->armed = true;
	/*
	 * Entries posted after the driver's last poll would otherwise wait
	 * for the next event: interrupt now, as the driver expects.
	 */
	if (((eq->pi - eq->ci) & EMU_EQ_DB_CI_MASK) && !eng->eq_stopped)
		eq_raise(eng, eq);
}

void engine_eq_release(void *obj, void *arg)
{
	struct emu_eq *eq = obj;

	engine_pages_free(&eq->buf);
	free(eq);
}

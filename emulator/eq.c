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
#include "eq.h"

static uint32_t eq_used(const struct emu_eq *eq)
{
	return (eq->pi - eq->ci) & EMU_EQ_DB_CI_MASK;
}

static void eq_raise(struct orca_engine *eng, struct emu_eq *eq)
{
	eq->armed = false;
	eng->host.ops->irq_raise(eng->host.priv, eq->vector);
	pthread_mutex_lock(&eng->lock);
	eng->stats.irqs++;
	pthread_mutex_unlock(&eng->lock);
}

/* Writes the entry; the phase byte goes last with release ordering. */
static int eq_write(struct orca_engine *eng, struct emu_eq *eq, uint8_t type,
		    uint32_t data, uint32_t data2)
{
	uint32_t slot = eq->pi & ((1u << eq->log_depth) - 1);
	uint8_t phase = ((eq->pi >> eq->log_depth) & 1) ? 0 : ORCA_EQE_PHASE;
	struct orca_eqe *e;

	e = pages_entry(eng, &eq->buf, (uint64_t)slot * sizeof(*e),
			sizeof(*e));
	if (!e)
		return -EIO;
	e->type = type;
	e->subtype = 0;
	e->rsvd0 = 0;
	e->data = htole32(data);
	e->data2 = htole32(data2);
	memset(e->rsvd1, 0, sizeof(e->rsvd1));
	atomic_store_explicit((_Atomic uint8_t *)&e->flags, phase,
			      memory_order_release);
	eq->pi++;
	return 0;
}

static int eq_post_one(struct orca_engine *eng, struct emu_eq *eq,
		       uint8_t type, uint32_t data, uint32_t data2)
{
	if (eq_used(eq) >= (1u << eq->log_depth)) {
		engine_set_fatal(eng, ORCA_FATAL_EQ_OVERFLOW);
		eng_log("EQ %u overflow (pi %u ci %u)", eq->eqn, eq->pi,
			eq->ci);
		if (eq->eqn != 0)
			eq_post_fatal(eng, ORCA_FATAL_EQ_OVERFLOW);
		eng->eq_stopped = true;
		return -EIO;
	}
	if (eq_write(eng, eq, type, data, data2)) {
		engine_set_fatal(eng, ORCA_FATAL_EQ_DMA);
		eng_log("EQ %u entry not mapped", eq->eqn);
		if (eq->eqn != 0)
			eq_post_fatal(eng, ORCA_FATAL_EQ_DMA);
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

int eq_post(struct orca_engine *eng, uint32_t eqn, uint8_t type,
	    uint32_t data, uint32_t data2)
{
	struct emu_eq *eq;

	if (eng->eq_stopped)
		return -EIO;
	eq = objtab_get(&eng->eqs, eqn);
	if (!eq)
		return -ENOENT;
	return eq_post_one(eng, eq, type, data, data2);
}

void eq_post_fatal(struct orca_engine *eng, uint32_t syndrome)
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

void eq_doorbell(struct orca_engine *eng, uint32_t eqn, uint32_t ci,
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

void eq_release(void *obj, void *arg)
{
	struct emu_eq *eq = obj;

	pages_free(&eq->buf);
	free(eq);
}

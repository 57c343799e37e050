// SPDX-License-Identifier: GPL-2.0
/*
 * On-demand paging's fault slots (1.10, data-path.rst "On-demand paging").
 * A data path step that touches an on-demand MR page without a translation
 * takes a slot here: the slot's 64-byte record goes into the table SET_ODP
 * gave (record first), then ORCA_EQE_PAGE_FAULT on EQ 0 carries the slot's
 * token.  The driver answers with MR_INSTALL (RESUME or FAIL); a slot not
 * answered within the fault timeout fails by itself.  The slots are the
 * per-device budget: without a free one a QP waits.
 *
 * The engine core does not know the transport: a resolved, failed or
 * cancelled fault reaches the QP through the data path's odp_resume hook.
 * Everything here runs on the engine thread; next_deadline_us is also read
 * under the lock by work_pending() and engine_wait().
 */
#include <endian.h>
#include <errno.h>
#include <string.h>

#include "engine_priv.h"
#include "util/clock.h"

static void set_next_deadline(struct emu_odp *o)
{
	uint64_t next = 0;

	for (uint32_t i = 0; i < o->max_faults; i++)
		if (o->slot[i].busy &&
		    (!next || o->slot[i].deadline_us < next))
			next = o->slot[i].deadline_us;
	atomic_store_explicit(&o->next_deadline_us, next,
			      memory_order_relaxed);
}

static uint32_t timeout_ms(struct emu_odp *o)
{
	uint32_t ms = atomic_load_explicit(&o->timeout_override_ms,
					   memory_order_relaxed);

	return ms ? ms : o->timeout_ms;
}

static uint32_t slot_token(const struct emu_odp_slot *s, uint32_t i)
{
	return FIELD_PREP(ORCA_PF_TOKEN_SLOT, i) |
	       FIELD_PREP(ORCA_PF_TOKEN_GEN, s->gen);
}

int64_t engine_odp_post(struct orca_engine *eng, struct orca_page_fault *rec)
{
	struct emu_odp *o = &eng->odp;
	struct emu_odp_slot *s = NULL;
	uint32_t i, token, left;
	void *dst;

	if (!o->table)
		return -ENODEV;
	for (i = 0; i < o->max_faults; i++) {
		if (!o->slot[i].busy) {
			s = &o->slot[i];
			break;
		}
	}
	if (!s)
		return 0;
	s->gen = s->gen == 0xffff ? 1 : s->gen + 1;
	token = slot_token(s, i);
	rec->token = htole32(token);
	s->busy = true;
	s->kind = rec->kind;
	s->qpn = le32toh(rec->qpn);
	s->mr_index = FIELD_GET(ORCA_MKEY_INDEX, le32toh(rec->mkey));
	s->deadline_us = now_us() + 1000ull * timeout_ms(o);
	o->outstanding++;
	o->faults++;
	set_next_deadline(o);
	/* "odp-drop-faults": the slot is held, nobody hears of it. */
	left = atomic_load(&o->drop_faults);
	while (left && !atomic_compare_exchange_weak(&o->drop_faults, &left,
						     left - 1))
		;
	if (left) {
		eng_log("odp: fault %#x of QP %u held without a record (%u more)",
			token, s->qpn, left - 1);
		return token;
	}
	/* The record first: the event says it is there (event-queues.rst). */
	dst = engine_dma(eng, o->table + 64ull * i, sizeof(*rec));
	if (!dst) {
		eng_log_guest("odp: fault table slot %u not mapped", i);
		s->busy = false;
		o->outstanding--;
		set_next_deadline(o);
		return -EFAULT;
	}
	memcpy(dst, rec, sizeof(*rec));
	atomic_thread_fence(memory_order_release);
	if (engine_eq_post_sub(eng, 0, ORCA_EQE_PAGE_FAULT, rec->kind, token,
			       s->qpn)) {
		/* EQ 0 is gone or the device fatal: no driver will answer. */
		s->busy = false;
		o->outstanding--;
		set_next_deadline(o);
		return -EIO;
	}
	return token;
}

/* Frees slot @i; the QP learns of it through the data path if @resume. */
static void slot_end(struct orca_engine *eng, uint32_t i, bool resume,
		     bool fail)
{
	struct emu_odp *o = &eng->odp;
	struct emu_odp_slot *s = &o->slot[i];
	uint32_t qpn = s->qpn;
	uint8_t kind = s->kind;

	s->busy = false;
	o->outstanding--;
	set_next_deadline(o);
	if (resume)
		eng->work->data_path->odp_resume(eng, qpn, kind, fail);
	/* A slot came free: a QP that found none may post now. */
	eng->work->data_path->odp_resume(eng, 0, 0, false);
}

bool engine_odp_resolve(struct orca_engine *eng, uint32_t token, bool fail)
{
	struct emu_odp *o = &eng->odp;
	uint32_t i = FIELD_GET(ORCA_PF_TOKEN_SLOT, token);

	if (i >= o->max_faults || !o->slot[i].busy ||
	    o->slot[i].gen != FIELD_GET(ORCA_PF_TOKEN_GEN, token)) {
		o->stale_resumes++;
		return false;
	}
	slot_end(eng, i, true, fail);
	return true;
}

void engine_odp_cancel_qp(struct orca_engine *eng, uint32_t qpn)
{
	struct emu_odp *o = &eng->odp;

	for (uint32_t i = 0; i < o->max_faults; i++)
		if (o->slot[i].busy && o->slot[i].qpn == qpn)
			slot_end(eng, i, false, false);
}

/*
 * DESTROY_MR: the QPs waiting on the MR go on, and find no MR: their step
 * fails as any access through a bad key does.
 */
void engine_odp_cancel_mr(struct orca_engine *eng, uint32_t mr_index)
{
	struct emu_odp *o = &eng->odp;

	for (uint32_t i = 0; i < o->max_faults; i++)
		if (o->slot[i].busy && o->slot[i].mr_index == mr_index)
			slot_end(eng, i, true, false);
}

void engine_odp_expire(struct orca_engine *eng, uint64_t now)
{
	struct emu_odp *o = &eng->odp;

	for (uint32_t i = 0; i < o->max_faults; i++) {
		if (!o->slot[i].busy || o->slot[i].deadline_us > now)
			continue;
		o->timeouts++;
		eng_log_guest("odp: fault of QP %u not resolved in %u ms",
			      o->slot[i].qpn, timeout_ms(o));
		slot_end(eng, i, true, true);
	}
}

/* A reset: no table, no slot, no knob (the QPs and MRs are gone too). */
void engine_odp_reset(struct orca_engine *eng)
{
	struct emu_odp *o = &eng->odp;

	if (o->charged)
		engine_mem_uncharge(&eng->mem, o->charged);
	o->table = 0;
	o->max_faults = 0;
	o->outstanding = 0;
	o->timeout_ms = 0;
	o->on_demand_mrs = 0;
	o->charged = 0;
	atomic_store(&o->next_deadline_us, 0);
	atomic_store(&o->drop_faults, 0);
	atomic_store(&o->timeout_override_ms, 0);
	memset(o->slot, 0, sizeof(o->slot));
}

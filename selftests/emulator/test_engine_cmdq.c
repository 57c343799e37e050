// SPDX-License-Identifier: GPL-2.0
/*
 * Engine command queue: completions and their phase across ring wraps,
 * tokens, batching, BAD_OPCODE, CMD_DONE events and interrupt arming, EQ
 * overflow, and the fatal errors of a command ring the device cannot reach.
 */
#include "engine_harness.h"

static void test_nop_completes_with_token(void)
{
	struct th t;

	th_init(&t);
	CHECK(th_boot(&t, 3));
	CHECK(th_cmd(&t, ORCA_CMD_NOP, NULL, 0) == ORCA_CMD_ST_OK);
	CHECK(le16toh(t.last.token) == t.token);
	CHECK(le32toh(t.last.syndrome) == 0);
	th_fini(&t);
	ktap_case_end("nop_completes_with_token");
}

static void test_bad_opcode(void)
{
	static const uint16_t ops[] = { 0x09, 0x12, ORCA_CMD_MAX, 0x100,
					0xffff };
	struct th t;
	unsigned int i;

	th_init(&t);
	CHECK(th_boot(&t, 3));
	for (i = 0; i < ARRAY_SIZE_T(ops); i++) {
		CHECK(th_cmd(&t, ops[i], NULL, 0) == ORCA_CMD_ST_BAD_OPCODE);
		CHECK(le32toh(t.last.syndrome) != 0);
	}
	/* The queue goes on after failures. */
	CHECK(th_cmd(&t, ORCA_CMD_NOP, NULL, 0) == ORCA_CMD_ST_OK);
	th_fini(&t);
	ktap_case_end("bad_opcode");
}

static void test_phase_wraps(void)
{
	struct th t;
	int i, ok = 0;

	th_init(&t);
	CHECK(th_boot(&t, 2));	/* 4 slots */
	/* One at a time: 5 passes over the ring, phase 1,0,1,0,1. */
	for (i = 0; i < 20; i++)
		ok += th_cmd(&t, ORCA_CMD_NOP, NULL, 0) == ORCA_CMD_ST_OK;
	CHECK(ok == 20);
	/* Slot 0 was last written by command 16, pass 5: phase 1 again. */
	CHECK(((struct orca_cmd_comp *)gptr(&t, t.comp))->flags == 1);
	CHECK(((struct orca_cmd_comp *)gptr(&t, t.comp))->token ==
	      htole16(t.token - 3));
	th_fini(&t);
	ktap_case_end("phase_wraps_one_at_a_time");
}

static void test_batches_fill_the_ring(void)
{
	uint16_t tok[4];
	struct th t;
	int round, i;

	th_init(&t);
	CHECK(th_boot(&t, 2));
	for (round = 0; round < 6; round++) {
		uint16_t first = t.pi;

		for (i = 0; i < 4; i++)
			tok[i] = th_post(&t, &(struct tcmd){
				.opcode = i == 2 ? 0x7f : ORCA_CMD_NOP });
		th_ring(&t);
		engine_flush(t.eng);
		for (i = 0; i < 4; i++) {
			CHECK(th_completed(&t, first + i, tok[i]));
			CHECK(t.last.status == (i == 2 ?
				ORCA_CMD_ST_BAD_OPCODE : ORCA_CMD_ST_OK));
		}
	}
	th_fini(&t);
	ktap_case_end("batches_fill_the_ring");
}

static void test_doorbell_past_ring_ignored(void)
{
	struct th t;
	uint16_t tok;

	th_init(&t);
	CHECK(th_boot(&t, 2));
	/* pi = 5 with 4 slots: impossible, ignored; nothing runs. */
	wr(&t, ORCA_REG_CMDQ_DB, 5);
	engine_flush(t.eng);
	tok = th_post(&t, &(struct tcmd){ .opcode = ORCA_CMD_NOP });
	th_ring(&t);
	engine_flush(t.eng);
	CHECK(th_completed(&t, 0, tok));
	CHECK(!(rd(&t, ORCA_REG_DEV_STATUS) & ORCA_STATUS_FATAL));
	th_fini(&t);
	ktap_case_end("doorbell_past_ring_ignored");
}

static void test_cmd_done_event_and_arming(void)
{
	struct tcmd ev = { .opcode = ORCA_CMD_NOP, .flags = ORCA_CMD_F_EVENT };
	struct orca_eqe e;
	struct th t;
	int st;

	th_init(&t);
	CHECK(th_boot(&t, 3));
	/* No EQ 0 yet: the flag is ignored, the completion still comes. */
	CHECK(th_exec(&t, &ev) == ORCA_CMD_ST_OK);
	CHECK(th_create_eq0(&t, 3));

	/* Not armed: event written, no interrupt. */
	CHECK(th_exec(&t, &ev) == ORCA_CMD_ST_OK);
	CHECK(th_eq0_next(&t, &e));
	CHECK(e.type == ORCA_EQE_CMD_DONE);
	CHECK(le32toh(e.data) == t.token);
	CHECK(th_irqs(&t, 0) == 0);

	/* Armed with everything consumed: the next event interrupts once. */
	th_eq_db(&t, 0, t.eq0_ci, true);
	CHECK(th_irqs(&t, 0) == 0);
	CHECK(th_exec(&t, &ev) == ORCA_CMD_ST_OK);
	CHECK(th_irqs(&t, 0) == 1);
	st = th_exec(&t, &ev);
	CHECK(st == ORCA_CMD_ST_OK);
	CHECK(th_irqs(&t, 0) == 1);		/* disarmed by the first */
	CHECK(th_eq0_next(&t, &e) && e.type == ORCA_EQE_CMD_DONE);
	CHECK(th_eq0_next(&t, &e) && le32toh(e.data) == t.token);
	CHECK(!th_eq0_next(&t, &e));

	/* A command without the flag posts nothing. */
	CHECK(th_cmd(&t, ORCA_CMD_NOP, NULL, 0) == ORCA_CMD_ST_OK);
	CHECK(!th_eq0_next(&t, &e));

	/* Arming while entries are unconsumed interrupts at once. */
	CHECK(th_exec(&t, &ev) == ORCA_CMD_ST_OK);
	th_eq_db(&t, 0, t.eq0_ci, true);
	CHECK(th_irqs(&t, 0) == 2);
	CHECK(th_eq0_next(&t, &e));
	th_fini(&t);
	ktap_case_end("cmd_done_event_and_arming");
}

static void test_eq_phase_wraps(void)
{
	struct tcmd ev = { .opcode = ORCA_CMD_NOP, .flags = ORCA_CMD_F_EVENT };
	struct orca_eqe e;
	struct th t;
	int i, seen = 0;

	th_init(&t);
	CHECK(th_boot(&t, 3));
	CHECK(th_create_eq0(&t, 2));	/* 4 entries */
	for (i = 0; i < 14; i++) {
		CHECK(th_exec(&t, &ev) == ORCA_CMD_ST_OK);
		if (th_eq0_next(&t, &e) && le32toh(e.data) == t.token)
			seen++;
		th_eq_db(&t, 0, t.eq0_ci, false);
	}
	CHECK(seen == 14);
	CHECK(!(rd(&t, ORCA_REG_DEV_STATUS) & ORCA_STATUS_FATAL));
	th_fini(&t);
	ktap_case_end("eq_phase_wraps");
}

static void test_eq_overflow_is_fatal(void)
{
	struct tcmd ev = { .opcode = ORCA_CMD_NOP, .flags = ORCA_CMD_F_EVENT };
	struct orca_eqe e;
	struct th t;

	th_init(&t);
	CHECK(th_boot(&t, 3));
	CHECK(th_create_eq0(&t, 1));	/* 2 entries */
	CHECK(th_exec(&t, &ev) == ORCA_CMD_ST_OK);
	CHECK(th_exec(&t, &ev) == ORCA_CMD_ST_OK);
	CHECK(!(rd(&t, ORCA_REG_DEV_STATUS) & ORCA_STATUS_FATAL));
	/* Third event, nothing consumed: fatal rather than overwrite. */
	CHECK(th_exec(&t, &ev) == ORCA_CMD_ST_OK);
	CHECK(rd(&t, ORCA_REG_DEV_STATUS) & ORCA_STATUS_FATAL);
	CHECK(rd(&t, ORCA_REG_FATAL_SYNDROME) == ORCA_FATAL_EQ_OVERFLOW);
	/* The two entries are intact, the first still the first token. */
	CHECK(th_eq0_next(&t, &e) && le32toh(e.data) == 2);
	CHECK(th_eq0_next(&t, &e) && le32toh(e.data) == 3);
	CHECK(!th_eq0_next(&t, &e));
	/* The queue is stopped. */
	CHECK(th_exec(&t, &ev) == -1);
	th_fini(&t);
	ktap_case_end("eq_overflow_is_fatal");
}

static void test_eq_doorbell_bogus_ci_ignored(void)
{
	struct tcmd ev = { .opcode = ORCA_CMD_NOP, .flags = ORCA_CMD_F_EVENT };
	struct th t;

	th_init(&t);
	CHECK(th_boot(&t, 3));
	CHECK(th_create_eq0(&t, 1));
	CHECK(th_exec(&t, &ev) == ORCA_CMD_ST_OK);
	CHECK(th_exec(&t, &ev) == ORCA_CMD_ST_OK);
	/* A ci far ahead of pi would "free" room that is not free. */
	th_eq_db(&t, 0, 1000, false);
	th_eq_db(&t, 63, 0, true);	/* no such EQ */
	CHECK(th_exec(&t, &ev) == ORCA_CMD_ST_OK);
	CHECK(rd(&t, ORCA_REG_FATAL_SYNDROME) == ORCA_FATAL_EQ_OVERFLOW);
	th_fini(&t);
	ktap_case_end("eq_doorbell_bogus_ci_ignored");
}

static void test_unmapped_ring_is_fatal(void)
{
	struct orca_eqe e;
	struct th t;
	uint16_t tok;

	th_init(&t);
	CHECK(th_boot(&t, 3));
	CHECK(th_create_eq0(&t, 3));
	th_eq_db(&t, 0, 0, true);
	/* Re-point the command ring outside guest memory. */
	wr(&t, ORCA_REG_DEV_CTRL, 0);
	CHECK(th_boot_at(&t, 3, UNMAPPED, t.comp));
	tok = th_post(&t, &(struct tcmd){ .opcode = ORCA_CMD_NOP });
	(void)tok;
	th_ring(&t);
	engine_flush(t.eng);
	CHECK(rd(&t, ORCA_REG_DEV_STATUS) & ORCA_STATUS_FATAL);
	CHECK(!(rd(&t, ORCA_REG_DEV_STATUS) & ORCA_STATUS_CMDQ_ENABLED));
	CHECK(rd(&t, ORCA_REG_FATAL_SYNDROME) == ORCA_FATAL_CMDQ_DMA);
	CHECK(th_eq0_next(&t, &e));
	CHECK(e.type == ORCA_EQE_DEVICE_FATAL &&
	      le32toh(e.data) == ORCA_FATAL_CMDQ_DMA);
	CHECK(th_irqs(&t, 0) == 1);
	th_fini(&t);
	ktap_case_end("unmapped_cmd_ring_is_fatal");
}

static void test_unmapped_completion_ring_is_fatal(void)
{
	uint64_t ring;
	struct th t;

	th_init(&t);
	ring = galloc(&t, 4096, 0);
	/* The ring is fine, the completion ring is not mapped. */
	CHECK(th_boot_at(&t, 3, ring, UNMAPPED));
	th_post(&t, &(struct tcmd){ .opcode = ORCA_CMD_NOP });
	th_ring(&t);
	engine_flush(t.eng);
	CHECK(rd(&t, ORCA_REG_FATAL_SYNDROME) == ORCA_FATAL_CMDQ_DMA);
	/* A reset recovers the device. */
	engine_reset(t.eng);
	CHECK(th_boot(&t, 3));
	CHECK(th_cmd(&t, ORCA_CMD_NOP, NULL, 0) == ORCA_CMD_ST_OK);
	th_fini(&t);
	ktap_case_end("unmapped_completion_ring_is_fatal");
}

static void test_ring_end_of_ram(void)
{
	struct th t;
	int i, ok = 0;

	th_init(&t);
	/* The ring's last slot straddles the end of guest RAM. */
	CHECK(th_boot_at(&t, 3, GUEST_BASE + GUEST_SIZE - 7 * 128 - 64,
			 galloc(&t, 4096, 0)));
	for (i = 0; i < 7; i++)
		ok += th_cmd(&t, ORCA_CMD_NOP, NULL, 0) == ORCA_CMD_ST_OK;
	CHECK(ok == 7);
	CHECK(!(rd(&t, ORCA_REG_DEV_STATUS) & ORCA_STATUS_FATAL));
	CHECK(th_cmd(&t, ORCA_CMD_NOP, NULL, 0) == -1);
	CHECK(rd(&t, ORCA_REG_FATAL_SYNDROME) == ORCA_FATAL_CMDQ_DMA);
	th_fini(&t);
	ktap_case_end("ring_slots_checked_individually");
}

int main(void)
{
	ktap_plan(12);
	test_nop_completes_with_token();
	test_bad_opcode();
	test_phase_wraps();
	test_batches_fill_the_ring();
	test_doorbell_past_ring_ignored();
	test_cmd_done_event_and_arming();
	test_eq_phase_wraps();
	test_eq_overflow_is_fatal();
	test_eq_doorbell_bogus_ci_ignored();
	test_unmapped_ring_is_fatal();
	test_unmapped_completion_ring_is_fatal();
	test_ring_end_of_ram();
	return ktap_finish();
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Engine register file and lifecycle: power-on values, heartbeat, command
 * queue enable rules, function reset (also while commands are in flight),
 * fault injection (hang/resume/fatal) and link changes.
 */
#include "engine_harness.h"

static void test_power_on_registers(void)
{
	struct th t;

	th_init(&t);
	CHECK(rd(&t, ORCA_REG_MAGIC) == ORCA_MAGIC);
	CHECK(rd(&t, ORCA_REG_IF_VERSION) == 0x0001000a);
	CHECK(rd(&t, ORCA_REG_FW_VERSION) == 0x010a0000);
	CHECK(rd(&t, ORCA_REG_DEV_STATUS) == ORCA_STATUS_READY);
	CHECK(rd(&t, ORCA_REG_FATAL_SYNDROME) == ORCA_FATAL_NONE);
	CHECK(FIELD_GET(ORCA_CAPS_NUM_MSIX, rd(&t, ORCA_REG_CAPS)) ==
	      TEST_MSIX);
	CHECK(FIELD_GET(ORCA_CAPS_LOG_MAX_CMDQ, rd(&t, ORCA_REG_CAPS)) == 8);
	CHECK(rd(&t, ORCA_REG_CMD_TIMEOUT_MS) == 5000);
	CHECK(rd(&t, ORCA_REG_RESET_TIMEOUT_MS) == 2000);
	CHECK(rd(&t, ORCA_REG_PORT_MAC_LO) == 0xaa000002);
	CHECK(rd(&t, ORCA_REG_PORT_MAC_HI) == 0xccbb);
	CHECK(rd(&t, ORCA_REG_DEV_CTRL) == 0);
	/* Unknown offsets read 0 and ignore writes; RO registers too. */
	CHECK(rd(&t, 0x044) == 0);
	CHECK(rd(&t, 0xffc) == 0);
	wr(&t, 0x800, 0x12345678);
	CHECK(rd(&t, 0x800) == 0);
	wr(&t, ORCA_REG_MAGIC, 0);
	wr(&t, ORCA_REG_DEV_STATUS, 0);
	CHECK(rd(&t, ORCA_REG_MAGIC) == ORCA_MAGIC);
	CHECK(rd(&t, ORCA_REG_DEV_STATUS) == ORCA_STATUS_READY);
	/* Write-only doorbells read 0. */
	CHECK(rd(&t, ORCA_REG_CMDQ_DB) == 0);
	CHECK(rd(&t, ORCA_REG_EQ_DB) == 0);
	th_fini(&t);
	ktap_case_end("power_on_registers");
}

static void test_heartbeat_advances(void)
{
	struct th t;
	uint32_t a, b;

	th_init(&t);
	a = rd(&t, ORCA_REG_HEARTBEAT);
	th_sleep_ms(350);
	b = rd(&t, ORCA_REG_HEARTBEAT);
	/* 100 ms per tick; generous above, the machine may be loaded. */
	CHECK(b - a >= 2 && b - a <= 50);
	th_fini(&t);
	ktap_case_end("heartbeat_advances");
}

static void test_cmdq_enable_rules(void)
{
	uint64_t ring, comp;
	struct th t;

	th_init(&t);
	ring = galloc(&t, 8192, 0);
	comp = galloc(&t, 8192, 0);
	/* Zero base, misaligned base, depth 0 or 9: the enable does not take. */
	CHECK(!th_boot_at(&t, 4, 0, comp));
	CHECK(!th_boot_at(&t, 4, ring, 0));
	CHECK(!th_boot_at(&t, 4, ring + 32, comp));
	CHECK(!th_boot_at(&t, 4, ring, comp + 8));
	CHECK(!th_boot_at(&t, 0, ring, comp));
	CHECK(!th_boot_at(&t, 9, ring, comp));
	CHECK(rd(&t, ORCA_REG_DEV_STATUS) == ORCA_STATUS_READY);
	/* 64-byte alignment is enough; depth 8 is the maximum. */
	CHECK(th_boot_at(&t, 8, ring + 64, comp + 64));
	CHECK(rd(&t, ORCA_REG_DEV_CTRL) == ORCA_CTRL_CMDQ_ENABLE);
	CHECK(rd(&t, ORCA_REG_CMDQ_BASE_LO) == (uint32_t)(ring + 64));
	CHECK(rd(&t, ORCA_REG_CMDQ_BASE_HI) == (uint32_t)((ring + 64) >> 32));
	CHECK(rd(&t, ORCA_REG_CMDQ_CFG) == 8);
	/* Configuration is frozen while enabled. */
	wr(&t, ORCA_REG_CMDQ_BASE_LO, 0x1000);
	wr(&t, ORCA_REG_CMDQ_CFG, 3);
	CHECK(rd(&t, ORCA_REG_CMDQ_BASE_LO) == (uint32_t)(ring + 64));
	CHECK(rd(&t, ORCA_REG_CMDQ_CFG) == 8);
	CHECK(th_cmd(&t, ORCA_CMD_NOP, NULL, 0) == ORCA_CMD_ST_OK);
	/* Disable, then the queue no longer runs commands. */
	wr(&t, ORCA_REG_DEV_CTRL, 0);
	CHECK(!(rd(&t, ORCA_REG_DEV_STATUS) & ORCA_STATUS_CMDQ_ENABLED));
	CHECK(th_cmd(&t, ORCA_CMD_NOP, NULL, 0) == -1);
	th_fini(&t);
	ktap_case_end("cmdq_enable_rules");
}

static void test_reset_frees_objects(void)
{
	struct th t;
	int64_t pdn;

	th_init(&t);
	CHECK(th_boot(&t, 4));
	pdn = th_create_pd(&t);
	CHECK(pdn == 1);
	CHECK(th_create_pd(&t) == 2);
	CHECK(th_set_gid(&t, 0, ORCA_GID_TYPE_ROCE_V2) == 0);

	wr(&t, ORCA_REG_DEV_CTRL, ORCA_CTRL_RESET);
	engine_flush(t.eng);
	CHECK(rd(&t, ORCA_REG_DEV_STATUS) == ORCA_STATUS_READY);
	CHECK(rd(&t, ORCA_REG_CMDQ_BASE_LO) == 0);
	CHECK(rd(&t, ORCA_REG_CMDQ_CFG) == 0);
	/* The old ring is dead: doorbells are ignored until re-enabled. */
	CHECK(th_cmd(&t, ORCA_CMD_NOP, NULL, 0) == -1);

	CHECK(th_boot(&t, 4));
	CHECK(th_destroy(&t, ORCA_CMD_DESTROY_PD, 2) ==
	      ORCA_CMD_ST_BAD_HANDLE);
	CHECK(th_create_pd(&t) == 1);
	th_fini(&t);
	ktap_case_end("reset_frees_objects");
}

static void test_engine_reset_api(void)
{
	struct th t;

	th_init(&t);
	CHECK(th_boot(&t, 4));
	CHECK(th_alloc_uar(&t) == 0);
	engine_inject(t.eng, "fatal");
	engine_flush(t.eng);
	CHECK(rd(&t, ORCA_REG_DEV_STATUS) & ORCA_STATUS_FATAL);
	engine_reset(t.eng);
	CHECK(rd(&t, ORCA_REG_DEV_STATUS) == ORCA_STATUS_READY);
	CHECK(rd(&t, ORCA_REG_FATAL_SYNDROME) == ORCA_FATAL_NONE);
	CHECK(th_boot(&t, 4));
	CHECK(th_alloc_uar(&t) == 0);
	th_fini(&t);
	ktap_case_end("engine_reset_clears_fatal_and_objects");
}

struct churn {
	struct th *t;
	atomic_bool stop;
	unsigned int done;
};

/*
 * A "driver" that keeps creating objects with commands.  It never waits
 * for completions, so it races the resets freely.
 */
static void *churn_thread(void *arg)
{
	struct churn *ch = arg;
	struct th *t = ch->t;
	uint64_t list = galloc(t, 4096, 0);
	uint64_t page = galloc(t, 8192, 0);
	uint64_t db = galloc(t, 4096, 0);
	uint64_t *l = gptr(t, list);

	l[0] = htole64(page);
	l[1] = htole64(page + 4096);
	while (!atomic_load(&ch->stop)) {
		struct orca_cmd_create_mr mr = {
			.pdn = htole32(1), .page_shift = 12, .key = 7,
			.iova = htole64(0x1000), .length = htole64(8192),
			.npages = htole32(2),
		};
		struct orca_cmd_create_cq cq = {
			.log_depth = 4, .page_shift = 12, .eqn = 0,
			.npages = htole32(1), .page_addr = htole64(page),
			.db_rec_addr = htole64(db), .uar = 0,
		};
		struct tcmd cmds[] = {
			{ .opcode = ORCA_CMD_CREATE_PD },
			{ .opcode = ORCA_CMD_ALLOC_UAR },
			{ .opcode = ORCA_CMD_CREATE_MR, .in = &mr,
			  .in_size = sizeof(mr), .in_addr = list,
			  .in_len = 16 },
			{ .opcode = ORCA_CMD_CREATE_CQ, .in = &cq,
			  .in_size = sizeof(cq) },
		};
		unsigned int i;

		for (i = 0; i < 4; i++)
			th_post(t, &cmds[i]);
		th_ring(t);
		ch->done++;
	}
	return NULL;
}

static void test_reset_during_activity(void)
{
	struct churn ch = { 0 };
	pthread_t thr;
	struct th t;
	int i;

	th_init(&t);
	CHECK(th_boot(&t, 4));
	CHECK(th_create_eq0(&t, 4));
	ch.t = &t;
	pthread_create(&thr, NULL, churn_thread, &ch);
	for (i = 0; i < 40; i++) {
		th_sleep_ms(2);
		if (i & 1) {
			engine_reset(t.eng);
		} else {
			wr(&t, ORCA_REG_DEV_CTRL, ORCA_CTRL_RESET);
			engine_flush(t.eng);
		}
		CHECK(rd(&t, ORCA_REG_DEV_STATUS) == ORCA_STATUS_READY);
		/*
		 * Re-enable the same rings with the churn still running;
		 * the driver thread's pi and ours race, which is the point.
		 */
		wr(&t, ORCA_REG_CMDQ_BASE_LO, (uint32_t)t.cmdq);
		wr(&t, ORCA_REG_CMDQ_BASE_HI, (uint32_t)(t.cmdq >> 32));
		wr(&t, ORCA_REG_CMDQ_COMP_BASE_LO, (uint32_t)t.comp);
		wr(&t, ORCA_REG_CMDQ_COMP_BASE_HI, (uint32_t)(t.comp >> 32));
		wr(&t, ORCA_REG_CMDQ_CFG, 4);
		wr(&t, ORCA_REG_DEV_CTRL, ORCA_CTRL_CMDQ_ENABLE);
	}
	atomic_store(&ch.stop, true);
	pthread_join(thr, NULL);
	CHECK(ch.done > 0);
	/* Still a working device after all that. */
	engine_reset(t.eng);
	t.pi = 0;
	CHECK(th_boot(&t, 4));
	CHECK(th_cmd(&t, ORCA_CMD_NOP, NULL, 0) == ORCA_CMD_ST_OK);
	th_fini(&t);	/* ASan's leak check runs at exit */
	ktap_case_end("reset_during_activity");
}

static void test_hang_and_resume(void)
{
	uint32_t hb1, hb2;
	struct th t;
	uint16_t tok;

	th_init(&t);
	CHECK(th_boot(&t, 4));
	CHECK(engine_inject(t.eng, "hang") == 0);
	hb1 = rd(&t, ORCA_REG_HEARTBEAT);
	tok = th_post(&t, &(struct tcmd){ .opcode = ORCA_CMD_NOP });
	th_ring(&t);
	engine_flush(t.eng);
	th_sleep_ms(300);
	hb2 = rd(&t, ORCA_REG_HEARTBEAT);
	CHECK(hb1 == hb2);
	CHECK(!th_completed(&t, 0, tok));
	CHECK(rd(&t, ORCA_REG_DEV_STATUS) ==
	      (ORCA_STATUS_READY | ORCA_STATUS_CMDQ_ENABLED));

	CHECK(engine_inject(t.eng, "resume") == 0);
	/* Resumed from the frozen value, not jumped by the hang's length. */
	CHECK(rd(&t, ORCA_REG_HEARTBEAT) - hb2 <= 1);
	engine_flush(t.eng);
	CHECK(th_completed(&t, 0, tok));
	th_sleep_ms(250);
	CHECK(rd(&t, ORCA_REG_HEARTBEAT) - hb2 >= 2);
	CHECK(engine_inject(t.eng, "bogus") == -EINVAL);
	th_fini(&t);
	ktap_case_end("hang_and_resume");
}

static void test_inject_fatal(void)
{
	struct orca_eqe e;
	struct th t;

	th_init(&t);
	CHECK(th_boot(&t, 4));
	CHECK(th_create_eq0(&t, 4));
	th_eq_db(&t, 0, 0, true);
	CHECK(engine_inject(t.eng, "fatal") == 0);
	engine_flush(t.eng);
	CHECK(rd(&t, ORCA_REG_DEV_STATUS) & ORCA_STATUS_FATAL);
	CHECK(!(rd(&t, ORCA_REG_DEV_STATUS) & ORCA_STATUS_CMDQ_ENABLED));
	CHECK(rd(&t, ORCA_REG_FATAL_SYNDROME) == ORCA_FATAL_INTERNAL);
	CHECK(th_eq0_next(&t, &e));
	CHECK(e.type == ORCA_EQE_DEVICE_FATAL);
	CHECK(le32toh(e.data) == ORCA_FATAL_INTERNAL);
	CHECK(th_irqs(&t, 0) == 1);
	/* A fatal device executes nothing. */
	CHECK(th_cmd(&t, ORCA_CMD_NOP, NULL, 0) == -1);
	/* And cannot re-enable its queue before a reset. */
	CHECK(!th_boot(&t, 4));
	th_fini(&t);
	ktap_case_end("inject_fatal");
}

static void test_link_change_event(void)
{
	struct orca_cmd_query_port q = { .port = 1 };
	struct orca_port_attr *pa;
	struct orca_eqe e;
	uint64_t out;
	struct th t;
	struct tcmd c = {
		.opcode = ORCA_CMD_QUERY_PORT, .in = &q, .in_size = sizeof(q),
		.out_len = sizeof(*pa),
	};

	th_init(&t);
	CHECK(th_boot(&t, 4));
	CHECK(th_create_eq0(&t, 4));
	out = galloc(&t, 4096, 0);
	c.out_addr = out;
	pa = gptr(&t, out);
	engine_set_link(t.eng, false);
	engine_flush(t.eng);
	CHECK(th_eq0_next(&t, &e));
	CHECK(e.type == ORCA_EQE_PORT_CHANGE && le32toh(e.data) == 1);
	CHECK(th_exec(&t, &c) == ORCA_CMD_ST_OK);
	CHECK(pa->state == ORCA_PORT_STATE_DOWN);
	/* Same state again: no event. */
	engine_set_link(t.eng, false);
	engine_flush(t.eng);
	CHECK(!th_eq0_next(&t, &e));
	engine_set_link(t.eng, true);
	engine_flush(t.eng);
	CHECK(th_eq0_next(&t, &e));
	CHECK(e.type == ORCA_EQE_PORT_CHANGE);
	CHECK(th_exec(&t, &c) == ORCA_CMD_ST_OK);
	CHECK(pa->state == ORCA_PORT_STATE_ACTIVE);
	/* Not armed: no interrupt for either. */
	CHECK(th_irqs(&t, 0) == 0);
	th_fini(&t);
	ktap_case_end("link_change_event");
}

static void test_uar_writes(void)
{
	struct th t;

	th_init(&t);
	/* No data path yet: writes, even bogus ones, are harmless. */
	engine_uar_write(t.eng, 0, ORCA_UAR_SQ_DB, 2);
	engine_uar_write(t.eng, 255, ORCA_UAR_CQ_DB, 1);
	engine_uar_write(t.eng, 256, 0, 1);
	engine_uar_write(t.eng, 0, 0x1000, 1);
	engine_flush(t.eng);
	CHECK(rd(&t, ORCA_REG_DEV_STATUS) == ORCA_STATUS_READY);
	th_fini(&t);
	ktap_case_end("uar_writes_harmless");
}

int main(void)
{
	ktap_plan(10);
	test_power_on_registers();
	test_heartbeat_advances();
	test_cmdq_enable_rules();
	test_reset_frees_objects();
	test_engine_reset_api();
	test_reset_during_activity();
	test_hang_and_resume();
	test_inject_fatal();
	test_link_change_event();
	test_uar_writes();
	return ktap_finish();
}

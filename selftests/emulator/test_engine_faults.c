// SPDX-License-Identifier: GPL-2.0
/*
 * The emulator's fault controls that guest tests drive through the control
 * file ("slow MS", "heartbeat-stop", "garbage-eqe", "garbage-cqe",
 * "wrid-lie", "fail-destroy") and the bus-master DMA fence with its "late DMA" count: what
 * a driver that gives up on an adapter must see, and what it must not (DMA
 * after it fenced).
 */
#include "util/clock.h"
#include "engine_harness.h"

/* Polls for command @n's completion for up to @ms; true if it came. */
static bool wait_completed(struct th *t, uint16_t n, uint16_t token,
			   unsigned int ms)
{
	uint64_t end = now_ms() + ms;

	do {
		if (th_completed(t, n, token))
			return true;
		th_sleep_ms(2);
	} while (now_ms() < end);
	return false;
}

static struct engine_dma_fence fence(struct th *t)
{
	struct engine_dma_fence f;

	engine_dma_fence(t->eng, &f);
	return f;
}

static bool all_zero(const void *p, size_t len)
{
	const uint8_t *b = p;
	size_t i;

	for (i = 0; i < len; i++)
		if (b[i])
			return false;
	return true;
}

/*
 * "slow MS": commands complete one after another, each MS after the
 * previous, while registers answer at once and events still flow.
 */
static void test_slow_commands(void)
{
	uint64_t t0, t1, worst = 0;
	struct orca_eqe e;
	uint16_t tok[3], n;
	struct th t;
	bool done;
	int i;

	th_init(&t);
	CHECK(th_boot(&t, 4));
	CHECK(th_create_eq0(&t, 4));
	CHECK(engine_inject(t.eng, "slow x") == -EINVAL);
	CHECK(engine_inject(t.eng, "slow ") == -EINVAL);
	CHECK(engine_inject(t.eng, "slow 9999999") == -EINVAL);
	CHECK(engine_inject(t.eng, "slow 200") == 0);
	n = t.pi;
	for (i = 0; i < 3; i++)
		tok[i] = th_post(&t, &(struct tcmd){ .opcode = ORCA_CMD_NOP });
	t0 = now_ms();
	th_ring(&t);
	/* Register reads never wait behind a held command. */
	for (i = 0; i < 50; i++) {
		uint64_t a = now_ms();

		CHECK(rd(&t, ORCA_REG_DEV_STATUS) & ORCA_STATUS_CMDQ_ENABLED);
		if (now_ms() - a > worst)
			worst = now_ms() - a;
		th_sleep_ms(1);
	}
	CHECK(worst < 20);
	/* The engine thread is free: an event is posted at once. */
	engine_set_link(t.eng, false);
	th_sleep_ms(20);
	CHECK(th_eq0_next(&t, &e) && e.type == ORCA_EQE_PORT_CHANGE);
	/* Not done before it was due (a loaded host may sleep past that). */
	done = th_completed(&t, n, tok[0]);
	CHECK(!done || now_ms() - t0 >= 195);
	CHECK(wait_completed(&t, n, tok[0], 2000));
	t1 = now_ms();
	CHECK(t1 - t0 >= 195);
	CHECK(!th_completed(&t, n + 1, tok[1]));
	CHECK(wait_completed(&t, n + 2, tok[2], 2000));
	CHECK(th_completed(&t, n + 1, tok[1]));
	/* One after another: three commands take three periods. */
	CHECK(now_ms() - t0 >= 595);
	CHECK(t.last.status == ORCA_CMD_ST_OK);

	CHECK(engine_inject(t.eng, "slow 0") == 0);
	t0 = now_ms();
	CHECK(th_cmd(&t, ORCA_CMD_NOP, NULL, 0) == ORCA_CMD_ST_OK);
	CHECK(now_ms() - t0 < 100);

	/* A reset while a slow command waits drops it, as for any other. */
	CHECK(engine_inject(t.eng, "slow 300") == 0);
	n = t.pi;
	tok[0] = th_post(&t, &(struct tcmd){ .opcode = ORCA_CMD_NOP });
	th_ring(&t);
	engine_reset(t.eng);
	th_sleep_ms(400);
	CHECK(!th_completed(&t, n, tok[0]));
	th_fini(&t);
	ktap_case_end("slow_commands");
}

/* "heartbeat-stop": only the heartbeat freezes; commands go on. */
static void test_heartbeat_stop(void)
{
	uint32_t hb1, hb2;
	struct th t;

	th_init(&t);
	CHECK(th_boot(&t, 4));
	CHECK(engine_inject(t.eng, "heartbeat-stop") == 0);
	hb1 = rd(&t, ORCA_REG_HEARTBEAT);
	th_sleep_ms(300);
	hb2 = rd(&t, ORCA_REG_HEARTBEAT);
	CHECK(hb1 == hb2);
	CHECK(th_cmd(&t, ORCA_CMD_NOP, NULL, 0) == ORCA_CMD_ST_OK);
	CHECK(rd(&t, ORCA_REG_DEV_STATUS) ==
	      (ORCA_STATUS_READY | ORCA_STATUS_CMDQ_ENABLED));
	/* A hang on top, then one resume ends both. */
	CHECK(engine_inject(t.eng, "hang") == 0);
	CHECK(engine_inject(t.eng, "resume") == 0);
	CHECK(rd(&t, ORCA_REG_HEARTBEAT) - hb2 <= 1);
	th_sleep_ms(250);
	CHECK(rd(&t, ORCA_REG_HEARTBEAT) - hb2 >= 2);
	/* A reset restarts a stopped heartbeat too. */
	CHECK(engine_inject(t.eng, "heartbeat-stop") == 0);
	hb1 = rd(&t, ORCA_REG_HEARTBEAT);
	engine_reset(t.eng);
	th_sleep_ms(250);
	CHECK(rd(&t, ORCA_REG_HEARTBEAT) - hb1 >= 2);
	th_fini(&t);
	ktap_case_end("heartbeat_stop");
}

/* The QUERY_DEVICE output buffer of a command that is held back. */
static uint16_t post_query(struct th *t, uint64_t *out)
{
	struct tcmd c = {
		.opcode = ORCA_CMD_QUERY_DEVICE,
		.out_len = sizeof(struct orca_dev_caps),
	};

	*out = galloc(t, 4096, 0);
	c.out_addr = *out;
	return th_post(t, &c);
}

/*
 * With Bus Master Enable clear nothing reaches guest memory: no command
 * fetch, no output, no completion, no EQE, no interrupt; each attempt is
 * counted.  Setting it again and resetting gives a working device.
 */
static void test_bus_master_fence(void)
{
	struct engine_dma_fence f;
	uint64_t out;
	uint16_t tok;
	struct th t;

	th_init(&t);
	CHECK(th_boot(&t, 4));
	CHECK(th_create_eq0(&t, 4));
	th_eq_db(&t, 0, 0, true);
	engine_set_bus_master(t.eng, false);
	tok = post_query(&t, &out);
	th_ring(&t);
	engine_flush(t.eng);
	engine_set_link(t.eng, false);
	engine_flush(t.eng);
	CHECK(!th_completed(&t, 0, tok));
	CHECK(all_zero(gptr(&t, out), 4096));
	CHECK(all_zero(gptr(&t, t.eq0), 16 * sizeof(struct orca_eqe)));
	CHECK(th_irqs(&t, 0) == 0);
	f = fence(&t);
	CHECK(f.blocked >= 1);
	CHECK(f.late == 0);

	engine_set_bus_master(t.eng, true);
	engine_reset(t.eng);
	CHECK(th_boot(&t, 4));
	CHECK(th_cmd(&t, ORCA_CMD_NOP, NULL, 0) == ORCA_CMD_ST_OK);
	th_fini(&t);
	ktap_case_end("bus_master_fence");
}

/*
 * A driver that gave up on a hung adapter and freed the command's memory
 * without fencing: when the adapter resumes, the held command runs and
 * writes into it.  That is the "late" DMA the count exposes; a reset ends
 * the window.
 */
static void test_late_dma_counted(void)
{
	struct engine_dma_fence f;
	uint64_t out;
	uint16_t tok;
	struct th t;

	th_init(&t);
	CHECK(th_boot(&t, 4));
	CHECK(th_cmd(&t, ORCA_CMD_NOP, NULL, 0) == ORCA_CMD_ST_OK);
	CHECK(fence(&t).late == 0);
	CHECK(engine_inject(t.eng, "hang") == 0);
	tok = post_query(&t, &out);
	th_ring(&t);
	engine_flush(t.eng);
	CHECK(!th_completed(&t, 1, tok));
	CHECK(engine_inject(t.eng, "resume") == 0);
	engine_flush(t.eng);
	CHECK(th_completed(&t, 1, tok));
	CHECK(!all_zero(gptr(&t, out), sizeof(struct orca_dev_caps)));
	f = fence(&t);
	CHECK(f.late >= 3);	/* fetch, output, completion */
	CHECK(f.blocked == 0);

	/* After a reset, new work is not late. */
	engine_reset(t.eng);
	CHECK(th_boot(&t, 4));
	CHECK(th_cmd(&t, ORCA_CMD_NOP, NULL, 0) == ORCA_CMD_ST_OK);
	CHECK(fence(&t).late == f.late);
	/* Nor is work after a resume that followed a reset. */
	CHECK(engine_inject(t.eng, "hang") == 0);
	engine_reset(t.eng);
	CHECK(engine_inject(t.eng, "resume") == 0);
	CHECK(th_boot(&t, 4));
	CHECK(th_cmd(&t, ORCA_CMD_NOP, NULL, 0) == ORCA_CMD_ST_OK);
	CHECK(fence(&t).late == f.late);
	th_fini(&t);
	ktap_case_end("late_dma_counted");
}

/*
 * The fencing driver: on a hang it clears bus mastering (and resets).  The
 * adapter's later "resume" then lands nothing: count 0, buffers untouched.
 */
static void test_fenced_resume_lands_nothing(void)
{
	struct engine_dma_fence f;
	uint64_t out, out2;
	uint16_t tok, tok2;
	struct th t;

	/* Fence only: the held command's DMA is attempted and blocked. */
	th_init(&t);
	CHECK(th_boot(&t, 4));
	CHECK(engine_inject(t.eng, "hang") == 0);
	tok = post_query(&t, &out);
	th_ring(&t);
	engine_flush(t.eng);
	engine_set_bus_master(t.eng, false);
	CHECK(engine_inject(t.eng, "resume") == 0);
	engine_flush(t.eng);
	CHECK(!th_completed(&t, 0, tok));
	CHECK(all_zero(gptr(&t, out), 4096));
	f = fence(&t);
	CHECK(f.late == 0);
	CHECK(f.blocked >= 1);
	th_fini(&t);

	/* Fence and reset: the held command is gone for good. */
	th_init(&t);
	CHECK(th_boot(&t, 4));
	CHECK(engine_inject(t.eng, "hang") == 0);
	tok = post_query(&t, &out);
	tok2 = post_query(&t, &out2);
	th_ring(&t);
	engine_flush(t.eng);
	engine_set_bus_master(t.eng, false);
	engine_reset(t.eng);
	CHECK(engine_inject(t.eng, "resume") == 0);
	engine_set_bus_master(t.eng, true);
	engine_flush(t.eng);
	th_sleep_ms(20);
	CHECK(!th_completed(&t, 0, tok) && !th_completed(&t, 1, tok2));
	CHECK(all_zero(gptr(&t, out), 4096));
	CHECK(all_zero(gptr(&t, out2), 4096));
	f = fence(&t);
	CHECK(f.late == 0);
	th_fini(&t);
	ktap_case_end("fenced_resume_lands_nothing");
}

/*
 * A reset ends all DMA of objects created before it: doorbells and events
 * aimed at them afterwards write nothing anywhere in guest memory.
 */
static void test_reset_ends_object_dma(void)
{
	unsigned int irqs;
	struct th_objs o;
	uint8_t *snap;
	int64_t qpn;
	struct th t;

	CHECK(th_setup(&t, &o));
	qpn = th_create_qp(&t, ORCA_QPT_RC, o.pdn, o.cqn, o.uar, 0);
	CHECK(qpn > 1);
	th_eq_db(&t, 0, 0, true);
	engine_reset(t.eng);
	snap = malloc(GUEST_SIZE);
	CHECK(snap != NULL);
	if (!snap)
		goto out;
	memcpy(snap, t.fh.ram, GUEST_SIZE);
	irqs = atomic_load(&t.fh.irq_total);
	th_eq_db(&t, 0, 0, true);
	engine_uar_write(t.eng, o.uar, ORCA_UAR_SQ_DB, qpn);
	engine_uar_write(t.eng, o.uar, ORCA_UAR_RQ_DB, qpn);
	engine_uar_write(t.eng, o.uar, ORCA_UAR_CQ_DB, o.cqn);
	engine_set_link(t.eng, false);
	CHECK(engine_inject(t.eng, "garbage-eqe") == 0);
	CHECK(engine_inject(t.eng, "garbage-cqe") == 0);
	engine_flush(t.eng);
	th_sleep_ms(20);
	CHECK(memcmp(snap, t.fh.ram, GUEST_SIZE) == 0);
	CHECK(atomic_load(&t.fh.irq_total) == irqs);
	free(snap);
out:
	th_fini(&t);
	ktap_case_end("reset_ends_object_dma");
}

/* Entry @i of an EQ ring at @ring; true if its phase says first pass. */
static bool eqe_at(struct th *t, uint64_t ring, unsigned int i,
		   struct orca_eqe *e)
{
	memcpy(e, gptr(t, ring + i * sizeof(*e)), sizeof(*e));
	return e->flags & ORCA_EQE_PHASE;
}

/*
 * "garbage-eqe": malformed entries with a valid phase on EQ 0 (async kinds)
 * and on a completion EQ (COMP kinds); never overflowing an EQ.
 */
static void test_garbage_eqe(void)
{
	unsigned int n0 = 0, n1 = 0, i;
	bool unknown = false, token = false, bad_cqn = false;
	struct orca_eqe e;
	uint64_t ring1;
	int64_t eqn1;
	struct th t;

	th_init(&t);
	CHECK(th_boot(&t, 4));
	CHECK(th_create_eq0(&t, 5));
	eqn1 = th_create_eq_at(&t, 5, 1, &ring1);
	CHECK(eqn1 == 1);
	th_eq_db(&t, 0, 0, true);
	th_eq_db(&t, 1, 0, true);
	CHECK(engine_inject(t.eng, "garbage-eqe") == 0);
	engine_flush(t.eng);
	for (i = 0; i < 32 && eqe_at(&t, t.eq0, i, &e); i++) {
		n0++;
		unknown |= e.type == 0x7e;
		token |= e.type == ORCA_EQE_CMD_DONE &&
			 le32toh(e.data) == 0xfffe;
		CHECK(e.type != ORCA_EQE_DEVICE_FATAL);
		CHECK(e.subtype == 0xff);
	}
	CHECK(n0 == 11 && unknown && token);
	for (i = 0; i < 32 && eqe_at(&t, ring1, i, &e); i++) {
		n1++;
		bad_cqn |= e.type == ORCA_EQE_COMP &&
			   le32toh(e.data) == 0xffffff;
	}
	CHECK(n1 == 3 && bad_cqn);
	CHECK(th_irqs(&t, 0) == 1 && th_irqs(&t, 1) == 1);
	/* Unconsumed: a second batch would fill EQ 0 past half: skipped. */
	CHECK(engine_inject(t.eng, "garbage-eqe") == 0);
	engine_flush(t.eng);
	CHECK(!eqe_at(&t, t.eq0, n0, &e));
	CHECK(eqe_at(&t, ring1, n1, &e));	/* EQ 1 had room */
	CHECK(!(rd(&t, ORCA_REG_DEV_STATUS) & ORCA_STATUS_FATAL));
	CHECK(th_cmd(&t, ORCA_CMD_NOP, NULL, 0) == ORCA_CMD_ST_OK);
	/* A hung firmware writes no garbage either. */
	CHECK(engine_inject(t.eng, "hang") == 0);
	CHECK(engine_inject(t.eng, "garbage-eqe") == 0);
	engine_flush(t.eng);
	CHECK(!eqe_at(&t, ring1, 2 * n1, &e));
	th_fini(&t);
	ktap_case_end("garbage_eqe");
}

/* "garbage-cqe": malformed CQEs with a valid phase, never an overrun. */
static void test_garbage_cqe(void)
{
	struct orca_cmd_create_cq in;
	const struct orca_cqe *cqe;
	struct orca_eqe e;
	struct th_objs o;
	int64_t cqn, qpn;
	uint64_t buf;
	struct th t;

	CHECK(th_setup(&t, &o));
	in = th_cq_in(&t, 0, o.uar, 3);
	buf = le64toh(in.page_addr);
	cqn = th_handle_or_neg(&t, th_cmd(&t, ORCA_CMD_CREATE_CQ, &in,
					  sizeof(in)));
	CHECK(cqn > 0);
	qpn = th_create_qp(&t, ORCA_QPT_RC, o.pdn, cqn, o.uar, 0);
	CHECK(qpn > 1);
	CHECK(engine_inject(t.eng, "garbage-cqe") == 0);
	engine_flush(t.eng);
	cqe = gptr(&t, buf);
	CHECK(cqe[0].flags & ORCA_CQE_F_PHASE);
	CHECK(le32toh(cqe[0].qpn) == 0xffffff);
	CHECK(cqe[1].flags & ORCA_CQE_F_PHASE);
	CHECK(le32toh(cqe[1].qpn) == 0);
	CHECK(cqe[2].flags & ORCA_CQE_F_PHASE);
	CHECK(le32toh(cqe[2].qpn) == (uint32_t)qpn);
	CHECK(cqe[2].opcode == 0x7f && cqe[2].status == 0xee);
	CHECK(le16toh(cqe[2].wqe_idx) == 0xffff);
	CHECK(!(cqe[3].flags & ORCA_CQE_F_PHASE));
	/* Depth 8 with 3 unconsumed: another 3 would pass half; skipped. */
	CHECK(engine_inject(t.eng, "garbage-cqe") == 0);
	engine_flush(t.eng);
	CHECK(!(cqe[3].flags & ORCA_CQE_F_PHASE));
	/* No overrun anywhere: EQ 0 saw no CQ_ERR, the device is fine. */
	while (th_eq0_next(&t, &e))
		CHECK(e.type != ORCA_EQE_CQ_ERR);
	CHECK(!(rd(&t, ORCA_REG_DEV_STATUS) & ORCA_STATUS_FATAL));
	CHECK(th_cmd(&t, ORCA_CMD_NOP, NULL, 0) == ORCA_CMD_ST_OK);
	th_fini(&t);
	ktap_case_end("garbage_cqe");
}

/*
 * "wrid-lie on": every CQE written carries the complement of its wr_id
 * (here the garbage CQE's 0xdeadbeef); "off" writes the truth again.
 */
static void test_wrid_lie(void)
{
	struct orca_cmd_create_cq in;
	const struct orca_cqe *cqe;
	struct th_objs o;
	int64_t cqn;
	uint64_t buf;
	struct th t;

	CHECK(th_setup(&t, &o));
	in = th_cq_in(&t, 0, o.uar, 4);
	buf = le64toh(in.page_addr);
	cqn = th_handle_or_neg(&t, th_cmd(&t, ORCA_CMD_CREATE_CQ, &in,
					  sizeof(in)));
	CHECK(cqn > 0);
	CHECK(engine_inject(t.eng, "wrid-lie on") == 0);
	CHECK(engine_inject(t.eng, "garbage-cqe") == 0);
	engine_flush(t.eng);
	cqe = gptr(&t, buf);
	CHECK(cqe[0].flags & ORCA_CQE_F_PHASE);
	CHECK(le32toh(cqe[0].wr_id_lo) == ~0xdeadbeefu);
	CHECK(le32toh(cqe[0].wr_id_hi) == 0xffffffffu);
	CHECK(engine_inject(t.eng, "wrid-lie off") == 0);
	CHECK(engine_inject(t.eng, "garbage-cqe") == 0);
	engine_flush(t.eng);
	CHECK(cqe[2].flags & ORCA_CQE_F_PHASE);
	CHECK(le32toh(cqe[2].wr_id_lo) == 0xdeadbeefu);
	CHECK(le32toh(cqe[2].wr_id_hi) == 0);
	CHECK(engine_inject(t.eng, "wrid-lie maybe") == -EINVAL);
	th_fini(&t);
	ktap_case_end("wrid_lie");
}

/*
 * "fail-destroy N": the next N destroys of objects with guest memory fail
 * with INTERNAL and leave the object alive: its ring is still written.
 * Other destroys are not counted against N.
 */
static void test_fail_destroy(void)
{
	struct orca_cmd_create_cq in;
	const struct orca_cqe *cqe;
	struct th_objs o;
	int64_t cqn, pdn;
	uint64_t buf;
	struct th t;

	CHECK(th_setup(&t, &o));
	CHECK(engine_inject(t.eng, "fail-destroy") == -EINVAL);
	CHECK(engine_inject(t.eng, "fail-destroy x") == -EINVAL);
	CHECK(engine_inject(t.eng, "fail-destroy 1001") == -EINVAL);
	in = th_cq_in(&t, 0, o.uar, 3);
	buf = le64toh(in.page_addr);
	cqn = th_handle_or_neg(&t, th_cmd(&t, ORCA_CMD_CREATE_CQ, &in,
					  sizeof(in)));
	CHECK(cqn > 0);
	pdn = th_handle_or_neg(&t, th_cmd(&t, ORCA_CMD_CREATE_PD, NULL, 0));
	CHECK(pdn > 0);
	CHECK(engine_inject(t.eng, "fail-destroy 1") == 0);
	/* A PD holds no guest memory: not refused, N stays. */
	CHECK(th_destroy(&t, ORCA_CMD_DESTROY_PD, pdn) == ORCA_CMD_ST_OK);
	CHECK(th_destroy(&t, ORCA_CMD_DESTROY_CQ, cqn) ==
	      ORCA_CMD_ST_INTERNAL);
	/* Still alive: its ring is written, and the next destroy works. */
	CHECK(engine_inject(t.eng, "garbage-cqe") == 0);
	engine_flush(t.eng);
	cqe = gptr(&t, buf);
	CHECK(cqe[0].flags & ORCA_CQE_F_PHASE);
	CHECK(th_destroy(&t, ORCA_CMD_DESTROY_CQ, cqn) == ORCA_CMD_ST_OK);
	CHECK(th_destroy(&t, ORCA_CMD_DESTROY_CQ, cqn) ==
	      ORCA_CMD_ST_BAD_HANDLE);
	/* "fail-destroy 0" cancels what is left. */
	cqn = th_handle_or_neg(&t, th_cmd(&t, ORCA_CMD_CREATE_CQ, &in,
					  sizeof(in)));
	CHECK(cqn > 0);
	CHECK(engine_inject(t.eng, "fail-destroy 5") == 0);
	CHECK(engine_inject(t.eng, "fail-destroy 0") == 0);
	CHECK(th_destroy(&t, ORCA_CMD_DESTROY_CQ, cqn) == ORCA_CMD_ST_OK);
	th_fini(&t);
	ktap_case_end("fail_destroy");
}

int main(void)
{
	ktap_plan(10);
	test_slow_commands();
	test_heartbeat_stop();
	test_bus_master_fence();
	test_late_dma_counted();
	test_fenced_resume_lands_nothing();
	test_reset_ends_object_dma();
	test_garbage_eqe();
	test_garbage_cqe();
	test_wrid_lie();
	test_fail_destroy();
	return ktap_finish();
}

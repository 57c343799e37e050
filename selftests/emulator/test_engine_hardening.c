// SPDX-License-Identifier: GPL-2.0
/*
 * What a hostile driver cannot make the adapter do: allocate without limit
 * (the device memory budget: NO_RESOURCES past it, whatever the max_* caps
 * say) or fill the host's disk with log lines it triggers at will.
 */
#include <stdio.h>
#include <unistd.h>

#include "engine_harness.h"
#include "util/log.h"

static uint64_t mem_used(struct th *t, uint64_t *limit)
{
	uint64_t used, lim;

	engine_flush(t->eng);
	engine_mem_usage(t->eng, &used, &lim);
	if (limit)
		*limit = lim;
	return used;
}

/*
 * One 8 MiB page list, every entry the same guest page, registered over
 * and over: each CREATE_MR would make the adapter keep 8 MiB.
 */
static void test_mr_budget(void)
{
	const uint32_t npages = 1u << 20;
	uint64_t used0, limit, page, list, *l;
	struct orca_cmd_create_mr in = { 0 };
	struct tcmd c = {
		.opcode = ORCA_CMD_CREATE_MR, .in = &in, .in_size = sizeof(in),
	};
	uint32_t keys[64], n = 0, i, fr;
	struct th_objs o;
	struct th t;
	int st = 0;

	CHECK(th_setup(&t, &o));
	page = galloc(&t, 4096, 0);
	list = galloc(&t, 8ull * npages, 8);
	l = gptr(&t, list);
	for (i = 0; i < npages; i++)
		l[i] = htole64(page);
	in.pdn = htole32(o.pdn);
	in.access = htole32(ORCA_ACCESS_LOCAL_WRITE);
	in.page_shift = 12;
	in.iova = htole64(0x10000000);
	in.length = htole64((uint64_t)npages << 12);
	in.npages = htole32(npages);
	c.in_addr = list;
	c.in_len = 8 * npages;
	used0 = mem_used(&t, &limit);
	CHECK(limit == 256ull << 20);
	while (n < ARRAY_SIZE_T(keys)) {
		st = th_exec(&t, &c);
		if (st != ORCA_CMD_ST_OK)
			break;
		memcpy(&keys[n++], t.last.out, 4);
	}
	printf("# %u MRs of 2^20 pages fit, then status %d\n", n, st);
	CHECK(st == ORCA_CMD_ST_NO_RESOURCES);
	CHECK(n == (limit - used0) / (8ull * npages + 1024));
	/* What is left still serves small objects; a freed MR makes room. */
	CHECK(th_create_pd(&t) > 0);
	CHECK(n > 0 && th_destroy(&t, ORCA_CMD_DESTROY_MR,
				  le32toh(keys[n - 1])) == ORCA_CMD_ST_OK);
	CHECK(th_exec(&t, &c) == ORCA_CMD_ST_OK);
	memcpy(&keys[n - 1], t.last.out, 4);
	for (i = 0; i < n; i++)
		CHECK(th_destroy(&t, ORCA_CMD_DESTROY_MR, le32toh(keys[i])) ==
		      ORCA_CMD_ST_OK);
	CHECK(mem_used(&t, NULL) == used0 + 1024);	/* the extra PD */

	/* A FAST_REG MR reserves its largest page list up front. */
	in.flags = htole32(ORCA_MR_F_FAST_REG);
	in.npages = htole32(512);
	c.in_addr = 0;
	c.in_len = 0;
	CHECK(th_exec(&t, &c) == ORCA_CMD_ST_OK);
	memcpy(&fr, t.last.out, 4);
	CHECK(mem_used(&t, NULL) == used0 + 1024 + 1024 + 8 * 512);
	CHECK(th_destroy(&t, ORCA_CMD_DESTROY_MR, le32toh(fr)) ==
	      ORCA_CMD_ST_OK);
	CHECK(mem_used(&t, NULL) == used0 + 1024);
	/* A reset gives everything back. */
	engine_reset(t.eng);
	CHECK(mem_used(&t, NULL) == 0);
	th_fini(&t);
	ktap_case_end("mr_budget");
}

/*
 * QPs at the deepest send queue, all rings on one guest page: the
 * transport state per QP (a slot per WQE) counts against the budget.
 */
static void test_qp_budget(void)
{
	struct th_qp_req r;
	uint64_t used0, page, *l;
	uint32_t n = 0, i, np, qpns[400];
	struct th_objs o;
	struct th t;
	int st = 0;

	CHECK(th_setup(&t, &o));
	page = galloc(&t, 4096, 0);
	r = th_qp_in(&t, ORCA_QPT_RC, o.pdn, o.cqn, o.uar, 0);
	r.in.log_sq_depth = 14;
	r.in.log_rq_depth = 1;
	np = ((orca_send_wqe_stride(2) << 14) + 4095) / 4096;
	r.in.sq_npages = htole32(np);
	r.in.rq_npages = htole32(1);
	r.list_len = 8 * (np + 1);
	r.list = galloc(&t, r.list_len, 8);
	l = gptr(&t, r.list);
	for (i = 0; i < np + 1; i++)
		l[i] = htole64(page);
	used0 = mem_used(&t, NULL);
	while (n < ARRAY_SIZE_T(qpns)) {
		st = th_qp_exec(&t, &r);
		if (st != ORCA_CMD_ST_OK)
			break;
		qpns[n++] = th_out_handle(&t);
	}
	printf("# %u QPs of 2^14 send WQEs fit, then status %d\n", n, st);
	CHECK(st == ORCA_CMD_ST_NO_RESOURCES);
	CHECK(n >= 16 && n < ARRAY_SIZE_T(qpns));
	for (i = 0; i < n; i++)
		CHECK(th_destroy(&t, ORCA_CMD_DESTROY_QP, qpns[i]) ==
		      ORCA_CMD_ST_OK);
	CHECK(mem_used(&t, NULL) == used0);
	/* The budget came back: the same QPs fit again. */
	for (i = 0; i < n; i++)
		CHECK(th_qp_exec(&t, &r) == ORCA_CMD_ST_OK);
	th_fini(&t);
	ktap_case_end("qp_budget");
}

static unsigned int count_lines(const char *path, const char *needle)
{
	char line[1024];
	unsigned int n = 0;
	FILE *f = fopen(path, "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		n += strstr(line, needle) != NULL;
	fclose(f);
	return n;
}

/*
 * A driver that repeats a mistake 1000 times (a refused CMDQ_ENABLE, a
 * bus-master toggle) gets a few log lines, not 1000.
 */
static void test_guest_logs_rate_limited(void)
{
	char path[] = "/tmp/orca-emu-log-XXXXXX";
	unsigned long long before;
	unsigned int i, n_enable, n_bme;
	struct th t;
	int fd;

	fd = mkstemp(path);
	CHECK(fd >= 0);
	if (fd < 0)
		goto out;
	close(fd);
	th_init(&t);
	emu_log_guest_reset();
	CHECK(emu_log_open(path) == 0);
	before = emu_log_guest_suppressed();
	for (i = 0; i < 1000; i++) {
		wr(&t, ORCA_REG_CMDQ_CFG, 0);	/* depth 0: refused */
		wr(&t, ORCA_REG_DEV_CTRL, ORCA_CTRL_CMDQ_ENABLE);
		engine_set_bus_master(t.eng, i & 1);
	}
	emu_log_close();
	n_enable = count_lines(path, "CMDQ_ENABLE refused");
	n_bme = count_lines(path, "bus master");
	printf("# 1000 refused enables: %u lines; 1000 BME writes: %u lines\n",
	       n_enable, n_bme);
	/* A burst, and what the rate refills while the loop runs. */
	CHECK(n_enable >= 1 && n_enable <= EMU_LOG_GUEST_BURST + 5);
	CHECK(n_bme >= 1 && n_bme <= EMU_LOG_GUEST_BURST + 5);
	CHECK(emu_log_guest_suppressed() - before >=
	      2000 - 2 * (EMU_LOG_GUEST_BURST + 5));
	engine_set_bus_master(t.eng, true);
	th_fini(&t);
	unlink(path);
out:
	ktap_case_end("guest_logs_rate_limited");
}

int main(void)
{
	ktap_plan(3);
	test_mr_budget();
	test_qp_budget();
	test_guest_logs_rate_limited();
	return ktap_finish();
}

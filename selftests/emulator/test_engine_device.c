// SPDX-License-Identifier: GPL-2.0
/*
 * Engine device-level commands: QUERY_DEVICE, QUERY_PORT, SET_PORT,
 * QUERY_STATS, SET_GID, QUERY_CC and SET_CC, UARs, PDs and EQs, each
 * success path and each error status.
 */
#include "engine_harness.h"

static void test_query_device(void)
{
	struct orca_dev_caps *caps;
	uint64_t out;
	struct th t;
	struct tcmd c = { .opcode = ORCA_CMD_QUERY_DEVICE };

	th_init(&t);
	CHECK(th_boot(&t, 3));
	out = galloc(&t, 4096, 0);
	caps = gptr(&t, out);
	c.out_addr = out;
	c.out_len = sizeof(*caps);
	CHECK(th_exec(&t, &c) == ORCA_CMD_ST_OK);
	CHECK(le32toh(caps->max_qp) == 131071);
	CHECK(le32toh(caps->max_qp_wr) == 16384);
	CHECK(le32toh(caps->max_send_sge) == ORCA_MAX_SGE);
	CHECK(le32toh(caps->max_cqe) == 262144);
	CHECK(le32toh(caps->max_mr) == (1u << 20) - 1);
	CHECK(le32toh(caps->max_eq) == 64);
	CHECK(le32toh(caps->max_uar) == 256);
	CHECK(le32toh(caps->max_inline_data) == ORCA_MAX_INLINE_DATA);
	CHECK(le32toh(caps->max_fast_reg_page_list_len) == 65536);
	CHECK(le32toh(caps->gid_table_len) == 128);
	CHECK(caps->max_qp_rd_atom == 128 && caps->num_ports == 1);
	CHECK(le32toh(caps->dev_caps) & ORCA_DEV_CAP_ROCE_V2);
	CHECK(le32toh(caps->dev_caps) & ORCA_DEV_CAP_PGL_CHAIN);
	CHECK(le32toh(caps->dev_caps) & ORCA_DEV_CAP_REG_MR_PGSZ);
	CHECK(le64toh(caps->page_size_cap) & (1ull << 12));
	CHECK(le64toh(caps->page_size_cap) & (1ull << 30));
	CHECK(!(le64toh(caps->page_size_cap) & (1ull << 11)));
	CHECK(((uint8_t *)&caps->sys_image_guid)[3] == 0xff);
	/* 1.2 identity: NUL-padded strings, flagged by their cap bit. */
	CHECK(le32toh(caps->dev_caps) & ORCA_DEV_CAP_IDENTITY);
	CHECK(!memcmp(caps->hca_type, "ORCA-EMU", sizeof("ORCA-EMU")));
	CHECK(!memcmp(caps->board_id, "ORCA_EMU_0001",
		      sizeof("ORCA_EMU_0001")));
	CHECK(caps->hca_type[sizeof(caps->hca_type) - 1] == 0);
	CHECK(caps->board_id[sizeof(caps->board_id) - 1] == 0);
	/* 1.3: CQ moderation, with limits a u16 verbs request can exceed. */
	CHECK(le32toh(caps->dev_caps) & ORCA_DEV_CAP_CQ_MODERATION);
	CHECK(le32toh(caps->dev_caps) & ORCA_DEV_CAP_SRQ_RESIZE);
	CHECK(le16toh(caps->max_cq_mod_count) == 4095);
	CHECK(le16toh(caps->max_cq_mod_period) == 32767);
	/* 1.4: memory windows, which share the MRs' table. */
	CHECK(le32toh(caps->dev_caps) & ORCA_DEV_CAP_MW);
	CHECK(le32toh(caps->max_mw) == le32toh(caps->max_mr));
	/* 1.4: RDMA FLUSH and ATOMIC WRITE (IBA 1.5). */
	CHECK(le32toh(caps->dev_caps) & ORCA_DEV_CAP_FLUSH);
	CHECK(le32toh(caps->dev_caps) & ORCA_DEV_CAP_ATOMIC_WRITE);
	CHECK(le32toh(caps->dev_caps) & ORCA_DEV_CAP_SRQ_TAG);
	/* 1.4: UD multicast and its limits. */
	CHECK(le32toh(caps->dev_caps) & ORCA_DEV_CAP_MCAST);
	CHECK(le32toh(caps->max_mcast_grp) == 256);
	CHECK(le32toh(caps->max_mcast_qp_attach) == 56);
	/* 1.6: XRC, and how many domains at a time. */
	CHECK(le32toh(caps->dev_caps) & ORCA_DEV_CAP_XRC);
	CHECK(le32toh(caps->max_xrcd) == 64);
	/* 1.10: on-demand paging, explicit and implicit, and its limits. */
	CHECK(le32toh(caps->dev_caps) & ORCA_DEV_CAP_ODP);
	CHECK(le32toh(caps->odp_caps) == ORCA_ODP_CAP_IMPLICIT);
	CHECK(caps->odp_implicit_va_bits == 57);
	CHECK(le32toh(caps->odp_rc_ops) == 0xff);
	CHECK(le32toh(caps->odp_ud_ops) == ORCA_ODP_OP_SEND);
	CHECK(le32toh(caps->odp_xrc_ops) == 0x3d);
	CHECK(le16toh(caps->odp_max_faults) == 256);
	CHECK(le16toh(caps->odp_max_install_pages) == 4096);
	CHECK(le32toh(caps->odp_fault_timeout_ms) == 30000);

	/*
	 * The structure grew in 1.2: a 1.0/1.1 driver's out_len of 136 bytes
	 * still works and gets exactly that much; less is refused.
	 */
	memset(caps, 0xa5, 4096);
	c.out_len = ORCA_DEV_CAPS_V1_0_LEN;
	CHECK(th_exec(&t, &c) == ORCA_CMD_ST_OK);
	CHECK(le32toh(caps->max_qp) == 131071);
	CHECK(caps->hca_type[0] == 0xa5);
	memset(caps, 0xa5, 4096);
	c.out_len = 4096;
	CHECK(th_exec(&t, &c) == ORCA_CMD_ST_OK);
	CHECK(caps->board_id[0] == 'O');
	/* 1.10 wrote 248 bytes, no more. */
	CHECK(caps->rsvd_odp[6] == 0 && ((uint8_t *)caps)[248] == 0xa5);
	CHECK(((uint8_t *)caps)[sizeof(*caps)] == 0xa5);
	c.out_len = ORCA_DEV_CAPS_V1_0_LEN - 1;
	CHECK(th_exec(&t, &c) == ORCA_CMD_ST_BAD_LENGTH);
	c.out_len = sizeof(*caps);
	c.out_addr = UNMAPPED;
	CHECK(th_exec(&t, &c) == ORCA_CMD_ST_DMA_ERROR);
	c.out_addr = GUEST_BASE + GUEST_SIZE - 8;	/* straddles the end */
	CHECK(th_exec(&t, &c) == ORCA_CMD_ST_DMA_ERROR);
	th_fini(&t);
	ktap_case_end("query_device");
}

static int query_port(struct th *t, uint8_t port, uint32_t out_len,
		      struct orca_port_attr *pa)
{
	struct orca_cmd_query_port q = { .port = port };
	uint64_t out = galloc(t, 4096, 0);
	struct tcmd c = {
		.opcode = ORCA_CMD_QUERY_PORT, .in = &q, .in_size = sizeof(q),
		.out_addr = out, .out_len = out_len,
	};
	int st = th_exec(t, &c);

	memcpy(pa, gptr(t, out), sizeof(*pa));
	return st;
}

static int query_stats(struct th *t, uint8_t port, uint32_t out_len,
		       struct orca_port_stats *ps)
{
	struct orca_cmd_query_port q = { .port = port };
	uint64_t out = galloc(t, 4096, 0);
	struct tcmd c = {
		.opcode = ORCA_CMD_QUERY_STATS, .in = &q, .in_size = sizeof(q),
		.out_addr = out, .out_len = out_len,
	};
	int st;

	memset(gptr(t, out), 0xa5, sizeof(*ps));
	st = th_exec(t, &c);
	memcpy(ps, gptr(t, out), sizeof(*ps));
	return st;
}

static int set_port(struct th *t, uint8_t port, uint32_t mtu)
{
	struct orca_cmd_set_port in = { .port = port,
					.eth_mtu = htole32(mtu) };

	return th_cmd(t, ORCA_CMD_SET_PORT, &in, sizeof(in));
}

static void test_query_and_set_port(void)
{
	struct orca_port_attr pa;
	struct th t;

	th_init(&t);
	CHECK(th_boot(&t, 3));
	CHECK(query_port(&t, 1, sizeof(pa), &pa) == ORCA_CMD_ST_OK);
	CHECK(pa.state == ORCA_PORT_STATE_ACTIVE);
	CHECK(pa.max_mtu == 5 && pa.active_mtu == 3);	/* 1500 -> 1024 */
	CHECK(le32toh(pa.eth_mtu) == 1500);
	CHECK(pa.mac[0] == 0x02 && pa.mac[5] == 0xcc);
	CHECK(le16toh(pa.gid_table_len) == 128);
	CHECK(le32toh(pa.speed_mbps) == 25000);
	CHECK(query_port(&t, 2, sizeof(pa), &pa) == ORCA_CMD_ST_BAD_PARAM);
	CHECK(query_port(&t, 0, sizeof(pa), &pa) == ORCA_CMD_ST_BAD_PARAM);
	CHECK(query_port(&t, 1, 4, &pa) == ORCA_CMD_ST_BAD_LENGTH);

	CHECK(set_port(&t, 1, 9000) == ORCA_CMD_ST_OK);
	CHECK(query_port(&t, 1, sizeof(pa), &pa) == ORCA_CMD_ST_OK);
	CHECK(pa.active_mtu == 5 && le32toh(pa.eth_mtu) == 9000);
	CHECK(set_port(&t, 1, 576) == ORCA_CMD_ST_OK);
	CHECK(query_port(&t, 1, sizeof(pa), &pa) == ORCA_CMD_ST_OK);
	CHECK(pa.active_mtu == 1);
	CHECK(set_port(&t, 1, 2200) == ORCA_CMD_ST_OK);	/* 2120 -> 2048 */
	CHECK(query_port(&t, 1, sizeof(pa), &pa) == ORCA_CMD_ST_OK);
	CHECK(pa.active_mtu == 4);
	CHECK(set_port(&t, 1, 575) == ORCA_CMD_ST_BAD_PARAM);
	CHECK(set_port(&t, 1, 9001) == ORCA_CMD_ST_BAD_PARAM);
	CHECK(set_port(&t, 2, 1500) == ORCA_CMD_ST_BAD_PARAM);
	CHECK(query_port(&t, 1, sizeof(pa), &pa) == ORCA_CMD_ST_OK);
	CHECK(le32toh(pa.eth_mtu) == 2200);
	th_fini(&t);
	ktap_case_end("query_and_set_port");
}

/*
 * The layout of struct orca_port_stats: each minor version's counters in
 * words an older device left reserved, the size unchanged.
 */
#define PS_WORD(f)	(offsetof(struct orca_port_stats, f) / 8)
static_assert(PS_WORD(cq_overruns) == 17, "1.0's transport counters");
static_assert(PS_WORD(tx_bytes) == 18 && PS_WORD(rx_mcast_packets) == 21,
	      "1.4's traffic counters");
static_assert(PS_WORD(np_ecn_marked_roce_packets) == 22 &&
	      PS_WORD(rp_cnp_ignored) == 25, "1.7's congestion notification");
static_assert(PS_WORD(rx_pfc_frames) == 26 &&
	      PS_WORD(rx_pfc_pause_transitions) == 27 &&
	      PS_WORD(rx_pfc_pause_duration) == 28,
	      "1.9's priority flow control");
static_assert(PS_WORD(odp_faults) == 29 && PS_WORD(odp_fault_rnr_naks) == 30 &&
	      PS_WORD(odp_fault_timeouts) == 31, "1.10's on-demand paging");
static_assert(sizeof(struct orca_port_stats) == 32 * 8, "port stats size");

/*
 * A fresh adapter's counters are all zero (1.9's PFC counters too: no PAUSE
 * frame came); bad port and short output fail.
 */
static void test_query_stats(void)
{
	struct orca_port_stats ps;
	const uint8_t *b = (const uint8_t *)&ps;
	size_t i, nonzero = 0;
	struct th t;

	th_init(&t);
	CHECK(th_boot(&t, 3));
	CHECK(query_stats(&t, 1, sizeof(ps), &ps) == ORCA_CMD_ST_OK);
	for (i = 0; i < sizeof(ps); i++)
		nonzero += b[i] != 0;
	CHECK(nonzero == 0);
	CHECK(!ps.rx_pfc_frames && !ps.rx_pfc_pause_transitions &&
	      !ps.rx_pfc_pause_duration);
	CHECK(!ps.odp_faults && !ps.odp_fault_rnr_naks && !ps.odp_fault_timeouts);
	CHECK(query_stats(&t, 2, sizeof(ps), &ps) == ORCA_CMD_ST_BAD_PARAM);
	CHECK(query_stats(&t, 1, sizeof(ps) - 8, &ps) ==
	      ORCA_CMD_ST_BAD_LENGTH);
	th_fini(&t);
	ktap_case_end("query_stats");
}

static int query_cc(struct th *t, uint32_t out_len, struct orca_cc_params *p)
{
	uint64_t out = galloc(t, 4096, 0);
	struct tcmd c = { .opcode = ORCA_CMD_QUERY_CC, .out_addr = out,
			  .out_len = out_len };
	int st;

	memset(gptr(t, out), 0xa5, sizeof(*p));
	st = th_exec(t, &c);
	memcpy(p, gptr(t, out), sizeof(*p));
	return st;
}

/* SET_CC with @p but for one 32-bit word, @word, set to @v. */
static int set_cc_word(struct th *t, const struct orca_cc_params *p,
		       unsigned int word, uint32_t v)
{
	struct orca_cc_params in = *p;

	((__le32 *)&in)[word] = htole32(v);
	return th_cmd(t, ORCA_CMD_SET_CC, &in, sizeof(in));
}

#define CC_WORD(f)	(offsetof(struct orca_cc_params, f) / 4)

/*
 * QUERY_CC: ECN off, DCQCN's defaults; SET_CC sets every field, and a bad
 * field or reserved bit fails with BAD_PARAM and changes nothing.
 */
static void test_cc(void)
{
	struct orca_cc_params p, q, want;
	struct orca_dev_caps *caps;
	struct tcmd c = { .opcode = ORCA_CMD_QUERY_DEVICE };
	struct th t;
	static const struct {
		unsigned int word;
		uint32_t v;
	} bad[] = {
		{ CC_WORD(flags), 1u << 3 },
		{ CC_WORD(np_min_time_between_cnps), 1000001 },
		{ CC_WORD(rp_max_rate), 100001 },
		{ CC_WORD(rp_min_rate), 0 },
		{ CC_WORD(rp_ai_rate), 0 },
		{ CC_WORD(rp_hai_rate), 0 },
		{ CC_WORD(rp_threshold), 0 },
		{ CC_WORD(rp_time_reset), 0 },
		{ CC_WORD(rp_byte_reset), 63 },
		{ CC_WORD(rp_dce_tcp_g), 1025 },
		{ CC_WORD(rp_dce_tcp_rtt), 0 },
		{ CC_WORD(rp_rate_reduce_monitor_period), 1000001 },
		{ CC_WORD(rp_initial_alpha_value), 1025 },
		{ CC_WORD(rsvd), 1 },
		{ CC_WORD(rsvd) + 2, 1 },
	};

	th_init(&t);
	CHECK(th_boot(&t, 3));
	c.out_addr = galloc(&t, 4096, 0);
	c.out_len = sizeof(*caps);
	caps = gptr(&t, c.out_addr);
	CHECK(th_exec(&t, &c) == ORCA_CMD_ST_OK);
	CHECK(le32toh(caps->dev_caps) & ORCA_DEV_CAP_CC);

	CHECK(query_cc(&t, sizeof(p), &p) == ORCA_CMD_ST_OK);
	CHECK(p.flags == 0 && le32toh(p.np_min_time_between_cnps) == 4);
	CHECK(p.rp_max_rate == 0 && le32toh(p.rp_min_rate) == 10 &&
	      le32toh(p.rp_ai_rate) == 5 && le32toh(p.rp_hai_rate) == 50 &&
	      le32toh(p.rp_threshold) == 5 &&
	      le32toh(p.rp_time_reset) == 300 &&
	      le32toh(p.rp_byte_reset) == 32768 &&
	      le32toh(p.rp_dce_tcp_g) == 4 &&
	      le32toh(p.rp_dce_tcp_rtt) == 55 &&
	      le32toh(p.rp_rate_reduce_monitor_period) == 4 &&
	      le32toh(p.rp_initial_alpha_value) == 1024);
	CHECK(!p.rsvd[0] && !p.rsvd[1] && !p.rsvd[2]);
	CHECK(query_cc(&t, sizeof(p) - 4, &q) == ORCA_CMD_ST_BAD_LENGTH);

	want = (struct orca_cc_params){
		.flags = htole32(ORCA_CC_F_ECT | ORCA_CC_F_NP | ORCA_CC_F_RP),
		.np_min_time_between_cnps = htole32(50),
		.rp_max_rate = htole32(25000),
		.rp_min_rate = htole32(100),
		.rp_ai_rate = htole32(20),
		.rp_hai_rate = htole32(200),
		.rp_threshold = htole32(3),
		.rp_time_reset = htole32(100),
		.rp_byte_reset = htole32(65536),
		.rp_dce_tcp_g = htole32(16),
		.rp_dce_tcp_rtt = htole32(20),
		.rp_rate_reduce_monitor_period = htole32(0),
		.rp_initial_alpha_value = htole32(512),
	};
	CHECK(th_cmd(&t, ORCA_CMD_SET_CC, &want, sizeof(want)) ==
	      ORCA_CMD_ST_OK);
	CHECK(query_cc(&t, sizeof(q), &q) == ORCA_CMD_ST_OK);
	CHECK(!memcmp(&q, &want, sizeof(q)));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK(set_cc_word(&t, &want, bad[i].word, bad[i].v) ==
		      ORCA_CMD_ST_BAD_PARAM);
		CHECK(query_cc(&t, sizeof(q), &q) == ORCA_CMD_ST_OK);
		CHECK(!memcmp(&q, &want, sizeof(q)));
	}
	/* rp_min_rate above rp_max_rate; and above the line rate (max 0). */
	CHECK(set_cc_word(&t, &want, CC_WORD(rp_min_rate), 25001) ==
	      ORCA_CMD_ST_BAD_PARAM);
	want.rp_max_rate = 0;
	CHECK(set_cc_word(&t, &want, CC_WORD(rp_min_rate), 100001) ==
	      ORCA_CMD_ST_BAD_PARAM);
	/* Back to ECN off, the rest kept. */
	want.flags = 0;
	CHECK(th_cmd(&t, ORCA_CMD_SET_CC, &want, sizeof(want)) ==
	      ORCA_CMD_ST_OK);
	CHECK(query_cc(&t, sizeof(q), &q) == ORCA_CMD_ST_OK);
	CHECK(!memcmp(&q, &want, sizeof(q)));
	th_fini(&t);
	ktap_case_end("query_and_set_cc");
}

static void test_set_gid(void)
{
	struct orca_cmd_set_gid in = { .port = 1, .type = 2 };
	struct th t;

	th_init(&t);
	CHECK(th_boot(&t, 3));
	CHECK(th_set_gid(&t, 0, ORCA_GID_TYPE_ROCE_V2) == ORCA_CMD_ST_OK);
	CHECK(th_set_gid(&t, 127, ORCA_GID_TYPE_ROCE_V1) == ORCA_CMD_ST_OK);
	CHECK(th_set_gid(&t, 127, 0) == ORCA_CMD_ST_OK);	/* clear */
	CHECK(th_set_gid(&t, 128, ORCA_GID_TYPE_ROCE_V2) ==
	      ORCA_CMD_ST_BAD_PARAM);
	CHECK(th_set_gid(&t, 1, 3) == ORCA_CMD_ST_BAD_PARAM);
	in.port = 2;
	CHECK(th_cmd(&t, ORCA_CMD_SET_GID, &in, sizeof(in)) ==
	      ORCA_CMD_ST_BAD_PARAM);
	th_fini(&t);
	ktap_case_end("set_gid");
}

static void test_uar_alloc_exhaust_and_busy(void)
{
	struct th t;
	int i, ok = 0;
	int64_t cqn;

	th_init(&t);
	CHECK(th_boot(&t, 3));
	CHECK(th_create_eq0(&t, 3));
	for (i = 0; i < 256; i++)
		ok += th_alloc_uar(&t) == i;
	CHECK(ok == 256);
	CHECK(th_alloc_uar(&t) == -ORCA_CMD_ST_NO_RESOURCES);
	CHECK(th_destroy(&t, ORCA_CMD_DEALLOC_UAR, 17) == ORCA_CMD_ST_OK);
	CHECK(th_destroy(&t, ORCA_CMD_DEALLOC_UAR, 17) ==
	      ORCA_CMD_ST_BAD_HANDLE);
	CHECK(th_destroy(&t, ORCA_CMD_DEALLOC_UAR, 256) ==
	      ORCA_CMD_ST_BAD_HANDLE);
	CHECK(th_alloc_uar(&t) == 17);		/* the freed one comes back */
	/* A UAR used by a CQ cannot go. */
	cqn = th_create_cq(&t, 0, 5);
	CHECK(cqn == 1);
	CHECK(th_destroy(&t, ORCA_CMD_DEALLOC_UAR, 5) == ORCA_CMD_ST_BUSY);
	CHECK(th_destroy(&t, ORCA_CMD_DESTROY_CQ, cqn) == ORCA_CMD_ST_OK);
	CHECK(th_destroy(&t, ORCA_CMD_DEALLOC_UAR, 5) == ORCA_CMD_ST_OK);
	th_fini(&t);
	ktap_case_end("uar_alloc_exhaust_and_busy");
}

static void test_pd_create_destroy(void)
{
	struct orca_cmd_create_mr mr = {
		.flags = htole32(ORCA_MR_F_PHYS),
		.access = htole32(ORCA_ACCESS_LOCAL_WRITE),
	};
	uint32_t lkey;
	struct th t;
	int64_t pdn;

	th_init(&t);
	CHECK(th_boot(&t, 3));
	pdn = th_create_pd(&t);
	CHECK(pdn == 1);
	CHECK(th_create_pd(&t) == 2);
	CHECK(th_destroy(&t, ORCA_CMD_DESTROY_PD, 0) ==
	      ORCA_CMD_ST_BAD_HANDLE);
	CHECK(th_destroy(&t, ORCA_CMD_DESTROY_PD, 3) ==
	      ORCA_CMD_ST_BAD_HANDLE);
	CHECK(th_destroy(&t, ORCA_CMD_DESTROY_PD, 70000) ==
	      ORCA_CMD_ST_BAD_HANDLE);
	mr.pdn = htole32(pdn);
	CHECK(th_cmd(&t, ORCA_CMD_CREATE_MR, &mr, sizeof(mr)) == 0);
	lkey = th_out_handle(&t);
	CHECK(th_destroy(&t, ORCA_CMD_DESTROY_PD, pdn) == ORCA_CMD_ST_BUSY);
	CHECK(th_destroy(&t, ORCA_CMD_DESTROY_MR, lkey) == 0);
	CHECK(th_destroy(&t, ORCA_CMD_DESTROY_PD, pdn) == ORCA_CMD_ST_OK);
	CHECK(th_destroy(&t, ORCA_CMD_DESTROY_PD, pdn) ==
	      ORCA_CMD_ST_BAD_HANDLE);
	th_fini(&t);
	ktap_case_end("pd_create_destroy");
}

static int create_eq_raw(struct th *t, const struct orca_cmd_create_eq *in,
			 uint64_t in_addr, uint32_t in_len)
{
	struct tcmd c = {
		.opcode = ORCA_CMD_CREATE_EQ, .in = in, .in_size = sizeof(*in),
		.in_addr = in_addr, .in_len = in_len,
	};

	return th_exec(t, &c);
}

static void test_eq_create_errors(void)
{
	uint64_t page, list;
	struct orca_cmd_create_eq in;
	struct orca_cmd_create_eq good = {
		.log_depth = 8, .page_shift = 12, .msix_vector = htole16(1),
		.npages = htole32(1),
	};
	uint64_t *l;
	struct th t;

	th_init(&t);
	CHECK(th_boot(&t, 3));
	page = galloc(&t, 4096, 0);
	good.page_addr = htole64(page);

	in = good;
	in.log_depth = 0;
	CHECK(create_eq_raw(&t, &in, 0, 0) == ORCA_CMD_ST_BAD_PARAM);
	in.log_depth = 17;
	CHECK(create_eq_raw(&t, &in, 0, 0) == ORCA_CMD_ST_BAD_PARAM);
	in = good;
	in.msix_vector = htole16(TEST_MSIX);
	CHECK(create_eq_raw(&t, &in, 0, 0) == ORCA_CMD_ST_BAD_PARAM);
	in = good;
	in.npages = htole32(2);			/* 256 * 16 B is one page */
	CHECK(create_eq_raw(&t, &in, 0, 0) == ORCA_CMD_ST_BAD_PARAM);
	in = good;
	in.page_shift = 11;
	CHECK(create_eq_raw(&t, &in, 0, 0) == ORCA_CMD_ST_BAD_PARAM);
	in.page_shift = 31;
	CHECK(create_eq_raw(&t, &in, 0, 0) == ORCA_CMD_ST_BAD_PARAM);
	in = good;
	in.page_addr = htole64(page + 64);	/* not page aligned */
	CHECK(create_eq_raw(&t, &in, 0, 0) == ORCA_CMD_ST_BAD_PARAM);
	in.page_addr = htole64(UNMAPPED);
	CHECK(create_eq_raw(&t, &in, 0, 0) == ORCA_CMD_ST_DMA_ERROR);

	/* Two pages through a page list at in_addr. */
	in = good;
	in.log_depth = 9;
	in.npages = htole32(2);
	list = galloc(&t, 4096, 0);
	l = gptr(&t, list);
	l[0] = htole64(galloc(&t, 4096, 0));
	l[1] = htole64(galloc(&t, 4096, 0));
	CHECK(create_eq_raw(&t, &in, list, 8) == ORCA_CMD_ST_BAD_LENGTH);
	CHECK(create_eq_raw(&t, &in, UNMAPPED, 16) == ORCA_CMD_ST_DMA_ERROR);
	l[1] = htole64(UNMAPPED);
	CHECK(create_eq_raw(&t, &in, list, 16) == ORCA_CMD_ST_DMA_ERROR);
	l[1] = htole64(galloc(&t, 4096, 0));
	CHECK(create_eq_raw(&t, &in, list, 16) == ORCA_CMD_ST_OK);
	CHECK(th_out_handle(&t) == 0);		/* the first EQ is EQ 0 */
	/* A 16 KiB page size holds it in one page. */
	in.page_shift = 14;
	in.npages = htole32(1);
	in.page_addr = htole64(galloc(&t, 16384, 16384));
	CHECK(create_eq_raw(&t, &in, 0, 0) == ORCA_CMD_ST_OK);
	CHECK(th_out_handle(&t) == 1);
	th_fini(&t);
	ktap_case_end("eq_create_errors");
}

static void test_eq_exhaust_and_destroy(void)
{
	struct th t;
	int i, ok = 0;
	int64_t cqn;

	th_init_msix(&t, 64);
	CHECK(th_boot(&t, 3));
	for (i = 0; i < 64; i++)
		ok += th_create_eq_at(&t, 1, i, NULL) == i;
	CHECK(ok == 64);
	CHECK(th_create_eq_at(&t, 1, 0, NULL) == -ORCA_CMD_ST_NO_RESOURCES);
	CHECK(th_destroy(&t, ORCA_CMD_DESTROY_EQ, 64) ==
	      ORCA_CMD_ST_BAD_HANDLE);
	CHECK(th_destroy(&t, ORCA_CMD_DESTROY_EQ, 9) == ORCA_CMD_ST_OK);
	CHECK(th_destroy(&t, ORCA_CMD_DESTROY_EQ, 9) ==
	      ORCA_CMD_ST_BAD_HANDLE);
	CHECK(th_create_eq_at(&t, 1, 0, NULL) == 9);
	/* The lowest free eqn comes first, whatever the order of release. */
	CHECK(th_destroy(&t, ORCA_CMD_DESTROY_EQ, 30) == ORCA_CMD_ST_OK);
	CHECK(th_destroy(&t, ORCA_CMD_DESTROY_EQ, 20) == ORCA_CMD_ST_OK);
	CHECK(th_create_eq_at(&t, 1, 0, NULL) == 20);
	CHECK(th_create_eq_at(&t, 1, 0, NULL) == 30);
	/* An EQ with a CQ bound is busy. */
	CHECK(th_alloc_uar(&t) == 0);
	cqn = th_create_cq(&t, 12, 0);
	CHECK(cqn == 1);
	CHECK(th_destroy(&t, ORCA_CMD_DESTROY_EQ, 12) == ORCA_CMD_ST_BUSY);
	CHECK(th_destroy(&t, ORCA_CMD_DESTROY_CQ, cqn) == ORCA_CMD_ST_OK);
	CHECK(th_destroy(&t, ORCA_CMD_DESTROY_EQ, 12) == ORCA_CMD_ST_OK);
	/* EQ 0 can go too; CMD_DONE is then silently skipped. */
	CHECK(th_destroy(&t, ORCA_CMD_DESTROY_EQ, 0) == ORCA_CMD_ST_OK);
	CHECK(th_exec(&t, &(struct tcmd){ .opcode = ORCA_CMD_NOP,
					  .flags = ORCA_CMD_F_EVENT }) == 0);
	/* ... and the next EQ created is EQ 0 again. */
	CHECK(th_create_eq_at(&t, 1, 0, NULL) == 0);
	th_fini(&t);
	ktap_case_end("eq_exhaust_and_destroy");
}

static void test_eq_interrupt_vector(void)
{
	struct th t;

	th_init(&t);
	CHECK(th_boot(&t, 3));
	CHECK(th_create_eq0(&t, 4));
	/* EQ 0 on vector 0 takes CMD_DONE; a second EQ on vector 5. */
	CHECK(th_create_eq_at(&t, 4, 5, NULL) == 1);
	th_eq_db(&t, 1, 0, true);
	th_eq_db(&t, 0, 0, true);
	CHECK(th_exec(&t, &(struct tcmd){ .opcode = ORCA_CMD_NOP,
					  .flags = ORCA_CMD_F_EVENT }) == 0);
	CHECK(th_irqs(&t, 0) == 1 && th_irqs(&t, 5) == 0);
	th_fini(&t);
	ktap_case_end("eq_interrupt_vector");
}

int main(void)
{
	ktap_plan(10);
	test_query_device();
	test_query_and_set_port();
	test_query_stats();
	test_cc();
	test_set_gid();
	test_uar_alloc_exhaust_and_busy();
	test_pd_create_destroy();
	test_eq_create_errors();
	test_eq_exhaust_and_destroy();
	test_eq_interrupt_vector();
	return ktap_finish();
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Engine QP state machine (MODIFY_QP) for RC, UD and GSI QPs: every legal
 * transition with its required attributes is accepted, every other (from,
 * to) pair is refused with BAD_STATE, a missing required or an extra
 * attribute with BAD_PARAM, and each attribute's range is enforced.  The
 * expectations below are written from the IB spec (as the kernel's
 * ib_modify_qp_is_ok() encodes it), independently of qp_state.c.
 */
#include "engine_harness.h"

#define A(x)	ORCA_QP_ATTR_##x
enum {
	R = ORCA_QPS_RESET,
	I = ORCA_QPS_INIT,
	RTR = ORCA_QPS_RTR,
	RTS = ORCA_QPS_RTS,
	SQD = ORCA_QPS_SQD,
	SQE = ORCA_QPS_SQE,
	E = ORCA_QPS_ERR,
};

static const uint8_t types[] = { ORCA_QPT_RC, ORCA_QPT_UD, ORCA_QPT_GSI,
				 ORCA_QPT_UC };
static const char *const type_names[] = { "RC", "UD", "GSI", "UC" };
#define NTYPES	4

static bool legal(int from, int to)
{
	static const bool ok[7][7] = {
		[R] = { [R] = 1, [I] = 1 },
		[I] = { [R] = 1, [I] = 1, [RTR] = 1, [E] = 1 },
		[RTR] = { [R] = 1, [RTS] = 1, [E] = 1 },
		[RTS] = { [R] = 1, [RTS] = 1, [SQD] = 1, [E] = 1 },
		[SQD] = { [R] = 1, [RTS] = 1, [SQD] = 1, [E] = 1 },
		[SQE] = { [R] = 1, [RTS] = 1, [E] = 1 },
		[E] = { [R] = 1, [E] = 1 },
	};

	return ok[from][to];
}

static uint32_t required(uint8_t type, int from, int to)
{
	bool connected = type == ORCA_QPT_RC || type == ORCA_QPT_UC;

	if (from == R && to == I)
		return connected ? A(PKEY_INDEX) | A(PORT) | A(ACCESS_FLAGS) :
		       type == ORCA_QPT_UD ? A(PKEY_INDEX) | A(PORT) | A(QKEY) :
					     A(PKEY_INDEX) | A(QKEY);
	if (from == I && to == RTR && type == ORCA_QPT_RC)
		return A(AV) | A(PATH_MTU) | A(DEST_QPN) | A(RQ_PSN) |
		       A(MAX_DEST_RD_ATOMIC) | A(MIN_RNR_TIMER);
	/* UC: RC's path, none of its reliability attributes. */
	if (from == I && to == RTR && type == ORCA_QPT_UC)
		return A(AV) | A(PATH_MTU) | A(DEST_QPN) | A(RQ_PSN);
	if (from == RTR && to == RTS)
		return type == ORCA_QPT_RC ? A(TIMEOUT) | A(RETRY_CNT) |
					     A(RNR_RETRY) | A(SQ_PSN) |
					     A(MAX_QP_RD_ATOMIC) :
					     A(SQ_PSN);
	return 0;
}

/* Valid values for every attribute; the mask picks which are sent. */
static struct orca_qp_attr attr_all(uint32_t qpn)
{
	struct orca_qp_attr a = {
		.qpn = htole32(qpn),
		.path_mtu = 3,
		.timeout = 14,
		.retry_cnt = 7,
		.rnr_retry = 7,
		.min_rnr_timer = 12,
		.max_rd_atomic = 16,
		.max_dest_rd_atomic = 16,
		.port = 1,
		.pkey_index = 0,
		.qkey = htole32(0x80010000),
		.access = htole32(ORCA_ACCESS_REMOTE_WRITE |
				  ORCA_ACCESS_REMOTE_READ),
		.rq_psn = htole32(0xabcdef),
		.sq_psn = htole32(0x123456),
		.dest_qpn = htole32(0xfffffe),
		.av = {
			.dgid = { [10] = 0xff, [11] = 0xff, 10, 0, 0, 2 },
			.dmac = { 2, 0, 0, 0, 0, 2 },
			.sgid_index = 0,
			.hop_limit = 64,
		},
	};

	return a;
}

static int modify(struct th *t, struct orca_qp_attr *a, uint32_t mask,
		  int to)
{
	a->attr_mask = htole32(mask);
	a->qp_state = to;
	return th_cmd(t, ORCA_CMD_MODIFY_QP, a, sizeof(*a));
}

static int modify_to(struct th *t, uint32_t qpn, uint8_t type, int from,
		     int to, uint32_t extra)
{
	struct orca_qp_attr a = attr_all(qpn);

	return modify(t, &a, A(STATE) | required(type, from, to) | extra, to);
}

static int query_state(struct th *t, uint32_t qpn, struct orca_qp_attr *out)
{
	uint64_t buf = galloc(t, sizeof(*out), 64);
	struct orca_cmd_destroy_obj q = { .handle = htole32(qpn) };
	struct tcmd c = {
		.opcode = ORCA_CMD_QUERY_QP, .in = &q, .in_size = sizeof(q),
		.out_addr = buf, .out_len = sizeof(*out),
	};
	struct orca_qp_attr a;

	if (th_exec(t, &c) != ORCA_CMD_ST_OK)
		return -1;
	memcpy(&a, gptr(t, buf), sizeof(a));
	if (out)
		*out = a;
	return a.qp_state;
}

/* Drives a fresh QP from RESET to @state along legal transitions. */
static bool drive_to(struct th *t, uint32_t qpn, uint8_t type, int state)
{
	static const int path[] = { R, I, RTR, RTS, SQD };
	int i;

	if (state == R)
		return true;
	if (state == E)
		return !modify_to(t, qpn, type, R, I, 0) &&
		       !modify_to(t, qpn, type, I, E, 0);
	for (i = 1; i < 5; i++) {
		if (modify_to(t, qpn, type, path[i - 1], path[i], 0))
			return false;
		if (path[i] == state)
			return true;
	}
	return false;
}

static void test_transition_matrix(int ti)
{
	static const int froms[] = { R, I, RTR, RTS, SQD, E };
	uint8_t type = types[ti];
	int bad = 0, good = 0, checked = 0;
	struct th_objs o;
	struct th t;
	unsigned int f;
	int to;

	CHECK(th_setup(&t, &o));
	for (f = 0; f < ARRAY_SIZE_T(froms); f++) {
		for (to = R; to <= E; to++) {
			int64_t qpn = th_create_qp(&t, type, o.pdn, o.cqn,
						   o.uar, 0);
			int from = froms[f], st;

			if (qpn <= 0 || !drive_to(&t, qpn, type, from)) {
				bad++;
				continue;
			}
			st = modify_to(&t, qpn, type, from, to, 0);
			if (legal(from, to)) {
				good += st == ORCA_CMD_ST_OK &&
					query_state(&t, qpn, NULL) == to;
			} else {
				good += st == ORCA_CMD_ST_BAD_STATE &&
					query_state(&t, qpn, NULL) == from;
			}
			if (st != (legal(from, to) ? 0 : ORCA_CMD_ST_BAD_STATE))
				printf("# %s %d->%d: status %d\n",
				       type_names[ti], from, to, st);
			checked++;
			CHECK(th_destroy(&t, ORCA_CMD_DESTROY_QP, qpn) == 0);
		}
	}
	CHECK(bad == 0);
	CHECK(checked == 42 && good == 42);
	th_fini(&t);
	ktap_case_end("%s_transition_matrix", type_names[ti]);
}

static void test_missing_required(int ti)
{
	static const int pairs[][2] = { { R, I }, { I, RTR }, { RTR, RTS } };
	uint8_t type = types[ti];
	struct th_objs o;
	int64_t qpn;
	struct th t;
	unsigned int p;

	CHECK(th_setup(&t, &o));
	qpn = th_create_qp(&t, type, o.pdn, o.cqn, o.uar, 0);
	for (p = 0; p < 3; p++) {
		int from = pairs[p][0], to = pairs[p][1];
		uint32_t req = required(type, from, to), bit;

		for (bit = 1; bit; bit <<= 1) {
			struct orca_qp_attr a = attr_all(qpn);

			if (!(req & bit))
				continue;
			CHECK(modify(&t, &a, A(STATE) | (req & ~bit), to) ==
			      ORCA_CMD_ST_BAD_PARAM);
			CHECK(query_state(&t, qpn, NULL) == from);
		}
		CHECK(modify_to(&t, qpn, type, from, to, 0) == 0);
	}
	CHECK(query_state(&t, qpn, NULL) == RTS);
	th_fini(&t);
	ktap_case_end("%s_missing_required_attr", type_names[ti]);
}

static void test_extra_attrs(int ti)
{
	uint8_t type = types[ti];
	bool rc = type == ORCA_QPT_RC || type == ORCA_QPT_UC;
	bool uc = type == ORCA_QPT_UC;
	struct th_objs o;
	int64_t qpn;
	struct th t;

	CHECK(th_setup(&t, &o));
	qpn = th_create_qp(&t, type, o.pdn, o.cqn, o.uar, 0);
	/* RESET->INIT takes no path attributes. */
	CHECK(modify_to(&t, qpn, type, R, I, A(PATH_MTU)) ==
	      ORCA_CMD_ST_BAD_PARAM);
	CHECK(modify_to(&t, qpn, type, R, I, A(SQ_PSN)) ==
	      ORCA_CMD_ST_BAD_PARAM);
	/* QKEY is for datagram QPs, ACCESS_FLAGS for connected ones. */
	CHECK(modify_to(&t, qpn, type, R, I, rc ? A(QKEY) :
			A(ACCESS_FLAGS)) == ORCA_CMD_ST_BAD_PARAM);
	/* Unsupported (alternate path) and undefined mask bits. */
	CHECK(modify_to(&t, qpn, type, R, I, A(ALT_PATH)) ==
	      ORCA_CMD_ST_BAD_PARAM);
	CHECK(modify_to(&t, qpn, type, R, I, BIT(25)) ==
	      ORCA_CMD_ST_BAD_PARAM);
	/* CUR_STATE is not allowed out of RESET. */
	CHECK(modify_to(&t, qpn, type, R, I, A(CUR_STATE)) ==
	      ORCA_CMD_ST_BAD_PARAM);
	CHECK(query_state(&t, qpn, NULL) == R);
	CHECK(modify_to(&t, qpn, type, R, I, 0) == 0);
	/* INIT->INIT: optional attributes only. */
	CHECK(modify_to(&t, qpn, type, I, I, A(PKEY_INDEX)) == 0);
	CHECK(modify_to(&t, qpn, type, I, I, A(AV)) == ORCA_CMD_ST_BAD_PARAM);
	/* INIT->RTR: optional ones accepted, others refused. */
	CHECK(modify_to(&t, qpn, type, I, RTR, A(TIMEOUT)) ==
	      ORCA_CMD_ST_BAD_PARAM);
	/* UC: none of RC's reliability attributes, anywhere. */
	if (uc) {
		CHECK(modify_to(&t, qpn, type, I, RTR,
				A(MAX_DEST_RD_ATOMIC)) == ORCA_CMD_ST_BAD_PARAM);
		CHECK(modify_to(&t, qpn, type, I, RTR, A(MIN_RNR_TIMER)) ==
		      ORCA_CMD_ST_BAD_PARAM);
	}
	CHECK(modify_to(&t, qpn, type, I, RTR, A(PKEY_INDEX)) == 0);
	if (uc) {
		CHECK(modify_to(&t, qpn, type, RTR, RTS, A(RETRY_CNT)) ==
		      ORCA_CMD_ST_BAD_PARAM);
		CHECK(modify_to(&t, qpn, type, RTR, RTS, A(MAX_QP_RD_ATOMIC)) ==
		      ORCA_CMD_ST_BAD_PARAM);
		CHECK(modify_to(&t, qpn, type, RTR, RTS, A(MIN_RNR_TIMER)) ==
		      ORCA_CMD_ST_BAD_PARAM);
	}
	/* RTR->RTS with the optional (matching) CUR_STATE. */
	{
		struct orca_qp_attr a = attr_all(qpn);

		a.cur_qp_state = I;
		CHECK(modify(&t, &a, A(STATE) | A(CUR_STATE) |
			     required(type, RTR, RTS), RTS) ==
		      ORCA_CMD_ST_BAD_STATE);
		a.cur_qp_state = RTR;
		CHECK(modify(&t, &a, A(STATE) | A(CUR_STATE) |
			     required(type, RTR, RTS) |
			     (uc ? A(ACCESS_FLAGS) : rc ? A(MIN_RNR_TIMER) :
			      A(QKEY)), RTS) == 0);
	}
	/* RTS->RTS: no path MTU change, no PSN change. */
	CHECK(modify_to(&t, qpn, type, RTS, RTS, A(PATH_MTU)) ==
	      ORCA_CMD_ST_BAD_PARAM);
	CHECK(modify_to(&t, qpn, type, RTS, RTS, A(SQ_PSN)) ==
	      ORCA_CMD_ST_BAD_PARAM);
	/* Without the STATE bit a modify stays in the current state. */
	{
		struct orca_qp_attr a = attr_all(qpn);

		CHECK(modify(&t, &a, rc ? A(ACCESS_FLAGS) : A(QKEY), E) == 0);
		CHECK(query_state(&t, qpn, NULL) == RTS);
	}
	th_fini(&t);
	ktap_case_end("%s_extra_attr_refused", type_names[ti]);
}

struct bad_value {
	int from, to;
	void (*set)(struct orca_qp_attr *a);
};

static void bad_mtu0(struct orca_qp_attr *a) { a->path_mtu = 0; }
static void bad_mtu6(struct orca_qp_attr *a) { a->path_mtu = 6; }
static void bad_sgid(struct orca_qp_attr *a) { a->av.sgid_index = 5; }
static void bad_sgid_range(struct orca_qp_attr *a) { a->av.sgid_index = 128; }
static void bad_flow(struct orca_qp_attr *a)
{
	a->av.flow_label = htole32(1 << 20);
}
static void bad_dqpn(struct orca_qp_attr *a)
{
	a->dest_qpn = htole32(1 << 24);
}
static void bad_rq_psn(struct orca_qp_attr *a)
{
	a->rq_psn = htole32(1 << 24);
}
static void bad_sq_psn(struct orca_qp_attr *a)
{
	a->sq_psn = htole32(0xffffffff);
}
static void bad_dest_rd(struct orca_qp_attr *a) { a->max_dest_rd_atomic = 129; }
static void bad_rd(struct orca_qp_attr *a) { a->max_rd_atomic = 129; }
static void bad_rnr_timer(struct orca_qp_attr *a) { a->min_rnr_timer = 32; }
static void bad_timeout(struct orca_qp_attr *a) { a->timeout = 32; }
static void bad_retry(struct orca_qp_attr *a) { a->retry_cnt = 8; }
static void bad_rnr_retry(struct orca_qp_attr *a) { a->rnr_retry = 8; }
static void bad_pkey(struct orca_qp_attr *a) { a->pkey_index = htole16(1); }
static void bad_port0(struct orca_qp_attr *a) { a->port = 0; }
static void bad_port2(struct orca_qp_attr *a) { a->port = 2; }
static void bad_access(struct orca_qp_attr *a)
{
	a->access = htole32(0x10);
}

static void test_rc_attr_values(void)
{
	static const struct bad_value bad[] = {
		{ R, I, bad_pkey }, { R, I, bad_port0 },
		{ R, I, bad_port2 }, { R, I, bad_access },
		{ I, RTR, bad_mtu0 }, { I, RTR, bad_mtu6 },
		{ I, RTR, bad_sgid }, { I, RTR, bad_sgid_range },
		{ I, RTR, bad_flow }, { I, RTR, bad_dqpn },
		{ I, RTR, bad_rq_psn }, { I, RTR, bad_dest_rd },
		{ I, RTR, bad_rnr_timer },
		{ RTR, RTS, bad_timeout }, { RTR, RTS, bad_retry },
		{ RTR, RTS, bad_rnr_retry }, { RTR, RTS, bad_sq_psn },
		{ RTR, RTS, bad_rd },
	};
	struct orca_qp_attr q;
	struct th_objs o;
	int64_t qpn;
	struct th t;
	unsigned int i;
	int from = R;

	CHECK(th_setup(&t, &o));
	qpn = th_create_qp(&t, ORCA_QPT_RC, o.pdn, o.cqn, o.uar, 0);
	for (i = 0; i < ARRAY_SIZE_T(bad); i++) {
		struct orca_qp_attr a = attr_all(qpn);

		/* Advance once all bad values for a transition are done. */
		if (bad[i].from != from) {
			CHECK(modify_to(&t, qpn, ORCA_QPT_RC, from,
					bad[i].from, 0) == 0);
			from = bad[i].from;
		}
		bad[i].set(&a);
		if (modify(&t, &a, A(STATE) | required(ORCA_QPT_RC, from,
						       bad[i].to),
			   bad[i].to) != ORCA_CMD_ST_BAD_PARAM) {
			printf("# bad value %u accepted\n", i);
			CHECK(0);
		}
		CHECK(query_state(&t, qpn, NULL) == from);
	}
	CHECK(modify_to(&t, qpn, ORCA_QPT_RC, RTR, RTS, 0) == 0);
	/* The applied values read back. */
	CHECK(query_state(&t, qpn, &q) == RTS);
	CHECK(q.path_mtu == 3 && le32toh(q.dest_qpn) == 0xfffffe);
	CHECK(le32toh(q.sq_psn) == 0x123456 && le32toh(q.rq_psn) == 0xabcdef);
	CHECK(q.timeout == 14 && q.max_rd_atomic == 16);
	CHECK(le32toh(q.access) == (ORCA_ACCESS_REMOTE_WRITE |
				    ORCA_ACCESS_REMOTE_READ));
	CHECK(q.av.hop_limit == 64 && q.av.dgid[15] == 2);
	/* A state beyond ERR, and a QP that does not exist. */
	{
		struct orca_qp_attr a = attr_all(qpn);

		CHECK(modify(&t, &a, A(STATE), 7) == ORCA_CMD_ST_BAD_PARAM);
		a = attr_all(99);
		CHECK(modify(&t, &a, A(STATE), E) == ORCA_CMD_ST_BAD_HANDLE);
		a = attr_all(0);
		CHECK(modify(&t, &a, A(STATE), E) == ORCA_CMD_ST_BAD_HANDLE);
	}
	th_fini(&t);
	ktap_case_end("RC_attr_values");
}

static void test_sqd_drained_event(void)
{
	struct orca_eqe e;
	struct th_objs o;
	int64_t qpn;
	struct th t;

	CHECK(th_setup(&t, &o));
	qpn = th_create_qp(&t, ORCA_QPT_UD, o.pdn, o.cqn, o.uar, 0);
	CHECK(drive_to(&t, qpn, ORCA_QPT_UD, RTS));
	CHECK(!th_eq0_next(&t, &e));
	CHECK(modify_to(&t, qpn, ORCA_QPT_UD, RTS, SQD, A(EN_SQD_ASYNC)) ==
	      0);
	CHECK(th_eq0_next(&t, &e));
	CHECK(e.type == ORCA_EQE_SQ_DRAINED && le32toh(e.data) == qpn);
	/* Without the notify flag: no event. */
	CHECK(modify_to(&t, qpn, ORCA_QPT_UD, SQD, RTS, 0) == 0);
	CHECK(modify_to(&t, qpn, ORCA_QPT_UD, RTS, SQD, 0) == 0);
	CHECK(!th_eq0_next(&t, &e));
	th_fini(&t);
	ktap_case_end("sqd_drained_event");
}

static void test_gsi_rejects_port_attr(void)
{
	struct th_objs o;
	struct th t;

	/* GSI's RESET->INIT takes P_Key index and Q_Key, not the port. */
	CHECK(th_setup(&t, &o));
	CHECK(th_create_qp(&t, ORCA_QPT_GSI, o.pdn, o.cqn, o.uar, 0) == 1);
	CHECK(modify_to(&t, 1, ORCA_QPT_GSI, R, I, A(PORT)) ==
	      ORCA_CMD_ST_BAD_PARAM);
	CHECK(modify_to(&t, 1, ORCA_QPT_GSI, R, I, 0) == 0);
	th_fini(&t);
	ktap_case_end("GSI_reset_to_init_attrs");
}

int main(void)
{
	int ti;

	ktap_plan(NTYPES * 3 + 3);
	for (ti = 0; ti < NTYPES; ti++) {
		test_transition_matrix(ti);
		test_missing_required(ti);
		test_extra_attrs(ti);
	}
	test_rc_attr_values();
	test_sqd_drained_event();
	test_gsi_rejects_port_attr();
	return ktap_finish();
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The diagnostic dump window (interface 1.2): a snapshot taken through
 * ORCA_REG_DUMP_CTRL and read word by word through ORCA_REG_DUMP_OFFSET and
 * ORCA_REG_DUMP_DATA, with no DMA.  It must describe the adapter as it is
 * (header, object counts, EQs, QPs, port), work on a fatal adapter with bus
 * mastering off, and never let the driver read outside the snapshot.
 */
#include "engine_harness.h"

/* Waits for the snapshot; its length, or -1 if BUSY never cleared. */
static int64_t snapshot_wait(struct th *t)
{
	int i;

	for (i = 0; i < 500; i++) {
		engine_flush(t->eng);
		if (!(rd(t, ORCA_REG_DUMP_CTRL) & ORCA_DUMP_CTRL_BUSY))
			return rd(t, ORCA_REG_DUMP_LEN);
		th_sleep_ms(2);
	}
	return -1;
}

/* Takes a snapshot; its length, or -1. */
static int64_t snapshot(struct th *t)
{
	wr(t, ORCA_REG_DUMP_CTRL, ORCA_DUMP_CTRL_SNAPSHOT);
	return snapshot_wait(t);
}

static uint32_t word_at(struct th *t, uint32_t off)
{
	wr(t, ORCA_REG_DUMP_OFFSET, off);
	return rd(t, ORCA_REG_DUMP_DATA);
}

/* Reads @len bytes of the snapshot into @buf (a multiple of 4). */
static void read_snapshot(struct th *t, uint8_t *buf, uint32_t len)
{
	uint32_t off, w;

	for (off = 0; off < len; off += 4) {
		w = htole32(word_at(t, off));
		memcpy(buf + off, &w, 4);
	}
}

/* The records of a snapshot, checked for the layout's own rules. */
struct parsed {
	struct orca_dump_hdr h;
	struct orca_dump_objects objs;
	unsigned int nobjs, neqs, nqps, nports, nbad;
	struct orca_dump_eq eqs[8];
	struct orca_dump_qp qps[8];
	struct orca_dump_port port;
};

static void parse(const uint8_t *buf, uint32_t len, struct parsed *p)
{
	uint32_t off, n = 0;

	memset(p, 0, sizeof(*p));
	memcpy(&p->h, buf, sizeof(p->h));
	for (off = le16toh(p->h.hdr_len); off + sizeof(struct orca_dump_rec) <= len;) {
		struct orca_dump_rec rec;
		uint16_t rlen;

		memcpy(&rec, buf + off, sizeof(rec));
		rlen = le16toh(rec.len);
		if (rlen < sizeof(rec) || rlen % 8 || off + rlen > len) {
			p->nbad++;
			break;
		}
		switch (le16toh(rec.type)) {
		case ORCA_DUMP_REC_OBJECTS:
			if (rlen == sizeof(p->objs))
				memcpy(&p->objs, buf + off, rlen);
			p->nobjs++;
			break;
		case ORCA_DUMP_REC_EQ:
			if (p->neqs < 8 && rlen == sizeof(p->eqs[0]))
				memcpy(&p->eqs[p->neqs], buf + off, rlen);
			p->neqs++;
			break;
		case ORCA_DUMP_REC_QP:
			if (p->nqps < 8 && rlen == sizeof(p->qps[0]))
				memcpy(&p->qps[p->nqps], buf + off, rlen);
			p->nqps++;
			break;
		case ORCA_DUMP_REC_PORT:
			if (rlen == sizeof(p->port))
				memcpy(&p->port, buf + off, rlen);
			p->nports++;
			break;
		default:
			p->nbad++;
		}
		off += rlen;
		n++;
	}
	if (off != len || n != le32toh(p->h.num_records))
		p->nbad++;
}

/* The adapter advertises the window, and a 1.2 interface. */
static void test_caps(void)
{
	struct th t;

	th_init(&t);
	CHECK(rd(&t, ORCA_REG_CAPS) & ORCA_CAPS_DUMP);
	CHECK(FIELD_GET(ORCA_IF_VERSION_MINOR, rd(&t, ORCA_REG_IF_VERSION)) >= 2);
	/* Nothing was taken yet: an empty window. */
	CHECK(rd(&t, ORCA_REG_DUMP_LEN) == 0);
	CHECK(word_at(&t, 0) == 0);
	th_fini(&t);
	ktap_case_end("caps_and_empty_window");
}

/* A live adapter's snapshot describes its objects, EQ 0, its QP and port. */
static void test_snapshot_live(void)
{
	static uint8_t buf[ORCA_DUMP_MAX_BYTES];
	struct th_objs o;
	struct parsed p;
	int64_t len, qpn;
	struct th t;

	CHECK(th_setup(&t, &o));
	qpn = th_create_qp(&t, ORCA_QPT_RC, o.pdn, o.cqn, o.uar, 0);
	CHECK(qpn > 1);
	len = snapshot(&t);
	CHECK(len >= (int64_t)sizeof(struct orca_dump_hdr));
	CHECK(len <= ORCA_DUMP_MAX_BYTES && len % 4 == 0);
	if (len < (int64_t)sizeof(struct orca_dump_hdr) ||
	    len > ORCA_DUMP_MAX_BYTES)
		goto out;
	read_snapshot(&t, buf, len);
	parse(buf, len, &p);
	CHECK(le32toh(p.h.magic) == ORCA_DUMP_MAGIC);
	CHECK(le16toh(p.h.version) == ORCA_DUMP_VERSION);
	CHECK(le16toh(p.h.hdr_len) == sizeof(struct orca_dump_hdr));
	CHECK(le32toh(p.h.length) == len);
	CHECK(p.nbad == 0);
	CHECK(le32toh(p.h.dev_status) ==
	      (ORCA_STATUS_READY | ORCA_STATUS_CMDQ_ENABLED));
	CHECK(le32toh(p.h.fatal_syndrome) == ORCA_FATAL_NONE);
	/* The last command executed was the CREATE_QP, and it succeeded. */
	CHECK(le16toh(p.h.last_cmd_opcode) == ORCA_CMD_CREATE_QP);
	CHECK(p.h.last_cmd_status == ORCA_CMD_ST_OK);
	CHECK(le16toh(p.h.cmdq_pi) == t.pi && le16toh(p.h.cmdq_ci) == t.pi);
	CHECK(p.h.cmdq_log_depth == 5);
	CHECK(le64toh(p.h.cmds) == t.pi);
	CHECK(p.nobjs == 1 && le32toh(p.objs.qps) == 1 &&
	      le32toh(p.objs.cqs) == 1 && le32toh(p.objs.pds) == 1 &&
	      le32toh(p.objs.eqs) == 1 && le32toh(p.objs.uars) == 1);
	CHECK(p.neqs == 1 && le32toh(p.eqs[0].eqn) == 0 &&
	      p.eqs[0].log_depth == 8 && le32toh(p.eqs[0].cqs) == 1);
	CHECK(p.nqps == 1 && le32toh(p.qps[0].qpn) == qpn &&
	      p.qps[0].state == ORCA_QPS_RESET &&
	      p.qps[0].type == ORCA_QPT_RC &&
	      le32toh(p.qps[0].send_cqn) == o.cqn);
	CHECK(p.nports == 1 && p.port.link_up == 1 &&
	      le32toh(p.port.eth_mtu) == 1500);
out:
	th_fini(&t);
	ktap_case_end("snapshot_live");
}

/*
 * A fatal adapter with bus mastering off (what a driver's fence leaves)
 * still takes a snapshot, with the syndrome it died of, and does no DMA
 * for it.
 */
static void test_snapshot_fatal_fenced(void)
{
	struct engine_dma_fence before, after;
	static uint8_t buf[ORCA_DUMP_MAX_BYTES];
	struct th_objs o;
	struct parsed p;
	int64_t len;
	struct th t;

	CHECK(th_setup(&t, &o));
	CHECK(engine_inject(t.eng, "fatal 0") == -EINVAL);
	CHECK(engine_inject(t.eng, "fatal x") == -EINVAL);
	CHECK(engine_inject(t.eng, "fatal 0x5eed") == 0);
	engine_flush(t.eng);
	engine_set_bus_master(t.eng, false);
	CHECK(rd(&t, ORCA_REG_DEV_STATUS) & ORCA_STATUS_FATAL);
	CHECK(rd(&t, ORCA_REG_FATAL_SYNDROME) == 0x5eed);
	engine_dma_fence(t.eng, &before);
	len = snapshot(&t);
	engine_dma_fence(t.eng, &after);
	CHECK(after.blocked == before.blocked);
	CHECK(len > (int64_t)sizeof(struct orca_dump_hdr) &&
	      len <= ORCA_DUMP_MAX_BYTES);
	if (len <= (int64_t)sizeof(struct orca_dump_hdr) ||
	    len > ORCA_DUMP_MAX_BYTES)
		goto out;
	read_snapshot(&t, buf, len);
	parse(buf, len, &p);
	CHECK(le32toh(p.h.magic) == ORCA_DUMP_MAGIC && p.nbad == 0);
	CHECK(le32toh(p.h.dev_status) & ORCA_STATUS_FATAL);
	CHECK(!(le32toh(p.h.dev_status) & ORCA_STATUS_CMDQ_ENABLED));
	CHECK(le32toh(p.h.fatal_syndrome) == 0x5eed);
	CHECK(p.h.cmdq_log_depth == 0);
	/* Objects survive a fatal error until the reset. */
	CHECK(le32toh(p.objs.cqs) == 1 && p.neqs == 1);
	/* A hung firmware answers too. */
	CHECK(engine_inject(t.eng, "hang") == 0);
	CHECK(snapshot(&t) == len);
	/*
	 * A driver's fence: snapshot, then reset at once.  The snapshot is
	 * of the adapter before the reset (fatal, its objects still there).
	 */
	wr(&t, ORCA_REG_DUMP_CTRL, ORCA_DUMP_CTRL_SNAPSHOT);
	wr(&t, ORCA_REG_DEV_CTRL, ORCA_CTRL_RESET);
	CHECK(snapshot_wait(&t) == len);
	read_snapshot(&t, buf, len);
	parse(buf, len, &p);
	CHECK(le32toh(p.h.fatal_syndrome) == 0x5eed);
	CHECK(le32toh(p.objs.cqs) == 1 && p.neqs == 1);
	engine_flush(t.eng);
	CHECK(rd(&t, ORCA_REG_DEV_STATUS) == ORCA_STATUS_READY);
	/* And the snapshot outlives the reset that revives the adapter. */
	engine_reset(t.eng);
	CHECK(!(rd(&t, ORCA_REG_DEV_STATUS) & ORCA_STATUS_FATAL));
	CHECK(rd(&t, ORCA_REG_DUMP_LEN) == len);
	CHECK(word_at(&t, offsetof(struct orca_dump_hdr, fatal_syndrome)) ==
	      0x5eed);
out:
	th_fini(&t);
	ktap_case_end("snapshot_fatal_fenced");
}

/*
 * Reads are bounded by the snapshot: offsets past its end, huge and
 * unaligned ones read 0 or the aligned word, never other memory.
 */
static void test_bounded_reads(void)
{
	struct th_objs o;
	int64_t len;
	struct th t;

	CHECK(th_setup(&t, &o));
	len = snapshot(&t);
	CHECK(len > 0 && len <= ORCA_DUMP_MAX_BYTES);
	CHECK(word_at(&t, 0) == ORCA_DUMP_MAGIC);
	/* Unaligned offsets are rounded down to the word. */
	CHECK(word_at(&t, 1) == ORCA_DUMP_MAGIC);
	CHECK(word_at(&t, 3) == ORCA_DUMP_MAGIC);
	CHECK(rd(&t, ORCA_REG_DUMP_OFFSET) == 0);
	CHECK(word_at(&t, offsetof(struct orca_dump_hdr, length)) == len);
	CHECK(word_at(&t, len) == 0);
	CHECK(word_at(&t, ORCA_DUMP_MAX_BYTES) == 0);
	CHECK(word_at(&t, 0xfffffffc) == 0);
	CHECK(word_at(&t, 0x80000000) == 0);
	/* DUMP_LEN and DUMP_DATA ignore writes; DUMP_CTRL ignores 0. */
	wr(&t, ORCA_REG_DUMP_LEN, 0x7fffffff);
	wr(&t, ORCA_REG_DUMP_DATA, 0x12345678);
	wr(&t, ORCA_REG_DUMP_CTRL, 0);
	engine_flush(t.eng);
	CHECK(rd(&t, ORCA_REG_DUMP_LEN) == len);
	CHECK(word_at(&t, 0) == ORCA_DUMP_MAGIC);
	CHECK(!(rd(&t, ORCA_REG_DUMP_CTRL) & ORCA_DUMP_CTRL_BUSY));
	th_fini(&t);
	ktap_case_end("bounded_reads");
}

/* Many QPs: at most ORCA_DUMP_MAX_QPS records, within the size bound. */
static void test_qp_records_bounded(void)
{
	static uint8_t buf[ORCA_DUMP_MAX_BYTES];
	struct th_objs o;
	struct parsed p;
	int64_t len;
	struct th t;
	int i, made = 0;

	CHECK(th_setup(&t, &o));
	for (i = 0; i < ORCA_DUMP_MAX_QPS + 8; i++)
		made += th_create_qp(&t, ORCA_QPT_UD, o.pdn, o.cqn, o.uar, 0) > 1;
	CHECK(made == ORCA_DUMP_MAX_QPS + 8);
	len = snapshot(&t);
	CHECK(len > 0 && len <= ORCA_DUMP_MAX_BYTES);
	if (len <= 0 || len > ORCA_DUMP_MAX_BYTES)
		goto out;
	read_snapshot(&t, buf, len);
	parse(buf, len, &p);
	CHECK(p.nbad == 0);
	CHECK(p.nqps == ORCA_DUMP_MAX_QPS);
	CHECK(le32toh(p.objs.qps) == (uint32_t)made);
out:
	th_fini(&t);
	ktap_case_end("qp_records_bounded");
}

int main(void)
{
	ktap_plan(5);
	test_caps();
	test_snapshot_live();
	test_snapshot_fatal_fenced();
	test_bounded_reads();
	test_qp_records_bounded();
	return ktap_finish();
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The RoCE transport over the real wire: two adapters (engines with fake
 * hosts), each with its Ethernet port (port.c), joined by the orca-wire
 * switch process over shared-memory links.  Every case runs twice: wired
 * as orca-emu's main.c wires it, with the RoCE lane (the engine reads the
 * switch's ring itself, and sleeps on its kick: port_roce_peek/pop/want,
 * port_roce_rx_fd; engine tx: frames built in the port's ring,
 * port_roce_tx_slot/commit, else port_send_roce_nowait), and through the
 * port thread (port rx ->
 * engine_roce_rx_try, and the ready hooks), as a port without a lane, or
 * on datagrams, has it.  RC SEND, WRITE and READ must move every byte,
 * and every RoCE frame in the switch's capture must be a well-formed
 * RoCEv2 frame with a good ICRC.
 *
 * rx_flood_backpressure floods one adapter's receive path faster than its
 * engine takes frames (the engine thread is held, then let go): thousands
 * of RC WRITEs from a raw port, more than the engine's queue and both rings
 * hold.  Every one must be executed, in order, none dropped anywhere: the
 * port (or, with the lane, the engine) leaves what the engine has no room
 * for in the ring, the switch holds the sender back.
 *
 * dead_adapter_drains: a hung adapter drops what comes, and counts it.
 *
 * detach_under_traffic: the port goes while the engine reads its ring.
 *
 * two_way_flood: two slow adapters flood each other on many QPs at once,
 * so both receive queues and both rings to the switch fill up while both
 * engines have frames to send: an engine that waited for the wire while
 * its own queue was full would deadlock the pair (roce_qp.c).  Every WRITE
 * must complete, with nothing retransmitted or dropped.
 *
 * The switch binary is $ORCA_WIRE_BIN if set, else orca-wire next to the
 * tests' directory.  A switch that is missing or does not start fails each
 * case (with its log): orca-wire is built with these tests, so that is a
 * broken build or a broken switch, never a reason to check nothing.
 */
#include <libgen.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ktap.h"
#include "port/port.h"
#include "port_glue.h"
#include "roce_node.h"
#include "wire_harness.h"

#define WAIT_MS		10000
#define IOVA		0x10000000ull
#define LEN		(256u << 10)

static char wire_bin[PATH_MAX];
static bool use_lane;		/* this round wires the RoCE lane */
static char dir[64], sw_path[128], pcap_path[128], log_path[128];
static pid_t sw_pid;

/* A case that could not run: a failure, with why and the switch's log. */
static void case_cannot_run(const char *name, const char *why)
{
	char line[512];
	FILE *f = fopen(log_path, "r");

	printf("# %s: %s (%s)\n", name, why, wire_bin);
	while (f && fgets(line, sizeof(line), f))
		printf("# switch: %s", line);
	if (f)
		fclose(f);
	/* Not into the next case's switch log. */
	if (*log_path) {
		unlink(log_path);
		unlink(pcap_path);
		unlink(sw_path);
	}
	ktap_case_failures++;
	ktap_case_end("%s", name);
}

/*
 * Start the switch and wait for its socket, as long as anything else here
 * waits (WAIT_MS: a loaded host can be slow to start a process); false if
 * it exited or never made its socket, after which it is gone.
 */
static bool start_switch(void)
{
	const char *argv[] = {
		wire_bin, "--socket", sw_path, "--pcap", pcap_path,
		"--log", log_path, NULL,
	};

	return wire_start(&sw_pid, sw_path, WAIT_MS, argv);
}

static void stop_switch(void)
{
	wire_stop(sw_pid);
}

/* "NAME (lane)" or "NAME (port thread)": the round's case names. */
static const char *case_name(const char *name)
{
	static char buf[128];

	snprintf(buf, sizeof(buf), "%s (%s)", name,
		 use_lane ? "RoCE lane" : "port thread");
	return buf;
}

static struct emu_port *wire_up(struct node *n, int id)
{
	return glue_port_up(n->t.eng, n->mac, dir, id, sw_path, use_lane);
}

/*
 * A raw port with an adapter's addresses (@s, node 9) and no engine, that
 * floods the others; NULL if it did not start.
 */
static struct emu_port *raw_sender(struct node *s)
{
	char nic[128], peer[128], wire[128];
	struct emu_port_config pc = {
		.nic_path = nic, .nic_peer = peer, .wire_path = wire,
		.switch_path = sw_path, .wire_shm = true,
	};

	memset(s, 0, sizeof(*s));
	s->mac[0] = 0x02;
	s->mac[5] = 9;
	s->ip[0] = 10;
	s->ip[3] = 9;
	snprintf(nic, sizeof(nic), "%s/nic9", dir);
	snprintf(peer, sizeof(peer), "%s/qemu9", dir);
	snprintf(wire, sizeof(wire), "%s/wire9", dir);
	memcpy(pc.mac, s->mac, 6);
	return port_start(&pc, NULL, NULL);
}

/* Every UDP 4791 frame of the capture parses with a good ICRC. */
static bool check_capture(unsigned int *frames)
{
	FILE *f = fopen(pcap_path, "rb");
	uint8_t hdr[24], rec[16], buf[65536];
	bool ok = true;

	*frames = 0;
	if (!f || fread(hdr, sizeof(hdr), 1, f) != 1) {
		if (f)
			fclose(f);
		return false;
	}
	while (fread(rec, sizeof(rec), 1, f) == 1) {
		uint32_t incl = rec[8] | rec[9] << 8 | rec[10] << 16 |
				(uint32_t)rec[11] << 24;
		struct roce_pkt pkt;
		enum roce_rx_err err;

		if (incl > sizeof(buf) || fread(buf, incl, 1, f) != 1)
			break;
		err = roce_parse(buf, incl, &pkt);
		if (err == ROCE_RX_NOT_ROCE)
			continue;
		(*frames)++;
		if (err) {
			printf("# captured frame %u: %s\n", *frames,
			       roce_rx_err_name(err));
			ok = false;
		}
	}
	fclose(f);
	return ok;
}

static void rc_over_ports(void)
{
	struct rc_opts o = { .path_mtu = 3, .timeout = 14, .retry_cnt = 7,
			     .rnr_retry = 7, .min_rnr_timer = 1,
			     .access = ORCA_QP_ACCESS_ALL };
	struct node a, b;
	struct emu_port *pa = NULL, *pb = NULL;
	struct tcq acq, bcq;
	struct tqp aqp, bqp;
	struct tbuf abuf, bbuf;
	struct orca_send_wqe_hdr h;
	struct orca_cqe c;
	struct tsge s, r;
	unsigned int frames;
	bool ok;

	if (!start_switch()) {
		case_cannot_run(case_name("rc_over_ports_and_wire_switch"),
				"switch did not start");
		return;
	}

	ok = node_init(&a, 1) && node_init(&b, 2);
	CHECK(ok);
	if (ok) {
		pa = wire_up(&a, 1);
		pb = wire_up(&b, 2);
		CHECK(pa && pb);
		/* As orca-emu has them: on shared-memory links. */
		CHECK(pa && port_wire_is_shm(pa) && pb && port_wire_is_shm(pb));
		CHECK(pa && port_has_roce_lane(pa) == use_lane && pb &&
		      port_has_roce_lane(pb) == use_lane);
		usleep(100000);		/* let the switch register both */
		ok = pa && pb && node_cq(&a, &acq, 8) && node_cq(&b, &bcq, 8) &&
		     node_buf(&a, &abuf, IOVA, LEN, ORCA_ACCESS_ALL) &&
		     node_buf(&b, &bbuf, IOVA, LEN, ORCA_ACCESS_ALL) &&
		     node_qp(&a, &aqp, ORCA_QPT_RC, &acq, &acq) &&
		     node_qp(&b, &bqp, ORCA_QPT_RC, &bcq, &bcq) &&
		     node_connect(&a, &aqp, &b, bqp.qpn, &o) &&
		     node_connect(&b, &bqp, &a, aqp.qpn, &o);
		CHECK(ok);
	}
	if (ok) {
		/* SEND A -> B */
		buf_fill(&a, &abuf, 0, LEN, 1);
		s = (struct tsge){ IOVA, LEN, abuf.key };
		r = (struct tsge){ IOVA, LEN, bbuf.key };
		post_recv(&b, &bqp, 1, &r, 1);
		h = wqe(ORCA_WQE_SEND, 2);
		post_send(&a, &aqp, &h, &s, 1);
		CHECK(poll_cq(&a, &acq, &c, WAIT_MS) && cqe_wr_id(&c) == 2 &&
		      c.status == ORCA_CQE_ST_SUCCESS);
		CHECK(poll_cq(&b, &bcq, &c, WAIT_MS) && cqe_wr_id(&c) == 1 &&
		      c.status == ORCA_CQE_ST_SUCCESS &&
		      le32toh(c.byte_len) == LEN);
		CHECK(buf_check(&b, &bbuf, 0, LEN, 1));

		/* WRITE B -> A, then READ it back from A into B. */
		buf_fill(&b, &bbuf, 0, LEN, 2);
		h = wqe(ORCA_WQE_RDMA_WRITE, 3);
		h.remote_addr = htole64(IOVA);
		h.rkey = htole32(abuf.key);
		post_send(&b, &bqp, &h, &r, 1);
		CHECK(poll_cq(&b, &bcq, &c, WAIT_MS) && cqe_wr_id(&c) == 3 &&
		      c.status == ORCA_CQE_ST_SUCCESS);
		CHECK(buf_check(&a, &abuf, 0, LEN, 2));
		buf_fill(&b, &bbuf, 0, LEN, 3);
		h = wqe(ORCA_WQE_RDMA_READ, 4);
		h.remote_addr = htole64(IOVA);
		h.rkey = htole32(abuf.key);
		post_send(&b, &bqp, &h, &r, 1);
		CHECK(poll_cq(&b, &bcq, &c, WAIT_MS) && cqe_wr_id(&c) == 4 &&
		      c.status == ORCA_CQE_ST_SUCCESS);
		CHECK(buf_check(&b, &bbuf, 0, LEN, 2));

		/*
		 * Every frame was built in the port's ring itself (one copy
		 * fewer); the switch's capture below checks each one.
		 */
		for (int i = 0; i < 2; i++) {
			struct roce_stats st;
			struct node *nd = i ? &b : &a;

			engine_flush(nd->t.eng);
			roce_get_stats(nd->t.eng, &st);
			printf("# %c: %llu of %llu frames built in the ring\n",
			       'A' + i, (unsigned long long)st.tx_in_place,
			       (unsigned long long)st.tx_frames);
			CHECK(st.tx_frames > 0 &&
			      st.tx_in_place == st.tx_frames);
		}
	}
	if (ktap_case_failures && pa && pb) {
		struct emu_port_stats sa, sb;

		port_get_stats(pa, &sa);
		port_get_stats(pb, &sb);
		printf("# port A roce tx %llu rx %llu dropped %llu; "
		       "B roce tx %llu rx %llu dropped %llu\n",
		       (unsigned long long)sa.roce_tx,
		       (unsigned long long)sa.roce_rx,
		       (unsigned long long)sa.dropped,
		       (unsigned long long)sb.roce_tx,
		       (unsigned long long)sb.roce_rx,
		       (unsigned long long)sb.dropped);
	}
	/* Quiesce: no engine may send into a stopped port. */
	engine_set_roce_tx(a.t.eng, NULL, NULL);
	engine_set_roce_tx(b.t.eng, NULL, NULL);
	if (pa)
		port_stop(pa);
	if (pb)
		port_stop(pb);
	th_fini(&a.t);
	th_fini(&b.t);
	stop_switch();
	CHECK(check_capture(&frames));
	CHECK(frames > 3 * LEN / 1024);
	printf("# %u RoCE frames captured by the switch, all valid\n", frames);
	if (!getenv("ORCA_KEEP_PCAP")) {
		unlink(pcap_path);
		unlink(log_path);
	} else {
		printf("# capture kept in %s\n", pcap_path);
	}
	free(abuf.pages);
	free(bbuf.pages);
	ktap_case_end("%s", case_name("rc_over_ports_and_wire_switch"));
}

/*
 * The switch's exit line: its count of @what (0 if the log lacks it).
 * The switch must have exited.
 */
static unsigned long long switch_count(const char *what)
{
	return wire_exit_count(log_path, what);
}

#define FLOOD_FRAMES	4000	/* > engine queue + both rings (1536) */
#define PEER_QPN	7	/* node_connect(): small, its PSNs wrap soon */

struct flood {
	struct emu_port *port;
	struct node *from, *to;
	uint32_t qpn, psn, rkey;
	unsigned int failed;
};

/* RC WRITE-only packets, one 8-byte value each, to consecutive slots. */
static void *flood_thread(void *arg)
{
	struct flood *fl = arg;
	uint8_t frame[256];

	for (uint32_t i = 0; i < FLOOD_FRAMES; i++) {
		uint64_t val = htole64(i + 1);
		struct roce_pkt p = {
			.vlan = ROCE_NO_VLAN, .hop_limit = 64,
			.udp_sport = roce_udp_sport(PEER_QPN),
			.opcode = ROCE_RC_WRITE_ONLY,
			.pkey = ROCE_DEFAULT_PKEY, .dest_qpn = fl->qpn,
			.psn = (fl->psn + i) & ROCE_PSN_MASK,
			.ack_req = i % 32 == 31 || i == FLOOD_FRAMES - 1,
			.reth_va = IOVA + 8ull * i, .reth_rkey = fl->rkey,
			.reth_len = 8,
			.payload = (const uint8_t *)&val, .paylen = 8,
		};
		size_t len;

		memcpy(p.dmac, fl->to->mac, 6);
		memcpy(p.smac, fl->from->mac, 6);
		node_gid(fl->from, p.sgid);
		node_gid(fl->to, p.dgid);
		len = roce_build(frame, sizeof(frame), &p);
		if (!len || port_send_roce(fl->port, frame, len))
			fl->failed++;
	}
	return NULL;
}

static void rx_flood_backpressure(void)
{
	struct rc_opts o = { .path_mtu = 3, .timeout = 14, .retry_cnt = 7,
			     .rnr_retry = 7, .min_rnr_timer = 1,
			     .access = ORCA_QP_ACCESS_ALL };
	struct emu_port *pa = NULL;
	struct emu_port_stats ps = { 0 };
	struct roce_stats st = { 0 };
	struct flood fl = { 0 };
	struct node a, s;
	struct tcq acq;
	struct tqp aqp;
	struct tbuf abuf = { 0 };
	pthread_t th;
	bool ok, a_up = false;

	if (!start_switch()) {
		case_cannot_run(case_name("rx_flood_backpressure"),
				"switch did not start");
		return;
	}
	/* The sender: a raw port with an adapter's addresses, no engine. */
	fl.port = raw_sender(&s);
	ok = fl.port && (a_up = node_init(&a, 1));
	CHECK(ok);
	if (ok) {
		glue_say_hello(fl.port, s.mac);
		/* Before its port exists: the engine thread is idle. */
		a.t.eng->host.ops = &fh_stall_ops;
		pa = wire_up(&a, 1);
		usleep(100000);		/* let the switch register both */
		ok = pa && port_wire_is_shm(pa) && port_wire_is_shm(fl.port);
		CHECK(ok);
		CHECK(!ok || port_has_roce_lane(pa) == use_lane);
		ok = ok && node_cq(&a, &acq, 8);
		CHECK(ok);
		ok = ok && node_buf(&a, &abuf, IOVA, 8 * FLOOD_FRAMES,
				    ORCA_ACCESS_ALL);
		CHECK(ok);
		ok = ok && node_qp(&a, &aqp, ORCA_QPT_RC, &acq, &acq);
		CHECK(ok);
		ok = ok && node_connect(&a, &aqp, &s, PEER_QPN, &o);
		CHECK(ok);
	}
	if (ok) {
		for (uint32_t i = 0; i < 8 * FLOOD_FRAMES; i++)
			*node_va(&a, &abuf, i) = 0;
		fl.from = &s;
		fl.to = &a;
		fl.qpn = aqp.qpn;
		fl.psn = (0xfffff0 + aqp.qpn) & ROCE_PSN_MASK;
		fl.rkey = abuf.key;
		/* A slow engine: held while the whole flood arrives. */
		atomic_store(&fh_stall, true);
		CHECK(pthread_create(&th, NULL, flood_thread, &fl) == 0);
		usleep(500000);
		port_get_stats(pa, &ps);
		printf("# engine held: port took %llu frames, held back %llu\n",
		       (unsigned long long)ps.roce_rx,
		       (unsigned long long)ps.rx_held);
		atomic_store(&fh_stall, false);
		pthread_join(th, NULL);
		CHECK(fl.failed == 0);
		for (int i = 0; i < WAIT_MS / 10; i++) {
			st = (struct roce_stats){ 0 };
			engine_flush(a.t.eng);
			roce_get_stats(a.t.eng, &st);
			if (st.rx_frames >= FLOOD_FRAMES)
				break;
			usleep(10000);
		}
		printf("# engine: rx %llu, queue full drops %llu, refused %llu, seq NAKs %llu, duplicates %llu\n",
		       (unsigned long long)st.rx_frames,
		       (unsigned long long)st.rxq_full,
		       (unsigned long long)st.rx_refused,
		       (unsigned long long)st.seq_naks_tx,
		       (unsigned long long)st.dup_requests);
		CHECK(st.rx_frames == FLOOD_FRAMES);
		CHECK(st.rxq_full == 0 && st.rx_dead == 0);
		CHECK(st.seq_naks_tx == 0 && st.dup_requests == 0);
		/*
		 * It did push back: more came than the queue holds.  The lane
		 * has no queue to refuse from: the frames wait in the ring.
		 */
		CHECK(use_lane ? st.rx_refused == 0 : st.rx_refused > 0);
		for (uint32_t i = 0; i < FLOOD_FRAMES; i++) {
			uint64_t v;

			for (int k = 0; k < 8; k++)
				((uint8_t *)&v)[k] =
					*node_va(&a, &abuf, 8ull * i + k);
			if (le64toh(v) != i + 1) {
				printf("# slot %u holds %llu\n", i,
				       (unsigned long long)le64toh(v));
				CHECK(le64toh(v) == i + 1);
				break;
			}
		}
		port_get_stats(pa, &ps);
		CHECK(ps.drop_to_wire == 0 &&
		      (use_lane ? ps.rx_held == 0 : ps.rx_held > 0));
	}
	atomic_store(&fh_stall, false);
	if (a_up)
		engine_set_roce_tx(a.t.eng, NULL, NULL);
	if (pa)
		port_stop(pa);
	if (fl.port)
		port_stop(fl.port);
	if (a_up)
		th_fini(&a.t);
	stop_switch();
	printf("# switch: stall_dropped %llu, backpressured %llu\n",
	       switch_count("stall_dropped"), switch_count("backpressured"));
	CHECK(switch_count("stall_dropped") == 0);
	CHECK(switch_count("send_errors") == 0);
	/* The switch held the flood back, lane or not. */
	CHECK(switch_count("backpressured") > 0);
	unlink(pcap_path);
	unlink(log_path);
	free(abuf.pages);
	ktap_case_end("%s", case_name("rx_flood_backpressure"));
}

#define FLOOD_QPS	12	/* node_connect() PSNs need QPNs < 16 */
#define FLOOD_WRITES	8		/* per QP */
#define FLOOD_LEN	(64u << 10)	/* 64 packets each */

static void two_way_flood(void)
{
	struct rc_opts o = { .path_mtu = 3, .timeout = 18, .retry_cnt = 7,
			     .rnr_retry = 7, .min_rnr_timer = 1,
			     .access = ORCA_QP_ACCESS_ALL };
	struct node n[2];
	struct emu_port *p[2] = { NULL, NULL };
	struct tcq cq[2];
	struct tqp qp[2][FLOOD_QPS];
	struct tbuf buf[2] = { { 0 }, { 0 } };
	struct roce_stats st[2];
	struct orca_send_wqe_hdr h;
	struct orca_cqe c;
	bool ok, up[2] = { false, false };
	unsigned int done[2] = { 0, 0 };
	int i, q, k;

	if (!start_switch()) {
		case_cannot_run(case_name("two_way_flood"),
				"switch did not start");
		return;
	}
	ok = (up[0] = node_init(&n[0], 1)) && (up[1] = node_init(&n[1], 2));
	CHECK(ok);
	for (i = 0; ok && i < 2; i++) {
		n[i].t.eng->host.ops = &fh_stall_ops;
		p[i] = wire_up(&n[i], i + 1);
		ok = p[i] && node_cq(&n[i], &cq[i], 8) &&
		     node_buf(&n[i], &buf[i], IOVA, 2ull * FLOOD_QPS * FLOOD_LEN,
			      ORCA_ACCESS_ALL);
		for (q = 0; ok && q < FLOOD_QPS; q++)
			ok = node_qp(&n[i], &qp[i][q], ORCA_QPT_RC, &cq[i],
				     &cq[i]);
	}
	CHECK(ok);
	usleep(100000);		/* let the switch register both */
	for (q = 0; ok && q < FLOOD_QPS; q++)
		ok = node_connect(&n[0], &qp[0][q], &n[1], qp[1][q].qpn, &o) &&
		     node_connect(&n[1], &qp[1][q], &n[0], qp[0][q].qpn, &o);
	CHECK(ok);
	if (ok) {
		/*
		 * Each side writes the lower half of its buffer into the
		 * upper half of the other's, QP q into slice q.  Both engines
		 * are held while everything is posted, then let go together,
		 * slowed: each pass then meets a full queue and a full ring.
		 */
		for (i = 0; i < 2; i++)
			buf_fill(&n[i], &buf[i], 0,
				 (uint64_t)FLOOD_QPS * FLOOD_LEN, i + 5);
		atomic_store(&fh_slow_us, 2000);
		atomic_store(&fh_stall, true);
		for (i = 0; i < 2; i++)
			for (q = 0; q < FLOOD_QPS; q++)
				for (k = 0; k < FLOOD_WRITES; k++) {
					struct tsge sg = {
						IOVA + (uint64_t)q * FLOOD_LEN,
						FLOOD_LEN, buf[i].key };

					h = wqe(ORCA_WQE_RDMA_WRITE, q * 100 + k);
					h.remote_addr = htole64(IOVA +
						(uint64_t)(FLOOD_QPS + q) *
						FLOOD_LEN);
					h.rkey = htole32(buf[1 - i].key);
					post_send(&n[i], &qp[i][q], &h, &sg, 1);
				}
		atomic_store(&fh_stall, false);
		for (i = 0; i < 2; i++)
			while (done[i] < FLOOD_QPS * FLOOD_WRITES &&
			       poll_cq(&n[i], &cq[i], &c, 60000)) {
				CHECK(c.status == ORCA_CQE_ST_SUCCESS);
				done[i]++;
			}
		atomic_store(&fh_slow_us, 0);
		printf("# completed %u and %u WRITEs of %u\n", done[0],
		       done[1], FLOOD_QPS * FLOOD_WRITES);
		CHECK(done[0] == FLOOD_QPS * FLOOD_WRITES &&
		      done[1] == FLOOD_QPS * FLOOD_WRITES);
		for (i = 0; i < 2; i++) {
			CHECK(buf_check(&n[1 - i], &buf[1 - i],
					(uint64_t)FLOOD_QPS * FLOOD_LEN,
					(uint64_t)FLOOD_QPS * FLOOD_LEN, i + 5));
			engine_flush(n[i].t.eng);
			roce_get_stats(n[i].t.eng, &st[i]);
			printf("# %c: tx %llu rx %llu, rx refused %llu, tx backlogged %llu (at most %llu), retransmits %llu timeouts %llu early %llu, queue full %llu, seq NAKs %llu, duplicates %llu\n",
			       'A' + i, (unsigned long long)st[i].tx_frames,
			       (unsigned long long)st[i].rx_frames,
			       (unsigned long long)st[i].rx_refused,
			       (unsigned long long)st[i].tx_backlogged,
			       (unsigned long long)st[i].tx_backlog_max,
			       (unsigned long long)st[i].retransmits,
			       (unsigned long long)st[i].timeouts,
			       (unsigned long long)st[i].fast_retries,
			       (unsigned long long)st[i].rxq_full,
			       (unsigned long long)st[i].seq_naks_tx,
			       (unsigned long long)st[i].dup_requests);
			CHECK(st[i].retransmits == 0 && st[i].timeouts == 0 &&
			      st[i].fast_retries == 0);
			CHECK(st[i].rxq_full == 0 && st[i].tx_dropped == 0);
			CHECK(st[i].seq_naks_tx == 0 && st[i].dup_requests == 0);
			/*
			 * Both engines had more to send than the wire took:
			 * what met a full ring was built aside and waited in
			 * the backlog, the rest was built in the ring.
			 */
			CHECK(st[i].tx_backlogged > 0);
			CHECK(st[i].tx_in_place > 0 &&
			      st[i].tx_in_place < st[i].tx_frames);
		}
	}
	atomic_store(&fh_stall, false);
	atomic_store(&fh_slow_us, 0);
	for (i = 0; i < 2; i++) {
		if (up[i])
			engine_set_roce_tx(n[i].t.eng, NULL, NULL);
		if (p[i])
			port_stop(p[i]);
	}
	for (i = 0; i < 2; i++)
		if (up[i])
			th_fini(&n[i].t);
	stop_switch();
	printf("# switch: stall_dropped %llu, backpressured %llu\n",
	       switch_count("stall_dropped"), switch_count("backpressured"));
	CHECK(switch_count("stall_dropped") == 0);
	unlink(pcap_path);
	unlink(log_path);
	free(buf[0].pages);
	free(buf[1].pages);
	ktap_case_end("%s", case_name("two_way_flood"));
}

/*
 * The two adapters' worth of a flood case: the switch, a raw sender (s,
 * fl.port) and adapter a on its port (pa), wired this round's way.
 */
struct flood_rig {
	struct emu_port *pa;
	struct flood fl;
	struct node a, s;
	bool a_up;
	bool ended;		/* no switch: the case is reported already */
};

/*
 * False if the rig did not come up: the case has failed, and has ended
 * too (->ended) if the switch did not start.
 */
static bool rig_up(struct flood_rig *r, const char *name, bool stalled)
{
	bool ok;

	memset(r, 0, sizeof(*r));
	if (!start_switch()) {
		case_cannot_run(case_name(name), "switch did not start");
		r->ended = true;
		return false;
	}
	r->fl.port = raw_sender(&r->s);
	ok = r->fl.port && (r->a_up = node_init(&r->a, 1));
	CHECK(ok);
	if (ok) {
		glue_say_hello(r->fl.port, r->s.mac);
		if (stalled)
			r->a.t.eng->host.ops = &fh_stall_ops;
		r->pa = wire_up(&r->a, 1);
		usleep(100000);		/* let the switch register both */
		ok = r->pa && port_has_roce_lane(r->pa) == use_lane;
		CHECK(ok);
	}
	r->fl.from = &r->s;
	r->fl.to = &r->a;
	r->fl.qpn = 0x100;
	return ok;
}

/* Everything down, in orca-emu's order; the switch dropped nothing. */
static void rig_down(struct flood_rig *r, const char *name)
{
	atomic_store(&fh_stall, false);
	if (r->a_up)
		engine_set_roce_tx(r->a.t.eng, NULL, NULL);
	if (r->pa)
		port_stop(r->pa);
	if (r->fl.port)
		port_stop(r->fl.port);
	if (r->a_up)
		th_fini(&r->a.t);
	stop_switch();
	CHECK(switch_count("stall_dropped") == 0);
	CHECK(switch_count("send_errors") == 0);
	unlink(pcap_path);
	unlink(log_path);
	ktap_case_end("%s", case_name(name));
}

/*
 * A dead adapter (its firmware hung) still drains the wire: every frame
 * sent to it is dropped and counted (rx_dead), as a dead NIC's, and the
 * switch never has to hold its sender back for good nor drop for it.  On
 * the lane it is the engine thread that drains, running no pass.
 */
static void dead_adapter_drains(void)
{
	static const char name[] = "dead_adapter_drains";
	struct roce_stats st = { 0 };
	struct flood_rig r;
	uint64_t want;
	bool ok;

	ok = rig_up(&r, name, false);
	if (r.ended)
		return;
	ok = ok && engine_inject(r.a.t.eng, "hang") == 0;
	CHECK(ok);
	if (ok) {
		/*
		 * Through the port thread the engine's receive queue takes
		 * the first frames (a reset empties it); the lane drops all.
		 */
		want = use_lane ? FLOOD_FRAMES : FLOOD_FRAMES - ROCE_RXQ_LEN;
		flood_thread(&r.fl);
		CHECK(r.fl.failed == 0);
		for (int i = 0; i < WAIT_MS / 10; i++) {
			st = (struct roce_stats){ 0 };
			engine_flush(r.a.t.eng);
			roce_get_stats(r.a.t.eng, &st);
			if (st.rx_dead >= want)
				break;
			usleep(10000);
		}
		printf("# dead engine: dropped %llu of %u, handled %llu\n",
		       (unsigned long long)st.rx_dead, FLOOD_FRAMES,
		       (unsigned long long)st.rx_frames);
		CHECK(st.rx_dead == want && st.rx_frames == 0);
	}
	rig_down(&r, name);
}

/*
 * The port let go in mid-traffic, as orca-emu does at exit (engine
 * detached, then port_stop()): the engine may be processing frames that
 * lie in the port's ring, which port_stop() unmaps.  Detaching waits for
 * the engine to let go of the ring; nothing crashes (the tests run under
 * ASan) and the engine, without a port, goes on.  The engine is held
 * while the ring fills, and detached once it has taken a frame, so that
 * it is in a batch of frames when the port goes.
 */
static void detach_under_traffic(void)
{
	static const char name[] = "detach_under_traffic";
	struct roce_stats st = { 0 };
	struct flood_rig r;
	pthread_t th;

	if (!rig_up(&r, name, true)) {
		if (!r.ended)
			rig_down(&r, name);
		return;
	}
	atomic_store(&fh_stall, true);
	CHECK(pthread_create(&th, NULL, flood_thread, &r.fl) == 0);
	usleep(300000);		/* the rings fill up */
	atomic_store(&fh_stall, false);
	/* Into its first batch (a racy read: only when to go on). */
	for (int i = 0; i < WAIT_MS * 100 &&
	     !__atomic_load_n(&r.a.t.eng->roce->st.rx_frames,
			      __ATOMIC_RELAXED); i++)
		usleep(10);
	engine_set_roce_tx(r.a.t.eng, NULL, NULL);
	port_stop(r.pa);
	r.pa = NULL;
	pthread_join(th, NULL);
	engine_flush(r.a.t.eng);
	roce_get_stats(r.a.t.eng, &st);
	printf("# before the detach the engine took %llu frames\n",
	       (unsigned long long)st.rx_frames);
	/* It is alive: a command still runs. */
	CHECK(th_create_pd(&r.a.t) > 0);
	rig_down(&r, name);
}

int main(void)
{
	ktap_plan(10);
	wire_find_binary(wire_bin, sizeof(wire_bin));
	snprintf(dir, sizeof(dir), "/tmp/orca-roce-port.XXXXXX");
	if (access(wire_bin, X_OK) || !mkdtemp(dir)) {
		const char *why = access(wire_bin, X_OK) ?
			"no orca-wire to run" : "no temporary directory";

		for (int lane = 0; lane < 2; lane++) {
			use_lane = lane;
			case_cannot_run(case_name("rc_over_ports_and_wire_switch"),
					why);
			case_cannot_run(case_name("rx_flood_backpressure"),
					why);
			case_cannot_run(case_name("two_way_flood"), why);
			case_cannot_run(case_name("dead_adapter_drains"), why);
			case_cannot_run(case_name("detach_under_traffic"),
					why);
		}
		return ktap_finish();
	}
	snprintf(sw_path, sizeof(sw_path), "%s/switch", dir);
	snprintf(pcap_path, sizeof(pcap_path), "%s/wire.pcap", dir);
	snprintf(log_path, sizeof(log_path), "%s/wire.log", dir);
	for (int lane = 1; lane >= 0; lane--) {
		use_lane = lane;
		rc_over_ports();
		rx_flood_backpressure();
		two_way_flood();
		dead_adapter_drains();
		detach_under_traffic();
	}
	rmdir(dir);
	return ktap_finish();
}

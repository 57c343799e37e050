// SPDX-License-Identifier: GPL-2.0
/*
 * The RoCE transport over the real wire: two adapters (engines with fake
 * hosts), each with its Ethernet port (port.c) wired as orca-emu's main.c
 * wires it (port rx -> engine_roce_rx, engine tx -> port_send_roce), joined
 * by the orca-wire switch process over shared-memory links.  RC SEND, WRITE
 * and READ must move every byte, and every RoCE frame in the switch's
 * capture must be a well-formed RoCEv2 frame with a good ICRC.
 *
 * The switch binary is $ORCA_WIRE_BIN if set, else orca-wire next to the
 * tests' directory; the case is skipped when it cannot be run.
 */
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ktap.h"
#include "port.h"
#include "roce_node.h"

#define WAIT_MS		10000
#define IOVA		0x10000000ull
#define LEN		(256u << 10)

static char wire_bin[PATH_MAX];
static char dir[64], sw_path[128], pcap_path[128], log_path[128];
static pid_t sw_pid;

static void find_binary(void)
{
	char exe[PATH_MAX];
	ssize_t n;

	if (getenv("ORCA_WIRE_BIN")) {
		snprintf(wire_bin, sizeof(wire_bin), "%s",
			 getenv("ORCA_WIRE_BIN"));
		return;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[n < 0 ? 0 : n] = 0;
	snprintf(wire_bin, sizeof(wire_bin), "%s/../orca-wire", dirname(exe));
}

static bool start_switch(void)
{
	struct stat st;

	sw_pid = fork();
	if (sw_pid == 0) {
		execl(wire_bin, wire_bin, "--socket", sw_path, "--pcap",
		      pcap_path, "--log", log_path, (char *)NULL);
		_exit(127);
	}
	for (int i = 0; i < 300; i++) {
		if (stat(sw_path, &st) == 0)
			return true;
		usleep(10000);
	}
	return false;
}

static void stop_switch(void)
{
	int status;

	kill(sw_pid, SIGTERM);
	waitpid(sw_pid, &status, 0);
}

/* main.c's two hooks, as orca-emu has them. */
static void port_rx(void *ctx, const uint8_t *frame, size_t len)
{
	engine_roce_rx(ctx, frame, len);
}

static void port_tx(void *ctx, const uint8_t *frame, size_t len)
{
	port_send_roce(ctx, frame, len);
}

static struct emu_port *wire_up(struct node *n, int id)
{
	char nic[128], peer[128], wire[128];
	struct emu_port_config pc = {
		.nic_path = nic, .nic_peer = peer, .wire_path = wire,
		.switch_path = sw_path, .wire_shm = true,
	};
	struct emu_port *port;

	snprintf(nic, sizeof(nic), "%s/nic%d", dir, id);
	snprintf(peer, sizeof(peer), "%s/qemu%d", dir, id);
	snprintf(wire, sizeof(wire), "%s/wire%d", dir, id);
	memcpy(pc.mac, n->mac, 6);
	port = port_start(&pc, port_rx, n->t.eng);
	if (port) {
		/*
		 * The switch knows a port once it has sent something (a
		 * guest's ARP, in real life): say hello with a broadcast.
		 */
		uint8_t hello[60] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

		memcpy(hello + 6, n->mac, 6);
		hello[12] = 0x88;
		hello[13] = 0xb5;		/* local experimental */
		port_send_roce(port, hello, sizeof(hello));
		engine_set_roce_tx(n->t.eng, port_tx, port);
	}
	return port;
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

int main(void)
{
	struct rc_opts o = { .path_mtu = 3, .timeout = 14, .retry_cnt = 7,
			     .rnr_retry = 7, .min_rnr_timer = 1,
			     .access = ORCA_ACCESS_ALL };
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

	ktap_plan(1);
	find_binary();
	snprintf(dir, sizeof(dir), "/tmp/orca-roce-port.XXXXXX");
	if (access(wire_bin, X_OK) || !mkdtemp(dir)) {
		ktap_skip("rc_over_ports_and_wire_switch", "no orca-wire");
		return ktap_finish();
	}
	snprintf(sw_path, sizeof(sw_path), "%s/switch", dir);
	snprintf(pcap_path, sizeof(pcap_path), "%s/wire.pcap", dir);
	snprintf(log_path, sizeof(log_path), "%s/wire.log", dir);
	if (!start_switch()) {
		ktap_skip("rc_over_ports_and_wire_switch", "switch did not start");
		return ktap_finish();
	}

	ok = node_init(&a, 1) && node_init(&b, 2);
	CHECK(ok);
	if (ok) {
		pa = wire_up(&a, 1);
		pb = wire_up(&b, 2);
		CHECK(pa && pb);
		/* As orca-emu has them: on shared-memory links. */
		CHECK(pa && port_wire_is_shm(pa) && pb && port_wire_is_shm(pb));
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
		rmdir(dir);
	} else {
		printf("# capture kept in %s\n", pcap_path);
	}
	free(abuf.pages);
	free(bbuf.pages);
	ktap_case_end("rc_over_ports_and_wire_switch");
	return ktap_finish();
}

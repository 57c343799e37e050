// SPDX-License-Identifier: GPL-2.0
/*
 * Two orca-wire switches joined only through their uplinks (issue 33,
 * wire/uplink.h): a network namespace of its own holds a Linux bridge;
 * two veth pairs each have one end in the bridge and the other, in this
 * machine's namespace, as a switch's --uplink interface.  One adapter (an engine with a fake host, its port on a
 * shared-memory link) on each switch: RDMA WRITEs and READs of 1 MiB each
 * way, every byte checked, over RoCEv2 frames that crossed the host's
 * bridge; each switch counted frames in and out on its uplink and dropped
 * none.  Needs root (CAP_NET_ADMIN, CAP_NET_RAW, CAP_SYS_ADMIN for the
 * namespace), as make check's guests do: without it the cases fail.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ktap.h"
#include "port/port.h"
#include "port_glue.h"
#include "roce_node.h"
#include "wire_harness.h"

#define IOVA		0x20000000ull
#define LEN		(1u << 20)
#define MSG		(64u << 10)
#define WAIT_MS		30000

static char wire_bin[PATH_MAX], dir[40], ns[32], ifname[2][16];
static char sw_path[2][100], log_path[2][100];

/* Runs a shell command line made from @fmt and @a, @b; true if it exited 0. */
static bool sh(const char *fmt, const char *a, const char *b)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), fmt, a, b);
	return system(cmd) == 0;
}

/*
 * The namespace: bridge br0 with the veth ends p0 and p1 (nsenter enters
 * only its network: "ip netns exec" remounts /sys, which a chroot may not
 * allow); their peers, this test's two uplink interfaces, here, with no
 * addresses of their own.  9000-byte MTUs: a RoCE frame of a 4096-byte
 * MTU does not fit in 1500.
 */
static bool fabric_up(void)
{
	bool ok = sh("ip netns add %s%s", ns, "");

	for (int i = 0; ok && i < 2; i++)
		ok = sh("ip link add %s mtu 9000 type veth peer name p%s mtu 9000",
			ifname[i], i ? "1" : "0") &&
		     sh("ip link set p%s netns %s", i ? "1" : "0", ns) &&
		     sh("ip link set %s addrgenmode none && ip link set %s up",
			ifname[i], ifname[i]);
	return ok &&
	       sh("nsenter --net=/run/netns/%s sh -c 'ip link add br0 mtu 9000 type bridge && "
		  "ip link set p0 master br0 && ip link set p1 master br0 && "
		  "ip link set br0 up && ip link set p0 up && ip link set p1 up'%s",
		  ns, "");
}

static void fabric_down(void)
{
	for (int i = 0; i < 2; i++)
		sh("ip link del %s 2>/dev/null%s", ifname[i], "");
	sh("ip netns del %s 2>/dev/null%s", ns, "");
}

/* Switch @i, its uplink ifname[i]; false if it did not start. */
static bool switch_up(int i, pid_t *pid)
{
	const char *argv[] = {
		wire_bin, "--socket", sw_path[i], "--log", log_path[i],
		"--uplink", ifname[i], NULL,
	};

	unlink(log_path[i]);
	return wire_start(pid, sw_path[i], 5000, argv);
}

/* @n writes (or, @read, reads from @m) LEN bytes in MSG pieces; checked. */
static bool transfer(struct node *n, struct tqp *qp, struct tcq *cq,
		     struct tbuf *mine, struct tbuf *theirs, struct node *m,
		     bool read, int seed)
{
	struct orca_cqe c;
	bool ok = true;

	buf_fill(read ? m : n, read ? theirs : mine, 0, LEN, seed);
	for (unsigned int k = 0; k < LEN / MSG; k++) {
		struct orca_send_wqe_hdr h =
			wqe(read ? ORCA_WQE_RDMA_READ : ORCA_WQE_RDMA_WRITE, k);
		struct tsge s = { IOVA + (uint64_t)k * MSG, MSG, mine->key };

		h.remote_addr = htole64(IOVA + (uint64_t)k * MSG);
		h.rkey = htole32(theirs->key);
		post_send(n, qp, &h, &s, 1);
	}
	for (unsigned int k = 0; ok && k < LEN / MSG; k++) {
		ok = poll_cq(n, cq, &c, WAIT_MS) &&
		     c.status == ORCA_CQE_ST_SUCCESS && cqe_wr_id(&c) == k;
		if (!ok)
			printf("# %s %u: %s\n", read ? "READ" : "WRITE", k,
			       "no successful completion");
	}
	return ok && buf_check(read ? n : m, read ? mine : theirs, 0, LEN,
			       seed);
}

static void test_two_switches(void)
{
	struct rc_opts o = { .path_mtu = 5, .timeout = 14, .retry_cnt = 7,
			     .rnr_retry = 7, .min_rnr_timer = 1,
			     .access = ORCA_QP_ACCESS_ALL };
	struct node n[2];
	struct emu_port *p[2] = { NULL };
	struct tcq cq[2];
	struct tqp qp[2];
	struct tbuf buf[2] = { { 0 } };
	bool up[2] = { false }, ok;
	pid_t sw[2] = { -1, -1 };
	int i;

	ok = fabric_up();
	if (!ok)
		printf("# cannot make the namespace %s's bridge and veth pairs (root?)\n",
		       ns);
	CHECK(ok);
	for (i = 0; ok && i < 2; i++)
		ok = switch_up(i, &sw[i]);
	CHECK(ok);
	for (i = 0; ok && i < 2; i++) {
		ok = (up[i] = node_init(&n[i], i + 1));
		p[i] = ok ? glue_port_up(n[i].t.eng, n[i].mac, dir, i + 1,
					 sw_path[i], true) : NULL;
		ok = p[i] && node_cq(&n[i], &cq[i], 8) &&
		     node_buf(&n[i], &buf[i], IOVA, LEN, ORCA_ACCESS_ALL);
	}
	CHECK(ok);
	/* Each switch learns the other's adapter through the bridge. */
	usleep(200000);
	ok = ok && node_qp(&n[0], &qp[0], ORCA_QPT_RC, &cq[0], &cq[0]) &&
	     node_qp(&n[1], &qp[1], ORCA_QPT_RC, &cq[1], &cq[1]) &&
	     node_connect(&n[0], &qp[0], &n[1], qp[1].qpn, &o) &&
	     node_connect(&n[1], &qp[1], &n[0], qp[0].qpn, &o);
	CHECK(ok);
	CHECK(ok && transfer(&n[0], &qp[0], &cq[0], &buf[0], &buf[1], &n[1],
			     false, 5));
	CHECK(ok && transfer(&n[1], &qp[1], &cq[1], &buf[1], &buf[0], &n[0],
			     false, 6));
	CHECK(ok && transfer(&n[0], &qp[0], &cq[0], &buf[0], &buf[1], &n[1],
			     true, 7));
	for (i = 0; i < 2; i++) {
		if (up[i])
			engine_set_roce_tx(n[i].t.eng, NULL, NULL);
		if (p[i])
			port_stop(p[i]);
	}
	for (i = 0; i < 2; i++)
		if (up[i])
			th_fini(&n[i].t);
	for (i = 0; i < 2; i++) {
		unsigned long long rx, tx, dropped;

		CHECK(wire_stop(sw[i]));
		rx = wire_exit_count(log_path[i], "rx");
		tx = wire_exit_count(log_path[i], "tx");
		dropped = wire_exit_count(log_path[i], "uplink_dropped") +
			  wire_exit_count(log_path[i], "uplink_rx_dropped");
		printf("# switch %d: uplink %s: rx %llu tx %llu dropped %llu\n",
		       i, ifname[i], rx, tx, dropped);
		/* 3 MiB of 4 KiB packets crossed: each way, far more than 768. */
		CHECK(rx != ~0ull && rx > 256 && tx != ~0ull && tx > 256);
		CHECK(dropped == 0);
	}
	for (i = 0; i < 2; i++)
		free(buf[i].pages);
	fabric_down();
	ktap_case_end("rdma_between_two_switches_joined_by_a_bridge");
}

int main(void)
{
	ktap_plan(1);
	wire_find_binary(wire_bin, sizeof(wire_bin));
	snprintf(ns, sizeof(ns), "orca-uplink-%d", (int)getpid());
	for (int i = 0; i < 2; i++)
		snprintf(ifname[i], sizeof(ifname[i]), "ou%d%c",
			 (int)getpid() % 1000000, 'a' + i);
	snprintf(dir, sizeof(dir), "/tmp/orca-uplink.XXXXXX");
	if (access(wire_bin, X_OK) || !mkdtemp(dir)) {
		printf("# %s: no orca-wire, or no temporary directory\n",
		       wire_bin);
		CHECK(false);
		ktap_case_end("rdma_between_two_switches_joined_by_a_bridge");
		return ktap_finish();
	}
	for (int i = 0; i < 2; i++) {
		snprintf(sw_path[i], sizeof(sw_path[i]), "%s/switch%d", dir, i);
		snprintf(log_path[i], sizeof(log_path[i]), "%s/wire%d.log",
			 dir, i);
	}
	test_two_switches();
	fabric_down();
	for (int i = 0; i < 2 && !getenv("ORCA_KEEP_LOG"); i++)
		unlink(log_path[i]);
	glue_ports_unlink(dir, 1, 2);
	rmdir(dir);
	return ktap_finish();
}

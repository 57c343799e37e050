// SPDX-License-Identifier: GPL-2.0
/*
 * DCQCN's steady state (issue 33): three adapters (engines with fake hosts,
 * each with its port on a shared-memory link) keep 16 RDMA WRITEs of 64 KiB
 * outstanding each into a fourth, through orca-wire with --link-rate 200
 * and 256 KiB class queues (a lossy class), as make bench's incast does.
 * Each adapter sends no faster than its link (roce_line.c), and the switch
 * takes each adapter's frames no faster than that either.  After a second
 * to settle, the switch's counters are read (SIGUSR1: its "stats:" line,
 * which also clears its queues' high-water mark), the senders' completions
 * are counted over two seconds, and the counters are read again.  What
 * happened in between is the steady state:
 *   - with ECN (RED from 16 KiB to every packet at 64 KiB, decided as a
 *     packet leaves its queue: --ecn-at dequeue) and DCQCN (CNPs at most
 *     every 4 us per QP; its increase steps scaled to the link): nothing
 *     dropped, the receiver's queue never reached half of its 256 KiB, each
 *     sender had between 80% and 120% of a fair share, and marks, CNPs and
 *     rate cuts agree (a CNP for a mark at most, every CNP taken);
 *   - without congestion control the same window drops and the queue
 *     fills (so the first case's checks measure something).
 * Every WRITE completes successfully and the receiver's bytes are checked.
 * How much the first milliseconds drop is printed, not asserted: until
 * DCQCN has cut the senders' rates, three unpaced adapters and the switch
 * share this machine's two cores, and the receiver's queue drains at a
 * fraction of the link's rate (seen: 5 frames a ms instead of 24).
 */
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ktap.h"
#include "port/port.h"
#include "port_glue.h"
#include "roce_node.h"
#include "wire_harness.h"

#define SENDERS		3
#define IOVA		0x10000000ull
#define MSG		(64u << 10)
#define DEPTH		16		/* a sender's WRITEs outstanding */
#define REGION		(DEPTH * MSG)	/* each sender's at the receiver */
#define RATE_MBPS	"200"
#define QUEUE_BYTES	262144
#define ECN_RED		"16384,65536,100"
#define ECN_ALL_BYTES	65536		/* every ECT packet marked above */
#define SETTLE_S	1.0
#define WINDOW_S	2.0
#define DRAIN_S		30.0
#define FAIR_LOW	0.8
#define FAIR_HIGH	1.2

static char wire_bin[PATH_MAX], dir[40], sw_path[100], log_path[100];

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

struct sender {
	struct node n;
	struct tqp qp;
	struct tcq cq;
	struct tbuf buf;
	uint64_t posted, done, in_window;
	bool failed;
};

/* A WRITE of sender @i from its buffer's slot to the same slot of its region. */
static void post_write(struct sender *x, int i, uint32_t rkey)
{
	unsigned int slot = x->posted % DEPTH;
	struct orca_send_wqe_hdr h = wqe(ORCA_WQE_RDMA_WRITE, x->posted);
	struct tsge sge = { IOVA + (uint64_t)slot * MSG, MSG, x->buf.key };

	h.remote_addr = htole64(IOVA + (uint64_t)i * REGION +
				(uint64_t)slot * MSG);
	h.rkey = htole32(rkey);
	post_send(&x->n, &x->qp, &h, &sge, 1);
	x->posted++;
}

/* Takes @x's completions; true if there was one. */
static bool reap(struct sender *x, int i, bool counting)
{
	struct orca_cqe c;
	bool any = false;

	while (x->done < x->posted && take_cqe(&x->n, &x->cq, &c)) {
		if (c.status != ORCA_CQE_ST_SUCCESS ||
		    cqe_wr_id(&c) != x->done) {
			if (!x->failed)
				printf("# sender %d: WRITE %llu completed with status %u\n",
				       i, (unsigned long long)x->done, c.status);
			x->failed = true;
		}
		x->done++;
		x->in_window += counting;
		any = true;
	}
	return any;
}

/* Sends SIGUSR1 to the switch and waits for its @nth "stats:" line. */
static bool snapshot(pid_t sw, int nth)
{
	double give_up = now_s() + 5;

	kill(sw, SIGUSR1);
	while (wire_stats_count(log_path, nth, "dropped") == ~0ull) {
		if (now_s() > give_up)
			return false;
		usleep(1000);
	}
	return true;
}

static void steady(bool dcqcn)
{
	struct rc_opts o = { .path_mtu = 3, .timeout = 14, .retry_cnt = 7,
			     .rnr_retry = 7, .min_rnr_timer = 1,
			     .access = ORCA_QP_ACCESS_ALL };
	/*
	 * DCQCN's increase steps scaled to the link, as SET_CC (devlink's
	 * rp_ai_rate, rp_hai_rate) lets an administrator do: ConnectX's
	 * 5 and 50 Mb/s are 0.01% and 0.1% of a 40 Gb/s link, and 2.5% and
	 * 25% of this one, where three senders' hyper increases overshoot
	 * by 150 Mb/s a timer period and the queue swings to 180 KiB.
	 */
	struct roce_dcqcn_cfg rp = roce_dcqcn_defaults;
	char queue[16];
	const char *argv[16] = {
		wire_bin, "--socket", sw_path, "--log", log_path,
		"--link-rate", RATE_MBPS, "--queue-bytes", queue,
	};
	int argc = 9;
	const char *name = dcqcn ?
		"dcqcn_steady_state_fair_shares_no_drop_queue_below_threshold" :
		"without_congestion_control_the_same_window_drops";
	static struct sender s[SENDERS];
	struct node rn;
	struct tcq rcq;
	struct tqp rqp[SENDERS];
	struct tbuf rbuf = { 0 };
	struct emu_port *p[SENDERS + 1] = { NULL };
	bool up[SENDERS + 1] = { false }, ok, counting = false;
	unsigned long long drop0, drop1, mark0, mark1, deepest;
	uint64_t cnps = 0, marked_np = 0, handled = 0, ignored = 0, cuts = 0;
	uint64_t retransmits = 0, total = 0;
	double t0, t_start = 0, t_end = 0, fair, lo = 1e9, hi = 0;
	pid_t sw = 0;
	int i, snaps = 0;

	memset(s, 0, sizeof(s));
	rp.ai_mbps = 1;
	rp.hai_mbps = 5;
	snprintf(log_path, sizeof(log_path), "%s/wire-%s.log", dir,
		 dcqcn ? "dcqcn" : "nocc");
	snprintf(queue, sizeof(queue), "%u", QUEUE_BYTES);
	if (dcqcn) {
		argv[argc++] = "--ecn";
		argv[argc++] = ECN_RED;
		argv[argc++] = "--ecn-at";
		argv[argc++] = "dequeue";
	}
	unlink(log_path);
	ok = wire_start(&sw, sw_path, 5000, argv);
	CHECK(ok);
	for (i = 0; ok && i <= SENDERS; i++) {
		struct node *x = i ? &s[i - 1].n : &rn;

		ok = (up[i] = node_init(x, i + 1));
		p[i] = ok ? glue_port_up(x->t.eng, x->mac, dir, i + 1,
					 sw_path, true) : NULL;
		ok = p[i] != NULL;
		if (ok && dcqcn) {
			/* As orca-emu --ecn: ECT(0), CNPs at most every 4 us. */
			struct roce_ecn_cfg c = { .ect = true, .np = true,
						  .rp = true,
						  .cnp_interval_us = 4 };

			roce_set_ecn(x->t.eng, &c);
			roce_set_dcqcn(x->t.eng, &rp);
		}
	}
	ok = ok && node_cq(&rn, &rcq, 8) &&
	     node_buf(&rn, &rbuf, IOVA, (uint64_t)SENDERS * REGION,
		      ORCA_ACCESS_ALL);
	for (i = 0; ok && i < SENDERS; i++) {
		ok = node_cq(&s[i].n, &s[i].cq, 8) &&
		     node_buf(&s[i].n, &s[i].buf, IOVA, REGION,
			      ORCA_ACCESS_ALL);
		if (ok)
			buf_fill(&s[i].n, &s[i].buf, 0, REGION, i + 3);
	}
	CHECK(ok);
	usleep(100000);		/* the switch learns every MAC */
	for (i = 0; ok && i < SENDERS; i++)
		ok = node_qp(&rn, &rqp[i], ORCA_QPT_RC, &rcq, &rcq) &&
		     node_qp(&s[i].n, &s[i].qp, ORCA_QPT_RC, &s[i].cq,
			     &s[i].cq) &&
		     node_connect(&rn, &rqp[i], &s[i].n, s[i].qp.qpn, &o) &&
		     node_connect(&s[i].n, &s[i].qp, &rn, rqp[i].qpn, &o);
	CHECK(ok);

	/* Settle, then the window between two snapshots of the switch. */
	t0 = now_s();
	while (ok) {
		double t = now_s() - t0;
		bool any = false;

		if (!snaps && t >= SETTLE_S) {
			ok = snapshot(sw, snaps++);
			counting = true;
			t_start = now_s();
		} else if (snaps == 1 && t >= SETTLE_S + WINDOW_S) {
			t_end = now_s();
			counting = false;
			ok = snapshot(sw, snaps++);
			break;
		}
		for (i = 0; i < SENDERS; i++) {
			struct sender *x = &s[i];

			any |= reap(x, i, counting);
			while (!x->failed && x->posted - x->done < DEPTH)
				post_write(x, i, rbuf.key);
			ok = ok && !x->failed;
		}
		if (!any)
			usleep(200);
	}
	CHECK(ok);
	/* Every WRITE completes; the receiver has each sender's bytes. */
	for (double give_up = now_s() + DRAIN_S; ok;) {
		uint64_t out = 0;

		for (i = 0; i < SENDERS; i++) {
			reap(&s[i], i, false);
			out += s[i].posted - s[i].done;
			ok = ok && !s[i].failed;
		}
		if (!out)
			break;
		if (now_s() > give_up) {
			printf("# %llu WRITEs outstanding after %.0f s\n",
			       (unsigned long long)out, DRAIN_S);
			ok = false;
		}
		usleep(200);
	}
	CHECK(ok);
	for (i = 0; ok && i < SENDERS; i++)
		CHECK(buf_check(&rn, &rbuf, (uint64_t)i * REGION, REGION,
				i + 3));

	for (i = 0; i <= SENDERS; i++) {
		struct node *x = i ? &s[i - 1].n : &rn;
		struct roce_stats st;

		if (!up[i])
			continue;
		engine_flush(x->t.eng);
		roce_get_stats(x->t.eng, &st);
		if (!i) {
			marked_np = st.np_ecn_marked_roce_packets;
			cnps = st.np_cnp_sent;
			continue;
		}
		retransmits += st.retransmits;
		handled += st.rp_cnp_handled;
		ignored += st.rp_cnp_ignored;
		cuts += st.rp_rate_cuts;
	}
	for (i = 0; i <= SENDERS; i++) {
		struct node *x = i ? &s[i - 1].n : &rn;

		if (up[i])
			engine_set_roce_tx(x->t.eng, NULL, NULL);
		if (p[i])
			port_stop(p[i]);
	}
	for (i = 0; i <= SENDERS; i++)
		if (up[i])
			th_fini(i ? &s[i - 1].n.t : &rn.t);
	wire_stop(sw);

	drop0 = wire_stats_count(log_path, 0, "dropped");
	drop1 = wire_stats_count(log_path, 1, "dropped");
	mark0 = wire_stats_count(log_path, 0, "marked");
	mark1 = wire_stats_count(log_path, 1, "marked");
	deepest = wire_stats_count(log_path, 1, "deepest");
	for (i = 0; i < SENDERS; i++)
		total += s[i].in_window;
	fair = total / (double)SENDERS;
	for (i = 0; i < SENDERS && fair > 0; i++) {
		double share = s[i].in_window / fair;

		lo = share < lo ? share : lo;
		hi = share > hi ? share : hi;
	}
	printf("# window of %.2f s: %llu WRITEs (%.0f Mb/s of data through a %s Mb/s link), senders %llu/%llu/%llu: %.0f%% to %.0f%% of a fair share\n",
	       t_end - t_start, (unsigned long long)total,
	       total * MSG * 8.0 / (t_end - t_start) / 1e6, RATE_MBPS,
	       (unsigned long long)s[0].in_window,
	       (unsigned long long)s[1].in_window,
	       (unsigned long long)s[2].in_window, 100 * lo, 100 * hi);
	printf("# switch in the window: dropped %llu, marked %llu, deepest queue %llu bytes (of %u; all marked above %u); whole run: dropped %llu\n",
	       drop1 - drop0, mark1 - mark0, deepest, QUEUE_BYTES,
	       ECN_ALL_BYTES, wire_exit_count(log_path, "dropped"));
	printf("# receiver: %llu CE-marked packets, %llu CNPs; senders: %llu CNPs handled, %llu ignored, %llu rate cuts, %llu packets resent\n",
	       (unsigned long long)marked_np, (unsigned long long)cnps,
	       (unsigned long long)handled, (unsigned long long)ignored,
	       (unsigned long long)cuts, (unsigned long long)retransmits);
	CHECK(drop0 != ~0ull && drop1 != ~0ull && deepest != ~0ull);
	CHECK(mark0 != ~0ull && mark1 != ~0ull);
	/* The link was the limit, and it was used. */
	CHECK(total * MSG * 8.0 / (t_end - t_start) / 1e6 < 200);
	CHECK(total > 0);
	if (dcqcn) {
		CHECK(drop1 == drop0);
		CHECK(deepest < QUEUE_BYTES / 2);
		CHECK(lo >= FAIR_LOW && hi <= FAIR_HIGH);
		CHECK(mark1 > mark0);
		CHECK(cnps > 0 && cnps <= marked_np && handled == cnps &&
		      !ignored && cuts > 0 && cuts <= handled);
	} else {
		CHECK(drop1 > drop0 && deepest > ECN_ALL_BYTES);
		CHECK(retransmits > 0 && !marked_np && !cnps && !cuts);
	}
	for (i = 0; i < SENDERS; i++)
		free(s[i].buf.pages);
	free(rbuf.pages);
	ktap_case_end("%s", name);
}

int main(void)
{
	ktap_plan(2);
	wire_find_binary(wire_bin, sizeof(wire_bin));
	snprintf(dir, sizeof(dir), "/tmp/orca-steady.XXXXXX");
	if (access(wire_bin, X_OK) || !mkdtemp(dir)) {
		/* orca-wire is built with this test: its absence is a failure. */
		printf("# %s: no orca-wire, or no temporary directory\n",
		       wire_bin);
		for (int i = 0; i < 2; i++) {
			CHECK(false);
			ktap_case_end("steady state (not run)");
		}
		return ktap_finish();
	}
	snprintf(sw_path, sizeof(sw_path), "%s/switch", dir);
	steady(true);
	if (!getenv("ORCA_KEEP_LOG"))
		unlink(log_path);
	steady(false);
	if (!getenv("ORCA_KEEP_LOG"))
		unlink(log_path);
	glue_ports_unlink(dir, 1, SENDERS + 1);
	rmdir(dir);
	return ktap_finish();
}

// SPDX-License-Identifier: GPL-2.0
/*
 * bench_incast: an incast through a congested switch port, natively, no
 * guests, without and with congestion control (issue 33).  Five engines
 * with fake hosts (roce_node.h), each with its port on a shared-memory
 * link to an orca-wire switch that models its links (--link-rate 200: each
 * port's frames leave at 200 Mb/s from class queues of 256 KiB): three
 * bulk senders keep 16 RDMA WRITEs of 64 KiB outstanding each, and a probe
 * sender one 64 B WRITE at a time, all into the fifth adapter, whose port
 * is the bottleneck.  Four modes, one after the other, each with a fresh
 * switch and fresh adapters:
 *   - mode=nocc: no congestion control: the receiver's queue fills and
 *     drops (a lossy class), and RC recovers by retransmission;
 *   - mode=dcqcn: the switch marks CE above 16 KiB (--ecn 16384,65536,20,
 *     every packet above 64 KiB; --ecn-at dequeue, by the depth a packet
 *     leaves behind), the adapters send ECT(0), and answer CE
 *     with CNPs (at most one per QP per 4 us) and CNPs with DCQCN's rate
 *     cuts (its line rate the link's), as orca-emu --ecn does;
 *   - mode=pfc: the RoCE frames' class 0 lossless (--pfc 0, 802.1Qbb): the
 *     switch pauses the senders whose frames fill a quarter of the
 *     receiver's queue, the adapters hold their QPs meanwhile, and nothing
 *     is dropped; no ECN, no DCQCN;
 *   - mode=pfc-dcqcn: both, --pfc 0 and mode=dcqcn's ECN and DCQCN.
 * Measures, over -s SECONDS (default 3):
 *   - goodput: the payload of the bulk senders' completed WRITEs, Mb/s;
 *   - fairness: Jain's index of the three bulk senders' rates,
 *     (sum x)^2 / (3 * sum x^2): 1 is a fair share each, 1/3 one hog;
 *   - the probe's round trip (post to CQE) of a 64 B WRITE, p50 and p99 in
 *     us: the queueing delay a small flow suffers behind the incast;
 *   - drops and CE marks at the switch's egress (its exit log), packets
 *     the four senders sent again and their timeouts (timers and early
 *     retries), the receiver's CNPs and the senders' rate cuts;
 *   - each bulk sender's rate over every 10 ms, for a plot;
 *   - with --pfc: the switch's pauses and resumes, the senders' pauses,
 *     microseconds paused and QP steps held.
 * The QPs' timeout is 14 (4.096 us << 14, 67 ms): a full queue of 256 KiB
 * at 200 Mb/s is 10 ms of delay, and a timer shorter than a few of those
 * fires on packets that are only queued.  After the run every sender
 * writes once more from a buffer of its own pattern, and the receiver's
 * bytes are checked: its region of the last 16 WRITEs, and the last one's.
 * Built by the emulator Makefile without sanitizers; not a test.  For
 * scripts/bench/bench.sh it prints, per mode, one line of figures and one
 * line per 10 ms, and with --pfc one line of its counters:
 *   bench-incast mode=MODE goodput_mbps=X jain=J p50_us=A p99_us=B ...
 *   bench-incast-rate mode=MODE t_ms=T qp0=MBPS qp1=MBPS qp2=MBPS
 *   bench-incast-pfc mode=MODE pauses=N resumes=N paused=N paused_us=N held=N
 * Exit status 1 if a WRITE failed or a byte is wrong.
 *
 *   bench_incast [-s SECONDS] [-w ORCA_WIRE]
 */
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ktap.h"
#include "port/port.h"
#include "port_glue.h"
#include "roce_node.h"
#include "wire_harness.h"

#define BULK		3		/* bulk senders */
#define SENDERS		(BULK + 1)	/* and the probe, the last */
#define NODES		(SENDERS + 1)	/* and the receiver, node 0 */
#define IOVA		0x10000000ull
#define BIG		(64u << 10)
#define SMALL		64u
#define DEPTH		16		/* a bulk sender's WRITEs outstanding */
#define REGION		(DEPTH * BIG)	/* each sender's at the receiver */
#define TICK_S		0.010		/* the rate series' interval */
#define DRAIN_S		30		/* for the last WRITEs after the run */
#define RATE_MBPS	"200"
#define QUEUE_BYTES	"262144"
#define ECN_RED		"16384,65536,20"
#define PFC_CLASSES	"0"		/* the engines' RoCE frames' class */

/* A mode: its name, and ECN + DCQCN, PFC or both. */
struct mode {
	const char *name;
	bool ecn, pfc;
};

static const struct mode modes[] = {
	{ "nocc", false, false },
	{ "dcqcn", true, false },
	{ "pfc", false, true },
	{ "pfc-dcqcn", true, true },
};

struct sender {
	struct node *n;
	struct tqp qp;
	struct tcq cq;
	struct tbuf buf;		/* depth slots, then the last WRITE's */
	uint32_t len, depth, seed;
	uint64_t posted, cqes, ok, ok_in_run;
	unsigned int out, errors;
	double t_post;			/* the probe's last WRITE */
};

static char wire_bin[PATH_MAX], dir[64], sw_path[128], log_path[128];
static struct node n[NODES];
static struct sender s[SENDERS];
static struct tbuf rbuf;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A WRITE from slot @slot of @x's buffer to its region's @dst_slot. */
static void post_write(struct sender *x, unsigned int slot,
		       unsigned int dst_slot)
{
	struct orca_send_wqe_hdr h = wqe(ORCA_WQE_RDMA_WRITE, x->posted);
	struct tsge sge = { IOVA + (uint64_t)slot * x->len, x->len,
			    x->buf.key };

	h.remote_addr = htole64(IOVA + (uint64_t)(x - s) * REGION +
				(uint64_t)dst_slot * x->len);
	h.rkey = htole32(rbuf.key);
	post_send(x->n, &x->qp, &h, &sge, 1);
	x->posted++;
	x->out++;
}

/* Takes @x's CQEs; true if there was one.  Probe round trips go to @rtt. */
static bool reap(struct sender *x, double **rtt, size_t *nrtt, size_t *cap)
{
	struct orca_cqe c;
	bool any = false;

	while (x->out && take_cqe(x->n, &x->cq, &c)) {
		any = true;
		if (c.status != ORCA_CQE_ST_SUCCESS ||
		    cqe_wr_id(&c) != x->cqes) {
			if (!x->errors)
				printf("# sender %d: WRITE %llu completed with status %u (wr_id %llu)\n",
				       (int)(x - s),
				       (unsigned long long)x->cqes, c.status,
				       (unsigned long long)cqe_wr_id(&c));
			x->errors++;
		} else {
			x->ok++;
		}
		x->cqes++;
		x->out--;
		if (rtt && !x->errors) {
			if (*nrtt == *cap) {
				*cap = *cap ? 2 * *cap : 4096;
				*rtt = realloc(*rtt, *cap * sizeof(**rtt));
				if (!*rtt)
					abort();
			}
			(*rtt)[(*nrtt)++] = (now_s() - x->t_post) * 1e6;
		}
	}
	return any;
}

/* Polls every sender until none has a WRITE outstanding, or @secs pass. */
static bool drain(double secs)
{
	double give_up = now_s() + secs;
	unsigned int out;

	do {
		out = 0;
		for (int i = 0; i < SENDERS; i++) {
			reap(&s[i], NULL, NULL, NULL);
			out += s[i].out;
		}
		if (!out)
			return true;
		sched_yield();
	} while (now_s() < give_up);
	printf("# %u WRITEs still outstanding after %.0f s\n", out, secs);
	return false;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The nearest-rank percentile @p of the sorted @v. */
static double pct(const double *v, size_t nv, double p)
{
	size_t k = (size_t)(p * nv);

	if (k < p * nv)
		k++;
	return nv ? v[k ? k - 1 : 0] : 0;
}

static void set_ecn(struct node *x)
{
	/* As orca-emu --ecn: ECT(0), CNPs at most every 4 us, DCQCN. */
	struct roce_ecn_cfg c = { .ect = true, .np = true, .rp = true,
				  .cnp_interval_us = 4 };

	roce_set_ecn(x->t.eng, &c);
}

/* Brings up the switch, the adapters and the QPs; false if one failed. */
static bool setup(const struct mode *m, pid_t *sw,
		  struct emu_port *p[NODES], bool up[NODES])
{
	struct rc_opts o = { .path_mtu = 3, .timeout = 14, .retry_cnt = 7,
			     .rnr_retry = 7, .min_rnr_timer = 1,
			     .access = ORCA_QP_ACCESS_ALL };
	const char *argv[16] = {
		wire_bin, "--socket", sw_path, "--log", log_path,
		"--link-rate", RATE_MBPS, "--queue-bytes", QUEUE_BYTES,
	};
	int argc = 9;
	struct tcq rcq;
	struct tqp rqp;
	bool ok;
	int i;

	if (m->ecn) {
		argv[argc++] = "--ecn";
		argv[argc++] = ECN_RED;
		argv[argc++] = "--ecn-at";
		argv[argc++] = "dequeue";
	}
	if (m->pfc) {
		argv[argc++] = "--pfc";
		argv[argc++] = PFC_CLASSES;
	}
	unlink(log_path);
	if (!wire_start(sw, sw_path, 5000, argv))
		return false;
	for (i = 0, ok = true; ok && i < NODES; i++) {
		ok = (up[i] = node_init(&n[i], i + 1));
		p[i] = ok ? glue_port_up(n[i].t.eng, n[i].mac, dir, i + 1,
					 sw_path, true) : NULL;
		ok = p[i] != NULL;
		if (ok && m->ecn)
			set_ecn(&n[i]);
	}
	if (!ok) {
		printf("# adapter %d did not start\n", i - 1);
		return false;
	}
	if (!node_cq(&n[0], &rcq, 8) ||
	    !node_buf(&n[0], &rbuf, IOVA, (uint64_t)SENDERS * REGION,
		      ORCA_ACCESS_ALL))
		return false;
	for (i = 0; i < SENDERS; i++) {
		struct sender *x = &s[i];

		x->n = &n[i + 1];
		x->len = i < BULK ? BIG : SMALL;
		x->depth = i < BULK ? DEPTH : 1;
		x->seed = i + 3;
		if (!node_cq(x->n, &x->cq, 8) ||
		    !node_buf(x->n, &x->buf, IOVA,
			      (uint64_t)(x->depth + 1) * x->len,
			      ORCA_ACCESS_ALL))
			return false;
		/* The slots one pattern, the last WRITE's slot another. */
		buf_fill(x->n, &x->buf, 0, (uint64_t)x->depth * x->len,
			 x->seed);
		buf_fill(x->n, &x->buf, (uint64_t)x->depth * x->len, x->len,
			 x->seed + 16);
	}
	usleep(100000);		/* the switch learns every MAC */
	for (i = 0; i < SENDERS; i++) {
		struct sender *x = &s[i];

		if (!node_qp(&n[0], &rqp, ORCA_QPT_RC, &rcq, &rcq) ||
		    !node_qp(x->n, &x->qp, ORCA_QPT_RC, &x->cq, &x->cq) ||
		    !node_connect(&n[0], &rqp, x->n, x->qp.qpn, &o) ||
		    !node_connect(x->n, &x->qp, &n[0], rqp.qpn, &o)) {
			printf("# QPs of sender %d not connected\n", i);
			return false;
		}
	}
	return true;
}

/*
 * The last WRITE of each sender, from its slot of another pattern to its
 * region's first slot, then the receiver's bytes: the region the run's
 * WRITEs filled, before, and the last WRITE's, after.
 */
static bool check_data(void)
{
	bool ok = true;

	for (int i = 0; i < SENDERS; i++) {
		struct sender *x = &s[i];
		uint64_t slots = x->ok < x->depth ? x->ok : x->depth;

		if (!buf_check(&n[0], &rbuf, (uint64_t)i * REGION,
			       slots * x->len, x->seed)) {
			printf("# sender %d: its WRITEs' bytes are wrong\n", i);
			ok = false;
		}
		if (!x->errors)
			post_write(x, x->depth, 0);
	}
	if (!drain(DRAIN_S))
		return false;
	for (int i = 0; i < SENDERS; i++) {
		struct sender *x = &s[i];

		if (x->errors)
			continue;
		if (!buf_check(&n[0], &rbuf, (uint64_t)i * REGION, x->len,
			       x->seed + 16)) {
			printf("# sender %d: its last WRITE's bytes are wrong\n",
			       i);
			ok = false;
		}
	}
	return ok;
}

struct figures {
	uint64_t retransmits, timeouts, cnps, cuts;
	uint64_t paused, paused_us, held;	/* the senders' PFC */
	unsigned long long dropped, marked, pauses, resumes;
};

static void stats(struct figures *f)
{
	memset(f, 0, sizeof(*f));
	for (int i = 0; i < NODES; i++) {
		struct roce_stats st;

		engine_flush(n[i].t.eng);
		roce_get_stats(n[i].t.eng, &st);
		if (!i) {
			f->cnps = st.np_cnp_sent;
			continue;
		}
		f->retransmits += st.retransmits;
		f->timeouts += st.timeouts + st.fast_retries;
		f->cuts += st.rp_rate_cuts;
		f->paused += st.rx_pfc_pause_transitions;
		f->paused_us += st.rx_pfc_pause_us;
		f->held += st.pfc_held;
	}
}

/* One mode: a fresh switch and fresh adapters; false on a failure. */
static bool run(const struct mode *m, double secs)
{
	const char *mode = m->name;
	unsigned int ticks = (unsigned int)(secs / TICK_S) + 1, k, nt = 0;
	uint64_t *tick_ok = calloc((size_t)ticks * BULK, sizeof(uint64_t));
	double *tick_t = calloc(ticks, sizeof(double));
	struct emu_port *p[NODES] = { NULL };
	bool up[NODES] = { false }, ok;
	double t0, t, stop, elapsed = 0, *rtt = NULL;
	double mbps[BULK], sum = 0, sq = 0, jain, p50, p99, last_t = 0;
	uint64_t last_ok[BULK] = { 0 };
	size_t nrtt = 0, cap = 0;
	unsigned int errors = 0;
	struct figures f;
	pid_t sw = 0;
	int i;

	if (!tick_ok || !tick_t)
		abort();
	memset(s, 0, sizeof(s));
	ok = setup(m, &sw, p, up);
	if (!ok)
		goto out;
	t0 = now_s();
	stop = t0 + secs;
	for (;;) {
		bool busy = false;

		t = now_s();
		/* A sample per tick; a tick missed is in the next one. */
		if (nt < ticks && t - t0 >= (nt + 1) * TICK_S) {
			k = (unsigned int)((t - t0) / TICK_S);
			while (nt < ticks && nt + 1 < k)
				tick_t[nt++] = -1;	/* no sample */
			if (nt < ticks) {
				tick_t[nt] = t - t0;
				for (i = 0; i < BULK; i++)
					tick_ok[nt * BULK + i] = s[i].ok;
				nt++;
			}
		}
		if (t >= stop)
			break;
		for (i = 0; i < SENDERS; i++) {
			struct sender *x = &s[i];

			if (reap(x, i == BULK ? &rtt : NULL, &nrtt, &cap))
				busy = true;
			while (!x->errors && x->out < x->depth) {
				if (i == BULK)
					x->t_post = now_s();
				post_write(x, x->posted % x->depth,
					   x->posted % x->depth);
			}
		}
		if (!busy)
			sched_yield();
	}
	elapsed = t - t0;
	for (i = 0; i < SENDERS; i++)
		s[i].ok_in_run = s[i].ok;
	ok = drain(DRAIN_S);
	for (i = 0; i < SENDERS; i++)
		errors += s[i].errors;
	if (errors)
		printf("# mode=%s: %u WRITEs failed\n", mode, errors);
	ok = ok && !errors && check_data();
	stats(&f);
out:
	for (i = 0; i < NODES; i++) {
		if (up[i])
			engine_set_roce_tx(n[i].t.eng, NULL, NULL);
		if (p[i])
			port_stop(p[i]);
	}
	for (i = 0; i < NODES; i++)
		if (up[i])
			th_fini(&n[i].t);
	for (i = 0; i < SENDERS; i++) {
		free(s[i].buf.pages);
		s[i].buf.pages = NULL;
	}
	free(rbuf.pages);
	memset(&rbuf, 0, sizeof(rbuf));
	if (ktap_case_failures) {
		printf("# mode=%s: an adapter's DMA was still going at its end\n",
		       mode);
		ktap_case_failures = 0;
		ok = false;
	}
	/* The switch's counters: its egress exit line, once it has gone. */
	wire_stop(sw);
	f.dropped = wire_exit_count(log_path, "dropped");
	f.marked = wire_exit_count(log_path, "marked");
	f.pauses = m->pfc ? wire_exit_count(log_path, "pause") : 0;
	f.resumes = m->pfc ? wire_exit_count(log_path, "resume") : 0;
	if (ok && (f.dropped == ~0ull || f.marked == ~0ull ||
		   f.pauses == ~0ull || f.resumes == ~0ull)) {
		printf("# mode=%s: no egress or PFC counters in the switch's log %s\n",
		       mode, log_path);
		ok = false;
	}
	if (!ok) {
		printf("# mode=%s: not measured\n", mode);
		goto done;
	}
	for (i = 0; i < BULK; i++) {
		mbps[i] = s[i].ok_in_run * (double)BIG * 8 / elapsed / 1e6;
		sum += mbps[i];
		sq += mbps[i] * mbps[i];
	}
	jain = sq ? sum * sum / (BULK * sq) : 0;
	qsort(rtt, nrtt, sizeof(*rtt), cmp_double);
	p50 = pct(rtt, nrtt, 0.50);
	p99 = pct(rtt, nrtt, 0.99);
	printf("# mode=%s: %.2f s, %llu + %llu + %llu WRITEs of 64 KiB, %zu probe WRITEs of 64 B (max %.0f us); switch: dropped %llu, marked %llu\n",
	       mode, elapsed, (unsigned long long)s[0].ok_in_run,
	       (unsigned long long)s[1].ok_in_run,
	       (unsigned long long)s[2].ok_in_run, nrtt,
	       nrtt ? rtt[nrtt - 1] : 0, f.dropped, f.marked);
	printf("bench-incast mode=%s goodput_mbps=%.1f jain=%.3f p50_us=%.0f p99_us=%.0f drops=%llu retransmits=%llu timeouts=%llu cnps=%llu cuts=%llu marked=%llu senders_mbps=%.1f,%.1f,%.1f\n",
	       mode, sum, jain, p50, p99, f.dropped,
	       (unsigned long long)f.retransmits,
	       (unsigned long long)f.timeouts, (unsigned long long)f.cnps,
	       (unsigned long long)f.cuts, f.marked, mbps[0], mbps[1],
	       mbps[2]);
	if (m->pfc)
		printf("bench-incast-pfc mode=%s pauses=%llu resumes=%llu paused=%llu paused_us=%llu held=%llu\n",
		       mode, f.pauses, f.resumes,
		       (unsigned long long)f.paused,
		       (unsigned long long)f.paused_us,
		       (unsigned long long)f.held);
	for (k = 0; k < nt; k++) {
		if (tick_t[k] < 0)
			continue;
		printf("bench-incast-rate mode=%s t_ms=%u", mode,
		       (k + 1) * (unsigned int)(TICK_S * 1000 + 0.5));
		for (i = 0; i < BULK; i++) {
			printf(" qp%d=%.1f", i,
			       (tick_ok[k * BULK + i] - last_ok[i]) *
			       (double)BIG * 8 / (tick_t[k] - last_t) / 1e6);
			last_ok[i] = tick_ok[k * BULK + i];
		}
		last_t = tick_t[k];
		printf("\n");
	}
done:
	fflush(stdout);
	if (!getenv("ORCA_KEEP_LOG"))
		unlink(log_path);
	free(rtt);
	free(tick_ok);
	free(tick_t);
	return ok;
}

int main(int argc, char **argv)
{
	double secs = 3;
	bool ok = true;
	int opt;

	/* Lines in order with the engines' log on stderr. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	wire_bin_beside_self(wire_bin, sizeof(wire_bin), "orca-wire");
	while ((opt = getopt(argc, argv, "s:w:")) != -1) {
		switch (opt) {
		case 's':
			secs = strtod(optarg, NULL);
			break;
		case 'w':
			snprintf(wire_bin, sizeof(wire_bin), "%s", optarg);
			break;
		default:
			fprintf(stderr, "usage: %s [-s SECONDS] [-w ORCA_WIRE]\n",
				argv[0]);
			return 2;
		}
	}
	if (!(secs > 0 && secs <= 600))
		return 2;
	snprintf(dir, sizeof(dir), "/tmp/orca-bench-incast.XXXXXX");
	if (access(wire_bin, X_OK) || !mkdtemp(dir)) {
		printf("# %s: no orca-wire, or no temporary directory\n",
		       wire_bin);
		return 1;
	}
	snprintf(sw_path, sizeof(sw_path), "%s/switch", dir);
	printf("# incast: %d senders of 64 KiB WRITEs (%d outstanding each) and a 64 B probe into one adapter, through orca-wire --link-rate %s --queue-bytes %s, %.0f s a mode\n",
	       BULK, DEPTH, RATE_MBPS, QUEUE_BYTES, secs);
	for (size_t k = 0; k < sizeof(modes) / sizeof(modes[0]); k++) {
		snprintf(log_path, sizeof(log_path), "%s/wire-%s.log", dir,
			 modes[k].name);
		ok = run(&modes[k], secs) && ok;
	}
	glue_ports_unlink(dir, 1, NODES);
	if (!getenv("ORCA_KEEP_LOG"))
		rmdir(dir);
	return ok ? 0 : 1;
}

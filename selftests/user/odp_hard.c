// SPDX-License-Identifier: GPL-2.0
/*
 * On-demand MRs (IBV_ACCESS_ON_DEMAND) while the kernel's memory
 * management changes what is behind them, on one adapter: QP A writes,
 * through the adapter's loopback, into an on-demand MR of QP B's, whose
 * pages the kernel's mmu notifier takes away and the adapter's page faults
 * bring back.  Every byte written is checked through the process's own
 * mapping after its completion.
 *
 *   madvise: 64 WRITEs of 64 KiB, each with its own pattern, with
 *     madvise(MADV_DONTNEED) of the whole 1 MiB MR every 8: every WRITE
 *     lands whole (never a stale or zero byte), and the driver invalidated
 *     (driver_odp_invalidations rose) and faulted again;
 *   fork: a child forked after a WRITE keeps its copy of the MR while the
 *     parent's next WRITE lands in the parent's pages (the notifier
 *     write-protects them at fork, the write fault breaks the sharing);
 *   munmap: with the second half of the MR unmapped, a WRITE to the first
 *     half lands; one to the hole completes with IBV_WC_REM_ACCESS_ERR
 *     (the fault ends unresolved) and nothing of it appears anywhere;
 *   mremap: after mremap(MREMAP_MAYMOVE) of the MR's memory elsewhere, the
 *     data written before is at the new address (the moved pages), and a
 *     WRITE through the MR (still the old range, now unmapped) fails with
 *     IBV_WC_REM_ACCESS_ERR;
 *   read both: a READ from an on-demand MR of B's into an on-demand MR of
 *     A's, neither touched since registration: the responder faults its
 *     source in (RNR NAK meanwhile) and the requester its sink (the
 *     response is dropped and asked for again); the bytes arrive whole;
 *   many QPs: 8 QPs WRITE at once into their own 64 KiB of one on-demand
 *     MR that has no page yet: each faults, all land whole;
 *   hung fault: with the adapter told to lose the next page fault
 *     (the emulator's "odp-drop-faults 1" and "odp-fault-timeout 1000",
 *     written to the file ORCA_CTL names), a WRITE into a page without a
 *     translation ends, once the fault timed out, in IBV_WC_REM_ACCESS_ERR
 *     (odp_fault_timeouts rose); the QPs and the MR are then destroyed
 *     cleanly and a new pair's WRITE into a new MR lands;
 *   hugetlb: an on-demand MR with IBV_ACCESS_HUGETLB over two 2 MiB huge
 *     pages (MAP_HUGETLB; the caller reserves them): a WRITE into each
 *     lands where it was addressed, the first intact after the second;
 *   implicit: the device reports IBV_ODP_SUPPORT_IMPLICIT, and one MR over
 *     the whole address space (ibv_reg_mr(NULL, SIZE_MAX)) serves WRITEs
 *     into an mmap()ed range and into the heap, far apart, and as source
 *     (the requester faults) a WRITE from one mmap()ed range into another;
 *     a range unmapped after it was written: a WRITE there fails with
 *     IBV_WC_REM_ACCESS_ERR; the MR deregisters cleanly.
 * Counters are read from sysfs (ports/1/hw_counters).
 *
 * Usage: ORCA_CTL=PATH odp_hard DEV GID_INDEX
 * Output: KTAP case lines; exit status 0 if every case passed.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "verbs_helpers.h"

#define MR_LEN		(1u << 20)
#define MSG		(64u << 10)
#define WAIT_MS		60000

struct rig {
	struct ibv_context *ctx;
	const char *dev;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *a, *b;
	uint8_t *src;			/* A's pinned source */
	struct ibv_mr *src_mr;
	int gid_index;
};

/* A counter of rdma statistic, as sysfs has it (at most 10 ms old). */
static uint64_t counter(const char *dev, const char *name)
{
	char path[256];
	unsigned long long v = 0;
	FILE *f;

	snprintf(path, sizeof(path),
		 "/sys/class/infiniband/%s/ports/1/hw_counters/%s", dev, name);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fscanf(f, "%llu", &v) != 1)
		v = 0;
	fclose(f);
	return v;
}

static uint8_t pat(uint32_t seed, uint64_t i)
{
	return (uint8_t)((i * 131 + seed * 7919 + (i >> 12)) ^ (seed >> 3));
}

static void fill(uint8_t *p, uint64_t len, uint32_t seed)
{
	for (uint64_t i = 0; i < len; i++)
		p[i] = pat(seed, i);
}

static bool check(const uint8_t *p, uint64_t len, uint32_t seed)
{
	for (uint64_t i = 0; i < len; i++) {
		if (p[i] != pat(seed, i)) {
			printf("# byte %llu is %#x, want %#x\n",
			       (unsigned long long)i, p[i], pat(seed, i));
			return false;
		}
	}
	return true;
}

/* A's QP and B's joined through the device, both RTS. */
static void rig_up(struct rig *r, const char *dev, int gid_index)
{
	struct rc_conn c = { .gid_index = gid_index, .mtu = IBV_MTU_1024,
			     .timeout = 14, .access = IBV_ACCESS_REMOTE_WRITE |
			     IBV_ACCESS_REMOTE_READ | IBV_ACCESS_LOCAL_WRITE };

	memset(r, 0, sizeof(*r));
	r->dev = dev;
	r->gid_index = gid_index;
	r->ctx = open_dev(dev);
	r->pd = ibv_alloc_pd(r->ctx);
	r->cq = ibv_create_cq(r->ctx, 64, NULL, NULL, 0);
	if (!r->pd || !r->cq)
		die("pd/cq");
	r->a = create_rc_qp(r->pd, r->cq, 16, 1);
	r->b = create_rc_qp(r->pd, r->cq, 1, 1);
	query_gid(r->ctx, gid_index, &c.gid);
	c.dest_qpn = r->b->qp_num;
	c.label = "A ";
	connect_rc(r->a, &c);
	c.dest_qpn = r->a->qp_num;
	c.label = "B ";
	connect_rc(r->b, &c);
	r->src = aligned_alloc(4096, MR_LEN);
	if (!r->src)
		die("aligned_alloc");
	r->src_mr = ibv_reg_mr(r->pd, r->src, MR_LEN, IBV_ACCESS_LOCAL_WRITE);
	if (!r->src_mr)
		die("ibv_reg_mr");
}

/* rig_down() in two: what uses the PD, then the PD and the device. */
static void rig_down_keep_pd(struct rig *r)
{
	ibv_destroy_qp(r->a);
	ibv_destroy_qp(r->b);
	ibv_dereg_mr(r->src_mr);
	ibv_destroy_cq(r->cq);
	free(r->src);
}

static void rig_down_pd(struct rig *r)
{
	ibv_dealloc_pd(r->pd);
	ibv_close_device(r->ctx);
}

static void rig_down(struct rig *r)
{
	rig_down_keep_pd(r);
	rig_down_pd(r);
}

/* An RDMA WRITE of @len bytes of A's source to @raddr: its status. */
static int write_to(struct rig *r, uint64_t raddr, uint32_t rkey,
		    uint32_t len)
{
	struct ibv_sge s = { (uintptr_t)r->src, len, r->src_mr->lkey };
	struct ibv_send_wr w = {
		.wr_id = 1, .sg_list = &s, .num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { raddr, rkey },
	}, *bad;
	struct ibv_wc wc;

	if (ibv_post_send(r->a, &w, &bad))
		die("ibv_post_send");
	return wait_one_wc(r->cq, &wc, WAIT_MS) ? (int)wc.status : -1;
}

/* A WRITE of MSG bytes seeded @seed to @dst lands whole: true if so. */
static bool lands(struct rig *r, uint8_t *dst, uint32_t rkey, uint32_t seed)
{
	fill(r->src, MSG, seed);
	return write_to(r, (uintptr_t)dst, rkey, MSG) == IBV_WC_SUCCESS &&
	       check(dst, MSG, seed);
}

static struct ibv_mr *odp_mr(struct rig *r, void *p, size_t len)
{
	struct ibv_mr *mr = ibv_reg_mr(r->pd, p, len, IBV_ACCESS_ON_DEMAND |
				       IBV_ACCESS_LOCAL_WRITE |
				       IBV_ACCESS_REMOTE_WRITE |
				       IBV_ACCESS_REMOTE_READ);

	if (!mr)
		die("ibv_reg_mr(ON_DEMAND)");
	return mr;
}

static void *map_anon(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		die("mmap");
	return p;
}

static void case_madvise(const char *dev, int gid_index)
{
	uint64_t inv0, flt0;
	bool ok = true;
	struct ibv_mr *mr;
	struct rig r;
	uint8_t *dst;

	rig_up(&r, dev, gid_index);
	dst = map_anon(MR_LEN);
	mr = odp_mr(&r, dst, MR_LEN);
	inv0 = counter(dev, "driver_odp_invalidations");
	flt0 = counter(dev, "driver_odp_faults");
	for (uint32_t i = 0; i < 64 && ok; i++) {
		uint64_t off = (uint64_t)(i % (MR_LEN / MSG)) * MSG;

		if (i % 8 == 7 && madvise(dst, MR_LEN, MADV_DONTNEED))
			die("madvise");
		fill(r.src, MSG, i + 1);
		ok = write_to(&r, (uintptr_t)dst + off, mr->rkey, MSG) ==
		     IBV_WC_SUCCESS && check(dst + off, MSG, i + 1);
	}
	result(ok, "madvise(DONTNEED) under a WRITE stream: every WRITE lands whole");
	usleep(50000);		/* the counters' lifespan */
	printf("# invalidations +%llu, faults +%llu\n",
	       (unsigned long long)(counter(dev, "driver_odp_invalidations") -
				    inv0),
	       (unsigned long long)(counter(dev, "driver_odp_faults") - flt0));
	result(counter(dev, "driver_odp_invalidations") > inv0 &&
	       counter(dev, "driver_odp_faults") > flt0 + 8,
	       "madvise: the driver invalidated and faulted again");
	ibv_dereg_mr(mr);
	munmap(dst, MR_LEN);
	rig_down(&r);
}

static void case_fork(const char *dev, int gid_index)
{
	int to_child[2], to_parent[2];
	bool ok = true, child_ok = false;
	struct ibv_mr *mr;
	struct rig r;
	uint8_t *dst;
	char c;
	pid_t pid;

	rig_up(&r, dev, gid_index);
	dst = map_anon(MR_LEN);
	mr = odp_mr(&r, dst, MR_LEN);
	fill(r.src, MSG, 101);
	ok = write_to(&r, (uintptr_t)dst, mr->rkey, MSG) == IBV_WC_SUCCESS &&
	     check(dst, MSG, 101);
	if (pipe(to_child) || pipe(to_parent))
		die("pipe");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		/* The child: its copy stays 101 while the parent writes. */
		if (read(to_child[0], &c, 1) != 1)
			_exit(2);
		c = check(dst, MSG, 101) ? 'y' : 'n';
		if (write(to_parent[1], &c, 1) != 1)
			_exit(2);
		_exit(0);
	}
	fill(r.src, MSG, 102);
	ok = ok && write_to(&r, (uintptr_t)dst, mr->rkey, MSG) ==
		   IBV_WC_SUCCESS && check(dst, MSG, 102);
	c = 'g';
	if (write(to_child[1], &c, 1) == 1 && read(to_parent[0], &c, 1) == 1)
		child_ok = c == 'y';
	waitpid(pid, NULL, 0);
	result(ok, "fork: the parent's WRITE after fork lands in the parent's pages");
	result(child_ok, "fork: the child's copy keeps what was there at fork");
	ibv_dereg_mr(mr);
	munmap(dst, MR_LEN);
	rig_down(&r);
}

static void case_munmap(const char *dev, int gid_index)
{
	uint64_t err0;
	struct ibv_mr *mr;
	struct rig r;
	uint8_t *dst;
	int st;

	rig_up(&r, dev, gid_index);
	dst = map_anon(MR_LEN);
	mr = odp_mr(&r, dst, MR_LEN);
	if (munmap(dst + MR_LEN / 2, MR_LEN / 2))
		die("munmap");
	result(lands(&r, dst, mr->rkey, 201),
	       "munmap: a WRITE to the half still mapped lands");
	err0 = counter(dev, "driver_odp_fault_errors");
	st = write_to(&r, (uintptr_t)dst + MR_LEN / 2, mr->rkey, MSG);
	printf("# the WRITE into the hole completed with status %d (%s)\n", st,
	       st >= 0 ? ibv_wc_status_str(st) : "none");
	result(st == IBV_WC_REM_ACCESS_ERR,
	       "munmap: a WRITE into the hole: IBV_WC_REM_ACCESS_ERR");
	/* The core caches hw_counters for 10 ms (their lifespan). */
	usleep(50000);
	printf("# driver_odp_fault_errors %llu -> %llu\n",
	       (unsigned long long)err0,
	       (unsigned long long)counter(dev, "driver_odp_fault_errors"));
	result(counter(dev, "driver_odp_fault_errors") > err0,
	       "munmap: the driver ended the fault unresolved");
	result(check(dst, MSG, 201), "munmap: the mapped half is intact");
	ibv_dereg_mr(mr);
	munmap(dst, MR_LEN / 2);
	rig_down(&r);
}

static void case_mremap(const char *dev, int gid_index)
{
	struct ibv_mr *mr;
	uint8_t *dst, *moved, *hold;
	struct rig r;
	int st;

	rig_up(&r, dev, gid_index);
	dst = map_anon(MR_LEN);
	mr = odp_mr(&r, dst, MR_LEN);
	result(lands(&r, dst, mr->rkey, 301),
	       "mremap: a WRITE before the move lands");
	/* Somewhere else for sure: a reserved range to move onto. */
	hold = map_anon(MR_LEN);
	moved = mremap(dst, MR_LEN, MR_LEN, MREMAP_MAYMOVE | MREMAP_FIXED,
		       hold);
	if (moved == MAP_FAILED)
		die("mremap");
	result(check(moved, MSG, 301),
	       "mremap: the data is at the new address");
	fill(r.src, MSG, 302);
	st = write_to(&r, (uintptr_t)dst, mr->rkey, MSG);
	result(st == IBV_WC_REM_ACCESS_ERR && check(moved, MSG, 301),
	       "mremap: a WRITE to the old range fails, the moved pages keep their data");
	ibv_dereg_mr(mr);
	munmap(moved, MR_LEN);
	rig_down(&r);
}

static void case_read_both(const char *dev, int gid_index)
{
	uint64_t flt0 = counter(dev, "driver_odp_faults");
	struct ibv_mr *smr, *dmr;
	uint8_t *src, *dst;
	struct ibv_wc wc;
	struct rig r;
	int st;

	rig_up(&r, dev, gid_index);
	src = map_anon(MR_LEN);
	dst = map_anon(MR_LEN);
	fill(src, MSG, 401);
	/* B's source: written by the CPU before registration, no translation. */
	smr = odp_mr(&r, src, MR_LEN);
	/* A's sink: never touched, not even by the CPU. */
	dmr = odp_mr(&r, dst, MR_LEN);
	{
		struct ibv_sge sge = { (uintptr_t)dst, MSG, dmr->lkey };
		struct ibv_send_wr w = {
			.wr_id = 4, .sg_list = &sge, .num_sge = 1,
			.opcode = IBV_WR_RDMA_READ,
			.send_flags = IBV_SEND_SIGNALED,
			.wr.rdma = { (uintptr_t)src, smr->rkey },
		}, *bad;

		if (ibv_post_send(r.a, &w, &bad))
			die("ibv_post_send(READ)");
	}
	st = wait_one_wc(r.cq, &wc, WAIT_MS) ? (int)wc.status : -1;
	printf("# the READ completed with status %d (%s)\n", st,
	       st >= 0 ? ibv_wc_status_str(st) : "none");
	result(st == IBV_WC_SUCCESS && check(dst, MSG, 401),
	       "read both: a READ between two untouched on-demand MRs lands whole");
	usleep(50000);
	printf("# faults +%llu\n", (unsigned long long)
	       (counter(dev, "driver_odp_faults") - flt0));
	result(counter(dev, "driver_odp_faults") >= flt0 + 2,
	       "read both: the responder and the requester each faulted");
	ibv_dereg_mr(dmr);
	ibv_dereg_mr(smr);
	munmap(dst, MR_LEN);
	munmap(src, MR_LEN);
	rig_down(&r);
}

#define MANY_QPS	8

static void case_many_qps(const char *dev, int gid_index)
{
	struct rc_conn c = { .gid_index = gid_index, .mtu = IBV_MTU_1024,
			     .timeout = 14, .access = IBV_ACCESS_REMOTE_WRITE |
			     IBV_ACCESS_LOCAL_WRITE };
	struct ibv_qp *a[MANY_QPS], *b[MANY_QPS];
	uint64_t flt0 = counter(dev, "driver_odp_faults");
	bool done[MANY_QPS] = {}, ok = true;
	uint64_t end = now_ms() + WAIT_MS;
	struct ibv_context *ctx;
	struct ibv_mr *src_mr, *mr;
	uint8_t *src, *dst;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	unsigned int left = MANY_QPS;

	ctx = open_dev(dev);
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 2 * MANY_QPS, NULL, NULL, 0);
	src = aligned_alloc(4096, MANY_QPS * MSG);
	if (!pd || !cq || !src)
		die("pd/cq/src");
	src_mr = ibv_reg_mr(pd, src, MANY_QPS * MSG, IBV_ACCESS_LOCAL_WRITE);
	dst = map_anon(MANY_QPS * MSG);
	mr = ibv_reg_mr(pd, dst, MANY_QPS * MSG, IBV_ACCESS_ON_DEMAND |
			IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	if (!src_mr || !mr)
		die("ibv_reg_mr");
	query_gid(ctx, gid_index, &c.gid);
	for (int i = 0; i < MANY_QPS; i++) {
		a[i] = create_rc_qp(pd, cq, 1, 1);
		b[i] = create_rc_qp(pd, cq, 1, 1);
		c.dest_qpn = b[i]->qp_num;
		connect_rc(a[i], &c);
		c.dest_qpn = a[i]->qp_num;
		connect_rc(b[i], &c);
		fill(src + (uint64_t)i * MSG, MSG, 500 + i);
	}
	/* All posted before any is polled: the faults overlap. */
	for (int i = 0; i < MANY_QPS; i++) {
		struct ibv_sge sge = { (uintptr_t)src + (uint64_t)i * MSG, MSG,
				       src_mr->lkey };
		struct ibv_send_wr w = {
			.wr_id = i, .sg_list = &sge, .num_sge = 1,
			.opcode = IBV_WR_RDMA_WRITE,
			.send_flags = IBV_SEND_SIGNALED,
			.wr.rdma = { (uintptr_t)dst + (uint64_t)i * MSG,
				     mr->rkey },
		}, *bad;

		if (ibv_post_send(a[i], &w, &bad))
			die("ibv_post_send");
	}
	while (left && now_ms() < end) {
		struct ibv_wc wc;
		int n = ibv_poll_cq(cq, 1, &wc);

		if (n < 0)
			die("ibv_poll_cq");
		if (!n)
			continue;
		if (wc.wr_id >= MANY_QPS || done[wc.wr_id] ||
		    wc.status != IBV_WC_SUCCESS) {
			printf("# completion of wr_id %llu: %s\n",
			       (unsigned long long)wc.wr_id,
			       ibv_wc_status_str(wc.status));
			ok = false;
			continue;
		}
		done[wc.wr_id] = true;
		left--;
	}
	for (int i = 0; i < MANY_QPS; i++)
		ok = ok && done[i] &&
		     check(dst + (uint64_t)i * MSG, MSG, 500 + i);
	result(ok && !left,
	       "many QPs: 8 WRITEs at once into one on-demand MR land whole");
	usleep(50000);
	printf("# faults +%llu\n", (unsigned long long)
	       (counter(dev, "driver_odp_faults") - flt0));
	result(counter(dev, "driver_odp_faults") >= flt0 + MANY_QPS,
	       "many QPs: each QP's WRITE faulted");
	for (int i = 0; i < MANY_QPS; i++) {
		ibv_destroy_qp(a[i]);
		ibv_destroy_qp(b[i]);
	}
	ibv_dereg_mr(mr);
	ibv_dereg_mr(src_mr);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	munmap(dst, MANY_QPS * MSG);
	free(src);
}

/* Appends @what to the emulator's control file (ORCA_CTL). */
static bool emu_ctl(const char *what)
{
	const char *path = getenv("ORCA_CTL");
	FILE *f;
	bool ok;

	if (!path || !*path)
		return false;
	f = fopen(path, "a");
	if (!f)
		return false;
	ok = fprintf(f, "%s\n", what) > 0;
	ok = !fclose(f) && ok;
	/* The emulator reads it on inotify: give it that moment. */
	usleep(200000);
	return ok;
}

static void case_hung(const char *dev, int gid_index)
{
	uint64_t to0 = counter(dev, "odp_fault_timeouts");
	struct ibv_mr *mr;
	struct rig r;
	uint8_t *dst;
	int st;

	if (!emu_ctl("odp-fault-timeout 1000") ||
	    !emu_ctl("odp-drop-faults 1")) {
		result(false, "hung fault: the emulator's knobs set (ORCA_CTL)");
		result(false, "hung fault: the fault timed out");
		result(false, "hung fault: after a clean destroy, a new MR works");
		return;
	}
	result(true, "hung fault: the emulator's knobs set (ORCA_CTL)");
	rig_up(&r, dev, gid_index);
	dst = map_anon(MR_LEN);
	mr = odp_mr(&r, dst, MR_LEN);
	fill(r.src, MSG, 601);
	st = write_to(&r, (uintptr_t)dst, mr->rkey, MSG);
	printf("# the WRITE completed with status %d (%s)\n", st,
	       st >= 0 ? ibv_wc_status_str(st) : "none");
	usleep(50000);
	printf("# odp_fault_timeouts %llu -> %llu\n", (unsigned long long)to0,
	       (unsigned long long)counter(dev, "odp_fault_timeouts"));
	result(st == IBV_WC_REM_ACCESS_ERR &&
	       counter(dev, "odp_fault_timeouts") > to0,
	       "hung fault: the fault timed out, the WRITE: IBV_WC_REM_ACCESS_ERR");
	emu_ctl("odp-fault-timeout 0");
	ibv_dereg_mr(mr);
	munmap(dst, MR_LEN);
	rig_down(&r);

	rig_up(&r, dev, gid_index);
	dst = map_anon(MR_LEN);
	mr = odp_mr(&r, dst, MR_LEN);
	result(lands(&r, dst, mr->rkey, 602),
	       "hung fault: after a clean destroy, a new MR works");
	ibv_dereg_mr(mr);
	munmap(dst, MR_LEN);
	rig_down(&r);
}

#define HUGE_LEN	(4u << 20)	/* two 2 MiB huge pages */

static void case_hugetlb(const char *dev, int gid_index)
{
	const uint64_t second = (2u << 20) + 8192;
	struct ibv_mr *mr;
	struct rig r;
	uint8_t *dst;
	bool ok;
	int st;

	dst = mmap(NULL, HUGE_LEN, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
	if (dst == MAP_FAILED) {
		printf("# mmap(MAP_HUGETLB, 4 MiB): %s\n", strerror(errno));
		result(false, "hugetlb: a WRITE into the first huge page lands");
		result(false, "hugetlb: a WRITE into the second lands there, the first intact");
		return;
	}
	rig_up(&r, dev, gid_index);
	mr = ibv_reg_mr(r.pd, dst, HUGE_LEN, IBV_ACCESS_ON_DEMAND |
			IBV_ACCESS_HUGETLB | IBV_ACCESS_LOCAL_WRITE |
			IBV_ACCESS_REMOTE_WRITE);
	if (!mr)
		die("ibv_reg_mr(ON_DEMAND | HUGETLB)");
	fill(r.src, MSG, 701);
	ok = write_to(&r, (uintptr_t)dst, mr->rkey, MSG) == IBV_WC_SUCCESS &&
	     check(dst, MSG, 701);
	result(ok, "hugetlb: a WRITE into the first huge page lands");
	fill(r.src, MSG, 702);
	st = write_to(&r, (uintptr_t)dst + second, mr->rkey, MSG);
	printf("# the WRITE into the second completed with status %d (%s)\n",
	       st, st >= 0 ? ibv_wc_status_str(st) : "none");
	ok = st == IBV_WC_SUCCESS && check(dst + second, MSG, 702) &&
	     check(dst, MSG, 701);
	result(ok, "hugetlb: a WRITE into the second lands there, the first intact");
	ibv_dereg_mr(mr);
	rig_down(&r);
	munmap(dst, HUGE_LEN);
}

/* A WRITE of MSG bytes from @src (key @lkey) to @dst (key @rkey). */
static int write_from(struct rig *r, uint8_t *src, uint32_t lkey,
		      uint8_t *dst, uint32_t rkey)
{
	struct ibv_sge s = { (uintptr_t)src, MSG, lkey };
	struct ibv_send_wr w = {
		.wr_id = 2, .sg_list = &s, .num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { (uintptr_t)dst, rkey },
	}, *bad;
	struct ibv_wc wc;

	if (ibv_post_send(r->a, &w, &bad))
		die("ibv_post_send");
	return wait_one_wc(r->cq, &wc, WAIT_MS) ? (int)wc.status : -1;
}

static void case_implicit(const char *dev, int gid_index)
{
	struct ibv_device_attr_ex ax = { 0 };
	uint8_t *m1, *m2, *heap;
	struct ibv_mr *mr;
	uint64_t flt0;
	struct rig r;
	int st;

	rig_up(&r, dev, gid_index);
	if (ibv_query_device_ex(r.ctx, NULL, &ax))
		die("ibv_query_device_ex");
	result(ax.odp_caps.general_caps & IBV_ODP_SUPPORT_IMPLICIT,
	       "implicit: the device reports IBV_ODP_SUPPORT_IMPLICIT");
	mr = ibv_reg_mr(r.pd, NULL, SIZE_MAX, IBV_ACCESS_ON_DEMAND |
			IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			IBV_ACCESS_REMOTE_READ);
	if (!mr)
		die("ibv_reg_mr(NULL, SIZE_MAX, ON_DEMAND)");
	flt0 = counter(dev, "driver_odp_faults");
	m1 = map_anon(MR_LEN);
	m2 = map_anon(MR_LEN);
	heap = aligned_alloc(4096, MR_LEN);
	if (!heap)
		die("aligned_alloc");
	printf("# mmap()ed at %p and %p, heap at %p\n", (void *)m1,
	       (void *)m2, (void *)heap);
	result(lands(&r, m1 + MSG, mr->rkey, 701) &&
	       lands(&r, heap, mr->rkey, 702),
	       "implicit: WRITEs into an mmap()ed range and into the heap land");
	fill(m1, MSG, 703);
	st = write_from(&r, m1, mr->lkey, m2 + 3 * MSG, mr->rkey);
	result(st == IBV_WC_SUCCESS && check(m2 + 3 * MSG, MSG, 703),
	       "implicit: a WRITE from one mmap()ed range into another, both through it");
	usleep(50000);		/* the counters' lifespan */
	printf("# faults +%llu\n", (unsigned long long)(counter(dev,
	       "driver_odp_faults") - flt0));
	result(counter(dev, "driver_odp_faults") >= flt0 + 3,
	       "implicit: the adapter faulted the pages in");
	if (munmap(m2, MR_LEN))
		die("munmap");
	st = write_to(&r, (uintptr_t)m2 + 3 * MSG, mr->rkey, MSG);
	printf("# the WRITE into the unmapped range completed with status %d (%s)\n",
	       st, st >= 0 ? ibv_wc_status_str(st) : "none");
	result(st == IBV_WC_REM_ACCESS_ERR && check(m1, MSG, 703),
	       "implicit: a WRITE into an unmapped range: IBV_WC_REM_ACCESS_ERR");
	rig_down_keep_pd(&r);
	result(!ibv_dereg_mr(mr), "implicit: the MR deregisters");
	rig_down_pd(&r);
	munmap(m1, MR_LEN);
	free(heap);
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: odp_hard DEV GID_INDEX\n");
		return 2;
	}
	printf("TAP version 13\n1..26\n");
	case_madvise(argv[1], atoi(argv[2]));
	case_fork(argv[1], atoi(argv[2]));
	case_munmap(argv[1], atoi(argv[2]));
	case_mremap(argv[1], atoi(argv[2]));
	case_read_both(argv[1], atoi(argv[2]));
	case_many_qps(argv[1], atoi(argv[2]));
	case_hung(argv[1], atoi(argv[2]));
	case_hugetlb(argv[1], atoi(argv[2]));
	case_implicit(argv[1], atoi(argv[2]));
	return ktap_failed;
}

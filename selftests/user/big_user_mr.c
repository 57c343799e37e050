// SPDX-License-Identifier: GPL-2.0
/*
 * A user memory region as large as the guest allows, registered while the
 * kernel's memory is fragmented (the in-guest script has orca_kverbs hold
 * it so, "frag-hold"), then written all over by the adapter:
 *
 *   big_user_mr DEV GID_INDEX [MIB [HOLD_FILE]]
 *
 * MIB MiB (0 or none: half of MemAvailable, at most 1024) of anonymous
 * memory in 4 KiB pages (transparent huge pages off) are registered with
 * ibv_reg_mr for remote writes and reads.  The driver's page list for it
 * has an entry per page, 2 KiB of list per MiB: far more than the
 * largest free block of fragmented memory.  Two RC QPs of DEV connected
 * through its own GID: A RDMA-WRITEs the whole region from a 1 MiB
 * buffer, a chunk at a time, every 8 bytes holding the chunk's seed and
 * their offset in the region (a page of the list out of place, or one
 * written twice, reads wrong); every byte of the region is checked, and
 * its first and last MiB are RDMA-READ back and checked.  With HOLD_FILE
 * it prints "holding mrlen=N" once done and keeps the region registered
 * until that file exists (at most 120 s), so that the caller can look at
 * it (rdma resource show mr).  Exits 0 when every byte was right.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "verbs_helpers.h"

#define CHUNK		(1UL << 20)
#define MAX_MIB		1024UL
#define MIN_MIB		64UL
#define WAIT_MS		30000
#define HOLD_S		120
#define PAT_TAG		0x4f524341u	/* "ORCA" */

struct big {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *a, *b;
	struct ibv_mr *src_mr, *mr;
	uint64_t *src;		/* two CHUNK halves */
	uint64_t *region;
	size_t len;
	union ibv_gid gid;
	int gid_index;
	enum ibv_mtu mtu;
};

/* Chunk @k's seed: each chunk is its own transfer. */
static uint32_t seed_of(size_t k)
{
	return 0x5100 + (uint32_t)k;
}

/* The word at byte offset @off of the region. */
static uint64_t pat(size_t off)
{
	return (uint64_t)(seed_of(off / CHUNK) ^ PAT_TAG) << 32 |
	       (uint32_t)off;
}

static void fill_chunk(uint64_t *dst, size_t k)
{
	size_t i;

	for (i = 0; i < CHUNK / 8; i++)
		dst[i] = pat(k * CHUNK + i * 8);
}

/* Chunk @k's bytes at @p; reports the first wrong word. */
static bool check_chunk(const uint64_t *p, size_t k, const char *what)
{
	size_t i, off;

	for (i = 0; i < CHUNK / 8; i++) {
		if (p[i] == pat(k * CHUNK + i * 8))
			continue;
		off = k * CHUNK + i * 8;
		fprintf(stderr,
			"big_user_mr: %s: region offset %zu: word 0x%016" PRIx64
			" (seed 0x%x offset %u), want 0x%016" PRIx64 "\n",
			what, off, p[i], (uint32_t)(p[i] >> 32) ^ PAT_TAG,
			(uint32_t)p[i], pat(off));
		return false;
	}
	return true;
}

/* MiB to register: half of MemAvailable, within [MIN_MIB, MAX_MIB]. */
static size_t default_mib(void)
{
	FILE *f = fopen("/proc/meminfo", "r");
	unsigned long kb = 0;
	char line[128];

	if (!f)
		die("/proc/meminfo");
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %lu kB", &kb) == 1)
			break;
	fclose(f);
	kb = kb / 2 / 1024;
	return kb > MAX_MIB ? MAX_MIB : kb;
}

/* An RDMA WRITE (or READ) of chunk @k between @buf and the region. */
static void post_chunk(struct big *m, enum ibv_wr_opcode op, uint64_t *buf,
		       size_t k)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)buf,
		.length = CHUNK,
		.lkey = m->src_mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = k, .sg_list = &sge, .num_sge = 1,
		.opcode = op, .send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = {
			.remote_addr = (uintptr_t)m->region + k * CHUNK,
			.rkey = m->mr->rkey,
		},
	}, *bad;

	if (ibv_post_send(m->a, &wr, &bad))
		die("ibv_post_send");
}

static void wait_chunk(struct big *m, size_t k, const char *what)
{
	uint64_t deadline = now_ms() + WAIT_MS;
	struct ibv_wc wc;
	int r;

	while (!(r = ibv_poll_cq(m->cq, 1, &wc)))
		if (now_ms() > deadline) {
			fprintf(stderr, "big_user_mr: %s of chunk %zu: no completion in %d ms\n",
				what, k, WAIT_MS);
			exit(1);
		}
	if (r < 0)
		die_err("ibv_poll_cq", EIO);
	if (wc.status != IBV_WC_SUCCESS || wc.wr_id != k) {
		fprintf(stderr, "big_user_mr: %s of chunk %zu: wr_id %" PRIu64 " %s\n",
			what, k, wc.wr_id, ibv_wc_status_str(wc.status));
		exit(1);
	}
}

/* Chunk @k read back from the region through the adapter. */
static bool read_back(struct big *m, size_t k)
{
	memset(m->src, 0, CHUNK);
	post_chunk(m, IBV_WR_RDMA_READ, m->src, k);
	wait_chunk(m, k, "RDMA READ");
	return check_chunk(m->src, k, "read back");
}

static void hold(const char *file, size_t len)
{
	int i;

	printf("holding mrlen=%zu\n", len);
	fflush(stdout);
	for (i = 0; i < HOLD_S * 10 && access(file, F_OK); i++)
		usleep(100000);
}

int main(int argc, char **argv)
{
	size_t mib, n, k, bad = 0;
	struct ibv_port_attr port;
	static struct big m;
	struct rc_conn conn;
	uint64_t t0;

	if (argc < 3 || argc > 5) {
		fprintf(stderr, "usage: big_user_mr DEV GID_INDEX [MIB [HOLD_FILE]]\n");
		return 2;
	}
	mib = argc > 3 ? strtoul(argv[3], NULL, 0) : 0;
	if (!mib)
		mib = default_mib();
	if (mib < MIN_MIB) {
		fprintf(stderr, "big_user_mr: %zu MiB, want at least %lu\n",
			mib, MIN_MIB);
		return 1;
	}
	m.len = mib * CHUNK;
	n = mib;
	m.ctx = open_dev(argv[1]);
	m.gid_index = atoi(argv[2]);
	query_gid(m.ctx, m.gid_index, &m.gid);
	if (ibv_query_port(m.ctx, PORT, &port))
		die("ibv_query_port");
	m.mtu = port.active_mtu;

	m.region = mmap(NULL, m.len, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	m.src = mmap(NULL, 2 * CHUNK, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m.region == MAP_FAILED || m.src == MAP_FAILED)
		die("mmap");
	/*
	 * One page list entry per 4 KiB page, none for a huge page.  A
	 * kernel without transparent huge pages (the debug kernel's) answers
	 * EINVAL: it has none to turn off.
	 */
	if (madvise(m.region, m.len, MADV_NOHUGEPAGE) && errno != EINVAL)
		die("madvise(MADV_NOHUGEPAGE)");

	m.pd = ibv_alloc_pd(m.ctx);
	if (!m.pd)
		die("ibv_alloc_pd");
	m.cq = ibv_create_cq(m.ctx, 16, NULL, NULL, 0);
	if (!m.cq)
		die("ibv_create_cq");
	m.a = create_rc_qp(m.pd, m.cq, 4, 1);
	m.b = create_rc_qp(m.pd, m.cq, 4, 1);
	/* Through the device's own GID. */
	conn = (struct rc_conn){
		.gid = m.gid, .gid_index = m.gid_index, .sq_psn = 200,
		.rq_psn = 200, .mtu = m.mtu, .timeout = 18,
		.access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			  IBV_ACCESS_REMOTE_READ,
	};
	conn.dest_qpn = m.b->qp_num;
	connect_rc(m.a, &conn);
	conn.dest_qpn = m.a->qp_num;
	connect_rc(m.b, &conn);
	m.src_mr = ibv_reg_mr(m.pd, m.src, 2 * CHUNK, IBV_ACCESS_LOCAL_WRITE);
	if (!m.src_mr)
		die("ibv_reg_mr of the source");

	t0 = now_ms();
	m.mr = ibv_reg_mr(m.pd, m.region, m.len, IBV_ACCESS_LOCAL_WRITE |
			  IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	if (!m.mr) {
		fprintf(stderr, "big_user_mr: ibv_reg_mr of %zu MiB: %s\n",
			mib, strerror(errno));
		return 1;
	}
	printf("big_user_mr: registered %zu MiB (%zu pages of 4 KiB) in %" PRIu64 " ms\n",
	       mib, m.len / 4096, now_ms() - t0);

	/* Chunk k is filled in one half while chunk k - 1 is on its way. */
	t0 = now_ms();
	for (k = 0; k < n; k++) {
		uint64_t *half = m.src + (k & 1) * (CHUNK / 8);

		fill_chunk(half, k);
		post_chunk(&m, IBV_WR_RDMA_WRITE, half, k);
		if (k)
			wait_chunk(&m, k - 1, "RDMA WRITE");
	}
	wait_chunk(&m, n - 1, "RDMA WRITE");
	printf("big_user_mr: %zu RDMA WRITEs of 1 MiB in %" PRIu64 " ms\n", n,
	       now_ms() - t0);

	t0 = now_ms();
	for (k = 0; k < n && bad < 4; k++)
		if (!check_chunk(m.region + k * (CHUNK / 8), k, "region"))
			bad++;
	if (!bad && (!read_back(&m, 0) || !read_back(&m, n - 1)))
		bad++;
	printf("big_user_mr: %zu MiB checked in %" PRIu64 " ms: %s\n", mib,
	       now_ms() - t0, bad ? "wrong data" : "every byte right");

	if (argc > 4)
		hold(argv[4], m.len);
	if (ibv_dereg_mr(m.mr) || ibv_dereg_mr(m.src_mr))
		die("ibv_dereg_mr");
	ibv_destroy_qp(m.a);
	ibv_destroy_qp(m.b);
	ibv_destroy_cq(m.cq);
	ibv_dealloc_pd(m.pd);
	ibv_close_device(m.ctx);
	return bad ? 1 : 0;
}

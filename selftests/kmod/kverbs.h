/* SPDX-License-Identifier: GPL-2.0 */
/*
 * orca_kverbs: the test case interface shared by the runner
 * (kverbs_main.c) and the suites (kverbs_objects.c, kverbs_datapath.c).
 */
#ifndef KVERBS_H
#define KVERBS_H

#include <linux/atomic.h>
#include <rdma/ib_verbs.h>

#define KV_MAX_CQS	4
#define KV_MAX_QPS	4
#define KV_MAX_SRQS	2
#define KV_MAX_MRS	4
#define KV_MAX_BUFS	6

/**
 * struct kv_buf - a DMA-mapped kernel buffer for data path tests
 * @va: kernel address
 * @dma: bus address; with the unsafe global rkey also the remote address
 * @len: bytes
 */
struct kv_buf {
	void *va;
	u64 dma;
	size_t len;
};

/**
 * struct kv_test - one running test case
 * @ibdev: device under test
 * @name: the case's name
 * @failed: a check failed
 * @skip_reason: set by kv_skip(); the case reports SKIP unless it failed
 * @comp_events: completion events of the case's CQs
 * @pd: the case's PD (kv_pd())
 * @cqs: CQs made by kv_cq()
 * @ncqs: entries in @cqs
 * @qps: QPs made by kv_qp()
 * @nqps: entries in @qps
 * @srqs: SRQs made by kv_srq()
 * @nsrqs: entries in @srqs
 * @mrs: MRs made by kv_fast_mr()
 * @nmrs: entries in @mrs
 * @ah: AH made by kv_ah()
 * @mac: the port's MAC, from kv_roce_v2_gid()
 * @bufs: buffers made by kv_buf_alloc(), freed after the objects
 * @nbufs: entries in @bufs
 * @cleanup: called after the objects above are destroyed
 * @priv: the case's own state for @cleanup
 *
 * The runner destroys every object recorded here after the case returns,
 * QPs first and the PD last.
 */
struct kv_test {
	struct ib_device *ibdev;
	const char *name;
	bool failed;
	const char *skip_reason;
	atomic_t comp_events;
	struct ib_pd *pd;
	struct ib_cq *cqs[KV_MAX_CQS];
	int ncqs;
	struct ib_qp *qps[KV_MAX_QPS];
	int nqps;
	struct ib_srq *srqs[KV_MAX_SRQS];
	int nsrqs;
	struct ib_mr *mrs[KV_MAX_MRS];
	int nmrs;
	struct ib_ah *ah;
	u8 mac[ETH_ALEN];
	struct kv_buf *bufs[KV_MAX_BUFS];
	int nbufs;
	void (*cleanup)(struct kv_test *t);
	void *priv;
};

struct kv_case {
	const char *name;
	void (*run)(struct kv_test *t);
};

struct kv_suite {
	const char *name;
	const struct kv_case *cases;
	int ncases;
};

extern const struct kv_suite kv_objects_suite;
extern const struct kv_suite kv_datapath_suite;
extern const struct kv_suite kv_remote_suite;
extern const struct kv_suite kv_limits_suite;
extern const struct kv_suite kv_dead_suite;

/* kverbs_stress.c: long-running cases of the other suites. */
void kv_srq_churn(struct kv_test *t);
void kv_cq_flood(struct kv_test *t);

/* kverbs_stale.c: events of a destroyed object. */
void kv_cq_reused_number(struct kv_test *t);
void kv_qp_reused_number(struct kv_test *t);
void kv_srq_reused_number(struct kv_test *t);

/* kverbs_main.c, for the remote suite's commands; callers hold kv_lock. */
struct ib_device *kv_find_dev(const char *name);
__printf(1, 2)
void kv_out_printf(const char *fmt, ...);
void kv_teardown(struct kv_test *t);

/* kverbs_remote.c; called with kv_lock held. */
int kv_peer_cmd(const char *verb, char *args);
void kv_peer_device_removed(struct ib_device *ibdev);

/* kverbs_datapath.c: completion helpers shared with the remote suite. */
bool kv_poll_one(struct kv_test *t, struct ib_cq *cq, struct ib_wc *wc,
		 const char *what);
bool kv_expect_wc(struct kv_test *t, struct ib_cq *cq, const char *what,
		  u64 wr_id, enum ib_wc_status status, int opcode,
		  struct ib_wc *out);
void kv_fill(void *buf, size_t len, u32 seed);
bool kv_check_fill(struct kv_test *t, const void *buf, size_t len, u32 seed,
		   const char *what);
bool kv_frwr_register(struct kv_test *t, struct ib_qp *qp, struct ib_cq *cq,
		      struct ib_mr *mr, struct kv_buf *b, u32 len, int access);

/* kverbs_frag.c: no free block of KV_FRAG_ORDER or more while it runs. */
#define KV_FRAG_ORDER	4

struct kv_frag {
	struct page **held;
	unsigned long n;
	unsigned long cap;
	int rounds;
};

bool kv_frag_begin(struct kv_test *t, struct kv_frag *f);
bool kv_frag_check(struct kv_test *t, struct kv_frag *f);
void kv_frag_end(struct kv_frag *f);

/*
 * KV_EXPECT(t, cond, fmt, ...): the case fails unless @cond holds; the
 * failure is reported as a KTAP diagnostic with the expression and the
 * formatted detail.  Evaluates to @cond, so a case can stop early:
 *	if (!KV_EXPECT(t, qp, "..."))
 *		return;
 */
#define KV_EXPECT(t, cond, fmt, ...) \
	kv_check(t, !!(cond), __LINE__, #cond, fmt, ##__VA_ARGS__)

__printf(5, 6)
bool kv_check(struct kv_test *t, bool ok, int line, const char *expr,
	      const char *fmt, ...);
__printf(2, 3)
void kv_diag(struct kv_test *t, const char *fmt, ...);
void kv_skip(struct kv_test *t, const char *reason);

/* Fixtures; each returns NULL after reporting a failure. */
struct ib_pd *kv_pd(struct kv_test *t);
struct ib_cq *kv_cq(struct kv_test *t, int cqe, int vector);
struct ib_qp *kv_qp(struct kv_test *t, struct ib_qp_init_attr *init);
struct ib_qp *kv_simple_qp(struct kv_test *t, enum ib_qp_type type,
			   struct ib_cq *cq, u32 wr, struct ib_srq *srq);
struct ib_srq *kv_srq(struct kv_test *t, u32 max_wr, u32 max_sge);
struct ib_mr *kv_fast_mr(struct kv_test *t, u32 max_pages);
struct ib_ah *kv_ah(struct kv_test *t, const struct rdma_ah_attr *attr);
struct ib_pd *kv_pd_global_rkey(struct kv_test *t);
struct kv_buf *kv_buf_alloc(struct kv_test *t, size_t len);
int kv_roce_v2_gid(struct kv_test *t, union ib_gid *gid);
void kv_ah_attr(struct kv_test *t, struct rdma_ah_attr *ah, union ib_gid *gid,
		int sgid_index);
int kv_rc_connect(struct kv_test *t, struct ib_qp *qp, u32 dest_qpn);
int kv_rc_connect_to(struct kv_test *t, struct ib_qp *qp, u32 dest_qpn,
		     union ib_gid *dgid, const u8 *dmac, u8 timeout);
int kv_ud_ready(struct kv_test *t, struct ib_qp *qp, u32 qkey);
enum ib_mtu kv_active_mtu(struct kv_test *t);
void kv_dump_qps(struct kv_test *t);

#endif /* KVERBS_H */

// SPDX-License-Identifier: GPL-2.0
/*
 * orca_kverbs: kernel verbs test suites for ORCA adapters.
 *
 * An ib_client on every RDMA device (the suites are written for orca_N,
 * and running them on rxe checks the suites themselves against the
 * reference implementation).  A test run is requested through debugfs and
 * its result read back as KTAP:
 *
 *   echo "objects [orca_0]" > /sys/kernel/debug/orca_kverbs/run
 *   cat /sys/kernel/debug/orca_kverbs/run
 *
 * Every case is one scenario against the real device: it creates what it
 * needs, checks what the verbs return (handles, attributes read back,
 * errors of invalid requests) and leaves nothing behind.  The fixtures a
 * case allocates are recorded in its struct kv_test and torn down by the
 * runner, so a failing case cannot leak into the next one.  Runs are
 * serialised with device removal, so a device never goes away under a
 * running case.  The module is built for tests only.
 */
#include <linux/debugfs.h>
#include <linux/etherdevice.h>
#include <linux/module.h>
#include <linux/scatterlist.h>
#include <linux/seq_buf.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>

#include "kverbs.h"

#define KV_OUT_SIZE		(256 * 1024)
#define KV_CMD_MAX		512

struct kv_dev {
	struct ib_device *ibdev;
	struct list_head list;
};

/* kv_lock serialises runs, the device list and the output buffer. */
static DEFINE_MUTEX(kv_lock);
static LIST_HEAD(kv_devs);
static struct seq_buf kv_out;
static char *kv_out_buf;
static struct dentry *kv_root;
static struct ib_client kv_client;

/* seq_buf_vprintf() is not exported: format into a line buffer first. */
static __printf(1, 0) void kv_vputs(const char *fmt, va_list ap)
{
	char line[256];

	vsnprintf(line, sizeof(line), fmt, ap);
	seq_buf_puts(&kv_out, line);
}

void kv_diag(struct kv_test *t, const char *fmt, ...)
{
	va_list ap;

	seq_buf_puts(&kv_out, "# ");
	va_start(ap, fmt);
	kv_vputs(fmt, ap);
	va_end(ap);
	seq_buf_putc(&kv_out, '\n');
}

bool kv_check(struct kv_test *t, bool ok, int line, const char *expr,
	      const char *fmt, ...)
{
	va_list ap;

	if (ok)
		return true;
	t->failed = true;
	seq_buf_printf(&kv_out, "# %s:%d: expected %s", t->name, line, expr);
	if (fmt && *fmt) {
		seq_buf_puts(&kv_out, ": ");
		va_start(ap, fmt);
		kv_vputs(fmt, ap);
		va_end(ap);
	}
	seq_buf_putc(&kv_out, '\n');
	return false;
}

void kv_skip(struct kv_test *t, const char *reason)
{
	t->skip_reason = reason;
}

static void kv_comp_handler(struct ib_cq *cq, void *ctx)
{
	struct kv_test *t = ctx;

	if (t)
		atomic_inc(&t->comp_events);
}

struct ib_pd *kv_pd(struct kv_test *t)
{
	struct ib_pd *pd;

	if (t->pd)
		return t->pd;
	pd = ib_alloc_pd(t->ibdev, 0);
	if (!KV_EXPECT(t, !IS_ERR(pd), "ib_alloc_pd: %pe", pd))
		return NULL;
	t->pd = pd;
	return pd;
}

/* A PD whose DMA MR is remotely accessible: rkey + bus address. */
struct ib_pd *kv_pd_global_rkey(struct kv_test *t)
{
	struct ib_pd *pd;

	if (!KV_EXPECT(t, !t->pd, "one PD per case"))
		return NULL;
	pd = ib_alloc_pd(t->ibdev, IB_PD_UNSAFE_GLOBAL_RKEY);
	if (!KV_EXPECT(t, !IS_ERR(pd), "ib_alloc_pd(global rkey): %pe", pd))
		return NULL;
	t->pd = pd;
	return pd;
}

/* A zeroed, bidirectionally mapped buffer of @len bytes (at least one). */
struct kv_buf *kv_buf_alloc(struct kv_test *t, size_t len)
{
	struct kv_buf *b;

	if (!KV_EXPECT(t, t->nbufs < KV_MAX_BUFS, "too many buffers"))
		return NULL;
	b = kzalloc_obj(*b);
	if (!KV_EXPECT(t, b, "kzalloc"))
		return NULL;
	b->len = max_t(size_t, len, 1);
	b->va = kzalloc(b->len, GFP_KERNEL | __GFP_NOWARN);
	if (!KV_EXPECT(t, b->va, "kzalloc(%zu)", b->len)) {
		kfree(b);
		return NULL;
	}
	b->dma = ib_dma_map_single(t->ibdev, b->va, b->len, DMA_BIDIRECTIONAL);
	if (!KV_EXPECT(t, !ib_dma_mapping_error(t->ibdev, b->dma),
		       "dma map %zu", b->len)) {
		kfree(b->va);
		kfree(b);
		return NULL;
	}
	t->bufs[t->nbufs++] = b;
	return b;
}

static void kv_buf_free(struct kv_test *t, struct kv_buf *b)
{
	ib_dma_unmap_single(t->ibdev, b->dma, b->len, DMA_BIDIRECTIONAL);
	kfree(b->va);
	kfree(b);
}

struct ib_cq *kv_cq(struct kv_test *t, int cqe, int vector)
{
	struct ib_cq_init_attr attr = { .cqe = cqe, .comp_vector = vector };
	struct ib_cq *cq;

	if (!KV_EXPECT(t, t->ncqs < KV_MAX_CQS, "too many CQs"))
		return NULL;
	cq = ib_create_cq(t->ibdev, kv_comp_handler, NULL, t, &attr);
	if (!KV_EXPECT(t, !IS_ERR(cq), "ib_create_cq(%d): %pe", cqe, cq))
		return NULL;
	t->cqs[t->ncqs++] = cq;
	return cq;
}

struct ib_qp *kv_qp(struct kv_test *t, struct ib_qp_init_attr *init)
{
	struct ib_pd *pd = kv_pd(t);
	struct ib_qp *qp;

	if (!pd || !KV_EXPECT(t, t->nqps < KV_MAX_QPS, "too many QPs"))
		return NULL;
	qp = ib_create_qp(pd, init);
	if (!KV_EXPECT(t, !IS_ERR(qp), "ib_create_qp(type %d): %pe",
		       init->qp_type, qp))
		return NULL;
	t->qps[t->nqps++] = qp;
	return qp;
}

/* A QP of @type with both CQs on @cq and @wr entries each way. */
struct ib_qp *kv_simple_qp(struct kv_test *t, enum ib_qp_type type,
			   struct ib_cq *cq, u32 wr, struct ib_srq *srq)
{
	struct ib_qp_init_attr init = {
		.send_cq = cq,
		.recv_cq = cq,
		.srq = srq,
		.qp_type = type,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.cap = {
			.max_send_wr = wr,
			.max_recv_wr = srq ? 0 : wr,
			.max_send_sge = 2,
			.max_recv_sge = srq ? 0 : 2,
			.max_inline_data = 64,
		},
	};

	return kv_qp(t, &init);
}

struct ib_srq *kv_srq(struct kv_test *t, u32 max_wr, u32 max_sge)
{
	struct ib_srq_init_attr init = {
		.srq_type = IB_SRQT_BASIC,
		.attr = { .max_wr = max_wr, .max_sge = max_sge },
	};
	struct ib_pd *pd = kv_pd(t);
	struct ib_srq *srq;

	if (!pd || !KV_EXPECT(t, t->nsrqs < KV_MAX_SRQS, "too many SRQs"))
		return NULL;
	srq = ib_create_srq(pd, &init);
	if (!KV_EXPECT(t, !IS_ERR(srq), "ib_create_srq: %pe", srq))
		return NULL;
	t->srqs[t->nsrqs++] = srq;
	return srq;
}

struct ib_mr *kv_fast_mr(struct kv_test *t, u32 max_pages)
{
	struct ib_pd *pd = kv_pd(t);
	struct ib_mr *mr;

	if (!pd || !KV_EXPECT(t, t->nmrs < KV_MAX_MRS, "too many MRs"))
		return NULL;
	mr = ib_alloc_mr(pd, IB_MR_TYPE_MEM_REG, max_pages);
	if (!KV_EXPECT(t, !IS_ERR(mr), "ib_alloc_mr(%u): %pe", max_pages, mr))
		return NULL;
	t->mrs[t->nmrs++] = mr;
	return mr;
}

struct ib_ah *kv_ah(struct kv_test *t, const struct rdma_ah_attr *attr)
{
	struct ib_pd *pd = kv_pd(t);
	struct ib_ah *ah;

	if (!pd || !KV_EXPECT(t, !t->ah, "one AH per case"))
		return NULL;
	ah = rdma_create_ah(pd, (struct rdma_ah_attr *)attr,
			    RDMA_CREATE_AH_SLEEPABLE);
	if (!KV_EXPECT(t, !IS_ERR(ah), "rdma_create_ah: %pe", ah))
		return NULL;
	t->ah = ah;
	return ah;
}

/*
 * The first RoCE v2 GID with an IPv4 address: the guests' netdevs have
 * one, and AVs built from it resolve to the port's own MAC.
 */
int kv_roce_v2_gid(struct kv_test *t, union ib_gid *gid)
{
	const struct ib_gid_attr *attr;
	int i;

	for (i = 0; i < t->ibdev->port_data[1].immutable.gid_tbl_len; i++) {
		attr = rdma_get_gid_attr(t->ibdev, 1, i);
		if (IS_ERR(attr))
			continue;
		if (attr->gid_type == IB_GID_TYPE_ROCE_UDP_ENCAP &&
		    ipv6_addr_v4mapped((struct in6_addr *)attr->gid.raw) &&
		    !rdma_read_gid_l2_fields(attr, NULL, t->mac)) {
			*gid = attr->gid;
			rdma_put_gid_attr(attr);
			return i;
		}
		rdma_put_gid_attr(attr);
	}
	KV_EXPECT(t, false, "no RoCE v2 IPv4 GID on port 1");
	return -ENOENT;
}

/*
 * An address vector to @gid through source GID @sgid_index.  Kernel users
 * resolve the destination MAC themselves: loopback, so the port's own.
 */
void kv_ah_attr(struct kv_test *t, struct rdma_ah_attr *ah, union ib_gid *gid,
		int sgid_index)
{
	memset(ah, 0, sizeof(*ah));
	ether_addr_copy(ah->roce.dmac, t->mac);
	ah->type = RDMA_AH_ATTR_TYPE_ROCE;
	rdma_ah_set_port_num(ah, 1);
	rdma_ah_set_grh(ah, gid, 0, sgid_index, 64, 0);
}

/* Diagnostics after a timeout: where each of the case's QPs stands. */
void kv_dump_qps(struct kv_test *t)
{
	struct ib_qp_init_attr init;
	struct ib_qp_attr q;
	int i;

	for (i = 0; i < t->nqps; i++) {
		if (ib_query_qp(t->qps[i], &q, IB_QP_STATE, &init))
			continue;
		kv_diag(t, "QP %u: state %d sq_psn 0x%x rq_psn 0x%x dest %u dmac %pM",
			t->qps[i]->qp_num, q.qp_state, q.sq_psn, q.rq_psn,
			q.dest_qp_num, q.ah_attr.roce.dmac);
	}
}

enum ib_mtu kv_active_mtu(struct kv_test *t)
{
	struct ib_port_attr attr;
	int err;

	err = ib_query_port(t->ibdev, 1, &attr);
	KV_EXPECT(t, !err, "ib_query_port: %d", err);
	return err ? IB_MTU_1024 : attr.active_mtu;
}

/*
 * Move an RC QP from RESET to RTS, connected to @dest_qpn at @dgid/@dmac
 * through the port's RoCE v2 IPv4 GID, with every remote access right and
 * the port's active MTU.
 */
int kv_rc_connect_to(struct kv_test *t, struct ib_qp *qp, u32 dest_qpn,
		     union ib_gid *dgid, const u8 *dmac, u8 timeout)
{
	struct ib_qp_attr attr = {};
	union ib_gid gid;
	int idx, err;

	idx = kv_roce_v2_gid(t, &gid);
	if (idx < 0)
		return idx;
	attr.qp_state = IB_QPS_INIT;
	attr.port_num = 1;
	attr.qp_access_flags = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE |
			       IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC;
	err = ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_PKEY_INDEX |
			   IB_QP_PORT | IB_QP_ACCESS_FLAGS);
	if (!KV_EXPECT(t, !err, "RESET->INIT: %d", err))
		return err;

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IB_QPS_RTR;
	attr.path_mtu = kv_active_mtu(t);
	attr.dest_qp_num = dest_qpn;
	attr.max_dest_rd_atomic = 1;
	attr.min_rnr_timer = 1;
	kv_ah_attr(t, &attr.ah_attr, dgid ? dgid : &gid, idx);
	if (dmac)
		ether_addr_copy(attr.ah_attr.roce.dmac, dmac);
	err = ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_AV | IB_QP_PATH_MTU |
			   IB_QP_DEST_QPN | IB_QP_RQ_PSN |
			   IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER);
	if (!KV_EXPECT(t, !err, "INIT->RTR: %d", err))
		return err;

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IB_QPS_RTS;
	attr.timeout = timeout;
	attr.retry_cnt = 7;
	attr.rnr_retry = 7;
	attr.max_rd_atomic = 1;
	err = ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_SQ_PSN |
			   IB_QP_TIMEOUT | IB_QP_RETRY_CNT | IB_QP_RNR_RETRY |
			   IB_QP_MAX_QP_RD_ATOMIC);
	KV_EXPECT(t, !err, "RTR->RTS: %d", err);
	return err;
}

/* Connect to @dest_qpn on this device: loopback through the own GID. */
int kv_rc_connect(struct kv_test *t, struct ib_qp *qp, u32 dest_qpn)
{
	return kv_rc_connect_to(t, qp, dest_qpn, NULL, NULL, 14);
}

/* Move a UD QP from RESET to RTS with Q_Key @qkey. */
int kv_ud_ready(struct kv_test *t, struct ib_qp *qp, u32 qkey)
{
	struct ib_qp_attr attr = {};
	int err;

	attr.qp_state = IB_QPS_INIT;
	attr.port_num = 1;
	attr.qkey = qkey;
	err = ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_PKEY_INDEX |
			   IB_QP_PORT | IB_QP_QKEY);
	if (!KV_EXPECT(t, !err, "RESET->INIT: %d", err))
		return err;
	attr.qp_state = IB_QPS_RTR;
	err = ib_modify_qp(qp, &attr, IB_QP_STATE);
	if (!KV_EXPECT(t, !err, "INIT->RTR: %d", err))
		return err;
	attr.qp_state = IB_QPS_RTS;
	attr.sq_psn = 0;
	err = ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_SQ_PSN);
	KV_EXPECT(t, !err, "RTR->RTS: %d", err);
	return err;
}

/* Objects are destroyed in the reverse order of their dependencies. */
void kv_teardown(struct kv_test *t)
{
	int i, err;

	for (i = t->nqps - 1; i >= 0; i--) {
		/* A case that remakes a QP leaves NULL if that failed. */
		if (!t->qps[i])
			continue;
		err = ib_destroy_qp(t->qps[i]);
		KV_EXPECT(t, !err, "ib_destroy_qp: %d", err);
	}
	for (i = t->nsrqs - 1; i >= 0; i--)
		ib_destroy_srq(t->srqs[i]);
	for (i = t->nmrs - 1; i >= 0; i--) {
		err = ib_dereg_mr(t->mrs[i]);
		KV_EXPECT(t, !err, "ib_dereg_mr: %d", err);
	}
	if (t->ah)
		rdma_destroy_ah(t->ah, RDMA_DESTROY_AH_SLEEPABLE);
	for (i = t->ncqs - 1; i >= 0; i--)
		ib_destroy_cq(t->cqs[i]);
	if (t->pd)
		ib_dealloc_pd(t->pd);
	/* The device is done with the buffers once their QPs are gone. */
	for (i = t->nbufs - 1; i >= 0; i--)
		kv_buf_free(t, t->bufs[i]);
	if (t->cleanup)
		t->cleanup(t);
}

static const struct kv_suite *kv_suites[] = {
	&kv_objects_suite,
	&kv_datapath_suite,
	&kv_remote_suite,
	&kv_limits_suite,
	&kv_dead_suite,
};

static void kv_run_suite(struct ib_device *ibdev, const struct kv_suite *s,
			 const char *filter)
{
	struct kv_test *t;
	int i, n = 0;

	for (i = 0; i < s->ncases; i++)
		if (!filter || !strcmp(filter, s->cases[i].name))
			n++;
	seq_buf_printf(&kv_out, "KTAP version 1\n# suite %s on %s\n1..%d\n",
		       s->name, dev_name(&ibdev->dev), n);
	t = kzalloc_obj(*t);
	if (!t) {
		seq_buf_puts(&kv_out, "# out of memory\n");
		return;
	}
	n = 0;
	for (i = 0; i < s->ncases; i++) {
		if (filter && strcmp(filter, s->cases[i].name))
			continue;
		memset(t, 0, sizeof(*t));
		t->ibdev = ibdev;
		t->name = s->cases[i].name;
		s->cases[i].run(t);
		kv_teardown(t);
		n++;
		if (t->skip_reason && !t->failed)
			seq_buf_printf(&kv_out, "ok %d %s # SKIP %s\n", n,
				       t->name, t->skip_reason);
		else
			seq_buf_printf(&kv_out, "%s %d %s\n",
				       t->failed ? "not ok" : "ok", n, t->name);
	}
	kfree(t);
}

void kv_out_printf(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	kv_vputs(fmt, ap);
	va_end(ap);
}

/* The device called @name (NULL: the first); under kv_lock. */
struct ib_device *kv_find_dev(const char *name)
{
	struct kv_dev *kd;

	list_for_each_entry(kd, &kv_devs, list)
		if (!name || !strcmp(dev_name(&kd->ibdev->dev), name))
			return kd->ibdev;
	return NULL;
}

/*
 * "frag-hold" leaves the page allocator with no free block of order
 * KV_FRAG_ORDER or more (kverbs_frag.c) until "frag-release" or the
 * module's unload, so that a user program can show what a driver builds
 * on fragmented memory (selftests/user/big_user_mr.c).  The result is
 * "ok VERB" or "not ok VERB" after the diagnostics; under kv_lock.
 */
static struct kv_frag kv_frag_held;
static bool kv_frag_holding;

static int kv_frag_cmd(const char *verb)
{
	struct kv_test *t;
	bool ok = true;

	if (!strcmp(verb, "frag-release")) {
		if (!kv_frag_holding)
			return -ENOENT;
		kv_frag_end(&kv_frag_held);
		kv_frag_holding = false;
	} else if (!strcmp(verb, "frag-hold")) {
		if (kv_frag_holding)
			return -EBUSY;
		t = kzalloc_obj(*t);
		if (!t)
			return -ENOMEM;
		t->name = verb;
		ok = kv_frag_begin(t, &kv_frag_held) &&
		     kv_frag_check(t, &kv_frag_held);
		kfree(t);
		if (ok)
			kv_frag_holding = true;
		else
			kv_frag_end(&kv_frag_held);
	} else {
		return -ENOENT;
	}
	seq_buf_printf(&kv_out, "%s %s\n", ok ? "ok" : "not ok", verb);
	return ok ? 0 : -EIO;
}

/*
 * "SUITE [IBDEV [CASE]]" runs a suite (IBDEV defaults to orca_0);
 * "peer-VERB ARGS" drives the remote suite's peer (kverbs_remote.c);
 * "frag-hold" and "frag-release" fragment memory and give it back.
 */
static ssize_t kv_run_write(struct file *file, const char __user *ubuf,
			    size_t count, loff_t *ppos)
{
	char cmd[KV_CMD_MAX], *p, *suite, *dev, *filter;
	const struct kv_suite *s = NULL;
	struct ib_device *ibdev;
	int i, err;

	if (count >= sizeof(cmd))
		return -EINVAL;
	if (copy_from_user(cmd, ubuf, count))
		return -EFAULT;
	cmd[count] = '\0';
	p = strim(cmd);
	suite = strsep(&p, " ");
	if (!strncmp(suite, "peer-", 5)) {
		mutex_lock(&kv_lock);
		seq_buf_clear(&kv_out);
		err = kv_peer_cmd(suite + 5, p ? p : "");
		mutex_unlock(&kv_lock);
		return err ? err : count;
	}
	if (!strncmp(suite, "frag-", 5)) {
		mutex_lock(&kv_lock);
		seq_buf_clear(&kv_out);
		err = kv_frag_cmd(suite);
		mutex_unlock(&kv_lock);
		return err ? err : count;
	}
	dev = strsep(&p, " ");
	filter = strsep(&p, " ");
	if (!dev || !*dev)
		dev = "orca_0";

	for (i = 0; i < ARRAY_SIZE(kv_suites); i++)
		if (!strcmp(kv_suites[i]->name, suite))
			s = kv_suites[i];
	if (!s)
		return -ENOENT;

	mutex_lock(&kv_lock);
	seq_buf_clear(&kv_out);
	ibdev = kv_find_dev(dev);
	if (ibdev)
		kv_run_suite(ibdev, s, filter && *filter ? filter : NULL);
	else
		seq_buf_printf(&kv_out, "KTAP version 1\n1..0 # SKIP no device %s\n",
			       dev);
	mutex_unlock(&kv_lock);
	return count;
}

static ssize_t kv_run_read(struct file *file, char __user *ubuf, size_t count,
			   loff_t *ppos)
{
	ssize_t ret;

	mutex_lock(&kv_lock);
	ret = simple_read_from_buffer(ubuf, count, ppos, kv_out_buf,
				      seq_buf_used(&kv_out));
	mutex_unlock(&kv_lock);
	return ret;
}

static const struct file_operations kv_run_fops = {
	.owner = THIS_MODULE,
	.read = kv_run_read,
	.write = kv_run_write,
	.llseek = default_llseek,
};

static int kv_add(struct ib_device *ibdev)
{
	struct kv_dev *kd;

	kd = kzalloc_obj(*kd);
	if (!kd)
		return -ENOMEM;
	kd->ibdev = ibdev;
	mutex_lock(&kv_lock);
	list_add_tail(&kd->list, &kv_devs);
	mutex_unlock(&kv_lock);
	ib_set_client_data(ibdev, &kv_client, kd);
	return 0;
}

static void kv_remove(struct ib_device *ibdev, void *client_data)
{
	struct kv_dev *kd = client_data;

	/* Waits for a run on this device to finish. */
	mutex_lock(&kv_lock);
	kv_peer_device_removed(ibdev);
	list_del(&kd->list);
	mutex_unlock(&kv_lock);
	kfree(kd);
}

static struct ib_client kv_client = {
	.name = "orca_kverbs",
	.add = kv_add,
	.remove = kv_remove,
};

static int __init kv_init(void)
{
	int ret;

	kv_out_buf = vmalloc(KV_OUT_SIZE);
	if (!kv_out_buf)
		return -ENOMEM;
	seq_buf_init(&kv_out, kv_out_buf, KV_OUT_SIZE);
	kv_root = debugfs_create_dir("orca_kverbs", NULL);
	debugfs_create_file("run", 0600, kv_root, NULL, &kv_run_fops);
	ret = ib_register_client(&kv_client);
	if (ret) {
		debugfs_remove_recursive(kv_root);
		vfree(kv_out_buf);
	}
	return ret;
}

static void __exit kv_exit(void)
{
	debugfs_remove_recursive(kv_root);
	ib_unregister_client(&kv_client);
	if (kv_frag_holding)
		kv_frag_end(&kv_frag_held);
	vfree(kv_out_buf);
}

module_init(kv_init);
module_exit(kv_exit);
MODULE_DESCRIPTION("ORCA kernel verbs test suites");
MODULE_LICENSE("GPL");

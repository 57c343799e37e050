// SPDX-License-Identifier: GPL-2.0
/*
 * Hostile driver data against the orca kernel driver, without the provider:
 * legacy write() commands on /dev/infiniband/uverbsN of orca_0 with short,
 * long, non-zero comp_mask or reserved, absurd, unaligned or unmapped
 * requests, a doorbell record across a page, another context's handles,
 * and legacy data-path commands on user queues.  Every bad request must
 * fail with the expected errno, and a correct one must still succeed.
 *
 * Usage: orca_udata_hostile [SGID_INDEX]
 *   SGID_INDEX: a RoCE v2 GID of orca_0, used as source and destination
 *   of an address handle (loopback); without it the AH cases are skipped.
 *   Output is KTAP; the exit status is non-zero if any case failed.
 *   Objects are left for the kernel to destroy when the files close,
 *   except those the destroy cases remove.
 *
 *        orca_udata_hostile hold
 *   Create a context with a PD, CQ, SRQ and QP and the UAR page mapped,
 *   print "ready", and wait on the context's async event file until the
 *   device goes (rmmod orca): exit 0 after IB_EVENT_DEVICE_FATAL.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <rdma/ib_user_verbs.h>
#include <rdma/orca-abi.h>
#include "orca_hw.h"

#define PG		4096UL
#define NO_ERR		0

static int ntest, nfail;

static __attribute__((format(printf, 2, 3)))
void result(int ok, const char *fmt, ...)
{
	va_list ap;

	ntest++;
	if (!ok)
		nfail++;
	printf("%sok %d ", ok ? "" : "not ", ntest);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

/* One case: @got is 0 or -errno, @want is 0 or an errno. */
static __attribute__((format(printf, 3, 4)))
int expect(int got, int want, const char *fmt, ...)
{
	int ok = want ? got == -want : got == 0;
	char what[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (!ok)
		printf("# %s: got %s, want %s\n", what,
		       got ? strerror(-got) : "success",
		       want ? strerror(want) : "success");
	result(ok, "%s -> %s", what, want ? strerror(want) : "success");
	return ok;
}

/*
 * A legacy command: header, the core request (whose first u64 is the
 * response address for commands with a response), then driver data.
 */
static int uwrite(int fd, uint32_t command, const void *core, size_t core_len,
		  const void *drv, size_t drv_len, size_t out_len)
{
	struct ib_uverbs_cmd_hdr hdr;
	size_t len = sizeof(hdr) + core_len + drv_len;
	char *buf = calloc(1, len);
	ssize_t n;

	if (!buf)
		return -ENOMEM;
	hdr.command = command;
	hdr.in_words = len / 4;
	hdr.out_words = out_len / 4;
	memcpy(buf, &hdr, sizeof(hdr));
	memcpy(buf + sizeof(hdr), core, core_len);
	if (drv_len)
		memcpy(buf + sizeof(hdr) + core_len, drv, drv_len);
	n = write(fd, buf, len);
	free(buf);
	if (n < 0)
		return -errno;
	return n == (ssize_t)len ? 0 : -EIO;
}

/* An extended command: header, ex header, core request, driver data. */
static int uwrite_ex(int fd, uint32_t command, const void *core,
		     size_t core_len, const void *drv, size_t drv_len,
		     void *out, size_t core_out, size_t drv_out)
{
	struct ib_uverbs_ex_cmd_hdr ex = {};
	struct ib_uverbs_cmd_hdr hdr;
	size_t len = sizeof(hdr) + sizeof(ex) + core_len + drv_len;
	char *buf = calloc(1, len);
	ssize_t n;

	if (!buf)
		return -ENOMEM;
	hdr.command = IB_USER_VERBS_CMD_FLAG_EXTENDED | command;
	hdr.in_words = core_len / 8;
	hdr.out_words = core_out / 8;
	ex.response = (uintptr_t)out;
	ex.provider_in_words = drv_len / 8;
	ex.provider_out_words = drv_out / 8;
	memcpy(buf, &hdr, sizeof(hdr));
	memcpy(buf + sizeof(hdr), &ex, sizeof(ex));
	memcpy(buf + sizeof(hdr) + sizeof(ex), core, core_len);
	if (drv_len)
		memcpy(buf + sizeof(hdr) + sizeof(ex) + core_len, drv, drv_len);
	n = write(fd, buf, len);
	free(buf);
	if (n < 0)
		return -errno;
	return n == (ssize_t)len ? 0 : -EIO;
}

/* Response buffer: core response, then the driver's. */
static union {
	uint64_t align;
	unsigned char b[4096];
} out;

static int open_orca(void)
{
	char path[512], name[64];
	struct dirent *de;
	int fd = -1;
	DIR *d;
	FILE *f;

	d = opendir("/sys/class/infiniband_verbs");
	if (!d)
		return -1;
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, "uverbs", 6))
			continue;
		snprintf(path, sizeof(path),
			 "/sys/class/infiniband_verbs/%s/ibdev", de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(name, sizeof(name), f) && !strcmp(name, "orca_0\n")) {
			snprintf(path, sizeof(path), "/dev/infiniband/%s",
				 de->d_name);
			fd = open(path, O_RDWR | O_CLOEXEC);
		}
		fclose(f);
		if (fd >= 0)
			break;
	}
	closedir(d);
	return fd;
}

static int get_context(int fd, const void *drv, size_t drv_len,
		       struct orca_alloc_ucontext_resp *resp)
{
	struct ib_uverbs_get_context cmd = { .response = (uintptr_t)&out };
	struct ib_uverbs_get_context_resp *core = (void *)out.b;
	int err;

	memset(&out, 0, sizeof(out));
	err = uwrite(fd, IB_USER_VERBS_CMD_GET_CONTEXT, &cmd, sizeof(cmd),
		     drv, drv_len, sizeof(*core) + sizeof(*resp));
	if (!err) {
		memcpy(resp, out.b + sizeof(*core), sizeof(*resp));
		close(core->async_fd);
	}
	return err;
}

/* Like get_context(), keeping the async event file. */
static int get_context_async(int fd, struct orca_alloc_ucontext_resp *resp,
			     int *async_fd)
{
	struct ib_uverbs_get_context cmd = { .response = (uintptr_t)&out };
	struct ib_uverbs_get_context_resp *core = (void *)out.b;
	int err;

	memset(&out, 0, sizeof(out));
	err = uwrite(fd, IB_USER_VERBS_CMD_GET_CONTEXT, &cmd, sizeof(cmd),
		     NULL, 0, sizeof(*core) + sizeof(*resp));
	if (!err) {
		memcpy(resp, out.b + sizeof(*core), sizeof(*resp));
		*async_fd = core->async_fd;
	}
	return err;
}

static int alloc_pd(int fd, const void *drv, size_t drv_len,
		    uint32_t *handle)
{
	struct ib_uverbs_alloc_pd cmd = { .response = (uintptr_t)&out };
	struct ib_uverbs_alloc_pd_resp core;
	int err;

	memset(&out, 0, sizeof(out));
	err = uwrite(fd, IB_USER_VERBS_CMD_ALLOC_PD, &cmd, sizeof(cmd),
		     drv, drv_len, sizeof(core) + sizeof(struct orca_alloc_pd_resp));
	if (!err) {
		memcpy(&core, out.b, sizeof(core));
		*handle = core.pd_handle;
	}
	return err;
}

static int create_cq(int fd, uint32_t cqe, const void *drv, size_t drv_len,
		     uint32_t *handle)
{
	struct ib_uverbs_create_cq cmd = {
		.response = (uintptr_t)&out,
		.cqe = cqe,
		.comp_channel = -1,
	};
	struct ib_uverbs_create_cq_resp core;
	int err;

	memset(&out, 0, sizeof(out));
	err = uwrite(fd, IB_USER_VERBS_CMD_CREATE_CQ, &cmd, sizeof(cmd),
		     drv, drv_len, sizeof(core) + sizeof(struct orca_create_cq_resp));
	if (!err && handle) {
		memcpy(&core, out.b, sizeof(core));
		*handle = core.cq_handle;
	}
	return err;
}

static int resize_cq(int fd, uint32_t handle, uint32_t cqe, const void *drv,
		     size_t drv_len)
{
	struct ib_uverbs_resize_cq cmd = {
		.response = (uintptr_t)&out,
		.cq_handle = handle,
		.cqe = cqe,
	};

	memset(&out, 0, sizeof(out));
	return uwrite(fd, IB_USER_VERBS_CMD_RESIZE_CQ, &cmd, sizeof(cmd),
		      drv, drv_len, sizeof(struct ib_uverbs_resize_cq_resp));
}

static int create_srq(int fd, uint32_t pd, uint32_t max_wr, const void *drv,
		      size_t drv_len, uint32_t *handle)
{
	struct ib_uverbs_create_srq cmd = {
		.response = (uintptr_t)&out,
		.pd_handle = pd,
		.max_wr = max_wr,
		.max_sge = 1,
	};
	struct ib_uverbs_create_srq_resp core;
	int err;

	memset(&out, 0, sizeof(out));
	err = uwrite(fd, IB_USER_VERBS_CMD_CREATE_SRQ, &cmd, sizeof(cmd),
		     drv, drv_len, sizeof(core) + sizeof(struct orca_create_srq_resp));
	if (!err && handle) {
		memcpy(&core, out.b, sizeof(core));
		*handle = core.srq_handle;
	}
	return err;
}

struct qp_args {
	uint32_t pd, scq, rcq, srq;
	uint8_t type;			/* enum ib_qp_type */
	uint32_t max_send_wr, max_recv_wr;
};

static int create_qp(int fd, const struct qp_args *a, const void *drv,
		     size_t drv_len, uint32_t *handle)
{
	struct ib_uverbs_create_qp cmd = {
		.response = (uintptr_t)&out,
		.pd_handle = a->pd,
		.send_cq_handle = a->scq,
		.recv_cq_handle = a->rcq,
		.srq_handle = a->srq,
		.max_send_wr = a->max_send_wr,
		.max_recv_wr = a->srq != ~0u ? 0 : a->max_recv_wr,
		.max_send_sge = 1,
		.max_recv_sge = a->srq != ~0u ? 0 : 1,
		.qp_type = a->type,
		.is_srq = a->srq != ~0u,
	};
	struct ib_uverbs_create_qp_resp core;
	int err;

	if (a->srq == ~0u)
		cmd.srq_handle = 0;
	memset(&out, 0, sizeof(out));
	err = uwrite(fd, IB_USER_VERBS_CMD_CREATE_QP, &cmd, sizeof(cmd),
		     drv, drv_len, sizeof(core) + sizeof(struct orca_create_qp_resp));
	if (!err && handle) {
		memcpy(&core, out.b, sizeof(core));
		*handle = core.qp_handle;
	}
	return err;
}

/*
 * MODIFY_QP to @state; with driver data it must be the extended command
 * (the legacy one has none: its tail is the core's to refuse).
 */
static int modify_qp(int fd, uint32_t qp, uint8_t state, const void *drv,
		     size_t drv_len)
{
	struct ib_uverbs_ex_modify_qp cmd = {
		.base.qp_handle = qp,
		.base.qp_state = state,
		.base.attr_mask = 1,		/* IB_QP_STATE */
	};

	if (state == 1) {			/* INIT: pkey, port, access */
		cmd.base.attr_mask |= 8 | 16 | 32;
		cmd.base.port_num = 1;
	}
	if (!drv)
		return uwrite(fd, IB_USER_VERBS_CMD_MODIFY_QP, &cmd.base,
			      sizeof(cmd.base), NULL, 0, 0);
	return uwrite_ex(fd, IB_USER_VERBS_EX_CMD_MODIFY_QP, &cmd, sizeof(cmd),
			 drv, drv_len, &out,
			 sizeof(struct ib_uverbs_ex_modify_qp_resp), 0);
}

static int create_ah(int fd, uint32_t pd, int sgid, const uint8_t *gid,
		     const void *drv, size_t drv_len, uint32_t *handle)
{
	struct ib_uverbs_create_ah cmd = {
		.response = (uintptr_t)&out,
		.pd_handle = pd,
	};
	struct ib_uverbs_create_ah_resp core;
	int err;

	memcpy(cmd.attr.grh.dgid, gid, 16);
	cmd.attr.grh.sgid_index = sgid;
	cmd.attr.grh.hop_limit = 64;
	cmd.attr.is_global = 1;
	cmd.attr.port_num = 1;
	memset(&out, 0, sizeof(out));
	err = uwrite(fd, IB_USER_VERBS_CMD_CREATE_AH, &cmd, sizeof(cmd),
		     drv, drv_len, sizeof(core) + sizeof(struct orca_create_ah_resp));
	if (!err && handle) {
		memcpy(&core, out.b, sizeof(core));
		*handle = core.ah_handle;
	}
	return err;
}

/* DESTROY_{CQ,QP,SRQ}: response, handle, reserved. */
static int destroy_obj(int fd, uint32_t command, uint32_t handle)
{
	struct {
		uint64_t response;
		uint32_t handle;
		uint32_t reserved;
	} cmd = { (uintptr_t)&out, handle, 0 };

	return uwrite(fd, command, &cmd, sizeof(cmd), NULL, 0, 16);
}

static void *map_pages(size_t n)
{
	void *p = mmap(NULL, n * PG, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		perror("mmap");
		exit(2);
	}
	memset(p, 0, n * PG);
	return p;
}

/* An address range with nothing mapped. */
static uint64_t unmapped_va(size_t n)
{
	void *p = map_pages(n);

	munmap(p, n * PG);
	return (uintptr_t)p;
}

static uint64_t va(const void *p, size_t off)
{
	return (uintptr_t)p + off;
}

static int read_gid(int index, uint8_t *gid)
{
	char path[128], s[64];
	unsigned int w[8];
	FILE *f;
	int i;

	snprintf(path, sizeof(path),
		 "/sys/class/infiniband/orca_0/ports/1/gids/%d", index);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (!fgets(s, sizeof(s), f) ||
	    sscanf(s, "%x:%x:%x:%x:%x:%x:%x:%x", &w[0], &w[1], &w[2], &w[3],
		   &w[4], &w[5], &w[6], &w[7]) != 8) {
		fclose(f);
		return -1;
	}
	fclose(f);
	for (i = 0; i < 8; i++) {
		gid[2 * i] = w[i] >> 8;
		gid[2 * i + 1] = w[i] & 0xff;
	}
	return 0;
}

/* Zero bytes for a request's tail, and the same with one set. */
static unsigned char zero_tail[64], bad_tail[64];

/* A request struct followed by 8 more bytes, zero or not. */
#define LONG_REQ(buf, req, tail)					\
	do {								\
		memcpy(buf, &(req), sizeof(req));			\
		memcpy((char *)(buf) + sizeof(req), tail, 8);		\
	} while (0)

#define IB_EVENT_DEVICE_FATAL	8	/* enum ib_event_type */

/* Hold objects and a UAR mapping until the device is removed. */
static int hold(void)
{
	struct orca_alloc_ucontext_resp uresp;
	struct ib_uverbs_async_event_desc ev;
	struct orca_create_srq srq_req = {};
	struct orca_create_qp qp_req = {};
	struct orca_create_cq cq_req = {};
	uint32_t pd, cq, srq, qp;
	struct qp_args qa;
	int fd, afd, err;
	void *db, *uar;
	ssize_t n;

	fd = open_orca();
	if (fd < 0 || get_context_async(fd, &uresp, &afd)) {
		fprintf(stderr, "no orca_0 context\n");
		return 1;
	}
	uar = mmap(NULL, PG, PROT_WRITE, MAP_SHARED, fd, uresp.uar_mmap_key);
	db = map_pages(1);
	cq_req.buf_va = va(map_pages(1), 0);
	cq_req.buf_len = PG;
	cq_req.db_rec_va = va(db, 0);
	srq_req.buf_va = va(map_pages(1), 0);
	srq_req.buf_len = PG;
	srq_req.db_rec_va = va(db, 8);
	qp_req.sq_buf_va = va(map_pages(1), 0);
	qp_req.sq_buf_len = PG;
	qp_req.db_rec_va = va(db, 16);
	err = uar == MAP_FAILED ? -errno : 0;
	if (!err)
		err = alloc_pd(fd, NULL, 0, &pd);
	if (!err)
		err = create_cq(fd, 64, &cq_req, sizeof(cq_req), &cq);
	if (!err)
		err = create_srq(fd, pd, 16, &srq_req, sizeof(srq_req), &srq);
	qa = (struct qp_args){ pd, cq, cq, srq, 2, 16, 0 };
	if (!err)
		err = create_qp(fd, &qa, &qp_req, sizeof(qp_req), &qp);
	if (err) {
		fprintf(stderr, "setup failed: %s\n", strerror(-err));
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	for (;;) {
		n = read(afd, &ev, sizeof(ev));
		if (n != sizeof(ev)) {
			fprintf(stderr, "async event read: %s\n",
				n < 0 ? strerror(errno) : "short");
			return 1;
		}
		printf("event %u\n", ev.event_type);
		if (ev.event_type == IB_EVENT_DEVICE_FATAL)
			break;
	}
	printf("DEVICE_FATAL\n");
	/* The device is gone: commands fail, closing releases what is left. */
	err = alloc_pd(fd, NULL, 0, &pd);
	printf("ALLOC_PD after removal: %s\n", err ? strerror(-err) : "success");
	munmap(uar, PG);
	close(afd);
	close(fd);
	return err ? 0 : 1;
}

int main(int argc, char **argv)
{
	struct orca_alloc_ucontext_resp uresp = {}, uresp_b;
	struct orca_alloc_ucontext_req ureq = {};
	unsigned char big[128];
	int sgid = argc > 1 ? atoi(argv[1]) : -1;
	uint32_t pd, pd2, cq, cq2, srq, qp_rc, qp_ud, ah;
	void *db, *cqbuf, *sqbuf, *rqbuf, *srqbuf, *uar;
	struct orca_create_srq srq_req;
	struct orca_create_qp qp_req;
	struct orca_create_cq cq_req;
	struct orca_resize_cq rs_req;
	struct qp_args qa;
	uint8_t gid[16];
	int fd, fd_b, err;

	if (argc > 1 && !strcmp(argv[1], "hold"))
		return hold();
	bad_tail[5] = 1;
	printf("TAP version 13\n");
	fd = open_orca();
	fd_b = open_orca();
	if (fd < 0 || fd_b < 0) {
		printf("1..0 # SKIP no uverbs device for orca_0\n");
		return 1;
	}

	db = map_pages(1);
	cqbuf = map_pages(4);
	sqbuf = map_pages(4);
	rqbuf = map_pages(4);
	srqbuf = map_pages(4);

	/* ---- GET_CONTEXT ---- */
	expect(get_context(fd, &ureq, 4, &uresp), EINVAL,
	       "GET_CONTEXT: request shorter than its v1 struct");
	ureq.comp_mask = 1;
	expect(get_context(fd, &ureq, sizeof(ureq), &uresp), EOPNOTSUPP,
	       "GET_CONTEXT: unknown comp_mask bit");
	ureq.comp_mask = 0;
	ureq.reserved = 1;
	expect(get_context(fd, &ureq, sizeof(ureq), &uresp), EINVAL,
	       "GET_CONTEXT: non-zero reserved");
	ureq.reserved = 0;
	LONG_REQ(big, ureq, bad_tail);
	expect(get_context(fd, big, sizeof(ureq) + 8, &uresp), EOPNOTSUPP,
	       "GET_CONTEXT: longer request with a non-zero tail");
	LONG_REQ(big, ureq, zero_tail);
	expect(get_context(fd, big, sizeof(ureq) + 8, &uresp), NO_ERR,
	       "GET_CONTEXT: longer request with a zero tail");
	result(uresp.comp_mask == 0 && uresp.cqe_size == sizeof(struct orca_cqe) &&
	       uresp.max_cqe && uresp.max_sq_depth && uresp.max_send_sge &&
	       uresp.max_recv_sge,
	       "GET_CONTEXT: response (cqe_size %u max_cqe %u max_sq_depth %u sge %u/%u inline %u caps 0x%x)",
	       uresp.cqe_size, uresp.max_cqe, uresp.max_sq_depth,
	       uresp.max_send_sge, uresp.max_recv_sge, uresp.max_inline_data,
	       uresp.dev_caps);
	expect(get_context(fd, NULL, 0, &uresp_b), EINVAL,
	       "GET_CONTEXT: a second context on one file");
	expect(get_context(fd_b, NULL, 0, &uresp_b), NO_ERR,
	       "GET_CONTEXT: without driver data (second file)");

	/* ---- the UAR page ---- */
	uar = mmap(NULL, PG, PROT_WRITE, MAP_PRIVATE, fd, uresp.uar_mmap_key);
	expect(uar == MAP_FAILED ? -errno : 0, EINVAL, "mmap UAR: MAP_PRIVATE");
	if (uar != MAP_FAILED)
		munmap(uar, PG);
	uar = mmap(NULL, 2 * PG, PROT_WRITE, MAP_SHARED, fd, uresp.uar_mmap_key);
	expect(uar == MAP_FAILED ? -errno : 0, EINVAL, "mmap UAR: two pages");
	if (uar != MAP_FAILED)
		munmap(uar, 2 * PG);
	uar = mmap(NULL, PG, PROT_WRITE, MAP_SHARED, fd,
		   uresp.uar_mmap_key + 64 * PG);
	expect(uar == MAP_FAILED ? -errno : 0, EINVAL, "mmap UAR: unknown offset");
	if (uar != MAP_FAILED)
		munmap(uar, PG);
	uar = mmap(NULL, PG, PROT_WRITE, MAP_SHARED, fd, uresp.uar_mmap_key);
	expect(uar == MAP_FAILED ? -errno : 0, NO_ERR, "mmap UAR: one shared page");

	/* ---- QUERY_DEVICE (extended), whose udata must be empty ---- */
	{
		struct ib_uverbs_ex_query_device q = {};
		uint64_t d = 1;
		size_t rl = (sizeof(struct ib_uverbs_ex_query_device_resp) + 7) & ~7UL;

		expect(uwrite_ex(fd, IB_USER_VERBS_EX_CMD_QUERY_DEVICE, &q,
				 sizeof(q), &d, 8, &out, rl, 0), EOPNOTSUPP,
		       "QUERY_DEVICE_EX: non-zero driver data");
		d = 0;
		expect(uwrite_ex(fd, IB_USER_VERBS_EX_CMD_QUERY_DEVICE, &q,
				 sizeof(q), &d, 8, &out, rl, 8), NO_ERR,
		       "QUERY_DEVICE_EX: zero driver data, driver response space");
	}

	/* ---- ALLOC_PD ---- */
	expect(alloc_pd(fd, bad_tail, 8, &pd), EOPNOTSUPP,
	       "ALLOC_PD: non-zero driver data");
	expect(alloc_pd(fd, NULL, 0, &pd), NO_ERR, "ALLOC_PD");
	expect(alloc_pd(fd, zero_tail, 8, &pd2), NO_ERR,
	       "ALLOC_PD: zero driver data");

	/* ---- CREATE_CQ ---- */
	memset(&cq_req, 0, sizeof(cq_req));
	cq_req.buf_va = va(cqbuf, 0);
	cq_req.buf_len = PG;
	cq_req.db_rec_va = va(db, 0);
	expect(create_cq(fd, 64, &cq_req, 16, NULL), EINVAL,
	       "CREATE_CQ: request shorter than its v1 struct");
	expect(create_cq(fd, 64, NULL, 0, NULL), EINVAL,
	       "CREATE_CQ: no driver data");
	cq_req.comp_mask = 4;
	expect(create_cq(fd, 64, &cq_req, sizeof(cq_req), NULL), EOPNOTSUPP,
	       "CREATE_CQ: unknown comp_mask bit");
	cq_req.comp_mask = 0;
	cq_req.reserved = 7;
	expect(create_cq(fd, 64, &cq_req, sizeof(cq_req), NULL), EINVAL,
	       "CREATE_CQ: non-zero reserved");
	cq_req.reserved = 0;
	LONG_REQ(big, cq_req, bad_tail);
	expect(create_cq(fd, 64, big, sizeof(cq_req) + 8, NULL), EOPNOTSUPP,
	       "CREATE_CQ: longer request with a non-zero tail");
	expect(create_cq(fd, 1u << 30, &cq_req, sizeof(cq_req), NULL), EINVAL,
	       "CREATE_CQ: 2^30 CQEs");
	expect(create_cq(fd, 0x7fffffff, &cq_req, sizeof(cq_req), NULL), EINVAL,
	       "CREATE_CQ: 2^31-1 CQEs");
	cq_req.buf_va = va(cqbuf, 64);
	expect(create_cq(fd, 64, &cq_req, sizeof(cq_req), NULL), EINVAL,
	       "CREATE_CQ: ring not 4 KiB aligned");
	cq_req.buf_va = va(cqbuf, 0);
	cq_req.buf_len = 2048;
	expect(create_cq(fd, 64, &cq_req, sizeof(cq_req), NULL), EINVAL,
	       "CREATE_CQ: ring length not a multiple of 4 KiB");
	cq_req.buf_len = PG;
	expect(create_cq(fd, 256, &cq_req, sizeof(cq_req), NULL), EINVAL,
	       "CREATE_CQ: ring shorter than 256 CQEs");
	cq_req.buf_va = unmapped_va(2);
	expect(create_cq(fd, 64, &cq_req, sizeof(cq_req), NULL), EFAULT,
	       "CREATE_CQ: ring not mapped");
	cq_req.buf_va = va(cqbuf, 0);
	cq_req.buf_len = 0;
	expect(create_cq(fd, 64, &cq_req, sizeof(cq_req), NULL), EINVAL,
	       "CREATE_CQ: ring length 0");
	cq_req.buf_len = ~0ULL & ~(PG - 1);
	cq_req.db_rec_va = va(db, 24);
	expect(create_cq(fd, 64, &cq_req, sizeof(cq_req), NULL), NO_ERR,
	       "CREATE_CQ: huge ring length (only what the CQEs need is pinned)");
	cq_req.buf_len = PG;
	cq_req.db_rec_va = va(db, 4);
	expect(create_cq(fd, 64, &cq_req, sizeof(cq_req), NULL), EINVAL,
	       "CREATE_CQ: doorbell record not 8-byte aligned");
	cq_req.db_rec_va = 0;
	expect(create_cq(fd, 64, &cq_req, sizeof(cq_req), NULL), EINVAL,
	       "CREATE_CQ: doorbell record at address 0");
	cq_req.db_rec_va = unmapped_va(1) + 8;
	expect(create_cq(fd, 64, &cq_req, sizeof(cq_req), NULL), EFAULT,
	       "CREATE_CQ: doorbell record not mapped");
	cq_req.db_rec_va = va(db, 8);
	expect(create_cq(fd_b, 64, &cq_req, sizeof(cq_req), NULL), NO_ERR,
	       "CREATE_CQ: on the second context, sharing the ring page");
	cq_req.db_rec_va = va(db, 0);
	err = create_cq(fd, 64, &cq_req, sizeof(cq_req), &cq);
	expect(err, NO_ERR, "CREATE_CQ: 64 CQEs");
	if (err)
		goto done;
	cq_req.buf_va = va(cqbuf, 2 * PG);
	cq_req.db_rec_va = va(db, 48);
	err = create_cq(fd, 100, &cq_req, sizeof(cq_req), &cq2);
	expect(err, NO_ERR, "CREATE_CQ: a second CQ, record in the same page");
	if (err)
		goto done;

	/* ---- RESIZE_CQ ---- */
	memset(&rs_req, 0, sizeof(rs_req));
	rs_req.buf_va = va(cqbuf, PG);
	rs_req.buf_len = PG;
	rs_req.comp_mask = 1;
	expect(resize_cq(fd, cq2, 128, &rs_req, sizeof(rs_req)), EOPNOTSUPP,
	       "RESIZE_CQ: unknown comp_mask bit");
	rs_req.comp_mask = 0;
	expect(resize_cq(fd, cq2, 128, &rs_req, 8), EINVAL,
	       "RESIZE_CQ: request shorter than its v1 struct");
	rs_req.buf_va = va(cqbuf, PG + 8);
	expect(resize_cq(fd, cq2, 128, &rs_req, sizeof(rs_req)), EINVAL,
	       "RESIZE_CQ: ring not 4 KiB aligned");
	rs_req.buf_va = va(cqbuf, PG);
	expect(resize_cq(fd, cq2, 1u << 30, &rs_req, sizeof(rs_req)), EINVAL,
	       "RESIZE_CQ: 2^30 CQEs");
	expect(resize_cq(fd, cq2, 1000, &rs_req, sizeof(rs_req)), EINVAL,
	       "RESIZE_CQ: ring shorter than 1024 CQEs");
	rs_req.buf_va = unmapped_va(1);
	expect(resize_cq(fd, cq2, 128, &rs_req, sizeof(rs_req)), EFAULT,
	       "RESIZE_CQ: ring not mapped");
	rs_req.buf_va = va(cqbuf, PG);
	err = resize_cq(fd, cq2, 128, &rs_req, sizeof(rs_req));
	expect(err, NO_ERR, "RESIZE_CQ: to 128 CQEs");
	if (!err)
		result(((struct ib_uverbs_resize_cq_resp *)out.b)->cqe == 128,
		       "RESIZE_CQ: reports 128 CQEs (%u)",
		       ((struct ib_uverbs_resize_cq_resp *)out.b)->cqe);

	/* ---- CREATE_SRQ ---- */
	memset(&srq_req, 0, sizeof(srq_req));
	srq_req.buf_va = va(srqbuf, 0);
	srq_req.buf_len = PG;
	srq_req.db_rec_va = va(db, 16);
	expect(create_srq(fd, pd, 16, &srq_req, 20, NULL), EINVAL,
	       "CREATE_SRQ: request shorter than its v1 struct");
	srq_req.comp_mask = 0x80000000u;
	expect(create_srq(fd, pd, 16, &srq_req, sizeof(srq_req), NULL),
	       EOPNOTSUPP, "CREATE_SRQ: unknown comp_mask bit");
	srq_req.comp_mask = 0;
	srq_req.reserved = 1;
	expect(create_srq(fd, pd, 16, &srq_req, sizeof(srq_req), NULL), EINVAL,
	       "CREATE_SRQ: non-zero reserved");
	srq_req.reserved = 0;
	expect(create_srq(fd, pd, 1u << 31, &srq_req, sizeof(srq_req), NULL),
	       EINVAL, "CREATE_SRQ: 2^31 WQEs");
	expect(create_srq(fd, pd, 128, &srq_req, sizeof(srq_req), NULL), EINVAL,
	       "CREATE_SRQ: ring shorter than 128 WQEs");
	srq_req.db_rec_va = va(db, PG - 4);
	expect(create_srq(fd, pd, 16, &srq_req, sizeof(srq_req), NULL), EINVAL,
	       "CREATE_SRQ: doorbell record misaligned, across a page");
	srq_req.db_rec_va = va(db, 16);
	expect(create_srq(fd_b, pd, 16, &srq_req, sizeof(srq_req), NULL),
	       EINVAL, "CREATE_SRQ: another context's PD handle");
	err = create_srq(fd, pd, 16, &srq_req, sizeof(srq_req), &srq);
	expect(err, NO_ERR, "CREATE_SRQ: 16 WQEs");
	if (err)
		goto done;
	{
		struct orca_create_srq_resp r;

		memcpy(&r, out.b + sizeof(struct ib_uverbs_create_srq_resp),
		       sizeof(r));
		result(r.stride == orca_recv_wqe_stride(1),
		       "CREATE_SRQ: stride %u", r.stride);
	}

	/* ---- CREATE_QP ---- */
	qa = (struct qp_args){ pd, cq, cq, ~0u, 2, 16, 16 };
	memset(&qp_req, 0, sizeof(qp_req));
	qp_req.sq_buf_va = va(sqbuf, 0);
	qp_req.sq_buf_len = PG;
	qp_req.rq_buf_va = va(rqbuf, 0);
	qp_req.rq_buf_len = PG;
	qp_req.db_rec_va = va(db, 32);
	qa.type = 1;
	/* The core refuses it before the driver (which would too). */
	expect(create_qp(fd, &qa, &qp_req, sizeof(qp_req), NULL), EINVAL,
	       "CREATE_QP: a GSI QP");
	qa.type = 2;
	expect(create_qp(fd, &qa, &qp_req, 24, NULL), EINVAL,
	       "CREATE_QP: request shorter than its v1 struct");
	qp_req.comp_mask = 2;
	expect(create_qp(fd, &qa, &qp_req, sizeof(qp_req), NULL), EOPNOTSUPP,
	       "CREATE_QP: unknown comp_mask bit");
	qp_req.comp_mask = 0;
	qp_req.reserved = 1;
	expect(create_qp(fd, &qa, &qp_req, sizeof(qp_req), NULL), EINVAL,
	       "CREATE_QP: non-zero reserved");
	qp_req.reserved = 0;
	LONG_REQ(big, qp_req, bad_tail);
	expect(create_qp(fd, &qa, big, sizeof(qp_req) + 8, NULL), EOPNOTSUPP,
	       "CREATE_QP: longer request with a non-zero tail");
	qa.max_send_wr = 1u << 24;
	expect(create_qp(fd, &qa, &qp_req, sizeof(qp_req), NULL), EINVAL,
	       "CREATE_QP: 2^24 send WQEs");
	qa.max_send_wr = 64;
	expect(create_qp(fd, &qa, &qp_req, sizeof(qp_req), NULL), EINVAL,
	       "CREATE_QP: send ring shorter than 64 WQEs");
	qa.max_send_wr = 16;
	qp_req.rq_buf_len = 0;
	expect(create_qp(fd, &qa, &qp_req, sizeof(qp_req), NULL), EINVAL,
	       "CREATE_QP: no receive ring without an SRQ");
	qp_req.rq_buf_len = PG;
	qp_req.sq_buf_va = va(sqbuf, 512);
	expect(create_qp(fd, &qa, &qp_req, sizeof(qp_req), NULL), EINVAL,
	       "CREATE_QP: send ring not 4 KiB aligned");
	qp_req.sq_buf_va = unmapped_va(1);
	expect(create_qp(fd, &qa, &qp_req, sizeof(qp_req), NULL), EFAULT,
	       "CREATE_QP: send ring not mapped");
	qp_req.sq_buf_va = va(sqbuf, 0);
	qp_req.rq_buf_va = unmapped_va(1);
	expect(create_qp(fd, &qa, &qp_req, sizeof(qp_req), NULL), EFAULT,
	       "CREATE_QP: receive ring not mapped");
	qp_req.rq_buf_va = va(rqbuf, 0);
	qp_req.db_rec_va = va(db, PG - 8);
	expect(create_qp(fd, &qa, &qp_req, sizeof(qp_req), NULL), EINVAL,
	       "CREATE_QP: 16-byte doorbell record across a page");
	qp_req.db_rec_va = va(db, 33);
	expect(create_qp(fd, &qa, &qp_req, sizeof(qp_req), NULL), EINVAL,
	       "CREATE_QP: doorbell record not 8-byte aligned");
	qp_req.db_rec_va = va(db, 32);
	expect(create_qp(fd_b, &qa, &qp_req, sizeof(qp_req), NULL), ENOENT,
	       "CREATE_QP: another context's PD and CQ handles");
	err = create_qp(fd, &qa, &qp_req, sizeof(qp_req), &qp_rc);
	expect(err, NO_ERR, "CREATE_QP: RC, 16/16 WQEs");
	if (err)
		goto done;
	{
		struct orca_create_qp_resp r;

		memcpy(&r, out.b + sizeof(struct ib_uverbs_create_qp_resp),
		       sizeof(r));
		result(r.sq_stride == orca_send_wqe_stride(1) &&
		       r.rq_stride == orca_recv_wqe_stride(1) && r.qpn > 1,
		       "CREATE_QP: qpn %u sq_stride %u rq_stride %u", r.qpn,
		       r.sq_stride, r.rq_stride);
	}
	qa = (struct qp_args){ pd, cq2, cq2, srq, 4, 16, 0 };
	qp_req.sq_buf_va = va(sqbuf, PG);
	qp_req.db_rec_va = va(db, 64);
	expect(create_qp(fd, &qa, &qp_req, sizeof(qp_req), NULL), EINVAL,
	       "CREATE_QP: a receive ring with an SRQ");
	qp_req.rq_buf_va = 0;
	qp_req.rq_buf_len = 0;
	err = create_qp(fd, &qa, &qp_req, sizeof(qp_req), &qp_ud);
	expect(err, NO_ERR, "CREATE_QP: UD on the SRQ");
	if (err)
		goto done;

	/* ---- MODIFY_QP: no driver data ---- */
	expect(modify_qp(fd, qp_rc, 1, bad_tail, 8), EOPNOTSUPP,
	       "EX_MODIFY_QP: non-zero driver data");
	expect(modify_qp(fd, qp_rc, 1, NULL, 0), NO_ERR, "MODIFY_QP: RC to INIT");
	expect(modify_qp(fd, qp_rc, 0, zero_tail, 8), NO_ERR,
	       "EX_MODIFY_QP: RC to RESET, zero driver data");
	expect(modify_qp(fd, qp_rc, 1, NULL, 0), NO_ERR,
	       "MODIFY_QP: RC to INIT again");

	/* ---- CREATE_AH ---- */
	if (sgid < 0 || read_gid(sgid, gid)) {
		result(1, "CREATE_AH # SKIP no RoCE v2 GID given");
		ah = 0;
	} else {
		expect(create_ah(fd, pd, sgid, gid, bad_tail, 8, NULL),
		       EOPNOTSUPP, "CREATE_AH: non-zero driver data");
		err = create_ah(fd, pd, sgid, gid, zero_tail, 8, &ah);
		expect(err, NO_ERR, "CREATE_AH: loopback to GID %d", sgid);
	}

	/*
	 * ---- legacy data-path commands on user queues ----
	 * The core leaves them out of uverbs_cmd_mask; the driver would refuse
	 * them too (the rings are the provider's).
	 */
	{
		struct ib_uverbs_poll_cq pc = {
			.response = (uintptr_t)&out, .cq_handle = cq, .ne = 1,
		};
		struct ib_uverbs_req_notify_cq rn = { .cq_handle = cq };
		struct {
			struct ib_uverbs_post_recv h;
			struct ib_uverbs_recv_wr wr;
		} pr = {
			.h = { .response = (uintptr_t)&out, .qp_handle = qp_rc,
			       .wr_count = 1,
			       .wqe_size = sizeof(struct ib_uverbs_recv_wr) },
		};
		struct {
			struct ib_uverbs_post_send h;
			struct ib_uverbs_send_wr wr;
		} ps = {
			.h = { .response = (uintptr_t)&out, .qp_handle = qp_rc,
			       .wr_count = 1,
			       .wqe_size = sizeof(struct ib_uverbs_send_wr) },
			.wr = { .opcode = IB_UVERBS_WR_SEND },
		};
		struct {
			struct ib_uverbs_post_srq_recv h;
			struct ib_uverbs_recv_wr wr;
		} psr = {
			.h = { .response = (uintptr_t)&out, .srq_handle = srq,
			       .wr_count = 1,
			       .wqe_size = sizeof(struct ib_uverbs_recv_wr) },
		};

		expect(uwrite(fd, IB_USER_VERBS_CMD_POLL_CQ, &pc, sizeof(pc),
			      NULL, 0, 8 + sizeof(struct ib_uverbs_wc)),
		       EOPNOTSUPP, "POLL_CQ (kernel polling) on a user CQ");
		expect(uwrite(fd, IB_USER_VERBS_CMD_REQ_NOTIFY_CQ, &rn,
			      sizeof(rn), NULL, 0, 0), EOPNOTSUPP,
		       "REQ_NOTIFY_CQ (kernel arming) on a user CQ");
		expect(uwrite(fd, IB_USER_VERBS_CMD_POST_RECV, &pr, sizeof(pr),
			      NULL, 0, 8), EOPNOTSUPP,
		       "POST_RECV (kernel posting) on a user QP");
		expect(modify_qp(fd, qp_rc, 6, NULL, 0), NO_ERR,
		       "MODIFY_QP: RC to ERR");
		expect(uwrite(fd, IB_USER_VERBS_CMD_POST_SEND, &ps, sizeof(ps),
			      NULL, 0, 8), EOPNOTSUPP,
		       "POST_SEND (kernel posting) on a user QP in ERR");
		expect(uwrite(fd, IB_USER_VERBS_CMD_POST_SRQ_RECV, &psr,
			      sizeof(psr), NULL, 0, 8), EOPNOTSUPP,
		       "POST_SRQ_RECV (kernel posting) on a user SRQ");
	}

	/* ---- destroy: the SRQ is in use, then everything in order ---- */
	expect(destroy_obj(fd, IB_USER_VERBS_CMD_DESTROY_SRQ, srq), EBUSY,
	       "DESTROY_SRQ: still used by a QP");
	expect(destroy_obj(fd, IB_USER_VERBS_CMD_DESTROY_QP, qp_ud), NO_ERR,
	       "DESTROY_QP: UD");
	expect(destroy_obj(fd, IB_USER_VERBS_CMD_DESTROY_SRQ, srq), NO_ERR,
	       "DESTROY_SRQ");
	expect(destroy_obj(fd, IB_USER_VERBS_CMD_DESTROY_CQ, cq2), NO_ERR,
	       "DESTROY_CQ: the resized CQ");
	expect(destroy_obj(fd, IB_USER_VERBS_CMD_DESTROY_CQ, cq2), ENOENT,
	       "DESTROY_CQ: again");
	/* The RC QP, its CQ, the AH and the PDs go when the files close. */
	(void)ah;
	(void)pd2;
done:
	if (uar != MAP_FAILED)
		munmap(uar, PG);
	close(fd_b);
	close(fd);
	printf("1..%d\n", ntest);
	printf("# %d of %d cases failed\n", nfail, ntest);
	return nfail ? 1 : 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Hostile driver data against the orca kernel driver, without the provider:
 * legacy write() commands on /dev/infiniband/uverbsN of orca_0 with short,
 * long, non-zero comp_mask or reserved, absurd, unaligned or unmapped
 * requests, a doorbell record across a page, another context's handles,
 * and legacy data-path commands on user queues.  Every bad request must
 * fail with the expected errno, and a correct one must still succeed.
 * A queue geometry the request names (rdma/orca-abi.h) that does not fit
 * the attributes, the device or the ring must fail with EINVAL before any
 * command reaches the adapter (the command queue's posted count in debugfs
 * stays) and be counted (driver_bad_user_queues); a larger geometry than
 * the attributes need must be taken as it is and reported back.
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
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
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

static int create_srq(int fd, uint32_t pd, uint32_t max_wr, uint32_t max_sge,
		      const void *drv, size_t drv_len, uint32_t *handle)
{
	struct ib_uverbs_create_srq cmd = {
		.response = (uintptr_t)&out,
		.pd_handle = pd,
		.max_wr = max_wr,
		.max_sge = max_sge,
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

/* MODIFY_SRQ with IB_SRQ_MAX_WR: a resize, with its new ring. */
static int resize_srq(int fd, uint32_t handle, uint32_t max_wr,
		      const void *drv, size_t drv_len)
{
	struct ib_uverbs_modify_srq cmd = {
		.srq_handle = handle,
		.attr_mask = 1,			/* IB_SRQ_MAX_WR */
		.max_wr = max_wr,
	};

	return uwrite(fd, IB_USER_VERBS_CMD_MODIFY_SRQ, &cmd, sizeof(cmd),
		      drv, drv_len, 0);
}

static int query_srq(int fd, uint32_t handle,
		     struct ib_uverbs_query_srq_resp *resp)
{
	struct ib_uverbs_query_srq cmd = {
		.response = (uintptr_t)resp,
		.srq_handle = handle,
	};

	return uwrite(fd, IB_USER_VERBS_CMD_QUERY_SRQ, &cmd, sizeof(cmd),
		      NULL, 0, sizeof(*resp));
}

struct qp_args {
	uint32_t pd, scq, rcq, srq;
	uint8_t type;			/* enum ib_qp_type */
	uint32_t max_send_wr, max_recv_wr;
	uint32_t max_send_sge, max_recv_sge, max_inline_data;
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
		.max_send_sge = a->max_send_sge,
		.max_recv_sge = a->srq != ~0u ? 0 : a->max_recv_sge,
		.max_inline_data = a->max_inline_data,
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
	cq_req.cqe_count = 64;
	cq_req.buf_va = va(map_pages(1), 0);
	cq_req.buf_len = PG;
	cq_req.db_rec_va = va(db, 0);
	srq_req.wqe_count = 16;
	srq_req.stride = orca_recv_wqe_stride(1);
	srq_req.buf_va = va(map_pages(1), 0);
	srq_req.buf_len = PG;
	srq_req.db_rec_va = va(db, 8);
	qp_req.sq_wqe_count = 16;
	qp_req.sq_stride = orca_send_wqe_stride(1);
	qp_req.sq_buf_va = va(map_pages(1), 0);
	qp_req.sq_buf_len = PG;
	qp_req.db_rec_va = va(db, 16);
	err = uar == MAP_FAILED ? -errno : 0;
	if (!err)
		err = alloc_pd(fd, NULL, 0, &pd);
	if (!err)
		err = create_cq(fd, 64, &cq_req, sizeof(cq_req), &cq);
	if (!err)
		err = create_srq(fd, pd, 16, 1, &srq_req, sizeof(srq_req), &srq);
	qa = (struct qp_args){ pd, cq, cq, srq, 2, 16, 0, 1, 0, 0 };
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

/*
 * The cases, as tables run in order by run_all().  A section is one command
 * (enum cmd, call()): its request bundle (the core arguments its helper
 * above takes, then the driver data), built correct in run_all().  A case
 * is that bundle with up to three fields patched, the driver data cut or
 * extended, on the first file or the second, and the errno it must fail
 * with (or NO_ERR).  A case that keeps what it creates puts the handle in a
 * slot that later bundles use.  A geometry case (GEOM) is a queue geometry
 * or ring the kernel must refuse with EINVAL before the adapter sees a
 * command, and count.
 */
enum slot { S_NONE, S_PD, S_PD2, S_CQ, S_CQ2, S_SRQ, S_QP_RC, S_QP_UD, S_AH,
	    S_MAX };

/* Where a patched address points: a fixed value or into a buffer. */
enum base { B_VAL, B_DB, B_CQBUF, B_SQBUF, B_RQBUF, B_SRQBUF, B_UNMAPPED,
	    B_UNMAPPED2 };

struct patch {
	uint16_t off;
	uint8_t size;			/* 0: no patch */
	uint8_t base;			/* enum base */
	uint64_t val;			/* the value, or an offset from the base */
};

/* Driver data length: all of it, none, a number of bytes, or 8 more. */
#define LEN_FULL	0
#define LEN_NONE	(-1)
#define LEN_BAD_TAIL	(-2)
#define LEN_ZERO_TAIL	(-3)

struct hcase {
	const char *name;
	int want;			/* errno, or NO_ERR */
	int len;			/* LEN_*, or the bytes of driver data */
	uint8_t on_b;			/* on the second file */
	uint8_t keep;			/* enum slot of the new handle */
	uint8_t stop;			/* no later case runs if this fails */
	uint8_t geom;			/* a refused geometry: GEOM */
	struct patch p[3];
};

#define GEOM	EINVAL, .geom = 1

/* Patch FIELD of bundle TYPE to BASE + VAL. */
#define SET(type, field, base, v)					\
	{ offsetof(type, field), sizeof(((type *)0)->field), base, v }

struct hostile {
	int fd[2];			/* the two files, A and B */
	void *db, *cqbuf, *sqbuf, *rqbuf, *srqbuf;
	uint32_t handle[S_MAX];
	struct orca_alloc_ucontext_resp uresp, uresp_b;
	int ctx_a;			/* file A has its context */
	int last_err;			/* of the last case run */
};

/* Each section's request bundle, after its core arguments. */
struct cq_bundle {
	uint32_t cqe;
	struct orca_create_cq r;
};

struct rs_bundle {
	uint32_t cqe;
	struct orca_resize_cq r;
};

struct srq_bundle {
	uint32_t pd, max_wr, max_sge;
	struct orca_create_srq r;
};

struct msrq_bundle {
	uint32_t max_wr;
	struct orca_modify_srq r;
};

struct qp_bundle {
	struct qp_args a;
	struct orca_create_qp r;
};

enum cmd { C_CTX, C_PD, C_CQ, C_RS, C_SRQ, C_MSRQ, C_QP, C_MQ };

/* A bundle's size, and where in it the driver data is and how long. */
struct section {
	size_t size, drv_off, drv_size;
};

#define SECTION(type, field)						\
	{ sizeof(type), offsetof(type, field), sizeof(((type *)0)->field) }

static const struct section sections[] = {
	[C_CTX] = { sizeof(struct orca_alloc_ucontext_req), 0,
		    sizeof(struct orca_alloc_ucontext_req) },
	[C_PD] = { 0, 0, 0 },			/* driver data only */
	[C_CQ] = SECTION(struct cq_bundle, r),
	[C_RS] = SECTION(struct rs_bundle, r),
	[C_SRQ] = SECTION(struct srq_bundle, r),
	[C_MSRQ] = SECTION(struct msrq_bundle, r),
	[C_QP] = SECTION(struct qp_bundle, r),
	[C_MQ] = { 1, 0, 0 },			/* the state; driver data only */
};

/* The command of @cmd with @bundle and driver data @drv of @len bytes. */
static int call(struct hostile *h, enum cmd cmd, int fd, const void *bundle,
		const void *drv, size_t len, uint32_t *handle)
{
	const struct cq_bundle *cq = bundle;
	const struct rs_bundle *rs = bundle;
	const struct srq_bundle *srq = bundle;
	const struct msrq_bundle *msrq = bundle;
	const struct qp_bundle *qp = bundle;
	int first, err;

	switch (cmd) {
	case C_CTX:
		/* The response is kept until file A has its context. */
		first = fd == h->fd[0] && !h->ctx_a;
		err = get_context(fd, drv, len,
				  first ? &h->uresp : &h->uresp_b);
		if (!err && first)
			h->ctx_a = 1;
		return err;
	case C_PD:
		return alloc_pd(fd, drv, len, handle);
	case C_CQ:
		return create_cq(fd, cq->cqe, drv, len, handle);
	case C_RS:
		/* Of the second CQ. */
		return resize_cq(fd, h->handle[S_CQ2], rs->cqe, drv, len);
	case C_SRQ:
		return create_srq(fd, srq->pd, srq->max_wr, srq->max_sge, drv, len,
				  handle);
	case C_MSRQ:
		/* Of the SRQ. */
		return resize_srq(fd, h->handle[S_SRQ], msrq->max_wr, drv, len);
	case C_QP:
		return create_qp(fd, &qp->a, drv, len, handle);
	case C_MQ:
		/* Of the RC QP. */
		return modify_qp(fd, h->handle[S_QP_RC],
				 *(const uint8_t *)bundle, drv, len);
	}
	return -EINVAL;
}

static uint64_t resolve(const struct hostile *h, const struct patch *p)
{
	switch (p->base) {
	case B_DB:
		return va(h->db, p->val);
	case B_CQBUF:
		return va(h->cqbuf, p->val);
	case B_SQBUF:
		return va(h->sqbuf, p->val);
	case B_RQBUF:
		return va(h->rqbuf, p->val);
	case B_SRQBUF:
		return va(h->srqbuf, p->val);
	case B_UNMAPPED:
		return unmapped_va(1) + p->val;
	case B_UNMAPPED2:
		return unmapped_va(2) + p->val;
	}
	return p->val;
}

/*
 * The commands the driver posted to the adapter: "posted N" of its command
 * queue in debugfs (/sys/kernel/debug/orca/<PCI function>/cmdq).
 */
static int cmdq_posted(uint64_t *v)
{
	char link[256], path[512], line[128];
	const char *pci;
	ssize_t n;
	FILE *f;
	int found = 0;

	n = readlink("/sys/class/infiniband/orca_0/device", link,
		     sizeof(link) - 1);
	if (n <= 0)
		return -1;
	link[n] = 0;
	pci = strrchr(link, '/') ? strrchr(link, '/') + 1 : link;
	snprintf(path, sizeof(path), "/sys/kernel/debug/orca/%s/cmdq", pci);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (!found && fgets(line, sizeof(line), f))
		found = sscanf(line, "posted %" SCNu64, v) == 1;
	fclose(f);
	return found ? 0 : -1;
}

/*
 * The driver's count of refused user queues.  Reading it runs QUERY_STATS,
 * and the core answers from a cache for 10 ms after: read it only before
 * cmdq_posted(), and again after a pause.
 */
static int bad_user_queues(uint64_t *v)
{
	FILE *f = fopen("/sys/class/infiniband/orca_0/ports/1/hw_counters/driver_bad_user_queues",
			"r");
	int ok;

	if (!f)
		return -1;
	ok = fscanf(f, "%" SCNu64, v) == 1;
	fclose(f);
	return ok ? 0 : -1;
}

static void pause_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* A geometry case's command refused: nothing posted, and counted. */
static void expect_refused(const struct hcase *c, int have,
			   uint64_t posted0, uint64_t bad0)
{
	uint64_t posted1 = 0, bad1 = 0;

	have = have && !cmdq_posted(&posted1);
	pause_ms(30);
	have = have && !bad_user_queues(&bad1);
	if (!have)
		printf("# no debugfs cmdq or driver_bad_user_queues counter\n");
	result(have && posted1 == posted0 && bad1 == bad0 + 1,
	       "%s: no command reached the adapter (posted %" PRIu64 " -> %" PRIu64 "), counted (driver_bad_user_queues %" PRIu64 " -> %" PRIu64 ")",
	       c->name, posted0, posted1, bad0, bad1);
}

/* Run @n cases of command @cmd on bundle @good; 0 once a stop case failed. */
static int run_cases(struct hostile *h, enum cmd cmd, const void *good,
		     const struct hcase *c, size_t n)
{
	const struct section *s = &sections[cmd];
	union {
		uint64_t align;
		unsigned char b[256];
	} u;
	unsigned char drv[256], *bundle = u.b;
	uint64_t v, posted0 = 0, bad0 = 0;
	uint32_t scratch;
	const struct patch *p;
	const void *d;
	size_t len;
	uint32_t v32;
	int have = 0;

	for (; n--; c++) {
		memcpy(bundle, good, s->size);
		for (p = c->p; p < c->p + 3 && p->size; p++) {
			v = resolve(h, p);
			v32 = v;
			if (p->size == 8)
				memcpy(bundle + p->off, &v, 8);
			else if (p->size == 4)
				memcpy(bundle + p->off, &v32, 4);
			else
				bundle[p->off] = v;
		}
		d = bundle + s->drv_off;
		len = s->drv_size;
		if (c->len == LEN_NONE) {
			d = NULL;
			len = 0;
		} else if (c->len == LEN_BAD_TAIL || c->len == LEN_ZERO_TAIL) {
			memcpy(drv, d, len);
			memcpy(drv + len,
			       c->len == LEN_BAD_TAIL ? bad_tail : zero_tail, 8);
			d = drv;
			len += 8;
		} else if (c->len != LEN_FULL) {
			len = c->len;
		}
		if (c->geom)
			have = !bad_user_queues(&bad0) && !cmdq_posted(&posted0);
		h->last_err = call(h, cmd, h->fd[c->on_b], bundle, d, len,
				   c->keep ? &h->handle[c->keep] : &scratch);
		if (!expect(h->last_err, c->want, "%s", c->name) && c->stop)
			return 0;
		if (c->geom)
			expect_refused(c, have, posted0, bad0);
	}
	return 1;
}

#define RUN(h, cmd, good, cases) \
	run_cases(h, cmd, good, cases, sizeof(cases) / sizeof((cases)[0]))

/* ---- GET_CONTEXT ---- */
#define CTX(field, v) SET(struct orca_alloc_ucontext_req, field, B_VAL, v)
static const struct hcase ctx_cases[] = {
	{ "GET_CONTEXT: request shorter than its v1 struct", EINVAL, .len = 4 },
	{ "GET_CONTEXT: unknown comp_mask bit", EOPNOTSUPP,
	  .p = { CTX(comp_mask, 1) } },
	{ "GET_CONTEXT: non-zero reserved", EINVAL,
	  .p = { CTX(reserved, 1) } },
	{ "GET_CONTEXT: longer request with a non-zero tail", EOPNOTSUPP,
	  .len = LEN_BAD_TAIL },
	{ "GET_CONTEXT: longer request with a zero tail", NO_ERR,
	  .len = LEN_ZERO_TAIL },
};

/* Once file A has its context. */
static const struct hcase ctx_more_cases[] = {
	{ "GET_CONTEXT: a second context on one file", EINVAL, .len = LEN_NONE },
	{ "GET_CONTEXT: without driver data (second file)", NO_ERR, .len = LEN_NONE,
	  .on_b = 1 },
};

/* ---- mmap of the UAR page ---- */
static const struct {
	const char *name;
	int want, flags;
	size_t pages, off_pages;
} uar_cases[] = {
	{ "mmap UAR: MAP_PRIVATE", EINVAL, MAP_PRIVATE, 1, 0 },
	{ "mmap UAR: two pages", EINVAL, MAP_SHARED, 2, 0 },
	{ "mmap UAR: unknown offset", EINVAL, MAP_SHARED, 1, 64 },
	{ "mmap UAR: one shared page", NO_ERR, MAP_SHARED, 1, 0 },
};

/* Runs uar_cases; returns the mapping of the last (or MAP_FAILED). */
static void *run_uar_cases(struct hostile *h)
{
	size_t i, n = sizeof(uar_cases) / sizeof(uar_cases[0]);
	void *uar = MAP_FAILED;

	for (i = 0; i < n; i++) {
		uar = mmap(NULL, uar_cases[i].pages * PG, PROT_WRITE,
			   uar_cases[i].flags, h->fd[0],
			   h->uresp.uar_mmap_key + uar_cases[i].off_pages * PG);
		expect(uar == MAP_FAILED ? -errno : 0, uar_cases[i].want, "%s",
		       uar_cases[i].name);
		if (i + 1 < n && uar != MAP_FAILED)
			munmap(uar, uar_cases[i].pages * PG);
	}
	return uar;
}

/* ---- ALLOC_PD: driver data only ---- */
static const struct hcase pd_cases[] = {
	{ "ALLOC_PD: non-zero driver data", EOPNOTSUPP, .len = LEN_BAD_TAIL },
	{ "ALLOC_PD", NO_ERR, .len = LEN_NONE, .keep = S_PD },
	{ "ALLOC_PD: zero driver data", NO_ERR, .len = LEN_ZERO_TAIL,
	  .keep = S_PD2 },
};

/* ---- CREATE_CQ ---- */
#define CQ(field, base, v) SET(struct cq_bundle, field, base, v)
/* 64 CQEs asked, a ring of 64 (2 KiB) in the first page. */
static const struct hcase cq_cases[] = {
	{ "CREATE_CQ: request shorter than its v1 struct", EINVAL, .len = 16 },
	{ "CREATE_CQ: no driver data", EINVAL, .len = LEN_NONE },
	{ "CREATE_CQ: unknown comp_mask bit", EOPNOTSUPP,
	  .p = { CQ(r.comp_mask, B_VAL, 4) } },
	{ "CREATE_CQ: longer request with a non-zero tail", EOPNOTSUPP,
	  .len = LEN_BAD_TAIL },
	{ "CREATE_CQ: 2^30 CQEs", EINVAL, .p = { CQ(cqe, B_VAL, 1u << 30) } },
	{ "CREATE_CQ: 2^31-1 CQEs", EINVAL,
	  .p = { CQ(cqe, B_VAL, 0x7fffffff) } },
	{ "CREATE_CQ: a ring of 96 CQEs, not a power of two", GEOM,
	  .p = { CQ(r.cqe_count, B_VAL, 96) } },
	{ "CREATE_CQ: a ring of 32 CQEs for 64", GEOM,
	  .p = { CQ(r.cqe_count, B_VAL, 32) } },
	{ "CREATE_CQ: a ring of 2^31 CQEs, over the device's limit", GEOM,
	  .p = { CQ(r.cqe_count, B_VAL, 1u << 31) } },
	{ "CREATE_CQ: ring not 4 KiB aligned", GEOM,
	  .p = { CQ(r.buf_va, B_CQBUF, 64) } },
	{ "CREATE_CQ: ring length not a multiple of 4 KiB", GEOM,
	  .p = { CQ(r.buf_len, B_VAL, 2048) } },
	{ "CREATE_CQ: ring of 4 KiB for 256 CQEs", GEOM,
	  .p = { CQ(cqe, B_VAL, 256), CQ(r.cqe_count, B_VAL, 256) } },
	{ "CREATE_CQ: ring not mapped", EFAULT,
	  .p = { CQ(r.buf_va, B_UNMAPPED2, 0) } },
	{ "CREATE_CQ: ring length 0", GEOM,
	  .p = { CQ(r.buf_len, B_VAL, 0) } },
	{ "CREATE_CQ: huge ring length (only what the CQEs need is pinned)",
	  NO_ERR, .p = { CQ(r.buf_len, B_VAL, ~0ULL & ~(PG - 1)),
			 CQ(r.db_rec_va, B_DB, 24) } },
	{ "CREATE_CQ: doorbell record not 8-byte aligned", EINVAL,
	  .p = { CQ(r.db_rec_va, B_DB, 4) } },
	{ "CREATE_CQ: doorbell record at address 0", EINVAL,
	  .p = { CQ(r.db_rec_va, B_VAL, 0) } },
	{ "CREATE_CQ: doorbell record not mapped", EFAULT,
	  .p = { CQ(r.db_rec_va, B_UNMAPPED, 8) } },
	{ "CREATE_CQ: on the second context, sharing the ring page", NO_ERR,
	  .on_b = 1, .p = { CQ(r.db_rec_va, B_DB, 8) } },
	{ "CREATE_CQ: 64 CQEs", NO_ERR, .keep = S_CQ, .stop = 1 },
	/* Last: run_all() checks the CQEs the response reports. */
	{ "CREATE_CQ: a second CQ, 64 CQEs asked, a ring of 128 given, record in the same page",
	  NO_ERR, .keep = S_CQ2, .stop = 1,
	  .p = { CQ(r.buf_va, B_CQBUF, 2 * PG), CQ(r.db_rec_va, B_DB, 48),
		 CQ(r.cqe_count, B_VAL, 128) } },
};

/* ---- RESIZE_CQ, of the second CQ: to 128 CQEs in the second page ---- */
#define RS(field, base, v) SET(struct rs_bundle, field, base, v)
static const struct hcase rs_cases[] = {
	{ "RESIZE_CQ: unknown comp_mask bit", EOPNOTSUPP,
	  .p = { RS(r.comp_mask, B_VAL, 1) } },
	{ "RESIZE_CQ: request shorter than its v1 struct", EINVAL, .len = 8 },
	{ "RESIZE_CQ: ring not 4 KiB aligned", GEOM,
	  .p = { RS(r.buf_va, B_CQBUF, PG + 8) } },
	{ "RESIZE_CQ: 2^30 CQEs", EINVAL, .p = { RS(cqe, B_VAL, 1u << 30) } },
	{ "RESIZE_CQ: a ring of 192 CQEs, not a power of two", GEOM,
	  .p = { RS(r.cqe_count, B_VAL, 192) } },
	{ "RESIZE_CQ: a ring of 64 CQEs for 128", GEOM,
	  .p = { RS(r.cqe_count, B_VAL, 64) } },
	{ "RESIZE_CQ: ring of 4 KiB for 1024 CQEs", GEOM,
	  .p = { RS(cqe, B_VAL, 1000), RS(r.cqe_count, B_VAL, 1024) } },
	{ "RESIZE_CQ: ring not mapped", EFAULT,
	  .p = { RS(r.buf_va, B_UNMAPPED, 0) } },
	/* Last: run_all() checks the CQEs the response reports. */
	{ "RESIZE_CQ: 100 CQEs asked, a ring of 128 given", NO_ERR,
	  .p = { RS(cqe, B_VAL, 100) } },
};

/* ---- CREATE_SRQ: 16 WQEs of one SGE, stride 64, in the first page ---- */
#define SRQ(field, base, v) SET(struct srq_bundle, field, base, v)
static const struct hcase srq_cases[] = {
	{ "CREATE_SRQ: request shorter than its v1 struct", EINVAL, .len = 20 },
	{ "CREATE_SRQ: unknown comp_mask bit", EOPNOTSUPP,
	  .p = { SRQ(r.comp_mask, B_VAL, 0x80000000u) } },
	{ "CREATE_SRQ: non-zero reserved", EINVAL,
	  .p = { SRQ(r.reserved, B_VAL, 1) } },
	{ "CREATE_SRQ: 2^31 WQEs", EINVAL,
	  .p = { SRQ(max_wr, B_VAL, 1u << 31) } },
	{ "CREATE_SRQ: a ring of 24 WQEs, not a power of two", GEOM,
	  .p = { SRQ(r.wqe_count, B_VAL, 24) } },
	{ "CREATE_SRQ: a ring of 16 WQEs for 17", GEOM,
	  .p = { SRQ(max_wr, B_VAL, 17) } },
	{ "CREATE_SRQ: a ring of 2^17 WQEs, over the device's limit and the 16-bit WQE index",
	  GEOM, .p = { SRQ(r.wqe_count, B_VAL, 1u << 17) } },
	{ "CREATE_SRQ: stride 96, not a power of two", GEOM,
	  .p = { SRQ(r.stride, B_VAL, 96) } },
	{ "CREATE_SRQ: stride 32, below the smallest receive WQE", GEOM,
	  .p = { SRQ(r.stride, B_VAL, 32) } },
	{ "CREATE_SRQ: stride 2048, over the largest receive WQE", GEOM,
	  .p = { SRQ(r.stride, B_VAL, 2048) } },
	{ "CREATE_SRQ: stride 64 for 4 SGEs (it holds 3)", GEOM,
	  .p = { SRQ(max_sge, B_VAL, 4) } },
	{ "CREATE_SRQ: ring of 4 KiB for 128 WQEs", GEOM,
	  .p = { SRQ(max_wr, B_VAL, 128), SRQ(r.wqe_count, B_VAL, 128) } },
	{ "CREATE_SRQ: doorbell record misaligned, across a page", EINVAL,
	  .p = { SRQ(r.db_rec_va, B_DB, PG - 4) } },
	{ "CREATE_SRQ: another context's PD handle", EINVAL, .on_b = 1 },
	/* Last: run_all() checks what the response reports. */
	{ "CREATE_SRQ: 16 WQEs of one SGE asked, a ring of 32 of stride 128 given",
	  NO_ERR, .keep = S_SRQ, .stop = 1,
	  .p = { SRQ(r.wqe_count, B_VAL, 32), SRQ(r.stride, B_VAL, 128) } },
};

/* ---- MODIFY_SRQ: the SRQ to 64 WQEs of 128 bytes, in pages 2 and 3 ---- */
#define MSRQ(field, base, v) SET(struct msrq_bundle, field, base, v)
static const struct hcase msrq_cases[] = {
	{ "MODIFY_SRQ: unknown comp_mask bit", EOPNOTSUPP,
	  .p = { MSRQ(r.comp_mask, B_VAL, 1) } },
	{ "MODIFY_SRQ: non-zero reserved", EINVAL,
	  .p = { MSRQ(r.reserved, B_VAL, 1) } },
	{ "MODIFY_SRQ: a ring of 96 WQEs, not a power of two", GEOM,
	  .p = { MSRQ(r.wqe_count, B_VAL, 96) } },
	{ "MODIFY_SRQ: a ring of 32 WQEs for 64", GEOM,
	  .p = { MSRQ(r.wqe_count, B_VAL, 32) } },
	{ "MODIFY_SRQ: a ring of 2^17 WQEs, over the device's limit", GEOM,
	  .p = { MSRQ(r.wqe_count, B_VAL, 1u << 17) } },
	{ "MODIFY_SRQ: stride 64, not the SRQ's 128", GEOM,
	  .p = { MSRQ(r.stride, B_VAL, 64) } },
	{ "MODIFY_SRQ: ring of 4 KiB for 64 WQEs of 128 bytes", GEOM,
	  .p = { MSRQ(r.buf_len, B_VAL, PG) } },
	/* Last: run_all() checks the depth QUERY_SRQ reports. */
	{ "MODIFY_SRQ: 48 WQEs asked, a ring of 64 given", NO_ERR,
	  .p = { MSRQ(max_wr, B_VAL, 48) } },
};

/* ---- CREATE_QP ---- */
#define QP(field, base, v) SET(struct qp_bundle, field, base, v)
/*
 * An RC QP of 16/16 WQEs of one SGE on the first CQ: rings of 16 WQEs,
 * strides 128 and 64.
 */
static const struct hcase qp_rc_cases[] = {
	/* The core refuses it before the driver (which would too). */
	{ "CREATE_QP: a GSI QP", EINVAL, .p = { QP(a.type, B_VAL, 1) } },
	{ "CREATE_QP: request shorter than its v1 struct", EINVAL, .len = 24 },
	{ "CREATE_QP: unknown comp_mask bit", EOPNOTSUPP,
	  .p = { QP(r.comp_mask, B_VAL, 2) } },
	{ "CREATE_QP: non-zero reserved", EINVAL,
	  .p = { QP(r.reserved, B_VAL, 1) } },
	{ "CREATE_QP: longer request with a non-zero tail", EOPNOTSUPP,
	  .len = LEN_BAD_TAIL },
	{ "CREATE_QP: 2^24 send WQEs", EINVAL,
	  .p = { QP(a.max_send_wr, B_VAL, 1u << 24) } },
	{ "CREATE_QP: a send ring of 24 WQEs, not a power of two", GEOM,
	  .p = { QP(r.sq_wqe_count, B_VAL, 24) } },
	{ "CREATE_QP: a send ring of 8 WQEs for 16", GEOM,
	  .p = { QP(r.sq_wqe_count, B_VAL, 8) } },
	{ "CREATE_QP: a send ring of 2^17 WQEs, over the device's limit and the 16-bit WQE index",
	  GEOM, .p = { QP(r.sq_wqe_count, B_VAL, 1u << 17) } },
	{ "CREATE_QP: a receive ring of 12 WQEs, not a power of two", GEOM,
	  .p = { QP(r.rq_wqe_count, B_VAL, 12) } },
	{ "CREATE_QP: a receive ring of 0 WQEs", GEOM,
	  .p = { QP(r.rq_wqe_count, B_VAL, 0) } },
	{ "CREATE_QP: send stride 192, not a power of two", GEOM,
	  .p = { QP(r.sq_stride, B_VAL, 192) } },
	{ "CREATE_QP: send stride 64, below the smallest send WQE", GEOM,
	  .p = { QP(r.sq_stride, B_VAL, 64) } },
	{ "CREATE_QP: send stride 1024, over the largest send WQE", GEOM,
	  .p = { QP(r.sq_stride, B_VAL, 1024) } },
	{ "CREATE_QP: send stride 128 for 5 SGEs (it holds 4)", GEOM,
	  .p = { QP(a.max_send_sge, B_VAL, 5) } },
	{ "CREATE_QP: send stride 128 for 65 bytes inline (it holds 64)", GEOM,
	  .p = { QP(a.max_inline_data, B_VAL, 65) } },
	{ "CREATE_QP: receive stride 64 for 4 SGEs (it holds 3)", GEOM,
	  .p = { QP(a.max_recv_sge, B_VAL, 4) } },
	{ "CREATE_QP: receive stride 32, below the smallest receive WQE", GEOM,
	  .p = { QP(r.rq_stride, B_VAL, 32) } },
	{ "CREATE_QP: send ring of 4 KiB for 64 WQEs of 128 bytes", GEOM,
	  .p = { QP(a.max_send_wr, B_VAL, 64), QP(r.sq_wqe_count, B_VAL, 64) } },
	{ "CREATE_QP: no receive ring without an SRQ", GEOM,
	  .p = { QP(r.rq_buf_len, B_VAL, 0) } },
	{ "CREATE_QP: send ring not 4 KiB aligned", GEOM,
	  .p = { QP(r.sq_buf_va, B_SQBUF, 512) } },
	{ "CREATE_QP: send ring not mapped", EFAULT,
	  .p = { QP(r.sq_buf_va, B_UNMAPPED, 0) } },
	{ "CREATE_QP: receive ring not mapped", EFAULT,
	  .p = { QP(r.rq_buf_va, B_UNMAPPED, 0) } },
	{ "CREATE_QP: 16-byte doorbell record across a page", EINVAL,
	  .p = { QP(r.db_rec_va, B_DB, PG - 8) } },
	{ "CREATE_QP: doorbell record not 8-byte aligned", EINVAL,
	  .p = { QP(r.db_rec_va, B_DB, 33) } },
	{ "CREATE_QP: another context's PD and CQ handles", ENOENT,
	  .on_b = 1 },
	/* Last: run_all() checks the capabilities the response reports. */
	{ "CREATE_QP: RC, 16/16 WQEs asked, 32 send WQEs and a receive stride of 128 given",
	  NO_ERR, .keep = S_QP_RC, .stop = 1,
	  .p = { QP(r.sq_wqe_count, B_VAL, 32), QP(r.rq_stride, B_VAL, 128) } },
};

/*
 * A UD QP on the SRQ and the second CQ: a send ring of 16 WQEs in the
 * second page, a receive ring left over from the RC QP but no receive
 * geometry.
 */
static const struct hcase qp_ud_cases[] = {
	{ "CREATE_QP: a receive ring with an SRQ", GEOM },
	{ "CREATE_QP: receive WQEs with an SRQ", GEOM,
	  .p = { QP(r.rq_buf_va, B_VAL, 0), QP(r.rq_buf_len, B_VAL, 0),
		 QP(r.rq_wqe_count, B_VAL, 16) } },
	{ "CREATE_QP: UD on the SRQ", NO_ERR, .keep = S_QP_UD, .stop = 1,
	  .p = { QP(r.rq_buf_va, B_VAL, 0), QP(r.rq_buf_len, B_VAL, 0) } },
};

/* ---- MODIFY_QP of the RC QP: no driver data ---- */
static const uint8_t mq_init = 1, mq_reset;

static const struct hcase mq_cases[] = {
	{ "EX_MODIFY_QP: non-zero driver data", EOPNOTSUPP,
	  .len = LEN_BAD_TAIL },
	{ "MODIFY_QP: RC to INIT", NO_ERR, .len = LEN_NONE },
};

static const struct hcase mq_reset_cases[] = {
	{ "EX_MODIFY_QP: RC to RESET, zero driver data", NO_ERR,
	  .len = LEN_ZERO_TAIL },
};

static const struct hcase mq_again_cases[] = {
	{ "MODIFY_QP: RC to INIT again", NO_ERR, .len = LEN_NONE },
};

/* ---- destroy: the SRQ is in use, then everything in order ---- */
static const struct {
	const char *name;
	int want;
	uint32_t command;
	enum slot slot;
} destroy_cases[] = {
	{ "DESTROY_SRQ: still used by a QP", EBUSY,
	  IB_USER_VERBS_CMD_DESTROY_SRQ, S_SRQ },
	{ "DESTROY_QP: UD", NO_ERR, IB_USER_VERBS_CMD_DESTROY_QP, S_QP_UD },
	{ "DESTROY_SRQ", NO_ERR, IB_USER_VERBS_CMD_DESTROY_SRQ, S_SRQ },
	{ "DESTROY_CQ: the resized CQ", NO_ERR, IB_USER_VERBS_CMD_DESTROY_CQ,
	  S_CQ2 },
	{ "DESTROY_CQ: again", ENOENT, IB_USER_VERBS_CMD_DESTROY_CQ, S_CQ2 },
};

/* OPEN_XRCD without a file (fd -1): a domain of this context alone. */
static int open_xrcd(int fd, const void *drv, size_t drv_len,
		     uint32_t *handle)
{
	struct ib_uverbs_open_xrcd cmd = {
		.response = (uintptr_t)&out,
		.fd = ~0u,
	};
	struct ib_uverbs_open_xrcd_resp core;
	int err;

	memset(&out, 0, sizeof(out));
	err = uwrite(fd, IB_USER_VERBS_CMD_OPEN_XRCD, &cmd, sizeof(cmd), drv,
		     drv_len, sizeof(core));
	if (!err && handle) {
		memcpy(&core, out.b, sizeof(core));
		*handle = core.xrcd_handle;
	}
	return err;
}

static int close_xrcd(int fd, uint32_t handle)
{
	struct ib_uverbs_close_xrcd cmd = { .xrcd_handle = handle };

	return uwrite(fd, IB_USER_VERBS_CMD_CLOSE_XRCD, &cmd, sizeof(cmd),
		      NULL, 0, 0);
}

/* CREATE_XSRQ of an XRC SRQ (srq_type 1, IB_SRQT_XRC). */
static int create_xsrq(int fd, uint32_t pd, uint32_t xrcd, uint32_t cq,
		       const struct orca_create_srq *drv, uint32_t *handle,
		       struct ib_uverbs_create_srq_resp *core,
		       struct orca_create_srq_resp *resp)
{
	struct ib_uverbs_create_xsrq cmd = {
		.response = (uintptr_t)&out,
		.srq_type = 1,
		.pd_handle = pd,
		.max_wr = 16,
		.max_sge = 1,
		.xrcd_handle = xrcd,
		.cq_handle = cq,
	};
	int err;

	memset(&out, 0, sizeof(out));
	err = uwrite(fd, IB_USER_VERBS_CMD_CREATE_XSRQ, &cmd, sizeof(cmd), drv,
		     sizeof(*drv), sizeof(*core) + sizeof(*resp));
	if (!err) {
		memcpy(core, out.b, sizeof(*core));
		memcpy(resp, out.b + sizeof(*core), sizeof(*resp));
		*handle = core->srq_handle;
	}
	return err;
}

/*
 * XRC (ORCA_UCTX_CAP_XRC): a domain, an XRC SRQ in it on the first CQ, an
 * initiator QP (send ring only) and a target QP (no rings; the core
 * creates it without driver data), and the domain's close refused while
 * they exist.
 */
static void xrc_cases(struct hostile *h)
{
	struct ib_uverbs_create_srq_resp srq_core;
	struct ib_uverbs_create_qp_resp qp_core;
	struct orca_create_srq_resp srq_resp;
	struct orca_create_qp_resp qp_resp;
	uint32_t *hd = h->handle, xrcd = 0, srq = 0, ini = 0, tgt = 0;
	struct orca_create_srq sr = {};
	struct orca_create_qp qr = {};
	struct qp_args a;
	uint64_t posted0 = 0, bad0 = 0;
	int have, fd = h->fd[0];

	/* The emulator has XRC from interface 1.6 on. */
	if (!(h->uresp.caps & ORCA_UCTX_CAP_XRC)) {
		if (FIELD_GET(ORCA_IF_VERSION_MINOR, h->uresp.if_version) >= 6)
			result(0, "XRC: an adapter of interface 1.%u, no ORCA_UCTX_CAP_XRC",
			       (unsigned int)FIELD_GET(ORCA_IF_VERSION_MINOR,
						       h->uresp.if_version));
		else
			result(1, "XRC # SKIP the adapter has no XRC");
		return;
	}
	expect(open_xrcd(fd, bad_tail, 8, NULL), EOPNOTSUPP,
	       "OPEN_XRCD: non-zero driver data");
	if (!expect(open_xrcd(fd, NULL, 0, &xrcd), NO_ERR, "OPEN_XRCD"))
		return;

	sr.wqe_count = 16;
	sr.stride = orca_recv_wqe_stride(1);
	sr.buf_va = va(h->srqbuf, 3 * PG);
	sr.buf_len = PG;
	sr.db_rec_va = va(h->db, 128);
	sr.reserved = 1;
	expect(create_xsrq(fd, hd[S_PD], xrcd, hd[S_CQ], &sr, &srq, &srq_core,
			   &srq_resp), EINVAL,
	       "CREATE_XSRQ: XRC SRQ with a non-zero reserved");
	sr.reserved = 0;
	sr.wqe_count = 8;
	have = !bad_user_queues(&bad0) && !cmdq_posted(&posted0);
	expect(create_xsrq(fd, hd[S_PD], xrcd, hd[S_CQ], &sr, &srq, &srq_core,
			   &srq_resp), EINVAL,
	       "CREATE_XSRQ: XRC SRQ, a ring of 8 WQEs for 16");
	expect_refused(&(struct hcase){ .name = "CREATE_XSRQ: ring of 8 for 16" },
		       have, posted0, bad0);
	sr.wqe_count = 16;
	if (expect(create_xsrq(fd, hd[S_PD], xrcd, hd[S_CQ], &sr, &srq,
			       &srq_core, &srq_resp), NO_ERR,
		   "CREATE_XSRQ: XRC SRQ in the domain on the first CQ"))
		result(srq_resp.srqn && srq_core.srqn == srq_resp.srqn &&
		       srq_core.max_wr == 16,
		       "CREATE_XSRQ: the XRC SRQ's number %u is the driver's %u, %u WQEs",
		       srq_core.srqn, srq_resp.srqn, srq_core.max_wr);

	/* An initiator: RC's send side, no receive ring (orca-abi.h). */
	a = (struct qp_args){ hd[S_PD], hd[S_CQ], hd[S_CQ], ~0u, 9, 16, 0,
			      1, 0, 0 };
	qr.sq_wqe_count = 16;
	qr.sq_stride = orca_send_wqe_stride(1);
	qr.sq_buf_va = va(h->sqbuf, 2 * PG);
	qr.sq_buf_len = PG;
	qr.rq_buf_va = va(h->rqbuf, PG);
	qr.rq_buf_len = PG;
	qr.rq_wqe_count = 16;
	qr.rq_stride = orca_recv_wqe_stride(1);
	qr.db_rec_va = va(h->db, 160);
	have = !bad_user_queues(&bad0) && !cmdq_posted(&posted0);
	expect(create_qp(fd, &a, &qr, sizeof(qr), NULL), EINVAL,
	       "CREATE_QP: XRC initiator with a receive ring");
	expect_refused(&(struct hcase){ .name = "CREATE_QP: XRC initiator with a receive ring" },
		       have, posted0, bad0);
	qr.rq_buf_va = 0;
	qr.rq_buf_len = 0;
	qr.rq_wqe_count = 0;
	qr.rq_stride = 0;
	if (expect(create_qp(fd, &a, &qr, sizeof(qr), &ini), NO_ERR,
		   "CREATE_QP: XRC initiator")) {
		memcpy(&qp_core, out.b, sizeof(qp_core));
		memcpy(&qp_resp, out.b + sizeof(qp_core), sizeof(qp_resp));
		result(qp_core.max_send_wr == 16 && !qp_core.max_recv_wr &&
		       !qp_core.max_recv_sge && qp_resp.qpn == qp_core.qpn,
		       "CREATE_QP: XRC initiator %u: %u send WQEs, no receive queue (%u, %u)",
		       qp_resp.qpn, qp_core.max_send_wr, qp_core.max_recv_wr,
		       qp_core.max_recv_sge);
	}

	/* A target: the domain in pd_handle, no rings, nothing else. */
	a = (struct qp_args){ xrcd, 0, 0, ~0u, 10, 0, 0, 0, 0, 0 };
	memset(&qr, 0, sizeof(qr));
	if (expect(create_qp(fd, &a, &qr, sizeof(qr), &tgt), NO_ERR,
		   "CREATE_QP: XRC target in the domain")) {
		memcpy(&qp_core, out.b, sizeof(qp_core));
		memcpy(&qp_resp, out.b + sizeof(qp_core), sizeof(qp_resp));
		/* 7.3's core creates it without driver data (ib_create_qp_user). */
		result(qp_core.qpn > 1 && !qp_core.max_send_wr &&
		       !qp_core.max_recv_wr &&
		       (!qp_resp.qpn || qp_resp.qpn == qp_core.qpn),
		       "CREATE_QP: XRC target %u: no queues (%u, %u)",
		       qp_core.qpn, qp_core.max_send_wr, qp_core.max_recv_wr);
	}
	expect(modify_qp(fd, tgt, 1, NULL, 0), NO_ERR,
	       "MODIFY_QP: XRC target to INIT");
	expect(close_xrcd(fd, xrcd), EBUSY,
	       "CLOSE_XRCD: its SRQ and target QP exist");
	expect(destroy_obj(fd, IB_USER_VERBS_CMD_DESTROY_QP, tgt), NO_ERR,
	       "DESTROY_QP: XRC target");
	expect(destroy_obj(fd, IB_USER_VERBS_CMD_DESTROY_QP, ini), NO_ERR,
	       "DESTROY_QP: XRC initiator");
	expect(destroy_obj(fd, IB_USER_VERBS_CMD_DESTROY_SRQ, srq), NO_ERR,
	       "DESTROY_SRQ: XRC SRQ");
	expect(close_xrcd(fd, xrcd), NO_ERR, "CLOSE_XRCD");
}

/*
 * Legacy data-path commands on user queues.  The core leaves them out of
 * uverbs_cmd_mask; the driver would refuse them too (the rings are the
 * provider's).
 */
static void datapath_cases(struct hostile *h)
{
	uint32_t cq = h->handle[S_CQ], qp_rc = h->handle[S_QP_RC];
	int fd = h->fd[0];
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
		.h = { .response = (uintptr_t)&out,
		       .srq_handle = h->handle[S_SRQ], .wr_count = 1,
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

/* The extended QUERY_DEVICE, whose udata must be empty. */
static void query_device_cases(struct hostile *h)
{
	struct ib_uverbs_ex_query_device q = {};
	uint64_t d = 1;
	size_t rl = (sizeof(struct ib_uverbs_ex_query_device_resp) + 7) & ~7UL;

	expect(uwrite_ex(h->fd[0], IB_USER_VERBS_EX_CMD_QUERY_DEVICE, &q,
			 sizeof(q), &d, 8, &out, rl, 0), EOPNOTSUPP,
	       "QUERY_DEVICE_EX: non-zero driver data");
	d = 0;
	expect(uwrite_ex(h->fd[0], IB_USER_VERBS_EX_CMD_QUERY_DEVICE, &q,
			 sizeof(q), &d, 8, &out, rl, 8), NO_ERR,
	       "QUERY_DEVICE_EX: zero driver data, driver response space");
}

/* CREATE_AH: a loopback to @sgid, or a skip without one. */
static void ah_cases(struct hostile *h, int sgid)
{
	uint32_t pd = h->handle[S_PD];
	uint8_t gid[16];
	int err;

	if (sgid < 0 || read_gid(sgid, gid)) {
		result(1, "CREATE_AH # SKIP no RoCE v2 GID given");
		return;
	}
	expect(create_ah(h->fd[0], pd, sgid, gid, bad_tail, 8, NULL),
	       EOPNOTSUPP, "CREATE_AH: non-zero driver data");
	err = create_ah(h->fd[0], pd, sgid, gid, zero_tail, 8,
			&h->handle[S_AH]);
	expect(err, NO_ERR, "CREATE_AH: loopback to GID %d", sgid);
}

/* Every case in order; false when one that later ones need failed. */
static unsigned int min_u(unsigned int a, unsigned int b)
{
	return a < b ? a : b;
}

static int run_all(struct hostile *h, int sgid, void **uar)
{
	struct ib_uverbs_create_srq_resp *srq_core = (void *)out.b;
	struct ib_uverbs_create_qp_resp *qp_core = (void *)out.b;
	struct ib_uverbs_create_cq_resp *cq_core = (void *)out.b;
	struct ib_uverbs_resize_cq_resp *rs_resp = (void *)out.b;
	struct orca_alloc_ucontext_req ureq = {};
	struct orca_alloc_ucontext_resp *u = &h->uresp;
	struct ib_uverbs_query_srq_resp qs = {};
	struct orca_create_qp_resp qp_resp;
	struct cq_bundle cq = { .cqe = 64 };
	struct rs_bundle rs = { .cqe = 128 };
	struct msrq_bundle msrq = {};
	struct srq_bundle srq = {};
	struct qp_bundle qp = {};
	uint32_t *hd = h->handle;
	unsigned int sge, rsge, inl;
	size_t i;

	RUN(h, C_CTX, &ureq, ctx_cases);
	/* Only the ABI's capability bits, and the SRQ limits. */
	result(u->comp_mask == 0 && u->cqe_size == sizeof(struct orca_cqe) &&
	       u->max_cqe && u->max_sq_depth && u->max_send_sge &&
	       u->max_recv_sge && u->max_srq_wr && u->max_srq_sge &&
	       !(u->caps & ~(ORCA_UCTX_CAP_XRC * 2 - 1)) &&
	       !u->reserved,
	       "GET_CONTEXT: response (cqe_size %u max_cqe %u max_sq_depth %u sge %u/%u inline %u srq %u/%u caps 0x%x)",
	       u->cqe_size, u->max_cqe, u->max_sq_depth, u->max_send_sge,
	       u->max_recv_sge, u->max_inline_data, u->max_srq_wr,
	       u->max_srq_sge, u->caps);
	RUN(h, C_CTX, &ureq, ctx_more_cases);
	*uar = run_uar_cases(h);
	query_device_cases(h);
	RUN(h, C_PD, &ureq, pd_cases);

	cq.r.cqe_count = 64;
	cq.r.buf_va = va(h->cqbuf, 0);
	cq.r.buf_len = PG;
	cq.r.db_rec_va = va(h->db, 0);
	if (!RUN(h, C_CQ, &cq, cq_cases))
		return 0;
	result(cq_core->cqe == 128, "CREATE_CQ: reports the 128 CQEs of its ring (%u)",
	       cq_core->cqe);

	rs.r.cqe_count = 128;
	rs.r.buf_va = va(h->cqbuf, PG);
	rs.r.buf_len = PG;
	RUN(h, C_RS, &rs, rs_cases);
	if (!h->last_err)
		result(rs_resp->cqe == 128,
		       "RESIZE_CQ: reports the 128 CQEs of its ring (%u)",
		       rs_resp->cqe);

	srq = (struct srq_bundle){ .pd = hd[S_PD], .max_wr = 16, .max_sge = 1 };
	srq.r.wqe_count = 16;
	srq.r.stride = orca_recv_wqe_stride(1);
	srq.r.buf_va = va(h->srqbuf, 0);
	srq.r.buf_len = PG;
	srq.r.db_rec_va = va(h->db, 16);
	if (!RUN(h, C_SRQ, &srq, srq_cases))
		return 0;
	/* A stride of 128 holds 7 SGEs. */
	sge = min_u(7, u->max_srq_sge);
	result(srq_core->max_wr == 32 && srq_core->max_sge == sge,
	       "CREATE_SRQ: reports the ring's %u WQEs of %u SGEs (%u, %u)",
	       32, sge, srq_core->max_wr, srq_core->max_sge);

	if (u->caps & ORCA_UCTX_CAP_SRQ_RESIZE) {
		msrq.max_wr = 64;
		msrq.r.wqe_count = 64;
		msrq.r.stride = 128;
		msrq.r.buf_va = va(h->srqbuf, PG);
		msrq.r.buf_len = 2 * PG;
		RUN(h, C_MSRQ, &msrq, msrq_cases);
		expect(query_srq(h->fd[0], hd[S_SRQ], &qs), NO_ERR, "QUERY_SRQ");
		result(qs.max_wr == 64 && qs.max_sge == sge,
		       "MODIFY_SRQ: the SRQ has the ring's 64 WQEs of %u SGEs (%u, %u)",
		       sge, qs.max_wr, qs.max_sge);
	} else {
		result(1, "MODIFY_SRQ # SKIP the adapter resizes no SRQ");
	}

	qp.a = (struct qp_args){ hd[S_PD], hd[S_CQ], hd[S_CQ], ~0u, 2, 16, 16,
				 1, 1, 0 };
	qp.r.sq_wqe_count = 16;
	qp.r.sq_stride = orca_send_wqe_stride(1);
	qp.r.rq_wqe_count = 16;
	qp.r.rq_stride = orca_recv_wqe_stride(1);
	qp.r.sq_buf_va = va(h->sqbuf, 0);
	qp.r.sq_buf_len = PG;
	qp.r.rq_buf_va = va(h->rqbuf, 0);
	qp.r.rq_buf_len = PG;
	qp.r.db_rec_va = va(h->db, 32);
	if (!RUN(h, C_QP, &qp, qp_rc_cases))
		return 0;
	memcpy(&qp_resp, out.b + sizeof(*qp_core), sizeof(qp_resp));
	/* Strides of 128 and 128: 4 send SGEs or 64 bytes inline, 7 receive. */
	sge = min_u(4, u->max_send_sge);
	rsge = min_u(7, u->max_recv_sge);
	inl = min_u(64, u->max_inline_data);
	result(qp_core->max_send_wr == 32 && qp_core->max_recv_wr == 16 &&
	       qp_core->max_send_sge == sge && qp_core->max_recv_sge == rsge &&
	       qp_core->max_inline_data == inl && qp_resp.qpn > 1 &&
	       qp_resp.qpn == qp_core->qpn,
	       "CREATE_QP: qpn %u reports its rings: WQEs %u/%u (32/16), SGEs %u/%u (%u/%u), inline %u (%u)",
	       qp_resp.qpn, qp_core->max_send_wr, qp_core->max_recv_wr,
	       qp_core->max_send_sge, qp_core->max_recv_sge, sge, rsge,
	       qp_core->max_inline_data, inl);
	qp.a = (struct qp_args){ hd[S_PD], hd[S_CQ2], hd[S_CQ2], hd[S_SRQ], 4,
				 16, 0, 1, 0, 0 };
	qp.r.rq_wqe_count = 0;
	qp.r.rq_stride = 0;
	qp.r.sq_buf_va = va(h->sqbuf, PG);
	qp.r.db_rec_va = va(h->db, 64);
	if (!RUN(h, C_QP, &qp, qp_ud_cases))
		return 0;

	RUN(h, C_MQ, &mq_init, mq_cases);
	RUN(h, C_MQ, &mq_reset, mq_reset_cases);
	RUN(h, C_MQ, &mq_init, mq_again_cases);
	ah_cases(h, sgid);
	datapath_cases(h);
	xrc_cases(h);
	for (i = 0; i < sizeof(destroy_cases) / sizeof(destroy_cases[0]); i++)
		expect(destroy_obj(h->fd[0], destroy_cases[i].command,
				   hd[destroy_cases[i].slot]),
		       destroy_cases[i].want, "%s", destroy_cases[i].name);
	/* The RC QP, its CQ, the AH and the PDs go when the files close. */
	return 1;
}

int main(int argc, char **argv)
{
	int sgid = argc > 1 ? atoi(argv[1]) : -1;
	struct hostile h = {};
	void *uar = MAP_FAILED;

	if (argc > 1 && !strcmp(argv[1], "hold"))
		return hold();
	bad_tail[5] = 1;
	printf("TAP version 13\n");
	h.fd[0] = open_orca();
	h.fd[1] = open_orca();
	if (h.fd[0] < 0 || h.fd[1] < 0) {
		printf("1..0 # SKIP no uverbs device for orca_0\n");
		return 1;
	}
	h.db = map_pages(1);
	h.cqbuf = map_pages(4);
	h.sqbuf = map_pages(4);
	h.rqbuf = map_pages(4);
	h.srqbuf = map_pages(4);

	run_all(&h, sgid, &uar);
	if (uar != MAP_FAILED)
		munmap(uar, PG);
	close(h.fd[1]);
	close(h.fd[0]);
	printf("1..%d\n", ntest);
	printf("# %d of %d cases failed\n", nfail, ntest);
	return nfail ? 1 : 0;
}

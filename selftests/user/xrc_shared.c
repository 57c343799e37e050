// SPDX-License-Identifier: GPL-2.0
/*
 * XRC (IBA 1.2 Annex A14) between two processes sharing one XRC domain,
 * on one device (loopback through one of its GIDs), as KTAP lines on
 * stdout; exit status 1 if a case failed.
 *
 * The initiator process (the parent) opens the domain through a file
 * (ibv_open_xrcd with the file's fd and O_CREAT) and creates the target QP
 * in it.  The receiver process (the child) opens the same domain through
 * the same file without O_CREAT (so it is the parent's), opens the
 * parent's target QP by number (ibv_open_qp), and creates an XRC SRQ of
 * the domain with its own CQ.  The parent's initiator QP, connected to
 * the target QP, sends to the SRQ by number (remote_srqn): the child's
 * completions must carry the target QP's number, the posted wr_id and the
 * bytes sent, although the child created no QP at all.
 *
 *   shared      open_xrcd by file in both processes, open_qp of the other's
 *               target QP (and query it), XRC SRQ number from ibv_get_srq_num
 *   traffic     N sends (ibv_post_send and the ibv_wr_* API with
 *               ibv_wr_set_xrc_srqn), each completion and buffer checked
 *   busy        ibv_close_xrcd of a domain with an SRQ in it: EBUSY
 *   other       an initiator connected to a target QP of another domain,
 *               sending to the child's SRQ: IBV_WC_REM_INV_REQ_ERR
 *   no srq      a send to an SRQ number that names no XRC SRQ:
 *               IBV_WC_REM_INV_REQ_ERR
 *   destroyed   the child destroys its SRQ while the parent sends: the
 *               parent's sends end in an error completion, none hangs, and
 *               the child's CQ reports nothing after the destroy
 *
 * Usage: xrc_shared DEV GID_INDEX
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "verbs_helpers.h"

#define N_MSG		32
#define MSG_LEN		256
#define SRQ_DEPTH	64
#define TIMEOUT_MS	20000

static const char *dev_name;
static int gid_index;
static union ibv_gid gid;
static char path[] = "/tmp/xrc_shared.XXXXXX";
/* Parent -> child and child -> parent: small fixed-size messages. */
static int p2c[2], c2p[2];

static void send_u32(int fd, uint32_t v)
{
	if (write(fd, &v, sizeof(v)) != sizeof(v))
		die("pipe write");
}

static uint32_t recv_u32(int fd)
{
	uint32_t v;

	if (read(fd, &v, sizeof(v)) != sizeof(v))
		die("pipe read");
	return v;
}

static uint8_t pattern(uint32_t msg, uint32_t i)
{
	return (uint8_t)(msg * 131 + i * 7 + 1);
}

/* The target side: RESET -> INIT -> RTR to @ini_qpn (receives only). */
static void connect_tgt(struct ibv_qp *tgt, uint32_t ini_qpn)
{
	struct rc_conn c = {
		.gid = gid, .gid_index = gid_index, .dest_qpn = ini_qpn,
		.mtu = IBV_MTU_1024, .rtr_only = true, .label = "target ",
		.access = IBV_ACCESS_REMOTE_WRITE,
	};

	connect_rc(tgt, &c);
}

/*
 * The initiator: its RTR takes no responder attributes (ib_modify_qp_is_ok
 * for XRC_INI), so not connect_rc().
 */
static void connect_ini(struct ibv_qp *ini, uint32_t tgt_qpn)
{
	struct ibv_qp_attr a = {};

	a.qp_state = IBV_QPS_INIT;
	a.port_num = PORT;
	if (ibv_modify_qp(ini, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		die("initiator to INIT");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = tgt_qpn;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = gid;
	a.ah_attr.grh.sgid_index = gid_index;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.port_num = PORT;
	if (ibv_modify_qp(ini, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN))
		die("initiator to RTR");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	if (ibv_modify_qp(ini, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
			  IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
			  IBV_QP_MAX_QP_RD_ATOMIC))
		die("initiator to RTS");
}

static struct ibv_xrcd *open_xrcd(struct ibv_context *ctx, int fd, int oflags)
{
	struct ibv_xrcd_init_attr xa = {
		.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS,
		.fd = fd,
		.oflags = oflags,
	};

	return ibv_open_xrcd(ctx, &xa);
}

static struct ibv_qp *create_tgt(struct ibv_context *ctx,
				 struct ibv_xrcd *xrcd)
{
	struct ibv_qp_init_attr_ex qa = {
		.qp_type = IBV_QPT_XRC_RECV,
		.comp_mask = IBV_QP_INIT_ATTR_XRCD,
		.xrcd = xrcd,
	};
	struct ibv_qp *qp = ibv_create_qp_ex(ctx, &qa);

	if (!qp)
		die("ibv_create_qp_ex(XRC_RECV)");
	return qp;
}

static struct ibv_qp *create_ini(struct ibv_context *ctx, struct ibv_pd *pd,
				 struct ibv_cq *cq)
{
	struct ibv_qp_init_attr_ex qa = {
		.qp_type = IBV_QPT_XRC_SEND,
		.send_cq = cq,
		.cap = { .max_send_wr = N_MSG * 2, .max_send_sge = 1 },
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.pd = pd,
		.send_ops_flags = IBV_QP_EX_WITH_SEND,
	};
	struct ibv_qp *qp = ibv_create_qp_ex(ctx, &qa);

	if (!qp)
		die("ibv_create_qp_ex(XRC_SEND)");
	return qp;
}

/* ---- the receiver: the child ---- */
static int child(void)
{
	struct ibv_context *ctx = open_dev(dev_name);
	struct ibv_srq_init_attr_ex sa = {};
	struct ibv_qp_open_attr oa = {};
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr qattr;
	struct ibv_xrcd *xrcd;
	struct ibv_wc wc;
	struct ibv_srq *srq;
	struct ibv_qp *tgt;
	struct ibv_cq *cq;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	uint32_t tgt_qpn, srqn = 0, i, j;
	uint8_t *buf;
	bool ok;
	int fd;

	tgt_qpn = recv_u32(p2c[0]);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		die(path);
	/* Without O_CREAT: the domain must be the one the parent made. */
	xrcd = open_xrcd(ctx, fd, 0);
	oa.comp_mask = IBV_QP_OPEN_ATTR_NUM | IBV_QP_OPEN_ATTR_XRCD |
		       IBV_QP_OPEN_ATTR_TYPE;
	oa.qp_num = tgt_qpn;
	oa.qp_type = IBV_QPT_XRC_RECV;
	oa.xrcd = xrcd;
	tgt = xrcd ? ibv_open_qp(ctx, &oa) : NULL;
	ok = tgt && !ibv_query_qp(tgt, &qattr, IBV_QP_STATE, &init);
	printf("# child: domain %p, target QP %u opened: %s\n", (void *)xrcd,
	       tgt_qpn, ok ? "yes" : strerror(errno));
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, SRQ_DEPTH * 2, NULL, NULL, 0);
	buf = calloc(SRQ_DEPTH, MSG_LEN);
	if (!pd || !cq || !buf)
		die("child resources");
	mr = ibv_reg_mr(pd, buf, SRQ_DEPTH * MSG_LEN, IBV_ACCESS_LOCAL_WRITE);
	if (!mr)
		die("ibv_reg_mr");
	srq = NULL;
	if (xrcd) {
		sa.attr.max_wr = SRQ_DEPTH;
		sa.attr.max_sge = 1;
		sa.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD |
			       IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ;
		sa.srq_type = IBV_SRQT_XRC;
		sa.pd = pd;
		sa.xrcd = xrcd;
		sa.cq = cq;
		srq = ibv_create_srq_ex(ctx, &sa);
	}
	ok = ok && srq && !ibv_get_srq_num(srq, &srqn) && srqn;
	for (i = 0; ok && i < SRQ_DEPTH; i++) {
		struct ibv_sge sge = {
			(uintptr_t)(buf + i * MSG_LEN), MSG_LEN, mr->lkey
		};
		struct ibv_recv_wr wr = { .wr_id = 0x5a00 + i, .sg_list = &sge,
					  .num_sge = 1 }, *bad;

		ok = !ibv_post_srq_recv(srq, &wr, &bad);
	}
	/* The SRQ's number, or 0: the parent reports and stops. */
	send_u32(c2p[1], ok ? srqn : 0);
	if (!ok)
		return 1;

	/* traffic: N_MSG messages, in order, from the parent's initiator. */
	ok = true;
	for (i = 0; ok && i < N_MSG; i++) {
		if (!wait_one_wc(cq, &wc, TIMEOUT_MS)) {
			printf("# child: message %u: no completion\n", i);
			ok = false;
			break;
		}
		if (wc.status != IBV_WC_SUCCESS || wc.opcode != IBV_WC_RECV ||
		    wc.qp_num != tgt_qpn || wc.wr_id != 0x5a00 + i ||
		    wc.byte_len != MSG_LEN) {
			printf("# child: message %u: status %s opcode %d qp %u (target %u) wr_id 0x%llx len %u\n",
			       i, ibv_wc_status_str(wc.status), wc.opcode,
			       wc.qp_num, tgt_qpn,
			       (unsigned long long)wc.wr_id, wc.byte_len);
			ok = false;
			break;
		}
		for (j = 0; j < MSG_LEN; j++)
			if (buf[i * MSG_LEN + j] != pattern(i, j))
				break;
		if (j < MSG_LEN) {
			printf("# child: message %u: byte %u is 0x%02x, want 0x%02x\n",
			       i, j, buf[i * MSG_LEN + j], pattern(i, j));
			ok = false;
		}
	}
	send_u32(c2p[1], ok);

	/* busy: the domain has our SRQ. */
	send_u32(c2p[1], ibv_close_xrcd(xrcd) == EBUSY);

	/* other, no srq: the parent's errors must not reach our CQ. */
	recv_u32(p2c[0]);
	send_u32(c2p[1], ibv_poll_cq(cq, 1, &wc) == 0);

	/* destroyed: once the parent is sending, destroy the SRQ. */
	recv_u32(p2c[0]);
	usleep(20000);
	ok = !ibv_destroy_srq(srq);
	/*
	 * Its completions not polled went with it (the provider drops them
	 * from the CQ): none may be reported now, nor later.
	 */
	ok = ok && ibv_poll_cq(cq, 1, &wc) == 0;
	send_u32(c2p[1], ok);
	recv_u32(p2c[0]);
	send_u32(c2p[1], ibv_poll_cq(cq, 1, &wc) == 0);

	if (ibv_destroy_qp(tgt))
		printf("# child: close of the opened target QP: %s\n",
		       strerror(errno));
	ibv_dereg_mr(mr);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_xrcd(xrcd);
	ibv_close_device(ctx);
	return 0;
}

/* ---- the initiator: the parent ---- */
struct ini_side {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	uint8_t *buf;
};

/* Post message @i to @srqn: ibv_post_send, or the ibv_wr_* API. */
static int post_msg(struct ini_side *s, struct ibv_qp *ini, uint32_t srqn,
		    uint32_t i, bool wr_api)
{
	struct ibv_sge sge = {
		(uintptr_t)(s->buf + (i % N_MSG) * MSG_LEN), MSG_LEN,
		s->mr->lkey
	};
	struct ibv_send_wr wr = {
		.wr_id = 0x7700 + i, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
	}, *bad;
	struct ibv_qp_ex *qpx;

	if (!wr_api) {
		wr.qp_type.xrc.remote_srqn = srqn;
		return ibv_post_send(ini, &wr, &bad);
	}
	qpx = ibv_qp_to_qp_ex(ini);
	ibv_wr_start(qpx);
	qpx->wr_id = wr.wr_id;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(qpx);
	ibv_wr_set_xrc_srqn(qpx, srqn);
	ibv_wr_set_sge(qpx, sge.lkey, sge.addr, sge.length);
	return ibv_wr_complete(qpx);
}

/* An initiator on @s connected to a new target QP of @xrcd. */
static struct ibv_qp *connected_ini(struct ini_side *s, struct ibv_xrcd *xrcd,
				    struct ibv_qp **tgt)
{
	struct ibv_qp *ini = create_ini(s->ctx, s->pd, s->cq);

	*tgt = create_tgt(s->ctx, xrcd);
	connect_tgt(*tgt, ini->qp_num);
	connect_ini(ini, (*tgt)->qp_num);
	return ini;
}

/* One message to @srqn on @ini: its completion's status, or -1. */
static int one_msg_status(struct ini_side *s, struct ibv_qp *ini,
			  uint32_t srqn)
{
	struct ibv_wc wc;

	if (post_msg(s, ini, srqn, 0, false))
		return -1;
	return wait_one_wc(s->cq, &wc, TIMEOUT_MS) ? (int)wc.status : -1;
}

static void report_status(const char *what, int st, int want)
{
	char line[256];

	snprintf(line, sizeof(line), "%s: %s", what,
		 st < 0 ? "no completion" :
		 ibv_wc_status_str((enum ibv_wc_status)st));
	result(st == want, line);
}

static int parent(pid_t pid)
{
	struct ini_side s = {};
	struct ibv_xrcd *xrcd, *xrcd2;
	struct ibv_qp *tgt, *ini, *tgt2, *ini2;
	struct ibv_wc wc;
	uint32_t srqn, i, j, sent, errs;
	bool ok;
	int fd, st, status;

	s.ctx = open_dev(dev_name);
	s.pd = ibv_alloc_pd(s.ctx);
	s.cq = ibv_create_cq(s.ctx, N_MSG * 4, NULL, NULL, 0);
	s.buf = malloc(N_MSG * MSG_LEN);
	if (!s.pd || !s.cq || !s.buf)
		die("parent resources");
	for (i = 0; i < N_MSG; i++)
		for (j = 0; j < MSG_LEN; j++)
			s.buf[i * MSG_LEN + j] = pattern(i, j);
	s.mr = ibv_reg_mr(s.pd, s.buf, N_MSG * MSG_LEN, 0);
	if (!s.mr)
		die("ibv_reg_mr");
	fd = open(path, O_RDONLY);
	if (fd < 0)
		die(path);
	xrcd = open_xrcd(s.ctx, fd, O_CREAT);
	if (!xrcd) {
		if (errno == EOPNOTSUPP || errno == ENOSYS) {
			printf("1..0 # SKIP %s has no XRC\n", dev_name);
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
			return 4;
		}
		die("ibv_open_xrcd(O_CREAT)");
	}
	ini = connected_ini(&s, xrcd, &tgt);
	send_u32(p2c[1], tgt->qp_num);
	srqn = recv_u32(c2p[0]);
	result(srqn != 0,
	       "shared: the child opened the domain by file and the target QP by number, and made an XRC SRQ in it");
	if (!srqn)
		goto out;

	/* traffic */
	ok = true;
	for (i = 0; ok && i < N_MSG; i++) {
		ok = !post_msg(&s, ini, srqn, i, i & 1);
		ok = ok && wait_one_wc(s.cq, &wc, TIMEOUT_MS) &&
		     wc.status == IBV_WC_SUCCESS && wc.wr_id == 0x7700 + i;
		if (!ok)
			printf("# parent: message %u: %s\n", i,
			       ibv_wc_status_str(wc.status));
	}
	result(ok, "traffic: every send completed (ibv_post_send and ibv_wr_set_xrc_srqn)");
	result(recv_u32(c2p[0]),
	       "traffic: the child's completions name the target QP, the posted wr_id and carry the bytes sent");
	result(recv_u32(c2p[0]), "busy: ibv_close_xrcd of a domain with an SRQ: EBUSY");

	/* other: a target QP of another domain than the SRQ's. */
	xrcd2 = open_xrcd(s.ctx, -1, O_CREAT);
	if (!xrcd2)
		die("ibv_open_xrcd(another)");
	ini2 = connected_ini(&s, xrcd2, &tgt2);
	report_status("other: a target QP of another domain than the SRQ's",
		      one_msg_status(&s, ini2, srqn), IBV_WC_REM_INV_REQ_ERR);
	ibv_destroy_qp(ini2);
	ibv_destroy_qp(tgt2);
	ibv_close_xrcd(xrcd2);
	/* no srq: a number no XRC SRQ has, on a fresh pair. */
	ibv_destroy_qp(ini);
	ibv_destroy_qp(tgt);
	ini = connected_ini(&s, xrcd, &tgt);
	report_status("no srq: a send to an SRQ number that names no XRC SRQ",
		      one_msg_status(&s, ini, 0xfffff0), IBV_WC_REM_INV_REQ_ERR);
	send_u32(p2c[1], 1);
	result(recv_u32(c2p[0]),
	       "other, no srq: nothing reached the child's CQ");

	/* destroyed: the child destroys its SRQ while we send. */
	ibv_destroy_qp(ini);
	ibv_destroy_qp(tgt);
	ini = connected_ini(&s, xrcd, &tgt);
	send_u32(p2c[1], 1);
	sent = errs = 0;
	ok = true;
	for (i = 0; ok && i < 4 * N_MSG && !errs; i++) {
		if (post_msg(&s, ini, srqn, i, false))
			break;
		sent++;
		if (!wait_one_wc(s.cq, &wc, TIMEOUT_MS)) {
			ok = false;
			break;
		}
		if (wc.status != IBV_WC_SUCCESS)
			errs++;
		usleep(2000);
	}
	st = errs ? (int)wc.status : -1;
	printf("# destroyed: %u sends, the last %s\n", sent,
	       st < 0 ? "successful" : ibv_wc_status_str(wc.status));
	result(ok && st == IBV_WC_REM_INV_REQ_ERR,
	       "destroyed: sends to an SRQ destroyed meanwhile end in IBV_WC_REM_INV_REQ_ERR, none hangs");
	result(recv_u32(c2p[0]), "destroyed: the SRQ's destroy succeeded");
	send_u32(p2c[1], 1);
	result(recv_u32(c2p[0]),
	       "destroyed: the child's CQ reports nothing of the destroyed SRQ");
	ibv_destroy_qp(ini);
	ibv_destroy_qp(tgt);
out:
	waitpid(pid, &status, 0);
	result(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	       "the child exited cleanly");
	ibv_close_xrcd(xrcd);
	ibv_dereg_mr(s.mr);
	ibv_destroy_cq(s.cq);
	ibv_dealloc_pd(s.pd);
	ibv_close_device(s.ctx);
	return ktap_failed;
}

int main(int argc, char **argv)
{
	pid_t pid;
	int fd, rc;

	if (argc != 3) {
		fprintf(stderr, "usage: %s DEV GID_INDEX\n", argv[0]);
		return 2;
	}
	dev_name = argv[1];
	gid_index = atoi(argv[2]);
	setvbuf(stdout, NULL, _IOLBF, 0);
	fd = mkstemp(path);
	if (fd < 0)
		die("mkstemp");
	close(fd);
	if (pipe(p2c) || pipe(c2p))
		die("pipe");
	printf("TAP version 13\n");
	/* Each process opens the device itself: no verbs state is forked. */
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid)
		exit(child());
	{
		struct ibv_context *ctx = open_dev(dev_name);

		query_gid(ctx, gid_index, &gid);
		ibv_close_device(ctx);
	}
	rc = parent(pid);
	unlink(path);
	if (rc == 4)
		return 4;
	printf("1..%d\n", ktap_tests);
	return ktap_failed;
}

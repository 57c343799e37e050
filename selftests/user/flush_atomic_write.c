// SPDX-License-Identifier: GPL-2.0
/*
 * RDMA FLUSH and ATOMIC WRITE (IBA 1.5) between two hosts, for interop
 * between ORCA and rxe (uverbs-tools.sh runs it in 72 and 73).  The
 * server offers two MRs: A with the remote write, atomic and global FLUSH
 * rights (persistent placement needs pmem, refused for other memory by
 * ORCA as by rxe), B with remote write only; the QP and MR numbers go over
 * TCP.
 * The client, on an extended QP, posts in one batch:
 *
 *   RDMA WRITE of 1 KiB of a pattern to A
 *   FLUSH, placement type global, level range, of those bytes
 *   ATOMIC WRITE of 8 bytes to A + 2048
 *   FLUSH, placement type global, level MR, of A
 *   SEND (which tells the server the rest has been placed)
 *
 * and each must complete successfully with its own opcode, FLUSH's and
 * ATOMIC WRITE's byte_len as rxe reports them.  Then a FLUSH of B, which
 * lacks the right, must complete with a remote access error.  The server
 * checks A byte for byte once the SEND arrived (the pattern, the 8 bytes
 * as sent, zeros elsewhere) and waits for the client's verdict.  Exit
 * status 0 if every check passed.
 *
 * With -F (the server is rxe) the client sends no FLUSH: rxe (Linux 7.3)
 * checks a FLUSH's ICRC its own way (roce_icrc_rxe_flush() in the
 * emulator) and drops the IBA's, so a FLUSH to rxe from anything but rxe
 * never completes.
 *
 * Usage: flush_atomic_write [-F] DEV GID_INDEX PORT [SERVER_IP]
 *        (without SERVER_IP: the server)
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "verbs_helpers.h"

#define MR_LEN		4096
#define WRITE_LEN	1024
#define AW_OFF		2048
#define WAIT_MS		20000
/*
 * Responder resources for the batch's three READ-like requests: rxe's
 * requester (Linux 7.3) does not count a FLUSH against max_rd_atomic, so
 * with fewer granted it sends more than the responder holds.
 */
#define RD_ATOMIC	4

/* What each side tells the other, in network byte order where it counts. */
struct peer_info {
	uint32_t qpn;
	uint32_t psn;
	union ibv_gid gid;
	uint64_t a_addr, b_addr;
	uint32_t a_rkey, b_rkey;
};

static const uint8_t aw_value[8] = {
	0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef,
};

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *cq;
static struct ibv_qp *qp;
static unsigned char a_buf[MR_LEN] __attribute__((aligned(4096)));
static unsigned char b_buf[MR_LEN] __attribute__((aligned(4096)));
static unsigned char msg[64];
static bool no_flush;
static int fails;

static void check(bool ok, const char *fmt, const char *what)
{
	printf(fmt, ok ? "ok" : "FAIL", what);
	if (!ok)
		fails++;
}

static bool poll_one(struct ibv_wc *wc)
{
	uint64_t deadline = now_ms() + WAIT_MS;
	int n;

	while ((n = ibv_poll_cq(cq, 1, wc)) == 0 && now_ms() < deadline)
		;
	if (n < 0)
		die("ibv_poll_cq");
	return n == 1;
}

static void xfer(int fd, void *buf, size_t len, bool out)
{
	size_t done = 0;
	ssize_t n;

	while (done < len) {
		n = out ? write(fd, (char *)buf + done, len - done) :
			  read(fd, (char *)buf + done, len - done);
		if (n <= 0)
			die(out ? "tcp write" : "tcp read");
		done += n;
	}
}

static int tcp_server(const char *port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	int one = 1, lfd, fd;

	lfd = socket(AF_INET, SOCK_STREAM, 0);
	if (lfd < 0)
		die("socket");
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	sa.sin_port = htons(atoi(port));
	if (bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) || listen(lfd, 1))
		die("bind/listen");
	fd = accept(lfd, NULL, NULL);
	if (fd < 0)
		die("accept");
	close(lfd);
	return fd;
}

static int tcp_client(const char *host, const char *port)
{
	struct addrinfo hints = { .ai_family = AF_INET,
				  .ai_socktype = SOCK_STREAM }, *res;
	int fd;

	if (getaddrinfo(host, port, &hints, &res))
		die("getaddrinfo");
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0 || connect(fd, res->ai_addr, res->ai_addrlen))
		die("connect");
	freeaddrinfo(res);
	return fd;
}

/* Our QP to RTS towards @peer, as @c says otherwise. */
static void connect_to_peer(struct rc_conn *c, const struct peer_info *me,
			    const struct peer_info *peer)
{
	c->gid = peer->gid;
	c->dest_qpn = peer->qpn;
	c->rq_psn = peer->psn;
	c->sq_psn = me->psn;
	connect_rc(qp, c);
}

static int server(int gid_index, const char *port)
{
	struct ibv_mr *a, *b, *m;
	struct peer_info me = {}, peer;
	struct rc_conn c = { .gid_index = gid_index, .mtu = IBV_MTU_1024,
			     .timeout = 14, .rd_atomic = RD_ATOMIC,
			     .label = "server: ",
			     .access = IBV_ACCESS_REMOTE_WRITE |
				       IBV_ACCESS_REMOTE_READ |
				       IBV_ACCESS_REMOTE_ATOMIC |
				       IBV_ACCESS_FLUSH_GLOBAL };
	struct ibv_sge sge;
	struct ibv_recv_wr rw = { .wr_id = 1, .sg_list = &sge, .num_sge = 1 },
			   *bad;
	struct ibv_wc wc;
	char verdict = 0;
	int fd, i;
	bool ok;

	a = ibv_reg_mr(pd, a_buf, MR_LEN, IBV_ACCESS_LOCAL_WRITE |
		       IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC |
		       IBV_ACCESS_FLUSH_GLOBAL);
	b = ibv_reg_mr(pd, b_buf, MR_LEN, IBV_ACCESS_LOCAL_WRITE |
		       IBV_ACCESS_REMOTE_WRITE);
	m = ibv_reg_mr(pd, msg, sizeof(msg), IBV_ACCESS_LOCAL_WRITE);
	if (!a || !b || !m)
		die("ibv_reg_mr");
	qp = create_rc_qp(pd, cq, 4, 4);
	me.qpn = qp->qp_num;
	me.psn = 0x1234;
	query_gid(ctx, gid_index, &me.gid);
	me.a_addr = (uintptr_t)a_buf;
	me.a_rkey = a->rkey;
	me.b_addr = (uintptr_t)b_buf;
	me.b_rkey = b->rkey;
	sge = (struct ibv_sge){ (uintptr_t)msg, sizeof(msg), m->lkey };

	fd = tcp_server(port);
	xfer(fd, &peer, sizeof(peer), false);
	connect_to_peer(&c, &me, &peer);
	/* Posted before the client hears from us, so before its SEND. */
	if (ibv_post_recv(qp, &rw, &bad))
		die("ibv_post_recv");
	xfer(fd, &me, sizeof(me), true);

	ok = poll_one(&wc) && wc.status == IBV_WC_SUCCESS &&
	     wc.opcode == IBV_WC_RECV;
	check(ok, "# server: %s: %s\n", "the SEND after the batch arrived");
	if (ok) {
		for (i = 0; i < WRITE_LEN; i++)
			if (a_buf[i] != (unsigned char)(i * 13 + 5))
				break;
		check(i == WRITE_LEN, "# server: %s: %s\n",
		      "RDMA WRITE's 1 KiB placed byte for byte");
		check(!memcmp(a_buf + AW_OFF, aw_value, 8), "# server: %s: %s\n",
		      "ATOMIC WRITE's 8 bytes placed as sent");
		for (i = WRITE_LEN; i < MR_LEN; i++)
			if ((i < AW_OFF || i >= AW_OFF + 8) && a_buf[i])
				break;
		check(i == MR_LEN, "# server: %s: %s\n",
		      "no other byte of A written");
	}
	/* The client's verdict on its completions, then both go. */
	xfer(fd, &verdict, 1, false);
	check(verdict == 1, "# server: %s: %s\n",
	      "the client saw every completion it expected");
	close(fd);
	ibv_destroy_qp(qp);
	ibv_dereg_mr(a);
	ibv_dereg_mr(b);
	ibv_dereg_mr(m);
	return fails ? 1 : 0;
}

/* The next work request of @qpx's batch: @wr_id, with a completion. */
static void wr_signaled(struct ibv_qp_ex *qpx, uint64_t wr_id)
{
	qpx->wr_id = wr_id;
	qpx->wr_flags = IBV_SEND_SIGNALED;
}

/* Poll one completion; check its status and opcode. */
static void expect_wc(uint64_t wr_id, enum ibv_wc_opcode op,
		      enum ibv_wc_status st, const char *what)
{
	struct ibv_wc wc = {};
	bool ok = poll_one(&wc);

	if (!ok) {
		printf("# client: %s: no completion in %d ms\n", what, WAIT_MS);
		fails++;
		return;
	}
	ok = wc.wr_id == wr_id && wc.status == st &&
	     (st != IBV_WC_SUCCESS || wc.opcode == op);
	if (!ok)
		printf("# client: %s: wr_id %llu status %s opcode %d\n", what,
		       (unsigned long long)wc.wr_id,
		       ibv_wc_status_str(wc.status), wc.opcode);
	check(ok, "# client: %s: %s\n", what);
}

static int client(int gid_index, const char *port, const char *host)
{
	struct ibv_qp_init_attr_ex qa = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 8, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.pd = pd,
		.send_ops_flags = IBV_QP_EX_WITH_RDMA_WRITE |
				  IBV_QP_EX_WITH_SEND |
				  IBV_QP_EX_WITH_FLUSH |
				  IBV_QP_EX_WITH_ATOMIC_WRITE,
	};
	struct rc_conn c = { .gid_index = gid_index, .mtu = IBV_MTU_1024,
			     .timeout = 14, .rd_atomic = RD_ATOMIC,
			     .label = "client: " };
	struct peer_info me = {}, peer;
	struct ibv_qp_ex *qpx;
	struct ibv_mr *m;
	char verdict;
	int fd, i;

	m = ibv_reg_mr(pd, a_buf, MR_LEN, IBV_ACCESS_LOCAL_WRITE);
	if (!m)
		die("ibv_reg_mr");
	for (i = 0; i < WRITE_LEN; i++)
		a_buf[i] = (unsigned char)(i * 13 + 5);
	qp = ibv_create_qp_ex(ctx, &qa);
	if (!qp)
		die("ibv_create_qp_ex with FLUSH and ATOMIC WRITE");
	qpx = ibv_qp_to_qp_ex(qp);
	me.qpn = qp->qp_num;
	me.psn = 0x4321;
	query_gid(ctx, gid_index, &me.gid);

	fd = tcp_client(host, port);
	xfer(fd, &me, sizeof(me), true);
	xfer(fd, &peer, sizeof(peer), false);
	connect_to_peer(&c, &me, &peer);

	ibv_wr_start(qpx);
	wr_signaled(qpx, 1);
	ibv_wr_rdma_write(qpx, peer.a_rkey, peer.a_addr);
	ibv_wr_set_sge(qpx, m->lkey, (uintptr_t)a_buf, WRITE_LEN);
	if (!no_flush) {
		wr_signaled(qpx, 2);
		ibv_wr_flush(qpx, peer.a_rkey, peer.a_addr, WRITE_LEN,
			     IBV_FLUSH_GLOBAL, IBV_FLUSH_RANGE);
	}
	wr_signaled(qpx, 3);
	ibv_wr_atomic_write(qpx, peer.a_rkey, peer.a_addr + AW_OFF, aw_value);
	if (!no_flush) {
		wr_signaled(qpx, 4);
		ibv_wr_flush(qpx, peer.a_rkey, peer.a_addr, MR_LEN,
			     IBV_FLUSH_GLOBAL, IBV_FLUSH_MR);
	}
	wr_signaled(qpx, 5);
	ibv_wr_send(qpx);
	ibv_wr_set_sge(qpx, m->lkey, (uintptr_t)a_buf, 16);
	if (ibv_wr_complete(qpx))
		die("ibv_wr_complete");
	expect_wc(1, IBV_WC_RDMA_WRITE, IBV_WC_SUCCESS, "RDMA WRITE 1 KiB");
	if (!no_flush)
		expect_wc(2, IBV_WC_FLUSH, IBV_WC_SUCCESS,
			  "FLUSH global, range");
	expect_wc(3, IBV_WC_ATOMIC_WRITE, IBV_WC_SUCCESS, "ATOMIC WRITE 8 bytes");
	if (!no_flush)
		expect_wc(4, IBV_WC_FLUSH, IBV_WC_SUCCESS, "FLUSH global, MR");
	expect_wc(5, IBV_WC_SEND, IBV_WC_SUCCESS, "SEND after them");
	if (no_flush)
		goto out;

	/* B lacks the FLUSH right: the responder refuses. */
	ibv_wr_start(qpx);
	wr_signaled(qpx, 6);
	ibv_wr_flush(qpx, peer.b_rkey, peer.b_addr, 64, IBV_FLUSH_GLOBAL,
		     IBV_FLUSH_RANGE);
	if (ibv_wr_complete(qpx))
		die("ibv_wr_complete");
	expect_wc(6, IBV_WC_FLUSH, IBV_WC_REM_ACCESS_ERR,
		  "FLUSH of an MR without the right: remote access error");

out:
	verdict = fails ? 0 : 1;
	xfer(fd, &verdict, 1, true);
	close(fd);
	ibv_destroy_qp(qp);
	ibv_dereg_mr(m);
	return fails ? 1 : 0;
}

int main(int argc, char **argv)
{
	int rc;

	if (argc > 1 && !strcmp(argv[1], "-F")) {
		no_flush = true;
		argv++;
		argc--;
	}
	if (argc != 4 && argc != 5) {
		fprintf(stderr,
			"usage: flush_atomic_write [-F] DEV GID_INDEX PORT [SERVER_IP]\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	ctx = open_dev(argv[1]);
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	if (!pd || !cq)
		die("ibv_alloc_pd/ibv_create_cq");
	rc = argc == 4 ? server(atoi(argv[2]), argv[3]) :
			 client(atoi(argv[2]), argv[3], argv[4]);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	return rc;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * dma-buf memory regions (ibv_reg_dmabuf_mr) between two hosts, for ORCA
 * and for interop between ORCA and rxe (uverbs-tools.sh runs it in 72, 73
 * and 74).  A side without -p exports its buffer with udmabuf (a sealed
 * memfd given to /dev/udmabuf) and registers the dma-buf; a side with -p
 * (rxe, which has no dma-buf MRs) registers the same kind of buffer with
 * ibv_reg_mr.  Every byte is checked through the memfd's own mapping, over
 * the whole buffer (64 KiB, of which the MR is 40 KiB from offset 4608),
 * so a byte placed outside the MR is seen too.
 *
 * A dma-buf side first checks, on its own:
 *   the probe UCX and NCCL make: ibv_reg_dmabuf_mr(pd, 0, len, 0, -1, ...)
 *     fails with EBADF (a device without dma-buf MRs: EOPNOTSUPP);
 *   a closed fd (EBADF), a memfd that is no dma-buf, an offset past the
 *     dma-buf's end, a range past it, a length of 0, an iova whose offset
 *     in the page is not the buffer's: EINVAL;
 *   the MR in restrack (rdma -j -dd resource show mr: this process's MR
 *     of that length, drv_type dmabuf);
 *   ibv_rereg_mr of it, as a raw REREG_MR to another PD (libibverbs
 *     refuses it before the kernel): EOPNOTSUPP.
 * Then both sides, the QP numbers and MRs exchanged over TCP, move data
 * each way, the server first as the initiator, then the client:
 *   RDMA WRITE of 37960 bytes from the initiator's MR + 1000 to the
 *     target's MR + 2000 (every byte placed, no other byte of the target's
 *     buffer written);
 *   RDMA READ of those bytes of a pattern back into the initiator's
 *     (likewise);
 *   SEND of 37960 bytes into a receive of the whole target MR.
 * So a dma-buf MR is the local buffer (WRITE and SEND source, READ sink)
 * and the remote one (WRITE target, READ source, receive buffer).  Last,
 * "deregistered while the peer still writes": the dma-buf side (the server
 * if it has one) deregisters its MR once the first of the peer's stream of
 * 4 KiB RDMA WRITEs to it has landed whole; the writer's stream must end,
 * after at least one success, in a completion with
 * IBV_WC_REM_ACCESS_ERR, and the buffer must not change after
 * ibv_dereg_mr returned (checked until the writer saw its error, and half
 * a second more).
 *
 * Output: KTAP case lines; exit status 0 if every case passed.
 *
 * Usage: dmabuf_mr [-p] DEV GID_INDEX PORT [SERVER_IP]
 *        (without SERVER_IP: the server)
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/udmabuf.h>
#include <rdma/ib_user_verbs.h>
#include <infiniband/verbs.h>

#include "verbs_helpers.h"

#define BUF_LEN		(64 * 1024)
#define MR_OFF		(4096 + 512)	/* in the buffer; not page aligned */
#define MR_LEN		(40 * 1024)
#define XFER_LEN	(MR_LEN - 3000)	/* ends inside a page */
#define LOCAL_OFF	1000		/* in the initiator's MR */
#define REMOTE_OFF	2000		/* in the target's MR */
/* A dma-buf MR's iova: any address, with the offset's place in the page. */
#define DMABUF_IOVA	(0x5a5a00000000ULL + MR_OFF)
#define STREAM_LEN	4096
#define STREAM_DEPTH	8
#define WAIT_MS		20000
#define ACCESS		(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
			 IBV_ACCESS_REMOTE_READ)

/* What each side tells the other. */
struct peer_info {
	uint32_t qpn;
	uint32_t psn;
	union ibv_gid gid;
	uint64_t iova;		/* of the MR's first byte */
	uint32_t rkey;
	uint32_t dmabuf;	/* 1: a dma-buf MR */
};

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *cq;
static struct ibv_qp *qp;
static struct ibv_mr *mr;
static bool plain;		/* -p: an ordinary MR */
static int memfd = -1, dmabuf_fd = -1;
static unsigned char *buf;	/* the memfd's mapping, BUF_LEN bytes */
static uint64_t mr_iova;	/* what SGEs name for buf + MR_OFF */
static int tcp;

static const char *kind(bool dmabuf)
{
	return dmabuf ? "dma-buf MR" : "ordinary MR";
}

static unsigned char pat(unsigned int seed, size_t i)
{
	return (unsigned char)(i * 31 + seed * 77 + (i >> 8) + 1);
}

/*
 * @buf holds pattern @seed from offset @off (its byte j is pat(seed,
 * @pat_off + j)) for @len bytes and zeros elsewhere.  Says where not.
 */
static bool buf_holds(unsigned int seed, size_t off, size_t len,
		      size_t pat_off, const char *what)
{
	size_t i;

	for (i = 0; i < BUF_LEN; i++) {
		unsigned char want = i >= off && i < off + len ?
				     pat(seed, pat_off + i - off) : 0;

		if (buf[i] != want) {
			printf("# %s: byte %zu of the buffer is %#x, not %#x\n",
			       what, i, buf[i], want);
			return false;
		}
	}
	return true;
}

static void fill(unsigned int seed, size_t off, size_t len)
{
	size_t i;

	memset(buf, 0, BUF_LEN);
	for (i = 0; i < len; i++)
		buf[off + i] = pat(seed, i);
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

/* One completion: @wr_id, success, @op. */
static bool expect_wc(uint64_t wr_id, enum ibv_wc_opcode op, uint32_t len,
		      const char *what)
{
	struct ibv_wc wc = {};

	if (!poll_one(&wc)) {
		printf("# %s: no completion in %d ms\n", what, WAIT_MS);
		return false;
	}
	if (wc.wr_id != wr_id || wc.status != IBV_WC_SUCCESS ||
	    wc.opcode != op || (len && wc.byte_len != len)) {
		printf("# %s: wr_id %llu status %s opcode %d byte_len %u\n",
		       what, (unsigned long long)wc.wr_id,
		       ibv_wc_status_str(wc.status), wc.opcode, wc.byte_len);
		return false;
	}
	return true;
}

static void xfer(void *p, size_t len, bool out)
{
	size_t done = 0;
	ssize_t n;

	while (done < len) {
		n = out ? write(tcp, (char *)p + done, len - done) :
			  read(tcp, (char *)p + done, len - done);
		if (n <= 0)
			die(out ? "tcp write" : "tcp read");
		done += n;
	}
}

static void tell(char c)
{
	xfer(&c, 1, true);
}

static char hear(void)
{
	char c;

	xfer(&c, 1, false);
	return c;
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

/*
 * The buffer: a memfd of BUF_LEN bytes, mapped; without -p also a
 * dma-buf of all of it (udmabuf wants the memfd sealed against
 * shrinking).
 */
static void buffer_create(void)
{
	struct udmabuf_create uc = {
		.flags = UDMABUF_FLAGS_CLOEXEC,
		.size = BUF_LEN,
	};
	int dev;

	memfd = memfd_create("dmabuf_mr", MFD_ALLOW_SEALING);
	if (memfd < 0)
		die("memfd_create");
	if (ftruncate(memfd, BUF_LEN))
		die("ftruncate");
	buf = mmap(NULL, BUF_LEN, PROT_READ | PROT_WRITE, MAP_SHARED, memfd,
		   0);
	if (buf == MAP_FAILED)
		die("mmap of the memfd");
	memset(buf, 0, BUF_LEN);
	if (plain)
		return;
	if (fcntl(memfd, F_ADD_SEALS, F_SEAL_SHRINK))
		die("F_ADD_SEALS F_SEAL_SHRINK");
	dev = open("/dev/udmabuf", O_RDWR | O_CLOEXEC);
	if (dev < 0)
		die("/dev/udmabuf");
	uc.memfd = memfd;
	dmabuf_fd = ioctl(dev, UDMABUF_CREATE, &uc);
	if (dmabuf_fd < 0)
		die("UDMABUF_CREATE");
	close(dev);
}

/* ibv_reg_dmabuf_mr() must fail with @want; one case named @what. */
static void expect_reg_fails(uint64_t off, size_t len, uint64_t iova, int fd,
			     int want, const char *what)
{
	struct ibv_mr *m;
	int err;

	errno = 0;
	m = ibv_reg_dmabuf_mr(pd, off, len, iova, fd, ACCESS);
	err = errno;
	if (m) {
		printf("# %s: registered (lkey %#x)\n", what, m->lkey);
		ibv_dereg_mr(m);
	} else if (err != want) {
		printf("# %s: %s, not %s\n", what, strerror(err),
		       strerror(want));
	}
	result(!m && err == want, what);
}

/*
 * This process's MR of MR_LEN bytes in restrack, with the driver's
 * attribute type "dmabuf".  The JSON has one flat object per MR.
 */
static bool restrack_shows_dmabuf(void)
{
	char want_pid[32], want_len[32], obj[4096], line[256];
	FILE *f = popen("rdma -j -dd resource show mr 2>&1", "r");
	size_t n = 0;
	bool found = false;
	int c;

	if (!f)
		return false;
	snprintf(want_pid, sizeof(want_pid), "\"pid\":%d,", getpid());
	snprintf(want_len, sizeof(want_len), "\"mrlen\":%d,", MR_LEN);
	while ((c = fgetc(f)) != EOF) {
		if (c == '{')
			n = 0;
		if (n < sizeof(obj) - 1)
			obj[n++] = c;
		if (c != '}')
			continue;
		obj[n] = 0;
		if (strstr(obj, want_pid) && strstr(obj, want_len)) {
			snprintf(line, sizeof(line), "# restrack: %.200s\n",
				 obj);
			fputs(line, stdout);
			found = strstr(obj, "\"drv_type\":\"dmabuf\"");
		}
	}
	pclose(f);
	return found;
}

/*
 * ibv_rereg_mr() refuses a dma-buf MR itself, so the kernel's answer is
 * asked with the legacy REREG_MR command: move the MR to another PD.
 */
static int raw_rereg_pd(struct ibv_mr *m, struct ibv_pd *to)
{
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_rereg_mr cmd;
	} req = {};
	struct ib_uverbs_rereg_mr_resp resp;

	req.hdr.command = IB_USER_VERBS_CMD_REREG_MR;
	req.hdr.in_words = sizeof(req) / 4;
	req.hdr.out_words = sizeof(resp) / 4;
	req.cmd.response = (uintptr_t)&resp;
	req.cmd.mr_handle = m->handle;
	req.cmd.flags = IBV_REREG_MR_CHANGE_PD;
	req.cmd.pd_handle = to->handle;
	if (write(ctx->cmd_fd, &req, sizeof(req)) == (ssize_t)sizeof(req))
		return 0;
	return errno;
}

/* A dma-buf side's cases on its own, then its MR. */
static void dmabuf_cases(void)
{
	struct ibv_pd *pd2;
	int closed, err;

	errno = 0;
	mr = ibv_reg_dmabuf_mr(pd, 0, MR_LEN, 0, -1, ACCESS);
	err = errno;
	if (err != EBADF)
		printf("# the probe: %s\n", mr ? "registered" : strerror(err));
	result(!mr && err == EBADF,
	       "probe: ibv_reg_dmabuf_mr with fd -1 fails with EBADF (dma-buf MRs supported)");
	if (mr) {
		ibv_dereg_mr(mr);
		mr = NULL;
	}

	buffer_create();
	closed = dup(memfd);
	close(closed);
	expect_reg_fails(MR_OFF, MR_LEN, DMABUF_IOVA, closed, EBADF,
			 "a closed fd: EBADF");
	expect_reg_fails(MR_OFF, MR_LEN, DMABUF_IOVA, memfd, EINVAL,
			 "a memfd, no dma-buf: EINVAL");
	expect_reg_fails(BUF_LEN, 4096, 0x5a5a00000000ULL, dmabuf_fd, EINVAL,
			 "an offset at the dma-buf's end: EINVAL");
	expect_reg_fails(MR_OFF, BUF_LEN, DMABUF_IOVA, dmabuf_fd, EINVAL,
			 "a range beyond the dma-buf's end: EINVAL");
	expect_reg_fails(MR_OFF, 0, DMABUF_IOVA, dmabuf_fd, EINVAL,
			 "length 0: EINVAL");
	expect_reg_fails(MR_OFF, MR_LEN, DMABUF_IOVA + 8, dmabuf_fd, EINVAL,
			 "an iova at another offset in its page than the offset's: EINVAL");

	mr = ibv_reg_dmabuf_mr(pd, MR_OFF, MR_LEN, DMABUF_IOVA, dmabuf_fd,
			       ACCESS);
	if (!mr)
		printf("# ibv_reg_dmabuf_mr: %s\n", strerror(errno));
	result(mr, "ibv_reg_dmabuf_mr of 40 KiB at offset 4608 of a udmabuf");
	if (!mr)
		exit(1);
	mr_iova = DMABUF_IOVA;
	result(restrack_shows_dmabuf(),
	       "restrack shows the MR, driver type dmabuf");
	pd2 = ibv_alloc_pd(ctx);
	if (!pd2)
		die("ibv_alloc_pd");
	err = raw_rereg_pd(mr, pd2);
	if (err != EOPNOTSUPP)
		printf("# REREG_MR: %s\n", err ? strerror(err) : "done");
	result(err == EOPNOTSUPP,
	       "REREG_MR of the dma-buf MR to another PD: EOPNOTSUPP");
	if (ibv_dealloc_pd(pd2))
		die("ibv_dealloc_pd");
}

static void plain_mr(void)
{
	buffer_create();
	mr = ibv_reg_mr(pd, buf + MR_OFF, MR_LEN, ACCESS);
	if (!mr)
		die("ibv_reg_mr");
	mr_iova = (uintptr_t)buf + MR_OFF;
}

static void post_rdma(enum ibv_wr_opcode op, uint64_t wr_id, size_t loff,
		      size_t len, uint64_t raddr, uint32_t rkey)
{
	struct ibv_sge sge = { mr_iova + loff, len, mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = wr_id, .sg_list = &sge, .num_sge = 1, .opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;

	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	if (ibv_post_send(qp, &wr, &bad))
		die("ibv_post_send");
}

static void post_recv_all(void)
{
	struct ibv_sge sge = { mr_iova, MR_LEN, mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = 7, .sg_list = &sge, .num_sge = 1 },
			   *bad;

	if (ibv_post_recv(qp, &wr, &bad))
		die("ibv_post_recv");
}

/*
 * One direction: this side the initiator (@init) or the target; @me and
 * @peer say which MR each has; @seed tells this direction's patterns
 * from the other's.
 */
static void data_cases(bool init, const struct peer_info *me,
		       const struct peer_info *peer, unsigned int seed)
{
	const struct peer_info *src = init ? me : peer;
	const struct peer_info *dst = init ? peer : me;
	char what[160];
	bool ok;

	/* RDMA WRITE: source the initiator's MR, target the other's. */
	snprintf(what, sizeof(what), "RDMA WRITE %s -> %s: %s",
		 kind(src->dmabuf), kind(dst->dmabuf),
		 init ? "completes" : "every byte placed, no other");
	if (init) {
		fill(seed, MR_OFF + LOCAL_OFF, XFER_LEN);
		hear();		/* the target's buffer is clear */
		post_rdma(IBV_WR_RDMA_WRITE, 1, LOCAL_OFF, XFER_LEN,
			  peer->iova + REMOTE_OFF, peer->rkey);
		ok = expect_wc(1, IBV_WC_RDMA_WRITE, 0, what);
		tell(ok);
		result(ok, what);
	} else {
		memset(buf, 0, BUF_LEN);
		tell(1);
		ok = hear() && buf_holds(seed, MR_OFF + REMOTE_OFF, XFER_LEN,
					 0, what);
		result(ok, what);
	}

	/* RDMA READ: from the target's MR into the initiator's. */
	snprintf(what, sizeof(what), "RDMA READ %s -> %s: every byte read, no other",
		 kind(dst->dmabuf), kind(src->dmabuf));
	if (init) {
		memset(buf, 0, BUF_LEN);
		hear();		/* the target's MR holds the pattern */
		post_rdma(IBV_WR_RDMA_READ, 2, LOCAL_OFF, XFER_LEN,
			  peer->iova + REMOTE_OFF, peer->rkey);
		ok = expect_wc(2, IBV_WC_RDMA_READ, XFER_LEN, what) &&
		     buf_holds(seed + 1, MR_OFF + LOCAL_OFF, XFER_LEN,
			       REMOTE_OFF, what);
		tell(ok);
		result(ok, what);
	} else {
		/* The reader checks and reports. */
		fill(seed + 1, MR_OFF, MR_LEN);
		tell(1);
		hear();
	}

	/* SEND into a receive of the whole target MR. */
	snprintf(what, sizeof(what), "SEND %s -> %s: %s",
		 kind(src->dmabuf), kind(dst->dmabuf),
		 init ? "completes" : "received, every byte, no other");
	if (init) {
		fill(seed + 2, MR_OFF + LOCAL_OFF, XFER_LEN);
		hear();		/* the receive is posted */
		post_rdma(IBV_WR_SEND, 3, LOCAL_OFF, XFER_LEN, 0, 0);
		ok = expect_wc(3, IBV_WC_SEND, 0, what);
		result(ok, what);
		hear();		/* the receiver is done */
	} else {
		memset(buf, 0, BUF_LEN);
		post_recv_all();
		tell(1);
		ok = expect_wc(7, IBV_WC_RECV, XFER_LEN, what) &&
		     buf_holds(seed + 2, MR_OFF, XFER_LEN, 0, what);
		result(ok, what);
		tell(1);
	}
}

/*
 * The writer's half of "deregistered while the peer still writes": 4 KiB
 * WRITEs to the peer's MR, STREAM_DEPTH in flight, until one completes
 * with an error or WAIT_MS pass.
 */
static void stream_writes(const struct peer_info *peer)
{
	struct ibv_wc wc = {};
	uint64_t deadline = now_ms() + WAIT_MS, posted = 0, done = 0;
	bool err = false;
	char what[160];
	size_t i;
	int n;

	for (i = 0; i < STREAM_LEN; i++)
		buf[MR_OFF + i] = 0xa5;
	hear();		/* the peer watches its buffer */
	while (!err && now_ms() < deadline) {
		while (posted - done < STREAM_DEPTH) {
			/* A changing byte: each WRITE leaves a new mark. */
			buf[MR_OFF] = (unsigned char)(posted | 1);
			post_rdma(IBV_WR_RDMA_WRITE, posted + 100, 0,
				  STREAM_LEN, peer->iova +
				  (posted % (MR_LEN / STREAM_LEN)) * STREAM_LEN,
				  peer->rkey);
			posted++;
		}
		n = ibv_poll_cq(cq, 1, &wc);
		if (n < 0)
			die("ibv_poll_cq");
		if (n == 0)
			continue;
		done++;
		err = wc.status != IBV_WC_SUCCESS;
	}
	printf("# writer: %llu WRITEs posted, %llu completed, the last: %s\n",
	       (unsigned long long)posted, (unsigned long long)done,
	       err ? ibv_wc_status_str(wc.status) : "no error in time");
	tell(1);	/* the writer has its answer */
	snprintf(what, sizeof(what),
		 "WRITEs to a %s deregistered meanwhile end with IBV_WC_REM_ACCESS_ERR",
		 kind(peer->dmabuf));
	result(err && wc.status == IBV_WC_REM_ACCESS_ERR && done > 1, what);
}

/* The owner's half: deregister once WRITEs land, then watch the buffer. */
static void dereg_under_writes(void)
{
	unsigned char *snap = malloc(BUF_LEN);
	uint64_t deadline;
	bool landed = false, same;
	size_t i;
	int err;

	if (!snap)
		die("malloc");
	memset(buf, 0, BUF_LEN);
	tell(1);
	deadline = now_ms() + WAIT_MS;
	/*
	 * The last byte of the first WRITE (a packet's payload is placed in
	 * PSN order, so the whole WRITE is there): whatever answers the next
	 * ones, an ACK or the NAK that deregistering brings, acknowledges it,
	 * and the writer sees a success before its error.  Its first byte
	 * would not do: deregistered between the WRITE's packets, the first
	 * WRITE itself fails (an rxe writer in 73 saw just that).
	 * volatile: the adapter writes it behind the compiler's back.
	 */
	while (!landed && now_ms() < deadline)
		landed = ((volatile unsigned char *)buf)[MR_OFF + STREAM_LEN - 1];
	result(landed, "the peer's WRITEs land in the dma-buf MR");
	err = ibv_dereg_mr(mr);
	mr = NULL;
	memcpy(snap, buf, BUF_LEN);
	if (err)
		printf("# ibv_dereg_mr: %s\n", strerror(err));
	result(!err, "ibv_dereg_mr of the dma-buf MR while the peer writes");
	hear();		/* the writer saw its error, or gave up */
	usleep(500 * 1000);
	same = !memcmp(snap, buf, BUF_LEN);
	for (i = 0; !same && i < BUF_LEN && snap[i] == buf[i]; i++)
		;
	if (!same)
		printf("# byte %zu changed from %#x to %#x after ibv_dereg_mr\n",
		       i, snap[i], buf[i]);
	result(same, "nothing written to the buffer after ibv_dereg_mr");
	free(snap);
}

static void usage(void)
{
	fprintf(stderr,
		"usage: dmabuf_mr [-p] DEV GID_INDEX PORT [SERVER_IP]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct rc_conn c = { .mtu = IBV_MTU_1024, .timeout = 14,
			     .access = IBV_ACCESS_REMOTE_WRITE |
				       IBV_ACCESS_REMOTE_READ };
	struct peer_info me = {}, peer;
	bool server, dereg_me;

	if (argc > 1 && !strcmp(argv[1], "-p")) {
		plain = true;
		argv++;
		argc--;
	}
	if (argc != 4 && argc != 5)
		usage();
	server = argc == 4;
	setvbuf(stdout, NULL, _IOLBF, 0);
	ctx = open_dev(argv[1]);
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 2 * STREAM_DEPTH + 4, NULL, NULL, 0);
	if (!pd || !cq)
		die("ibv_alloc_pd/ibv_create_cq");
	if (plain)
		plain_mr();
	else
		dmabuf_cases();

	qp = create_rc_qp(pd, cq, STREAM_DEPTH + 2, 2);
	c.gid_index = atoi(argv[2]);
	me.qpn = qp->qp_num;
	me.psn = server ? 0x1234 : 0x4321;
	query_gid(ctx, c.gid_index, &me.gid);
	me.iova = mr_iova;
	me.rkey = mr->rkey;
	me.dmabuf = !plain;
	tcp = server ? tcp_server(argv[3]) : tcp_client(argv[4], argv[3]);
	xfer(&me, sizeof(me), true);
	xfer(&peer, sizeof(peer), false);
	c.gid = peer.gid;
	c.dest_qpn = peer.qpn;
	c.rq_psn = peer.psn;
	c.sq_psn = me.psn;
	connect_rc(qp, &c);
	tell(1);	/* connected: the peer may send */
	hear();

	data_cases(server, &me, &peer, 10);
	data_cases(!server, &me, &peer, 20);

	/* The server's dma-buf MR if it has one, else the client's. */
	dereg_me = me.dmabuf && (server || !peer.dmabuf);
	if (dereg_me)
		dereg_under_writes();
	else if (peer.dmabuf)
		stream_writes(&peer);

	ibv_destroy_qp(qp);
	if (mr)
		ibv_dereg_mr(mr);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	if (dmabuf_fd >= 0)
		close(dmabuf_fd);
	munmap(buf, BUF_LEN);
	close(memfd);
	close(tcp);
	printf("1..%d\n", ktap_tests);
	return ktap_failed;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * RDS over RDMA (rds_rdma) between two hosts, every byte checked.  Debian
 * ships no rds-tools, so this is the test's own sender and receiver.
 *
 *   rds_check serve LOCAL_IP PORT
 *   rds_check send LOCAL_IP PEER_IP PORT
 *   rds_check bench LOCAL_IP PEER_IP PORT SIZE SECONDS
 *
 * Both sockets are pinned to the InfiniBand transport (SO_RDS_TRANSPORT)
 * before bind, so a silent fallback to rds_tcp is impossible.  The sender
 * sends messages of 1 B up to RDS's maximum of 1 MiB, sizes around the MTU
 * and page boundaries, each size once; each body is a pattern derived from
 * its sequence number and length, which the receiver regenerates and
 * compares byte for byte (the length tells it which message of the run it
 * holds, so it keeps no state and serves any number of sender runs, also
 * ones cut short by a device removal).  The receiver answers each message
 * with a reply of another length and its own pattern, which the sender
 * checks in turn, so both directions carry data and neither runs ahead of
 * the other.  The receiver runs until killed and prints "rds_check: run
 * complete" for each run it answered in full and "rds_check: CORRUPT" for
 * any message that did not match.  At the end the sender reads
 * RDS_INFO_CONNECTIONS and prints the transport of the connection to the
 * peer: it must be "infiniband".
 *
 * Output: one "# " line per message and a final "rds_check: ok" line; the
 * exit status is 0 only if every message arrived intact.
 *
 * bench (make bench) keeps a window of messages of SIZE (one of the run's
 * sizes, so serve checks them) in flight for SECONDS, checks every reply,
 * and prints "# rds-bench size=N msgs=N secs=S msg_rate=R mibs=M": the
 * rate of messages sent and the MiB/s they carried one way (the replies,
 * a third of their size, flow back at the same rate).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/rds.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#ifndef AF_RDS
#define AF_RDS 21
#endif
#ifndef SOL_RDS
#define SOL_RDS 276
#endif

#define RDS_MAX_MSG		(1u << 20)
#define REPLY_SEQ		0x80000000u
#define WAIT_MS			60000
#define BENCH_WINDOW		8

static const uint32_t sizes[] = {
	1, 2, 17, 100, 1000, 1024, 1500, 4095, 4096, 4097, 8192, 9000,
	65000, 65536, 65537, 131072, 262144, 524289, RDS_MAX_MSG,
};
#define NSIZES	(sizeof(sizes) / sizeof(sizes[0]))

/* Message SEQ's length, and the length of its reply. */
static uint32_t msg_len(uint32_t seq)
{
	return sizes[seq % NSIZES];
}

static uint32_t reply_len(uint32_t seq)
{
	return msg_len(seq) / 3 + 5;
}

/* A pattern no two messages share. */
static void fill(uint8_t *buf, uint32_t seq, uint32_t len)
{
	uint64_t x = 0x9e3779b97f4a7c15ull * (seq + 1) ^ len;
	uint32_t i;

	for (i = 0; i < len; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		buf[i] = (uint8_t)x;
	}
}

/* 0 if BUF is exactly message SEQ of length LEN; reports the first bad byte. */
static int check(const uint8_t *buf, ssize_t got, uint32_t seq, uint32_t len,
		 uint8_t *want)
{
	uint32_t i;

	if (got != (ssize_t)len) {
		printf("# seq %#x: got %zd bytes, want %u\n", seq, got, len);
		return -1;
	}
	fill(want, seq, len);
	for (i = 0; i < len; i++) {
		if (buf[i] != want[i]) {
			printf("# seq %#x len %u: byte %u is %#x, want %#x\n",
			       seq, len, i, buf[i], want[i]);
			return -1;
		}
	}
	return 0;
}

static int rds_socket(const char *ip, int port, struct sockaddr_in *sin)
{
	int fd, trans = RDS_TRANS_IB, buf = 4 * RDS_MAX_MSG;

	fd = socket(AF_RDS, SOCK_SEQPACKET, 0);
	if (fd < 0) {
		perror("socket(AF_RDS) (is rds loaded?)");
		return -1;
	}
	if (setsockopt(fd, SOL_RDS, SO_RDS_TRANSPORT, &trans, sizeof(trans))) {
		perror("SO_RDS_TRANSPORT ib (is rds_rdma loaded?)");
		return -1;
	}
	/*
	 * RDS refuses a message larger than half the send buffer, and a
	 * receiver whose queue exceeds its buffer congests the sender: make
	 * room for 1 MiB messages (the FORCE variants ignore wmem_max).
	 */
	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &buf, sizeof(buf)) ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &buf, sizeof(buf))) {
		perror("setsockopt buffers");
		return -1;
	}
	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	sin->sin_port = htons(port);
	if (inet_pton(AF_INET, ip, &sin->sin_addr) != 1) {
		fprintf(stderr, "bad address %s\n", ip);
		return -1;
	}
	if (bind(fd, (struct sockaddr *)sin, sizeof(*sin))) {
		perror("bind");
		return -1;
	}
	return fd;
}

/* The peer's address: PEER_IP on our own port. */
static int peer_addr(const struct sockaddr_in *me, const char *peer_ip,
		     struct sockaddr_in *peer)
{
	*peer = *me;
	if (inet_pton(AF_INET, peer_ip, &peer->sin_addr) != 1) {
		fprintf(stderr, "bad address %s\n", peer_ip);
		return -1;
	}
	return 0;
}

static ssize_t recv_wait(int fd, uint8_t *buf, struct sockaddr_in *from)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	socklen_t flen = sizeof(*from);

	if (poll(&p, 1, WAIT_MS) <= 0) {
		printf("# no message within %d ms\n", WAIT_MS);
		return -1;
	}
	/* MSG_TRUNC: the real length, so an overlong message is caught. */
	return recvfrom(fd, buf, RDS_MAX_MSG + 1, MSG_TRUNC,
			(struct sockaddr *)from, &flen);
}

/* Index in sizes[] of a message of @len bytes, or -1. */
static int size_index(ssize_t len)
{
	uint32_t i;

	for (i = 0; i < NSIZES; i++)
		if ((ssize_t)sizes[i] == len)
			return i;
	return -1;
}

static int do_serve(const char *ip, int port)
{
	uint8_t *buf = malloc(RDS_MAX_MSG + 1), *out = malloc(RDS_MAX_MSG);
	uint8_t *want = malloc(RDS_MAX_MSG);
	struct pollfd p;
	struct sockaddr_in me, from;
	socklen_t flen;
	uint32_t len, seq;
	ssize_t got;
	int fd, k;

	fd = rds_socket(ip, port, &me);
	if (fd < 0 || !buf || !out || !want)
		return 1;
	printf("# listening on %s:%d\n", ip, port);
	for (;;) {
		p = (struct pollfd){ .fd = fd, .events = POLLIN };
		if (poll(&p, 1, -1) < 0)
			continue;
		flen = sizeof(from);
		got = recvfrom(fd, buf, RDS_MAX_MSG + 1, MSG_TRUNC,
			       (struct sockaddr *)&from, &flen);
		if (got < 0) {
			printf("# recv: %s\n", strerror(errno));
			continue;
		}
		k = size_index(got);
		if (k < 0 || check(buf, got, k, got, want)) {
			printf("rds_check: CORRUPT %zd-byte message\n", got);
			continue;
		}
		seq = k;
		len = reply_len(seq);
		fill(out, seq | REPLY_SEQ, len);
		if (sendto(fd, out, len, 0, (struct sockaddr *)&from,
			   sizeof(from)) != (ssize_t)len)
			printf("# reply to %zd bytes: %s\n", got, strerror(errno));
		if (k == NSIZES - 1)
			printf("rds_check: run complete\n");
	}
	return 0;
}

/* Transport of our connection to PEER, from RDS_INFO_CONNECTIONS. */
static int print_transport(int fd, struct in_addr peer)
{
	struct rds_info_connection *c;
	socklen_t len = 0;
	char *buf;
	int n, i;

	/* The first call fails with ENOSPC and reports the size needed. */
	getsockopt(fd, SOL_RDS, RDS_INFO_CONNECTIONS, NULL, &len);
	len += 4096;
	buf = malloc(len);
	if (!buf)
		return -1;
	n = getsockopt(fd, SOL_RDS, RDS_INFO_CONNECTIONS, buf, &len);
	if (n <= 0) {
		perror("RDS_INFO_CONNECTIONS");
		return -1;
	}
	for (i = 0; i < (int)(len / n); i++) {
		c = (void *)(buf + i * n);
		if (c->faddr != peer.s_addr)
			continue;
		printf("rds_check: transport %.*s\n",
		       (int)sizeof(c->transport), c->transport);
		return 0;
	}
	printf("# no RDS connection to the peer listed\n");
	return -1;
}

static int do_send(const char *ip, const char *peer_ip, int port,
		   uint32_t count)
{
	uint8_t *buf = malloc(RDS_MAX_MSG), *in = malloc(RDS_MAX_MSG + 1);
	uint8_t *want = malloc(RDS_MAX_MSG);
	struct sockaddr_in me, peer, from;
	uint32_t seq, len;
	ssize_t got;
	int fd;

	fd = rds_socket(ip, port, &me);
	if (fd < 0 || !buf || !in || !want)
		return 1;
	if (peer_addr(&me, peer_ip, &peer))
		return 1;
	for (seq = 0; seq < count; seq++) {
		len = msg_len(seq);
		fill(buf, seq, len);
		if (sendto(fd, buf, len, 0, (struct sockaddr *)&peer,
			   sizeof(peer)) != (ssize_t)len) {
			printf("# send seq %u len %u: %s\n", seq, len,
			       strerror(errno));
			return 1;
		}
		got = recv_wait(fd, in, &from);
		if (got < 0 || check(in, got, seq | REPLY_SEQ, reply_len(seq), want))
			return 1;
		printf("# seq %u: %u bytes sent, %zd-byte reply, both intact\n",
		       seq, len, got);
	}
	if (print_transport(fd, peer.sin_addr))
		return 1;
	printf("# %u messages each way, every byte checked\n", count);
	printf("rds_check: ok\n");
	return 0;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int do_bench(const char *ip, const char *peer_ip, int port,
		    uint32_t size, double secs)
{
	uint8_t *buf = malloc(RDS_MAX_MSG), *in = malloc(RDS_MAX_MSG + 1);
	uint8_t *want = malloc(RDS_MAX_MSG);
	struct sockaddr_in me, peer, from;
	uint32_t sent = 0, answered = 0, seq;
	double start, end;
	ssize_t got;
	int fd, k = size_index(size);

	if (k < 0) {
		fprintf(stderr, "bench: %u is not one of the run's sizes\n",
			size);
		return 2;
	}
	seq = k;
	fd = rds_socket(ip, port, &me);
	if (fd < 0 || !buf || !in || !want)
		return 1;
	if (peer_addr(&me, peer_ip, &peer))
		return 1;
	fill(buf, seq, size);
	start = now_s();
	end = start + secs;
	/* A window in flight; each reply, checked, lets one more go. */
	while (answered < sent || now_s() < end) {
		while (sent - answered < BENCH_WINDOW && now_s() < end) {
			if (sendto(fd, buf, size, 0, (struct sockaddr *)&peer,
				   sizeof(peer)) != (ssize_t)size) {
				printf("# send %u: %s\n", sent, strerror(errno));
				return 1;
			}
			sent++;
		}
		if (answered == sent)
			break;
		got = recv_wait(fd, in, &from);
		if (got < 0 ||
		    check(in, got, seq | REPLY_SEQ, reply_len(seq), want))
			return 1;
		answered++;
	}
	end = now_s() - start;
	printf("# rds-bench size=%u msgs=%u secs=%.2f msg_rate=%.0f mibs=%.2f\n",
	       size, answered, end, answered / end,
	       (double)answered * size / end / (1 << 20));
	return answered ? 0 : 1;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 4 && !strcmp(argv[1], "serve"))
		return do_serve(argv[2], atoi(argv[3]));
	if (argc == 5 && !strcmp(argv[1], "send"))
		return do_send(argv[2], argv[3], atoi(argv[4]), NSIZES);
	if (argc == 7 && !strcmp(argv[1], "bench"))
		return do_bench(argv[2], argv[3], atoi(argv[4]),
				strtoul(argv[5], NULL, 0), atof(argv[6]));
	fprintf(stderr,
		"usage: %s serve LOCAL_IP PORT | send LOCAL_IP PEER_IP PORT |\n"
		"       bench LOCAL_IP PEER_IP PORT SIZE SECONDS\n", argv[0]);
	return 2;
}

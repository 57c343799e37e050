// SPDX-License-Identifier: GPL-2.0
/*
 * Setting up and tearing down adapter <-> switch shared-memory links
 * (wire_link.h).
 */
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/clock.h"
#include "wire_link.h"

static const char link_magic[8] = "ORCARNG2";

/* The attach message: magic and the layout's size, both must match. */
static void build_msg(uint8_t *msg)
{
	uint32_t size = sizeof(struct wire_link_mem);

	memcpy(msg, link_magic, sizeof(link_magic));
	memcpy(msg + sizeof(link_magic), &size, sizeof(size));
}

/*
 * @mirror: the other adapter's view of a point-to-point link: what its
 * peer sends up comes down to it, and the other way round.
 */
static void link_init(struct wire_link *l, void *mem, int ctl, bool mirror)
{
	struct wire_link_mem *m = mem;
	const int *e = l->efd;

	l->mem = mem;
	l->ctl = ctl;
	if (mirror) {
		wire_frame_ring_init(&l->up, &m->down, e[2], e[3]);
		wire_frame_ring_init(&l->down, &m->up, e[0], e[1]);
		wire_frame_ring_init(&l->roce_up, &m->roce_down, e[6], e[7]);
		wire_frame_ring_init(&l->roce_down, &m->roce_up, e[4], e[5]);
		return;
	}
	wire_frame_ring_init(&l->up, &m->up, e[0], e[1]);
	wire_frame_ring_init(&l->down, &m->down, e[2], e[3]);
	wire_frame_ring_init(&l->roce_up, &m->roce_up, e[4], e[5]);
	wire_frame_ring_init(&l->roce_down, &m->roce_down, e[6], e[7]);
}

static void close_fds(const int *fds, int n)
{
	for (int i = 0; i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

static int send_attach(int sock, const struct sockaddr *to, socklen_t to_len,
		       const int *fds)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(WIRE_LINK_NR_FDS * sizeof(int))];
	} c;
	uint8_t msg[WIRE_LINK_MSG_LEN];
	struct iovec iov = { .iov_base = msg, .iov_len = sizeof(msg) };
	struct msghdr mh = {
		.msg_name = (void *)to, .msg_namelen = to_len,
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = c.buf, .msg_controllen = sizeof(c.buf),
	};
	struct cmsghdr *cm;

	build_msg(msg);
	memset(&c, 0, sizeof(c));
	cm = CMSG_FIRSTHDR(&mh);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(WIRE_LINK_NR_FDS * sizeof(int));
	memcpy(CMSG_DATA(cm), fds, WIRE_LINK_NR_FDS * sizeof(int));
	return sendmsg(sock, &mh, MSG_NOSIGNAL) == sizeof(msg) ? 0 : -errno;
}

/* The switch's "ok", or the hang-up of an older switch (or none). */
static int wait_answer(int ctl, int timeout_ms)
{
	struct pollfd pfd = { .fd = ctl, .events = POLLIN };
	char ans[2];
	int n;

	do {
		n = poll(&pfd, 1, timeout_ms);
	} while (n < 0 && errno == EINTR);
	if (n <= 0)
		return n ? -errno : -ETIMEDOUT;
	if (recv(ctl, ans, sizeof(ans), MSG_DONTWAIT) != sizeof(ans) ||
	    memcmp(ans, "ok", 2))
		return -ECONNREFUSED;
	return 0;
}

/*
 * Whether to try again: a busy switch's full queue, and, when waiting for
 * a peer adapter, its socket that is not there yet.
 */
static bool attach_retry(int err, bool wait_peer)
{
	return err == -EAGAIN ||
	       (wait_peer && (err == -ENOENT || err == -ECONNREFUSED));
}

int wire_link_attach(struct wire_link *l, int sock, const struct sockaddr *to,
		     socklen_t to_len, int timeout_ms, bool wait_peer)
{
	int fds[WIRE_LINK_NR_FDS];
	int sp[2] = { -1, -1 };
	void *mem = MAP_FAILED;
	uint64_t deadline;
	int err, i;

	for (i = 0; i < WIRE_LINK_NR_FDS; i++)
		fds[i] = -1;
	fds[0] = memfd_create("orca-wire-link", MFD_CLOEXEC);
	if (fds[0] < 0 || ftruncate(fds[0], sizeof(struct wire_link_mem)))
		goto fail;
	mem = mmap(NULL, sizeof(struct wire_link_mem), PROT_READ | PROT_WRITE,
		   MAP_SHARED, fds[0], 0);
	if (mem == MAP_FAILED)
		goto fail;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp))
		goto fail;
	fds[1] = sp[1];
	for (i = 0; i < 2 * WIRE_LINK_NR_RINGS; i++) {
		fds[2 + i] = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (fds[2 + i] < 0)
			goto fail;
	}
	/* A switch busy with a burst may have a full queue: try again. */
	deadline = now_ms() + (uint64_t)timeout_ms;
	do {
		err = send_attach(sock, to, to_len, fds);
		if (attach_retry(err, wait_peer) && now_ms() < deadline)
			usleep(1000);
	} while (attach_retry(err, wait_peer) && now_ms() < deadline);
	if (!err)
		err = wait_answer(sp[0], timeout_ms);
	if (err) {
		errno = -err;
		goto fail;
	}
	/* The switch has its copies of the memfd and its control end. */
	close(fds[0]);
	close(fds[1]);
	memcpy(l->efd, fds + 2, sizeof(l->efd));
	link_init(l, mem, sp[0], false);
	return 0;
fail:
	err = errno;
	if (mem != MAP_FAILED)
		munmap(mem, sizeof(struct wire_link_mem));
	close_fds(fds, WIRE_LINK_NR_FDS);
	if (sp[0] >= 0)
		close(sp[0]);
	return -err;
}

ssize_t wire_link_recv(int sock, void *buf, size_t size,
		       struct sockaddr_un *from, socklen_t *from_len,
		       int *fds, int *nfds)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(WIRE_LINK_NR_FDS * sizeof(int))];
	} c;
	struct iovec iov = { .iov_base = buf, .iov_len = size };
	struct msghdr mh = {
		.msg_name = from, .msg_namelen = *from_len,
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = c.buf, .msg_controllen = sizeof(c.buf),
	};
	struct cmsghdr *cm;
	ssize_t n;

	*nfds = 0;
	n = recvmsg(sock, &mh, MSG_DONTWAIT | MSG_TRUNC | MSG_CMSG_CLOEXEC);
	if (n < 0)
		return n;
	*from_len = mh.msg_namelen;
	for (cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm)) {
		size_t k;

		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
			continue;
		k = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		if (k > (size_t)(WIRE_LINK_NR_FDS - *nfds))
			k = WIRE_LINK_NR_FDS - *nfds;	/* cannot: controllen */
		memcpy(fds + *nfds, CMSG_DATA(cm), k * sizeof(int));
		*nfds += (int)k;
	}
	return n;
}

int wire_link_accept(struct wire_link *l, const void *msg, size_t len,
		     const int *fds, int nfds, bool mirror, uint32_t rate_mbps)
{
	uint8_t want[WIRE_LINK_MSG_LEN];
	struct stat st;
	void *mem;
	int err = EPROTO;

	build_msg(want);
	if (nfds != WIRE_LINK_NR_FDS || len != sizeof(want) ||
	    memcmp(msg, want, sizeof(want)))
		goto fail;
	if (fstat(fds[0], &st) || !S_ISREG(st.st_mode) ||
	    st.st_size < (off_t)sizeof(struct wire_link_mem))
		goto fail;
	mem = mmap(NULL, sizeof(struct wire_link_mem), PROT_READ | PROT_WRITE,
		   MAP_SHARED, fds[0], 0);
	if (mem == MAP_FAILED) {
		err = errno;
		goto fail;
	}
	__atomic_store_n(&((struct wire_link_mem *)mem)->rate_mbps, rate_mbps,
			 __ATOMIC_RELEASE);
	if (send(fds[1], "ok", 2, MSG_NOSIGNAL | MSG_DONTWAIT) != 2) {
		err = errno;
		munmap(mem, sizeof(struct wire_link_mem));
		goto fail;
	}
	close(fds[0]);
	memcpy(l->efd, fds + 2, sizeof(l->efd));
	link_init(l, mem, fds[1], mirror);
	return 0;
fail:
	close_fds(fds, nfds);
	return -err;
}

void wire_link_close(struct wire_link *l)
{
	if (!l->mem)
		return;
	munmap(l->mem, sizeof(struct wire_link_mem));
	l->mem = NULL;
	close(l->ctl);
	close_fds(l->efd, 2 * WIRE_LINK_NR_RINGS);
}

uint32_t wire_link_rate(const struct wire_link *l)
{
	return l->mem ? __atomic_load_n(&l->mem->rate_mbps, __ATOMIC_ACQUIRE) :
			0;
}

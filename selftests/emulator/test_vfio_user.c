// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the emulator's vfio-user server: a client written here
 * drives vfio_user.c's message handler over a socketpair, exactly as QEMU
 * would over the listening socket, against the real PCI function, DMA
 * table, MSI-X eventfds and engine.
 */
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "orca_hw.h"

#include "ktap.h"
#include "vfio/vfio_user.h"

#define NUM_MSIX	16

/* One adapter and one connection to it; @cfd is the client's end. */
struct tconn {
	struct vfu_device dev;
	struct vfu_conn conn;
	int cfd;
	uint16_t next_id;
};

/* The reply to the last request. */
struct treply {
	struct vfu_hdr hdr;
	uint8_t data[8192];
	size_t len;		/* payload bytes */
};

static int tconn_open(struct tconn *t, bool negotiate);

static int count_open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	int n = 0;

	if (!d)
		return -1;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

static void tconn_close(struct tconn *t)
{
	vfio_conn_destroy(&t->conn);
	vfio_device_destroy(&t->dev);
	if (t->cfd >= 0)
		close(t->cfd);
}

/* Send one message with optional descriptors; returns bytes sent. */
static ssize_t send_raw(int fd, const void *buf, size_t len, const int *fds,
			int nfds)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * 64)];
		struct cmsghdr align;
	} ctl;
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };

	if (nfds) {
		struct cmsghdr *cm;

		mh.msg_control = ctl.buf;
		mh.msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
		memcpy(CMSG_DATA(cm), fds, sizeof(int) * nfds);
	}
	return sendmsg(fd, &mh, MSG_NOSIGNAL);
}

static int send_cmd(struct tconn *t, uint16_t cmd, uint32_t flags,
		    const void *payload, size_t len, const int *fds, int nfds)
{
	static uint8_t buf[sizeof(struct vfu_hdr) + 4096];
	struct vfu_hdr h = {
		.id = ++t->next_id,
		.command = cmd,
		.size = sizeof(h) + len,
		.flags = flags,
	};

	if (len > sizeof(buf) - sizeof(h))
		return -1;
	memcpy(buf, &h, sizeof(h));
	if (len)
		memcpy(buf + sizeof(h), payload, len);
	return send_raw(t->cfd, buf, sizeof(h) + len, fds, nfds) ==
		(ssize_t)(sizeof(h) + len) ? 0 : -1;
}

/* Whether a reply (or anything) is waiting on the client socket. */
static bool reply_pending(struct tconn *t)
{
	char c;

	return recv(t->cfd, &c, 1, MSG_PEEK | MSG_DONTWAIT) == 1;
}

static int read_reply(struct tconn *t, struct treply *r)
{
	if (recv(t->cfd, &r->hdr, sizeof(r->hdr), MSG_WAITALL) !=
	    sizeof(r->hdr))
		return -1;
	r->len = r->hdr.size - sizeof(r->hdr);
	if (r->hdr.size < sizeof(r->hdr) || r->len > sizeof(r->data))
		return -1;
	if (r->len && recv(t->cfd, r->data, r->len, MSG_WAITALL) !=
	    (ssize_t)r->len)
		return -1;
	return 0;
}

/*
 * One request/reply round trip.  Returns the reply's error (0 for
 * success, a positive errno for an error reply) or -1 if the exchange
 * itself broke.
 */
static int rpc_fds(struct tconn *t, uint16_t cmd, const void *payload,
		   size_t len, const int *fds, int nfds, struct treply *r)
{
	struct treply scratch;

	if (!r)
		r = &scratch;
	if (send_cmd(t, cmd, 0, payload, len, fds, nfds))
		return -1;
	if (vfio_handle_message(&t->conn) != 1)
		return -1;
	if (read_reply(t, r))
		return -1;
	if (r->hdr.id != t->next_id || r->hdr.command != cmd ||
	    (r->hdr.flags & VFU_F_TYPE_MASK) != VFU_F_TYPE_REPLY)
		return -1;
	if (r->hdr.flags & VFU_F_ERROR)
		return r->hdr.error ? (int)r->hdr.error : -1;
	return 0;
}

static int rpc(struct tconn *t, uint16_t cmd, const void *payload,
	       size_t len, struct treply *r)
{
	return rpc_fds(t, cmd, payload, len, NULL, 0, r);
}

static int version(struct tconn *t, uint16_t major, const char *json,
		   size_t json_len, struct treply *r)
{
	uint8_t buf[512];
	struct vfu_version v = { .major = major, .minor = 0 };

	memcpy(buf, &v, sizeof(v));
	memcpy(buf + sizeof(v), json, json_len);
	return rpc(t, VFU_CMD_VERSION, buf, sizeof(v) + json_len, r);
}

static const char client_json[] =
	"{\"capabilities\":{\"max_msg_fds\":8,\"max_data_xfer_size\":1048576}}";

static int tconn_open(struct tconn *t, bool negotiate)
{
	struct emu_config cfg = {
		.mac = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 },
		.eth_mtu = 1500,
		.num_msix = NUM_MSIX,
	};
	int sv[2];

	memset(t, 0, sizeof(*t));
	t->cfd = -1;
	if (vfio_device_init(&t->dev, &cfg))
		return -1;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		return -1;
	if (vfio_conn_init(&t->conn, &t->dev, sv[0]))
		return -1;
	t->cfd = sv[1];
	if (negotiate &&
	    version(t, 0, client_json, sizeof(client_json), NULL))
		return -1;
	return 0;
}

static int region_read(struct tconn *t, uint32_t region, uint64_t off,
		       void *buf, uint32_t count)
{
	struct vfu_region_access ra = {
		.offset = off, .region = region, .count = count,
	};
	struct treply r;
	int ret;

	ret = rpc(t, VFU_CMD_REGION_READ, &ra, sizeof(ra), &r);
	if (ret)
		return ret;
	if (r.len != sizeof(ra) + count)
		return -1;
	memcpy(buf, r.data + sizeof(ra), count);
	return 0;
}

static int region_write(struct tconn *t, uint32_t region, uint64_t off,
			const void *buf, uint32_t count)
{
	uint8_t msg[sizeof(struct vfu_region_access) + 64];
	struct vfu_region_access ra = {
		.offset = off, .region = region, .count = count,
	};

	memcpy(msg, &ra, sizeof(ra));
	memcpy(msg + sizeof(ra), buf, count);
	return rpc(t, VFU_CMD_REGION_WRITE, msg, sizeof(ra) + count, NULL);
}

static uint32_t cfg_read32(struct tconn *t, uint32_t off)
{
	uint32_t v = 0xdeadbeef;

	region_read(t, PCI_REGION_CONFIG, off, &v, 4);
	return v;
}

static uint16_t cfg_read16(struct tconn *t, uint32_t off)
{
	uint16_t v = 0xdead;

	region_read(t, PCI_REGION_CONFIG, off, &v, 2);
	return v;
}

static uint8_t cfg_read8(struct tconn *t, uint32_t off)
{
	uint8_t v = 0xee;

	region_read(t, PCI_REGION_CONFIG, off, &v, 1);
	return v;
}

static void cfg_write32(struct tconn *t, uint32_t off, uint32_t v)
{
	region_write(t, PCI_REGION_CONFIG, off, &v, 4);
}

static int dma_map_msg(struct tconn *t, uint64_t addr, uint64_t size,
		       uint64_t offset, uint32_t flags, int fd)
{
	struct vfu_dma_map dm = {
		.argsz = sizeof(dm), .flags = flags, .offset = offset,
		.addr = addr, .size = size,
	};

	return rpc_fds(t, VFU_CMD_DMA_MAP, &dm, sizeof(dm), &fd,
		       fd >= 0 ? 1 : 0, NULL);
}

static int dma_unmap_msg(struct tconn *t, uint64_t addr, uint64_t size,
			 struct treply *r)
{
	struct vfu_dma_unmap du = {
		.argsz = sizeof(du), .addr = addr, .size = size,
	};

	return rpc(t, VFU_CMD_DMA_UNMAP, &du, sizeof(du), r);
}

static int set_irqs(struct tconn *t, uint32_t flags, uint32_t index,
		    uint32_t start, uint32_t count, const int *fds, int nfds)
{
	struct vfu_irq_set is = {
		.argsz = sizeof(is), .flags = flags, .index = index,
		.start = start, .count = count,
	};

	return rpc_fds(t, VFU_CMD_DEVICE_SET_IRQS, &is, sizeof(is), fds, nfds,
		       NULL);
}

/* The engine's view of guest memory, through the host ops it is given. */
static void *host_ptr(struct tconn *t, uint64_t addr, size_t len)
{
	return t->dev.host.ops->dma_ptr(t->dev.host.priv, addr, len);
}

/* ---- scenarios ---- */

static void test_version_good(void)
{
	struct tconn t;
	struct treply r;
	struct vfu_version v;
	const char *json;

	CHECK(tconn_open(&t, false) == 0);
	CHECK(version(&t, 0, client_json, sizeof(client_json), &r) == 0);
	CHECK(r.len > sizeof(v) + 1);
	memcpy(&v, r.data, sizeof(v));
	CHECK(v.major == 0 && v.minor == 0);
	json = (const char *)r.data + sizeof(v);
	CHECK(r.data[r.len - 1] == '\0');
	CHECK(strstr(json, "\"max_msg_fds\":16") != NULL);
	CHECK(strstr(json, "\"max_data_xfer_size\":1048576") != NULL);
	CHECK(strstr(json, "\"pgsizes\":4096") != NULL);
	CHECK(strstr(json, "write_multiple") == NULL);
	tconn_close(&t);
	ktap_case_end("version_negotiation");
}

static void test_version_bad(void)
{
	static const char unterminated[] = { '{', '}' };
	struct tconn t;
	struct treply r;

	CHECK(tconn_open(&t, false) == 0);
	CHECK(version(&t, 1, client_json, sizeof(client_json), &r) ==
	      ENOTSUP);
	CHECK(r.len == 0);
	CHECK(version(&t, 0, "", 0, &r) == EINVAL);		/* no JSON */
	CHECK(version(&t, 0, unterminated, sizeof(unterminated), &r) ==
	      EINVAL);
	/* A NUL inside the JSON. */
	CHECK(version(&t, 0, "{}\0{}", 6, &r) == EINVAL);
	/* Nothing else works before a successful VERSION. */
	CHECK(rpc(&t, VFU_CMD_DEVICE_RESET, NULL, 0, &r) == EINVAL);
	tconn_close(&t);
	ktap_case_end("version_rejects_bad_major_and_json");
}

static void test_dma_map_memfd(void)
{
	const size_t sz = 2 << 20;
	const uint64_t base = 0x100000;
	struct tconn t;
	uint8_t *mem, *p;
	int fd;

	CHECK(tconn_open(&t, true) == 0);
	fd = memfd_create("guest-ram", MFD_CLOEXEC);
	CHECK(fd >= 0 && ftruncate(fd, sz + 4096) == 0);
	mem = mmap(NULL, sz + 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(mem != MAP_FAILED);
	/* Guest RAM at file offset 4096, as QEMU does for later sections. */
	CHECK(dma_map_msg(&t, base, sz, 4096, VFU_DMA_F_READ | VFU_DMA_F_WRITE,
			  fd) == 0);
	close(fd);	/* the server keeps its own mapping */

	t.dev.host.ops->dma_begin(t.dev.host.priv);
	p = host_ptr(&t, base + 0x10, 8);
	CHECK(p != NULL);
	if (p && mem != MAP_FAILED) {
		memcpy(p, "engine!", 8);		/* device writes */
		CHECK(memcmp(mem + 4096 + 0x10, "engine!", 8) == 0);
		memcpy(mem + 4096 + sz - 4, "gst", 4);	/* guest writes */
		p = host_ptr(&t, base + sz - 4, 4);
		CHECK(p && memcmp(p, "gst", 4) == 0);
	}
	CHECK(host_ptr(&t, base, sz) != NULL);		/* all of it */
	t.dev.host.ops->dma_end(t.dev.host.priv);
	if (mem != MAP_FAILED)
		munmap(mem, sz + 4096);
	tconn_close(&t);
	ktap_case_end("dma_map_memfd_visible_through_host_ops");
}

static void test_dma_map_without_fd(void)
{
	struct tconn t;

	CHECK(tconn_open(&t, true) == 0);
	/* QEMU maps ROM sections without a descriptor: must succeed. */
	CHECK(dma_map_msg(&t, 0xfffc0000, 0x40000, 0, VFU_DMA_F_READ, -1) == 0);
	CHECK(host_ptr(&t, 0xfffc0000, 4) == NULL);
	/* An mmap access mode without a descriptor is invalid. */
	CHECK(dma_map_msg(&t, 0x10000000, 0x1000, 0,
			  VFU_DMA_F_READ | VFU_DMA_F_MMAP, -1) == EINVAL);
	/* Zero size and wrapping ranges. */
	CHECK(dma_map_msg(&t, 0x20000000, 0, 0, VFU_DMA_F_READ, -1) == EINVAL);
	CHECK(dma_map_msg(&t, ~0ULL - 0xfff, 0x2000, 0, VFU_DMA_F_READ, -1) ==
	      EINVAL);
	tconn_close(&t);
	ktap_case_end("dma_map_without_fd_is_recorded_unmapped");
}

static void test_dma_overlap_and_unmap(void)
{
	struct tconn t;
	struct treply r;
	struct vfu_dma_unmap du;
	int fd = memfd_create("ram", MFD_CLOEXEC);

	CHECK(tconn_open(&t, true) == 0);
	CHECK(fd >= 0 && ftruncate(fd, 0x10000) == 0);
	CHECK(dma_map_msg(&t, 0x10000, 0x10000, 0,
			  VFU_DMA_F_READ | VFU_DMA_F_WRITE, fd) == 0);
	CHECK(dma_map_msg(&t, 0x18000, 0x10000, 0,
			  VFU_DMA_F_READ | VFU_DMA_F_WRITE, fd) == EEXIST);
	CHECK(dma_map_msg(&t, 0x0, 0x10001, 0, VFU_DMA_F_READ, -1) == EEXIST);
	CHECK(dma_map_msg(&t, 0x20000, 0x1000, 0, VFU_DMA_F_READ, -1) == 0);

	/* Translations: inside, straddling the end, straddling a gap. */
	t.dev.host.ops->dma_begin(t.dev.host.priv);
	CHECK(host_ptr(&t, 0x10000, 0x10000) != NULL);
	CHECK(host_ptr(&t, 0x1fff0, 0x20) == NULL);
	CHECK(host_ptr(&t, 0xfff0, 0x20) == NULL);
	CHECK(host_ptr(&t, 0x30000, 4) == NULL);
	CHECK(host_ptr(&t, ~0ULL - 1, 4) == NULL);
	t.dev.host.ops->dma_end(t.dev.host.priv);

	/* Unmap must match a mapping exactly. */
	CHECK(dma_unmap_msg(&t, 0x10000, 0x8000, &r) == ENOENT);
	CHECK(dma_unmap_msg(&t, 0x10000, 0x10000, &r) == 0);
	CHECK(r.len == sizeof(du));
	memcpy(&du, r.data, sizeof(du));
	CHECK(du.addr == 0x10000 && du.size == 0x10000);
	t.dev.host.ops->dma_begin(t.dev.host.priv);
	CHECK(host_ptr(&t, 0x10000, 4) == NULL);
	t.dev.host.ops->dma_end(t.dev.host.priv);
	CHECK(dma_unmap_msg(&t, 0x10000, 0x10000, &r) == ENOENT);
	/* Now the space is free again. */
	CHECK(dma_map_msg(&t, 0x18000, 0x8000, 0,
			  VFU_DMA_F_READ | VFU_DMA_F_WRITE, fd) == 0);
	close(fd);
	tconn_close(&t);
	ktap_case_end("dma_overlap_rejected_and_unmap");
}

static void test_device_info(void)
{
	struct vfu_device_info di = { .argsz = sizeof(di) };
	struct tconn t;
	struct treply r;

	CHECK(tconn_open(&t, true) == 0);
	CHECK(rpc(&t, VFU_CMD_DEVICE_GET_INFO, &di, sizeof(di), &r) == 0);
	CHECK(r.len == sizeof(di));
	memcpy(&di, r.data, sizeof(di));
	CHECK(di.argsz == sizeof(di));
	CHECK(di.flags == (VFU_DEV_F_PCI | VFU_DEV_F_RESET));
	CHECK(di.num_regions == 9);
	CHECK(di.num_irqs == 5);
	tconn_close(&t);
	ktap_case_end("device_get_info");
}

static void test_region_info(void)
{
	static const uint64_t sizes[PCI_NUM_REGIONS] = {
		[0] = ORCA_BAR_REGS_SIZE, [2] = ORCA_BAR_MSIX_SIZE,
		[4] = ORCA_BAR_UAR_SIZE, [7] = 256,
	};
	struct vfu_region_info ri;
	struct tconn t;
	struct treply r;
	uint32_t i;

	CHECK(tconn_open(&t, true) == 0);
	for (i = 0; i < PCI_NUM_REGIONS; i++) {
		memset(&ri, 0, sizeof(ri));
		ri.argsz = sizeof(ri);
		ri.index = i;
		CHECK(rpc(&t, VFU_CMD_DEVICE_GET_REGION_INFO, &ri, sizeof(ri),
			  &r) == 0);
		CHECK(r.len == sizeof(ri));
		memcpy(&ri, r.data, sizeof(ri));
		CHECK(ri.index == i && ri.size == sizes[i]);
		CHECK(ri.flags == (sizes[i] ? PCI_REGION_F_READ |
				   PCI_REGION_F_WRITE : 0));
		CHECK(ri.cap_offset == 0);
	}
	ri.index = PCI_NUM_REGIONS;
	CHECK(rpc(&t, VFU_CMD_DEVICE_GET_REGION_INFO, &ri, sizeof(ri), &r) ==
	      EINVAL);
	tconn_close(&t);
	ktap_case_end("region_info_bars_and_config");
}

static void test_irq_info(void)
{
	struct vfu_irq_info ii;
	struct tconn t;
	struct treply r;
	uint32_t i;

	CHECK(tconn_open(&t, true) == 0);
	for (i = 0; i <= VFU_NUM_IRQS; i++) {
		memset(&ii, 0, sizeof(ii));
		ii.argsz = sizeof(ii);
		ii.index = i;
		if (i == VFU_NUM_IRQS) {
			CHECK(rpc(&t, VFU_CMD_DEVICE_GET_IRQ_INFO, &ii,
				  sizeof(ii), &r) == EINVAL);
			break;
		}
		CHECK(rpc(&t, VFU_CMD_DEVICE_GET_IRQ_INFO, &ii, sizeof(ii),
			  &r) == 0);
		memcpy(&ii, r.data, sizeof(ii));
		CHECK(ii.index == i);
		CHECK(ii.count == (i == VFU_IRQ_MSIX ? NUM_MSIX : 0));
		if (i == VFU_IRQ_MSIX)
			CHECK(ii.flags & VFU_IRQ_INFO_EVENTFD);
	}
	tconn_close(&t);
	ktap_case_end("irq_info_msix_err_req");
}

static void test_config_space(void)
{
	struct tconn t;
	uint8_t cap;
	uint32_t v;

	CHECK(tconn_open(&t, true) == 0);
	CHECK(cfg_read16(&t, 0x00) == ORCA_PCI_VENDOR_ID);
	CHECK(cfg_read16(&t, 0x02) == ORCA_PCI_DEVICE_ID);
	CHECK(cfg_read8(&t, 0x08) == ORCA_PCI_REVISION);
	CHECK((cfg_read32(&t, 0x08) >> 8) == ORCA_PCI_CLASS);
	CHECK(cfg_read16(&t, 0x2c) == ORCA_PCI_SUBSYS_VENDOR_ID);
	CHECK(cfg_read16(&t, 0x2e) == ORCA_PCI_SUBSYS_DEVICE_ID);
	CHECK(cfg_read8(&t, 0x0e) == 0);		/* header type 0 */
	CHECK(cfg_read16(&t, 0x06) & 0x10);		/* capability list */
	CHECK(cfg_read8(&t, 0x3d) == 0);		/* no INTx pin */

	/* Walk the capability chain to MSI-X. */
	cap = cfg_read8(&t, 0x34);
	while (cap && cfg_read8(&t, cap) != 0x11)
		cap = cfg_read8(&t, cap + 1);
	CHECK(cap != 0);
	if (cap) {
		CHECK((cfg_read16(&t, cap + 2) & 0x7ff) == NUM_MSIX - 1);
		CHECK(cfg_read32(&t, cap + 4) ==
		      (ORCA_MSIX_TABLE_OFFSET | ORCA_BAR_MSIX));
		CHECK(cfg_read32(&t, cap + 8) ==
		      (ORCA_MSIX_PBA_OFFSET | ORCA_BAR_MSIX));
		/* The guest can enable MSI-X but not resize the table. */
		v = 0x87ff;
		region_write(&t, PCI_REGION_CONFIG, cap + 2, &v, 2);
		CHECK(cfg_read16(&t, cap + 2) == (0x8000 | (NUM_MSIX - 1)));
		CHECK(vfio_pci_msix_enabled(&t.dev.pci));
	}

	/* Command register: memory + bus master stick, IDs do not change. */
	v = 0x0006;
	region_write(&t, PCI_REGION_CONFIG, 0x04, &v, 2);
	CHECK(cfg_read16(&t, 0x04) == 0x0006);
	cfg_write32(&t, 0x00, 0xffffffff);
	CHECK(cfg_read16(&t, 0x00) == ORCA_PCI_VENDOR_ID);

	/* No expansion ROM: sizing the ROM BAR reads 0. */
	cfg_write32(&t, 0x30, 0xffffffff);
	CHECK(cfg_read32(&t, 0x30) == 0);

	/* The whole space at once, as QEMU reads it; out of range fails. */
	{
		uint8_t all[256];

		CHECK(region_read(&t, PCI_REGION_CONFIG, 0, all, 256) == 0);
		CHECK(all[0] == (ORCA_PCI_VENDOR_ID & 0xff));
		CHECK(region_read(&t, PCI_REGION_CONFIG, 255, all, 2) ==
		      EINVAL);
	}
	tconn_close(&t);
	ktap_case_end("config_space_ids_and_msix_capability");
}

static void test_bar_sizing(void)
{
	static const struct {
		unsigned int bar;
		uint64_t size;
	} bars[] = {
		{ ORCA_BAR_REGS, ORCA_BAR_REGS_SIZE },
		{ ORCA_BAR_MSIX, ORCA_BAR_MSIX_SIZE },
		{ ORCA_BAR_UAR, ORCA_BAR_UAR_SIZE },
	};
	struct tconn t;
	unsigned int i;

	CHECK(tconn_open(&t, true) == 0);
	for (i = 0; i < 3; i++) {
		uint32_t lo = 0x10 + 4 * bars[i].bar;

		/* 64-bit, non-prefetchable memory. */
		CHECK(cfg_read32(&t, lo) == 0x4);
		cfg_write32(&t, lo, 0xffffffff);
		cfg_write32(&t, lo + 4, 0xffffffff);
		CHECK(cfg_read32(&t, lo) ==
		      ((~(uint32_t)(bars[i].size - 1)) | 0x4));
		CHECK(cfg_read32(&t, lo + 4) == 0xffffffff);
		cfg_write32(&t, lo, 0xfe000000 + 0x1000 * i);
		cfg_write32(&t, lo + 4, 0x1);
		CHECK(cfg_read32(&t, lo) ==
		      (((0xfe000000 + 0x1000 * i) &
			~(uint32_t)(bars[i].size - 1)) | 0x4));
		CHECK(cfg_read32(&t, lo + 4) == 0x1);
	}
	tconn_close(&t);
	ktap_case_end("bar_sizing_64bit");
}

static void test_bar0_reaches_engine(void)
{
	struct tconn t;
	uint32_t v = 0;

	CHECK(tconn_open(&t, true) == 0);
	CHECK(region_read(&t, ORCA_BAR_REGS, ORCA_REG_MAGIC, &v, 4) == 0);
	CHECK(v == ORCA_MAGIC);
	/* Aligned dwords only, inside the BAR. */
	CHECK(region_read(&t, ORCA_BAR_REGS, 2, &v, 4) == EINVAL);
	CHECK(region_read(&t, ORCA_BAR_REGS, 0, &v, 3) == EINVAL);
	CHECK(region_read(&t, ORCA_BAR_REGS, ORCA_BAR_REGS_SIZE, &v, 4) ==
	      EINVAL);
	CHECK(region_read(&t, ORCA_BAR_REGS, ~0ULL - 3, &v, 4) == EINVAL);
	/* Upper halves of 64-bit BARs, ROM and VGA have no space. */
	CHECK(region_read(&t, 1, 0, &v, 4) == EINVAL);
	CHECK(region_read(&t, PCI_REGION_ROM, 0, &v, 4) == EINVAL);
	CHECK(region_read(&t, PCI_REGION_VGA, 0, &v, 4) == EINVAL);
	CHECK(region_read(&t, 42, 0, &v, 4) == EINVAL);
	/* The PBA reads as nothing pending; doorbells accept writes. */
	v = 0xffffffff;
	CHECK(region_read(&t, ORCA_BAR_MSIX, ORCA_MSIX_PBA_OFFSET, &v, 4) ==
	      0);
	CHECK(v == 0);
	v = 0;
	CHECK(region_write(&t, ORCA_BAR_UAR, 3 * ORCA_UAR_PAGE_SIZE +
			   ORCA_UAR_CQ_DB, &v, 4) == 0);
	CHECK(region_write(&t, ORCA_BAR_UAR, ORCA_BAR_UAR_SIZE, &v, 4) ==
	      EINVAL);
	tconn_close(&t);
	ktap_case_end("bar0_register_read_reaches_engine");
}

static void test_posted_write(void)
{
	uint8_t msg[sizeof(struct vfu_region_access) + 4];
	struct vfu_region_access ra = {
		.offset = ORCA_REG_CMDQ_BASE_LO, .region = ORCA_BAR_REGS,
		.count = 4,
	};
	uint32_t v = 0x12345000;
	struct tconn t;

	CHECK(tconn_open(&t, true) == 0);
	memcpy(msg, &ra, sizeof(ra));
	memcpy(msg + sizeof(ra), &v, 4);
	CHECK(send_cmd(&t, VFU_CMD_REGION_WRITE, VFU_F_NO_REPLY, msg,
		       sizeof(msg), NULL, 0) == 0);
	CHECK(vfio_handle_message(&t.conn) == 1);
	CHECK(!reply_pending(&t));
	/* A failing posted write is not answered either. */
	ra.offset = 0x2000;
	memcpy(msg, &ra, sizeof(ra));
	CHECK(send_cmd(&t, VFU_CMD_REGION_WRITE, VFU_F_NO_REPLY, msg,
		       sizeof(msg), NULL, 0) == 0);
	CHECK(vfio_handle_message(&t.conn) == 1);
	CHECK(!reply_pending(&t));
	/* The next request's reply is the next thing on the socket. */
	engine_flush(t.dev.eng);
	v = 0;
	CHECK(region_read(&t, ORCA_BAR_REGS, ORCA_REG_CMDQ_BASE_LO, &v, 4) ==
	      0);
	CHECK(v == 0x12345000);
	tconn_close(&t);
	ktap_case_end("posted_write_gets_no_reply");
}

static uint64_t eventfd_count(int efd)
{
	uint64_t v = 0;

	if (read(efd, &v, sizeof(v)) != sizeof(v))
		return 0;
	return v;
}

static void test_set_irqs(void)
{
	const uint32_t trig_fd = VFU_IRQ_SET_DATA_EVENTFD |
				 VFU_IRQ_SET_ACTION_TRIGGER;
	int efd[2], bad[3];
	struct tconn t;
	int nfd_before, i;

	CHECK(tconn_open(&t, true) == 0);
	nfd_before = count_open_fds();
	for (i = 0; i < 2; i++)
		efd[i] = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);

	/* QEMU: enable with one vector and no fd, then assign one by one. */
	CHECK(set_irqs(&t, trig_fd, VFU_IRQ_MSIX, 0, 1, NULL, 0) == 0);
	CHECK(set_irqs(&t, trig_fd, VFU_IRQ_MSIX, 3, 2, efd, 2) == 0);
	t.dev.host.ops->irq_raise(t.dev.host.priv, 4);
	CHECK(eventfd_count(efd[1]) == 1);
	CHECK(eventfd_count(efd[0]) == 0);
	t.dev.host.ops->irq_raise(t.dev.host.priv, 3);
	t.dev.host.ops->irq_raise(t.dev.host.priv, 3);
	CHECK(eventfd_count(efd[0]) == 2);
	/* Vectors without an eventfd and out of range are ignored. */
	t.dev.host.ops->irq_raise(t.dev.host.priv, 0);
	t.dev.host.ops->irq_raise(t.dev.host.priv, 1000);

	/* The client may trigger a vector itself. */
	CHECK(set_irqs(&t, VFU_IRQ_SET_DATA_NONE | VFU_IRQ_SET_ACTION_TRIGGER,
		       VFU_IRQ_MSIX, 3, 1, NULL, 0) == 0);
	CHECK(eventfd_count(efd[0]) == 1);
	/* Mask/unmask are accepted and change nothing here. */
	CHECK(set_irqs(&t, VFU_IRQ_SET_DATA_NONE | VFU_IRQ_SET_ACTION_MASK,
		       VFU_IRQ_MSIX, 3, 1, NULL, 0) == 0);
	CHECK(set_irqs(&t, VFU_IRQ_SET_DATA_NONE | VFU_IRQ_SET_ACTION_UNMASK,
		       VFU_IRQ_MSIX, 3, 1, NULL, 0) == 0);

	/* A run of -1 fds: count without descriptors de-assigns. */
	CHECK(set_irqs(&t, trig_fd, VFU_IRQ_MSIX, 4, 1, NULL, 0) == 0);
	t.dev.host.ops->irq_raise(t.dev.host.priv, 4);
	CHECK(eventfd_count(efd[1]) == 0);

	/* Bad requests. */
	bad[0] = eventfd(0, EFD_CLOEXEC);
	bad[1] = eventfd(0, EFD_CLOEXEC);
	bad[2] = eventfd(0, EFD_CLOEXEC);
	CHECK(set_irqs(&t, trig_fd, VFU_IRQ_MSIX, 0, 3, bad, 2) == EINVAL);
	CHECK(set_irqs(&t, trig_fd, VFU_IRQ_MSIX, NUM_MSIX - 1, 2, bad, 2) ==
	      EINVAL);
	CHECK(set_irqs(&t, trig_fd, VFU_IRQ_MSIX, 0xffffffff, 2, NULL, 0) ==
	      EINVAL);
	CHECK(set_irqs(&t, trig_fd, VFU_IRQ_INTX, 0, 1, bad, 1) == EINVAL);
	CHECK(set_irqs(&t, trig_fd | VFU_IRQ_SET_DATA_NONE, VFU_IRQ_MSIX, 0, 1,
		       NULL, 0) == EINVAL);
	CHECK(set_irqs(&t, VFU_IRQ_SET_DATA_NONE, VFU_IRQ_MSIX, 0, 1, NULL,
		       0) == EINVAL);
	CHECK(set_irqs(&t, VFU_IRQ_SET_DATA_NONE | VFU_IRQ_SET_ACTION_TRIGGER,
		       VFU_IRQ_MSIX, 0, 1, bad, 1) == EINVAL);
	CHECK(set_irqs(&t, trig_fd, VFU_NUM_IRQS, 0, 0, NULL, 0) == EINVAL);
	for (i = 0; i < 3; i++)
		close(bad[i]);

	/* DATA_NONE with count 0 disables the whole index. */
	CHECK(set_irqs(&t, VFU_IRQ_SET_DATA_NONE | VFU_IRQ_SET_ACTION_TRIGGER,
		       VFU_IRQ_MSIX, 0, 0, NULL, 0) == 0);
	t.dev.host.ops->irq_raise(t.dev.host.priv, 3);
	CHECK(eventfd_count(efd[0]) == 0);
	for (i = 0; i < 2; i++)
		close(efd[i]);
	/* Every descriptor the server got was closed or is still held. */
	CHECK(count_open_fds() == nfd_before);
	tconn_close(&t);
	ktap_case_end("set_irqs_eventfd_raise_and_deassign");
}

static void test_truncated_messages(void)
{
	static const struct {
		uint16_t cmd;
		size_t full;
	} cmds[] = {
		{ VFU_CMD_DMA_MAP, sizeof(struct vfu_dma_map) },
		{ VFU_CMD_DMA_UNMAP, sizeof(struct vfu_dma_unmap) },
		{ VFU_CMD_DEVICE_GET_INFO, sizeof(struct vfu_device_info) },
		{ VFU_CMD_DEVICE_GET_REGION_INFO,
		  sizeof(struct vfu_region_info) },
		{ VFU_CMD_DEVICE_GET_IRQ_INFO, sizeof(struct vfu_irq_info) },
		{ VFU_CMD_DEVICE_SET_IRQS, sizeof(struct vfu_irq_set) },
		{ VFU_CMD_REGION_READ, sizeof(struct vfu_region_access) },
		{ VFU_CMD_REGION_WRITE, sizeof(struct vfu_region_access) },
		{ VFU_CMD_VERSION, sizeof(struct vfu_version) },
	};
	uint8_t junk[64];
	struct treply r;
	struct tconn t;
	unsigned int i;
	size_t len;

	memset(junk, 0xff, sizeof(junk));
	CHECK(tconn_open(&t, true) == 0);
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		for (len = 0; len < cmds[i].full; len++)
			CHECK(rpc(&t, cmds[i].cmd, junk, len, &r) == EINVAL);
	/* A reset carries no payload. */
	CHECK(rpc(&t, VFU_CMD_DEVICE_RESET, junk, 4, &r) == EINVAL);
	/* A REGION_WRITE whose count disagrees with its data. */
	{
		uint8_t msg[sizeof(struct vfu_region_access) + 4] = { 0 };
		struct vfu_region_access ra = {
			.offset = 0, .region = PCI_REGION_CONFIG, .count = 8,
		};

		memcpy(msg, &ra, sizeof(ra));
		CHECK(rpc(&t, VFU_CMD_REGION_WRITE, msg, sizeof(msg), &r) ==
		      EINVAL);
		ra.count = VFU_MAX_DATA_XFER + 1;
		CHECK(rpc(&t, VFU_CMD_REGION_READ, &ra, sizeof(ra), &r) ==
		      EINVAL);
	}
	/* Argsz smaller than the structure. */
	{
		struct vfu_device_info di = { .argsz = 8 };

		CHECK(rpc(&t, VFU_CMD_DEVICE_GET_INFO, &di, sizeof(di), &r) ==
		      EINVAL);
	}
	/* After all that the connection still works. */
	CHECK(rpc(&t, VFU_CMD_DEVICE_RESET, NULL, 0, &r) == 0);
	tconn_close(&t);
	ktap_case_end("truncated_messages_of_every_command");
}

/* Send just a header; the server must hang up, not crash or wait. */
static int lying_header(uint32_t size)
{
	struct vfu_hdr h = { .id = 1, .command = VFU_CMD_DEVICE_GET_INFO,
			     .size = size };
	struct tconn t;
	int ret;

	if (tconn_open(&t, true))
		return 99;
	if (send_raw(t.cfd, &h, sizeof(h), NULL, 0) != sizeof(h))
		return 99;
	ret = vfio_handle_message(&t.conn);
	tconn_close(&t);
	return ret;
}

static void test_header_lies(void)
{
	struct vfu_hdr h = { .id = 1, .command = VFU_CMD_DEVICE_GET_INFO,
			     .size = 100 };
	struct tconn t;

	CHECK(lying_header(0) < 0);
	CHECK(lying_header(15) < 0);
	CHECK(lying_header(VFU_MAX_MSG + 1) < 0);
	CHECK(lying_header(0xffffffff) < 0);

	/* EOF inside a message. */
	CHECK(tconn_open(&t, true) == 0);
	CHECK(send_raw(t.cfd, &h, sizeof(h), NULL, 0) == sizeof(h));
	shutdown(t.cfd, SHUT_WR);
	CHECK(vfio_handle_message(&t.conn) < 0);
	tconn_close(&t);

	/* EOF inside a header. */
	CHECK(tconn_open(&t, true) == 0);
	CHECK(send_raw(t.cfd, &h, 7, NULL, 0) == 7);
	shutdown(t.cfd, SHUT_WR);
	CHECK(vfio_handle_message(&t.conn) < 0);
	tconn_close(&t);

	/* A clean close between messages. */
	CHECK(tconn_open(&t, true) == 0);
	shutdown(t.cfd, SHUT_WR);
	CHECK(vfio_handle_message(&t.conn) == 0);
	tconn_close(&t);
	ktap_case_end("header_size_lies_disconnect");
}

static void test_too_many_fds(void)
{
	struct vfu_device_info di = { .argsz = sizeof(di) };
	struct vfu_region_access ra = {
		.offset = 0, .region = PCI_REGION_CONFIG, .count = 4,
	};
	struct tconn t;
	struct treply r;
	int fds[VFU_MAX_FDS + 1];
	int i, before;

	CHECK(tconn_open(&t, true) == 0);
	for (i = 0; i <= VFU_MAX_FDS; i++)
		fds[i] = eventfd(0, EFD_CLOEXEC);
	before = count_open_fds();
	CHECK(rpc_fds(&t, VFU_CMD_DEVICE_GET_INFO, &di, sizeof(di), fds,
		      VFU_MAX_FDS + 1, &r) == EINVAL);
	/* Commands that take no descriptor reject one. */
	CHECK(rpc_fds(&t, VFU_CMD_REGION_READ, &ra, sizeof(ra), fds, 1, &r) ==
	      EINVAL);
	CHECK(rpc_fds(&t, VFU_CMD_DEVICE_GET_INFO, &di, sizeof(di), fds, 1,
		      &r) == EINVAL);
	/* DMA_MAP takes at most one. */
	{
		struct vfu_dma_map dm = {
			.argsz = sizeof(dm), .flags = VFU_DMA_F_READ,
			.addr = 0x1000, .size = 0x1000,
		};

		CHECK(rpc_fds(&t, VFU_CMD_DMA_MAP, &dm, sizeof(dm), fds, 2,
			      &r) == EINVAL);
	}
	/* The server closed every descriptor it received. */
	CHECK(count_open_fds() == before);
	for (i = 0; i <= VFU_MAX_FDS; i++)
		close(fds[i]);
	CHECK(rpc(&t, VFU_CMD_DEVICE_GET_INFO, &di, sizeof(di), &r) == 0);
	tconn_close(&t);
	ktap_case_end("too_many_fds_rejected_and_closed");
}

static void test_unknown_command(void)
{
	struct tconn t;
	struct treply r;
	uint8_t junk[32] = { 0 };

	CHECK(tconn_open(&t, true) == 0);
	CHECK(rpc(&t, 99, NULL, 0, &r) == ENOSYS);
	CHECK(rpc(&t, 0, NULL, 0, &r) == ENOSYS);
	CHECK(rpc(&t, 0xffff, junk, sizeof(junk), &r) == ENOSYS);
	CHECK(rpc(&t, VFU_CMD_DEVICE_GET_REGION_IO_FDS, junk, 16, &r) ==
	      ENOSYS);
	CHECK(rpc(&t, VFU_CMD_DMA_READ, junk, sizeof(junk), &r) == ENOSYS);
	CHECK(r.len == 0);
	/* A reply from the client is dropped without an answer. */
	{
		struct vfu_hdr h = { .id = 7, .command = VFU_CMD_DMA_READ,
				     .size = sizeof(h),
				     .flags = VFU_F_TYPE_REPLY };

		CHECK(send_raw(t.cfd, &h, sizeof(h), NULL, 0) == sizeof(h));
		CHECK(vfio_handle_message(&t.conn) == 1);
		CHECK(!reply_pending(&t));
	}
	tconn_close(&t);
	ktap_case_end("unknown_command_enosys");
}

static void test_device_reset(void)
{
	struct tconn t;
	struct treply r;
	uint32_t v = 0;

	CHECK(tconn_open(&t, true) == 0);
	CHECK(rpc(&t, VFU_CMD_DEVICE_RESET, NULL, 0, &r) == 0);
	CHECK(r.len == 0);
	CHECK(region_read(&t, ORCA_BAR_REGS, ORCA_REG_MAGIC, &v, 4) == 0);
	CHECK(v == ORCA_MAGIC);
	tconn_close(&t);
	ktap_case_end("device_reset");
}

int main(void)
{
	ktap_plan(18);
	test_version_good();
	test_version_bad();
	test_dma_map_memfd();
	test_dma_map_without_fd();
	test_dma_overlap_and_unmap();
	test_device_info();
	test_region_info();
	test_irq_info();
	test_config_space();
	test_bar_sizing();
	test_bar0_reaches_engine();
	test_posted_write();
	test_set_irqs();
	test_truncated_messages();
	test_header_lies();
	test_too_many_fds();
	test_unknown_command();
	test_device_reset();
	return ktap_finish();
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The vfio-user protocol server (see vfio_user.h): message framing with
 * file descriptors, validation of every length a client sends, one handler
 * per command, and the host services (DMA, interrupts) the engine uses.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "orca_hw.h"

#include "util/log.h"
#include "vfio_user.h"

#define HDR_SIZE	sizeof(struct vfu_hdr)

/* ---- the engine's host services ---- */

static void host_dma_begin(void *priv)
{
	struct vfu_device *d = priv;

	vfio_dma_begin(&d->dma);
}

static void host_dma_end(void *priv)
{
	struct vfu_device *d = priv;

	vfio_dma_end(&d->dma);
}

static void *host_dma_ptr(void *priv, uint64_t addr, size_t len)
{
	struct vfu_device *d = priv;

	return vfio_dma_translate(&d->dma, addr, len);
}

static void host_irq_raise(void *priv, unsigned int vector)
{
	struct vfu_device *d = priv;

	vfio_irq_raise(&d->irq, vector);
}

static const struct emu_host_ops vfu_host_ops = {
	.dma_begin = host_dma_begin,
	.dma_end = host_dma_end,
	.dma_ptr = host_dma_ptr,
	.irq_raise = host_irq_raise,
};

int vfio_device_init(struct vfu_device *d, const struct emu_config *cfg)
{
	int ret;

	memset(d, 0, sizeof(*d));
	d->cfg = *cfg;
	if (!d->cfg.num_msix || d->cfg.num_msix > ORCA_MAX_MSIX)
		return -EINVAL;
	ret = vfio_dma_table_init(&d->dma);
	if (ret)
		return ret;
	ret = vfio_irq_table_init(&d->irq, d->cfg.num_msix);
	if (ret)
		goto err_dma;
	d->host.ops = &vfu_host_ops;
	d->host.priv = d;
	d->eng = engine_create(&d->host, &d->cfg);
	if (!d->eng) {
		ret = -ENOMEM;
		goto err_irq;
	}
	vfio_pci_func_init(&d->pci, d->eng, d->cfg.num_msix);
	return 0;

err_irq:
	vfio_irq_table_destroy(&d->irq);
err_dma:
	vfio_dma_table_destroy(&d->dma);
	return ret;
}

void vfio_device_destroy(struct vfu_device *d)
{
	/* The engine goes first: it may still hold mappings and vectors. */
	if (d->eng)
		engine_destroy(d->eng);
	d->eng = NULL;
	vfio_irq_table_destroy(&d->irq);
	vfio_dma_table_destroy(&d->dma);
}

/* ---- connection and framing ---- */

int vfio_conn_init(struct vfu_conn *c, struct vfu_device *d, int fd)
{
	memset(c, 0, sizeof(*c));
	c->fd = fd;
	c->dev = d;
	c->rx = malloc(VFU_MAX_MSG);
	c->tx = malloc(VFU_MAX_MSG);
	if (!c->rx || !c->tx) {
		free(c->rx);
		free(c->tx);
		c->rx = c->tx = NULL;
		return -ENOMEM;
	}
	return 0;
}

void vfio_conn_destroy(struct vfu_conn *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	free(c->rx);
	free(c->tx);
	c->rx = c->tx = NULL;
}

/* File descriptors that came with the message being handled. */
struct vfu_fds {
	int fd[VFU_MAX_FDS];
	int nr;
	bool overflow;	/* the client sent more than VFU_MAX_FDS */
};

static void fds_close(struct vfu_fds *f)
{
	int i;

	for (i = 0; i < f->nr; i++)
		if (f->fd[i] >= 0)
			close(f->fd[i]);
	f->nr = 0;
}

static void fds_collect(struct vfu_fds *f, struct msghdr *mh)
{
	struct cmsghdr *cm;

	if (mh->msg_flags & MSG_CTRUNC)
		f->overflow = true;
	for (cm = CMSG_FIRSTHDR(mh); cm; cm = CMSG_NXTHDR(mh, cm)) {
		int n, i, *p;

		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
			continue;
		n = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		p = (int *)CMSG_DATA(cm);
		for (i = 0; i < n; i++) {
			int fd;

			memcpy(&fd, &p[i], sizeof(fd));
			if (f->nr < VFU_MAX_FDS) {
				f->fd[f->nr++] = fd;
			} else {
				close(fd);
				f->overflow = true;
			}
		}
	}
}

/*
 * Read exactly @len bytes, collecting descriptors on the way.  Returns
 * @len, 0 on EOF before the first byte, -EPIPE on EOF after it, -errno.
 */
static ssize_t recv_full(int fd, void *buf, size_t len, struct vfu_fds *fds)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * VFU_MAX_FDS)];
		struct cmsghdr align;
	} ctl;
	size_t got = 0;

	while (got < len) {
		struct iovec iov = {
			.iov_base = (char *)buf + got,
			.iov_len = len - got,
		};
		struct msghdr mh = {
			.msg_iov = &iov,
			.msg_iovlen = 1,
			.msg_control = ctl.buf,
			.msg_controllen = sizeof(ctl.buf),
		};
		ssize_t n = recvmsg(fd, &mh, MSG_CMSG_CLOEXEC);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		fds_collect(fds, &mh);
		if (n == 0)
			return got ? -EPIPE : 0;
		got += n;
	}
	return got;
}

static int send_full(int fd, const void *buf, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = send(fd, (const char *)buf + done, len - done,
				 MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		done += n;
	}
	return 0;
}

/* ---- command handlers ---- */

/*
 * A received command.  A handler reads @data (exactly @len bytes, already
 * inside the receive buffer), may take descriptors out of @fds (setting
 * them to -1), writes its reply payload to @out and returns its length, or
 * returns -errno for an error reply.
 */
struct vfu_msg {
	const struct vfu_hdr *hdr;
	const uint8_t *data;
	size_t len;
	struct vfu_fds *fds;
	uint8_t *out;
};

static const char vfu_caps_json[] =
	"{\"capabilities\":{\"max_msg_fds\":16,"
	"\"max_data_xfer_size\":1048576,\"pgsizes\":4096}}";

static int handle_version(struct vfu_conn *c, struct vfu_msg *m)
{
	struct vfu_version v, reply = { 0, 0 };
	const char *json;
	size_t jlen;

	if (m->len < sizeof(v) + 1)
		return -EINVAL;	/* the JSON (at least "") is required */
	memcpy(&v, m->data, sizeof(v));
	if (v.major != 0) {
		emu_log_guest("vfio-user: client wants major version %u, we speak 0",
			v.major);
		return -ENOTSUP;
	}
	json = (const char *)m->data + sizeof(v);
	jlen = m->len - sizeof(v);
	if (json[jlen - 1] != '\0' || strlen(json) != jlen - 1)
		return -EINVAL;
	/* We need none of the client's capabilities; log them. */
	emu_dbg("vfio-user: client version %u.%u caps %s", v.major, v.minor,
		json);

	memcpy(m->out, &reply, sizeof(reply));
	memcpy(m->out + sizeof(reply), vfu_caps_json, sizeof(vfu_caps_json));
	c->negotiated = true;
	return sizeof(reply) + sizeof(vfu_caps_json);
}

static int handle_dma_map(struct vfu_conn *c, struct vfu_msg *m)
{
	struct vfu_dma_map dm;
	uint32_t prot = 0;
	int fd = -1, ret;

	if (m->len != sizeof(dm))
		return -EINVAL;
	memcpy(&dm, m->data, sizeof(dm));
	if (dm.argsz < sizeof(dm) || m->fds->nr > 1)
		return -EINVAL;
	if (dm.flags & ~(VFU_DMA_F_READ | VFU_DMA_F_WRITE | VFU_DMA_F_MMAP |
			 VFU_DMA_F_FILE_IO))
		return -EINVAL;
	if (m->fds->nr == 1) {
		fd = m->fds->fd[0];
	} else if (dm.flags & (VFU_DMA_F_MMAP | VFU_DMA_F_FILE_IO)) {
		return -EINVAL;	/* an access mode needs a descriptor */
	}
	if (dm.flags & VFU_DMA_F_READ)
		prot |= DMA_PROT_READ;
	if (dm.flags & VFU_DMA_F_WRITE)
		prot |= DMA_PROT_WRITE;

	/* The mapping keeps its own reference; the fd is closed after. */
	ret = vfio_dma_map(&c->dev->dma, dm.addr, dm.size, dm.offset, prot, fd);
	if (ret)
		emu_log_guest("vfio-user: DMA_MAP [%#llx, +%#llx) failed: %s",
			(unsigned long long)dm.addr,
			(unsigned long long)dm.size, strerror(-ret));
	return ret;
}

static int handle_dma_unmap(struct vfu_conn *c, struct vfu_msg *m)
{
	struct vfu_dma_unmap du;
	int ret;

	if (m->len != sizeof(du) || m->fds->nr)
		return -EINVAL;
	memcpy(&du, m->data, sizeof(du));
	if (du.argsz < sizeof(du))
		return -EINVAL;
	if (du.flags & VFU_DMA_UNMAP_F_DIRTY_BITMAP)
		return -ENOTSUP;	/* no migration */
	if (du.flags & ~VFU_DMA_UNMAP_F_ALL)
		return -EINVAL;
	if (du.flags & VFU_DMA_UNMAP_F_ALL) {
		if (du.addr || du.size)
			return -EINVAL;
		vfio_dma_unmap_all(&c->dev->dma);
	} else {
		ret = vfio_dma_unmap(&c->dev->dma, du.addr, du.size);
		if (ret)
			return ret;
	}
	du.argsz = sizeof(du);
	memcpy(m->out, &du, sizeof(du));
	return sizeof(du);
}

static int handle_get_info(struct vfu_conn *c, struct vfu_msg *m)
{
	struct vfu_device_info info;

	if (m->len != sizeof(info))
		return -EINVAL;
	memcpy(&info, m->data, sizeof(info));
	if (info.argsz < sizeof(info))
		return -EINVAL;
	info.argsz = sizeof(info);
	info.flags = VFU_DEV_F_RESET | VFU_DEV_F_PCI;
	info.num_regions = PCI_NUM_REGIONS;
	info.num_irqs = VFU_NUM_IRQS;
	memcpy(m->out, &info, sizeof(info));
	return sizeof(info);
}

static int handle_region_info(struct vfu_conn *c, struct vfu_msg *m)
{
	struct vfu_region_info ri;
	uint64_t size;
	uint32_t flags;

	if (m->len != sizeof(ri))
		return -EINVAL;
	memcpy(&ri, m->data, sizeof(ri));
	if (ri.argsz < sizeof(ri))
		return -EINVAL;
	if (vfio_pci_region_info(&c->dev->pci, ri.index, &size, &flags))
		return -EINVAL;
	ri.argsz = sizeof(ri);
	ri.flags = flags;
	ri.cap_offset = 0;
	ri.size = size;
	ri.offset = 0;		/* not mappable: no file offset */
	memcpy(m->out, &ri, sizeof(ri));
	return sizeof(ri);
}

static uint32_t irq_count(struct vfu_conn *c, uint32_t index)
{
	return index == VFU_IRQ_MSIX ? c->dev->irq.nr : 0;
}

static int handle_irq_info(struct vfu_conn *c, struct vfu_msg *m)
{
	struct vfu_irq_info ii;

	if (m->len != sizeof(ii))
		return -EINVAL;
	memcpy(&ii, m->data, sizeof(ii));
	if (ii.argsz < sizeof(ii) || ii.index >= VFU_NUM_IRQS)
		return -EINVAL;
	ii.argsz = sizeof(ii);
	/*
	 * Not NORESIZE: QEMU then enables MSI-X once and adds vectors one by
	 * one as the guest unmasks them, instead of re-enabling each time.
	 */
	ii.flags = ii.index == VFU_IRQ_MSIX ? VFU_IRQ_INFO_EVENTFD : 0;
	ii.count = irq_count(c, ii.index);
	memcpy(m->out, &ii, sizeof(ii));
	return sizeof(ii);
}

static int is_one_bit(uint32_t v)
{
	return v && !(v & (v - 1));
}

static int set_irqs_trigger(struct vfu_conn *c, struct vfu_msg *m,
			    const struct vfu_irq_set *is, const uint8_t *bools)
{
	struct irq_table *irq = &c->dev->irq;
	uint32_t i;

	switch (is->flags & VFU_IRQ_SET_DATA_MASK) {
	case VFU_IRQ_SET_DATA_NONE:
		if (!is->count) {
			/* disable the index */
			vfio_irq_release_all(irq);
			return 0;
		}
		for (i = 0; i < is->count; i++)
			vfio_irq_raise(irq, is->start + i);
		return 0;
	case VFU_IRQ_SET_DATA_BOOL:
		for (i = 0; i < is->count; i++)
			if (bools[i])
				vfio_irq_raise(irq, is->start + i);
		return 0;
	default: /* EVENTFD: one fd per vector, or none to de-assign */
		for (i = 0; i < is->count; i++) {
			int fd = -1;

			if (m->fds->nr) {
				fd = m->fds->fd[i];
				m->fds->fd[i] = -1;
			}
			vfio_irq_assign(irq, is->start + i, fd);
		}
		return 0;
	}
}

static int handle_set_irqs(struct vfu_conn *c, struct vfu_msg *m)
{
	struct vfu_irq_set is;
	uint32_t data, action;
	size_t want = sizeof(is);

	if (m->len < sizeof(is))
		return -EINVAL;
	memcpy(&is, m->data, sizeof(is));
	data = is.flags & VFU_IRQ_SET_DATA_MASK;
	action = is.flags & VFU_IRQ_SET_ACTION_MASK_ALL;
	if (is.argsz < sizeof(is) || is.index >= VFU_NUM_IRQS ||
	    is.flags != (data | action) ||
	    !is_one_bit(data) || !is_one_bit(action))
		return -EINVAL;
	if (data == VFU_IRQ_SET_DATA_BOOL)
		want += is.count;
	if (m->len != want)
		return -EINVAL;
	if (data == VFU_IRQ_SET_DATA_EVENTFD) {
		if (m->fds->nr && (uint32_t)m->fds->nr != is.count)
			return -EINVAL;
	} else if (m->fds->nr) {
		return -EINVAL;
	}
	/* "count 0 with DATA_NONE" disables the index; else in range. */
	if (is.start > irq_count(c, is.index) ||
	    is.count > irq_count(c, is.index) - is.start)
		return -EINVAL;

	/*
	 * QEMU emulates the MSI-X table and masks vectors itself: masks and
	 * unmasks need no action here, and other indexes have no vectors.
	 */
	if (action != VFU_IRQ_SET_ACTION_TRIGGER || is.index != VFU_IRQ_MSIX)
		return 0;
	return set_irqs_trigger(c, m, &is, m->data + sizeof(is));
}

static int handle_region_read(struct vfu_conn *c, struct vfu_msg *m)
{
	struct vfu_region_access ra;
	int ret;

	if (m->len != sizeof(ra) || m->fds->nr)
		return -EINVAL;
	memcpy(&ra, m->data, sizeof(ra));
	if (ra.count > VFU_MAX_DATA_XFER)
		return -EINVAL;
	ret = vfio_pci_region_read(&c->dev->pci, ra.region, ra.offset,
				   m->out + sizeof(ra), ra.count);
	if (ret)
		return ret;
	memcpy(m->out, &ra, sizeof(ra));
	return sizeof(ra) + ra.count;
}

static int handle_region_write(struct vfu_conn *c, struct vfu_msg *m)
{
	struct vfu_region_access ra;
	int ret;

	if (m->len < sizeof(ra) || m->fds->nr)
		return -EINVAL;
	memcpy(&ra, m->data, sizeof(ra));
	if (ra.count > VFU_MAX_DATA_XFER || ra.count != m->len - sizeof(ra))
		return -EINVAL;
	ret = vfio_pci_region_write(&c->dev->pci, ra.region, ra.offset,
				    m->data + sizeof(ra), ra.count);
	if (ret)
		return ret;
	memcpy(m->out, &ra, sizeof(ra));
	return sizeof(ra);
}

static int handle_reset(struct vfu_conn *c, struct vfu_msg *m)
{
	if (m->len || m->fds->nr)
		return -EINVAL;
	emu_log_guest("vfio-user: device reset");
	/* The one engine call that waits: a reset has no deadline. */
	engine_reset(c->dev->eng);
	return 0;
}

typedef int (*vfu_handler)(struct vfu_conn *c, struct vfu_msg *m);

static const vfu_handler vfu_handlers[] = {
	[VFU_CMD_VERSION] = handle_version,
	[VFU_CMD_DMA_MAP] = handle_dma_map,
	[VFU_CMD_DMA_UNMAP] = handle_dma_unmap,
	[VFU_CMD_DEVICE_GET_INFO] = handle_get_info,
	[VFU_CMD_DEVICE_GET_REGION_INFO] = handle_region_info,
	[VFU_CMD_DEVICE_GET_IRQ_INFO] = handle_irq_info,
	[VFU_CMD_DEVICE_SET_IRQS] = handle_set_irqs,
	[VFU_CMD_REGION_READ] = handle_region_read,
	[VFU_CMD_REGION_WRITE] = handle_region_write,
	[VFU_CMD_DEVICE_RESET] = handle_reset,
};

static int dispatch(struct vfu_conn *c, struct vfu_msg *m)
{
	uint16_t cmd = m->hdr->command;
	vfu_handler h = NULL;

	if (cmd < sizeof(vfu_handlers) / sizeof(vfu_handlers[0]))
		h = vfu_handlers[cmd];
	if (!h)
		return -ENOSYS;
	if (m->fds->overflow)
		return -EINVAL;
	/* Only a map and an interrupt assignment carry descriptors. */
	if (m->fds->nr && cmd != VFU_CMD_DMA_MAP &&
	    cmd != VFU_CMD_DEVICE_SET_IRQS)
		return -EINVAL;
	if (!c->negotiated && cmd != VFU_CMD_VERSION)
		return -EINVAL;
	return h(c, m);
}

int vfio_handle_message(struct vfu_conn *c)
{
	struct vfu_fds fds = { .nr = 0 };
	struct vfu_hdr hdr, *reply = (struct vfu_hdr *)c->tx;
	struct vfu_msg m;
	ssize_t n;
	int ret;

	n = recv_full(c->fd, &hdr, sizeof(hdr), &fds);
	if (n <= 0) {
		fds_close(&fds);
		return n;
	}
	/* A lying size leaves no way to find the next message: hang up. */
	if (hdr.size < HDR_SIZE || hdr.size > VFU_MAX_MSG) {
		emu_log_guest("vfio-user: message size %u out of range, hanging up",
			hdr.size);
		fds_close(&fds);
		return -EPROTO;
	}
	n = recv_full(c->fd, c->rx, hdr.size - HDR_SIZE, &fds);
	if (n < 0 || (n == 0 && hdr.size > HDR_SIZE)) {
		fds_close(&fds);
		return n < 0 ? n : -EPIPE;
	}
	c->nr_msgs++;
	emu_dbg("vfio-user: cmd %u id %u size %u flags %#x fds %d", hdr.command,
		hdr.id, hdr.size, hdr.flags, fds.nr);

	if ((hdr.flags & VFU_F_TYPE_MASK) != VFU_F_TYPE_COMMAND) {
		/* We send no requests, so no reply can be ours. */
		emu_log_guest("vfio-user: dropped message type %#x (cmd %u)",
			hdr.flags & VFU_F_TYPE_MASK, hdr.command);
		fds_close(&fds);
		return 1;
	}

	m.hdr = &hdr;
	m.data = c->rx;
	m.len = hdr.size - HDR_SIZE;
	m.fds = &fds;
	m.out = c->tx + HDR_SIZE;
	ret = dispatch(c, &m);
	fds_close(&fds);	/* whatever the handler did not take */

	if (ret < 0) {
		c->nr_errors++;
		emu_dbg("vfio-user: cmd %u id %u size %u: error %s",
			hdr.command, hdr.id, hdr.size, strerror(-ret));
	}
	if (hdr.flags & VFU_F_NO_REPLY) {
		if (ret < 0)
			emu_log_guest("vfio-user: posted cmd %u failed: %s",
				hdr.command, strerror(-ret));
		return 1;
	}

	reply->id = hdr.id;
	reply->command = hdr.command;
	reply->flags = VFU_F_TYPE_REPLY;
	reply->error = 0;
	if (ret < 0) {
		reply->flags |= VFU_F_ERROR;
		reply->error = -ret;
		ret = 0;	/* an error reply is the header alone */
	}
	reply->size = HDR_SIZE + ret;
	ret = send_full(c->fd, c->tx, reply->size);
	return ret < 0 ? ret : 1;
}

int vfio_listen(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd, ret;

	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	unlink(path);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    listen(fd, 1) < 0) {
		ret = -errno;
		close(fd);
		return ret;
	}
	return fd;
}

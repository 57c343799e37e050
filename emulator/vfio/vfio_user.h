/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The vfio-user server: the protocol QEMU's vfio-user-pci client speaks
 * over a unix stream socket (docs/interop/vfio-user.rst), and the adapter
 * object it serves (PCI function, DMA map table, MSI-X eventfds, engine).
 *
 * The socket thread reads one message at a time, answers it at once and
 * never waits for the engine (except for DEVICE_RESET): QEMU stalls a vCPU
 * on every trapped register read and gives up after 5 seconds.  The server
 * never sends a request of its own (no DMA_READ/DMA_WRITE): guest memory is
 * reached through the shared mappings of DMA_MAP.
 *
 * The vfio/ layer's interface: main.c creates the device and serves its
 * socket with what this header declares.  pci.h, dma.h and irq.h are the
 * server's parts, private to vfio/; this header includes them for the
 * structure of the device it serves.
 */
#ifndef ORCA_EMU_VFIO_USER_H
#define ORCA_EMU_VFIO_USER_H

#include <stdbool.h>
#include <stdint.h>

#include "dma.h"
#include "engine/engine.h"
#include "irq.h"
#include "pci.h"

/* ---- wire format (host endian, as the protocol says) ---- */

enum vfu_command {
	VFU_CMD_VERSION			= 1,
	VFU_CMD_DMA_MAP			= 2,
	VFU_CMD_DMA_UNMAP		= 3,
	VFU_CMD_DEVICE_GET_INFO		= 4,
	VFU_CMD_DEVICE_GET_REGION_INFO	= 5,
	VFU_CMD_DEVICE_GET_REGION_IO_FDS = 6,
	VFU_CMD_DEVICE_GET_IRQ_INFO	= 7,
	VFU_CMD_DEVICE_SET_IRQS		= 8,
	VFU_CMD_REGION_READ		= 9,
	VFU_CMD_REGION_WRITE		= 10,
	VFU_CMD_DMA_READ		= 11,
	VFU_CMD_DMA_WRITE		= 12,
	VFU_CMD_DEVICE_RESET		= 13,
};

#define VFU_F_TYPE_MASK			0xf
#define VFU_F_TYPE_COMMAND		0x0
#define VFU_F_TYPE_REPLY		0x1
#define VFU_F_NO_REPLY			0x10
#define VFU_F_ERROR			0x20

struct vfu_hdr {
	uint16_t id;
	uint16_t command;
	uint32_t size;			/* whole message with the header */
	uint32_t flags;
	uint32_t error;			/* reply: positive errno */
};

struct vfu_version {
	uint16_t major;
	uint16_t minor;
	/* NUL-terminated JSON capabilities follow */
};

#define VFU_DMA_F_READ			(1u << 0)
#define VFU_DMA_F_WRITE			(1u << 1)
#define VFU_DMA_F_MMAP			(1u << 2)
#define VFU_DMA_F_FILE_IO		(1u << 3)

struct vfu_dma_map {
	uint32_t argsz;
	uint32_t flags;
	uint64_t offset;
	uint64_t addr;
	uint64_t size;
};

#define VFU_DMA_UNMAP_F_DIRTY_BITMAP	(1u << 0)
#define VFU_DMA_UNMAP_F_ALL		(1u << 1)

struct vfu_dma_unmap {
	uint32_t argsz;
	uint32_t flags;
	uint64_t addr;
	uint64_t size;
};

#define VFU_DEV_F_RESET			(1u << 0)
#define VFU_DEV_F_PCI			(1u << 1)

struct vfu_device_info {
	uint32_t argsz;
	uint32_t flags;
	uint32_t num_regions;
	uint32_t num_irqs;
};

struct vfu_region_info {
	uint32_t argsz;
	uint32_t flags;			/* PCI_REGION_F_* */
	uint32_t index;
	uint32_t cap_offset;
	uint64_t size;
	uint64_t offset;
};

/* IRQ indexes as VFIO_PCI_*_IRQ_INDEX. */
#define VFU_IRQ_INTX			0
#define VFU_IRQ_MSI			1
#define VFU_IRQ_MSIX			2
#define VFU_IRQ_ERR			3
#define VFU_IRQ_REQ			4
#define VFU_NUM_IRQS			5

#define VFU_IRQ_INFO_EVENTFD		(1u << 0)

struct vfu_irq_info {
	uint32_t argsz;
	uint32_t flags;
	uint32_t index;
	uint32_t count;
};

#define VFU_IRQ_SET_DATA_NONE		(1u << 0)
#define VFU_IRQ_SET_DATA_BOOL		(1u << 1)
#define VFU_IRQ_SET_DATA_EVENTFD	(1u << 2)
#define VFU_IRQ_SET_ACTION_MASK		(1u << 3)
#define VFU_IRQ_SET_ACTION_UNMASK	(1u << 4)
#define VFU_IRQ_SET_ACTION_TRIGGER	(1u << 5)
#define VFU_IRQ_SET_DATA_MASK		0x07u
#define VFU_IRQ_SET_ACTION_MASK_ALL	0x38u

struct vfu_irq_set {
	uint32_t argsz;
	uint32_t flags;
	uint32_t index;
	uint32_t start;
	uint32_t count;
	/* DATA_BOOL: count bytes follow; DATA_EVENTFD: fds in SCM_RIGHTS */
};

struct vfu_region_access {
	uint64_t offset;
	uint32_t region;
	uint32_t count;
	/* data follows (REGION_WRITE request, REGION_READ reply) */
};

/* What we advertise in the VERSION reply. */
#define VFU_MAX_FDS			16
#define VFU_MAX_DATA_XFER		(1u << 20)
#define VFU_MAX_MSG			(sizeof(struct vfu_hdr) + \
					 sizeof(struct vfu_region_access) + \
					 VFU_MAX_DATA_XFER)

/* ---- the adapter ---- */

/**
 * struct vfu_device - one ORCA adapter as a vfio-user device
 * @dma: guest memory the client shared
 * @irq: MSI-X eventfds
 * @pci: config space and BAR dispatch
 * @host: what the engine uses to reach @dma and @irq
 * @cfg: the engine's configuration (kept for its lifetime)
 * @eng: the engine
 */
struct vfu_device {
	struct dma_table dma;
	struct irq_table irq;
	struct pci_func pci;
	struct emu_host host;
	struct emu_config cfg;
	struct orca_engine *eng;
};

/* Build the adapter and start its engine; 0 or -errno. */
int vfio_device_init(struct vfu_device *d, const struct emu_config *cfg);
void vfio_device_destroy(struct vfu_device *d);

/**
 * struct vfu_conn - one client connection
 * @fd: the connected socket (owned)
 * @dev: the device it drives
 * @negotiated: VERSION succeeded; every other command needs it
 * @rx: one received message, @tx: one reply
 * @nr_msgs: messages handled, @nr_errors: error replies sent
 */
struct vfu_conn {
	int fd;
	struct vfu_device *dev;
	bool negotiated;
	uint8_t *rx;
	uint8_t *tx;
	uint64_t nr_msgs;
	uint64_t nr_errors;
};

/* Takes ownership of @fd; 0 or -ENOMEM. */
int vfio_conn_init(struct vfu_conn *c, struct vfu_device *d, int fd);
/* Closes the socket and frees the buffers. */
void vfio_conn_destroy(struct vfu_conn *c);

/*
 * Read one message from the socket (blocking), handle it and reply unless
 * it was posted (NO_REPLY).  Returns 1 when a message was handled (even
 * with an error reply), 0 when the client closed the connection cleanly,
 * and -errno when the stream is unusable (a header that lies about its
 * size, EOF inside a message, a socket error): the caller disconnects.
 */
int vfio_handle_message(struct vfu_conn *c);

/* A listening socket at @path (a stale socket file is replaced). */
int vfio_listen(const char *path);

#endif /* ORCA_EMU_VFIO_USER_H */

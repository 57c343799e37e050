/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The DMA map table: the guest memory the vfio-user client shared with us
 * (VFIO_USER_DMA_MAP with a file descriptor, mmapped MAP_SHARED) and the
 * translation of guest DMA addresses to pointers for the engine.
 *
 * Locking: the engine brackets its guest-memory work with vfio_dma_begin()
 * and vfio_dma_end() (a read lock; nesting on one thread is allowed); maps
 * and unmaps take the write lock, so an unmap completes only after every
 * bracket that could still use the old mapping has ended.
 */
#ifndef ORCA_EMU_DMA_H
#define ORCA_EMU_DMA_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#define DMA_PROT_READ		(1u << 0)
#define DMA_PROT_WRITE		(1u << 1)

/* Enough for QEMU's RAM, ROM and device-memory sections. */
#define DMA_MAX_REGIONS		1024

struct dma_region {
	uint64_t addr;		/* guest DMA address */
	uint64_t size;
	uint32_t prot;		/* DMA_PROT_* as the client granted */
	void *map;		/* mmap() base, NULL: not accessible by DMA */
	size_t map_len;
	uint8_t *host;		/* pointer to guest address @addr */
};

struct dma_table {
	pthread_rwlock_t lock;
	struct dma_region *regions;	/* sorted by addr, no overlaps */
	unsigned int nr;
};

int vfio_dma_table_init(struct dma_table *t);
/* Unmaps everything and frees the table. */
void vfio_dma_table_destroy(struct dma_table *t);

/*
 * Add [addr, addr + size) backed by @fd at @offset (fd < 0: a region the
 * client announces but we cannot reach, e.g. a ROM; it is recorded so the
 * map succeeds, and DMA to it fails).  The table does not keep @fd.
 * Returns 0, -EINVAL (bad range), -EEXIST (overlap), -ENOSPC, or the mmap
 * error.
 */
int vfio_dma_map(struct dma_table *t, uint64_t addr, uint64_t size,
		 uint64_t offset, uint32_t prot, int fd);

/* Remove the region that exactly matches; -ENOENT if there is none. */
int vfio_dma_unmap(struct dma_table *t, uint64_t addr, uint64_t size);
void vfio_dma_unmap_all(struct dma_table *t);

void vfio_dma_begin(struct dma_table *t);
void vfio_dma_end(struct dma_table *t);
/*
 * Pointer to guest [addr, addr + len) or NULL if any byte of it is not in
 * one writable mapped region.  Only between vfio_dma_begin() and
 * vfio_dma_end().
 */
void *vfio_dma_translate(struct dma_table *t, uint64_t addr, size_t len);

#endif /* ORCA_EMU_DMA_H */

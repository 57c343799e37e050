// SPDX-License-Identifier: GPL-2.0
/*
 * The DMA map table (see dma.h).  Regions are kept sorted in an array so a
 * translation is a binary search; QEMU maps a few dozen sections at most.
 * mmap()/munmap() run outside the write lock so that the engine waits only
 * for the table update itself.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "dma.h"
#include "util/log.h"

/* vfio_dma_begin() nesting depth of this thread; depth 0 takes the lock. */
static __thread unsigned int dma_depth;

int vfio_dma_table_init(struct dma_table *t)
{
	pthread_rwlockattr_t attr;
	int ret;

	memset(t, 0, sizeof(*t));
	t->regions = calloc(DMA_MAX_REGIONS, sizeof(*t->regions));
	if (!t->regions)
		return -ENOMEM;
	/*
	 * Prefer the writer: the engine takes the read lock over and over,
	 * and an unmap must not starve behind it.  Nested vfio_dma_begin()
	 * calls do not re-take the lock (dma_depth), so this cannot
	 * self-deadlock.
	 */
	pthread_rwlockattr_init(&attr);
	pthread_rwlockattr_setkind_np(&attr,
			PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
	ret = pthread_rwlock_init(&t->lock, &attr);
	pthread_rwlockattr_destroy(&attr);
	if (ret) {
		free(t->regions);
		t->regions = NULL;
		return -ret;
	}
	return 0;
}

static void region_release(struct dma_region *r)
{
	if (r->map)
		munmap(r->map, r->map_len);
}

void vfio_dma_table_destroy(struct dma_table *t)
{
	if (!t->regions)
		return;
	vfio_dma_unmap_all(t);
	pthread_rwlock_destroy(&t->lock);
	free(t->regions);
	t->regions = NULL;
}

/* Index of the first region whose end is above @addr. */
static unsigned int dma_lower_bound(const struct dma_table *t, uint64_t addr)
{
	unsigned int lo = 0, hi = t->nr;

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;
		const struct dma_region *r = &t->regions[mid];

		if (r->addr + r->size <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int vfio_dma_map(struct dma_table *t, uint64_t addr, uint64_t size,
		 uint64_t offset, uint32_t prot, int fd)
{
	struct dma_region r = { .addr = addr, .size = size, .prot = prot };
	long pg = sysconf(_SC_PAGESIZE);
	unsigned int i;
	int ret = 0;

	/* The region may not wrap (or end exactly at) 2^64. */
	if (!size || addr + size <= addr || offset + size < offset)
		return -EINVAL;

	/*
	 * Only regions the guest lets us write are mapped: the engine's
	 * dma_ptr() does not say which way it moves data, and a write to a
	 * read-only mapping would kill the whole adapter.
	 */
	if (fd >= 0 && (prot & DMA_PROT_WRITE)) {
		uint64_t delta = offset % pg;
		void *p;

		if (size + delta < size)
			return -EINVAL;
		r.map_len = size + delta;
		p = mmap(NULL, r.map_len, PROT_READ | PROT_WRITE, MAP_SHARED,
			 fd, offset - delta);
		if (p == MAP_FAILED) {
			ret = -errno;
			emu_log_guest("dma: mmap of [%#llx, +%#llx) failed: %s",
				(unsigned long long)addr,
				(unsigned long long)size, strerror(errno));
			return ret;
		}
		r.map = p;
		r.host = (uint8_t *)p + delta;
	}

	pthread_rwlock_wrlock(&t->lock);
	i = dma_lower_bound(t, addr);
	if (i < t->nr && t->regions[i].addr < addr + size)
		ret = -EEXIST;
	else if (t->nr == DMA_MAX_REGIONS)
		ret = -ENOSPC;
	if (!ret) {
		memmove(&t->regions[i + 1], &t->regions[i],
			(t->nr - i) * sizeof(r));
		t->regions[i] = r;
		t->nr++;
	}
	pthread_rwlock_unlock(&t->lock);

	if (ret)
		region_release(&r);
	else
		emu_dbg("dma: map [%#llx, +%#llx) %s",
			(unsigned long long)addr, (unsigned long long)size,
			r.map ? "mapped" : "not accessible");
	return ret;
}

int vfio_dma_unmap(struct dma_table *t, uint64_t addr, uint64_t size)
{
	struct dma_region r;
	unsigned int i;
	int ret = -ENOENT;

	pthread_rwlock_wrlock(&t->lock);
	i = dma_lower_bound(t, addr);
	if (i < t->nr && t->regions[i].addr == addr &&
	    t->regions[i].size == size) {
		r = t->regions[i];
		t->nr--;
		memmove(&t->regions[i], &t->regions[i + 1],
			(t->nr - i) * sizeof(r));
		ret = 0;
	}
	pthread_rwlock_unlock(&t->lock);

	if (!ret)
		region_release(&r);
	return ret;
}

void vfio_dma_unmap_all(struct dma_table *t)
{
	struct dma_region *old;
	unsigned int i, nr;

	old = calloc(DMA_MAX_REGIONS, sizeof(*old));
	pthread_rwlock_wrlock(&t->lock);
	nr = t->nr;
	if (old)
		memcpy(old, t->regions, nr * sizeof(*old));
	else
		for (i = 0; i < nr; i++)
			region_release(&t->regions[i]);
	t->nr = 0;
	pthread_rwlock_unlock(&t->lock);

	if (old) {
		for (i = 0; i < nr; i++)
			region_release(&old[i]);
		free(old);
	}
}

void vfio_dma_begin(struct dma_table *t)
{
	if (dma_depth++ == 0)
		pthread_rwlock_rdlock(&t->lock);
}

void vfio_dma_end(struct dma_table *t)
{
	if (dma_depth == 0)
		return;
	if (--dma_depth == 0)
		pthread_rwlock_unlock(&t->lock);
}

void *vfio_dma_translate(struct dma_table *t, uint64_t addr, size_t len)
{
	const struct dma_region *r;
	unsigned int i;

	if (!len || addr + len < addr)
		return NULL;
	i = dma_lower_bound(t, addr);
	if (i >= t->nr)
		return NULL;
	r = &t->regions[i];
	if (!r->host || addr < r->addr || addr + len > r->addr + r->size)
		return NULL;
	return r->host + (addr - r->addr);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the emulator's DMA map table (emulator/vfio/dma.c): page-offset
 * mappings, read-only and fd-less regions, the table limit, nested
 * vfio_dma_begin() brackets and an unmap that waits for the bracket using it.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "vfio/dma.h"
#include "ktap.h"

static int ram_fd(size_t size)
{
	int fd = memfd_create("ram", MFD_CLOEXEC);

	if (fd >= 0 && ftruncate(fd, size)) {
		close(fd);
		return -1;
	}
	return fd;
}

static void test_unaligned_file_offset(void)
{
	struct dma_table t;
	uint8_t *p;
	int fd = ram_fd(0x4000);
	char c = 0;

	CHECK(vfio_dma_table_init(&t) == 0);
	CHECK(fd >= 0);
	CHECK(pwrite(fd, "X", 1, 0x1234) == 1);
	/* Offset inside a page: the mapping starts at its page boundary. */
	CHECK(vfio_dma_map(&t, 0x9000, 0x1000, 0x1234, DMA_PROT_READ |
			   DMA_PROT_WRITE, fd) == 0);
	vfio_dma_begin(&t);
	p = vfio_dma_translate(&t, 0x9000, 1);
	CHECK(p && *p == 'X');
	if (p)
		*p = 'Y';
	CHECK(vfio_dma_translate(&t, 0x9fff, 1) != NULL);
	CHECK(vfio_dma_translate(&t, 0x9fff, 2) == NULL);
	CHECK(vfio_dma_translate(&t, 0x9000, 0) == NULL);
	vfio_dma_end(&t);
	CHECK(pread(fd, &c, 1, 0x1234) == 1 && c == 'Y');
	close(fd);
	vfio_dma_table_destroy(&t);
	ktap_case_end("dma_unaligned_file_offset");
}

static void test_read_only_and_fdless(void)
{
	struct dma_table t;
	int fd = ram_fd(0x1000);

	CHECK(vfio_dma_table_init(&t) == 0);
	/* Read-only guest memory is never handed to the engine. */
	CHECK(vfio_dma_map(&t, 0x1000, 0x1000, 0, DMA_PROT_READ, fd) == 0);
	CHECK(vfio_dma_map(&t, 0x2000, 0x1000, 0,
			   DMA_PROT_READ | DMA_PROT_WRITE, -1) == 0);
	vfio_dma_begin(&t);
	CHECK(vfio_dma_translate(&t, 0x1000, 4) == NULL);
	CHECK(vfio_dma_translate(&t, 0x2000, 4) == NULL);
	vfio_dma_end(&t);
	CHECK(vfio_dma_unmap(&t, 0x1000, 0x1000) == 0);
	CHECK(vfio_dma_unmap(&t, 0x2000, 0x1000) == 0);
	CHECK(vfio_dma_unmap(&t, 0x2000, 0x1000) == -ENOENT);
	/* A descriptor that cannot be mapped fails the map. */
	CHECK(vfio_dma_map(&t, 0x3000, 0x1000, 0,
			   DMA_PROT_READ | DMA_PROT_WRITE, 1000) < 0);
	close(fd);
	vfio_dma_table_destroy(&t);
	ktap_case_end("dma_read_only_and_fdless_not_translated");
}

static void test_table_limit(void)
{
	struct dma_table t;
	unsigned int i;
	int ret = 0;

	CHECK(vfio_dma_table_init(&t) == 0);
	/* Fill in descending order to exercise the sorted insert. */
	for (i = DMA_MAX_REGIONS; i > 0 && !ret; i--)
		ret = vfio_dma_map(&t, (uint64_t)i << 12, 0x1000, 0,
				   DMA_PROT_READ, -1);
	CHECK(ret == 0);
	CHECK(t.nr == DMA_MAX_REGIONS);
	for (i = 1; i < t.nr; i++)
		CHECK(t.regions[i - 1].addr < t.regions[i].addr);
	CHECK(vfio_dma_map(&t, 1ULL << 40, 0x1000, 0, DMA_PROT_READ, -1) ==
	      -ENOSPC);
	vfio_dma_unmap_all(&t);
	CHECK(t.nr == 0);
	vfio_dma_table_destroy(&t);
	ktap_case_end("dma_table_limit_and_order");
}

struct unmapper {
	struct dma_table *t;
	atomic_int done;
};

static void *unmap_thread(void *arg)
{
	struct unmapper *u = arg;

	vfio_dma_unmap(u->t, 0x10000, 0x1000);
	atomic_store(&u->done, 1);
	return NULL;
}

static void test_unmap_waits_for_bracket(void)
{
	struct timespec ms50 = { 0, 50 * 1000 * 1000 };
	struct unmapper u = { 0 };
	struct dma_table t;
	pthread_t th;
	int fd = ram_fd(0x1000);

	CHECK(vfio_dma_table_init(&t) == 0);
	u.t = &t;
	CHECK(vfio_dma_map(&t, 0x10000, 0x1000, 0,
			   DMA_PROT_READ | DMA_PROT_WRITE, fd) == 0);
	close(fd);
	vfio_dma_begin(&t);
	vfio_dma_begin(&t);	/* nesting on one thread is allowed */
	CHECK(vfio_dma_translate(&t, 0x10000, 8) != NULL);
	CHECK(pthread_create(&th, NULL, unmap_thread, &u) == 0);
	nanosleep(&ms50, NULL);
	vfio_dma_end(&t);
	nanosleep(&ms50, NULL);
	CHECK(atomic_load(&u.done) == 0);	/* still inside the bracket */
	CHECK(vfio_dma_translate(&t, 0x10000, 8) != NULL);
	vfio_dma_end(&t);
	pthread_join(th, NULL);
	CHECK(atomic_load(&u.done) == 1);
	vfio_dma_begin(&t);
	CHECK(vfio_dma_translate(&t, 0x10000, 8) == NULL);
	vfio_dma_end(&t);
	vfio_dma_end(&t);		/* an unbalanced end is ignored */
	vfio_dma_table_destroy(&t);
	ktap_case_end("dma_unmap_waits_for_bracket");
}

int main(void)
{
	ktap_plan(4);
	test_unaligned_file_offset();
	test_read_only_and_fdless();
	test_table_limit();
	test_unmap_waits_for_bracket();
	return ktap_finish();
}

// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ORCA provider memory the device accesses: queue rings and doorbell
 * records.  Both are pinned by the kernel, so both are whole pages kept out
 * of a forked child (ibv_dontfork_range), as in the other providers.
 *
 * Doorbell records (8 or 16 bytes) share pages: a page is cut into 16-byte
 * slots, so no record crosses a page, and the kernel pins each page once
 * however many records it holds.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "orca.h"

#define ORCA_DB_SLOT		16

static_assert(sizeof(struct orca_qp_db_rec) <= ORCA_DB_SLOT, "qp db rec");
static_assert(sizeof(struct orca_cq_db_rec) <= ORCA_DB_SLOT, "cq db rec");
static_assert(sizeof(struct orca_srq_db_rec) <= ORCA_DB_SLOT, "srq db rec");

/**
 * orca_ring_alloc() - allocate a zeroed ring for the device
 * @ctx: context
 * @ring: filled in
 * @bytes: bytes the entries need
 *
 * The length is rounded up to whole pages: the kernel describes the ring to
 * the adapter in ORCA_UQUEUE_ALIGN pages.
 *
 * Return: 0 or an errno value.
 */
int orca_ring_alloc(struct orca_context *ctx, struct orca_ring *ring,
		    size_t bytes)
{
	size_t len = align(bytes, ctx->page_size);
	void *buf;
	int err;

	err = posix_memalign(&buf, ctx->page_size, len);
	if (err)
		return err;
	memset(buf, 0, len);
	err = ibv_dontfork_range(buf, len);
	if (err) {
		free(buf);
		return err;
	}
	ring->buf = buf;
	ring->len = len;
	return 0;
}

/**
 * orca_ring_alloc_pd() - allocate a zeroed ring, from a parent domain's
 *	allocator if it has one
 * @ctx: context
 * @ring: filled in
 * @bytes: bytes the entries need
 * @parent: the parent domain the object is created on, or NULL
 * @type: what the ring is for, passed to the allocator
 *
 * The allocator may answer IBV_ALLOCATOR_USE_DEFAULT, and then the ring
 * comes from orca_ring_alloc() (ibv_alloc_parent_domain(3)).
 *
 * Return: 0 or an errno value.
 */
int orca_ring_alloc_pd(struct orca_context *ctx, struct orca_ring *ring,
		       size_t bytes, struct orca_pd *parent,
		       enum orca_res_type type)
{
	size_t len = align(bytes, ctx->page_size);
	uint64_t res_type = ((uint64_t)RDMA_DRIVER_ORCA << 32) | type;
	void *buf;
	int err;

	if (!parent || !parent->alloc)
		return orca_ring_alloc(ctx, ring, bytes);
	buf = parent->alloc(&parent->ibv_pd, parent->pd_context, len,
			    ctx->page_size, res_type);
	if (buf == IBV_ALLOCATOR_USE_DEFAULT)
		return orca_ring_alloc(ctx, ring, bytes);
	if (!buf)
		return ENOMEM;
	/* The kernel pins whole pages: the allocator must align as asked. */
	if ((uintptr_t)buf & (ctx->page_size - 1)) {
		parent->free(&parent->ibv_pd, parent->pd_context, buf,
			     res_type);
		return EINVAL;
	}
	memset(buf, 0, len);
	err = ibv_dontfork_range(buf, len);
	if (err) {
		parent->free(&parent->ibv_pd, parent->pd_context, buf,
			     res_type);
		return err;
	}
	ring->buf = buf;
	ring->len = len;
	ring->pd = parent;
	ring->res_type = res_type;
	return 0;
}

void orca_ring_free(struct orca_ring *ring)
{
	if (!ring->buf)
		return;
	ibv_dofork_range(ring->buf, ring->len);
	if (ring->pd)
		ring->pd->free(&ring->pd->ibv_pd, ring->pd->pd_context,
			       ring->buf, ring->res_type);
	else
		free(ring->buf);
	ring->buf = NULL;
}

/* One page of record slots; @used counts the slots handed out. */
struct orca_db_page {
	struct list_node entry;
	uint8_t *buf;
	unsigned int nslots;
	unsigned int used;
	uint64_t free_mask[];	/* bit set: slot free */
};

static struct orca_db_page *orca_db_page_new(struct orca_context *ctx)
{
	unsigned int nslots = ctx->page_size / ORCA_DB_SLOT;
	unsigned int nwords = (nslots + 63) / 64;
	struct orca_db_page *page;
	unsigned int i;
	void *buf;

	page = calloc(1, sizeof(*page) + nwords * sizeof(uint64_t));
	if (!page)
		return NULL;
	if (posix_memalign(&buf, ctx->page_size, ctx->page_size))
		goto err_page;
	memset(buf, 0, ctx->page_size);
	if (ibv_dontfork_range(buf, ctx->page_size))
		goto err_buf;
	page->buf = buf;
	page->nslots = nslots;
	for (i = 0; i < nslots; i++)
		page->free_mask[i / 64] |= 1ULL << (i % 64);
	list_add_tail(&ctx->db_pages, &page->entry);
	return page;

err_buf:
	free(buf);
err_page:
	free(page);
	return NULL;
}

/**
 * orca_db_alloc() - a zeroed doorbell record slot
 * @ctx: context
 *
 * Return: a 16-byte slot (enough for any record) or NULL with errno set.
 */
void *orca_db_alloc(struct orca_context *ctx)
{
	struct orca_db_page *page;
	uint8_t *slot = NULL;
	unsigned int w;

	pthread_mutex_lock(&ctx->db_mutex);
	list_for_each(&ctx->db_pages, page, entry)
		if (page->used < page->nslots)
			goto found;
	page = orca_db_page_new(ctx);
	if (!page) {
		pthread_mutex_unlock(&ctx->db_mutex);
		errno = ENOMEM;
		return NULL;
	}
found:
	for (w = 0; !page->free_mask[w]; w++)
		;
	slot = page->buf +
	       (size_t)(w * 64 + __builtin_ctzll(page->free_mask[w])) *
	       ORCA_DB_SLOT;
	page->free_mask[w] &= page->free_mask[w] - 1;
	page->used++;
	pthread_mutex_unlock(&ctx->db_mutex);

	/* A reused slot may hold an old record (the device wrote into it). */
	memset(slot, 0, ORCA_DB_SLOT);
	return slot;
}

/* Give a slot back; a page with no slot in use is freed. */
void orca_db_free(struct orca_context *ctx, void *db)
{
	uintptr_t base = (uintptr_t)db & ~(uintptr_t)(ctx->page_size - 1);
	struct orca_db_page *page;
	unsigned int i;

	if (!db)
		return;
	pthread_mutex_lock(&ctx->db_mutex);
	list_for_each(&ctx->db_pages, page, entry) {
		if ((uintptr_t)page->buf != base)
			continue;
		i = ((uintptr_t)db - base) / ORCA_DB_SLOT;
		page->free_mask[i / 64] |= 1ULL << (i % 64);
		if (--page->used == 0) {
			list_del(&page->entry);
			ibv_dofork_range(page->buf, ctx->page_size);
			free(page->buf);
			free(page);
		}
		break;
	}
	pthread_mutex_unlock(&ctx->db_mutex);
}

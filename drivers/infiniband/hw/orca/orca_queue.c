// SPDX-License-Identifier: GPL-2.0
/*
 * ORCA queue memory: DMA-coherent rings of kernel EQs, CQs, QPs and SRQs
 * built from single pages, the page lists (chained 4 KiB chunks) that
 * describe rings and memory regions to the device, and the doorbell records
 * the device reads.
 */
#include <linux/dma-mapping.h>
#include <linux/log2.h>
#include <linux/overflow.h>
#include <linux/sizes.h>
#include <linux/slab.h>

#include "orca.h"

/**
 * orca_queue_log_depth() - ring size for a requested number of entries
 * @entries: entries the consumer asked for
 * @max: device limit on entries
 * @log_depth: result, entries = 1 << @log_depth
 *
 * The adapter takes no queue of fewer than 1 << ORCA_MIN_LOG_DEPTH
 * entries.  A user ring has the depth its provider chose, within the
 * bounds this rule gives (orca_uqueue_depth()).
 *
 * Return: 0, or -EINVAL when @entries exceeds @max.
 */
int orca_queue_log_depth(u32 entries, u32 max, u8 *log_depth)
{
	if (entries > max || entries > (1U << 30))
		return -EINVAL;
	*log_depth = order_base_2(max(entries, 1U << ORCA_MIN_LOG_DEPTH));
	return 0;
}

/* orca_qbuf_entry(): no WQE straddles a device page of a kernel ring. */
static_assert(sizeof(struct orca_send_wqe_hdr) +
	      ORCA_MAX_SGE * sizeof(struct orca_sge) <= SZ_4K);
static_assert(sizeof(struct orca_recv_wqe_hdr) +
	      ORCA_MAX_SGE * sizeof(struct orca_sge) <= SZ_4K);

/**
 * orca_dev_page_shift() - the page size to describe kernel memory in
 * @odev: device
 *
 * The largest page size the device accepts (page_size_cap) that is no
 * larger than PAGE_SIZE: every kernel page is then a whole number of
 * device pages, whatever the kernel's page size.
 *
 * Return: the shift, or 0 when the device takes no such size.
 */
u8 orca_dev_page_shift(const struct orca_dev *odev)
{
	u64 ok = odev->caps.page_size_cap &
		 GENMASK_ULL(PAGE_SHIFT, ORCA_MIN_PAGE_SHIFT);

	return ok ? __fls(ok) : 0;
}

/**
 * orca_qbuf_alloc() - allocate a zeroed kernel queue ring
 * @odev: device
 * @q: ring to fill in
 * @size: bytes needed
 *
 * The ring is made of single coherent pages described to the device in a
 * page list, so its size is limited by the device's caps, not by what the
 * page allocator has contiguous.
 *
 * Return: 0, -EOPNOTSUPP when the device takes no page size that divides
 * PAGE_SIZE, or -ENOMEM.
 */
int orca_qbuf_alloc(struct orca_dev *odev, struct orca_qbuf *q, size_t size)
{
	u8 shift = orca_dev_page_shift(odev);
	u32 i;

	memset(q, 0, sizeof(*q));
	if (!shift)
		return -EOPNOTSUPP;
	if (!size)
		return -EINVAL;
	q->size = PAGE_ALIGN(size);
	q->page_shift = shift;
	q->npages = orca_queue_npages(size, shift);
	q->nalloc = q->size >> PAGE_SHIFT;
	q->pages = kvcalloc(q->nalloc, sizeof(*q->pages), GFP_KERNEL);
	q->dma = kvcalloc(q->nalloc, sizeof(*q->dma), GFP_KERNEL);
	if (!q->pages || !q->dma)
		goto err;
	for (i = 0; i < q->nalloc; i++) {
		q->pages[i] = dma_alloc_coherent(&odev->pdev->dev, PAGE_SIZE,
						 &q->dma[i], GFP_KERNEL);
		if (!q->pages[i])
			goto err;
	}
	return 0;

err:
	orca_qbuf_free(odev, q);
	return -ENOMEM;
}

/**
 * orca_qbuf_ring() - describe a ring to a CREATE_* command
 * @q: the ring (a user ring: its geometry)
 * @pgl: its page list, or NULL for a kernel ring of one page
 * @ring: result
 */
void orca_qbuf_ring(const struct orca_qbuf *q, const struct orca_pgl *pgl,
		    struct orca_com_ring *ring)
{
	ring->pgl = pgl;
	ring->page_addr = pgl ? 0 : q->dma[0];
	ring->npages = q->npages;
	ring->page_shift = q->page_shift;
}

void orca_qbuf_free(struct orca_dev *odev, struct orca_qbuf *q)
{
	u32 i;

	for (i = 0; q->pages && i < q->nalloc && q->pages[i]; i++)
		dma_free_coherent(&odev->pdev->dev, PAGE_SIZE, q->pages[i],
				  q->dma[i]);
	kvfree(q->pages);
	kvfree(q->dma);
	q->pages = NULL;
	q->dma = NULL;
	q->nalloc = 0;
}

/* Bus address of device page @i of a kernel ring. */
static dma_addr_t orca_qbuf_page_dma(const struct orca_qbuf *q, u32 i)
{
	size_t off = (size_t)i << q->page_shift;

	return q->dma[off >> PAGE_SHIFT] + (off & ~PAGE_MASK);
}

/**
 * orca_pgl_alloc() - allocate an empty page list of @npages entries
 * @odev: device
 * @pgl: list to fill in
 * @npages: entries
 *
 * A list longer than one chunk is a chain of 4 KiB chunks when the device
 * takes chains (interface 1.1), so a list for the largest queue or memory
 * region needs no more than single pages; a 1.0 device gets one block.
 *
 * Return: 0, -EINVAL or -ENOMEM.
 */
int orca_pgl_alloc(struct orca_dev *odev, struct orca_pgl *pgl, u32 npages)
{
	bool chain = npages > ORCA_PGL_CHUNK_ENTRIES &&
		     (odev->caps.dev_caps & ORCA_DEV_CAP_PGL_CHAIN);
	size_t bytes;
	u32 i;

	memset(pgl, 0, sizeof(*pgl));
	if (!npages)
		return -EINVAL;
	pgl->chained = chain;
	pgl->per_chunk = chain ? ORCA_PGL_CHUNK_ENTRIES : npages;
	if (chain)
		bytes = ORCA_PGL_CHUNK_SIZE;
	else if (check_mul_overflow((size_t)npages, sizeof(__le64), &bytes) ||
		 bytes > U32_MAX)
		return -EINVAL;
	pgl->chunk_bytes = bytes;
	pgl->nchunks = DIV_ROUND_UP(npages, pgl->per_chunk);
	pgl->chunks = kvcalloc(pgl->nchunks, sizeof(*pgl->chunks), GFP_KERNEL);
	pgl->chunk_dma = kvcalloc(pgl->nchunks, sizeof(*pgl->chunk_dma),
				  GFP_KERNEL);
	if (!pgl->chunks || !pgl->chunk_dma)
		goto err;
	for (i = 0; i < pgl->nchunks; i++) {
		/* Zeroed: the last chunk's next address reads 0. */
		pgl->chunks[i] = dma_alloc_coherent(&odev->pdev->dev, bytes,
						    &pgl->chunk_dma[i],
						    GFP_KERNEL);
		if (!pgl->chunks[i])
			goto err;
		if (i)
			pgl->chunks[i - 1][ORCA_PGL_CHUNK_ENTRIES] =
				cpu_to_le64(pgl->chunk_dma[i]);
	}
	pgl->npages = npages;
	return 0;

err:
	orca_pgl_free(odev, pgl);
	return -ENOMEM;
}

/* Append the pages of @q; the caller sized the list for all of them. */
void orca_pgl_add_qbuf(struct orca_pgl *pgl, const struct orca_qbuf *q)
{
	u32 i;

	for (i = 0; i < q->npages && pgl->used < pgl->npages; i++)
		orca_pgl_add(pgl, orca_qbuf_page_dma(q, i));
	WARN_ON_ONCE(i != q->npages);
}

void orca_pgl_free(struct orca_dev *odev, struct orca_pgl *pgl)
{
	u32 i;

	for (i = 0; pgl->chunks && i < pgl->nchunks && pgl->chunks[i]; i++)
		dma_free_coherent(&odev->pdev->dev, pgl->chunk_bytes,
				  pgl->chunks[i], pgl->chunk_dma[i]);
	kvfree(pgl->chunks);
	kvfree(pgl->chunk_dma);
	pgl->chunks = NULL;
	pgl->chunk_dma = NULL;
	pgl->nchunks = 0;
}

/**
 * orca_db_pool_init() - the DMA pool of kernel doorbell records
 * @odev: device
 *
 * A probe stage of its own: the records belong to the queues, not to the
 * capabilities.
 *
 * Return: 0 or -ENOMEM.
 */
int orca_db_pool_init(struct orca_dev *odev)
{
	odev->db_pool = dma_pool_create("orca_db", &odev->pdev->dev,
					sizeof(struct orca_qp_db_rec), 64, 0);
	return odev->db_pool ? 0 : -ENOMEM;
}

void orca_db_pool_cleanup(struct orca_dev *odev)
{
	dma_pool_destroy(odev->db_pool);
	odev->db_pool = NULL;
}

void *orca_db_alloc(struct orca_dev *odev, dma_addr_t *dma)
{
	return dma_pool_zalloc(odev->db_pool, GFP_KERNEL, dma);
}

void orca_db_free(struct orca_dev *odev, void *db, dma_addr_t dma)
{
	dma_pool_free(odev->db_pool, db, dma);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * ORCA queue memory: DMA-coherent rings of kernel CQs, QPs and SRQs, the
 * page lists that describe them to CREATE_* commands, and the doorbell
 * records the device reads.
 */
#include <linux/dma-mapping.h>
#include <linux/log2.h>
#include <linux/overflow.h>

#include "orca.h"

/**
 * orca_queue_log_depth() - ring size for a requested number of entries
 * @entries: entries the consumer asked for
 * @max: device limit on entries
 * @log_depth: result, entries = 1 << @log_depth
 *
 * The adapter takes no queue of fewer than 1 << ORCA_MIN_LOG_DEPTH
 * entries; the provider sizes user rings by the same rule.
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

/**
 * orca_qbuf_alloc() - allocate a zeroed queue ring
 * @odev: device
 * @q: ring to fill in
 * @size: bytes needed
 *
 * The ring is one coherent block described to the device as PAGE_SIZE
 * pages, so it can be given as a page list whatever its size.
 *
 * Return: 0 or -ENOMEM.
 */
int orca_qbuf_alloc(struct orca_dev *odev, struct orca_qbuf *q, size_t size)
{
	q->size = PAGE_ALIGN(size);
	q->page_shift = PAGE_SHIFT;
	q->npages = q->size >> PAGE_SHIFT;
	q->buf = dma_alloc_coherent(&odev->pdev->dev, q->size, &q->dma,
				    GFP_KERNEL);
	return q->buf ? 0 : -ENOMEM;
}

void orca_qbuf_free(struct orca_dev *odev, struct orca_qbuf *q)
{
	if (!q->buf)
		return;
	dma_free_coherent(&odev->pdev->dev, q->size, q->buf, q->dma);
	q->buf = NULL;
}

int orca_pgl_alloc(struct orca_dev *odev, struct orca_pgl *pgl, u32 npages)
{
	size_t bytes;

	if (check_mul_overflow((size_t)npages, sizeof(__le64), &bytes))
		return -EINVAL;
	pgl->npages = npages;
	pgl->used = 0;
	pgl->pages = dma_alloc_coherent(&odev->pdev->dev, bytes, &pgl->dma,
					GFP_KERNEL);
	return pgl->pages ? 0 : -ENOMEM;
}

/* Append the pages of @q; the caller sized the list for all of them. */
void orca_pgl_add_qbuf(struct orca_pgl *pgl, const struct orca_qbuf *q)
{
	u32 i;

	for (i = 0; i < q->npages && pgl->used < pgl->npages; i++)
		pgl->pages[pgl->used++] =
			cpu_to_le64(q->dma + ((u64)i << q->page_shift));
	WARN_ON_ONCE(i != q->npages);
}

void orca_pgl_free(struct orca_dev *odev, struct orca_pgl *pgl)
{
	if (!pgl->pages)
		return;
	dma_free_coherent(&odev->pdev->dev, pgl->npages * sizeof(__le64),
			  pgl->pages, pgl->dma);
	pgl->pages = NULL;
}

void *orca_db_alloc(struct orca_dev *odev, dma_addr_t *dma)
{
	return dma_pool_zalloc(odev->db_pool, GFP_KERNEL, dma);
}

void orca_db_free(struct orca_dev *odev, void *db, dma_addr_t dma)
{
	dma_pool_free(odev->db_pool, db, dma);
}

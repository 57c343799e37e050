// SPDX-License-Identifier: GPL-2.0
/*
 * ORCA queue memory: DMA-coherent rings of kernel CQs, QPs and SRQs, the
 * page lists that describe them to CREATE_* commands, and the doorbell
 * records the device reads.
 */
#include <linux/dma-mapping.h>
#include <linux/log2.h>
#include <linux/overflow.h>
#include <linux/slab.h>

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

/* orca_qbuf_entry(): no WQE straddles a page of a kernel ring. */
static_assert(sizeof(struct orca_send_wqe_hdr) +
	      ORCA_MAX_SGE * sizeof(struct orca_sge) <= PAGE_SIZE);
static_assert(sizeof(struct orca_recv_wqe_hdr) +
	      ORCA_MAX_SGE * sizeof(struct orca_sge) <= PAGE_SIZE);

/**
 * orca_qbuf_alloc() - allocate a zeroed kernel queue ring
 * @odev: device
 * @q: ring to fill in
 * @size: bytes needed
 *
 * The ring is made of PAGE_SIZE coherent pages described to the device in
 * a page list, so its size is limited by the device's caps, not by what
 * the page allocator has contiguous.
 *
 * Return: 0 or -ENOMEM.
 */
int orca_qbuf_alloc(struct orca_dev *odev, struct orca_qbuf *q, size_t size)
{
	u32 i;

	q->size = PAGE_ALIGN(size);
	q->page_shift = PAGE_SHIFT;
	q->npages = q->size >> PAGE_SHIFT;
	q->pages = kvcalloc(q->npages, sizeof(*q->pages), GFP_KERNEL);
	q->dma = kvcalloc(q->npages, sizeof(*q->dma), GFP_KERNEL);
	if (!q->pages || !q->dma)
		goto err;
	for (i = 0; i < q->npages; i++) {
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
		    struct orca_cmd_ring *ring)
{
	ring->pgl = pgl;
	ring->page_addr = pgl ? 0 : q->dma[0];
	ring->npages = q->npages;
	ring->page_shift = q->page_shift;
}

void orca_qbuf_free(struct orca_dev *odev, struct orca_qbuf *q)
{
	u32 i;

	if (!q->pages) {
		kvfree(q->dma);
		q->dma = NULL;
		return;
	}
	for (i = 0; i < q->npages && q->pages[i]; i++)
		dma_free_coherent(&odev->pdev->dev, PAGE_SIZE, q->pages[i],
				  q->dma[i]);
	kvfree(q->pages);
	kvfree(q->dma);
	q->pages = NULL;
	q->dma = NULL;
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
		pgl->pages[pgl->used++] = cpu_to_le64(q->dma[i]);
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

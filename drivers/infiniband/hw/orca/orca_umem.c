// SPDX-License-Identifier: GPL-2.0
/*
 * ORCA user queue rings: the checks of the address and length a provider
 * gives for a ring, pinning the ring, and describing it to the adapter as
 * a list of ORCA_UQUEUE_ALIGN pages (the ABI's page size, whatever the
 * CPU's).
 */
#include <rdma/ib_umem.h>
#include <rdma/iter.h>

#include "orca.h"

static_assert(ORCA_UQUEUE_ALIGN == 1 << ORCA_UQUEUE_PAGE_SHIFT);

/**
 * orca_uring_check() - check a user ring against the bytes it must hold
 * @va: user address of the ring
 * @len: length the provider allocated
 * @bytes: bytes of entries the ring holds (stride << log_depth)
 * @needed: result, @bytes rounded up to ORCA_UQUEUE_ALIGN: what is pinned
 *
 * Return: 0, or -EINVAL if @va or @len is not a multiple of
 * ORCA_UQUEUE_ALIGN or @len is too short.
 */
int orca_uring_check(u64 va, u64 len, size_t bytes, size_t *needed)
{
	if (!IS_ALIGNED(va, ORCA_UQUEUE_ALIGN) ||
	    !IS_ALIGNED(len, ORCA_UQUEUE_ALIGN))
		return -EINVAL;
	*needed = ALIGN(bytes, ORCA_UQUEUE_ALIGN);
	if (!*needed || len < *needed)
		return -EINVAL;
	return 0;
}

/* Pin @needed bytes at @va, writable (the adapter writes CQEs). */
struct ib_umem *orca_uring_get(struct orca_dev *odev, u64 va, size_t needed)
{
	return ib_umem_get_va(&odev->ibdev, va, needed, IB_ACCESS_LOCAL_WRITE);
}

/**
 * orca_pgl_add_umem() - append the first pages of a pinned ring to a list
 * @pgl: page list with room for them
 * @umem: the ring
 * @needed: bytes of the ring the adapter uses, a multiple of
 *	ORCA_UQUEUE_ALIGN
 *
 * Return: 0, or -EINVAL if the ring does not start on an ORCA_UQUEUE_ALIGN
 * boundary or is shorter than @needed (a umem from a core attribute).
 */
int orca_pgl_add_umem(struct orca_pgl *pgl, struct ib_umem *umem,
		      size_t needed)
{
	u32 n = needed >> ORCA_UQUEUE_PAGE_SHIFT;
	struct ib_block_iter biter;
	u32 added = 0;

	if (!IS_ALIGNED(umem->address, ORCA_UQUEUE_ALIGN) ||
	    umem->length < needed ||
	    !ib_umem_find_best_pgsz(umem, ORCA_UQUEUE_ALIGN, umem->address))
		return -EINVAL;
	if (n > pgl->npages - pgl->used)
		return -EINVAL;
	rdma_umem_for_each_dma_block(umem, &biter, ORCA_UQUEUE_ALIGN) {
		if (added == n)
			break;
		orca_pgl_add(pgl, rdma_block_iter_dma_address(&biter));
		added++;
	}
	return added == n ? 0 : -EINVAL;
}

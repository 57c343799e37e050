// SPDX-License-Identifier: GPL-2.0
/*
 * ORCA user contexts: each has its own UAR page, mapped into the process
 * through an rdma_user_mmap_entry, and a list of pinned user pages that
 * hold the doorbell records of its CQs, QPs and SRQs.
 */
#include <linux/mm.h>
#include <linux/sched.h>
#include <rdma/ib_umem.h>
#include <rdma/uverbs_ioctl.h>

#include "orca_user.h"

/* A UAR page mapping; DEALLOC_UAR once no VMA and no context uses it. */
struct orca_uar_entry {
	struct rdma_user_mmap_entry rdma_entry;
	u32 uar_idx;
};

static struct orca_uar_entry *to_uar_entry(struct rdma_user_mmap_entry *e)
{
	return container_of(e, struct orca_uar_entry, rdma_entry);
}

/* The adapter's features behind each of the ABI's enum orca_uctx_caps. */
static const struct {
	u32 dev_cap;
	u32 uctx_cap;
} orca_uctx_cap_map[] = {
	{ ORCA_DEV_CAP_ATOMIC, ORCA_UCTX_CAP_ATOMIC },
	{ ORCA_DEV_CAP_FRWR, ORCA_UCTX_CAP_FRWR },
	{ ORCA_DEV_CAP_MW, ORCA_UCTX_CAP_MW },
	{ ORCA_DEV_CAP_UC, ORCA_UCTX_CAP_UC },
	{ ORCA_DEV_CAP_FLUSH, ORCA_UCTX_CAP_FLUSH },
	{ ORCA_DEV_CAP_ATOMIC_WRITE, ORCA_UCTX_CAP_ATOMIC_WRITE },
	{ ORCA_DEV_CAP_SRQ_RESIZE, ORCA_UCTX_CAP_SRQ_RESIZE },
	{ ORCA_DEV_CAP_SRQ_TAG, ORCA_UCTX_CAP_SRQ_TAG },
	{ ORCA_DEV_CAP_XRC, ORCA_UCTX_CAP_XRC },
};

static void orca_ucontext_resp(struct orca_dev *odev,
			       struct orca_alloc_ucontext_resp *resp)
{
	const struct orca_caps *caps = &odev->caps;
	size_t i;

	resp->if_version = orca_rd32(odev, ORCA_REG_IF_VERSION);
	for (i = 0; i < ARRAY_SIZE(orca_uctx_cap_map); i++)
		if (caps->dev_caps & orca_uctx_cap_map[i].dev_cap)
			resp->caps |= orca_uctx_cap_map[i].uctx_cap;
	resp->max_inline_data = caps->max_inline_data;
	resp->max_send_sge = min_t(u32, caps->max_send_sge, ORCA_MAX_SGE);
	resp->max_recv_sge = min_t(u32, caps->max_recv_sge, ORCA_MAX_SGE);
	resp->max_sq_depth = caps->max_qp_wr;
	resp->max_cqe = caps->max_cqe;
	resp->cqe_size = sizeof(struct orca_cqe);
	if (caps->dev_caps & ORCA_DEV_CAP_SRQ) {
		resp->max_srq_wr = caps->max_srq_wr;
		resp->max_srq_sge = min_t(u32, caps->max_srq_sge, ORCA_MAX_SGE);
	}
}

int orca_alloc_ucontext(struct ib_ucontext *ibuctx, struct ib_udata *udata)
{
	struct orca_dev *odev = to_odev(ibuctx->device);
	struct orca_ucontext *uctx = to_ouctx(ibuctx);
	struct orca_alloc_ucontext_resp resp = {};
	struct orca_alloc_ucontext_req req;
	struct orca_uar_entry *entry;
	int err;

	/* The request may be absent, which is the same as all zeroes. */
	if (udata->inlen) {
		err = ib_copy_validate_udata_in_cm(udata, req, reserved, 0);
		if (err)
			return err;
		if (req.reserved)
			return -EINVAL;
	}
	/* A larger CPU page would map the neighbouring UARs too. */
	if (PAGE_SIZE != ORCA_UAR_PAGE_SIZE)
		return -EOPNOTSUPP;

	INIT_LIST_HEAD(&uctx->db_pages);
	mutex_init(&uctx->db_lock);

	entry = kzalloc_obj(*entry, GFP_KERNEL);
	if (!entry)
		return -ENOMEM;
	err = orca_com_alloc_uar(odev, &entry->uar_idx);
	if (err)
		goto err_free;
	if (((u64)entry->uar_idx + 1) * ORCA_UAR_PAGE_SIZE >
	    pci_resource_len(odev->pdev, ORCA_BAR_UAR)) {
		err = -EIO;
		goto err_dealloc;
	}
	err = rdma_user_mmap_entry_insert(ibuctx, &entry->rdma_entry,
					  PAGE_SIZE);
	if (err)
		goto err_dealloc;
	uctx->uar_idx = entry->uar_idx;
	uctx->uar_entry = &entry->rdma_entry;

	orca_ucontext_resp(odev, &resp);
	resp.uar_mmap_key = rdma_user_mmap_get_offset(uctx->uar_entry);
	err = ib_respond_udata(udata, resp);
	if (err) {
		/* Not mapped yet: orca_mmap_free() runs right away. */
		rdma_user_mmap_entry_remove(uctx->uar_entry);
		return err;
	}
	return 0;

err_dealloc:
	orca_com_destroy_obj(odev, ORCA_CMD_DEALLOC_UAR, entry->uar_idx);
err_free:
	kfree(entry);
	return err;
}

/*
 * Every queue of the context is gone (the core destroys them first), so no
 * doorbell page is left.  The UAR stays allocated while a VMA maps it.
 */
void orca_dealloc_ucontext(struct ib_ucontext *ibuctx)
{
	struct orca_ucontext *uctx = to_ouctx(ibuctx);

	WARN_ON_ONCE(!list_empty(&uctx->db_pages));
	rdma_user_mmap_entry_remove(uctx->uar_entry);
	mutex_destroy(&uctx->db_lock);
}

/*
 * Nothing to do: the core zaps the context's VMAs itself (which frees the
 * UAR through orca_mmap_free()) and destroys its objects.  Having the op
 * lets unplug and rmmod go ahead without waiting for the processes.
 */
void orca_disassociate_ucontext(struct ib_ucontext *ibuctx)
{
}

int orca_mmap(struct ib_ucontext *ibuctx, struct vm_area_struct *vma)
{
	struct orca_dev *odev = to_odev(ibuctx->device);
	struct rdma_user_mmap_entry *rdma_entry;
	phys_addr_t pa;
	int err;

	/* Checks VM_SHARED and that the VMA is exactly the entry's size. */
	rdma_entry = rdma_user_mmap_entry_get(ibuctx, vma);
	if (!rdma_entry)
		return -EINVAL;
	pa = pci_resource_start(odev->pdev, ORCA_BAR_UAR) +
	     (phys_addr_t)to_uar_entry(rdma_entry)->uar_idx *
	     ORCA_UAR_PAGE_SIZE;
	/* Four trapped 32-bit registers: no write combining. */
	err = rdma_user_mmap_io(ibuctx, vma, PHYS_PFN(pa), PAGE_SIZE,
				pgprot_noncached(vma->vm_page_prot),
				rdma_entry);
	rdma_user_mmap_entry_put(rdma_entry);
	return err;
}

/* The last reference to the UAR page is gone: the context and every VMA. */
void orca_mmap_free(struct rdma_user_mmap_entry *rdma_entry)
{
	struct orca_uar_entry *entry = to_uar_entry(rdma_entry);
	struct orca_dev *odev = to_odev(rdma_entry->ucontext->device);

	/* A failure (dead device) must not keep the entry. */
	orca_com_destroy_obj(odev, ORCA_CMD_DEALLOC_UAR, entry->uar_idx);
	kfree(entry);
}

/**
 * orca_udb_get() - pin the user page of a doorbell record
 * @uctx: the queue's context
 * @va: user address of the record
 * @len: size of the record
 * @page: result, the reference to give back with orca_udb_put()
 * @dma: result, the record's bus address for the adapter
 *
 * Records of several queues share a page, which is pinned once, writable:
 * the adapter writes the event indices.  A record must be naturally
 * aligned and within one page.
 *
 * Return: 0, -EINVAL for a misplaced record, or the pinning's error.
 */
int orca_udb_get(struct orca_ucontext *uctx, u64 va, size_t len,
		 struct orca_udb_page **page, dma_addr_t *dma)
{
	unsigned long off = va & ~PAGE_MASK;
	struct orca_udb_page *p;
	int err = 0;

	if (!va || va & (ORCA_UDB_REC_ALIGN - 1) || off + len > PAGE_SIZE)
		return -EINVAL;

	mutex_lock(&uctx->db_lock);
	/*
	 * Keyed by the address space the umem holds (ib_umem_get() grabs
	 * it): a raw current->mm of a process that has exited could be the
	 * same pointer as a new process's mm.
	 */
	list_for_each_entry(p, &uctx->db_pages, list)
		if (p->umem->owning_mm == current->mm &&
		    p->va == (va & PAGE_MASK))
			goto found;

	p = kzalloc_obj(*p, GFP_KERNEL);
	if (!p) {
		err = -ENOMEM;
		goto out;
	}
	p->umem = ib_umem_get_va(uctx->ibuctx.device, va & PAGE_MASK,
				 PAGE_SIZE, IB_ACCESS_LOCAL_WRITE);
	if (IS_ERR(p->umem)) {
		err = PTR_ERR(p->umem);
		kfree(p);
		goto out;
	}
	p->uctx = uctx;
	p->va = va & PAGE_MASK;
	list_add(&p->list, &uctx->db_pages);
found:
	p->refcnt++;
	*page = p;
	*dma = sg_dma_address(p->umem->sgt_append.sgt.sgl) + off;
out:
	mutex_unlock(&uctx->db_lock);
	return err;
}

/**
 * orca_udb_read() - copy a doorbell record out of its pinned user page
 * @page: the page orca_udb_get() returned for the record
 * @dma: the record's bus address from orca_udb_get()
 * @buf: receives the record
 * @len: its size, as given to orca_udb_get()
 *
 * For diagnostics (restrack, debugfs): the provider and the adapter keep
 * writing the record, so the copy is a snapshot.
 */
void orca_udb_read(const struct orca_udb_page *page, dma_addr_t dma,
		   void *buf, size_t len)
{
	struct scatterlist *sg = page->umem->sgt_append.sgt.sgl;
	size_t off = dma - sg_dma_address(sg);
	void *va;

	if (WARN_ON_ONCE(off + len > PAGE_SIZE)) {
		memset(buf, 0, len);
		return;
	}
	va = kmap_local_page(sg_page(sg));
	memcpy(buf, va + off, len);
	kunmap_local(va);
}

/* Called once the adapter forgot the queue whose record is in @page. */
void orca_udb_put(struct orca_udb_page *page)
{
	struct orca_ucontext *uctx = page->uctx;

	mutex_lock(&uctx->db_lock);
	if (!--page->refcnt) {
		list_del(&page->list);
		ib_umem_release(page->umem);
		kfree(page);
	}
	mutex_unlock(&uctx->db_lock);
}

/* What a user queue the adapter would not let go of holds. */
struct orca_user_kept {
	struct orca_udb_page *udb;
	struct ib_umem *umem[2];
};

static void orca_user_kept_release(struct orca_dev *odev, void *mem)
{
	struct orca_user_kept *k = mem;

	ib_umem_release(k->umem[0]);
	ib_umem_release(k->umem[1]);
	/* Single-threaded teardown: every other queue of the page is gone. */
	if (k->udb && !--k->udb->refcnt) {
		ib_umem_release(k->udb->umem);
		kfree(k->udb);
	}
}

/**
 * orca_user_keep() - keep what a user queue the adapter still has uses
 * @odev: device
 * @udb: the page of the queue's doorbell record, or NULL
 * @ring: the umem of a ring of the queue, or NULL
 * @ring2: the umem of its other ring (a QP's receive queue), or NULL
 *
 * For a destroy, or a create's undo, that the adapter refused: it may go
 * on writing the rings and the record, so their pages stay pinned until
 * the device is reset at teardown (orca_dev_keep()), the queue's reference
 * to @udb included, never put.  @udb leaves its context's list at once:
 * the provider reuses the record's address as soon as the destroy
 * returns, possibly on a page of its own that must be pinned anew, and the
 * context must find no page left when it goes.
 */
void orca_user_keep(struct orca_dev *odev, struct orca_udb_page *udb,
		    struct ib_umem *ring, struct ib_umem *ring2)
{
	struct orca_user_kept k = { .udb = udb, .umem = { ring, ring2 } };

	if (udb) {
		mutex_lock(&udb->uctx->db_lock);
		list_del_init(&udb->list);
		mutex_unlock(&udb->uctx->db_lock);
	}
	orca_dev_keep(odev, &k, sizeof(k), orca_user_kept_release);
}

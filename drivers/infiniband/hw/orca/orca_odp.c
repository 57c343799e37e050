// SPDX-License-Identifier: GPL-2.0
/*
 * ORCA on-demand paging (IB_ACCESS_ON_DEMAND), explicit MRs: the driver's
 * side of the adapter's page-fault protocol (data-path.rst, "On-demand
 * paging").  An on-demand MR is created empty (ORCA_MR_F_ON_DEMAND) over
 * an ib_umem_odp; an access to a page without a translation stops the
 * adapter's step and posts ORCA_EQE_PAGE_FAULT, whose record the EQ 0
 * handler copies and hands to a work item.  The work faults the pages in
 * through the core (ib_umem_odp_map_dma_and_lock()), DMA-maps them and
 * installs them with MR_INSTALL, which resumes the step.  The mmu
 * notifier removes translations with MR_INVALIDATE, which completes only
 * when the adapter can no longer reach them, before the core unmaps and
 * the pages go.
 *
 * Locking: umem_mutex (the core's, taken by map_dma_and_lock and by the
 * notifier) is held across MR_INSTALL and MR_INVALIDATE, so an install
 * never races an invalidation of the same pages.  The notifier may run in
 * reclaim: nothing under umem_mutex may wait for reclaim, so both paths
 * run their commands with memalloc_noreclaim_save().  The EQ 0 handler
 * only copies the record and queues work (on a WQ_MEM_RECLAIM queue):
 * the commands the work sends complete through EQ 0.
 *
 * Implicit MRs (ib_reg_mr(0, U64_MAX), ORCA_MR_F_IMPLICIT): one MR over
 * the whole address space, MR address = user address.  The core's
 * implicit umem is only a root; the pages are in child umems of
 * ORCA_ODP_CHILD_SHIFT bytes, each with its own notifier, made at the
 * first fault or prefetch in their range and kept until the MR goes.  A
 * child's notifier invalidates the MR's range of it, as an explicit MR's
 * does; once DESTROY_MR has dropped the MR (odp_gone), it only unmaps.
 */
#include <linux/hmm.h>
#include <linux/hmm-dma.h>
#include <linux/sched/mm.h>
#include <rdma/ib_umem_odp.h>

#include "orca_trace.h"
#include "orca_user.h"

/* Faults outstanding at once: the device's budget (SET_ODP). */
#define ORCA_ODP_FAULTS		64
/* Entries of one MR_INSTALL: one 4 KiB list. */
#define ORCA_ODP_ROUND		(PAGE_SIZE / sizeof(__le64))
/* What a fault maps beyond the bytes it needs, at most (its hint). */
#define ORCA_ODP_PREFETCH	SZ_2M
/* Tries of a fault's demand alone, after its hint failed or it raced. */
#define ORCA_ODP_TRIES		4
/* An implicit MR's children: 128 MiB, 512 KiB of core tables each. */
#define ORCA_ODP_CHILD_SHIFT	27

struct orca_odp_fault {
	struct orca_dev *odev;
	struct work_struct work;
	spinlock_t lock;		/* protects rec */
	struct orca_page_fault rec;
	ktime_t t0;			/* when rec came */
	__le64 *list;			/* MR_INSTALL's entries */
	dma_addr_t list_dma;
};

static void orca_odp_fault_work(struct work_struct *work);

static bool orca_odp_supported(struct orca_dev *odev)
{
	return IS_ENABLED(CONFIG_INFINIBAND_ON_DEMAND_PAGING) &&
	       (odev->caps.dev_caps & ORCA_DEV_CAP_ODP);
}

/* An on-demand MR over the whole address space: the core's flag says so. */
static bool orca_odp_mr_implicit(struct orca_mr *mr)
{
	return to_ib_umem_odp(mr->umem)->is_implicit_odp;
}

/* Implicit MRs: the device's address space holds every user address. */
static bool orca_odp_implicit_supported(struct orca_dev *odev)
{
	return (odev->caps.odp_caps & ORCA_ODP_CAP_IMPLICIT) &&
	       odev->caps.odp_implicit_va_bits <= 63 &&
	       BIT_ULL(odev->caps.odp_implicit_va_bits) >= TASK_SIZE_MAX;
}

static void orca_odp_free_slots(struct orca_dev *odev)
{
	struct orca_odp *odp = &odev->odp;
	struct device *dma = &odev->pdev->dev;
	u32 i;

	for (i = 0; odp->slots && i < odp->max_faults; i++)
		if (odp->slots[i].list)
			dma_free_coherent(dma, PAGE_SIZE, odp->slots[i].list,
					  odp->slots[i].list_dma);
	kfree(odp->slots);
	odp->slots = NULL;
	if (odp->table)
		dma_free_coherent(dma, odp->max_faults * sizeof(*odp->table),
				  odp->table, odp->table_dma);
	odp->table = NULL;
}

/*
 * SET_ODP, once, at the first on-demand MR: the record table and a list
 * buffer per slot, all allocated now so that no fault allocates.
 */
static int orca_odp_setup(struct orca_dev *odev)
{
	struct orca_odp *odp = &odev->odp;
	struct device *dma = &odev->pdev->dev;
	int err = 0;
	u32 i;

	mutex_lock(&odp->setup_lock);
	if (odp->slots)
		goto out;
	odp->max_faults = min_t(u32, ORCA_ODP_FAULTS, odev->caps.odp_max_faults);
	if (!odp->max_faults) {
		err = -EOPNOTSUPP;
		goto out;
	}
	odp->table = dma_alloc_coherent(dma,
					odp->max_faults * sizeof(*odp->table),
					&odp->table_dma, GFP_KERNEL);
	odp->slots = kcalloc(odp->max_faults, sizeof(*odp->slots), GFP_KERNEL);
	if (!odp->table || !odp->slots) {
		err = -ENOMEM;
		goto err;
	}
	for (i = 0; i < odp->max_faults; i++) {
		struct orca_odp_fault *f = &odp->slots[i];

		f->odev = odev;
		spin_lock_init(&f->lock);
		INIT_WORK(&f->work, orca_odp_fault_work);
		f->list = dma_alloc_coherent(dma, PAGE_SIZE, &f->list_dma,
					     GFP_KERNEL);
		if (!f->list) {
			err = -ENOMEM;
			goto err;
		}
	}
	err = orca_com_set_odp(odev, odp->table_dma, odp->max_faults, 0);
	if (!err)
		goto out;
err:
	/* A refused SET_ODP left the device without the table's address. */
	orca_odp_free_slots(odev);
out:
	mutex_unlock(&odp->setup_lock);
	return err;
}

/* The MR of a fault record's key, with a reference; NULL if it is gone. */
static struct orca_mr *orca_odp_get_mr(struct orca_dev *odev, u32 mkey)
{
	struct orca_mr *mr;

	xa_lock(&odev->odp.mrs);
	mr = xa_load(&odev->odp.mrs, FIELD_GET(ORCA_MKEY_INDEX, mkey));
	if (mr && (mr->ibmr.lkey != mkey ||
		   !refcount_inc_not_zero(&mr->odp_users)))
		mr = NULL;
	xa_unlock(&odev->odp.mrs);
	return mr;
}

static void orca_odp_put_mr(struct orca_mr *mr)
{
	if (refcount_dec_and_test(&mr->odp_users))
		complete(&mr->odp_done);
}

/*
 * The MR address of the first byte of page @idx of @odp (@mr's umem, or
 * one of an implicit MR's children, whose MR addresses are user ones).
 */
static u64 orca_odp_page_va(struct orca_mr *mr, struct ib_umem_odp *odp,
			    size_t idx)
{
	if (orca_odp_mr_implicit(mr))
		return ib_umem_start(odp) + ((u64)idx << odp->page_shift);
	return ALIGN_DOWN(mr->ibmr.iova, BIT(odp->page_shift)) +
	       ((u64)idx << odp->page_shift);
}

/* An MR_INSTALL's list: one page the device reads, and its bus address. */
struct orca_odp_list {
	__le64 *e;
	dma_addr_t dma;
};

/*
 * Faults in (or, without @fault, takes what is present of) and installs
 * the user pages [@uva, @uva + @len) of @odp, @mr's umem or a child of
 * it, writable if @mask asks for HMM_PFN_WRITE, in rounds of one @list;
 * the last round resumes @token when @resume.  Called and returns
 * without umem_mutex.
 */
static int orca_odp_map(struct orca_dev *odev, struct orca_mr *mr,
			struct ib_umem_odp *odp,
			const struct orca_odp_list *list, u64 uva, u64 len,
			u64 mask, bool fault, u32 token, bool resume)
{
	u64 psz = BIT(odp->page_shift), end = uva + len;
	struct pci_p2pdma_map_state p2p = {};
	unsigned int noreclaim;
	int npages, i, err;
	bool resumed;
	size_t first;

	uva = ALIGN_DOWN(uva, psz);
	while (uva < end) {
		u64 n = min_t(u64, end - uva, ORCA_ODP_ROUND * psz);
		bool last = uva + n >= end;

		npages = ib_umem_odp_map_dma_and_lock(odp, uva, n, mask, fault);
		if (npages < 0)
			return npages;
		/* umem_mutex held: no invalidation until the install. */
		first = (uva - ib_umem_start(odp)) >> odp->page_shift;
		for (i = 0; i < npages; i++) {
			unsigned long pfn = odp->map.pfn_list[first + i];
			bool mapped = pfn & HMM_PFN_DMA_MAPPED;
			dma_addr_t addr;
			u64 e = 0;

			if (pfn & HMM_PFN_VALID) {
				addr = hmm_dma_map_pfn(odev->ibdev.dma_device,
						       &odp->map, first + i,
						       &p2p);
				if (ib_dma_mapping_error(&odev->ibdev, addr)) {
					mutex_unlock(&odp->umem_mutex);
					return -EFAULT;
				}
				if (!mapped)
					odp->npages++;
				e = (addr & ORCA_XLT_ADDR) | ORCA_XLT_READ;
				if (pfn & HMM_PFN_WRITE)
					e |= ORCA_XLT_WRITE;
			}
			list->e[i] = cpu_to_le64(e);
		}
		noreclaim = memalloc_noreclaim_save();
		err = orca_com_mr_install(odev, mr->ibmr.lkey,
					  orca_odp_page_va(mr, odp, first),
					  npages, list->dma,
					  last && resume ?
					  ORCA_MR_INSTALL_F_RESUME : 0,
					  token, &resumed);
		memalloc_noreclaim_restore(noreclaim);
		mutex_unlock(&odp->umem_mutex);
		if (err)
			return err;
		if (last && resume && !resumed)
			orca_drv_stat_inc(odev, ORCA_DRV_STAT_ODP_STALE);
		orca_drv_stat_add(odev, ORCA_DRV_STAT_ODP_PAGES, npages);
		uva += (u64)npages << odp->page_shift;
		if (!npages)
			break;
	}
	return 0;
}

static const struct mmu_interval_notifier_ops orca_odp_mn_ops;

/* The child of implicit @mr that holds user address @uva, made if new. */
static struct ib_umem_odp *orca_odp_child(struct orca_mr *mr, u64 uva)
{
	unsigned long idx = uva >> ORCA_ODP_CHILD_SHIFT;
	struct ib_umem_odp *child;
	int err;

	/* Children go only at dereg, after every user of the MR. */
	child = xa_load(&mr->odp_children, idx);
	if (child)
		return child;
	mutex_lock(&mr->odp_child_lock);
	child = xa_load(&mr->odp_children, idx);
	if (child)
		goto out;
	child = ib_umem_odp_alloc_child(to_ib_umem_odp(mr->umem),
					(unsigned long)idx << ORCA_ODP_CHILD_SHIFT,
					BIT_ULL(ORCA_ODP_CHILD_SHIFT),
					&orca_odp_mn_ops);
	if (IS_ERR(child))
		goto out;
	mutex_lock(&child->umem_mutex);
	child->private = mr;
	mutex_unlock(&child->umem_mutex);
	err = xa_err(xa_store(&mr->odp_children, idx, child, GFP_KERNEL));
	if (err) {
		ib_umem_odp_release(child);
		child = ERR_PTR(err);
	}
out:
	mutex_unlock(&mr->odp_child_lock);
	return child;
}

/*
 * orca_odp_map() for any on-demand MR: an implicit one's range child by
 * child (the last resumes), an explicit one's in its umem.
 */
static int orca_odp_map_range(struct orca_dev *odev, struct orca_mr *mr,
			      const struct orca_odp_list *list, u64 uva,
			      u64 len, u64 mask, bool fault, u32 token,
			      bool resume)
{
	u64 end = uva + len, next;
	struct ib_umem_odp *child;
	int err;

	if (!orca_odp_mr_implicit(mr))
		return orca_odp_map(odev, mr, to_ib_umem_odp(mr->umem), list,
				    uva, len, mask, fault, token, resume);
	while (uva < end) {
		next = min(end, ALIGN_DOWN(uva, BIT_ULL(ORCA_ODP_CHILD_SHIFT)) +
				BIT_ULL(ORCA_ODP_CHILD_SHIFT));
		child = orca_odp_child(mr, uva);
		if (IS_ERR(child))
			return PTR_ERR(child);
		err = orca_odp_map(odev, mr, child, list, uva, next - uva,
				   mask, fault, token, resume && next == end);
		if (err)
			return err;
		uva = next;
	}
	return 0;
}

/*
 * The user addresses an access at MR address @va may map: of an explicit
 * MR, what of its umem follows; of an implicit one, the device's space
 * (the core refuses what is beyond the process's).  0: outside the MR.
 */
static u64 orca_odp_span(struct orca_dev *odev, struct orca_mr *mr, u64 va,
			 u64 *uva)
{
	struct ib_umem *umem = mr->umem;

	if (orca_odp_mr_implicit(mr)) {
		u64 top = BIT_ULL(odev->caps.odp_implicit_va_bits);

		*uva = va;
		return va < top ? top - va : 0;
	}
	if (va < mr->ibmr.iova || va - mr->ibmr.iova >= mr->ibmr.length)
		return 0;
	*uva = umem->address + (va - mr->ibmr.iova);
	return umem->address + umem->length - *uva;
}

static void orca_odp_fail(struct orca_dev *odev, u32 token)
{
	orca_drv_stat_inc(odev, ORCA_DRV_STAT_ODP_FAULT_ERRORS);
	orca_com_mr_install(odev, 0, 0, 0, 0, ORCA_MR_INSTALL_F_FAIL, token,
			    NULL);
}

/* A fault's time from its event to its answer, in the driver's counters. */
static void orca_odp_latency(struct orca_dev *odev, ktime_t t0)
{
	u64 us = ktime_us_delta(ktime_get(), t0);

	orca_drv_stat_add(odev, ORCA_DRV_STAT_ODP_FAULT_US, us);
	orca_drv_stat_max(odev, ORCA_DRV_STAT_ODP_FAULT_US_MAX, us);
}

static void orca_odp_fault_work(struct work_struct *work)
{
	struct orca_odp_fault *f =
		container_of(work, struct orca_odp_fault, work);
	struct orca_dev *odev = f->odev;
	struct orca_odp_list list = { f->list, f->list_dma };
	struct orca_page_fault rec;
	u64 uva, need, more, span;
	struct ib_umem *umem;
	struct orca_mr *mr;
	int err, tries;
	ktime_t t0;
	u64 mask;

	/* The slot may be reused once this fault ends: a copy first. */
	spin_lock(&f->lock);
	rec = f->rec;
	t0 = f->t0;
	spin_unlock(&f->lock);
	mr = orca_odp_get_mr(odev, le32_to_cpu(rec.mkey));
	if (!mr) {
		orca_odp_fail(odev, le32_to_cpu(rec.token));
		trace_orca_odp_resolve(odev, le32_to_cpu(rec.token), -ENOENT,
				       t0);
		orca_odp_latency(odev, t0);
		return;
	}
	umem = mr->umem;
	/* Writable whenever the MR is: the next write needs no fault. */
	mask = umem->writable ? HMM_PFN_WRITE : 0;
	need = le32_to_cpu(rec.length);
	more = min_t(u64, le32_to_cpu(rec.prefetch), ORCA_ODP_PREFETCH);
	err = -EFAULT;
	/* The device checked the MR's bounds; the record is still checked. */
	span = orca_odp_span(odev, mr, le64_to_cpu(rec.va), &uva);
	if (span) {
		need = min(need ? need : 1, span);
		more = min(more, span - need);
		err = orca_odp_map_range(odev, mr, &list, uva, need + more,
					 mask, true, le32_to_cpu(rec.token),
					 true);
		/*
		 * The hint is a guess and costs the fault nothing: one that
		 * reaches an unmapped page (-EFAULT) or memory the process
		 * kept changing (-EBUSY: hmm's retries ran out) goes, and the
		 * demand alone is tried, again while it keeps changing.
		 */
		for (tries = 0; err && (more || err == -EBUSY) &&
		     tries < ORCA_ODP_TRIES; tries++) {
			more = 0;
			err = orca_odp_map_range(odev, mr, &list, uva, need,
						 mask, true,
						 le32_to_cpu(rec.token), true);
		}
	}
	if (err) {
		ibdev_dbg(&odev->ibdev, "page fault of QP %u at %#llx: %d\n",
			  le32_to_cpu(rec.qpn), le64_to_cpu(rec.va), err);
		orca_odp_fail(odev, le32_to_cpu(rec.token));
	}
	trace_orca_odp_resolve(odev, le32_to_cpu(rec.token), err, t0);
	orca_odp_latency(odev, t0);
	orca_odp_put_mr(mr);
}

/**
 * orca_odp_fault_event() - ORCA_EQE_PAGE_FAULT from EQ 0
 * @odev: device
 * @eqe: the event: data is the fault's token
 *
 * Copies the record the device wrote before the event and queues the
 * slot's work; allocates nothing.  A record whose token is not the
 * event's belongs to a fault cancelled meanwhile: dropped.
 */
void orca_odp_fault_event(struct orca_dev *odev, const struct orca_eqe *eqe)
{
	struct orca_odp *odp = &odev->odp;
	u32 token = le32_to_cpu(eqe->data);
	u32 slot = FIELD_GET(ORCA_PF_TOKEN_SLOT, token);
	struct orca_odp_fault *f;
	bool ours;

	if (!odp->slots || slot >= odp->max_faults) {
		orca_drv_stat_inc(odev, ORCA_DRV_STAT_BAD_EQES);
		return;
	}
	f = &odp->slots[slot];
	spin_lock(&f->lock);
	dma_rmb();
	memcpy(&f->rec, &odp->table[slot], sizeof(f->rec));
	f->t0 = ktime_get();
	ours = le32_to_cpu(f->rec.token) == token;
	spin_unlock(&f->lock);
	if (!ours) {
		orca_drv_stat_inc(odev, ORCA_DRV_STAT_ODP_STALE);
		return;
	}
	orca_drv_stat_inc(odev, ORCA_DRV_STAT_ODP_FAULTS);
	trace_orca_odp_fault(odev, &f->rec);
	queue_work(odp->wq, &f->work);
}

/*
 * The mmu notifier: the pages of [range) are going.  The adapter loses
 * their translations (MR_INVALIDATE completes only once it can no longer
 * reach them) before the core unmaps them.
 */
static bool orca_odp_invalidate(struct mmu_interval_notifier *mni,
				const struct mmu_notifier_range *range,
				unsigned long cur_seq)
{
	struct ib_umem_odp *odp =
		container_of(mni, struct ib_umem_odp, notifier);
	struct orca_mr *mr;
	unsigned int noreclaim;
	u64 start, end, va;
	int err;

	if (!mmu_notifier_range_blockable(range))
		return false;
	mutex_lock(&odp->umem_mutex);
	mmu_interval_set_seq(mni, cur_seq);
	start = max_t(u64, ib_umem_start(odp), range->start);
	end = min_t(u64, ib_umem_end(odp), range->end);
	mr = odp->private;
	/* An implicit MR's child: the MR may be gone from the device. */
	if (mr && orca_odp_mr_implicit(mr))
		mutex_lock(&mr->odp_inval_lock);
	if (mr && !mr->odp_gone && odp->npages && start < end) {
		struct orca_dev *odev = to_odev(mr->ibmr.device);

		start = ALIGN_DOWN(start, BIT(odp->page_shift));
		end = ALIGN(end, BIT(odp->page_shift));
		va = orca_odp_page_va(mr, odp, (start - ib_umem_start(odp)) >>
					      odp->page_shift);
		noreclaim = memalloc_noreclaim_save();
		err = orca_com_mr_invalidate(odev, mr->ibmr.lkey, va,
					     end - start, false);
		memalloc_noreclaim_restore(noreclaim);
		/* A device that may still read the pages must be fenced. */
		if (err && !orca_dev_is_dead(odev))
			orca_dev_mark_dead(odev, "MR_INVALIDATE failed");
		orca_drv_stat_inc(odev, ORCA_DRV_STAT_ODP_INVALIDATIONS);
	}
	if (mr && orca_odp_mr_implicit(mr))
		mutex_unlock(&mr->odp_inval_lock);
	ib_umem_odp_unmap_dma_pages(odp, start, end);
	mutex_unlock(&odp->umem_mutex);
	return true;
}

static const struct mmu_interval_notifier_ops orca_odp_mn_ops = {
	.invalidate = orca_odp_invalidate,
};

/* CREATE_MR of on-demand @mr (@p: flags, page_shift, iova, length set). */
static int orca_odp_create(struct orca_dev *odev, struct ib_pd *ibpd,
			   struct orca_mr *mr, struct orca_com_mr_params *p)
{
	refcount_set(&mr->odp_users, 1);
	init_completion(&mr->odp_done);
	mr->odp = true;
	p->pdn = to_opd(ibpd)->pdn;
	p->access = orca_access_to_hw(odev, mr->access & ~IB_ACCESS_ON_DEMAND);
	return orca_mr_create(odev, mr, p);
}

/* @mr's key in the table faults look MRs up in; on failure @mr is gone. */
static int orca_odp_publish(struct orca_dev *odev, struct orca_mr *mr)
{
	int err = xa_err(xa_store(&odev->odp.mrs,
				  FIELD_GET(ORCA_MKEY_INDEX, mr->ibmr.lkey),
				  mr, GFP_KERNEL));

	if (err)
		orca_odp_dereg_mr(odev, mr);
	return err;
}

/*
 * ib_reg_mr(0, U64_MAX, ON_DEMAND): the whole address space.  The core's
 * implicit umem is the root its children hang from (orca_odp_child()).
 */
static struct ib_mr *orca_odp_reg_implicit(struct ib_pd *ibpd, int access)
{
	struct orca_dev *odev = to_odev(ibpd->device);
	struct orca_com_mr_params p = {};
	struct ib_umem_odp *root;
	struct orca_mr *mr;
	int err;

	if (!orca_odp_implicit_supported(odev))
		return ERR_PTR(-EOPNOTSUPP);
	err = orca_odp_setup(odev);
	if (err)
		return ERR_PTR(err);
	mr = kzalloc_obj(*mr, GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	root = ib_umem_odp_alloc_implicit(ibpd->device, access);
	if (IS_ERR(root)) {
		kfree(mr);
		return ERR_CAST(root);
	}
	mr->umem = &root->umem;
	mr->access = access;
	xa_init(&mr->odp_children);
	mutex_init(&mr->odp_child_lock);
	mutex_init(&mr->odp_inval_lock);
	p.flags = ORCA_MR_F_ON_DEMAND | ORCA_MR_F_IMPLICIT;
	p.page_shift = PAGE_SHIFT;
	err = orca_odp_create(odev, ibpd, mr, &p);
	if (err) {
		ib_umem_odp_release(root);
		kfree(mr);
		return ERR_PTR(err);
	}
	mr->ibmr.iova = 0;
	mr->ibmr.length = U64_MAX;
	err = orca_odp_publish(odev, mr);
	return err ? ERR_PTR(err) : &mr->ibmr;
}

/**
 * orca_odp_reg_user_mr() - register an explicit on-demand MR
 * @ibpd: its PD
 * @start: user address
 * @length: bytes
 * @iova: the MR's first I/O virtual address
 * @access: IB_ACCESS_*, ON_DEMAND among them
 *
 * Nothing is pinned: the device faults the pages in when it needs them.
 * @start 0 and @length U64_MAX ask for an implicit MR, the whole address
 * space (with ORCA_ODP_CAP_IMPLICIT).  A hugetlbfs range
 * (IB_ACCESS_HUGETLB) is translated in base pages.
 *
 * Return: the MR, or an ERR_PTR.
 */
struct ib_mr *orca_odp_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
				   u64 iova, int access)
{
	struct orca_dev *odev = to_odev(ibpd->device);
	struct orca_com_mr_params p = {};
	struct ib_umem_odp *odp;
	struct orca_mr *mr;
	int err;

	if (!orca_odp_supported(odev))
		return ERR_PTR(-EOPNOTSUPP);
	if (!start && length == U64_MAX)
		return orca_odp_reg_implicit(ibpd, access);
	if ((start ^ iova) & ~PAGE_MASK)
		return ERR_PTR(-EINVAL);
	err = orca_odp_setup(odev);
	if (err)
		return ERR_PTR(err);
	mr = kzalloc_obj(*mr, GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	/*
	 * Without IB_ACCESS_HUGETLB: the umem's pages are then base pages
	 * even in a huge page mapping (hmm_range_fault() reports each), which
	 * ib_umem_odp_map_dma_and_lock() and ib_umem_odp_unmap_dma_pages()
	 * index alike; at a huge page_shift the first counts its pfn_list in
	 * base pages and the second in huge ones.
	 */
	odp = ib_umem_odp_get(ibpd->device, start, length,
			      access & ~IB_ACCESS_HUGETLB, &orca_odp_mn_ops);
	if (IS_ERR(odp)) {
		kfree(mr);
		return ERR_CAST(odp);
	}
	mr->umem = &odp->umem;
	mr->access = access;
	p.flags = ORCA_MR_F_ON_DEMAND;
	p.page_shift = odp->page_shift;
	p.iova = iova;
	p.length = length;
	err = orca_odp_create(odev, ibpd, mr, &p);
	if (err)
		goto err_umem;
	mr->ibmr.iova = iova;
	mr->ibmr.length = length;
	mutex_lock(&odp->umem_mutex);
	odp->private = mr;
	mutex_unlock(&odp->umem_mutex);
	err = orca_odp_publish(odev, mr);
	return err ? ERR_PTR(err) : &mr->ibmr;

err_umem:
	ib_umem_odp_release(odp);
	kfree(mr);
	return ERR_PTR(err);
}

/* DESTROY_MR's failure, as orca_odp_dereg_mr() handles it. */
static void orca_odp_destroyed(struct orca_dev *odev, struct orca_mr *mr,
			       int err)
{
	if (err && !orca_dev_is_dead(odev) &&
	    orca_com_mr_invalidate(odev, mr->ibmr.lkey, 0, 0, true))
		orca_dev_mark_dead(odev, "an on-demand MR stayed mapped");
}

/* The key's entry gone, and every fault work and prefetch done with @mr. */
static void orca_odp_unpublish(struct orca_dev *odev, struct orca_mr *mr)
{
	xa_cmpxchg(&odev->odp.mrs, FIELD_GET(ORCA_MKEY_INDEX, mr->ibmr.lkey),
		   mr, NULL, GFP_KERNEL);
	orca_odp_put_mr(mr);
	wait_for_completion(&mr->odp_done);
}

/*
 * An implicit MR: DESTROY_MR under odp_inval_lock, after which the
 * children's notifiers only unmap (odp_gone); then the children, whose
 * release waits out their notifiers, and the root.
 */
static int orca_odp_dereg_implicit(struct orca_dev *odev, struct orca_mr *mr)
{
	struct ib_umem_odp *child;
	unsigned int noreclaim;
	unsigned long idx;
	int err;

	mutex_lock(&mr->odp_inval_lock);
	/* A notifier in reclaim waits for this lock: no reclaim under it. */
	noreclaim = memalloc_noreclaim_save();
	err = orca_com_destroy_obj(odev, ORCA_CMD_DESTROY_MR, mr->ibmr.lkey);
	if (err != -EBUSY) {
		orca_odp_destroyed(odev, mr, err);
		mr->odp_gone = true;
	}
	memalloc_noreclaim_restore(noreclaim);
	mutex_unlock(&mr->odp_inval_lock);
	if (err == -EBUSY)
		return err;
	orca_odp_unpublish(odev, mr);
	xa_for_each(&mr->odp_children, idx, child)
		ib_umem_odp_release(child);
	xa_destroy(&mr->odp_children);
	mutex_destroy(&mr->odp_child_lock);
	mutex_destroy(&mr->odp_inval_lock);
	ib_umem_odp_release(to_ib_umem_odp(mr->umem));
	kfree(mr);
	return 0;
}

/**
 * orca_odp_dereg_mr() - destroy an on-demand MR
 * @odev: device
 * @mr: the MR
 *
 * DESTROY_MR under umem_mutex, so that no install runs beside it; the
 * device cancels the MR's faults.  A live device that refuses the destroy
 * loses the MR's translations instead (MR_INVALIDATE of all), or is fenced:
 * the pages go with the umem either way.  Fault work that still holds the
 * MR is waited for before the umem is released.
 *
 * Return: 0, or -EBUSY (windows bound to it: the MR stays).
 */
int orca_odp_dereg_mr(struct orca_dev *odev, struct orca_mr *mr)
{
	struct ib_umem_odp *odp = to_ib_umem_odp(mr->umem);
	int err;

	if (orca_odp_mr_implicit(mr))
		return orca_odp_dereg_implicit(odev, mr);
	mutex_lock(&odp->umem_mutex);
	err = orca_com_destroy_obj(odev, ORCA_CMD_DESTROY_MR, mr->ibmr.lkey);
	if (err == -EBUSY) {
		mutex_unlock(&odp->umem_mutex);
		return err;
	}
	orca_odp_destroyed(odev, mr, err);
	odp->private = NULL;
	mutex_unlock(&odp->umem_mutex);
	orca_odp_unpublish(odev, mr);
	ib_umem_odp_release(odp);
	kfree(mr);
	return 0;
}

/**
 * orca_advise_mr() - ibv_advise_mr(): prefetch pages of on-demand MRs
 * @pd: the MRs' PD
 * @advice: PREFETCH (readable), PREFETCH_WRITE (writable) or
 *	PREFETCH_NO_FAULT (install what is present, fault nothing)
 * @flags: IB_UVERBS_ADVISE_MR_FLAG_FLUSH or 0
 * @sg_list: MR address ranges and their lkeys
 * @num_sge: entries of @sg_list
 * @attrs: unused
 *
 * Pages are installed as a fault's would be, without resuming anything.
 * The work is done before returning, with or without FLUSH (which asks
 * for just that); the errors are mlx5's: -ENOENT for a key that is no
 * on-demand MR, -EPERM for another PD's or a write the MR does not allow.
 *
 * Return: 0 or a negative errno.
 */
int orca_advise_mr(struct ib_pd *pd, enum ib_uverbs_advise_mr_advice advice,
		   u32 flags, struct ib_sge *sg_list, u32 num_sge,
		   struct uverbs_attr_bundle *attrs)
{
	struct orca_dev *odev = to_odev(pd->device);
	bool fault = advice != IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT;
	struct orca_odp_list list;
	int err = 0;
	u32 i;

	if (!orca_odp_supported(odev))
		return -EOPNOTSUPP;
	if (advice > IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT ||
	    (flags & ~IB_UVERBS_ADVISE_MR_FLAG_FLUSH))
		return -EOPNOTSUPP;
	list.e = dma_alloc_coherent(&odev->pdev->dev, PAGE_SIZE, &list.dma,
				    GFP_KERNEL);
	if (!list.e)
		return -ENOMEM;
	for (i = 0; i < num_sge && !err; i++) {
		u64 va = sg_list[i].addr, len = sg_list[i].length;
		struct orca_mr *mr = orca_odp_get_mr(odev, sg_list[i].lkey);
		u64 mask, uva;

		if (!mr) {
			err = -ENOENT;
			break;
		}
		mask = advice == IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_WRITE ||
		       (!fault && mr->umem->writable) ? HMM_PFN_WRITE : 0;
		if (mr->ibmr.pd != pd)
			err = -EPERM;
		else if (advice == IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_WRITE &&
			 !mr->umem->writable)
			err = -EPERM;
		else if (len && orca_odp_span(odev, mr, va, &uva) < len)
			err = -EFAULT;
		else if (len)
			err = orca_odp_map_range(odev, mr, &list, uva, len,
						 mask, fault, 0, false);
		orca_odp_put_mr(mr);
	}
	dma_free_coherent(&odev->pdev->dev, PAGE_SIZE, list.e, list.dma);
	return err;
}

/* The core's odp_caps from the device's ORCA_ODP_OP_* (the same bits). */
void orca_odp_query(struct orca_dev *odev, struct ib_device_attr *attr)
{
	struct ib_odp_caps *c = &attr->odp_caps;

	static_assert(ORCA_ODP_OP_SEND == IB_ODP_SUPPORT_SEND);
	static_assert(ORCA_ODP_OP_SRQ_RECV == IB_ODP_SUPPORT_SRQ_RECV);
	static_assert(ORCA_ODP_OP_ATOMIC_WRITE == IB_ODP_SUPPORT_ATOMIC_WRITE);
	if (!orca_odp_supported(odev))
		return;
	attr->kernel_cap_flags |= IBK_ON_DEMAND_PAGING;
	c->general_caps = IB_ODP_SUPPORT;
	if (orca_odp_implicit_supported(odev))
		c->general_caps |= IB_ODP_SUPPORT_IMPLICIT;
	c->per_transport_caps.rc_odp_caps = odev->caps.odp_rc_ops & 0xff;
	c->per_transport_caps.ud_odp_caps = odev->caps.odp_ud_ops & 0xff;
	c->per_transport_caps.xrc_odp_caps = odev->caps.odp_xrc_ops & 0xff;
}

int orca_odp_init(struct orca_dev *odev)
{
	struct orca_odp *odp = &odev->odp;

	mutex_init(&odp->setup_lock);
	xa_init(&odp->mrs);
	if (!orca_odp_supported(odev))
		return 0;
	odp->wq = alloc_workqueue("orca_odp", WQ_UNBOUND | WQ_MEM_RECLAIM |
				  WQ_HIGHPRI, 0);
	return odp->wq ? 0 : -ENOMEM;
}

/* After the ib_device is gone: no MR, so no fault is left. */
void orca_odp_cleanup(struct orca_dev *odev)
{
	struct orca_odp *odp = &odev->odp;

	if (odp->wq)
		destroy_workqueue(odp->wq);
	odp->wq = NULL;
	/* No MR is left to fault, and a dead device is fenced. */
	orca_odp_free_slots(odev);
	xa_destroy(&odp->mrs);
	mutex_destroy(&odp->setup_lock);
}

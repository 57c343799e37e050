/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ORCA user verbs: user contexts with their UAR page and doorbell record
 * pages, user queue rings, and the user paths of PDs, MRs, CQs, QPs, SRQs
 * and AHs; the uverbs ABI they speak is <rdma/orca-abi.h>.
 */
#ifndef ORCA_USER_H
#define ORCA_USER_H

#include <rdma/orca-abi.h>

#include "orca_verbs.h"

/**
 * struct orca_ucontext - a process's verbs context
 * @ibuctx: the core's context
 * @uar_idx: the context's UAR page (ALLOC_UAR), the wakeups of its queues
 * @uar_entry: mmap entry of the UAR page; DEALLOC_UAR when its last map goes
 * @db_lock: protects @db_pages
 * @db_pages: pinned pages holding the doorbell records of its queues
 */
struct orca_ucontext {
	struct ib_ucontext ibuctx;
	u32 uar_idx;
	struct rdma_user_mmap_entry *uar_entry;
	struct mutex db_lock;		/* db_pages */
	struct list_head db_pages;
};

/**
 * struct orca_udb_page - a user page of doorbell records, pinned once
 * @list: entry in orca_ucontext.db_pages
 * @uctx: owning context
 * @va: page-aligned user address
 * @umem: the pinned page; its owning_mm, which it holds, is the address
 *	space of @va (a forked child's page is another page)
 * @refcnt: records of live queues in the page; under @uctx->db_lock
 */
struct orca_udb_page {
	struct list_head list;
	struct orca_ucontext *uctx;
	unsigned long va;
	struct ib_umem *umem;
	unsigned int refcnt;
};

static inline struct orca_ucontext *to_ouctx(struct ib_ucontext *ibuctx)
{
	return container_of(ibuctx, struct orca_ucontext, ibuctx);
}

/* orca_ucontext.c: user contexts, their UAR page and doorbell records */
int orca_alloc_ucontext(struct ib_ucontext *ibuctx, struct ib_udata *udata);
void orca_dealloc_ucontext(struct ib_ucontext *ibuctx);
void orca_disassociate_ucontext(struct ib_ucontext *ibuctx);
int orca_mmap(struct ib_ucontext *ibuctx, struct vm_area_struct *vma);
void orca_mmap_free(struct rdma_user_mmap_entry *entry);
int orca_udb_get(struct orca_ucontext *uctx, u64 va, size_t len,
		 struct orca_udb_page **page, dma_addr_t *dma);

/* orca_umem.c: user queue rings */
#define ORCA_UQUEUE_PAGE_SHIFT	12
int orca_uring_check(struct orca_dev *odev, const char *what, u64 va,
		     u64 len, size_t bytes, size_t *needed);
struct ib_umem *orca_uring_get(struct orca_dev *odev, u64 va, size_t needed);
struct ib_umem *orca_uring_pin(struct orca_dev *odev, const char *what,
			       u64 va, u64 len, size_t bytes,
			       struct orca_pgl *pgl, struct orca_com_ring *ring);
int orca_pgl_add_umem(struct orca_pgl *pgl, struct ib_umem *umem,
		      size_t needed);
int orca_uqueue_create(struct orca_ucontext *uctx, struct orca_cq *cq,
		       struct orca_srq *srq, size_t needed, u64 db_rec_va,
		       struct ib_udata *udata);

/* orca_user_cq.c */
int orca_create_user_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
			struct uverbs_attr_bundle *attrs);
int orca_resize_user_cq(struct ib_cq *ibcq, unsigned int cqe,
			struct ib_udata *udata);

/* orca_user_mr.c */
struct ib_mr *orca_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
			       u64 iova, int access, struct ib_dmah *dmah,
			       struct ib_udata *udata);
struct ib_mr *orca_reg_user_mr_dmabuf(struct ib_pd *ibpd, u64 offset,
				      u64 length, u64 iova, int fd,
				      int access, struct ib_dmah *dmah,
				      struct uverbs_attr_bundle *attrs);
struct ib_mr *orca_rereg_user_mr(struct ib_mr *ibmr, int flags, u64 start,
				 u64 length, u64 iova, int access,
				 struct ib_pd *ibpd, struct ib_udata *udata);
int orca_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata);
int orca_dealloc_mw(struct ib_mw *ibmw);

/* orca_user_ah.c */
int orca_create_user_ah(struct ib_ah *ibah,
			struct rdma_ah_init_attr *init_attr,
			struct ib_udata *udata);

#endif /* ORCA_USER_H */

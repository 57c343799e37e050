// SPDX-License-Identifier: GPL-2.0
/*
 * Memory checks and data movement for the RoCEv2 transport: lkey/rkey
 * lookup (index, key byte, validity, PD, access rights, bounds), copies
 * between MRs or SGE lists and packet buffers page by page, and the
 * fast-registration work requests (REG_MR, LOCAL_INV, remote invalidate),
 * and memory windows (BIND_MW, their invalidation, rkeys that name one).
 * Every key and address comes from the guest or the wire and is checked
 * here before a byte moves.
 */
#include <stdlib.h>
#include <string.h>

#include "roce_priv.h"

int roce_mr_check_key(struct orca_engine *eng, uint32_t key, uint32_t pdn,
		      uint32_t access, struct emu_mr **out)
{
	struct emu_mr *mr = objtab_get(&eng->mrs,
				       FIELD_GET(ORCA_MKEY_INDEX, key));

	/* A window's rkey is no lkey (and reaches no MR here). */
	if (!mr || mr->mw_type || !mr->valid ||
	    mr->key != FIELD_GET(ORCA_MKEY_KEY, key) || mr->pdn != pdn)
		return ORCA_CQE_ST_LOC_PROT_ERR;
	/* Local read is always allowed; everything else must be granted. */
	if ((mr->access & access) != access)
		return ORCA_CQE_ST_LOC_PROT_ERR;
	*out = mr;
	return 0;
}

int roce_mr_check(struct orca_engine *eng, uint32_t key, uint32_t pdn,
		  uint64_t va, uint64_t len, uint32_t access,
		  struct emu_mr **out)
{
	struct emu_mr *mr;
	int err = roce_mr_check_key(eng, key, pdn, access, &mr);

	if (err)
		return err;
	if (va < mr->iova || len > mr->length ||
	    va - mr->iova > mr->length - len)
		return ORCA_CQE_ST_LOC_PROT_ERR;
	if (out)
		*out = mr;
	return 0;
}

/*
 * DMA address of MR address @va and the bytes contiguous from there (0:
 * none).  An on-demand MR's page may have no translation, or none that
 * allows a @write: then *@miss is set too.
 */
static uint64_t mr_dma(const struct emu_mr *mr, uint64_t va, bool write,
		       uint64_t *contig, bool *miss)
{
	uint64_t psz, base, off, e;
	uint64_t page;

	if (mr->flags & ORCA_MR_F_PHYS) {
		*contig = UINT64_MAX;
		return va;
	}
	psz = 1ull << mr->pages.page_shift;
	base = mr->iova & ~(psz - 1);
	off = va - base;
	page = off >> mr->pages.page_shift;
	if (mr->flags & ORCA_MR_F_IMPLICIT) {
		/* Implicit: the whole space, a sparse table (iova 0). */
		if (off >= mr->length) {
			*contig = 0;
			return 0;
		}
		e = engine_xlt_get(&mr->xlt, page);
	} else if (page >= mr->pages.npages) {
		*contig = 0;
		return 0;
	} else if (!(mr->flags & ORCA_MR_F_ON_DEMAND)) {
		*contig = psz - (off & (psz - 1));
		return mr->pages.addr[page] + (off & (psz - 1));
	} else {
		e = mr->pages.addr[page];
	}
	*contig = psz - (off & (psz - 1));
	if (!(e & ORCA_XLT_READ) || (write && !(e & ORCA_XLT_WRITE))) {
		*contig = 0;
		*miss = true;
		return 0;
	}
	return (e & ORCA_XLT_ADDR) + (off & (psz - 1));
}

/* What the fault record of a miss at @va names (roce_odp.c). */
static void note_miss(struct orca_engine *eng, const struct emu_mr *mr,
		      uint64_t va, uint32_t len, bool write)
{
	eng->roce->odp_miss = (struct roce_odp_miss){
		.mkey = FIELD_PREP(ORCA_MKEY_INDEX, mr->index) |
			FIELD_PREP(ORCA_MKEY_KEY, mr->key),
		.va = va, .len = len, .write = write,
	};
	eng->roce->st.odp_misses++;
}

int roce_mr_copy(struct orca_engine *eng, const struct emu_mr *mr,
		 uint64_t va, void *buf, uint32_t len, bool to_mr)
{
	uint8_t *b = buf;

	while (len) {
		bool miss = false;
		uint64_t contig, addr = mr_dma(mr, va, to_mr, &contig, &miss);
		uint32_t n = contig < len ? (uint32_t)contig : len;
		void *p;

		if (miss) {
			note_miss(eng, mr, va, len, to_mr);
			return ROCE_ST_ODP_MISS;
		}
		if (!n)
			return ORCA_CQE_ST_LOC_PROT_ERR;
		/* PHYS MRs: stay within one 4 KiB page per translation. */
		if (mr->flags & ORCA_MR_F_PHYS) {
			uint32_t in_page = 4096 - (addr & 4095);

			n = n < in_page ? n : in_page;
		}
		p = engine_dma(eng, addr, n);
		if (!p)
			return ORCA_CQE_ST_LOC_PROT_ERR;
		if (to_mr)
			memcpy(p, b, n);
		else
			memcpy(b, p, n);
		b += n;
		va += n;
		len -= n;
	}
	return 0;
}

int roce_mr_probe(struct orca_engine *eng, const struct emu_mr *mr,
		  uint64_t va, uint64_t len, bool write, uint32_t step)
{
	uint64_t left = len;

	if (!(mr->flags & ORCA_MR_F_ON_DEMAND))
		return 0;
	while (left) {
		bool miss = false;
		uint64_t contig;

		mr_dma(mr, va, write, &contig, &miss);
		if (miss) {
			uint32_t n = left < step ? (uint32_t)left : step;

			note_miss(eng, mr, va, n, write);
			eng->roce->odp_miss.prefetch =
				left - n > UINT32_MAX ? UINT32_MAX :
				(uint32_t)(left - n);
			return ROCE_ST_ODP_MISS;
		}
		if (!contig)
			return ORCA_CQE_ST_LOC_PROT_ERR;
		if (contig >= left)
			break;
		va += contig;
		left -= contig;
	}
	return 0;
}

uint64_t *roce_mr_u64(struct orca_engine *eng, const struct emu_mr *mr,
		      uint64_t va)
{
	bool miss = false;
	uint64_t contig, addr = mr_dma(mr, va, true, &contig, &miss);

	if (miss)
		note_miss(eng, mr, va, 8, true);
	if (contig < 8 || (addr & 7))
		return NULL;
	return engine_dma(eng, addr, 8);
}

uint64_t roce_sgl_len(const struct orca_sge *sge, unsigned int num_sge)
{
	uint64_t n = 0;

	for (unsigned int i = 0; i < num_sge; i++)
		n += le32toh(sge[i].length);
	return n;
}

int roce_sgl_copy(struct orca_engine *eng, uint32_t pdn,
		  const struct orca_sge *sge, unsigned int num_sge,
		  uint32_t off, void *buf, uint32_t len, bool to_sgl)
{
	uint8_t *b = buf;

	for (unsigned int i = 0; i < num_sge && len; i++) {
		uint32_t slen = le32toh(sge[i].length);
		uint64_t addr = le64toh(sge[i].addr);
		struct emu_mr *mr;
		uint32_t n;
		int st;

		if (off >= slen) {
			off -= slen;
			continue;
		}
		n = slen - off < len ? slen - off : len;
		st = roce_mr_check(eng, le32toh(sge[i].lkey), pdn, addr + off,
				   n, to_sgl ? ORCA_ACCESS_LOCAL_WRITE : 0,
				   &mr);
		if (st)
			return st;
		st = roce_mr_copy(eng, mr, addr + off, b, n, to_sgl);
		if (st == ROCE_ST_ODP_MISS)
			eng->roce->odp_miss.prefetch = slen - off - n;
		if (st)
			return st;
		b += n;
		len -= n;
		off = 0;
	}
	return len ? ORCA_CQE_ST_LOC_LEN_ERR : 0;
}

int roce_mr_fast_reg(struct orca_engine *eng, uint32_t pdn,
		     const struct roce_swqe *w)
{
	struct emu_mr *mr = objtab_get(&eng->mrs,
				       FIELD_GET(ORCA_MKEY_INDEX, w->rkey));
	uint32_t access = (uint32_t)w->swap;
	uint32_t npages = (uint32_t)(w->swap >> 32);
	uint64_t psz, span, *pages;
	uint8_t shift;

	if (!mr || !(mr->flags & ORCA_MR_F_FAST_REG) || mr->valid ||
	    mr->pdn != pdn)
		return ORCA_CQE_ST_MW_BIND_ERR;
	if ((access & ~ORCA_ACCESS_ALL) ||
	    ((access & (ORCA_ACCESS_REMOTE_WRITE | ORCA_ACCESS_REMOTE_ATOMIC)) &&
	     !(access & ORCA_ACCESS_LOCAL_WRITE)))
		return ORCA_CQE_ST_MW_BIND_ERR;
	/*
	 * The work request's page size (1.1), else the one fixed at
	 * CREATE_MR.  Either is checked here, before any shift by it.
	 */
	shift = w->page_shift ? w->page_shift : mr->fr_page_shift;
	if (shift < ORCA_MIN_PAGE_SHIFT || shift > ORCA_MAX_PAGE_SHIFT)
		return ORCA_CQE_ST_MW_BIND_ERR;
	psz = 1ull << shift;
	span = (w->raddr & (psz - 1)) + w->len;
	if (!npages || npages > mr->max_pages ||
	    w->raddr + w->len < w->raddr || span > (uint64_t)npages * psz)
		return ORCA_CQE_ST_MW_BIND_ERR;
	pages = malloc(8ull * npages);
	if (!pages)
		return ORCA_CQE_ST_GENERAL_ERR;
	switch (engine_pgl_read(eng, w->cmp_add,
				w->flags & ORCA_WQE_F_PGL_CHAIN, 0, npages,
				pages)) {
	case PGL_OK:
		break;
	case PGL_BAD_CHUNK:
		free(pages);
		return ORCA_CQE_ST_MW_BIND_ERR;
	default:
		free(pages);
		return ORCA_CQE_ST_LOC_PROT_ERR;
	}
	for (uint32_t i = 0; i < npages; i++) {
		if (pages[i] & (psz - 1)) {
			free(pages);
			return ORCA_CQE_ST_MW_BIND_ERR;
		}
	}
	free(mr->pages.addr);
	mr->pages.addr = pages;
	mr->pages.npages = npages;
	mr->pages.page_shift = shift;
	mr->iova = w->raddr;
	mr->length = w->len;
	mr->access = access;
	mr->key = FIELD_GET(ORCA_MKEY_KEY, w->rkey);
	mr->valid = true;
	return 0;
}

static bool range_in(uint64_t base, uint64_t size, uint64_t va, uint64_t len)
{
	return va >= base && len <= size && va - base <= size - len;
}

int roce_rkey_check(struct orca_engine *eng, const struct emu_qp *qp,
		    uint32_t pdn, uint32_t rkey, uint64_t va, uint64_t len,
		    uint32_t access, struct emu_mr **out, uint64_t *mr_va)
{
	struct emu_mr *mw = objtab_get(&eng->mrs,
				       FIELD_GET(ORCA_MKEY_INDEX, rkey));
	struct emu_mr *mr;
	uint64_t mva;

	if (!mw || !mw->mw_type) {
		*mr_va = va;
		return roce_mr_check(eng, rkey, pdn, va, len, access, out);
	}
	/*
	 * The window's state, key, PD, rights and range (IBA 10.6.7.2; a
	 * type 2 window serves only the QP it was bound through), then the
	 * MR it is bound to, which cannot go while it is.
	 */
	if (!mw->valid || !mw->length ||
	    mw->key != FIELD_GET(ORCA_MKEY_KEY, rkey) || mw->pdn != pdn ||
	    (mw->mw_type == ORCA_MW_TYPE_2 &&
	     mw->mw_qp_serial != qp->serial) ||
	    (mw->access & access) != access ||
	    !range_in(mw->iova, mw->length, va, len))
		return ORCA_CQE_ST_LOC_PROT_ERR;
	mva = mw->mw_base + (va - mw->iova);
	mr = objtab_get(&eng->mrs, mw->mw_mr);
	if (!mr || mr->mw_type || !mr->valid ||
	    !range_in(mr->iova, mr->length, mva, len))
		return ORCA_CQE_ST_LOC_PROT_ERR;
	if (out)
		*out = mr;
	*mr_va = mva;
	return 0;
}

/* The rights a window may grant: ORCA_ACCESS_LOCAL_WRITE means nothing. */
#define MW_BIND_ACCESS	(ORCA_ACCESS_LOCAL_WRITE | ORCA_ACCESS_REMOTE_WRITE | \
			 ORCA_ACCESS_REMOTE_READ | ORCA_ACCESS_REMOTE_ATOMIC | \
			 ORCA_MW_BIND_ZERO_BASED)

int roce_mw_bind(struct orca_engine *eng, const struct emu_qp *qp,
		 const struct roce_swqe *w)
{
	uint32_t idx = FIELD_GET(ORCA_MKEY_INDEX, w->imm_or_inv);
	struct emu_mr *mw = objtab_get(&eng->mrs, idx);
	uint32_t access = (uint32_t)w->swap;
	uint32_t lkey = (uint32_t)(w->swap >> 32);
	bool zb = access & ORCA_MW_BIND_ZERO_BASED;
	uint64_t addr = w->raddr, len = w->cmp_add;
	struct emu_mr *mr = NULL;

	if (!mw || !mw->mw_type ||
	    mw->key != FIELD_GET(ORCA_MKEY_KEY, w->imm_or_inv) ||
	    FIELD_GET(ORCA_MKEY_INDEX, w->rkey) != idx ||
	    (access & ~MW_BIND_ACCESS) || mw->pdn != qp->pdn)	/* C10-72 */
		return ORCA_CQE_ST_MW_BIND_ERR;
	if (mw->mw_type == ORCA_MW_TYPE_1) {
		/* o10-36.2.2: no zero-based type 1 window. */
		if (!mw->valid || zb)
			return ORCA_CQE_ST_MW_BIND_ERR;
	} else if (mw->valid || !len) {
		/* o10-37.2.30, o10-37.2.40: a free window, and a length. */
		return ORCA_CQE_ST_MW_BIND_ERR;
	}
	if (len) {
		mr = objtab_get(&eng->mrs, FIELD_GET(ORCA_MKEY_INDEX, lkey));
		if (!mr || mr->mw_type || !mr->valid ||
		    mr->key != FIELD_GET(ORCA_MKEY_KEY, lkey) ||
		    mr->pdn != qp->pdn ||
		    !(mr->access & ORCA_ACCESS_MW_BIND) ||		/* C10-73 */
		    !range_in(mr->iova, mr->length, addr, len))		/* C10-75 */
			return ORCA_CQE_ST_MW_BIND_ERR;
		/* C10-74: writable windows only over locally writable MRs. */
		if ((access & (ORCA_ACCESS_REMOTE_WRITE |
			       ORCA_ACCESS_REMOTE_ATOMIC)) &&
		    !(mr->access & ORCA_ACCESS_LOCAL_WRITE))
			return ORCA_CQE_ST_MW_BIND_ERR;
	}
	/* A type 1 window is bound again in place: the old binding goes. */
	engine_mw_unbind(eng, mw);
	mw->key = FIELD_GET(ORCA_MKEY_KEY, w->rkey);
	mw->valid = true;
	if (!mr)
		return 0;
	mw->access = access;
	mw->iova = zb ? 0 : addr;
	mw->length = len;
	mw->mw_base = addr;
	mw->mw_mr = mr->index;
	if (mw->mw_type == ORCA_MW_TYPE_2)
		mw->mw_qp_serial = qp->serial;
	mr->mw_binds++;
	return 0;
}

int roce_mr_invalidate(struct orca_engine *eng, const struct emu_qp *qp,
		       uint32_t pdn, uint32_t key, bool remote)
{
	struct emu_mr *mr = objtab_get(&eng->mrs,
				       FIELD_GET(ORCA_MKEY_INDEX, key));

	if (!mr || mr->pdn != pdn ||
	    mr->key != FIELD_GET(ORCA_MKEY_KEY, key))
		return ORCA_CQE_ST_MW_BIND_ERR;
	if (mr->mw_type) {
		/*
		 * Only a bound type 2 window (o10-37.2.26), and from the wire
		 * only on the QP it was bound through (IBA 10.6.7.2.5).
		 */
		if (mr->mw_type != ORCA_MW_TYPE_2 || !mr->valid ||
		    (remote && mr->mw_qp_serial != qp->serial))
			return ORCA_CQE_ST_MW_BIND_ERR;
		engine_mw_unbind(eng, mr);
		mr->valid = false;
		return 0;
	}
	/* An MR with windows bound to it stays (IBA 10.6.7.2.6). */
	if (!(mr->flags & ORCA_MR_F_FAST_REG) || mr->mw_binds)
		return ORCA_CQE_ST_MW_BIND_ERR;
	mr->valid = false;
	return 0;
}

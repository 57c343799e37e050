// SPDX-License-Identifier: GPL-2.0
/*
 * Memory checks and data movement for the RoCEv2 transport: lkey/rkey
 * lookup (index, key byte, validity, PD, access rights, bounds), copies
 * between MRs or SGE lists and packet buffers page by page, and the
 * fast-registration work requests (REG_MR, LOCAL_INV, remote invalidate).
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

	if (!mr || !mr->valid || mr->key != FIELD_GET(ORCA_MKEY_KEY, key) ||
	    mr->pdn != pdn)
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

/* DMA address of MR address @va and the bytes contiguous from there. */
static uint64_t mr_dma(const struct emu_mr *mr, uint64_t va, uint64_t *contig)
{
	uint64_t psz, base, off;
	uint64_t page;

	if (mr->flags & ORCA_MR_F_PHYS) {
		*contig = UINT64_MAX;
		return va;
	}
	psz = 1ull << mr->pages.page_shift;
	base = mr->iova & ~(psz - 1);
	off = va - base;
	page = off >> mr->pages.page_shift;
	if (page >= mr->pages.npages) {
		*contig = 0;
		return 0;
	}
	*contig = psz - (off & (psz - 1));
	return mr->pages.addr[page] + (off & (psz - 1));
}

int roce_mr_copy(struct orca_engine *eng, const struct emu_mr *mr,
		 uint64_t va, void *buf, uint32_t len, bool to_mr)
{
	uint8_t *b = buf;

	while (len) {
		uint64_t contig, addr = mr_dma(mr, va, &contig);
		uint32_t n = contig < len ? (uint32_t)contig : len;
		void *p;

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

uint64_t *roce_mr_u64(struct orca_engine *eng, const struct emu_mr *mr,
		      uint64_t va)
{
	uint64_t contig, addr = mr_dma(mr, va, &contig);

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

int roce_mr_invalidate(struct orca_engine *eng, uint32_t pdn, uint32_t key)
{
	struct emu_mr *mr = objtab_get(&eng->mrs,
				       FIELD_GET(ORCA_MKEY_INDEX, key));

	if (!mr || !(mr->flags & ORCA_MR_F_FAST_REG) || mr->pdn != pdn ||
	    mr->key != FIELD_GET(ORCA_MKEY_KEY, key))
		return ORCA_CQE_ST_MW_BIND_ERR;
	mr->valid = false;
	return 0;
}

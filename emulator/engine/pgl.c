// SPDX-License-Identifier: GPL-2.0
/*
 * Reading a page list from guest memory: one flat __le64 array (1.0), or a
 * chain of 4 KiB chunks (1.1, ORCA_DEV_CAP_PGL_CHAIN) that lets a driver
 * describe a long list without a large contiguous allocation.  Commands
 * (ORCA_CMD_F_IN_CHAIN) and REG_MR work requests (ORCA_WQE_F_PGL_CHAIN)
 * share this reader.  The guest owns the chain: a chunk address that is
 * zero, misaligned or unmapped ends the read with an error, and the read
 * never goes past the entries asked for, so a chain that loops or runs on
 * costs no more than a well-formed one.
 */
#include <endian.h>
#include <string.h>

#include "engine_priv.h"

int engine_pgl_read(struct orca_engine *eng, uint64_t addr, bool chain,
		    uint64_t first, uint32_t n, uint64_t *out)
{
	const uint64_t per = ORCA_PGL_CHUNK_ENTRIES;
	uint64_t chunk = addr, idx = 0, end = first + n;
	uint32_t i = 0;

	if (!chain) {
		const uint8_t *src = engine_dma(eng, addr + 8 * first, 8ull * n);

		if (!src)
			return PGL_UNMAPPED;
		memcpy(out, src, 8ull * n);
		for (i = 0; i < n; i++)
			out[i] = le64toh(out[i]);
		return PGL_OK;
	}
	while (idx < end) {
		const uint64_t *c;
		uint64_t lo, hi, next;

		if (!chunk || (chunk & (ORCA_PGL_CHUNK_SIZE - 1)))
			return PGL_BAD_CHUNK;
		c = engine_dma(eng, chunk, ORCA_PGL_CHUNK_SIZE);
		if (!c)
			return PGL_UNMAPPED;
		/* Entries idx .. idx + per - 1 live in this chunk. */
		lo = first > idx ? first - idx : 0;
		hi = end - idx < per ? end - idx : per;
		for (uint64_t k = lo; k < hi; k++)
			out[i++] = le64toh(c[k]);
		idx += per;
		if (idx >= end)
			break;
		memcpy(&next, &c[per], sizeof(next));
		chunk = le64toh(next);
	}
	return PGL_OK;
}

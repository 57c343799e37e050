// SPDX-License-Identifier: GPL-2.0
/*
 * CRC-32 (reflected, 0xEDB88320) by slice-by-16, and the choice between it
 * and the carry-less multiply folding of roce_crc32_clmul.c.
 *
 * Slice-by-16: tab[k][b] is the CRC contribution of byte b followed by k
 * zero bytes, so 16 message bytes (the CRC register folded into the first
 * four) become 16 independent lookups XORed together, instead of a chain
 * of 16 dependent bytewise steps.
 */
#include <endian.h>
#include <string.h>

#include "roce_crc32.h"

#define CRC32_POLY	0xedb88320u
/* Below this folding has no 4 x 128-bit block to start from. */
#define CLMUL_MIN_LEN	64
#define VCLMUL_MIN_LEN	256

static uint32_t tab[16][256];

/* Tables are filled before main(), so no call ever checks for them. */
__attribute__((constructor))
static void crc32_tab_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;

		for (int k = 0; k < 8; k++)
			c = (c >> 1) ^ (CRC32_POLY & -(c & 1));
		tab[0][i] = c;
	}
	for (uint32_t i = 0; i < 256; i++)
		for (int t = 1; t < 16; t++)
			tab[t][i] = (tab[t - 1][i] >> 8) ^
				    tab[0][tab[t - 1][i] & 0xff];
}

/* Little-endian 32-bit load from any address. */
static uint32_t le32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return le32toh(v);
}

uint32_t roce_crc32_sb16(uint32_t crc, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len >= 16) {
		uint32_t a = le32(p) ^ crc, b = le32(p + 4);
		uint32_t c = le32(p + 8), d = le32(p + 12);

		crc = tab[15][a & 0xff] ^ tab[14][(a >> 8) & 0xff] ^
		      tab[13][(a >> 16) & 0xff] ^ tab[12][a >> 24] ^
		      tab[11][b & 0xff] ^ tab[10][(b >> 8) & 0xff] ^
		      tab[9][(b >> 16) & 0xff] ^ tab[8][b >> 24] ^
		      tab[7][c & 0xff] ^ tab[6][(c >> 8) & 0xff] ^
		      tab[5][(c >> 16) & 0xff] ^ tab[4][c >> 24] ^
		      tab[3][d & 0xff] ^ tab[2][(d >> 8) & 0xff] ^
		      tab[1][(d >> 16) & 0xff] ^ tab[0][d >> 24];
		p += 16;
		len -= 16;
	}
	/* Headers end on 4-byte boundaries: no bytewise chain for them. */
	while (len >= 4) {
		uint32_t a = le32(p) ^ crc;

		crc = tab[3][a & 0xff] ^ tab[2][(a >> 8) & 0xff] ^
		      tab[1][(a >> 16) & 0xff] ^ tab[0][a >> 24];
		p += 4;
		len -= 4;
	}
	while (len--)
		crc = (crc >> 8) ^ tab[0][(crc ^ *p++) & 0xff];
	return crc;
}

uint32_t roce_crc32(uint32_t crc, const void *buf, size_t len)
{
	if (len >= VCLMUL_MIN_LEN && roce_crc32_have_vclmul())
		return roce_crc32_vclmul(crc, buf, len);
	if (len >= CLMUL_MIN_LEN && roce_crc32_have_clmul())
		return roce_crc32_clmul(crc, buf, len);
	return roce_crc32_sb16(crc, buf, len);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The RoCEv2 invariant CRC.  Every frame the adapter sends or receives goes
 * through here once, so the CRC is slice-by-8 (eight table lookups per
 * 8 bytes) rather than bytewise.
 *
 * The ICRC covers what no router may change: the fields a router rewrites
 * (IPv4 TOS, TTL and header checksum; IPv6 traffic class, flow label and hop
 * limit; the UDP checksum; the BTH FECN/BECN/reserved byte) are replaced by
 * ones, and eight bytes of ones stand in for the InfiniBand LRH that RoCEv2
 * does not have.
 */
#include <pthread.h>
#include <string.h>

#include "roce_icrc.h"
#include "roce_wire.h"

static uint32_t crc_tab[8][256];
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;

static void crc_tab_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;

		for (int k = 0; k < 8; k++)
			c = (c >> 1) ^ (0xedb88320u & -(c & 1));
		crc_tab[0][i] = c;
	}
	for (uint32_t i = 0; i < 256; i++)
		for (int t = 1; t < 8; t++)
			crc_tab[t][i] = (crc_tab[t - 1][i] >> 8) ^
					crc_tab[0][crc_tab[t - 1][i] & 0xff];
}

uint32_t roce_crc32(uint32_t crc, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	pthread_once(&crc_once, crc_tab_init);
	while (len >= 8) {
		/* Explicit little-endian loads: correct on any host. */
		uint32_t lo = crc ^ (p[0] | p[1] << 8 | p[2] << 16 |
				     (uint32_t)p[3] << 24);
		uint32_t hi = p[4] | p[5] << 8 | p[6] << 16 |
			      (uint32_t)p[7] << 24;

		crc = crc_tab[7][lo & 0xff] ^ crc_tab[6][(lo >> 8) & 0xff] ^
		      crc_tab[5][(lo >> 16) & 0xff] ^ crc_tab[4][lo >> 24] ^
		      crc_tab[3][hi & 0xff] ^ crc_tab[2][(hi >> 8) & 0xff] ^
		      crc_tab[1][(hi >> 16) & 0xff] ^ crc_tab[0][hi >> 24];
		p += 8;
		len -= 8;
	}
	while (len--)
		crc = (crc >> 8) ^ crc_tab[0][(crc ^ *p++) & 0xff];
	return crc;
}

uint32_t roce_icrc(const uint8_t *l3, size_t len, size_t l3_hdr_len,
		   bool ipv6)
{
	static const uint8_t lrh[8] = {
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff
	};
	/* Largest masked prefix: IPv4 with 40 bytes of options. */
	uint8_t hdr[60 + ROCE_UDP_HLEN + ROCE_BTH_LEN];
	size_t hlen = l3_hdr_len + ROCE_UDP_HLEN + ROCE_BTH_LEN;
	uint8_t *udp = hdr + l3_hdr_len;
	uint32_t crc;

	if (hlen > sizeof(hdr) || len < hlen)
		return 0;	/* callers validate; never read out of bounds */
	memcpy(hdr, l3, hlen);
	if (ipv6) {
		hdr[0] |= 0x0f;			/* traffic class, high half */
		hdr[1] = hdr[2] = hdr[3] = 0xff; /* TC low half, flow label */
		hdr[7] = 0xff;			/* hop limit */
	} else {
		hdr[1] = 0xff;			/* TOS */
		hdr[8] = 0xff;			/* TTL */
		hdr[10] = hdr[11] = 0xff;	/* header checksum */
	}
	udp[6] = udp[7] = 0xff;			/* UDP checksum */
	udp[ROCE_UDP_HLEN + 4] = 0xff;		/* BTH FECN/BECN/resv6 */

	crc = roce_crc32(0xffffffffu, lrh, sizeof(lrh));
	crc = roce_crc32(crc, hdr, hlen);
	crc = roce_crc32(crc, l3 + hlen, len - hlen);
	return ~crc;
}

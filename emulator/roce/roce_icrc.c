// SPDX-License-Identifier: GPL-2.0
/*
 * The RoCEv2 invariant CRC.  Every frame the adapter sends or receives goes
 * through here once (roce_build_finish(), roce_parse()), so the CRC-32
 * underneath is the fast one of roce_crc32.c.
 *
 * The ICRC covers what no router may change: the fields a router rewrites
 * (IPv4 TOS, TTL and header checksum; IPv6 traffic class, flow label and hop
 * limit; the UDP checksum; the BTH FECN/BECN/reserved byte) are replaced by
 * ones, and eight bytes of ones stand in for the InfiniBand LRH that RoCEv2
 * does not have.
 */
#include <string.h>

#include "roce_crc32.h"
#include "roce_icrc.h"
#include "roce_wire.h"

/* The CRC register after the LRH's 64 one bits: the same for every frame. */
static uint32_t lrh_crc;

__attribute__((constructor))
static void lrh_crc_init(void)
{
	uint32_t c = 0xffffffffu;

	for (int i = 0; i < 64; i++)
		c = (c >> 1) ^ (0xedb88320u & -((c ^ 1) & 1));
	lrh_crc = c;
}

uint32_t roce_icrc(const uint8_t *l3, size_t len, size_t l3_hdr_len,
		   bool ipv6)
{
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

	crc = roce_crc32(lrh_crc, hdr, hlen);
	crc = roce_crc32(crc, l3 + hlen, len - hlen);
	return ~crc;
}

uint32_t roce_icrc_rxe_flush(const uint8_t *l3, size_t len,
			     size_t l3_hdr_len, bool ipv6)
{
	size_t bth = l3_hdr_len + ROCE_UDP_HLEN;
	uint32_t crc;

	if (len < bth + ROCE_BTH_LEN)
		return 0;
	/* roce_icrc() without its final inversion, then BTH.. again. */
	crc = ~roce_icrc(l3, len, l3_hdr_len, ipv6);
	crc = roce_crc32(crc, l3 + bth, len - bth);
	return ~crc;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * bench_icrc: CRC-32 throughput of the adapter's implementations at frame
 * sizes, against the slice-by-8 tables the ICRC used before (kept here
 * only, as the yardstick), and of roce_icrc() on whole RoCE packets.
 * Native build, not a test: it asserts nothing about speed, but checks
 * that every implementation gives the same CRC before timing it.
 *
 * Usage: bench_icrc [milliseconds per measurement, default 500; the best
 * of five slices of it is reported]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/clock.h"
#include "roce/roce_crc32.h"
#include "roce/roce_icrc.h"

static uint32_t sb8_tab[8][256];

static void sb8_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;

		for (int k = 0; k < 8; k++)
			c = (c >> 1) ^ (0xedb88320u & -(c & 1));
		sb8_tab[0][i] = c;
	}
	for (uint32_t i = 0; i < 256; i++)
		for (int t = 1; t < 8; t++)
			sb8_tab[t][i] = (sb8_tab[t - 1][i] >> 8) ^
					sb8_tab[0][sb8_tab[t - 1][i] & 0xff];
}

/* The ICRC's CRC-32 until the slice-by-16 / PCLMULQDQ versions. */
static uint32_t crc32_sb8(uint32_t crc, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len >= 8) {
		uint32_t lo = crc ^ (p[0] | p[1] << 8 | p[2] << 16 |
				     (uint32_t)p[3] << 24);
		uint32_t hi = p[4] | p[5] << 8 | p[6] << 16 |
			      (uint32_t)p[7] << 24;

		crc = sb8_tab[7][lo & 0xff] ^ sb8_tab[6][(lo >> 8) & 0xff] ^
		      sb8_tab[5][(lo >> 16) & 0xff] ^ sb8_tab[4][lo >> 24] ^
		      sb8_tab[3][hi & 0xff] ^ sb8_tab[2][(hi >> 8) & 0xff] ^
		      sb8_tab[1][(hi >> 16) & 0xff] ^ sb8_tab[0][hi >> 24];
		p += 8;
		len -= 8;
	}
	while (len--)
		crc = (crc >> 8) ^ sb8_tab[0][(crc ^ *p++) & 0xff];
	return crc;
}

/* roce_icrc() over an IPv4 packet of @len bytes (headers included). */
static uint32_t icrc_v4(uint32_t crc, const void *buf, size_t len)
{
	return roce_icrc(buf, len, 20, false) ^ crc;
}

struct impl {
	const char *name;
	uint32_t (*fn)(uint32_t crc, const void *buf, size_t len);
};

static volatile uint32_t sink;

/* GiB/s of @fn over @len bytes, for about @ms milliseconds. */
static double measure_once(const struct impl *im, const uint8_t *buf,
			   size_t len, unsigned int ms)
{
	uint64_t start = now_ns(), end = start + ms * 1000000ull, t;
	uint64_t bytes = 0;
	uint32_t crc = 0;

	do {
		for (int i = 0; i < 256; i++)
			crc = im->fn(crc, buf, len);
		bytes += 256 * (uint64_t)len;
		t = now_ns();
	} while (t < end);
	sink = crc;
	return (double)bytes / (double)(t - start) * 1e9 / (1u << 30);
}

/* The best of five: on a shared machine the others are its neighbours. */
static double measure(const struct impl *im, const uint8_t *buf, size_t len,
		      unsigned int ms)
{
	double best = 0;

	for (int i = 0; i < 5; i++) {
		double r = measure_once(im, buf, len, ms / 5 ? ms / 5 : 1);

		if (r > best)
			best = r;
	}
	return best;
}

int main(int argc, char **argv)
{
	static const size_t sizes[] = { 64, 256, 1024, 4096, 9000 };
	const size_t nsizes = sizeof(sizes) / sizeof(sizes[0]);
	const struct impl impls[] = {
		{ "slice-by-8 (old)", crc32_sb8 },
		{ "slice-by-16", roce_crc32_sb16 },
		{ "pclmul", roce_crc32_clmul },
		{ "vpclmul (256 bit)", roce_crc32_vclmul },
		{ "roce_crc32", roce_crc32 },
		{ "roce_icrc (IPv4)", icrc_v4 },
	};
	unsigned int ms = argc > 1 ? (unsigned int)atoi(argv[1]) : 500;
	static uint8_t buf[9000 + 64];
	size_t n = sizeof(impls) / sizeof(impls[0]);

	sb8_init();
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)(i * 131 + (i >> 7));
	/* A plausible IPv4 header: roce_icrc() masks fields, not checks. */
	buf[0] = 0x45;

	for (size_t s = 0; s < nsizes; s++) {
		size_t len = sizes[s];
		uint32_t ref = crc32_sb8(~0u, buf, len);

		if (roce_crc32_sb16(~0u, buf, len) != ref ||
		    roce_crc32_clmul(~0u, buf, len) != ref ||
		    roce_crc32_vclmul(~0u, buf, len) != ref ||
		    roce_crc32(~0u, buf, len) != ref) {
			fprintf(stderr, "bench_icrc: CRC mismatch\n");
			return 1;
		}
	}
	printf("pclmul %s, vpclmul %s on this CPU\n",
	       roce_crc32_have_clmul() ? "used" : "NOT available (tables)",
	       roce_crc32_have_vclmul() ? "used" : "NOT available");
	printf("%-18s", "GiB/s");
	for (size_t s = 0; s < nsizes; s++)
		printf(" %9zu B", sizes[s]);
	printf("\n");
	for (size_t i = 0; i < n; i++) {
		printf("%-18s", impls[i].name);
		for (size_t s = 0; s < nsizes; s++)
			printf(" %11.2f",
			       measure(&impls[i], buf, sizes[s], ms));
		printf("\n");
		fflush(stdout);
	}
	return 0;
}

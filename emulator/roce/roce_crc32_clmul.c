// SPDX-License-Identifier: GPL-2.0
/*
 * CRC-32 (reflected, polynomial 0xEDB88320) by folding with carry-less
 * multiplication, the method of Intel's white paper "Fast CRC Computation
 * for Generic Polynomials Using PCLMULQDQ Instruction" (Gopal et al.).
 *
 * The math, in GF(2)[x] with P the 33-bit CRC polynomial: the CRC of a
 * message M is M * x^32 mod P, and only M mod P matters.  A 128-bit block
 * X that is followed by D more message bits contributes X * x^D, and with
 * X = H * x^64 + L (two 64-bit halves)
 *	X * x^D == H * (x^(D+64) mod P) + L * (x^D mod P)	(mod P),
 * two 64 x 32-bit carry-less products, under 96 bits: the block "folds"
 * onto the one D bits further on, which it is XORed into.  Four blocks in
 * flight (D = 512) keep the multiplier busy; at the end they fold into
 * one (D = 128), the last 128 bits shrink to 64 the same way, and a
 * Barrett reduction by P gives the 32-bit CRC.  No table, no dependency
 * on the previous byte.
 *
 * Bit order: the CRC is reflected, so the first bit on the wire (bit 0 of
 * byte 0) is the highest power.  A 16-byte little-endian load then holds
 * the coefficient of x^(127-i) in bit i, and the CRC register the
 * coefficient of x^(31-i) in bit i.  In that form a 64 x 64-bit
 * PCLMULQDQ yields the 127-bit product one bit below the top of the 128,
 * i.e. the product times x; so each multiplier is x^(n-1) mod P where the
 * math above says x^n.  The constants are derived here from the
 * polynomial at start-up rather than written down.
 *
 * Where the CPU has VPCLMULQDQ and AVX2, long buffers fold 256 bits per
 * instruction instead of 128: four 256-bit registers, eight 128-bit
 * blocks in flight (D = 1024), the same math lane by lane.  On this
 * project's AMD hosts a PCLMULQDQ issues every other cycle whatever its
 * width, so the wide form doubles what one core CRCs (bench_icrc).
 *
 * x86-64 only; the code is compiled for PCLMULQDQ and SSE4.1 (and the wide
 * form for VPCLMULQDQ and AVX2) whatever the build's target, and used only
 * when the CPU has them.
 */
#include "roce_crc32.h"

#if defined(__x86_64__)

#include <immintrin.h>

#define CRC32_POLY	0xedb88320u
#define CLMUL		__attribute__((target("pclmul,sse4.1")))
#define VCLMUL		__attribute__((target("vpclmulqdq,pclmul,avx2")))

/* Multipliers (x^(n-1) mod P for x^n, see above) and Barrett's pair. */
static struct {
	uint64_t fold1024_hi, fold1024_lo;	/* D = 1024: x^1087, x^1023 */
	uint64_t fold256_hi, fold256_lo;	/* D = 256: x^319, x^255 */
	uint64_t fold512_hi, fold512_lo;	/* D = 512: x^575, x^511 */
	uint64_t fold128_hi, fold128_lo;	/* D = 128: x^191, x^127 */
	uint64_t x95, x63;			/* 128 -> 96 -> 64 bits */
	uint64_t mu;				/* floor(x^64 / P), 33 bits */
	uint64_t poly;				/* P, 33 bits */
} k;
static bool have_clmul, have_vclmul;

static uint64_t bit_reverse(uint64_t v, int bits)
{
	uint64_t r = 0;

	for (int i = 0; i < bits; i++, v >>= 1)
		r = r << 1 | (v & 1);
	return r;
}

/*
 * x^n mod P as a 64-bit reflected multiplier: the coefficient of x^d in
 * bit 63 - d.  Multiplying by x in reflected form is a right shift; what
 * falls off bit 0 is x^32, which is P's lower terms (CRC32_POLY).
 */
static uint64_t xpow_mod(unsigned int n)
{
	uint32_t r = 0x80000000u;	/* x^0 */

	while (n--)
		r = (r >> 1) ^ (CRC32_POLY & -(r & 1));
	return (uint64_t)r << 32;
}

/* floor(x^64 / P) by long division, in normal bit order. */
static uint64_t barrett_mu(void)
{
	uint64_t p = 1ull << 32 | bit_reverse(CRC32_POLY, 32);
	uint64_t rem = 0, q = 0;

	for (int i = 64; i >= 0; i--) {
		rem = rem << 1 | (i == 64);
		q <<= 1;
		if (rem >> 32) {
			rem ^= p;
			q |= 1;
		}
	}
	return q;
}

__attribute__((constructor))
static void clmul_init(void)
{
	/* Constructors run before libgcc has asked the CPU: ask first. */
	__builtin_cpu_init();
	have_clmul = __builtin_cpu_supports("pclmul") &&
		     __builtin_cpu_supports("sse4.1");
	have_vclmul = have_clmul && __builtin_cpu_supports("vpclmulqdq") &&
		      __builtin_cpu_supports("avx2");
	k.fold1024_hi = xpow_mod(1024 + 64 - 1);
	k.fold1024_lo = xpow_mod(1024 - 1);
	k.fold256_hi = xpow_mod(256 + 64 - 1);
	k.fold256_lo = xpow_mod(256 - 1);
	k.fold512_hi = xpow_mod(512 + 64 - 1);
	k.fold512_lo = xpow_mod(512 - 1);
	k.fold128_hi = xpow_mod(128 + 64 - 1);
	k.fold128_lo = xpow_mod(128 - 1);
	k.x95 = xpow_mod(96 - 1);
	k.x63 = xpow_mod(64 - 1);
	/* 33-bit values reflected in 33 bits: x^0 ends up in bit 32. */
	k.mu = bit_reverse(barrett_mu(), 33);
	k.poly = (uint64_t)CRC32_POLY << 1 | 1;
}

bool roce_crc32_have_clmul(void)
{
	return have_clmul;
}

bool roce_crc32_have_vclmul(void)
{
	return have_vclmul;
}

static inline CLMUL __m128i load(const uint8_t *p)
{
	return _mm_loadu_si128((const __m128i *)p);
}

/* @x moved @m's distance (H by m's low, L by its high half) onto @next. */
static inline CLMUL __m128i fold(__m128i x, __m128i m, __m128i next)
{
	__m128i h = _mm_clmulepi64_si128(x, m, 0x00);
	__m128i l = _mm_clmulepi64_si128(x, m, 0x11);

	return _mm_xor_si128(_mm_xor_si128(h, l), next);
}

/* The CRC register for 128 bits @x with nothing after them: x*x^32 mod P. */
static inline CLMUL uint32_t reduce(__m128i x)
{
	__m128i low32 = _mm_set_epi32(0, 0, 0, -1);
	__m128i y, z, q;

	/*
	 * X * x^32 = H * x^96 + L * x^32: H's product and L moved down 32
	 * bits (in reflected form a 4-byte right shift, whose low dword
	 * would be H's, so it is cleared).  96 bits, bits 0-31 zero.
	 */
	y = _mm_clmulepi64_si128(x, _mm_set_epi64x(0, k.x95), 0x00);
	y = _mm_xor_si128(y, _mm_blend_epi16(_mm_srli_si128(x, 4),
					     _mm_setzero_si128(), 0x03));
	/* Y = Yh * x^64 + Yl: Yh (bits 32-63) times x^64 mod P onto Yl. */
	z = _mm_clmulepi64_si128(y, _mm_set_epi64x(0, k.x63), 0x00);
	z = _mm_srli_si128(_mm_xor_si128(z, y), 8);
	/*
	 * Barrett, Z of degree < 64: Q = floor(floor(Z / x^32) * mu / x^32)
	 * is floor(Z / P), and Z + Q * P is Z mod P.  In reflected form
	 * floor(Z / x^32) is Z's low dword, as is floor(T / x^32) of the
	 * 64-bit product T, and Z mod P is the high dword of the result.
	 */
	q = _mm_clmulepi64_si128(_mm_and_si128(z, low32),
				 _mm_set_epi64x(0, k.mu), 0x00);
	q = _mm_clmulepi64_si128(_mm_and_si128(q, low32),
				 _mm_set_epi64x(0, k.poly), 0x00);
	return (uint32_t)_mm_extract_epi32(_mm_xor_si128(z, q), 1);
}

static CLMUL uint32_t crc32_clmul(uint32_t crc, const uint8_t *p, size_t len)
{
	__m128i m = _mm_set_epi64x(k.fold512_lo, k.fold512_hi);
	__m128i x0, x1, x2, x3;

	/* The register enters as the message's first 32 bits. */
	x0 = _mm_xor_si128(load(p), _mm_cvtsi32_si128((int)crc));
	x1 = load(p + 16);
	x2 = load(p + 32);
	x3 = load(p + 48);
	p += 64;
	len -= 64;
	while (len >= 64) {
		x0 = fold(x0, m, load(p));
		x1 = fold(x1, m, load(p + 16));
		x2 = fold(x2, m, load(p + 32));
		x3 = fold(x3, m, load(p + 48));
		p += 64;
		len -= 64;
	}
	m = _mm_set_epi64x(k.fold128_lo, k.fold128_hi);
	x0 = fold(x0, m, x1);
	x0 = fold(x0, m, x2);
	x0 = fold(x0, m, x3);
	while (len >= 16) {
		x0 = fold(x0, m, load(p));
		p += 16;
		len -= 16;
	}
	/* Under 16 bytes left: not worth another fold. */
	return roce_crc32_sb16(reduce(x0), p, len);
}

uint32_t roce_crc32_clmul(uint32_t crc, const void *buf, size_t len)
{
	if (!have_clmul || len < 64)
		return roce_crc32_sb16(crc, buf, len);
	return crc32_clmul(crc, buf, len);
}

static inline VCLMUL __m256i load256(const uint8_t *p)
{
	return _mm256_loadu_si256((const __m256i *)p);
}

/* fold() on both 128-bit lanes at once. */
static inline VCLMUL __m256i fold256(__m256i x, __m256i m, __m256i next)
{
	__m256i h = _mm256_clmulepi64_epi128(x, m, 0x00);
	__m256i l = _mm256_clmulepi64_epi128(x, m, 0x11);

	return _mm256_xor_si256(_mm256_xor_si256(h, l), next);
}

static inline VCLMUL __m256i both_lanes(uint64_t hi, uint64_t lo)
{
	return _mm256_set_epi64x(lo, hi, lo, hi);
}

/*
 * At least 128 bytes: 128 per round into eight lanes, then the lanes fold
 * into one 128-bit block (each register onto the next, 256 bits on; the
 * last register's low lane onto its high one), and crc32_clmul()'s tail
 * (16-byte folds, reduction, the last bytes) finishes it.
 */
static VCLMUL uint32_t crc32_vclmul(uint32_t crc, const uint8_t *p,
				    size_t len)
{
	__m256i m = both_lanes(k.fold1024_hi, k.fold1024_lo);
	__m256i y0, y1, y2, y3;
	__m128i x, m128;

	y0 = _mm256_xor_si256(load256(p),
			      _mm256_zextsi128_si256(_mm_cvtsi32_si128((int)crc)));
	y1 = load256(p + 32);
	y2 = load256(p + 64);
	y3 = load256(p + 96);
	p += 128;
	len -= 128;
	while (len >= 128) {
		y0 = fold256(y0, m, load256(p));
		y1 = fold256(y1, m, load256(p + 32));
		y2 = fold256(y2, m, load256(p + 64));
		y3 = fold256(y3, m, load256(p + 96));
		p += 128;
		len -= 128;
	}
	m = both_lanes(k.fold256_hi, k.fold256_lo);
	y1 = fold256(y0, m, y1);
	y2 = fold256(y1, m, y2);
	y3 = fold256(y2, m, y3);
	m128 = _mm_set_epi64x(k.fold128_lo, k.fold128_hi);
	x = fold(_mm256_castsi256_si128(y3), m128,
		 _mm256_extracti128_si256(y3, 1));
	while (len >= 16) {
		x = fold(x, m128, load(p));
		p += 16;
		len -= 16;
	}
	return roce_crc32_sb16(reduce(x), p, len);
}

uint32_t roce_crc32_vclmul(uint32_t crc, const void *buf, size_t len)
{
	if (!have_vclmul || len < 128)
		return roce_crc32_clmul(crc, buf, len);
	return crc32_vclmul(crc, buf, len);
}

#else /* !__x86_64__ */

bool roce_crc32_have_clmul(void)
{
	return false;
}

bool roce_crc32_have_vclmul(void)
{
	return false;
}

uint32_t roce_crc32_clmul(uint32_t crc, const void *buf, size_t len)
{
	return roce_crc32_sb16(crc, buf, len);
}

uint32_t roce_crc32_vclmul(uint32_t crc, const void *buf, size_t len)
{
	return roce_crc32_sb16(crc, buf, len);
}

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CRC-32 as Ethernet and the RoCEv2 ICRC use it: reflected, polynomial
 * 0xEDB88320.  Every frame the adapter sends or receives is CRC'd once
 * (roce_icrc()), so it runs at memory speed: carry-less multiply folding
 * where the CPU has PCLMULQDQ (256 bits at a time with VPCLMULQDQ),
 * slice-by-16 tables elsewhere.
 */
#ifndef ORCA_EMU_ROCE_CRC32_H
#define ORCA_EMU_ROCE_CRC32_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * CRC-32 update without the initial and final inversion:
 * crc = roce_crc32(crc, buf, len), starting from 0xffffffff and inverting
 * the end result for the standard CRC-32.  Picks the fastest of the
 * three below for the length.
 */
uint32_t roce_crc32(uint32_t crc, const void *buf, size_t len);

/* Slice-by-16 tables: any CPU. */
uint32_t roce_crc32_sb16(uint32_t crc, const void *buf, size_t len);

/*
 * Folding with PCLMULQDQ (x86-64 only).  Without it (other CPUs, or
 * !roce_crc32_have_clmul()) this is roce_crc32_sb16(), so tests and the
 * benchmark may call both on any machine.
 */
uint32_t roce_crc32_clmul(uint32_t crc, const void *buf, size_t len);
bool roce_crc32_have_clmul(void);

/*
 * Folding with 256-bit VPCLMULQDQ (x86-64 with AVX2 only).  Without it, or
 * under 128 bytes, this is roce_crc32_clmul().
 */
uint32_t roce_crc32_vclmul(uint32_t crc, const void *buf, size_t len);
bool roce_crc32_have_vclmul(void);

#endif /* ORCA_EMU_ROCE_CRC32_H */

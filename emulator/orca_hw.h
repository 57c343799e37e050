/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The adapter's programming interface for the emulator: the kernel types and
 * macros the driver's *_defs.h files use, then those very files (the one
 * definition of every layout; never a copy).
 */
#ifndef ORCA_EMU_ORCA_HW_H
#define ORCA_EMU_ORCA_HW_H

#include <assert.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;

#define BIT(n)			(1UL << (n))
#define BIT_ULL(n)		(1ULL << (n))
#define GENMASK(h, l) \
	(((~0UL) << (l)) & (~0UL >> (8 * sizeof(unsigned long) - 1 - (h))))
#define GENMASK_ULL(h, l) \
	(((~0ULL) << (l)) & (~0ULL >> (8 * sizeof(unsigned long long) - 1 - (h))))
#define FIELD_PREP(mask, val) \
	((((__typeof__(mask))(val)) << __builtin_ctzll(mask)) & (mask))
#define FIELD_GET(mask, reg) \
	((__typeof__(mask))(((reg) & (mask)) >> __builtin_ctzll(mask)))

#include "../drivers/infiniband/hw/orca/orca_regs_defs.h"
#include "../drivers/infiniband/hw/orca/orca_cmds_defs.h"
#include "../drivers/infiniband/hw/orca/orca_io_defs.h"

#endif /* ORCA_EMU_ORCA_HW_H */

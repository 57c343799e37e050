/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The adapter's data-path interface for the provider: the kernel types and
 * bit operations the kernel driver's orca_regs_defs.h, orca_io_defs.h and
 * orca_wqe_track.h use (rdma-core's util/util.h already has BIT, GENMASK
 * and FIELD_*), then those very files, which the build puts next to this
 * one (scripts/out-of-tree/provider-build.sh; the rdma-core series carries
 * them as they are in the driver).  The firmware commands are the kernel's
 * alone: what the provider may use of the adapter comes in the ABI's own
 * bits (enum orca_uctx_caps, rdma/orca-abi.h).
 */
#ifndef ORCA_PROVIDER_HW_H
#define ORCA_PROVIDER_HW_H

#include <assert.h>
#include <stdint.h>
#include <linux/types.h>
#include <util/bitmap.h>
#include <util/util.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;

/*
 * The kernel's non-atomic bit operations, on util/bitmap.h's bitmaps: the
 * callers of orca_wqe_track.h hold the queue's lock.
 */
static inline bool test_bit(unsigned long nr, const unsigned long *addr)
{
	return bitmap_test_bit(addr, nr);
}

static inline void __set_bit(unsigned long nr, unsigned long *addr)
{
	bitmap_set_bit(addr, nr);
}

static inline void __clear_bit(unsigned long nr, unsigned long *addr)
{
	bitmap_clear_bit(addr, nr);
}

#include "orca_regs_defs.h"
#include "orca_io_defs.h"
#include "orca_wqe_track.h"

#endif /* ORCA_PROVIDER_HW_H */

/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * ORCA provider: the full barrier of the doorbell record and CQ arming
 * handshakes (spec, data-path.rst, "Doorbell records and event indices").
 *
 * Our store (a producer index, an arm word) must be visible to the adapter
 * before we load what it wrote (the event index, the CQE at ci): a
 * StoreLoad barrier that reaches the device.  util/udma_barrier.h has none:
 * udma_to_device_barrier() orders stores with stores (a compiler barrier on
 * x86), udma_from_device_barrier() loads with loads, mmio_flush_writes()
 * write-combined stores, and on some architectures none of them orders a
 * store before a later load (x86, riscv).  So this is the kernel's mb() of
 * each architecture udma_barrier.h knows, spelled as it spells its own;
 * another architecture fails to build, as with udma_barrier.h, rather than
 * getting atomic_thread_fence(), which only orders against other CPUs.
 * (A udma_full_barrier() in udma_barrier.h would serve every provider.)
 *
 * On x86 this is MFENCE, not the LOCK-prefixed no-op that compilers emit
 * for atomic_thread_fence(memory_order_seq_cst): QEMU's TCG translates a
 * LOCK-prefixed instruction of a single-vCPU guest as a plain load and
 * store, which orders nothing against the device process reading guest
 * memory, while MFENCE always becomes a host barrier.
 *
 * Standalone (no includes), so that selftests/tree/provider-barriers.sh can
 * preprocess it for every architecture.
 */
#ifndef ORCA_PROVIDER_BARRIER_H
#define ORCA_PROVIDER_BARRIER_H

#if defined(__x86_64__)
#define orca_mb() asm volatile("mfence" ::: "memory")
#elif defined(__i386__)
#define orca_mb() asm volatile("lock; addl $0,0(%%esp)" ::: "memory")
#elif defined(__PPC64__) || defined(__PPC__)
#define orca_mb() asm volatile("sync" ::: "memory")
#elif defined(__ia64__)
#define orca_mb() asm volatile("mf" ::: "memory")
#elif defined(__sparc_v9__)
#define orca_mb() asm volatile("membar #StoreLoad" ::: "memory")
#elif defined(__aarch64__)
#define orca_mb() asm volatile("dmb osh" ::: "memory")
#elif defined(__s390x__)
#define orca_mb() asm volatile("bcr 15,0" ::: "memory")
#elif defined(__loongarch__)
#define orca_mb() asm volatile("dbar 0" ::: "memory")
#elif defined(__riscv)
#define orca_mb() asm volatile("fence iorw,iorw" ::: "memory")
#elif defined(__mips__)
#define orca_mb() asm volatile("sync" ::: "memory")
#else
#error No device-ordering full barrier for this architecture
#endif

#endif /* ORCA_PROVIDER_BARRIER_H */

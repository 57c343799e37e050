#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The provider's StoreLoad barriers, as KTAP: the paths that store a
# producer index (or a CQ's arm word) and then load what the adapter wrote
# (the event index, the CQE at ci) must fence with MFENCE on x86-64.  The
# LOCK-prefixed instruction compilers emit for atomic_thread_fence(seq_cst)
# is no barrier for a single-vCPU QEMU TCG guest (it runs as a plain load
# and store): with it, the adapter's event index write and the producer
# index write could miss each other, and ops-identity (20-port-ops) stranded its last
# sends in about one run in three with send queue polling on (spec:
# data-path.rst, "Doorbell records and event indices").
#
#
# And in the sources, for every architecture: the provider's barriers are
# rdma-core's (util/udma_barrier.h) or orca_mb() of orca_barrier.h, which
# must be a device-ordering full barrier (the kernel's mb()) on each
# architecture udma_barrier.h knows; atomic_thread_fence() and the like
# order only against other CPUs (a weak architecture's fallback to them
# would not order the producer index against the adapter's event index).
#
# Usage: selftests/tree/provider-barriers.sh [LIBORCA.so]   (default: the
# installed provider, as guests load it).  Runs inside the toolroot.
set -u
lib=${1:-/usr/lib/$(gcc -print-multiarch)/libibverbs/liborca-rdmav34.so}
funcs="orca_post_send orca_post_recv orca_post_srq_recv orca_req_notify_cq"
src=$(cd "$(dirname "$0")/../../providers/orca" && pwd)

echo "TAP version 13"
echo "1..6"
failed=0

# CPU-only fences in the provider's code (comments aside).
cpu_fences=$(for f in "$src"/*.[ch]; do
	sed 's|/\*.*\*/||; s|^[[:space:]]*/\{0,1\}\*.*||' "$f" |
		grep -nE 'atomic_thread_fence|__sync_synchronize|atomic_signal_fence' |
		sed "s|^|${f##*/}:|"
done)
if [ -n "$cpu_fences" ]; then
	echo "$cpu_fences" | sed 's/^/# CPU-only fence: /'
	echo "not ok 1 providers/orca: no CPU-only fences, device barriers only"
	failed=1
else
	echo "ok 1 providers/orca: no CPU-only fences, device barriers only"
fi

# orca_mb() per architecture: ARCH-MACRO and the instruction it must be.
bad=0
while read -r macro insn; do
	out=$(printf '#include "orca_barrier.h"\norca_mb();\n' |
		gcc -E -P -undef -D"$macro" -I"$src" - 2>&1)
	if ! printf '%s\n' "$out" | grep -qF "asm volatile(\"$insn\""; then
		echo "# $macro: orca_mb() is not \"$insn\": $(echo $out | head -c 200)"
		bad=1
	fi
done <<'ARCHES'
__x86_64__ mfence
__i386__ lock; addl $0,0(%%esp)
__PPC64__ sync
__PPC__ sync
__ia64__ mf
__sparc_v9__ membar #StoreLoad
__aarch64__ dmb osh
__s390x__ bcr 15,0
__loongarch__ dbar 0
__riscv fence iorw,iorw
__mips__ sync
ARCHES
if [ "$bad" = 0 ]; then
	echo "ok 2 orca_mb() is a device-ordering full barrier on every architecture"
else
	echo "not ok 2 orca_mb() is a device-ordering full barrier on every architecture"
	failed=1
fi

if [ "$(uname -m)" != x86_64 ]; then
	n=2
	for f in $funcs; do
		n=$((n + 1))
		echo "ok $n $f fences with MFENCE # SKIP not x86-64"
	done
	exit $failed
fi
if ! dis=$(objdump -d --no-show-raw-insn "$lib" 2>&1); then
	echo "# $dis" | head -n 5
	echo "not ok 3 objdump $lib"
	exit 1
fi

# body NAME: the disassembly of function NAME (or of NAME.constprop.0 ...).
body() {
	echo "$dis" | awk -v f="$1" '
		$2 ~ "^<" f "(\\.[a-z]+\\.[0-9]+)?>:$" { p = 1; next }
		p && /^$/ { exit }
		p'
}

n=2
for f in $funcs; do
	n=$((n + 1))
	b=$(body "$f")
	# An out-of-line orca_publish_pi() holds the fence of the posts.
	if echo "$b" | grep -q 'call.*<orca_publish_pi'; then
		b="$b
$(body orca_publish_pi)"
	fi
	if [ -z "$b" ]; then
		echo "# $f not found in $lib"
	elif echo "$b" | grep -qE 'lock +(or|add)[a-z]* +\$0x0,(-?0x[0-9a-f]+)?\(%rsp\)'; then
		echo "# $f: a LOCK-prefixed stack fence:"
		echo "$b" | grep -E 'lock +(or|add)' | sed 's/^/#   /'
	elif echo "$b" | grep -qw mfence; then
		echo "ok $n $f fences with MFENCE"
		continue
	else
		echo "# $f: no MFENCE"
	fi
	failed=1
	echo "not ok $n $f fences with MFENCE"
done
exit $failed

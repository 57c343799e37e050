#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check-debug: the guest tests on a debug kernel (scripts/debug-kernel.sh:
# KASAN, lockdep, KMEMLEAK, UBSAN, atomic-sleep checks; built once, about
# half an hour on two idle cores, and cached machine-wide outside the
# toolroot's root).  orca.ko and
# selftests/kmod are built against its tree in /var/tmp/orca-check-debug/; each
# guest boots that kernel with make check's allocator debugging and fails on
# any report in its kernel log, a kmemleak scan at its end included
# (selftests/lib/host/host.sh).  Never part of make check.  KTAP per program and the summary line, as
# selftests/run.sh prints them.
#
# Usage: scripts/guests/check-debug.sh [all | NN-name ...]   (inside the toolroot;
#        from outside: make check-debug [TESTS="all" | TESTS="NN-name ..."])
#   (none)   the default suite: the guest tests that drive ORCA's own code
#            (driver, uverbs, the adapter's fault and removal paths) and
#            one pairing of each kernel ULP, sized to about an hour
#   all      every guest test but the two that cannot run on this kernel
#   NN-name  guest tests to run (selftests/guest/NN-name.sh), in the order
#            given
#
# Environment: ORCA_TIMEOUT_SCALE (default 4) multiplies every guest run's
# timeout: TCG with KASAN and lockdep is that much slower.
# ORCA_DEBUG_KERNEL_DIR=DIR uses the kernel in DIR, laid out as
# debug-kernel.sh lays out its result, instead of building one.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1

# Not on the debug kernel: 29 loads the patch series' module, built for the
# stock kernel; 90 installs orca-dkms for the stock kernel.
skip="29-kverbs-series 90-deb-install"
# The default suite, the driver's own tests first, sized to about an hour
# on this kernel (20-port-ops took 693 s on it, three quarters of what its
# three parts took on the earlier debug kernel).  Left to "all": the rxe
# pairings and baselines (each protocol's interop is in make check), the
# tools and benchmarks whose kernel side 72 and 81 already drive, the
# lossy-wire variants of 27 and 51, and the ULPs under faults and under
# removal (41-fault-nvmeof, 84-ulp-removal: about 15 and 25 minutes here,
# going by their times on the earlier kernel; the adapter's own fault and
# removal paths are 40, 30 and 70's).  87 runs on-demand paging's fault
# work, mmu notifier and fork/munmap cases under lockdep (umem_mutex
# against reclaim) and KASAN.
default="20-port-ops 25-kverbs-local 27-kverbs-remote 30-load-unload
40-dead-adapter 70-uverbs-local 72-uverbs-tools-orca-orca 51-nvmeof-orca
81-ulp-orca-orca 87-odp-orca-orca"
case "${1:-}" in
"")
	tests=$default ;;
all)
	tests=
	for t in selftests/guest/[0-9]*.sh; do
		t=$(basename "$t" .sh)
		case " $skip " in *[[:space:]]"$t"[[:space:]]*) continue ;; esac
		tests+=" $t"
	done ;;
*)
	tests="$*" ;;
esac

logdir=$top/out/check-debug
mkdir -p "$logdir"
echo "# debug kernel (scripts/debug-kernel.sh; the first build takes about half an hour)"
start=$SECONDS
kdir=${ORCA_DEBUG_KERNEL_DIR:-$(scripts/debug-kernel.sh)} || {
	echo "not ok - debug kernel build failed"
	echo "0 passed, 1 failed, 0 skipped"
	exit 1
}
kver=$(cat "$kdir/kernelrelease")
echo "# $kver in $kdir ($((SECONDS - start)) s)"

# orca.ko and selftests/kmod for the debug kernel, from a copy of their
# sources: Kbuild's MO= (a separate output directory) refuses a source tree
# that has an in-tree build, which make check's is.  The copy lives outside
# the tree: lint.sh's "make M=<tree> clean" deletes every .ko under it, and
# did so under a check-debug running beside make check.  The guests see the
# toolroot's /var/tmp at the same path.
echo "# building"
. scripts/ccache-env.sh
kmod=/var/tmp/orca-check-debug/$(printf '%s' "$top" | sha256sum | cut -c1-12)/kmod
rm -rf "$kmod" && mkdir -p "$kmod" &&
tar -C "$top" -cf - --exclude='*.o' --exclude='*.ko' --exclude='*.mod' \
	--exclude='*.mod.c' --exclude='.*.cmd' --exclude=modules.order \
	--exclude=Module.symvers Kbuild include drivers selftests/kmod |
	tar -C "$kmod" -xf - || exit 1
if ! { make --no-print-directory emulator usertests provider &&
       make -C "$kdir/build" M="$kmod" CC="ccache gcc" CONFIG_INFINIBAND_ORCA=m \
		KCFLAGS=-Werror W=1 -j"$(nproc)" modules; } >"$logdir/build.log" 2>&1; then
	tail -n 60 "$logdir/build.log"
	echo "not ok - build failed"
	echo "0 passed, 1 failed, 0 skipped"
	exit 1
fi

# Its own guest logs: make check's stay, and both can run at once.
export ORCA_GUEST_KERNEL=$kdir ORCA_KMOD_DIR=$kmod ORCA_GUEST_OUT=$logdir/guest
export ORCA_TIMEOUT_SCALE=${ORCA_TIMEOUT_SCALE:-4}
pass=0 fail=0 skip=0
suite=$SECONDS
for t in $tests; do
	prog=selftests/guest/$t.sh
	[ -x "$prog" ] || { echo "not ok - no $prog"; fail=$((fail + 1)); continue; }
	log=$logdir/$t.log
	echo "# === guest/$t"
	start=$SECONDS
	"$prog" >"$log" 2>&1
	rc=$?
	cat "$log"
	p=$(grep -cE '^ok [0-9]+' "$log")
	s=$(grep -cE '^ok [0-9]+.*# SKIP' "$log")
	f=$(grep -cE '^not ok [0-9]+' "$log")
	p=$((p - s))
	if { [ "$rc" != 0 ] && [ "$rc" != 4 ] && [ "$f" = 0 ]; } ||
	   [ $((p + f + s)) = 0 ]; then
		f=$((f + 1))
		echo "not ok - guest/$t exited with status $rc"
	fi
	echo "# guest/$t: $p passed, $f failed, $s skipped ($((SECONDS - start)) s)"
	pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
done
echo "# suite: $((SECONDS - suite)) s"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]

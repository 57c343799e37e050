#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The patch series (make patches) as upstream would take them, as KTAP:
#  - the kernel series applies patch by patch to a pristine linux-source-7.3
#    extraction (after modules_prepare with Debian's config), and after each
#    patch drivers/infiniband/hw/orca builds with W=1 and sparse without a
#    warning (C=1: every file is whole in the patch that adds it, so each is
#    checked there; none changes afterwards);
#  - checkpatch --strict on every patch: no error, warning or check
#    (FILE_PATH_CHANGES is ignored before the patch that adds the MAINTAINERS
#    entry: it only asks whether MAINTAINERS needs updating);
#  - scripts/kernel-doc -none on the driver: no warning; the driver's Kconfig
#    entry is selectable as a module in that config;
#  - the series ends with the tree's driver and ABI header, file for file;
#  - with --guest-module, the series' driver builds for the guests' kernel
#    too, whose uAPI lacks RDMA_DRIVER_ORCA (the tree's out-of-tree
#    fallback, from its driver Makefile, stands in for it)
#    (out/patches-module/, loaded by selftests/guest/29-kverbs-series.sh,
#    which passes it: make check's guest tests load the tree's driver,
#    which the previous case shows to be the same);
#  - the rdma-core series applies to pristine 56.1, which then builds the
#    provider.
# The trees are reused between runs (only the files the series touched are
# restored), so a warm run rebuilds just the driver and the provider.
# Runs inside the toolroot.
set -u
guest_module=0
[ "${1:-}" = --guest-module ] && guest_module=1
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
out=$top/out/patches-test
mkdir -p "$out"

. "$top/selftests/lib/host/ktap-result.sh"
# The series' objects are compiled anew in every run (the work tree is
# reset), with the same flags as in the last one: ccache answers them.
# Sparse (C=1) still checks each file.
. "$top/scripts/ccache-env.sh"

echo "TAP version 13"
scripts/series/make-patches.sh >"$out/make-patches.log" 2>&1
rc=$?
kpatches=$(ls out/patches/kernel/[0-9]*.patch 2>/dev/null | grep -v /0000-)
upatches=$(ls out/patches/rdma-core/[0-9]*.patch 2>/dev/null | grep -v /0000-)
nk=$(echo "$kpatches" | grep -c .)
nu=$(echo "$upatches" | grep -c .)
echo "1..$((1 + 3 * nk + 3 + guest_module + nu + 2))"
result $rc "make patches ($nk kernel, $nu rdma-core patches)" "$out/make-patches.log"

# files_of PATCH: the paths a patch touches.
files_of() { sed -n 's|^diff --git a/\(.*\) b/.*|\1|p' "$1"; }

# reset_tree PRISTINE WORK: undo the previous run's patches.
reset_tree() {
	local f
	[ -f "$2/.orca-touched" ] || return 0
	while read -r f; do
		if [ -e "$1/$f" ]; then
			cmp -s "$1/$f" "$2/$f" || cp "$1/$f" "$2/$f"
		else
			rm -f "$2/$f"
		fi
	done <"$2/.orca-touched"
	rm -f "$2/.orca-touched"
}

# ---- kernel
# The driver's sources (the Makefile is the series' own, generated per patch).
drv_files=$(cd "$top" && ls drivers/infiniband/hw/orca/*.[ch] drivers/infiniband/hw/orca/Kconfig |
	grep -v '\.mod\.c$')
pristine=$(scripts/series/pristine-tree.sh linux)
work=/opt/orca-linux/work-$(basename "$(dirname "$pristine")")
kdir=$(ls -d /usr/src/linux-headers-*-amd64 | head -n1)
if [ ! -f "$work/.orca-prepared" ]; then
	echo "# preparing $work (once)"
	rm -rf "$work"
	cp -a "$pristine" "$work"
	chmod -R u+w "$work"
	cp "$kdir/.config" "$work/.config"
	(cd "$work" && make olddefconfig && make -j"$(nproc)" modules_prepare) \
		>"$out/prepare.log" 2>&1 || { tail -n 30 "$out/prepare.log"; exit 1; }
	# The distribution kernel's exports, so modpost resolves ib_core's.
	cp "$kdir/Module.symvers" "$work/Module.symvers"
	touch "$work/.orca-prepared"
fi
reset_tree "$pristine" "$work"
rm -rf "$work/drivers/infiniband/hw/orca" "$work/Documentation/infiniband/orca"

last_maint=$(grep -l '^diff --git a/MAINTAINERS' $kpatches | head -n1)
ignore=--ignore=FILE_PATH_CHANGES
for p in $kpatches; do
	name=$(basename "$p" .patch)
	files_of "$p" >>"$work/.orca-touched"
	(cd "$work" && patch -p1 --forward --batch --no-backup-if-mismatch -i "$top/$p") >"$out/$name.apply.log" 2>&1
	result $? "kernel $name applies" "$out/$name.apply.log"

	# checkpatch reads only the patch: it runs beside the build.
	[ "$p" = "$last_maint" ] && ignore=
	(cd "$work" && perl scripts/checkpatch.pl --strict --terse --show-types \
		$ignore "$top/$p" >"$out/$name.checkpatch.log" 2>&1
	 echo $? >"$out/$name.checkpatch.rc") &

	make -C "$work" M="$work/drivers/infiniband/hw/orca" CC="ccache gcc" \
		CONFIG_INFINIBAND_ORCA=m W=1 C=1 -j"$(nproc)" modules \
		>"$out/$name.build.log" 2>&1
	rc=$?
	grep -qE '(warning|error|WARNING|ERROR)' "$out/$name.build.log" && rc=1
	result $rc "kernel $name builds with W=1 C=1" "$out/$name.build.log"
done
wait
for p in $kpatches; do
	name=$(basename "$p" .patch)
	rc=$(cat "$out/$name.checkpatch.rc" 2>/dev/null || echo 1)
	grep -qE '(ERROR|WARNING|CHECK):' "$out/$name.checkpatch.log" && rc=1
	result $rc "kernel $name checkpatch --strict" "$out/$name.checkpatch.log"
done

(cd "$work" && scripts/kernel-doc -none drivers/infiniband/hw/orca/*.[ch]) \
	>"$out/kernel-doc.log" 2>&1
rc=$?
[ -s "$out/kernel-doc.log" ] && rc=1
result $rc "kernel-doc -none on the driver: no warnings" "$out/kernel-doc.log"

# The Kconfig hook: INFINIBAND_ORCA=m survives olddefconfig in Debian's
# config (its depends are met there), on a copy of the config.
cp "$work/.config" "$out/kconfig"
(cd "$work" && scripts/config --file "$out/kconfig" --module INFINIBAND_ORCA &&
 KCONFIG_CONFIG="$out/kconfig" make -s olddefconfig) >"$out/kconfig.log" 2>&1
grep -q '^CONFIG_INFINIBAND_ORCA=m$' "$out/kconfig"
result $? "Kconfig: INFINIBAND_ORCA=m selectable" "$out/kconfig.log"

# The series ends with the tree's driver, file for file: then the guest
# tests of the tree's orca.ko hold for the series' (29-kverbs-series, which
# loads the series' module, is in make check-long).
: >"$out/same-files.log"
for f in $drv_files include/uapi/rdma/orca-abi.h; do
	cmp "$top/$f" "$work/$f" >>"$out/same-files.log" 2>&1
done
for f in "$work"/drivers/infiniband/hw/orca/*.[ch]; do
	case $f in *.mod.c) continue ;; esac
	[ -e "$top/${f#"$work"/}" ] || echo "only in the series: ${f#"$work"/}" >>"$out/same-files.log"
done
[ ! -s "$out/same-files.log" ]
result $? "the series' driver and ABI header are the tree's, file for file" "$out/same-files.log"

# The series' driver, built for the guests' kernel (the distribution's
# headers; the ABI header from the patched tree) in out/patches-module/,
# where selftests/guest/29-kverbs-series.sh loads it.  Files are copied
# only when they changed, so the build there is incremental.
if [ "$guest_module" = 1 ]; then
	mod=$top/out/patches-module
	mkdir -p "$mod"
	for f in "$work"/drivers/infiniband/hw/orca/{*.[ch],Makefile}; do
		case $f in *.mod.c) continue ;; esac
		cmp -s "$f" "$mod/${f##*/}" || cp "$f" "$mod/"
	done
	# The distribution's kernel has no RDMA_DRIVER_ORCA: the series'
	# Makefile, behind the tree's out-of-tree fallback (its Makefile,
	# between the markers), as kbuild reads a Kbuild file first.
	{
		sed -n '/^# orca-compat-begin$/,/^# orca-compat-end$/p' \
			"$top/drivers/infiniband/hw/orca/Makefile"
		echo 'include $(src)/Makefile'
	} >"$mod/Kbuild.new"
	cmp -s "$mod/Kbuild.new" "$mod/Kbuild" || mv "$mod/Kbuild.new" "$mod/Kbuild"
	rm -f "$mod/Kbuild.new"
	make -C "$kdir" M="$mod" CONFIG_INFINIBAND_ORCA=m \
		KCFLAGS="-idirafter $work/include/uapi" -j"$(nproc)" modules \
		>"$out/guest-module.log" 2>&1
	rc=$?
	grep -qE '(warning|error|WARNING|ERROR)' "$out/guest-module.log" && rc=1
	[ -f "$mod/orca.ko" ] || rc=1
	result $rc "the series' driver builds for $(basename "$kdir")" "$out/guest-module.log"
fi

# enum rdma_driver_id of the patched kernel, for the rdma-core case below.
driver_ids() { sed -n '/^enum rdma_driver_id {$/,/^};$/p' "$1"; }
driver_ids "$work/include/uapi/rdma/ib_user_ioctl_verbs.h" >"$out/driver-ids.kernel"

# ---- rdma-core
pristine=$(scripts/series/pristine-tree.sh rdma-core)
work=/opt/orca-rdma-core-series/work-$(basename "$(dirname "$pristine")")
if [ ! -d "$work" ]; then
	cp -a "$pristine" "$work"
	chmod -R u+w "$work"
fi
reset_tree "$pristine" "$work"
rm -rf "$work/providers/orca"
for p in $upatches; do
	name=$(basename "$p" .patch)
	files_of "$p" >>"$work/.orca-touched"
	(cd "$work" && patch -p1 --forward --batch --no-backup-if-mismatch -i "$top/$p") >"$out/rdma-core-$name.apply.log" 2>&1
	result $? "rdma-core $name applies" "$out/rdma-core-$name.apply.log"
done
{
	[ -f "$work/build/build.ninja" ] ||
		cmake -S "$work" -B "$work/build" -GNinja -DCMAKE_BUILD_TYPE=Release \
			-DNO_PYVERBS=1 -DNO_MAN_PAGES=1
	ninja -C "$work/build" orca-rdmav34
} >"$out/rdma-core-build.log" 2>&1
rc=$?
grep -q 'warning:' "$out/rdma-core-build.log" && rc=1
result $rc "rdma-core 56.1 with the series builds the orca provider" "$out/rdma-core-build.log"

# Driver and provider must agree on RDMA_DRIVER_ORCA's value (the provider
# sends it in every ioctl header, which the kernel checks): both series
# leave enum rdma_driver_id the same, ending with it.
driver_ids "$work/kernel-headers/rdma/ib_user_ioctl_verbs.h" >"$out/driver-ids.rdma-core"
{
	diff -u "$out/driver-ids.kernel" "$out/driver-ids.rdma-core" &&
		grep -A1 -x $'\tRDMA_DRIVER_ORCA,' "$out/driver-ids.kernel" | grep -qx '};'
} >"$out/driver-ids.log" 2>&1
result $? "enum rdma_driver_id: the same in both series, RDMA_DRIVER_ORCA last" "$out/driver-ids.log"

[ $failed = 0 ]

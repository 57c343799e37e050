#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# RNBD (RDMA Network Block Device) over RTRS for the guests: Debian's 7.3
# kernel is built with CONFIG_INFINIBAND_RTRS_CLIENT/SERVER unset, so it
# has no rtrs-* or rnbd-* modules.  Build drivers/infiniband/ulp/rtrs and
# drivers/block/rnbd of the toolroot's linux-source tarball as external
# modules against the guest kernel's headers and keep the five modules
# (rtrs-core, rtrs-client, rtrs-server, rnbd-client, rnbd-server) in
# /opt/orca-rnbd of the toolroot (the guests' root file system).  Runs
# inside the toolroot, rebuilds only when the tarball, the headers, this
# script or a fix change, and prints the directory.
#
# The fixes scripts/kernel-fixes/rnbd-*.patch, for bugs of rtrs or rnbd
# that the guest tests hit, are applied to the sources first.
#
# Unlike fs/smb (smb-build.sh), neither directory tests a CONFIG_ option in
# C: the options on the make command line choose the objects and nothing
# else, so the headers' object tree is used as it is.  One Kbuild file over
# both directories builds them in one modpost pass: rnbd resolves rtrs's
# exports without KBUILD_EXTRA_SYMBOLS, and modpost fails the build on any
# symbol that neither the kernel's Module.symvers (ib_core, rdma_cm, the
# block layer) nor the set exports.  rnbd's Makefile finds rtrs.h under
# $(srctree), which for an external build is the headers' tree: the top
# Kbuild adds the extracted rtrs directory to every subdirectory's include
# path instead.
#
# The names are new to the kernel, but modprobe must still find the
# modules and their stock dependencies without touching /lib/modules:
# load them with "modprobe -d /opt/orca-rnbd/root rnbd-server" (or
# rnbd-client), see the module root at the end.  They are unsigned
# (MODULE_SIG_FORCE is unset: they load and taint the kernel).
set -euo pipefail
# shellcheck source=scripts/ccache-env.sh
. "$(dirname "$0")/../ccache-env.sh"
dest=/opt/orca-rnbd
tarball=$(ls /usr/src/linux-source-*.tar.xz | head -n 1)
kdir=$(ls -d /usr/src/linux-headers-*-amd64 | head -n 1)
mods="drivers/infiniband/ulp/rtrs/rtrs-core.ko drivers/infiniband/ulp/rtrs/rtrs-client.ko
	drivers/infiniband/ulp/rtrs/rtrs-server.ko drivers/block/rnbd/rnbd-client.ko
	drivers/block/rnbd/rnbd-server.ko"
fixes=$(ls "$(dirname "$0")"/../kernel-fixes/rnbd-*.patch 2>/dev/null || true)
stamp=$( { sha256sum "$tarball" "$0" "$kdir/Module.symvers" "$kdir/.config" $fixes
	echo "$kdir"; } | sha256sum | cut -d' ' -f1)

mkdir -p "$dest"
exec 9>"$dest/.lock"
flock 9
if [ -f "$dest/rnbd-server.ko" ] && [ "$(cat "$dest/.stamp" 2>/dev/null)" = "$stamp" ]; then
	echo "$dest"
	exit 0
fi
rm -f "$dest/.stamp" "$dest"/*.ko
log=$dest/build.log
: >"$log"
fail() { tail -n 30 "$log" >&2; echo "rnbd-build: $*" >&2; exit 1; }

top=$(basename "$tarball" .tar.xz)
src=$dest/src
rm -rf "$src" && mkdir -p "$src"
tar -xJf "$tarball" -C "$src" --strip-components=1 \
	"$top/drivers/infiniband/ulp/rtrs" "$top/drivers/block/rnbd" \
	>>"$log" 2>&1 || fail "tar"
for p in $fixes; do
	patch -d "$src" -p1 --no-backup-if-mismatch <"$p" >>"$log" 2>&1 ||
		fail "patch $p"
done
printf '%s\n' "subdir-ccflags-y := -I$src/drivers/infiniband/ulp/rtrs" \
	"obj-y += drivers/infiniband/ulp/rtrs/ drivers/block/rnbd/" >"$src/Kbuild"
for o in INFINIBAND_RTRS INFINIBAND_RTRS_CLIENT INFINIBAND_RTRS_SERVER \
	BLK_DEV_RNBD_CLIENT BLK_DEV_RNBD_SERVER; do
	! grep -q "^CONFIG_$o=" "$kdir/include/config/auto.conf" ||
		fail "CONFIG_$o is already set in $kdir: recheck this script"
done
make -C "$kdir" M="$src" CC="ccache gcc" -j2 \
	CONFIG_INFINIBAND_RTRS=m CONFIG_INFINIBAND_RTRS_CLIENT=m \
	CONFIG_INFINIBAND_RTRS_SERVER=m CONFIG_BLK_DEV_RNBD_CLIENT=m \
	CONFIG_BLK_DEV_RNBD_SERVER=m modules >>"$log" 2>&1 || fail "make"

ver=$(cat "$kdir/include/config/kernel.release")
for m in $mods; do
	[ "$(modinfo -F vermagic "$src/$m" | cut -d' ' -f1)" = "$ver" ] ||
		fail "$m: vermagic is not $ver"
done
# Unstripped copies stay in $dest/src for decode_stacktrace.sh (Debian's
# own modules are stripped of DWARF); the objects go.
for m in $mods; do
	install -m 0644 "$src/$m" "$dest/"
	strip --strip-debug "$dest/${m##*/}"
done
find "$src" -name '*.o' -delete
install -m 0644 "$src/Module.symvers" "$dest/Module.symvers"

# A module root for "modprobe -d $dest/root": the stock kernel/ tree (a
# symlink, valid in the toolroot and in the guests) and these five in
# updates/, so modprobe resolves them and their stock dependencies.
mr=$dest/root/lib/modules/$ver
rm -rf "$dest/root" && mkdir -p "$mr/updates"
ln -s "/lib/modules/$ver/kernel" "$mr/kernel"
cp "/lib/modules/$ver/modules.order" "/lib/modules/$ver/modules.builtin" \
	"/lib/modules/$ver/modules.builtin.modinfo" "$mr/"
for m in $mods; do
	ln -s "../../../../../${m##*/}" "$mr/updates/${m##*/}"
done
depmod -b "$dest/root" "$ver" >>"$log" 2>&1 || fail "depmod"
for m in rnbd-client:rtrs-client rnbd-server:rtrs-server; do
	grep -q "/updates/${m#*:}.ko" <(modprobe -d "$dest/root" -S "$ver" \
		--show-depends "${m%:*}" 2>>"$log") ||
		fail "modprobe -d does not resolve ${m%:*} to ${m#*:}"
done
echo "$stamp" >"$dest/.stamp"
echo "$dest"

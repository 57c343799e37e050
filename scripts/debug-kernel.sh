#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The debug kernel of `make check-debug`: linux-source-7.3 of the toolroot,
# configured with Debian's config of the toolroot's kernel plus
# scripts/debug-kernel.config (KASAN, lockdep, KMEMLEAK, UBSAN, atomic-sleep
# checks, slab and page allocation fault injection; siw and SMB Direct
# in-tree), with the modules cut down to those the guest tests use
# (scripts/debug-kernel.modules, by localmodconfig), with the fixes
# scripts/kernel-fixes/*.patch applied (bugs of the kernel that the guest
# tests hit), built once and cached machine-wide in the toolroot under
# /var/cache/orca-debug-kernel/<key>, where <key> hashes this script, the
# fragment, the module list, the fixes, Debian's config and the source package's
# version.  Runs inside
# the toolroot and prints the cache directory, which holds:
#   vmlinuz        the kernel the guests boot
#   kernelrelease  its `uname -r`
#   root/lib/modules/<kernelrelease>/   its modules (depmod'ed); the guests,
#                  whose root is the toolroot, see them at this same path
#   build/         the configured and built source tree: KDIR for orca.ko
#                  and selftests/kmod
# It takes about an hour on two idle cores, at the lowest CPU priority; the
# build's log is build.log next to them.  Concurrent callers wait for one
# build (flock).  Older keys are removed once a build succeeds.
#
# Usage: scripts/debug-kernel.sh
set -euo pipefail
# Lowest priority however it is started (by hand too, not only from
# check-debug.sh): an hour of both cores must not slow a make check or a
# make bench beside it.
renice -n 19 -p $$ >/dev/null
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
frag=$here/debug-kernel.config
mods=$here/debug-kernel.modules
tarball=$(ls /usr/src/linux-source-*.tar.xz | head -n 1)
pkg=$(basename "$tarball" .tar.xz)
srcver=$(dpkg-query -W -f='${Version}' "$pkg")
base=$(ls /boot/config-*-amd64 | sort -V | tail -n 1)
fixes=$(ls "$here"/kernel-fixes/*.patch 2>/dev/null || true)
key=$( { cat "$here/debug-kernel.sh" "$frag" "$mods" "$base" $fixes; echo "$pkg $srcver"; } |
	sha256sum | cut -c1-16)
cache=/var/cache/orca-debug-kernel
dest=$cache/$key

mkdir -p "$cache"
exec 9>"$cache/.lock"
flock 9
if [ -f "$dest/.done" ]; then
	echo "$dest"
	exit 0
fi
rm -rf "$dest"
mkdir -p "$dest"
log=$dest/build.log
: >"$log"
fail() { tail -n 40 "$log" >&2; echo "debug-kernel: $* (log: $log)" >&2; exit 1; }
step() { echo "debug-kernel: $(date -u +%H:%M:%S) $*" >>"$log"; }

step "extracting $pkg $srcver"
src=$dest/build
mkdir -p "$src"
tar -xJf "$tarball" -C "$src" --strip-components=1 || fail "tar"
for p in $fixes; do
	step "applying $(basename "$p")"
	patch -d "$src" -p1 --no-backup-if-mismatch <"$p" >>"$log" 2>&1 ||
		fail "patch $p"
done

step "configuring: $base + $frag"
cp "$base" "$src/.config"
(cd "$src" && scripts/kconfig/merge_config.sh -m .config "$frag") >>"$log" 2>&1 ||
	fail "merge_config"
make -C "$src" olddefconfig >>"$log" 2>&1 || fail "olddefconfig"
make -C "$src" LSMOD="$mods" localmodconfig >>"$log" 2>&1 || fail "localmodconfig"
# Every option the fragment sets must have survived olddefconfig (a missing
# dependency silently drops it).
bad=
while IFS= read -r line; do
	case $line in
	CONFIG_*=*)
		grep -qxF -- "$line" "$src/.config" || bad+=" $line" ;;
	"# CONFIG_"*" is not set")
		opt=${line#\# }; opt=${opt%% *}
		! grep -qE "^$opt=[ym]" "$src/.config" || bad+=" $opt=n" ;;
	esac
done <"$frag"
[ -z "$bad" ] || { echo "not in .config:$bad" >>"$log"; fail "config:$bad"; }

step "building bzImage and modules"
make -C "$src" -j"$(nproc)" bzImage modules >>"$log" 2>&1 || fail "build"
step "installing modules"
make -C "$src" INSTALL_MOD_PATH="$dest/root" modules_install >>"$log" 2>&1 ||
	fail "modules_install"
kver=$(make -s -C "$src" kernelrelease)
ln -sfn "$src" "$dest/root/lib/modules/$kver/build"
cp "$src/arch/x86/boot/bzImage" "$dest/vmlinuz"
echo "$kver" >"$dest/kernelrelease"
touch "$dest/.done"
step "done: $kver"
find "$cache" -mindepth 1 -maxdepth 1 -type d ! -name "$key" -exec rm -rf {} +
echo "$dest"

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The debug kernel of `make check-debug`: linux-source-7.x of the toolroot,
# configured for our guests alone (the kernel's x86_64_defconfig, its
# kvm_guest.config, then scripts/debug-kernel.config: what the guest tests
# use, the detectors (KASAN, lockdep, kmemleak, UBSAN, atomic-sleep checks),
# and the hardware a QEMU guest never has turned off), with the fixes
# scripts/kernel-fixes/*.patch applied (bugs of the kernel that the guest
# tests hit).  Runs inside the toolroot and prints the directory of the
# result, which holds:
#   vmlinuz        the kernel the guests boot
#   kernelrelease  its `uname -r`
#   root/lib/modules/<kernelrelease>/   its modules (depmod'ed); the guests,
#                  whose root is the toolroot, see them at this same path
#   build          the configured and built source tree: KDIR for orca.ko
#                  and selftests/kmod
#
# Everything lives in /var/cache/orca-debug-kernel, which toolroot.sh keeps
# outside the toolroot's root (a toolroot rebuild does not lose it):
#   tree/          one kept source tree, built in place: a change of the
#                  fixes reverses the old ones and applies the new ones,
#                  a change of the config reconfigures it, and make rebuilds
#                  only what changed
#   out-<key>/     a finished kernel; <key> hashes the resolved .config, the
#                  source package's version and the fixes
# Every compile goes through ccache (/var/cache/orca-ccache, kept likewise),
# so a tree that had to be extracted again still rebuilds from the cache.
# Concurrent callers wait for one build (flock); the log is build.log in the
# cache directory.
#
# Usage: scripts/debug-kernel.sh
set -euo pipefail
# Lowest priority however it is started (by hand too, not only from
# check-debug.sh): the build must not slow a make check beside it.
renice -n 19 -p $$ >/dev/null
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
frag=$here/debug-kernel.config
tarball=$(ls /usr/src/linux-source-*.tar.xz | head -n 1)
pkg=$(basename "$tarball" .tar.xz)
srcver=$(dpkg-query -W -f='${Version}' "$pkg")
fixes=$(ls "$here"/kernel-fixes/*.patch 2>/dev/null || true)
cache=/var/cache/orca-debug-kernel
tree=$cache/tree
log=$cache/build.log

# shellcheck source=scripts/ccache-env.sh
. "$here/ccache-env.sh"
# Fixed identity strings: the kernel's version banner is then the same on
# every rebuild, and init/version.c a cache hit like the rest.
kmake() {
	make -C "$tree" CC="ccache gcc" KBUILD_BUILD_TIMESTAMP=orca \
		KBUILD_BUILD_USER=orca KBUILD_BUILD_HOST=toolroot "$@" >>"$log" 2>&1
}

mkdir -p "$cache"
exec 9>"$cache/.lock"
flock 9
: >"$log"
fail() { tail -n 40 "$log" >&2; echo "debug-kernel: $* (log: $log)" >&2; exit 1; }
step() { echo "debug-kernel: $(date -u +%H:%M:%S) $*" >>"$log"; }

# 1. The source tree, extracted once per source package version.
if [ "$(cat "$tree/.orca-src" 2>/dev/null)" != "$pkg $srcver" ]; then
	step "extracting $pkg $srcver"
	rm -rf "$tree"
	mkdir -p "$tree"
	tar -xJf "$tarball" -C "$tree" --strip-components=1 || fail "tar"
	mkdir -p "$tree/.orca-fixes"
	echo "$pkg $srcver" >"$tree/.orca-src"
fi

# 2. The fixes: the tree keeps a copy of each patch it has applied.  When
# the set differs from scripts/kernel-fixes, the applied ones are reversed
# (last first) and the new set applied; only the files they touch rebuild.
applied=$tree/.orca-fixes
want=$( for p in $fixes; do basename "$p"; sha256sum <"$p"; done )
have=$( for p in $(ls "$applied"/*.patch 2>/dev/null); do
	basename "$p"; sha256sum <"$p"; done )
if [ "$want" != "$have" ]; then
	for p in $(ls -r "$applied"/*.patch 2>/dev/null); do
		step "reversing $(basename "$p")"
		if ! patch -d "$tree" -p1 -R --no-backup-if-mismatch <"$p" >>"$log" 2>&1; then
			rm -rf "$tree"	# not a tree we know any more: extract anew
			fail "reverse $p"
		fi
		rm -f "$p"
	done
	for p in $fixes; do
		step "applying $(basename "$p")"
		if ! patch -d "$tree" -p1 --no-backup-if-mismatch <"$p" >>"$log" 2>&1; then
			rm -rf "$tree"
			fail "patch $p"
		fi
		cp "$p" "$applied/"
	done
fi

# 3. The config.  kconfig rewrites a file only when its contents change,
# so an unchanged config rebuilds nothing.
step "configuring: x86_64_defconfig + kvm_guest.config + $(basename "$frag")"
kmake x86_64_defconfig || fail "defconfig"
kmake kvm_guest.config || fail "kvm_guest.config"
(cd "$tree" && scripts/kconfig/merge_config.sh -m .config "$frag") >>"$log" 2>&1 ||
	fail "merge_config"
kmake olddefconfig || fail "olddefconfig"
# Every option the fragment sets must have survived olddefconfig (a missing
# dependency silently drops it).
bad=
while IFS= read -r line; do
	case $line in
	CONFIG_*=*)
		grep -qxF -- "$line" "$tree/.config" || bad+=" $line" ;;
	"# CONFIG_"*" is not set")
		opt=${line#\# }; opt=${opt%% *}
		! grep -qE "^$opt=[ym]" "$tree/.config" || bad+=" $opt=n" ;;
	esac
done <"$frag"
[ -z "$bad" ] || { echo "not in .config:$bad" >>"$log"; fail "config:$bad"; }

key=$( { grep -v '^#' "$tree/.config"; echo "$pkg $srcver"; cat $fixes; } |
	sha256sum | cut -c1-16)
dest=$cache/out-$key
if [ -f "$dest/.done" ]; then
	echo "$dest"
	exit 0
fi

# 4. Build and install.
step "building bzImage and modules (key $key)"
start=$SECONDS
kmake -j"$(nproc)" bzImage modules || fail "build"
step "built in $((SECONDS - start)) s; $(ccache --print-stats 2>/dev/null |
	awk -F'\t' '$1 == "direct_cache_hit" || $1 == "preprocessed_cache_hit" ||
		$1 == "cache_miss" { printf "%s=%s ", $1, $2 }')"
rm -rf "$dest"
mkdir -p "$dest"
kmake INSTALL_MOD_PATH="$dest/root" modules_install || fail "modules_install"
kver=$(make -s -C "$tree" kernelrelease)
ln -sfn "$tree" "$dest/build"
ln -sfn "$tree" "$dest/root/lib/modules/$kver/build"
cp "$tree/arch/x86/boot/bzImage" "$dest/vmlinuz"
echo "$kver" >"$dest/kernelrelease"
touch "$dest/.done"
step "done: $kver"
# The tree now holds this kernel's objects: the other outputs' "build" no
# longer matches them.
find "$cache" -mindepth 1 -maxdepth 1 -type d -name 'out-*' ! -name "out-$key" \
	-exec rm -rf {} +
echo "$dest"

# SPDX-License-Identifier: GPL-2.0
#
# Sourced by the builds of kernel modules that Debian's kernel lacks, from
# the toolroot's linux-source tarball against the guest kernel's headers
# (smb-build.sh, rnbd-build.sh): the part they share, from the cache check
# to the module root that "modprobe -d" reads.  Each build keeps its
# modules in DEST of the toolroot (the guests' root file system) and
# rebuilds them only when the tarball, the headers, its script, this file
# or one of its fixes (scripts/kernel-fixes/PREFIX-*.patch) changed.
#
#   km_begin NAME DEST PREFIX MODS
#       sets dest, tarball, kdir, fixes, ver, log, top (the tarball's top
#       directory) and src (DEST/src, empty); takes DEST's lock; when DEST
#       is up to date, prints DEST and exits.  MODS: the modules' paths
#       relative to the built directory.  fail MSG: the log's tail, then
#       exit 1.
#   km_extract PATH...      the tarball's PATHs (below its top) into src,
#                           and the fixes applied
#   km_install DIR          each of MODS built in DIR: its vermagic is
#                           the guests' kernel, it goes to DEST stripped of
#                           DWARF, as Debian installs its own (the
#                           unstripped ones stay in DIR for
#                           decode_stacktrace.sh, the objects go), and
#                           DIR/Module.symvers with them
#   km_module_root MOD:DEP...
#                           DEST/root, a module root for "modprobe -d
#                           DEST/root": the stock kernel/ tree (a symlink,
#                           valid in the toolroot and in the guests) and
#                           MODS in updates/, which depmod ranks above
#                           kernel/, so modprobe resolves them and their
#                           stock dependencies without touching
#                           /lib/modules; each MOD must resolve to DEP of
#                           updates/ (itself, for a module that replaces a
#                           stock one); then the stamp, and DEST printed
# shellcheck source=scripts/ccache-env.sh
. "$(dirname "${BASH_SOURCE[0]}")/../ccache-env.sh"

km_begin() {
	km_name=$1 dest=$2 km_mods=$4
	local first
	tarball=$(ls /usr/src/linux-source-*.tar.xz | head -n 1)
	kdir=$(ls -d /usr/src/linux-headers-*-amd64 | head -n 1)
	fixes=$(ls "$(dirname "${BASH_SOURCE[0]}")"/../kernel-fixes/"$3"-*.patch 2>/dev/null || true)
	# shellcheck disable=SC2086
	km_stamp=$( { sha256sum "$tarball" "$0" "${BASH_SOURCE[0]}" \
		"$kdir/Module.symvers" "$kdir/.config" $fixes
		echo "$kdir"; } | sha256sum | cut -d' ' -f1)
	ver=$(cat "$kdir/include/config/kernel.release")
	mkdir -p "$dest"
	exec 9>"$dest/.lock"
	flock 9
	first=$(set -- $km_mods; basename "$1")
	if [ -f "$dest/$first" ] && [ "$(cat "$dest/.stamp" 2>/dev/null)" = "$km_stamp" ]; then
		echo "$dest"
		exit 0
	fi
	rm -f "$dest/.stamp" "$dest"/*.ko
	log=$dest/build.log
	: >"$log"
	top=$(basename "$tarball" .tar.xz)
	src=$dest/src
	rm -rf "$src" && mkdir -p "$src"
}

fail() { tail -n 30 "$log" >&2; echo "$km_name: $*" >&2; exit 1; }

km_extract() {
	local p paths=()
	for p in "$@"; do
		paths+=("$top/$p")
	done
	tar -xJf "$tarball" -C "$src" --strip-components=1 "${paths[@]}" \
		>>"$log" 2>&1 || fail "tar"
	for p in $fixes; do
		patch -d "$src" -p1 --no-backup-if-mismatch <"$p" >>"$log" 2>&1 ||
			fail "patch $p"
	done
}

km_install() {
	local dir=$1 m
	for m in $km_mods; do
		[ "$(modinfo -F vermagic "$dir/$m" | cut -d' ' -f1)" = "$ver" ] ||
			fail "$m: vermagic is not $ver"
	done
	for m in $km_mods; do
		install -m 0644 "$dir/$m" "$dest/"
		strip --strip-debug "$dest/${m##*/}"
	done
	find "$src" -name '*.o' -delete
	install -m 0644 "$dir/Module.symvers" "$dest/Module.symvers"
}

km_module_root() {
	local mr=$dest/root/lib/modules/$ver m
	rm -rf "$dest/root" && mkdir -p "$mr/updates"
	ln -s "/lib/modules/$ver/kernel" "$mr/kernel"
	cp "/lib/modules/$ver/modules.order" "/lib/modules/$ver/modules.builtin" \
		"/lib/modules/$ver/modules.builtin.modinfo" "$mr/"
	for m in $km_mods; do
		ln -s "../../../../../${m##*/}" "$mr/updates/${m##*/}"
	done
	depmod -b "$dest/root" "$ver" >>"$log" 2>&1 || fail "depmod"
	for m in "$@"; do
		grep -q "/updates/${m#*:}.ko" <(modprobe -d "$dest/root" -S "$ver" \
			--show-depends "${m%:*}" 2>>"$log") ||
			fail "modprobe -d does not resolve ${m%:*} to updates/${m#*:}"
	done
	echo "$km_stamp" >"$dest/.stamp"
	echo "$dest"
}

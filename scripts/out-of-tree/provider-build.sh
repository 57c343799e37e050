#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build providers/orca (the rdma-core provider, liborca-rdmav34.so) inside
# the rdma-core source tree of the distribution's own version, and install
# it into the toolroot where the distribution's libibverbs looks for
# providers.  Guests use the toolroot as their root file system, so they see
# it too.
#
# libibverbs-dev lacks driver.h, kern-abi.h, util/ and ccan/, and a provider
# must match libibverbs' private ABI (IBVERBS_PRIVATE_34 for 34..56.x), so
# the provider is compiled in the same-version source tree.  The tree is
# fetched once with apt-get (the .orig tarball, checked against the
# Checksums-Sha256 of the Sources index), extracted into a cache inside the
# toolroot, hooked up (add_subdirectory + the ABI header lists) and
# configured once; every run then copies the repo's provider sources, the
# ABI header and the driver's headers orca_hw.h includes into the tree (only the changed files, so ninja
# stays incremental) and builds only the provider.  `ninja install` is never
# run: it would put a second libibverbs.so.1 into /usr/local.
#
# Usage (inside the toolroot; from the host it re-enters it):
#   scripts/out-of-tree/provider-build.sh
# Environment: ORCA_RDMA_CORE_CACHE (default /opt/orca-rdma-core),
#   ORCA_PROVIDER_PRIVATE=1 (install into out/provider/ of this checkout)
set -Eeuo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
self=$here/$(basename "${BASH_SOURCE[0]}")

if [ -z "${ORCA_IN_TOOLROOT:-}" ]; then
	cd "$repo"
	exec "$repo/scripts/toolroot.sh" --run env ORCA_IN_TOOLROOT=1 \
		ORCA_PROVIDER_PRIVATE="${ORCA_PROVIDER_PRIVATE:-}" "$self" "$@"
fi

cache=${ORCA_RDMA_CORE_CACHE:-/opt/orca-rdma-core}
multiarch=$(gcc -print-multiarch)
provider_dir=/usr/lib/$multiarch/libibverbs
driver_file=/etc/libibverbs.d/orca.driver
log=$cache/build.log

mkdir -p "$cache"
exec 9>"$cache/.lock"
flock 9

# All output goes to the log; on failure show its tail.
: >"$log"
fail() {
	echo "provider-build: $*" >&2
	echo "--- last lines of $log ---" >&2
	tail -n 40 "$log" >&2
	exit 1
}
trap 'fail "failed (line $LINENO)"' ERR
run() { "$@" >>"$log" 2>&1; }

# The source package that built the installed libibverbs: a provider built
# from it matches libibverbs' private ABI.
pkg_version=$(dpkg-query -W -f='${Version}' libibverbs1)
upstream=${pkg_version#*:}
upstream=${upstream%-*}
tarball=rdma-core_$upstream.orig.tar.gz
src=$cache/rdma-core-$upstream
build=$src/build
stamp=$src/.orca-stamp

# The checksum apt's Sources index gives for the tarball, in the paragraph
# of the installed version.
expected_sha() {
	apt-cache showsrc rdma-core 2>/dev/null |
		awk -v v="$pkg_version" -v f="$tarball" '
			/^Package:/ { ver = ""; s = 0 }
			/^Version:/ { ver = $2 }
			/^Checksums-Sha256:/ { s = 1; next }
			/^[^ ]/ { s = 0 }
			s && ver == v && $3 == f { print $1 }' | sort -u
}

fetch() {
	local want got scratch=$cache/download

	want=$(expected_sha)
	[ -n "$want" ] && [ "$(wc -l <<<"$want")" = 1 ] ||
		fail "no single SHA-256 for $tarball in apt-cache showsrc"
	if [ ! -f "$cache/$tarball" ] ||
	   [ "$(sha256sum <"$cache/$tarball" | cut -d' ' -f1)" != "$want" ]; then
		rm -rf "$scratch"
		mkdir -p "$scratch"
		# The mirror 404s the .dsc; only the tarball is needed.
		(cd "$scratch" &&
		 apt-get source --download-only "rdma-core=$pkg_version") \
			>>"$log" 2>&1 || true
		[ -f "$scratch/$tarball" ] || fail "apt-get did not fetch $tarball"
		got=$(sha256sum <"$scratch/$tarball" | cut -d' ' -f1)
		[ "$got" = "$want" ] ||
			fail "$tarball: SHA-256 $got, Sources index says $want"
		mv "$scratch/$tarball" "$cache/$tarball"
		rm -rf "$scratch"
	fi
}

stamp_value() {
	cat "$self" "$cache/$tarball" | sha256sum | cut -d' ' -f1
}

# Fresh tree, hooked up for providers/orca.
extract() {
	local tmp=$cache/extract

	rm -rf "$tmp" "$src"
	mkdir -p "$tmp"
	run tar -xzf "$cache/$tarball" -C "$tmp"
	mv "$tmp/rdma-core-$upstream" "$src"
	rmdir "$tmp"

	sed -i 's|^add_subdirectory(providers/erdma)$|&\nadd_subdirectory(providers/orca)|' \
		"$src/CMakeLists.txt"
	[ "$(grep -c '^add_subdirectory(providers/orca)$' "$src/CMakeLists.txt")" = 1 ] ||
		fail "could not hook providers/orca into CMakeLists.txt"
	# Both lists: publish_internal_headers and the single
	# rdma_kernel_provider_abi call (a second call would be a duplicate
	# kern-abi target).
	sed -i 's|^  rdma/erdma-abi.h$|&\n  rdma/orca-abi.h|' \
		"$src/kernel-headers/CMakeLists.txt"
	[ "$(grep -c '^  rdma/orca-abi.h$' "$src/kernel-headers/CMakeLists.txt")" = 2 ] ||
		fail "could not add orca-abi.h to kernel-headers/CMakeLists.txt"
	mkdir -p "$src/providers/orca"
}

# Copy $1 to $2 only if it differs: unchanged files keep their mtime, and a
# changed one gets the current time, so ninja rebuilds exactly what changed.
sync_file() {
	if ! cmp -s "$1" "$2"; then
		cp "$1" "$2.tmp"
		mv "$2.tmp" "$2"
	fi
}

# The driver's own files the provider's orca_hw.h includes: the hardware
# layouts, and the rules for retiring WQEs (orca_wqe_track.h).
hw_headers="orca_regs_defs.h orca_io_defs.h orca_wqe_track.h"

sync_sources() {
	local f name

	for f in "$repo"/providers/orca/*; do
		if [ -f "$f" ]; then
			sync_file "$f" "$src/providers/orca/${f##*/}"
		fi
	done
	# Files removed from the repo leave the tree too.
	for f in "$src"/providers/orca/*; do
		name=${f##*/}
		if [ ! -e "$repo/providers/orca/$name" ] &&
		   [[ " $hw_headers " != *" $name "* ]]; then
			rm -f "$f"
		fi
	done
	sync_file "$repo/include/uapi/rdma/orca-abi.h" \
		"$src/kernel-headers/rdma/orca-abi.h"
	for name in $hw_headers; do
		sync_file "$repo/drivers/infiniband/hw/orca/$name" \
			"$src/providers/orca/$name"
	done
}

# rdma-core's kernel headers before RDMA_DRIVER_ORCA (enum rdma_driver_id,
# which the rdma-core series adds): the provider then matches and speaks as
# RDMA_DRIVER_UNKNOWN, which the driver built out of tree against such a
# kernel registers as too (its Makefile); the PCI match binds it.
compat_cflags() {
	grep -qw RDMA_DRIVER_ORCA "$src/kernel-headers/rdma/ib_user_ioctl_verbs.h" ||
		echo -DRDMA_DRIVER_ORCA=RDMA_DRIVER_UNKNOWN
}

configure() {
	rm -rf "$build"
	mkdir -p "$build"
	run cmake -S "$src" -B "$build" -GNinja -DCMAKE_BUILD_TYPE=Release \
		-DNO_PYVERBS=1 -DNO_MAN_PAGES=1 \
		-DCMAKE_C_FLAGS="$(compat_cflags)" ||
		fail "cmake failed"
}

# Replace, never rewrite in place: a running process may have the old
# library mapped.
install_file() {
	local mode=$1 from=$2 to=$3

	if cmp -s "$from" "$to"; then
		return 0
	fi
	install -m "$mode" "$from" "$to.orca-new"
	mv "$to.orca-new" "$to"
}

if [ ! -f "$stamp" ] || [ ! -f "$cache/$tarball" ] ||
   [ "$(cat "$stamp")" != "$(stamp_value)" ]; then
	fetch
	extract
	sync_sources
	configure
	stamp_value >"$stamp"
fi

sync_sources
run ninja -C "$build" kern-abi orca-rdmav34 || fail "ninja failed"

# ORCA_PROVIDER_PRIVATE=1: a copy in this checkout's out/provider/ only,
# which guests load through RDMAV_DRIVERS (scripts/guests/run-guests.sh),
# so that two checkouts sharing the toolroot test their own providers.
if [ "${ORCA_PROVIDER_PRIVATE:-}" = 1 ]; then
	mkdir -p "$repo/out/provider"
	install_file 0644 "$build/lib/liborca-rdmav34.so" \
		"$repo/out/provider/liborca-rdmav34.so"
	exit 0
fi
install_file 0644 "$build/lib/liborca-rdmav34.so" \
	"$provider_dir/liborca-rdmav34.so"
printf 'driver orca\n' >"$cache/orca.driver"
install_file 0644 "$cache/orca.driver" "$driver_file"

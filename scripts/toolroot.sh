#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Create (or reuse) the ORCA toolroot: a Debian 13 chroot with trixie-backports
# that holds the guest kernel, QEMU with the vfio-user-pci client, the kernel
# headers our module builds against, rdma-core and the test tools.
#
# The host's own apt sources are never touched; on the host we only install
# debootstrap when it is missing.  Every chroot operation runs inside a private
# mount namespace so that no bind mount outlives this script.
#
# Usage: scripts/toolroot.sh            build if missing or stale, print path
#        scripts/toolroot.sh --path     print the path only (no build)
#        scripts/toolroot.sh --run CMD  run CMD inside the toolroot (cwd = $PWD)
#
# Environment: ORCA_TOOLROOT_CACHE (default /var/cache/orca-toolroot)
#              ORCA_MIRROR         (default http://deb.debian.org/debian)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cache=${ORCA_TOOLROOT_CACHE:-/var/cache/orca-toolroot}
mirror=${ORCA_MIRROR:-http://deb.debian.org/debian}
root=$cache/root
pkgs=$here/toolroot-packages.txt

# Two layers: the base (debootstrap + packages) and the extras
# (toolroot-extras.sh), which can be re-applied alone.
recipe_hash() {
	cat "$here/toolroot.sh" "$pkgs" | sha256sum | cut -d' ' -f1
}

extras_hash() {
	sha256sum <"$here/toolroot-extras.sh" | cut -d' ' -f1
}

apply_extras() {
	local dir=$1
	log "applying toolroot-extras.sh"
	ORCA_BIND=$here in_chroot "$dir" /bin/bash "$here/toolroot-extras.sh" \
		"$mirror" >"$cache/extras.log" 2>&1 ||
		{ tail -n 30 "$cache/extras.log" >&2; exit 1; }
	extras_hash >"$dir/.orca-extras"
}

log() { echo "toolroot: $*" >&2; }

# Caches that outlive the toolroot's root: a recipe change deletes the root,
# not these.  Each $cache/keep/NAME is bound at /var/cache/NAME in the
# chroot: the debug kernel's tree and builds, and the compiler cache.
kept_caches="orca-debug-kernel orca-ccache"

# Run a command chrooted into $1 with /proc, /sys, /dev, the kept caches and
# (optionally) a host directory bound at the same path.  The mounts live in a
# private namespace and vanish with it.
in_chroot() {
	local dir=$1; shift
	local bind=${ORCA_BIND:-}
	unshare --mount --propagation private -- /bin/bash -eu -c '
		dir=$1; bind=$2; keep=$3; kept=$4; shift 4
		mount -t proc proc "$dir/proc"
		mount --rbind /sys "$dir/sys"
		mount --rbind /dev "$dir/dev"
		mount -t tmpfs tmpfs "$dir/tmp"
		for name in $kept; do
			mkdir -p "$keep/$name" "$dir/var/cache/$name"
			mount --bind "$keep/$name" "$dir/var/cache/$name"
		done
		if [ -n "$bind" ]; then
			mkdir -p "$dir$bind"
			mount --rbind "$bind" "$dir$bind"
		fi
		cp /etc/resolv.conf "$dir/etc/resolv.conf" 2>/dev/null || true
		exec chroot "$dir" /usr/bin/env -i HOME=/root TERM=dumb \
			PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
			LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive INITRD=No "$@"
	' in_chroot "$dir" "$bind" "$cache/keep" "$kept_caches" "$@"
}

host_prereqs() {
	command -v debootstrap >/dev/null && return
	log "installing debootstrap on the host"
	apt-get update -qq
	apt-get install -y -qq debootstrap >/dev/null
}

build() {
	local new=$cache/root.new
	rm -rf "$new"
	mkdir -p "$new"
	log "debootstrap trixie into $new (a few minutes)"
	unshare --mount --propagation private -- \
		debootstrap --variant=minbase --include=ca-certificates,apt-utils \
		trixie "$new" "$mirror" >"$cache/debootstrap.log" 2>&1 ||
		{ tail -n 30 "$cache/debootstrap.log" >&2; exit 1; }

	cat >"$new/etc/apt/sources.list" <<SRC
deb $mirror trixie main
deb-src $mirror trixie main
deb $mirror trixie-updates main
deb $mirror trixie-backports main
deb-src $mirror trixie-backports main
SRC
	# No docs/man pages: the toolroot is a tool chest, not a system.
	cat >"$new/etc/dpkg/dpkg.cfg.d/01-nodoc" <<'CFG'
path-exclude /usr/share/man/*
path-exclude /usr/share/info/*
path-exclude /usr/share/locale/*
path-include /usr/share/locale/locale.alias
CFG
	# Packages' maintainer scripts must not start daemons in the chroot
	# (nfs-kernel-server, rpcbind, open-iscsi): tests start them in guests.
	printf '#!/bin/sh\nexit 101\n' >"$new/usr/sbin/policy-rc.d"
	chmod 755 "$new/usr/sbin/policy-rc.d"
	# The guest kernel boots with our own initramfs: skip initramfs generation.
	mkdir -p "$new/etc/initramfs-tools"
	echo "wireshark-common wireshark-common/install-setuid boolean false" >"$new/tmp.debconf"

	local main=() bpo=()
	while read -r line; do
		line=${line%%#*}
		[ -n "${line// }" ] || continue
		case $line in
		bpo:*) bpo+=("${line#bpo: }") ;;
		*) main+=("$line") ;;
		esac
	done <"$pkgs"

	log "installing ${#main[@]} packages from trixie and ${#bpo[@]} from trixie-backports"
	in_chroot "$new" /bin/bash -euc '
		debconf-set-selections /tmp.debconf; rm -f /tmp.debconf
		apt-get update -qq
		apt-get install -y -qq --no-install-recommends "$@"
	' _ "${main[@]}" >"$cache/install.log" 2>&1 ||
		{ tail -n 40 "$cache/install.log" >&2; exit 1; }
	in_chroot "$new" /bin/bash -euc '
		apt-get install -y -qq --no-install-recommends -t trixie-backports "$@"
	' _ "${bpo[@]}" >>"$cache/install.log" 2>&1 ||
		{ tail -n 40 "$cache/install.log" >&2; exit 1; }
	# rdma-core's build dependencies: our provider is built in its tree.
	in_chroot "$new" /bin/bash -euc '
		apt-get build-dep -y -qq --no-install-recommends rdma-core
		apt-get clean
	' >>"$cache/install.log" 2>&1 ||
		{ tail -n 40 "$cache/install.log" >&2; exit 1; }

	ls "$new"/boot/vmlinuz-* >/dev/null
	ls -d "$new"/usr/src/linux-headers-*-amd64 >/dev/null
	[ -x "$new/usr/bin/qemu-system-x86_64" ]
	# The kernel image is root-only readable in Debian; QEMU runs as root
	# anyway, but keep it readable for tools.
	chmod a+r "$new"/boot/vmlinuz-*

	apply_extras "$new"
	recipe_hash >"$new/.orca-recipe"
	rm -rf "$root"
	mv "$new" "$root"
	log "ready: $root"
}

ensure() {
	mkdir -p "$cache"
	exec 9>"$cache/.lock"
	flock 9
	if [ -f "$root/.orca-recipe" ] && [ "$(cat "$root/.orca-recipe")" = "$(recipe_hash)" ]; then
		if [ "$(cat "$root/.orca-extras" 2>/dev/null)" != "$(extras_hash)" ]; then
			apply_extras "$root"
		fi
		return
	fi
	[ -d "$root" ] && log "recipe changed: rebuilding"
	host_prereqs
	build
}

case ${1:-} in
--path)
	echo "$root"
	;;
--run)
	shift
	[ -f "$root/.orca-recipe" ] || { log "no toolroot at $root: run $0 first"; exit 1; }
	ORCA_BIND=${ORCA_BIND:-$PWD} in_chroot "$root" /bin/bash -c 'cd "$0" && exec "$@"' "$PWD" "$@"
	;;
"")
	ensure
	echo "$root"
	;;
*)
	echo "usage: $0 [--path | --run CMD...]" >&2
	exit 2
	;;
esac

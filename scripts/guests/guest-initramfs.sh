#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build (or reuse) the initramfs ORCA test guests boot with, and print its
# path.  It holds only what mounting the real root needs: busybox-static, the
# 9p/overlay modules of the toolroot's kernel, and our guest init.  The guest
# root is the toolroot itself, shared read-only over virtio-9p (tag "root")
# and made writable with an overlayfs on tmpfs; /init then switch_roots into
# it and runs scripts/guests/guest-init.sh (copied in here, see below).
#
# The image is cached under $ORCA_CACHE (default: <repo>/out/cache) and
# rebuilt when any input changes: this script, guest-init.sh, busybox, the
# kernel version or its modules.  With ORCA_GUEST_KERNEL (a cache directory
# of scripts/debug-kernel.sh), the modules are that kernel's.
#
# Usage: scripts/guests/guest-initramfs.sh     (inside or outside the toolroot)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
if [ "${ORCA_IN_TOOLROOT:-}" = 1 ]; then
	troot=
else
	troot=$("$repo/scripts/toolroot.sh" --path)
fi
cache=${ORCA_CACHE:-$repo/out/cache}
[ -n "$cache" ] || cache=$repo/out/cache

if [ -n "${ORCA_GUEST_KERNEL:-}" ]; then
	kver=$(cat "$troot$ORCA_GUEST_KERNEL/kernelrelease")
	moddir=$troot$ORCA_GUEST_KERNEL/root/lib/modules/$kver
	name=debug-guest-initramfs
else
	kver=$(ls "$troot/lib/modules" | sort -V | tail -n 1)
	moddir=$troot/lib/modules/$kver
	name=guest-initramfs
fi
# Load order matters: insmod does not resolve dependencies.  virtio_net is
# not needed for the root, but loading it here is faster than kmod over 9p.
mods="netfs 9pnet 9pnet_virtio 9p overlay failover net_failover virtio_net"

# modfile NAME: the module's file, or nothing when the kernel has it built
# in (the debug kernel has the root's file systems and virtio-net inside).
modfile() {
	local path
	path=$(grep -E "(^|/)$1\.ko(\.xz|\.zst|\.gz)?:" "$moddir/modules.dep" |
		cut -d: -f1)
	if [ -z "$path" ]; then
		grep -qE "(^|/)$1\.ko\$" "$moddir/modules.builtin" 2>/dev/null ||
			{ echo "guest-initramfs: no module $1 in $kver" >&2; exit 1; }
		return 0
	fi
	echo "$moddir/$path"
}
loadable=
for m in $mods; do
	f=$(modfile "$m")
	[ -z "$f" ] || loadable+=" $m"
done
mods=${loadable# }

inputs() {
	cat "$here/guest-initramfs.sh" "$here/guest-init.sh" "$troot/bin/busybox"
	echo "$kver"
	for m in $mods; do cat "$(modfile "$m")"; done
}

hash=$(inputs | sha256sum | cut -c1-16)
img=$cache/$name-$hash.cpio.gz
if [ -f "$img" ]; then
	echo "$img"
	exit 0
fi

mkdir -p "$cache"
stage=$(mktemp -d "$cache/stage.XXXXXX")
trap 'rm -rf "$stage" "$stage.img"' EXIT
mkdir -p "$stage"/{bin,dev,proc,sys,lib/modules,ro,rw,newroot}
cp "$troot/bin/busybox" "$stage/bin/busybox"
for m in $mods; do
	f=$(modfile "$m")
	case $f in
	*.xz) xz -dc "$f" >"$stage/lib/modules/$m.ko" ;;
	*.zst) zstd -qdc "$f" >"$stage/lib/modules/$m.ko" ;;
	*.gz) gzip -dc "$f" >"$stage/lib/modules/$m.ko" ;;
	*) cp "$f" "$stage/lib/modules/$m.ko" ;;
	esac
done
cp "$here/guest-init.sh" "$stage/guest-init.sh"

cat >"$stage/init" <<'INIT'
#!/bin/busybox sh
# Stage 1: mount the toolroot (9p, read-only) under a tmpfs overlay and
# switch_root into it; scripts/guests/guest-init.sh does the rest.
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
fail() {
	echo "ORCA-GUEST-EXIT: 254 (initramfs: $*)" >/dev/console
	poweroff -f
}
# Milestones go to the kernel log (dmesg), not the console.
mark() { echo "orca-initramfs: $*" >/dev/kmsg; }
for m in @MODS@; do
	insmod /lib/modules/$m.ko || fail "insmod $m"
done
mark "modules loaded"
mount -t 9p -o trans=virtio,version=9p2000.L,ro,cache=loose,msize=512000 \
	root /ro || fail "mount 9p root"
mark "root mounted"
mount -t tmpfs -o mode=0755 tmpfs /rw || fail "mount tmpfs"
mkdir -p /rw/upper /rw/work
mount -t overlay overlay \
	-o lowerdir=/ro,upperdir=/rw/upper,workdir=/rw/work /newroot ||
	fail "mount overlay"
cp /guest-init.sh /newroot/orca-guest-init.sh
mark "switching root"
mount --move /dev /newroot/dev
umount /proc /sys
# busybox sh: static, so starting PID 1 loads no library over 9p
exec switch_root /newroot /bin/busybox sh /orca-guest-init.sh
INIT
sed -i "s/@MODS@/$mods/" "$stage/init"
chmod 755 "$stage/init"

(cd "$stage" && find . -mindepth 1 | LC_ALL=C sort |
	"$troot/bin/busybox" cpio -o -H newc 2>/dev/null) | gzip -1 >"$stage.img"
mv "$stage.img" "$img"	# atomic: concurrent runs see all or nothing
# Keep only the current image.
find "$cache" -maxdepth 1 -name "$name-*.cpio.gz" ! -name "${img##*/}" -delete
echo "$img"

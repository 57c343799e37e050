#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The packages of make deb, as KTAP: they build; lintian finds no error in
# any of them; they install with dpkg into a throwaway overlay of the
# toolroot (the toolroot itself is never changed), where DKMS builds and
# installs orca.ko for the toolroot's kernel (the guests' kernel); the
# module carries the adapter's PCI alias (so it autoloads), and the
# installed provider is where libibverbs loads it from.  Runs inside the
# toolroot, as root.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
out=$top/out/deb-test
rm -rf "$out"
mkdir -p "$out"

. "$top/selftests/lib/host/ktap-result.sh"

echo "TAP version 13"
echo "1..9"
scripts/packaging/build-debs.sh >"$out/build.log" 2>&1
result $? "make deb" "$out/build.log"

# lintian takes seconds of CPU per package: the three at once.
pkgs="orca-dkms ibverbs-provider-orca orca-emulator"
for pkg in $pkgs; do
	deb=$(ls out/deb/${pkg}_*.deb 2>/dev/null | head -n1)
	lintian --tag-display-limit 0 "${deb:-/nonexistent}" >"$out/lintian-$pkg.log" 2>&1 &
done
wait
for pkg in $pkgs; do
	deb=$(ls out/deb/${pkg}_*.deb 2>/dev/null | head -n1)
	! grep -q '^E:' "$out/lintian-$pkg.log" && [ -n "$deb" ]
	result $? "lintian $pkg: no errors" "$out/lintian-$pkg.log"
done

# A throwaway overlay of the toolroot: its upper layer is a tmpfs.
ovl=$(mktemp -d /run/orca-deb.XXXXXX)
cleanup() {
	for m in dev/pts dev proc sys; do
		umount "$ovl/root/$m" 2>/dev/null
	done
	umount "$ovl/root" 2>/dev/null
	umount "$ovl" 2>/dev/null
	rmdir "$ovl" 2>/dev/null
}
trap cleanup EXIT
mount -t tmpfs tmpfs "$ovl"
mkdir -p "$ovl/upper" "$ovl/work" "$ovl/root"
mount -t overlay overlay -o lowerdir=/,upperdir="$ovl/upper",workdir="$ovl/work" "$ovl/root"
for m in dev dev/pts proc sys; do
	mount --bind "/$m" "$ovl/root/$m"
done
mkdir -p "$ovl/root/tmp/debs"
cp out/deb/*.deb "$ovl/root/tmp/debs/"

kver=$(basename "$(ls -d /usr/src/linux-headers-*-amd64 | head -n1)" | sed 's/^linux-headers-//')
# DKMS builds for the kernels whose headers are installed: the toolroot's.
chroot "$ovl/root" /bin/sh -c 'dpkg -i /tmp/debs/*.deb' >"$out/dpkg.log" 2>&1
result $? "dpkg -i of the three packages" "$out/dpkg.log"

chroot "$ovl/root" dkms status orca >"$out/dkms.log" 2>&1
grep -q "orca/1.0.0, $kver, x86_64: installed" "$out/dkms.log"
result $? "dkms built and installed orca for $kver" "$out/dkms.log"
# The DKMS build as a binaries-only DKMS tarball, for the guest test
# (selftests/guest/90-deb-install.sh), which installs the packages in a
# guest with this kernel: the package's postinst loads the tarball's module
# from /usr/share/orca-dkms and only installs it (a build under TCG takes
# minutes).
chroot "$ovl/root" dkms mktarball -m orca -v 1.0.0 -k "$kver" --binaries-only \
	--archive /tmp/orca-1.0.0.dkms.tar.gz >"$out/mktarball.log" 2>&1 &&
	cp "$ovl/root/tmp/orca-1.0.0.dkms.tar.gz" "$out/" >>"$out/mktarball.log" 2>&1
result $? "dkms mktarball of the built module" "$out/mktarball.log"

ko=$(ls "$ovl/root/lib/modules/$kver/updates/dkms/"orca.ko* 2>/dev/null | head -n1)
{ [ -n "$ko" ] && modinfo "$ko"; } >"$out/modinfo.log" 2>&1
grep -qi '^alias: *pci:v00001234d00000DCA' "$out/modinfo.log" &&
	grep -q '^orca ' <(chroot "$ovl/root" modprobe -S "$kver" --show-depends -a orca 2>&1 | sed -n 's|.*/\(orca\)\.ko.*|\1 |p')
result $? "orca.ko has the adapter's PCI alias and modprobe finds it" "$out/modinfo.log"

chroot "$ovl/root" /bin/sh -c '
	cat /etc/libibverbs.d/orca.driver
	f=/usr/lib/$(gcc -print-multiarch)/libibverbs/liborca-rdmav34.so
	dpkg -S "$f" && readelf -d "$f" && python3 -c "import ctypes, sys; ctypes.CDLL(\"libibverbs.so.1\", ctypes.RTLD_GLOBAL); ctypes.CDLL(sys.argv[1])" "$f"
' >"$out/provider.log" 2>&1
rc=$?
grep -qi runpath "$out/provider.log" && rc=1
result $rc "the installed provider loads, with no RUNPATH" "$out/provider.log"

[ $failed = 0 ]

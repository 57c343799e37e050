#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make deb: Debian packages under out/deb/, built with dpkg-deb under
# fakeroot (inside the toolroot, after `make emulator provider`):
#   orca-dkms              the driver's source and dkms.conf: DKMS builds
#                          orca.ko for every installed kernel (AUTOINSTALL)
#   ibverbs-provider-orca  the rdma-core provider (liborca-rdmav34.so) and
#                          its /etc/libibverbs.d/orca.driver
#   orca-emulator          the adapter (orca-emu), the wire (orca-wire) and
#                          the launcher (orca-launch), by make -C emulator
#                          install
set -Eeuo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$top"

version=1.0.0
maint='ORCA developers <orca@example.invalid>'
arch=$(dpkg --print-architecture)
multiarch=$(gcc -print-multiarch)
provider=${ORCA_RDMA_CORE_CACHE:-/opt/orca-rdma-core}/rdma-core-$(dpkg-query -W -f='${source:Upstream-Version}' libibverbs1)/build/lib/liborca-rdmav34.so
outdir=$top/out/deb
stage=$top/out/deb-stage
rm -rf "$stage" "$outdir"
mkdir -p "$stage" "$outdir"

# docs PKG: the copyright and changelog every package carries.
docs() {
	local d=$stage/$1/usr/share/doc/$1

	mkdir -p "$d"
	cat >"$d/copyright" <<EOC
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: orca

Files: *
Copyright: 2026 ORCA developers
License: GPL-2
 On Debian systems the full text of the GNU General Public License
 version 2 is in /usr/share/common-licenses/GPL-2.
EOC
	printf '%s (%s) unstable; urgency=medium\n\n  * Package of the ORCA tree.\n\n -- %s  %s\n' \
		"$1" "$version" "$maint" "$(date -R -d @"${SOURCE_DATE_EPOCH:-$(stat -c %Y "$top/Makefile")}")" |
		gzip -9n >"$d/changelog.gz"
}

# control PKG ARCH DEPENDS SECTION SUMMARY DESCRIPTION
control() {
	local size

	mkdir -p "$stage/$1/DEBIAN"
	size=$(du -sk --exclude=DEBIAN "$stage/$1" | cut -f1)
	cat >"$stage/$1/DEBIAN/control" <<EOC
Package: $1
Version: $version
Architecture: $2
Maintainer: $maint
Installed-Size: $size
Depends: $3
Section: $4
Priority: optional
Homepage: https://example.invalid/orca
Description: $5
$(fold -s -w 72 <<<"$6" | sed 's/^/ /; s/ *$//')
EOC
}

build() {
	find "$stage/$1" -type d -exec chmod 0755 {} +
	fakeroot dpkg-deb --root-owner-group -Zxz --build "$stage/$1" \
		"$outdir/${1}_${version}_$2.deb" >/dev/null
}

# ---- orca-dkms
src=$stage/orca-dkms/usr/src/orca-$version
mkdir -p "$src/include/uapi/rdma"
cp drivers/infiniband/hw/orca/*.[ch] drivers/infiniband/hw/orca/Makefile "$src/"
rm -f "$src"/*.mod.c
cp include/uapi/rdma/orca-abi.h "$src/include/uapi/rdma/"
cat >"$src/Kbuild" <<'EOC'
# SPDX-License-Identifier: GPL-2.0
# Out-of-tree build of the driver for DKMS: the uverbs ABI header is here,
# not in the kernel's include/uapi.
ccflags-y += -I$(src)/include/uapi
include $(src)/Makefile
EOC
cat >"$src/dkms.conf" <<EOC
PACKAGE_NAME="orca"
PACKAGE_VERSION="$version"
BUILT_MODULE_NAME[0]="orca"
DEST_MODULE_LOCATION[0]="/updates/dkms"
MAKE[0]="make -C \${kernel_source_dir} M=\${dkms_tree}/\${PACKAGE_NAME}/\${PACKAGE_VERSION}/build CONFIG_INFINIBAND_ORCA=m modules"
CLEAN="make -C \${kernel_source_dir} M=\${dkms_tree}/\${PACKAGE_NAME}/\${PACKAGE_VERSION}/build clean"
AUTOINSTALL="yes"
EOC
find "$src" -type f -exec chmod 0644 {} +
docs orca-dkms
control orca-dkms all "dkms (>= 3.0)" kernel \
	"ORCA RoCE host channel adapter driver (DKMS)" \
	"The Linux driver of ORCA, an open RoCEv2 host channel adapter, as DKMS source: the orca module is built for every installed kernel that has its headers."
cat >"$stage/orca-dkms/DEBIAN/postinst" <<EOC
#!/bin/sh
set -e
if [ "\$1" = configure ]; then
	/usr/lib/dkms/common.postinst orca $version /usr/share/orca-dkms "" "\$2"
fi
EOC
cat >"$stage/orca-dkms/DEBIAN/prerm" <<EOC
#!/bin/sh
set -e
if [ "\$1" = remove ] || [ "\$1" = upgrade ]; then
	dkms remove -m orca -v $version --all || true
fi
EOC
chmod 0755 "$stage/orca-dkms/DEBIAN/postinst" "$stage/orca-dkms/DEBIAN/prerm"
build orca-dkms all

# ---- ibverbs-provider-orca
p=$stage/ibverbs-provider-orca
mkdir -p "$p/usr/lib/$multiarch/libibverbs" "$p/etc/libibverbs.d"
install -m 0644 "$provider" "$p/usr/lib/$multiarch/libibverbs/"
strip --strip-unneeded --remove-section=.comment --remove-section=.note \
	"$p/usr/lib/$multiarch/libibverbs/liborca-rdmav34.so"
scripts/packaging/elf-drop-runpath.py "$p/usr/lib/$multiarch/libibverbs/liborca-rdmav34.so"
printf 'driver orca\n' >"$p/etc/libibverbs.d/orca.driver"
chmod 0644 "$p/etc/libibverbs.d/orca.driver"
docs ibverbs-provider-orca
ibv=$(dpkg-query -W -f='${Version}' libibverbs1)
control ibverbs-provider-orca "$arch" "libibverbs1 (>= ${ibv%-*}), libc6" libs \
	"userspace verbs provider for the ORCA RoCE adapter" \
	"The libibverbs provider (liborca-rdmav34.so) of ORCA, an open RoCEv2 host channel adapter: kernel-bypass posting and polling for applications that use libibverbs."
echo /etc/libibverbs.d/orca.driver >"$p/DEBIAN/conffiles"
build ibverbs-provider-orca "$arch"

# ---- orca-emulator
e=$stage/orca-emulator
make -s -C emulator install DESTDIR="$e" PREFIX=/usr >/dev/null
strip --strip-unneeded --remove-section=.comment --remove-section=.note \
	"$e/usr/bin/orca-emu" "$e/usr/bin/orca-wire"
gzip -9n "$e/usr/share/man/man1/orca-launch.1"
docs orca-emulator
control orca-emulator "$arch" "libc6 (>= 2.38), python3" net \
	"emulator of the ORCA RoCE adapter and its virtual wire" \
	"orca-emu is the ORCA RoCEv2 host channel adapter as a vfio-user device server that QEMU guests see as a PCI function; orca-wire is the virtual Ethernet wire that links adapters and other guests' NICs; orca-launch starts the wire and one adapter per guest and prints the QEMU options (for a QEMU command line, virtme-ng or libvirt) that give each guest its adapter."
build orca-emulator "$arch"

ls "$outdir"

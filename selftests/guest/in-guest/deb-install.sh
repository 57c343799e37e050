#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install the packages of make deb with dpkg, then load the driver the way
# udev would (modprobe of each PCI device's modalias) and list the device
# through the installed provider.
. "$ORCA_TOP/selftests/lib/guest/guest.sh"

debs=$(ls "$top"/out/deb/*.deb)
kver=$(uname -r)
provider=/usr/lib/$(gcc -print-multiarch)/libibverbs/liborca-rdmav34.so

ok_if "orca not loaded before the packages" sh -c '! grep -q "^orca " /proc/modules'

# DKMS runs depmod, which reads every module of the kernel: 4225
# xz-compressed files, about 3 of this test's 4 minutes under TCG (make
# check's "took" lines).  The guest's module tree is cut to what it can use
# here (the modules loaded now and the RDMA stack's, with what they depend
# on) on a tmpfs over /lib/modules/KVER: the packages install into it as
# into the full tree, and depmod has a few dozen modules to read.
small_module_tree() {
	local kdir=/lib/modules/$kver small=/run/orca-modules/$kver m f
	mkdir -p "$small" &&
	cp -a "$kdir"/modules.order "$kdir"/modules.builtin* "$small"/ &&
	ln -s "$(readlink -f "$kdir/build")" "$small/build" || return 1
	for m in $(awk '{ print $1 }' /proc/modules) ib_core ib_uverbs ib_umad \
		 rdma_cm rdma_ucm ib_cm iw_cm; do
		modprobe --show-depends "$m" 2>/dev/null
	done | awk '$1 == "insmod" { print $2 }' | sort -u | while read -r f; do
		mkdir -p "$small/$(dirname "${f#"$kdir"/}")" &&
		cp "$f" "$small/${f#"$kdir"/}" || exit 1
	done || return 1
	mount --bind "$small" "$kdir" &&
	depmod "$kver" &&
	modprobe --show-depends ib_uverbs >/dev/null
}
ok_if "a module tree of the RDMA stack for DKMS's depmod" small_module_tree || ktap_done
ok_if "dpkg --unpack of the packages" dpkg --unpack $debs || ktap_done
# The host's DKMS build for this kernel (selftests/tree/deb.sh), where the
# package's postinst looks for prebuilt modules.
ok_if "the host's DKMS tarball in place" sh -c \
	"mkdir -p /usr/share/orca-dkms && cp $top/out/deb-test/orca-1.0.0.dkms.tar.gz /usr/share/orca-dkms/"
ok_if "dpkg --configure: DKMS installs orca" dpkg --configure -a || ktap_done
ok_if "dkms status: installed for $kver" sh -c \
	"dkms status orca | grep -q 'orca/1.0.0, $kver, x86_64: installed'"
ok_if "modprobe of the adapter's PCI modalias loads orca" sh -c '
	for m in /sys/bus/pci/devices/*/modalias; do modprobe -q -b "$(cat "$m")"; done
	grep -q "^orca " /proc/modules'
ok_if "orca loaded from the DKMS module" sh -c \
	"modinfo -n orca | grep -q '/updates/dkms/orca.ko'"
ok_if "orca_0 registered" wait_for 20 test -e /sys/class/infiniband/orca_0
ok_if "the provider belongs to ibverbs-provider-orca" dpkg -S "$provider"
ok_if "ibv_devices lists orca_0" sh -c 'ibv_devices | grep -qw orca_0'
ok_if "ibv_devinfo opens orca_0 through the provider" sh -c \
	'ibv_devinfo -d orca_0 | grep -q "state:.*PORT_ACTIVE"'
ktap_done

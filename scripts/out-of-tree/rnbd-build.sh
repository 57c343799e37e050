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
# rnbd-client): kernel-modules.sh's km_module_root.  They are unsigned
# (MODULE_SIG_FORCE is unset: they load and taint the kernel).
set -euo pipefail
# shellcheck source=scripts/out-of-tree/kernel-modules.sh
. "$(dirname "$0")/kernel-modules.sh"
km_begin rnbd-build /opt/orca-rnbd rnbd \
	"drivers/block/rnbd/rnbd-server.ko drivers/block/rnbd/rnbd-client.ko
	drivers/infiniband/ulp/rtrs/rtrs-core.ko drivers/infiniband/ulp/rtrs/rtrs-client.ko
	drivers/infiniband/ulp/rtrs/rtrs-server.ko"
km_extract drivers/infiniband/ulp/rtrs drivers/block/rnbd

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

km_install "$src"
km_module_root rnbd-client:rtrs-client rnbd-server:rtrs-server

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# SMB Direct (SMB3 over RDMA) for the guests: Debian's 7.3 kernel is built
# with CONFIG_CIFS_SMB_DIRECT, CONFIG_SMB_SERVER_SMBDIRECT and CONFIG_SMBDIRECT
# unset, so its cifs.ko and ksmbd.ko have no RDMA transport and there is no
# smbdirect.ko.  Build fs/smb of the toolroot's linux-source tarball as
# external modules against the guest kernel's headers with those three
# options on, and keep smbdirect.ko, cifs.ko and ksmbd.ko in /opt/orca-smb
# of the toolroot (the guests' root file system).  Runs inside the toolroot,
# rebuilds only when the tarball, the headers or this script change, and
# prints the directory.
#
# The fixes scripts/kernel-fixes/smb-*.patch, for bugs of fs/smb that the
# guest tests hit, are applied to the sources first.
#
# Only those three modules are kept.  The helpers cifs_md4.ko and
# smb_compress.ko (fs/smb/common) do not depend on any of the three options,
# and the kernel has no MODVERSIONS (Module.symvers CRCs are all 0), so the
# new cifs/ksmbd bind by name to the stock helpers of the same 7.3.4 source;
# they are built here only as a by-product of fs/smb/Makefile.
#
# How the build is configured: a shadow of the headers' object tree.
# $dest/kbuild is a tree of symlinks to /usr/src/linux-headers-<ver> with
# four files of its own:
#  - Makefile: the headers' two-line Makefile with KBUILD_OUTPUT pointing
#    here, so $(objtree) is the shadow;
#  - include/config/auto.conf and include/generated/autoconf.h: Debian's
#    files with CONFIG_SMBDIRECT=m, CONFIG_CIFS_SMB_DIRECT=y and
#    CONFIG_SMB_SERVER_SMBDIRECT=y appended, in the form kconfig writes them
#    (a tristate =m is CONFIG_X_MODULE in C, which "-DCONFIG_SMBDIRECT=1"
#    would get wrong, making IS_BUILTIN() true);
#  - scripts/asn1_compiler: linux-kbuild lacks it, and Makefile.build runs
#    $(objtree)/scripts/asn1_compiler for the SPNEGO grammars of cifs and
#    ksmbd; it is compiled here from the tarball like Kbuild's hostprog.
# Make (obj-$(CONFIG_...) in the Makefiles) and the C preprocessor
# (#ifdef/IS_ENABLED) then read one and the same configuration, as in a
# kernel configured with these options, without CONFIG_* overrides on the
# make command line or KCFLAGS includes, and nothing under /usr/src changes.
# Kbuild's "make -C <kdir> M=" with M=fs/smb builds the whole set in one
# modpost pass, so cifs/ksmbd resolve smbdirect's exports (namespace
# SMBDIRECT) without KBUILD_EXTRA_SYMBOLS; modpost fails the build on any
# symbol that neither Module.symvers nor the set exports.
#
# The modules are unsigned (Debian's MODULE_SIG_FORCE is unset: they load
# and taint the kernel) and have the same names as the stock cifs/ksmbd:
# load them with "modprobe -d /opt/orca-smb/root cifs" (or ksmbd): the
# module root of km_module_root, never with a plain "modprobe cifs", which loads
# the stock module, as does the kernel's request_module("fs-cifs") on a
# mount when no cifs is loaded yet.
set -euo pipefail
# shellcheck source=scripts/out-of-tree/kernel-modules.sh
. "$(dirname "$0")/kernel-modules.sh"
km_begin smb-build /opt/orca-smb smb \
	"server/ksmbd.ko smbdirect/smbdirect.ko client/cifs.ko"
# Sources: fs/smb, the fs/nls headers it includes, asn1_compiler.c; the
# fixes for bugs of fs/smb that the guest tests hit (scripts/kernel-fixes).
km_extract fs/smb fs/nls/nls_ucs2_utils.h fs/nls/nls_ucs2_data.h \
	scripts/asn1_compiler.c

# The shadow object tree (see above).
kb=$dest/kbuild
rm -rf "$kb" && mkdir -p "$kb"
cp -as "$kdir/." "$kb/"
rm "$kb/Makefile" "$kb/scripts" "$kb/include/config/auto.conf" \
	"$kb/include/generated/autoconf.h"
sed "s|^KBUILD_OUTPUT=.*|KBUILD_OUTPUT=$kb|" "$kdir/Makefile" >"$kb/Makefile"
grep -q "^KBUILD_OUTPUT=$kb\$" "$kb/Makefile" || fail "unexpected $kdir/Makefile"
mkdir "$kb/scripts"
ln -s "$(readlink -f "$kdir/scripts")"/* "$kb/scripts/"
srctree=$(sed -n 's|^include \(/.*\)/Makefile$|\1|p' "$kdir/Makefile")
[ -d "$srctree/include" ] || fail "no common headers named in $kdir/Makefile"
gcc -O2 -I"$srctree/include" \
	-o "$kb/scripts/asn1_compiler" "$src/scripts/asn1_compiler.c" \
	>>"$log" 2>&1 || fail "asn1_compiler"
for o in CIFS_SMB_DIRECT SMB_SERVER_SMBDIRECT SMBDIRECT; do
	! grep -q "^CONFIG_$o=" "$kdir/include/config/auto.conf" ||
		fail "CONFIG_$o is already set in $kdir: recheck this script"
done
{ cat "$kdir/include/config/auto.conf"
  printf 'CONFIG_SMBDIRECT=m\nCONFIG_CIFS_SMB_DIRECT=y\nCONFIG_SMB_SERVER_SMBDIRECT=y\n'
} >"$kb/include/config/auto.conf"
{ cat "$kdir/include/generated/autoconf.h"
  printf '#define CONFIG_SMBDIRECT_MODULE 1\n#define CONFIG_CIFS_SMB_DIRECT 1\n#define CONFIG_SMB_SERVER_SMBDIRECT 1\n'
} >"$kb/include/generated/autoconf.h"

make -C "$kb" M="$src/fs/smb" CC="ccache gcc" -j2 modules >>"$log" 2>&1 || fail "make"

# Cheap checks that the RDMA transports really went in.
if ! grep -q ' T smbd_get_connection$' <(nm "$src/fs/smb/client/cifs.ko") ||
	grep -q 'CONFIG_CIFS_SMB_DIRECT is not enabled' "$src/fs/smb/client/cifs.ko"; then
	fail "cifs.ko has no SMB Direct transport"
fi
grep -q ' T ksmbd_rdma_init$' <(nm "$src/fs/smb/server/ksmbd.ko") ||
	fail "ksmbd.ko has no SMB Direct transport"
km_install "$src/fs/smb"
# cifs and ksmbd have the stock modules' names: modprobe -d must pick the
# new ones.
km_module_root cifs:cifs ksmbd:ksmbd

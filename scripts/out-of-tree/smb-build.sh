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
# load them with "modprobe -d /opt/orca-smb/root cifs" (or ksmbd), see the
# module root at the end, never with a plain "modprobe cifs", which loads
# the stock module, as does the kernel's request_module("fs-cifs") on a
# mount when no cifs is loaded yet.
set -euo pipefail
# shellcheck source=scripts/ccache-env.sh
. "$(dirname "$0")/../ccache-env.sh"
dest=/opt/orca-smb
tarball=$(ls /usr/src/linux-source-*.tar.xz | head -n 1)
kdir=$(ls -d /usr/src/linux-headers-*-amd64 | head -n 1)
mods="smbdirect/smbdirect.ko client/cifs.ko server/ksmbd.ko"
fixes=$(ls "$(dirname "$0")"/../kernel-fixes/smb-*.patch 2>/dev/null || true)
stamp=$( { sha256sum "$tarball" "$0" "$kdir/Module.symvers" "$kdir/.config" $fixes
	echo "$kdir"; } | sha256sum | cut -d' ' -f1)

mkdir -p "$dest"
exec 9>"$dest/.lock"
flock 9
if [ -f "$dest/ksmbd.ko" ] && [ "$(cat "$dest/.stamp" 2>/dev/null)" = "$stamp" ]; then
	echo "$dest"
	exit 0
fi
rm -f "$dest/.stamp" "$dest"/*.ko
log=$dest/build.log
: >"$log"
fail() { tail -n 30 "$log" >&2; echo "smb-build: $*" >&2; exit 1; }

# Sources: fs/smb, the fs/nls headers it includes, asn1_compiler.c.
top=$(basename "$tarball" .tar.xz)
src=$dest/src
rm -rf "$src" && mkdir -p "$src"
tar -xJf "$tarball" -C "$src" --strip-components=1 \
	"$top/fs/smb" "$top/fs/nls/nls_ucs2_utils.h" "$top/fs/nls/nls_ucs2_data.h" \
	"$top/scripts/asn1_compiler.c" >>"$log" 2>&1 || fail "tar"
# Fixes for bugs of fs/smb that the guest tests hit (scripts/kernel-fixes).
for p in $fixes; do
	patch -d "$src" -p1 --no-backup-if-mismatch <"$p" >>"$log" 2>&1 ||
		fail "patch $p"
done

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
ver=$(cat "$kdir/include/config/kernel.release")
for m in $mods; do
	[ "$(modinfo -F vermagic "$src/fs/smb/$m" | cut -d' ' -f1)" = "$ver" ] ||
		fail "$m: vermagic is not $ver"
done
if ! grep -q ' T smbd_get_connection$' <(nm "$src/fs/smb/client/cifs.ko") ||
	grep -q 'CONFIG_CIFS_SMB_DIRECT is not enabled' "$src/fs/smb/client/cifs.ko"; then
	fail "cifs.ko has no SMB Direct transport"
fi
grep -q ' T ksmbd_rdma_init$' <(nm "$src/fs/smb/server/ksmbd.ko") ||
	fail "ksmbd.ko has no SMB Direct transport"
# Debian installs its modules stripped of DWARF (INSTALL_MOD_STRIP=1);
# the unstripped ones stay in $dest/src for decode_stacktrace.sh, the
# objects (~130 MB of DWARF) go.
for m in $mods; do
	install -m 0644 "$src/fs/smb/$m" "$dest/"
	strip --strip-debug "$dest/${m##*/}"
done
find "$src" -name '*.o' -delete
install -m 0644 "$src/fs/smb/Module.symvers" "$dest/Module.symvers"

# A module root for "modprobe -d $dest/root": the stock kernel/ tree (a
# symlink, valid in the toolroot and in the guests) and these three in
# updates/, which depmod ranks above kernel/, so modprobe resolves cifs,
# ksmbd and their stock dependencies and softdeps without touching
# /lib/modules.
mr=$dest/root/lib/modules/$ver
rm -rf "$dest/root" && mkdir -p "$mr/updates"
ln -s "/lib/modules/$ver/kernel" "$mr/kernel"
cp "/lib/modules/$ver/modules.order" "/lib/modules/$ver/modules.builtin" \
	"/lib/modules/$ver/modules.builtin.modinfo" "$mr/"
for m in $mods; do
	ln -s "../../../../../${m##*/}" "$mr/updates/${m##*/}"
done
depmod -b "$dest/root" "$ver" >>"$log" 2>&1 || fail "depmod"
for m in cifs ksmbd; do
	grep -q "/updates/$m.ko" <(modprobe -d "$dest/root" -S "$ver" \
		--show-depends "$m" 2>>"$log") ||
		fail "modprobe -d does not pick the new $m"
done
echo "$stamp" >"$dest/.stamp"
echo "$dest"

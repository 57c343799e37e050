#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Second layer of the toolroot, applied inside the chroot after the packages
# are installed (and re-applied alone when only this file changes):
#
# 1. The kernel source's own tools that the linux-headers package lacks:
#    scripts/checker-valid.sh (without it kbuild silently turns C=2 off) goes
#    into the headers tree; checkpatch.pl with its data files into
#    /opt/linux-scripts.
# 2. sparse from Debian unstable (its Release file on the mirror may be past
#    Valid-Until, hence Check-Valid-Until=false: the signature still holds): kernel 7.3's checker-valid.sh requires
#    __typeof_unqual__ support, which trixie's sparse 0.6.4 lacks.  Only the
#    sparse binary is unpacked (into /opt/sparse, linked from
#    /usr/local/bin); the sid archive is used through a private apt list
#    directory and never becomes a source of the toolroot's packages.
set -euo pipefail
mirror=${1:?mirror}

tarball=$(ls /usr/src/linux-source-*.tar.xz | head -n1)
hdrs=$(ls -d /usr/src/linux-headers-*-common | head -n1)
rm -rf /opt/linux-scripts && mkdir -p /opt/linux-scripts
tar -xJf "$tarball" -C /opt/linux-scripts --strip-components=1 --wildcards \
	'*/scripts/checkpatch.pl' '*/scripts/spelling.txt' \
	'*/scripts/const_structs.checkpatch' '*/scripts/checker-valid.sh'
install -m 0755 /opt/linux-scripts/scripts/checker-valid.sh "$hdrs/scripts/"

sid=/var/lib/orca-sid
rm -rf "$sid" && mkdir -p "$sid/lists/partial" "$sid/archives/partial"
echo "deb $mirror sid main" >"$sid/sources.list"
apt_sid=(-o Dir::Etc::SourceList="$sid/sources.list" -o Dir::Etc::SourceParts=-
	-o Dir::State::Lists="$sid/lists" -o Dir::Cache::Archives="$sid/archives"
	-o Acquire::Check-Valid-Until=false)
apt-get "${apt_sid[@]}" update -qq
(cd "$sid" && apt-get "${apt_sid[@]}" download sparse)
rm -rf /opt/sparse && mkdir -p /opt/sparse
dpkg-deb -x "$sid"/sparse_*.deb /opt/sparse
ln -sf /opt/sparse/usr/bin/sparse /usr/local/bin/sparse
rm -rf "$sid"
sparse --version

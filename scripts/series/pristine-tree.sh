#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Print the path of a pristine, read-only extraction of an upstream tree the
# ORCA series apply to, extracting it on first use into a cache keyed by the
# SHA-256 of its tarball (inside the toolroot):
#   linux      the toolroot's /usr/src/linux-source-7.3.tar.xz
#              -> /opt/orca-linux/<sha>/linux-source-7.3
#   rdma-core  rdma-core's .orig tarball that scripts/out-of-tree/provider-build.sh
#              fetched and checked -> /opt/orca-rdma-core-series/<sha>/rdma-core-<ver>
#
# Usage (inside the toolroot): scripts/series/pristine-tree.sh linux|rdma-core
set -Eeuo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

case ${1:-} in
linux)
	tarball=$(ls /usr/src/linux-source-*.tar.xz | head -n1)
	cache=/opt/orca-linux
	;;
rdma-core)
	upstream=$(dpkg-query -W -f='${Version}' libibverbs1)
	upstream=${upstream#*:}
	upstream=${upstream%-*}
	tarball=${ORCA_RDMA_CORE_CACHE:-/opt/orca-rdma-core}/rdma-core_$upstream.orig.tar.gz
	[ -f "$tarball" ] || "$here/../out-of-tree/provider-build.sh" >&2
	cache=/opt/orca-rdma-core-series
	;;
*)
	echo "usage: $0 linux|rdma-core" >&2
	exit 2
	;;
esac

sha=$(sha256sum <"$tarball" | cut -d' ' -f1)
dir=$cache/$sha
mkdir -p "$cache"
exec 9>"$cache/.lock"
flock 9
if [ ! -f "$dir/.complete" ]; then
	rm -rf "$dir" "$dir.tmp"
	mkdir -p "$dir.tmp"
	tar -xf "$tarball" -C "$dir.tmp"
	chmod -R a-w "$dir.tmp"/*
	touch "$dir.tmp/.complete"
	mv "$dir.tmp" "$dir"
fi
ls -d "$dir"/*/ | head -n1 | sed 's|/$||'

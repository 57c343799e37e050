#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Soft-iWARP (siw) for the benchmarks' side-by-side rows: Debian's kernel is
# built without it (CONFIG_RDMA_SIW), so build drivers/infiniband/sw/siw of
# the toolroot's linux-source tarball as an out-of-tree module against the
# guest kernel's headers.  The result, /opt/orca-siw/siw.ko, lives in the
# toolroot (the guests' root file system) and is rebuilt only when the
# tarball, the headers or this script change.  Runs inside the toolroot;
# prints the module's path.
set -euo pipefail
# shellcheck source=scripts/ccache-env.sh
. "$(dirname "$0")/../ccache-env.sh"
dest=/opt/orca-siw
tarball=$(ls /usr/src/linux-source-*.tar.xz | head -n 1)
kdir=$(ls -d /usr/src/linux-headers-*-amd64 | head -n 1)
stamp=$( { sha256sum "$tarball" "$0"; echo "$kdir"; } | sha256sum | cut -d' ' -f1)

mkdir -p "$dest"
exec 9>"$dest/.lock"
flock 9
if [ -f "$dest/siw.ko" ] && [ "$(cat "$dest/.stamp" 2>/dev/null)" = "$stamp" ]; then
	echo "$dest/siw.ko"
	exit 0
fi
src=$dest/src
rm -rf "$src" && mkdir -p "$src"
tar -xJf "$tarball" -C "$src" --strip-components=5 --wildcards \
	'*/drivers/infiniband/sw/siw/*'
make -C "$kdir" M="$src" CC="ccache gcc" CONFIG_RDMA_SIW=m modules >"$dest/build.log" 2>&1 ||
	{ tail -n 30 "$dest/build.log" >&2; exit 1; }
install -m 0644 "$src/siw.ko" "$dest/siw.ko"
echo "$stamp" >"$dest/.stamp"
echo "$dest/siw.ko"

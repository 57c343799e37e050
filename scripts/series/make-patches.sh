#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make patches: write the kernel series (against the toolroot's
# linux-source) to out/patches/kernel/ and the rdma-core series (against the
# distribution's rdma-core .orig tarball) to out/patches/rdma-core/, both
# generated from the tree by scripts/series/generate.py.  Runs inside the toolroot.
set -Eeuo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$top"

linux=$(scripts/series/pristine-tree.sh linux)
rdma_core=$(scripts/series/pristine-tree.sh rdma-core)
python3 scripts/series/generate.py scripts/series/patches/kernel.series "$linux" out/patches/kernel
python3 scripts/series/generate.py scripts/series/patches/rdma-core.series "$rdma_core" out/patches/rdma-core
for s in kernel rdma-core; do
	echo "out/patches/$s: $(ls out/patches/$s/*.patch | grep -vc /0000-) patches + cover letter"
done

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make demo: build everything, boot two guests with ORCA adapters on one
# virtual wire, and show what they have.  Runs inside the toolroot.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"

echo "== building the orca module and the adapter emulator"
make --no-print-directory all >out-build.log 2>&1 || { tail -n 40 out-build.log; exit 1; }
rm -f out-build.log
out=$top/out/demo
rm -rf "$out"
echo "== booting two guests (QEMU/TCG), each with an ORCA adapter"
status=0
scripts/guests/run-guests.sh -n 2 -t 300 --out "$out" -- \
	env ORCA_TOP="$top" scripts/demo/demo-guest.sh || status=$?
# What each guest said (its console also holds kernel messages).
for c in "$out"/g*/console.log; do
	grep -a '^\[guest ' "$c"
done
echo "== guest logs: $out"
exit $status

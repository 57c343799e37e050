#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# One guest per suite: the driver as the kernel patch series has it (built
# by selftests/patches.sh from the patched linux-source tree, for the
# guests' kernel, into out/patches-module/) loads, and the orca_kverbs
# "objects" and "datapath" suites pass on it.
. "$(dirname "$0")/lib/host.sh"
ko=$top/out/patches-module/orca.ko
if [ ! -f "$ko" ]; then
	echo "1..1"
	echo "ok 1 the series' driver # SKIP not built (run selftests/patches.sh)"
	exit 0
fi
base=$out rc=0
for suite in objects datapath; do
	out=$base-$suite
	run_guests 1 300 -- env ORCA_KO="$ko" selftests/guest/in-guest/kverbs.sh "$suite" || rc=1
done
exit $rc

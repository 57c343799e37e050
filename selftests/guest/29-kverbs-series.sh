#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# One guest: the driver as the kernel patch series has it (built
# by selftests/tree/patches.sh from the patched linux-source tree, for the
# guests' kernel, into out/patches-module/) loads, and the orca_kverbs
# "objects" and "datapath" suites pass on it.  selftests/tree/patches.sh (in make
# check) shows the series' driver is the tree's, file for file, so this
# repeats 25 and 26 on the same code: make check-long runs it.
# tier: long
. "$(dirname "$0")/../lib/host/host.sh"
ko=$top/out/patches-module/orca.ko
# The series' module, built here (make check's patches.sh checks the series
# but does not build it for the guests' kernel).
rm -f "$ko"
if ! "$top/selftests/tree/patches.sh" --guest-module >"$top/out/patches-for-29.log" 2>&1; then
	echo "# selftests/tree/patches.sh --guest-module failed: $top/out/patches-for-29.log"
fi
if [ ! -f "$ko" ]; then
	echo "1..1"
	echo "not ok 1 the series' driver was built (selftests/tree/patches.sh)"
	exit 1
fi
run_guests 1 600 -- env ORCA_KO="$ko" selftests/guest/in-guest/kverbs.sh objects datapath

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# One guest: 20 load/unload cycles of the orca driver, no warning, no leak.
# The adapter logs the objects a reset finds; the driver resets it at probe
# and remove, so a leaked PD/CQ/MR/QP/AH/SRQ/EQ/UAR shows up there.
# lane: solo
. "$(dirname "$0")/../lib/host/host.sh"
run_guests 1 600 -- selftests/guest/in-guest/load-unload.sh
rc=$?
log=$out/run/g0/emu.log
resets=$(grep -c 'engine: freeing objects:' "$log" 2>/dev/null)
leaks=$(grep 'engine: freeing objects:' "$log" 2>/dev/null |
	grep -vc 'pd 0 cq 0 mr 0 qp 0 ah 0 srq 0 gsi 0 eq 0 uar 0$')
if [ "${resets:-0}" -ge 20 ] && [ "$leaks" = 0 ]; then
	host_result OK "adapter holds no objects after each unload ($resets resets)"
else
	grep 'engine: freeing objects:' "$log" | sed 's/.*objects: //' | sort | uniq -c | sed 's/^/# /'
	host_result FAIL "adapter holds no objects after each unload ($resets resets, ${leaks:-?} with objects)"
fi
host_done $rc

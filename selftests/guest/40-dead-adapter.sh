#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# One guest whose adapter is first kept busy with slow commands (AHs in
# atomic context must neither stall past the driver's bound nor kill it),
# then told to stop answering commands: -EIO, DEVICE_FATAL, software flush
# of kernel QPs, no late DMA after the resume, and a clean unload.
# lane: solo
. "$(dirname "$0")/../lib/host/host.sh"
wire_lossy "the adapter is hung with live kernel QPs, fenced and reset: what it received meanwhile is dropped"
run_guests 1 400 -- selftests/guest/in-guest/dead-adapter.sh
rc=$?
# The emulator counts DMA the resumed adapter did before any reset ended
# its work: the driver fenced it (bus mastering off, reset), so 0.  Only
# a count logged after the emulator's "ctl: resume" line (the last one)
# says so: an earlier one predates the hang.  The counter only grows, so
# the last count after it (at exit, if the emulator got there) has all.
late=$(awk '/orca-emu: ctl: resume$/ { seen = 1; late = ""; next }
	seen && /dma: blocked [0-9]+ .*, late [0-9]+ / {
		late = $0; sub(/.*, late /, "", late); sub(/ .*/, "", late)
	}
	END { print late }' "$out/run/g0/emu.log")
num=$((num + 1))
if [ "${late:-none}" = 0 ]; then
	echo "ok $num host: no late DMA landed after the driver fenced the adapter"
else
	echo "# emulator late DMA count after the resume: ${late:-none logged}"
	echo "not ok $num host: no late DMA landed after the driver fenced the adapter"
	host_failed=1
fi
host_done $rc

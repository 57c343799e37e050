#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# One guest: a process with live userspace verbs objects is killed in
# mid-traffic, and the driver is unloaded under another
# (in-guest/uverbs-teardown.sh).  The driver's final reset on unload finds
# no object left in the adapter.
. "$(dirname "$0")/lib/host.sh"
run_guests 1 400 -- selftests/guest/in-guest/uverbs-teardown.sh
rc=$?
last=$(grep 'engine: freeing objects:' "$out/run/g0/emu.log" 2>/dev/null | tail -n 1)
echo "# adapter at the driver's final reset: ${last#*objects: }"
if echo "$last" | grep -q 'pd 0 cq 0 mr 0 qp 0 ah 0 srq 0 gsi 0 eq 0 uar 0$'; then
	host_result OK "adapter holds no objects after rmmod under a process"
else
	host_result FAIL "adapter holds no objects after rmmod under a process"
fi
host_done $rc

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The loss-free wire check of every guest test (selftests/guest/lib/
# wire_lossfree.py) on fixed sample logs, as KTAP: what the switch could not
# give a QEMU counts as lost when it was RoCE (send_errors) and is only
# reported when it was the guest's other Ethernet traffic
# (not_roce_dropped); the log's give-up and longest-wait lines are
# reported; a switch of the older exit line is still read.  No guests: make
# check runs it with the other host-side tests.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
out=$top/out/wire-lossfree-test
rm -rf "$out"
check=selftests/guest/lib/wire_lossfree.py

. "$top/selftests/lib/ktap-result.sh"

# sample NAME SEND_ERRORS [NOT_ROCE]: a run of one guest whose adapter
# moved no RoCE frame; its switch gave up on a QEMU once.
sample() {
	local run=$out/$1
	mkdir -p "$run/g0"
	echo "2026-12-04 03:40:31.000 orca-emu: exit" >"$run/g0/emu.log"
	{
		echo "2026-12-04 03:40:30.100 orca-wire: port 1: /r/g1/qemu-nic.sock took no frame for 500 ms: given up on for 30000 ms (or until it reads)"
		echo "2026-12-04 03:40:31.000 orca-wire: port 1: /r/g1/qemu-nic.sock: longest wait for room 12 ms"
		echo "2026-12-04 03:40:31.000 orca-wire: exit: received 9 forwarded 9 flooded 1 copies 8 send_errors $2 stall_dropped 0 backpressured 1 invalid 0 fault_dropped 0 fault_reordered 0 held_unsent 0${3:+ not_roce_dropped $3}"
	} >"$run/wire.log"
	python3 "$check" "$run" --rxe-peer >"$out/$1.log" 2>&1
}

echo "TAP version 13"
echo "1..4"
sample other 0 3
grep -qx 'ok wire loss-free: .*' "$out/other.log" &&
	grep -q 'not RoCE, to a QEMU that did not read 3 (not counted)' "$out/other.log"
result $? "a QEMU's own Ethernet frames it did not take are reported, not counted" "$out/other.log"

sample roce 1 0
grep -qx 'fail wire loss-free: .*switch: send errors 1.*' "$out/roce.log"
result $? "a RoCE frame a QEMU did not take fails the check" "$out/roce.log"

grep -q '^# switch: port 1: .* took no frame for 500 ms' "$out/other.log" &&
	grep -q '^# switch: port 1: .* longest wait for room 12 ms' "$out/other.log"
result $? "the switch's give-up and longest-wait lines are reported" "$out/other.log"

sample old 0
grep -qx 'ok wire loss-free: .*' "$out/old.log" &&
	grep -q 'did not read 0 (not counted)' "$out/old.log"
result $? "an exit line without not_roce_dropped is still read" "$out/old.log"

[ "$failed" = 0 ]

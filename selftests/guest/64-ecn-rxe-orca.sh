#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rxe as the sender through a marked queue (issue 33): guest 1's Soft-RoCE
# writes into guest 0's ORCA adapter (orca-emu --ecn) through a modelled
# 20 Mb/s link (slower than rxe under TCG) whose queues mark ECN-capable
# packets above 16 KiB (in-guest/ecn-rxe.sh).  rxe ignores the CNPs ORCA
# sends it; the transfer must still complete and the wire lose nothing.
# The host checks that the switch marked rxe's packets and that the ORCA
# adapter sent a CNP for some of the marks it took.
. "$(dirname "$0")/../lib/host/host.sh"
run_guests 2 600 --guest-opts 1:no-orca \
	--wire-opts "--link-rate 20 --queue-bytes 262144 --ecn 16384,65536,100" \
	--emu-opts "--ecn" -- selftests/guest/in-guest/ecn-rxe.sh
rc=$?

marked=$(sed -n 's/.*exit: egress at .* marked \([0-9]*\) .*/\1/p' "$out/run/wire.log" | tail -n 1)
cnps=$(sed -n 's/.*roce: ecn: .*CNPs sent \([0-9]*\).*/\1/p' "$out/run/g0/emu.log" | tail -n 1)
echo "# switch: marked ${marked:-?} packets CE; guest 0's adapter sent ${cnps:-?} CNPs"
if [ "${marked:-0}" -gt 0 ] && [ "${cnps:-0}" -gt 0 ] &&
	[ "$cnps" -le "$marked" ]; then
	host_result OK "the switch marked rxe's packets; ORCA answered some marks with CNPs"
else
	host_result FAIL "the switch marked rxe's packets; ORCA answered some marks with CNPs"
fi
host_done "$rc"

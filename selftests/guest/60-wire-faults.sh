#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Two guests on a wire that drops 5% of the RC packets and reorders some:
# the orca_kverbs "remote" suite (RC send, write with immediate, read,
# atomics; every byte checked) still passes, and each adapter's
# rdma_hw_stats show retransmissions.  The wire switch's own counters prove
# it dropped.  Datagrams (the suite's UD case, ARP) are spared: nothing
# retransmits a lost datagram, so dropping them tests the wire, not ORCA.
. "$(dirname "$0")/../lib/host/host.sh"
wire_lossy "the switch drops and reorders 5% of the RC packets on purpose (--drop-pct 5 --reorder-pct 5)"
run_guests 2 500 --wire-opts "--drop-pct 5 --reorder-pct 5 --faults-rc-only --seed 7" -- \
	env KVERBS_EXPECT_RETRANSMITS=1 selftests/guest/in-guest/kverbs.sh remote
rc=$?
dropped=$(sed -n 's/.* fault_dropped \([0-9]*\).*/\1/p' "$out/run/wire.log" | tail -n 1)
reordered=$(sed -n 's/.* fault_reordered \([0-9]*\).*/\1/p' "$out/run/wire.log" | tail -n 1)
if [ "${dropped:-0}" -gt 0 ] && [ "${reordered:-0}" -gt 0 ]; then
	host_result OK "wire dropped $dropped and reordered $reordered frames"
else
	host_result FAIL "wire dropped ${dropped:-?} and reordered ${reordered:-?} frames"
fi
host_done $rc

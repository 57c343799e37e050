#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Two ORCA guests whose adapters do ECN (orca-emu --ecn) on a wire that
# models a congested fabric (orca-wire --link-rate 1000 with 256 KiB queues
# and ECN marking above 32 KiB): ib_write_bw from guest 1 into guest 0
# makes guest 0's adapter send CNPs and guest 1's cut its rate (DCQCN),
# counted in rdma statistic under mlx5's names (in-guest/ecn.sh).  The
# host checks that every CNP guest 0's adapter sent was taken by guest 1's
# (their exit logs): handled in the first run, ignored in the second, after
# the devlink parameters turned its reaction point off (in-guest/ecn.sh).  The queues hold a QP's whole send window (128
# packets of at most 1 KiB and their headers): the wire loses nothing, and
# the loss-free case holds as on an unmodelled wire.  Class 5, the second
# run's, is lossless (--pfc 5): the switch pauses guest 1's adapter, which
# counts the PFC frames (in-guest/ecn.sh); the host checks the switch's
# side: pauses and resumes sent, nothing dropped in the lossless class.
# Guest 0's port runs at 500 Mb/s (--port-rate): guest 1's adapter sends
# no faster than its own 1000 Mb/s link, and a flow at the rate of the
# port it goes to never fills a queue.
. "$(dirname "$0")/../lib/host/host.sh"
run_guests 2 600 \
	--wire-opts "--link-rate 1000 --queue-bytes 262144 --ecn 32768,98304,20 --pfc 5 --port-rate $out/run/g0/wire.sock=500" \
	--emu-opts "--ecn" -- selftests/guest/in-guest/ecn.sh
rc=$?

# ecn_count G FIELD: a number of guest G's adapter's exit line "roce: ecn:".
ecn_count() {
	sed -n "s/.*roce: ecn: .*$2 \([0-9]*\).*/\1/p" "$out/run/g$1/emu.log" |
		tail -n 1
}
sent=$(ecn_count 0 "CNPs sent")
handled=$(ecn_count 1 "CNPs handled")
ignored=$(ecn_count 1 "ignored")
cuts=$(ecn_count 1 "DCQCN rate cuts")
echo "# adapters: guest 0 sent ${sent:-?} CNPs; guest 1 handled ${handled:-?} (cutting its rate ${cuts:-?} times) and ignored ${ignored:-?} (its reaction point off)"
if [ -n "$sent" ] && [ -n "$handled" ] && [ -n "$ignored" ] &&
	[ "$handled" -gt 0 ] && [ "$ignored" -gt 0 ] &&
	[ "$sent" = $((handled + ignored)) ] &&
	[ -n "$cuts" ] && [ "$cuts" -gt 0 ]; then
	host_result OK "every CNP one adapter sent, the other took: handled, cutting its rate, then ignored"
else
	host_result FAIL "every CNP one adapter sent, the other took: handled, cutting its rate, then ignored"
fi
# The address vectors' traffic class picked the switch's queue: run 1's
# DSCP 26 is class 3, run 2's DSCP 40 class 5 (in-guest/ecn.sh); class 0
# is what has none (the CM's MADs, ARP).
classes=$(sed -n 's/.*exit: egress by class (class:frames): //p' "$out/run/wire.log" | tail -n 1)
echo "# switch: frames queued by class (class:frames): ${classes:-none}"
c3=$(tr ' ' '\n' <<<"$classes" | sed -n 's/^3://p')
c5=$(tr ' ' '\n' <<<"$classes" | sed -n 's/^5://p')
others=$(tr ' ' '\n' <<<"$classes" | grep -cv '^[035]:')
if [ "${c3:-0}" -gt 1000 ] && [ "${c5:-0}" -gt 1000 ] && [ "$others" = 0 ]; then
	host_result OK "the traffic class of each run's address vectors picked its switch queue (3, then 5)"
else
	host_result FAIL "the traffic class of each run's address vectors picked its switch queue (3, then 5)"
fi
# PFC's side on the switch (its exit line "pfc: ..."): it paused the
# sender of the lossless class and resumed it, and dropped nothing there.
pfc=$(sed -n 's/.*exit: pfc: //p' "$out/run/wire.log" | tail -n 1)
echo "# switch: pfc: ${pfc:-none}"
pauses=$(sed -n 's/.* pause \([0-9]*\) .*/\1/p' <<<"$pfc")
resumes=$(sed -n 's/.* resume \([0-9]*\) .*/\1/p' <<<"$pfc")
drops=$(sed -n 's/.* lossless drops \([0-9]*\),.*/\1/p' <<<"$pfc")
if [ "${pauses:-0}" -gt 0 ] && [ "${resumes:-0}" -gt 0 ] && [ "$drops" = 0 ]; then
	host_result OK "the switch paused and resumed the lossless class's sender, dropping nothing there"
else
	host_result FAIL "the switch paused and resumed the lossless class's sender, dropping nothing there"
fi
host_done "$rc"

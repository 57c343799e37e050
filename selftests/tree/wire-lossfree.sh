#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The loss-free wire check of every guest test (selftests/lib/guest/
# wire_lossfree.py) on fixed sample logs, as KTAP: what the switch could not
# give a QEMU counts as lost when it was RoCE (send_errors) and is only
# reported when it was the guest's other Ethernet traffic
# (not_roce_dropped) or went to a QEMU that had exited (departed_dropped);
# the log's give-up and longest-wait lines are
# reported; a switch of the older exit line is still read; a modelled
# link's queue drops count; on slower guests
# (--slow-guests) retransmissions count only with a drop, and so do what
# on-demand paging resends (--odp); with an rxe peer
# (--rxe-peer) only what rxe's retransmissions cause is excused: a
# sequence NAK of ours and the datagrams ours dropped still fail, unless
# the rxe guest's own stack dropped frames (then what ours resent for
# them, and the gaps, are reported); on a
# point-to-point link (--p2p) there is no switch log to read.  No
# guests: make check runs it with the other host-side tests.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
out=$top/out/wire-lossfree-test
rm -rf "$out"
check=selftests/lib/host/wire_lossfree.py

. "$top/selftests/lib/host/ktap-result.sh"

# sample NAME SEND_ERRORS [NOT_ROCE [DEPARTED]]: a run of one guest whose
# adapter moved no RoCE frame; its switch gave up on a QEMU once.
sample() {
	local run=$out/$1
	mkdir -p "$run/g0"
	echo "2026-12-04 03:40:31.000 orca-emu: exit" >"$run/g0/emu.log"
	{
		echo "2026-12-04 03:40:30.100 orca-wire: port 1: /r/g1/qemu-nic.sock took no frame for 500 ms: given up on for 30000 ms (or until it reads)"
		echo "2026-12-04 03:40:31.000 orca-wire: port 1: /r/g1/qemu-nic.sock: longest wait for room 12 ms"
		echo "2026-12-04 03:40:31.000 orca-wire: exit: received 9 forwarded 9 flooded 1 copies 8 send_errors $2 stall_dropped 0 backpressured 1 invalid 0 fault_dropped 0 fault_reordered 0 held_unsent 0${3:+ not_roce_dropped $3}${4:+ departed_dropped $4}"
	} >"$run/wire.log"
	python3 "$check" "$run" --rxe-peer >"$out/$1.log" 2>&1
}

# adapter NAME TIMEOUTS PORT_DROPS [OPTS...]: a run of one adapter that
# timed out TIMEOUTS times and resent 6 packets for it, whose port dropped
# PORT_DROPS frames to the wire; the check run with OPTS.
adapter() {
	local run=$out/$1
	mkdir -p "$run/g0"
	cat >"$run/g0/emu.log" <<-END
	2026-12-04 04:43:07.437 orca-emu: port: nic->wire 87, wire->nic 96, roce rx 2446, roce tx 2434, dropped $3 (foreign source MAC 0, not taken by the guest 0, to the wire $3), rx held for the engine 0
	2026-12-04 04:43:07.437 orca-emu: engine: roce: tx 2434 rx 2446 loopback 0 retransmits 6 (after RNR NAKs 0) timeouts $2 early 5 (rtt samples 731) send windows cut 6 rx queue full 0
	2026-12-04 04:43:07.437 orca-emu: engine: roce: rx dropped: no QP 1, QP state 1, bad packet 0, Q_Key 0, no receive WQE 0, too big 0, response to nothing outstanding 0
	2026-12-04 04:43:07.437 orca-emu: engine: roce: duplicate requests 8, sequence NAKs tx 0 rx 0, RNR NAKs tx 0 rx 0
	2026-12-04 04:43:07.755 orca-emu: exit 0
	END
	echo "2026-12-04 04:43:08.000 orca-wire: exit: received 9 forwarded 9 flooded 1 copies 8 send_errors 0 stall_dropped 0 backpressured 0 invalid 0 fault_dropped 0 fault_reordered 0 held_unsent 0 not_roce_dropped 0" >"$run/wire.log"
	shift 3
	python3 "$check" "$run" "$@" >"$out/$(basename "$run").log" 2>&1
}

# rxe_peer NAME SEQ_NAKS_TX QKEY_DROPS NO_WQE_DROPS: a run of one adapter
# whose peer is rxe (the check run with --rxe-peer): nothing retransmitted
# by ours, but rxe's own retransmissions arrived as 8 duplicates and 3
# ghosts, and a teardown's tail was dropped (no QP 2, QP state 1, bad
# packet 1); ours sent SEQ_NAKS_TX sequence NAKs and dropped QKEY_DROPS
# datagrams for their Q_Key and NO_WQE_DROPS for want of a receive WQE.
rxe_peer() {
	local run=$out/$1
	mkdir -p "$run/g0"
	cat >"$run/g0/emu.log" <<-END
	2026-12-05 10:12:01.100 orca-emu: port: nic->wire 41, wire->nic 57, roce rx 1301, roce tx 1290, dropped 0 (foreign source MAC 0, not taken by the guest 0, to the wire 0), rx held for the engine 0
	2026-12-05 10:12:01.100 orca-emu: engine: roce: tx 1290 rx 1301 loopback 0 retransmits 0 (after RNR NAKs 0) timeouts 0 early 0 (rtt samples 402) send windows cut 0 rx queue full 0
	2026-12-05 10:12:01.100 orca-emu: engine: roce: rx dropped: no QP 2, QP state 1, bad packet 1, Q_Key $3, no receive WQE $4, too big 0, response to nothing outstanding 3
	2026-12-05 10:12:01.100 orca-emu: engine: roce: duplicate requests 8, sequence NAKs tx $2 rx 0, RNR NAKs tx 0 rx 0
	2026-12-05 10:12:01.300 orca-emu: exit 0
	END
	echo "2026-12-05 10:12:02.000 orca-wire: exit: received 2591 forwarded 2591 flooded 2 copies 2 send_errors 0 stall_dropped 0 backpressured 0 invalid 0 fault_dropped 0 fault_reordered 0 held_unsent 0 not_roce_dropped 0" >"$run/wire.log"
	python3 "$check" "$run" --rxe-peer >"$out/$1.log" 2>&1
}

# rxe_stack NAME QDISC SEND_ERR TIMEOUTS SEQ_NAKS PORT_DROPS: a run of an
# ORCA adapter (g0) and an rxe guest (g1) whose qdisc dropped QDISC frames
# and rxe counted SEND_ERR send errors (the files the guests save); ours
# timed out TIMEOUTS times (6 packets resent, 5 early retransmissions),
# received SEQ_NAKS sequence NAKs and dropped PORT_DROPS frames to the wire.
rxe_stack() {
	local run=$out/$1
	mkdir -p "$run/g0" "$run/g1"
	cat >"$run/g0/emu.log" <<-END
	2026-12-07 04:10:01.100 orca-emu: port: nic->wire 41, wire->nic 57, roce rx 1301, roce tx 1290, dropped $6 (foreign source MAC 0, not taken by the guest 0, to the wire $6), rx held for the engine 0
	2026-12-07 04:10:01.100 orca-emu: engine: roce: tx 1290 rx 1301 loopback 0 retransmits 6 (after RNR NAKs 0) timeouts $4 early 5 (rtt samples 402) send windows cut 2 rx queue full 0
	2026-12-07 04:10:01.100 orca-emu: engine: roce: rx dropped: no QP 0, QP state 0, bad packet 0, Q_Key 0, no receive WQE 0, too big 0, response to nothing outstanding 40
	2026-12-07 04:10:01.100 orca-emu: engine: roce: duplicate requests 0, sequence NAKs tx 0 rx $5, RNR NAKs tx 0 rx 0
	2026-12-07 04:10:01.300 orca-emu: exit 0
	END
	echo "2026-12-07 04:10:02.000 orca-wire: exit: received 2591 forwarded 2591 flooded 2 copies 2 send_errors 0 stall_dropped 0 backpressured 0 invalid 0 fault_dropped 0 fault_reordered 0 held_unsent 0 not_roce_dropped 0" >"$run/wire.log"
	printf 'link rxe0/1 \n    sent_pkts 35004 \n    send_err %s \n    link_downed 0 \n' \
		"$3" >"$run/g1/rxe-counters"
	cat >"$run/g1/netstack" <<-END
	qdisc fq_codel 0: root refcnt 2 limit 10240p flows 1024 quantum 1514 target 5ms interval 100ms memory_limit 32Mb ecn drop_batch 64
	 Sent 28702433 bytes 29170 pkt (dropped $2, overlimits 0 requeues 16)
	 backlog 0b 0p requeues 16
	2: eth0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc fq_codel state UP mode DEFAULT group default qlen 1000
	    link/ether 52:54:00:0d:ca:01 brd ff:ff:ff:ff:ff:ff
	    RX:  bytes packets errors dropped  missed   mcast
	      44757632   42942      0       0       0       0
	    TX:  bytes packets errors dropped carrier collsns
	      28702433   29170      0       0       0       0
	END
	python3 "$check" "$run" --rxe-peer >"$out/$1.log" 2>&1
}

# foreign NAME FOREIGN [OPTS...]: a clean run of one adapter whose port
# dropped FOREIGN frames for their source MAC; the check run with OPTS.
foreign() {
	local run=$out/$1
	mkdir -p "$run/g0"
	cat >"$run/g0/emu.log" <<-END
	2026-12-05 19:58:01.100 orca-emu: port: nic->wire 41, wire->nic 57, roce rx 0, roce tx 0, dropped $2 (foreign source MAC $2, not taken by the guest 0, to the wire 0), rx held for the engine 0
	2026-12-05 19:58:01.100 orca-emu: engine: roce: tx 0 rx 0 loopback 0 retransmits 0 (after RNR NAKs 0) timeouts 0 early 0 (rtt samples 0) send windows cut 0 rx queue full 0
	2026-12-05 19:58:01.100 orca-emu: engine: roce: rx dropped: no QP 0, QP state 0, bad packet 0, Q_Key 0, no receive WQE 0, too big 0, response to nothing outstanding 0
	2026-12-05 19:58:01.100 orca-emu: engine: roce: duplicate requests 0, sequence NAKs tx 0 rx 0, RNR NAKs tx 0 rx 0
	2026-12-05 19:58:01.300 orca-emu: exit 0
	END
	echo "2026-12-05 19:58:02.000 orca-wire: exit: received 16 forwarded 16 flooded 2 copies 2 send_errors 0 stall_dropped 0 backpressured 0 invalid 0 fault_dropped 0 fault_reordered 0 held_unsent 0 not_roce_dropped 0" >"$run/wire.log"
	shift 2
	python3 "$check" "$run" "$@" >"$out/$(basename "$run").log" 2>&1
}

# p2p NAME TO_WIRE [OPTS...]: a run of two adapters on a point-to-point
# link (no switch, no wire.log) whose first port dropped TO_WIRE frames
# towards the wire; the check run with OPTS.
p2p() {
	local run=$out/$1 g
	for g in g0 g1; do
		mkdir -p "$run/$g"
		cat >"$run/$g/emu.log" <<-END
		2026-12-06 21:52:40.100 orca-emu: port: nic->wire 41, wire->nic 57, roce rx 3143, roce tx 3342, dropped 0 (foreign source MAC 0, not taken by the guest 0, to the wire 0), rx held for the engine 0
		2026-12-06 21:52:40.100 orca-emu: engine: roce: tx 3342 rx 3143 loopback 0 retransmits 0 (after RNR NAKs 0) timeouts 0 early 0 (rtt samples 90) send windows cut 0 rx queue full 0
		2026-12-06 21:52:40.100 orca-emu: engine: roce: rx dropped: no QP 0, QP state 0, bad packet 0, Q_Key 0, no receive WQE 0, too big 0, response to nothing outstanding 0
		2026-12-06 21:52:40.100 orca-emu: engine: roce: duplicate requests 0, sequence NAKs tx 0 rx 0, RNR NAKs tx 0 rx 0
		2026-12-06 21:52:40.300 orca-emu: exit 0
		END
	done
	sed -i "1s/dropped 0 (\(.*\)to the wire 0)/dropped $2 (\1to the wire $2)/" "$run/g0/emu.log"
	shift 2
	python3 "$check" "$run" "$@" >"$out/$(basename "$run").log" 2>&1
}

echo "TAP version 13"
echo "1..24"

# A point-to-point link has no switch and no wire.log: only --p2p (which
# run-guests.sh --p2p runs have) takes the adapters' logs alone; a drop
# of theirs still fails.
p2p p2pclean 0 --p2p
grep -qx 'ok wire loss-free: 0 retransmissions, 0 drops' "$out/p2pclean.log" &&
	grep -q '^# point-to-point link' "$out/p2pclean.log"
result $? "point-to-point (--p2p): the adapters' logs alone, no switch" "$out/p2pclean.log"

p2p p2pswitch 0
grep -qx 'fail wire loss-free: .*switch: no wire.log.*' "$out/p2pswitch.log"
result $? "without --p2p a missing wire.log fails the check" "$out/p2pswitch.log"

p2p p2pdrop 3 --p2p
grep -qx 'fail wire loss-free: .*' "$out/p2pdrop.log"
result $? "point-to-point (--p2p): a frame a port dropped to the wire fails the check" "$out/p2pdrop.log"
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

# A QEMU that exited (its guest powered off) before a peer's last ACK or
# CM message reached it lost nothing a test could miss.
sample departed 0 0 2
grep -qx 'ok wire loss-free: .*' "$out/departed.log" &&
	grep -q 'RoCE to a QEMU that had exited 2 (not counted)' "$out/departed.log"
result $? "RoCE frames to a QEMU that had exited are reported, not counted" "$out/departed.log"

sample old 0
grep -qx 'ok wire loss-free: .*' "$out/old.log" &&
	grep -q 'did not read 0 (not counted)' "$out/old.log"
result $? "an exit line without not_roce_dropped is still read" "$out/old.log"

# A modelled link (--link-rate) whose queue overflowed dropped frames: they
# count as any other drop; its counters are reported either way.
for d in 0 3; do
	sample "egress$d" 0
	echo "2026-12-07 04:20:00.000 orca-wire: exit: egress at 1000 Mb/s, queues of 262144 bytes: enqueued 152362 sent $((152362 - d)) dropped $d marked 1883 not_ect 0 deepest 127708" >>"$out/egress$d/wire.log"
	python3 "$check" "$out/egress$d" >"$out/egress$d.log" 2>&1
done
grep -qx 'ok wire loss-free: .*' "$out/egress0.log" &&
	grep -q '^# switch: links of 1000 Mb/s, queues of 262144 bytes: enqueued 152362 sent 152362 dropped 0 marked CE 1883$' "$out/egress0.log" &&
	grep -qx 'fail wire loss-free: .*switch: queue drops 3.*' "$out/egress3.log"
result $? "a modelled link's queue drops fail the check, its counters are reported" "$out/egress3.log"

# The debug tier's guests are slower than the ACK timeouts applications
# give their QPs: a retransmission on a wire that dropped nothing is
# reported there, not counted; a drop still fails, with the
# retransmissions; make check's guests still fail on any retransmission.
adapter slow 1 0 --slow-guests
grep -qx 'ok wire loss-free: .*(slow guests: .*' "$out/slow.log" &&
	grep -q '^# not counted (slow guests, no frame dropped): g0: retry timeouts 1$' "$out/slow.log" &&
	grep -q '^# not counted (slow guests, no frame dropped): g0: duplicate requests 8$' "$out/slow.log"
result $? "slow guests: retransmissions on a wire that dropped nothing are reported, not counted" "$out/slow.log"

adapter slowdrop 1 2 --slow-guests
grep -qx 'fail wire loss-free: .*port dropped 2 frames to the wire.*g0: retry timeouts 1.*' "$out/slowdrop.log"
result $? "slow guests: a dropped frame fails the check, and its retransmissions count" "$out/slowdrop.log"

# On-demand paging (wire_odp: 79, 87): what the adapters resent for their
# page faults (READ responses and atomic results asked for again, their
# duplicates, a timeout of a QP stopped on its own fault) on a wire that
# dropped nothing is reported, not counted; a drop still fails, with them.
adapter odp 1 0 --odp
grep -qx 'ok wire loss-free: .*(on-demand paging: .*' "$out/odp.log" &&
	grep -q '^# not counted (on-demand paging, no frame dropped): g0: retransmits 6$' "$out/odp.log" &&
	grep -q '^# not counted (on-demand paging, no frame dropped): g0: duplicate requests 8$' "$out/odp.log"
result $? "on-demand paging: what page faults resent on a wire that dropped nothing is reported, not counted" "$out/odp.log"

adapter odpdrop 1 2 --odp
grep -qx 'fail wire loss-free: .*port dropped 2 frames to the wire.*g0: retransmits 6.*' "$out/odpdrop.log"
result $? "on-demand paging: a dropped frame fails the check, and what was resent counts" "$out/odpdrop.log"

adapter fast 1 0
grep -qx 'fail wire loss-free: .*g0: retransmits 6; g0: retry timeouts 1.*duplicate requests 8' "$out/fast.log"
result $? "make check's guests: any retransmission fails the check" "$out/fast.log"

# With an rxe peer, only what rxe's own retransmissions cause is excused
# (duplicates, ghosts), besides a teardown's tail as with any peer; a gap
# ours saw in rxe's stream, and a datagram ours dropped, is loss.
rxe_peer rxe 0 0 0
grep -qx 'ok wire loss-free: .*(rxe peer: .*' "$out/rxe.log" &&
	grep -q '^# g0: not counted (rxe peer): duplicate requests 8$' "$out/rxe.log" &&
	grep -q '^# g0: not counted (rxe peer): ghosts 3$' "$out/rxe.log"
result $? "rxe peer: rxe's duplicates and ghosts and a teardown's tail are reported, not counted" "$out/rxe.log"

rxe_peer rxesnak 1 0 0
grep -qx 'fail wire loss-free: .*g0: sequence NAKs sent 1.*' "$out/rxesnak.log"
result $? "rxe peer: a sequence NAK ours sent (a frame of rxe's lost) fails the check" "$out/rxesnak.log"

rxe_peer rxeqkey 0 2 0
grep -qx 'fail wire loss-free: .*g0: datagrams dropped for their Q_Key 2.*' "$out/rxeqkey.log"
result $? "rxe peer: a datagram ours dropped for its Q_Key fails the check" "$out/rxeqkey.log"

rxe_peer rxenowqe 0 0 3
grep -qx 'fail wire loss-free: .*g0: datagrams dropped without a receive WQE 3.*' "$out/rxenowqe.log"
result $? "rxe peer: a datagram ours dropped without a receive WQE fails the check" "$out/rxenowqe.log"

# Frames the rxe guest's own stack dropped (its qdisc, rxe's send errors)
# were lost on that guest's Ethernet: what ours resent for them, and the
# gaps either way, are reported, not counted; without such a drop they
# count, and so does any drop on the wire with them.
rxe_stack rxeqdisc 7 0 1 2 0
grep -qx 'ok wire loss-free: .*(rxe peer: .*' "$out/rxeqdisc.log" &&
	grep -q '^# g1 (rxe): its own network stack dropped 7 frames (qdisc 7, eth0 rx 0 tx 0, rxe send_err 0)$' "$out/rxeqdisc.log" &&
	grep -q '^# not counted (the rxe guest dropped 7): g0: retry timeouts 1$' "$out/rxeqdisc.log" &&
	grep -q '^# not counted (the rxe guest dropped 7): g0: sequence NAKs received 2$' "$out/rxeqdisc.log"
result $? "rxe peer: what ours resent for frames the rxe guest's qdisc dropped is reported, not counted" "$out/rxeqdisc.log"

rxe_stack rxesenderr 0 3 1 0 0
grep -qx 'ok wire loss-free: .*' "$out/rxesenderr.log" &&
	grep -q 'dropped 3 frames (qdisc 0, eth0 rx 0 tx 0, rxe send_err 3)$' "$out/rxesenderr.log"
result $? "rxe peer: rxe's send errors are the guest's drops too" "$out/rxesenderr.log"

rxe_stack rxenodrop 0 0 1 2 0
grep -qx 'fail wire loss-free: .*g0: sequence NAKs received 2; g0: retransmits 6; g0: retry timeouts 1.*' "$out/rxenodrop.log"
result $? "rxe peer: without a drop in the rxe guest a retransmission of ours fails the check" "$out/rxenodrop.log"

rxe_stack rxewiredrop 7 0 1 0 2
grep -qx 'fail wire loss-free: .*g0: port dropped 2 frames to the wire; g0: retransmits 6.*' "$out/rxewiredrop.log"
result $? "rxe peer: a drop on the wire still fails the check, with the retransmissions" "$out/rxewiredrop.log"

# A frame the port drops for its foreign source MAC fails the check,
# unless the test changed the guest's MAC on purpose (20-port-ops).
foreign foreign 1
grep -qx 'fail wire loss-free: .*g0: port dropped 1 foreign frames.*' "$out/foreign.log"
result $? "a frame the port dropped for a foreign source MAC fails the check" "$out/foreign.log"

foreign macchange 1 --mac-changes
grep -qx 'ok wire loss-free: .*' "$out/macchange.log" &&
	grep -q 'foreign source MAC 1$' "$out/macchange.log"
result $? "--mac-changes: such frames are reported, not counted" "$out/macchange.log"

[ "$failed" = 0 ]

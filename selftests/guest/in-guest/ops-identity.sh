#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# One guest: what an operator sees of orca_0 and of known traffic on it.
# 1. Identity: fw_ver, hw_rev, hca_type and board_id in sysfs are the
#    adapter's (the emulator's FW_VERSION, PCI revision and QUERY_DEVICE
#    strings, read from its source).
# 2. selftests/user/ops_traffic: two RC QPs of orca_0 talking through its
#    own GID, N messages, then quiet.  rdma restrack (-dd, and -r for the
#    adapter's raw QP and CQ state), the port counters and debugfs must
#    show exactly that traffic: the QPs' states and depths, indices and
#    PSNs moved by N, the CQs' indices, the MRs' sizes, packets counted,
#    no error counted.  Then traffic without pause, during which the
#    indices move, and again exact values once it stops.
# 3. Safety: a dump of an object that is gone fails cleanly; rmmod removes
#    the debugfs directory.
. "$ORCA_TOP/selftests/lib/guest/guest.sh"
. "$ORCA_TOP/selftests/lib/guest/uverbs.sh"

traffic=$top/selftests/user/build/ops_traffic
pick=$top/selftests/lib/guest/rdma_json.py
emu_h=$top/emulator/engine/engine_priv.h
regs_h=$top/drivers/infiniband/hw/orca/orca_regs_defs.h
sys=/sys/class/infiniband/orca_0
n=200
psn_a=1000			# ops_traffic: A's first send PSN, B's receive PSN

rdma_up orca || ktap_done

# --- 1. identity ------------------------------------------------------
emu_def() { sed -n "s/^#define $1[[:space:]]*\\([^[:space:]]*\\).*/\\1/p" "$2"; }
fw=$(emu_def EMU_FW_VERSION "$emu_h")
fw_want="$((fw >> 24)).$(((fw >> 16) & 0xff)).$((fw & 0xffff))"
expect_eq "fw_ver is the adapter's FW_VERSION ($fw)" "$(cat $sys/fw_ver)" "$fw_want"
rev=$(emu_def ORCA_PCI_REVISION "$regs_h")
expect_eq "hw_rev is the adapter's hw_rev" "$(cat $sys/hw_rev)" "$(printf 0x%x "$rev")"
expect_eq "hw_rev is the PCI revision" "$(cat $sys/hw_rev)" \
	"$(printf 0x%x "$(cat $sys/device/revision)")"
expect_eq "hca_type is the adapter's" "$(cat $sys/hca_type)" \
	"$(emu_def EMU_HCA_TYPE "$emu_h" | tr -d '"')"
expect_eq "board_id is the adapter's" "$(cat $sys/board_id)" \
	"$(emu_def EMU_BOARD_ID "$emu_h" | tr -d '"')"

# ibstat (infiniband-diags) shows the same identity and an active port.
ibstat orca_0 >/tmp/ibstat.out 2>&1
sed 's/^/# ibstat: /' /tmp/ibstat.out >>"$ktap_out"
ibstat_has() { grep -qE "^[[:space:]]*$1\$" /tmp/ibstat.out; }
ok_if "ibstat: CA 'orca_0'" ibstat_has "CA 'orca_0'"
ok_if "ibstat: CA type is hca_type" ibstat_has "CA type: $(cat $sys/hca_type)"
ok_if "ibstat: firmware version is fw_ver" ibstat_has "Firmware version: $fw_want"
ok_if "ibstat: port 1 Active on Ethernet" sh -c \
	"grep -qE '^[[:space:]]*State: Active\$' /tmp/ibstat.out &&
	 grep -qE '^[[:space:]]*Link layer: Ethernet\$' /tmp/ibstat.out"

dbg=/sys/kernel/debug/orca/$(basename "$(readlink -f $sys/device)")
ok_if "debugfs: $dbg has cmdq, eqs, qp, cq" \
	test -r "$dbg/cmdq" -a -r "$dbg/eqs" -a -w "$dbg/qp" -a -w "$dbg/cq"

# Port counters: "name value" pairs of rdma statistic.
stats() { rdma statistic show link orca_0/1 | tr -s ' ' '\n' | tail -n +3; }
stat_of() { echo "$1" | awk -v k="$2" 'p { print; exit } $0 == k { p = 1 }'; }
# How much counter $3 grew from snapshot $2 to $1 ("none" if it is absent).
stat_delta() {
	local a b
	a=$(stat_of "$1" "$3") b=$(stat_of "$2" "$3")
	if [ -n "$a" ] && [ -n "$b" ]; then echo $((a - b)); else echo none; fi
}
errors="rx_roce_discards rx_roce_errors rx_qkey_drops out_of_buffer retransmits
	local_ack_timeout_err rnr_nak_retry_err send_rnr_err packet_seq_err
	out_of_seq_request err_naks_rx err_naks_tx duplicate_request cq_overruns
	driver_bad_eqes driver_bad_cqes driver_stale_events"
st0=$(stats)
echo "# counters before: $(echo $st0)" >>"$ktap_out"

# --- 2. traffic -------------------------------------------------------
gid=$(wait_gid orca_0 v4)
ok_if "orca_0: RoCE v2 IPv4 GID" test -n "$gid" || ktap_done
out=/tmp/ops-traffic.out
"$traffic" orca_0 "$gid" $n >"$out" 2>&1 &
pid=$!
ok_if "ops_traffic: $n messages sent and received" \
	wait_for 60 grep -q '^ready' "$out" || { cat "$out" >>"$ktap_out"; ktap_done; }
ready=$(grep '^ready' "$out")
echo "# $ready" >>"$ktap_out"
val() { echo "$ready" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
qpa=$(val qpa) qpb=$(val qpb)

# Snapshot of every restrack view, as JSON files; all are taken even if
# one fails (an adapter without QUERY_CQ has no raw CQ dump).
snap() {
	local rc=0
	rdma -j -dd resource show qp >/tmp/qp.json || rc=1
	rdma -j -r resource show qp >/tmp/qpraw.json || rc=1
	rdma -j -dd resource show cq >/tmp/cq.json || rc=1
	rdma -j -r resource show cq >/tmp/cqraw.json || rc=1
	rdma -j -dd resource show mr >/tmp/mr.json || rc=1
	rdma -j -dd resource show srq >/tmp/srq.json || rc=1
	# Kept with the results, for a failure's diagnosis.
	[ -z "${ORCA_RESULT_DIR:-}" ] || cp /tmp/*.json "$ORCA_RESULT_DIR/"
	return $rc
}
q() { python3 "$pick" "$@"; }

# Everything rdma and debugfs show after T messages.  The QPs name the
# adapter's CQ numbers (drv_cqn), not restrack's cqn, and raw entries are
# the adapter's structures only: struct orca_qp_attr (qpn 0, qp_state 8,
# path_mtu 10, timeout 11, rq_psn 28, sq_psn 32, dest_qpn 36) and struct
# orca_cq_attr (cqn 0, eqn 4, pi 8, ci 12, overruns 24, log_depth 28,
# flags 29).
check_quiet() {
	local t=$1 what=$2 a b cqa cqb rows
	ok_if "$what: rdma resource show qp/cq/mr -dd and -r" snap
	a=$(q /tmp/qp.json lqpn=$qpa -- drv_send_cqn drv_recv_cqn \
		:: /tmp/qp.json lqpn=$qpb -- drv_recv_cqn)
	set -- $a
	cqa=$1 cqb=$3
	expect_eq "$what: qp A sends and receives on one CQ" "$2" "$cqa"
	rows=$(q /tmp/qp.json lqpn=$qpa -- state type sq-psn drv_qp_state \
		drv_sq_depth drv_rq_depth drv_sq_max_sge drv_sq_pi drv_rq_pi drv_user \
		:: /tmp/qp.json lqpn=$qpb -- state rq-psn drv_qp_state drv_sq_depth \
		drv_rq_depth drv_sq_pi drv_rq_pi drv_user \
		:: /tmp/qpraw.json u32@0=$qpa -- u8@8 u8@10 u8@11 u32@32 u32@36 \
		:: /tmp/qpraw.json u32@0=$qpb -- u8@8 u32@28 u32@36 \
		:: /tmp/cq.json drv_cqn="$cqa" -- cqe drv_depth drv_ci drv_user drv_eqn \
		:: /tmp/cq.json drv_cqn="$cqb" -- cqe drv_depth drv_ci drv_user \
		:: /tmp/cqraw.json u32@0="$cqa" -- u32@4 u32@8 u32@12 u32@24 u8@28 u8@29 \
		:: /tmp/cqraw.json u32@0="$cqb" -- u32@8 u32@12 u32@24 u8@28 u8@29)
	echo "$rows" | sed "s/^/# $t: /" >>"$ktap_out"
	row() { echo "$rows" | sed -n "$1p"; }
	# A user QP's WQEs hold the SGEs their stride has room for (uverbs
	# ABI 3: the smallest send stride holds 4 SGEs).
	expect_eq "$what: qp A RTS, depths 32/16, sq_pi $t, sq-psn $((psn_a + t))" \
		"$(row 1)" "RTS RC $((psn_a + t)) 3 32 16 4 $t 0 1"
	expect_eq "$what: qp B RTS, depths 16/64, rq_pi 64+$t, rq-psn $((psn_a + t))" \
		"$(row 2)" "RTS $((psn_a + t)) 3 16 64 0 $((64 + t)) 1"
	expect_eq "$what: raw qp A: RTS, MTU 1024, timeout 18, sq_psn, dest" \
		"$(row 3)" "3 3 18 $((psn_a + t)) $qpb"
	expect_eq "$what: raw qp B: the adapter expects PSN $((psn_a + t))" \
		"$(row 4)" "3 $((psn_a + t)) $qpa"
	a=$(row 5)
	expect_eq "$what: cq A depth 128, ci $t (user)" "${a% *}" "128 128 $t 1"
	expect_eq "$what: cq B depth 256, ci $t (user)" "$(row 6)" "256 256 $t 1"
	expect_eq "$what: raw cq A: its EQ, pi = ci = $t, no overrun, 2^7, not armed" \
		"$(row 7)" "${a##* } $t $t 0 7 0"
	expect_eq "$what: raw cq B: pi = ci = $t, no overrun, 2^8, not armed" \
		"$(row 8)" "$t $t 0 8 0"

	# debugfs: the same QP and CQ, driver and adapter side.
	echo "$qpa" >"$dbg/qp"
	a=$(awk '{ v[$1] = $2 } END { print v["qpn"], v["user"], v["sq_depth"],
		v["db_sq_pi"], v["adapter_state"], v["adapter_sq_psn"],
		v["adapter_dest_qpn"] }' "$dbg/qp")
	expect_eq "$what: debugfs qp A" "$a" "$qpa 1 32 $t 3 $((psn_a + t)) $qpb"
	echo "$cqb" >"$dbg/cq"
	b=$(awk '{ v[$1] = $2 } END { print v["cqn"], v["depth"], v["db_ci"],
		v["adapter_pi"], v["adapter_ci"], v["adapter_overrun"] }' "$dbg/cq")
	expect_eq "$what: debugfs cq B" "$b" "$cqb 256 $t $t $t 0"
}

check_quiet $n "after $n messages"

# MRs: the two the program registered, 8 KiB and 12 KiB, pinned pages
# that cover them.
mrs=$(q /tmp/mr.json pid=$pid mrlen=8192 -- drv_type drv_page_size drv_npages \
	:: /tmp/mr.json pid=$pid mrlen=12288 -- drv_type drv_page_size drv_npages \
	:: /tmp/srq.json pid=$pid -- drv_depth drv_max_sge drv_limit drv_user drv_pi)
for len in 8192 12288; do
	m=$(echo "$mrs" | sed -n "$((len / 4096 - 1))p")
	echo "# mr $len: $m" >>"$ktap_out"
	set -- ${m:-- - -}
	# A page size the buffer's alignment allows: whole pages, at most one
	# partial page at either end.
	ok_if "mr of $len bytes: a user MR whose pages cover it ($m)" \
		test "$1" = user -a "${2//-/0}" -ge 4096 -a \
		"$(( ${2//-/0} * ${3//-/0} ))" -ge "$len" -a \
		"$(( ${2//-/0} * (${3//-/0} - 2) ))" -lt "$len"
done

# The SRQ: 32 receives asked with one SGE (the smallest stride holds 3,
# ABI 3), 10 posted, no limit armed.
expect_eq "srq: depth 32, 3 SGEs, limit 0, user, pi 10" "$(echo "$mrs" | sed -n 3p)" \
	"32 3 0 1 10"

# Counters: every message counted (requests and ACKs in and out of the
# adapter's loopback), no error.
st1=$(stats)
for c in sent_pkts rcvd_pkts loopback_packets; do
	d=$(stat_delta "$st1" "$st0" $c)
	ok_if "counter $c moved by $d >= $n" test "$d" -ge "$n"
done
for c in $errors; do
	expect_eq "counter $c is 0" "$(stat_of "$st1" $c)" 0
done

# debugfs command queue and EQs: idle and consistent.
cq_of() { awk -v k="$1" '$1 == k { print $2 }' "$dbg/cmdq"; }
expect_eq "debugfs cmdq: idle (pi = ci, none outstanding, no timeout)" \
	"$(cq_of outstanding) $(cq_of timeouts) $(($(cq_of pi) - $(cq_of ci)))" "0 0 0"
p0=$(cq_of posted)
echo "$qpa" >"$dbg/qp"
cat "$dbg/qp" >/dev/null
ok_if "debugfs cmdq: a qp dump posted a command ($p0 -> $(cq_of posted))" \
	test "$(cq_of posted)" -gt "$p0"
eqs=$(cat "$dbg/eqs")
echo "$eqs" | sed 's/^/# /' >>"$ktap_out"
ncomp=$(ls -d /proc/irq/*/orca-comp* 2>/dev/null | wc -l)
ok_if "debugfs eqs: EQ 0 and every completion EQ ($ncomp)" test \
	"$(echo "$eqs" | grep -c '^eq ')" -eq $((ncomp + 1)) -a "$ncomp" -ge 1
ok_if "debugfs eqs: EQ 0 consumed events" \
	test "$(echo "$eqs" | awk '$1 == "eq" && $2 == 0 { print $10 }')" -gt 0
eqn=$(q /tmp/cq.json pid=$pid -- drv_eqn)
ok_if "debugfs eqs: cq A's EQ ${eqn:-?} carries CQs" test -n "$eqn" -a \
	"$(echo "$eqs" | awk -v e="$eqn" '$1 == "eq" && $2 == e && $13 == "cqs" { print $14 }')" -ge 2
expect_eq "debugfs eqs: no bad EQE" \
	"$(echo "$eqs" | awk '$1 == "driver_bad_eqes" { print $2 }')" 0

# Traffic without pause: the indices move while we look.
kill -USR1 $pid
rdma -j -dd resource show qp >/tmp/qp-run1.json
sleep 1
rdma -j -dd resource show qp >/tmp/qp-run2.json
r=$(q /tmp/qp-run1.json lqpn=$qpa -- drv_sq_pi sq-psn :: /tmp/qp-run2.json lqpn=$qpa -- drv_sq_pi sq-psn)
r1=$(echo "$r" | sed -n 1p) r2=$(echo "$r" | sed -n 2p)
echo "# running: $r1 then $r2" >>"$ktap_out"
ok_if "during traffic: qp A's sq_pi and sq-psn move ($r1 -> $r2)" \
	test "${r2% *}" -gt "${r1% *}" -a "${r2#* }" -gt "${r1#* }" -a "${r1% *}" -ge $n
kill -USR1 $pid
ok_if "traffic paused" wait_for 60 grep -q '^paused' "$out"
total=$(sed -n 's/^paused msgs=//p' "$out")
echo "# $total messages in all" >>"$ktap_out"
check_quiet "$total" "after $total messages"
st2=$(stats)
d=$(stat_delta "$st2" "$st0" sent_pkts)
ok_if "counter sent_pkts moved by $d >= $total" test "$d" -ge "$total"
for c in $errors; do
	expect_eq "after traffic: counter $c is 0" "$(stat_of "$st2" $c)" 0
done

# --- 3. objects gone, module gone --------------------------------------
kill -TERM $pid
wait $pid
ok_if "ops_traffic released everything" grep -q '^done' "$out"
ok_if "restrack: its QPs are gone" sh -c \
	"! rdma resource show qp lqpn $qpa 2>/dev/null | grep -q lqpn"
echo "$qpa" >"$dbg/qp"
ok_if "debugfs: a dump of a destroyed QP fails (ENOENT)" sh -c "! cat $dbg/qp"
echo 123456 >"$dbg/cq"
ok_if "debugfs: a dump of a CQ that never was fails" sh -c "! cat $dbg/cq"
ok_if "debugfs: a bad number is refused" sh -c "! echo x >$dbg/qp"
rdma_down orca
ok_if "rmmod: the device's debugfs directory is gone" test ! -e "$dbg"
ok_if "rmmod: /sys/kernel/debug/orca is gone" test ! -e /sys/kernel/debug/orca
ok_if "no warnings in dmesg" dmesg_quiet
ktap_done

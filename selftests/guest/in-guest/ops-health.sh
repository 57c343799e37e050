#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# One guest: the driver's tracepoints and its devlink health reporter.
#  - Tracepoints: ibv_rc_pingpong in loopback (server and client on
#    orca_0) makes a known sequence of commands; events/orca records each
#    one's submit and completion (name, token, status OK, a latency) and
#    each QP's RESET->INIT->RTR->RTS.
#  - devlink: the PCI function has an instance with a healthy fw_fatal
#    reporter.  A fatal error with a syndrome of the test's choosing
#    (emulator "fatal 0x5eed") is reported: error count 1, diagnose says
#    dead, and the dump, read from the adapter's register window while it
#    is fatal and fenced, holds that syndrome.  "devlink health recover"
#    brings orca_0 back ACTIVE and a pingpong checks its data; then, with
#    auto_recover, a second fatal error is dumped and recovered alone.
#  - The module unloads and the instance is gone.
. "$ORCA_TOP/selftests/lib/guest/guest.sh"
. "$ORCA_TOP/selftests/lib/guest/uverbs.sh"

tr=/sys/kernel/tracing
bdf=$(lspci -D -n -d 1234:0dca | awk '{ print $1 }' | head -n1)
dl=pci/$bdf

ok_if "orca module loads" orca_load || ktap_done
ok_if "orca_0/1 ACTIVE" wait_for 20 port_active orca_0 || ktap_done
gid=$(wait_gid orca_0 v4)
ok_if "orca_0: RoCE v2 IPv4 GID" test -n "$gid" || ktap_done

# pingpong NAME: ibv_rc_pingpong server and client on orca_0, -c checks
# every byte received.
pingpong() {
	local log=$ORCA_RUN_DIR/pp-$1 port=$((18600 + ${#1})) pid rc
	timeout "$(scaled 60)" ibv_rc_pingpong -d orca_0 -i 1 -g "$gid" -p "$port" -c \
		-n 20 -s 4096 >"$log-srv" 2>&1 &
	pid=$!
	wait_for 20 tcp_listening "$port" || { kill "$pid"; return 1; }
	timeout "$(scaled 60)" ibv_rc_pingpong -d orca_0 -i 1 -g "$gid" -p "$port" -c \
		-n 20 -s 4096 127.0.0.1 >"$log-cli" 2>&1
	rc=$?
	wait "$pid" || rc=1
	if uverbs_bad_data "$log-srv" || uverbs_bad_data "$log-cli"; then
		echo "bad data"
		rc=1
	fi
	[ "$rc" = 0 ] || tail -n 5 "$log-srv" "$log-cli"
	return "$rc"
}

# --- Tracepoints ------------------------------------------------------
mountpoint -q "$tr" || mount -t tracefs nodev "$tr"
ok_if "events/orca has its five events" sh -c "
	for e in orca_cmd_submit orca_cmd_complete orca_eq_event \
		 orca_qp_state orca_dev_dead; do
		test -d $tr/events/orca/\$e || exit 1
	done"
echo 8192 >"$tr/buffer_size_kb"
echo >"$tr/trace"
echo 1 >"$tr/events/orca/enable"
ok_if "pingpong with events/orca on" pingpong traced
echo 0 >"$tr/events/orca/enable"
trace=$ORCA_RUN_DIR/trace.txt
cp "$tr/trace" "$trace"

# The pingpongs' own commands, queries aside (rdma-core queries the port
# and the QP as it likes): per process, in order.
want="ALLOC_UAR CREATE_PD CREATE_MR CREATE_CQ CREATE_QP MODIFY_QP MODIFY_QP MODIFY_QP DESTROY_QP DESTROY_CQ DESTROY_MR DESTROY_PD"
pp_pids=$(awk '/ibv_rc_pingpong-[0-9]+ .*orca_cmd_submit:/ {
	split($1, a, "-"); print a[length(a)] }' "$trace" | sort -u)
expect_eq "two pingpong processes sent commands" "$(echo "$pp_pids" | wc -w)" 2
n=0
for pid in $pp_pids; do
	n=$((n + 1))
	got=$(awk -v p="ibv_rc_pingpong-$pid" '$1 == p && /orca_cmd_submit:/ {
		for (i = 1; i <= NF; i++) if ($i ~ /^opcode=/) print $(i + 1) }' \
		"$trace" | grep -v -e '^QUERY_' -e '^DEALLOC_UAR$' | tr '\n' ' ')
	expect_eq "pingpong process $n: command sequence" "${got% }" "$want"
done

# Every submit of theirs completes once, OK, with a latency in us; a
# token is matched to its opcode.
check_completions() {
	awk -v pids=" $(echo $pp_pids) " '
	function field(k,   i) {
		for (i = 1; i <= NF; i++)
			if (index($i, k "=") == 1)
				return substr($i, length(k) + 2)
		return ""
	}
	/orca_cmd_submit:/ {
		tok = field("token")
		split($1, a, "-")
		if (index(pids, " " a[length(a)] " ")) { mine[tok] = field("opcode"); subs++ }
		next
	}
	/orca_cmd_complete:/ {
		tok = field("token")
		if (!(tok in mine)) next
		if (field("opcode") != mine[tok]) { print "token " tok ": opcode " field("opcode") " != " mine[tok]; bad++ }
		if (field("status") != "0x0") { print "token " tok ": status " field("status"); bad++ }
		lat = field("latency_us")
		if (lat !~ /^[0-9]+$/) { print "token " tok ": latency " lat; bad++ }
		if (lat + 0 > 0) positive++
		if (lat + 0 > 10000000) { print "token " tok ": latency " lat " us"; bad++ }
		delete mine[tok]; comps++
	}
	END {
		print "# submits " subs ", completions " comps ", with latency > 0: " positive
		if (!subs || comps != subs || !positive) bad++
		exit bad > 0
	}' "$trace"
}
ok_if "their commands complete once, status OK, with a latency" check_completions
awk '/orca_cmd_complete:/ { print "# " $0; if (++n == 3) exit }' "$trace" >>"$ktap_out"

# QP state changes by their modify_qp, and EQ 0 carrying CMD_DONE events.
qp_seq() {
	awk '/orca_qp_state:/ && /by=modify/ {
		for (i = 1; i <= NF; i++) if ($i ~ /^qpn=/) q = $i
		for (i = 1; i <= NF; i++) if ($i ~ /->/) s[q] = s[q] " " $i
	} END { for (q in s) print q ":" s[q] }' "$trace" | sort
}
qp_seq | sed 's/^/# /' >>"$ktap_out"
expect_eq "two QPs went RESET->INIT->RTR->RTS" \
	"$(qp_seq | grep -c ': RESET->INIT INIT->RTR RTR->RTS$')" 2
expect_eq "EQ 0 events: CMD_DONE" \
	"$(grep -c 'orca_eq_event:.*eqn=0 type=0x02 CMD_DONE obj=' "$trace" | awk '{ print ($1 > 0) }')" 1

# --- devlink health ---------------------------------------------------
# health KEY: the fw_fatal reporter's KEY from "devlink -j health show".
health() {
	devlink -j health show "$dl" reporter fw_fatal | python3 -c '
import json, sys
h = json.load(sys.stdin)["health"]
r = [x for v in h.values() for x in v if x["reporter"] == "fw_fatal"][0]
print(str(r[sys.argv[1]]).lower())' "$1"
}

devlink dev show | sed 's/^/# /' >>"$ktap_out"
ok_if "devlink dev show lists $dl" sh -c "devlink dev show | grep -qx '$dl'"
expect_eq "fw_fatal reporter healthy" "$(health state)" healthy
expect_eq "fw_fatal: no error yet" "$(health error)" 0
ok_if "diagnose: alive" sh -c \
	"devlink health diagnose $dl reporter fw_fatal | grep -q 'state: alive'"

ok_if "auto_recover off" devlink health set "$dl" reporter fw_fatal \
	auto_recover false
echo "fatal 0x5eed" >>"$ORCA_CTL"
reported() { [ "$(health error)" = 1 ]; }
ok_if "fatal error reported: error count 1" wait_for 30 reported
expect_eq "reporter in error" "$(health state)" error
devlink health diagnose "$dl" reporter fw_fatal >"$ORCA_RUN_DIR/diagnose" 2>&1
sed 's/^/# /' "$ORCA_RUN_DIR/diagnose" >>"$ktap_out"
ok_if "diagnose: dead, of the fatal event" \
	grep -q 'state: dead reason: fatal event' "$ORCA_RUN_DIR/diagnose"
devlink health dump show "$dl" reporter fw_fatal >"$ORCA_RUN_DIR/dump1" 2>&1
head -n 12 "$ORCA_RUN_DIR/dump1" | sed 's/^/# /' >>"$ktap_out"
ok_if "dump: taken at the death" sh -c "
	grep -q 'driver_state: dead taken_at_death: true' $ORCA_RUN_DIR/dump1"
# 0x5eed: the syndrome the emulator was told, read from the adapter.
ok_if "dump: the adapter's fatal syndrome 0x5eed" \
	grep -q 'fatal_syndrome: 24301 ' "$ORCA_RUN_DIR/dump1"
# The adapter at its death: FATAL (bit 2) in its status, the pingpongs'
# objects gone, EQ 0 and GSI QP 1 (RTS) still there.
st=$(sed -n 's/.* dev_status: \([0-9]*\) .*/\1/p' "$ORCA_RUN_DIR/dump1" | head -n1)
expect_eq "dump: adapter status FATAL" "$(( ${st:-0} & 4 ))" 4
ok_if "dump: EQ 0, the GSI QP in RTS, one PD (the kernel's)" sh -c "
	grep -q 'eqn: 0 ' $ORCA_RUN_DIR/dump1 &&
	grep -q 'qpn: 1 type: 5 state: 3 ' $ORCA_RUN_DIR/dump1 &&
	grep -q ' pd: 1 ' $ORCA_RUN_DIR/dump1"
ok_if "devlink health recover" timeout "$(scaled 120)" devlink health recover "$dl" \
	reporter fw_fatal
expect_eq "reporter healthy again" "$(health state)" healthy
expect_eq "one recovery" "$(health recover)" 1
ok_if "orca_0 back, port ACTIVE" wait_for 30 port_active orca_0
gid=$(wait_gid orca_0 v4)
ok_if "pingpong after recovery (data checked)" pingpong recovered
ok_if "diagnose: alive again" sh -c \
	"devlink health diagnose $dl reporter fw_fatal | grep -q 'state: alive'"

# auto_recover, no grace period: the next death recovers alone, and its
# dump (cleared first) is the one taken at the report, while dead.
ok_if "dump clear" devlink health dump clear "$dl" reporter fw_fatal
ok_if "auto_recover on, grace period 0" devlink health set "$dl" \
	reporter fw_fatal auto_recover true grace_period 0
echo >"$tr/trace"
echo 1 >"$tr/events/orca/orca_dev_dead/enable"
echo "fatal 0x77" >>"$ORCA_CTL"
recovered_twice() { [ "$(health recover)" = 2 ] && port_active orca_0; }
ok_if "second fatal error recovered automatically" wait_for 90 recovered_twice
expect_eq "error count 2" "$(health error)" 2
ok_if "orca_dev_dead traced with its reason" \
	grep -q 'orca_dev_dead:.* reason=fatal event' "$tr/trace"
echo 0 >"$tr/events/orca/orca_dev_dead/enable"
devlink health dump show "$dl" reporter fw_fatal >"$ORCA_RUN_DIR/dump2" 2>&1
ok_if "auto dump: syndrome 0x77, taken while dead" sh -c "
	grep -q 'fatal_syndrome: 119 ' $ORCA_RUN_DIR/dump2 &&
	grep -q 'driver_state: dead taken_at_death: true' $ORCA_RUN_DIR/dump2"
gid=$(wait_gid orca_0 v4)
ok_if "pingpong after automatic recovery" pingpong auto

ok_if "rmmod orca" timeout "$(scaled 60)" rmmod orca
ok_if "orca_0 gone" rdma_gone orca_0
ok_if "devlink instance gone" sh -c "! devlink dev show | grep -q '$dl'"
dmesg | grep -E 'orca|devlink' | tail -n 12 | sed 's/^/# /' >>"$ktap_out"
ktap_done

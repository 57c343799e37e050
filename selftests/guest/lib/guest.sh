# SPDX-License-Identifier: GPL-2.0
#
# Sourced by test scripts that run inside an ORCA guest.  Results are KTAP
# lines appended to $ORCA_RESULT_DIR/g$ORCA_GUEST_INDEX.tap (the host side,
# lib/host.sh, merges them); without ORCA_RESULT_DIR they go to stdout.
#
#   ok_if NAME CMD...     one test case: ok iff CMD succeeds; its output is
#                         kept as "# " comments when it fails
#   expect_eq NAME GOT WANT
#   orca_load             load ib_core, the orca driver and the observer
#   wait_for SECS CMD...  poll CMD (every 0.2 s) until it succeeds
#   barrier NAME SECS     wait until every guest of the run reached NAME

top=${ORCA_TOP:?ORCA_TOP unset}
gi=${ORCA_GUEST_INDEX:-0}
if [ -n "${ORCA_RESULT_DIR:-}" ]; then
	ktap_out=$ORCA_RESULT_DIR/g$gi.tap
	: >"$ktap_out"
else
	ktap_out=/dev/stdout
fi
ktap_fail=0

ktap_line() { echo "$*" >>"$ktap_out"; echo "$*"; }

ok_if() {
	local name=$1 out rc; shift
	out=$("$@" 2>&1); rc=$?
	if [ $rc = 0 ]; then
		ktap_line "ok $name"
	else
		ktap_fail=1
		printf '%s\n' "$out" | tail -n 15 | sed 's/^/# /' >>"$ktap_out"
		ktap_line "not ok $name (exit $rc)"
	fi
	return $rc
}

expect_eq() {
	if [ "$2" = "$3" ]; then
		ktap_line "ok $1"
	else
		ktap_fail=1
		ktap_line "# got '$2', want '$3'"
		ktap_line "not ok $1"
	fi
}

wait_for() {
	local secs=$1 i; shift
	for i in $(seq $((secs * 5))); do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.2
	done
	"$@"
}

barrier() {
	local dir=${ORCA_RUN_DIR:?}/barrier-$1
	mkdir -p "$dir" && touch "$dir/g$gi"
	all_arrived() { [ "$(ls "$dir" | wc -l)" -ge "${ORCA_GUEST_COUNT:-1}" ]; }
	wait_for "$2" all_arrived
}

orca_ko=$top/drivers/infiniband/hw/orca/orca.ko
ktest_ko=$top/selftests/kmod/orca_ktest.ko

orca_load() {
	mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
	modprobe ib_core && modprobe ib_uverbs &&
	insmod "$ktest_ko" 2>/dev/null; insmod "$orca_ko" &&
	wait_for 20 test -e /sys/class/infiniband/orca_0
}

# The netdev the adapter's port is paired with (the guest's only NIC).
orca_netdev() {
	rdma link show orca_0/1 2>/dev/null | sed -n 's/.* netdev \([^ ]*\).*/\1/p'
}

ktest_dir=/sys/kernel/debug/orca_ktest/orca_0
ktest_port() { awk -v k="$1" '$1 == k { print $2 }' "$ktest_dir/port"; }
ktest_event() { awk -v k="$1" '$0 ~ "^" k " " { print $NF }' "$ktest_dir/events"; }

ktap_done() { exit $ktap_fail; }

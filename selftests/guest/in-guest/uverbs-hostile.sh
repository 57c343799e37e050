#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Untrusted driver data against the orca kernel driver, without the
# provider (selftests/user/orca_udata_hostile.c):
# 1. orca_0 has a uverbs device (ABI version 3) and an Ethernet port.
# 2. Legacy uverbs commands with short, long, non-zero, absurd, unaligned
#    or unmapped requests fail with the expected errno, correct ones still
#    succeed; queue geometries the driver refuses reach no adapter and are
#    counted, with their reasons in the kernel log (dynamic debug); the
#    adapter's live object counts (the emulator logs them on "counts") are
#    back to where they were once the program exits.
# 3. rmmod orca while a process holds a context, queues and the UAR
#    mapping: rmmod completes, the process gets IB_EVENT_DEVICE_FATAL.
# No warning in dmesg at any point.
. "$ORCA_TOP/selftests/lib/guest/guest.sh"
. "$ORCA_TOP/selftests/lib/guest/uverbs.sh"

prog=$top/selftests/user/build/orca_udata_hostile

uverbs_dev() {
	local d
	for d in /sys/class/infiniband_verbs/uverbs*; do
		[ "$(cat "$d/ibdev" 2>/dev/null)" = orca_0 ] && { echo "$d"; return 0; }
	done
	return 1
}

rdma_up orca || ktap_done
expect_eq "orca_0: port link_layer" \
	"$(cat /sys/class/infiniband/orca_0/ports/1/link_layer)" Ethernet
ok_if "orca_0 has a uverbs device" wait_for 10 uverbs_dev || ktap_done
expect_eq "orca_0: uverbs ABI version" "$(cat "$(uverbs_dev)/abi_version")" 3
gid=$(wait_gid orca_0 v4)
ok_if "orca_0: RoCE v2 IPv4 GID" test -n "$gid"

base=$(emu_counts)
ok_if "adapter reports its object counts" test -n "$base" || ktap_done
echo "# before: $base" >>"$ktap_out"
# The reasons of refused geometries are debug messages, ratelimited.
dyndbg=/sys/kernel/debug/dynamic_debug/control
echo 'module orca func orca_uqueue_refuse +p' >"$dyndbg"
out=$("$prog" $gid 2>&1)
rc=$?
echo 'module orca func orca_uqueue_refuse -p' >"$dyndbg"
printf '%s\n' "$out" | sed 's/^/# /' >>"$ktap_out"
echo "# $(printf '%s\n' "$out" | grep -c '^ok ') cases passed"
printf '%s\n' "$out" | grep '^not ok' | sed 's/^/# /'
expect_eq "orca_udata_hostile: every case as expected" "$rc" 0
ok_if "the first refused geometry's reason is in the kernel log" \
	sh -c "dmesg | grep -q 'user queue refused: CQ: 96 entries, not a power of two'"
settled() { [ "$(emu_counts)" = "$base" ]; }
ok_if "the adapter's objects return to $base" wait_for 20 settled
echo "# after: $(emu_counts)" >>"$ktap_out"
ok_if "no warnings in dmesg after the hostile requests" dmesg_quiet

hold_out=/tmp/hostile-hold.out
"$prog" hold >"$hold_out" 2>&1 &
pid=$!
ok_if "a process holds a context, queues and the UAR page" \
	wait_for 60 grep -q ready "$hold_out"
ok_if "rmmod orca while the process holds orca_0" timeout "$(scaled 60)" rmmod orca
ok_if "orca_0 gone" wait_for 10 rdma_gone orca_0
wait "$pid"
rc=$?
sed 's/^/# hold: /' "$hold_out" >>"$ktap_out"
ok_if "the process saw IB_EVENT_DEVICE_FATAL" grep -q DEVICE_FATAL "$hold_out"
expect_eq "the process's commands fail after removal; it exits 0" "$rc" 0
ok_if "no warnings in dmesg" dmesg_quiet
ktap_done

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Userspace verbs objects outlived by their owner or by the driver:
# 1. A process with live PD, MRs, CQs, SRQ, RC and UD QPs, an AH and the
#    doorbell page mapped, in the middle of RDMA traffic, is killed with
#    SIGKILL: the adapter's live object counts return to what they were
#    before it started (the emulator logs them on "counts").
# 2. rmmod orca while such a process holds the device: rmmod completes,
#    the process sees IBV_EVENT_DEVICE_FATAL and can still release what it
#    holds; the adapter holds nothing after the driver's final reset (the
#    host side checks its log); no warning in dmesg.
. "$ORCA_TOP/selftests/lib/guest/guest.sh"
. "$ORCA_TOP/selftests/lib/guest/uverbs.sh"

holder=$top/selftests/user/build/uverbs_holder


rdma_up orca || ktap_done
gid=$(wait_gid orca_0 v4)
ok_if "orca_0: RoCE v2 IPv4 GID" test -n "$gid" || ktap_done

base=$(emu_counts)
ok_if "adapter reports its object counts" test -n "$base" || ktap_done
echo "# before: $base" >>"$ktap_out"

out=/tmp/holder-traffic.out
"$holder" traffic orca_0 "$gid" >"$out" 2>&1 &
pid=$!
ok_if "holder process: objects created, traffic flowing" \
	wait_for 60 grep -q ready "$out"
busy=$(emu_counts)
echo "# with the process: $busy" >>"$ktap_out"
for k in pd:1 mr:2 cq:2 qp:2 ah:1 srq:1 uar:1; do
	ok_if "the process holds ${k#*:} more ${k%:*}" test \
		"$(count_of "$busy" "${k%:*}")" -ge $(( $(count_of "$base" "${k%:*}") + ${k#*:} ))
done
kill -KILL "$pid"
wait "$pid" 2>/dev/null
settled() { [ "$(emu_counts)" = "$base" ]; }
ok_if "SIGKILL in mid-traffic: the adapter's objects return to $base" \
	wait_for 20 settled
echo "# after: $(emu_counts)" >>"$ktap_out"
ok_if "no warnings in dmesg after the kill" dmesg_quiet

out=/tmp/holder-fatal.out
"$holder" fatal orca_0 "$gid" >"$out" 2>&1 &
pid=$!
ok_if "second holder process ready" wait_for 60 grep -q ready "$out"
ok_if "rmmod orca while a process holds orca_0" timeout "$(scaled 60)" rmmod orca
ok_if "orca_0 gone" wait_for 10 rdma_gone orca_0
wait "$pid"
rc=$?
sed 's/^/# holder: /' "$out" >>"$ktap_out"
ok_if "the process saw IBV_EVENT_DEVICE_FATAL" grep -q 'event: local catastrophic error' "$out"
expect_eq "the process released everything and exited 0" "$rc" 0
ok_if "no warnings in dmesg" dmesg_quiet
ktap_done

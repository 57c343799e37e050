#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# An adapter that stops answering commands: the next command times out with
# -ETIMEDOUT, the driver reports IB_EVENT_DEVICE_FATAL, fails later commands
# fast, and still unloads without hanging.
. "$ORCA_TOP/selftests/guest/lib/guest.sh"

ok_if "orca module loads" orca_load || ktap_done
nd=$(orca_netdev)
echo > "$ktest_dir/events"
ok_if "emulator control file" test -w "${ORCA_CTL:-/nonexistent}"
echo hang >>"$ORCA_CTL"
sleep 1
# Adding an address makes the RDMA core add a GID: a SET_GID command.
ip addr add 10.8.0.1/24 dev "$nd"
fatal_seen() { [ "$(awk '/^device fatal /{print $NF}' "$ktest_dir/events")" -ge 1 ]; }
ok_if "DEVICE_FATAL event" wait_for 30 fatal_seen
# The RDMA core reports what the driver's add_gid returned.
gid_error() { dmesg | grep -q "unable to add gid .*error=$1"; }
ok_if "command failed with -ETIMEDOUT" wait_for 10 gid_error -110
ip addr add 10.8.0.2/24 dev "$nd"
ip addr del 10.8.0.2/24 dev "$nd"
# A dead device fails commands at once with -EIO instead of waiting for the
# command timeout (which would end in -ETIMEDOUT): only the first command,
# in flight when the firmware died, ever waited.
ok_if "later commands fail fast with -EIO" wait_for 15 gid_error -5
waited=$(dmesg | grep -cE 'orca.*command .*(not completed|timed out)')
expect_eq "only the in-flight command waited" "$waited" 1
start=$(date +%s)
ok_if "rmmod orca completes" timeout 60 rmmod orca
expect_eq "unload took < 30 s" "$(( $(date +%s) - start < 30 ))" 1
ok_if "orca_0 gone" sh -c "! test -e /sys/class/infiniband/orca_0"
dmesg | grep -i orca | tail -n 8 | sed 's/^/# /' >>"$ktap_out"
ktap_done

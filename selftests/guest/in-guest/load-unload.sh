#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Load and unload the orca driver 20 times with the adapter present: every
# cycle registers orca_0 and removes it, dmesg stays free of warnings, and
# the adapter holds no objects after the driver is gone (its firmware counts
# live objects; the driver resets it on remove).
. "$ORCA_TOP/selftests/lib/guest/guest.sh"

modprobe ib_core && modprobe ib_uverbs
fails=0
for i in $(seq 20); do
	insmod "$orca_ko" || { fails=$((fails + 1)); continue; }
	wait_for 20 sh -c 'rdma link show orca_0/1 | grep -q ACTIVE' || fails=$((fails + 1))
	rmmod orca || fails=$((fails + 1))
	[ -e /sys/class/infiniband/orca_0 ] && fails=$((fails + 1))
done
expect_eq "20 load/register/unload cycles" "$fails" 0
ok_if "module gone" sh -c "! grep -q '^orca ' /proc/modules"
ok_if "no warnings in dmesg" dmesg_quiet
dmesg | grep -i orca | tail -n 5 | sed 's/^/# /' >>"$ktap_out"
ktap_done

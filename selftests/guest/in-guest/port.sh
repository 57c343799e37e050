#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The RoCE port follows its netdev: link down/up moves the port DOWN/ACTIVE
# with PORT_ERR/PORT_ACTIVE events, and the netdev MTU sets the active MTU
# (largest IB MTU <= MTU - 80, as rxe).
. "$ORCA_TOP/selftests/guest/lib/guest.sh"

ok_if "orca module loads" orca_load || ktap_done
nd=$(orca_netdev)
# orca_ktest was loaded first: its add callback ran inside the device's
# registration, where a ULP such as ib_srpt reads GID 0 and gives up on
# the port without it.
ok_if "registration: the netdev is paired before the ULPs' add callbacks run" \
	grep -qx "netdev $nd" "$ktest_dir/at_add"
ok_if "registration: GID 0 is the link-local GID" \
	grep -q "^gid0 fe80:" "$ktest_dir/at_add"
sed 's/^/# at_add: /' "$ktest_dir/at_add" >>"$ktap_out"
ok_if "port ACTIVE at start" wait_for 10 sh -c "[ \$(awk '\$1==\"state\"{print \$2}' $ktest_dir/port) = 4 ]"
echo > "$ktest_dir/events"

port_state_is() { [ "$(ktest_port state)" = "$1" ]; }
ip link set "$nd" down
ok_if "link down: port DOWN" wait_for 10 port_state_is 1
ok_if "link down: PORT_ERR event" wait_for 5 sh -c "[ \$(awk '/^port error /{print \$NF}' $ktest_dir/events) -ge 1 ]"
ok_if "link down: rdma link says DOWN" sh -c "rdma link show orca_0/1 | grep -q 'state DOWN'"
ip link set "$nd" up
ok_if "link up: port ACTIVE" wait_for 10 port_state_is 4
ok_if "link up: PORT_ACTIVE event" wait_for 5 sh -c "[ \$(awk '/^port active /{print \$NF}' $ktest_dir/events) -ge 1 ]"

mtu_is() { [ "$(ktest_port active_mtu)" = "$1" ]; }
expect_eq "MTU 1500: active_mtu 1024" "$(ktest_port active_mtu)" 1024
for m in 9000:4096 4000:2048 1200:1024 1000:512 1500:1024; do
	ip link set "$nd" mtu "${m%:*}"
	ok_if "MTU ${m%:*}: active_mtu ${m#*:}" wait_for 5 mtu_is "${m#*:}"
done
expect_eq "max_mtu 4096" "$(ktest_port max_mtu)" 4096
ok_if "rdma statistic shows the adapter's counters" sh -c \
	"rdma statistic show link orca_0/1 | grep -q 'retransmits 0' &&
	 rdma statistic show link orca_0/1 | grep -q 'rx_drops'"
ok_if "no warnings in dmesg" sh -c "! dmesg | grep -E 'WARNING|BUG:|Oops|refcount_t'"
ktap_done

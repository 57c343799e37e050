#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The RoCE port follows its netdev: link down/up moves the port DOWN/ACTIVE
# with PORT_ERR/PORT_ACTIVE events, and the netdev MTU sets the active MTU
# (largest IB MTU <= MTU - 80, as rxe).
. "$ORCA_TOP/selftests/lib/guest/guest.sh"

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
	 rdma statistic show link orca_0/1 | grep -q 'rx_roce_discards'"

# The adapter is not trusted: malformed EQEs on every EQ (unknown types,
# numbers of no object) are counted and dropped, without a kernel warning.
drv_stat() { rdma statistic show link orca_0/1 | tr ' ' '\n' | grep -A1 -x "$1" | tail -1; }
echo garbage-eqe >>"${ORCA_CTL:?}"
ok_if "garbage EQEs: counted as driver_bad_eqes" \
	wait_for 10 sh -c "rdma statistic show link orca_0/1 | grep -Eq 'driver_bad_eqes [1-9]'"
echo "# after garbage-eqe: driver_bad_eqes $(drv_stat driver_bad_eqes), driver_stale_events $(drv_stat driver_stale_events)" >>"$ktap_out"
ok_if "garbage EQEs: port still ACTIVE" port_state_is 4

# Pairing is by the MAC the adapter reports, which the NIC keeps as its
# permanent address: changing the NIC's address neither unpairs the port
# nor stops a reload from finding it.  (rxe is paired by name, mlx5 by
# its PCI function.)  The GIDs follow the netdev, as on rxe.
gids() { cat /sys/class/infiniband/orca_0/ports/1/gids/[0-3] 2>/dev/null | tr '\n' ' '; }
mac=$(cat "/sys/class/net/$nd/address")
echo "# before: $nd $mac, GIDs $(gids)" >>"$ktap_out"
ok_if "MAC change: ip link set address" ip link set "$nd" address 02:0e:ca:00:00:01
ok_if "MAC change: orca_0 still paired with $nd" sh -c "rdma link show orca_0/1 | grep -Eq 'netdev $nd( |\$)'"
ok_if "MAC change: port ACTIVE" wait_for 10 port_state_is 4
echo "# MAC changed: GIDs $(gids)" >>"$ktap_out"
ok_if "MAC change: rmmod orca" rmmod orca
ok_if "MAC change: orca reloads" orca_load
ok_if "MAC change: the reloaded orca_0 is paired with $nd" \
	wait_for 10 sh -c "rdma link show orca_0/1 | grep -Eq 'netdev $nd( |\$)'"
ok_if "MAC change: reloaded port ACTIVE" wait_for 10 port_state_is 4
ip link set "$nd" address "$mac"
ok_if "MAC restored: orca_0 still paired with $nd" sh -c "rdma link show orca_0/1 | grep -Eq 'netdev $nd( |\$)'"
echo "# MAC restored: GIDs $(gids)" >>"$ktap_out"
ok_if "no warnings in dmesg" dmesg_quiet
ktap_done

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Two guests whose adapters, wire and QEMU options came from the packaged
# orca-launch (91-launch): the adapter is there, its port pairs with the
# NIC the launcher gave the guest (same MAC), and RDMA traffic between the
# guests arrives intact (ibv_rc_pingpong -c), with its setup over that NIC:
# the TCP exchange of QP numbers and GIDs, and the peer's MAC from the
# netdev's neighbour table.
. "$ORCA_TOP/selftests/lib/guest/guest.sh"
. "$ORCA_TOP/selftests/lib/guest/uverbs.sh"

ok_if "the adapter is a PCI function (1234:0dca)" sh -c \
	'grep -qix "0x0dca" /sys/bus/pci/devices/*/device'
rdma_up orca || ktap_done
ok_if "orca_0 paired with eth0 (the launcher's NIC)" \
	test "$(orca_netdev)" = eth0
gid=$(wait_gid orca_0 v4)
ok_if "orca_0: RoCE v2 IPv4 GID" test -n "$gid" || ktap_done
srv=
[ "$gi" = 1 ] && srv=$uverbs_srv_ip
pair_case "ibv_rc_pingpong -c" 90 "tcp_listening 18515" \
	"ibv_rc_pingpong -d orca_0 -i 1 -g $gid -p 18515 -c -n 100 -s 4096" \
	"ibv_rc_pingpong -d orca_0 -i 1 -g $gid -p 18515 -c -n 100 -s 4096 $srv"
barrier launch-done 60
rdma_down orca
ok_if "no warnings in dmesg" dmesg_quiet
ktap_done

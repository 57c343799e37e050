# SPDX-License-Identifier: GPL-2.0
#
# Sourced, after lib/host/host.sh, by the guest tests whose two guests are
# on two switches joined only through their uplinks (issue 33):
#
#   fabric_up       a network namespace with a Linux bridge, and two veth
#                   pairs, each with one end in the bridge and the other
#                   here: $fabric_if0 and $fabric_if1, the switches'
#                   --uplink interfaces (MTU 9000, no addresses); removed
#                   when the test exits
#   fabric_checks   after the run: each switch took frames from its uplink
#                   and sent frames to it, and dropped none there, in
#                   either direction (the exit lines of run/wire.log and
#                   run/wire1.log)
#
# Needs root, as the guests do.  nsenter enters only the namespace's
# network: "ip netns exec" remounts /sys, which the toolroot's chroot may
# not allow.
fabric_ns=orca-fabric-$$
fabric_if0=of$(($$ % 1000000))a
fabric_if1=of$(($$ % 1000000))b

fabric_down() {
	ip link del "$fabric_if0" 2>/dev/null
	ip link del "$fabric_if1" 2>/dev/null
	ip netns del "$fabric_ns" 2>/dev/null
	return 0
}

fabric_up() {
	local i
	trap fabric_down EXIT
	ip netns add "$fabric_ns" || return 1
	for i in 0 1; do
		local ifn=fabric_if$i
		ip link add "${!ifn}" mtu 9000 type veth peer name "p$i" mtu 9000 &&
			ip link set "p$i" netns "$fabric_ns" &&
			ip link set "${!ifn}" addrgenmode none &&
			ip link set "${!ifn}" up || return 1
	done
	nsenter --net="/run/netns/$fabric_ns" sh -c '
		ip link add br0 mtu 9000 type bridge &&
		ip link set p0 master br0 && ip link set p1 master br0 &&
		ip link set br0 up && ip link set p0 up && ip link set p1 up'
}

fabric_count() { sed -n "s/.* $2 \([0-9]*\).*/\1/p" <<<"$1"; }

fabric_checks() {
	local i log line rx tx dropped
	for i in 0 1; do
		log=$out/run/wire.log
		[ "$i" = 1 ] && log=$out/run/wire1.log
		line=$(grep 'exit: uplink ' "$log" 2>/dev/null | tail -n 1)
		echo "# switch $i: ${line#*exit: }"
		rx=$(fabric_count "$line" rx)
		tx=$(fabric_count "$line" tx)
		# Dropped on the way out / on the way in: both must be 0.
		dropped=$(fabric_count "$line" uplink_dropped)/$(fabric_count "$line" uplink_rx_dropped)
		if [ "${rx:-0}" -gt 0 ] && [ "${tx:-0}" -gt 0 ] && [ "$dropped" = 0/0 ]; then
			host_result OK "switch $i: frames in and out through its uplink, none dropped there"
		else
			host_result FAIL "switch $i: frames in and out through its uplink, none dropped there"
		fi
	done
}

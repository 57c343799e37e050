#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In each guest: the ORCA PCI function is there with its BARs and MSI-X,
# the orca driver binds it, orca_0 is ACTIVE on the paired netdev, and the
# RoCE v2 GID table holds (and follows) the netdev's IP addresses.
. "$ORCA_TOP/selftests/lib/guest/guest.sh"

n=$((gi + 1))
bdf=$(lspci -D -n -d 1234:0dca | awk '{ print $1 }' | head -n1)
ok_if "PCI function 1234:0dca present" test -n "$bdf"
res=/sys/bus/pci/devices/$bdf/resource
bar_size() {
	# shellcheck disable=SC2046 # "start end flags" of line BAR+1
	set -- $(sed -n "$(($1 + 1))p" "$res")
	echo $(($2 - $1 + 1))
}
expect_eq "BAR0 (registers) is 4 KiB" "$(bar_size 0)" 4096
expect_eq "BAR2 (MSI-X) is 4 KiB" "$(bar_size 2)" 4096
expect_eq "BAR4 (UAR pages) is 1 MiB" "$(bar_size 4)" 1048576
ok_if "MSI-X capability" sh -c "lspci -vv -s $bdf | grep -q 'MSI-X: Enable. Count='"

ok_if "orca module loads" orca_load
ok_if "lspci -k: orca driver in use" sh -c "lspci -k -s $bdf | grep -q 'Kernel driver in use: orca'"
ok_if "MSI-X enabled by the driver" sh -c "lspci -vv -s $bdf | grep -q 'MSI-X: Enable+'"
lspci -k -s "$bdf" | sed 's/^/# /' >>"$ktap_out"
rdma link show | sed 's/^/# /' >>"$ktap_out"

nd=$(orca_netdev)
ok_if "orca_0 paired with a netdev" test -n "$nd"
ok_if "orca_0/1 ACTIVE, LINK_UP" wait_for 10 sh -c \
	"rdma link show orca_0/1 | grep -q 'state ACTIVE physical_state LINK_UP'"

gids=/sys/class/infiniband/orca_0/ports/1/gids
types=/sys/class/infiniband/orca_0/ports/1/gid_attrs/types
# has_gid GID: the table holds GID with type RoCE v2.
has_gid() {
	local f i
	for f in "$gids"/*; do
		i=${f##*/}
		[ "$(cat "$f")" = "$1" ] && [ "$(cat "$types/$i" 2>/dev/null)" = "RoCE v2" ] && return 0
	done
	return 1
}
v4gid() { printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' $(echo "$1" | tr . ' '); }
ok_if "GID table: IPv4 10.0.0.$n" wait_for 10 has_gid "$(v4gid 10.0.0.$n)"
ok_if "GID table: IPv6 fd00::$n" wait_for 10 has_gid "$(printf 'fd00:0000:0000:0000:0000:0000:0000:%04x' $n)"
ip addr add 10.9.0.$n/24 dev "$nd"
ok_if "GID added with ip addr add" wait_for 10 has_gid "$(v4gid 10.9.0.$n)"
ip addr del 10.9.0.$n/24 dev "$nd"
lacks_gid() { ! has_gid "$1"; }
ok_if "GID removed with ip addr del" wait_for 10 lacks_gid "$(v4gid 10.9.0.$n)"

# A normal system for third-party suites run as they are (make blktests):
# what guest-init.sh sets up in place of udev and systemd, and the tools
# of the toolroot blktests' harness calls.  Guest 0 only: it costs time.
if [ "$gi" = 0 ]; then
	ok_if "system: /dev/fd (process substitution), /dev/stdin" bash -c \
		'[ "$(cat <(echo fd))" = fd ] && [ "$(echo in | cat /dev/stdin)" = in ]'
	ok_if "system: configfs mounted at boot" \
		grep -q '^configfs /sys/kernel/config configfs ' /proc/mounts
	loop_io() {
		local img=/tmp/loop-check.img dev rc
		truncate -s 8M "$img" && dev=$(losetup -f --show "$img") || return 1
		xfs_io -d -c 'pwrite -q -S 0x5a 0 64k' "$dev" &&
			od -An -v -tx1 -N65536 "$img" |
			gawk '{ for (i = 1; i <= NF; i++) if ($i != "5a") bad = 1 } END { exit bad }'
		rc=$?
		losetup -d "$dev"
		rm -f "$img"
		return $rc
	}
	ok_if "system: losetup -f on /tmp, xfs_io and gawk" loop_io
	# No udev: sd_mod is loaded by hand (blktests' _have_driver does).
	sd_model() { grep -ls '^scsi_debug' /sys/block/sd*/device/model; }
	scsi_debug_disk() {
		local rc d
		modprobe -a sd_mod scsi_debug null_blk &&
			wait_for 10 test -b /dev/nullb0 && wait_for 10 sd_model
		rc=$?
		d=$(sd_model | head -n 1 | cut -d/ -f4)
		[ $rc = 0 ] && { test -b "/dev/$d" || { echo "no /dev/$d"; rc=1; }; }
		modprobe -r scsi_debug null_blk
		return $rc
	}
	ok_if "system: scsi_debug and null_blk block devices" scsi_debug_disk
fi

# The wire: the other guest answers through both adapters' ports.
if [ "${ORCA_GUEST_COUNT:-1}" -gt 1 ]; then
	peer=$(( (gi + 1) % ORCA_GUEST_COUNT + 1 ))
	ok_if "ping 10.0.0.$peer over the wire" wait_for 20 busybox ping -c 1 -W 2 10.0.0.$peer
	# Stay up until every guest has had its turn.
	ok_if "all guests reached the end" barrier end 60
fi
ktap_done

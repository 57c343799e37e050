#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# One guest: what a user sees of orca_0 through libibverbs and the ORCA
# provider.  ibv_devices lists it; ibv_devinfo -v shows the port ACTIVE on
# an Ethernet link layer with the active MTU of the netdev, a firmware
# version, the RoCE v2 GIDs of the netdev's addresses, and the very
# capabilities the kernel holds for the device (the orca_ktest observer
# prints the core's ib_device attributes under the names ibv_devinfo uses),
# CQ moderation caps included; ibv_modify_cq on a CQ with traffic; and
# ibv_reg_mr of half the guest's free memory while the kernel's memory is
# fragmented, written all over through the adapter (big_user_mr); the
# ibv_wr_* post API of extended QPs (qp_ex).
. "$ORCA_TOP/selftests/lib/guest/guest.sh"
. "$ORCA_TOP/selftests/lib/guest/uverbs.sh"

rdma_up orca || ktap_done
wait_gid orca_0 v6 >/dev/null
ok_if "ibv_devices lists orca_0" sh -c "ibv_devices | grep -qw orca_0"
info=$(ibv_devinfo -d orca_0 -v 2>&1)
ok_if "ibv_devinfo -d orca_0 -v" test $? = 0 || ktap_done
echo "$info" | sed 's/^/# /' >>"$ktap_out"
# The value of "key:" in ibv_devinfo's output (first occurrence).
field() { echo "$info" | awk -F':[ \t]*' -v k="$1" '$1 ~ "^[ \t]*" k "$" { print $2; exit }'; }

expect_eq "hca_id" "$(echo "$info" | sed -n 's/^hca_id:[ \t]*//p')" orca_0
expect_eq "transport" "$(field transport)" "InfiniBand (0)"
expect_eq "port state" "$(field state)" "PORT_ACTIVE (4)"
expect_eq "link_layer" "$(field link_layer)" Ethernet
expect_eq "active_mtu (netdev MTU 1500)" "$(field active_mtu)" "1024 (3)"
expect_eq "max_mtu" "$(field max_mtu)" "4096 (5)"
expect_eq "phys_port_cnt" "$(field phys_port_cnt)" 1
fw=$(field fw_ver)
ok_if "fw_ver reported ($fw)" sh -c "[ -n '$fw' ] && [ '$fw' != 0.0.000 ]"
sysfs_fw=$(cat /sys/class/infiniband/orca_0/fw_ver)
expect_eq "fw_ver as in sysfs" "$fw" "$sysfs_fw"
ok_if "GID table: RoCE v2 10.0.0.$((gi + 1))" sh -c \
	"echo '$info' | grep -qE 'GID\[ *[0-9]+\]:[[:space:]]+::ffff:10\.0\.0\.$((gi + 1)), RoCE v2'"
ok_if "GID table: RoCE v2 fd00::$((gi + 1))" sh -c \
	"echo '$info' | grep -qE 'GID\[ *[0-9]+\]:[[:space:]]+fd00::$((gi + 1)), RoCE v2'"

kdev=$ktest_dir/device
ok_if "the kernel's device attributes (orca_ktest)" grep -q max_qp "$kdev" || ktap_done
while read -r key want; do
	got=$(field "$key")
	case $key in
	atomic_cap) got=${got##*(}; got=${got%)} ;;
	vendor_part_id | max_mr_size) ;;
	max_cq_period) got=${got% us} ;;
	esac
	expect_eq "$key as the kernel reports it" "$got" "$want"
done <"$kdev"
ok_if "atomics advertised (ATOMIC_HCA)" sh -c "echo '$info' | grep -q 'atomic_cap:.*ATOMIC_HCA'"
# CQ event moderation from userspace: ibv_modify_cq through the provider
# and uverbs' modify_cq (limits refused above the caps, 64 receives with
# count 16 bring at most 5 events, every byte checked).
gidx=$(wait_gid orca_0 v4)
modout=$("$top/selftests/user/build/cq_moderation" orca_0 "$gidx" 2>&1)
ok_if "ibv_modify_cq: CQ event moderation" test $? = 0
echo "$modout" | sed 's/^/# /' >>"$ktap_out"
# The extended QP post API: ibv_create_qp_ex with send_ops_flags and every
# ibv_wr_* the provider has, on RC (loopback through the device's own GID)
# and UD, bytes, immediates and atomic results checked, wr_abort and an
# error between wr_start and wr_complete posting nothing (selftests/user/qp_ex.c).
qpexout=$("$top/selftests/user/build/qp_ex" orca_0 "$gidx" 2>&1)
ok_if "ibv_wr_* post API on RC and UD (qp_ex)" test $? = 0
echo "$qpexout" | sed 's/^/# /' >>"$ktap_out"

# A user MR as large as the guest allows, on fragmented memory: orca_kverbs
# holds every free block of 64 KiB or more (selftests/kmod/kverbs_frag.c)
# while big_user_mr registers half of the available memory in 4 KiB pages,
# RDMA-WRITEs all of it and checks every byte.  Its page list (8 bytes a
# page) is far larger than any free block: the driver builds it from
# single pages, a chained list.  rdma resource show mr -dd must show that
# many entries.
big_run=/sys/kernel/debug/orca_kverbs/run
big_out=/tmp/big-user-mr.out
big_release=/tmp/big-user-mr.release
big_held() { grep -q '^holding' "$big_out" || ! kill -0 "$big_pid" 2>/dev/null; }
rm -f "$big_release"
if ok_if "orca_kverbs module loads" \
	insmod "$kmod_dir/selftests/kmod/orca_kverbs.ko"; then
	big_frag=0
	ok_if "memory fragmented: no free block of 64 KiB or more" \
		sh -c "echo frag-hold >$big_run" && big_frag=1
	sed 's/^/# /' "$big_run" >>"$ktap_out"
	"$top/selftests/user/build/big_user_mr" orca_0 "$gidx" 0 \
		"$big_release" >"$big_out" 2>&1 &
	big_pid=$!
	wait_for 600 big_held
	big_len=$(sed -n 's/^holding mrlen=//p' "$big_out")
	big_mr=
	if [ -n "$big_len" ] && rdma -j -dd resource show mr >/tmp/big-mr.json; then
		big_mr=$(python3 "$top/selftests/lib/guest/rdma_json.py" \
			/tmp/big-mr.json mrlen="$big_len" -- drv_type \
			drv_page_size drv_npages)
	fi
	touch "$big_release"
	wait "$big_pid"
	big_rc=$?
	sed 's/^/# /' "$big_out" >>"$ktap_out"
	expect_eq "big_user_mr: ibv_reg_mr of half the free memory on fragmented memory, written and checked" \
		"$big_rc" 0
	set -- ${big_mr:-- - -}
	ok_if "its page list: more entries than the largest free block holds (${big_mr:-none})" \
		test "$1" = user -a "${3//-/0}" -gt $((15 * 4096 / 8))
	[ "$big_frag" = 0 ] ||
		ok_if "memory given back" sh -c "echo frag-release >$big_run"
	ok_if "rmmod orca_kverbs" rmmod orca_kverbs
fi
rdma_down orca
ok_if "no warnings in dmesg" dmesg_quiet
ktap_done

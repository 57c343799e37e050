#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# One guest: what a user sees of orca_0 through libibverbs and the ORCA
# provider.  ibv_devices lists it; ibv_devinfo -v shows the port ACTIVE on
# an Ethernet link layer with the active MTU of the netdev, a firmware
# version, the RoCE v2 GIDs of the netdev's addresses, and the very
# capabilities the kernel holds for the device (the orca_ktest observer
# prints the core's ib_device attributes under the names ibv_devinfo uses),
# CQ moderation caps included; ibv_modify_cq on a CQ with traffic; the
# extended CQ against ibv_poll_cq (cq_ex); and
# ibv_reg_mr of half the guest's free memory while the kernel's memory is
# fragmented, written all over through the adapter (big_user_mr); the
# ibv_wr_* post API of extended QPs (qp_ex); the
# port's PMA (pma_query, sysfs counters/) with counters that move with
# traffic.
# provider_races: CQ resizes and QPN reuse by threads of one process;
# provider_limits: MR rights and queue depths refused, a refused destroy;
# srq_resize: ibv_modify_srq(IBV_SRQ_MAX_WR) with receives posted;
# async_event: the provider's async_event op after a QP access error.
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
# The extended CQ: RC SEND, WRITE, READ, atomics and immediates through
# ibv_create_cq_ex's start_poll and every wc_read_* the provider offers,
# field for field as ibv_poll_cq reports the same traffic; the CQ through
# ibv_cq_ex_to_cq (an event, a resize); a parent domain's thread domain
# and allocators; READ and atomic byte_len as ibv_poll_cq(3) says.
cqexout=$("$top/selftests/user/build/cq_ex" orca_0 "$gidx" 2>&1)
ok_if "ibv_create_cq_ex: every field as ibv_poll_cq's" test $? = 0
echo "$cqexout" | sed 's/^/# /' >>"$ktap_out"
# The extended QP post API: ibv_create_qp_ex with send_ops_flags and every
# ibv_wr_* the provider has, on RC (loopback through the device's own GID)
# and UD, bytes, immediates and atomic results checked, wr_abort and an
# error between wr_start and wr_complete posting nothing (selftests/user/qp_ex.c).
qpexout=$("$top/selftests/user/build/qp_ex" orca_0 "$gidx" 2>&1)
ok_if "ibv_wr_* post API on RC and UD (qp_ex)" test $? = 0
echo "$qpexout" | sed 's/^/# /' >>"$ktap_out"

# The port's Performance Management Agent (the driver's process_mad).
# perfquery (infiniband-diags 56.1) cannot open a RoCE port (it registers
# an SMI agent, which needs QP0, and addresses the port by LID without a
# GRH); pma_query asks what perfquery asks, through umad over QP1 with a
# GRH to the port's own IPv6 GID (the kernel's MAD layer matches a response
# to its request by GRH GIDs, which RoCEv2 over IPv4 does not carry):
# ClassPortInfo (64-bit counters), PortCounters, PortCountersExtended and
# the refusals.  Their counters, and the core's sysfs counters/ (which ask
# process_mad directly), grow by at least a loopback ibv_rc_pingpong's
# traffic: 2 x 20 messages of 4096 bytes, 4 packets each at MTU 1024.
pma_query=$top/selftests/user/build/pma_query
pma_sys=/sys/class/infiniband/orca_0/ports/1/counters
gid6=$(wait_gid orca_0 v6)
# pma_field OUTPUT NAME: the value of "NAME:N" in pma_query's OUTPUT.
pma_field() { echo "$1" | sed -n "s/^$2://p"; }
pma_sysfs() { cat "$pma_sys/port_xmit_data" "$pma_sys/port_rcv_data" \
	"$pma_sys/port_xmit_packets" "$pma_sys/port_rcv_packets" | tr '\n' ' '; }
if ok_if "ib_umad loads" modprobe ib_umad; then
	pma0=$("$pma_query" orca_0 "$gid6" 2>&1)
	ok_if "PMA over QP1: ClassPortInfo, PortCounters, PortCountersExtended, refusals" \
		test $? = 0
	echo "$pma0" | sed 's/^/# /' >>"$ktap_out"
	read -ra sys0 <<<"$(pma_sysfs)"
	timeout "$(scaled 60)" ibv_rc_pingpong -d orca_0 -i 1 -g "$gidx" \
		-p 18611 -c -n 20 -s 4096 >/tmp/pma-pp-srv 2>&1 &
	pp_pid=$!
	wait_for 20 tcp_listening 18611
	timeout "$(scaled 60)" ibv_rc_pingpong -d orca_0 -i 1 -g "$gidx" \
		-p 18611 -c -n 20 -s 4096 127.0.0.1 >/tmp/pma-pp-cli 2>&1
	pp_rc=$?
	wait "$pp_pid" || pp_rc=1
	ok_if "loopback ibv_rc_pingpong -c (20 x 4096 bytes)" test "$pp_rc" = 0
	pma1=$("$pma_query" orca_0 "$gid6" 2>&1)
	ok_if "PMA over QP1 after the traffic" test $? = 0
	echo "$pma1" | sed 's/^/# /' >>"$ktap_out"
	read -ra sys1 <<<"$(pma_sysfs)"
	echo "# sysfs counters before: ${sys0[*]}; after: ${sys1[*]}" >>"$ktap_out"
	for f in PortXmitData PortRcvData xPortXmitData xPortRcvData; do
		d=$(($(pma_field "$pma1" $f) - $(pma_field "$pma0" $f)))
		ok_if "$f grew by $d 4-byte words (>= 40960)" test "$d" -ge 40960
	done
	for f in PortXmitPkts PortRcvPkts xPortXmitPkts xPortRcvPkts \
		xPortUnicastXmitPkts xPortUnicastRcvPkts; do
		d=$(($(pma_field "$pma1" $f) - $(pma_field "$pma0" $f)))
		ok_if "$f grew by $d (>= 160)" test "$d" -ge 160
	done
	ok_if "sysfs counters/port_xmit_data, port_rcv_data grew by >= 40960" \
		test $((sys1[0] - sys0[0])) -ge 40960 -a \
		$((sys1[1] - sys0[1])) -ge 40960
	ok_if "sysfs counters/port_xmit_packets, port_rcv_packets grew by >= 160" \
		test $((sys1[2] - sys0[2])) -ge 160 -a $((sys1[3] - sys0[3])) -ge 160
	modprobe -r ib_umad
fi

# The provider's own state under threads of one process: a CQ resized by
# two threads under traffic, polls and QP destroys; QPs created and
# destroyed by threads while the adapter reuses their QPNs at once.
raceout=$("$top/selftests/user/build/provider_races" orca_0 "$gidx" 2>&1)
rc=$?
echo "$raceout" | sed 's/^/# /' >>"$ktap_out"
echo "$raceout" | grep '^not ok' | sed 's/^/# /'
expect_eq "provider_races: resize and QPN races" "$rc" 0

# A user SRQ resized with receives posted: they complete in order, with
# their bytes, on the new ring; a depth below them is refused.
srqout=$("$top/selftests/user/build/srq_resize" orca_0 "$gidx" 2>&1)
rc=$?
echo "$srqout" | sed 's/^/# /' >>"$ktap_out"
echo "$srqout" | grep '^not ok' | sed 's/^/# /'
expect_eq "srq_resize: a user SRQ grows and shrinks with receives posted" "$rc" 0

# The provider follows the adapter's async events: a QP the adapter moved
# to ERR (a remote write its access refused) takes sends and flushes them.
asyncout=$("$top/selftests/user/build/async_event" orca_0 "$gidx" 2>&1)
rc=$?
echo "$asyncout" | sed 's/^/# /' >>"$ktap_out"
echo "$asyncout" | grep '^not ok' | sed 's/^/# /'
expect_eq "async_event: the provider follows a QP the adapter moved to ERR" "$rc" 0

# What the driver and the provider refuse: MR rights the adapter lacks
# (EOPNOTSUPP), queues deeper than max_qp_wr/max_srq_wr (<= 65536).  Then a
# DESTROY_CQ the adapter refuses: traffic on new queues still completes,
# and the context goes without a warning (its doorbell page unlisted).
limout=$("$top/selftests/user/build/provider_limits" orca_0 "$gidx" 2>&1)
rc=$?
echo "$limout" | sed 's/^/# /' >>"$ktap_out"
echo "$limout" | grep '^not ok' | sed 's/^/# /'
expect_eq "provider_limits: MR rights and queue depths refused" "$rc" 0
emu_log=$ORCA_RUN_DIR/g$gi/emu.log
armed() { grep -q 'ctl: fail-destroy 1$' "$emu_log"; }
echo "fail-destroy 1" >>"${ORCA_CTL:?}"
if ok_if "the adapter will refuse the next destroy" wait_for 10 armed; then
	limout=$("$top/selftests/user/build/provider_limits" orca_0 "$gidx" refused 2>&1)
	rc=$?
	echo "$limout" | sed 's/^/# /' >>"$ktap_out"
	echo "$limout" | grep '^not ok' | sed 's/^/# /'
	expect_eq "provider_limits: traffic after a refused DESTROY_CQ" "$rc" 0
	ok_if "the adapter refused DESTROY_CQ" \
		grep -q 'fail-destroy: command 0x2a on handle [0-9]* refused' "$emu_log"
	ok_if "no warnings in dmesg after the refused destroy" dmesg_quiet
fi
echo "fail-destroy 0" >>"$ORCA_CTL"

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

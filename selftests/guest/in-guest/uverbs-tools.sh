#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The libibverbs and librdmacm example programs between two guests, through
# the userspace provider's kernel-bypass data path: guest 0 the server on
# SERVER_KIND, guest 1 the client on CLIENT_KIND (orca or rxe).
#   ibv_rc_pingpong (polling and with completion events), ibv_ud_pingpong,
#   ibv_srq_pingpong, ibv_uc_pingpong, each with -c and a RoCE v2 GID;
#   ibv_xsrq_pingpong (XRC) between two ORCA guests;
#   RDMA FLUSH and ATOMIC WRITE to guest 0 (flush_atomic_write);
#   dma-buf MRs (dmabuf_mr): udmabuf on ORCA, an ordinary MR on rxe;
#   rping -V (every byte of every ping compared) over IPv4 and IPv6;
#   ucmatose; udaddy; mckey (rdma_cm UD multicast) to guest 0, and to
#   guest 1 between kinds.
# Usage: uverbs-tools.sh SERVER_KIND CLIENT_KIND
. "$ORCA_TOP/selftests/lib/guest/guest.sh"
. "$ORCA_TOP/selftests/lib/guest/uverbs.sh"

kind=${1:?server kind}
[ "$gi" = 1 ] && kind=${2:?client kind}
rdma_up "$kind" || ktap_done
dev=$rdma_dev
# rxe receives multicast through virtio-net, whose multicast filter
# follows the join (rxe's dev_mc_add) only when virtio_net's deferred
# rx_mode work has run: under load the first datagrams of mckey's sender
# can come before it and QEMU drops them, uncounted.  ORCA's port takes
# its groups' frames itself.  Accept all multicast long before mckey.
[ "$kind" = rxe ] && ip link set eth0 allmulticast on
gid=$(wait_gid "$dev" v4)
ok_if "$dev: RoCE v2 IPv4 GID" test -n "$gid" || ktap_done
srv=
[ "$gi" = 1 ] && srv=$uverbs_srv_ip

pp() {	# pp NAME PORT TOOL ARGS...: one pingpong case
	local name=$1 port=$2 tool=$3
	shift 3
	pair_case "$name" 90 "tcp_listening $port" \
		"$tool -d $dev -i 1 -g $gid -p $port $*" \
		"$tool -d $dev -i 1 -g $gid -p $port $* $srv"
}
pp "ibv_rc_pingpong -c" 18515 ibv_rc_pingpong -c -n 200 -s 4096
pp "ibv_rc_pingpong -c -e (completion events)" 18516 ibv_rc_pingpong -c -e -n 200 -s 1024
pp "ibv_ud_pingpong -c" 18517 ibv_ud_pingpong -c -n 200 -s 512
pp "ibv_srq_pingpong -c" 18518 ibv_srq_pingpong -c -q 4 -n 200 -s 1024
pp "ibv_uc_pingpong -c" 18519 ibv_uc_pingpong -c -n 100 -s 4096
# XRC (IBA 1.2 Annex A14) between two ORCA guests (rxe has none): each
# side's initiator QP sends to the other's XRC SRQ by number through its
# target QP; the tool checks statuses and that each receive names a
# target QP of its own, not the bytes (xrc_shared in 70 does).
[ "$1" = orca ] && [ "$2" = orca ] &&
	pp "ibv_xsrq_pingpong" 18521 ibv_xsrq_pingpong -n 100 -s 1024

# IBA 1.5's RDMA FLUSH and ATOMIC WRITE, requests from guest 1 to guest
# 0's MRs, bytes checked there (selftests/user/flush_atomic_write.c).  To
# an rxe server without FLUSH (-F): rxe drops a FLUSH whose ICRC is the
# IBA's; ORCA takes rxe's and sends the IBA's.
faw=$ORCA_TOP/selftests/user/build/flush_atomic_write
fawopt=
[ "$1" = rxe ] && fawopt=-F
pair_case "FLUSH and ATOMIC WRITE" 90 "tcp_listening 18520" \
	"$faw $dev $gid 18520" "$faw $fawopt $dev $gid 18520 $uverbs_srv_ip"

# dma-buf MRs (selftests/user/dmabuf_mr.c): an ORCA guest registers a
# udmabuf (a memfd's pages as a dma-buf) with ibv_reg_dmabuf_mr, an rxe
# guest (no dma-buf MRs) its memfd with ibv_reg_mr (-p); RDMA WRITE, READ
# and SEND each way, every byte checked in the memfd, the errors of bad
# registrations, and the MR deregistered while the peer writes to it.
# Each of the program's KTAP cases is one here (dmabuf/...).
dmb=$ORCA_TOP/selftests/user/build/dmabuf_mr
dmbopt=
if [ "$kind" = rxe ]; then
	dmbopt=-p
else
	# Built into Debian's kernel (CONFIG_UDMABUF=y); a module elsewhere.
	modprobe udmabuf 2>/dev/null
	ok_if "/dev/udmabuf exists" test -c /dev/udmabuf
fi
pair_case "dma-buf MRs" 90 "tcp_listening 18521" \
	"$dmb $dmbopt $dev $gid 18521" "$dmb $dmbopt $dev $gid 18521 $uverbs_srv_ip"
uverbs_ktap_relay dmabuf "$(uverbs_log "dma-buf MRs")"

pair_case "rping -V IPv4" 90 "cm_listening 7174" \
	"rping -s -a $uverbs_srv_ip -C 20 -S 4096 -V" \
	"rping -c -a $uverbs_srv_ip -C 20 -S 4096 -V"
ok_if "$dev: RoCE v2 IPv6 GID" wait_gid "$dev" v6
pair_case "rping -V IPv6" 90 "cm_listening 7174" \
	"rping -s -a $uverbs_srv_ip6 -C 20 -S 4096 -V" \
	"rping -c -a $uverbs_srv_ip6 -C 20 -S 4096 -V"
pair_case "ucmatose" 90 "cm_listening 7471" \
	"ucmatose -C 20 -S 1024" \
	"ucmatose -s $uverbs_srv_ip -C 20 -S 1024"
pair_case "udaddy" 90 "cm_listening 7174" \
	"udaddy -C 20 -S 512" \
	"udaddy -s $uverbs_srv_ip -C 20 -S 512"

# mckey: guest RECV joins 239.255.0.1 and waits for 10 datagrams of 512
# bytes (mckey polls exactly that many completions: one lost or not
# delivered is a timeout); the other joins, then sends them to the group.
# mckey's sender posts its 10 sends and, without polling for their
# completions, leaves the group and destroys its AH and QP.  An adapter
# transmits them first; rxe in a TCG guest is often still at the first
# few, and drops the rest (its debug log: "Unable to find AH matching
# ah_num"; its sent_pkts counts what left).  So an rxe sender runs again
# (at most 5 times) until the receiver has its 10: each run's datagrams
# are the receiver's to take, and the log says how many runs it took.
mc_recv() {
	local name=$1 log pid rc
	log=$(uverbs_log "$name")
	timeout "$(scaled 90)" stdbuf -oL mckey -m 239.255.0.1 -b "10.0.0.$((gi + 1))" \
		-C 10 -S 512 >"$log" 2>&1 &
	pid=$!
	if ! wait_for 30 grep -q 'joined dgid' "$log"; then
		flag_set "$name-failed"
		kill "$pid" 2>/dev/null
		wait "$pid"
		echo "receiver did not join"
		tail -n 20 "$log"
		return 1
	fi
	flag_set "$name"
	wait "$pid"
	rc=$?
	flag_set "$name-received"
	grep -q 'data transfers complete' "$log" || rc=1
	_pair_finish "$log" "$rc"
}
mc_send() {
	local name=$1 log rc runs=0 sent0 sent
	log=$(uverbs_log "$name")
	flag_wait 120 "$name" "$name-failed" || {
		echo "receiver of $name not ready"
		return 1
	}
	sent0=$(port_stat "$dev" sent_pkts)
	: >"$log"
	while :; do
		runs=$((runs + 1))
		timeout "$(scaled 60)" stdbuf -oL mckey -m 239.255.0.1 -b "10.0.0.$((gi + 1))" \
			-s -C 10 -S 512 >>"$log" 2>&1
		rc=$?
		grep -q 'data transfers complete' "$log" || rc=1
		[ "$kind" = rxe ] && [ "$rc" = 0 ] && [ "$runs" -lt 5 ] || break
		flag_wait 10 "$name-received" && break
	done
	sent=$(($(port_stat "$dev" sent_pkts) - sent0))
	echo "# $name: $kind sender, $runs run(s) of mckey -s, $sent packets sent" |
		tee -a "$log" >>"$ktap_out"
	# A run again sends past the receiver's 10: those that arrive after
	# its last find no receive WQE, which the host's loss-free check
	# must not count (lib/host/wire_lossfree.py, ud-surplus).
	[ "$runs" -gt 1 ] && [ "$sent" -gt 10 ] &&
		echo $((sent - 10)) >>"$ORCA_RUN_DIR/ud-surplus"
	_pair_finish "$log" "$rc"
}
# mc_diag NAME: this guest's netdev packet counts and its RDMA device's
# counters (rxe's send errors, ORCA's drops) after NAME, in the log: an
# ORCA receiver once got 1 of an rxe sender's 10 datagrams, the wire and
# both adapters' counters clean.
mc_diag() {
	{ ip -s link show eth0 | awk -v n="$1" '
		/RX:/ { getline; rx = $2 " packets, " $4 " dropped, " $6 " multicast" }
		/TX:/ { getline; tx = $2 " packets, " $4 " dropped" }
		END { print n ": eth0 rx " rx "; tx " tx }'
	  rdma statistic show link "$dev/1" 2>/dev/null | tr -s ' \n' ' ' | fold -s -w 200
	  echo
	} | sed 's/^/# /' >>"$ktap_out"
}
mc_case() {	# mc_case NAME RECEIVER_GUEST
	if [ "$gi" = "$2" ]; then
		ok_if "$1 (receiver)" mc_recv "$1"
	else
		ok_if "$1 (sender)" mc_send "$1"
	fi
	mc_diag "$1"
}
mc_case "mckey to guest 0" 0
# The other way only between different kinds (ORCA<->ORCA is symmetric).
[ "$1" = "$2" ] || mc_case "mckey to guest 1" 1

barrier tools-done 200
rdma_down "$kind"
ok_if "no warnings in dmesg" dmesg_quiet
ktap_done

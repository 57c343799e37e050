#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# UCX's own benchmark, ucx_perftest, between two guests over UCX's generic
# verbs transports: rc_verbs (put bandwidth, active messages) and
# ud_verbs (active messages).  guest 0 the server on SERVER_KIND,
# guest 1 the client on CLIENT_KIND.  A case passes when both sides exit 0
# and the client printed its final result line.  (-P 0: the Debian
# build links Open MPI, and without it the tool expects to run under MPI.)
# Usage: ucx.sh SERVER_KIND CLIENT_KIND
. "$ORCA_TOP/selftests/lib/guest/guest.sh"
. "$ORCA_TOP/selftests/lib/guest/uverbs.sh"

kind=${1:?server kind}
[ "$gi" = 1 ] && kind=${2:?client kind}
rdma_up "$kind" || ktap_done
dev=$rdma_dev
gid=$(wait_gid "$dev" v4)
ok_if "$dev: RoCE v2 IPv4 GID" test -n "$gid" || ktap_done
srv=
[ "$gi" = 1 ] && srv=$uverbs_srv_ip
export UCX_IB_GID_INDEX=$gid UCX_WARN_UNUSED_ENV_VARS=n
# UCX 1.18's ud_verbs takes the L3 type of a received RoCE v2 packet from
# wc.sl, which only mlx5 fills that way (0x2: IPv4); on any other device
# (rxe, ORCA) an IPv4 packet is taken for IPv6, its "dgid" is read from the
# IPv4 header and every packet is silently dropped as not addressed to us.
# Fixed in UCX 1.19 (commit 7de57ad9f9, the type comes from the GRH area);
# until then, turn the destination GID filter off.
export UCX_UD_VERBS_ETH_DGID_CHECK=n
ucx_info -d 2>&1 | grep -E 'Transport|Device' | grep -B1 "$dev" |
	sed 's/^/# ucx_info: /' >>"$ktap_out"
port=13400

uc() {	# uc NAME TRANSPORT TEST ARGS...
	local name=$1 tl=$2 test=$3 log
	shift 3
	port=$((port + 1))
	pair_case "$name" 150 "tcp_listening $port" \
		"ucx_perftest -P 0 -d $dev:1 -x $tl -p $port" \
		"ucx_perftest $srv -P 0 -d $dev:1 -x $tl -p $port -t $test $*" || return
	[ "$gi" = 1 ] || return 0
	log=$(uverbs_log "$name")
	ok_if "$name: final result line" grep -q 'Final:' "$log"
	grep 'Final:' "$log" | sed "s/^/# $name /" >>"$ktap_out"
}
# Each transport's RDMA operations once: zero-copy put (RDMA WRITE) and
# active messages (SEND) on rc_verbs, active messages on ud_verbs.  A
# case costs about 20 s of UCX start-up under TCG whatever its size, so
# rc put_lat and ud am_bw, the same verbs again, are left out.
uc "ucx rc_verbs put_bw zcopy 64KiB" rc_verbs put_bw -D zcopy -s 65536 -n 100 -w 20
uc "ucx rc_verbs am_lat" rc_verbs am_lat -s 64 -n 100 -w 20
uc "ucx ud_verbs am_lat" ud_verbs am_lat -s 64 -n 100 -w 20

barrier ucx-done 200
rdma_down "$kind"
ok_if "no warnings in dmesg" dmesg_quiet
ktap_done

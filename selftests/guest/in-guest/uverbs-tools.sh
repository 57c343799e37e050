#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The libibverbs and librdmacm example programs between two guests, through
# the userspace provider's kernel-bypass data path: guest 0 the server on
# SERVER_KIND, guest 1 the client on CLIENT_KIND (orca or rxe).
#   ibv_rc_pingpong (polling and with completion events), ibv_ud_pingpong,
#   ibv_srq_pingpong, ibv_uc_pingpong, each with -c and a RoCE v2 GID; rping -V (every byte
#   of every ping compared) over IPv4 and IPv6; ucmatose; udaddy.
# Usage: uverbs-tools.sh SERVER_KIND CLIENT_KIND
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

barrier tools-done 200
rdma_down "$kind"
ok_if "no warnings in dmesg" dmesg_quiet
ktap_done

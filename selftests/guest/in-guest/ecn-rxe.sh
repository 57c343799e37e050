#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Soft-RoCE as the sender through a marked queue (issue 33): guest 1 runs
# rxe, which has no congestion control, guest 0 an ORCA adapter with ECN
# on (orca-emu --ecn).  rxe's packets carry the address vector's traffic
# class as their IP TOS, so perftest's --tclass 106 (DSCP 26, ECT(0))
# makes them ECN-capable: the switch marks them in guest 0's queue, ORCA
# counts the marks and answers with CNPs, which rxe drops as an opcode it
# does not know.  Nothing may break: the transfer completes, the counters
# say what happened, and the host checks that the wire lost nothing and
# neither kernel complained.
. "$ORCA_TOP/selftests/lib/guest/guest.sh"
. "$ORCA_TOP/selftests/lib/guest/uverbs.sh"

kind=orca
[ "$gi" = 1 ] && kind=rxe
rdma_up "$kind" || ktap_done
dev=$rdma_dev
gid=$(wait_gid "$dev" v4)
ok_if "$dev: RoCE v2 IPv4 GID" test -n "$gid" || ktap_done
srv=
[ "$gi" = 1 ] && srv=$uverbs_srv_ip

# stat NAME: one counter of the port's rdma statistic.
stat() { port_stat "$dev" "$1"; }

# -u 18: a 1 s ACK timeout; the queue (256 KiB) holds rxe's 128
# unacknowledged packets, so nothing is dropped and nothing is resent.
pair_case "ib_write_bw 64 KiB for 4 s from rxe, ECN-capable (--tclass 106)" 150 \
	"tcp_listening 18613" \
	"ib_write_bw -d $dev -i 1 -x $gid -F -u 18 -p 18613 -s 65536 -D 4 --tclass 106" \
	"ib_write_bw -d $dev -i 1 -x $gid -F -u 18 -p 18613 -s 65536 -D 4 --tclass 106 $srv"
if [ "$gi" = 0 ]; then
	marked=$(stat np_ecn_marked_roce_packets)
	sent=$(stat np_cnp_sent)
	ktap_line "# $dev: np_ecn_marked_roce_packets $marked np_cnp_sent $sent"
	ok_if "orca receiver: rxe's CE-marked packets counted" \
		test "${marked:-0}" -gt 0
	ok_if "orca receiver: CNPs sent to rxe, at most one per packet" \
		sh -c "[ ${sent:-0} -gt 0 ] && [ ${sent:-0} -le ${marked:-0} ]"
fi
rdma_down "$kind"
ktap_done

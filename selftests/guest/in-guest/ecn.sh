#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Congestion notification between two ORCA guests (orca-emu --ecn) through a
# congested link (orca-wire --link-rate --ecn): guest 1 writes into guest 0
# with ib_write_bw faster than the link carries, the switch marks the ECT
# packets in guest 0's queue, guest 0's adapter answers with CNPs and guest
# 1's cuts its rate.  Each guest checks its own side in rdma statistic,
# under mlx5's names; the host compares the two adapters' logs.
. "$ORCA_TOP/selftests/lib/guest/guest.sh"
. "$ORCA_TOP/selftests/lib/guest/uverbs.sh"

rdma_up orca || ktap_done
dev=$rdma_dev
gid=$(wait_gid "$dev" v4)
ok_if "$dev: RoCE v2 IPv4 GID" test -n "$gid" || ktap_done
srv=
[ "$gi" = 1 ] && srv=$uverbs_srv_ip

# stat NAME: one counter of the port's rdma statistic.
stat() {
	rdma statistic show link "$dev/1" | tr ' ' '\n' | grep -A1 -x "$1" | tail -1
}

for c in np_ecn_marked_roce_packets np_cnp_sent rp_cnp_handled rp_cnp_ignored; do
	ok_if "rdma statistic has $c" sh -c "rdma statistic show link $dev/1 | tr ' ' '\\n' | grep -qx $c"
done

# -u 18: a 1 s ACK timeout, as perftest.sh: a TCG guest is slow.
pair_case "ib_write_bw 64 KiB for 8 s through the congested link" 150 \
	"tcp_listening 18611" \
	"ib_write_bw -d $dev -i 1 -x $gid -F -u 18 -p 18611 -s 65536 -D 8" \
	"ib_write_bw -d $dev -i 1 -x $gid -F -u 18 -p 18611 -s 65536 -D 8 $srv"

marked=$(stat np_ecn_marked_roce_packets)
sent=$(stat np_cnp_sent)
handled=$(stat rp_cnp_handled)
ignored=$(stat rp_cnp_ignored)
ktap_line "# $dev: np_ecn_marked_roce_packets $marked np_cnp_sent $sent rp_cnp_handled $handled rp_cnp_ignored $ignored"
if [ "$gi" = 0 ]; then
	# The receiver of the data: its queue on the switch was marked.
	ok_if "receiver: CE-marked packets counted" test "${marked:-0}" -gt 0
	ok_if "receiver: CNPs sent for them, at most one per packet" \
		sh -c "[ ${sent:-0} -gt 0 ] && [ ${sent:-0} -le ${marked:-0} ]"
else
	# The sender: every CNP came from its QP's peer and cut its rate.
	ok_if "sender: CNPs handled" test "${handled:-0}" -gt 0
	ok_if "sender: no CNP ignored" test "${ignored:-1}" = 0
fi
ktap_done

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Congestion notification between two ORCA guests (orca-emu --ecn) through a
# congested link (orca-wire --link-rate --ecn): guest 1 writes into guest 0
# with ib_write_bw faster than the link carries, the switch marks the ECT
# packets in guest 0's queue, guest 0's adapter answers with CNPs and guest
# 1's cuts its rate.  Each guest checks its own side in rdma statistic,
# under mlx5's names; the host compares the two adapters' logs.  Then the
# devlink parameters (orca_cc.c): their defaults, the ranges and the
# adapter's cross-check; a second run with the receiver's CNP interval at
# 100 ms and the sender's reaction point off, whose counters show both.
. "$ORCA_TOP/selftests/lib/guest/guest.sh"
. "$ORCA_TOP/selftests/lib/guest/uverbs.sh"

rdma_up orca || ktap_done
dev=$rdma_dev
gid=$(wait_gid "$dev" v4)
ok_if "$dev: RoCE v2 IPv4 GID" test -n "$gid" || ktap_done
srv=
[ "$gi" = 1 ] && srv=$uverbs_srv_ip

# stat NAME: one counter of the port's rdma statistic.
stat() { port_stat "$dev" "$1"; }

for c in np_ecn_marked_roce_packets np_cnp_sent rp_cnp_handled rp_cnp_ignored \
	rx_pfc_frames rx_pfc_pause_transitions rx_pfc_pause_duration; do
	ok_if "rdma statistic has $c" sh -c "rdma statistic show link $dev/1 | tr ' ' '\\n' | grep -qx $c"
done

# -u 18: a 1 s ACK timeout, as perftest.sh: a TCG guest is slow.
# --tclass 104: the QPs' address vectors carry DSCP 26 (rdma_cm's TOS 106
# gives the same), the switch's class 3; the second run's 160 is DSCP 40,
# class 5 (the host checks the switch's counts by class).
pair_case "ib_write_bw 64 KiB for 5 s through the congested link" 150 \
	"tcp_listening 18611" \
	"ib_write_bw -d $dev -i 1 -x $gid -F -u 18 -p 18611 -s 65536 -D 5 --tclass 104" \
	"ib_write_bw -d $dev -i 1 -x $gid -F -u 18 -p 18611 -s 65536 -D 5 --tclass 104 $srv"

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
	# A few may come for a QP ib_write_bw has destroyed (the receiver's
	# 500 Mb/s port still queued marked packets): ignored, no such QP.
	ok_if "sender: CNPs handled" test "${handled:-0}" -gt 0
	ok_if "sender: CNPs ignored only after its QP was gone (at most 1%)" \
		sh -c "[ ${ignored:-1} -le $((${handled:-0} / 100)) ]"
fi

# The administrator's interface: devlink parameters of the PCI function,
# named as mlx5's cc_params (orca_cc.c).
fn=pci/$(basename "$(readlink -f "/sys/class/infiniband/$dev/device")")
param() {	# param NAME: its runtime value
	devlink dev param show "$fn" name "$1" |
		sed -n 's/.*cmode runtime value \([^ ]*\).*/\1/p'
}
set_param() {	# set_param NAME VALUE
	devlink dev param set "$fn" name "$1" value "$2" cmode runtime
}
defaults="np_enable=true rp_enable=true ect_enable=true"
defaults+=" np_min_time_between_cnps=4 rp_max_rate=0 rp_min_rate=10"
defaults+=" rp_ai_rate=5 rp_hai_rate=50 rp_threshold=5 rp_time_reset=300"
defaults+=" rp_byte_reset=32768 rp_dce_tcp_g=4 rp_dce_tcp_rtt=55"
defaults+=" rp_rate_reduce_monitor_period=4 rp_initial_alpha_value=1024"
got=
for nv in $defaults; do
	got+=" ${nv%%=*}=$(param "${nv%%=*}")"
done
ktap_line "# devlink $fn:$got"
ok_if "devlink: the 15 congestion control parameters, ConnectX's defaults (orca-emu --ecn)" \
	test "$got" = " $defaults"
refused() {	# refused NAME VALUE: the set fails, the value stays
	local was
	was=$(param "$1")
	! set_param "$1" "$2" && [ "$(param "$1")" = "$was" ]
}
min_above_max() {
	set_param rp_max_rate 1000 && refused rp_min_rate 2000 &&
		set_param rp_max_rate 0
}
param_is() {	# param_is NAME VALUE: set it, and it reads back
	set_param "$1" "$2" && [ "$(param "$1")" = "$2" ]
}
ok_if "devlink: a value out of its range is refused" refused rp_dce_tcp_g 1025
ok_if "devlink: the adapter refuses rp_min_rate above rp_max_rate" min_above_max

# Then they change what the adapters do, measurably: the receiver sends
# at most one CNP per QP per 100 ms, and the sender ignores CNPs.
if [ "$gi" = 0 ]; then
	ok_if "devlink: np_min_time_between_cnps set to 100000 us" \
		param_is np_min_time_between_cnps 100000
else
	ok_if "devlink: rp_enable set to false" param_is rp_enable false
fi
t0=$(date +%s)
pfc0=$(stat rx_pfc_frames)
pause0=$(stat rx_pfc_pause_transitions)
# Class 5 is lossless on this wire (63: orca-wire --pfc 5): with its
# reaction point off the sender fills the queue, and the switch pauses it.
pair_case "ib_write_bw 64 KiB for 4 s: CNPs at most every 100 ms, the sender ignoring them" 150 \
	"tcp_listening 18612" \
	"ib_write_bw -d $dev -i 1 -x $gid -F -u 18 -p 18612 -s 65536 -D 4 --tclass 160" \
	"ib_write_bw -d $dev -i 1 -x $gid -F -u 18 -p 18612 -s 65536 -D 4 --tclass 160 $srv"
secs=$(($(date +%s) - t0))
marked2=$(($(stat np_ecn_marked_roce_packets) - marked))
sent2=$(($(stat np_cnp_sent) - sent))
handled2=$(($(stat rp_cnp_handled) - handled))
ignored2=$(($(stat rp_cnp_ignored) - ignored))
pfc2=$(($(stat rx_pfc_frames) - pfc0))
pause2=$(($(stat rx_pfc_pause_transitions) - pause0))
ktap_line "# $dev, second run ($secs s): np_ecn_marked_roce_packets +$marked2 np_cnp_sent +$sent2 rp_cnp_handled +$handled2 rp_cnp_ignored +$ignored2 rx_pfc_frames +$pfc2 rx_pfc_pause_transitions +$pause2 rx_pfc_pause_duration $(stat rx_pfc_pause_duration)"
if [ "$gi" = 0 ]; then
	# With 4 us between CNPs about 3 marks in 5 were answered (run 1).
	ok_if "receiver: at most one CNP per 100 ms while marks came faster" \
		sh -c "[ $sent2 -gt 0 ] && [ $sent2 -le $((secs * 10 + 2)) ] && [ $marked2 -ge $((2 * sent2)) ]"
else
	ok_if "sender: every CNP ignored, none handled" \
		sh -c "[ $ignored2 -gt 0 ] && [ $handled2 = 0 ]"
	ok_if "sender: paused by PFC frames on the lossless class (rdma statistic)" \
		sh -c "[ $pfc2 -gt 0 ] && [ $pause2 -gt 0 ] && [ $pause2 -le $pfc2 ]"
fi
ktap_done

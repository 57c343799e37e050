#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Third-party userspace clients through the userspace verbs, as a user
# runs them, between two guests: guest 0 the servers on SERVER_KIND, guest
# 1 the clients on CLIENT_KIND (orca or rxe):
#   libfabric: fi_info lists the device under the verbs provider, as
#     FI_EP_MSG and, through verbs;ofi_rxm, FI_EP_RDM (an ORCA device also
#     as its XRC domain, DEV-xrc, when asked to prefer XRC); fi_pingpong over
#     verbs (FI_EP_MSG) and verbs;ofi_rxm (FI_EP_RDM: eager, segmented and
#     rendezvous messages) with -c, every byte checked;
#   qperf over rdma_cm (-cm1): rc_bw, rc_lat, rc_rdma_write_bw and
#     rc_rdma_read_bw (the client READs from and WRITEs to the server)
#     each report a figure (qperf checks no payload);
#   rsockets: rstream and riostream with -T v, every byte checked;
#   Open MPI over UCX (lib/guest/mpi.sh): mpi_check with a rank on each
#     guest, over each of UCX's TRANSPORTS (default: rc_verbs ud_verbs):
#     ring, all-to-all and MPI_Allreduce results checked on every rank.
# Usage: clients.sh SERVER_KIND CLIENT_KIND [TRANSPORTS]
. "$ORCA_TOP/selftests/lib/guest/guest.sh"
. "$ORCA_TOP/selftests/lib/guest/uverbs.sh"
. "$ORCA_TOP/selftests/lib/guest/mpi.sh"

kind=${1:?server kind}
[ "$gi" = 1 ] && kind=${2:?client kind}
rdma_up "$kind" || ktap_done
dev=$rdma_dev
gid=$(wait_gid "$dev" v4)
ok_if "$dev: RoCE v2 IPv4 GID" test -n "$gid" || ktap_done
srv=
[ "$gi" = 1 ] && srv=$uverbs_srv_ip
# The MPI jobs come last; their remote shell servers start now and what
# they load is read in while the other tools run (lib/guest/mpi.sh).
mpi_up "$dev"
mpi_prewarm &

# libfabric: fi_info lists what fi_getinfo() offers, the verbs provider's
# own endpoints and, layered over its MSG endpoints, ofi_rxm's RDM ones
# (one run of fi_info: each costs seconds of provider probing under TCG).
fi_lists() {	# fi_lists FI_INFO-OUTPUT PROVIDER EP_TYPE [DOMAIN]
	printf '%s\n' "$1" | awk -v p="$2" -v d="${4:-$dev}" -v t="$3" '
		/^provider:/ { prov = $2 }
		/^ *domain:/ { dom = $2 }
		/^ *type:/ && prov == p && dom == d && $2 == t { found = 1 }
		END { exit !found }' && return 0
	printf '%s\n' "$1" | grep -E '^provider:|domain:|type:' | paste - - - |
		sort -u | head -n 20
	return 1
}
fi_out=$(fi_info -p verbs 2>&1)
ok_if "fi_info: $dev under verbs, FI_EP_MSG" fi_lists "$fi_out" verbs FI_EP_MSG
ok_if "fi_info: $dev under verbs;ofi_rxm, FI_EP_RDM" \
	fi_lists "$fi_out" "verbs;ofi_rxm" FI_EP_RDM
# XRC (ORCA_UCTX_CAP_XRC; rxe has none): asked to prefer XRC, with the
# shared receive context it needs (FI_OFI_RXM_USE_SRX=1), the verbs
# provider layers ofi_rxm's RDM endpoints over the device's XRC domain,
# DEV-xrc, which it offers only when ibv_query_device() reports
# IBV_DEVICE_XRC.  No traffic runs over it: libfabric since 1.21 creates
# its XRC initiator QP on an rdma_cm ID that is not yet bound to a device,
# which rdma_create_qp_ex() refuses with EINVAL on every device.
if [ "$kind" = orca ]; then
	fi_xrc=$(FI_VERBS_PREFER_XRC=1 FI_OFI_RXM_USE_SRX=1 fi_info -p verbs 2>&1)
	ok_if "fi_info: $dev-xrc under verbs;ofi_rxm, FI_EP_RDM (XRC)" \
		fi_lists "$fi_xrc" "verbs;ofi_rxm" FI_EP_RDM "$dev-xrc"
fi

# fi_pingpong's default sizes, 64 B to 1 MiB: on RDM that is ofi_rxm's
# eager (up to 16 KiB), segmented (up to 128 KiB) and rendezvous (RDMA
# READ) protocols.  ofi_rxm opens one verbs CQ for all of an endpoint's
# connections, sized (128 sends + 128 receives) * FI_UNIVERSE_SIZE (1024
# peers) = 262144 CQEs, and fi_enable() fails with EINVAL where the device
# has fewer: ORCA has 262144, rxe 32767.  So the rxe side sizes for 64 peers.
fiuni=
[ "$kind" = rxe ] && fiuni="env FI_UNIVERSE_SIZE=64"
pair_case "fi_pingpong verbs MSG -c" 120 "tcp_listening 47592" \
	"fi_pingpong -p verbs -e msg -d $dev -c -I 5" \
	"fi_pingpong -p verbs -e msg -d $dev -c -I 5 $srv"
pair_case "fi_pingpong verbs;ofi_rxm RDM -c" 120 "tcp_listening 47592" \
	"$fiuni fi_pingpong -p verbs;ofi_rxm -e rdm -c -I 5" \
	"$fiuni fi_pingpong -p verbs;ofi_rxm -e rdm -c -I 5 $srv"

# qperf over rdma_cm: the server runs until the client is done.
qperf_tests="rc_bw rc_lat rc_rdma_write_bw rc_rdma_read_bw"
qperf_server() {	# qperf_server NAME
	local log pid
	log=$(uverbs_log "$1")
	qperf >"$log" 2>&1 &
	pid=$!
	if ! wait_for 30 tcp_listening 19765; then
		flag_set "$1-failed"
		kill "$pid" 2>/dev/null
		echo "qperf did not listen"
		cat "$log"
		return 1
	fi
	flag_set "$1"
	flag_wait 200 "$1-done"
	kill -0 "$pid" || { echo "qperf server exited early"; cat "$log"; return 1; }
	kill "$pid"
	wait "$pid"
	return 0
}
qperf_client() {	# qperf_client NAME SERVER
	local log rc
	log=$(uverbs_log "$1")
	flag_wait 120 "$1" "$1-failed" || { echo "qperf server not ready"; return 1; }
	timeout "$(scaled 150)" qperf -cm1 -t 1 "$2" $qperf_tests >"$log" 2>&1
	rc=$?
	flag_set "$1-done"
	[ "$rc" = 0 ] || { tail -n 20 "$log"; return 1; }
}
# qperf_figures LOG: each test reported a non-zero figure.  (qperf checks
# no payload, and its message counts are not comparable: the receiver of
# a bandwidth test stops counting when its time is up.)
qperf_figures() {
	awk -v want="$qperf_tests" '
		/^[a-z_]+:$/ { t = substr($1, 1, length($1) - 1); next }
		($1 == "bw" || $1 == "latency") && $3 + 0 > 0 { seen[t] = 1 }
		END {
			n = split(want, w, " ")
			for (i = 1; i <= n; i++)
				if (!seen[w[i]]) { print w[i] ": no figure"; bad = 1 }
			exit bad
		}' "$1"
}
n="qperf -cm1"
if [ "$gi" = 0 ]; then
	ok_if "$n (server)" qperf_server "$n"
else
	ok_if "$n (client)" qperf_client "$n" "$uverbs_srv_ip" &&
	ok_if "$n: $qperf_tests report their figures" \
		qperf_figures "$(uverbs_log "$n")"
	grep -E '^[a-z_]+:$|^ *(bw|latency) ' "$(uverbs_log "$n")" |
		paste -sd ' ' | sed "s/^/# $n: /" >>"$ktap_out"
fi

# rsockets: 40 transfers of 50000 bytes each way, every byte checked.
for t in rstream riostream; do
	pair_case "$t -T v" 90 "cm_listening 7471" \
		"$t -b $uverbs_srv_ip -T v -S 50000 -C 40" \
		"$t -s $uverbs_srv_ip -T v -S 50000 -C 40"
done

# MPI: a rank on each guest, launched from guest 0.
barrier mpi-up 300
if [ "$gi" = 0 ]; then
	for tl in ${3:-rc_verbs ud_verbs}; do
		tls=$tl
		# rc_verbs sets its connections up through ud_verbs.
		[ "$tl" = rc_verbs ] && tls=rc_verbs,ud_verbs
		mpi_job "mpi $tl" "$tls" 0,1
	done
fi
barrier mpi-done 600
mpi_down
wait

rdma_down "$kind"
ok_if "no warnings in dmesg" dmesg_quiet
ktap_done

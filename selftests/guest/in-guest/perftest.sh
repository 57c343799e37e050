#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# perftest between two guests through the userspace verbs: guest 0 the
# server on SERVER_KIND, guest 1 the client on CLIENT_KIND (orca or rxe).
# RC send, write, read and atomic, each as bandwidth and latency; UD send;
# UC send and write bandwidth; XRC send and write bandwidth and latency
# (ORCA to ORCA); and the same tools over rdma_cm (-R).  A case passes when both sides
# exit 0 and the client printed its result row (a completion with an error
# status makes perftest fail).  Each client result becomes a line
#   # perftest-result pair=S-C tool=T size=N bw_avg=MiB/s msg_rate=Mpps
#   # perftest-result pair=S-C tool=T size=N t_typical=us
# that scripts/bench/bench.sh collects.
# Usage: perftest.sh SERVER_KIND CLIENT_KIND [test|test-nocm|cm|bench|demo]
#   test-nocm: test's cases but those over rdma_cm; cm: only those;
#   bench: more iterations, and only the rows make bench reports;
#   demo: ib_write_bw 64 KiB only (make demo).
. "$ORCA_TOP/selftests/lib/guest/guest.sh"
. "$ORCA_TOP/selftests/lib/guest/uverbs.sh"

skind=${1:?server kind (orca, rxe; siw for bench)}
ckind=${2:?client kind}
# ORCA_ETH_MTU=N: eth0's MTU first (the RDMA devices follow it: 9000
# gives path MTU 4096), as nvmeof-fio.sh; make bench runs both.
if [ -n "${ORCA_ETH_MTU:-}" ]; then
	ok_if "eth0: MTU $ORCA_ETH_MTU" ip link set eth0 mtu "$ORCA_ETH_MTU"
fi
mode=${3:-test}
kind=$skind
[ "$gi" = 1 ] && kind=$ckind
rdma_up "$kind" || ktap_done
dev=$rdma_dev
# iWARP addresses by IP through rdma_cm, RoCE by GID.
gidopt=
if [ "$kind" != siw ]; then
	gid=$(wait_gid "$dev" v4)
	ok_if "$dev: RoCE v2 IPv4 GID" test -n "$gid" || ktap_done
	gidopt="-x $gid"
fi
srv=
[ "$gi" = 1 ] && srv=$uverbs_srv_ip
port=18600

# The client's result row, as a "# perftest-result" line.
perftest_result() {	# perftest_result TOOL LOG
	awk -v tool="$1" -v pair="$skind-$ckind" '
		BEGIN { gsub(/ /, "_", tool) }
		/#bytes/ { hdr = $0; next }
		hdr != "" && $1 ~ /^[0-9]+$/ {
			if (hdr ~ /t_typical/)
				printf "# perftest-result pair=%s tool=%s size=%s t_typical=%s t_avg=%s\n", pair, tool, $1, $5, $6
			else
				printf "# perftest-result pair=%s tool=%s size=%s bw_avg=%s msg_rate=%s\n", pair, tool, $1, $4, $5
			exit
		}' "$2"
}

# pt NAME TOOL ARGS...: one perftest case; -R cases listen through rdma_cm.
# iWARP (siw) connects through rdma_cm only and has no atomics.
pt() {
	local name=$1 tool=$2 check log res pc_rc
	shift 2
	if [ "$kind" = siw ]; then
		case $tool in ib_atomic_*) return 0 ;; esac
		case " $* " in *" -R "*) ;; *) set -- -R "$@" ;; esac
	fi
	port=$((port + 1))
	check="tcp_listening $port"
	case " $* " in *" -R "*) check="cm_listening $port" ;; esac
	# -u 18: a 1 s ACK timeout instead of perftest's 67 ms.  A TCG guest
	# that the host does not schedule for longer than 7 timeouts (a
	# loaded 2-core host runs four) would otherwise end the run with
	# RETRY_EXC_ERR, on rxe and ORCA alike.
	# The case make bench measures the host's CPU time over
	# (scripts/bench/cpu-window.sh): the client marks its window.
	[ "$gi" = 1 ] && [ "$name" = "${ORCA_CPU_CASE:-}" ] &&
		touch "$ORCA_RUN_DIR/cpu-mark-start"
	pair_case "$name" 150 "$check" \
		"$tool -d $dev -i 1 $gidopt -F -u 18 -p $port $*" \
		"$tool -d $dev -i 1 $gidopt -F -u 18 -p $port $* $srv"
	pc_rc=$?
	[ "$gi" = 1 ] && [ "$name" = "${ORCA_CPU_CASE:-}" ] &&
		touch "$ORCA_RUN_DIR/cpu-mark-end"
	[ "$pc_rc" = 0 ] || return
	[ "$gi" = 1 ] || return 0
	log=$(uverbs_log "$name")
	res=$(perftest_result "$name" "$log")
	if [ -n "$res" ]; then
		ktap_line "$res"
		ktap_line "ok $name reports its figures"
	else
		ktap_fail=1
		ktap_line "not ok $name reports its figures"
	fi
}

if [ "$mode" = demo ]; then
	pt "ib_write_bw 64KiB" ib_write_bw -s 65536 -n 1000
elif [ "$mode" = bench ]; then
	pt "ib_write_bw 64KiB" ib_write_bw -s 65536 -n 2000
	# 10 s of it: the host CPU time per GiB (make bench, ORCA_CPU_CASE).
	pt "ib_write_bw 64KiB 10s" ib_write_bw -s 65536 -D 10
	pt "ib_write_bw 64B" ib_write_bw -s 64 -n 20000
	pt "ib_send_lat 64B" ib_send_lat -s 64 -n 1000
	pt "ib_read_bw 64KiB" ib_read_bw -s 65536 -n 2000
	pt "ib_atomic_bw" ib_atomic_bw -n 5000
	# On-demand MRs (siw has none): warm, the pinned case's run, where
	# only the first message of each side faults; first touch, 5
	# messages on each of 32 QPs (perftest's least), whose buffers (one
	# 64 KiB region each, on both sides) no page of has been touched:
	# each QP's first message faults its source in on the client and its
	# target on the server, a fifth of all the messages.
	if [ "$skind" != siw ] && [ "$ckind" != siw ]; then
		pt "ib_write_bw 64KiB odp warm" ib_write_bw -s 65536 -n 2000 --odp
		pt "ib_write_bw 64KiB odp first touch" ib_write_bw -s 65536 -q 32 -n 5 --odp
	fi
elif [ "$mode" != cm ]; then
	pt "ib_send_bw 64KiB" ib_send_bw -s 65536 -n 200
	pt "ib_send_lat 64B" ib_send_lat -s 64 -n 200
	pt "ib_write_bw 64KiB" ib_write_bw -s 65536 -n 200
	pt "ib_write_lat 64B" ib_write_lat -s 64 -n 200
	pt "ib_read_bw 64KiB" ib_read_bw -s 65536 -n 200
	pt "ib_read_lat 64B" ib_read_lat -s 64 -n 200
	pt "ib_atomic_bw" ib_atomic_bw -n 200
	pt "ib_atomic_lat" ib_atomic_lat -n 200
	pt "ib_send_bw -c UD 512B" ib_send_bw -c UD -s 512 -n 200
	# UC: nothing resends, so no more messages than receives posted up
	# front (perftest posts min(-n, rx depth) before it starts).
	pt "ib_send_bw -c UC 16KiB" ib_send_bw -c UC -s 16384 -n 100
	pt "ib_write_bw -c UC 16KiB" ib_write_bw -c UC -s 16384 -n 100
	# XRC (ORCA_UCTX_CAP_XRC; rxe has none): perftest's XRC domain,
	# XRC SRQs, initiator and target QPs, its sends naming the SRQ.
	if [ "$skind" = orca ] && [ "$ckind" = orca ]; then
		pt "ib_send_bw -c XRC 16KiB" ib_send_bw -c XRC -s 16384 -n 100
		pt "ib_write_bw -c XRC 16KiB" ib_write_bw -c XRC -s 16384 -n 100
		pt "ib_send_lat -c XRC 64B" ib_send_lat -c XRC -s 64 -n 100
		pt "ib_write_lat -c XRC 64B" ib_write_lat -c XRC -s 64 -n 100
	fi
fi
if [ "$mode" = test ] || [ "$mode" = cm ]; then
	pt "ib_send_bw -R 64KiB" ib_send_bw -R -s 65536 -n 200
	pt "ib_write_lat -R 64B" ib_write_lat -R -s 64 -n 200
	pt "ib_read_bw -R 64KiB" ib_read_bw -R -s 65536 -n 200
	pt "ib_atomic_lat -R" ib_atomic_lat -R -n 200
fi

barrier perftest-done 300
rdma_down "$kind"
ok_if "no warnings in dmesg" dmesg_quiet
ktap_done

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The kernel's RDMA storage and messaging protocols between two guests, the
# RDMA device kinds as parameters: guest 0 is the server (target) on
# SERVER_KIND, guest 1 the client (initiator) on CLIENT_KIND (orca or rxe).
# Each protocol in turn: the server sets up and says ready, the client
# connects, checks its data and disconnects, the server tears down.  A
# protocol's steps live in lib/guest/ulp-PROTO.sh (PROTO_server_up ADDR,
# PROTO_server_down, PROTO_client_test ADDR).
#
# Usage: ulp.sh SERVER_KIND CLIENT_KIND [removal|bench] PROTO...
#   PROTO: rds nfs srp iser smb rnbd
#   removal: instead of one connection per protocol, every protocol
#   connected at once and the device-removal phases of
#   lib/guest/ulp-removal.sh (orca on both sides)
#   bench: after each protocol's verify jobs, throughput runs whose
#   "# ulp-result" and "# rds-bench" lines scripts/bench/bench.sh reads
. "$ORCA_TOP/selftests/lib/guest/guest.sh"
. "$ORCA_TOP/selftests/lib/guest/fio.sh"
. "$ORCA_TOP/selftests/lib/guest/ulp-removal.sh"
server_kind=${1:?server kind}
client_kind=${2:?client kind}
shift 2
mode=verify
case ${1:-} in
removal | bench) mode=$1; shift ;;
removal-client | removal-server)
	# One side's removal only (lib/guest/ulp-removal.sh).
	mode=removal ulp_removal_sides=${1#removal-}
	shift
	;;
esac
protos=("$@")
# What each protocol's verify jobs write (MiB; block targets twice as
# much): enough I/Os at 4k-256k to wrap every queue and cross many pages
# and packets, checked by fio's crc32c.  bench mode reads 16 MiB of what
# they wrote, so it writes that much.
ulp_verify_mb=8
[ "$mode" = bench ] && ulp_verify_mb=16
server_addr=10.0.0.1
client_addr=10.0.0.2
fio_result_name=ulp-result

for p in "${protos[@]}"; do
	. "$ORCA_TOP/selftests/lib/guest/ulp-$p.sh"
done

# ulp_bench_jobs PROTO: in bench mode, 4k random and 128k sequential reads
# of what the verify jobs wrote on $fio_file, 10 s each.
ulp_bench_jobs() {
	[ "$mode" = bench ] || return 0
	fio_job "$1-randread-4k" --rw=randread --bs=4k --size=16M \
		--iodepth=16 --time_based --runtime=10
	fio_job "$1-seqread-128k" --rw=read --bs=128k --size=16M \
		--iodepth=4 --time_based --runtime=10
}

run_server() {
	local p up=()
	if ! rdma_up "$server_kind"; then
		for p in "${protos[@]}"; do flag_set "$p-failed"; done
		return
	fi
	for p in "${protos[@]}"; do
		ktap_line "# $p: server starts at ${SECONDS}s"
		if "${p}_server_up" "$server_addr"; then
			flag_set "$p-ready"
			up+=("$p")
		else
			flag_set "$p-failed"
		fi
		ktap_line "# $p: server set up (ready or failed) at ${SECONDS}s"
		[ "$mode" = removal ] && continue
		ok_if "$p: server: client finished" flag_wait 600 "$p-done"
		ktap_line "# $p: server stops at ${SECONDS}s"
		"${p}_server_down"
	done
	# Removal: every server up at once, one removal under all of them.
	if [ "$mode" = removal ]; then
		[ "${#up[@]}" = 0 ] || ulp_removal_server "${up[@]}"
		for p in "${protos[@]}"; do
			ktap_line "# $p: server stops at ${SECONDS}s"
			"${p}_server_down"
		done
	fi
	ktap_line "# servers done at ${SECONDS}s"
	rdma_down "$server_kind"
}

# server_progress: the server guest's last three result lines, for a
# client that waited for it in vain (make check's recap shows them).
server_progress() {
	local f=${ORCA_RESULT_DIR:-}/g0.tap
	[ -n "${ORCA_RESULT_DIR:-}" ] && [ -r "$f" ] || return 0
	tail -n 3 "$f" | sed "s/^/# g0's last at ${SECONDS}s: /" | tee -a "$ktap_out"
}

run_client() {
	local p ready ready_protos=()
	if rdma_up "$client_kind"; then
		ok_if "client: reaches the server over the wire" \
			wait_for 20 busybox ping -c 1 -W 2 "$server_addr"
	else
		ready=no
	fi
	for p in "${protos[@]}"; do
		if [ "${ready:-}" != no ] && flag_wait 600 "$p-ready" "$p-failed"; then
			if [ "$mode" = removal ]; then
				ready_protos+=("$p")
				continue
			fi
			ktap_line "# $p: client starts at ${SECONDS}s"
			"${p}_client_test" "$server_addr"
			ktap_line "# $p: client done at ${SECONDS}s"
		else
			# Where the server is: its last lines so far.
			[ "${ready:-}" = no ] || server_progress
			expect_eq "$p: client: server ready" no yes
		fi
		flag_set "$p-done"
	done
	if [ "$mode" = removal ]; then
		ktap_line "# client starts the removals at ${SECONDS}s"
		ulp_removal_client "$server_addr" "${ready_protos[@]}"
		ktap_line "# client done at ${SECONDS}s"
		# The server waits for these even when no protocol was ready.
		flag_set a-done
		flag_set b-done
	fi
	[ "${ready:-}" != no ] && rdma_down "$client_kind"
}

case $gi in
0) run_server ;;
1) run_client ;;
esac
dmesg_clean
dmesg | grep -iE 'rds|nfs|rpcrdma|svcrdma|srp|iser|isert|smb|ksmbd|cifs|rnbd|rtrs|rdma|rxe|orca' |
	tail -n 20 | sed 's/^/# /' >>"$ktap_out"
ktap_done

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The kernel's RDMA storage and messaging protocols between two guests, the
# RDMA device kinds as parameters: guest 0 is the server (target) on
# SERVER_KIND, guest 1 the client (initiator) on CLIENT_KIND (orca or rxe).
# Each protocol in turn: the server sets up and says ready, the client
# connects, checks its data and disconnects, the server tears down.  A
# protocol's steps live in lib/ulp-PROTO.sh (PROTO_server_up ADDR,
# PROTO_server_down, PROTO_client_test ADDR).
#
# Usage: ulp.sh SERVER_KIND CLIENT_KIND PROTO...   (rds nfs srp iser smb)
. "$ORCA_TOP/selftests/guest/lib/guest.sh"
. "$ORCA_TOP/selftests/guest/lib/fio.sh"
server_kind=${1:?server kind}
client_kind=${2:?client kind}
shift 2
protos=("$@")
server_addr=10.0.0.1
client_addr=10.0.0.2
fio_result_name=ulp-result

for p in "${protos[@]}"; do
	. "$ORCA_TOP/selftests/guest/lib/ulp-$p.sh"
done

run_server() {
	local p
	if ! rdma_up "$server_kind"; then
		for p in "${protos[@]}"; do flag_set "$p-failed"; done
		return
	fi
	for p in "${protos[@]}"; do
		if "${p}_server_up" "$server_addr"; then
			flag_set "$p-ready"
		else
			flag_set "$p-failed"
		fi
		ok_if "$p: server: client finished" flag_wait 600 "$p-done"
		"${p}_server_down"
	done
	rdma_down "$server_kind"
}

run_client() {
	local p ready
	if rdma_up "$client_kind"; then
		ok_if "client: reaches the server over the wire" \
			wait_for 20 busybox ping -c 1 -W 2 "$server_addr"
	else
		ready=no
	fi
	for p in "${protos[@]}"; do
		if [ "${ready:-}" != no ] && flag_wait 300 "$p-ready" "$p-failed"; then
			ktap_line "# $p: client starts at ${SECONDS}s"
			"${p}_client_test" "$server_addr"
			ktap_line "# $p: client done at ${SECONDS}s"
		else
			expect_eq "$p: client: server ready" no yes
		fi
		flag_set "$p-done"
	done
	[ "${ready:-}" != no ] && rdma_down "$client_kind"
}

case $gi in
0) run_server ;;
1) run_client ;;
esac
dmesg_clean
dmesg | grep -iE 'rds|nfs|rpcrdma|svcrdma|srp|iser|isert|smb|ksmbd|cifs|rdma|rxe|orca' |
	tail -n 20 | sed 's/^/# /' >>"$ktap_out"
ktap_done

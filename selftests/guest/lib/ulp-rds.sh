# SPDX-License-Identifier: GPL-2.0
#
# RDS over RDMA (rds_rdma), sourced by in-guest/ulp.sh.  The receiver runs
# on the server guest, the sender on the client; both are
# selftests/user/rds_check, which pins the IB transport, sends 1 B to 1 MiB
# messages each way and checks every byte.  RDS connects lazily on the
# first send, through rdma_cm port 18634.
#
# The modules stay loaded: unloading rds_rdma right after traffic leaks
# rds_ib_incoming objects (kmem_cache_destroy complains) and leaves an
# rdma_cm ID whose handler was in the unloaded module, so unloading rdma_cm
# then crashes in cma_remove_one.  Kernel 7.3 does this on rxe<->rxe as on
# ORCA; the device's removal (rmmod orca, rdma link delete) is the teardown
# RDS handles, through rds_ib_remove_one.

rds_prog=$top/selftests/user/build/rds_check
rds_port=4000
rds_rounds=1

rds_modules() {
	# No net-pf-21 autoload alias for rds_rdma: load both by hand.
	modprobe rds && modprobe rds_rdma
}

rds_server_up() {
	ok_if "rds: server: rds and rds_rdma load" rds_modules || return 1
	"$rds_prog" recv "$1" "$rds_port" "$rds_rounds" >/tmp/rds-recv.log 2>&1 &
	rds_recv_pid=$!
	ok_if "rds: server: receiver bound to $1:$rds_port" \
		wait_for 10 grep -q listening /tmp/rds-recv.log
}

rds_server_down() {
	local rc=1
	if [ -n "${rds_recv_pid:-}" ]; then
		wait_for 30 sh -c "! kill -0 $rds_recv_pid"
		wait "$rds_recv_pid"; rc=$?
	fi
	sed 's/^/# /' /tmp/rds-recv.log | tail -n 4 >>"$ktap_out"
	expect_eq "rds: server: every message arrived intact and was answered" "$rc" 0
}

# rds_client_test SERVER_ADDR: the whole exchange.
rds_client_test() {
	local rc
	ok_if "rds: client: rds and rds_rdma load" rds_modules || return 1
	timeout 240 "$rds_prog" send "$client_addr" "$1" "$rds_port" \
		"$rds_rounds" >/tmp/rds-send.log 2>&1
	rc=$?
	grep -v '^# seq' /tmp/rds-send.log | sed 's/^/# /' | tail -n 6 >>"$ktap_out"
	expect_eq "rds: client: 1 B to 1 MiB messages each way, every byte checked" \
		"$rc" 0
	expect_eq "rds: client: the connection's transport" \
		"$(sed -n 's/^rds_check: transport //p' /tmp/rds-send.log)" infiniband
}

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

rds_modules() {
	# No net-pf-21 autoload alias for rds_rdma: load both by hand.
	modprobe rds && modprobe rds_rdma
}

rds_server_up() {
	ok_if "rds: server: rds and rds_rdma load" rds_modules || return 1
	"$rds_prog" serve "$1" "$rds_port" >/tmp/rds-serve.log 2>&1 &
	rds_serve_pid=$!
	ok_if "rds: server: receiver bound to $1:$rds_port" \
		wait_for 10 grep -q listening /tmp/rds-serve.log
}

rds_server_down() {
	local runs
	[ -n "${rds_serve_pid:-}" ] && kill "$rds_serve_pid"
	runs=$(grep -c '^rds_check: run complete' /tmp/rds-serve.log)
	grep -v listening /tmp/rds-serve.log | sed 's/^/# /' | tail -n 4 >>"$ktap_out"
	ok_if "rds: server: answered complete client runs ($runs)" test "$runs" -ge 1
	ok_if "rds: server: no message arrived corrupted" \
		sh -c "! grep -q CORRUPT /tmp/rds-serve.log"
}

# rds_client_test SERVER_ADDR: the whole exchange.
rds_client_test() {
	local rc
	ok_if "rds: client: rds and rds_rdma load" rds_modules || return 1
	timeout "$(scaled 240)" "$rds_prog" send "$client_addr" "$1" "$rds_port" \
		>/tmp/rds-send.log 2>&1
	rc=$?
	grep -v '^# seq' /tmp/rds-send.log | sed 's/^/# /' | tail -n 6 >>"$ktap_out"
	expect_eq "rds: client: 1 B to 1 MiB messages each way, every byte checked" \
		"$rc" 0
	expect_eq "rds: client: the connection's transport" \
		"$(sed -n 's/^rds_check: transport //p' /tmp/rds-send.log)" infiniband
	if [ "$mode" = bench ]; then
		rds_bench "$1"
	fi
}

# rds_bench SERVER_ADDR: 4 KiB and 128 KiB messages, 10 s each, every
# reply checked; "# rds-bench" lines for scripts/bench/bench.sh.
rds_bench() {
	local size line
	for size in 4096 131072; do
		line=$(timeout "$(scaled 120)" "$rds_prog" bench "$client_addr" "$1" \
			"$rds_port" "$size" 10 | grep '^# rds-bench')
		ok_if "rds: client: bench $size B messages, replies checked" \
			test -n "$line"
		echo "$line" >>"$ktap_out"
	done
}

# --- device removal (in-guest/ulp.sh removal) ---------------------------

rds_client_connect() {
	ok_if "rds: client: rds and rds_rdma load" rds_modules &&
	ok_if "rds: client: connected, one exchange" \
		timeout "$(scaled 120)" "$rds_prog" send "$client_addr" "$1" "$rds_port"
}

rds_client_busy() { :; }

# rds_client_loss SIDE: which side's device went away.
rds_client_loss() {
	if [ "$1" = client ]; then
		# The transport is pinned to IB: no device, no RDS to the peer.
		ok_if "rds: client: without its device RDS refuses to send" sh -c \
			"! timeout 30 $rds_prog send $client_addr $server_addr $rds_port"
	else
		# RDS hides the loss from its sockets: it drops the connection
		# and makes a new one (logging "conn connected") once the peer's
		# device is back, and the messages go through.
		ok_if "rds: client: an exchange after the server's device returned" \
			timeout "$(scaled 120)" "$rds_prog" send "$client_addr" "$server_addr" "$rds_port"
		ok_if "rds: client: RDS dropped the connection and made a new one" \
			test "$(ulp_dmesg_count 'RDS/IB: .*conn connected')" -ge 1
		ktap_line "# rds: $(ulp_dmesg_count 'RDS/IB: .*conn connected') connection(s) made since the removal"
	fi
}

rds_client_cleanup() { :; }
rds_server_recover() { :; }

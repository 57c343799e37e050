# SPDX-License-Identifier: GPL-2.0
#
# Device removal under a connected kernel ULP, sourced by in-guest/ulp.sh
# (mode "removal", ORCA on both sides).  For each protocol: the client
# connects and keeps I/O in flight, then (A) the client's own orca module
# is removed, (B) after a fresh connection the server's is.  Each rmmod
# must finish within 60 s (ib_unregister_device waits for every ULP to let
# go: a drain that never completes hangs it), the protocol must report the
# loss (I/O errors, or recovery once the device is back), and after orca
# is loaded again a fresh connection must carry verified data.
#
# A protocol's lib/guest/ulp-PROTO.sh provides, besides its verify steps:
#   PROTO_client_connect ADDR   connect (mount, login, add_target)
#   PROTO_client_busy           start I/O that stays in flight (ulp_busy_fio)
#   PROTO_client_loss SIDE      after SIDE's (client|server) device went
#                               away (the client's is still gone; the
#                               server's is back)
#   PROTO_client_back           optional: after the client's device is back,
#                               before the old connection is let go
#   PROTO_client_cleanup        let go of what is left of the connection
#   PROTO_client_target         optional: "FILE [MB]" a fresh connection's
#                               data check writes (none: connect checks)
#   PROTO_server_recover        what the server must redo for a new device
#
# Helpers for those:
#   ulp_busy_fio FILE ARGS      background fio on FILE, 4k random writes,
#                               until stopped or failed
#   ulp_busy_running            it still runs
#   ulp_busy_failed SECS        the background fio ended with an error
#                               within SECS
#   ulp_busy_stop               stop it if it still runs
#   ulp_write_read SECS FILE [MB]
#                               1 MiB written (at MB MiB) and read back identical,
#                               within SECS (a hung file system stays hung
#                               in the background, not in the test)
#   ulp_failed_or_resumed FILE [MB]
#                               the background fio failed within 60 s, or
#                               it still runs and ulp_write_read 120 FILE
#                               MB passes (the transport recovered)
#   ulp_dmesg_since PATTERN     grep -E in what the kernel logged since the
#                               connection was up and busy, before the removal
#   ulp_dmesg_count PATTERN     how many such lines

# The checks run in ok_if's command substitution, a subshell that cannot
# wait for the job: its exit status goes to a file instead.
ulp_busy_rc=/tmp/busy-fio.rc

ulp_busy_fio() {
	local file=$1
	shift
	rm -f "$ulp_busy_rc"
	(cd /tmp && fio --name=busy --filename="$file" --direct=1 \
		--ioengine=libaio --rw=randwrite --bs=4k --iodepth=4 \
		--time_based --runtime=600 "$@" >/tmp/busy-fio.log 2>&1
	 echo $? >"$ulp_busy_rc") &
	# Let the job start and have I/O in flight.
	sleep 3
	ulp_busy_running
}

ulp_busy_running() {
	pgrep -f -- --name=busy >/dev/null && ! test -e "$ulp_busy_rc"
}

ulp_busy_failed() {
	local rc
	wait_for "$1" test -s "$ulp_busy_rc" || return 1
	rc=$(cat "$ulp_busy_rc")
	tail -n 3 /tmp/busy-fio.log
	echo "fio exit $rc"
	test "$rc" != 0
}

ulp_busy_stop() {
	pkill -INT -f -- --name=busy || return 0
	wait_for 30 test -s "$ulp_busy_rc" || pkill -KILL -f -- --name=busy
}

ulp_write_read() {
	local pid
	head -c 1048576 /dev/urandom >/tmp/wr.src || return 1
	rm -f /tmp/wr.dst
	# A task blocked in the file system cannot always be killed: wait
	# for it from outside, so a hang fails this check, not the test.
	(dd if=/tmp/wr.src of="$2" bs=1M seek="${3:-0}" oflag=direct \
		conv=notrunc status=none &&
	 dd if="$2" of=/tmp/wr.dst bs=1M skip="${3:-0}" count=1 iflag=direct \
		status=none) &
	pid=$!
	wait_for "$1" sh -c "! kill -0 $pid" || return 1
	wait "$pid" && cmp /tmp/wr.src /tmp/wr.dst
}

ulp_failed_or_resumed() {
	if ulp_busy_failed 60; then
		ktap_line "# the I/O in flight failed"
		return 0
	fi
	ulp_write_read 120 "$@" && ulp_busy_running &&
		ktap_line "# recovered: the I/O in flight resumed, new I/O verifies"
}

ulp_dmesg_mark=0

ulp_dmesg_since() {
	dmesg | tail -n "+$((ulp_dmesg_mark + 1))" | grep -qE "$1"
}

ulp_dmesg_count() {
	dmesg | tail -n "+$((ulp_dmesg_mark + 1))" | grep -cE "$1"
}

ulp_dmesg_start_phase() {
	ulp_dmesg_mark=$(dmesg | wc -l)
}

# ulp_rmmod_timed WHO: rmmod orca under a connected ULP.
ulp_rmmod_timed() {
	local start=$SECONDS rc
	timeout "$(scaled 90)" rmmod orca
	rc=$?
	ktap_line "# $1: rmmod orca took $((SECONDS - start)) s (exit $rc)"
	expect_eq "$p: $1: rmmod orca with the connection active" "$rc" 0
	ok_if "$p: $1: rmmod orca within 60 s" test $((SECONDS - start)) -le 60
}

# ulp_fresh_connection PROTO ADDR: after the removal, a new connection
# carries data that is read back identical.
ulp_fresh_connection() {
	local p=$1 t
	if "${p}_client_connect" "$2"; then
		if declare -F "${p}_client_target" >/dev/null; then
			t=$("${p}_client_target")
			# shellcheck disable=SC2086
			ok_if "$p: client: a fresh connection carries verified data" \
				ulp_write_read 120 $t
		fi
	else
		expect_eq "$p: client: a fresh connection after the removal" no yes
	fi
	"${p}_client_cleanup"
}

# The two phases, run by guest 0 (server) and guest 1 (client).
ulp_removal_server() {
	local p=$1
	ok_if "$p: server: client's removal phase done" flag_wait 400 "$p-a-done"
	if flag_wait 200 "$p-b-busy" "$p-b-failed"; then
		ulp_rmmod_timed server
		rdma_up orca
		ktap_line "# $p: server's device back at ${SECONDS}s"
		flag_set "$p-b-restored"
		# A target may have to be made again for the new device, which
		# it cannot while the old session is still being torn down.
		if flag_wait 300 "$p-b-clean" "$p-b-done"; then
			"${p}_server_recover"
		fi
	fi
	flag_set "$p-b-recovered"
	ok_if "$p: server: client finished" flag_wait 400 "$p-b-done"
}

ulp_removal_client() {
	local p=$1 addr=$2
	# (A) the client's own device goes.
	if "${p}_client_connect" "$addr" && "${p}_client_busy"; then
		ulp_dmesg_start_phase
		ulp_rmmod_timed client
		"${p}_client_loss" client
		rdma_up orca
		if declare -F "${p}_client_back" >/dev/null; then
			"${p}_client_back"
		fi
		"${p}_client_cleanup"
		ktap_line "# $p: old connection let go at ${SECONDS}s"
		ulp_fresh_connection "$p" "$addr"
	else
		expect_eq "$p: client: connected with I/O in flight (A)" no yes
		"${p}_client_cleanup"
	fi
	flag_set "$p-a-done"
	# (B) the server's device goes.
	if "${p}_client_connect" "$addr" && "${p}_client_busy"; then
		ulp_dmesg_start_phase
		flag_set "$p-b-busy"
		ok_if "$p: client: the server's device is back" \
			flag_wait 200 "$p-b-restored"
		ktap_line "# $p: the server's device is back at ${SECONDS}s"
		"${p}_client_loss" server
		"${p}_client_cleanup"
		ktap_line "# $p: old connection let go at ${SECONDS}s"
		flag_set "$p-b-clean"
		ok_if "$p: client: the server is ready again" \
			flag_wait 300 "$p-b-recovered"
		ulp_fresh_connection "$p" "$addr"
	else
		expect_eq "$p: client: connected with I/O in flight (B)" no yes
		flag_set "$p-b-failed"
		"${p}_client_cleanup"
	fi
	flag_set "$p-b-done"
}

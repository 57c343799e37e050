# SPDX-License-Identifier: GPL-2.0
#
# Device removal under connected kernel ULPs, sourced by in-guest/ulp.sh
# (mode "removal", ORCA on both sides).  Every protocol given connects
# and keeps I/O in flight at once, then (A) the client's own orca module
# is removed, (B) after fresh connections the server's is: one removal
# under all of them, as a real host would see it, and the waits (iSCSI's
# replacement timeout, fio noticing the loss) overlap instead of adding
# up.  Each rmmod must finish within 60 s (ib_unregister_device waits for
# every ULP to let go: a drain that never completes hangs it), each
# protocol must report the loss (I/O errors, or recovery once the device
# is back), and after orca is loaded again a fresh connection of each
# must carry verified data.  $ulp_removal_sides (ulp.sh's removal-client
# and removal-server) runs only phase A (client) or only phase B (server).
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
# Helpers for those (the busy fio is the calling protocol's own:
# ulp_call sets ulp_busy_tag to the protocol before every step):
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
ulp_busy_tag=busy
ulp_removal_sides=${ulp_removal_sides:-client server}

ulp_busy_rc() { echo "/tmp/busy-$ulp_busy_tag.rc"; }

ulp_busy_fio() {
	local file=$1 rc
	shift
	rc=$(ulp_busy_rc)
	rm -f "$rc"
	# Paced: four of these share the guest's one vCPU with the steps
	# that check them, and fifty writes a second keep I/O in flight as
	# well as an unpaced job that would starve the steps.
	(cd /tmp && fio --name="busy-$ulp_busy_tag" --filename="$file" --direct=1 \
		--ioengine=libaio --rw=randwrite --bs=4k --iodepth=4 \
		--rate_iops=50 --time_based --runtime=600 "$@" \
		>"/tmp/busy-$ulp_busy_tag.log" 2>&1
	 echo $? >"$rc") &
	# The job started (ulp_connect_busy lets them all get going).
	wait_for 10 ulp_busy_running
}

ulp_busy_running() {
	pgrep -f -- "--name=busy-$ulp_busy_tag " >/dev/null && ! test -e "$(ulp_busy_rc)"
}

ulp_busy_failed() {
	local rc f
	f=$(ulp_busy_rc)
	wait_for "$1" test -s "$f" || return 1
	rc=$(cat "$f")
	tail -n 3 "/tmp/busy-$ulp_busy_tag.log"
	echo "fio exit $rc"
	test "$rc" != 0
}

ulp_busy_stop() {
	pkill -INT -f -- "--name=busy-$ulp_busy_tag " || return 0
	wait_for 30 test -s "$(ulp_busy_rc)" ||
		pkill -KILL -f -- "--name=busy-$ulp_busy_tag "
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

# ulp_call PROTO STEP ARGS...: PROTO's STEP (PROTO_STEP ARGS), with its own
# busy fio; a STEP the protocol does not have is success.
# A step's time goes to the log from 2 s: the removal run's time is made of
# them.
ulp_call() {
	local p=$1 step=$2 f=${1}_$2 t0=$SECONDS rc
	shift 2
	declare -F "$f" >/dev/null || return 0
	ulp_busy_tag=$p
	"$f" "$@"
	rc=$?
	[ $((SECONDS - t0)) -lt 2 ] ||
		ktap_line "# $p: $step $* took $((SECONDS - t0)) s (at ${SECONDS}s)"
	return $rc
}

# ulp_rmmod_timed WHO PROTO...: rmmod orca under the connected PROTOs.
ulp_rmmod_timed() {
	local who=$1 start=$SECONDS rc
	shift
	timeout "$(scaled 90)" rmmod orca
	rc=$?
	ktap_line "# $who: rmmod orca under $* took $((SECONDS - start)) s (exit $rc)"
	expect_eq "$who: rmmod orca with $* connected" "$rc" 0
	ok_if "$who: rmmod orca within 60 s" test $((SECONDS - start)) -le 60
}

# ulp_fresh_connection PROTO ADDR: after the removal, a new connection
# carries data that is read back identical.
ulp_fresh_connection() {
	local p=$1 t
	if ulp_call "$p" client_connect "$2"; then
		if declare -F "${p}_client_target" >/dev/null; then
			t=$("${p}_client_target")
			# shellcheck disable=SC2086
			ok_if "$p: client: a fresh connection carries verified data" \
				ulp_write_read 120 $t
		fi
	else
		expect_eq "$p: client: a fresh connection after the removal" no yes
	fi
	ulp_call "$p" client_cleanup
}

# ulp_connect_busy PHASE ADDR PROTO...: every PROTO connects, then each
# starts its I/O (a connection made under the others' I/O takes several
# times as long on one vCPU); ulp_live lists those that did both (the
# others are failed cases, let go).  Not in a command substitution: the
# steps count cases and start background jobs in this shell.
ulp_live=()
ulp_connect_busy() {
	local phase=$1 addr=$2 p connected=()
	shift 2
	ulp_live=()
	for p; do
		if ulp_call "$p" client_connect "$addr"; then
			connected+=("$p")
		else
			expect_eq "$p: client: connected ($phase)" no yes
			ulp_call "$p" client_cleanup
		fi
	done
	for p in "${connected[@]}"; do
		if ulp_call "$p" client_busy; then
			ulp_live+=("$p")
		else
			expect_eq "$p: client: I/O in flight ($phase)" no yes
			ulp_call "$p" client_cleanup
		fi
	done
	# Let the last job started have I/O in flight too.
	[ "${#ulp_live[@]}" = 0 ] || sleep 3
}

# The two phases, run by guest 0 (server) and guest 1 (client), over the
# protocols whose servers are up.  Flags: a-done (the client's phase is
# over), b-busy or b-failed (every protocol connected and busy, or none),
# b-restored (the server's device is back), b-clean (the client let go of
# the old connections), b-recovered (the servers are ready again),
# b-done.
ulp_removal_server() {
	local p
	ok_if "server: client's removal phase done" flag_wait 600 a-done
	if [[ " $ulp_removal_sides " = *" server "* ]] &&
		flag_wait 300 b-busy b-failed; then
		ulp_rmmod_timed server "$@"
		rdma_up orca
		ktap_line "# server's device back at ${SECONDS}s"
		flag_set b-restored
		# A target may have to be made again for the new device, which
		# it cannot while the old session is still being torn down.
		if flag_wait 400 b-clean b-done; then
			for p; do
				ulp_call "$p" server_recover
			done
		fi
	fi
	flag_set b-recovered
	ok_if "server: client finished" flag_wait 600 b-done
}

ulp_removal_client() {
	local addr=$1 p
	shift
	# (A) the client's own device goes.
	ulp_live=()
	[[ " $ulp_removal_sides " = *" client "* ]] &&
		ulp_connect_busy A "$addr" "$@"
	if [ "${#ulp_live[@]}" != 0 ]; then
		ulp_dmesg_start_phase
		ulp_rmmod_timed client "${ulp_live[@]}"
		for p in "${ulp_live[@]}"; do ulp_call "$p" client_loss client; done
		rdma_up orca
		for p in "${ulp_live[@]}"; do ulp_call "$p" client_back; done
		for p in "${ulp_live[@]}"; do ulp_call "$p" client_cleanup; done
		ktap_line "# old connections let go at ${SECONDS}s"
		for p in "${ulp_live[@]}"; do ulp_fresh_connection "$p" "$addr"; done
	fi
	flag_set a-done
	# (B) the server's device goes.
	ulp_live=()
	[[ " $ulp_removal_sides " = *" server "* ]] &&
		ulp_connect_busy B "$addr" "$@"
	if [ "${#ulp_live[@]}" != 0 ]; then
		ulp_dmesg_start_phase
		flag_set b-busy
		ok_if "client: the server's device is back" flag_wait 200 b-restored
		ktap_line "# the server's device is back at ${SECONDS}s"
		for p in "${ulp_live[@]}"; do ulp_call "$p" client_loss server; done
		for p in "${ulp_live[@]}"; do ulp_call "$p" client_cleanup; done
		ktap_line "# old connections let go at ${SECONDS}s"
		flag_set b-clean
		ok_if "client: the server is ready again" \
			flag_wait 300 b-recovered
		for p in "${ulp_live[@]}"; do ulp_fresh_connection "$p" "$addr"; done
	else
		flag_set b-failed
	fi
	flag_set b-done
}

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Adapter faults with NVMe-oF I/O running.  Guest 0 is the nvmet target
# (orca), guest 1 the nvme-rdma host (orca), whose adapter gets the faults
# through its emulator's control file, one scenario after another on one
# boot:
#   fatal      "fatal": DEVICE_FATAL on EQ 0
#   heartbeat  "heartbeat-stop": only the watchdog can tell
#   hang       "hang", then "resume" after the driver gave up: the
#              emulator's late DMA count (DMA after the resume of work no
#              reset ended) must stay 0, i.e. the driver fenced the adapter
#   garbage    "garbage-eqe" and "garbage-cqe": malformed entries with a
#              valid phase; the driver must not WARN or corrupt anything
# Each scenario, with a verifying fio running on the namespace: the ULP
# sees errors (a dead adapter) and never a data mismatch, rmmod orca
# completes within 60 s, dmesg has no WARN, poison, KFENCE or hung task
# report, and after reloading orca a fresh connect carries verified I/O.
#
# Usage: fault-nvmeof.sh [SCENARIO...]   (default: all four, in that order;
# the garbage one last because a driver that trusts device values may
# crash on it)
. "$ORCA_TOP/selftests/lib/guest/guest.sh"
nvmeof_tag="target=orca host=orca "
# A dead adapter's I/O fails only when the host stops reconnecting: a few
# attempts are enough to show it retries, and each scenario waits for it
# (20 s by default, three times a run).
nvmeof_ctrl_loss_tmo=$((6 * ${ORCA_TIMEOUT_SCALE:-1}))
. "$ORCA_TOP/selftests/lib/guest/nvmeof.sh"

target_addr=10.0.0.1
scenarios=${*:-fatal heartbeat hang garbage}
emu_log=${ORCA_RUN_DIR:?}/g$gi/emu.log

run_target() {
	if rdma_up orca && target_up "$target_addr"; then
		flag_set target-ready
	else
		flag_set target-failed
	fi
	ok_if "target: host finished" flag_wait 1100 host-done
	target_down
	rdma_down orca
}

# --- the host's helpers -------------------------------------------------

busy_rc=/tmp/busy.rc
busy_log=/tmp/busy-fio.log

# A verifying writer that runs until stopped or failed: every block is read
# back and checked (crc32c) 16 writes after it was written.  Fully detached
# from our stdout, since ok_if captures it.
busy_start() {
	rm -f "$busy_rc"
	(cd /tmp && fio --name=busy --filename="$nvme_blk" --direct=1 \
		--ioengine=libaio --rw=randwrite --bs=4k --size=4M --iodepth=4 \
		--verify=crc32c --verify_backlog=16 --verify_fatal=1 \
		--verify_state_save=0 --time_based --runtime=900 \
		>"$busy_log" 2>&1
	 echo $? >"$busy_rc") </dev/null >/dev/null 2>&1 &
	sleep 3
	busy_running
}

busy_running() {
	pgrep -f -- --name=busy >/dev/null && ! test -e "$busy_rc"
}

# The writer ended with an error within $1 s.
busy_failed() {
	local rc
	wait_for "$1" test -s "$busy_rc" || return 1
	rc=$(cat "$busy_rc")
	tail -n 3 "$busy_log"
	echo "fio exit $rc"
	test "$rc" != 0
}

busy_stop() {
	pkill -INT -f -- --name=busy || return 0
	wait_for 30 test -s "$busy_rc" || pkill -KILL -f -- --name=busy
}

# fio read back something other than what it wrote (an I/O error is
# fine; wrong data is corruption).
busy_no_mismatch() {
	! grep -iE 'verify failed|bad magic|bad header|mismatch|bad pattern' \
		"$busy_log"
}

dmesg_mark=0
dmesg_since() { dmesg | tail -n "+$((dmesg_mark + 1))" | grep -qE "$1"; }

# No kernel report since the scenario started.
dmesg_clean_since() {
	! dmesg | tail -n "+$((dmesg_mark + 1))" | kernel_reports \
		'blocked for more than|Poison|poison|KFENCE|general protection' |
		grep -q .
}

# "BLOCKED LATE" from the emulator's DMA fence, asked for now.
emu_dma_counts() {
	local before
	before=$(grep -c 'engine: dma:' "$emu_log")
	echo counts >>"${ORCA_CTL:?}"
	fence_logged() { [ "$(grep -c 'engine: dma:' "$emu_log")" -gt "$before" ]; }
	wait_for 10 fence_logged || return 1
	sed -n 's/.*engine: dma: blocked \([0-9]*\).* late \([0-9]*\).*/\1 \2/p' \
		"$emu_log" | tail -n 1
}

# rmmod orca; a stuck one stays stuck in the background, not in the test.
rmmod_within() {
	local start=$SECONDS
	rm -f /tmp/rmmod.rc
	(rmmod orca >/tmp/rmmod.log 2>&1; echo $? >/tmp/rmmod.rc) \
		</dev/null >/dev/null 2>&1 &
	wait_for "$1" test -s /tmp/rmmod.rc || return 1
	cat /tmp/rmmod.log
	echo "rmmod orca took $((SECONDS - start)) s"
	[ "$(cat /tmp/rmmod.rc)" = 0 ]
}

no_namespace() { ! nvme_find_blk; }

# A connection to the target with verified I/O: after the first load and
# after every reload.
connect_and_verify() {
	local name=$1
	modprobe nvme-rdma &&
	# A dead transport is noticed by the driver's flush; should it not
	# be, the I/O timeout bounds the wait (30 s by default).
	echo 10 >/sys/module/nvme_core/parameters/io_timeout
	host_connect "$target_addr" &&
	fio_job "$name" --rw=randwrite --bs=4k --size=2M --offset=8M \
		--iodepth=8 --verify=crc32c --verify_fatal=1
}

stuck=0

fault_scenario() {
	local s=$1 b0 l0 b1 l1 c
	if [ "$stuck" = 1 ]; then
		ktap_line "not ok $s: not run: an earlier scenario left orca stuck"
		ktap_fail=1
		return
	fi
	if [ -z "$nvme_blk" ] || ! ok_if "$s: verifying fio running" busy_start; then
		ktap_line "not ok $s: not run: no working NVMe-oF namespace"
		ktap_fail=1
		return
	fi
	# (no process substitution: the guest has no /dev/fd)
	# The scenarios are about a dead adapter: no devlink recovery.
	ok_if "$s: devlink fw_fatal auto_recover off" orca_auto_recover off
	c=$(emu_dma_counts)
	b0=${c% *} l0=${c#* }
	dmesg_mark=$(dmesg | wc -l)
	ktap_line "# $s: fault injected at ${SECONDS}s"
	case $s in
	fatal) echo fatal >>"$ORCA_CTL" ;;
	heartbeat) echo heartbeat-stop >>"$ORCA_CTL" ;;
	hang) echo hang >>"$ORCA_CTL" ;;
	garbage)
		for c in 1 2 3; do
			echo garbage-eqe >>"$ORCA_CTL"
			echo garbage-cqe >>"$ORCA_CTL"
			sleep 1
		done
		;;
	esac
	if [ "$s" != garbage ]; then
		ok_if "$s: the driver declares the adapter dead" \
			wait_for 30 dmesg_since 'orca .*(dead|fatal)'
		ok_if "$s: the I/O in flight fails" busy_failed 150
	else
		sleep 5
		# A driver may drop what it cannot use or give up on the
		# adapter; either way the I/O goes on or fails, it never hangs.
		if busy_running; then
			ktap_line "# garbage: I/O still running after the garbage"
		elif dmesg_since 'orca .*(dead|fatal)'; then
			ktap_line "# garbage: the driver gave up on the adapter"
		fi
	fi
	ok_if "$s: fio saw no data mismatch" busy_no_mismatch
	if [ "$s" = hang ] || [ "$s" = heartbeat ]; then
		echo resume >>"$ORCA_CTL"
		# Whatever the adapter held back runs now; let it.
		sleep 5
		c=$(emu_dma_counts)
		b1=${c% *} l1=${c#* }
		ktap_line "# $s: after resume: DMA blocked by the fence $((${b1:-0} - ${b0:-0})), late $((${l1:-0} - ${l0:-0}))"
		expect_eq "$s: no DMA landed after the adapter resumed (late DMA count)" \
			"$((${l1:-1} - ${l0:-0}))" 0
	fi
	if ! ok_if "$s: rmmod orca completes within 60 s" rmmod_within 60; then
		stuck=1
		dmesg | tail -n +"$((dmesg_mark + 1))" | grep -E 'orca|nvme|INFO|WARN' |
			tail -n 15 | sed 's/^/# /' >>"$ktap_out"
		ok_if "$s: no WARN, poison or hung task in dmesg" dmesg_clean_since
		return
	fi
	ok_if "$s: the ULP saw errors: I/O failed" busy_failed 120
	busy_stop
	ok_if "$s: the namespace is gone" wait_for 60 no_namespace
	nvme disconnect -n "$nvmeof_nqn" >/dev/null 2>&1
	ok_if "$s: orca_0 gone" rdma_gone orca_0
	ok_if "$s: no WARN, poison or hung task in dmesg" dmesg_clean_since
	dmesg | tail -n +"$((dmesg_mark + 1))" | grep -E 'orca|nvme' |
		tail -n 8 | sed 's/^/# /' >>"$ktap_out"
	nvme_blk=
	# What the scenario is for: the adapter works again after a reload.
	# One case says so, whichever step failed (the steps' own cases are
	# named "host: ..." and "fio ...", the same after every scenario).
	# Not through ok_if: its subshell would lose the nvme_blk that
	# host_connect sets for the next scenario.
	if ! rdma_up orca; then
		stuck=1
		ktap_fail=1
		ktap_line "not ok $s: verified I/O after reloading orca (orca_0 did not come back)"
	elif connect_and_verify "$s-after-reload"; then
		ktap_line "ok $s: verified I/O after reloading orca"
	else
		ktap_fail=1
		ktap_line "not ok $s: verified I/O after reloading orca"
	fi
}

run_host() {
	local ready=0 s
	rdma_up orca || { flag_set host-done; return; }
	ok_if "host: reaches the target over the wire" \
		wait_for 20 busybox ping -c 1 -W 2 "$target_addr"
	flag_wait 120 target-ready target-failed && ready=1
	expect_eq "host: target ready" "$ready" 1
	if [ "$ready" = 1 ]; then
		connect_and_verify before-faults
		for s in $scenarios; do
			fault_scenario "$s"
		done
		[ "$stuck" = 0 ] && [ -n "$nvme_blk" ] && host_disconnect
	fi
	flag_set host-done
	[ "$stuck" = 0 ] && rdma_down orca
}

case $gi in
0) run_target ;;
1) run_host ;;
esac
dmesg_clean
ktap_done

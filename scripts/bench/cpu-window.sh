#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host CPU seconds a guest run spends in one window that a guest marks
# (make bench's CPU cost rows, issue 32).
#
# Usage: scripts/bench/cpu-window.sh RUN_DIR OUT [TIMEOUT]
#
# Waits (at most TIMEOUT seconds, default 900) for RUN_DIR/cpu-mark-start,
# which a guest creates on the work share when the window opens
# (in-guest/perftest.sh, ORCA_CPU_CASE), and for RUN_DIR/cpu-mark-end.  At
# each it reads the CPU time (user + system, all threads) of the run's own
# processes: those whose command line names RUN_DIR (QEMU, orca-emu,
# orca-wire).  Writes to OUT one line per kind of process:
#   cpu-window kind=qemu|orca-emu|orca-wire s=SECONDS procs=N
# and "cpu-window none" if a marker never came.  Runs in the background
# beside run-guests.sh.
set -uo pipefail

run=${1:?run directory}
out=${2:?output file}
timeout=${3:-900}
tck=$(getconf CLK_TCK)

# ticks KIND COMM: CPU ticks of this run's processes named COMM, and their
# count, as "KIND TICKS N".
ticks() {
	local kind=$1 p sum=0 n=0 f v
	for p in /proc/[0-9]*; do
		[ "$(cat "$p/comm" 2>/dev/null)" = "$2" ] || continue
		tr '\0' ' ' <"$p/cmdline" 2>/dev/null | grep -qF "$run/" || continue
		# Fields 14 and 15 (utime, stime) after the ")" of comm.
		f=$(sed 's/.*) //' "$p/stat" 2>/dev/null) || continue
		read -ra v <<<"$f"
		sum=$((sum + v[11] + v[12]))
		n=$((n + 1))
	done
	echo "$kind $sum $n"
}

snapshot() {
	ticks qemu qemu-system-x86
	ticks orca-emu orca-emu
	ticks orca-wire orca-wire
}

wait_for() {	# wait_for FILE: true once it exists
	local end=$((SECONDS + timeout))
	while [ ! -e "$1" ]; do
		[ "$SECONDS" -lt "$end" ] || return 1
		sleep 0.2
	done
}

: >"$out"
wait_for "$run/cpu-mark-start" || { echo "cpu-window none" >"$out"; exit 0; }
before=$(snapshot)
wait_for "$run/cpu-mark-end" || { echo "cpu-window none" >"$out"; exit 0; }
after=$(snapshot)
while read -r kind t n; do
	t0=$(awk -v k="$kind" '$1 == k { print $2 }' <<<"$before")
	awk -v k="$kind" -v a="$t" -v b="${t0:-0}" -v n="$n" -v hz="$tck" \
		'BEGIN { printf "cpu-window kind=%s s=%.2f procs=%d\n", k, (a - b) / hz, n }'
done <<<"$after" >"$out"

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

declare -A kind_of=()	# pid -> kind, of the run's processes
KINDS=(qemu orca-emu orca-wire)

# find_procs: the run's processes, by their name (comm) and a command line
# that names the run directory.  Shell builtins only: on a host busy with
# guests a subprocess per process made a snapshot take seconds.
find_procs() {
	local p c a k
	for p in /proc/[0-9]*; do
		read -r c <"$p/comm" 2>/dev/null || continue
		case $c in
		qemu-system-x86) k=qemu ;;
		orca-emu | orca-wire) k=$c ;;
		*) continue ;;
		esac
		mapfile -d '' -t a <"$p/cmdline" 2>/dev/null || continue
		[[ " ${a[*]} " == *"$run/"* ]] && kind_of[${p#/proc/}]=$k
	done
}

# ticks ARRAY: ARRAY[pid] = CPU ticks (utime + stime, all threads) of each
# process found; a process gone keeps no entry.
ticks() {
	local -n t=$1
	local p f v
	for p in "${!kind_of[@]}"; do
		read -r f <"/proc/$p/stat" 2>/dev/null || continue
		# Fields 14 and 15 (utime, stime) after the ")" of comm.
		read -ra v <<<"${f##*) }"
		# shellcheck disable=SC2034,SC2004 # t: the caller's array (nameref)
		t[$p]=$((v[11] + v[12]))
	done
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
find_procs
declare -A t0=() t1=()
ticks t0
wait_for "$run/cpu-mark-end" || { echo "cpu-window none" >"$out"; exit 0; }
ticks t1
for k in "${KINDS[@]}"; do
	sum=0 n=0
	for p in "${!kind_of[@]}"; do
		if [ "${kind_of[$p]}" != "$k" ] || [ -z "${t0[$p]:-}" ]; then
			continue
		fi
		# One that exited before the end counts up to its last reading.
		sum=$((sum + ${t1[$p]:-${t0[$p]}} - t0[$p]))
		n=$((n + 1))
	done
	awk -v k="$k" -v d="$sum" -v n="$n" -v hz="$tck" \
		'BEGIN { printf "cpu-window kind=%s s=%.2f procs=%d\n", k, d / hz, n }'
done >"$out"

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ORCA test runner (make check).  Builds everything, then runs the test
# programs in order: native unit tests (fast, under ASan/UBSan), lint, guest
# tests (QEMU/TCG guests with ORCA adapters).  Each program speaks KTAP; this
# runner counts its "ok"/"not ok" lines and ends with the summary line
# "N passed, N failed, N skipped".  Runs inside the toolroot (make check
# puts it there).
#
# Usage: selftests/run.sh [-k PATTERN]   only programs whose name matches
#        selftests/run.sh --long [-k PATTERN]   the long tier instead
#
# Tiers: a guest test whose script has a line "# tier: long" (a soak, or a
# baseline without ORCA in it) is left out of make check, which must stay
# short enough to run on every change, and runs in make check-long.
#
# Lanes: a guest test of one guest says "# lane: solo"; make check runs
# those first, two at a time together with the tree programs (the machine
# has two CPUs, a guest under TCG keeps one busy at most), then the tests
# of several guests one at a time.  A solo test's cases must not depend on
# having the machine to itself.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
# Started by hand in the toolroot (scripts/toolroot.sh --run selftests/run.sh
# -k NAME) too: its make must build here, not make a toolroot in the toolroot.
export ORCA_IN_TOOLROOT=1
tier=check
if [ "${1:-}" = --long ]; then
	tier=long
	shift
fi
filter=
[ "${1:-}" = -k ] && filter=${2:-}

# test_tier SCRIPT: the tier a guest test belongs to.
test_tier() {
	if grep -qx '# tier: long' "$1"; then echo long; else echo check; fi
}

pass=0 fail=0 skip=0
logdir=$top/out/check
mkdir -p "$logdir"
# Every failed case with the diagnostics just above it, repeated at the
# end: CI shows only the tail of a run, and that must say what failed.
recap=$logdir/failed-cases.txt
: >"$recap"
# Each program's wall time, for the summary's slowest ten.
times=$logdir/times.txt
: >"$times"
run_start=$SECONDS

# recap_failures NAME LOG: NAME's "not ok" lines, each after the (at most
# four) "#" lines that precede it.
recap_failures() {
	awk -v name="$1" '
		/^#/ { d[n++ % 4] = $0; next }
		/^not ok/ {
			print "# --- " name
			for (i = (n > 4 ? n - 4 : 0); i < n; i++)
				print "#   " d[i % 4]
			print $0
		}
		{ n = 0 }' "$2" >>"$recap"
}

# program_log NAME: where NAME's output goes.
program_log() { echo "$logdir/${1//\//_}.log"; }

# program_run NAME CMD...: run one KTAP program into its log; its exit
# status and wall time go beside the log for program_report.
program_run() {
	local name=$1 log start rc
	shift
	log=$(program_log "$name")
	start=$SECONDS
	"$@" >"$log" 2>&1
	rc=$?
	echo "$rc $((SECONDS - start))" >"$log.rc"
}

# program_report NAME: print NAME's log and add up its results.
program_report() {
	local name=$1 log rc took
	log=$(program_log "$name")
	read -r rc took <"$log.rc" || { rc=255 took=0; }
	rm -f "$log.rc"
	echo "# === $name"
	cat "$log"
	local p f s
	p=$(grep -cE '^ok [0-9]+' "$log" | head -n1)
	s=$(grep -cE '^ok [0-9]+.*# SKIP' "$log" | head -n1)
	f=$(grep -cE '^not ok [0-9]+' "$log" | head -n1)
	p=$((p - s))
	# A program that failed without saying which case failed, or said
	# nothing at all, is one failure.
	if { [ "$rc" != 0 ] && [ "$rc" != 4 ] && [ "$f" = 0 ]; } ||
	   [ $((p + f + s)) = 0 ]; then
		f=$((f + 1))
		echo "not ok - $name exited with status $rc" | tee -a "$log"
	fi
	# A program that stopped early, or lost cases on the way, ran fewer
	# than it planned: its plan lines ("1..N", one per guest or part) add
	# up to what it must have reported.
	local planned ran
	planned=$(awk '/^1\.\.[0-9]+$/ { n += substr($0, 4) } END { print n + 0 }' "$log")
	ran=$(grep -cE '^(not )?ok [0-9]+' "$log")
	if [ "$planned" != 0 ] && [ "$planned" != "$ran" ]; then
		f=$((f + 1))
		echo "not ok - $name planned $planned cases and reported $ran" | tee -a "$log"
	fi
	[ "$f" = 0 ] || recap_failures "$name" "$log"
	echo "$took $name" >>"$times"
	echo "# $name: $p passed, $f failed, $s skipped ($took s)"
	pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
}

# selected NAME: NAME passes the -k filter.
selected() { [ -z "$filter" ] || [[ $1 == *$filter* ]]; }

# run_program NAME CMD...: run one KTAP program and add up its results.
run_program() {
	selected "$1" || return 0
	program_run "$@"
	program_report "$1"
}

# The pool: the tree programs (patch series, packages: host builds) and
# the guest tests with one guest ("# lane: solo" in the script) leave part
# of the machine's two CPUs idle each (a TCG guest waits on timers and its
# adapter; a build links and runs checkpatch between compilers): they run
# two at a time, each starting as soon as a place is free, and are
# reported as they end.  Waiting for the pair that started together kept
# a CPU idle for the difference; running them one after the other, the
# other CPU.
declare -A pool_name=()	# pid -> program

# pool_reap: wait for any program of the pool to end, and report it.
pool_reap() {
	local pid
	wait -n -p pid "${!pool_name[@]}"
	program_report "${pool_name[$pid]}"
	unset "pool_name[$pid]"
}

# pool_run NAME CMD...: in the background once fewer than two run.
pool_run() {
	selected "$1" || return 0
	while [ ${#pool_name[@]} -ge 2 ]; do pool_reap; done
	program_run "$@" &
	pool_name[$!]=$1
}

# pool_wait_for NAME: until NAME has ended, if it runs (what a later
# program needs: 90-deb-install the packages of deb).
pool_wait_for() {
	local pid
	for pid in "${!pool_name[@]}"; do
		[ "${pool_name[$pid]}" = "$1" ] || continue
		wait "$pid"
		program_report "$1"
		unset "pool_name[$pid]"
	done
}

pool_drain() {
	while [ ${#pool_name[@]} -gt 0 ]; do pool_reap; done
}

is_solo() { grep -qx '# lane: solo' "$1"; }

# summary: the slowest programs, the failed cases again, then the totals;
# status 1 on a failure.
summary() {
	echo "# the ten slowest programs (s):"
	sort -rn "$times" | head -n 10 | sed 's/^/#   /'
	echo "# all programs: $((SECONDS - run_start)) s"
	if [ -s "$recap" ]; then
		echo "# failed cases ($recap):"
		head -n 120 "$recap"
	fi
	echo "$pass passed, $fail failed, $skip skipped"
	[ "$fail" = 0 ]
}

echo "# building"
if ! make --no-print-directory all >"$logdir/build.log" 2>&1; then
	tail -n 60 "$logdir/build.log"
	echo "not ok - build failed"
	echo "0 passed, 1 failed, 0 skipped"
	exit 1
fi

if [ "$tier" = long ]; then
	for t in selftests/guest/[0-9]*.sh; do
		[ -x "$t" ] && [ "$(test_tier "$t")" = long ] || continue
		run_program "guest/$(basename "$t" .sh)" "$t"
	done
	summary
	exit
fi

# 1. Native unit tests.
for t in emulator/build/tests/test_*; do
	[ -x "$t" ] || continue
	run_program "unit/$(basename "$t")" env ORCA_WIRE_BIN="$top/emulator/build/orca-wire" "$t"
done

# 2. Lint, and the provider's StoreLoad barriers (MFENCE on x86-64).
run_program lint selftests/tree/lint.sh
run_program provider-barriers selftests/tree/provider-barriers.sh

# 2b/3a. The pool: the upstreaming and packaging checks (the patch series
# build in pristine trees, the packages install in a copy of the toolroot;
# the launcher's commands and errors without guests; make bench's table
# generator renders a fixed sample run; the guest tests' loss-free wire
# check and kernel-log check read fixed sample logs), none of which
# touches the tree the guests load from, and the guest tests of one guest
# in name order.  The two builds, patches and deb, each beside a guest
# test rather than beside each other: a build keeps both CPUs busy, a TCG
# guest about one.  90-deb-install installs the packages of deb.
pool=()
for t in selftests/guest/[0-9]*.sh; do
	[ -x "$t" ] && [ "$(test_tier "$t")" = check ] && is_solo "$t" && pool+=("$t")
done
tree_late=(selftests/tree/deb.sh selftests/tree/launch.sh selftests/tree/bench-report.sh
	selftests/tree/wire-lossfree.sh selftests/tree/kernel-log-check.sh selftests/tree/ulp-pcap.sh)
pool=(selftests/tree/patches.sh "${pool[@]:0:2}" "${tree_late[@]}" "${pool[@]:2}")
for t in "${pool[@]}"; do
	[ -x "$t" ] || continue
	case $t in
	selftests/tree/*) pool_run "$(basename "$t" .sh)" "$t" ;;
	*)
		[[ $t == */90-deb-install.sh ]] && pool_wait_for deb
		pool_run "guest/$(basename "$t" .sh)" "$t"
		;;
	esac
done
pool_drain

# 3b. Guest tests of several guests, one at a time, in name order.
for t in selftests/guest/[0-9]*.sh; do
	[ -x "$t" ] && [ "$(test_tier "$t")" = check ] && ! is_solo "$t" || continue
	run_program "guest/$(basename "$t" .sh)" "$t"
done

summary

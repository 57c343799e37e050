# SPDX-License-Identifier: GPL-2.0
#
# Sourced by test scripts that run inside an ORCA guest.  Results are KTAP
# lines appended to $ORCA_RESULT_DIR/g$ORCA_GUEST_INDEX.tap (the host side,
# lib/host/host.sh, merges them); without ORCA_RESULT_DIR they go to stdout.
#
#   ok_if NAME CMD...     one test case: ok iff CMD succeeds; its output is
#                         kept as "# " comments when it fails
#   expect_eq NAME GOT WANT
#   dmesg_quiet [EXTRA-ERE]  the kernel log has no report (lib/kernel-log.sh)
#                         and no line EXTRA-ERE matches; the known reports
#                         that ORCA_KERNEL_LOG_DEFER names are left to the
#                         host's case
#   orca_load             load ib_core, the orca driver and the observer
#   orca_auto_recover on|off  devlink fw_fatal auto_recover of orca_0
#   wait_for SECS CMD...  poll CMD (every 0.2 s) until it succeeds
#   barrier NAME SECS     wait until every guest of the run reached NAME
#   flag_set NAME / flag_wait SECS NAME [NAME...]
#                         one guest tells the others that it reached a point
#   rdma_up KIND          orca: load the repo's driver (orca_0);
#                         rxe: rdma_rxe on eth0 (rxe0); siw: Soft-iWARP
#                         (scripts/out-of-tree/siw-build.sh) on eth0 (siw0), for
#                         benchmarks.  Sets $rdma_dev.
#   rdma_down KIND        the reverse; the device must disappear

top=${ORCA_TOP:?ORCA_TOP unset}
gi=${ORCA_GUEST_INDEX:-0}
if [ -n "${ORCA_RESULT_DIR:-}" ]; then
	ktap_out=$ORCA_RESULT_DIR/g$gi.tap
	: >"$ktap_out"
else
	ktap_out=/dev/stdout
fi
ktap_fail=0

ktap_line() { echo "$*" >>"$ktap_out"; echo "$*"; }

# A step that took 20 s or more says so ("# took N s: NAME"), so the logs
# of make check show where a slow test spends its time under TCG.
ok_if() {
	local name=$1 out rc t0=$SECONDS; shift
	out=$("$@" 2>&1); rc=$?
	[ $((SECONDS - t0)) -ge 20 ] &&
		echo "# took $((SECONDS - t0)) s: $name" >>"$ktap_out"
	if [ $rc = 0 ]; then
		ktap_line "ok $name"
	else
		ktap_fail=1
		printf '%s\n' "$out" | tail -n 15 | sed 's/^/# /' >>"$ktap_out"
		ktap_line "not ok $name (exit $rc)"
	fi
	return $rc
}

# kernel_reports [EXTRA-ERE]: the kernel log lines that are reports, the
# same kinds the host fails a guest's whole log on (lib/kernel-log.sh), and
# those EXTRA-ERE adds.
. "$(dirname "${BASH_SOURCE[0]}")/../kernel-log.sh"

# True if the kernel log has no report (kernel_reports [EXTRA-ERE]).
# The reports are its output: ok_if keeps them when the case fails.  A
# kernel log that cannot be read, or a check that cannot run (grep's status
# 2), is no proof of a quiet one.
dmesg_quiet() {
	local log reports
	log=$(dmesg) && [ -n "$log" ] ||
		{ echo "dmesg_quiet: no kernel log (dmesg failed)"; return 1; }
	# A known report (lib/kernel-log.sh) that the host may explain from
	# the wire is left to the host's case for the whole log, which counts
	# it unless the run's own check proved its cause.
	reports=$(kernel_log_unexplained "${ORCA_KERNEL_LOG_DEFER:-}" <<<"$log" |
		kernel_reports "${1:-}")
	case $? in
	1) return 0 ;;
	0) printf '%s\n' "$reports"; return 1 ;;
	*) echo "dmesg_quiet: the check did not run"; return 1 ;;
	esac
}

expect_eq() {
	if [ "$2" = "$3" ]; then
		ktap_line "ok $1"
	else
		ktap_fail=1
		ktap_line "# got '$2', want '$3'"
		ktap_line "not ok $1"
	fi
}

# scaled SECS: a step's time limit (timeout(1)), stretched by
# ORCA_TIMEOUT_SCALE as every wait below is.
scaled() { echo $(($1 * ${ORCA_TIMEOUT_SCALE:-1})); }

# ORCA_TIMEOUT_SCALE (make check-debug: a debug kernel is slower) stretches
# every wait of wait_for and flag_wait, as run-guests.sh stretches the run.
wait_for() {
	local secs=$(($1 * ${ORCA_TIMEOUT_SCALE:-1})) i; shift
	for i in $(seq $((secs * 5))); do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.2
	done
	"$@"
}

# The PIDs of process @1 and all its descendants.
descendants() {
	local p
	echo "$1"
	for p in $(ps -o pid= --ppid "$1" 2>/dev/null); do
		descendants "$p"
	done
}

# bounded SECS CMD...: CMD's exit status, or 124 if it still runs after SECS
# (stretched by ORCA_TIMEOUT_SCALE).  Then the kernel stack of every
# process it left, the busiest tasks and the blocked ones (sysrq w) go to
# the test's log as "#" lines, and CMD is left running: a module unload
# that never returns shows where it is stuck instead of holding the test
# until the run's own timeout kills the guest with nothing logged.
bounded() {
	local secs=$(($1 * ${ORCA_TIMEOUT_SCALE:-1})) pid i p rc
	local log=/tmp/.bounded.$$.$RANDOM
	shift
	# Not into the caller's stdout: a command substitution around us
	# (ok_if) would wait for a command left running to close it.
	"$@" >"$log" 2>&1 </dev/null &
	pid=$!
	for ((i = 0; i < secs * 5; i++)); do
		if ! kill -0 "$pid" 2>/dev/null; then
			wait "$pid"
			rc=$?
			cat "$log"
			rm -f "$log"
			return $rc
		fi
		sleep 0.2
	done
	cat "$log"
	{
		echo "still running after $secs s: $*"
		for p in $(descendants "$pid"); do
			[ -r "/proc/$p/stat" ] || continue
			echo "pid $p $(awk '{ print $3 }' "/proc/$p/stat"): $(tr '\0' ' ' <"/proc/$p/cmdline")"
			sed 's/^/    /' "/proc/$p/stack"
		done
		echo "busiest tasks:"
		ps -eo pid,stat,time,comm --sort=-time | head -n 8
		echo w >/proc/sysrq-trigger
		sleep 1
		dmesg | tail -n 80
	} 2>&1 | sed 's/^/# /' >>"$ktap_out"
	return 124
}

# unload_modules SECS MODULE...: modprobe -r until it works, for up to SECS
# of wall time (stretched by ORCA_TIMEOUT_SCALE).  If the modules stay in
# use, what holds them goes to the test's log as "#" lines: their reference
# counts and holders, the RDMA resources still there, the blocked tasks.
unload_modules() {
	local secs=$(($1 * ${ORCA_TIMEOUT_SCALE:-1})) end m
	shift
	end=$((SECONDS + secs))
	until modprobe -r "$@" 2>/dev/null; do
		if [ "$SECONDS" -ge "$end" ]; then
			{
				echo "modprobe -r $* still fails after $secs s"
				modprobe -r "$@"
				for m in "$@"; do
					[ -d "/sys/module/$m" ] || continue
					echo "$m: refcnt $(cat "/sys/module/$m/refcnt" 2>/dev/null), holders: $(ls "/sys/module/$m/holders" 2>/dev/null | tr '\n' ' ')"
				done
				rdma resource show qp
				rdma resource show cm_id
				echo w >/proc/sysrq-trigger
				sleep 1
				dmesg | tail -n 60
			} 2>&1 | sed 's/^/# /' >>"$ktap_out"
			return 1
		fi
		sleep 0.5
	done
}

barrier() {
	local dir=${ORCA_RUN_DIR:?}/barrier-$1
	mkdir -p "$dir" && touch "$dir/g$gi"
	all_arrived() { [ "$(ls "$dir" | wc -l)" -ge "${ORCA_GUEST_COUNT:-1}" ]; }
	wait_for "$2" all_arrived
}

# Flags in the run directory, which every guest shares.  Waiting costs one
# builtin test a second: under TCG every forked process is expensive, and a
# waiting guest shares the host's CPUs with the one being measured.
flag_set() { : >"${ORCA_RUN_DIR:?}/flag-$1"; }
flag_wait() {	# flag_wait SECS NAME [NAME...]: wait for any; 0 iff the first
	local secs=$(($1 * ${ORCA_TIMEOUT_SCALE:-1})) fifo=/tmp/.flag-wait.$$ fd i f
	shift
	[ -p "$fifo" ] || mkfifo "$fifo" || return 1
	exec {fd}<>"$fifo"
	for ((i = 0; i < secs; i++)); do
		for f in "$@"; do
			[ -e "$ORCA_RUN_DIR/flag-$f" ] && break 2
		done
		read -r -t 1 -u "$fd" _
	done
	exec {fd}>&-
	[ -e "$ORCA_RUN_DIR/flag-$1" ]
}

# ORCA_KO: another build of the driver (the patch series'), else the repo's.
# ORCA_KMOD_DIR: where the repo's modules were built (make check-debug
# builds them for its kernel under out/), else in the tree.
kmod_dir=${ORCA_KMOD_DIR:-$top}
orca_ko=${ORCA_KO:-$kmod_dir/drivers/infiniband/hw/orca/orca.ko}
ktest_ko=$kmod_dir/selftests/kmod/orca_ktest.ko

orca_load() {
	mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
	modprobe ib_core && modprobe ib_uverbs &&
	insmod "$ktest_ko" 2>/dev/null; insmod "$orca_ko" &&
	wait_for 20 test -e /sys/class/infiniband/orca_0
}

# orca_auto_recover on|off: whether the devlink fw_fatal reporter of
# orca_0's function recovers a dead adapter by itself (on after every
# load).  Tests of what a dead adapter does turn it off.
orca_auto_recover() {
	local fn
	fn=$(basename "$(readlink -f /sys/class/infiniband/orca_0/device)")
	devlink health set "pci/$fn" reporter fw_fatal auto_recover \
		"$([ "$1" = on ] && echo true || echo false)"
}

# The netdev the adapter's port is paired with (the guest's only NIC).
orca_netdev() {
	rdma link show orca_0/1 2>/dev/null | sed -n 's/.* netdev \([^ ]*\).*/\1/p'
}

ktest_dir=/sys/kernel/debug/orca_ktest/orca_0
ktest_port() { awk -v k="$1" '$1 == k { print $2 }' "$ktest_dir/port"; }
ktest_event() { awk -v k="$1" '$0 ~ "^" k " " { print $NF }' "$ktest_dir/events"; }

rdma_dev=

port_active() {
	rdma link show "$1/1" 2>/dev/null | grep -q 'state ACTIVE'
}

rdma_up() {
	case $1 in
	orca)
		rdma_dev=orca_0
		ok_if "orca: driver loads, orca_0 registered" orca_load || return 1
		;;
	rxe)
		rdma_dev=rxe0
		ok_if "rxe: rdma_rxe loads" modprobe rdma_rxe || return 1
		ok_if "rxe: rxe0 added on eth0" \
			rdma link add rxe0 type rxe netdev eth0 || return 1
		;;
	siw)
		rdma_dev=siw0
		ok_if "siw: siw.ko loads" sh -c \
			"modprobe -a ib_core ib_uverbs && insmod /opt/orca-siw/siw.ko" ||
			return 1
		ok_if "siw: siw0 added on eth0" \
			rdma link add siw0 type siw netdev eth0 || return 1
		;;
	*)
		ktap_line "not ok rdma device kind '$1' is orca, rxe or siw"
		ktap_fail=1
		return 1
		;;
	esac
	ok_if "$1: $rdma_dev/1 ACTIVE" wait_for 20 port_active "$rdma_dev"
}

rdma_gone() { ! test -e "/sys/class/infiniband/$1"; }

rdma_down() {
	case $1 in
	orca)
		ok_if "orca: rmmod orca" rmmod orca
		;;
	rxe)
		# Its counters go with it: the host's loss-free check reads
		# send_err (wire_lossfree.py).
		[ -d "${ORCA_RUN_DIR:-}/g$gi" ] &&
			rdma statistic show link rxe0/1 \
				>"$ORCA_RUN_DIR/g$gi/rxe-counters" 2>&1
		ok_if "rxe: rxe0 deleted" rdma link delete rxe0 &&
		ok_if "rxe: rmmod rdma_rxe" rmmod rdma_rxe
		;;
	siw)
		ok_if "siw: siw0 deleted" rdma link delete siw0 &&
		ok_if "siw: rmmod siw" rmmod siw
		;;
	esac
	ok_if "$1: $rdma_dev gone" wait_for 10 rdma_gone "$rdma_dev"
}

ktap_done() { exit $ktap_fail; }

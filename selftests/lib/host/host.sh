# SPDX-License-Identifier: GPL-2.0
#
# Sourced by the host side of a guest test (selftests/guest/NN-*.sh).
#
#   run_guests N TIMEOUT [RUNNER-OPTS...] -- SCRIPT [ARGS...]
#
# boots N guests with scripts/guests/run-guests.sh, runs SCRIPT in each (it sources
# lib/guest/guest.sh and writes KTAP lines to a per-guest file in the shared work
# tree), then prints the merged KTAP, each case prefixed with its guest, and
# returns the runner's status.  Logs stay in out/guest/<test>/ (or
# $ORCA_GUEST_OUT/<test>/: make check-debug keeps its own).
# The guests boot with the allocator's debugging on (run-guests.sh
# --kernel-checks), and each guest's kernel log adds one case: "not ok" with
# the first report in it (the kinds are in lib/kernel-log.sh), which also
# makes the status non-zero.  Then one case for the whole run: the wire was
# loss-free (see wire_lossfree_case), unless the test declared it lossy.
#
#   wire_lossy REASON          before run_guests: this test loses frames on
#                              purpose (injected faults, adapters killed or
#                              reset under traffic); the loss-free case is
#                              skipped with REASON
#
#   wire_odp                   before run_guests: the test's MRs are on demand
#                              (IBV_ACCESS_ON_DEMAND): on a wire that dropped
#                              nothing, what the adapters' page faults make
#                              them send again is reported, not counted
#                              (wire_lossfree.py --odp)
#
#   host_explain=FUNC          before run_guests: FUNC checks the run once the
#                              guests are done, before their kernel log cases,
#                              and sets kernel_log_explained to the keys of
#                              the known reports (lib/kernel-log.sh) that it
#                              proved are not ORCA's
#
#   host_result OK|FAIL NAME   a test case checked on the host side
#   host_done RC               print the plan and exit (RC or 1 if a case failed)
#   host_final_reset_empty     a case: the adapter of guest 0 held no object
#                              when the driver reset it last (on unload)

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
cd "$top" || exit 1
test_name=$(basename "$0" .sh)
out=${ORCA_GUEST_OUT:-$top/out/guest}/$test_name

num=0 host_failed=0 wire_lossy_reason=

wire_lossy() {
	wire_lossy_reason=$1
}

# wire_odp: the test registers its MRs on demand (data-path.rst, "On-demand
# paging"): a READ response or atomic result that finds no page is dropped
# and asked for again once the fault is resolved (a retransmission, and a
# duplicate at the responder), and a QP stopped on its own fault asks again
# for the responses it dropped meanwhile when its timer runs out.
wire_odp() {
	wire_odp=1
}

# wire_mac_changes: the test changes a guest's MAC address on purpose; the
# frames the guest sends from it, which its port drops as foreign (the
# port passes only the guest's own address), are not a loss of the wire.
wire_mac_changes() {
	wire_mac_changes=1
}

host_result() {
	num=$((num + 1))
	if [ "$1" = OK ]; then
		echo "ok $num $2"
	else
		host_failed=1
		echo "not ok $num $2"
	fi
}

host_done() {
	echo "1..$num"
	[ "$host_failed" = 0 ] || exit 1
	exit "$1"
}

run_guests() {
	local n=$1 timeout=$2 opts=() rc i line
	shift 2
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		opts+=("$1"); shift
	done
	shift
	rm -rf "$out" && mkdir -p "$out"
	scripts/guests/run-guests.sh -n "$n" -t "$timeout" --out "$out/run" \
		--kernel-checks "${opts[@]}" -- \
		env ORCA_TOP="$top" ORCA_RESULT_DIR="$out" \
		${ORCA_KMOD_DIR:+ORCA_KMOD_DIR="$ORCA_KMOD_DIR"} "$@"
	rc=$?
	echo "TAP version 13"
	for i in $(seq 0 $((n - 1))); do
		[ -f "$out/g$i.tap" ] || { echo "# guest $i wrote no results"; continue; }
		while IFS= read -r line; do
			case $line in
			"ok "* | "not ok "*)
				num=$((num + 1))
				local st=${line%% *} rest=${line#ok }
				[ "$st" = not ] && { st="not ok"; rest=${line#not ok }; }
				echo "$st $num g$i: $rest"
				;;
			*) echo "$line" ;;
			esac
		done <"$out/g$i.tap"
	done
	# A test's own check of the run that can explain a kernel report
	# (kernel_log_known) runs first: it sets kernel_log_explained.
	[ -z "${host_explain:-}" ] || "$host_explain"
	for i in $(seq 0 $((n - 1))); do
		kernel_log_case "$i" || { [ "$rc" = 0 ] && rc=1; }
	done
	wire_lossfree_case "${opts[@]}" || { [ "$rc" = 0 ] && rc=1; }
	return $rc
}

# wire_lossfree_case RUNNER-OPTS...: one case for the run (issue 11).  On a
# wire without injected faults nothing is lost: the switch, the adapters'
# ports and their engines push back instead of dropping (backpressure,
# Documentation/orca/topology.rst), so an ORCA adapter has nothing to
# retransmit.  lib/host/wire_lossfree.py reads the switch's and every emulator's
# exit log and fails the case on any retransmission, retry timeout, early
# retransmission, duplicate request, sequence gap, or frame dropped by an
# engine, a port (towards the wire) or the switch.  With an rxe guest
# (no-orca in RUNNER-OPTS), the duplicates (and duplicated responses) rxe's
# own retransmissions cause at an ORCA adapter are reported, not counted:
# rxe retransmits on its own timers, which are not ours to assert on; every
# retransmission and drop of ours still counts, and so does a gap in what
# rxe sent (a sequence NAK of ours) and a datagram of rxe's that ours
# dropped, unless the rxe guest's own network stack (its qdisc, rxe's send
# errors: saved by the guest) dropped frames: then that guest's Ethernet
# lost them, and what ours resent is reported, not counted.  On slower guests (ORCA_TIMEOUT_SCALE > 1: the debug kernel) a
# retransmission on a wire that dropped nothing is a peer slower than its
# QP's ACK timeout, and is reported, not counted (--slow-guests); so is,
# after wire_odp, what the adapters sent again for their page faults on a
# wire that dropped nothing (--odp).  Skipped (with the reason) after
# wire_lossy.
wire_lossfree_case() {
	local args=("$out/run") line
	num=$((num + 1))
	if [ -n "$wire_lossy_reason" ]; then
		echo "ok $num wire loss-free # SKIP $wire_lossy_reason"
		return 0
	fi
	# An isolated wire (--isolate) gives no guest a peer: an rxe guest
	# there runs a test of its own.
	case " $* " in
	*--isolate*) ;;
	*no-orca*) args+=(--rxe-peer) ;;
	esac
	case " $* " in
	*" --p2p "*) args+=(--p2p) ;;
	esac
	[ "${ORCA_TIMEOUT_SCALE:-1}" -gt 1 ] && args+=(--slow-guests)
	[ "${wire_mac_changes:-0}" = 1 ] && args+=(--mac-changes)
	[ "${wire_odp:-0}" = 1 ] && args+=(--odp)
	line=$(python3 "$(dirname "${BASH_SOURCE[0]}")/wire_lossfree.py" "${args[@]}")
	grep '^#' <<<"$line"
	line=$(grep -v '^#' <<<"$line")
	case $line in
	"ok "*) echo "ok $num ${line#ok }"; return 0 ;;
	"fail "*) echo "not ok $num ${line#fail }" ;;
	*) echo "not ok $num wire loss-free: no verdict ($line)" ;;
	esac
	host_failed=1
	return 1
}

# kernel_reports and what the guests' kernel can report (kernel_log_kinds):
# one list for this case and the guests' own checks (dmesg_quiet).
. "$(dirname "${BASH_SOURCE[0]}")/../kernel-log.sh"

# kernel_log_case I: one case for guest I's kernel log (g<I>/dmesg, saved by
# guest-init at the end, else the console, which has only errors): ok iff
# it holds no report and kmemleak's scan found nothing.  A failure names the
# first report and keeps the lines around each as comments.  The case names
# what the guests' kernel can report: make check's has no KASAN, lockdep or
# kmemleak; check-debug's kernel (ORCA_GUEST_KERNEL) adds them.
kernel_log_case() {
	local g=$out/run/g$1 log src reports kinds
	if [ -n "${ORCA_GUEST_KERNEL:-}" ]; then
		kinds=$(kernel_log_kinds debug)
	else
		kinds=$(kernel_log_kinds stock)
	fi
	if [ -f "$g/dmesg" ]; then
		log=$g/dmesg src=dmesg
	else
		log=$g/console.log src="console (no dmesg saved)"
	fi
	# No log at all (the guest never booted) is no proof of a clean one.
	num=$((num + 1))
	if [ ! -s "$log" ]; then
		echo "not ok $num g$1: kernel log: none saved (no dmesg, no console output in $g)"
		return 1
	fi
	# Without the timestamp and a caller id ("[    C1]"), for the name.
	# Its status is the grep's: 1 is no report, 2 or more a check that
	# did not run, which proves nothing.
	local dropped=$out/run/g$1.explained explained=
	reports=$(set -o pipefail
		sed -E 's/^\[ *[0-9.]+\] (\[ *[CT][0-9]+\] )?//' "$log" |
		grep -n '' |
		kernel_log_unexplained "${kernel_log_explained:-}" "$dropped" |
		kernel_reports)
	case $? in
	0 | 1) ;;
	*)
		echo "not ok $num g$1: kernel log: the check did not run on $log"
		return 1
		;;
	esac
	if [ -s "$dropped" ]; then
		explained=" ($(sort "$dropped" | uniq -c |
			awk '{ printf "%s%s x%d", (NR > 1 ? ", " : ""), $2, $1 }'):"
		explained+=" explained by the wire, not ORCA's)"
	fi
	if [ -s "$g/kmemleak" ]; then
		reports+=${reports:+$'\n'}"0:kmemleak: $(grep -c '^unreferenced object' "$g/kmemleak") unreferenced objects ($g/kmemleak)"
	fi
	if [ -z "$reports" ]; then
		echo "ok $num g$1: kernel log: no $kinds report$explained"
		return 0
	fi
	# Name the report by its first line that says what happened ("cut
	# here" only opens a WARN); show each report's first 30 lines, three
	# reports at most.
	local first line shown=0 upto=0
	first=$(grep -v 'cut here' <<<"$reports" | head -n 1)
	echo "# g$1: $(wc -l <<<"$reports") report line(s) in $log"
	while IFS=: read -r line _; do
		[ "$line" -gt "$upto" ] && [ "$shown" -lt 3 ] || continue
		upto=$((line + 29)) shown=$((shown + 1))
		sed -n "${line},${upto}p" "$log" | sed 's/^/# /'
		echo "# --"
	done <<<"$reports"
	[ -s "$g/kmemleak" ] && head -n 40 "$g/kmemleak" | sed 's/^/# /'
	echo "not ok $num g$1: kernel log ($src): ${first#*:}"
	return 1
}

# host_resets_empty: the adapter held no object at any of the driver's
# resets (a load's, an unload's) in the run: for a boot that unloads orca
# under several processes in turn (70-uverbs-local).  A DESTROY_CQ the
# adapter was told to refuse (the ctl file's fail-destroy) leaves that CQ,
# its EQ and the UAR to the next reset, as the driver must: each such
# refusal excuses one reset holding exactly those.
host_resets_empty() {
	local all n bad kept refused
	all=$(grep 'engine: freeing objects:' "$out/run/g0/emu.log" 2>/dev/null)
	n=$(printf '%s\n' "$all" | grep -c .)
	bad=$(printf '%s\n' "$all" | grep . |
		grep -vc 'pd 0 cq 0 mr 0 qp 0 ah 0 srq 0 gsi 0 eq 0 uar 0$')
	kept=$(printf '%s\n' "$all" |
		grep -c 'pd 0 cq 1 mr 0 qp 0 ah 0 srq 0 gsi 0 eq 1 uar 1$')
	refused=$(grep -c 'fail-destroy: command 0x2a on handle [0-9]* refused' \
		"$out/run/g0/emu.log" 2>/dev/null)
	[ "$kept" -le "${refused:-0}" ] || kept=${refused:-0}
	printf '%s\n' "$all" | sed 's/.*objects: /# adapter at a driver reset: /'
	[ "$kept" -gt 0 ] &&
		echo "# $kept of them kept the CQ of a DESTROY_CQ the adapter refused (fail-destroy)"
	if [ "$n" -gt 0 ] && [ "$((bad - kept))" = 0 ]; then
		host_result OK "adapter holds no objects at any of the driver's $n resets"
	else
		host_result FAIL "adapter holds no objects at any of the driver's $n resets ($((bad - kept)) with objects)"
	fi
}

host_final_reset_empty() {
	local last
	last=$(grep 'engine: freeing objects:' "$out/run/g0/emu.log" 2>/dev/null | tail -n 1)
	echo "# adapter at the driver's final reset: ${last#*objects: }"
	if echo "$last" | grep -q 'pd 0 cq 0 mr 0 qp 0 ah 0 srq 0 gsi 0 eq 0 uar 0$'; then
		host_result OK "adapter holds no objects after rmmod under a process"
	else
		host_result FAIL "adapter holds no objects after rmmod under a process"
	fi
}

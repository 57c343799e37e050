#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The kernel log check of every guest test (selftests/lib/guest/
# kernel-log.sh) on fixed sample logs (selftests/tree/kernel-log-samples.txt),
# as KTAP: each kind of report fails both the host's case for a guest's
# whole log (kernel_log_case, lib/host/host.sh) and a guest's own dmesg_quiet
# (lib/guest/guest.sh), and the host's case names it by the line that says what
# happened; harmless lines pass both; no log at all fails.  Then the
# case's name: it promises only what the guests' kernel can report, and
# each detector it names for make check's kernel is in Debian's config,
# each it names for check-debug's in scripts/debug-kernel.config.  No
# guests: make check runs it with the other host-side tests.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
work=$top/out/kernel-log-check-test
rm -rf "$work"
mkdir -p "$work"
samples=selftests/tree/kernel-log-samples.txt

. "$top/selftests/lib/host/ktap-result.sh"
. selftests/lib/kernel-log.sh

# The samples' blocks, numbered: $work/N.head holds "report|clean", the
# name and the report's TEXT on three lines, $work/N.log its log lines.
awk -v dir="$work" '
	/^#/ || /^[[:space:]]*$/ { next }
	/^@(report|clean) / {
		n++
		kind = substr($1, 2)
		rest = substr($0, length($1) + 2)
		name = rest; text = ""
		if ((i = index(rest, " :: ")) > 0) {
			name = substr(rest, 1, i - 1)
			text = substr(rest, i + 4)
		}
		printf "%s\n%s\n%s\n", kind, name, text >(dir "/" n ".head")
		close(dir "/" n ".head")
		printf "" >(dir "/" n ".log")
		next
	}
	n { print >>(dir "/" n ".log") }
' "$samples"
blocks=$(ls "$work"/*.head 2>/dev/null | wc -l)

# host_case DIR LOG [KERNEL-DIR]: the host's case for one guest whose
# kernel log is LOG (none if LOG is ""), in a run under DIR, on make
# check's kernel or, with KERNEL-DIR, check-debug's (ORCA_GUEST_KERNEL);
# its KTAP lines on stdout, its status as the case's.
host_case() {
	mkdir -p "$1/kernel-log-check/run/g0"
	[ -z "$2" ] || cp "$2" "$1/kernel-log-check/run/g0/dmesg"
	(
		unset ORCA_GUEST_KERNEL
		[ -n "${3:-}" ] && export ORCA_GUEST_KERNEL=$3
		export ORCA_GUEST_OUT=$1
		# host.sh names its output directory after the script.
		. selftests/lib/host/host.sh
		[ -z "${broken:-}" ] || kernel_reports() { return 2; }
		kernel_log_case 0
	)
}

# guest_case LOG: a guest's dmesg_quiet, with LOG as its kernel log.
# With $broken set, in both, the check itself fails to run (grep's status
# 2), as a bad pattern or a missing lib/kernel-log.sh would.
guest_case() {
	(
		unset ORCA_RESULT_DIR
		export ORCA_TOP=$top
		. selftests/lib/guest/guest.sh
		[ -z "${broken:-}" ] || kernel_reports() { return 2; }
		dmesg() { cat "$sample_log"; }
		sample_log=$1
		dmesg_quiet
	)
}

echo "TAP version 13"
echo "1..$((blocks + 6))"

for i in $(seq "$blocks"); do
	{ read -r kind; read -r name; read -r text; } <"$work/$i.head"
	res=$work/$i.out
	host=$(host_case "$work/$i" "$work/$i.log")
	hrc=$?
	quiet=$(guest_case "$work/$i.log")
	grc=$?
	{
		echo "host's case (exit $hrc):"
		echo "$host"
		echo "guest's dmesg_quiet (exit $grc):"
		echo "$quiet"
	} >"$res"
	if [ "$kind" = report ]; then
		# Failed both, and the host's case named the report by its
		# line (after "kernel log (dmesg): ").
		[ "$hrc" != 0 ] && [ "$grc" != 0 ] &&
			grep -q '^not ok ' <<<"$host" &&
			grep -F -- "$text" <<<"$host" | grep -q '^not ok '
		result $? "report: $name" "$res"
	else
		[ "$hrc" = 0 ] && [ "$grc" = 0 ] && grep -q '^ok ' <<<"$host"
		result $? "clean: $name" "$res"
	fi
done

# A guest that never booted saved no log: no proof of a clean one.
host_case "$work/nolog" "" >"$work/nolog.out"
[ $? != 0 ] && grep -q '^not ok .*kernel log: none saved' "$work/nolog.out"
result $? "no kernel log saved (the guest never booted) fails the case" "$work/nolog.out"

# A check that did not run proves nothing, on either side.
clean=$(grep -l '^clean$' "$work"/*.head | head -n 1)
clean=${clean%.head}.log
{
	broken=1 host_case "$work/broken" "$clean"
	echo "host's case: exit $?"
	broken=1 guest_case "$clean"
	echo "guest's dmesg_quiet: exit $?"
} >"$work/broken.out" 2>&1
grep -q '^not ok .*kernel log: the check did not run' "$work/broken.out" &&
	grep -qx "host's case: exit 1" "$work/broken.out" &&
	grep -qx "guest's dmesg_quiet: exit 1" "$work/broken.out"
result $? "a check that did not run (its grep failed) fails, host and guest" "$work/broken.out"

# A known report (kernel_log_known) is left out only where the run's own
# check explained it: the host's case with its key passes and says so, the
# guest's dmesg_quiet with the key deferred passes; another WARN in the
# same log still fails both, and so does the known one under another key.
known=$(grep -l 'iser-logout-flush' "$work"/*.head | head -n 1)
known=${known%.head}.log
other=$(grep -l '^WARN()$' "$work"/*.head | head -n 1)
cat "$known" "${other%.head}.log" >"$work/known-other.log"
{
	kernel_log_explained=iser-logout-flush host_case "$work/known" "$known"
	echo "host's case, explained: exit $?"
	ORCA_KERNEL_LOG_DEFER=iser-logout-flush guest_case "$known"
	echo "guest's dmesg_quiet, deferred: exit $?"
	kernel_log_explained=iser-logout-flush host_case "$work/known-other" "$work/known-other.log"
	echo "host's case, explained, with another WARN: exit $?"
	ORCA_KERNEL_LOG_DEFER=iser-logout-flush guest_case "$work/known-other.log"
	echo "guest's dmesg_quiet, deferred, with another WARN: exit $?"
	kernel_log_explained=no-such-key host_case "$work/known-wrong" "$known"
	echo "host's case, another key: exit $?"
} >"$work/known.out" 2>&1
grep -q '^ok .*(iser-logout-flush x1: explained by the wire' "$work/known.out" &&
	grep -qx "host's case, explained: exit 0" "$work/known.out" &&
	grep -qx "guest's dmesg_quiet, deferred: exit 0" "$work/known.out" &&
	grep -qx "host's case, explained, with another WARN: exit 1" "$work/known.out" &&
	grep -q '^not ok .*orca_destroy_qp' "$work/known.out" &&
	grep -qx "guest's dmesg_quiet, deferred, with another WARN: exit 1" "$work/known.out" &&
	grep -qx "host's case, another key: exit 1" "$work/known.out"
result $? "a known report passes only where the run explained it (iser-logout-flush)" "$work/known.out"

# The case names what the guests' kernel can report: make check's has no
# KASAN, lockdep or kmemleak (it would promise what it cannot check);
# check-debug's kernel names them.
stock=$(host_case "$work/stock" "$clean")
debug=$(host_case "$work/debug" "$clean" /nonexistent/debug-kernel)
{ echo "$stock"; echo "$debug"; } >"$work/names.out"
grep -q '^ok .*page poison' <<<"$stock" &&
	! grep -qE 'KASAN|lockdep|kmemleak' <<<"$stock" &&
	grep -q '^ok .*KASAN.*lockdep.*kmemleak' <<<"$debug"
result $? "the case names KASAN, lockdep and kmemleak only on check-debug's kernel" "$work/names.out"

# held_by KERNEL CONFIG: the detectors named for KERNEL whose option
# CONFIG (a kernel .config or a fragment of one) does not set; none is ok.
held_by() {
	local name opt kernels missing=
	while IFS=: read -r name opt kernels; do
		[ -n "$name" ] && [ "$opt" != - ] || continue
		case " $kernels " in *" $1 "*) ;; *) continue ;; esac
		grep -qx "$opt=y" "$2" || missing+=" $name ($opt)"
	done <<<"$kernel_log_detectors"
	echo "config: $2"
	echo "named for the $1 kernel, not in its config:${missing:- none}"
	[ -z "$missing" ]
}

# Debian's kernel, as run-guests.sh picks it: the toolroot's newest.
vmlinuz=$(ls /boot/vmlinuz-* 2>/dev/null | sort -V | tail -n 1)
config=/boot/config-${vmlinuz#/boot/vmlinuz-}
if [ -n "$vmlinuz" ] && [ -f "$config" ]; then
	held_by stock "$config" >"$work/stock-config.out"
	result $? "every detector named for make check's kernel is in its config" "$work/stock-config.out"
else
	n=$((n + 1))
	echo "ok $n every detector named for make check's kernel is in its config # SKIP no guest kernel in /boot (not in the toolroot)"
fi
held_by debug scripts/debug-kernel.config >"$work/debug-config.out"
result $? "every detector named for check-debug's kernel is in scripts/debug-kernel.config" "$work/debug-config.out"

[ "$failed" = 0 ]

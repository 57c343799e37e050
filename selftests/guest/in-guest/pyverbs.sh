#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rdma-core's pyverbs test suite (shipped by python3-pyverbs, gzipped,
# under /usr/share/doc/rdma-core/tests) on orca_0.  Every test the suite
# runs becomes a KTAP case: passed, failed (a failure or an error) or
# skipped with the suite's reason (a feature ORCA does not advertise).
# A skip is a pass only for the tests listed in
# selftests/guest/pyverbs-expected-skips.txt: any other test that skips
# fails (a verb that starts answering EOPNOTSUPP must not become one more
# skip), and a listed test that now passes is reported, for the list to
# lose it.  Then the same suite on Soft-RoCE, and both results side by
# side: every test that passes on rxe0 must pass on orca_0, but those
# pyverbs-rxe-only.txt leaves to other issues.
# Usage: pyverbs.sh [DEV_KIND...]   default: orca rxe, in turn on one
# guest; with two guests (79-pyverbs), guest 0 runs orca and guest 1 (no
# adapter) rxe at the same time, each on a host CPU of its own, and guest
# 0 compares.
. "$ORCA_TOP/selftests/lib/guest/guest.sh"
. "$ORCA_TOP/selftests/lib/guest/uverbs.sh"

kinds=${*:-orca rxe}
if [ "${ORCA_GUEST_COUNT:-1}" = 2 ]; then
	case $gi in 0) kinds=orca ;; *) kinds=rxe ;; esac
fi
expected_skips=$ORCA_TOP/selftests/guest/pyverbs-expected-skips.txt
rxe_only=$ORCA_TOP/selftests/guest/pyverbs-rxe-only.txt
tests=/tmp/pyverbs-tests
rm -rf "$tests" && mkdir -p "$tests"
# The suite's huge page tests (test_odp's, the parent domain's) run when
# 2 MiB pages are reserved: 16 MiB of them.
echo 8 >/proc/sys/vm/nr_hugepages
cp -r /usr/share/doc/rdma-core/tests "$tests/" && gunzip -f "$tests"/tests/*.gz
ok_if "pyverbs suite unpacked" test -f "$tests/tests/test_qp.py" || ktap_done

# The suite's runner, with two defences against a pyverbs bug that
# segfaults the process on every device (rxe too) and so hides the results
# of whole modules: when Python's cycle collector (or the interpreter's
# shutdown, where pyverbs' WeakSets of child objects are already gone)
# frees a device context before the CQs, PDs and QPs of it, their
# __dealloc__ then calls into the freed context ("Failed to close CQ.
# Errno: 9", then a jump through a NULL op).  So the collector is off while
# the tests run (pyverbs closes what a test used in its tearDown), and the
# process ends with os._exit() once unittest has reported.
pyverbs_runner='
import gc, os, runpy, sys
gc.disable()
sys.path.insert(0, "tests")
sys.argv = ["tests/run_tests.py"] + sys.argv[1:]
try:
    runpy.run_path("tests/run_tests.py", run_name="__main__")
    code = 0
except SystemExit as e:
    code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
sys.stdout.flush()
sys.stderr.flush()
os._exit(code)
'

# run_suite DEV LOG: the suite on DEV, verbose, into LOG.  The whole suite
# runs in one process first: every process imports all ~60 test modules,
# which costs seconds under TCG, so one process per module took ten
# minutes.  Should that process crash or hang, its log is set aside and the
# suite runs again one process per test module, so that the crash costs one
# module only and is reported there (MODULE-CRASH).
run_suite() {
	local dev=$1 log=$2 gid m rc
	gid=$(wait_gid "$dev" v4) || { echo "no RoCE v2 GID on $dev" >"$log"; return 1; }
	(cd "$tests" && timeout "$(scaled 1200)" python3 -c "$pyverbs_runner" \
		--dev "$dev" --port 1 --gid "$gid" -v) >"$log" 2>&1
	rc=$?
	if [ $rc -lt 124 ] && grep -qE '^Ran [0-9]+ test' "$log"; then
		return 0
	fi
	mv "$log" "$log.whole"
	ktap_line "# $dev: the suite in one process ended with exit $rc; again one process per module"
	: >"$log"
	for m in "$tests"/tests/test_*.py; do
		m=$(basename "$m" .py)
		(cd "$tests" && timeout "$(scaled 600)" python3 -c "$pyverbs_runner" \
			--dev "$dev" --port 1 --gid "$gid" -v -k "tests.$m.") \
			>>"$log" 2>&1
		rc=$?
		[ $rc -ge 124 ] && echo "MODULE-CRASH $m: exit $rc" >>"$log"
	done
	return 0
}

# report_suite PREFIX LOG [EXPECTED-SKIPS]: one KTAP line per test
# (lib/guest/pyverbs_results.py report); fails if any case does.
report_suite() {
	python3 "$ORCA_TOP/selftests/lib/guest/pyverbs_results.py" report \
		"$@" >>"$ktap_out"
}

# "ran N, failures F, errors E, skipped S" over all modules.
suite_summary() {
	awk '/^Ran [0-9]+ test/ { ran += $2 }
	     /^(OK|FAILED)/ {
		while (match($0, /(failures|errors|skipped)=[0-9]+/)) {
			split(substr($0, RSTART, RLENGTH), kv, "=")
			n[kv[1]] += kv[2]
			$0 = substr($0, RSTART + RLENGTH)
		}
	     }
	     /^MODULE-CRASH/ { crash++ }
	     END { printf "ran %d, failures %d, errors %d, skipped %d, crashed modules %d\n",
		   ran, n["failures"], n["errors"], n["skipped"], crash }' "$1"
}

for kind in $kinds; do
	case $kind in
	orca)
		rdma_up orca || continue
		log=$ORCA_RUN_DIR/pyverbs-orca.log
		# A page fault the driver ends unresolved says why (its errno)
		# in the kernel log, should a test_odp case fail.
		echo 'file orca_odp.c +p' \
			>/sys/kernel/debug/dynamic_debug/control 2>/dev/null
		run_suite orca_0 "$log"
		report_suite "pyverbs orca_0" "$log" "$expected_skips" || ktap_fail=1
		ktap_line "# pyverbs orca_0: $(suite_summary "$log")"
		ktap_line "# orca_0 on-demand paging: $(rdma statistic show link orca_0/1 2>/dev/null |
			grep -oE '(driver_)?odp_[a-z_]+ [0-9]+' | tr '\n' ' ')"
		dmesg | grep 'page fault of QP' | tail -n 5 |
			while read -r l; do ktap_line "# unresolved: $l"; done
		echo 'file orca_odp.c -p' \
			>/sys/kernel/debug/dynamic_debug/control 2>/dev/null
		ok_if "pyverbs on orca_0: no module crashed" sh -c "! grep MODULE-CRASH '$log'"
		;;
	rxe)
		# The same suite on Soft-RoCE, on the same netdev: what rxe
		# passes, ORCA must (below).  rxe's own failures are its own.
		rdma_up rxe || continue
		log=$ORCA_RUN_DIR/pyverbs-rxe.log
		run_suite rxe0 "$log"
		ktap_line "# pyverbs rxe0: $(suite_summary "$log")"
		grep -E '^(FAIL|ERROR):|MODULE-CRASH' "$log" |
			sed 's/^/# rxe0: /' >>"$ktap_out"
		rdma_down rxe
		;;
	esac
done
if [ "${ORCA_GUEST_COUNT:-1}" = 2 ]; then
	if [ "$gi" = 0 ]; then
		ok_if "rxe guest finished its suite" flag_wait 1500 rxe-done
	else
		flag_set rxe-done
	fi
fi
if [ "$gi" = 0 ] && [ -s "$ORCA_RUN_DIR/pyverbs-orca.log" ] &&
   [ -s "$ORCA_RUN_DIR/pyverbs-rxe.log" ]; then
	python3 "$ORCA_TOP/selftests/lib/guest/pyverbs_results.py" compare \
		"$ORCA_RUN_DIR/pyverbs-orca.log" "$ORCA_RUN_DIR/pyverbs-rxe.log" \
		"$rxe_only" >>"$ktap_out" || ktap_fail=1
fi
ok_if "no warnings in dmesg" dmesg_quiet
ktap_done

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run orca_kverbs suites (default "objects") on orca_0, one after the other
# in this one boot, and report each of their cases as a case of this test,
# with the module's diagnostics; then the test modules and the driver
# unload with dmesg free of warnings.
#
# The "remote" suite needs two guests: each sets up its peer, publishes the
# peer's addresses in the shared run directory, connects to the other's,
# and both run the suite at the same time.
. "$ORCA_TOP/selftests/lib/guest/guest.sh"

suites=("${@:-objects}")
run=/sys/kernel/debug/orca_kverbs/run
kverbs_ko=$kmod_dir/selftests/kmod/orca_kverbs.ko

ok_if "orca module loads" orca_load || ktap_done
ok_if "orca_kverbs module loads" insmod "$kverbs_ko" || ktap_done
# A kernel verbs provider gets ib_core's MAD layer, which takes QP1.
ok_if "ib_core's MAD layer holds QP1 of orca_0" wait_for 10 sh -c \
	"rdma resource show qp link orca_0/1 | grep -q 'lqpn 1 type GSI'"

if [ "${suites[*]}" = remote ]; then
	other=$(( (gi + 1) % ${ORCA_GUEST_COUNT:-1} ))
	book=${ORCA_RUN_DIR:?}/kverbs-peer
	ok_if "two guests" test "${ORCA_GUEST_COUNT:-1}" = 2 || ktap_done
	ok_if "peer set up" sh -c "echo peer-setup orca_0 > $run" || ktap_done
	grep '^peer ' "$run" >"$book$gi.tmp" && mv "$book$gi.tmp" "$book$gi"
	ok_if "guest $other published its peer" wait_for 120 test -s "$book$other" ||
		ktap_done
	ok_if "peer connected" sh -c \
		"echo peer-connect $((gi + 1)) $((other + 1)) $(cat "$book$other") > $run" ||
		ktap_done
	# Nobody sends before both QPs are in RTS: the first guest's barrier
	# would otherwise use up its retries against a QP still in RESET.
	ok_if "both guests connected" barrier kverbs-connected 120 || ktap_done
fi

# run_suite SUITE: one suite, its cases and the checks that go with it.
run_suite() {
	local suite=$1 planned seen line rest yields yields0 lies by_adapter
	local stats retrans timeouts naks
	# KVERBS_WRID_LIE=1: the adapter writes the complement of the wr_id into
	# every CQE while the suite runs.  The suite checks each completion's wr_id,
	# so it passes only if the driver reports the wr_id it was posted with,
	# never the adapter's (a ULP's wr_cqe is a pointer).
	emu_log=${ORCA_RUN_DIR:-}/g$gi/emu.log
	if [ "$suite" = datapath ] && [ "${KVERBS_WRID_LIE:-0}" = 1 ]; then
		echo "wrid-lie on" >>"${ORCA_CTL:?}"
		ok_if "the adapter lies about wr_id" \
			wait_for 10 grep -q 'wrid-lie: on' "$emu_log" || ktap_done
	fi
	link_stat() {
		rdma statistic show link orca_0/1 | sed -n "s/.* $1 \([0-9]*\).*/\1/p"
	}
	yields0=$(link_stat driver_eq_budget_yields)
	# The "datapath" suite's error cases (bad rkey and lkey, a receive too
	# small, reads past an MR) end in error completions, with which the adapter
	# moves their RC QPs to ERR on its own: the driver must follow (its state
	# decides what modify_qp and the posts accept), and says so in the
	# orca_qp_state trace event with by=adapter.
	tr=/sys/kernel/tracing
	if [ "$suite" = datapath ]; then
		mountpoint -q "$tr" || mount -t tracefs nodev "$tr"
		echo >"$tr/trace"
		echo 1 >"$tr/events/orca/orca_qp_state/enable"
	fi
	ok_if "suite $suite runs" sh -c "echo $suite > $run" || ktap_done
	planned=0 seen=0
	while IFS= read -r line; do
		case $line in
		1..*)
			planned=${line#1..}
			planned=${planned%% *}
			;;
		"ok "*)
			seen=$((seen + 1))
			rest=${line#ok }
			ktap_line "ok $suite/${rest#* }"
			;;
		"not ok "*)
			seen=$((seen + 1))
			rest=${line#not ok }
			ktap_fail=1
			ktap_line "not ok $suite/${rest#* }"
			;;
		"#"*)
			echo "$line" >>"$ktap_out"
			;;
		esac
	done <"$run"
	ok_if "suite $suite has cases" test "$planned" -gt 0
	expect_eq "suite $suite reported every case" "$seen" "$planned"
	[ "$suite" = remote ] && echo peer-teardown >"$run"
	if [ "$suite" = datapath ] && [ "${KVERBS_WRID_LIE:-0}" = 1 ]; then
		echo "wrid-lie off" >>"$ORCA_CTL"
		wait_for 10 grep -q 'wrid-lie: off' "$emu_log"
		lies=$(sed -n 's/.*wrid-lie: off, \([0-9]*\) CQEs.*/\1/p' "$emu_log" | tail -n 1)
		ok_if "CQEs with a false wr_id were written (${lies:-none})" \
			test "${lies:-0}" -gt 100
	fi
	# The "limits" suite's cqs_on_one_vector piles up to 2000 completion events
	# in one EQ while interrupts are off: its handler must stop at its budget
	# and come back for the rest (driver_eq_budget_yields), never consume them
	# all in one run.
	if [ "$suite" = limits ]; then
		yields=$(link_stat driver_eq_budget_yields)
		yields=$(( ${yields:-0} - ${yields0:-0} ))
		ok_if "the EQ handler yielded at its budget $yields times under the CQ flood" \
			test "$yields" -gt 0
	fi
	if [ "$suite" = datapath ]; then
		echo 0 >"$tr/events/orca/orca_qp_state/enable"
		by_adapter=$(grep -c 'orca_qp_state:.* RTS->ERR by=adapter' "$tr/trace")
		grep 'by=adapter' "$tr/trace" | head -n 3 | sed 's/^/# /' >>"$ktap_out"
		ok_if "the driver followed the adapter's RC QPs to ERR ($by_adapter times)" \
			test "$by_adapter" -ge 4
	fi
	# On a lossy wire (KVERBS_EXPECT_RETRANSMITS=1) the suite must still pass,
	# and the adapter's counters must show that it recovered by retransmitting.
	if [ "${KVERBS_EXPECT_RETRANSMITS:-0}" = 1 ]; then
		stats=$(rdma statistic show link orca_0/1)
		echo "# $stats" >>"$ktap_out"
		retrans=$(echo "$stats" | sed -n 's/.* retransmits \([0-9]*\).*/\1/p')
		ok_if "retransmits counted (${retrans:-none})" test "${retrans:-0}" -gt 0
		timeouts=$(echo "$stats" | sed -n 's/.* local_ack_timeout_err \([0-9]*\).*/\1/p')
		naks=$(echo "$stats" | sed -n 's/.* packet_seq_err \([0-9]*\).*/\1/p')
		ok_if "recovery by timeout or sequence NAK" test $((${timeouts:-0} + ${naks:-0})) -gt 0
	fi
}

for suite in "${suites[@]}"; do
	run_suite "$suite"
done
ok_if "rmmod orca_kverbs" rmmod orca_kverbs
ok_if "rmmod orca" rmmod orca
ok_if "no warnings in dmesg" dmesg_quiet
ktap_done

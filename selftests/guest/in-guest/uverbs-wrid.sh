#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# One guest: the provider's own records of the WQEs it posted, against the
# adapter's CQEs (the spec's "Queues and indices", orca_wqe_track.h).
#  - srq_two_cqs: one SRQ, two receiving QPs with different CQs, CQ B
#    polled before CQ A with receives posted in between, the ring nearly
#    full, every wr_id and byte checked;
#  - xrc_shared: an XRC domain opened by file in two processes, the
#    target QP of one opened by the other, sends to the other's XRC SRQ
#    checked byte by byte, and a target QP of another domain, an SRQ
#    number of none, an SRQ destroyed in mid-traffic;
#  - "wrid-lie on" (the adapter writes the complement of each WQE's wr_id
#    into its CQE) while cqe_faults posts every way the provider takes a
#    wr_id (ibv_post_send, ibv_wr_*, ibv_bind_mw, ibv_post_recv; both poll
#    APIs) and srq_two_cqs runs again: every wr_id returned is the posted
#    one;
#  - "garbage-cqe" written into a process's CQs between two rounds of its
#    traffic: no completion for any, the provider's count of the CQEs it
#    dropped, the traffic after them intact.
. "$ORCA_TOP/selftests/lib/guest/guest.sh"
. "$ORCA_TOP/selftests/lib/guest/uverbs.sh"

bin=$top/selftests/user/build
emu_log=$ORCA_RUN_DIR/g$gi/emu.log

# run_prog CASE CMD...: a test program's KTAP lines as comments (its
# failures shown), and one case for its exit status.
run_prog() {
	local name=$1 out rc
	shift
	out=$(timeout "$(scaled 300)" "$@" 2>&1)
	rc=$?
	echo "$out" | sed 's/^/# /' >>"$ktap_out"
	echo "$out" | grep '^not ok' | sed 's/^/# /'
	expect_eq "$name" "$rc" 0
}

# emu_saw FROM ERE: the emulator logged a line matching ERE after line FROM.
emu_saw() { tail -n "+$(($1 + 1))" "$emu_log" | grep -qE "$2"; }

rdma_up orca || ktap_done
gidx=$(wait_gid orca_0 v4)

run_prog "srq_two_cqs: one SRQ, two CQs polled out of order, receives posted between" \
	"$bin/srq_two_cqs" orca_0 "$gidx"
run_prog "xrc_shared: one XRC domain shared by two processes, traffic checked, hostile peers" \
	"$bin/xrc_shared" orca_0 "$gidx"

mark=$(wc -l <"$emu_log")
echo "wrid-lie on" >>"${ORCA_CTL:?}"
if ok_if "the adapter lies about wr_id" wait_for 10 emu_saw "$mark" 'wrid-lie: on$'; then
	run_prog "cqe_faults wrid-lie: every wr_id as posted, never the CQE's" \
		"$bin/cqe_faults" orca_0 "$gidx" wrid-lie
	run_prog "srq_two_cqs under wrid-lie: every SRQ wr_id as posted" \
		"$bin/srq_two_cqs" orca_0 "$gidx"
	echo "wrid-lie off" >>"$ORCA_CTL"
	wait_for 10 emu_saw "$mark" 'wrid-lie: off'
	lies=$(tail -n "+$((mark + 1))" "$emu_log" |
		sed -n 's/.*wrid-lie: off, \([0-9]*\) CQEs.*/\1/p' | tail -n 1)
	ok_if "CQEs with a false wr_id were written (${lies:-none})" \
		test "${lies:-0}" -gt 1000
fi

# Garbage into the CQs of a process that waits between two rounds: the
# adapter writes three CQEs into each CQ (engine.h "garbage-cqe"), found
# in its log by the adapter's CQ numbers (drv_cqn).
dir=$(mktemp -d /tmp/cqe-faults.XXXXXX)
"$bin/cqe_faults" orca_0 "$gidx" garbage "$dir" >"$dir/out" 2>&1 &
pid=$!
waiting() { [ -e "$dir/ready" ] || ! kill -0 "$pid" 2>/dev/null; }
wait_for 120 waiting
cqns=
if [ -e "$dir/ready" ] && rdma -j -dd resource show cq >"$dir/cq.json"; then
	cqns=$(python3 - "$dir/cq.json" "$pid" <<-'EOF'
		import json, sys
		cqs = json.load(open(sys.argv[1]))
		print(" ".join(str(c["drv_cqn"]) for c in cqs
			       if str(c.get("pid")) == sys.argv[2]))
	EOF
	)
fi
ok_if "cqe_faults waits with its two CQs (${cqns:-none})" \
	test "$(wc -w <<<"$cqns")" = 2
mark=$(wc -l <"$emu_log")
echo garbage-cqe >>"$ORCA_CTL"
written() {
	local c
	for c in $cqns; do
		emu_saw "$mark" "garbage-cqe: 3 entries on CQ $c\$" || return 1
	done
}
ok_if "the adapter wrote 3 garbage CQEs into each" wait_for 20 written
touch "$dir/go"
wait "$pid"
rc=$?
sed 's/^/# /' "$dir/out" >>"$ktap_out"
grep '^not ok' "$dir/out" | sed 's/^/# /'
expect_eq "cqe_faults garbage: no completion for garbage, each counted, traffic after it intact" \
	"$rc" 0
rm -rf "$dir"

rdma_down orca
ok_if "no warnings in dmesg" dmesg_quiet
ktap_done

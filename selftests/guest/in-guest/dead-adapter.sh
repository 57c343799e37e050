#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A busy adapter, then one that stops answering commands.
#  - Busy: with every command slowed down (emulator "slow 100") and the
#    command queue kept full, AHs created and destroyed in atomic context
#    (as the CM does) never stall longer than the driver's bound and never
#    get the adapter declared dead (orca_kverbs dead/ah_saturated).
#    On an idle adapter whose every command takes 300 ms they succeed
#    (dead/ah_slow_adapter): the CM's connects work on a slow adapter.
#    AHs destroyed in atomic context that get no command slot are
#    destroyed later, before their PD (dead/ah_destroy_deferred).
#  - A destroy the adapter refuses: the driver keeps the object's memory,
#    which the adapter then writes (orca_kverbs dead/destroy_fails), and
#    frees it after the reset of the next unload.  So too when the destroy
#    undoes a create the driver cannot finish (dead/create_refused).
#  - Dead by a fatal error, with RC QPs on an SRQ: they get
#    IB_EVENT_QP_LAST_WQE_REACHED and ib_drain_qp() completes
#    (dead/srq_last_wqe).
#  - Dead: the firmware hangs.  The driver finds it dead, fences it, fails
#    the command in flight with -EIO (it did not time out itself) and later
#    ones fast; a kernel ULP's QPs still accept work, move to ERR, and
#    ib_drain_qp() completes with every WR flushed (dead/drain_after_death).
#    The adapter then resumes: the host checks that none of its late DMA
#    landed (emulator "late 0").  The driver still unloads without hanging.
. "$ORCA_TOP/selftests/lib/guest/guest.sh"

run=/sys/kernel/debug/orca_kverbs/run

# Report the cases of the orca_kverbs run just done as dead/CASE.
kv_report() {
	local line rest seen=0
	while IFS= read -r line; do
		case $line in
		"ok "*)
			seen=1 rest=${line#ok }
			ktap_line "ok dead/${rest#* }"
			;;
		"not ok "*)
			seen=1 rest=${line#not ok }
			ktap_fail=1
			ktap_line "not ok dead/${rest#* }"
			;;
		"#"*) echo "$line" >>"$ktap_out" ;;
		esac
	done <"$run"
	[ "$seen" = 1 ] || { ktap_fail=1; ktap_line "not ok dead/$1 (no result)"; }
}

ok_if "orca module loads" orca_load || ktap_done
# A recovery would bring a new orca_0: this test is about the dead one.
ok_if "devlink fw_fatal auto_recover off" orca_auto_recover off || ktap_done
ok_if "orca_kverbs module loads" insmod "$kmod_dir/selftests/kmod/orca_kverbs.ko" ||
	ktap_done
nd=$(orca_netdev)
echo > "$ktest_dir/events"
ok_if "emulator control file" test -w "${ORCA_CTL:-/nonexistent}" || ktap_done

echo "slow 100" >>"$ORCA_CTL"
echo "dead orca_0 ah_saturated" >"$run"
echo "slow 0" >>"$ORCA_CTL"
kv_report ah_saturated

fn=$(basename "$(readlink -f /sys/class/infiniband/orca_0/device)")
emu_log=$ORCA_RUN_DIR/g$gi/emu.log
# The adapter's live objects, from a "counts" asked for now:
# "pd N cq N mr N qp N ah N srq N gsi N uar N".
emu_objects() {
	local n
	n=$(grep -c 'objects: pd' "$emu_log")
	echo counts >>"$ORCA_CTL"
	new_counts() { [ "$(grep -c 'objects: pd' "$emu_log")" -gt "$n" ]; }
	wait_for 10 new_counts || return 1
	sed -n 's/.*objects: //p' "$emu_log" | tail -n 1
}
emu_count() { echo "$1" | awk -v k="$2" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }'; }

# An atomic DESTROY_AH that gets no command slot within the bound must not
# be dropped: the adapter would keep the AH, and refuse its PD, for good.
# Once the driver's orphans of ah_saturated are gone, the case's AHs and
# PD must leave the adapter's count as it was.
cmdq_idle() {
	grep -qx 'orphan_ahs 0' "/sys/kernel/debug/orca/$fn/cmdq" &&
		grep -qx 'outstanding 0' "/sys/kernel/debug/orca/$fn/cmdq"
}
ok_if "no command or orphaned AH left of ah_saturated" wait_for 30 cmdq_idle
echo "slow 300" >>"$ORCA_CTL"
echo "dead orca_0 ah_slow_adapter" >"$run"
echo "slow 0" >>"$ORCA_CTL"
kv_report ah_slow_adapter
before=$(emu_objects)
echo "slow 100" >>"$ORCA_CTL"
echo "dead orca_0 ah_destroy_deferred" >"$run"
echo "slow 0" >>"$ORCA_CTL"
kv_report ah_destroy_deferred
after=$(emu_objects)
echo "# adapter objects before: $before; after: $after" >>"$ktap_out"
expect_eq "the deferred DESTROY_AHs ran: AHs in the adapter" \
	"$(emu_count "$after" ah)" "$(emu_count "$before" ah)"
expect_eq "then their PD's DESTROY_PD: PDs in the adapter" \
	"$(emu_count "$after" pd)" "$(emu_count "$before" pd)"

# A destroy the adapter refuses leaves the object alive in it: the driver
# must keep that memory (and count it in devlink's leaked_objects) instead
# of freeing it under the adapter, which then writes garbage CQEs into
# every CQ it holds, the refused one included: they land in the kept ring.
leaked() {
	devlink health diagnose "pci/$fn" reporter fw_fatal |
		sed -n 's/.*leaked_objects: \([0-9]*\).*/\1/p'
}
echo "fail-destroy 1" >>"$ORCA_CTL"
echo "dead orca_0 destroy_fails" >"$run"
kv_report destroy_fails
refused=$(sed -n 's/.*fail-destroy: command 0x2a on handle \([0-9]*\) refused.*/\1/p' \
	"$emu_log" | tail -n 1)
ok_if "the adapter refused DESTROY_CQ ${refused:-(none)}" test -n "$refused"
expect_eq "the driver kept its memory: leaked_objects" "$(leaked)" 1
# A create the driver cannot finish (the adapter reports a handle it has
# already) is undone by a DESTROY the adapter can refuse too: the CQ, QP
# and SRQ then live on in the adapter, with memory the driver must keep.
# The first CQ, which the QP that lives on uses, cannot be destroyed
# either (BUSY): 1 + 3 + 1 objects kept.
echo "fail-destroy 3" >>"$ORCA_CTL"
echo "dup-handle 3" >>"$ORCA_CTL"
echo "dead orca_0 create_refused" >"$run"
echo "dup-handle 0" >>"$ORCA_CTL"
echo "fail-destroy 0" >>"$ORCA_CTL"
kv_report create_refused
dup_cq=$(sed -n 's/.*dup-handle: command 0x28 made handle \([0-9]*\),.*/\1/p' \
	"$emu_log" | tail -n 1)
expect_eq "creates the adapter made with a handle in use" \
	"$(grep -c 'dup-handle: command 0x\(28\|38\|48\) made' "$emu_log")" 3
expect_eq "the driver kept the memory of each: leaked_objects" "$(leaked)" 5
echo garbage-cqe >>"$ORCA_CTL"
written() { grep -q "garbage-cqe: [1-9][0-9]* entries on CQ ${refused:-x}\$" "$emu_log"; }
ok_if "the adapter wrote into the refused CQ's ring" wait_for 10 written
written_dup() { grep -q "garbage-cqe: [1-9][0-9]* entries on CQ ${dup_cq:-x}\$" "$emu_log"; }
ok_if "the adapter wrote into the ring of the CQ the driver could not record" \
	wait_for 10 written_dup
ok_if "no report of memory written after free" dmesg_quiet \
	'pagealloc: memory corruption|Poison overwritten|Bad page'
# The kept memory goes after the reset of the unload (the adapter still
# holds the CQ, so its EQ's destroy is refused too): the unload completes,
# nothing is freed before its pool or left in it, and the driver loads again.
echo "counts" >>"$ORCA_CTL"
ok_if "rmmod orca_kverbs" rmmod orca_kverbs
ok_if "rmmod orca with the refused CQ's memory kept" \
	timeout "$(scaled 60)" rmmod orca
ok_if "nothing left in the doorbell pool" dmesg_quiet 'dma_pool_destroy'
ok_if "orca module loads again" orca_load || ktap_done
ok_if "devlink fw_fatal auto_recover off again" orca_auto_recover off ||
	ktap_done
ok_if "orca_kverbs module loads again" \
	insmod "$kmod_dir/selftests/kmod/orca_kverbs.ko" || ktap_done
nd=$(orca_netdev)

# A fatal error with RC QPs on an SRQ: ib_drain_qp() waits for a
# LAST_WQE_REACHED that only the driver can give.  The case logs "ready"
# with its QPs connected, then waits for the death.
echo "dead orca_0 srq_last_wqe" >"$run" &
kv=$!
srq_ready() { dmesg | grep -q 'srq_last_wqe: ready'; }
ok_if "kverbs QPs on an SRQ ready" wait_for 120 srq_ready
echo fatal >>"$ORCA_CTL"
wait "$kv"
kv_report srq_last_wqe
ok_if "rmmod orca_kverbs" rmmod orca_kverbs
ok_if "rmmod orca after the fatal error" timeout "$(scaled 60)" rmmod orca
ok_if "orca module loads after the fatal error" orca_load || ktap_done
ok_if "devlink fw_fatal auto_recover off once more" orca_auto_recover off ||
	ktap_done
ok_if "orca_kverbs module loads once more" \
	insmod "$kmod_dir/selftests/kmod/orca_kverbs.ko" || ktap_done
nd=$(orca_netdev)

# The case logs "ready" with its QPs set up, then waits for the death.
echo "dead orca_0 drain_after_death" >"$run" &
kv=$!
ready() { dmesg | grep -q 'drain_after_death: ready'; }
ok_if "kverbs QPs ready" wait_for 120 ready
echo hang >>"$ORCA_CTL"
sleep 1
# Adding an address makes the RDMA core add a GID: a SET_GID command,
# in flight when the watchdog finds the firmware dead.
ip addr add 10.8.0.1/24 dev "$nd"
fatal_seen() { [ "$(awk '/^device fatal /{print $NF}' "$ktest_dir/events")" -ge 1 ]; }
ok_if "DEVICE_FATAL event" wait_for 30 fatal_seen
wait "$kv"
kv_report drain_after_death
# The RDMA core reports what the driver's add_gid returned.
gid_error() { dmesg | grep -q "unable to add gid .*error=$1"; }
ip addr add 10.8.0.2/24 dev "$nd"
ip addr del 10.8.0.2/24 dev "$nd"
# A dead device fails commands at once with -EIO instead of waiting for the
# command timeout: only a command that timed out itself reports -ETIMEDOUT,
# and one woken by the death (the watchdog was first) gets -EIO.
ok_if "commands fail with -EIO after death" wait_for 15 gid_error -5
timed=$(dmesg | grep -cE 'orca.*command .* timed out')
woken=$(dmesg | grep -cE 'orca.*command .* not completed: device is dead')
echo "# commands timed out: $timed, woken by the death: $woken" >>"$ktap_out"
no_etimedout() { [ "$timed" -gt 0 ] || ! gid_error -110; }
ok_if "no -ETIMEDOUT unless a command timed out itself" no_etimedout
expect_eq "at most the in-flight command waited" "$(( timed + woken <= 1 ))" 1
dmesg | grep -c "device is dead" | sed 's/^/# deaths logged: /' >>"$ktap_out"

# The hung firmware comes back and finishes what it was doing: fenced, so
# nothing of it may land (the host reads the emulator's "late" count).  The
# count that says so is the one the emulator logs after its "ctl: resume"
# line: the counts of the destroy_fails step above predate the hang and say
# 0 whatever happens after it, so the host reads only what follows the
# resume, and this waits until that is logged.
echo resume >>"$ORCA_CTL"
sleep 3
echo counts >>"$ORCA_CTL"
late_counted() {
	sed -n '/orca-emu: ctl: resume$/,$p' "$emu_log" | grep -q 'dma: blocked .* late '
}
ok_if "the emulator counted late DMA after the resume" wait_for 10 late_counted
ok_if "rmmod orca_kverbs" rmmod orca_kverbs
start=$(date +%s)
ok_if "rmmod orca completes" timeout "$(scaled 60)" rmmod orca
expect_eq "unload took < 30 s" "$(( $(date +%s) - start < 30 ))" 1
ok_if "orca_0 gone" sh -c "! test -e /sys/class/infiniband/orca_0"
dmesg | grep -i orca | tail -n 12 | sed 's/^/# /' >>"$ktap_out"
ktap_done

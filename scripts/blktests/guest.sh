#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# In one guest of make blktests (scripts/blktests/blktests.sh): bring up
# the RDMA device and run blktests' own ./check on the given groups or
# tests, as they are, with NVMe-oF over RDMA.
#
# Usage: guest.sh orca|rxe|orca-remote TREE OUT GROUP-OR-TEST...
#   orca  the adapter's driver is loaded: orca_0 on eth0.  blktests still
#         needs USE_RXE=1 (it insists on rdma_rxe or siw being present) but
#         adds no rxe link: start_soft_rdma skips a netdev that already has
#         an RDMA link, so every test runs over orca_0.
#   rxe   no adapter; blktests adds eth0_rxe itself (start_soft_rdma) and
#         deletes it again after each test, as it does on any machine.
#   orca-remote  two guests with adapters: guest 1 serves the NVMe-oF
#         target (target-control.sh serve), guest 0 runs the nvme tests
#         (others are left out) with NVME_TARGET_CONTROL=target-control.sh.
#   TREE  the blktests copy (built), OUT the results directory; both on the
#         work share.  OUT gets config (what blktests sourced), check.log
#         (./check's output, as it comes), results/ (blktests' own, copied
#         from the guest's /tmp after each ./check), rdma-kept (which
#         "rdma link del" the wrapper skipped), dmesg and a line "blktests:
#         done" at the end of check.log.
# BLKTESTS_IMG_SIZE (blktests' NVME_IMG_SIZE, default 32M; nvme/012 wants 350M),
# BLKTESTS_TIMEOUT (blktests' TIMEOUT for the tests that honor it),
# BLKTESTS_STUCK_MIN (see watchdog below).
set -u
kind=$1 tree=$2 out=$3
shift 3
. "$ORCA_TOP/selftests/lib/guest/guest.sh"

mkdir -p "$out"
log=$out/check.log
[ "$kind" = orca-remote ] && [ "$gi" = 1 ] && log=$out/target-control.log
: >"$log"
say() { echo "blktests: $*" | tee -a "$log"; }

case $kind in
orca | orca-remote)
	orca_load || { say "orca driver did not load"; exit 1; }
	wait_for 20 port_active orca_0 || { say "orca_0 not ACTIVE"; exit 1; }
	# The driver's rare command messages (orphaned, failed, refused) in
	# the kernel log: a connect that fails because the CM's atomic
	# CREATE_AH was given up on says so (Documentation/orca/blktests.rst).
	echo 'file orca_cmdq.c +p' >/sys/kernel/debug/dynamic_debug/control
	;;
rxe) ;;
*) say "unknown device kind '$kind'"; exit 2 ;;
esac
control=
if [ "$kind" = orca-remote ]; then
	control=$ORCA_TOP/scripts/blktests/target-control.sh
	if [ "$gi" = 1 ]; then
		NVME_IMG_SIZE=${BLKTESTS_IMG_SIZE:-32M} "$control" serve \
			>>"$log" 2>&1
		dmesg >"$out/dmesg-target"
		exit
	fi
	wait_for 30 busybox ping -c 1 -W 2 10.0.0.2 ||
		{ say "guest 1 does not answer"; "$control" stop; exit 1; }
	tests=()
	for what in "$@"; do
		[[ $what == nvme* ]] && tests+=("$what")
	done
	set -- "${tests[@]}"
fi

# blktests' config is a bash file it sources; this one is kept with the
# results.  The rdma wrapper (bin/rdma) keeps "rdma link del" off devices
# that are no soft links (orca_0).
cat >"$out/config" <<CFG
# make blktests ($kind): written by scripts/blktests/guest.sh
NVMET_TRTYPES=rdma
USE_RXE=1
NVME_IMG_SIZE=${BLKTESTS_IMG_SIZE:-32M}
${BLKTESTS_TIMEOUT:+TIMEOUT=$BLKTESTS_TIMEOUT}
export PATH="$ORCA_TOP/scripts/blktests/bin:\$PATH"
export BLKTESTS_RDMA_KEPT="$out/rdma-kept"
${control:+NVME_TARGET_CONTROL=$control}
CFG

# blktests' output directory holds the tests' images (NVME_IMG_SIZE, on
# loop devices and nvmet file back ends): in the guest's memory, as on a
# local disk, not on the work share; copied there after each ./check.
res=/tmp/blktests-results
mkdir -p "$res" "$out/results"
say "$kind: $(uname -r), $(rdma link show | tr '\n' ';')"
# A test that makes no progress for BLKTESTS_STUCK_MIN minutes (default
# 20; blktests has no time limit of its own) leaves what the guest was
# doing in OUT/stuck.txt, once: the tasks and their kernel stacks, the
# blocked ones (sysrq w) and the kernel log.  The run's own timeout then
# ends it.  One sleep a minute: nothing that costs the guest time.
watchdog() {
	local limit=$((${BLKTESTS_STUCK_MIN:-20} * 60)) last size=-1 same=0 p
	while sleep 60; do
		last=$(stat -c %s "$log" 2>/dev/null)
		if [ "$last" = "$size" ]; then
			same=$((same + 60))
		else
			size=$last same=0
		fi
		[ "$same" -ge "$limit" ] || continue
		{
			echo "no output for $same s; last lines of check.log:"
			tail -n 5 "$log"
			ps -eo pid,ppid,stat,etime,wchan:30,args
			for p in /proc/[0-9]*; do
				case $(awk '{ print $3 }' "$p/stat" 2>/dev/null) in
				D | R) ;;
				*) grep -q 'check\|modprobe\|nvme\|fio\|rdma' "$p/cmdline" 2>/dev/null || continue ;;
				esac
				echo "== ${p#/proc/} $(tr '\0' ' ' <"$p/cmdline")"
				cat "$p/stack" 2>/dev/null
			done
			echo w >/proc/sysrq-trigger
			sleep 2
			dmesg | tail -n 300
		} >"$out/stuck.txt" 2>&1
		return
	done
}
watchdog &
watchdog_pid=$!

cd "$tree" || exit 1
for what in "$@"; do
	say "./check $what"
	start=$SECONDS
	./check -c "$out/config" -o "$res" "$what" 2>&1 | tee -a "$log"
	r=${PIPESTATUS[0]}
	# blktests' files, without the images its tests leave behind
	(cd "$res" && find . -path './tmpdir.*' -prune -o -type f -print |
		cpio -pdm --quiet "$out/results")
	say "./check $what: exit $r after $((SECONDS - start)) s"
done
kill "$watchdog_pid" 2>/dev/null
dmesg >"$out/dmesg"
[ -n "$control" ] && "$control" stop
say "done"
# blktests' own status: a failed test is a result to report, not an error
# of the run.
exit 0

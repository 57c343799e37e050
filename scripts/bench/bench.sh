#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench: ORCA against rxe (and siw) between two guests, each figure
# one row of ONE table with the ratios within the run (issue 11):
# - NVMe-oF over RDMA at Ethernet MTU 1500 and 9000: 4k random read IOPS
#   and 128k sequential read MiB/s (fio, direct I/O, 15 s each, after a
#   crc32c-verified write pass); guest 0 the nvmet target, guest 1 the
#   nvme-rdma host (selftests/guest/in-guest/nvmeof-fio.sh in bench mode);
# - the ceiling: the same fio jobs on a brd ramdisk inside one guest, no
#   RDMA (selftests/guest/in-guest/ramdisk-fio.sh): what a 1-vCPU TCG guest
#   can do at all;
# - perftest through the userspace verbs: ib_write_bw 64 KiB MiB/s and 64 B
#   messages/s, ib_send_lat 64 B typical latency, ib_read_bw 64 KiB MiB/s,
#   ib_atomic_bw operations/s, ib_write_bw 64 KiB --odp warm (the 64 KiB
#   run with on-demand MRs) and first touch (5 messages on each of 32
#   QPs, the first of each faulting on both sides), not on siw (no ODP);
#   guest 0 the server, guest 1 the client
#   (selftests/guest/in-guest/perftest.sh in bench mode); and the host CPU
#   seconds per GiB written over 10 s of ib_write_bw 64 KiB, QEMUs and
#   ORCA's processes together (scripts/bench/cpu-window.sh);
# - the kernel ULPs (RDS, NFS over RDMA v4.2, SRP, iSER, SMB Direct, RNBD): each
#   pairing's 4k random read IOPS and 128k sequential read MiB/s (fio
#   direct I/O, 10 s each, after the verify jobs), for RDS 4 KiB
#   messages/s and 128 KiB-message MiB/s (rds_check bench, every reply
#   checked) (selftests/guest/in-guest/ulp.sh in bench mode; siw-siw is
#   not run);
# - MPI (Open MPI over UCX, rc_verbs and ud_verbs, one rank per guest):
#   ping-pong latency of 8 B (half the round trip) and the time of one
#   MPI_Allreduce of 8 B and of 64 KiB (selftests/user/mpi_check.c -b,
#   its data checks first; selftests/guest/in-guest/mpi.sh in bench mode;
#   siw-siw is not run);
# - native, no guests, once per run: two engines over the real wire
#   (orca-wire, shared memory), 64 KiB and 64 B RDMA WRITEs, against this
#   host's memcpy (selftests/emulator/bench_native.c), one WRITE
#   outstanding (the round trip), the same engines on a point-to-point
#   link with no switch (bench_native -p), and the same on a
#   wire that drops and reorders 5% of the frames; the 64 B depth-1
#   message rate with 1 QP and with 65536 QPs open and traffic on 4
#   (bench_engine.c); ICRC throughput (bench_icrc.c, log only);
# - fabric, no guests, once per run: an incast through a congested switch
#   port (selftests/emulator/bench_incast.c): three adapters keep 64 KiB
#   RDMA WRITEs outstanding and a fourth sends 64 B ones one at a time, all
#   into a fifth, through orca-wire --link-rate 200 with 256 KiB queues,
#   without congestion control, with ECN marking + DCQCN, with a lossless
#   class (--pfc 0: PFC pauses, no drops) and with both: goodput,
#   Jain's fairness index of the three, the probe's p99 round trip, the
#   queue's drops and the packets sent again (medians of 3 runs), and each
#   bulk QP's rate over time in out/bench/fabric/incast-rate.{csv,png}
#   (scripts/bench/incast-plot.py);
# - retransmissions on the loss-free wire: request packets the adapters
#   sent again, natively and in every guest run with ORCA (the emulators'
#   exit logs).
# Ratios: each pairing against rxe-rxe, NVMe-oF against the ceiling, the
# native WRITEs against memcpy, 64K QPs against 1 QP, the incast with
# DCQCN, PFC or both against the one with neither
# (scripts/bench/bench-table.py, which prints the table and writes it to
# out/bench/bench.{txt,csv,json} and draws out/bench/bench.png).
# Each pairing boots its own two guests; one that does not work gets a
# row saying what failed instead of numbers.
#
# Usage: scripts/bench/bench.sh [TARGET-HOST...]   default: rxe-rxe siw-siw
#                                            orca-orca rxe-orca orca-rxe
# (siw is Soft-iWARP, built from the kernel source by scripts/out-of-tree/siw-build.sh
# since Debian's kernel lacks it; it only pairs with itself.)
# ORCA_BENCH="nvmeof ceiling perftest ulp mpi native fabric" picks the
# workloads (default all; native and fabric boot no guests);
# ORCA_BENCH_MTUS="1500 9000" the guests' Ethernet MTUs for NVMe-oF and
# perftest (path MTU 1024 and 4096);
# ORCA_BENCH_ULPS="rds nfs srp iser smb rnbd" the kernel ULPs (default all).
#
# Figures are from QEMU/TCG guests sharing the host's CPUs: compare the
# rows of one run with each other, not with hardware or with other runs.
# Logs stay in out/bench/<run>/.  ORCA_NO_BUILD=1 skips the build.
# Runs inside the toolroot (make bench puts it there).
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
out=$top/out/bench
pairs=("$@")
[ ${#pairs[@]} -gt 0 ] || pairs=(rxe-rxe siw-siw orca-orca rxe-orca orca-rxe)

for p in "${pairs[@]}"; do
	[[ $p =~ ^(orca|rxe)-(orca|rxe)$ || $p = siw-siw ]] ||
		{ echo "bench: pairing '$p' is not TARGET-HOST, each orca or rxe, or siw-siw" >&2; exit 2; }
done

mkdir -p "$out"
benches=${ORCA_BENCH:-nvmeof ceiling perftest ulp mpi native fabric}
has() { case " $benches " in *" $1 "*) return 0 ;; esac; return 1; }
results=$out/results.tsv
# record GROUP PAIRING VARIANT METRIC VALUE UNIT NOTE: one row of the table
# (VALUE "-" when it could not be measured; NOTE says why).
record() {
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" \
		"${5:--}" "$6" "${7:-}" >>"$results"
}
{
	echo "# make bench $(date -u '+%Y-%m-%d %H:%M UTC'): ${benches}; pairings ${pairs[*]}"
	echo "# host: $(nproc) CPUs ($(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)); guests: 1 vCPU each under QEMU/TCG; compare rows of this run only"
} >"$results"
if [ "${ORCA_NO_BUILD:-}" != 1 ]; then
	echo "== building"
	make --no-print-directory all >"$out/build.log" 2>&1 ||
		{ tail -n 40 "$out/build.log"; exit 1; }
fi
case " ${pairs[*]} " in
*" siw-siw "*)
	if has nvmeof || has perftest; then
		scripts/out-of-tree/siw-build.sh >"$out/siw-build.log" 2>&1 ||
			{ tail -n 20 "$out/siw-build.log"; exit 1; }
	fi
	;;
esac

# why_failed DIR RC: what failed in a guest run, for the notes column.
why_failed() {
	local dir=$1 rc=$2 why
	why=$(grep -h '^not ok' "$dir"/g*.tap 2>/dev/null | head -n 2 |
		sed 's/^not ok [0-9]* *//' | paste -sd ';')
	[ -n "$why" ] || why="guests exited $rc, see $dir/run.log"
	# The kernel's own words, when it logged a failure.
	why+=$(grep -h -E '^# \[ *[0-9.]+\] .*(failed|error)' \
		"$dir"/g*.tap 2>/dev/null | grep -v 'module verification' |
		head -n 1 | sed 's/^# \[ *[0-9.]*\] /; dmesg: /')
	echo "$why" | tr '\t' ' '
}

# record_resent PAIRING WHAT DIR: request packets the run's adapters sent
# again on the loss-free wire, from the emulators' exit logs (read by the
# same parser as make check's loss-free wire check).
record_resent() {
	local lossfree=$top/selftests/lib/host/wire_lossfree.py n tx again early to
	read -r n tx again early to < <(python3 "$lossfree" "$3/run" --totals)
	[ "${n:-0}" -gt 0 ] || return 0
	record retransmissions "$1" "$2" "packets sent again" "$again" packets \
		"of $tx frames $n adapter(s) sent ($early early retries, $to timeouts)"
}

# run_pair TARGET HOST MTU: one two-guest NVMe-oF run at Ethernet MTU MTU.
run_pair() {
	local t=$1 h=$2 mtu=$3 dir=$out/$1-$2-mtu$3 opts=() rc start iops mibs why
	[ "$t" != orca ] && opts+=(--guest-opts 0:no-orca)
	[ "$h" != orca ] && opts+=(--guest-opts 1:no-orca)
	rm -rf "$dir" && mkdir -p "$dir"
	echo "== NVMe-oF: $t target, $h host, MTU $mtu"
	start=$SECONDS
	ORCA_NO_BUILD=1 scripts/guests/run-guests.sh -n 2 -t 360 --out "$dir/run" \
		"${opts[@]}" -- env ORCA_TOP="$top" ORCA_RESULT_DIR="$dir" \
		ORCA_ETH_MTU="$mtu" \
		selftests/guest/in-guest/nvmeof-fio.sh "$t" "$h" bench \
		>"$dir/run.log" 2>&1
	rc=$?
	result() {	# result JOB FIELD: FIELD of JOB's result line
		sed -n "s/^# nvmeof-result .*job=$1 .*$2=\([^ ]*\).*/\1/p" \
			"$dir"/g1.tap 2>/dev/null | tail -n 1
	}
	iops=$(result randread-4k read_iops)
	mibs=$(result seqread-128k read_mibs)
	if [ "$rc" = 0 ] && [ -n "$iops" ] && [ -n "$mibs" ]; then
		why="verified, $((SECONDS - start)) s"
	else
		why="skipped: does not work yet: $(why_failed "$dir" "$rc")"
		iops=- mibs=-
	fi
	record nvmeof "$t-$h" "MTU $mtu" "4k rand read" "$iops" IOPS "$why"
	record nvmeof "$t-$h" "MTU $mtu" "128k seq read" "$mibs" MiB/s "$why"
	echo "   $iops IOPS, $mibs MiB/s; $why"
	record_resent "$t-$h" "nvmeof MTU $mtu" "$dir"
}

# run_ceiling: the NVMe-oF fio jobs on a brd ramdisk inside one guest.
run_ceiling() {
	local dir=$out/ceiling rc start iops mibs why
	rm -rf "$dir" && mkdir -p "$dir"
	echo "== ceiling: fio on a ramdisk inside one guest"
	start=$SECONDS
	ORCA_NO_BUILD=1 scripts/guests/run-guests.sh -n 1 -t 240 --no-orca \
		--out "$dir/run" -- env ORCA_TOP="$top" ORCA_RESULT_DIR="$dir" \
		selftests/guest/in-guest/ramdisk-fio.sh >"$dir/run.log" 2>&1
	rc=$?
	result() {
		sed -n "s/^# ceiling-result .*job=$1 .*$2=\([^ ]*\).*/\1/p" \
			"$dir"/g0.tap 2>/dev/null | tail -n 1
	}
	iops=$(result randread-4k read_iops)
	mibs=$(result seqread-128k read_mibs)
	if [ "$rc" = 0 ] && [ -n "$iops" ] && [ -n "$mibs" ]; then
		why="fio in one guest, no RDMA, $((SECONDS - start)) s"
	else
		why="failed: $(why_failed "$dir" "$rc")"
		iops=- mibs=-
	fi
	record ceiling "one guest" "brd ramdisk" "4k rand read" "$iops" IOPS "$why"
	record ceiling "one guest" "brd ramdisk" "128k seq read" "$mibs" MiB/s "$why"
	echo "   $iops IOPS, $mibs MiB/s; $why"
}

# run_perftest SERVER CLIENT: one two-guest perftest run.
run_perftest() {
	local s=$1 c=$2 mtu=$3 dir=$out/perftest-$1-$2-mtu$3 opts=() rc start
	local note v path cw
	path=$([ "$mtu" -ge 4200 ] && echo 4096 || echo 1024)
	[ "$s" != orca ] && opts+=(--guest-opts 0:no-orca)
	[ "$c" != orca ] && opts+=(--guest-opts 1:no-orca)
	rm -rf "$dir" && mkdir -p "$dir"
	echo "== perftest: $s server, $c client, MTU $mtu"
	start=$SECONDS
	scripts/bench/cpu-window.sh "$dir/run" "$dir/cpu.txt" 900 &
	cw=$!
	ORCA_NO_BUILD=1 scripts/guests/run-guests.sh -n 2 -t 600 --out "$dir/run" \
		"${opts[@]}" -- env ORCA_TOP="$top" ORCA_RESULT_DIR="$dir" \
		ORCA_ETH_MTU="$mtu" ORCA_CPU_CASE="ib_write_bw 64KiB 10s" \
		selftests/guest/in-guest/perftest.sh "$s" "$c" bench \
		>"$dir/run.log" 2>&1
	rc=$?
	kill "$cw" 2>/dev/null
	wait "$cw" 2>/dev/null
	pres() {	# pres TOOL FIELD: FIELD of TOOL's result line
		sed -n "s/^# perftest-result .*tool=$1 .*$2=\([^ ]*\).*/\1/p" \
			"$dir"/g1.tap 2>/dev/null | tail -n 1
	}
	mps() { awk -v m="$1" 'BEGIN { if (m != "") printf "%.0f", m * 1e6 }'; }
	note="$((SECONDS - start)) s$([ "$rc" = 0 ] || echo ", exit $rc")"
	one() {		# one METRIC VALUE UNIT
		if [ -n "$2" ]; then
			record perftest "$s-$c" "MTU $path" "$1" "$2" "$3" "$note"
		else
			record perftest "$s-$c" "MTU $path" "$1" - "$3" \
				"failed: $(why_failed "$dir" "$rc")"
		fi
		echo "   $1: ${2:--} $3"
	}
	one "ib_write_bw 64 KiB" "$(pres ib_write_bw_64KiB bw_avg)" MiB/s
	one "ib_write_bw 64 B" "$(mps "$(pres ib_write_bw_64B msg_rate)")" msg/s
	one "ib_send_lat 64 B" "$(pres ib_send_lat_64B t_typical)" us
	one "ib_read_bw 64 KiB" "$(pres ib_read_bw_64KiB bw_avg)" MiB/s
	one "ib_atomic_bw" "$(mps "$(pres ib_atomic_bw msg_rate)")" op/s
	if [ "$s" != siw ] && [ "$c" != siw ]; then
		one "ib_write_bw 64 KiB --odp warm" "$(pres ib_write_bw_64KiB_odp_warm bw_avg)" MiB/s
		one "ib_write_bw 64 KiB --odp first touch" \
			"$(pres ib_write_bw_64KiB_odp_first_touch bw_avg)" MiB/s
	fi
	cpu_row "$s-$c" "MTU $path" "$dir" "$(pres ib_write_bw_64KiB_10s bw_avg)"
	record_resent "$s-$c" "perftest MTU $path" "$dir"
}

# cpu_row PAIR SETUP DIR MIBS: the host CPU seconds per GiB that 10 s of
# ib_write_bw 64 KiB at MIBS cost (scripts/bench/cpu-window.sh's DIR/cpu.txt):
# the QEMUs (the guests, their verbs, and rxe's or siw's copies) and ORCA's
# processes (orca-emu, orca-wire); the window includes perftest's own setup.
cpu_row() {
	local pair=$1 setup=$2 f=$3/cpu.txt mibs=$4 q e w gib
	q=$(sed -n 's/^cpu-window kind=qemu s=\([^ ]*\).*/\1/p' "$f" 2>/dev/null)
	e=$(sed -n 's/^cpu-window kind=orca-emu s=\([^ ]*\).*/\1/p' "$f" 2>/dev/null)
	w=$(sed -n 's/^cpu-window kind=orca-wire s=\([^ ]*\).*/\1/p' "$f" 2>/dev/null)
	gib=$(awk -v m="$mibs" 'BEGIN { if (m > 0) printf "%.4f", m * 10 / 1024 }')
	if [ -z "$q" ] || [ -z "$gib" ]; then
		record cpu "$pair" "$setup" "host CPU per GiB written" - s/GiB \
			"no figure: $(head -n 1 "$f" 2>/dev/null || echo 'no cpu.txt')"
		return
	fi
	record cpu "$pair" "$setup" "host CPU per GiB written" \
		"$(awk -v q="$q" -v e="${e:-0}" -v w="${w:-0}" -v g="$gib" 'BEGIN { printf "%.1f", (q + e + w) / g }')" \
		s/GiB "10 s of ib_write_bw 64 KiB, $gib GiB: QEMU $q s, orca-emu ${e:-0} s, orca-wire ${w:-0} s"
	echo "   host CPU per GiB written: see cpu.txt ($q + ${e:-0} + ${w:-0} s for $gib GiB)"
}

# run_ulp SERVER CLIENT: one two-guest run of every kernel ULP.
read -ra ulp_protos <<<"${ORCA_BENCH_ULPS:-rds nfs srp iser smb rnbd}"
run_ulp() {
	local s=$1 c=$2 pc=$1-$2 dir=$out/ulp-$1-$2 opts=() rc start p a b note
	[ "$s" != orca ] && opts+=(--guest-opts 0:no-orca)
	[ "$c" != orca ] && opts+=(--guest-opts 1:no-orca)
	rm -rf "$dir" && mkdir -p "$dir"
	echo "== kernel ULPs: $s server, $c client"
	start=$SECONDS
	ORCA_NO_BUILD=1 scripts/guests/run-guests.sh -n 2 -t 1200 --out "$dir/run" \
		"${opts[@]}" -- env ORCA_TOP="$top" ORCA_RESULT_DIR="$dir" \
		selftests/guest/in-guest/ulp.sh "$s" "$c" bench "${ulp_protos[@]}" \
		>"$dir/run.log" 2>&1
	rc=$?
	ures() {	# ures JOB FIELD: FIELD of fio job JOB's result line
		sed -n "s/^# ulp-result .*job=$1 .*$2=\([^ ]*\).*/\1/p" \
			"$dir"/g1.tap 2>/dev/null | tail -n 1
	}
	rres() {	# rres SIZE FIELD: FIELD of rds_check bench's line
		sed -n "s/^# rds-bench size=$1 .*$2=\([^ ]*\).*/\1/p" \
			"$dir"/g1.tap 2>/dev/null | tail -n 1
	}
	note="$(cat "$dir"/g*.tap 2>/dev/null | grep -c '^not ok') failed checks in the run, $((SECONDS - start)) s$([ "$rc" = 0 ] || echo ", exit $rc")"
	for p in "${ulp_protos[@]}"; do
		if [ "$p" = rds ]; then
			a=$(rres 4096 msg_rate) b=$(rres 131072 mibs)
			record ulp "$pc" rds "4 KiB messages" "$a" msg/s "$note"
			record ulp "$pc" rds "128 KiB messages" "$b" MiB/s "$note"
		else
			a=$(ures "$p-randread-4k" read_iops)
			b=$(ures "$p-seqread-128k" read_mibs)
			record ulp "$pc" "$p" "4k rand read" "$a" IOPS "$note"
			record ulp "$pc" "$p" "128k seq read" "$b" MiB/s "$note"
		fi
		echo "   $p: ${a:--} ${b:--}"
	done
	record_resent "$pc" "kernel ULPs" "$dir"
}

# run_mpi KIND0 KIND1: one two-guest MPI run, rank 0 on KIND0.
run_mpi() {
	local a=$1 b=$2 pc=$1-$2 dir=$out/mpi-$1-$2 opts=() rc start tl v note
	[ "$a" != orca ] && opts+=(--guest-opts 0:no-orca)
	[ "$b" != orca ] && opts+=(--guest-opts 1:no-orca)
	rm -rf "$dir" && mkdir -p "$dir"
	echo "== MPI: rank 0 on $a, rank 1 on $b"
	start=$SECONDS
	ORCA_NO_BUILD=1 scripts/guests/run-guests.sh -n 2 -t 900 --out "$dir/run" \
		"${opts[@]}" -- env ORCA_TOP="$top" ORCA_RESULT_DIR="$dir" \
		selftests/guest/in-guest/mpi.sh bench "$a" "$b" \
		>"$dir/run.log" 2>&1
	rc=$?
	mres() {	# mres TL WHAT: mpi_check's figure WHAT of the TL job
		sed -n "s/^# mpi-result name=mpi $pc $1 what=$2 value=\([^ ]*\) .*/\1/p" \
			"$dir"/g0.tap 2>/dev/null | tail -n 1
	}
	note="$(cat "$dir"/g*.tap 2>/dev/null | grep -c '^not ok') failed checks in the run, $((SECONDS - start)) s$([ "$rc" = 0 ] || echo ", exit $rc")"
	for tl in rc_verbs ud_verbs; do
		for v in "pingpong_8B_latency:ping-pong 8 B latency" \
			 "allreduce_8B_time:MPI_Allreduce 8 B" \
			 "allreduce_64KiB_time:MPI_Allreduce 64 KiB"; do
			record mpi "$pc" "UCX $tl" "${v#*:}" \
				"$(mres "$tl" "${v%%:*}")" us "$note"
		done
		echo "   $tl: $(mres "$tl" pingpong_8B_latency) us ping-pong, $(mres "$tl" allreduce_8B_time) / $(mres "$tl" allreduce_64KiB_time) us allreduce 8 B / 64 KiB"
	done
	record_resent "$pc" "MPI" "$dir"
}

# kv LOG PREFIX KEY: KEY's value on the last line of LOG starting PREFIX.
kv() {
	sed -n "s/^$2 .*\b$3=\([^ ]*\).*/\1/p" "$1" 2>/dev/null | tail -n 1
}

# kvm LOG PREFIX KEY: the median of KEY's values on LOG's lines starting
# PREFIX (the native runs repeat: two engines and a switch on two cores
# vary from run to run by a factor of two).
kvm() {
	sed -n "s/^$2 .*\b$3=\([^ ]*\).*/\1/p" "$1" 2>/dev/null | sort -g |
		awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'
}

NATIVE_RUNS=5	# bench_native runs whose medians the table shows

# native_runs LOG ARGS...: bench_native NATIVE_RUNS times into LOG.
native_runs() {
	local log=$1 i
	shift
	: >"$log"
	for ((i = 0; i < NATIVE_RUNS; i++)); do
		emulator/build/bench_native "$@" >>"$log" 2>&1 ||
			echo "bench_native $* failed (exit $?)" >>"$log"
	done
}

# round_trip_us RATE: the round trip, in us, of one message outstanding at
# RATE messages/s (nothing for no rate).
round_trip_us() {
	awk -v r="$1" 'BEGIN { if (r > 0) printf "%.1f", 1e6 / r }'
}

# engine_cpu_row LOG VARIANT PREFIX WHAT: the CPU time both engine threads
# spent per GiB of 64 KiB WRITEs (bench_native's what=cpu64k, medians),
# next to the floor row's one copy and one CRC per byte on each side: what
# is above twice the floor is the engines' own cost (wake-ups, system calls,
# per-packet work), not the host's memory and CRC speed.
engine_cpu_row() {
	local log=$1 v=$2 pfx=$3 what=$4 req resp poster sum why sys
	req=$(kvm "$log" "bench-native what=${pfx}cpu64k" req_s_gib)
	resp=$(kvm "$log" "bench-native what=${pfx}cpu64k" resp_s_gib)
	poster=$(kvm "$log" "bench-native what=${pfx}cpu64k" poster_s_gib)
	sum=$(awk -v a="$req" -v b="$resp" 'BEGIN { if (a != "" && b != "") printf "%.3f", a + b }')
	sys=$(awk -v a="$(kvm "$log" "bench-native what=${pfx}cpu64k" req_sys_s_gib)" \
		-v b="$(kvm "$log" "bench-native what=${pfx}cpu64k" resp_sys_s_gib)" \
		'BEGIN { if (a != "" && b != "") printf "%.3f", a + b }')
	why=$([ -n "$sum" ] || tail -n 1 "$log")
	record native - "$v" "engine CPU per GiB written" "$sum" s/GiB \
		"${why:-requester $req + responder $resp s, of them in the kernel (kicks, sleeps) $sys s (the poster: $poster s), $what, 64 KiB WRITEs; medians of $NATIVE_RUNS}"
}

# engine_msg_cpu_row LOG VARIANT PREFIX: the same per 64 B WRITE (what=cpu64),
# in microseconds: the issue's 1 M messages/s is 1 us of an engine's core per
# message; what the kernel took of it is this host's price of the kicks and
# sleeps (system calls of ~6 us on a PVM guest).
engine_msg_cpu_row() {
	local log=$1 v=$2 pfx=$3 req resp rs ps sum why
	req=$(kvm "$log" "bench-native what=${pfx}cpu64" req_us_msg)
	resp=$(kvm "$log" "bench-native what=${pfx}cpu64" resp_us_msg)
	rs=$(kvm "$log" "bench-native what=${pfx}cpu64" req_sys_us_msg)
	ps=$(kvm "$log" "bench-native what=${pfx}cpu64" resp_sys_us_msg)
	sum=$(awk -v a="$req" -v b="$resp" 'BEGIN { if (a != "" && b != "") printf "%.2f", a + b }')
	why=$([ -n "$sum" ] || tail -n 1 "$log")
	record native - "$v" "engine CPU per 64 B WRITE" "$sum" us \
		"${why:-requester $req us (kernel $rs) + responder $resp us (kernel $ps), 16 outstanding; medians of $NATIVE_RUNS}"
}

# run_native: the adapter's own code natively, no guests: two engines over
# orca-wire against memcpy (bench_native), the depth-1 64 B WRITE rate with
# 1 QP and with 65536 QPs open (bench_engine), ICRC (bench_icrc, log only).
run_native() {
	local dir=$out/native w64k w64 cp rt why v note
	rm -rf "$dir" && mkdir -p "$dir"
	echo "== native: two engines over orca-wire, memcpy, 64K QPs, ICRC"
	native_runs "$dir/native.log"
	w64k=$(kvm "$dir/native.log" "bench-native what=write64k" mibs)
	w64=$(kvm "$dir/native.log" "bench-native what=write64" mibs)
	cp=$(kvm "$dir/native.log" "bench-native what=memcpy64k" mibs)
	rt=$(kv "$dir/native.log" "bench-native what=retransmits" count)
	why=$([ -n "$w64k" ] || tail -n 1 "$dir/native.log")
	v="2 engines, orca-wire"
	note="$(kvm "$dir/native.log" "bench-native what=write64k" msg_rate) msg/s, 16 outstanding, path MTU 1024; median of $NATIVE_RUNS"
	record native - "$v" "64 KiB WRITE" "$w64k" MiB/s "${why:-$note}"
	note="$(kvm "$dir/native.log" "bench-native what=write64" msg_rate) msg/s, 16 outstanding; median of $NATIVE_RUNS"
	record native - "$v" "64 B WRITE" "$w64" MiB/s "${why:-$note}"
	record native - "this host, 1 core" "memcpy 64 KiB" "$cp" MiB/s \
		"${why:-8 MiB buffers}"
	record native - "this host, 1 core" "CRC-32 4 KiB" \
		"$(kvm "$dir/native.log" "bench-native what=crc4k" mibs)" MiB/s \
		"${why:-the ICRC CRC (VPCLMULQDQ or PCLMULQDQ where the CPU has it)}"
	record native - "this host, 1 core" "memcpy + CRC of each byte" \
		"$(kvm "$dir/native.log" "bench-native what=cpu64k" floor_s_gib)" \
		s/GiB "${why:-the least an engine spends per GiB it sends or receives: one copy, one CRC}"
	engine_cpu_row "$dir/native.log" "2 engines, orca-wire" "" "path MTU 1024"

	# Jumbo frames (Ethernet MTU 9000): path MTU 4096, a quarter of the
	# frames for the same bytes.
	native_runs "$dir/jumbo.log" -m 9000
	w64k=$(kvm "$dir/jumbo.log" "bench-native what=write64k" mibs)
	why=$([ -n "$w64k" ] || tail -n 1 "$dir/jumbo.log")
	note="$(kvm "$dir/jumbo.log" "bench-native what=write64k" msg_rate) msg/s, 16 outstanding, path MTU 4096; median of $NATIVE_RUNS"
	record native - "2 engines, orca-wire, MTU 9000" "64 KiB WRITE" \
		"$w64k" MiB/s "${why:-$note}"
	engine_cpu_row "$dir/jumbo.log" "2 engines, orca-wire, MTU 9000" "" \
		"path MTU 4096"
	# One WRITE outstanding: a 64 B WRITE's round trip, doorbell to CQE
	# through both engines and the switch (the issue's ib_send_lat-like
	# figure): the hand-offs between threads, not bytes, set it.
	native_runs "$dir/depth1.log" -d 1 -s 2
	v=$(kvm "$dir/depth1.log" "bench-native what=write64" msg_rate)
	why=$([ -n "$v" ] || tail -n 1 "$dir/depth1.log")
	record native - "2 engines, orca-wire, depth 1" "64 B WRITE round trip" \
		"$(round_trip_us "$v")" \
		us "${why:-$v msg/s, 1 outstanding; median of $NATIVE_RUNS}"
	# The same engines joined by a point-to-point link (bench_native -p,
	# topology.rst): no switch process, no copy between the two.
	native_runs "$dir/p2p.log" -p
	native_runs "$dir/p2p-depth1.log" -p -d 1 -s 2
	w64k=$(kvm "$dir/p2p.log" "bench-native what=p2p-write64k" mibs)
	why=$([ -n "$w64k" ] || tail -n 1 "$dir/p2p.log")
	v="2 engines, point-to-point"
	note="$(kvm "$dir/p2p.log" "bench-native what=p2p-write64k" msg_rate) msg/s, 16 outstanding, path MTU 1024; median of $NATIVE_RUNS"
	record native - "$v" "64 KiB WRITE" "$w64k" MiB/s "${why:-$note}"
	note="$(kvm "$dir/p2p.log" "bench-native what=p2p-write64" msg_rate) msg/s, 16 outstanding; median of $NATIVE_RUNS"
	record native - "$v" "64 B WRITE" \
		"$(kvm "$dir/p2p.log" "bench-native what=p2p-write64" mibs)" MiB/s \
		"${why:-$note}"
	engine_cpu_row "$dir/p2p.log" "2 engines, point-to-point" p2p- \
		"path MTU 1024"
	engine_msg_cpu_row "$dir/p2p.log" "2 engines, point-to-point" p2p-
	# Point-to-point with jumbo frames: the least work per byte the
	# adapter has, the row to hold against the issue's 4 GiB/s.
	native_runs "$dir/p2p-jumbo.log" -p -m 9000
	w64k=$(kvm "$dir/p2p-jumbo.log" "bench-native what=p2p-write64k" mibs)
	why=$([ -n "$w64k" ] || tail -n 1 "$dir/p2p-jumbo.log")
	v="2 engines, point-to-point, MTU 9000"
	note="$(kvm "$dir/p2p-jumbo.log" "bench-native what=p2p-write64k" msg_rate) msg/s, 16 outstanding, path MTU 4096; median of $NATIVE_RUNS"
	record native - "$v" "64 KiB WRITE" "$w64k" MiB/s "${why:-$note}"
	engine_cpu_row "$dir/p2p-jumbo.log" "$v" p2p- "path MTU 4096"
	v=$(kvm "$dir/p2p-depth1.log" "bench-native what=p2p-write64" msg_rate)
	why=$([ -n "$v" ] || tail -n 1 "$dir/p2p-depth1.log")
	record native - "2 engines, point-to-point, depth 1" \
		"64 B WRITE round trip" \
		"$(round_trip_us "$v")" \
		us "${why:-$v msg/s, 1 outstanding; median of $NATIVE_RUNS}"
	record retransmissions - "native, orca-wire" "packets sent again" "$rt" \
		packets "${why:-in $(kv "$dir/native.log" "bench-native what=retransmits" msgs) messages ($(kv "$dir/native.log" "bench-native what=retransmits" early) early retries, $(kv "$dir/native.log" "bench-native what=retransmits" timeouts) timeouts; $(kv "$dir/native.log" "bench-native what=retransmits" dropped) frames dropped)}"

	# The same engines on a wire that drops and reorders 5% of the frames
	# (what 61-nvmeof-orca-lossy does): what loss recovery costs.
	emulator/build/bench_native -l 5 >"$dir/lossy.log" 2>&1 ||
		echo "bench_native -l 5 failed (exit $?)" >>"$dir/lossy.log"
	why=$([ -n "$(kv "$dir/lossy.log" "bench-native what=lossy-write64k" mibs)" ] ||
		tail -n 1 "$dir/lossy.log")
	v="2 engines, orca-wire, 5% loss"
	note="$(kv "$dir/lossy.log" "bench-native what=lossy-write64k" msg_rate) msg/s, 16 outstanding; $(kv "$dir/lossy.log" "bench-native what=lossy-retransmits" count) packets sent again in $(kv "$dir/lossy.log" "bench-native what=lossy-retransmits" msgs) messages"
	record native - "$v" "64 KiB WRITE" \
		"$(kv "$dir/lossy.log" "bench-native what=lossy-write64k" mibs)" \
		MiB/s "${why:-$note}"
	note="$(kv "$dir/lossy.log" "bench-native what=lossy-write64" msg_rate) msg/s, 16 outstanding"
	record native - "$v" "64 B WRITE" \
		"$(kv "$dir/lossy.log" "bench-native what=lossy-write64" mibs)" \
		MiB/s "${why:-$note}"

	emulator/build/bench_engine -q 65536 -a 4 >"$dir/engine.log" 2>&1 ||
		echo "bench_engine failed (exit $?)" >>"$dir/engine.log"
	why=$(grep -q '^bench-engine-ratio' "$dir/engine.log" ||
		grep -v '^[0-9]\{4\}-[0-9][0-9]-[0-9][0-9] ' "$dir/engine.log" |
		tail -n 1)
	record 64k-qps - "1 QP" "64 B WRITE depth 1" \
		"$(kv "$dir/engine.log" "bench-engine qps=1" median)" msg/s \
		"${why:-median of 15 rounds, alternating with the next row; in-process wire}"
	record 64k-qps - "4 of 65536 QPs busy" "64 B WRITE depth 1" \
		"$(kv "$dir/engine.log" "bench-engine qps=65536" median)" msg/s \
		"${why:-median of 15 rounds; at most $(kv "$dir/engine.log" "bench-engine qps=65536" max_pass_steps) QPs in a pass; rounds paired: $(kv "$dir/engine.log" "bench-engine-ratio" "many\/one")x}"

	emulator/build/bench_icrc >"$dir/icrc.log" 2>&1 ||
		echo "bench_icrc failed (exit $?)" >>"$dir/icrc.log"
	cat "$dir/native.log" "$dir/p2p.log" "$dir/p2p-jumbo.log" \
		"$dir/lossy.log"
	grep -v '^[0-9]\{4\}-[0-9][0-9]-[0-9][0-9] ' "$dir/engine.log"
}

FABRIC_RUNS=3	# bench_incast runs whose medians the table shows

# run_fabric: an incast through a modelled congested switch port, natively
# (bench_incast, FABRIC_RUNS runs into fabric/incast.log): three bulk
# senders and a 64 B probe into one adapter through orca-wire --link-rate
# 200, without congestion control, with ECN + DCQCN, lossless (--pfc 0)
# and lossless with ECN + DCQCN; medians in the
# table, the last run's per-QP rates over time in fabric/incast-rate.csv,
# drawn in fabric/incast-rate.png (scripts/bench/incast-plot.py).
run_fabric() {
	local dir=$out/fabric log mode v p i runs why note
	log=$dir/incast.log
	rm -rf "$dir" && mkdir -p "$dir"
	echo "== fabric: incast through a congested 200 Mb/s switch port: no CC, DCQCN, lossless (PFC), PFC + DCQCN"
	: >"$log"
	for ((i = 0; i < FABRIC_RUNS; i++)); do
		emulator/build/bench_incast >>"$log" 2>&1 ||
			echo "bench_incast failed (exit $?)" >>"$log"
	done
	for mode in nocc dcqcn pfc pfc-dcqcn; do
		p="bench-incast mode=$mode"
		case $mode in
		nocc) v='no CC' ;;
		dcqcn) v='ECN + DCQCN' ;;
		pfc) v='lossless (PFC)' ;;
		pfc-dcqcn) v='lossless (PFC) + ECN + DCQCN' ;;
		esac
		v="3 senders + probe, 200 Mb/s link, $v"
		runs=$(grep -c "^$p " "$log")
		# Why a figure is missing: what bench_incast said before "not
		# measured", else the log's last words.
		why=
		if [ "$runs" = 0 ]; then
			why=$(grep -B 4 "^# mode=$mode: not measured" "$log" |
				grep '^# ' | tail -n 3 | sed 's/^# //' |
				paste -sd ';' | tr '\t' ' ')
			[ -n "$why" ] || why=$(grep -v -E '^[0-9]{4}-[0-9]{2}-[0-9]{2} |^# incast:' \
				"$log" | tail -n 2 | paste -sd ';' | tr '\t' ' ')
			why=${why:-no bench-incast line, see $log}
		fi
		note="median of $runs; p50 $(kvm "$log" "$p" p50_us) us; CNPs $(kvm "$log" "$p" cnps), rate cuts $(kvm "$log" "$p" cuts), CE marks $(kvm "$log" "$p" marked)"
		case $mode in
		pfc*) note="$note; PFC pauses $(kvm "$log" "bench-incast-pfc mode=$mode" pauses), senders paused $(kvm "$log" "bench-incast-pfc mode=$mode" paused_us |
			awk '{ printf "%.1f", $1 / 1e6 }') s in all" ;;
		esac
		record fabric - "$v" "incast goodput" \
			"$(kvm "$log" "$p" goodput_mbps)" Mb/s \
			"${why:-$note; per sender $(kv "$log" "$p" senders_mbps) Mb/s (last run)}"
		record fabric - "$v" "Jain's fairness index" \
			"$(kvm "$log" "$p" jain)" index "${why:-$note}"
		record fabric - "$v" "probe 64 B WRITE p99" \
			"$(kvm "$log" "$p" p99_us)" us "${why:-$note}"
		record fabric - "$v" "queue drops" "$(kvm "$log" "$p" drops)" \
			frames "${why:-$note}"
		record fabric - "$v" "packets sent again" \
			"$(kvm "$log" "$p" retransmits)" packets \
			"${why:-$note; timeouts and early retries $(kvm "$log" "$p" timeouts)}"
		echo "   $mode: ${why:-$(kv "$log" "$p" goodput_mbps) Mb/s, Jain $(kv "$log" "$p" jain), probe p99 $(kv "$log" "$p" p99_us) us, $(kv "$log" "$p" drops) drops (last run)}"
	done
	# The last run's rates, every 10 ms (its lines follow its "# incast:").
	awk 'BEGIN { print "mode,t_ms,qp0,qp1,qp2" }
	     /^# incast:/ { n = 0 }
	     /^bench-incast-rate / {
		for (j = 2; j <= NF; j++) {
			split($j, a, "=")
			kv[a[1]] = a[2]
		}
		l[++n] = kv["mode"] "," kv["t_ms"] "," kv["qp0"] "," \
			 kv["qp1"] "," kv["qp2"]
	     }
	     END { for (j = 1; j <= n; j++) print l[j] }' \
		"$log" >"$dir/incast-rate.csv"
	python3 scripts/bench/incast-plot.py "$dir/incast-rate.csv" \
		"$dir/incast-rate.png" &&
		echo "   per-QP rates: $dir/incast-rate.{csv,png}"
	grep '^bench-incast ' "$log"
}

has native && run_native
has fabric && run_fabric
has ceiling && run_ceiling
for p in "${pairs[@]}"; do
	if has nvmeof; then
		for m in ${ORCA_BENCH_MTUS:-1500 9000}; do
			run_pair "${p%-*}" "${p#*-}" "$m"
		done
	fi
	if has perftest; then
		for m in ${ORCA_BENCH_MTUS:-1500 9000}; do
			run_perftest "${p%-*}" "${p#*-}" "$m"
		done
	fi
	has ulp && [ "$p" != siw-siw ] && run_ulp "${p%-*}" "${p#*-}"
	has mpi && [ "$p" != siw-siw ] && run_mpi "${p%-*}" "${p#*-}"
done

echo
python3 scripts/bench/bench-table.py "$results" --out "$out"
echo "logs: $out"

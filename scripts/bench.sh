#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench: RDMA throughput and latency between two guests, for each
# pairing of RDMA devices, side by side in one table per workload:
# - NVMe-oF over RDMA: 4k random read IOPS and 128k sequential read MiB/s
#   (fio, direct I/O, 15 s each, after a crc32c-verified write pass); guest
#   0 the nvmet target, guest 1 the nvme-rdma host
#   (selftests/guest/in-guest/nvmeof-fio.sh in bench mode);
# - perftest through the userspace verbs: ib_write_bw 64 KiB MiB/s and 64 B
#   messages/s, ib_send_lat 64 B typical latency, ib_read_bw 64 KiB MiB/s,
#   ib_atomic_bw operations/s; guest 0 the server, guest 1 the client
#   (selftests/guest/in-guest/perftest.sh in bench mode);
# - the kernel ULPs (RDS, NFS over RDMA v4.2, SRP, iSER, SMB Direct), one
#   row per protocol with each pairing's 4k random read IOPS and 128k
#   sequential read MiB/s (fio direct I/O, 10 s each, after the verify
#   jobs), for RDS 4 KiB messages/s and 128 KiB-message MiB/s (rds_check
#   bench, every reply checked); guest 0 the server, guest 1 the client
#   (selftests/guest/in-guest/ulp.sh in bench mode; siw-siw is not run).
# Each pairing boots its own two guests; one that does not work gets a
# line saying what failed instead of numbers.
#
# Usage: scripts/bench.sh [TARGET-HOST...]   default: rxe-rxe siw-siw
#                                            orca-orca rxe-orca orca-rxe
# (siw is Soft-iWARP, built from the kernel source by scripts/siw-build.sh
# since Debian's kernel lacks it; it only pairs with itself.)
# - native: the adapter's ICRC and engine without guests
#   (selftests/emulator/bench_icrc.c, bench_engine.c), once per run.
# ORCA_BENCH="nvmeof perftest ulp native" picks the workloads (default all).
#
# Figures are from QEMU/TCG guests sharing the host's CPUs: compare the
# rows of one run with each other, not with hardware or with other runs.
# Logs stay in out/bench/<pairing>/.  ORCA_NO_BUILD=1 skips the build.
# Runs inside the toolroot (make bench puts it there).
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
out=$top/out/bench
pairs=("$@")
[ ${#pairs[@]} -gt 0 ] || pairs=(rxe-rxe siw-siw orca-orca rxe-orca orca-rxe)

for p in "${pairs[@]}"; do
	[[ $p =~ ^(orca|rxe)-(orca|rxe)$ || $p = siw-siw ]] ||
		{ echo "bench: pairing '$p' is not TARGET-HOST, each orca or rxe, or siw-siw" >&2; exit 2; }
done

mkdir -p "$out"
if [ "${ORCA_NO_BUILD:-}" != 1 ]; then
	echo "== building"
	make --no-print-directory all >"$out/build.log" 2>&1 ||
		{ tail -n 40 "$out/build.log"; exit 1; }
fi
case " ${pairs[*]} " in
*" siw-siw "*)
	scripts/siw-build.sh >"$out/siw-build.log" 2>&1 ||
		{ tail -n 20 "$out/siw-build.log"; exit 1; }
	;;
esac

declare -A row=()
# run_pair TARGET HOST: one two-guest run; fills row[TARGET-HOST].
run_pair() {
	local t=$1 h=$2 dir=$out/$1-$2 opts=() rc start iops mibs why
	[ "$t" != orca ] && opts+=(--guest-opts 0:no-orca)
	[ "$h" != orca ] && opts+=(--guest-opts 1:no-orca)
	rm -rf "$dir" && mkdir -p "$dir"
	echo "== $t target, $h host"
	start=$SECONDS
	ORCA_NO_BUILD=1 scripts/run-guests.sh -n 2 -t 360 --out "$dir/run" \
		"${opts[@]}" -- env ORCA_TOP="$top" ORCA_RESULT_DIR="$dir" \
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
		row[$t-$h]=$(printf '%-6s %-6s %12s %14s   %s' "$t" "$h" \
			"$iops" "$mibs" "verified, $((SECONDS - start)) s")
	else
		why=$(grep -h '^not ok' "$dir"/g*.tap 2>/dev/null | head -n 2 |
			sed 's/^not ok //' | paste -sd ';')
		[ -n "$why" ] || why="guests exited $rc, see $dir/run.log"
		# The kernel's own words, when it logged a failure.
		why+=$(grep -h -E '^# \[ *[0-9.]+\] .*(failed|error)' \
			"$dir"/g*.tap 2>/dev/null | grep -v 'module verification' |
			head -n 1 |
			sed 's/^# \[ *[0-9.]*\] /; dmesg: /')
		row[$t-$h]=$(printf '%-6s %-6s %12s %14s   %s' "$t" "$h" \
			- - "skipped: does not work yet: $why")
	fi
	echo "${row[$t-$h]}"
}

# run_perftest SERVER CLIENT: one two-guest perftest run; fills prow[S-C].
declare -A prow=()
run_perftest() {
	local s=$1 c=$2 dir=$out/perftest-$1-$2 opts=() rc start why
	local wbw wmr lat rbw amr
	[ "$s" != orca ] && opts+=(--guest-opts 0:no-orca)
	[ "$c" != orca ] && opts+=(--guest-opts 1:no-orca)
	rm -rf "$dir" && mkdir -p "$dir"
	echo "== perftest: $s server, $c client"
	start=$SECONDS
	ORCA_NO_BUILD=1 scripts/run-guests.sh -n 2 -t 600 --out "$dir/run" \
		"${opts[@]}" -- env ORCA_TOP="$top" ORCA_RESULT_DIR="$dir" \
		selftests/guest/in-guest/perftest.sh "$s" "$c" bench \
		>"$dir/run.log" 2>&1
	rc=$?
	pres() {	# pres TOOL FIELD: FIELD of TOOL's result line
		sed -n "s/^# perftest-result .*tool=$1 .*$2=\([^ ]*\).*/\1/p" \
			"$dir"/g1.tap 2>/dev/null | tail -n 1
	}
	mps() { awk -v m="$1" 'BEGIN { if (m != "") printf "%.0f", m * 1e6 }'; }
	wbw=$(pres ib_write_bw_64KiB bw_avg)
	wmr=$(mps "$(pres ib_write_bw_64B msg_rate)")
	lat=$(pres ib_send_lat_64B t_typical)
	rbw=$(pres ib_read_bw_64KiB bw_avg)
	amr=$(mps "$(pres ib_atomic_bw msg_rate)")
	if [ -n "$wbw$wmr$lat$rbw$amr" ]; then
		prow[$s-$c]=$(printf '%-6s %-6s %10s %10s %10s %10s %10s   %s' \
			"$s" "$c" "${wbw:--}" "${wmr:--}" "${lat:--}" "${rbw:--}" \
			"${amr:--}" "$((SECONDS - start)) s$([ "$rc" = 0 ] || echo ", exit $rc")")
	else
		why=$(grep -h '^not ok' "$dir"/g*.tap 2>/dev/null | head -n 2 |
			sed 's/^not ok //' | paste -sd ';')
		prow[$s-$c]=$(printf '%-6s %-6s %10s %10s %10s %10s %10s   %s' \
			"$s" "$c" - - - - - "failed: ${why:-guests exited $rc, see $dir/run.log}")
	fi
	echo "${prow[$s-$c]}"
}

# run_ulp SERVER CLIENT: one two-guest run of every kernel ULP; fills
# ulp[PROTO,S-C] with "4K 128K" figures, and ulp_note[S-C].
declare -A ulp=() ulp_note=()
ulp_protos=(rds nfs srp iser smb)
run_ulp() {
	local s=$1 c=$2 pc=$1-$2 dir=$out/ulp-$1-$2 opts=() rc start p a b
	[ "$s" != orca ] && opts+=(--guest-opts 0:no-orca)
	[ "$c" != orca ] && opts+=(--guest-opts 1:no-orca)
	rm -rf "$dir" && mkdir -p "$dir"
	echo "== kernel ULPs: $s server, $c client"
	start=$SECONDS
	ORCA_NO_BUILD=1 scripts/run-guests.sh -n 2 -t 1200 --out "$dir/run" \
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
	for p in "${ulp_protos[@]}"; do
		if [ "$p" = rds ]; then
			a=$(rres 4096 msg_rate) b=$(rres 131072 mibs)
		else
			a=$(ures "$p-randread-4k" read_iops)
			b=$(ures "$p-seqread-128k" read_mibs)
		fi
		ulp[$p,$pc]="${a:--} ${b:--}"
		echo "   $p: ${a:--} ${b:--}"
	done
	ulp_note[$pc]="$pc: $(cat "$dir"/g*.tap 2>/dev/null | grep -c '^not ok') failed checks, $((SECONDS - start)) s$([ "$rc" = 0 ] || echo ", exit $rc")"
}

# run_native: the adapter's own code natively, no guests: ICRC throughput
# by implementation and frame size (bench_icrc), and the engine's depth-1
# 64 B WRITE rate with one QP and with 2000 idle QPs beside it
# (bench_engine).  Their results go into the report as they print them.
native=
run_native() {
	local dir=$out/native
	rm -rf "$dir" && mkdir -p "$dir"
	echo "== native: ICRC and engine"
	emulator/build/bench_icrc >"$dir/icrc.log" 2>&1 ||
		echo "bench_icrc failed (exit $?)" >>"$dir/icrc.log"
	emulator/build/bench_engine -i 2000 >"$dir/engine.log" 2>&1 ||
		echo "bench_engine failed (exit $?)" >>"$dir/engine.log"
	# The engines' own log lines (timestamped) stay in the log only.
	native=$(cat "$dir/icrc.log"; echo
		grep -v '^[0-9]\{4\}-[0-9][0-9]-[0-9][0-9] ' "$dir/engine.log")
	echo "$native"
}

benches=${ORCA_BENCH:-nvmeof perftest ulp native}
case " $benches " in *" native "*) run_native ;; esac
for p in "${pairs[@]}"; do
	case " $benches " in *" nvmeof "*) run_pair "${p%-*}" "${p#*-}" ;; esac
	case " $benches " in *" perftest "*) run_perftest "${p%-*}" "${p#*-}" ;; esac
	case " $benches " in *" ulp "*)
		[ "$p" != siw-siw ] && run_ulp "${p%-*}" "${p#*-}" ;;
	esac
done

# ratio NUM DEN: NUM/DEN to one decimal, or "-".
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a + 0 > 0 && b + 0 > 0) printf "%.1fx", a / b; else printf "-" }'; }
col() { echo "${prow[$1]:-}" | awk -v i="$2" '{ print $i }'; }

echo
if [ ${#row[@]} -gt 0 ]; then
	echo "NVMe-oF over RDMA, fio direct I/O on a 32 MiB brd namespace, 1 vCPU guests under TCG"
	printf '%-6s %-6s %12s %14s   %s\n' target host "4k rand IOPS" "128k seq MiB/s" notes
	for p in "${pairs[@]}"; do
		echo "${row[$p]:-}"
	done
	echo
fi
if [ ${#prow[@]} -gt 0 ]; then
	echo "perftest through userspace verbs (RC, RoCE v2, MTU 1024), 1 vCPU guests under TCG"
	printf '%-6s %-6s %10s %10s %10s %10s %10s   %s\n' server client \
		"write MiB/s" "write64 m/s" "send_lat us" "read MiB/s" "atomic op/s" notes
	printf '%-6s %-6s %10s %10s %10s %10s %10s\n' "" "" "64 KiB" "64 B" "64 B" "64 KiB" ""
	for p in "${pairs[@]}"; do
		echo "${prow[$p]:-}"
	done
	if [ -n "${prow[orca-orca]:-}" ] && [ -n "${prow[rxe-rxe]:-}" ]; then
		printf '%-13s %10s %10s %10s %10s %10s   %s\n' "orca/rxe" \
			"$(ratio "$(col orca-orca 3)" "$(col rxe-rxe 3)")" \
			"$(ratio "$(col orca-orca 4)" "$(col rxe-rxe 4)")" \
			"$(ratio "$(col rxe-rxe 5)" "$(col orca-orca 5)")" \
			"$(ratio "$(col orca-orca 6)" "$(col rxe-rxe 6)")" \
			"$(ratio "$(col orca-orca 7)" "$(col rxe-rxe 7)")" \
			"(latency: rxe/orca)"
	fi
	echo
fi
if [ ${#ulp[@]} -gt 0 ]; then
	echo "kernel ULPs, server-client pairings; per pairing: 4k random read IOPS / 128k sequential read MiB/s"
	echo "(RDS: 4 KiB messages/s / MiB/s of 128 KiB messages), 1 vCPU guests under TCG"
	printf '%-6s' proto
	for p in "${pairs[@]}"; do
		[ "$p" != siw-siw ] && printf ' %20s' "$p"
	done
	echo
	for u in "${ulp_protos[@]}"; do
		printf '%-6s' "$u"
		for p in "${pairs[@]}"; do
			[ "$p" = siw-siw ] && continue
			read -r a b <<<"${ulp[$u,$p]:-- -}"
			printf ' %20s' "$a / $b"
		done
		echo
	done
	for p in "${pairs[@]}"; do
		[ -n "${ulp_note[$p]:-}" ] && echo "  ${ulp_note[$p]}"
	done
	echo
fi
if [ -n "$native" ]; then
	echo "the adapter natively (no guests, this host's CPU; selftests/emulator/bench_*.c)"
	echo "$native"
	echo
fi
echo "logs: $out"

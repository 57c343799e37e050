#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench: NVMe-oF over RDMA throughput between two guests, for each
# pairing of RDMA devices, side by side in one table: 4k random read IOPS
# and 128k sequential read MiB/s (fio, direct I/O, 15 s each, after a
# crc32c-verified write pass).  Each pairing boots its own two guests
# (guest 0 the nvmet target, guest 1 the nvme-rdma host) and runs
# selftests/guest/in-guest/nvmeof-fio.sh in bench mode; a pairing that does not
# work yet gets a line saying what failed instead of numbers.
#
# Usage: scripts/bench.sh [TARGET-HOST...]   default: rxe-rxe orca-orca
#                                            rxe-orca orca-rxe
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
[ ${#pairs[@]} -gt 0 ] || pairs=(rxe-rxe orca-orca rxe-orca orca-rxe)

for p in "${pairs[@]}"; do
	[[ $p =~ ^(orca|rxe)-(orca|rxe)$ ]] ||
		{ echo "bench: pairing '$p' is not TARGET-HOST, each orca or rxe" >&2; exit 2; }
done

if [ "${ORCA_NO_BUILD:-}" != 1 ]; then
	echo "== building"
	mkdir -p "$out"
	make --no-print-directory all >"$out/build.log" 2>&1 ||
		{ tail -n 40 "$out/build.log"; exit 1; }
fi

declare -A row=()
# run_pair TARGET HOST: one two-guest run; fills row[TARGET-HOST].
run_pair() {
	local t=$1 h=$2 dir=$out/$1-$2 opts=() rc start iops mibs why
	[ "$t" = rxe ] && opts+=(--guest-opts 0:no-orca)
	[ "$h" = rxe ] && opts+=(--guest-opts 1:no-orca)
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

for p in "${pairs[@]}"; do
	run_pair "${p%-*}" "${p#*-}"
done

kver=$(ls /lib/modules | sort -V | tail -n 1)
echo
echo "NVMe-oF over RDMA, fio direct I/O on a 32 MiB brd namespace, 1 vCPU guests under TCG"
printf '%-6s %-6s %12s %14s   %s\n' target host "4k rand IOPS" "128k seq MiB/s" notes
for p in "${pairs[@]}"; do
	echo "${row[$p]}"
done
if modinfo -k "$kver" siw >/dev/null 2>&1; then
	printf '%-6s %-6s %12s %14s   %s\n' siw siw - - "not measured (no bench pairing yet)"
else
	printf '%-6s %-6s %12s %14s   %s\n' siw siw - - \
		"not available: kernel $kver is built without siw (CONFIG_RDMA_SIW)"
fi
echo "ib_write_bw: not possible yet: ORCA has no rdma-core provider (userspace verbs)"
echo "logs: $out"

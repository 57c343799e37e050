#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make blktests BLKTESTS=DIR: run the blktests checkout in DIR (the project
# does not ship blktests) as it is, in ORCA guests, and the same run over
# rxe, and print blktests' own results side by side
# (Documentation/orca/blktests.rst):
# - orca: one guest with the adapter; NVMe-oF over RDMA and SRP run in
#   loopback over orca_0 (the nvmet or srpt target and the host in the same
#   guest, which is what blktests' nvme and srp groups do);
# - rxe: one guest without the adapter; blktests adds its own rxe link on
#   eth0 and deletes it after each test, as on any machine;
# every guest with 2 GiB of memory and udev running (run-guests.sh --udev);
# - orca-remote (not in the default list): two guests with adapters, the
#   nvme group's host side in guest 0 and its target in guest 1, through
#   blktests' NVME_TARGET_CONTROL (scripts/blktests/target-control.sh).
# DIR is copied to out/blktests/tree and built there (blktests' src/, with
# the toolroot's compilers); nothing is downloaded.  Each run's logs,
# blktests' results/ and the config blktests read are in
# out/blktests/<kind>/<group>/; the table is out/blktests/table.txt (and
# .csv).
#
# Usage: scripts/blktests/blktests.sh DIR [GROUP-OR-TEST...]
#   default tests: nvme srp.  Environment: BLKTESTS_ON="orca rxe" (the
#   kinds to run, in order; also orca-remote), BLKTESTS_TIMEOUT (seconds
#   per guest boot, default 14400), BLKTESTS_IMG_SIZE (blktests'
#   NVME_IMG_SIZE, default 32M: TCG; nvme/012 wants 350M),
#   ORCA_NO_BUILD=1 (use the module and emulator as built).
# Copies DIR first, then starts itself in the toolroot (which does not see
# DIR, only this repository).
set -uo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
out=$top/out/blktests
tree=$out/tree

usage() {
	sed -n '/^# Usage:/,/^# DIR, only/p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
}
[ $# -ge 1 ] || usage
dir=$1
shift

# The copy: blktests writes into its tree (results/, src/ builds); the
# user's results and config stay out of it.
copy_tree() {
	[ -n "$dir" ] || { echo "blktests: BLKTESTS=DIR (a blktests checkout) is required" >&2; exit 2; }
	[ -x "$dir/check" ] && [ -d "$dir/tests/nvme" ] && [ -d "$dir/tests/srp" ] ||
		{ echo "blktests: $dir is no blktests checkout (no check, tests/nvme, tests/srp)" >&2; exit 2; }
	mkdir -p "$out"
	rm -rf "$tree" && mkdir -p "$tree" || exit 1
	tar -C "$dir" --exclude=./results --exclude=./config --exclude=./.git \
		-cf - . | tar -C "$tree" -xf - || exit 1
	if git -C "$dir" rev-parse --short HEAD >/dev/null 2>&1; then
		git -C "$dir" log -1 --format='%h %cs %s' >"$tree/.orca-version"
	else
		echo "$dir (no git)" >"$tree/.orca-version"
	fi
}
[ "$dir" -ef "$tree" ] || copy_tree

[ -f /.orca-recipe ] && ORCA_IN_TOOLROOT=1
if [ "${ORCA_IN_TOOLROOT:-}" != 1 ]; then
	cd "$top" || exit 1
	exec scripts/toolroot.sh --run env ORCA_IN_TOOLROOT=1 \
		ORCA_NO_BUILD="${ORCA_NO_BUILD:-}" BLKTESTS_ON="${BLKTESTS_ON:-}" \
		BLKTESTS_TIMEOUT="${BLKTESTS_TIMEOUT:-}" \
		BLKTESTS_IMG_SIZE="${BLKTESTS_IMG_SIZE:-}" \
		scripts/blktests/blktests.sh "$tree" "$@"
fi

cd "$top" || exit 1
tests=("$@")
[ ${#tests[@]} -gt 0 ] || tests=(nvme srp)
read -ra kinds <<<"${BLKTESTS_ON:-orca rxe}"
for k in "${kinds[@]}"; do
	case $k in
	orca | rxe | orca-remote) ;;
	*) echo "blktests: BLKTESTS_ON: unknown kind '$k' (orca, rxe, orca-remote)" >&2; exit 2 ;;
	esac
done
timeout=${BLKTESTS_TIMEOUT:-14400}

echo "== blktests $(cat "$tree/.orca-version" 2>/dev/null): ${tests[*]} on ${kinds[*]}"
if [ "${ORCA_NO_BUILD:-}" != 1 ]; then
	make -s module emulator >"$out/build.log" 2>&1 ||
		{ tail -n 20 "$out/build.log"; echo "blktests: ORCA build failed ($out/build.log)"; exit 1; }
fi
make -C "$tree" >"$out/build-blktests.log" 2>&1 ||
	{ tail -n 20 "$out/build-blktests.log"; echo "blktests: its build failed ($out/build-blktests.log)"; exit 1; }
sed -n 's/^Skip /   blktests build: skip /p' "$out/build-blktests.log"

# One guest boot per group (or test) and kind, the groups in the order
# given, each on every kind before the next: the nvme group's comparison
# is complete before the srp group starts.
# Stopped, the runner stops its guests (it kills what it started).
child=
trap '[ -n "$child" ] && kill -TERM "$child"; exit 143' TERM HUP
trap '[ -n "$child" ] && kill -TERM "$child"; exit 130' INT
logs=()
for what in "${tests[@]}"; do
	for k in "${kinds[@]}"; do
		# blktests' remote target mode is the nvme group's only
		[ "$k" = orca-remote ] && [[ $what != nvme* ]] && continue
		d=$out/$k/${what//\//-}
		rm -rf "$d" && mkdir -p "$d"
		echo "== $k: ./check $what (logs in $d)"
		start=$SECONDS
		case $k in
		orca) opts=(-n 1) ;;
		rxe) opts=(-n 1 --no-orca) ;;
		orca-remote) opts=(-n 2) ;;
		esac
		ORCA_NO_BUILD=1 scripts/guests/run-guests.sh "${opts[@]}" --mem 2G --udev \
			-t "$timeout" --out "$d/run" -- env ORCA_TOP="$top" \
			BLKTESTS_IMG_SIZE="${BLKTESTS_IMG_SIZE:-}" \
			scripts/blktests/guest.sh "$k" "$tree" "$d" "$what" \
			>"$d/run.log" 2>&1 &
		child=$!
		wait "$child"
		rc=$?
		child=
		grep -q '^blktests: done' "$d/check.log" 2>/dev/null ||
			echo "   $k: the run did not finish (exit $rc): see $d/run.log"
		echo "   $k: $((SECONDS - start)) s;" \
			"$(grep -c '\[passed\]$' "$d/check.log" 2>/dev/null) passed," \
			"$(grep -c '\[failed\]$' "$d/check.log" 2>/dev/null) failed," \
			"$(grep -c '\[not run\]$' "$d/check.log" 2>/dev/null) not run"
		logs+=("$k=$d/check.log")
	done
done

python3 scripts/blktests/table.py --out "$out/table" "${logs[@]}"

# SPDX-License-Identifier: GPL-2.0
#
# Sourced by the host side of a guest test (selftests/guest/NN-*.sh).
#
#   run_guests N TIMEOUT [RUNNER-OPTS...] -- SCRIPT [ARGS...]
#
# boots N guests with scripts/run-guests.sh, runs SCRIPT in each (it sources
# lib/guest.sh and writes KTAP lines to a per-guest file in the shared work
# tree), then prints the merged KTAP, each case prefixed with its guest, and
# returns the runner's status.  Logs stay in out/guest/<test>/.
#
#   host_result OK|FAIL NAME   a test case checked on the host side
#   host_done RC               print the plan and exit (RC or 1 if a case failed)
#   host_final_reset_empty     a case: the adapter of guest 0 held no object
#                              when the driver reset it last (on unload)

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
cd "$top" || exit 1
test_name=$(basename "$0" .sh)
out=$top/out/guest/$test_name

num=0 host_failed=0

host_result() {
	num=$((num + 1))
	if [ "$1" = OK ]; then
		echo "ok $num $2"
	else
		host_failed=1
		echo "not ok $num $2"
	fi
}

host_done() {
	echo "1..$num"
	[ "$host_failed" = 0 ] || exit 1
	exit "$1"
}

run_guests() {
	local n=$1 timeout=$2 opts=() rc i line
	shift 2
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		opts+=("$1"); shift
	done
	shift
	rm -rf "$out" && mkdir -p "$out"
	scripts/run-guests.sh -n "$n" -t "$timeout" --out "$out/run" "${opts[@]}" -- \
		env ORCA_TOP="$top" ORCA_RESULT_DIR="$out" "$@"
	rc=$?
	echo "TAP version 13"
	for i in $(seq 0 $((n - 1))); do
		[ -f "$out/g$i.tap" ] || { echo "# guest $i wrote no results"; continue; }
		while IFS= read -r line; do
			case $line in
			"ok "* | "not ok "*)
				num=$((num + 1))
				local st=${line%% *} rest=${line#ok }
				[ "$st" = not ] && { st="not ok"; rest=${line#not ok }; }
				echo "$st $num g$i: $rest"
				;;
			*) echo "$line" ;;
			esac
		done <"$out/g$i.tap"
	done
	return $rc
}

host_final_reset_empty() {
	local last
	last=$(grep 'engine: freeing objects:' "$out/run/g0/emu.log" 2>/dev/null | tail -n 1)
	echo "# adapter at the driver's final reset: ${last#*objects: }"
	if echo "$last" | grep -q 'pd 0 cq 0 mr 0 qp 0 ah 0 srq 0 gsi 0 eq 0 uar 0$'; then
		host_result OK "adapter holds no objects after rmmod under a process"
	else
		host_result FAIL "adapter holds no objects after rmmod under a process"
	fi
}

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

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
cd "$top" || exit 1
test_name=$(basename "$0" .sh)
out=$top/out/guest/$test_name

run_guests() {
	local n=$1 timeout=$2 opts=() rc i num=0 line
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
	echo "1..$num"
	return $rc
}

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Several one-guest test scripts of in-guest/, one after the other in this
# one boot: a boot under TCG costs more than most of these scripts' own
# work.  Each script runs as it would alone, with a result directory of
# its own (lib/guest/guest.sh starts its results file afresh); its results, and
# whatever else it left there, are then added to this run's.  Each script
# loads orca itself; one that leaves it loaded has it unloaded here, so
# the next one starts from no driver, as in a boot of its own.
#
# Usage: sequence.sh SCRIPT...   (names in selftests/guest/in-guest/)
. "$ORCA_TOP/selftests/lib/guest/guest.sh"

for s in "$@"; do
	dir=$(mktemp -d /tmp/sequence.XXXXXX)
	ktap_line "# --- in-guest/$s"
	ORCA_RESULT_DIR=$dir "$ORCA_TOP/selftests/guest/in-guest/$s" || ktap_fail=1
	if [ -f "$dir/g$gi.tap" ]; then
		cat "$dir/g$gi.tap" >>"$ktap_out"
		rm -f "$dir/g$gi.tap"
	else
		ktap_fail=1
		ktap_line "not ok in-guest/$s wrote results"
	fi
	[ -z "${ORCA_RESULT_DIR:-}" ] || cp -r "$dir/." "$ORCA_RESULT_DIR/"
	rm -rf "$dir"
	if [ -d /sys/module/orca ]; then
		ok_if "in-guest/$s: orca unloads after it" sh -c \
			"! [ -d /sys/module/orca_kverbs ] || rmmod orca_kverbs; rmmod orca"
	fi
done
ktap_done

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run one orca_kverbs suite (default "objects") on orca_0 and report each of
# its cases as a case of this test, with the module's diagnostics; then the
# test modules and the driver unload with dmesg free of warnings.
. "$ORCA_TOP/selftests/guest/lib/guest.sh"

suite=${1:-objects}
run=/sys/kernel/debug/orca_kverbs/run
kverbs_ko=$top/selftests/kmod/orca_kverbs.ko

ok_if "orca module loads" orca_load || ktap_done
ok_if "orca_kverbs module loads" insmod "$kverbs_ko" || ktap_done
ok_if "suite $suite runs" sh -c "echo $suite > $run" || ktap_done

planned=0 seen=0
while IFS= read -r line; do
	case $line in
	1..*)
		planned=${line#1..}
		planned=${planned%% *}
		;;
	"ok "*)
		seen=$((seen + 1))
		rest=${line#ok }
		ktap_line "ok $suite/${rest#* }"
		;;
	"not ok "*)
		seen=$((seen + 1))
		rest=${line#not ok }
		ktap_fail=1
		ktap_line "not ok $suite/${rest#* }"
		;;
	"#"*)
		echo "$line" >>"$ktap_out"
		;;
	esac
done <"$run"
ok_if "suite $suite has cases" test "$planned" -gt 0
expect_eq "suite $suite reported every case" "$seen" "$planned"
ok_if "rmmod orca_kverbs" rmmod orca_kverbs
ok_if "rmmod orca" rmmod orca
ok_if "no warnings in dmesg" sh -c "! dmesg | grep -E 'WARNING|BUG:|Oops|refcount_t|leak'"
ktap_done

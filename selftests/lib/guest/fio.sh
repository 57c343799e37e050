# SPDX-License-Identifier: GPL-2.0
#
# Sourced, after lib/guest/guest.sh, by in-guest scripts that check a block device
# or a file with fio.
#
#   fio_file              what fio_job runs on (set by the caller)
#   fio_tag               "key=value " words for the result line
#   fio_result_name       the result line's name (scripts/bench/bench.sh greps it)
#   fio_job NAME ARGS...  one short fio run on $fio_file (JSON), checked:
#                         no error, and for a verify job every block written
#                         read back; adds a "# $fio_result_name" line
#   dmesg_clean           no kernel warning or splat since boot

fio_result_py=$top/selftests/lib/guest/fio_result.py
fio_file=${fio_file:-}
fio_tag=${fio_tag:-}
fio_result_name=${fio_result_name:-fio-result}

# fio_job NAME FIO-ARGS...: a job on $fio_file with direct I/O through
# libaio, its JSON result checked.  A job with --verify checks every block
# it wrote: as many reads as writes, and no error (a mismatch is EILSEQ).
fio_job() {
	local name=$1 json=/tmp/fio-$1.json rc verify=0 a
	shift
	for a in "$@"; do
		case $a in --verify=*) verify=1 ;; esac
	done
	# timeout: an I/O stuck in a broken transport must not stall the run;
	# the ULP's own timeouts (nvme-rdma: 30 s and ctrl-loss-tmo) end it
	# before this.
	# From /tmp, and no verify state files: fio writes those into its
	# working directory, here the repo share.
	(cd /tmp && timeout "$(scaled 150)" fio --name="$name" --filename="$fio_file" \
		--direct=1 --ioengine=libaio --verify_state_save=0 \
		--output-format=json --output="$json" \
		"$@" >/tmp/fio-"$name".log 2>&1)
	rc=$?
	local fio_ok=0 fio_reason='' fio_error=-1 r_ios=0 r_iops=0 r_mibs=0
	local w_ios=0 w_iops=0 w_mibs=0
	eval "$(python3 "$fio_result_py" "$json")"
	if [ "$rc" != 0 ] || [ "$fio_ok" != 1 ]; then
		sed 's/^/# /' /tmp/fio-"$name".log | tail -n 10 >>"$ktap_out"
		ktap_line "# fio exit $rc ${fio_reason:+($fio_reason)}"
	fi
	expect_eq "fio $name: exit status" "$rc" 0
	expect_eq "fio $name: no I/O or verify error" "$fio_error" 0
	if [ "$verify" = 1 ]; then
		ok_if "fio $name: wrote data" test "$w_ios" -gt 0
		expect_eq "fio $name: read back every block written" "$r_ios" "$w_ios"
	else
		ok_if "fio $name: did I/O" test $((r_ios + w_ios)) -gt 0
	fi
	ktap_line "# $fio_result_name ${fio_tag}job=$name read_iops=$r_iops read_mibs=$r_mibs write_iops=$w_iops write_mibs=$w_mibs"
	[ "$rc" = 0 ] && [ "$fio_error" = 0 ]
}

dmesg_clean() {
	ok_if "no kernel warnings in dmesg" dmesg_quiet 'blocked for more than'
}

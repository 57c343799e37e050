# SPDX-License-Identifier: GPL-2.0
#
# Sourced, after lib/host/host.sh, by the kernel ULP guest tests (8N-ulp-*.sh).
#
#   ulp_guest_test SERVER_KIND CLIENT_KIND TIMEOUT [removal] PROTO...
#
# boots two guests (guest 0 the server on SERVER_KIND, guest 1 the client on
# CLIENT_KIND; an rxe guest gets no ORCA adapter) with the wire captured,
# runs in-guest/ulp.sh for the protocols, then checks the capture
# (lib/host/ulp_pcap.py): tshark read it and it holds RoCE packets, and each
# protocol's connection was made over RoCE (an rdma_cm REQ to its port on
# QP1) and carried that protocol's traffic on the QPs the CM exchange
# named, so a silent fallback to TCP cannot pass.  Exits through host_done.
# ulp_wire_read (host_explain): ulp_pcap.py on the run's capture; its output
# and status for ulp_guest_test, and the known kernel reports it explained
# for the kernel log cases.  Its exit status counts too: a crash (a
# traceback, kept as comments) or no verdict at all must not let the wire
# cases vanish.
ulp_wire_read() {
	ulp_pcap_out=$(python3 "$(dirname "${BASH_SOURCE[0]}")/ulp_pcap.py" \
		"$ulp_pcap" "${ulp_protos[@]}" 2>&1)
	ulp_pcap_rc=$?
	kernel_log_explained=$(sed -n 's/^explained //p' <<<"$ulp_pcap_out" | tr '\n' ' ')
}

ulp_guest_test() {
	local skind=$1 ckind=$2 timeout=$3 opts=() rc line res prc fails=0 verdicts=0
	shift 3
	[ "$skind" = rxe ] && opts+=(--guest-opts 0:no-orca)
	[ "$ckind" = rxe ] && opts+=(--guest-opts 1:no-orca)
	if [ "${1%%-*}" = removal ]; then	# no wire check: no capture
		run_guests 2 "$timeout" "${opts[@]}" -- \
			selftests/guest/in-guest/ulp.sh "$skind" "$ckind" "$@"
		host_done $?
	fi
	ulp_pcap=$out/wire.pcap ulp_protos=("$@")
	# Headers are all ulp_pcap.py reads, but tshark dissects a CM MAD only
	# whole: 512 bytes hold a MAD frame (322 on IPv4), not a data payload.
	# The capture is read before the guests' kernel log cases: it can
	# explain a known report (lib/kernel-log.sh), which the guests leave
	# to those cases.
	host_explain=ulp_wire_read
	run_guests 2 "$timeout" --pcap "$ulp_pcap" --wire-opts "--pcap-snaplen 512" \
		"${opts[@]}" -- env ORCA_KERNEL_LOG_DEFER=iser-logout-flush \
		selftests/guest/in-guest/ulp.sh "$skind" "$ckind" "$@"
	rc=$?
	res=$ulp_pcap_out prc=$ulp_pcap_rc
	while read -r line; do
		case $line in
		"explained "*) echo "# $line" ;;
		"ok "*) verdicts=$((verdicts + 1)); host_result OK "${line#ok }" ;;
		"fail "*)
			verdicts=$((verdicts + 1)) fails=$((fails + 1))
			host_result FAIL "${line#fail }"
			;;
		?*) echo "# $line" ;;
		esac
	done <<<"$res"
	if [ "$verdicts" = 0 ] || { [ "$prc" != 0 ] && [ "$fails" = 0 ]; }; then
		host_result FAIL "wire: ulp_pcap.py checked the capture ($verdicts verdicts, exit $prc)"
	fi
	host_done "$rc"
}

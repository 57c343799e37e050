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
ulp_guest_test() {
	local skind=$1 ckind=$2 timeout=$3 opts=() rc pcap line res prc fails=0 verdicts=0
	shift 3
	[ "$skind" = rxe ] && opts+=(--guest-opts 0:no-orca)
	[ "$ckind" = rxe ] && opts+=(--guest-opts 1:no-orca)
	if [ "${1%%-*}" = removal ]; then	# no wire check: no capture
		run_guests 2 "$timeout" "${opts[@]}" -- \
			selftests/guest/in-guest/ulp.sh "$skind" "$ckind" "$@"
		host_done $?
	fi
	pcap=$out/wire.pcap
	# Headers are all ulp_pcap.py reads, but tshark dissects a CM MAD only
	# whole: 512 bytes hold a MAD frame (322 on IPv4), not a data payload.
	run_guests 2 "$timeout" --pcap "$pcap" --wire-opts "--pcap-snaplen 512" \
		"${opts[@]}" -- selftests/guest/in-guest/ulp.sh "$skind" "$ckind" "$@"
	rc=$?
	# Its exit status counts too: a crash (a traceback, here as comments)
	# or no verdict at all must not let the wire cases vanish.
	res=$(python3 "$(dirname "${BASH_SOURCE[0]}")/ulp_pcap.py" "$pcap" "$@" 2>&1)
	prc=$?
	while read -r line; do
		case $line in
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

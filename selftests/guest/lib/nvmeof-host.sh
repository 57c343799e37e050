# SPDX-License-Identifier: GPL-2.0
#
# Sourced, after lib/host.sh, by the NVMe-oF guest tests (5N-nvmeof-*.sh).
#
#   nvmeof_guest_test TARGET_KIND HOST_KIND [RUNNER-OPTS...]
#
# RUNNER-OPTS go to scripts/run-guests.sh (e.g. --wire-opts "--drop-pct 5");
# with a lossy wire, set nvmeof_lossy=1 first: then every ORCA adapter must
# also have retransmitted (its emulator logs its RoCE counters at exit).
#
# boots two guests (guest 0 the nvmet target on TARGET_KIND, guest 1 the
# nvme-rdma host on HOST_KIND; an rxe guest gets no ORCA adapter, so its
# virtio-net sits on the wire switch), runs in-guest/nvmeof-fio.sh with the wire
# captured, then checks the capture on this side: tshark decodes RoCE in it,
# with the opcodes NVMe-oF must produce (commands and responses as SENDs,
# read data as RDMA WRITEs, write data fetched with RDMA READs, ACKs, and
# the connection manager's MADs on UD QP1), no malformed packet, and NVMe-oF
# capsules in the SENDs.
# Exits through host_done.

# pcap_opcodes FILE: "COUNT OPCODE" per BTH opcode (decimal) in FILE.
pcap_opcodes() {
	tshark -r "$1" -Y infiniband -T fields -e infiniband.bth.opcode 2>/dev/null |
		sort -n | uniq -c
}

# has_opcode FROM TO: the capture has a BTH opcode in FROM..TO.
has_opcode() {
	awk -v lo="$1" -v hi="$2" '$2 + 0 >= lo && $2 + 0 <= hi { f = 1 } END { exit !f }' \
		"$out/opcodes.txt"
}

check_opcode() {
	if has_opcode "$1" "$2"; then
		host_result OK "wire: $3"
	else
		host_result FAIL "wire: $3"
	fi
}

nvmeof_guest_test() {
	local tkind=$1 hkind=$2 opts=() rc pcap n bad log r
	shift 2
	opts=("$@")
	[ "$tkind" = rxe ] && opts+=(--guest-opts 0:no-orca)
	[ "$hkind" = rxe ] && opts+=(--guest-opts 1:no-orca)
	pcap=$out/wire.pcap
	run_guests 2 330 --pcap "$pcap" "${opts[@]}" -- \
		selftests/guest/in-guest/nvmeof-fio.sh "$tkind" "$hkind" \
		"$([ "${nvmeof_lossy:-0}" = 1 ] && echo lossy || echo test)"
	rc=$?

	if [ "${nvmeof_lossy:-0}" = 1 ]; then
		for log in "$out"/run/g*/emu.log; do
			[ -f "$log" ] || continue
			r=$(sed -n 's/.*roce: .* retransmits \([0-9]*\).*/\1/p' "$log" | tail -n 1)
			if [ "${r:-0}" -gt 0 ]; then
				host_result OK "lossy wire: ${log#"$out"/run/} retransmitted $r packets"
			else
				host_result FAIL "lossy wire: ${log#"$out"/run/} retransmitted"
			fi
		done
	fi

	if [ ! -s "$pcap" ]; then
		host_result FAIL "wire: capture written"
		host_done "$rc"
	fi
	pcap_opcodes "$pcap" >"$out/opcodes.txt"
	sed 's/^/# opcode count: /' "$out/opcodes.txt"
	n=$(awk '{ s += $1 } END { print s + 0 }' "$out/opcodes.txt")
	if [ "$n" -gt 0 ]; then
		host_result OK "wire: tshark decodes $n RoCE packets"
	else
		host_result FAIL "wire: tshark decodes RoCE packets"
	fi
	# BTH opcodes (IBA table 38): RC 0-23, UD 100-101.
	check_opcode 0 5 "RC SEND (NVMe commands and responses)"
	check_opcode 6 11 "RC RDMA WRITE (read data to the host)"
	check_opcode 12 12 "RC RDMA READ request (target fetches write data)"
	check_opcode 13 16 "RC RDMA READ response"
	check_opcode 17 17 "RC ACK"
	check_opcode 100 101 "UD SEND on QP1 (rdma_cm MADs)"
	# Malformed at the RoCE layers: payload heuristics off, since they
	# guess at every SEND payload (an NVMe CQE starting 08 00 "is" a bogus
	# IPv4 header to the Ethernet-over-IB heuristic).
	local noheur=()
	mapfile -t noheur < <(tshark -G heuristic-decodes 2>/dev/null |
		awk '$1 == "infiniband.payload" { print "--disable-heuristic"; print $4 }')
	local filter='_ws.malformed || _ws.expert.severity == error'
	bad=$(tshark -r "$pcap" "${noheur[@]}" -Y "$filter" 2>/dev/null | wc -l)
	if [ "$bad" = 0 ]; then
		host_result OK "wire: no malformed RoCE packet"
	else
		tshark -r "$pcap" "${noheur[@]}" -Y "$filter" 2>/dev/null |
			head -n 5 | sed 's/^/# /'
		host_result FAIL "wire: no malformed RoCE packet ($bad)"
	fi
	# The NVMe-oF layer: capsules recognized in the SENDs.  Wireshark's
	# NVMe dissector also parses RDMA WRITE data as the log page a command
	# asked for and fails on pages split over packets: counted, not failed.
	n=$(tshark -r "$pcap" -Y 'nvme-rdma && infiniband.bth.opcode <= 5' 2>/dev/null | wc -l)
	bad=$(tshark -r "$pcap" -Y "nvme-rdma && ($filter)" 2>/dev/null | wc -l)
	echo "# NVMe layer: $bad packet(s) Wireshark's NVMe dissector calls malformed"
	if [ "$n" -gt 0 ]; then
		host_result OK "wire: tshark decodes $n NVMe-oF capsules in RC SENDs"
	else
		host_result FAIL "wire: tshark decodes NVMe-oF capsules in RC SENDs"
	fi
	host_done "$rc"
}

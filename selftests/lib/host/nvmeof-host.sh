# SPDX-License-Identifier: GPL-2.0
#
# Sourced, after lib/host/host.sh, by the NVMe-oF guest tests (5N-nvmeof-*.sh).
#
#   nvmeof_guest_test TARGET_KIND HOST_KIND [RUNNER-OPTS...]
#
# RUNNER-OPTS go to scripts/guests/run-guests.sh (e.g. --wire-opts "--drop-pct 5").
# Set before the call:
#   nvmeof_lossy=1     a lossy wire: every ORCA adapter must also have
#                      retransmitted (its emulator logs its RoCE counters at
#                      exit); the guests run nvmeof-fio.sh's lossy mode
#   nvmeof_guests=N    N guests (default 2): guest 0 the target, 1..N-1 hosts
#                      (with more than one host, nvmeof-fio.sh's multi mode:
#                      each host's verify jobs must have passed, and all
#                      hosts' jobs must have run at the same time)
#   nvmeof_lossless=1  a loss-free wire (every guest with an ORCA adapter):
#                      no adapter timed out or lost a frame, each of its
#                      retransmissions was a duplicate to the receiver, and
#                      the switch dropped nothing (check_lossless)
#   nvmeof_timeout=S   the runner's timeout (default 330 s)
#
# boots the guests (guest 0 the nvmet target on TARGET_KIND, the others
# nvme-rdma hosts on HOST_KIND; an rxe guest gets no ORCA adapter, so its
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

# host_verified I: guest I's verify jobs both read back every block they
# wrote, with no I/O or crc32c error (its KTAP file says so).
host_verified() {
	local job t=$out/g$1.tap
	for job in randwrite-4k-verify seqwrite-128k-verify; do
		grep -qx "ok fio $job: read back every block written" "$t" &&
			grep -qx "ok fio $job: no I/O or verify error" "$t" || return 1
	done
}

# check_hosts_overlap N: the fio jobs of hosts 1..N-1 ran at the same time:
# the last host to start did so before the first one to finish was done.
# The times are those of files the guests created on the work share, so
# all come from this machine's clock.
check_hosts_overlap() {
	local k s e times='' span
	for ((k = 1; k < $1; k++)); do
		s=$out/run/fio-start-g$k e=$out/run/fio-end-g$k
		if [ ! -f "$s" ] || [ ! -f "$e" ]; then
			host_result FAIL "hosts' fio jobs overlap (g$k did not run them)"
			return
		fi
		times+="g$k $(date -r "$s" +%s.%N) $(date -r "$e" +%s.%N)"$'\n'
	done
	printf '%s' "$times" | sed 's/^/# fio start, end: /'
	# The time from the last start to the first end: > 0 iff all ran at once.
	span=$(printf '%s' "$times" | awk 'NR == 1 || $2 > ls { ls = $2 }
		NR == 1 || $3 < fe { fe = $3 } END { printf "%.2f", fe - ls }')
	if awk -v s="$span" 'BEGIN { exit !(s > 0) }'; then
		host_result OK "hosts' fio jobs overlap ($span s with all $(($1 - 1)) running)"
	else
		host_result FAIL "hosts' fio jobs overlap (last start to first end: $span s)"
	fi
}

# count_of LINE KEY: the number after " KEY " in LINE.
count_of() {
	sed -n "s/.* $2 \([0-9]*\).*/\1/p" <<<"$1"
}

# check_lossless: on a loss-free wire, every ORCA adapter's emulator logged
# at exit RoCE traffic with no timeout, no full receive queue and no
# received frame dropped, and its port dropped no frame but those its guest
# did not take (guests boot and power off at different times, missing some
# of their peers' broadcasts); every RoCE frame an adapter sent was received
# by one; and the switch forwarded every frame, with no send error or stall
# drop.
# Early retransmissions (an ACK later than the measured round trips, which
# a loaded host produces without any loss) are allowed, but each must have
# reached its peer as a duplicate: the adapters' retransmits add up to
# their duplicate_request counts (nvmeof-fio.sh's "# counters:" lines); so
# are the READ responses such duplicates make a responder send again,
# dropped as responses to nothing outstanding, and only then.
# Every guest must have an ORCA adapter.
check_lossless() {
	local log g roce port drops bad v k sw retx=0 dups=0 nstats=0 line
	local tx=0 rx=0 stale=0 nemu=0
	for log in "$out"/run/g*/emu.log; do
		[ -f "$log" ] || continue
		nemu=$((nemu + 1))
		g=${log#"$out"/run/} g=${g%/emu.log}
		roce=$(grep 'roce: tx .* retransmits' "$log" | tail -n 1)
		drops=$(grep 'roce: rx dropped: ' "$log" | tail -n 1)
		port=$(grep 'port: nic->wire' "$log" | tail -n 1)
		echo "# $g ${roce#*orca-emu: }"
		echo "# $g ${drops#*orca-emu: }"
		echo "# $g ${port#*orca-emu: }"
		grep 'roce: dropped' "$log" | sed "s/^/# $g /"
		bad=''
		[ -n "$roce" ] && [ -n "$drops" ] && [ -n "$port" ] ||
			bad+=" counters-missing"
		for k in timeouts full; do
			v=$(count_of "$roce" "$k")
			[ "${v:-x}" = 0 ] || bad+=" $k=${v:-?}"
		done
		for k in "no QP" "QP state" "bad packet" "Q_Key" "no receive WQE" "too big"; do
			v=$(sed -n "s/.*[:,] $k \([0-9]*\).*/\1/p" <<<"$drops")
			[ "${v:-x}" = 0 ] || bad+=" rx-dropped-$k=${v:-?}"
		done
		v=$(sed -n 's/.* outstanding \([0-9]*\).*/\1/p' <<<"$drops")
		stale=$((stale + ${v:-0}))
		grep -q 'roce: dropped' "$log" && bad+=" rx-dropped-malformed"
		v=$(count_of "$port" dropped)
		k=$(sed -n 's/.* not taken by the guest \([0-9]*\).*/\1/p' <<<"$port")
		[ -n "$v" ] && [ "$v" = "$k" ] ||
			bad+=" port-dropped=${v:-?}(${k:-?} not taken by the guest)"
		v=$(sed -n 's/.*, roce tx \([0-9]*\),.*/\1/p' <<<"$port")
		tx=$((tx + ${v:-0}))
		v=$(sed -n 's/.*, roce rx \([0-9]*\),.*/\1/p' <<<"$port")
		rx=$((rx + ${v:-0}))
		if [ -z "$bad" ]; then
			host_result OK "lossless wire: $g adapter: no timeout or drop"
		else
			host_result FAIL "lossless wire: $g adapter: no timeout or drop ($bad )"
		fi
	done
	if [ "$tx" -gt 0 ] && [ "$tx" = "$rx" ]; then
		host_result OK "lossless wire: the adapters received every RoCE frame they sent ($tx)"
	else
		host_result FAIL "lossless wire: the adapters received every RoCE frame they sent (sent $tx, received $rx)"
	fi
	for log in "$out"/g*.tap; do
		line=$(grep '^# counters: ' "$log" | tail -n 1)
		[ -n "$line" ] || continue
		nstats=$((nstats + 1))
		v=$(count_of "$line" retransmits)
		retx=$((retx + ${v:-0}))
		v=$(count_of "$line" duplicate_request)
		dups=$((dups + ${v:-0}))
	done
	if [ "$nstats" -gt 0 ] && [ "$nstats" = "$nemu" ] && [ "$retx" = "$dups" ]; then
		host_result OK "lossless wire: all $retx retransmitted packets were duplicates to their receivers ($nstats adapters)"
	else
		host_result FAIL "lossless wire: retransmitted packets $retx, duplicates received $dups ($nstats of $nemu adapters)"
	fi
	if [ "$stale" = 0 ] || [ "$retx" -gt 0 ]; then
		host_result OK "lossless wire: responses to nothing outstanding ($stale) only after retransmissions"
	else
		host_result FAIL "lossless wire: $stale responses to nothing outstanding without a retransmission"
	fi
	sw=$(grep 'exit: received' "$out/run/wire.log" | tail -n 1)
	echo "# switch ${sw#*exit: }"
	bad=''
	[ -n "$sw" ] || bad+=" no-exit-counters"
	for k in send_errors stall_dropped invalid fault_dropped; do
		v=$(count_of "$sw" "$k")
		[ "${v:-x}" = 0 ] || bad+=" $k=${v:-?}"
	done
	# Frames to 01:80:C2:00:00:0x are the link's, taken, not forwarded.
	[ "$(count_of "$sw" received)" = \
		"$(($(count_of "$sw" forwarded) + $(count_of "$sw" link_local || :) + 0))" ] ||
		bad+=" received!=forwarded"
	if [ -z "$bad" ]; then
		host_result OK "lossless wire: switch: forwarded every frame, no send error or stall drop"
	else
		host_result FAIL "lossless wire: switch: forwarded every frame, no send error or stall drop ($bad )"
	fi
}

nvmeof_guest_test() {
	local tkind=$1 hkind=$2 opts=() rc pcap n bad log r i mode=test
	local guests=${nvmeof_guests:-2}
	shift 2
	opts=("$@")
	[ "$tkind" = rxe ] && opts+=(--guest-opts 0:no-orca)
	if [ "$hkind" = rxe ]; then
		for ((i = 1; i < guests; i++)); do
			opts+=(--guest-opts "$i:no-orca")
		done
	fi
	[ "${nvmeof_lossy:-0}" = 1 ] && mode=lossy
	[ "$guests" -gt 2 ] && mode=multi
	pcap=$out/wire.pcap
	run_guests "$guests" "${nvmeof_timeout:-330}" --pcap "$pcap" "${opts[@]}" -- \
		selftests/guest/in-guest/nvmeof-fio.sh "$tkind" "$hkind" "$mode"
	rc=$?

	if [ "$guests" -gt 2 ]; then
		for ((i = 1; i < guests; i++)); do
			if host_verified "$i"; then
				host_result OK "host g$i: fio crc32c verify of every block written passed"
			else
				host_result FAIL "host g$i: fio crc32c verify of every block written passed"
			fi
		done
		check_hosts_overlap "$guests"
	fi
	[ "${nvmeof_lossless:-0}" = 1 ] && check_lossless

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
	# nvmeof_after=FUNC: the test's own checks of the run, last.
	[ -z "${nvmeof_after:-}" ] || "$nvmeof_after"
	host_done "$rc"
}

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The ULP tests' wire check (selftests/lib/host/ulp_pcap.py) on fixed packet
# lists, as KTAP: a stand-in tshark prints the fields ulp_pcap.py asks for.
# An iSER connection whose client sent its DREQ before it acknowledged the
# server's last request explains the known isert report (iser-logout-flush,
# lib/kernel-log.sh); one acknowledged in time, one whose late request was
# the client's own, and the same order on another protocol do not.  No
# guests: make check runs it with the other host-side tests.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
out=$top/out/ulp-pcap-test
rm -rf "$out"
mkdir -p "$out/bin"
check=$top/selftests/lib/host/ulp_pcap.py

. "$top/selftests/lib/host/ktap-result.sh"

# The stand-in: the packets of $ULP_PCAP_SAMPLE, whatever it is asked.
cat >"$out/bin/tshark" <<'SH'
#!/bin/sh
cat "$ULP_PCAP_SAMPLE"
SH
chmod +x "$out/bin/tshark"

# sample NAME PORT LATE: one connection to PORT between client 10.0.0.2
# (QP 0x15) and server 10.0.0.1 (QP 0x3): a REQ, a REP, the client's SEND
# (PSN 7) and its ACK, a READ of the server's, the server's SENDs (PSNs
# 16777214 and 16777215: across the PSN wrap) and the client's DREQ, with the
# ACK of the last SEND before the DREQ, or after it if LATE is "late", or with
# a late request of the client's if LATE is "client".  Fields as ulp_pcap.py
# lists them: src, dst, opcode, dest QP, REQ port, REQ QPN, REP QPN, PSN,
# MAD attribute, AETH syndrome.
sample() {
	local f=$out/$1.tsv c=10.0.0.2 s=10.0.0.1 t=$'\t'
	row() { local IFS=$t; echo "$*" >>"$f"; }
	: >"$f"
	row $c $s 100 1 "$2" 0x15 "" 0 0x0010 ""
	row $s $c 100 1 "" "" 0x3 0 0x0013 ""
	row $c $s 4 0x3 "" "" "" 7 "" ""
	row $s $c 17 0x15 "" "" "" 7 "" 0x1f
	row $s $c 12 0x15 "" "" "" 16777213 "" ""
	row $c $s 16 0x3 "" "" "" 16777213 "" 0x1f
	row $s $c 4 0x15 "" "" "" 16777214 "" ""
	row $c $s 17 0x3 "" "" "" 16777214 "" 0x1f
	row $s $c 4 0x15 "" "" "" 16777215 "" ""
	case $3 in
	late)
		row $c $s 100 1 "" "" "" 0 0x0015 ""
		row $c $s 17 0x3 "" "" "" 16777215 "" 0x1f
		;;
	client)
		row $c $s 17 0x3 "" "" "" 16777215 "" 0x1f
		row $c $s 4 0x3 "" "" "" 8 "" ""
		row $c $s 100 1 "" "" "" 0 0x0015 ""
		;;
	*)
		row $c $s 17 0x3 "" "" "" 16777215 "" 0x1f
		row $c $s 100 1 "" "" "" 0 0x0015 ""
		;;
	esac
	row $s $c 100 1 "" "" "" 0 0x0016 ""
	# The WRITE the protocols' checks want; after the DREQ it is no
	# request of this connection's end.
	row $s $c 10 0x15 "" "" "" 1 "" ""
	ULP_PCAP_SAMPLE=$f PATH=$out/bin:$PATH python3 "$check" pcap "$4" \
		>"$out/$1.log" 2>&1
}

echo "TAP version 13"
echo "1..4"

sample late 3260 late iser
grep -qx 'explained iser-logout-flush' "$out/late.log" &&
	grep -q 'PSN 16777215, last ACK 16777214' "$out/late.log"
result $? "iSER: the client's DREQ before its ACK of the server's last SEND explains iser-logout-flush" "$out/late.log"

sample in-time 3260 in-time iser
! grep -q 'explained' "$out/in-time.log" && grep -q '^ok iser: wire: rdma_cm' "$out/in-time.log"
result $? "iSER: the last SEND acknowledged before the DREQ (across the PSN wrap) explains nothing" "$out/in-time.log"

sample client 3260 client iser
! grep -q 'explained' "$out/client.log"
result $? "iSER: a request of the client's own still unacknowledged explains nothing" "$out/client.log"

sample srp 5555 late srp
grep -q "srp: the client's DREQ came before its ACK" "$out/srp.log" &&
	! grep -q 'explained' "$out/srp.log"
result $? "SRP: the same order is reported, and explains no iSER report" "$out/srp.log"

[ "$failed" = 0 ]

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# NVMe over Fabrics on RDMA between two guests, the RDMA device kinds as
# parameters: guest 0 is the nvmet target on TARGET_KIND, guest 1 the
# nvme-rdma host on HOST_KIND (orca or rxe).  The host connects, runs short
# fio jobs that verify every block they write (crc32c, direct I/O), then
# disconnects; both sides tear down and check that they did.
#
# Usage: nvmeof-fio.sh TARGET_KIND HOST_KIND [bench]
#   bench: after the verify jobs, 4k random read and 128k sequential read
#   throughput runs (their "# nvmeof-result" lines are what scripts/bench.sh
#   collects).
#   lossy: the same verify jobs on 1 MiB each, for a wire that drops frames
#   (every loss costs a go-back-N retransmission under TCG).
# ORCA_ETH_MTU=N: both guests set eth0's MTU to N first (RDMA devices
# follow it: rdma_cm picks the path MTU from it), e.g. 9000 for make bench.
. "$ORCA_TOP/selftests/guest/lib/guest.sh"
target_kind=${1:?target kind}
host_kind=${2:?host kind}
mode=${3:-test}
mtu=${ORCA_ETH_MTU:-}
nvmeof_tag="target=$target_kind host=$host_kind ${mtu:+mtu=$mtu }"
. "$ORCA_TOP/selftests/guest/lib/nvmeof.sh"

target_addr=10.0.0.1
if [ -n "$mtu" ]; then
	ok_if "eth0: MTU $mtu" ip link set eth0 mtu "$mtu"
fi

run_target() {
	if rdma_up "$target_kind" && target_up "$target_addr"; then
		flag_set target-ready
	else
		flag_set target-failed
	fi
	# The host disconnects before the target goes away; it sets the flag
	# whatever happened to it.
	ok_if "target: host finished" flag_wait 240 host-done
	target_down
	rdma_down "$target_kind"
}

run_host() {
	local ready=0
	rdma_up "$host_kind" || { flag_set host-done; return; }
	ok_if "host: reaches the target over the wire" \
		wait_for 20 busybox ping -c 1 -W 2 "$target_addr"
	flag_wait 120 target-ready target-failed && ready=1
	expect_eq "host: target ready" "$ready" 1
	if [ "$ready" = 1 ] && host_connect "$target_addr"; then
		# 4k random writes then read back and checked: the target
		# fetches write data with RDMA READ (or takes it inline in
		# the command's SEND) and returns read data with RDMA WRITE.
		local size4k=4M size128k=8M
		[ "$mode" = lossy ] && size4k=1M size128k=1M
		fio_job randwrite-4k-verify --rw=randwrite --bs=4k --size=$size4k \
			--iodepth=16 --verify=crc32c --verify_fatal=1
		# 128k blocks span many packets per transfer, and the
		# offsets differ from the 4k job's.
		fio_job seqwrite-128k-verify --rw=write --bs=128k --size=$size128k \
			--offset=16M --iodepth=4 --verify=crc32c --verify_fatal=1
		if [ "$mode" = bench ]; then
			fio_job randread-4k --rw=randread --bs=4k --size=32M \
				--iodepth=16 --time_based --runtime=15
			fio_job seqread-128k --rw=read --bs=128k --size=32M \
				--iodepth=4 --time_based --runtime=15
		fi
		host_disconnect
	fi
	flag_set host-done
	rdma_down "$host_kind"
}

case $gi in
0) run_target ;;
1) run_host ;;
esac
dmesg_clean
dmesg | grep -E 'nvme|nvmet|rdma|rxe|orca' | tail -n 12 | sed 's/^/# /' >>"$ktap_out"
ktap_done

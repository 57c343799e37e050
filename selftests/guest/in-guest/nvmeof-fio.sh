#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# NVMe over Fabrics on RDMA between guests, the RDMA device kinds as
# parameters: guest 0 is the nvmet target on TARGET_KIND, every other guest
# an nvme-rdma host on HOST_KIND (orca or rxe).  A host connects, runs short
# fio jobs that verify every block they write (crc32c, direct I/O), then
# disconnects; every side tears down and checks that it did.  With more
# than one host, each has a subsystem and ramdisk of its own on the target
# (lib/guest/nvmeof.sh), and the hosts start their fio jobs together once all of
# them are connected.
#
# Usage: nvmeof-fio.sh TARGET_KIND HOST_KIND [MODE]
#   test (default): the verify jobs, 4 MiB of 4k random writes and 8 MiB of
#   128k sequential ones.
#   bench: after the verify jobs, 4k random read and 128k sequential read
#   throughput runs (their "# nvmeof-result" lines are what scripts/bench/bench.sh
#   collects).
#   lossy: the same verify jobs on 1 MiB each, for a wire that drops frames
#   (every loss costs a go-back-N retransmission under TCG).
#   multi: the verify jobs on 2 and 4 MiB, for several hosts sharing the
#   guests' CPUs; and, the wire being loss-free, each ORCA adapter must end
#   with no timeout, sequence error, NAK or receive error counted.  Its
#   counters go to a "# counters:" line (the host side checks that every
#   retransmission arrived as a duplicate).  The hosts leave
#   "fio-start-g<I>" and "fio-end-g<I>" files in the run directory around
#   their jobs (the host side compares their times).
# ORCA_ETH_MTU=N: every guest sets eth0's MTU to N first (RDMA devices
# follow it: rdma_cm picks the path MTU from it), e.g. 9000 for make bench.
. "$ORCA_TOP/selftests/lib/guest/guest.sh"
target_kind=${1:?target kind}
host_kind=${2:?host kind}
mode=${3:-test}
mtu=${ORCA_ETH_MTU:-}
nvmeof_tag="target=$target_kind host=$host_kind ${mtu:+mtu=$mtu }"
nvmeof_hosts=$((${ORCA_GUEST_COUNT:-2} - 1))
. "$ORCA_TOP/selftests/lib/guest/nvmeof.sh"

target_addr=10.0.0.1
if [ -n "$mtu" ]; then
	ok_if "eth0: MTU $mtu" ip link set eth0 mtu "$mtu"
fi

# The adapter's loss and error counters (rdma statistic) that must be 0 on
# a wire that loses nothing: every frame arrives once and in order.  Not
# retransmits: the adapter retransmits early when an ACK is later than the
# round trips it measured (emulator/roce/roce_priv.h), and on a loaded host a
# loss-free wire can be that slow; the host side checks that each of those
# packets was a duplicate to its receiver (duplicate_request).  Nor
# rx_roce_discards: it includes the READ responses a duplicate READ request
# makes the responder send again; the host side checks the emulator's
# breakdown of it.
loss_counters="local_ack_timeout_err rnr_nak_retry_err send_rnr_err
	packet_seq_err out_of_seq_request err_naks_rx err_naks_tx
	rx_roce_errors rx_qkey_drops out_of_buffer cq_overruns
	driver_bad_eqes driver_bad_cqes driver_stale_events"

check_no_loss() {
	local kind=$1 stats bad
	[ "$mode" = multi ] && [ "$kind" = orca ] || return 0
	stats=$(rdma statistic show link orca_0/1 | tr -s ' \n' '  ')
	echo "# counters: $stats" >>"$ktap_out"
	bad=$(echo "$stats" | awk -v names="$loss_counters" '
		{ for (i = 1; i < NF; i++) v[$i] = $(i + 1) }
		END {
			n = split(names, a)
			for (j = 1; j <= n; j++)
				if (!(a[j] in v))
					printf " %s=absent", a[j]
				else if (v[a[j]] != "0")
					printf " %s=%s", a[j], v[a[j]]
		}')
	expect_eq "orca_0: no timeout, sequence error, NAK or receive error counted" \
		"${bad:- none}" " none"
}

run_target() {
	local k
	if rdma_up "$target_kind" && target_up "$target_addr"; then
		flag_set target-ready
	else
		flag_set target-failed
	fi
	# The hosts disconnect before the target goes away; each sets its
	# flag whatever happened to it.
	if [ "$nvmeof_hosts" = 1 ]; then
		ok_if "target: host finished" flag_wait 240 host-done-g1
	else
		for ((k = 1; k <= nvmeof_hosts; k++)); do
			ok_if "target: host g$k finished" flag_wait 240 "host-done-g$k"
		done
	fi
	check_no_loss "$target_kind"
	target_down
	rdma_down "$target_kind"
}

# With several hosts, each waits until all are connected (or gave up), so
# that their I/O overlaps.
hosts_together() {
	local k
	[ "$nvmeof_hosts" -gt 1 ] || return 0
	flag_set "connected-g$gi"
	for ((k = 1; k <= nvmeof_hosts; k++)); do
		flag_wait 120 "connected-g$k" || return 1
	done
}

run_host() {
	local ready=0 connected=0
	rdma_up "$host_kind" || { flag_set "connected-g$gi"; flag_set "host-done-g$gi"; return; }
	ok_if "host: reaches the target over the wire" \
		wait_for 20 busybox ping -c 1 -W 2 "$target_addr"
	flag_wait 120 target-ready target-failed && ready=1
	expect_eq "host: target ready" "$ready" 1
	[ "$ready" = 1 ] && host_connect "$target_addr" && connected=1
	[ "$nvmeof_hosts" = 1 ] ||
		ok_if "host: all $nvmeof_hosts hosts connected" hosts_together
	if [ "$connected" = 1 ]; then
		# 4k random writes then read back and checked: the target
		# fetches write data with RDMA READ (or takes it inline in
		# the command's SEND) and returns read data with RDMA WRITE.
		local size4k=4M size128k=8M
		[ "$mode" = lossy ] && size4k=1M size128k=1M
		[ "$mode" = multi ] && size4k=2M size128k=4M
		: >"$ORCA_RUN_DIR/fio-start-g$gi"
		fio_job randwrite-4k-verify --rw=randwrite --bs=4k --size=$size4k \
			--iodepth=16 --verify=crc32c --verify_fatal=1
		# 128k blocks span many packets per transfer, and the
		# offsets differ from the 4k job's.
		fio_job seqwrite-128k-verify --rw=write --bs=128k --size=$size128k \
			--offset=16M --iodepth=4 --verify=crc32c --verify_fatal=1
		: >"$ORCA_RUN_DIR/fio-end-g$gi"
		if [ "$mode" = bench ]; then
			fio_job randread-4k --rw=randread --bs=4k --size=32M \
				--iodepth=16 --time_based --runtime=15
			fio_job seqread-128k --rw=read --bs=128k --size=32M \
				--iodepth=4 --time_based --runtime=15
		fi
		host_disconnect
	fi
	flag_set "host-done-g$gi"
	check_no_loss "$host_kind"
	rdma_down "$host_kind"
}

case $gi in
0) run_target ;;
*) run_host ;;
esac
dmesg_clean
dmesg | grep -E 'nvme|nvmet|rdma|rxe|orca' | tail -n 12 | sed 's/^/# /' >>"$ktap_out"
ktap_done

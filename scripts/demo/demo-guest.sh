#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The part of `make demo` that runs in each guest: load the orca driver and
# show the adapter, the RDMA device and its port; then move real data over
# RDMA between the two guests: NVMe over Fabrics (guest 0 the target on a
# ramdisk, guest 1 the host) with fio verifying every block by crc32c, and
# ib_write_bw (perftest, RC, 64 KiB writes) through the userspace verbs:
# the ORCA provider's kernel-bypass data path.
set -u
top=${ORCA_TOP:?}
gi=${ORCA_GUEST_INDEX:-0}
say() { echo "[guest $gi] $*"; }

modprobe ib_core && modprobe ib_uverbs && insmod "$top/drivers/infiniband/hw/orca/orca.ko" || {
	say "loading orca failed"; dmesg | tail -n 20; exit 1; }
for _ in $(seq 100); do
	rdma link show orca_0/1 2>/dev/null | grep -q ACTIVE && break
	sleep 0.2
done
say "lspci -k:"
lspci -k -d 1234:0dca | sed "s/^/[guest $gi]   /"
say "rdma link:"
rdma link show | sed "s/^/[guest $gi]   /"
say "RoCE v2 GIDs of orca_0 port 1:"
for f in /sys/class/infiniband/orca_0/ports/1/gids/*; do
	g=$(cat "$f")
	[ "$g" = "0000:0000:0000:0000:0000:0000:0000:0000" ] && continue
	say "  [${f##*/}] $g ($(cat /sys/class/infiniband/orca_0/ports/1/gid_attrs/types/${f##*/}))"
done
rmmod orca

say "NVMe-oF over RDMA, orca to orca ($([ "$gi" = 0 ] && echo target || echo host)):"
export ORCA_RESULT_DIR=$ORCA_RUN_DIR/demo-results
mkdir -p "$ORCA_RESULT_DIR"
"$top/selftests/guest/in-guest/nvmeof-fio.sh" orca orca >/dev/null 2>&1
status=$?
grep -E '^(not ok|# nvmeof-result)|fio' "$ORCA_RESULT_DIR/g$gi.tap" |
	sed "s/^/[guest $gi]   /"
say "$(grep -c '^ok' "$ORCA_RESULT_DIR/g$gi.tap") steps ok, $(grep -c '^not ok' "$ORCA_RESULT_DIR/g$gi.tap") failed"

say "ib_write_bw 64 KiB over userspace verbs, orca to orca ($([ "$gi" = 0 ] && echo server || echo client)):"
export ORCA_RESULT_DIR=$ORCA_RUN_DIR/demo-perftest
mkdir -p "$ORCA_RESULT_DIR"
"$top/selftests/guest/in-guest/perftest.sh" orca orca demo >/dev/null 2>&1
pstatus=$?
grep -E '^not ok' "$ORCA_RESULT_DIR/g$gi.tap" | sed "s/^/[guest $gi]   /"
sed -n 's/^# perftest-result .*size=\([0-9]*\) bw_avg=\([^ ]*\) msg_rate=\([^ ]*\).*/\1-byte RDMA WRITEs: \2 MiB\/s average, \3 Mpps/p' \
	"$ORCA_RESULT_DIR/g$gi.tap" | sed "s/^/[guest $gi]   /"
say "$(grep -c '^ok' "$ORCA_RESULT_DIR/g$gi.tap") steps ok, $(grep -c '^not ok' "$ORCA_RESULT_DIR/g$gi.tap") failed"
[ "$status" = 0 ] && status=$pstatus
exit $status

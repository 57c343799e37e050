#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The ceiling for make bench's NVMe-oF rows: the same fio read jobs as
# nvmeof-fio.sh's bench mode, on the same kind of namespace (a 32 MiB brd
# ramdisk), but inside one guest, no RDMA and no network: what the block
# stack and fio can do in a 1-vCPU TCG guest at all.  A short verify pass
# first, so that the ramdisk is known to hold data.  Its "# ceiling-result"
# lines are what scripts/bench/bench.sh collects.
#
# Usage: ramdisk-fio.sh   (one guest, no adapter needed)
. "$ORCA_TOP/selftests/lib/guest/guest.sh"
fio_result_name=ceiling-result
fio_tag="guest=one "
. "$ORCA_TOP/selftests/lib/guest/fio.sh"

if ok_if "brd ramdisk" modprobe brd rd_nr=1 rd_size=32768 max_part=0 &&
   ok_if "/dev/ram0 is there" test -b /dev/ram0; then
	fio_file=/dev/ram0
	fio_job randwrite-4k-verify --rw=randwrite --bs=4k --size=4M \
		--iodepth=16 --verify=crc32c --verify_fatal=1
	fio_job randread-4k --rw=randread --bs=4k --size=32M \
		--iodepth=16 --time_based --runtime=15
	fio_job seqread-128k --rw=read --bs=128k --size=32M \
		--iodepth=4 --time_based --runtime=15
	ok_if "brd unloads" rmmod brd
fi
dmesg_clean
ktap_done

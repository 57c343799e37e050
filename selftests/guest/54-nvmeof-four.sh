#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Four guests with ORCA adapters on one wire: guest 0 the nvmet target, with
# a subsystem and ramdisk of its own for each host (only that host may
# connect to it, so no two hosts write the same blocks); guests 1-3
# nvme-rdma hosts that connect together and run their crc32c-verifying fio
# jobs at the same time (in-guest/nvmeof-fio.sh, multi mode).  Each host's
# verification must pass, the jobs must have overlapped, and on this
# loss-free wire no adapter may count a retransmission, timeout, sequence
# error or drop, nor the switch a drop; plus 51-nvmeof-orca's checks of the
# wire capture.  Four guests: make check-long's (make check keeps ORCA to
# ORCA NVMe-oF with verified I/O in 41-fault-nvmeof, and 52's interop).
# tier: long
. "$(dirname "$0")/../lib/host/host.sh"
. "$(dirname "$0")/../lib/host/nvmeof-host.sh"
nvmeof_guests=4 nvmeof_lossless=1 nvmeof_timeout=600
nvmeof_guest_test orca orca

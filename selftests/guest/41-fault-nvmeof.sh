#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Two guests with ORCA adapters, NVMe-oF over RDMA with verifying I/O, and
# the host's adapter made to fail through its emulator's control file:
# fatal error, and a hang the driver gives up on and that then resumes (no
# late DMA may land).  Each ends with the ULP seeing errors, rmmod
# completing, a clean dmesg and a reload with verified I/O
# (in-guest/fault-nvmeof.sh).  ORCA_FAULTS picks scenarios (default: fatal
# hang).  heartbeat and garbage (malformed EQEs and CQEs) are 42's, in the
# long tier: a stopped heartbeat is what the watchdog finds in "hang" too,
# 40-dead-adapter's drain_after_death has the watchdog declare it, and
# without a ULP garbage EQEs are 20's (port.sh), garbage CQEs 40's
# (dead-adapter.sh) and 70's (uverbs-wrid.sh).
. "$(dirname "$0")/../lib/host/host.sh"
wire_lossy "the host adapter is made fatal, hung and reset under NVMe-oF traffic: its peer retransmits to it and frames to it are dropped"
# shellcheck disable=SC2086
run_guests 2 1200 -- selftests/guest/in-guest/fault-nvmeof.sh \
	${ORCA_FAULTS:-fatal hang}
host_done $?

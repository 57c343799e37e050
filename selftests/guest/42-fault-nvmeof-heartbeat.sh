#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tier: long
# 41-fault-nvmeof's other scenarios (in-guest/fault-nvmeof.sh): under
# NVMe-oF traffic the host's adapter stops its heartbeat and nothing else,
# so only the driver's watchdog can tell (heartbeat); then it writes
# malformed EQEs and CQEs (garbage).  Long tier: 41's "hang" ends in the
# same watchdog verdict, and without a ULP 40-dead-adapter's
# drain_after_death checks it, 20 (port.sh) feeds garbage EQEs to the
# driver, 40 (dead-adapter.sh) and 70 (uverbs-wrid.sh) garbage CQEs.
. "$(dirname "$0")/../lib/host/host.sh"
wire_lossy "the host adapter is declared dead or writes garbage under NVMe-oF traffic: its peer retransmits to it and frames to it are dropped"
run_guests 2 900 -- selftests/guest/in-guest/fault-nvmeof.sh heartbeat garbage
host_done $?

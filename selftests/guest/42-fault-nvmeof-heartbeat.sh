#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tier: long
# 41-fault-nvmeof's heartbeat scenario: under NVMe-oF traffic the host's
# adapter stops its heartbeat and nothing else, so only the driver's
# watchdog can tell (in-guest/fault-nvmeof.sh heartbeat).  Long tier: 41's
# "hang" ends in the same watchdog verdict, and 40-dead-adapter's
# drain_after_death checks it without a ULP.
. "$(dirname "$0")/../lib/host/host.sh"
wire_lossy "the host adapter is declared dead under NVMe-oF traffic: its peer retransmits to it and frames to it are dropped"
run_guests 2 600 -- selftests/guest/in-guest/fault-nvmeof.sh heartbeat
host_done $?

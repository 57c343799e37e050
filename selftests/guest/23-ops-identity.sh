#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# One guest: orca_0's identity in sysfs, and known loopback traffic as rdma
# restrack (-dd, -r), the port counters and debugfs show it
# (in-guest/ops-identity.sh).
. "$(dirname "$0")/lib/host.sh"
run_guests 1 300 -- selftests/guest/in-guest/ops-identity.sh
host_done $?

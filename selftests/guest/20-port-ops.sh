#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# One guest, three scripts in one boot (in-guest/sequence.sh):
#  - in-guest/port.sh: the RoCE port's state and MTU follow the netdev,
#    with events;
#  - in-guest/ops-identity.sh: orca_0's identity in sysfs, and known
#    loopback traffic as rdma restrack (-dd, -r), the port counters and
#    debugfs show it;
#  - in-guest/ops-health.sh: the driver's tracepoints (commands with their
#    latency, events, QP state changes) and its devlink instance, whose
#    fw_fatal health reporter reports a fatal adapter with a dump read from
#    the adapter, diagnoses it and recovers it, by hand and automatically;
#    then a clean unload.
# (Until 2026-12 these were 20-port, 23-ops-identity and 24-ops-health, a
# boot each; the cases keep their names.)
# lane: solo
. "$(dirname "$0")/../lib/host/host.sh"
# port.sh gives eth0 another MAC for a while: IPv6 neighbour discovery sent
# from it meanwhile is the port's to drop.
wire_mac_changes
run_guests 1 600 -- selftests/guest/in-guest/sequence.sh \
	port.sh ops-identity.sh ops-health.sh
host_done $?

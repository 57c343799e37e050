#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# One guest: the driver's tracepoints (commands with their latency, events,
# QP state changes) and its devlink instance, whose fw_fatal health reporter
# reports a fatal adapter with a dump read from the adapter, diagnoses it
# and recovers it, by hand and automatically; then a clean unload.
. "$(dirname "$0")/lib/host.sh"
run_guests 1 300 -- selftests/guest/in-guest/ops-health.sh
host_done $?

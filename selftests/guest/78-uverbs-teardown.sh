#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# One guest: a process with live userspace verbs objects is killed in
# mid-traffic, and the driver is unloaded under another
# (in-guest/uverbs-teardown.sh).  The driver's final reset on unload finds
# no object left in the adapter.
. "$(dirname "$0")/lib/host.sh"
run_guests 1 400 -- selftests/guest/in-guest/uverbs-teardown.sh
rc=$?
host_final_reset_empty
host_done $rc

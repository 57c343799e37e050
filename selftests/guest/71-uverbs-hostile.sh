#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# One guest: hostile driver data in uverbs commands against the orca
# driver, then rmmod under a process holding a context
# (in-guest/uverbs-hostile.sh).  The driver's final reset on unload finds
# no object left in the adapter.
. "$(dirname "$0")/lib/host.sh"
run_guests 1 400 -- selftests/guest/in-guest/uverbs-hostile.sh
rc=$?
host_final_reset_empty
host_done $rc

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# One guest: ibv_devices and ibv_devinfo -v on orca_0 through the ORCA
# provider, checked against the kernel's view (in-guest/uverbs-devinfo.sh).
. "$(dirname "$0")/lib/host.sh"
run_guests 1 300 -- selftests/guest/in-guest/uverbs-devinfo.sh
host_done $?

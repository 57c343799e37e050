#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# One guest whose adapter is told (through the emulator's control file) to
# stop answering commands: timeouts, DEVICE_FATAL, and a clean unload.
. "$(dirname "$0")/lib/host.sh"
run_guests 1 300 -- selftests/guest/in-guest/dead-adapter.sh
host_done $?

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# One guest: the RoCE port's state and MTU follow the netdev, with events.
. "$(dirname "$0")/lib/host.sh"
run_guests 1 300 -- selftests/guest/in-guest/port.sh
host_done $?

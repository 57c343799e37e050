#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Two guests: each sees its ORCA adapter, binds the orca driver, registers
# orca_0 ACTIVE on its netdev with the netdev's addresses as RoCE v2 GIDs,
# and reaches the other guest over the virtual wire.
. "$(dirname "$0")/../lib/host/host.sh"
run_guests 2 400 -- selftests/guest/in-guest/adapter.sh
host_done $?

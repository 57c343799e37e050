#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Two guests: the orca_kverbs "remote" suite, data moved between the two
# adapters over the wire (RC send, write with immediate, read, atomics, UD),
# sizes from 0 to 1 MiB across the path MTU, every byte checked.
# tier: long
# Long tier: 60-wire-faults runs the same suite in make check, on a wire
# that drops and reorders.
. "$(dirname "$0")/../lib/host/host.sh"
run_guests 2 400 -- selftests/guest/in-guest/kverbs.sh remote

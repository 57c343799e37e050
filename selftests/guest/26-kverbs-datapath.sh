#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# One guest: the orca_kverbs "datapath" suite, data moved by the adapter
# between two of its own QPs: RC send/write/read/atomics, UD, SRQ, FRWR,
# completion events and error completions, every byte checked.
. "$(dirname "$0")/lib/host.sh"
run_guests 1 300 -- selftests/guest/in-guest/kverbs.sh datapath

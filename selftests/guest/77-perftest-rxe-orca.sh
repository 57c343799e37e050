#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Two guests, perftest servers on rxe, clients on orca: RC send/write/read/
# atomic bandwidth and latency, UD send, and rdma_cm (-R) runs
# (in-guest/perftest.sh).
# The reverse of 76: make check keeps one direction of each protocol's
# interop with rxe, make check-long both.
# tier: long
. "$(dirname "$0")/../lib/host/host.sh"
. "$(dirname "$0")/../lib/host/uverbs-host.sh"
uverbs_guest_test rxe orca 600 perftest.sh

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Two guests, perftest servers on orca, clients on rxe: RC send/write/read/
# atomic bandwidth and latency, UD send, and rdma_cm (-R) runs
# (in-guest/perftest.sh).
# tier: long
# Long tier, with 77 (the other direction): make check's perftest is 75's,
# ORCA to ORCA; its rxe interop is 73's tools, 82's ULPs, 52's NVMe-oF and
# 86's clients.
. "$(dirname "$0")/../lib/host/host.sh"
. "$(dirname "$0")/../lib/host/uverbs-host.sh"
uverbs_guest_test orca rxe 600 perftest.sh

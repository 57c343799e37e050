#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Two guests, perftest's rdma_cm (-R) runs between two ORCA adapters: RC
# send bandwidth, write latency, read bandwidth and atomic latency, the
# connection made through the kernel's CM (in-guest/perftest.sh cm).  Long
# tier since 2026-12-07: in 2 of some 20 make check runs of 75, which ran
# them, perftest's client was refused "invalid service ID" (IB CM REJ
# reason 8) by its listening server and then crashed (SIGSEGV).
# tier: long
. "$(dirname "$0")/../lib/host/host.sh"
. "$(dirname "$0")/../lib/host/uverbs-host.sh"
uverbs_guest_test orca orca 600 perftest.sh cm

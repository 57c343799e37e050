#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Two guests, perftest servers on orca, clients on orca: RC send/write/read/
# atomic bandwidth and latency, UD send, UC and XRC (in-guest/perftest.sh).
# perftest's rdma_cm (-R) runs are 67's (long tier): perftest's client was
# refused "invalid service ID" (IB CM REJ reason 8) by a server that was
# listening, then crashed (SIGSEGV), in 2 of some 20 make check runs.
. "$(dirname "$0")/../lib/host/host.sh"
. "$(dirname "$0")/../lib/host/uverbs-host.sh"
uverbs_guest_test orca orca 600 perftest.sh test-nocm

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Two ORCA guests on two switches joined only through their uplinks and a
# Linux bridge in a network namespace (as 65-nvmeof-uplink): perftest's
# RC, UD, UC and XRC send, write, read and atomic rows between them, and
# over rdma_cm (in-guest/perftest.sh, as 75-perftest-orca-orca on one
# switch); then each switch's uplink counters: frames in and out, no drop.
# tier: long
. "$(dirname "$0")/../lib/host/host.sh"
. "$(dirname "$0")/../lib/host/uverbs-host.sh"
. "$(dirname "$0")/../lib/host/uplink-fabric.sh"
fabric_up || { echo "not ok 1 the fabric: bridge and veth pairs (root?)"; exit 1; }
uverbs_run_opts=(--uplinks "$fabric_if0,$fabric_if1")
uverbs_after=fabric_checks
uverbs_guest_test orca orca 600 perftest.sh

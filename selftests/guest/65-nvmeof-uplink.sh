#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Two ORCA guests on two switches joined only through their uplinks
# (orca-wire --uplink, issue 33): each switch's uplink is one end of a veth
# pair whose other end is in a Linux bridge in a network namespace of its
# own (lib/host/uplink-fabric.sh), as switches on two machines would be
# joined by the network between them.  NVMe-oF from guest 1 (host) to
# guest 0 (target) across it: fio writes and verifies every block (as
# 51-nvmeof-orca on one switch); the capture is switch 0's, which sees all
# of it.  Then each switch's uplink counters: frames in and out, no drop.
. "$(dirname "$0")/../lib/host/host.sh"
. "$(dirname "$0")/../lib/host/nvmeof-host.sh"
. "$(dirname "$0")/../lib/host/uplink-fabric.sh"
fabric_up || { echo "not ok 1 the fabric: bridge and veth pairs (root?)"; exit 1; }
nvmeof_after=fabric_checks
nvmeof_guest_test orca orca --uplinks "$fabric_if0,$fabric_if1"

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tier: long
# 84's removal on the other side: each kernel ULP connected with I/O in
# flight, rmmod orca on the server (its targets let go of the device);
# the rmmod ends within 60 s without a kernel warning, each client reports
# the loss or recovers once the server's device is back, and a fresh
# connection verifies its data (lib/guest/ulp-removal.sh).
. "$(dirname "$0")/../lib/host/host.sh"
. "$(dirname "$0")/../lib/host/ulp-host.sh"
wire_lossy "orca is unloaded (the adapter reset) under ULP I/O in flight: the peer retransmits to QPs that are gone"
ulp_guest_test orca orca 1200 removal-server ${ORCA_ULPS:-rds nfs srp iser smb rnbd}

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Two guests with ORCA adapters, each kernel ULP connected with I/O in
# flight: rmmod orca on the client; the rmmod ends within 60 s without a
# kernel warning, the protocol reports the loss, and a fresh connection
# after reloading orca verifies its data (lib/guest/ulp-removal.sh).  The
# server's removal is 88's (long tier).
. "$(dirname "$0")/../lib/host/host.sh"
. "$(dirname "$0")/../lib/host/ulp-host.sh"
wire_lossy "orca is unloaded (the adapter reset) under ULP I/O in flight: the peer retransmits to QPs that are gone"
ulp_guest_test orca orca 1200 removal-client ${ORCA_ULPS:-rds nfs srp iser smb rnbd}

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Two guests, servers on rxe, clients on orca: RDS, NFS over RDMA (v3 and v4.2), SRP,
# iSER, SMB Direct and RNBD, as 81-ulp-orca-orca does for two ORCA adapters.
# The reverse of 82: make check keeps one direction of each protocol's
# interop with rxe, make check-long both.
# tier: long
. "$(dirname "$0")/../lib/host/host.sh"
. "$(dirname "$0")/../lib/host/ulp-host.sh"
ulp_guest_test rxe orca 900 ${ORCA_ULPS:-rds nfs srp iser smb rnbd}

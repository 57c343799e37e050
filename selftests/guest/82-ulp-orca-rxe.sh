#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Two guests, servers on orca, clients on rxe: RDS, NFS over RDMA (v3 and v4.2), SRP,
# iSER, SMB Direct and RNBD, as 81-ulp-orca-orca does for two ORCA adapters.
. "$(dirname "$0")/../lib/host/host.sh"
. "$(dirname "$0")/../lib/host/ulp-host.sh"
ulp_guest_test orca rxe 900 ${ORCA_ULPS:-rds nfs srp iser smb rnbd}

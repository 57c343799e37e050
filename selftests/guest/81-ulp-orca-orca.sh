#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Two guests with ORCA adapters: RDS, NFS over RDMA (v3 and v4.2), SRP,
# iSER, SMB Direct and RNBD from client to server, data checked byte for byte,
# each connection seen on the wire as RoCE (in-guest/ulp.sh).
. "$(dirname "$0")/../lib/host/host.sh"
. "$(dirname "$0")/../lib/host/ulp-host.sh"
ulp_guest_test orca orca 900 ${ORCA_ULPS:-rds nfs srp iser smb rnbd}

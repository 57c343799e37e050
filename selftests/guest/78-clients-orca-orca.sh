#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Two guests, servers on orca, clients on orca: third-party userspace
# clients as a user runs them (in-guest/clients.sh): libfabric (fi_info,
# fi_pingpong over verbs MSG and verbs;ofi_rxm RDM), qperf over rdma_cm,
# rsockets (rstream, riostream) and Open MPI over UCX's ud_verbs, every
# payload checked where the tool can.  MPI over rc_verbs is 85's, across
# four ORCA guests, and 86's; 86 runs these clients between rxe and ORCA.
. "$(dirname "$0")/../lib/host/host.sh"
. "$(dirname "$0")/../lib/host/uverbs-host.sh"
uverbs_guest_test orca orca 600 clients.sh ud_verbs

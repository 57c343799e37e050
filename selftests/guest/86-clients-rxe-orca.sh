#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Two guests, servers on rxe, clients on orca (the requester of qperf's
# RDMA READs and WRITEs): the third-party clients of 78-clients-orca-orca
# (in-guest/clients.sh), MPI over rc_verbs (ud_verbs is 78's).  On rxe, libfabric's verbs;ofi_rxm needs FI_UNIVERSE_SIZE
# (its CQ would exceed rxe's max_cqe); ORCA runs with the defaults.
# A second pairing of 78's clients (with rxe servers): the long tier, since
# 2026-12-07, when make check had grown past 30 minutes again.
# tier: long
. "$(dirname "$0")/../lib/host/host.sh"
. "$(dirname "$0")/../lib/host/uverbs-host.sh"
uverbs_guest_test rxe orca 600 clients.sh rc_verbs

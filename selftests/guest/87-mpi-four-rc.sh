#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tier: long
# Open MPI over UCX's rc_verbs across four ORCA guests (in-guest/mpi.sh),
# the job 85 runs over ud_verbs.  Known to fail, and kept as the
# reproducer: UCX's rc_verbs shares one SRQ among its QPs to the three
# peers, whose receives complete out of ring order, and the provider
# refuses ibv_post_srq_recv() with ENOMEM while the slot at pi waits for
# its CQE, though fewer than max_wr receives are outstanding
# (Documentation/orca/data-path.rst, the SRQ slot rule).  UCX aborts.
. "$(dirname "$0")/../lib/host/host.sh"
run_guests 4 1200 -- env MPI_TLS=rc_verbs \
	selftests/guest/in-guest/mpi.sh test orca orca orca orca
host_done $?

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Open MPI over UCX across four ORCA guests, one rank each (in-guest/mpi.sh):
# mpi_check's ring, all-to-all and MPI_Allreduce checks with four ranks
# over ud_verbs.  The two-rank jobs are 78's (ORCA to ORCA) and 86's (ORCA
# to rxe), over rc_verbs; four ranks over rc_verbs are 87's (long tier).
. "$(dirname "$0")/../lib/host/host.sh"
run_guests 4 1200 -- env MPI_TLS=ud_verbs \
	selftests/guest/in-guest/mpi.sh test orca orca orca orca
host_done $?

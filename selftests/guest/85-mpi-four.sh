#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tier: long
# Open MPI over UCX across four ORCA guests, one rank each (in-guest/mpi.sh):
# mpi_check's ring, all-to-all and MPI_Allreduce checks over rc_verbs and
# over ud_verbs, with two ranks and with four.  Long tier: four guests
# polling at once on a 2-CPU host take minutes (78-clients runs the
# two-rank jobs, ORCA to ORCA and ORCA to rxe, in make check).
. "$(dirname "$0")/../lib/host/host.sh"
run_guests 4 1200 -- selftests/guest/in-guest/mpi.sh test orca orca orca orca
host_done $?

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Open MPI over UCX across four ORCA guests, one rank each (in-guest/mpi.sh):
# mpi_check's ring, all-to-all and MPI_Allreduce checks with four ranks
# over rc_verbs.  UCX's rc_verbs shares one SRQ among its QPs to the three
# peers, whose receives complete out of ring order: the tagged SRQ
# (Documentation/orca/data-path.rst) lets the provider post while any of
# max_wr receives is free, where the slot rule refused with ENOMEM and UCX
# aborted.  The two-rank jobs are 78's (ORCA to ORCA, ud_verbs) and 86's
# (ORCA to rxe, rc_verbs), which make check runs; this four-guest job
# (two minutes of make check's thirty) is make check-long's, with the
# tagged SRQ's rules in make check's unit/test_wqe_track.
# tier: long
. "$(dirname "$0")/../lib/host/host.sh"
run_guests 4 1200 -- env MPI_TLS=rc_verbs \
	selftests/guest/in-guest/mpi.sh test orca orca orca orca
host_done $?

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Open MPI over UCX (lib/guest/mpi.sh) across all the run's guests, one
# rank each, launched from guest 0: selftests/user/mpi_check.c, its
# point-to-point data and MPI_Allreduce results checked on every rank.
#   test:  over each of UCX's $MPI_TLS (default: rc_verbs ud_verbs), all
#          guests (the two-rank jobs are in-guest/clients.sh's);
#   bench: over rc_verbs and over ud_verbs, all guests, with mpi_check's
#          measurements (-b): ping-pong latency of 8 B between ranks 0
#          and 1, MPI_Allreduce of 8 B and 64 KiB, as "# mpi-result"
#          lines that scripts/bench/bench.sh collects.
# Usage: mpi.sh test|bench KIND...   (guest I's device kind, orca or rxe)
. "$ORCA_TOP/selftests/lib/guest/guest.sh"
. "$ORCA_TOP/selftests/lib/guest/uverbs.sh"
. "$ORCA_TOP/selftests/lib/guest/mpi.sh"

mode=${1:?test or bench}
shift
kinds=("$@")
n=${#kinds[@]}
[ "$n" = "${ORCA_GUEST_COUNT:-1}" ] || {
	ktap_line "not ok $n kinds given for ${ORCA_GUEST_COUNT:-1} guests"
	exit 1
}
kind=${kinds[$gi]}
rdma_up "$kind" || ktap_done
mpi_up "$rdma_dev" || ktap_done
barrier mpi-up 120
all=$(seq -s, 0 $((n - 1)))
pairing=$(IFS=-; echo "${kinds[*]}")
if [ "$gi" = 0 ]; then
	tl_list="rc_verbs ud_verbs"
	[ "$mode" = test ] && tl_list=${MPI_TLS:-$tl_list}
	for tl in $tl_list; do
		tls=$tl
		[ "$tl" = rc_verbs ] && tls=rc_verbs,ud_verbs
		if [ "$mode" = bench ]; then
			mpi_job "mpi $pairing $tl" "$tls" "$all" -b 1000
			continue
		fi
		mpi_job "mpi $n ranks $pairing $tl" "$tls" "$all"
	done
fi
barrier mpi-done 1200
mpi_down
rdma_down "$kind"
ok_if "no warnings in dmesg" dmesg_quiet
ktap_done

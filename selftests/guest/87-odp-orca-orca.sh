#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Two guests, servers on orca, clients on orca, every MR on demand
# (IBV_ACCESS_ON_DEMAND, issue 34; data-path.rst "On-demand paging"):
# ibv_rc_pingpong -o -c at four sizes, ib_write_bw, ib_read_bw and
# ib_send_bw --odp at 64 KiB, ib_write_bw and ib_read_bw --odp -a, and
# ucx_perftest put_bw -B (UCX's non-blocking registration) (in-guest/odp.sh).
# In each case both adapters posted page faults and both drivers took them
# (rdma statistic); no fault timed out and no error counter rose.  Then on
# guest 0 the hard cases of selftests/user/odp_hard.c (madvise, fork,
# munmap, mremap, a READ faulting on both sides, 8 QPs on one MR, a lost
# fault).  pyverbs' test_odp runs on orca_0 in 79; 89 is ORCA with rxe.
. "$(dirname "$0")/../lib/host/host.sh"
. "$(dirname "$0")/../lib/host/uverbs-host.sh"
# READ responses that fault are dropped and asked for again.
wire_odp
uverbs_guest_test orca orca 480 odp.sh

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# On-demand paging between ORCA and Soft-RoCE (issue 34): servers on orca,
# clients on rxe (no adapter), every MR of both sides on demand:
# ibv_rc_pingpong -o -c at 4 KiB and 64 KiB + 1, ib_write_bw, ib_read_bw
# and ib_send_bw -b --odp at 64 KiB (in-guest/odp.sh, its interop set):
# both adapters are requester and responder.  ORCA's adapter posted page
# faults and its driver took them in each case; no fault timed out and no
# error counter rose.  87 is the full set between two ORCA adapters.
. "$(dirname "$0")/../lib/host/host.sh"
. "$(dirname "$0")/../lib/host/uverbs-host.sh"
# READ responses that fault are dropped and asked for again.
wire_odp
uverbs_guest_test orca rxe 420 odp.sh interop

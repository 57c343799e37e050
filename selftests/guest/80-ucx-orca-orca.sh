#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Two ORCA guests: ucx_perftest over UCX's rc_verbs and ud_verbs
# transports through the ORCA provider (in-guest/ucx.sh).
# tier: long
# Long tier: make check runs UCX over both transports between ORCA guests
# under Open MPI (78 over rc_verbs, 85 over ud_verbs).
. "$(dirname "$0")/../lib/host/host.sh"
. "$(dirname "$0")/../lib/host/uverbs-host.sh"
uverbs_guest_test orca orca 600 ucx.sh

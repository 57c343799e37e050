#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# One guest: the orca_kverbs "datapath" suite, data moved by the adapter
# between two of its own QPs: RC send/write/read/atomics, UD, SRQ, FRWR,
# completion events and error completions, every byte checked.  The
# adapter lies about every CQE's wr_id meanwhile (KVERBS_WRID_LIE): the
# driver must report the wr_ids that were posted.
. "$(dirname "$0")/lib/host.sh"
run_guests 1 300 -- env KVERBS_WRID_LIE=1 \
	selftests/guest/in-guest/kverbs.sh datapath

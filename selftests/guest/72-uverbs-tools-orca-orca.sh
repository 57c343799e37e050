#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Two guests, servers on orca, clients on orca: the libibverbs pingpongs, rping
# (IPv4 and IPv6), ucmatose, udaddy and dma-buf MRs through the userspace verbs
# (in-guest/uverbs-tools.sh).  The two adapters are joined by a
# point-to-point link, no switch (run-guests.sh --p2p; topology.rst): the
# other ORCA-to-ORCA tests cover the switch.
. "$(dirname "$0")/../lib/host/host.sh"
. "$(dirname "$0")/../lib/host/uverbs-host.sh"
uverbs_wire=p2p
uverbs_guest_test orca orca 420 uverbs-tools.sh

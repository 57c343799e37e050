#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Two guests, servers on rxe, clients on orca: the libibverbs pingpongs, rping
# (IPv4 and IPv6), ucmatose, udaddy and dma-buf MRs through the userspace verbs
# (in-guest/uverbs-tools.sh).
# The reverse of 73: make check keeps one direction of each protocol's
# interop with rxe, make check-long both.
# tier: long
. "$(dirname "$0")/../lib/host/host.sh"
. "$(dirname "$0")/../lib/host/uverbs-host.sh"
uverbs_guest_test rxe orca 420 uverbs-tools.sh

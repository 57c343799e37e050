#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Two guests without ORCA adapters, both Soft-RoCE (rxe): NVMe-oF over RDMA
# with fio crc32c verification, and a wire capture tshark decodes as RoCE.
# The baseline for the ORCA pairings (51-53): it proves the harness.  No
# ORCA in it, and rxe<->rxe alone needs 3-6 minutes under TCG (its 5 s
# NVMe keep-alive expires on a loaded host), so make check-long runs it.
# tier: long
. "$(dirname "$0")/../lib/host/host.sh"
. "$(dirname "$0")/../lib/host/nvmeof-host.sh"
nvmeof_guest_test rxe rxe

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Interoperability, ORCA host and rxe target: NVMe-oF over RDMA from a guest
# with an ORCA adapter to a guest running Soft-RoCE (no adapter, its
# virtio-net on the wire), fio crc32c verification, and a wire capture
# tshark decodes as RoCE.  53-nvmeof-rxe-orca is the reverse.
. "$(dirname "$0")/../lib/host/host.sh"
. "$(dirname "$0")/../lib/host/nvmeof-host.sh"
nvmeof_guest_test rxe orca

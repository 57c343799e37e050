/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The RoCEv2 invariant CRC (IBA Annex A17.3.3): CRC-32 over a masked copy of
 * the IP, UDP and BTH headers followed by the rest of the packet.
 */
#ifndef ORCA_EMU_ROCE_ICRC_H
#define ORCA_EMU_ROCE_ICRC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "roce_crc32.h"

/*
 * ICRC of the packet whose IP header starts at @l3: @len bytes from the IP
 * header up to (not including) the ICRC field, @l3_hdr_len the IP header's
 * length (IPv4 with options included).  @len must be at least
 * l3_hdr_len + UDP + BTH.  The result is what goes on the wire, stored
 * little endian.
 */
uint32_t roce_icrc(const uint8_t *l3, size_t len, size_t l3_hdr_len,
		   bool ipv6);

/*
 * The ICRC Linux's rxe puts on an RC FLUSH (up to at least 7.3): its
 * opcode table gives IB_OPCODE_RC_FLUSH no payload offset, so rxe runs the
 * CRC over the packet as roce_icrc() does and then once more over the BTH
 * and the extension headers, unmasked.  Arguments as roce_icrc()'s.
 */
uint32_t roce_icrc_rxe_flush(const uint8_t *l3, size_t len,
			     size_t l3_hdr_len, bool ipv6);

#endif /* ORCA_EMU_ROCE_ICRC_H */

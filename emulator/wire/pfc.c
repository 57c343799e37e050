// SPDX-License-Identifier: GPL-2.0
/*
 * Priority flow control frames and the switch's pause decision (pfc.h).
 */
#include <string.h>

#include "pfc.h"

static const uint8_t pfc_dmac[6] = { 0x01, 0x80, 0xc2, 0x00, 0x00, 0x01 };

size_t pfc_frame_build(uint8_t *buf, const uint8_t smac[6], uint8_t enable,
		       const uint16_t quanta[PFC_PRIOS])
{
	memset(buf, 0, PFC_FRAME_LEN);
	memcpy(buf, pfc_dmac, 6);
	memcpy(buf + 6, smac, 6);
	buf[12] = PFC_ETHERTYPE >> 8;
	buf[13] = PFC_ETHERTYPE & 0xff;
	buf[14] = PFC_OPCODE >> 8;
	buf[15] = PFC_OPCODE & 0xff;
	buf[16] = 0;			/* the vector's high octet is reserved */
	buf[17] = enable;
	for (int p = 0; p < PFC_PRIOS; p++) {
		uint16_t q = enable >> p & 1 ? quanta[p] : 0;

		buf[18 + 2 * p] = q >> 8;
		buf[19 + 2 * p] = q & 0xff;
	}
	return PFC_FRAME_LEN;
}

bool pfc_is_mac_control(const uint8_t *f, size_t len)
{
	return len >= 14 && f[12] == PFC_ETHERTYPE >> 8 &&
	       f[13] == (PFC_ETHERTYPE & 0xff);
}

bool pfc_frame_parse(const uint8_t *f, size_t len, uint8_t *enable,
		     uint16_t quanta[PFC_PRIOS])
{
	if (!pfc_is_mac_control(f, len) || len < 18 + 2 * PFC_PRIOS)
		return false;
	if (f[14] != PFC_OPCODE >> 8 || f[15] != (PFC_OPCODE & 0xff))
		return false;
	*enable = f[17];
	for (int p = 0; p < PFC_PRIOS; p++)
		quanta[p] = (uint16_t)(f[18 + 2 * p] << 8 | f[19 + 2 * p]);
	return true;
}

uint64_t pfc_quanta_ns(uint16_t quanta, uint32_t rate_mbps)
{
	/* bits / (Mb/s) = us; times 1000 for ns */
	return rate_mbps ? (uint64_t)quanta * PFC_QUANTUM_BITS * 1000 /
			   rate_mbps : 0;
}

uint8_t pfc_due(const struct pfc_cfg *cfg, struct pfc_ingress *in,
		uint64_t now_ns, uint32_t rate_mbps,
		uint16_t quanta[PFC_PRIOS], uint64_t *next_ns)
{
	/* A pause goes again when half of it has run out. */
	uint64_t refresh = pfc_quanta_ns(PFC_QUANTA_MAX, rate_mbps) / 2;
	uint8_t enable = 0;

	for (int c = 0; c < PFC_PRIOS; c++) {
		bool paused = in->paused >> c & 1;

		quanta[c] = 0;
		if (!(cfg->lossless >> c & 1))
			continue;
		if (in->bytes[c] > cfg->xoff ||
		    (paused && in->bytes[c] > cfg->xon)) {
			if (!paused || now_ns - in->sent_ns[c] >= refresh) {
				enable |= 1u << c;
				quanta[c] = PFC_QUANTA_MAX;
				in->paused |= 1u << c;
				in->sent_ns[c] = now_ns;
				in->xoff_tx++;
			}
			if (!*next_ns || in->sent_ns[c] + refresh < *next_ns)
				*next_ns = in->sent_ns[c] + refresh;
		} else if (paused) {
			enable |= 1u << c;	/* quanta 0: resume */
			in->paused &= ~(1u << c);
			in->xon_tx++;
		}
	}
	return enable;
}

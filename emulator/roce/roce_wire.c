// SPDX-License-Identifier: GPL-2.0
/*
 * RoCEv2 packet building and parsing: the opcode table, the Ethernet /
 * IPv4 or IPv6 / UDP / BTH / extension header layouts (IBA 9.2-9.3, Annex
 * A14's XRCETH, Annex A17), and the validation of every received length
 * and checksum.
 *
 * All header fields are big endian on the wire and are read and written
 * byte by byte, so frames never need to be aligned.
 */
#include <string.h>

#include "roce_icrc.h"
#include "roce_wire.h"

#define ETH_P_IPV4	0x0800
#define ETH_P_IPV6	0x86dd
#define ETH_P_8021Q	0x8100
#define IPPROTO_UDP_NR	17
#define IPV4_DF		0x4000
#define IPV4_MF		0x2000
#define IPV4_FRAG_OFF	0x1fff

/* Extension header bytes for a set of ROCE_H_* flags (a constant). */
#define EXT_LEN(f) \
	(((f) & ROCE_H_DETH ? ROCE_DETH_LEN : 0) + \
	 ((f) & ROCE_H_XRCETH ? ROCE_XRCETH_LEN : 0) + \
	 ((f) & ROCE_H_FETH ? ROCE_FETH_LEN : 0) + \
	 ((f) & ROCE_K_CNP ? ROCE_CNP_RSVD_LEN : 0) + \
	 ((f) & ROCE_H_RETH ? ROCE_RETH_LEN : 0) + \
	 ((f) & ROCE_H_ATMETH ? ROCE_ATMETH_LEN : 0) + \
	 ((f) & ROCE_H_AETH ? ROCE_AETH_LEN : 0) + \
	 ((f) & ROCE_H_ATMACK ? ROCE_ATMACK_LEN : 0) + \
	 ((f) & ROCE_H_IMMDT ? ROCE_IMMDT_LEN : 0) + \
	 ((f) & ROCE_H_IETH ? ROCE_IETH_LEN : 0))
#define OP(name, f)	{ name, (f), EXT_LEN(f) }
#define RC	(ROCE_K_RC)
#define RQ	(ROCE_K_REQ | RC)
#define RS	(ROCE_K_RESP | RC)
#define PL	(ROCE_K_PAYLOAD)
#define UQ	(ROCE_K_REQ | ROCE_K_UC)
#define XQ	(ROCE_K_REQ | ROCE_K_XRC | ROCE_H_XRCETH)
#define XS	(ROCE_K_RESP | ROCE_K_XRC)

static const struct roce_opinfo opinfo[256] = {
	[ROCE_RC_SEND_FIRST] = OP("RC SEND First",
		RQ | ROCE_K_SEND | ROCE_K_FIRST | PL),
	[ROCE_RC_SEND_MIDDLE] = OP("RC SEND Middle",
		RQ | ROCE_K_SEND | ROCE_K_MIDDLE | PL),
	[ROCE_RC_SEND_LAST] = OP("RC SEND Last",
		RQ | ROCE_K_SEND | ROCE_K_LAST | PL),
	[ROCE_RC_SEND_LAST_IMM] = OP("RC SEND Last with Immediate",
		RQ | ROCE_K_SEND | ROCE_K_LAST | PL | ROCE_H_IMMDT),
	[ROCE_RC_SEND_ONLY] = OP("RC SEND Only",
		RQ | ROCE_K_SEND | ROCE_K_ONLY | PL),
	[ROCE_RC_SEND_ONLY_IMM] = OP("RC SEND Only with Immediate",
		RQ | ROCE_K_SEND | ROCE_K_ONLY | PL | ROCE_H_IMMDT),
	[ROCE_RC_WRITE_FIRST] = OP("RC RDMA WRITE First",
		RQ | ROCE_K_WRITE | ROCE_K_FIRST | PL | ROCE_H_RETH),
	[ROCE_RC_WRITE_MIDDLE] = OP("RC RDMA WRITE Middle",
		RQ | ROCE_K_WRITE | ROCE_K_MIDDLE | PL),
	[ROCE_RC_WRITE_LAST] = OP("RC RDMA WRITE Last",
		RQ | ROCE_K_WRITE | ROCE_K_LAST | PL),
	[ROCE_RC_WRITE_LAST_IMM] = OP("RC RDMA WRITE Last with Immediate",
		RQ | ROCE_K_WRITE | ROCE_K_LAST | PL | ROCE_H_IMMDT),
	[ROCE_RC_WRITE_ONLY] = OP("RC RDMA WRITE Only",
		RQ | ROCE_K_WRITE | ROCE_K_ONLY | PL | ROCE_H_RETH),
	[ROCE_RC_WRITE_ONLY_IMM] = OP("RC RDMA WRITE Only with Immediate",
		RQ | ROCE_K_WRITE | ROCE_K_ONLY | PL | ROCE_H_RETH |
		ROCE_H_IMMDT),
	[ROCE_RC_READ_REQ] = OP("RC RDMA READ Request",
		RQ | ROCE_K_READ | ROCE_K_ONLY | ROCE_H_RETH),
	[ROCE_RC_READ_RESP_FIRST] = OP("RC RDMA READ Response First",
		RS | ROCE_K_READ | ROCE_K_FIRST | PL | ROCE_H_AETH),
	[ROCE_RC_READ_RESP_MIDDLE] = OP("RC RDMA READ Response Middle",
		RS | ROCE_K_READ | ROCE_K_MIDDLE | PL),
	[ROCE_RC_READ_RESP_LAST] = OP("RC RDMA READ Response Last",
		RS | ROCE_K_READ | ROCE_K_LAST | PL | ROCE_H_AETH),
	[ROCE_RC_READ_RESP_ONLY] = OP("RC RDMA READ Response Only",
		RS | ROCE_K_READ | ROCE_K_ONLY | PL | ROCE_H_AETH),
	[ROCE_RC_ACK] = OP("RC Acknowledge",
		RS | ROCE_K_ACK | ROCE_K_ONLY | ROCE_H_AETH),
	[ROCE_RC_ATOMIC_ACK] = OP("RC ATOMIC Acknowledge",
		RS | ROCE_K_ATOMIC | ROCE_K_ONLY | ROCE_H_AETH |
		ROCE_H_ATMACK),
	[ROCE_RC_CMP_SWAP] = OP("RC CmpSwap",
		RQ | ROCE_K_ATOMIC | ROCE_K_ONLY | ROCE_H_ATMETH),
	[ROCE_RC_FETCH_ADD] = OP("RC FetchAdd",
		RQ | ROCE_K_ATOMIC | ROCE_K_ONLY | ROCE_H_ATMETH),
	[ROCE_RC_SEND_LAST_INV] = OP("RC SEND Last with Invalidate",
		RQ | ROCE_K_SEND | ROCE_K_LAST | PL | ROCE_H_IETH),
	[ROCE_RC_SEND_ONLY_INV] = OP("RC SEND Only with Invalidate",
		RQ | ROCE_K_SEND | ROCE_K_ONLY | PL | ROCE_H_IETH),
	/* IBA 1.5; rxe answers both with an empty READ Response Only. */
	[ROCE_RC_FLUSH] = OP("RC FLUSH",
		RQ | ROCE_K_FLUSH | ROCE_K_ONLY | ROCE_H_FETH | ROCE_H_RETH),
	[ROCE_RC_ATOMIC_WRITE] = OP("RC ATOMIC WRITE",
		RQ | ROCE_K_ATOMIC_WRITE | ROCE_K_ONLY | PL | ROCE_H_RETH),
	[ROCE_UC_SEND_FIRST] = OP("UC SEND First",
		UQ | ROCE_K_SEND | ROCE_K_FIRST | PL),
	[ROCE_UC_SEND_MIDDLE] = OP("UC SEND Middle",
		UQ | ROCE_K_SEND | ROCE_K_MIDDLE | PL),
	[ROCE_UC_SEND_LAST] = OP("UC SEND Last",
		UQ | ROCE_K_SEND | ROCE_K_LAST | PL),
	[ROCE_UC_SEND_LAST_IMM] = OP("UC SEND Last with Immediate",
		UQ | ROCE_K_SEND | ROCE_K_LAST | PL | ROCE_H_IMMDT),
	[ROCE_UC_SEND_ONLY] = OP("UC SEND Only",
		UQ | ROCE_K_SEND | ROCE_K_ONLY | PL),
	[ROCE_UC_SEND_ONLY_IMM] = OP("UC SEND Only with Immediate",
		UQ | ROCE_K_SEND | ROCE_K_ONLY | PL | ROCE_H_IMMDT),
	[ROCE_UC_WRITE_FIRST] = OP("UC RDMA WRITE First",
		UQ | ROCE_K_WRITE | ROCE_K_FIRST | PL | ROCE_H_RETH),
	[ROCE_UC_WRITE_MIDDLE] = OP("UC RDMA WRITE Middle",
		UQ | ROCE_K_WRITE | ROCE_K_MIDDLE | PL),
	[ROCE_UC_WRITE_LAST] = OP("UC RDMA WRITE Last",
		UQ | ROCE_K_WRITE | ROCE_K_LAST | PL),
	[ROCE_UC_WRITE_LAST_IMM] = OP("UC RDMA WRITE Last with Immediate",
		UQ | ROCE_K_WRITE | ROCE_K_LAST | PL | ROCE_H_IMMDT),
	[ROCE_UC_WRITE_ONLY] = OP("UC RDMA WRITE Only",
		UQ | ROCE_K_WRITE | ROCE_K_ONLY | PL | ROCE_H_RETH),
	[ROCE_UC_WRITE_ONLY_IMM] = OP("UC RDMA WRITE Only with Immediate",
		UQ | ROCE_K_WRITE | ROCE_K_ONLY | PL | ROCE_H_RETH |
		ROCE_H_IMMDT),
	[ROCE_UD_SEND_ONLY] = OP("UD SEND Only",
		ROCE_K_REQ | ROCE_K_UD | ROCE_K_SEND | ROCE_K_ONLY | PL |
		ROCE_H_DETH),
	[ROCE_UD_SEND_ONLY_IMM] = OP("UD SEND Only with Immediate",
		ROCE_K_REQ | ROCE_K_UD | ROCE_K_SEND | ROCE_K_ONLY | PL |
		ROCE_H_DETH | ROCE_H_IMMDT),
	[ROCE_CNP] = OP("CNP", ROCE_K_CNP | ROCE_K_ONLY),
	/*
	 * XRC (IBA A14): RC's packets with the XRC opcodes, requests with
	 * the XRCETH first after the BTH; no FLUSH or ATOMIC WRITE.
	 */
	[ROCE_XRC_SEND_FIRST] = OP("XRC SEND First",
		XQ | ROCE_K_SEND | ROCE_K_FIRST | PL),
	[ROCE_XRC_SEND_MIDDLE] = OP("XRC SEND Middle",
		XQ | ROCE_K_SEND | ROCE_K_MIDDLE | PL),
	[ROCE_XRC_SEND_LAST] = OP("XRC SEND Last",
		XQ | ROCE_K_SEND | ROCE_K_LAST | PL),
	[ROCE_XRC_SEND_LAST_IMM] = OP("XRC SEND Last with Immediate",
		XQ | ROCE_K_SEND | ROCE_K_LAST | PL | ROCE_H_IMMDT),
	[ROCE_XRC_SEND_ONLY] = OP("XRC SEND Only",
		XQ | ROCE_K_SEND | ROCE_K_ONLY | PL),
	[ROCE_XRC_SEND_ONLY_IMM] = OP("XRC SEND Only with Immediate",
		XQ | ROCE_K_SEND | ROCE_K_ONLY | PL | ROCE_H_IMMDT),
	[ROCE_XRC_WRITE_FIRST] = OP("XRC RDMA WRITE First",
		XQ | ROCE_K_WRITE | ROCE_K_FIRST | PL | ROCE_H_RETH),
	[ROCE_XRC_WRITE_MIDDLE] = OP("XRC RDMA WRITE Middle",
		XQ | ROCE_K_WRITE | ROCE_K_MIDDLE | PL),
	[ROCE_XRC_WRITE_LAST] = OP("XRC RDMA WRITE Last",
		XQ | ROCE_K_WRITE | ROCE_K_LAST | PL),
	[ROCE_XRC_WRITE_LAST_IMM] = OP("XRC RDMA WRITE Last with Immediate",
		XQ | ROCE_K_WRITE | ROCE_K_LAST | PL | ROCE_H_IMMDT),
	[ROCE_XRC_WRITE_ONLY] = OP("XRC RDMA WRITE Only",
		XQ | ROCE_K_WRITE | ROCE_K_ONLY | PL | ROCE_H_RETH),
	[ROCE_XRC_WRITE_ONLY_IMM] = OP("XRC RDMA WRITE Only with Immediate",
		XQ | ROCE_K_WRITE | ROCE_K_ONLY | PL | ROCE_H_RETH |
		ROCE_H_IMMDT),
	[ROCE_XRC_READ_REQ] = OP("XRC RDMA READ Request",
		XQ | ROCE_K_READ | ROCE_K_ONLY | ROCE_H_RETH),
	[ROCE_XRC_READ_RESP_FIRST] = OP("XRC RDMA READ Response First",
		XS | ROCE_K_READ | ROCE_K_FIRST | PL | ROCE_H_AETH),
	[ROCE_XRC_READ_RESP_MIDDLE] = OP("XRC RDMA READ Response Middle",
		XS | ROCE_K_READ | ROCE_K_MIDDLE | PL),
	[ROCE_XRC_READ_RESP_LAST] = OP("XRC RDMA READ Response Last",
		XS | ROCE_K_READ | ROCE_K_LAST | PL | ROCE_H_AETH),
	[ROCE_XRC_READ_RESP_ONLY] = OP("XRC RDMA READ Response Only",
		XS | ROCE_K_READ | ROCE_K_ONLY | PL | ROCE_H_AETH),
	[ROCE_XRC_ACK] = OP("XRC Acknowledge",
		XS | ROCE_K_ACK | ROCE_K_ONLY | ROCE_H_AETH),
	[ROCE_XRC_ATOMIC_ACK] = OP("XRC ATOMIC Acknowledge",
		XS | ROCE_K_ATOMIC | ROCE_K_ONLY | ROCE_H_AETH |
		ROCE_H_ATMACK),
	[ROCE_XRC_CMP_SWAP] = OP("XRC CmpSwap",
		XQ | ROCE_K_ATOMIC | ROCE_K_ONLY | ROCE_H_ATMETH),
	[ROCE_XRC_FETCH_ADD] = OP("XRC FetchAdd",
		XQ | ROCE_K_ATOMIC | ROCE_K_ONLY | ROCE_H_ATMETH),
	[ROCE_XRC_SEND_LAST_INV] = OP("XRC SEND Last with Invalidate",
		XQ | ROCE_K_SEND | ROCE_K_LAST | PL | ROCE_H_IETH),
	[ROCE_XRC_SEND_ONLY_INV] = OP("XRC SEND Only with Invalidate",
		XQ | ROCE_K_SEND | ROCE_K_ONLY | PL | ROCE_H_IETH),
};

#undef RC
#undef RQ
#undef RS
#undef PL
#undef UQ
#undef XQ
#undef XS
#undef OP
#undef EXT_LEN

const struct roce_opinfo *roce_opinfo(uint8_t opcode)
{
	return opinfo[opcode].name ? &opinfo[opcode] : NULL;
}

static const char *const rx_err_names[ROCE_RX_NERR] = {
	[ROCE_RX_OK] = "ok",
	[ROCE_RX_TRUNCATED] = "truncated",
	[ROCE_RX_NOT_ROCE] = "not_roce",
	[ROCE_RX_BAD_IP] = "bad_ip",
	[ROCE_RX_BAD_IP_CSUM] = "bad_ip_csum",
	[ROCE_RX_BAD_UDP] = "bad_udp",
	[ROCE_RX_BAD_UDP_CSUM] = "bad_udp_csum",
	[ROCE_RX_BAD_BTH] = "bad_bth",
	[ROCE_RX_BAD_LEN] = "bad_len",
	[ROCE_RX_BAD_ICRC] = "bad_icrc",
};

const char *roce_rx_err_name(enum roce_rx_err err)
{
	return (unsigned int)err < ROCE_RX_NERR ? rx_err_names[err] : "?";
}

/* ---- big-endian field access ---- */

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t get24(const uint8_t *p)
{
	return (uint32_t)p[0] << 16 | p[1] << 8 | p[2];
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3];
}

static uint64_t get64(const uint8_t *p)
{
	return (uint64_t)get32(p) << 32 | get32(p + 4);
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v;
}

static void put24(uint8_t *p, uint32_t v)
{
	p[0] = v >> 16;
	p[1] = v >> 8;
	p[2] = v;
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

static void put64(uint8_t *p, uint64_t v)
{
	put32(p, v >> 32);
	put32(p + 4, v);
}

/* Internet checksum (RFC 1071) partial sum; fold with csum_fold(). */
static uint32_t csum_add(uint32_t sum, const uint8_t *p, size_t len)
{
	while (len > 1) {
		sum += get16(p);
		p += 2;
		len -= 2;
	}
	if (len)
		sum += (uint32_t)p[0] << 8;
	return sum;
}

static uint16_t csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/* ---- addresses ---- */

static const uint8_t v4_prefix[12] = {
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff
};

bool roce_gid_is_v4(const uint8_t gid[16])
{
	return !memcmp(gid, v4_prefix, sizeof(v4_prefix));
}

void roce_gid_from_v4(uint8_t gid[16], const uint8_t ip[4])
{
	memcpy(gid, v4_prefix, sizeof(v4_prefix));
	memcpy(gid + 12, ip, 4);
}

uint16_t roce_udp_sport(uint32_t qpn)
{
	/* Fibonacci hash: spreads consecutive QPNs over ECMP paths. */
	uint32_t h = (qpn & ROCE_QPN_MASK) * 0x9e3779b1u;

	return 0xc000 | (h >> 18);
}

/* ---- building ---- */

static size_t l3_len(const struct roce_pkt *pkt)
{
	return pkt->ipv6 ? ROCE_IPV6_HLEN : ROCE_IPV4_HLEN;
}

static size_t l2_len(const struct roce_pkt *pkt)
{
	return ROCE_ETH_HLEN + (pkt->vlan != ROCE_NO_VLAN ? ROCE_VLAN_HLEN : 0);
}

size_t roce_hdr_len(const struct roce_pkt *pkt)
{
	const struct roce_opinfo *op = roce_opinfo(pkt->opcode);

	return l2_len(pkt) + l3_len(pkt) + ROCE_UDP_HLEN + ROCE_BTH_LEN +
	       (op ? op->ext_len : 0);
}

static unsigned int pad_of(uint32_t paylen)
{
	return (4 - (paylen & 3)) & 3;
}

/* Frame length before Ethernet padding. */
static size_t raw_frame_len(const struct roce_pkt *pkt)
{
	return roce_hdr_len(pkt) + pkt->paylen + pad_of(pkt->paylen) +
	       ROCE_ICRC_LEN;
}

size_t roce_frame_len(const struct roce_pkt *pkt)
{
	size_t len = raw_frame_len(pkt);

	return len < ROCE_ETH_MIN_FRAME ? ROCE_ETH_MIN_FRAME : len;
}

static uint8_t *build_l2(uint8_t *p, const struct roce_pkt *pkt)
{
	memcpy(p, pkt->dmac, 6);
	memcpy(p + 6, pkt->smac, 6);
	p += 12;
	if (pkt->vlan != ROCE_NO_VLAN) {
		put16(p, ETH_P_8021Q);
		put16(p + 2, pkt->vlan);
		p += ROCE_VLAN_HLEN;
	}
	put16(p, pkt->ipv6 ? ETH_P_IPV6 : ETH_P_IPV4);
	return p + 2;
}

static uint8_t *build_l3(uint8_t *p, const struct roce_pkt *pkt,
			 size_t udp_len)
{
	if (pkt->ipv6) {
		uint32_t w = 6u << 28 | (uint32_t)pkt->traffic_class << 20 |
			     (pkt->flow_label & 0xfffff);

		put32(p, w);
		put16(p + 4, udp_len);
		p[6] = IPPROTO_UDP_NR;
		p[7] = pkt->hop_limit;
		memcpy(p + 8, pkt->sgid, 16);
		memcpy(p + 24, pkt->dgid, 16);
		return p + ROCE_IPV6_HLEN;
	}
	p[0] = 0x45;
	p[1] = pkt->traffic_class;
	put16(p + 2, ROCE_IPV4_HLEN + udp_len);
	put16(p + 4, 0);		/* ID: unused with DF */
	put16(p + 6, IPV4_DF);
	p[8] = pkt->hop_limit;
	p[9] = IPPROTO_UDP_NR;
	put16(p + 10, 0);
	memcpy(p + 12, pkt->sgid + 12, 4);
	memcpy(p + 16, pkt->dgid + 12, 4);
	put16(p + 10, csum_fold(csum_add(0, p, ROCE_IPV4_HLEN)));
	return p + ROCE_IPV4_HLEN;
}

static uint8_t *build_bth(uint8_t *p, const struct roce_pkt *pkt)
{
	p[0] = pkt->opcode;
	p[1] = (pkt->solicited ? 0x80 : 0) | (pkt->mig_req ? 0x40 : 0) |
	       pad_of(pkt->paylen) << 4;	/* TVer 0 */
	put16(p + 2, pkt->pkey);
	p[4] = (pkt->fecn ? 0x80 : 0) | (pkt->becn ? 0x40 : 0);
	put24(p + 5, pkt->dest_qpn);
	p[8] = pkt->ack_req ? 0x80 : 0;
	put24(p + 9, pkt->psn);
	return p + ROCE_BTH_LEN;
}

/*
 * Extension headers in IBA order: DETH XRCETH FETH RETH AtomicETH AETH
 * AtomicAck ... (no opcode has more than one of DETH, XRCETH and FETH).
 */
static uint8_t *build_ext(uint8_t *p, const struct roce_pkt *pkt,
			  uint32_t flags)
{
	if (flags & ROCE_H_DETH) {
		put32(p, pkt->deth_qkey);
		p[4] = 0;
		put24(p + 5, pkt->deth_sqpn);
		p += ROCE_DETH_LEN;
	}
	if (flags & ROCE_H_XRCETH) {
		p[0] = 0;
		put24(p + 1, pkt->xrc_srqn);
		p += ROCE_XRCETH_LEN;
	}
	if (flags & ROCE_H_FETH) {
		put32(p, ((uint32_t)pkt->feth_sel << ROCE_FETH_SEL_SHIFT &
			  ROCE_FETH_SEL_MASK) |
			 (pkt->feth_plt & ROCE_FETH_PLT_MASK));
		p += ROCE_FETH_LEN;
	}
	if (flags & ROCE_H_RETH) {
		put64(p, pkt->reth_va);
		put32(p + 8, pkt->reth_rkey);
		put32(p + 12, pkt->reth_len);
		p += ROCE_RETH_LEN;
	}
	if (flags & ROCE_H_ATMETH) {
		put64(p, pkt->atm_va);
		put32(p + 8, pkt->atm_rkey);
		put64(p + 12, pkt->atm_swap);
		put64(p + 20, pkt->atm_cmp);
		p += ROCE_ATMETH_LEN;
	}
	if (flags & ROCE_H_AETH) {
		p[0] = pkt->aeth_syndrome;
		put24(p + 1, pkt->aeth_msn);
		p += ROCE_AETH_LEN;
	}
	if (flags & ROCE_H_ATMACK) {
		put64(p, pkt->atm_orig);
		p += ROCE_ATMACK_LEN;
	}
	if (flags & ROCE_H_IMMDT) {
		put32(p, pkt->imm);
		p += ROCE_IMMDT_LEN;
	}
	if (flags & ROCE_H_IETH) {
		put32(p, pkt->ieth_rkey);
		p += ROCE_IETH_LEN;
	}
	if (flags & ROCE_K_CNP) {
		memset(p, 0, ROCE_CNP_RSVD_LEN);
		p += ROCE_CNP_RSVD_LEN;
	}
	return p;
}

size_t roce_build_hdrs(uint8_t *frame, size_t cap, const struct roce_pkt *pkt)
{
	const struct roce_opinfo *op = roce_opinfo(pkt->opcode);
	size_t udp_len;
	uint8_t *p;

	if (!op || (pkt->paylen && !(op->flags & ROCE_K_PAYLOAD)) ||
	    pkt->paylen > ROCE_MAX_FRAME || roce_frame_len(pkt) > cap)
		return 0;
	udp_len = ROCE_UDP_HLEN + ROCE_BTH_LEN + op->ext_len + pkt->paylen +
		  pad_of(pkt->paylen) + ROCE_ICRC_LEN;

	p = build_l2(frame, pkt);
	p = build_l3(p, pkt, udp_len);
	put16(p, pkt->udp_sport);
	put16(p + 2, ROCE_UDP_PORT);
	put16(p + 4, udp_len);
	put16(p + 6, 0);		/* RoCEv2 senders leave it out */
	p = build_bth(p + ROCE_UDP_HLEN, pkt);
	p = build_ext(p, pkt, op->flags);
	return (size_t)(p - frame);
}

size_t roce_build_finish(uint8_t *frame, const struct roce_pkt *pkt)
{
	size_t hdr = roce_hdr_len(pkt);
	size_t l3 = l2_len(pkt);
	size_t end = hdr + pkt->paylen;
	size_t len;
	uint32_t icrc;

	memset(frame + end, 0, pad_of(pkt->paylen));
	end += pad_of(pkt->paylen);
	icrc = roce_icrc(frame + l3, end - l3, l3_len(pkt), pkt->ipv6);
	frame[end] = icrc;
	frame[end + 1] = icrc >> 8;
	frame[end + 2] = icrc >> 16;
	frame[end + 3] = icrc >> 24;
	end += ROCE_ICRC_LEN;
	len = roce_frame_len(pkt);
	memset(frame + end, 0, len - end);
	return len;
}

size_t roce_build(uint8_t *frame, size_t cap, const struct roce_pkt *pkt)
{
	size_t hdr = roce_build_hdrs(frame, cap, pkt);

	if (!hdr)
		return 0;
	if (pkt->paylen)
		memcpy(frame + hdr, pkt->payload, pkt->paylen);
	return roce_build_finish(frame, pkt);
}

/* ---- classifying ---- */

/*
 * The IPv4 header at @p, @avail bytes of frame from it: its length, or the
 * reason it cannot start a RoCE packet.  Fragments other than the first
 * carry no UDP header, and RoCE never fragments (it sets DF), so no
 * fragment is RoCE.
 */
static enum roce_rx_err classify_ipv4(const uint8_t *p, size_t avail,
				      size_t *ihl)
{
	if (avail < ROCE_IPV4_HLEN)
		return ROCE_RX_TRUNCATED;
	*ihl = (p[0] & 0x0f) * 4u;
	if (p[0] >> 4 != 4 || *ihl < ROCE_IPV4_HLEN)
		return ROCE_RX_BAD_IP;
	if (*ihl > avail)
		return ROCE_RX_TRUNCATED;
	if (p[9] != IPPROTO_UDP_NR)
		return ROCE_RX_NOT_ROCE;
	if (get16(p + 6) & (IPV4_MF | IPV4_FRAG_OFF))
		return ROCE_RX_BAD_IP;
	return ROCE_RX_OK;
}

/* IPv6: extension headers are not walked (rxe sends none). */
static enum roce_rx_err classify_ipv6(const uint8_t *p, size_t avail)
{
	if (avail < ROCE_IPV6_HLEN)
		return ROCE_RX_TRUNCATED;
	if (p[0] >> 4 != 6)
		return ROCE_RX_BAD_IP;
	if (p[6] != IPPROTO_UDP_NR)
		return ROCE_RX_NOT_ROCE;
	return ROCE_RX_OK;
}

enum roce_rx_err roce_classify(const uint8_t *frame, size_t len,
			       struct roce_frame_hdrs *h)
{
	size_t off = ROCE_ETH_HLEN, l3_hdr_len = ROCE_IPV6_HLEN;
	enum roce_rx_err err;
	uint16_t type;

	if (len < ROCE_ETH_HLEN)
		return ROCE_RX_TRUNCATED;
	type = get16(frame + 12);
	h->vlan = ROCE_NO_VLAN;
	if (type == ETH_P_8021Q) {
		if (len < ROCE_ETH_HLEN + ROCE_VLAN_HLEN)
			return ROCE_RX_TRUNCATED;
		h->vlan = get16(frame + 14);
		type = get16(frame + 16);
		off += ROCE_VLAN_HLEN;
	}
	/* A second tag (or an 802.1ad one) falls out here as not IP. */
	if (type == ETH_P_IPV4)
		err = classify_ipv4(frame + off, len - off, &l3_hdr_len);
	else if (type == ETH_P_IPV6)
		err = classify_ipv6(frame + off, len - off);
	else
		return ROCE_RX_NOT_ROCE;
	if (err)
		return err;
	if (len - off - l3_hdr_len < ROCE_UDP_HLEN)
		return ROCE_RX_TRUNCATED;
	if (get16(frame + off + l3_hdr_len + 2) != ROCE_UDP_PORT)
		return ROCE_RX_NOT_ROCE;
	h->ipv6 = type == ETH_P_IPV6;
	h->l3_off = off;
	h->l3_hdr_len = l3_hdr_len;
	h->udp_off = off + l3_hdr_len;
	return ROCE_RX_OK;
}

/* ---- parsing ---- */

/*
 * The rest of the IPv4 header roce_classify() found: returns the error or
 * OK and sets *udp_avail (the IP payload, bounded by the IP total length,
 * not the frame: Ethernet pads runts).
 */
static enum roce_rx_err parse_ipv4(const uint8_t *p, size_t avail,
				   size_t ihl, struct roce_pkt *pkt,
				   size_t *udp_avail)
{
	size_t tot = get16(p + 2);

	if (tot > avail)
		return ROCE_RX_TRUNCATED;
	if (tot < ihl)
		return ROCE_RX_BAD_IP;
	if (csum_fold(csum_add(0, p, ihl)) != 0)
		return ROCE_RX_BAD_IP_CSUM;

	pkt->ipv6 = false;
	pkt->traffic_class = p[1];
	pkt->hop_limit = p[8];
	pkt->flow_label = 0;
	roce_gid_from_v4(pkt->sgid, p + 12);
	roce_gid_from_v4(pkt->dgid, p + 16);
	*udp_avail = tot - ihl;
	return ROCE_RX_OK;
}

static enum roce_rx_err parse_ipv6(const uint8_t *p, size_t avail,
				   struct roce_pkt *pkt, size_t *udp_avail)
{
	uint32_t w = get32(p);
	size_t plen = get16(p + 4);

	if (plen > avail - ROCE_IPV6_HLEN)
		return ROCE_RX_TRUNCATED;

	pkt->ipv6 = true;
	pkt->traffic_class = (w >> 20) & 0xff;
	pkt->flow_label = w & 0xfffff;
	pkt->hop_limit = p[7];
	memcpy(pkt->sgid, p + 8, 16);
	memcpy(pkt->dgid, p + 24, 16);
	*udp_avail = plen;
	return ROCE_RX_OK;
}

/* A non-zero UDP checksum must be right (zero means "not computed"). */
static bool udp_csum_ok(const struct roce_pkt *pkt, const uint8_t *udp,
			size_t udp_len)
{
	uint32_t sum;

	if (!get16(udp + 6))
		return true;
	if (pkt->ipv6) {
		sum = csum_add(0, pkt->sgid, 16);
		sum = csum_add(sum, pkt->dgid, 16);
	} else {
		sum = csum_add(0, pkt->sgid + 12, 4);
		sum = csum_add(sum, pkt->dgid + 12, 4);
	}
	sum += IPPROTO_UDP_NR + (uint32_t)udp_len;
	sum = csum_add(sum, udp, udp_len);
	return csum_fold(sum) == 0;
}

static void parse_bth(const uint8_t *b, struct roce_pkt *pkt)
{
	pkt->opcode = b[0];
	pkt->solicited = b[1] & 0x80;
	pkt->mig_req = b[1] & 0x40;
	pkt->pad = (b[1] >> 4) & 3;
	pkt->pkey = get16(b + 2);
	pkt->fecn = b[4] & 0x80;
	pkt->becn = b[4] & 0x40;
	pkt->dest_qpn = get24(b + 5);
	pkt->ack_req = b[8] & 0x80;
	pkt->psn = get24(b + 9);
}

static void parse_ext(const uint8_t *p, struct roce_pkt *pkt, uint32_t flags)
{
	if (flags & ROCE_H_DETH) {
		pkt->deth_qkey = get32(p);
		pkt->deth_sqpn = get24(p + 5);
		p += ROCE_DETH_LEN;
	}
	if (flags & ROCE_H_XRCETH) {
		pkt->xrc_srqn = get24(p + 1);
		p += ROCE_XRCETH_LEN;
	}
	if (flags & ROCE_H_FETH) {
		/* Reserved bits are ignored, as rxe does. */
		uint32_t feth = get32(p);

		pkt->feth_plt = feth & ROCE_FETH_PLT_MASK;
		pkt->feth_sel = (feth & ROCE_FETH_SEL_MASK) >>
				ROCE_FETH_SEL_SHIFT;
		p += ROCE_FETH_LEN;
	}
	if (flags & ROCE_H_RETH) {
		pkt->reth_va = get64(p);
		pkt->reth_rkey = get32(p + 8);
		pkt->reth_len = get32(p + 12);
		p += ROCE_RETH_LEN;
	}
	if (flags & ROCE_H_ATMETH) {
		pkt->atm_va = get64(p);
		pkt->atm_rkey = get32(p + 8);
		pkt->atm_swap = get64(p + 12);
		pkt->atm_cmp = get64(p + 20);
		p += ROCE_ATMETH_LEN;
	}
	if (flags & ROCE_H_AETH) {
		pkt->aeth_syndrome = p[0];
		pkt->aeth_msn = get24(p + 1);
		p += ROCE_AETH_LEN;
	}
	if (flags & ROCE_H_ATMACK) {
		pkt->atm_orig = get64(p);
		p += ROCE_ATMACK_LEN;
	}
	if (flags & ROCE_H_IMMDT) {
		pkt->imm = get32(p);
		p += ROCE_IMMDT_LEN;
	}
	if (flags & ROCE_H_IETH)
		pkt->ieth_rkey = get32(p);
}

enum roce_rx_err roce_parse(const uint8_t *frame, size_t len,
			    struct roce_pkt *pkt)
{
	const struct roce_opinfo *op;
	const uint8_t *p, *udp, *bth;
	struct roce_frame_hdrs h;
	size_t udp_avail, udp_len, tail;
	enum roce_rx_err err;
	uint32_t icrc;

	memset(pkt, 0, sizeof(*pkt));
	err = roce_classify(frame, len, &h);
	if (err)
		return err;
	memcpy(pkt->dmac, frame, 6);
	memcpy(pkt->smac, frame + 6, 6);
	pkt->vlan = h.vlan;
	p = frame + h.l3_off;
	if (h.ipv6)
		err = parse_ipv6(p, len - h.l3_off, pkt, &udp_avail);
	else
		err = parse_ipv4(p, len - h.l3_off, h.l3_hdr_len, pkt,
				 &udp_avail);
	if (err)
		return err;
	pkt->l3 = p;
	pkt->l3_hdr_len = h.l3_hdr_len;
	udp = frame + h.udp_off;

	/* UDP: udp_avail is what the IP header says follows it. */
	if (udp_avail < ROCE_UDP_HLEN)
		return ROCE_RX_TRUNCATED;
	udp_len = get16(udp + 4);
	if (udp_len != udp_avail)
		return ROCE_RX_BAD_UDP;
	if (udp_len < ROCE_UDP_HLEN + ROCE_BTH_LEN + ROCE_ICRC_LEN)
		return ROCE_RX_TRUNCATED;
	if (!udp_csum_ok(pkt, udp, udp_len))
		return ROCE_RX_BAD_UDP_CSUM;
	pkt->udp_sport = get16(udp);

	bth = udp + ROCE_UDP_HLEN;
	parse_bth(bth, pkt);
	op = roce_opinfo(pkt->opcode);
	if (!op || (bth[1] & 0x0f) != 0)	/* TVer must be 0 */
		return ROCE_RX_BAD_BTH;

	/* What follows the BTH: extension headers, payload, pad, ICRC. */
	tail = udp_len - ROCE_UDP_HLEN - ROCE_BTH_LEN;
	if (tail < (size_t)op->ext_len + pkt->pad + ROCE_ICRC_LEN)
		return ROCE_RX_TRUNCATED;
	pkt->paylen = tail - op->ext_len - pkt->pad - ROCE_ICRC_LEN;
	if (pkt->paylen && !(op->flags & ROCE_K_PAYLOAD))
		return ROCE_RX_BAD_LEN;
	if (!(op->flags & ROCE_K_PAYLOAD) && pkt->pad)
		return ROCE_RX_BAD_LEN;

	icrc = roce_icrc(pkt->l3, (size_t)(udp - pkt->l3) + udp_len -
			 ROCE_ICRC_LEN, pkt->l3_hdr_len, pkt->ipv6);
	p = udp + udp_len - ROCE_ICRC_LEN;
	if (icrc != (p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24)) {
		/*
		 * rxe's RC FLUSH: the same bytes, CRCed differently
		 * (roce_icrc_rxe_flush()).  Taken, and counted, so that
		 * rxe's FLUSHes reach us; ours carry the IBA's ICRC.
		 */
		if (pkt->opcode != ROCE_RC_FLUSH ||
		    roce_icrc_rxe_flush(pkt->l3, (size_t)(udp - pkt->l3) +
					udp_len - ROCE_ICRC_LEN,
					pkt->l3_hdr_len, pkt->ipv6) !=
		    (p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24))
			return ROCE_RX_BAD_ICRC;
		pkt->rxe_flush_icrc = true;
	}

	parse_ext(bth + ROCE_BTH_LEN, pkt, op->flags);
	pkt->payload = bth + ROCE_BTH_LEN + op->ext_len;
	return ROCE_RX_OK;
}

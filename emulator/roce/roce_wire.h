/* SPDX-License-Identifier: GPL-2.0 */
/*
 * RoCEv2 packets on the wire: the transport opcode table (which extension
 * headers each RC, UC, UD and XRC opcode carries) and the builder and
 * parser for Ethernet [802.1Q] / IPv4 or IPv6 / UDP 4791 / BTH / extension
 * headers / payload / pad / ICRC.
 *
 * The parser is the adapter's first line of defence against the wire: it
 * checks every length and checksum against the frame and reports why it
 * dropped a frame, so the transport above only ever sees a packet whose
 * headers and payload lie inside the frame.  It knows nothing about QPs:
 * PSNs, P_Keys, Q_Keys and path MTU are the transport's business.
 */
#ifndef ORCA_EMU_ROCE_WIRE_H
#define ORCA_EMU_ROCE_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ROCE_UDP_PORT		4791
#define ROCE_ETH_HLEN		14
#define ROCE_VLAN_HLEN		4
#define ROCE_IPV4_HLEN		20
#define ROCE_IPV6_HLEN		40
#define ROCE_UDP_HLEN		8
#define ROCE_BTH_LEN		12
#define ROCE_RETH_LEN		16
#define ROCE_AETH_LEN		4
#define ROCE_ATMETH_LEN		28
#define ROCE_ATMACK_LEN		8
#define ROCE_IMMDT_LEN		4
#define ROCE_IETH_LEN		4
#define ROCE_DETH_LEN		8
#define ROCE_FETH_LEN		4
#define ROCE_CNP_RSVD_LEN	16
/* The IP header's ECN bits (RFC 3168), in the traffic class's low two. */
#define ROCE_ECN_MASK		3u
#define ROCE_ECN_ECT0		2u
#define ROCE_ECN_CE		3u
#define ROCE_XRCETH_LEN		4
#define ROCE_ICRC_LEN		4
#define ROCE_ETH_MIN_FRAME	60	/* without FCS */
#define ROCE_NO_VLAN		0xffff
#define ROCE_DEFAULT_PKEY	0xffff
#define ROCE_PSN_MASK		0xffffffu
#define ROCE_QPN_MASK		0xffffffu
#define ROCE_MCAST_QPN		0xffffffu	/* DQPN of multicast (IBTA) */
#define ROCE_GSI_QKEY		0x80010000u

/* Largest frame the builder makes: 4096-byte MTU plus every header. */
#define ROCE_MAX_FRAME		(ROCE_ETH_HLEN + ROCE_VLAN_HLEN + \
				 ROCE_IPV6_HLEN + ROCE_UDP_HLEN + 128 + 4096)

/* BTH opcodes (IBA 9.2, table 38).  The top 3 bits are the transport. */
enum roce_opcode {
	ROCE_RC_SEND_FIRST		= 0x00,
	ROCE_RC_SEND_MIDDLE		= 0x01,
	ROCE_RC_SEND_LAST		= 0x02,
	ROCE_RC_SEND_LAST_IMM		= 0x03,
	ROCE_RC_SEND_ONLY		= 0x04,
	ROCE_RC_SEND_ONLY_IMM		= 0x05,
	ROCE_RC_WRITE_FIRST		= 0x06,
	ROCE_RC_WRITE_MIDDLE		= 0x07,
	ROCE_RC_WRITE_LAST		= 0x08,
	ROCE_RC_WRITE_LAST_IMM		= 0x09,
	ROCE_RC_WRITE_ONLY		= 0x0a,
	ROCE_RC_WRITE_ONLY_IMM		= 0x0b,
	ROCE_RC_READ_REQ		= 0x0c,
	ROCE_RC_READ_RESP_FIRST		= 0x0d,
	ROCE_RC_READ_RESP_MIDDLE	= 0x0e,
	ROCE_RC_READ_RESP_LAST		= 0x0f,
	ROCE_RC_READ_RESP_ONLY		= 0x10,
	ROCE_RC_ACK			= 0x11,
	ROCE_RC_ATOMIC_ACK		= 0x12,
	ROCE_RC_CMP_SWAP		= 0x13,
	ROCE_RC_FETCH_ADD		= 0x14,
	ROCE_RC_SEND_LAST_INV		= 0x16,
	ROCE_RC_SEND_ONLY_INV		= 0x17,
	ROCE_RC_FLUSH			= 0x1c,	/* IBA 1.5 */
	ROCE_RC_ATOMIC_WRITE		= 0x1d,	/* IBA 1.5 */
	/* UC: the RC SEND and WRITE opcodes | ROCE_UC_BASE (IBA 9.2.1). */
	ROCE_UC_SEND_FIRST		= 0x20,
	ROCE_UC_SEND_MIDDLE		= 0x21,
	ROCE_UC_SEND_LAST		= 0x22,
	ROCE_UC_SEND_LAST_IMM		= 0x23,
	ROCE_UC_SEND_ONLY		= 0x24,
	ROCE_UC_SEND_ONLY_IMM		= 0x25,
	ROCE_UC_WRITE_FIRST		= 0x26,
	ROCE_UC_WRITE_MIDDLE		= 0x27,
	ROCE_UC_WRITE_LAST		= 0x28,
	ROCE_UC_WRITE_LAST_IMM		= 0x29,
	ROCE_UC_WRITE_ONLY		= 0x2a,
	ROCE_UC_WRITE_ONLY_IMM		= 0x2b,
	ROCE_UD_SEND_ONLY		= 0x64,
	ROCE_UD_SEND_ONLY_IMM		= 0x65,
	/*
	 * RoCEv2's Congestion Notification Packet (IBA A17.9.2): the CNP
	 * transport, BECN set, 16 reserved bytes before the ICRC.
	 */
	ROCE_CNP			= 0x81,
	/*
	 * XRC (IBA 1.2 Annex A14): the RC opcodes | ROCE_XRC_BASE, every
	 * one but FLUSH and ATOMIC WRITE; requests carry the XRCETH.
	 */
	ROCE_XRC_SEND_FIRST		= 0xa0,
	ROCE_XRC_SEND_MIDDLE		= 0xa1,
	ROCE_XRC_SEND_LAST		= 0xa2,
	ROCE_XRC_SEND_LAST_IMM		= 0xa3,
	ROCE_XRC_SEND_ONLY		= 0xa4,
	ROCE_XRC_SEND_ONLY_IMM		= 0xa5,
	ROCE_XRC_WRITE_FIRST		= 0xa6,
	ROCE_XRC_WRITE_MIDDLE		= 0xa7,
	ROCE_XRC_WRITE_LAST		= 0xa8,
	ROCE_XRC_WRITE_LAST_IMM		= 0xa9,
	ROCE_XRC_WRITE_ONLY		= 0xaa,
	ROCE_XRC_WRITE_ONLY_IMM		= 0xab,
	ROCE_XRC_READ_REQ		= 0xac,
	ROCE_XRC_READ_RESP_FIRST	= 0xad,
	ROCE_XRC_READ_RESP_MIDDLE	= 0xae,
	ROCE_XRC_READ_RESP_LAST		= 0xaf,
	ROCE_XRC_READ_RESP_ONLY		= 0xb0,
	ROCE_XRC_ACK			= 0xb1,
	ROCE_XRC_ATOMIC_ACK		= 0xb2,
	ROCE_XRC_CMP_SWAP		= 0xb3,
	ROCE_XRC_FETCH_ADD		= 0xb4,
	ROCE_XRC_SEND_LAST_INV		= 0xb6,
	ROCE_XRC_SEND_ONLY_INV		= 0xb7,
};

/* Which headers an opcode carries, and what kind of packet it is. */
#define ROCE_H_RETH		(1u << 0)
#define ROCE_H_AETH		(1u << 1)
#define ROCE_H_ATMETH		(1u << 2)
#define ROCE_H_ATMACK		(1u << 3)
#define ROCE_H_IMMDT		(1u << 4)
#define ROCE_H_IETH		(1u << 5)
#define ROCE_H_DETH		(1u << 6)
#define ROCE_H_FETH		(1u << 7)
#define ROCE_K_PAYLOAD		(1u << 8)	/* may carry payload */
#define ROCE_K_REQ		(1u << 9)	/* requester -> responder */
#define ROCE_K_RESP		(1u << 10)	/* responder -> requester */
#define ROCE_K_SEND		(1u << 11)
#define ROCE_K_WRITE		(1u << 12)
#define ROCE_K_READ		(1u << 13)	/* request or response */
#define ROCE_K_ATOMIC		(1u << 14)	/* request or ack */
#define ROCE_K_ACK		(1u << 15)	/* plain ACK/NAK */
#define ROCE_K_FIRST		(1u << 16)
#define ROCE_K_MIDDLE		(1u << 17)
#define ROCE_K_LAST		(1u << 18)
#define ROCE_K_ONLY		(ROCE_K_FIRST | ROCE_K_LAST)
#define ROCE_K_RC		(1u << 19)
#define ROCE_K_UD		(1u << 20)
#define ROCE_K_FLUSH		(1u << 21)
#define ROCE_K_ATOMIC_WRITE	(1u << 22)
#define ROCE_K_UC		(1u << 23)
#define ROCE_H_XRCETH		(1u << 24)
#define ROCE_K_XRC		(1u << 25)
#define ROCE_K_CNP		(1u << 26)	/* a CNP: its reserved bytes */

/* FETH (IBA 1.5 A19.4): placement type and selectivity level. */
#define ROCE_FETH_PLT_MASK	0x0fu
#define ROCE_FETH_SEL_MASK	0x30u
#define ROCE_FETH_SEL_SHIFT	4

/* A UC opcode is the RC opcode of the same packet, this bit set. */
#define ROCE_UC_BASE		0x20
/*
 * An XRC opcode is the RC opcode of the same packet | ROCE_XRC_BASE: its
 * low ROCE_OP_MASK bits say which packet of RC, UC or XRC it is.
 */
#define ROCE_XRC_BASE		0xa0
#define ROCE_OP_MASK		0x1f
/* XRCETH (IBA A14.3.1): bits 31:24 reserved, 23:0 the XRC SRQ number. */
#define ROCE_XRCETH_SRQ_MASK	0xffffffu

/**
 * struct roce_opinfo - one row of the opcode table
 * @name: as in IBA, for logs
 * @flags: ROCE_H_* and ROCE_K_*
 * @ext_len: bytes of extension headers between the BTH and the payload
 */
struct roce_opinfo {
	const char *name;
	uint32_t flags;
	uint8_t ext_len;
};

/* The table row for @opcode, or NULL for an opcode ORCA does not speak. */
const struct roce_opinfo *roce_opinfo(uint8_t opcode);

/* AETH syndromes (IBA 9.7.5.1.1): the top 3 bits say ACK, RNR NAK or NAK. */
#define ROCE_AETH_TYPE_MASK	0x60
#define ROCE_AETH_ACK		0x00	/* | credit count, 0x1f: invalid */
#define ROCE_AETH_RNR_NAK	0x20	/* | RNR timer code */
#define ROCE_AETH_NAK		0x60	/* | ROCE_NAK_* */
#define ROCE_AETH_ACK_NO_CREDIT	0x1f
#define ROCE_NAK_PSN_SEQ	0x00
#define ROCE_NAK_INVALID_REQ	0x01
#define ROCE_NAK_REMOTE_ACCESS	0x02
#define ROCE_NAK_REMOTE_OP	0x03
#define ROCE_NAK_INVALID_RD_REQ	0x04

/**
 * struct roce_pkt - a RoCEv2 packet's fields, host byte order
 *
 * Addresses are GIDs; an IPv4 address is the IPv4-mapped GID
 * ::ffff:a.b.c.d.  The builder reads every field the opcode's headers
 * need; the parser fills them all (absent headers read as 0).
 *
 * @dmac, @smac: Ethernet addresses
 * @vlan: 802.1Q TCI, or ROCE_NO_VLAN for an untagged frame
 * @ipv6: IPv6 (else IPv4) network header
 * @sgid, @dgid: IP source and destination as GIDs
 * @traffic_class: IPv4 TOS / IPv6 traffic class
 * @hop_limit: IPv4 TTL / IPv6 hop limit
 * @flow_label: IPv6 flow label (20 bits)
 * @udp_sport: UDP source port (the builder uses roce_udp_sport(src qpn))
 * @opcode .. @psn: BTH fields; @pad is the parser's pad count
 * @reth_va, @reth_rkey, @reth_len: RETH
 * @aeth_syndrome, @aeth_msn: AETH
 * @atm_va, @atm_rkey, @atm_swap, @atm_cmp: AtomicETH (swap/add data first)
 * @atm_orig: AtomicAckETH, the original remote data
 * @imm: ImmDt, the 4 wire bytes read big endian
 * @ieth_rkey: IETH
 * @feth_plt, @feth_sel: FETH placement type and selectivity level
 * @deth_qkey, @deth_sqpn: DETH
 * @xrc_srqn: XRCETH, the XRC SRQ number (24 bits; the reserved bits are
 *	written 0 and ignored on receipt, IBA's rule for reserved fields)
 * @payload, @paylen: payload (parser: points into the frame)
 * @l3, @l3_hdr_len: parser: the IP header in the frame (UD receive copies
 *	it into the GRH area)
 */
struct roce_pkt {
	uint8_t dmac[6];
	uint8_t smac[6];
	uint16_t vlan;
	bool ipv6;
	uint8_t sgid[16];
	uint8_t dgid[16];
	uint8_t traffic_class;
	uint8_t hop_limit;
	uint32_t flow_label;
	uint16_t udp_sport;

	uint8_t opcode;
	bool solicited;
	bool mig_req;
	uint8_t pad;
	uint16_t pkey;
	bool fecn, becn;
	uint32_t dest_qpn;
	bool ack_req;
	bool rxe_flush_icrc;	/* an RC FLUSH with rxe's ICRC (roce_parse()) */
	uint32_t psn;

	uint64_t reth_va;
	uint32_t reth_rkey;
	uint32_t reth_len;
	uint8_t aeth_syndrome;
	uint32_t aeth_msn;
	uint64_t atm_va;
	uint32_t atm_rkey;
	uint64_t atm_swap;
	uint64_t atm_cmp;
	uint64_t atm_orig;
	uint32_t imm;
	uint32_t ieth_rkey;
	uint8_t feth_plt;
	uint8_t feth_sel;
	uint32_t deth_qkey;
	uint32_t deth_sqpn;
	uint32_t xrc_srqn;

	const uint8_t *payload;
	uint32_t paylen;
	const uint8_t *l3;
	uint16_t l3_hdr_len;
};

/* Why the parser dropped a frame; index into struct roce_rx_drops. */
enum roce_rx_err {
	ROCE_RX_OK = 0,
	ROCE_RX_TRUNCATED,	/* a header or length field runs past the end */
	ROCE_RX_NOT_ROCE,	/* not IP / not UDP / not port 4791 */
	ROCE_RX_BAD_IP,		/* version, header length, fragment, lengths */
	ROCE_RX_BAD_IP_CSUM,
	ROCE_RX_BAD_UDP,	/* UDP length disagrees with IP */
	ROCE_RX_BAD_UDP_CSUM,	/* a non-zero UDP checksum that is wrong */
	ROCE_RX_BAD_BTH,	/* unknown opcode, TVer != 0 */
	ROCE_RX_BAD_LEN,	/* pad/payload do not fit the opcode */
	ROCE_RX_BAD_ICRC,
	ROCE_RX_NERR
};

struct roce_rx_drops {
	uint64_t err[ROCE_RX_NERR];
};

const char *roce_rx_err_name(enum roce_rx_err err);

/**
 * struct roce_frame_hdrs - where a RoCEv2 frame's headers are
 * @vlan: 802.1Q TCI, or ROCE_NO_VLAN for an untagged frame
 * @ipv6: IPv6 (else IPv4) network header
 * @l3_off: offset of the IP header in the frame
 * @l3_hdr_len: IP header length (IPv4 with options included)
 * @udp_off: offset of the UDP header (@l3_off + @l3_hdr_len)
 */
struct roce_frame_hdrs {
	uint16_t vlan;
	bool ipv6;
	uint16_t l3_off;
	uint16_t l3_hdr_len;
	uint16_t udp_off;
};

/*
 * The one answer to "is this a RoCEv2 frame?", for the port (which frames
 * go to the engine rather than to virtio-net), the parser (which starts
 * from it) and the wire switch (which frames its RC faults hit), so no
 * frame is RoCE to one and foreign to another.
 *
 * A RoCEv2 frame is Ethernet, untagged or with exactly one 802.1Q (0x8100)
 * tag, then IPv4 (not a fragment) or IPv6 (no extension headers), then
 * UDP to port 4791, with the UDP header inside the frame.  The VLAN rule
 * is what rxe speaks: rxe itself sends untagged frames, and rxe on a VLAN
 * netdev sends one 802.1Q tag, which is also all the builder writes.  An
 * 802.1ad (0x88a8) tag or stacked tags are not ours.
 *
 * Returns ROCE_RX_OK and fills @h, or ROCE_RX_NOT_ROCE, ROCE_RX_BAD_IP or
 * ROCE_RX_TRUNCATED (as roce_parse() would).  Only identifies the frame:
 * lengths, checksums and the BTH are roce_parse()'s business.  Never reads
 * outside [frame, frame + len).
 */
enum roce_rx_err roce_classify(const uint8_t *frame, size_t len,
			       struct roce_frame_hdrs *h);

/*
 * Parses @frame (Ethernet header first, no FCS; trailing Ethernet padding
 * allowed) into @pkt.  Returns ROCE_RX_OK, or the reason the frame must be
 * dropped; on failure @pkt holds nothing useful.  Never reads outside
 * [frame, frame + len).
 */
enum roce_rx_err roce_parse(const uint8_t *frame, size_t len,
			    struct roce_pkt *pkt);

/* Stable UDP source port for a QP: 0xC000 | 14 bits of hash(qpn). */
uint16_t roce_udp_sport(uint32_t qpn);

/* Bytes from the start of the frame to the payload for @pkt's opcode. */
size_t roce_hdr_len(const struct roce_pkt *pkt);

/*
 * Frame length the builder produces for @pkt (headers, payload, pad, ICRC,
 * then Ethernet padding up to ROCE_ETH_MIN_FRAME).
 */
size_t roce_frame_len(const struct roce_pkt *pkt);

/*
 * Two-step build, for callers that gather the payload straight into the
 * frame: roce_build_hdrs() writes every header (returns the header length,
 * or 0 when @cap cannot hold roce_frame_len() or the opcode is unknown);
 * the caller puts pkt->paylen bytes at frame + header length; then
 * roce_build_finish() writes pad, ICRC and Ethernet padding and returns the
 * frame length.
 */
size_t roce_build_hdrs(uint8_t *frame, size_t cap, const struct roce_pkt *pkt);
size_t roce_build_finish(uint8_t *frame, const struct roce_pkt *pkt);

/* One-step build copying pkt->payload; returns frame length or 0. */
size_t roce_build(uint8_t *frame, size_t cap, const struct roce_pkt *pkt);

/* GID helpers. */
bool roce_gid_is_v4(const uint8_t gid[16]);
void roce_gid_from_v4(uint8_t gid[16], const uint8_t ip[4]);

/* PSN arithmetic modulo 2^24: negative when @a is before @b. */
static inline int32_t roce_psn_diff(uint32_t a, uint32_t b)
{
	return (int32_t)((a - b) << 8) >> 8;
}

#endif /* ORCA_EMU_ROCE_WIRE_H */

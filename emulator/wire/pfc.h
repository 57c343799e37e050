/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Priority flow control (IEEE 802.1Qbb, issue 33): the frame, and the
 * switch's decision of when to send one.
 *
 * A PFC frame is a MAC Control frame (EtherType 0x8808, opcode 0x0101) to
 * 01:80:C2:00:00:01: a class-enable vector and, for each of the eight
 * priorities it enables, a pause time in quanta of 512 bit times at the
 * link's rate (0: resume now).  A MAC consumes it: it never reaches a
 * host's stack.  Here a priority is a traffic class: the IP DSCP's top
 * three bits, as the switch's egress queues classify (egress.h).
 *
 * The switch accounts, per ingress port and class, the bytes of that
 * port's frames its lossless queues hold (an ingress buffer, as switches
 * keep one).  Above xoff bytes it pauses the port for that class (the
 * longest pause, 0xffff quanta) and sends the pause again before it runs
 * out while the bytes stay above xon; at or below xon it sends a resume.
 */
#ifndef ORCA_EMU_PFC_H
#define ORCA_EMU_PFC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PFC_PRIOS		8
#define PFC_ETHERTYPE		0x8808
#define PFC_OPCODE		0x0101
#define PFC_FRAME_LEN		60	/* the minimum frame, without FCS */
#define PFC_QUANTA_MAX		0xffff
#define PFC_QUANTUM_BITS	512

/*
 * Build a PFC frame from @smac in @buf (PFC_FRAME_LEN bytes): @enable's
 * bit p carries @quanta[p].  Returns PFC_FRAME_LEN.
 */
size_t pfc_frame_build(uint8_t *buf, const uint8_t smac[6], uint8_t enable,
		       const uint16_t quanta[PFC_PRIOS]);

/*
 * True if @f is a MAC Control frame (EtherType 0x8808, untagged): the
 * port's MAC takes it, whatever its opcode.
 */
bool pfc_is_mac_control(const uint8_t *f, size_t len);

/*
 * True if @f is a well-formed PFC frame; then *enable and @quanta (each
 * enabled priority's pause time) are set.
 */
bool pfc_frame_parse(const uint8_t *f, size_t len, uint8_t *enable,
		     uint16_t quanta[PFC_PRIOS]);

/* @quanta pause quanta at @rate_mbps, in nanoseconds. */
uint64_t pfc_quanta_ns(uint16_t quanta, uint32_t rate_mbps);

/**
 * struct pfc_cfg - the switch's PFC
 * @lossless: classes (bit c: class c) that pause instead of dropping
 * @xoff: an ingress port's bytes of a class above which it is paused
 * @xon: at or below which it is resumed
 * @storm_ms: a lossless queue that sends nothing this long is a storm
 *	(the watchdog flushes it; 0: no watchdog)
 */
struct pfc_cfg {
	uint8_t lossless;
	uint32_t xoff;
	uint32_t xon;
	uint32_t storm_ms;
};

/**
 * struct pfc_ingress - one ingress port's PFC state
 * @bytes: per class, the bytes of this port's frames in lossless queues
 * @paused: classes this port was last told to pause
 * @sent_ns: per class, when the last pause went out
 * @xoff_tx: pause (XOFF) frames' class entries sent
 * @xon_tx: resume (XON) entries sent
 */
struct pfc_ingress {
	uint32_t bytes[PFC_PRIOS];
	uint8_t paused;
	uint64_t sent_ns[PFC_PRIOS];
	uint64_t xoff_tx;
	uint64_t xon_tx;
};

/*
 * What @in should be told at @now_ns over a link of @rate_mbps: the
 * classes to put in a PFC frame now (0: none), with @quanta set for them
 * (PFC_QUANTA_MAX to pause, 0 to resume); @in's state and counters move
 * as if the frame was sent.  *next_ns: when to ask again at the latest
 * (a pause to refresh), untouched if nothing is paused.
 */
uint8_t pfc_due(const struct pfc_cfg *cfg, struct pfc_ingress *in,
		uint64_t now_ns, uint32_t rate_mbps,
		uint16_t quanta[PFC_PRIOS], uint64_t *next_ns);

#endif /* ORCA_EMU_PFC_H */

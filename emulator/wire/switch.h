/* SPDX-License-Identifier: GPL-2.0 */
/*
 * orca-wire's own state (wire_switch.c, the switch; switch_pfc.c, its
 * PFC; switch_args.c, its options): private to the switch program, which
 * neither the emulator nor the tests link.
 */
#ifndef ORCA_WIRE_SWITCH_H
#define ORCA_WIRE_SWITCH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "egress.h"
#include "link_policy.h"
#include "pfc.h"
#include "uplink.h"
#include "wire_link.h"

#define MAX_FRAME		9018
#define PCAP_MAX_SNAPLEN	65535
#define MAX_PORTS		64
#define MAX_MACS		1024
#define HOLD_MS			100	/* a reordered frame waits at most */
#define BTH_OPCODE_TRANSPORT	0xe0	/* top three bits: RC is 000 */
#define RING_BATCH		64	/* frames per input per round */
#define RING_PFDS		5	/* poll entries per ring port */
#define DGRAM_BATCH		16
#define STALL_LOG_LINES		20	/* per port; then only counted */
#define EGRESS_QUEUE_DEFAULT	(256u << 10)	/* --link-rate's class queues */
#define PFC_STORM_MS_DEFAULT	2000	/* --pfc's watchdog */
#define MAX_PORT_RATES		16	/* --port-rate options */

/**
 * struct wire_port - a switch port
 * @addr: the client's socket address (its name, for a shared-memory port)
 * @ls: the full-peer policy state of sends to it
 * @shm: its shared-memory link, NULL for a datagram client
 * @tx_fd: a datagram client's send socket, connected to it; -1: none yet
 * @want_out: a frame waits for room in this datagram client's queue
 * @in_blocked: an input's oldest frame waits for room elsewhere (up,
 *	roce_up)
 * @hung_up: its control socket said the adapter has gone
 * @longest_full_ms: the longest a datagram client's queue stayed full
 *	before it took a frame again (how close a live guest came to being
 *	given up on)
 * @stall_logs: stall lines logged for it (at most STALL_LOG_LINES)
 * @eg: with --link-rate, its egress (egress.h): the queues a frame for it
 *	waits in, and the rate it leaves them at
 * @pfc: with --pfc, its frames in lossless queues and its pause state
 * @eg_cfg: its egress's configuration: the switch's, at its own rate if
 *	--port-rate names it
 * @in_bucket: with --link-rate, an adapter's frames enter at its link's
 *	rate (its up and roce_up rings share the link), not as fast as the
 *	engine built them: a switch thread that was not scheduled for a while
 *	would otherwise move what the rings gathered meanwhile into a queue
 *	at once, a burst no link could deliver
 */
struct wire_port {
	struct sockaddr_un addr;
	socklen_t addr_len;
	struct link_state ls;
	uint64_t longest_full_ms;
	unsigned int stall_logs;
	struct wire_link *shm;
	int tx_fd;
	bool want_out;
	bool in_blocked[2];
	bool hung_up;
	bool used;
	struct egress eg;		/* --link-rate: its queues and rate */
	struct egress_cfg eg_cfg;	/* eg's: --link-rate or its --port-rate */
	struct token_bucket in_bucket;	/* --link-rate: its input's */
	struct pfc_ingress pfc;		/* --pfc: as an ingress port */
};

struct mac_entry {
	uint8_t mac[6];
	int port;
};

/*
 * A frame being switched: in a ring, or in one of the switch's buffers.
 * @roce: a RoCEv2 frame (frame_is_roce()): a ring port takes it in its
 * engine's ring, roce_down, and every other frame in down.
 */
struct frame {
	const uint8_t *data;
	size_t len;
	int src_port;
	bool roce;
};

struct wire_stats {
	uint64_t received;
	uint64_t forwarded;
	uint64_t flooded;
	uint64_t copies_sent;
	uint64_t send_errors;		/* RoCE frames a QEMU did not take */
	uint64_t not_roce_dropped;	/* its other frames: not the RDMA wire */
	uint64_t departed_dropped;	/* RoCE frames to a QEMU that exited */
	uint64_t stall_dropped;		/* to an adapter that stopped draining */
	uint64_t backpressured;		/* tries that found no room: held back */
	uint64_t invalid;
	uint64_t fault_dropped;
	uint64_t fault_reordered;
	uint64_t isolated;		/* --isolate: not forwarded at all */
	struct egress_stats eg;		/* --link-rate: of ports gone */
	uint64_t pfc_frames;		/* PFC frames sent */
	uint64_t pfc_xoff;		/* pause entries in them */
	uint64_t pfc_xon;		/* resume entries */
	uint64_t pfc_storms;		/* lossless queues the watchdog flushed */
	uint64_t link_local;		/* to 01:80:C2:00:00:0x: not forwarded */
	uint64_t uplink_rx;		/* frames the uplink's interface gave */
	uint64_t uplink_tx;		/* frames sent out on it */
	uint64_t uplink_dropped;	/* its queue was full, or an error */
};

struct wire {
	int fd;
	const char *path;
	FILE *pcap;
	uint32_t snaplen;
	FILE *log;
	unsigned int drop_pct;
	unsigned int reorder_pct;
	bool faults_rc_only;
	bool isolate;
	struct egress_cfg eg_cfg;	/* rate_mbps 0: no egress model */
	struct pfc_cfg pfc;		/* lossless 0: no PFC */
	/* --port-rate WHO=MBPS: a client's socket path, or "uplink" */
	struct {
		const char *who;
		uint32_t mbps;
	} port_rate[MAX_PORT_RATES];
	int nr_port_rates;
	uint64_t eg_wait_ns;		/* the next queued frame's tokens */
	uint64_t in_wait_ns;		/* the next input frame's, this round */
	int first_port;			/* switch_round() starts there */
	/* wire_link_policy_qemu, its wait scaled */
	struct link_policy qemu_policy;
	uint64_t rng;
	struct wire_port ports[MAX_PORTS];
	struct mac_entry macs[MAX_MACS];
	int nr_macs;
	struct frame held;
	uint8_t held_buf[MAX_FRAME];
	bool has_held;
	uint64_t held_since_ms;
	struct frame dgram_in;		/* from the datagram socket */
	/* --uplink: its port (-1: none), a frame waiting for room */
	struct uplink uplink;
	int uplink_port;
	struct frame uplink_in;
	uint8_t uplink_buf[MAX_FRAME];
	bool uplink_pending;
	uint8_t dgram_buf[MAX_FRAME];
	bool dgram_pending;		/* dgram_in waits for room */
	struct wire_stats st;
};

/* wire_switch.c: a log line; a copy of @f out of @port (counted). */
void wlog(struct wire *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void send_copy(struct wire *w, int port, const struct frame *f);

/*
 * switch_pfc.c (--pfc): a queued frame leaves its ingress port's account;
 * @port's egress drops what it holds (out of the accounts), or ingress
 * port @port has gone (its frames queued elsewhere are no one's to pause
 * for); and the round's PFC frames and watchdog.
 */
void sw_pfc_unaccount(struct wire *w, const struct egress_frame *f);
void sw_pfc_forget_queued(struct wire *w, int port);
void sw_pfc_forget_ingress(struct wire *w, int port);
void sw_pfc_round(struct wire *w);

/*
 * switch_args.c: the command line into @w (a usage message and exit 2 on
 * anything wrong); @pcap, @logfile and @uplink the files and interface
 * named, or left NULL.
 */
void parse_args(struct wire *w, int argc, char **argv, const char **pcap,
		const char **logfile, const char **uplink);

#endif /* ORCA_WIRE_SWITCH_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The adapter's Ethernet port.  Like a converged NIC, the RoCE port owns the
 * wire: frames from the guest's virtio-net backend (a QEMU "-netdev dgram"
 * unix socket) go out to the wire switch, and frames from the wire go to
 * virtio-net unless they are RoCEv2 frames (by roce_classify(), the
 * parser's own test: UDP destination port 4791, untagged or one 802.1Q
 * tag) for our MAC or broadcast/multicast, which go to the RDMA engine.
 *
 * The port/ layer's interface: main.c starts the port and glues it to the
 * engine (engine.h's RoCE port side) with what this header declares.
 */
#ifndef ORCA_EMU_PORT_H
#define ORCA_EMU_PORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct emu_port;

/*
 * Called on the port thread for each RoCEv2 frame addressed to this port.
 * False: the receiver is full and did not take it.  The port then keeps
 * the frame and takes nothing more from the wire (backpressure: the
 * switch's ring to us fills up) until port_roce_rx_ready() is called, or
 * PORT_RX_RETRY_MS have passed, and offers it again.
 */
typedef bool (*port_roce_rx_fn)(void *ctx, const uint8_t *frame, size_t len);

#define PORT_RX_RETRY_MS	100
#define PORT_PEER_TIMEOUT_MS	10000

/**
 * struct emu_port_config - where the port's two sides are
 * @nic_path: unix datagram socket the emulator binds for virtio-net
 * @nic_peer: QEMU's side of that link (its -netdev dgram local path)
 * @wire_path: unix datagram socket the emulator binds on the wire side
 * @switch_path: the wire switch's socket; NULL: no wire (frames dropped)
 * @wire_shm: attach to the switch with a shared-memory link (wire_link.h):
 *	no loss while the switch is alive, backpressure instead; if the
 *	switch does not take it, the wire stays a datagram socket
 * @wire_peer: no switch: @switch_path is another adapter's port (its
 *	@wire_path, and ours its @switch_path), joined to this one by a
 *	point-to-point shared-memory link (wire_link.h), which each engine's
 *	RoCE lane and each guest's frames cross with no process between the
 *	two adapters.  port_start() waits up to PORT_PEER_TIMEOUT_MS for the
 *	peer and fails without it: there is no datagram fallback.
 * @mac: the port's MAC (also the virtio-net MAC)
 */
struct emu_port_config {
	const char *nic_path;
	const char *nic_peer;
	const char *wire_path;
	const char *switch_path;
	bool wire_shm;
	bool wire_peer;
	uint8_t mac[6];
	/*
	 * With port_send_roce_nowait(): called (port thread, with the rx
	 * callback's ctx) when the link may have room again.
	 */
	void (*tx_ready)(void *ctx);
	/*
	 * @roce_lane: on a shared-memory wire, the RoCEv2 frames for this
	 * port are not given to the rx callback: the engine takes them in
	 * place from the switch's ring, on its own thread (port_roce_peek(),
	 * port_roce_pop()), with no port thread between the two.  Before it
	 * sleeps it asks for a kick (port_roce_want()), which comes on
	 * port_roce_rx_fd(): the engine polls that itself.  Ignored on
	 * datagrams.
	 */
	bool roce_lane;
	/*
	 * @pfc_pause: a PFC frame (802.1Qbb, wire/pfc.h) came from the wire:
	 * called on the port thread, with the rx callback's ctx, with the
	 * priorities it names (bit p: priority p) and each one's pause in
	 * ns (0: resume now), converted at the link's rate (the switch's
	 * announcement; 100 Gb/s without one).  A MAC Control frame never
	 * reaches the guest.
	 */
	void (*pfc_pause)(void *ctx, uint8_t enable, const uint64_t *pause_ns);
};

#define PORT_DEFAULT_RATE_MBPS	100000

struct emu_port_stats {
	uint64_t nic_to_wire;
	uint64_t wire_to_nic;
	uint64_t roce_rx;
	uint64_t roce_tx;
	uint64_t dropped;		/* any reason, bad_src_mac included */
	uint64_t bad_src_mac;		/* not from the port's MAC: dropped */
	/*
	 * For the guest, which did not take them (its driver not up yet, the
	 * guest gone, or stalled): dropped.
	 */
	uint64_t to_nic_dropped;
	uint64_t drop_to_wire;		/* the switch gone or stalled */
	uint64_t rx_held;		/* the receiver was full: kept, later */
	uint64_t pfc_rx;		/* PFC frames taken (802.1Qbb) */
	uint64_t mac_control_rx;	/* other MAC Control frames: consumed */
	/*
	 * Wake-ups the engine's frames cost the RoCE ring's consumer (the
	 * switch's thread, or the peer's engine on a point-to-point link):
	 * eventfd writes for a consumer that had gone to sleep.
	 */
	uint64_t roce_tx_kicks;
};

/* Binds the sockets and starts the port thread; NULL + errno on failure. */
struct emu_port *port_start(const struct emu_port_config *cfg,
			    port_roce_rx_fn rx, void *ctx);
void port_stop(struct emu_port *port);
/*
 * Send a frame the engine built to the wire; thread safe.  -EPERM (and
 * counted) if its source MAC is not the port's.  On a shared-memory wire
 * it waits while the switch's ring is full (backpressure), giving up only
 * on a switch that has gone or stopped draining for seconds.
 */
int port_send_roce(struct emu_port *port, const uint8_t *frame, size_t len);
/*
 * Like port_send_roce(), but never waits: -EBUSY if the wire has no room
 * now (the shared-memory ring is full, or the datagram switch's queue is,
 * for less than wire_link_policy_dgram.wait_ms), and the frame was not taken;
 * cfg->tx_ready is called when there may be room (on a datagram wire,
 * which tells nothing, a millisecond later).  Other errors, a peer full
 * for longer included: dropped and counted (dropped, drop_to_wire).
 */
int port_send_roce_nowait(struct emu_port *port, const uint8_t *frame,
			  size_t len);
/*
 * A RoCE frame built in place, on a shared-memory wire (the copy that
 * port_send_roce_nowait() makes is the one this saves):
 * port_roce_tx_slot() reserves the next slot of the port's RoCE ring and
 * returns its bytes (*cap of them), or NULL if the wire is no
 * shared-memory link, is gone, or the ring is full (send the frame with
 * port_send_roce_nowait(), which waits for room the usual way).  Until the
 * frame is committed or the slot given back, the port's send lock is held:
 * no other RoCE frame of this port can be sent meanwhile.
 * port_roce_tx_commit() checks and sends the LEN bytes built there (as
 * port_send_roce_nowait() checks a frame: its length and source MAC;
 * -EINVAL, -EPERM and counted if wrong); port_roce_tx_abort() sends nothing.
 */
uint8_t *port_roce_tx_slot(struct emu_port *port, size_t *cap);
int port_roce_tx_commit(struct emu_port *port, size_t len);
void port_roce_tx_abort(struct emu_port *port);
/* The rx callback has room again (any thread). */
void port_roce_rx_ready(struct emu_port *port);
void port_get_stats(struct emu_port *port, struct emu_port_stats *st);
/*
 * The link's rate in Mb/s as the switch announced it when the port
 * attached (orca-wire --link-rate), 0 if none (no model, a datagram wire,
 * a point-to-point link).
 */
uint32_t port_link_rate(struct emu_port *port);
/* True if the wire is a shared-memory link (the switch took it). */
bool port_wire_is_shm(struct emu_port *port);
/* True if the engine reads RoCEv2 frames from its lane (roce_lane). */
bool port_has_roce_lane(struct emu_port *port);
/*
 * The lane, for its one consumer (the engine thread): the oldest RoCEv2
 * frame for this port, in place and valid until port_roce_pop(), or NULL;
 * port_roce_want() asks for a kick when one comes, true if one came
 * meanwhile (do not sleep then).  The kick makes port_roce_rx_fd() (an
 * eventfd, open while the port is; -1 without a lane) readable; its
 * reader clears it.
 */
const uint8_t *port_roce_peek(struct emu_port *port, size_t *len);
void port_roce_pop(struct emu_port *port);
bool port_roce_want(struct emu_port *port);
int port_roce_rx_fd(struct emu_port *port);
/*
 * The lane's burst hint (frame_ring.h: wire_frame_ring_set_busy()):
 * port_roce_tx_busy() says whether this engine sends more frames soon,
 * port_roce_peer_busy() whether the producer of the lane does.  Both are
 * for the engine thread; without a shared-memory link they do nothing
 * and say false.
 */
void port_roce_tx_busy(struct emu_port *port, bool busy);
bool port_roce_peer_busy(struct emu_port *port);

#endif /* ORCA_EMU_PORT_H */

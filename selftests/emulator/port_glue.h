/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An engine and its port glued together as orca-emu's main.c glues them,
 * for the tests and benches that run both natively: the port's callbacks
 * take the engine as their context, the engine's take the port.
 *
 *   port_glue_config(&pc, lane);	before port_start(&pc, glue_port_rx, eng)
 *   port_glue_link(&link, port, lane);	then engine_set_roce_link(eng, &link)
 *
 * @lane: the RoCE lane (port.h): the engine reads the switch's ring to it
 * itself, as in orca-emu; without it, frames reach the engine through the
 * port thread and engine_roce_rx_try(), as on a datagram wire.
 */
#ifndef ORCA_TEST_PORT_GLUE_H
#define ORCA_TEST_PORT_GLUE_H

#include <stdio.h>
#include <string.h>

#include "engine/engine.h"
#include "port/port.h"

/* The port's side: the engine is the context. */
static inline bool glue_port_rx(void *eng, const uint8_t *frame, size_t len)
{
	return engine_roce_rx_try(eng, frame, len);
}

static inline void glue_tx_ready(void *eng)
{
	engine_roce_tx_ready(eng);
}

/* The engine's side: the port is the context. */
static inline int glue_tx(void *port, const uint8_t *frame, size_t len)
{
	return port_send_roce_nowait(port, frame, len);
}

static inline uint8_t *glue_tx_slot(void *port, size_t *cap)
{
	return port_roce_tx_slot(port, cap);
}

static inline int glue_tx_commit(void *port, size_t len)
{
	return port_roce_tx_commit(port, len);
}

static inline void glue_tx_abort(void *port)
{
	port_roce_tx_abort(port);
}

static inline void glue_rx_ready(void *port)
{
	port_roce_rx_ready(port);
}

static inline const uint8_t *glue_peek(void *port, size_t *len)
{
	return port_roce_peek(port, len);
}

static inline void glue_pop(void *port)
{
	port_roce_pop(port);
}

static inline bool glue_want(void *port)
{
	return port_roce_want(port);
}

static inline void glue_tx_busy(void *port, bool busy)
{
	port_roce_tx_busy(port, busy);
}

static inline bool glue_rx_busy(void *port)
{
	return port_roce_peer_busy(port);
}

/* A PFC frame's pauses, from the port's thread to the engine. */
static inline void glue_pfc_pause(void *eng, uint8_t enable,
				  const uint64_t *pause_ns)
{
	engine_pfc_pause(eng, enable, pause_ns);
}

static inline void port_glue_config(struct emu_port_config *pc, bool lane)
{
	pc->wire_shm = true;
	pc->tx_ready = glue_tx_ready;
	pc->pfc_pause = glue_pfc_pause;
	pc->roce_lane = lane;
}

static inline void port_glue_link(struct engine_roce_link *link,
				  struct emu_port *port, bool lane)
{
	*link = (struct engine_roce_link){
		.tx = glue_tx, .tx_slot = glue_tx_slot,
		.tx_commit = glue_tx_commit, .tx_abort = glue_tx_abort,
		.rx_ready = glue_rx_ready, .tx_busy = glue_tx_busy,
		.ctx = port,
	};
	if (lane) {
		link->rx_peek = glue_peek;
		link->rx_pop = glue_pop;
		link->rx_want = glue_want;
		link->rx_busy = glue_rx_busy;
		link->rx_fd = port_roce_rx_fd(port);
	}
}

/* The broadcast a port says hello with: the switch learns its MAC. */
static inline void glue_say_hello(struct emu_port *port, const uint8_t mac[6])
{
	uint8_t hello[60] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

	memcpy(hello + 6, mac, 6);
	hello[12] = 0x88;
	hello[13] = 0xb5;		/* local experimental */
	port_send_roce(port, hello, sizeof(hello));
}

/*
 * An engine's port on the switch at @switch_path, its sockets named in
 * @dir after @id, glued to the engine and introduced to the switch (a
 * guest's ARP does that in real life); NULL if it did not start.
 */
static inline struct emu_port *glue_port_up(struct orca_engine *eng,
					    const uint8_t mac[6],
					    const char *dir, int id,
					    const char *switch_path, bool lane)
{
	char nic[128], peer[128], wire[128];
	struct emu_port_config pc = {
		.nic_path = nic, .nic_peer = peer, .wire_path = wire,
		.switch_path = switch_path,
	};
	struct engine_roce_link link;
	struct emu_port *port;

	snprintf(nic, sizeof(nic), "%s/nic%d", dir, id);
	snprintf(peer, sizeof(peer), "%s/qemu%d", dir, id);
	snprintf(wire, sizeof(wire), "%s/wire%d", dir, id);
	memcpy(pc.mac, mac, 6);
	port_glue_config(&pc, lane);
	port = port_start(&pc, glue_port_rx, eng);
	if (port) {
		glue_say_hello(port, mac);
		port_glue_link(&link, port, lane);
		engine_set_roce_link(eng, &link);
		engine_set_line_rate(eng, port_link_rate(port));
	}
	return port;
}

/* Removes the sockets glue_port_up() made in @dir for ids @first..@last. */
static inline void glue_ports_unlink(const char *dir, int first, int last)
{
	char path[128];

	for (int id = first; id <= last; id++) {
		snprintf(path, sizeof(path), "%s/nic%d", dir, id);
		unlink(path);
		snprintf(path, sizeof(path), "%s/wire%d", dir, id);
		unlink(path);
	}
}

#endif /* ORCA_TEST_PORT_GLUE_H */

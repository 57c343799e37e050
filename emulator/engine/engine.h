/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The engine's interface: what the layers above it may call.  The boundary
 * between the adapter's transport shell (vfio-user server, PCI config
 * space, BAR dispatch, DMA mappings, MSI-X eventfds: vfio/, main.c) and its
 * engine (register file, firmware command queue, command handlers, event
 * queues, resource tables: engine/), and the port's way in and out of the
 * RoCEv2 transport.
 *
 * The shell calls the engine on its socket thread and the engine must never
 * block it: register writes only record state and wake the engine thread.
 * The engine reaches guest memory and interrupts only through struct
 * emu_host, so unit tests can drive it with a fake host.
 */
#ifndef ORCA_EMU_ENGINE_H
#define ORCA_EMU_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/**
 * struct emu_host_ops - services the shell gives the engine
 * @dma_begin: start a unit of DMA work; mappings stay valid until dma_end
 * @dma_end: end it; a pending DMA_UNMAP may complete afterwards
 * @dma_ptr: translate [addr, addr + len) of guest memory to a pointer, or
 *	NULL if any byte of it is not mapped (a DMA error for the engine).
 *	Only valid between dma_begin and dma_end.
 * @irq_raise: signal MSI-X vector @vector (no-op if the guest assigned none)
 */
struct emu_host_ops {
	void (*dma_begin)(void *host);
	void (*dma_end)(void *host);
	void *(*dma_ptr)(void *host, uint64_t addr, size_t len);
	void (*irq_raise)(void *host, unsigned int vector);
};

struct emu_host {
	const struct emu_host_ops *ops;
	void *priv;
};

/* Port identity and limits the engine reports (from the command line). */
struct emu_config {
	uint8_t mac[6];
	uint32_t eth_mtu;		/* initial Ethernet MTU, default 1500 */
	unsigned int num_msix;		/* vectors advertised, <= ORCA_MAX_MSIX */
};

struct orca_engine;

/* Creates the engine and starts its thread; NULL on allocation failure. */
struct orca_engine *engine_create(const struct emu_host *host,
				  const struct emu_config *cfg);
/* Stops the thread and frees everything. */
void engine_destroy(struct orca_engine *eng);

/* BAR 0 accesses (socket thread; never block). @off is 4-byte aligned. */
uint32_t engine_reg_read(struct orca_engine *eng, uint32_t off);
void engine_reg_write(struct orca_engine *eng, uint32_t off, uint32_t val);

/* BAR 4 (UAR doorbell page) writes (socket thread; never block). */
void engine_uar_write(struct orca_engine *eng, uint32_t uar, uint32_t off,
		      uint32_t val);

/*
 * Function-level reset (vfio-user DEVICE_RESET, or the guest's
 * ORCA_CTRL_RESET): drop every resource and return the register file to its
 * power-on state.  Waits for the engine thread to be idle; called on the
 * socket thread, which is acceptable because a reset has no deadline.
 */
void engine_reset(struct orca_engine *eng);

/* Port link state from the wire (true = up); posts a PORT_CHANGE event. */
void engine_set_link(struct orca_engine *eng, bool up);

/*
 * Fault injection for tests, set from the emulator's control file:
 *   "hang"           stops command processing, the data path and the
 *                    heartbeat (a dead firmware); a reset revives it
 *   "heartbeat-stop" freezes only the heartbeat register: commands and the
 *                    data path go on (a watchdog-only failure)
 *   "resume"         undoes "hang" and "heartbeat-stop"
 *   "fatal [SYN]"    raises a fatal error (DEVICE_FATAL on EQ 0) with
 *                    fatal syndrome SYN (default ORCA_FATAL_INTERNAL; any
 *                    non-zero 32-bit number, for tests to recognise)
 *   "slow MS"        every command completes no sooner than MS ms after it
 *                    became the next to run; registers, events and the data
 *                    path are not delayed ("slow 0": off)
 *   "garbage-eqe"    writes malformed entries (unknown types, out-of-range
 *                    numbers and tokens, valid phase) to every EQ
 *   "garbage-cqe"    writes malformed CQEs (unknown opcode and status,
 *                    out-of-range QPNs and WQE indexes, valid phase) to
 *                    every CQ
 *   "fail-destroy N" the next N DESTROY_CQ/QP/SRQ/MR commands fail with
 *                    ORCA_CMD_ST_INTERNAL and leave their object alive (a
 *                    firmware error: the driver must keep its memory)
 *   "dup-handle N"   the first CREATE_CQ, CREATE_QP (not GSI) and
 *                    CREATE_SRQ after the word run as usual; each of the
 *                    next N of those that finds that first object of its
 *                    kind still alive reports its handle instead of its
 *                    own (a firmware that hands out a handle twice): its
 *                    own object lives on, unknown to the driver
 *   "wrid-lie on"    every CQE written from now on carries the bitwise
 *                    complement of the WQE's wr_id (a device that lies
 *                    about the one value a consumer may use as a pointer);
 *                    "wrid-lie off" stops it and logs how many CQEs lied
 *   "odp-drop-faults N" the next N page faults (1.10) hold their slot but
 *                    write no record and post no event: only the fault
 *                    timeout ends them (a fault the driver never hears of)
 *   "odp-fault-timeout MS" page faults end unresolved after MS ms
 *                    (100 .. 30000) whatever SET_ODP said; 0: SET_ODP's
 *   "counts"         logs the live objects ("engine: objects: pd N ..."),
 *                    the DMA fence counters ("engine: dma: ...") and the
 *                    page faults ("engine: odp: outstanding N ...")
 * Garbage is only written where it leaves room: it never overflows a
 * queue and so never makes the device fatal by itself.
 * Returns 0 or -EINVAL for an unknown word or a bad argument.
 */
int engine_inject(struct orca_engine *eng, const char *what);

/*
 * The PCI command register's Bus Master Enable (pci.c calls this on every
 * config write of it).  A function starts with it clear.  While it is
 * clear the engine performs no DMA and raises no MSI-X (an MSI is a memory
 * write): each attempt is counted as blocked and fails as an unmapped
 * address would.
 */
void engine_set_bus_master(struct orca_engine *eng, bool on);

/**
 * struct engine_dma_fence - what the DMA fence saw
 * @blocked: DMA attempts (and interrupts) while Bus Master Enable was clear
 * @late: DMA performed after a "resume" revived work that the driver had
 *	given up and no reset had ended: DMA into memory the driver may have
 *	freed.  A driver that fences a dead adapter (clears bus mastering
 *	and resets it) before freeing keeps this at 0.
 */
struct engine_dma_fence {
	uint64_t blocked;
	uint64_t late;
};

void engine_dma_fence(struct orca_engine *eng, struct engine_dma_fence *out);

/*
 * The device memory budget: bytes that live objects hold and the limit
 * (EMU_MEM_BUDGET).  Engine-thread data: read it when the engine is idle.
 */
void engine_mem_usage(struct orca_engine *eng, uint64_t *used,
		      uint64_t *limit);

/*
 * Synchronous access for unit tests: run everything the engine thread has
 * pending and return when it is idle.
 */
void engine_flush(struct orca_engine *eng);

/*
 * The RoCEv2 port side (roce/roce_qp.c).  engine_roce_rx() queues a frame the
 * port received for this adapter (any thread; never blocks; drops and
 * counts when the queue is full).  engine_set_roce_tx() sets where the
 * engine sends frames (NULL: nowhere); @tx is called on the engine thread
 * and must not block, except for the wire's backpressure (a full link to
 * a live switch: port_send_roce() waits for room rather than drop).
 */
void engine_roce_rx(struct orca_engine *eng, const uint8_t *frame,
		    size_t len);
void engine_set_roce_tx(struct orca_engine *eng,
			void (*tx)(void *ctx, const uint8_t *frame,
				   size_t len),
			void *ctx);

/*
 * A lossless port (orca-emu's, on a shared-memory wire): backpressure both
 * ways instead of drops.
 *
 * engine_roce_rx_try() queues a received frame like engine_roce_rx(), but
 * a full queue refuses it (false) instead of dropping it: the port keeps
 * the frame, stops taking frames from its link (the switch sees its ring
 * fill up), and tries again when the engine, having drained the queue,
 * calls @rx_ready.  An adapter that is dead (hung, fatal) never drains:
 * its frames are dropped and counted (rx_dead), as on a dead NIC.
 *
 * @tx sends a frame the engine built: 0 (sent, or dropped by the port's
 * own policy), -EBUSY if the link has no room now, in which case the
 * frame was not taken and the port calls engine_roce_tx_ready() once it
 * has room.  The engine then keeps the frame, and those after it, in
 * order in a backlog and sends nothing new until they have gone; it
 * never waits in @tx, so it keeps draining its receive queue meanwhile.
 * @rx_ready and @tx are called on the engine thread; NULL @link detaches.
 *
 * A port with a RoCE lane (port.h's roce_lane) is read by the engine
 * itself: @rx_peek gives the oldest frame in place (NULL: none), valid
 * until @rx_pop; the engine processes it there, with no copy and no
 * thread between it and the wire.  @rx_want asks the port for a kick when
 * a frame comes (true: one came meanwhile), which the engine does before
 * it sleeps; the kick is a write to eventfd @rx_fd, which the sleeping
 * engine polls itself, so no other thread runs between a frame and the
 * engine; @rx_fd stays open until the link is replaced.  @rx_peek and
 * @rx_pop are called on the engine thread, @rx_want also by
 * engine_flush()'s caller.
 * A dead adapter drains its lane too, dropping (rx_dead).
 * Optional, on the engine thread: @tx_busy tells the link whether the
 * engine is in the middle of a burst, @rx_busy whether the lane's producer
 * is (frame_ring.h's hint); an engine that finds its lane empty while the
 * producer is busy looks again for a moment before it asks for a kick.
 */
struct engine_roce_link {
	int (*tx)(void *ctx, const uint8_t *frame, size_t len);
	/*
	 * Optional: a frame built in the link's own memory (port.h:
	 * port_roce_tx_slot()): tx_slot() gives room for one, or NULL (then
	 * tx() sends it); exactly one tx_commit() or tx_abort() follows a
	 * slot, and tx() is not called in between.
	 */
	uint8_t *(*tx_slot)(void *ctx, size_t *cap);
	int (*tx_commit)(void *ctx, size_t len);
	void (*tx_abort)(void *ctx);
	void (*rx_ready)(void *ctx);
	const uint8_t *(*rx_peek)(void *ctx, size_t *len);
	void (*rx_pop)(void *ctx);
	bool (*rx_want)(void *ctx);
	void (*tx_busy)(void *ctx, bool busy);
	bool (*rx_busy)(void *ctx);
	int rx_fd;
	void *ctx;
};

bool engine_roce_rx_try(struct orca_engine *eng, const uint8_t *frame,
			size_t len);
void engine_set_roce_link(struct orca_engine *eng,
			  const struct engine_roce_link *link);
/* The port has room again (any thread). */
void engine_roce_tx_ready(struct orca_engine *eng);

/*
 * A PFC frame (802.1Qbb) from the port's link (any thread; roce/roce_pfc.c):
 * each priority in @enable (bit p) is paused for @pause_ns[p] from now (0:
 * resumed).  The QPs of a connected transport whose traffic class (its
 * DSCP's top three bits) is a paused priority send nothing meanwhile.
 */
void engine_pfc_pause(struct orca_engine *eng, uint8_t enable,
		      const uint64_t *pause_ns);

/*
 * The port's link rate in Mb/s (0: unknown; roce/roce_dcqcn.c): DCQCN's
 * line rate, where a cut QP's rate starts and recovers to (100 Gb/s
 * without one).  Any thread.
 */
void engine_set_line_rate(struct orca_engine *eng, uint32_t mbps);

#endif /* ORCA_EMU_ENGINE_H */

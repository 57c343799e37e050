/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Event queues: posting event queue entries to host memory with the phase
 * protocol, interrupt arming through ORCA_REG_EQ_DB, and the overflow rule.
 * Everything here runs on the engine thread inside dma_begin/dma_end.
 */
#ifndef ORCA_EMU_EQ_H
#define ORCA_EMU_EQ_H

#include <stdint.h>

struct orca_engine;
struct emu_eq;

/*
 * Posts one event on EQ @eqn: writes entry (pi % depth) with the phase bit
 * last, raises the EQ's MSI-X vector if it is armed and disarms it.
 * Returns 0, -ENOENT (no such EQ), or -EIO when the device is in the fatal
 * state or this post made it fatal (EQ full or unmapped).  The data path
 * posts ORCA_EQE_COMP for CQs through this.
 */
int eq_post(struct orca_engine *eng, uint32_t eqn, uint8_t type,
	    uint32_t data, uint32_t data2);

/* ORCA_EQE_DEVICE_FATAL on EQ 0, the one event posted after a fatal error. */
void eq_post_fatal(struct orca_engine *eng, uint32_t syndrome);

/* Applies an EQ_DB write (new consumer index, optional re-arm). */
void eq_doorbell(struct orca_engine *eng, uint32_t eqn, uint32_t ci,
		 bool arm);

/* "garbage-eqe": malformed entries on every EQ that has room (engine.h). */
void eq_post_garbage(struct orca_engine *eng);

void eq_release(void *obj, void *arg);

#endif /* ORCA_EMU_EQ_H */

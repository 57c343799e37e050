/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The emulator's clocks, one copy for every file.  Timers, deadlines, rate
 * limits and stall windows use the monotonic clock, which never jumps; wall
 * time is only for timestamps a person reads (log lines, pcap records).
 */
#ifndef ORCA_EMU_CLOCK_H
#define ORCA_EMU_CLOCK_H

#include <stdint.h>
#include <time.h>

#define NSEC_PER_SEC	1000000000ull

static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

static inline uint64_t now_us(void)
{
	return now_ns() / 1000;
}

static inline uint64_t now_ms(void)
{
	return now_ns() / 1000000;
}

/*
 * The CLOCK_MONOTONIC time @ns from now, as pthread_cond_timedwait() wants
 * it for a condition variable set to that clock (pthread_condattr_setclock).
 */
static inline struct timespec mono_deadline(uint64_t ns)
{
	uint64_t t = now_ns() + ns;

	return (struct timespec){
		.tv_sec = (time_t)(t / NSEC_PER_SEC),
		.tv_nsec = (long)(t % NSEC_PER_SEC),
	};
}

/* Wall-clock time, for timestamps only: it can jump either way. */
static inline struct timespec wall_time(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts;
}

#endif /* ORCA_EMU_CLOCK_H */

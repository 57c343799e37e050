/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Emulator logging: one timestamped line per call, to a log file or stderr.
 * Safe from any thread (each line is written with a single write()).
 * emu_dbg() lines appear only when debugging is on (ORCA_EMU_DEBUG=1 in
 * the environment, or emu_log_set_debug()).
 */
#ifndef ORCA_EMU_LOG_H
#define ORCA_EMU_LOG_H

#include <stdbool.h>
#include <stdint.h>

/* Log to @path (appended, created if missing); NULL: stderr. 0 or -errno. */
int emu_log_open(const char *path);
void emu_log_close(void);
void emu_log_set_debug(bool on);
bool emu_log_debug_enabled(void);

void emu_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#define emu_dbg(...)					\
	do {						\
		if (emu_log_debug_enabled())		\
			emu_log(__VA_ARGS__);		\
	} while (0)

/*
 * Lines a guest (or the vfio-user client) can make us write at will go
 * through emu_log_guest(): a driver looping on a bad command, a reset or a
 * bus-master toggle must not fill the disk.  Each call site has a token
 * bucket of EMU_LOG_GUEST_BURST lines refilled at EMU_LOG_GUEST_RATE lines
 * a second, and all sites together one of EMU_LOG_GUEST_TOTAL_BURST at
 * EMU_LOG_GUEST_TOTAL_RATE (a normal run, even 20 driver reloads in ten
 * seconds, never reaches them); what is held back is counted and reported
 * by the site's next line ("N similar lines suppressed").
 */
#define EMU_LOG_GUEST_BURST		100
#define EMU_LOG_GUEST_RATE		5
#define EMU_LOG_GUEST_TOTAL_BURST	500
#define EMU_LOG_GUEST_TOTAL_RATE	20

struct emu_ratelimit {
	uint64_t last_ms;		/* CLOCK_MONOTONIC; 0: never used */
	uint64_t tokens;		/* thousandths of a line */
	unsigned long long missed;	/* since the last line printed */
};

/*
 * True if the site may log now; *missed gets the lines it suppressed
 * since its last one.  Thread-safe.
 */
bool emu_ratelimit(struct emu_ratelimit *rl, unsigned long long *missed);
/* Lines suppressed so far, all sites together (for tests and the exit log). */
unsigned long long emu_log_guest_suppressed(void);
/* Reset the global window and count (unit tests). */
void emu_log_guest_reset(void);

#define emu_log_guest(fmt, ...)						\
	do {								\
		static struct emu_ratelimit _rl;			\
		unsigned long long _missed;				\
									\
		if (emu_ratelimit(&_rl, &_missed)) {			\
			if (_missed)					\
				emu_log("(%llu similar lines suppressed)", \
					_missed);			\
			emu_log(fmt, ##__VA_ARGS__);			\
		}							\
	} while (0)

#endif /* ORCA_EMU_LOG_H */

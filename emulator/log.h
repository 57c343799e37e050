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

#endif /* ORCA_EMU_LOG_H */

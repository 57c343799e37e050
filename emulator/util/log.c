// SPDX-License-Identifier: GPL-2.0
/*
 * Emulator logging.  Lines look like
 *   2026-11-29 12:31:06.123 orca-emu: text
 * and are written with one write() so that lines from the socket, engine
 * and port threads never interleave.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "log.h"

static int log_fd = STDERR_FILENO;
/* -1: not decided yet, ORCA_EMU_DEBUG decides on first use. */
static int log_debug = -1;

int emu_log_open(const char *path)
{
	int fd;

	if (!path)
		return 0;
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	log_fd = fd;
	return 0;
}

void emu_log_close(void)
{
	if (log_fd != STDERR_FILENO) {
		close(log_fd);
		log_fd = STDERR_FILENO;
	}
}

void emu_log_set_debug(bool on)
{
	log_debug = on;
}

bool emu_log_debug_enabled(void)
{
	if (log_debug < 0) {
		const char *env = getenv("ORCA_EMU_DEBUG");

		log_debug = env && *env && strcmp(env, "0") != 0;
	}
	return log_debug;
}

void emu_log(const char *fmt, ...)
{
	char line[1024];
	struct timespec ts;
	struct tm tm;
	va_list ap;
	int n, m;

	ts = wall_time();
	gmtime_r(&ts.tv_sec, &tm);
	n = snprintf(line, sizeof(line),
		     "%04d-%02d-%02d %02d:%02d:%02d.%03ld orca-emu: ",
		     tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
		     tm.tm_min, tm.tm_sec, ts.tv_nsec / 1000000);
	va_start(ap, fmt);
	m = vsnprintf(line + n, sizeof(line) - n - 1, fmt, ap);
	va_end(ap);
	if (m < 0)
		m = 0;
	n += m;
	/* A truncated line still ends with a newline. */
	if (n > (int)sizeof(line) - 2)
		n = sizeof(line) - 2;
	line[n++] = '\n';
	if (write(log_fd, line, n) < 0) {
		/* Nowhere left to report a failing log. */
	}
}

/* Guest-triggered lines: per-site and global token buckets, one lock. */
static pthread_mutex_t rl_lock = PTHREAD_MUTEX_INITIALIZER;
static struct emu_ratelimit rl_global;
static unsigned long long rl_suppressed;

/* Never 0: a bucket's last_ms of 0 means "never used". */
static uint64_t mono_ms(void)
{
	return now_ms() + 1;
}

/* Refill @b for the time since its last use; true if a line is left. */
static bool bucket_take(struct emu_ratelimit *b, uint64_t now,
			unsigned int burst, unsigned int rate)
{
	uint64_t cap = (uint64_t)burst * 1000;

	if (!b->last_ms)
		b->tokens = cap;
	else
		b->tokens += (now - b->last_ms) * rate;
	if (b->tokens > cap)
		b->tokens = cap;
	b->last_ms = now;
	return b->tokens >= 1000;
}

bool emu_ratelimit(struct emu_ratelimit *rl, unsigned long long *missed)
{
	uint64_t now = mono_ms();
	bool ok;

	pthread_mutex_lock(&rl_lock);
	ok = bucket_take(rl, now, EMU_LOG_GUEST_BURST, EMU_LOG_GUEST_RATE);
	ok &= bucket_take(&rl_global, now, EMU_LOG_GUEST_TOTAL_BURST,
			  EMU_LOG_GUEST_TOTAL_RATE);
	if (ok) {
		rl->tokens -= 1000;
		rl_global.tokens -= 1000;
		*missed = rl->missed;
		rl->missed = 0;
	} else {
		rl->missed++;
		rl_suppressed++;
	}
	pthread_mutex_unlock(&rl_lock);
	return ok;
}

unsigned long long emu_log_guest_suppressed(void)
{
	unsigned long long n;

	pthread_mutex_lock(&rl_lock);
	n = rl_suppressed;
	pthread_mutex_unlock(&rl_lock);
	return n;
}

void emu_log_guest_reset(void)
{
	pthread_mutex_lock(&rl_lock);
	memset(&rl_global, 0, sizeof(rl_global));
	rl_suppressed = 0;
	pthread_mutex_unlock(&rl_lock);
}

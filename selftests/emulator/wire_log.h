/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading orca-wire's log in the emulator's unit tests: the counters of its
 * exit line ("exit: received N forwarded N ... not_roce_dropped N").
 */
#ifndef ORCA_TEST_WIRE_LOG_H
#define ORCA_TEST_WIRE_LOG_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Counter @what of the last exit line in @log, or ~0 if there is none. */
static inline unsigned long long wire_exit_count(const char *log,
						 const char *what)
{
	char line[1024], key[64];
	unsigned long long v = ~0ull;
	FILE *f = fopen(log, "r");
	char *p;

	snprintf(key, sizeof(key), " %s ", what);
	while (f && fgets(line, sizeof(line), f))
		if (strstr(line, "exit: ") && (p = strstr(line, key)))
			v = strtoull(p + strlen(key), NULL, 10);
	if (f)
		fclose(f);
	return v;
}

#endif /* ORCA_TEST_WIRE_LOG_H */

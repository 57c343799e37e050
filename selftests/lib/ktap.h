/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Minimal KTAP output for ORCA's native unit tests (kselftest style):
 *   ktap_plan(n); ... ktap_ok(cond, "name") ...; return ktap_finish();
 * CHECK() records a failed expectation with its location; a test case is
 * "ok" when no CHECK failed inside it.
 */
#ifndef ORCA_KTAP_H
#define ORCA_KTAP_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static int ktap_num, ktap_failed, ktap_passed, ktap_skipped, ktap_case_failures;

static inline void ktap_plan(int n)
{
	printf("TAP version 13\n1..%d\n", n);
	fflush(stdout);
}

/* CHECK(cond): inside a test case; reports and counts a failure. */
#define CHECK(cond)							\
	do {								\
		if (!(cond)) {						\
			printf("# %s:%d: CHECK failed: %s\n",		\
			       __FILE__, __LINE__, #cond);		\
			ktap_case_failures++;				\
		}							\
	} while (0)

/* Close a test case: ok iff no CHECK failed since the last one. */
static inline void ktap_case_end(const char *fmt, ...)
{
	va_list ap;

	ktap_num++;
	printf("%s %d ", ktap_case_failures ? "not ok" : "ok", ktap_num);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	if (ktap_case_failures)
		ktap_failed++;
	else
		ktap_passed++;
	ktap_case_failures = 0;
}

static inline void ktap_skip(const char *name, const char *why)
{
	ktap_num++;
	ktap_skipped++;
	printf("ok %d %s # SKIP %s\n", ktap_num, name, why);
}

/* Exit status as kselftest: 0 all passed, 1 a failure. */
static inline int ktap_finish(void)
{
	printf("# totals: pass:%d fail:%d skip:%d\n", ktap_passed, ktap_failed,
	       ktap_skipped);
	return ktap_failed ? 1 : 0;
}

#endif /* ORCA_KTAP_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Minimal TAP output for the harness programs: one "ok"/"not ok" line per
 * test, diagnostics as "# " lines, the plan at the end.
 */
#ifndef _X86_PMU_TAP_H
#define _X86_PMU_TAP_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

extern unsigned long shim_warnings;

static int tap_count, tap_failed;

static inline void tap_diag(const char *fmt, ...)
{
	va_list ap;

	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
}

static inline bool tap_result(bool ok, const char *name)
{
	printf("%sok %d - %s\n", ok ? "" : "not ", ++tap_count, name);
	if (!ok)
		tap_failed++;
	fflush(stdout);
	return ok;
}

/* Ends the run: a kernel-style WARN seen anywhere fails the program. */
static inline int tap_finish(void)
{
	if (shim_warnings)
		tap_result(false, "no unexpected kernel warnings");
	printf("1..%d\n", tap_count);
	return tap_failed ? 1 : 0;
}

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Minimal TAP producer for the in-guest test programs.  Output is line
 * buffered so a crash loses at most the check in progress, and the plan
 * comes last (TAP allows that) so checks can be added freely.
 */
#ifndef GUEST_TAP_H
#define GUEST_TAP_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

static int tap_n;
static int tap_failed;

static void tap_init(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
}

__attribute__((format(printf, 2, 3)))
static bool tap_ok(bool ok, const char *fmt, ...)
{
	va_list ap;

	tap_n++;
	if (!ok)
		tap_failed++;
	printf("%s %d - ", ok ? "ok" : "not ok", tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	return ok;
}

__attribute__((format(printf, 1, 2)))
static void tap_diag(const char *fmt, ...)
{
	va_list ap;

	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

static int tap_done(void)
{
	printf("1..%d\n", tap_n);
	fflush(stdout);
	return tap_failed ? 1 : 0;
}

#endif /* GUEST_TAP_H */

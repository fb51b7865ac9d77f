// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * TAP output for the guest programs (see tap.h).
 */
#include <stdarg.h>
#include <stdio.h>

#include "tap.h"

static int tap_n;
static int tap_failed;

void tap_init(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
}

bool tap_ok(bool ok, const char *fmt, ...)
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

void tap_diag(const char *fmt, ...)
{
	va_list ap;

	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

int tap_done(void)
{
	printf("1..%d\n", tap_n);
	fflush(stdout);
	return tap_failed ? 1 : 0;
}

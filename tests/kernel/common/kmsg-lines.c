// SPDX-License-Identifier: GPL-2.0-or-later
/* kmsg-lines.c: see kmsg-lines.h. */
#include "kmsg-lines.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int kmsg_rfkill_lines(int fd, void (*line)(int level, const char *text,
					   void *data),
		      void *data)
{
	char rec[2048];

	for (;;) {
		ssize_t n = read(fd, rec, sizeof(rec) - 1);
		char *text, *end;

		if (n < 0) {
			if (errno == EPIPE)	/* records overwritten: go on */
				continue;
			return errno == EAGAIN ? 0 : errno;
		}
		rec[n] = '\0';
		/* "PRI,SEQ,TS,FLAGS;TEXT\n", then " KEY=VALUE" lines */
		text = strchr(rec, ';');
		if (!text)
			continue;
		text++;
		end = strchr(text, '\n');
		if (end)
			*end = '\0';
		if (!strncmp(text, "rfkill", 6))
			line(atoi(rec) & 7, text, data);
	}
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * kmsg-lines.h: the rfkill core's kernel log lines, read from /dev/kmsg,
 * for the guest programs that compare the in-tree module with ours
 * (parity-probe, rfkill-difffuzz).  One reader, so both compare the same
 * way: a line the in-tree module logs at KERN_DEBUG is in the log too,
 * whatever the console shows, and its level counts.
 */
#ifndef KMSG_LINES_H
#define KMSG_LINES_H

/*
 * Calls line(level, text, data) for each record read from fd (opened
 * O_NONBLOCK on /dev/kmsg) since the last call whose text starts with
 * "rfkill".  Records overwritten before they were read are skipped.
 * Returns 0 once the log is drained, else the errno of the failed read.
 */
int kmsg_rfkill_lines(int fd, void (*line)(int level, const char *text,
					   void *data),
		      void *data);

#endif

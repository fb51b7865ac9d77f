/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Guest side of the kernel-indicator benchmark (static, run by vmrun.py
 * as root in the busybox initramfs): what its two phases share.
 *
 * Both phases talk to the host through the debugcon port 0x440, the port
 * the ATK4002 fixture's HSWC writes the LED to ('1' on, '0' off): single
 * marker bytes ('B' before a block-all, 'U' before an unblock-all) and
 * "<name>" markers around the phases.  Their own results go to stdout as
 * TAP checks and one "# bench-kernel-PHASE {json}" line each.
 */
#ifndef BENCH_GUEST_H
#define BENCH_GUEST_H

#include <stdbool.h>

#include <linux/rfkill.h>

#include "rfkill-airplane.h"

#define DEBUGCON_PORT	0x440
#define MAX_RADIOS	256

extern unsigned int radio_idx[MAX_RADIOS];	/* rfkill indexes, sysfs order */
extern int n_radios;

long long now_ns(void);
void sleep_ms(long ms);
void mark(const char *text);	/* "<text>" on the debugcon */
void mark_byte(char c);
int rfk_op(int fd, int op, unsigned int idx, int soft);
int blocked_count(void);	/* soft-blocked radios (sysfs), -1 unreadable */

/* TAP: the kernel suite's guest helpers (tests/kernel/guest/tap.h). */
#include "tap.h"

/* bench-storm.c */
void storm_phase(int seconds);

#endif /* BENCH_GUEST_H */

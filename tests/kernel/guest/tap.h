/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Minimal TAP producer for the in-guest test programs.  Output is line
 * buffered so a crash loses at most the check in progress, and the plan
 * comes last (TAP allows that).  A plan printed last only counts the checks
 * that ran, so a guest that returns early still "ran its whole plan": the
 * host knows how many checks each scenario has (GUEST_CHECKS in
 * tests/kernel/test_rfkill.py, passed to vmrun --guest-checks), and a check
 * added or removed here changes that number too.
 */
#ifndef GUEST_TAP_H
#define GUEST_TAP_H

#include <stdbool.h>

void tap_init(void);
/* Prints "ok N - ..." or "not ok N - ..."; returns ok. */
__attribute__((format(printf, 2, 3)))
bool tap_ok(bool ok, const char *fmt, ...);
__attribute__((format(printf, 1, 2)))
void tap_diag(const char *fmt, ...);
/* Prints the plan; 0 if every check passed, else 1. */
int tap_done(void);

#endif /* GUEST_TAP_H */

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The few places where the 6.1, 6.12 and 7.2 kernel APIs used by this
 * module (and its selftest driver) differ.  Only macros here: this header
 * is seen by core.c, and any type it defined could leak into the
 * modversion CRCs of the exports.
 */
#ifndef _RFKILL_COMPAT_H
#define _RFKILL_COMPAT_H

#include <linux/version.h>

/*
 * The one comparison with LINUX_VERSION_CODE: an out-of-tree module built
 * for several kernel lines cannot do without it (checkpatch warns here).
 */
#define RFKILL_KERNEL_AT_LEAST(major, minor, sub) \
	(LINUX_VERSION_CODE >= KERNEL_VERSION(major, minor, sub))

/*
 * 6.12 passes the hard block reason as its enum (6.1: unsigned long).
 * Checked against the 6.1 and 6.12 headers only; a kernel in between that
 * disagrees fails to compile (conflicting types), it cannot mis-link.
 */
#if RFKILL_KERNEL_AT_LEAST(6, 12, 0)
#define RFKILL_HW_REASON_T	enum rfkill_hard_block_reasons
#else
#define RFKILL_HW_REASON_T	unsigned long
/*
 * ... and where it is an unsigned long, the in-tree core WARNs about an
 * unknown reason and ignores the call (6.1); 6.12 takes any reason.
 */
#define RFKILL_HW_REASON_CHECKED
#endif

/* struct class::dev_uevent takes a const device since 6.3. */
#if RFKILL_KERNEL_AT_LEAST(6, 3, 0)
#define RFKILL_UEVENT_DEV	const struct device
#else
#define RFKILL_UEVENT_DEV	struct device
#endif

/*
 * hrtimer_setup() (6.13) replaces hrtimer_init() plus an assignment of
 * .function, and 6.16 removed hrtimer_init(): sid's 7.2 has only the new
 * call.  Used by the selftest driver (selftest/rfkill_selftest.c).
 */
#if RFKILL_KERNEL_AT_LEAST(6, 13, 0)
#define RFKILL_HRTIMER_SETUP(timer, fn, clock, mode) \
	hrtimer_setup(timer, fn, clock, mode)
#else
#define RFKILL_HRTIMER_SETUP(timer, fn, clock, mode) \
	do { \
		struct hrtimer *__rfkill_timer = (timer); \
		hrtimer_init(__rfkill_timer, clock, mode); \
		__rfkill_timer->function = (fn); \
	} while (0)
#endif

/*
 * The per-CPU system workqueue, under its name where the kernel has it:
 * system_percpu_wq (6.17, commit 128ea9f6ccfb "workqueue: Add
 * system_percpu_wq and system_dfl_wq"; 6.12.77 in the 6.12 stable line),
 * which schedule_delayed_work() then uses.  7.2 marks system_wq
 * deprecated and logs "enqueued on deprecated workqueue" on its first use.
 * Before, system_wq is that queue.  Kbuild tests for the declaration
 * (RFKILL_HAVE_SYSTEM_PERCPU_WQ).
 */
#ifdef RFKILL_HAVE_SYSTEM_PERCPU_WQ
#define RFKILL_PERCPU_WQ	system_percpu_wq
#else
#define RFKILL_PERCPU_WQ	system_wq
#endif

#endif /* _RFKILL_COMPAT_H */

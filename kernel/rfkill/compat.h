/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The few places where the 6.1 and 6.12 kernel APIs used by this module
 * differ.  Only macros here: this header is seen by core.c, and any type
 * it defined could leak into the modversion CRCs of the exports.
 */
#ifndef _RFKILL_COMPAT_H
#define _RFKILL_COMPAT_H

#include <linux/version.h>

/*
 * 6.12 passes the hard block reason as its enum (6.1: unsigned long).
 * Checked against the 6.1 and 6.12 headers only; a kernel in between that
 * disagrees fails to compile (conflicting types), it cannot mis-link.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
#define RFKILL_HW_REASON_T	enum rfkill_hard_block_reasons
#else
#define RFKILL_HW_REASON_T	unsigned long
#endif

/* struct class::dev_uevent takes a const device since 6.3. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
#define RFKILL_UEVENT_DEV	const struct device
#else
#define RFKILL_UEVENT_DEV	struct device
#endif

#endif /* _RFKILL_COMPAT_H */

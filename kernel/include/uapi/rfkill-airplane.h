/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * Airplane-mode indicator extension of the /dev/rfkill protocol.
 *
 * This header is shared by the rfkill-airplane kernel module and the
 * rfkill-applet userspace code, so both sides agree on the numbers.
 * Stock kernels reject these ops with -EINVAL.
 *
 * ACQUIRE: the writing fd becomes the only one allowed to drive the
 *          "rfkill-airplane-mode" LED trigger (-EACCES if another fd
 *          owns it).  Closing the fd gives control back to the kernel.
 * CHANGE:  written by the owner, 'soft' carries the new LED state
 *          (-EACCES for anybody else).  Also sent by the kernel to every
 *          open fd whenever the indicator state changes; such events
 *          have idx 0 and type RFKILL_TYPE_ALL.
 *
 * A newly opened fd reads one ADD event per device, then one CHANGE
 * (op 5) event with the current indicator state, so a reader that does
 * not own the indicator knows it at once.  A device's own CHANGE event
 * always comes before the op-5 event it causes.
 */
#ifndef _UAPI_RFKILL_AIRPLANE_H
#define _UAPI_RFKILL_AIRPLANE_H

#define RFKILL_OP_AIRPLANE_MODE_INDICATOR_ACQUIRE	4
#define RFKILL_OP_AIRPLANE_MODE_INDICATOR_CHANGE	5

/* Name of the LED trigger that follows the indicator. */
#define RFKILL_AIRPLANE_MODE_TRIGGER	"rfkill-airplane-mode"

#endif /* _UAPI_RFKILL_AIRPLANE_H */

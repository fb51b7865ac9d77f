/* SPDX-License-Identifier: GPL-2.0-only WITH Linux-syscall-note */
/*
 * The design of the airplane-mode indicator (the "rfkill-airplane-mode" LED
 * trigger, /dev/rfkill operations to take it over and set it, ASUS
 * driving its LED from it) is that of the 2016 series "RFKill
 * airplane-mode indicator" by João Paulo Rechi Vita <jprvita@gmail.com>.
 */
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
 *          (-EACCES for anybody else).  Also sent by the kernel, as an
 *          event with idx 0 and type RFKILL_TYPE_ALL, to the fds that
 *          asked for indicator events (below) whenever the state changes.
 *
 * Indicator events go only to an fd that asked for them, with the
 * RFKILL_IOCTL_AIRPLANE_MODE_EVENTS ioctl or by a successful ACQUIRE
 * (the owner needs the state).  Every other reader sees exactly the event
 * stream of the in-tree module: ADDs at open, then CHANGE and DEL.  This
 * matters because readers written for the in-tree module may reject
 * unknown ops outright (gnome-settings-daemon's rfkill plugin aborts on
 * any op above CHANGE_ALL).  Asking queues one op-5 event with the
 * current state, after whatever is queued already (the ADDs of a new
 * fd); asking again, or ACQUIRE after asking, queues nothing more.  A
 * device's own CHANGE event always comes before the op-5 event it causes.
 *
 * A stock kernel answers the ioctl like any unknown one: -ENOTTY since
 * 6.8, -ENOSYS before; a program takes that as "no indicator ops".
 */
#ifndef _UAPI_RFKILL_AIRPLANE_H
#define _UAPI_RFKILL_AIRPLANE_H

#include <linux/ioctl.h>

#define RFKILL_OP_AIRPLANE_MODE_INDICATOR_ACQUIRE	4
#define RFKILL_OP_AIRPLANE_MODE_INDICATOR_CHANGE	5

/*
 * 'R' is RFKILL_IOC_MAGIC.  Upstream uses numbers 1 (NOINPUT) and 2
 * (MAX_SIZE) and would take the next ones for itself, so ours sits far
 * above them; the in-tree module dispatches on the number alone.
 */
#define RFKILL_IOC_AIRPLANE_MODE_EVENTS		0x41
#define RFKILL_IOCTL_AIRPLANE_MODE_EVENTS \
	_IO('R', RFKILL_IOC_AIRPLANE_MODE_EVENTS)

/* Name of the LED trigger that follows the indicator. */
#define RFKILL_AIRPLANE_MODE_TRIGGER	"rfkill-airplane-mode"

#endif /* _UAPI_RFKILL_AIRPLANE_H */

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
 *
 * Who holds the indicator: /sys/class/misc/rfkill/airplane_mode_holder,
 * readable by anyone, says "PID COMM\n" of the process that ACQUIREd it
 * (the PID as the reader's pid namespace sees it, 0 if it does not; COMM
 * as at ACQUIRE), or is empty while nobody holds it.  The holder is that
 * process even if the fd has since been passed on.
 *
 * Taking it back: RFKILL_IOCTL_AIRPLANE_MODE_BREAK, on any /dev/rfkill
 * fd, by a caller with CAP_NET_ADMIN (-EPERM otherwise; -ENOENT if nobody
 * holds it).  The default rule applies at once, the kernel log names both
 * processes, the former owner's CHANGE gets -EACCES and its ACQUIRE on
 * that fd -EPERM: only a new open, which checks access again, may take
 * the indicator once more.
 *
 * Limits: an owner's CHANGEs that change the state are limited to
 * RFKILL_AIRPLANE_MODE_CHANGES_PER_SEC per second per fd; one over the
 * limit gets -EBUSY and the LED stays as it is (a CHANGE to the state
 * shown always succeeds).  A file holds at most
 * RFKILL_AIRPLANE_MODE_MAX_QUEUED unread op-5 events:
 * past that, the newest unread one is replaced by the new state and moves
 * to the end of the queue, so indicator events never push a reader's
 * device events out of its queue.
 *
 * The airplane key (KEY_RFKILL through rfkill-input) toggles every radio
 * from the global state of RFKILL_TYPE_ALL, which only CHANGE_ALL of
 * RFKILL_TYPE_ALL and the key itself set.  A program that blocked "all"
 * for airplane mode, and then saw airplane mode end by single radios
 * being switched on, cannot reset it on a stock kernel without
 * unblocking every radio; the key's next press would then turn every
 * radio on instead of starting airplane mode again.
 * RFKILL_IOCTL_AIRPLANE_MODE_KEY_RESET sets that state to "unblocked"
 * and changes no radio, nor the global state of any single type.  It
 * does so only while some radio is soft-unblocked (the state is stale):
 * when every radio is blocked, a key press may have come between the
 * events the program saw and its call, and that press's state stays.
 * Returns 0 either way.  It needs a file open for writing, like
 * CHANGE_ALL (-EBADF otherwise).
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

/* CAP_NET_ADMIN takes the indicator from its holder (above). */
#define RFKILL_IOC_AIRPLANE_MODE_BREAK		0x42
#define RFKILL_IOCTL_AIRPLANE_MODE_BREAK \
	_IO('R', RFKILL_IOC_AIRPLANE_MODE_BREAK)

/* The key's next press blocks every radio (above). */
#define RFKILL_IOC_AIRPLANE_MODE_KEY_RESET	0x43
#define RFKILL_IOCTL_AIRPLANE_MODE_KEY_RESET \
	_IO('R', RFKILL_IOC_AIRPLANE_MODE_KEY_RESET)

#define RFKILL_AIRPLANE_MODE_CHANGES_PER_SEC	20
#define RFKILL_AIRPLANE_MODE_MAX_QUEUED		16

/* Name of the LED trigger that follows the indicator. */
#define RFKILL_AIRPLANE_MODE_TRIGGER	"rfkill-airplane-mode"

#endif /* _UAPI_RFKILL_AIRPLANE_H */

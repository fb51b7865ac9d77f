/*
 * rfk-protocol.h: every number of the /dev/rfkill protocol we rely on.
 *
 * Defined here on purpose: the system <linux/rfkill.h> of an older
 * distribution may lack the extended event, the ioctls or the hard-block
 * reasons, and it never has our airplane-mode indicator ops.  The
 * indicator numbers come from the header shared with the kernel module.
 */
#pragma once

#include <glib.h>
#include <sys/ioctl.h>

#include "rfkill-airplane.h"

G_BEGIN_DECLS

/* enum rfkill_operation */
typedef enum {
  RFK_OP_ADD = 0,
  RFK_OP_DEL = 1,
  RFK_OP_CHANGE = 2,
  RFK_OP_CHANGE_ALL = 3,
  RFK_OP_INDICATOR_ACQUIRE = RFKILL_OP_AIRPLANE_MODE_INDICATOR_ACQUIRE,
  RFK_OP_INDICATOR_CHANGE = RFKILL_OP_AIRPLANE_MODE_INDICATOR_CHANGE,
} RfkOp;

/*
 * Wire layout (host endian, packed):
 *   u32 idx | u8 type | u8 op | u8 soft | u8 hard | u8 hard_block_reasons
 * V1 kernels stop after "hard"; newer ones append fields, so a reader
 * must accept any size >= V1 and ignore what it does not know.
 */
#define RFK_EVENT_SIZE_V1  8
#define RFK_EVENT_SIZE_EXT 9
/* Largest read we do; a bigger packet is truncated to this, harmlessly. */
#define RFK_EVENT_SIZE_MAX 64

/* The kernel accepts writes of at least V1 - 1 bytes ("hard" optional). */
#define RFK_WRITE_SIZE_MIN (RFK_EVENT_SIZE_V1 - 1)

/* enum rfkill_hard_block_reasons, mirrored by RfkHardReason. */
#define RFK_HARD_BLOCK_SIGNAL    (1 << 0)
#define RFK_HARD_BLOCK_NOT_OWNER (1 << 1)

/* ioctls on /dev/rfkill */
#define RFK_IOC_MAGIC       'R'
#define RFK_IOC_NOINPUT     1
#define RFK_IOC_MAX_SIZE    2
#define RFK_IOCTL_NOINPUT   _IO (RFK_IOC_MAGIC, RFK_IOC_NOINPUT)
#define RFK_IOCTL_MAX_SIZE  _IOW (RFK_IOC_MAGIC, RFK_IOC_MAX_SIZE, guint32)
/* Ours: op-5 events for this fd only when asked (rfkill-airplane.h).  A
 * stock kernel answers ENOTTY (6.8+) or ENOSYS (before). */
#define RFK_IOC_AIRPLANE_MODE_EVENTS   RFKILL_IOC_AIRPLANE_MODE_EVENTS
#define RFK_IOCTL_AIRPLANE_MODE_EVENTS RFKILL_IOCTL_AIRPLANE_MODE_EVENTS
/* Ours: CAP_NET_ADMIN takes the indicator from whoever holds it. */
#define RFK_IOC_AIRPLANE_MODE_BREAK    RFKILL_IOC_AIRPLANE_MODE_BREAK
#define RFK_IOC_AIRPLANE_MODE_KEY_RESET RFKILL_IOC_AIRPLANE_MODE_KEY_RESET
#define RFK_IOCTL_AIRPLANE_MODE_BREAK  RFKILL_IOCTL_AIRPLANE_MODE_BREAK

/*
 * Socket transport (our extension, for tests and VM relays): a
 * SOCK_SEQPACKET unix socket where one packet is one event, both ways.
 * write(2) on /dev/rfkill returns an errno; a socket cannot, so the peer
 * answers every packet we send, in order, with a status packet:
 *   u8 0xff | u8 'S' | u16 errno (little endian, 0 = success)
 * It is shorter than an event, so a plain event reader ignores it.
 * Right after accepting a client, and after the ADD of every radio it
 * has, the peer sends one status packet (errno 0) that answers nothing:
 * the end of the initial list, which /dev/rfkill readers get inside
 * open() already.
 */
#define RFK_STATUS_SIZE   4
#define RFK_STATUS_MAGIC0 0xff
#define RFK_STATUS_MAGIC1 'S'

/*
 * An ioctl cannot cross a socket either, so a client sends an ioctl
 * packet instead:
 *   u8 0xff | u8 'I' | u8 ioctl number (_IOC_NR) | u8 0
 * and the peer answers it, in order like any packet, with a status packet
 * carrying the ioctl's errno.  Only argument-less ioctls cross:
 * RFK_IOC_AIRPLANE_MODE_EVENTS, RFK_IOC_AIRPLANE_MODE_BREAK and
 * RFK_IOC_AIRPLANE_MODE_KEY_RESET.  The
 * packet is shorter than any write, so a peer that does not know it
 * answers EINVAL, like the kernel to a short write.
 */
#define RFK_IOCTL_PACKET_SIZE   4
#define RFK_IOCTL_PACKET_MAGIC1 'I'

G_END_DECLS

/*
 * rfk-transport.h: opening and talking to /dev/rfkill or a socket that
 * speaks the same protocol (see rfk-protocol.h).  Plain fds, no state,
 * shared by the manager and the LED controller (which needs its own fd).
 */
#pragma once

#include <gio/gio.h>

#include "rfk-event.h"

G_BEGIN_DECLS

#define RFK_DEFAULT_DEVICE "/dev/rfkill"

/*
 * Opens path non-blocking and close-on-exec: a SOCK_SEQPACKET unix socket
 * is connected to, anything else is opened read-write and asked for the
 * extended event size.  Errors are G_IO_ERROR codes (NOT_FOUND,
 * PERMISSION_DENIED, CONNECTION_REFUSED, …) with a message naming the
 * path and, for EACCES, the udev rule that grants access.
 */
int rfk_transport_open (const char *path, gboolean *out_is_socket,
                        GError **error);
/* The same; read_only opens a device O_RDONLY (writes then fail). */
int rfk_transport_open_full (const char *path, gboolean read_only,
                             gboolean *out_is_socket, GError **error);

/* One read(); returns its size, 0 on end of file, -1 with errno set. */
gssize rfk_transport_read (int fd, guint8 buf[RFK_EVENT_SIZE_MAX]);

/* Writes one request.  On failure errno is kept and error names path. */
gboolean rfk_transport_write (int fd, const char *path,
                              const RfkEvent *event, GError **error);

/*
 * One of our argument-less ioctls (nr: RFK_IOC_AIRPLANE_MODE_EVENTS,
 * RFK_IOC_AIRPLANE_MODE_BREAK).  A device answers at once: FALSE with
 * errno set (ENOTTY or ENOSYS from a kernel without our module).  A
 * socket is sent the ioctl packet (rfk-protocol.h), whose status packet
 * the caller must expect; TRUE then only says it was sent.
 */
gboolean rfk_transport_ioctl (int fd, gboolean is_socket, guint8 nr);

/* The airplane-mode indicator's op-5 events go only to readers that ask
 * (so that readers written for the in-tree module never see an op they
 * do not know): rfk_transport_ioctl() with RFK_IOC_AIRPLANE_MODE_EVENTS. */
gboolean rfk_transport_ask_indicator_events (int fd, gboolean is_socket);

/* What failed, for rfk_transport_error_new(). */
typedef enum {
  RFK_TRANSPORT_OPEN,
  RFK_TRANSPORT_CONNECT,
  RFK_TRANSPORT_READ,
  RFK_TRANSPORT_WRITE,
} RfkTransportOp;

/* A GError for errno err while doing op on path. */
GError *rfk_transport_error_new (const char *path, RfkTransportOp op,
                                 int err);

G_END_DECLS

/* rfk-transport.c: fds on /dev/rfkill or on a SOCK_SEQPACKET socket. */
#include "config.h"

#include "rfk-transport.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gi18n.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

/* Whole sentences, so that translators never assemble verbs. */
static const char *
op_message_format (RfkTransportOp op)
{
  switch (op)
    {
    case RFK_TRANSPORT_OPEN:
      return _("Cannot open %s: %s");
    case RFK_TRANSPORT_CONNECT:
      return _("Cannot connect to %s: %s");
    case RFK_TRANSPORT_READ:
      return _("Cannot read from %s: %s");
    case RFK_TRANSPORT_WRITE:
      return _("Cannot write to %s: %s");
    }
  g_return_val_if_reached ("%s: %s");
}

GError *
rfk_transport_error_new (const char *path, RfkTransportOp op, int err)
{
  GIOErrorEnum code = g_io_error_from_errno (err);
  g_autofree char *message =
    g_strdup_printf (op_message_format (op), path, g_strerror (err));

  if (err == EACCES || err == EPERM)
    return g_error_new (G_IO_ERROR, code, "%s. %s", message,
                        _("Access to /dev/rfkill is normally granted to the "
                          "logged-in user by the udev “uaccess” rule "
                          "(systemd’s 70-uaccess.rules); check that it is "
                          "installed and that you are on an active local "
                          "session."));
  return g_error_new_literal (G_IO_ERROR, code, message);
}

static void
set_error (GError **error, const char *path, RfkTransportOp op, int err)
{
  g_propagate_error (error, rfk_transport_error_new (path, op, err));
}

static int
connect_socket (const char *path, GError **error)
{
  struct sockaddr_un addr = { .sun_family = AF_UNIX };
  int fd;

  if (strlen (path) >= sizeof addr.sun_path)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FILENAME_TOO_LONG,
                   _("Cannot connect to %s: the socket path is too long"),
                   path);
      return -1;
    }
  strcpy (addr.sun_path, path);

  fd = socket (AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0)
    {
      set_error (error, path, RFK_TRANSPORT_CONNECT, errno);
      return -1;
    }
  if (connect (fd, (struct sockaddr *) &addr, sizeof addr) < 0)
    {
      int saved_errno = errno;

      close (fd);
      set_error (error, path, RFK_TRANSPORT_CONNECT, saved_errno);
      return -1;
    }
  return fd;
}

int
rfk_transport_open (const char *path, gboolean *out_is_socket,
                    GError **error)
{
  return rfk_transport_open_full (path, FALSE, out_is_socket, error);
}

int
rfk_transport_open_full (const char *path, gboolean read_only,
                         gboolean *out_is_socket, GError **error)
{
  struct stat st;
  guint32 size = RFK_EVENT_SIZE_EXT;
  int fd;

  if (stat (path, &st) < 0)
    {
      set_error (error, path, RFK_TRANSPORT_OPEN, errno);
      return -1;
    }

  if (S_ISSOCK (st.st_mode))
    {
      if (out_is_socket)
        *out_is_socket = TRUE;
      return connect_socket (path, error);
    }

  if (out_is_socket)
    *out_is_socket = FALSE;
  /* A regular file would be read as events: refuse it ("No such
   * device", with the path), like the kernel refuses odd nodes. */
  if (!S_ISCHR (st.st_mode))
    {
      set_error (error, path, RFK_TRANSPORT_OPEN, ENODEV);
      return -1;
    }
  /* Listing needs no write access, like util-linux rfkill: a user on an
   * inactive seat or over SSH may only have read access. */
  fd = open (path, (read_only ? O_RDONLY : O_RDWR) | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0)
    {
      set_error (error, path, RFK_TRANSPORT_OPEN, errno);
      return -1;
    }
  /* Kernels before 5.11 answer ENOTTY/EINVAL and keep sending V1 events,
   * which the decoder handles; nothing to report. */
  (void) ioctl (fd, RFK_IOCTL_MAX_SIZE, &size);
  return fd;
}

gboolean
rfk_transport_ioctl (int fd, gboolean is_socket, guint8 nr)
{
  guint8 packet[RFK_IOCTL_PACKET_SIZE];
  gsize size;
  gssize n;

  if (!is_socket)
    return ioctl (fd, _IO (RFK_IOC_MAGIC, nr)) == 0;
  size = rfk_ioctl_packet_encode (nr, packet);
  do
    n = send (fd, packet, size, MSG_NOSIGNAL);
  while (n < 0 && errno == EINTR);
  if (n >= 0 && n != (gssize) size)
    errno = EIO;  /* a packet is sent whole or not at all */
  return n == (gssize) size;
}

gboolean
rfk_transport_ask_indicator_events (int fd, gboolean is_socket)
{
  return rfk_transport_ioctl (fd, is_socket, RFK_IOC_AIRPLANE_MODE_EVENTS);
}

gssize
rfk_transport_read (int fd, guint8 buf[RFK_EVENT_SIZE_MAX])
{
  gssize n;

  do
    n = read (fd, buf, RFK_EVENT_SIZE_MAX);
  while (n < 0 && errno == EINTR);
  return n;
}

gboolean
rfk_transport_write (int fd, const char *path, const RfkEvent *event,
                     GError **error)
{
  guint8 buf[RFK_EVENT_SIZE_V1];
  gsize size = rfk_event_encode (event, buf);
  gssize n;

  /* send() so that a relay that went away gives EPIPE, not SIGPIPE. */
  do
    {
      n = send (fd, buf, size, MSG_NOSIGNAL);
      if (n < 0 && errno == ENOTSOCK)
        n = write (fd, buf, size);
    }
  while (n < 0 && errno == EINTR);

  if (n < 0)
    {
      int saved_errno = errno;

      set_error (error, path, RFK_TRANSPORT_WRITE, saved_errno);
      errno = saved_errno;
      return FALSE;
    }
  if ((gsize) n < RFK_WRITE_SIZE_MIN)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED,
                   _("Cannot write to %s: short write of %zd bytes"), path,
                   n);
      errno = EIO;
      return FALSE;
    }
  return TRUE;
}

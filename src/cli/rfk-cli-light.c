/*
 * rfk-cli-light.c: --take-back-light, for an administrator whose airplane
 * light is held by a program that should not hold it (a stopped process,
 * a session that is no longer in front).  The kernel's
 * RFKILL_IOCTL_AIRPLANE_MODE_BREAK does the work and checks
 * CAP_NET_ADMIN; this names who held the light and says what went wrong
 * in words.
 */
#include "config.h"

#include "rfk-cli.h"

#include <errno.h>
#include <glib/gi18n.h>
#include <poll.h>
#include <stdio.h>
#include <unistd.h>

#include "rfk-cli-common.h"
#include "rfk-event.h"
#include "rfk-indicator-holder.h"
#include "rfk-protocol.h"
#include "rfk-transport.h"

/* How long a socket peer may take for each status packet. */
#define ANSWER_TIMEOUT_MS 5000

/* The next status packet's errno, skipping events; -1 if none came. */
static int
next_status (int fd)
{
  guint8 buf[RFK_EVENT_SIZE_MAX];
  struct pollfd pfd = { .fd = fd, .events = POLLIN };
  gssize n;
  int err;

  for (;;)
    {
      if (poll (&pfd, 1, ANSWER_TIMEOUT_MS) <= 0)
        return -1;
      n = rfk_transport_read (fd, buf);
      if (n <= 0 && errno != EAGAIN)
        return -1;
      if (n > 0 && rfk_status_decode (buf, n, &err))
        return err;
    }
}

/* The errno of the BREAK ioctl on fd (0: done), ETIMEDOUT when a socket
 * peer does not answer. */
static int
break_hold (int fd, gboolean is_socket)
{
  int err;

  /* a socket peer first ends its list of ADDs with a status packet */
  if (is_socket && next_status (fd) < 0)
    return ETIMEDOUT;
  if (!rfk_transport_ioctl (fd, is_socket, RFK_IOC_AIRPLANE_MODE_BREAK))
    return errno;
  if (!is_socket)
    return 0;
  err = next_status (fd);
  return err < 0 ? ETIMEDOUT : err;
}

int
rfk_cli_take_back_light (const char *device_path)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *holder = rfk_indicator_holder_describe ();
  const char *path = device_path != NULL ? device_path : RFK_DEFAULT_DEVICE;
  gboolean is_socket = FALSE;
  int fd, err;

  /* read access is enough: the kernel checks the capability */
  fd = rfk_transport_open_full (path, TRUE, &is_socket, &error);
  if (fd < 0)
    return rfk_cli_fail ("%s", error->message);
  err = break_hold (fd, is_socket);
  close (fd);

  switch (err)
    {
    case 0:
      if (holder != NULL)
        printf (_("Took the airplane-mode light back from %s; the kernel's "
                  "rule lights it now.\n"), holder);
      else
        printf (_("Took the airplane-mode light back; the kernel's rule "
                  "lights it now.\n"));
      return 0;
    case ENOENT:
      return rfk_cli_fail (_("No program holds the airplane-mode light: the "
                             "kernel's rule lights it already"));
    case EPERM:
      return rfk_cli_fail (_("Taking the airplane-mode light back needs "
                             "the CAP_NET_ADMIN capability (run it as "
                             "root)"));
    case ENOTTY:
    case ENOSYS:
    case EINVAL:
      /* stock kernels answer an unknown ioctl so (6.8+: ENOTTY), and a
       * socket peer that does not know the packet EINVAL */
      return rfk_cli_fail (_("%s cannot hand the airplane-mode light to "
                             "programs, so nobody holds it; install the "
                             "rfkill-airplane DKMS package to get this "
                             "feature"), path);
    case ETIMEDOUT:
      return rfk_cli_fail (_("%s did not answer within %d s"), path,
                           ANSWER_TIMEOUT_MS / 1000);
    default:
      return rfk_cli_fail (_("Cannot take the airplane-mode light back "
                             "through %s: %s"), path, g_strerror (err));
    }
}

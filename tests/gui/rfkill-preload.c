/*
 * rfkill-preload.c: runs an unmodified /dev/rfkill client on the fake kernel.
 *
 *   LD_PRELOAD=rfkill-preload.so RFK_RFKILL_SOCKET=/run/…/rfkill.sock \
 *     [RFK_RFKILL_LOG=FILE] /usr/libexec/gsd-rfkill
 *
 * Written for gnome-settings-daemon's rfkill plugin, which finds the
 * device through udev (subsystem "misc", name "rfkill") and then opens its
 * device file.  On a machine without the rfkill module neither exists, so:
 *  - g_udev_client_query_by_subsystem_and_name ("misc", "rfkill") answers
 *    a stand-in device whose name is "rfkill" and whose device file is
 *    /dev/rfkill, as udev reports the real one;
 *  - open ("/dev/rfkill") connects to fake-rfkill's SOCK_SEQPACKET socket
 *    instead: one packet per event, the same reads and writes as on the
 *    device (tests/fake/README.md).  The fake's 4-byte write-status
 *    packets (our extension) reach the client as short reads, which a
 *    /dev/rfkill reader skips like any event shorter than version 1;
 *  - ioctl (RFKILL_IOCTL_NOINPUT) on such a socket succeeds, as on the
 *    device.  The fake cannot see it, so it is logged.
 * With RFK_RFKILL_LOG every open, NOINPUT, write and close on the
 * redirected descriptors is appended to FILE, one line each, so a test can
 * check exactly what the client asked the kernel for.
 * Everything else goes to the real functions.
 */
/* Both open() and open64() are ours: no redirection of one to the other. */
#undef _FILE_OFFSET_BITS
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <linux/rfkill.h>
#include <glib-object.h>

#define DEVICE_FILE "/dev/rfkill"
#define MAX_TRACKED 4096

/* Descriptors we connected to the fake: 1 while open. */
static int tracked[MAX_TRACKED];

typedef int (*OpenFunc) (const char *, int, ...);

static OpenFunc real_open;
static OpenFunc real_open64;
static int (*real_close) (int);
static ssize_t (*real_write) (int, const void *, size_t);
static int (*real_ioctl) (int, unsigned long, ...);
static gpointer (*real_query) (gpointer, const char *, const char *);
static const char *(*real_get_name) (gpointer);
static const char *(*real_get_device_file) (gpointer);

static gpointer
next (const char *symbol)
{
  gpointer fn = dlsym (RTLD_NEXT, symbol);

  if (fn == NULL)
    {
      fprintf (stderr, "rfkill-preload: no %s after us\n", symbol);
      abort ();
    }
  return fn;
}

static void
log_line (const char *format, ...)
{
  const char *path = getenv ("RFK_RFKILL_LOG");
  char line[256];
  va_list args;
  int fd, len;

  if (path == NULL)
    return;
  va_start (args, format);
  len = vsnprintf (line, sizeof line - 1, format, args);
  va_end (args);
  if (len < 0)
    return;
  if (len > (int) sizeof line - 2)
    len = sizeof line - 2;
  line[len++] = '\n';
  if (real_open == NULL)
    real_open = next ("open");
  if (real_write == NULL)
    real_write = next ("write");
  /* One write of one line with O_APPEND: lines never interleave. */
  fd = real_open (path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0)
    return;
  if (real_write (fd, line, len) < 0)
    fprintf (stderr, "rfkill-preload: cannot log to %s\n", path);
  if (real_close == NULL)
    real_close = next ("close");
  real_close (fd);
}

static gboolean
is_tracked (int fd)
{
  return fd >= 0 && fd < MAX_TRACKED
         && __atomic_load_n (&tracked[fd], __ATOMIC_RELAXED);
}

static void
set_tracked (int fd, int on)
{
  if (fd >= 0 && fd < MAX_TRACKED)
    __atomic_store_n (&tracked[fd], on, __ATOMIC_RELAXED);
}

/* The device's open(): a connection to the fake, with the open flags
 * that make sense on a socket (O_NONBLOCK, O_CLOEXEC). */
static int
open_fake (int flags)
{
  const char *path = getenv ("RFK_RFKILL_SOCKET");
  struct sockaddr_un addr = { .sun_family = AF_UNIX };
  int type = SOCK_SEQPACKET;
  int fd;

  if (path == NULL || strlen (path) >= sizeof addr.sun_path)
    {
      /* No fake: the machine has no rfkill device. */
      errno = ENOENT;
      return -1;
    }
  strcpy (addr.sun_path, path);
  if (flags & O_NONBLOCK)
    type |= SOCK_NONBLOCK;
  if (flags & O_CLOEXEC)
    type |= SOCK_CLOEXEC;
  fd = socket (AF_UNIX, type, 0);
  if (fd < 0)
    return -1;
  if (connect (fd, (struct sockaddr *) &addr, sizeof addr) < 0)
    {
      int saved = errno;

      if (real_close == NULL)
        real_close = next ("close");
      real_close (fd);
      errno = saved;
      return -1;
    }
  set_tracked (fd, 1);
  log_line ("open fd=%d mode=%s", fd,
            (flags & O_ACCMODE) == O_RDONLY ? "r"
            : (flags & O_ACCMODE) == O_WRONLY ? "w" : "rw");
  return fd;
}

/* The body of open() and open64(): the device file is a connection to the
 * fake, every other path goes to the real function named symbol.  args
 * holds the variadic mode, there only with O_CREAT or O_TMPFILE. */
static int
open_or_fake (OpenFunc *real, const char *symbol, const char *path,
              int flags, va_list args)
{
  mode_t mode = (flags & (O_CREAT | O_TMPFILE)) ? va_arg (args, mode_t) : 0;

  if (strcmp (path, DEVICE_FILE) == 0)
    return open_fake (flags);
  if (*real == NULL)
    *real = next (symbol);
  return (*real) (path, flags, mode);
}

/* A client built with 64-bit file offsets calls open64(), others open():
 * both are ours, and differ only in the real function behind them. */
#define DEFINE_OPEN(name, real)                                 \
  int                                                           \
  name (const char *path, int flags, ...)                       \
  {                                                             \
    va_list args;                                               \
    int fd;                                                     \
                                                                \
    va_start (args, flags);                                     \
    fd = open_or_fake (&real, #name, path, flags, args);        \
    va_end (args);                                              \
    return fd;                                                  \
  }

DEFINE_OPEN (open, real_open)
DEFINE_OPEN (open64, real_open64)

int
close (int fd)
{
  if (real_close == NULL)
    real_close = next ("close");
  if (is_tracked (fd))
    {
      set_tracked (fd, 0);
      log_line ("close fd=%d", fd);
    }
  return real_close (fd);
}

ssize_t
write (int fd, const void *buf, size_t count)
{
  if (real_write == NULL)
    real_write = next ("write");
  if (is_tracked (fd))
    {
      struct rfkill_event event = { 0 };

      memcpy (&event, buf, MIN (count, sizeof event));
      log_line ("write fd=%d len=%zu idx=%u type=%u op=%u soft=%u hard=%u",
                fd, count, event.idx, event.type, event.op, event.soft,
                event.hard);
    }
  return real_write (fd, buf, count);
}

int
ioctl (int fd, unsigned long request, ...)
{
  va_list args;
  void *arg;

  va_start (args, request);
  arg = va_arg (args, void *);
  va_end (args);
  if (is_tracked (fd) && request == RFKILL_IOCTL_NOINPUT)
    {
      /* The kernel turns rfkill-input off while this file is open. */
      log_line ("ioctl fd=%d NOINPUT", fd);
      return 0;
    }
  if (real_ioctl == NULL)
    real_ioctl = next ("ioctl");
  return real_ioctl (fd, request, arg);
}

/* ---- udev: the misc device "rfkill" ----------------------------------- */

/* The stand-in device: a plain GObject, so that the caller's unref works. */
static GObject *stand_in;

gpointer
g_udev_client_query_by_subsystem_and_name (gpointer client,
                                           const char *subsystem,
                                           const char *name)
{
  if (g_strcmp0 (subsystem, "misc") == 0 && g_strcmp0 (name, "rfkill") == 0
      && getenv ("RFK_RFKILL_SOCKET") != NULL)
    {
      if (stand_in == NULL)
        stand_in = g_object_new (G_TYPE_OBJECT, NULL);
      log_line ("udev misc/rfkill");
      return g_object_ref (stand_in);
    }
  if (real_query == NULL)
    real_query = next ("g_udev_client_query_by_subsystem_and_name");
  return real_query (client, subsystem, name);
}

const char *
g_udev_device_get_name (gpointer device)
{
  if (device != NULL && device == (gpointer) stand_in)
    return "rfkill";
  if (real_get_name == NULL)
    real_get_name = next ("g_udev_device_get_name");
  return real_get_name (device);
}

const char *
g_udev_device_get_device_file (gpointer device)
{
  if (device != NULL && device == (gpointer) stand_in)
    return DEVICE_FILE;
  if (real_get_device_file == NULL)
    real_get_device_file = next ("g_udev_device_get_device_file");
  return real_get_device_file (device);
}

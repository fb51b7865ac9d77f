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
 *
 * With RFK_RFKILL_AS_DEVICE=1 the descriptor answers like the device file
 * itself, for a client that checks results (the fake's parity probe):
 *  - open() returns once the fake's initial list has arrived (the kernel
 *    queues one ADD per radio inside open());
 *  - write() waits for the fake's status packet: -1 with its errno, or
 *    the bytes the kernel says it took (at most the 9 of an extended event
 *    and at most the file's max_size); events that came before the status
 *    wait for read(), as the kernel queues them before write() returns;
 *  - read() never returns a status packet, and cuts each event to the
 *    file's max_size, which starts at 8 (version 1) as on the device;
 *  - ioctl (RFKILL_IOCTL_MAX_SIZE) sets max_size (8 to 255, else EINVAL;
 *    a NULL argument is EFAULT), other 'R' ioctls go to the fake as ioctl
 *    packets (NOINPUT included, so the fake honours it) and return its
 *    errno; other magics fail like any socket's (ENOTTY);
 *  - poll() reports POLLIN while events wait in the shim.
 * A zero-length write cannot cross a SOCK_SEQPACKET socket (it reads as
 * end of file), so it goes as one zero byte, which the fake rejects as
 * short, as the kernel rejects zero bytes.  One thread per descriptor.
 * Everything else goes to the real functions.
 */
/* Both open() and open64() are ours: no redirection of one to the other. */
#undef _FILE_OFFSET_BITS
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
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

/* RFK_RFKILL_AS_DEVICE: packets (events) read while waiting for a status,
 * oldest first, and the file's max_size, per descriptor. */
typedef struct Pending Pending;
struct Pending {
  Pending *next;
  size_t len;
  unsigned char data[];
};

typedef struct {
  Pending *head, *tail;
  size_t max_size;
} DeviceFile;

static DeviceFile files[MAX_TRACKED];
static pthread_mutex_t files_lock = PTHREAD_MUTEX_INITIALIZER;

#define EVENT_SIZE_V1 8
#define EVENT_SIZE_EXT 9
#define PACKET_MAX 256
#define STATUS_WAIT_MS 10000

typedef int (*OpenFunc) (const char *, int, ...);
static ssize_t (*real_read) (int, void *, size_t);
static int (*real_poll) (struct pollfd *, nfds_t, int);

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

static gboolean
as_device (void)
{
  const char *value = getenv ("RFK_RFKILL_AS_DEVICE");

  return value != NULL && strcmp (value, "1") == 0;
}

static gboolean
is_status (const unsigned char *buf, ssize_t len)
{
  return len == 4 && buf[0] == 0xff && buf[1] == 'S';
}

static void
pending_push (int fd, const unsigned char *buf, size_t len)
{
  Pending *p = malloc (sizeof *p + len);

  if (p == NULL)
    abort ();
  p->next = NULL;
  p->len = len;
  memcpy (p->data, buf, len);
  pthread_mutex_lock (&files_lock);
  if (files[fd].tail)
    files[fd].tail->next = p;
  else
    files[fd].head = p;
  files[fd].tail = p;
  pthread_mutex_unlock (&files_lock);
}

/* The oldest waiting event of fd (caller frees), or NULL. */
static Pending *
pending_pop (int fd)
{
  Pending *p;

  pthread_mutex_lock (&files_lock);
  p = files[fd].head;
  if (p)
    {
      files[fd].head = p->next;
      if (files[fd].head == NULL)
        files[fd].tail = NULL;
    }
  pthread_mutex_unlock (&files_lock);
  return p;
}

static gboolean
pending_any (int fd)
{
  gboolean any;

  pthread_mutex_lock (&files_lock);
  any = files[fd].head != NULL;
  pthread_mutex_unlock (&files_lock);
  return any;
}

static void
pending_clear (int fd)
{
  Pending *p;

  while ((p = pending_pop (fd)) != NULL)
    free (p);
}

/*
 * Reads fd's packets until a status packet, keeping the events before it
 * for read(); returns the status's errno, or -1 with errno set if the
 * fake does not answer within STATUS_WAIT_MS or goes away.
 */
static int
await_status (int fd)
{
  unsigned char buf[PACKET_MAX];

  if (real_poll == NULL)
    real_poll = next ("poll");
  for (;;)
    {
      struct pollfd p = { .fd = fd, .events = POLLIN };
      ssize_t n;
      int r = real_poll (&p, 1, STATUS_WAIT_MS);

      if (r < 0 && errno == EINTR)
        continue;
      if (r == 0)
        errno = ETIMEDOUT;
      if (r <= 0)
        return -1;
      n = recv (fd, buf, sizeof buf, MSG_DONTWAIT);
      if (n < 0 && (errno == EINTR || errno == EAGAIN))
        continue;
      if (n <= 0)
        {
          if (n == 0)
            errno = ECONNRESET;
          return -1;
        }
      if (is_status (buf, n))
        return buf[2] | buf[3] << 8;
      pending_push (fd, buf, (size_t) n);
    }
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
  if (as_device ())
    {
      files[fd].max_size = EVENT_SIZE_V1;
      /* the fake ends its initial list with a status packet */
      if (await_status (fd) != 0)
        {
          int saved = errno;

          set_tracked (fd, 0);
          pending_clear (fd);
          if (real_close == NULL)
            real_close = next ("close");
          real_close (fd);
          errno = saved ? saved : EIO;
          return -1;
        }
    }
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
      pending_clear (fd);
      log_line ("close fd=%d", fd);
    }
  return real_close (fd);
}

/*
 * Sends one packet and waits for the fake's answer to it: 0 if it took
 * it, else -1 with errno set to the fake's errno (or to why no answer
 * came), as the device's write() and ioctl() report it.
 */
static int
send_and_await (int fd, const void *packet, size_t len)
{
  int err;

  if (real_write (fd, packet, len) < 0)
    return -1;
  err = await_status (fd);
  if (err < 0)
    return -1;
  if (err > 0)
    {
      errno = err;
      return -1;
    }
  return 0;
}

/* write() on the device file: the fake's errno, or what the kernel took. */
static ssize_t
write_as_device (int fd, const void *buf, size_t count)
{
  static const unsigned char zero;
  size_t taken = MIN (MIN (count, EVENT_SIZE_EXT), files[fd].max_size);

  if (send_and_await (fd, count ? buf : &zero, count ? count : 1) < 0)
    return -1;
  return (ssize_t) taken;
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
      if (as_device ())
        return write_as_device (fd, buf, count);
    }
  return real_write (fd, buf, count);
}

/* read() on the device file: the next event, cut to max_size. */
static ssize_t
read_as_device (int fd, void *buf, size_t count)
{
  unsigned char packet[PACKET_MAX];
  Pending *p = pending_pop (fd);
  ssize_t n;

  if (p != NULL)
    {
      n = (ssize_t) MIN (p->len, sizeof packet);
      memcpy (packet, p->data, n);
      free (p);
    }
  else
    {
      do
        n = real_read (fd, packet, sizeof packet);
      while (n > 0 && is_status (packet, n));  /* none is due: skip */
      if (n <= 0)
        return n;
    }
  n = (ssize_t) MIN (MIN ((size_t) n, count), files[fd].max_size);
  memcpy (buf, packet, n);
  return n;
}

ssize_t
read (int fd, void *buf, size_t count)
{
  if (real_read == NULL)
    real_read = next ("read");
  if (is_tracked (fd) && as_device ())
    return read_as_device (fd, buf, count);
  return real_read (fd, buf, count);
}

int
poll (struct pollfd *fds, nfds_t nfds, int timeout)
{
  gboolean waiting = FALSE;
  int r;

  if (real_poll == NULL)
    real_poll = next ("poll");
  for (nfds_t i = 0; i < nfds; i++)
    if (is_tracked (fds[i].fd) && pending_any (fds[i].fd))
      waiting = TRUE;
  if (!waiting)
    return real_poll (fds, nfds, timeout);
  /* events wait in the shim: readable now, whatever the socket says */
  r = real_poll (fds, nfds, 0);
  if (r < 0)
    return r;
  r = 0;
  for (nfds_t i = 0; i < nfds; i++)
    {
      if (is_tracked (fds[i].fd) && pending_any (fds[i].fd))
        fds[i].revents |= fds[i].events & (POLLIN | POLLRDNORM);
      if (fds[i].revents)
        r++;
    }
  return r;
}

/* An rfkill ioctl on the device file (RFK_RFKILL_AS_DEVICE). */
static int
ioctl_as_device (int fd, unsigned long request, void *arg)
{
  unsigned char packet[4] = { 0xff, 'I', _IOC_NR (request), 0 };

  /* Like the kernel, the number alone decides, whatever the direction. */
  if (_IOC_NR (request) == RFKILL_IOC_MAX_SIZE)
    {
      unsigned int size;

      if (arg == NULL)
        {
          errno = EFAULT;
          return -1;
        }
      memcpy (&size, arg, sizeof size);
      if (size < EVENT_SIZE_V1 || size > 255)
        {
          errno = EINVAL;
          return -1;
        }
      files[fd].max_size = size;
      return 0;
    }
  return send_and_await (fd, packet, sizeof packet);
}

int
ioctl (int fd, unsigned long request, ...)
{
  va_list args;
  void *arg;

  va_start (args, request);
  arg = va_arg (args, void *);
  va_end (args);
  if (real_write == NULL)
    real_write = next ("write");
  if (is_tracked (fd) && as_device () && _IOC_TYPE (request) == RFKILL_IOC_MAGIC)
    {
      log_line ("ioctl fd=%d nr=%u", fd, (unsigned) _IOC_NR (request));
      return ioctl_as_device (fd, request, arg);
    }
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

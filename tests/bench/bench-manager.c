/*
 * bench-manager.c: how fast RfkManager digests events, against a bare
 * read()+decode loop on the same kind of socket in the same run, and how
 * much memory a radio costs.
 *
 * Both runs get the same stream from a writer thread: ADDs for a set of
 * radios, the end-of-list status packet a socket peer sends (so that the
 * manager is READY, as in the applet), then CHANGE events toggling them.
 * The ratio (manager time / baseline time) is what to watch; absolute
 * numbers depend on the host.
 *
 *   bench-manager [N]              the throughput run above
 *   bench-manager --core-cost N    feeds N CHANGEs to a READY manager
 *                                  inside feed_changes(), for
 *                                  valgrind --tool=callgrind
 *                                  --toggle-collect=feed_changes
 */
#include <errno.h>
#include <glib-unix.h>
#include <glib.h>
#include <malloc.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "rfk-event.h"
#include "rfk-manager-private.h"
#include "rfk-manager.h"

#define N_RADIOS 64

/*
 * Targets.  The model may cost at most this many times a bare read+decode
 * loop (an event storm must not starve the main loop), and a radio at most
 * this many bytes of heap (measured 1.6-1.7x and 94 bytes on 2026-12-03).
 */
#define MAX_TIME_RATIO 4.0
#define MAX_BYTES_PER_DEVICE 512.0

typedef struct {
  int fd;
  guint n_events;
} Writer;

static void
write_all (int fd, const guint8 *buf, gsize len)
{
  while (send (fd, buf, len, MSG_NOSIGNAL) < 0)
    if (errno != EINTR)
      g_error ("bench: send: %s", g_strerror (errno));
}

/* Event i of the CHANGE stream: every radio in turn, blocked on even
 * rounds and unblocked on odd ones (airplane mode flips each round). */
static RfkEvent
change_event (guint i)
{
  RfkEvent e = { .idx = i % N_RADIOS, .type = 1 + (i % N_RADIOS) % 2,
                 .op = RFK_OP_CHANGE, .soft = (i / N_RADIOS) % 2 == 0 };

  return e;
}

static RfkEvent
add_event (guint32 i)
{
  RfkEvent e = { .idx = i, .type = 1 + i % 2, .op = RFK_OP_ADD };

  return e;
}

/* The stream: N_RADIOS ADDs, the end-of-list status, then n_events
 * CHANGEs.  The status is shorter than an event: the baseline's decode
 * drops it, as any /dev/rfkill reader drops a short read. */
static gpointer
writer_thread (gpointer data)
{
  Writer *w = data;
  guint8 buf[RFK_EVENT_SIZE_EXT];
  guint8 status[RFK_STATUS_SIZE];

  for (guint32 i = 0; i < N_RADIOS; i++)
    {
      RfkEvent e = add_event (i);

      write_all (w->fd, buf, rfk_event_encode_ext (&e, buf));
    }
  write_all (w->fd, status, rfk_status_encode (0, status));
  for (guint i = 0; i < w->n_events; i++)
    {
      RfkEvent e = change_event (i);

      write_all (w->fd, buf, rfk_event_encode_ext (&e, buf));
    }
  return NULL;
}

static double
run_baseline (guint n_events)
{
  int fds[2];
  Writer w = { .n_events = n_events };
  GThread *thread;
  guint64 seen = 0, total = N_RADIOS + n_events;
  gint64 start;
  volatile guint32 sink = 0;

  g_assert_cmpint (socketpair (AF_UNIX, SOCK_SEQPACKET, 0, fds), ==, 0);
  w.fd = fds[0];
  start = g_get_monotonic_time ();
  thread = g_thread_new ("writer", writer_thread, &w);
  while (seen < total)
    {
      guint8 buf[RFK_EVENT_SIZE_MAX];
      struct pollfd pfd = { .fd = fds[1], .events = POLLIN };
      RfkEvent e;
      gssize n;

      /* The manager waits in poll() too: same syscalls per wake-up. */
      poll (&pfd, 1, -1);
      while ((n = recv (fds[1], buf, sizeof buf, MSG_DONTWAIT)) > 0)
        if (rfk_event_decode (buf, n, &e))
          {
            sink += e.idx + e.soft;
            seen++;
          }
    }
  g_thread_join (thread);
  close (fds[0]);
  close (fds[1]);
  g_assert_cmpuint (sink, !=, 0);  /* the decode is not optimised away */
  return (g_get_monotonic_time () - start) / 1e6;
}

typedef struct {
  RfkManager *manager;
  guint64 total;
  gint64 events_when_ready;  /* stats.events at READY, -1 before */
} Done;

static void
on_state_changed (RfkManager *manager, Done *d)
{
  RfkManagerStats stats;

  if (rfk_manager_get_state (manager) != RFK_MANAGER_STATE_READY ||
      d->events_when_ready >= 0)
    return;
  rfk_manager_get_stats (manager, &stats);
  d->events_when_ready = stats.events;
}

static gboolean
manager_done (gpointer data)
{
  Done *d = data;
  RfkManagerStats stats;

  rfk_manager_get_stats (d->manager, &stats);
  return stats.events >= d->total;
}

static double
run_manager (const char *dir, guint n_events)
{
  g_autofree char *path = g_build_filename (dir, "bench.sock", NULL);
  struct sockaddr_un addr = { .sun_family = AF_UNIX };
  g_autoptr (RfkManager) manager = NULL;
  Writer w = { .n_events = n_events };
  GThread *thread;
  Done done;
  gint64 start;
  int listen_fd;

  strcpy (addr.sun_path, path);
  listen_fd = socket (AF_UNIX, SOCK_SEQPACKET, 0);
  g_assert_cmpint (bind (listen_fd, (struct sockaddr *) &addr, sizeof addr),
                   ==, 0);
  g_assert_cmpint (listen (listen_fd, 1), ==, 0);

  manager = rfk_manager_new (path);
  done.events_when_ready = -1;
  g_signal_connect (manager, "state-changed", G_CALLBACK (on_state_changed),
                    &done);
  rfk_manager_start (manager);
  w.fd = accept (listen_fd, NULL, NULL);
  g_assert_cmpint (w.fd, >=, 0);

  done.manager = manager;
  done.total = N_RADIOS + n_events;
  start = g_get_monotonic_time ();
  thread = g_thread_new ("writer", writer_thread, &w);
  while (!manager_done (&done))
    g_main_context_iteration (NULL, TRUE);
  g_thread_join (thread);
  g_assert_cmpuint (rfk_manager_get_devices (manager)->len, ==, N_RADIOS);
  /* READY on the end-of-list status, right after the ADDs: the CHANGEs
   * took the path they take in the applet, not the STARTING one. */
  if (done.events_when_ready != N_RADIOS)
    g_error ("bench: the manager was READY after %" G_GINT64_FORMAT
             " events, not at the end of the %d ADDs",
             done.events_when_ready, N_RADIOS);

  close (w.fd);
  close (listen_fd);
  unlink (path);
  return (g_get_monotonic_time () - start) / 1e6;
}

static double
bytes_per_device (guint n)
{
  g_autoptr (RfkManager) manager = rfk_manager_new ("/nonexistent");
  struct mallinfo2 before, after;
  guint8 buf[RFK_EVENT_SIZE_EXT];

  rfk_manager_feed_ready (manager);
  before = mallinfo2 ();
  for (guint32 i = 0; i < n; i++)
    {
      RfkEvent e = { .idx = i, .type = 1 + i % 8, .op = RFK_OP_ADD,
                     .soft = TRUE };

      rfk_manager_feed (manager, buf, rfk_event_encode_ext (&e, buf));
    }
  after = mallinfo2 ();
  g_assert_cmpuint (rfk_manager_get_devices (manager)->len, ==, n);
  return (double) (after.uordblks - before.uordblks) / n;
}

/*
 * What callgrind counts (--toggle-collect=feed_changes): decode plus model
 * update for each packet, nothing else; the packets are encoded before.
 */
G_GNUC_NO_INLINE void feed_changes (RfkManager *manager, const guint8 *packets,
                                    gsize size, guint n);

G_GNUC_NO_INLINE void
feed_changes (RfkManager *manager, const guint8 *packets, gsize size, guint n)
{
  for (guint i = 0; i < n; i++)
    rfk_manager_feed (manager, packets + (gsize) i * size, size);
}

static int
core_cost (guint n_events)
{
  g_autoptr (RfkManager) manager = rfk_manager_new ("/nonexistent");
  g_autofree guint8 *packets = g_malloc ((gsize) n_events * RFK_EVENT_SIZE_EXT);
  RfkManagerStats before, after;
  guint8 buf[RFK_EVENT_SIZE_EXT];
  gsize size = 0;

  for (guint32 i = 0; i < N_RADIOS; i++)
    {
      RfkEvent e = add_event (i);

      rfk_manager_feed (manager, buf, rfk_event_encode_ext (&e, buf));
    }
  rfk_manager_feed_ready (manager);
  for (guint i = 0; i < n_events; i++)
    {
      RfkEvent e = change_event (i);

      size = rfk_event_encode_ext (&e, packets + (gsize) i * RFK_EVENT_SIZE_EXT);
      g_assert_cmpuint (size, ==, RFK_EVENT_SIZE_EXT);
    }
  rfk_manager_get_stats (manager, &before);
  feed_changes (manager, packets, RFK_EVENT_SIZE_EXT, n_events);
  rfk_manager_get_stats (manager, &after);
  /* Every packet was an event the model took, none dropped as junk. */
  g_assert_cmpuint (after.events - before.events, ==, n_events);
  g_assert_cmpuint (rfk_manager_get_devices (manager)->len, ==, N_RADIOS);
  printf ("core-cost: fed %u CHANGE events to a READY manager with %d radios\n",
          n_events, N_RADIOS);
  return 0;
}

int
main (int argc, char **argv)
{
  guint n_events = argc == 2 ? (guint) g_ascii_strtoull (argv[1], NULL, 10)
                             : 200000;
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("rfk-bench-XXXXXX", &error);
  double base, managed, ratio, per_device;
  double target_scale = 1.0;

  g_assert_no_error (error);
  /* Names fall back to rfkillN: we measure the model, not sysfs. */
  g_setenv ("RFKILL_SYSFS_ROOT", "/nonexistent", TRUE);
  /* Airplane mode flips with every toggle round; no state file. */
  {
    g_autofree char *state = g_build_filename (dir, "state", NULL);

    g_setenv ("XDG_STATE_HOME", state, TRUE);
  }

  /* bench-smoke judges against twice the targets
   * (RFK_BENCH_TARGET_SCALE=2, tests/bench/meson.build). */
  if (g_getenv ("RFK_BENCH_TARGET_SCALE") != NULL)
    target_scale = g_ascii_strtod (g_getenv ("RFK_BENCH_TARGET_SCALE"), NULL);
  if (!(target_scale >= 1.0))
    {
      fprintf (stderr, "RFK_BENCH_TARGET_SCALE must be a number >= 1\n");
      return 2;
    }

  if (argc > 2 && strcmp (argv[1], "--core-cost") == 0)
    {
      int status = core_cost ((guint) g_ascii_strtoull (argv[2], NULL, 10));

      rmdir (dir);
      return status;
    }

  /* Warm-up, then the runs that count. */
  run_baseline (n_events / 10);
  run_manager (dir, n_events / 10);
  base = run_baseline (n_events);
  managed = run_manager (dir, n_events);

  printf ("events:          %u (+%d ADDs) on SOCK_SEQPACKET\n", n_events,
          N_RADIOS);
  printf ("baseline:        %.3f s, %.0f events/s (read + decode)\n", base,
          n_events / base);
  printf ("RfkManager:      %.3f s, %.0f events/s (model + signals)\n",
          managed, n_events / managed);
  ratio = managed / base;
  per_device = bytes_per_device (10000);
  printf ("ratio:           %.2f x the baseline time (target <= %.1f)\n",
          ratio, MAX_TIME_RATIO * target_scale);
  printf ("memory/device:   %.0f bytes (10000 devices, target <= %.0f)\n",
          per_device, MAX_BYTES_PER_DEVICE * target_scale);
  rmdir (dir);

  if (ratio > MAX_TIME_RATIO * target_scale
      || per_device > MAX_BYTES_PER_DEVICE * target_scale)
    {
      printf ("target missed\n");
      return 1;
    }
  return 0;
}

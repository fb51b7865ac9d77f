/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Guest-side helper for the fake-ASUS kernel tests (static, runs from the
 * busybox initramfs as root).
 *
 *   asus-guest mark TEXT          write "<TEXT>" to the debugcon port, so the
 *                                 host log interleaves test steps with the
 *                                 fixture's LED writes
 *   asus-guest change-all 0|1     RFKILL_OP_CHANGE_ALL, type ALL
 *   asus-guest change IDX 0|1     RFKILL_OP_CHANGE on one radio
 *   asus-guest owner MS V...      ACQUIRE the airplane-mode indicator, send
 *                                 CHANGE V for each V (marking each, waiting
 *                                 MS ms after it), then mark and close
 *   asus-guest keys NAME MS       print the key events of input device NAME
 *                                 until MS ms pass without one
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/input.h>
#include <linux/rfkill.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/io.h>
#include <time.h>
#include <unistd.h>

#include "rfkill-airplane.h"

#define DEBUGCON_PORT	0x440

static int
fail (const char *what, const char *path)
{
  fprintf (stderr, "asus-guest: %s %s: %s\n", what, path, strerror (errno));
  return 1;
}

static void
sleep_ms (long ms)
{
  struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

  while (nanosleep (&ts, &ts) < 0 && errno == EINTR)
    ;
}

static int
mark (const char *text)
{
  const char *p;

  if (ioperm (DEBUGCON_PORT, 1, 1) < 0)
    return fail ("cannot get access to port", "0x440");
  outb ('<', DEBUGCON_PORT);
  for (p = text; *p; p++)
    outb (*p, DEBUGCON_PORT);
  outb ('>', DEBUGCON_PORT);
  return 0;
}

static int
rfkill_write (int fd, unsigned idx, unsigned op, unsigned soft)
{
  /* The V1 layout (8 bytes) is accepted by every kernel. */
  struct rfkill_event ev = { .idx = idx, .type = RFKILL_TYPE_ALL,
                             .op = op, .soft = soft };

  if (write (fd, &ev, RFKILL_EVENT_SIZE_V1) != RFKILL_EVENT_SIZE_V1)
    return fail ("cannot write op to", "/dev/rfkill");
  return 0;
}

static int
rfkill_once (unsigned idx, unsigned op, unsigned soft)
{
  int fd = open ("/dev/rfkill", O_RDWR | O_CLOEXEC);
  int ret;

  if (fd < 0)
    return fail ("cannot open", "/dev/rfkill");
  ret = rfkill_write (fd, idx, op, soft);
  close (fd);
  return ret;
}

static int
owner (long settle_ms, int argc, char **argv)
{
  char text[32];
  int fd = open ("/dev/rfkill", O_RDWR | O_CLOEXEC);
  int i;

  if (fd < 0)
    return fail ("cannot open", "/dev/rfkill");
  if (mark ("owner-acquire") ||
      rfkill_write (fd, 0, RFKILL_OP_AIRPLANE_MODE_INDICATOR_ACQUIRE, 0))
    return 1;
  sleep_ms (settle_ms);
  for (i = 0; i < argc; i++)
    {
      unsigned soft = strtoul (argv[i], NULL, 0);

      snprintf (text, sizeof text, "owner-change-%u", soft);
      if (mark (text) ||
          rfkill_write (fd, 0, RFKILL_OP_AIRPLANE_MODE_INDICATOR_CHANGE, soft))
        return 1;
      sleep_ms (settle_ms);
    }
  if (mark ("owner-exit"))
    return 1;
  close (fd);
  return 0;
}

/* Finds /dev/input/eventN whose device is called NAME. */
static int
open_input (const char *name)
{
  DIR *dir = opendir ("/sys/class/input");
  struct dirent *de;
  char path[300], buf[128];
  int fd = -1;

  if (!dir)
    return fail ("cannot open", "/sys/class/input");
  while (fd < 0 && (de = readdir (dir)))
    {
      FILE *f;

      if (strncmp (de->d_name, "event", 5) != 0)
        continue;
      snprintf (path, sizeof path, "/sys/class/input/%s/device/name", de->d_name);
      f = fopen (path, "re");
      if (!f)
        continue;
      if (fgets (buf, sizeof buf, f) && strcspn (buf, "\n") == strlen (name) &&
          strncmp (buf, name, strlen (name)) == 0)
        {
          snprintf (path, sizeof path, "/dev/input/%s", de->d_name);
          fd = open (path, O_RDONLY | O_CLOEXEC);
          if (fd < 0)
            fail ("cannot open", path);
        }
      fclose (f);
    }
  closedir (dir);
  if (fd < 0)
    fprintf (stderr, "asus-guest: no input device named \"%s\"\n", name);
  return fd;
}

static int
keys (const char *name, int idle_ms)
{
  struct input_event ev;
  struct pollfd pfd;

  pfd.fd = open_input (name);
  pfd.events = POLLIN;
  if (pfd.fd < 0)
    return 1;
  printf ("keys: ready\n");
  fflush (stdout);
  while (poll (&pfd, 1, idle_ms) > 0)
    {
      if (read (pfd.fd, &ev, sizeof ev) != sizeof ev)
        return fail ("short read from input device", name);
      if (ev.type == EV_KEY)
        printf ("KEY code=%u value=%d\n", ev.code, ev.value);
      fflush (stdout);
    }
  close (pfd.fd);
  return 0;
}

int
main (int argc, char **argv)
{
  if (argc == 3 && strcmp (argv[1], "mark") == 0)
    return mark (argv[2]);
  if (argc == 3 && strcmp (argv[1], "change-all") == 0)
    return rfkill_once (0, RFKILL_OP_CHANGE_ALL, atoi (argv[2]));
  if (argc == 4 && strcmp (argv[1], "change") == 0)
    return rfkill_once (atoi (argv[2]), RFKILL_OP_CHANGE, atoi (argv[3]));
  if (argc >= 3 && strcmp (argv[1], "owner") == 0)
    return owner (atol (argv[2]), argc - 3, argv + 3);
  if (argc == 4 && strcmp (argv[1], "keys") == 0)
    return keys (argv[2], atoi (argv[3]));
  fprintf (stderr, "usage: asus-guest mark TEXT | change-all 0|1 | change IDX 0|1 |"
           " owner MS V... | keys NAME MS\n");
  return 2;
}

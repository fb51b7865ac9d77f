/*
 * rfk-indicator-holder.c: who holds the kernel's airplane-mode indicator.
 *
 * rfkill-airplane's rfkill.ko names the process that took the indicator
 * in /sys/class/misc/rfkill/airplane_mode_holder, as "PID COMM" (the pid
 * as our pid namespace sees it, 0 if it does not), and leaves the file
 * empty while nobody holds it (rfkill-airplane.h).  When our ACQUIRE is
 * refused, the user is told that program's name instead of "another
 * program".  A kernel without the file, or an unreadable line, tells
 * nothing, and the caller says "another program".
 */
#include "config.h"

#include "rfk-indicator-holder.h"

#include <string.h>
#include <glib/gi18n.h>

#include "rfk-identity.h"

/* The misc device's class is the rfkill class's sibling, in the real
 * sysfs and in a test's stand-in for it. */
static char *
dup_holder_path (void)
{
  return g_build_filename (rfk_identity_sysfs_class_dir (), "..", "misc",
                           "rfkill", "airplane_mode_holder", NULL);
}

/* TRUE with the holder's pid (0: not in our namespace) and command name;
 * FALSE when nobody holds it or the kernel does not say. */
gboolean
rfk_indicator_holder_read (guint *out_pid, char **out_comm)
{
  g_autofree char *path = dup_holder_path ();
  g_autofree char *line = NULL;
  char *end = NULL;
  guint64 pid;

  if (!g_file_get_contents (path, &line, NULL, NULL))
    return FALSE;
  g_strchomp (line);
  pid = g_ascii_strtoull (line, &end, 10);
  /* "PID COMM": a comm is at most 15 bytes and may hold spaces */
  if (end == line || *end != ' ' || pid > G_MAXUINT || end[1] == '\0' ||
      strlen (end + 1) > 15 || !g_utf8_validate (end + 1, -1, NULL))
    return FALSE;
  *out_pid = (guint) pid;
  *out_comm = g_strdup (end + 1);
  return TRUE;
}

/* "NAME (process PID)", "NAME" when the pid is hidden from us, or NULL. */
char *
rfk_indicator_holder_describe (void)
{
  g_autofree char *comm = NULL;
  guint pid = 0;

  if (!rfk_indicator_holder_read (&pid, &comm))
    return NULL;
  if (pid == 0)
    return g_steal_pointer (&comm);
  /* TRANSLATORS: a program's name and its process id */
  return g_strdup_printf (_("%s (process %u)"), comm, pid);
}

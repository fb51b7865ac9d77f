/* fail-io.c: a test's own fsync() and rename(), in place of libc's. */
#include "fail-io.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

static GMutex lock;          /* the directory fsync runs on a thread */
static GPtrArray *fsynced;   /* char *: what /proc/self/fd said */
static GPtrArray *renames;   /* char *: "FROM\nTO", fsynced[] count */
static GArray *fsynced_then; /* guint: fsynced->len at each rename */
static char *fail_suffix;

void
fail_io_reset (void)
{
  g_mutex_lock (&lock);
  g_clear_pointer (&fsynced, g_ptr_array_unref);
  g_clear_pointer (&renames, g_ptr_array_unref);
  g_clear_pointer (&fsynced_then, g_array_unref);
  g_clear_pointer (&fail_suffix, g_free);
  g_mutex_unlock (&lock);
}

void
fail_io_fail_rename_to (const char *suffix)
{
  g_mutex_lock (&lock);
  g_free (fail_suffix);
  fail_suffix = g_strdup (suffix);
  g_mutex_unlock (&lock);
}

guint
fail_io_count_fsyncs (const char *prefix)
{
  guint n = 0;

  g_mutex_lock (&lock);
  for (guint i = 0; fsynced != NULL && i < fsynced->len; i++)
    n += g_str_has_prefix (g_ptr_array_index (fsynced, i), prefix);
  g_mutex_unlock (&lock);
  return n;
}

guint
fail_io_count_renames (const char *path, guint *out_fsynced_before)
{
  guint n = 0, before = 0;

  g_mutex_lock (&lock);
  for (guint i = 0; renames != NULL && i < renames->len; i++)
    {
      g_auto (GStrv) from_to = g_strsplit (renames->pdata[i], "\n", 2);
      guint then = g_array_index (fsynced_then, guint, i);

      if (!g_str_equal (from_to[1], path))
        continue;
      n++;
      for (guint j = 0; j < then; j++)
        if (g_str_equal (fsynced->pdata[j], from_to[0]))
          {
            before++;
            break;
          }
    }
  g_mutex_unlock (&lock);
  if (out_fsynced_before != NULL)
    *out_fsynced_before = before;
  return n;
}

int
fsync (int fd)
{
  char link[64], target[4096];
  ssize_t n;

  snprintf (link, sizeof link, "/proc/self/fd/%d", fd);
  n = readlink (link, target, sizeof target - 1);
  if (n > 0)
    {
      target[n] = '\0';
      g_mutex_lock (&lock);
      if (fsynced == NULL)
        fsynced = g_ptr_array_new_with_free_func (g_free);
      g_ptr_array_add (fsynced, g_strdup (target));
      g_mutex_unlock (&lock);
    }
  return syscall (SYS_fsync, fd);
}

int
rename (const char *from, const char *to)
{
  gboolean fail;

  g_mutex_lock (&lock);
  fail = fail_suffix != NULL && g_str_has_suffix (to, fail_suffix);
  if (!fail)
    {
      guint then = fsynced != NULL ? fsynced->len : 0;

      if (renames == NULL)
        {
          renames = g_ptr_array_new_with_free_func (g_free);
          fsynced_then = g_array_new (FALSE, FALSE, sizeof (guint));
        }
      g_ptr_array_add (renames, g_strconcat (from, "\n", to, NULL));
      g_array_append_val (fsynced_then, then);
    }
  g_mutex_unlock (&lock);
  if (fail)
    {
      errno = ENOSPC;
      return -1;
    }
  return renameat (AT_FDCWD, from, AT_FDCWD, to);
}

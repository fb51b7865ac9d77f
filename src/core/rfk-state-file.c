/* rfk-state-file.c: our files in $XDG_STATE_HOME/rfkill-applet/. */
#include "config.h"

#include "rfk-state-file.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define LOCK_NAME "airplane-mode.ini.lock"
/* Ours are a few hundred bytes; anything this big was not written by
 * us and is not read into memory. */
#define MAX_SIZE (1024 * 1024)

char *
rfk_state_file_dup_path (const char *name)
{
  const char *state_home = g_getenv ("XDG_STATE_HOME");

  /* Not g_get_user_state_dir(): it caches, and tests change the variable. */
  if (state_home != NULL && g_path_is_absolute (state_home))
    return g_build_filename (state_home, "rfkill-applet", name, NULL);
  return g_build_filename (g_get_home_dir (), ".local", "state",
                           "rfkill-applet", name, NULL);
}

static gboolean
set_errno_error (GError **error, int saved_errno)
{
  g_set_error_literal (error, G_FILE_ERROR,
                       g_file_error_from_errno (saved_errno),
                       g_strerror (saved_errno));
  return FALSE;
}

static gboolean
not_regular (GError **error)
{
  g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_REGULAR_FILE,
                       _("it is not a regular file"));
  return FALSE;
}

/* Whether path is a regular file (with follow FALSE, path itself, not
 * what a symlink there points to); FALSE with the cause otherwise. */
static gboolean
check_regular (const char *path, gboolean follow, GError **error)
{
  struct stat st;

  if ((follow ? stat (path, &st) : lstat (path, &st)) < 0)
    return set_errno_error (error, errno);
  if (!S_ISREG (st.st_mode))
    return not_regular (error);
  return TRUE;
}

/* The whole of a regular file.  A FIFO is never opened for reading
 * without O_NONBLOCK: that would wait for a writer, forever. */
static char *
read_regular (const char *path, gsize *out_length, GError **error)
{
  g_autoptr (GString) data = g_string_new (NULL);
  struct stat st;
  int fd;

  if (!check_regular (path, TRUE, error))
    return NULL;
  fd = open (path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0)
    {
      set_errno_error (error, errno);
      return NULL;
    }
  /* Replaced by something else between the stat() and the open(). */
  if (fstat (fd, &st) < 0 || !S_ISREG (st.st_mode))
    {
      not_regular (error);
      goto err_close;
    }
  for (;;)
    {
      char buf[4096];
      gssize n = read (fd, buf, sizeof buf);

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          set_errno_error (error, errno);
          goto err_close;
        }
      if (n == 0)
        break;
      g_string_append_len (data, buf, n);
      if (data->len > MAX_SIZE)
        {
          g_set_error_literal (error, G_KEY_FILE_ERROR,
                               G_KEY_FILE_ERROR_PARSE,
                               _("it is far too large"));
          goto err_close;
        }
    }
  close (fd);
  *out_length = data->len;
  return g_string_free (g_steal_pointer (&data), FALSE);

err_close:
  close (fd);
  return NULL;
}

GKeyFile *
rfk_state_file_load (const char *path, GError **error)
{
  g_autoptr (GKeyFile) file = g_key_file_new ();
  g_autofree char *data = NULL;
  gsize length = 0;

  data = read_regular (path, &length, error);
  if (data == NULL)
    return NULL;
  if (!g_key_file_load_from_data (file, data, length, G_KEY_FILE_NONE,
                                  error))
    return NULL;
  return g_steal_pointer (&file);
}

/*
 * Durability.
 *
 * A write is temp file, fsync, rename: once renamed, the new contents are
 * on disk, so a power loss never leaves an empty or torn file behind (a
 * torn restore list would read as "no list", and airplane off would turn
 * every radio on).  That fsync runs on the caller's thread, once per
 * airplane-mode change; it keeps no fd open and queues nothing, so a
 * client flooding us with requests is slowed down by the disk instead of
 * piling up open files (issue 27).
 *
 * The rename itself is durable once the directory is fsynced.  Until
 * then a power loss leaves the old file, whole: the same as a power loss
 * a moment before the save.  So that part is done by one worker thread,
 * coalesced: however many saves come in while it runs, it fsyncs each
 * directory once more.  It opens the directory only while it fsyncs it.
 */
static struct
{
  GMutex lock;
  GCond idle;
  GHashTable *dirs;     /* char * set: directories renamed in, not synced */
  gboolean running;     /* the worker has work or is at it */
  gboolean failed;      /* an fsync failed since the last wait */
} durable;

static gpointer
durable_run (gpointer data)
{
  g_mutex_lock (&durable.lock);
  while (g_hash_table_size (durable.dirs) > 0)
    {
      g_autoptr (GHashTable) dirs = g_steal_pointer (&durable.dirs);
      GHashTableIter iter;
      gpointer dir;
      gboolean ok = TRUE;

      durable.dirs = g_hash_table_new_full (g_str_hash, g_str_equal,
                                            g_free, NULL);
      g_mutex_unlock (&durable.lock);
      g_hash_table_iter_init (&iter, dirs);
      while (g_hash_table_iter_next (&iter, &dir, NULL))
        {
          int fd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

          /* Removed since (a test's temporary directory): nothing left
           * to make durable. */
          if (fd < 0 && errno == ENOENT)
            continue;
          if (fd < 0 || fsync (fd) < 0)
            {
              g_warning (_("Cannot save the state in %s: %s"),
                         (const char *) dir, g_strerror (errno));
              ok = FALSE;
            }
          if (fd >= 0)
            close (fd);
        }
      g_mutex_lock (&durable.lock);
      durable.failed |= !ok;
    }
  durable.running = FALSE;
  g_cond_broadcast (&durable.idle);
  g_mutex_unlock (&durable.lock);
  return NULL;
}

static void
sync_dir_soon (const char *dir)
{
  gboolean start;

  g_mutex_lock (&durable.lock);
  if (durable.dirs == NULL)
    durable.dirs = g_hash_table_new_full (g_str_hash, g_str_equal,
                                          g_free, NULL);
  g_hash_table_add (durable.dirs, g_strdup (dir));
  start = !durable.running;
  durable.running = TRUE;
  g_mutex_unlock (&durable.lock);
  /* One worker at a time; it exits when idle, so a program that saved
   * once does not keep a thread around.  No thread to be had: done here,
   * late is worse than slow. */
  if (start)
    {
      GThread *thread = g_thread_try_new ("rfk-state-sync", durable_run,
                                          NULL, NULL);

      if (thread != NULL)
        g_thread_unref (thread);
      else
        durable_run (NULL);
    }
}

gboolean
rfk_state_file_wait_durable (void)
{
  gboolean ok;

  g_mutex_lock (&durable.lock);
  while (durable.running)
    g_cond_wait (&durable.idle, &durable.lock);
  ok = !durable.failed;
  durable.failed = FALSE;
  g_mutex_unlock (&durable.lock);
  return ok;
}

static gboolean
write_all (int fd, const char *data, gsize length)
{
  while (length > 0)
    {
      gssize n = write (fd, data, length);

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        return FALSE;
      data += n;
      length -= n;
    }
  return TRUE;
}

gboolean
rfk_state_file_write (const char *path, const char *data, gsize length,
                      GError **error)
{
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *tmp = g_strconcat (path, ".XXXXXX", NULL);
  int fd, saved_errno;

  if (g_mkdir_with_parents (dir, 0700) < 0)
    return set_errno_error (error, errno);
  /* 0600: which radios the user keeps off is theirs alone. */
  fd = g_mkstemp_full (tmp, O_WRONLY | O_CLOEXEC, 0600);
  if (fd < 0)
    return set_errno_error (error, errno);
  if (!write_all (fd, data, length) || fsync (fd) < 0)
    goto fail;
  if (close (fd) < 0)
    {
      fd = -1;
      goto fail;
    }
  fd = -1;
  if (g_rename (tmp, path) < 0)
    goto fail;
  sync_dir_soon (dir);
  return TRUE;

fail:
  saved_errno = errno;
  if (fd >= 0)
    close (fd);
  g_unlink (tmp);
  return set_errno_error (error, saved_errno);
}

char *
rfk_state_file_quarantine (const char *path, GError **error)
{
  g_autoptr (GDateTime) now = g_date_time_new_now_utc ();
  g_autofree char *stamp = g_date_time_format (now, "%Y%m%dT%H%M%S");
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *copy = NULL;
  int saved_errno;

  /* The link itself: a symlink in its place is not ours to move. */
  if (!check_regular (path, FALSE, error))
    return NULL;
  /* link() never replaces: a second corruption within the same second
   * gets the next free suffix, and the earlier copy stays as it was. */
  for (guint n = 1;; n++)
    {
      g_free (copy);
      copy = n == 1 ? g_strdup_printf ("%s.corrupt-%s", path, stamp)
                    : g_strdup_printf ("%s.corrupt-%s-%u", path, stamp, n);
      if (link (path, copy) == 0)
        break;
      if (errno != EEXIST || n >= 1000)
        {
          set_errno_error (error, errno);
          return NULL;
        }
    }
  /* Under the lock, nobody replaced path in between. */
  if (unlink (path) < 0)
    {
      saved_errno = errno;
      unlink (copy);
      set_errno_error (error, saved_errno);
      return NULL;
    }
  sync_dir_soon (dir);
  return g_steal_pointer (&copy);
}

/* ---- the lock --------------------------------------------------------- */

struct _RfkStateLock
{
  int fd;               /* the locked file, -1 while not held */
  guint depth;          /* nested holders in this thread */
};

/* One per thread: flock() belongs to the open file, so a thread that
 * opens its own waits for another thread's hold as it would for another
 * process's.  The history is saved from a worker thread (rfk-history.c)
 * while the main thread may hold the lock. */
static _Thread_local RfkStateLock the_lock = { -1, 0 };

RfkStateLock *
rfk_state_file_lock (GError **error)
{
  g_autofree char *path = NULL;
  g_autofree char *dir = NULL;
  int fd, saved_errno;

  if (the_lock.depth > 0)
    {
      the_lock.depth++;
      return &the_lock;
    }
  path = rfk_state_file_dup_path (LOCK_NAME);
  dir = g_path_get_dirname (path);
  if (g_mkdir_with_parents (dir, 0700) < 0)
    goto fail;
  fd = open (path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0)
    goto fail;
  while (flock (fd, LOCK_EX) < 0)
    if (errno != EINTR)
      {
        saved_errno = errno;
        close (fd);
        errno = saved_errno;
        goto fail;
      }
  the_lock.fd = fd;
  the_lock.depth = 1;
  return &the_lock;

fail:
  saved_errno = errno;
  g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved_errno),
               _("Cannot lock %s: %s"), path, g_strerror (saved_errno));
  return NULL;
}

void
rfk_state_lock_release (RfkStateLock *lock)
{
  g_return_if_fail (lock == &the_lock && lock->depth > 0);
  if (--lock->depth > 0)
    return;
  close (lock->fd);  /* releases the flock */
  lock->fd = -1;
}

gboolean
rfk_state_file_is_locked (void)
{
  return the_lock.depth > 0;
}

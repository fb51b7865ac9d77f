/* rfk-airplane-store.c: the restore list of airplane mode, on disk. */
#include "config.h"

#include "rfk-airplane-store.h"

#include <errno.h>
#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#define GROUP_STATE  "airplane-mode"
#define GROUP_RADIOS "radios"
#define KEY_ACTIVE   "active"
#define KEY_CORRUPT  "corrupt-copy"

char *
rfk_airplane_store_dup_path (void)
{
  const char *state_home = g_getenv ("XDG_STATE_HOME");

  /* Not g_get_user_state_dir(): it caches, and tests change the variable. */
  if (state_home != NULL && g_path_is_absolute (state_home))
    return g_build_filename (state_home, "rfkill-applet",
                             "airplane-mode.ini", NULL);
  return g_build_filename (g_get_home_dir (), ".local", "state",
                           "rfkill-applet", "airplane-mode.ini", NULL);
}

RfkAirplaneStore *
rfk_airplane_store_new (void)
{
  RfkAirplaneStore *store = g_new0 (RfkAirplaneStore, 1);

  store->radios = g_hash_table_new_full (g_str_hash, g_str_equal,
                                         g_free, NULL);
  return store;
}

void
rfk_airplane_store_free (RfkAirplaneStore *store)
{
  if (store == NULL)
    return;
  g_hash_table_unref (store->radios);
  g_free (store->corrupt_copy);
  g_free (store);
}

/* Keys are "type:name"; names come from drivers and may hold anything. */
static char *
escape_key (const char *key)
{
  return g_uri_escape_string (key, ":", FALSE);
}

RfkAirplaneStore *
rfk_airplane_store_load (GError **error)
{
  g_autofree char *path = rfk_airplane_store_dup_path ();
  g_autoptr (RfkAirplaneStore) store = rfk_airplane_store_new ();
  g_autoptr (GKeyFile) file = g_key_file_new ();
  g_autoptr (GError) local_error = NULL;
  g_auto (GStrv) keys = NULL;

  if (!g_key_file_load_from_file (file, path, G_KEY_FILE_NONE, &local_error))
    {
      if (g_error_matches (local_error, G_FILE_ERROR, G_FILE_ERROR_NOENT))
        return g_steal_pointer (&store);
      g_set_error (error, local_error->domain, local_error->code,
                   _("Cannot read airplane-mode state %s: %s"), path,
                   local_error->message);
      return NULL;
    }

  store->active = g_key_file_get_boolean (file, GROUP_STATE, KEY_ACTIVE,
                                          &local_error);
  if (local_error != NULL
      && !g_error_matches (local_error, G_KEY_FILE_ERROR,
                           G_KEY_FILE_ERROR_GROUP_NOT_FOUND)
      && !g_error_matches (local_error, G_KEY_FILE_ERROR,
                           G_KEY_FILE_ERROR_KEY_NOT_FOUND))
    {
      g_set_error (error, local_error->domain, local_error->code,
                   _("Cannot read airplane-mode state %s: %s"), path,
                   local_error->message);
      return NULL;
    }
  store->corrupt_copy = g_key_file_get_string (file, GROUP_STATE,
                                               KEY_CORRUPT, NULL);
  keys = g_key_file_get_keys (file, GROUP_RADIOS, NULL, NULL);
  for (guint i = 0; keys != NULL && keys[i] != NULL; i++)
    {
      g_autofree char *value = g_key_file_get_string (file, GROUP_RADIOS,
                                                      keys[i], NULL);
      g_autofree char *key = g_uri_unescape_string (keys[i], NULL);
      gboolean blocked;

      if (key == NULL || value == NULL)
        {
          g_set_error (error, G_KEY_FILE_ERROR,
                       G_KEY_FILE_ERROR_INVALID_VALUE,
                       _("Cannot read airplane-mode state %s: the radio "
                         "“%s” is not readable"), path, keys[i]);
          return NULL;
        }
      if (g_str_equal (value, "blocked"))
        blocked = TRUE;
      else if (g_str_equal (value, "unblocked"))
        blocked = FALSE;
      else
        {
          g_set_error (error, G_KEY_FILE_ERROR,
                       G_KEY_FILE_ERROR_INVALID_VALUE,
                       _("Cannot read airplane-mode state %s: radio “%s” "
                         "has the invalid value “%s”"), path, key, value);
          return NULL;
        }
      rfk_airplane_store_remember (store, key, blocked);
    }
  return g_steal_pointer (&store);
}

/*
 * Durability off the critical path.
 *
 * Airplane mode saves the list before it blocks anything, so that a crash
 * halfway leaves the list behind.  What a crash of the program needs is
 * the new file in place, which write() + rename() give at once: the data
 * is in the page cache and every later reader sees it.  What a power loss
 * needs is the data on disk, and an fsync() costs from milliseconds to a
 * second on a busy disk; done before the kernel writes, it would delay
 * airplane mode by that much (and, in the applet, freeze the menu).  So
 * the file is written and renamed into place here, and one worker thread
 * fsyncs it and its directory right after, in the order of the saves.
 *
 * Power lost between the rename and that fsync (a window of one fsync,
 * while the radios are being blocked): the kernel's rfkill state is lost
 * too, and at boot systemd-rfkill restores what it saved.  Our list is
 * then the old one or the new one: ext4 (auto_da_alloc) and btrfs commit
 * the data of a file renamed over another with the rename.  A filesystem
 * that does not may leave it empty; an empty file reads as "no list", so
 * the worst case is that ending airplane mode turns every radio on,
 * including one that was off before.  A torn file is never taken for a
 * list: it fails to parse and is kept aside (keep_corrupt_store()).
 * rfk_airplane_store_wait_durable() waits for the worker, for a program
 * about to exit (the manager's finalize does it).
 */
static struct
{
  GMutex lock;
  GCond done;
  guint pending;        /* saves not yet fsynced */
  gboolean failed;      /* an fsync failed since the last wait */
  GThreadPool *pool;    /* one thread: fsyncs in the order of the saves */
} durable;

typedef struct {
  int fd;               /* the new file, already renamed into place */
  char *path;
} DurableJob;

static void
durable_job_run (gpointer data, gpointer user_data)
{
  DurableJob *job = data;
  g_autofree char *dir = g_path_get_dirname (job->path);
  gboolean ok = fsync (job->fd) == 0;
  int dir_fd;

  if (!ok)
    g_warning (_("Cannot save airplane-mode state %s: %s"), job->path,
               g_strerror (errno));
  close (job->fd);
  /* The rename itself lives in the directory. */
  dir_fd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd >= 0)
    {
      fsync (dir_fd);
      close (dir_fd);
    }
  g_free (job->path);
  g_free (job);

  g_mutex_lock (&durable.lock);
  durable.failed |= !ok;
  durable.pending--;
  g_cond_broadcast (&durable.done);
  g_mutex_unlock (&durable.lock);
}

static void
make_durable_later (int fd, const char *path)
{
  DurableJob *job = g_new0 (DurableJob, 1);

  job->fd = fd;
  job->path = g_strdup (path);
  g_mutex_lock (&durable.lock);
  if (durable.pool == NULL)
    durable.pool = g_thread_pool_new (durable_job_run, NULL, 1, FALSE, NULL);
  durable.pending++;
  g_mutex_unlock (&durable.lock);
  g_thread_pool_push (durable.pool, job, NULL);
}

/* Replaces path with data, atomically for readers; durable soon after. */
static gboolean
write_replace (const char *path, const char *data, gsize length,
               GError **error)
{
  g_autofree char *tmp = g_strconcat (path, ".XXXXXX", NULL);
  int fd = g_mkstemp_full (tmp, O_WRONLY | O_CLOEXEC, 0600);
  int saved_errno;

  if (fd < 0)
    goto fail;
  while (length > 0)
    {
      gssize n = write (fd, data, length);

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        goto fail_unlink;
      data += n;
      length -= n;
    }
  if (g_rename (tmp, path) < 0)
    goto fail_unlink;
  make_durable_later (fd, path);
  return TRUE;

fail_unlink:
  saved_errno = errno;
  close (fd);
  g_unlink (tmp);
  errno = saved_errno;
fail:
  saved_errno = errno;
  g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved_errno),
               "%s", g_strerror (saved_errno));
  return FALSE;
}

gboolean
rfk_airplane_store_save (const RfkAirplaneStore *store, GError **error)
{
  g_autofree char *path = rfk_airplane_store_dup_path ();
  g_autofree char *dir = g_path_get_dirname (path);
  g_autoptr (GKeyFile) file = g_key_file_new ();
  g_autoptr (GError) local_error = NULL;
  g_autofree char *data = NULL;
  GHashTableIter iter;
  gpointer key, value;
  gsize length;

  if (g_mkdir_with_parents (dir, 0700) < 0)
    {
      int saved_errno = errno;

      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved_errno),
                   _("Cannot create %s: %s"), dir, g_strerror (saved_errno));
      return FALSE;
    }

  g_key_file_set_boolean (file, GROUP_STATE, KEY_ACTIVE, store->active);
  if (store->corrupt_copy != NULL)
    g_key_file_set_string (file, GROUP_STATE, KEY_CORRUPT,
                           store->corrupt_copy);
  g_hash_table_iter_init (&iter, store->radios);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      g_autofree char *escaped = escape_key (key);

      g_key_file_set_string (file, GROUP_RADIOS, escaped,
                             GPOINTER_TO_INT (value) - 1 ? "blocked"
                                                         : "unblocked");
    }
  data = g_key_file_to_data (file, &length, NULL);
  if (!write_replace (path, data, length, &local_error))
    {
      g_set_error (error, local_error->domain, local_error->code,
                   _("Cannot save airplane-mode state %s: %s"), path,
                   local_error->message);
      return FALSE;
    }
  return TRUE;
}

gboolean
rfk_airplane_store_wait_durable (void)
{
  gboolean ok;

  g_mutex_lock (&durable.lock);
  while (durable.pending > 0)
    g_cond_wait (&durable.done, &durable.lock);
  ok = !durable.failed;
  durable.failed = FALSE;
  g_mutex_unlock (&durable.lock);
  return ok;
}

void
rfk_airplane_store_remember (RfkAirplaneStore *store, const char *key,
                             gboolean soft_blocked)
{
  g_hash_table_replace (store->radios, g_strdup (key),
                        GINT_TO_POINTER (soft_blocked ? 2 : 1));
}

gboolean
rfk_airplane_store_lookup (const RfkAirplaneStore *store, const char *key,
                           gboolean *out_soft_blocked)
{
  gpointer value = g_hash_table_lookup (store->radios, key);

  if (value == NULL)
    return FALSE;
  if (out_soft_blocked)
    *out_soft_blocked = GPOINTER_TO_INT (value) == 2;
  return TRUE;
}

void
rfk_airplane_store_clear (RfkAirplaneStore *store)
{
  store->active = FALSE;
  g_clear_pointer (&store->corrupt_copy, g_free);
  g_hash_table_remove_all (store->radios);
}

int
rfk_airplane_store_lock (GError **error)
{
  g_autofree char *path = rfk_airplane_store_dup_path ();
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *lock = g_strconcat (path, ".lock", NULL);
  int fd, saved_errno;

  if (g_mkdir_with_parents (dir, 0700) < 0)
    goto fail;
  fd = open (lock, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
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
  return fd;

fail:
  saved_errno = errno;
  g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved_errno),
               _("Cannot lock %s: %s"), lock, g_strerror (saved_errno));
  return -1;
}

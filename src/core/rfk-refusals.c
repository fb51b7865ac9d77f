/* rfk-refusals.c: radios whose driver refused our last change, on disk. */
#include "config.h"

#include "rfk-refusals.h"

#include <glib/gi18n.h>
#include <sys/stat.h>

#include "rfk-state-file.h"

#define GROUP "refused"

char *
rfk_refusals_dup_path (void)
{
  return rfk_state_file_dup_path ("refused-radios.ini");
}

typedef enum {
  FILE_MISSING,
  FILE_READ,
  FILE_CORRUPT,         /* a regular file we could not parse */
  FILE_UNREADABLE,      /* anything else: left alone, never written over */
} FileState;

/*
 * The file as last read.  Every radio added looks itself up (and, when
 * not refused, makes sure it is not on the list), so reading the file
 * each time read it twice per radio on the main loop.  It is kept here
 * instead, with what stat() said of it then: every write, ours or another
 * process's, is a rename of a new file, so a change shows as another
 * inode and other times, and one stat() per use is enough to reload.
 * Said once per version of the file, too: a corrupt or unreadable one is
 * warned about when found, not at each radio.
 */
static struct
{
  char *path;           /* the cache is of this file (tests move it) */
  FileState state;
  struct stat st;       /* when state != FILE_MISSING */
  GKeyFile *file;       /* when FILE_READ or FILE_MISSING: the contents */
  char *why;            /* when FILE_CORRUPT: the parser's complaint */
  guint reads;
} cache;

static gboolean
same_file (const struct stat *a, const struct stat *b)
{
  return a->st_dev == b->st_dev && a->st_ino == b->st_ino
         && a->st_size == b->st_size
         && a->st_mtim.tv_sec == b->st_mtim.tv_sec
         && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec
         && a->st_ctim.tv_sec == b->st_ctim.tv_sec
         && a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

static void
reload (const char *path, const struct stat *st, gboolean exists)
{
  g_autoptr (GError) error = NULL;

  g_clear_pointer (&cache.file, g_key_file_unref);
  g_clear_pointer (&cache.why, g_free);
  g_free (cache.path);
  cache.path = g_strdup (path);
  if (!exists)
    {
      cache.state = FILE_MISSING;
      cache.file = g_key_file_new ();
      return;
    }
  cache.st = *st;
  cache.reads++;
  cache.file = rfk_state_file_load (path, &error);
  if (cache.file != NULL)
    cache.state = FILE_READ;
  else if (g_error_matches (error, G_FILE_ERROR, G_FILE_ERROR_NOENT))
    {
      cache.state = FILE_MISSING;  /* gone since the stat() */
      cache.file = g_key_file_new ();
    }
  else if (error->domain == G_KEY_FILE_ERROR)
    {
      cache.state = FILE_CORRUPT;
      cache.why = g_strdup (error->message);
      g_warning (_("The list of radios that refused a change, %s, is "
                   "corrupt (%s): no radio counts as refused, and the "
                   "file is kept aside before a new one is written."),
                 path, error->message);
    }
  else
    {
      cache.state = FILE_UNREADABLE;
      g_warning (_("Cannot read the list of radios that refused a change, "
                   "%s: %s"), path, error->message);
    }
}

/* Brings the cache up to date with the file on disk. */
static void
refresh (void)
{
  g_autofree char *path = rfk_refusals_dup_path ();
  struct stat st;
  gboolean exists = stat (path, &st) == 0;

  if (cache.path != NULL && g_str_equal (cache.path, path)
      && (exists ? cache.state != FILE_MISSING && same_file (&st, &cache.st)
                 : cache.state == FILE_MISSING))
    return;
  reload (path, &st, exists);
}

gboolean
rfk_refusals_lookup (const char *key, gboolean soft_stayed)
{
  g_autofree char *escaped = g_uri_escape_string (key, ":", FALSE);
  g_autofree char *value = NULL;

  refresh ();
  if (cache.file == NULL || cache.state == FILE_MISSING)
    return FALSE;
  value = g_key_file_get_string (cache.file, GROUP, escaped, NULL);
  return g_strcmp0 (value, soft_stayed ? "blocked" : "unblocked") == 0;
}

/* A corrupt file is moved aside before a new one is written over it, so
 * what the user may want to look at is kept; FALSE if it could not be. */
static gboolean
keep_corrupt (const char *path)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *copy = rfk_state_file_quarantine (path, &error);

  if (copy == NULL)
    {
      g_warning (_("The list of radios that refused a change, %s, is "
                   "corrupt (%s) and cannot be moved aside: %s"),
                 path, cache.why, error->message);
      return FALSE;
    }
  g_warning (_("The list of radios that refused a change, %s, was corrupt "
               "(%s); it is kept as %s and a new list is started."),
             path, cache.why, copy);
  g_clear_pointer (&cache.why, g_free);
  cache.state = FILE_MISSING;
  cache.file = g_key_file_new ();
  return TRUE;
}

static void
save (const char *path)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *data = NULL;
  gsize length;
  struct stat st;

  data = g_key_file_to_data (cache.file, &length, NULL);
  if (!rfk_state_file_write (path, data, length, &error))
    {
      g_warning (_("Cannot save the list of radios that refused a change, "
                   "%s: %s"), path, error->message);
      g_clear_pointer (&cache.path, g_free);  /* read it again next time */
      return;
    }
  /* Our own write is no news: no need to read it back. */
  if (stat (path, &st) == 0)
    {
      cache.state = FILE_READ;
      cache.st = st;
    }
  else
    g_clear_pointer (&cache.path, g_free);
}

void
rfk_refusals_set (const char *key, gboolean refused, gboolean soft_stayed)
{
  g_autofree char *escaped = g_uri_escape_string (key, ":", FALSE);
  g_autoptr (RfkStateLock) lock = NULL;
  g_autoptr (GError) error = NULL;

  /* Nothing to forget: no lock, no write (the common case, once per
   * radio added).  Under the lock below it is checked again. */
  if (!refused)
    {
      refresh ();
      if (cache.file == NULL
          || !g_key_file_has_key (cache.file, GROUP, escaped, NULL))
        return;
    }
  lock = rfk_state_file_lock (&error);
  if (lock == NULL)
    {
      g_warning ("%s", error->message);
      return;
    }
  refresh ();
  if (cache.state == FILE_UNREADABLE
      || (cache.state == FILE_CORRUPT && !keep_corrupt (cache.path)))
    return;
  if (refused)
    g_key_file_set_string (cache.file, GROUP, escaped,
                           soft_stayed ? "blocked" : "unblocked");
  else if (!g_key_file_remove_key (cache.file, GROUP, escaped, NULL))
    return;
  save (cache.path);
}

guint
rfk_refusals_get_reads (void)
{
  return cache.reads;
}

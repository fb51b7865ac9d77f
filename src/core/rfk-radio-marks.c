/* rfk-radio-marks.c: a fact about some radios, kept on disk by stable key. */
#include "config.h"

#include "rfk-radio-marks.h"

#include <glib/gi18n.h>
#include <sys/stat.h>

#include "rfk-state-file.h"

typedef enum {
  FILE_MISSING,
  FILE_READ,
  FILE_CORRUPT,         /* a regular file we could not parse */
  FILE_UNREADABLE,      /* anything else: left alone, never written over */
} FileState;

/*
 * The file as last read.  Every radio added looks itself up, so reading
 * the file each time would read it once per radio on the main loop.  It
 * is kept here instead, with what stat() said of it then: every write,
 * ours or another process's, is a rename of a new file, so a change
 * shows as another inode and other times, and one stat() per use is
 * enough to reload.  Said once per version of the file, too: a corrupt
 * or unreadable one is warned about when found, not at each radio.
 */
struct _RfkRadioMarksCache
{
  char *path;           /* the cache is of this file (tests move it) */
  FileState state;
  struct stat st;       /* when state != FILE_MISSING */
  GKeyFile *file;       /* when FILE_READ or FILE_MISSING: the contents */
  char *why;            /* when FILE_CORRUPT: the parser's complaint */
  guint reads;
};

char *
rfk_radio_marks_dup_path (RfkRadioMarks *marks)
{
  return rfk_state_file_dup_path (marks->file_name);
}

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
reload (RfkRadioMarks *marks, const char *path, const struct stat *st,
        gboolean exists)
{
  RfkRadioMarksCache *cache = marks->cache;
  g_autoptr (GError) error = NULL;

  g_clear_pointer (&cache->file, g_key_file_unref);
  g_clear_pointer (&cache->why, g_free);
  g_free (cache->path);
  cache->path = g_strdup (path);
  if (!exists)
    {
      cache->state = FILE_MISSING;
      cache->file = g_key_file_new ();
      return;
    }
  cache->st = *st;
  cache->reads++;
  cache->file = rfk_state_file_load (path, &error);
  if (cache->file != NULL)
    cache->state = FILE_READ;
  else if (g_error_matches (error, G_FILE_ERROR, G_FILE_ERROR_NOENT))
    {
      cache->state = FILE_MISSING;  /* gone since the stat() */
      cache->file = g_key_file_new ();
    }
  else if (error->domain == G_KEY_FILE_ERROR)
    {
      cache->state = FILE_CORRUPT;
      cache->why = g_strdup (error->message);
      /* TRANSLATORS: the first %s is what the file holds, e.g. "The list
       * of radios that refused a change"; the second its path. */
      g_warning (_("%s, %s, is corrupt (%s): it counts as empty, and the "
                   "file is kept aside before a new one is written."),
                 _(marks->what), path, error->message);
    }
  else
    {
      cache->state = FILE_UNREADABLE;
      g_warning (_("%s, %s, cannot be read: %s"), _(marks->what), path,
                 error->message);
    }
}

/* Brings the cache up to date with the file on disk. */
static void
refresh (RfkRadioMarks *marks)
{
  g_autofree char *path = rfk_radio_marks_dup_path (marks);
  RfkRadioMarksCache *cache;
  struct stat st;
  gboolean exists = stat (path, &st) == 0;

  if (marks->cache == NULL)
    marks->cache = g_new0 (RfkRadioMarksCache, 1);  /* lives as long */
  cache = marks->cache;
  if (cache->path != NULL && g_str_equal (cache->path, path)
      && (exists ? cache->state != FILE_MISSING && same_file (&st, &cache->st)
                 : cache->state == FILE_MISSING))
    return;
  reload (marks, path, &st, exists);
}

static char *
escape_key (const char *key)
{
  return g_uri_escape_string (key, ":", FALSE);
}

char *
rfk_radio_marks_lookup (RfkRadioMarks *marks, const char *key)
{
  g_autofree char *escaped = escape_key (key);

  refresh (marks);
  if (marks->cache->file == NULL || marks->cache->state == FILE_MISSING)
    return NULL;
  return g_key_file_get_string (marks->cache->file, marks->group, escaped,
                                NULL);
}

/* A corrupt file is moved aside before a new one is written over it, so
 * what the user may want to look at is kept; FALSE if it could not be. */
static gboolean
keep_corrupt (RfkRadioMarks *marks)
{
  RfkRadioMarksCache *cache = marks->cache;
  g_autoptr (GError) error = NULL;
  g_autofree char *copy = rfk_state_file_quarantine (cache->path, &error);

  if (copy == NULL)
    {
      g_warning (_("%s, %s, is corrupt (%s) and cannot be moved aside: %s"),
                 _(marks->what), cache->path, cache->why, error->message);
      return FALSE;
    }
  g_warning (_("%s, %s, was corrupt (%s); it is kept as %s and a new list "
               "is started."),
             _(marks->what), cache->path, cache->why, copy);
  g_clear_pointer (&cache->why, g_free);
  cache->state = FILE_MISSING;
  cache->file = g_key_file_new ();
  return TRUE;
}

static gboolean
save (RfkRadioMarks *marks)
{
  RfkRadioMarksCache *cache = marks->cache;
  g_autoptr (GError) error = NULL;
  g_autofree char *data = NULL;
  gsize length;
  struct stat st;

  data = g_key_file_to_data (cache->file, &length, NULL);
  if (!rfk_state_file_write (cache->path, data, length, &error))
    {
      g_warning (_("%s, %s, cannot be saved: %s"), _(marks->what),
                 cache->path, error->message);
      g_clear_pointer (&cache->path, g_free);  /* read it again next time */
      return FALSE;
    }
  /* Our own write is no news: no need to read it back. */
  if (stat (cache->path, &st) == 0)
    {
      cache->state = FILE_READ;
      cache->st = st;
    }
  else
    g_clear_pointer (&cache->path, g_free);
  return TRUE;
}

gboolean
rfk_radio_marks_set (RfkRadioMarks *marks, const char *key,
                     const char *value)
{
  g_autofree char *escaped = escape_key (key);
  g_autoptr (RfkStateLock) lock = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *old = NULL;

  /* Nothing to change: no lock, no write (the common case: every radio
   * added makes sure it is not marked).  Under the lock it is checked
   * again. */
  old = rfk_radio_marks_lookup (marks, key);
  if (g_strcmp0 (old, value) == 0)
    return TRUE;
  lock = rfk_state_file_lock (&error);
  if (lock == NULL)
    {
      g_warning ("%s", error->message);
      return FALSE;
    }
  refresh (marks);
  if (marks->cache->state == FILE_UNREADABLE
      || (marks->cache->state == FILE_CORRUPT && !keep_corrupt (marks)))
    return FALSE;
  if (value != NULL)
    g_key_file_set_string (marks->cache->file, marks->group, escaped, value);
  else if (!g_key_file_remove_key (marks->cache->file, marks->group, escaped,
                                   NULL))
    return TRUE;
  return save (marks);
}

guint
rfk_radio_marks_get_reads (RfkRadioMarks *marks)
{
  return marks->cache != NULL ? marks->cache->reads : 0;
}

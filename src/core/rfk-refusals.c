/* rfk-refusals.c: radios whose driver refused our last change, on disk. */
#include "config.h"

#include "rfk-refusals.h"

#include <errno.h>
#include <glib/gi18n.h>
#include <glib/gstdio.h>

#define GROUP "refused"

char *
rfk_refusals_dup_path (void)
{
  const char *state_home = g_getenv ("XDG_STATE_HOME");

  /* As rfk_airplane_store_dup_path(): tests change the variable. */
  if (state_home != NULL && g_path_is_absolute (state_home))
    return g_build_filename (state_home, "rfkill-applet",
                             "refused-radios.ini", NULL);
  return g_build_filename (g_get_home_dir (), ".local", "state",
                           "rfkill-applet", "refused-radios.ini", NULL);
}

/* A file we cannot parse is moved aside (PATH.corrupt-STAMP, as the
 * restore list's is) before a new one is written over it, so what the
 * user may want to look at is kept; FALSE if it could not be moved. */
static gboolean
keep_corrupt (const char *path, const GError *why)
{
  g_autoptr (GDateTime) now = g_date_time_new_now_utc ();
  g_autofree char *stamp = g_date_time_format (now, "%Y%m%dT%H%M%S");
  g_autofree char *copy = g_strdup_printf ("%s.corrupt-%s", path, stamp);

  if (g_rename (path, copy) < 0)
    {
      g_warning (_("The list of radios that refused a change, %s, is "
                   "corrupt (%s) and cannot be moved aside: %s"),
                 path, why->message, g_strerror (errno));
      return FALSE;
    }
  g_warning (_("The list of radios that refused a change, %s, was corrupt "
               "(%s); it is kept as %s and a new list is started."),
             path, why->message, copy);
  return TRUE;
}

/* The file's contents, or an empty file when there is none.  Unreadable
 * or corrupt, it is said why and nothing counts as refused: the cost is
 * one more wait for the timeout.  NULL when the file is there but must
 * not be written over (unreadable, or corrupt and not moved aside). */
static GKeyFile *
load (const char *path)
{
  g_autoptr (GKeyFile) file = g_key_file_new ();
  g_autoptr (GError) error = NULL;

  if (g_key_file_load_from_file (file, path, G_KEY_FILE_NONE, &error)
      || g_error_matches (error, G_FILE_ERROR, G_FILE_ERROR_NOENT))
    return g_steal_pointer (&file);
  /* Only a file we read and could not parse is corrupt: GKeyFile reports
   * something else in its place (a directory) as a parse error too. */
  if (error->domain == G_KEY_FILE_ERROR
      && g_file_test (path, G_FILE_TEST_IS_REGULAR))
    return keep_corrupt (path, error) ? g_key_file_new () : NULL;
  g_warning (_("Cannot read the list of radios that refused a change: %s"),
             error->message);
  return NULL;
}

gboolean
rfk_refusals_lookup (const char *key, gboolean soft_stayed)
{
  g_autofree char *path = rfk_refusals_dup_path ();
  g_autoptr (GKeyFile) file = NULL;
  g_autofree char *escaped = g_uri_escape_string (key, ":", FALSE);
  g_autofree char *value = NULL;

  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    return FALSE;
  file = load (path);
  if (file == NULL)
    return FALSE;
  value = g_key_file_get_string (file, GROUP, escaped, NULL);
  return g_strcmp0 (value, soft_stayed ? "blocked" : "unblocked") == 0;
}

void
rfk_refusals_set (const char *key, gboolean refused, gboolean soft_stayed)
{
  g_autofree char *path = rfk_refusals_dup_path ();
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *escaped = g_uri_escape_string (key, ":", FALSE);
  g_autoptr (GKeyFile) file = NULL;
  g_autoptr (GError) error = NULL;

  if (!refused && !g_file_test (path, G_FILE_TEST_EXISTS))
    return;
  file = load (path);
  if (file == NULL)
    return;
  if (refused)
    g_key_file_set_string (file, GROUP, escaped,
                           soft_stayed ? "blocked" : "unblocked");
  else if (!g_key_file_remove_key (file, GROUP, escaped, NULL))
    return;
  if (g_mkdir_with_parents (dir, 0700) < 0
      || !g_key_file_save_to_file (file, path, &error))
    g_warning ("Cannot save %s: %s", path,
               error != NULL ? error->message : g_strerror (errno));
}

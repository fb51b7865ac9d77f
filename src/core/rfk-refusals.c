/* rfk-refusals.c: radios whose driver refused our last change, on disk. */
#include "config.h"

#include "rfk-refusals.h"

#include <errno.h>
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

static GKeyFile *
load (const char *path)
{
  GKeyFile *file = g_key_file_new ();

  /* Missing or unreadable: nothing refused (we wait once more). */
  g_key_file_load_from_file (file, path, G_KEY_FILE_NONE, NULL);
  return file;
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

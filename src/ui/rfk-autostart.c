/* rfk-autostart.c: "Start at login" through an XDG autostart override. */
#include "config.h"

#include <errno.h>
#include <gio/gio.h>
#include <glib/gi18n.h>
#include <glib/gstdio.h>

#include "rfk-autostart.h"

char *
rfk_autostart_dup_override_path (void)
{
  return g_build_filename (g_get_user_config_dir (), "autostart",
                           APP_ID ".desktop", NULL);
}

gboolean
rfk_autostart_get_enabled (void)
{
  g_autofree char *path = rfk_autostart_dup_override_path ();
  g_autoptr(GKeyFile) keyfile = g_key_file_new ();

  /* No override, or one we cannot read: the system entry is in force. */
  if (!g_key_file_load_from_file (keyfile, path, G_KEY_FILE_NONE, NULL))
    return TRUE;

  if (g_key_file_get_boolean (keyfile, G_KEY_FILE_DESKTOP_GROUP,
                              G_KEY_FILE_DESKTOP_KEY_HIDDEN, NULL))
    return FALSE;
  /* GNOME's own switch for the same thing. */
  if (g_key_file_has_key (keyfile, G_KEY_FILE_DESKTOP_GROUP,
                          "X-GNOME-Autostart-enabled", NULL) &&
      !g_key_file_get_boolean (keyfile, G_KEY_FILE_DESKTOP_GROUP,
                               "X-GNOME-Autostart-enabled", NULL))
    return FALSE;
  return TRUE;
}

static gboolean
write_override (const char *path, GError **error)
{
  g_autofree char *dir = g_path_get_dirname (path);
  g_autoptr(GKeyFile) keyfile = g_key_file_new ();
  g_autofree char *data = NULL;
  gsize length = 0;

  if (g_mkdir_with_parents (dir, 0755) < 0)
    {
      int saved_errno = errno;
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved_errno),
                   _("Cannot create %s: %s"), dir, g_strerror (saved_errno));
      return FALSE;
    }

  /* A complete entry, so that validators and desktops that read the user
   * file alone still understand it. */
  g_key_file_set_string (keyfile, G_KEY_FILE_DESKTOP_GROUP,
                         G_KEY_FILE_DESKTOP_KEY_TYPE, "Application");
  g_key_file_set_string (keyfile, G_KEY_FILE_DESKTOP_GROUP,
                         G_KEY_FILE_DESKTOP_KEY_NAME, "rfkill-applet");
  g_key_file_set_string (keyfile, G_KEY_FILE_DESKTOP_GROUP,
                         G_KEY_FILE_DESKTOP_KEY_EXEC, "rfkill-applet");
  g_key_file_set_boolean (keyfile, G_KEY_FILE_DESKTOP_GROUP,
                          G_KEY_FILE_DESKTOP_KEY_HIDDEN, TRUE);
  data = g_key_file_to_data (keyfile, &length, NULL);

  if (!g_file_set_contents (path, data, length, error))
    {
      g_prefix_error (error, _("Cannot write %s: "), path);
      return FALSE;
    }
  return TRUE;
}

gboolean
rfk_autostart_set_enabled (gboolean enabled, GError **error)
{
  g_autofree char *path = rfk_autostart_dup_override_path ();

  if (!enabled)
    return write_override (path, error);

  if (g_unlink (path) < 0 && errno != ENOENT)
    {
      int saved_errno = errno;
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved_errno),
                   _("Cannot remove %s: %s"), path, g_strerror (saved_errno));
      return FALSE;
    }
  return TRUE;
}

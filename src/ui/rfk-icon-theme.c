/* rfk-icon-theme.c: the applet's own icons, and where they are installed. */
#include "config.h"

#include "rfk-icon-theme.h"

/*
 * Why always ours, never the desktop theme's (network-wireless-symbolic,
 * airplane-mode-symbolic): the panel draws the item's icon from *its*
 * theme, which the applet cannot ask.  Plasma and LXQt use Breeze, which
 * has no airplane-mode-symbolic, and drew nothing or a placeholder.  Our
 * names resolve everywhere through hicolor, and through IconThemePath on
 * hosts that look there first.
 *
 * Why full colour, not symbolic: waybar (and Qt hosts without a
 * stylesheet in the SVG) draw an icon as it is; a symbolic icon is dark
 * then, and vanishes on a dark bar.  White or amber shapes on a dark
 * outline read on light and dark panels alike, recoloured or not.
 */
static const char *const names[RFK_ICON_COUNT] = {
  [RFK_ICON_RADIOS_ON] = APP_ID "-radios-on",
  [RFK_ICON_AIRPLANE_MODE] = APP_ID "-airplane-mode",
  [RFK_ICON_HARDWARE_SWITCH] = APP_ID "-hardware-switch",
  [RFK_ICON_NO_SUPPORT] = APP_ID "-no-radios",
};

const char *
rfk_icon_name (RfkIconState state)
{
  g_return_val_if_fail (state < RFK_ICON_COUNT, NULL);
  return names[state];
}

char *
rfk_icon_relative_path (const char *name)
{
  g_autofree char *file = NULL;

  g_return_val_if_fail (name != NULL, NULL);
  file = g_strconcat (name, ".svg", NULL);
  /* data/icons/hicolor mirrors the installed tree: status icons only. */
  return g_build_filename ("hicolor", "scalable", "status", file, NULL);
}

char *
rfk_icon_theme_dir (const char *const *data_dirs, const char *installed_dir)
{
  g_autofree char *probe = rfk_icon_relative_path (names[RFK_ICON_RADIOS_ON]);

  for (gsize i = 0; data_dirs != NULL && data_dirs[i] != NULL; i++)
    {
      g_autofree char *dir = g_build_filename (data_dirs[i], "icons", NULL);
      g_autofree char *path = g_build_filename (dir, probe, NULL);

      if (g_file_test (path, G_FILE_TEST_IS_REGULAR))
        return g_steal_pointer (&dir);
    }
  return g_strdup (installed_dir);
}

char *
rfk_icon_dir (void)
{
  return rfk_icon_theme_dir (g_get_system_data_dirs (), RFK_ICONDIR);
}

GIcon *
rfk_icon_new (RfkIconState state)
{
  g_autofree char *dir = rfk_icon_dir ();
  g_autofree char *relative = rfk_icon_relative_path (rfk_icon_name (state));
  g_autofree char *path = g_build_filename (dir, relative, NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);

  return g_file_icon_new (file);
}

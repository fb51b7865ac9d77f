/*
 * rfk-icon-theme.h: whether the desktop's icon theme has an icon, found
 * as the Icon Theme Specification says, without GtkIconTheme.
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define RFK_TYPE_ICON_THEME (rfk_icon_theme_get_type ())
G_DECLARE_FINAL_TYPE (RfkIconTheme, rfk_icon_theme, RFK, ICON_THEME, GObject)

/*
 * The icon theme GTK would use on the default screen, and the themes it
 * falls back to.  Emits "changed" when the desktop names another theme.
 * One at a time: it watches GDK's events for the setting.
 */
RfkIconTheme *rfk_icon_theme_new (void);

/* For tests: the theme called name, looked for under base_dirs (each
 * holding themes, as $XDG_DATA_DIRS/icons does).  Watches nothing. */
RfkIconTheme *rfk_icon_theme_new_for_dirs (const char *name,
                                           const char *const *base_dirs);

const char *rfk_icon_theme_get_name (RfkIconTheme *self);

/* Whether the theme, a theme it inherits or a fallback has icon_name. */
gboolean rfk_icon_theme_has_icon (RfkIconTheme *self, const char *icon_name);

G_END_DECLS

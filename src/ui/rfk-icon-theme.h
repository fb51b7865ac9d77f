/*
 * rfk-icon-theme.h: the applet's own icons.  One name per state, all
 * installed in hicolor, the theme every icon theme inherits, so that any
 * panel finds them whatever its own theme (Breeze, Adwaita, a GTK or a Qt
 * one); and the directory they are installed in, which the tray item
 * publishes as its IconThemePath.
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

typedef enum {
  RFK_ICON_RADIOS_ON,
  RFK_ICON_AIRPLANE_MODE,
  RFK_ICON_HARDWARE_SWITCH, /* a switch holds the radios airplane mode
                               counts (rfk-hardware-airplane.h) */
  RFK_ICON_NO_SUPPORT,      /* no /dev/rfkill, or no radio at all */
  RFK_ICON_COUNT
} RfkIconState;

/* Our icon for the state: APP_ID "-radios-on" and so on. */
const char *rfk_icon_name (RfkIconState state);

/* Where the icon of name is installed below an icons directory. */
char *rfk_icon_relative_path (const char *name);

/*
 * The icons directory (holding hicolor/) that has our icons: the first of
 * data_dirs (each an $XDG_DATA_DIRS entry) whose icons/ does, so that the
 * build tree's data directory wins under `meson devenv`; else
 * installed_dir, where `meson install` put them.
 */
char *rfk_icon_theme_dir (const char *const *data_dirs,
                          const char *installed_dir);

/* rfk_icon_theme_dir() for this process: $XDG_DATA_DIRS, then where
 * `meson install` puts the icons. */
char *rfk_icon_dir (void);

/* The state's icon as a file, for notifications: GLib hands daemons a
 * file's path (image-path), never a themed name. */
GIcon *rfk_icon_new (RfkIconState state);

G_END_DECLS

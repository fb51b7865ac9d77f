/*
 * rfk-autostart.h: "Start at login".
 *
 * The applet is started by the XDG autostart file installed in
 * /etc/xdg/autostart.  Turning it off writes a per-user file of the same
 * name in $XDG_CONFIG_HOME/autostart with Hidden=true, which every desktop
 * honours; turning it back on removes that override.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* $XDG_CONFIG_HOME/autostart/<app id>.desktop */
char *rfk_autostart_dup_override_path (void);

/* FALSE when the user's override hides the system autostart entry. */
gboolean rfk_autostart_get_enabled (void);

gboolean rfk_autostart_set_enabled (gboolean enabled, GError **error);

G_END_DECLS

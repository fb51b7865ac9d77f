/*
 * rfk-gsd-rfkill.h: serves gnome-settings-daemon's rfkill interface
 * (org.gnome.SettingsDaemon.Rfkill at /org/gnome/SettingsDaemon/Rfkill)
 * from the applet's model, for GNOME-style clients on other desktops.
 *
 * Only while the GSettings key "serve-gnome-rfkill" is on (off by
 * default) and nobody else owns the name: the name is taken when it is
 * free, given up to anyone who asks to replace it, and asked for again
 * whenever it becomes free.  gsd-rfkill (43) neither replaces nor queues:
 * in a GNOME session it starts before applications and keeps its name;
 * one started while the applet serves the name goes without it.
 */
#pragma once

#include <gio/gio.h>

#include "rfk-dbus-service.h"

G_BEGIN_DECLS

#define RFK_GSD_RFKILL_NAME "org.gnome.SettingsDaemon.Rfkill"
#define RFK_GSD_RFKILL_PATH "/org/gnome/SettingsDaemon/Rfkill"

#define RFK_TYPE_GSD_RFKILL (rfk_gsd_rfkill_get_type ())
G_DECLARE_FINAL_TYPE (RfkGsdRfkill, rfk_gsd_rfkill, RFK, GSD_RFKILL, GObject)

/* service must be exported on connection; settings: the app's GSettings. */
RfkGsdRfkill *rfk_gsd_rfkill_new (RfkDBusService *service,
                                  GDBusConnection *connection,
                                  GSettings *settings);

G_END_DECLS

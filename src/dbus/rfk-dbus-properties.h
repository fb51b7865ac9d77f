/*
 * rfk-dbus-properties.h: the values of the D-Bus API's properties
 * (data/io.github.rfkill_applet.RfkillApplet.xml), computed from the model,
 * and what writing one does.  The same table serves gsd's
 * org.gnome.SettingsDaemon.Rfkill, whose properties are a subset.
 */
#pragma once

#include <gio/gio.h>

#include "rfk-dbus-radios.h"
#include "rfk-manager.h"
#include "rfk-settings.h"

G_BEGIN_DECLS

typedef struct {
  RfkManager *manager;
  RfkSettings *settings;
  /* gsd's ShouldShowAirplaneMode: FALSE on a desktop, server, vm or
   * container chassis (rfk-chassis.h), TRUE otherwise. */
  gboolean should_show;
  RfkDBusRadios *radios;  /* owned; Radios, entry by entry */
} RfkDBusModel;

/* The value of property name, or NULL for a name we do not serve. */
GVariant *rfk_dbus_property_get (const RfkDBusModel *model, const char *name);

/* Writes a read-write property: checks the value (InvalidArgs naming the
 * bad part, nothing changed) and starts the change.  The type was already
 * checked by GDBus against the introspection data. */
gboolean rfk_dbus_property_set (const RfkDBusModel *model, const char *name,
                                GVariant *value, GError **error);

G_END_DECLS

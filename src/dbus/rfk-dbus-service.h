/*
 * rfk-dbus-service.h: the applet's session D-Bus API
 * (data/io.github.rfkill_applet.RfkillApplet.xml, names in rfk-remote.h).
 *
 * Exported before the application owns its bus name (GApplication's
 * dbus_register), so that a client never finds the name without the
 * interface; calls answer NotReady until the model is attached, which
 * happens before the main loop dispatches any call.  Every property
 * announces its changes with PropertiesChanged, coalesced per main-loop
 * turn.  Further objects (gsd's interface, rfk-gsd-rfkill.h) can be
 * served from the same model.
 */
#pragma once

#include <gio/gio.h>

#include "rfk-manager.h"
#include "rfk-settings.h"

G_BEGIN_DECLS

#define RFK_TYPE_DBUS_SERVICE (rfk_dbus_service_get_type ())
G_DECLARE_FINAL_TYPE (RfkDBusService, rfk_dbus_service, RFK, DBUS_SERVICE,
                      GObject)

/* app: quit by the Quit() method. */
RfkDBusService *rfk_dbus_service_new (GApplication *app);

/* Exports the API at RFK_DBUS_PATH on connection. */
gboolean rfk_dbus_service_export (RfkDBusService *self,
                                  GDBusConnection *connection,
                                  GError **error);
void rfk_dbus_service_unexport (RfkDBusService *self);

/* The model the API shows and drives, from now on. */
void rfk_dbus_service_attach (RfkDBusService *self, RfkManager *manager,
                              RfkSettings *settings);

/* Serves interface (properties only, from the same model) at path on the
 * connection given to export(); remove_object() undoes it. */
gboolean rfk_dbus_service_add_object (RfkDBusService *self, const char *path,
                                      GDBusInterfaceInfo *interface,
                                      GError **error);
void rfk_dbus_service_remove_object (RfkDBusService *self, const char *path);

/* Introspection data of an interface we publish, by its XML file name in
 * data/ (compiled into the binary as a resource). */
GDBusInterfaceInfo *rfk_dbus_service_load_interface (const char *file,
                                                     const char *name);

G_END_DECLS

/* rfk-applet-remote.h: the applet's side of rfk-remote.h. */
#pragma once

#include <gio/gio.h>

#include "rfk-manager.h"

G_BEGIN_DECLS

/* Exports the interface on connection until the returned id is passed to
 * g_dbus_connection_unregister_object(); 0 with error on failure. */
guint rfk_applet_remote_export (GDBusConnection *connection,
                                RfkManager *manager, GError **error);

G_END_DECLS

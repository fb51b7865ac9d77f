/*
 * rfk-chassis.h: what kind of machine this is, as systemd-hostnamed's
 * Chassis property says ("laptop", "desktop", "vm", …), and whether
 * airplane mode means anything on it.
 *
 * gnome-settings-daemon reads the chassis once at start to decide its
 * ShouldShowAirplaneMode; we serve the same property (dbus/) and read it
 * the same way, without blocking.
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* Asks hostnamed for the chassis on the system bus.  A failure is logged
 * at debug level (no system bus, no hostnamed: the chassis is unknown),
 * except cancellation. */
void rfk_chassis_lookup_async (GCancellable *cancellable,
                               GAsyncReadyCallback callback,
                               gpointer user_data);

/* The chassis name (owned by the caller), or NULL when hostnamed's answer
 * was not a string; NULL with error set when there was no answer. */
char *rfk_chassis_lookup_finish (GAsyncResult *result, GError **error);

/* FALSE for the chassis names for which gsd hides airplane mode (desktop,
 * server, vm, container); TRUE for every other name and for NULL. */
gboolean rfk_chassis_shows_airplane_mode (const char *chassis);

G_END_DECLS

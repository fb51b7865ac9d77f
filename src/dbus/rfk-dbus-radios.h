/*
 * rfk-dbus-radios.h: the value of the D-Bus API's Radios property, with
 * each radio's entry kept until that radio changes.
 */
#pragma once

#include <gio/gio.h>

#include "rfk-device.h"

G_BEGIN_DECLS

typedef struct _RfkDBusRadios RfkDBusRadios;

RfkDBusRadios *rfk_dbus_radios_new (void);
void rfk_dbus_radios_free (RfkDBusRadios *self);

/* aa{sv}, one entry per device in the array's order (a new floating
 * reference).  Entries of radios that are gone are dropped. */
GVariant *rfk_dbus_radios_get (RfkDBusRadios *self, GPtrArray *devices);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (RfkDBusRadios, rfk_dbus_radios_free)

G_END_DECLS

/*
 * rfk-dbus-caller.h: who is asking, for the history (rfk-history.h).
 *
 * A D-Bus request is named by its caller's process: the bus daemon gives
 * the unique name's process id (GetConnectionUnixProcessID), and
 * /proc/PID/comm its name.  `rfkill-applet --airplane` asking a running
 * applet is the CLI.
 */
#pragma once

#include <gio/gio.h>

#include "rfk-history.h"

G_BEGIN_DECLS

/* The cause for a request from sender on connection; out_by: the
 * process name, or NULL when the bus or /proc does not tell.  Asks the
 * bus once per sender (a unique name is never reused), synchronously: a
 * round trip to the bus daemon, answered from its own table. */
RfkCause rfk_dbus_caller_lookup (GDBusConnection *connection,
                                 const char *sender, char **out_by);

G_END_DECLS

/*
 * rfk-remote.h: names of the applet's session D-Bus API, shared by the
 * applet (which serves it) and the CLI (which uses it, so that only one
 * program writes the restore list while the applet runs).
 *
 * The applet owns APP_ID on the session bus and exports RFK_DBUS_INTERFACE
 * at RFK_DBUS_PATH; the interface is documented in
 * data/io.github.rfkill_applet.RfkillApplet.xml.  `--airplane` reads
 * DevicePath first: an applet on another device is not asked, the CLI
 * then does the change itself.
 */
#pragma once

#define RFK_DBUS_PATH "/io/github/rfkill_applet/RfkillApplet"
#define RFK_DBUS_INTERFACE APP_ID

/* Errors of our own; bad arguments are org.freedesktop.DBus.Error.InvalidArgs. */
#define RFK_DBUS_ERROR_NO_SUCH_RADIO APP_ID ".Error.NoSuchRadio"
#define RFK_DBUS_ERROR_NOT_READY APP_ID ".Error.NotReady"
#define RFK_DBUS_ERROR_FAILED APP_ID ".Error.Failed"

/* The CLI waits this long for the applet (the kernel itself may take up
 * to 5 s per request). */
#define RFK_REMOTE_TIMEOUT_MS 15000

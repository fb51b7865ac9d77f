/*
 * rfk-remote.h: how `rfkill-applet --airplane` asks a running applet to
 * switch airplane mode, so that only one program writes the restore list.
 *
 * The applet owns APP_ID on the session bus (GApplication) and exports
 * RFK_REMOTE_INTERFACE at RFK_REMOTE_PATH.  Set() returns once the kernel
 * confirmed every change, with the state reached, or fails with the
 * applet's error message.  An applet on another device refuses with
 * org.freedesktop.DBus.Error.InvalidArgs; the CLI then does it itself.
 */
#pragma once

#define RFK_REMOTE_PATH "/io/github/rfkill_applet/RfkillApplet"
#define RFK_REMOTE_INTERFACE "io.github.rfkill_applet.RfkillApplet.Airplane"

/* action: "on", "off" or "toggle"; device: the path the caller uses. */
#define RFK_REMOTE_XML \
  "<node>" \
  "  <interface name='" RFK_REMOTE_INTERFACE "'>" \
  "    <method name='Set'>" \
  "      <arg type='s' name='action' direction='in'/>" \
  "      <arg type='s' name='device' direction='in'/>" \
  "      <arg type='b' name='enabled' direction='out'/>" \
  "    </method>" \
  "  </interface>" \
  "</node>"

/* The CLI waits this long for the applet (the kernel itself may take up
 * to 5 s per request). */
#define RFK_REMOTE_TIMEOUT_MS 15000

/*
 * rfk-app-notice.h: what the applet tells the user about itself.
 *
 * - No tray: without a StatusNotifierWatcher (GNOME Shell without the
 *   AppIndicator extension) the icon cannot appear; the applet keeps
 *   working (airplane mode, the light, notifications, the D-Bus API and
 *   the CLI) and says so once per run, naming the missing extension, with
 *   actions to quit or to stop starting at login.  A watcher that appears
 *   later shows the icon (the item registers again by itself).
 * - A second launch: the running applet says it is already running, and
 *   where to find it.
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

#define RFK_TYPE_APP_NOTICE (rfk_app_notice_get_type ())
G_DECLARE_FINAL_TYPE (RfkAppNotice, rfk_app_notice, RFK, APP_NOTICE, GObject)

/* Seconds a session may take to start its tray before we call it absent. */
#define RFK_APP_NOTICE_TRAY_GRACE_S 3

RfkAppNotice *rfk_app_notice_new (GApplication *app, GDBusConnection *bus);

void rfk_app_notice_already_running (RfkAppNotice *self);

G_END_DECLS

/*
 * rfk-transient-notification.h: feedback that comes and goes.
 *
 * When a hardware switch, the airplane key or another program changes
 * the radios, the user wants to see it happen, as an on-screen display,
 * not a note that stays in the desktop's notification list.  The
 * Desktop Notifications spec has a hint for that, "transient", which
 * GNotification cannot send.  So where the desktop serves
 * org.freedesktop.Notifications and not GNOME Shell's
 * org.gtk.Notifications (which has no such notion), this sends Notify
 * itself, asynchronously, each one replacing the last; elsewhere it is a
 * GNotification under one id, as GLib would send it.
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

#define RFK_TYPE_TRANSIENT_NOTIFICATION (rfk_transient_notification_get_type ())
G_DECLARE_FINAL_TYPE (RfkTransientNotification, rfk_transient_notification,
                      RFK, TRANSIENT_NOTIFICATION, GObject)

/* app: registered, on the session bus (not owned). */
RfkTransientNotification *rfk_transient_notification_new (GApplication *app);

/* Shows summary and body with icon (a file icon, as rfk_icon_new()
 * gives), replacing the last one shown here.  Never waits for the
 * daemon. */
void rfk_transient_notification_show (RfkTransientNotification *self,
                                      const char *summary, const char *body,
                                      GIcon *icon);

G_END_DECLS

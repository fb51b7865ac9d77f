/*
 * rfk-app-notice.c: "no tray here" and "already running", as desktop
 * notifications with actions.  Notify() is asynchronous: a notification
 * daemon that hangs never blocks the applet.
 */
#include "config.h"

#include <glib/gi18n.h>
#include <gtk/gtk.h>
#ifdef GDK_WINDOWING_X11
#include <gdk/gdkx.h>
#endif

#include "rfk-app-notice.h"

#include "rfk-autostart.h"

#define WATCHER_NAME "org.kde.StatusNotifierWatcher"
#define NOTIFY_NAME "org.freedesktop.Notifications"
#define NOTIFY_PATH "/org/freedesktop/Notifications"
#define NOTIFY_TIMEOUT_MS 10000

#define ACTION_QUIT "quit"
#define ACTION_NO_AUTOSTART "no-autostart"

struct _RfkAppNotice
{
  GObject parent_instance;

  GApplication *app;            /* not owned: it owns us */
  GDBusConnection *bus;         /* owned */
  GCancellable *cancellable;
  guint watch_id;
  guint grace_id;
  guint action_subscription;
  gboolean tray;                /* a watcher is on the bus */
  gboolean told_no_tray;        /* once per run */
  guint32 notification_id;      /* ours, for replaces_id and actions */
  gboolean in_flight;
  GVariant *queued;             /* (ssb) summary, body, with actions */
};

G_DEFINE_FINAL_TYPE (RfkAppNotice, rfk_app_notice, G_TYPE_OBJECT)

static void send_queued (RfkAppNotice *self);

static void
notify_done_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GVariant) reply = NULL;
  RfkAppNotice *self;

  reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), result,
                                         &error);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  self = RFK_APP_NOTICE (user_data);
  self->in_flight = FALSE;
  if (reply != NULL)
    g_variant_get (reply, "(u)", &self->notification_id);
  else
    g_debug ("Cannot show notification: %s", error->message);
  send_queued (self);
}

static void
send_queued (RfkAppNotice *self)
{
  g_autoptr (GVariant) queued = NULL;
  const char *summary, *body;
  gboolean with_actions;
  GVariantBuilder actions, hints;

  if (self->in_flight || self->queued == NULL)
    return;
  queued = g_steal_pointer (&self->queued);
  g_variant_get (queued, "(&s&sb)", &summary, &body, &with_actions);

  g_variant_builder_init (&actions, G_VARIANT_TYPE ("as"));
  if (with_actions)
    {
      g_variant_builder_add (&actions, "s", ACTION_QUIT);
      g_variant_builder_add (&actions, "s", _("Quit"));
      g_variant_builder_add (&actions, "s", ACTION_NO_AUTOSTART);
      g_variant_builder_add (&actions, "s", _("Do Not Start at Login"));
    }
  g_variant_builder_init (&hints, G_VARIANT_TYPE ("a{sv}"));
  g_variant_builder_add (&hints, "{sv}", "desktop-entry",
                         g_variant_new_string (APP_ID));
  self->in_flight = TRUE;
  g_dbus_connection_call (self->bus, NOTIFY_NAME, NOTIFY_PATH, NOTIFY_NAME,
                          "Notify",
                          g_variant_new ("(susssasa{sv}i)",
                                         g_get_application_name (),
                                         self->notification_id,
                                         "airplane-mode-symbolic", summary,
                                         body, &actions, &hints, -1),
                          G_VARIANT_TYPE ("(u)"), G_DBUS_CALL_FLAGS_NONE,
                          NOTIFY_TIMEOUT_MS, self->cancellable,
                          notify_done_cb, self);
}

/* Shows or replaces our notification; the newest text wins. */
static void
show (RfkAppNotice *self, const char *summary, const char *body,
      gboolean with_actions)
{
  g_clear_pointer (&self->queued, g_variant_unref);
  self->queued = g_variant_ref_sink (g_variant_new ("(ssb)", summary, body,
                                                    with_actions));
  send_queued (self);
}

static const char *
no_tray_body (void)
{
  /* TRANSLATORS: "gnome-shell-extension-appindicator" is a Debian package
   * name and "AppIndicator and KStatusNotifierItem Support" the name of
   * the GNOME Shell extension it installs: keep both as they are. */
  return _("This desktop shows no tray icons. On GNOME, install the package "
           "gnome-shell-extension-appindicator and turn on “AppIndicator "
           "and KStatusNotifierItem Support”. Meanwhile airplane mode, the "
           "light and the notifications keep working; switch airplane mode "
           "with “rfkill-applet --airplane on” or “off”.");
}

/* Without a watcher libayatana falls back to an XEmbed icon, which an
 * XEmbed tray (i3bar, stalonetray, older panels) does show: such a tray
 * owns the X selection _NET_SYSTEM_TRAY_S<screen>. */
static gboolean
has_xembed_tray (void)
{
#ifdef GDK_WINDOWING_X11
  GdkDisplay *display = gdk_display_get_default ();

  if (display != NULL && GDK_IS_X11_DISPLAY (display))
    {
      Display *xdisplay = GDK_DISPLAY_XDISPLAY (display);
      g_autofree char *name = g_strdup_printf ("_NET_SYSTEM_TRAY_S%d",
                                               DefaultScreen (xdisplay));

      return XGetSelectionOwner (
               xdisplay,
               gdk_x11_get_xatom_by_name_for_display (display, name))
             != None;
    }
#endif
  return FALSE;
}

static gboolean
has_tray (RfkAppNotice *self)
{
  return self->tray || has_xembed_tray ();
}

static gboolean
grace_over_cb (gpointer user_data)
{
  RfkAppNotice *self = user_data;

  self->grace_id = 0;
  if (has_tray (self) || self->told_no_tray)
    return G_SOURCE_REMOVE;
  self->told_no_tray = TRUE;
  show (self, _("Airplane Mode runs without a tray icon"), no_tray_body (),
        TRUE);
  return G_SOURCE_REMOVE;
}

static void
on_watcher_appeared (GDBusConnection *bus, const char *name,
                     const char *owner, gpointer user_data)
{
  RfkAppNotice *self = user_data;

  self->tray = TRUE;
  g_clear_handle_id (&self->grace_id, g_source_remove);
}

static void
on_watcher_vanished (GDBusConnection *bus, const char *name,
                     gpointer user_data)
{
  RfkAppNotice *self = user_data;

  self->tray = FALSE;
  /* A panel that restarts comes back within the grace period. */
  if (!self->told_no_tray && self->grace_id == 0)
    self->grace_id = g_timeout_add_seconds (RFK_APP_NOTICE_TRAY_GRACE_S,
                                            grace_over_cb, self);
}

static void
on_action_invoked (GDBusConnection *bus, const char *sender,
                   const char *path, const char *interface,
                   const char *signal, GVariant *parameters,
                   gpointer user_data)
{
  RfkAppNotice *self = user_data;
  g_autoptr (GError) error = NULL;
  const char *action;
  guint32 id;

  g_variant_get (parameters, "(u&s)", &id, &action);
  if (id == 0 || id != self->notification_id)
    return;
  if (g_str_equal (action, ACTION_NO_AUTOSTART)
      && !rfk_autostart_set_enabled (FALSE, &error))
    {
      g_warning ("%s", error->message);
      return;  /* not done: keep running */
    }
  if (g_str_equal (action, ACTION_QUIT)
      || g_str_equal (action, ACTION_NO_AUTOSTART))
    g_application_quit (self->app);
}

void
rfk_app_notice_already_running (RfkAppNotice *self)
{
  g_return_if_fail (RFK_IS_APP_NOTICE (self));

  if (has_tray (self))
    show (self, _("Airplane Mode is already running"),
          _("Its icon is in the panel’s tray (notification area)."), FALSE);
  else
    show (self, _("Airplane Mode is already running"), no_tray_body (), TRUE);
}

static void
rfk_app_notice_dispose (GObject *object)
{
  RfkAppNotice *self = RFK_APP_NOTICE (object);

  g_cancellable_cancel (self->cancellable);
  if (self->watch_id != 0)
    g_bus_unwatch_name (self->watch_id);
  self->watch_id = 0;
  if (self->action_subscription != 0)
    g_dbus_connection_signal_unsubscribe (self->bus,
                                          self->action_subscription);
  self->action_subscription = 0;
  g_clear_handle_id (&self->grace_id, g_source_remove);
  g_clear_pointer (&self->queued, g_variant_unref);
  g_clear_object (&self->bus);
  g_clear_object (&self->cancellable);
  G_OBJECT_CLASS (rfk_app_notice_parent_class)->dispose (object);
}

static void
rfk_app_notice_class_init (RfkAppNoticeClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = rfk_app_notice_dispose;
}

static void
rfk_app_notice_init (RfkAppNotice *self)
{
  self->cancellable = g_cancellable_new ();
}

RfkAppNotice *
rfk_app_notice_new (GApplication *app, GDBusConnection *bus)
{
  RfkAppNotice *self = g_object_new (RFK_TYPE_APP_NOTICE, NULL);

  self->app = app;
  self->bus = g_object_ref (bus);
  self->action_subscription = g_dbus_connection_signal_subscribe (
    bus, NOTIFY_NAME, NOTIFY_NAME, "ActionInvoked", NOTIFY_PATH, NULL,
    G_DBUS_SIGNAL_FLAGS_NONE, on_action_invoked, self, NULL);
  self->watch_id = g_bus_watch_name_on_connection (
    bus, WATCHER_NAME, G_BUS_NAME_WATCHER_FLAGS_NONE, on_watcher_appeared,
    on_watcher_vanished, self, NULL);
  return self;
}

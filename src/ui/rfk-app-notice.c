/*
 * rfk-app-notice.c: "no tray here" and "already running", as desktop
 * notifications with buttons: GNotifications through the application
 * (see rfk-notifier.c), which never wait for the daemon.  The buttons are
 * application actions, so GNOME Shell and a freedesktop daemon alike
 * reach them; a daemon without the "actions" capability (mako by
 * default) draws none, and the body says what to do instead.
 */
#include "config.h"

#include <glib/gi18n.h>
#include <gtk/gtk.h>
#ifdef GDK_WINDOWING_X11
#include <gdk/gdkx.h>
#endif

#include "rfk-app-notice.h"

#include "rfk-autostart.h"
#include "rfk-icon-theme.h"

#define WATCHER_NAME "org.kde.StatusNotifierWatcher"
/* One id for both notices: a new one replaces the last. */
#define NOTIFICATION_ID "notice"

/* Application actions behind the buttons ("app." + name). */
#define ACTION_QUIT "notice-quit"
#define ACTION_NO_AUTOSTART "notice-no-autostart"

struct _RfkAppNotice
{
  GObject parent_instance;

  GApplication *app;            /* not owned: it owns us */
  GDBusConnection *bus;         /* owned */
  guint watch_id;
  guint grace_id;
  gboolean tray;                /* a watcher is on the bus */
  gboolean told_no_tray;        /* once per run */
};

G_DEFINE_FINAL_TYPE (RfkAppNotice, rfk_app_notice, G_TYPE_OBJECT)

enum { SIGNAL_ACTION_FAILED, N_SIGNALS };
static guint signals[N_SIGNALS];

/* Shows or replaces our notification. */
static void
show (RfkAppNotice *self, const char *summary, const char *body,
      gboolean with_actions)
{
  g_autoptr(GNotification) notification = g_notification_new (summary);
  g_autoptr(GIcon) icon = rfk_icon_new (RFK_ICON_AIRPLANE_MODE);

  g_notification_set_body (notification, body);
  g_notification_set_icon (notification, icon);
  if (with_actions)
    {
      g_notification_add_button (notification, _("Quit"), "app." ACTION_QUIT);
      g_notification_add_button (notification, _("Do Not Start at Login"),
                                 "app." ACTION_NO_AUTOSTART);
    }
  g_application_send_notification (self->app, NOTIFICATION_ID, notification);
}

static const char *
no_tray_body (void)
{
  /* TRANSLATORS: "gnome-shell-extension-appindicator" is a Debian package
   * name and "Ubuntu AppIndicators" the name GNOME's Extensions app shows
   * for the extension it installs (its metadata.json): keep both as they
   * are. */
  return _("This desktop shows no tray icons. On GNOME, install the package "
           "gnome-shell-extension-appindicator and turn on “Ubuntu "
           "AppIndicators” in Extensions. Meanwhile airplane mode, the "
           "light and the notifications keep working; switch airplane mode "
           "with “rfkill-applet --airplane on” or “off”.");
}

/* Without a watcher the tray item shows an XEmbed icon, which an
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
on_quit (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  RfkAppNotice *self = user_data;

  g_application_quit (self->app);
}

static void
on_no_autostart (GSimpleAction *action, GVariant *parameter,
                 gpointer user_data)
{
  RfkAppNotice *self = user_data;
  g_autoptr (GError) error = NULL;

  if (!rfk_autostart_set_enabled (FALSE, &error))
    {
      const char *what = _("Cannot turn “Start at login” off");

      /* Told like a failed menu action (the applet hands it to the
       * notifier); not done, so the applet keeps running. */
      g_message ("%s: %s", what, error->message);
      g_signal_emit (self, signals[SIGNAL_ACTION_FAILED], 0, what,
                     error->message);
      return;
    }
  g_application_quit (self->app);
}

static const GActionEntry actions[] = {
  { ACTION_QUIT, on_quit, NULL, NULL, NULL, { 0 } },
  { ACTION_NO_AUTOSTART, on_no_autostart, NULL, NULL, NULL, { 0 } },
};

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

  if (self->watch_id != 0)
    {
      g_bus_unwatch_name (self->watch_id);
      for (gsize i = 0; i < G_N_ELEMENTS (actions); i++)
        g_action_map_remove_action (G_ACTION_MAP (self->app), actions[i].name);
    }
  self->watch_id = 0;
  g_clear_handle_id (&self->grace_id, g_source_remove);
  g_clear_object (&self->bus);
  G_OBJECT_CLASS (rfk_app_notice_parent_class)->dispose (object);
}

static void
rfk_app_notice_class_init (RfkAppNoticeClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = rfk_app_notice_dispose;

  /* A button's action failed: what was asked and why, translated (as
   * RfkMenu's "action-failed"). */
  signals[SIGNAL_ACTION_FAILED] =
    g_signal_new ("action-failed", G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 2,
                  G_TYPE_STRING, G_TYPE_STRING);
}

static void
rfk_app_notice_init (RfkAppNotice *self)
{
}

RfkAppNotice *
rfk_app_notice_new (GApplication *app, GDBusConnection *bus)
{
  RfkAppNotice *self = g_object_new (RFK_TYPE_APP_NOTICE, NULL);

  self->app = app;
  self->bus = g_object_ref (bus);
  g_action_map_add_action_entries (G_ACTION_MAP (app), actions,
                                   G_N_ELEMENTS (actions), self);
  self->watch_id = g_bus_watch_name_on_connection (
    bus, WATCHER_NAME, G_BUS_NAME_WATCHER_FLAGS_NONE, on_watcher_appeared,
    on_watcher_vanished, self, NULL);
  return self;
}

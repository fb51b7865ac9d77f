/* rfk-transient-notification.c: feedback that comes and goes. */
#include "config.h"

#include "rfk-transient-notification.h"

#define FDO_NAME "org.freedesktop.Notifications"
#define FDO_PATH "/org/freedesktop/Notifications"
#define GTK_NAME "org.gtk.Notifications"
/* The GNotification id where GNOME Shell shows it. */
#define NOTIFICATION_ID "feedback"
/* A daemon that hangs must not keep our calls pending for ever. */
#define CALL_TIMEOUT_MS 5000

struct _RfkTransientNotification
{
  GObject parent_instance;

  GApplication *app;       /* weak: it owns us, and answers may come
                            * after it is gone */
  GCancellable *cancellable;
  guint32 last_id;         /* the daemon's id of the last one, or 0 */
  /* Shows asked for while the daemon's answer about GNOME Shell or the
   * last Notify is due go out in order, the newest replacing the rest. */
  gboolean busy;
  struct _Shown *queued;   /* the newest waiting, or NULL */
};

G_DEFINE_FINAL_TYPE (RfkTransientNotification, rfk_transient_notification,
                     G_TYPE_OBJECT)

/* One notification to show, kept as given: GNOME Shell gets it as a
 * GNotification, other daemons as a Notify call. */
typedef struct _Shown {
  char *summary;
  char *body;
  GIcon *icon;             /* may be NULL */
} Shown;

static void
shown_free (Shown *shown)
{
  g_free (shown->summary);
  g_free (shown->body);
  g_clear_object (&shown->icon);
  g_free (shown);
}

static void send_next (RfkTransientNotification *self);

static void
notify_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (RfkTransientNotification) self = user_data;
  g_autoptr (GVariant) reply = NULL;
  g_autoptr (GError) error = NULL;

  reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), result,
                                         &error);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  if (reply != NULL)
    g_variant_get (reply, "(u)", &self->last_id);
  else
    g_debug ("Notify failed: %s", error->message);
  self->busy = FALSE;
  send_next (self);
}

/* The spec's Notify, with what GLib's own backend puts in it, plus
 * "transient". */
static void
send_fdo (RfkTransientNotification *self, GDBusConnection *bus,
          const Shown *shown)
{
  g_autofree char *image = G_IS_FILE_ICON (shown->icon)
    ? g_file_get_path (g_file_icon_get_file (G_FILE_ICON (shown->icon)))
    : NULL;
  GVariantBuilder hints;

  g_variant_builder_init (&hints, G_VARIANT_TYPE ("a{sv}"));
  g_variant_builder_add (&hints, "{sv}", "transient",
                         g_variant_new_boolean (TRUE));
  g_variant_builder_add (&hints, "{sv}", "category",
                         g_variant_new_string ("device"));
  g_variant_builder_add (&hints, "{sv}", "desktop-entry",
                         g_variant_new_string (APP_ID));
  g_variant_builder_add (&hints, "{sv}", "urgency",
                         g_variant_new_byte (1));
  if (image != NULL)
    g_variant_builder_add (&hints, "{sv}", "image-path",
                           g_variant_new_string (image));
  self->busy = TRUE;
  g_dbus_connection_call (
    bus, FDO_NAME, FDO_PATH, FDO_NAME, "Notify",
    g_variant_new ("(susssasa{sv}i)",
                   g_get_application_name () != NULL
                     ? g_get_application_name () : "",
                   self->last_id, "", shown->summary, shown->body, NULL,
                   &hints, -1),
    G_VARIANT_TYPE ("(u)"), G_DBUS_CALL_FLAGS_NONE, CALL_TIMEOUT_MS,
    self->cancellable, notify_done, g_object_ref (self));
}

/* The GNotification GLib's own backend would send for shown. */
static void
send_gnotification (RfkTransientNotification *self, const Shown *shown)
{
  g_autoptr (GNotification) notification = g_notification_new (
    shown->summary);

  g_notification_set_body (notification, shown->body);
  g_notification_set_category (notification, "device");
  if (shown->icon != NULL)
    g_notification_set_icon (notification, shown->icon);
  g_application_send_notification (self->app, NOTIFICATION_ID, notification);
}

typedef struct {
  RfkTransientNotification *self;
  Shown *shown;
} Pending;

static void
pending_free (Pending *pending)
{
  g_object_unref (pending->self);
  shown_free (pending->shown);
  g_free (pending);
}

static void
owner_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Pending *pending = user_data;
  RfkTransientNotification *self = pending->self;
  g_autoptr (GVariant) reply = NULL;
  g_autoptr (GError) error = NULL;
  gboolean gnome_shell;

  reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), result,
                                         &error);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      pending_free (pending);
      return;
    }
  g_variant_get (reply != NULL ? reply : g_variant_new ("(b)", FALSE), "(b)",
                 &gnome_shell);
  if (gnome_shell && self->app != NULL)
    {
      send_gnotification (self, pending->shown);
      self->busy = FALSE;
      send_next (self);
    }
  else
    send_fdo (self, G_DBUS_CONNECTION (source), pending->shown);
  pending_free (pending);
}

/* Asks the bus whether GNOME Shell's notifications are there, as GLib
 * does to pick its backend, then sends. */
static void
send_next (RfkTransientNotification *self)
{
  GDBusConnection *bus;
  Pending *pending;

  if (self->busy || self->queued == NULL)
    return;
  bus = self->app != NULL ? g_application_get_dbus_connection (self->app)
                          : NULL;
  if (bus == NULL)
    {
      g_clear_pointer (&self->queued, shown_free);
      return;
    }
  pending = g_new0 (Pending, 1);
  pending->self = g_object_ref (self);
  pending->shown = g_steal_pointer (&self->queued);
  self->busy = TRUE;
  g_dbus_connection_call (bus, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                          "org.freedesktop.DBus", "NameHasOwner",
                          g_variant_new ("(s)", GTK_NAME),
                          G_VARIANT_TYPE ("(b)"), G_DBUS_CALL_FLAGS_NONE,
                          CALL_TIMEOUT_MS, self->cancellable, owner_done,
                          pending);
}

void
rfk_transient_notification_show (RfkTransientNotification *self,
                                 const char *summary, const char *body,
                                 GIcon *icon)
{
  Shown *shown;

  g_return_if_fail (RFK_IS_TRANSIENT_NOTIFICATION (self));

  shown = g_new0 (Shown, 1);
  shown->summary = g_strdup (summary);
  shown->body = g_strdup (body);
  shown->icon = icon != NULL ? g_object_ref (icon) : NULL;
  g_clear_pointer (&self->queued, shown_free);
  self->queued = shown;
  send_next (self);
}

RfkTransientNotification *
rfk_transient_notification_new (GApplication *app)
{
  RfkTransientNotification *self =
    g_object_new (RFK_TYPE_TRANSIENT_NOTIFICATION, NULL);

  g_set_weak_pointer (&self->app, app);
  return self;
}

static void
rfk_transient_notification_dispose (GObject *object)
{
  RfkTransientNotification *self = RFK_TRANSIENT_NOTIFICATION (object);

  g_cancellable_cancel (self->cancellable);
  g_clear_weak_pointer (&self->app);
  g_clear_pointer (&self->queued, shown_free);
  G_OBJECT_CLASS (rfk_transient_notification_parent_class)->dispose (object);
}

static void
rfk_transient_notification_finalize (GObject *object)
{
  RfkTransientNotification *self = RFK_TRANSIENT_NOTIFICATION (object);

  g_object_unref (self->cancellable);
  G_OBJECT_CLASS (rfk_transient_notification_parent_class)->finalize (object);
}

static void
rfk_transient_notification_class_init (RfkTransientNotificationClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = rfk_transient_notification_dispose;
  object_class->finalize = rfk_transient_notification_finalize;
}

static void
rfk_transient_notification_init (RfkTransientNotification *self)
{
  self->cancellable = g_cancellable_new ();
}

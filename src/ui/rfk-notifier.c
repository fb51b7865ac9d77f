/*
 * rfk-notifier.c: one desktop notification per hardware switch flip, and
 * one when another program ends airplane mode.
 *
 * Notify() is called asynchronously on org.freedesktop.Notifications, so a
 * notification daemon that hangs never freezes the menu; only one call is
 * in flight at a time, and the newest text waits for its id so that it
 * replaces the previous notification instead of stacking.
 */
#include "config.h"

#include <glib/gi18n.h>

#include "rfk-notifier.h"
#include "rfk-radio-label.h"

/*
 * A switch flips every radio it controls, and the kernel sends one event
 * per radio.  Collect them this long, then tell the user once.
 */
#define COLLECT_MS 150
/* A daemon that does not answer within this long is given up on. */
#define NOTIFY_TIMEOUT_MS 10000

struct _RfkNotifier
{
  GObject parent_instance;

  RfkManager *manager;              /* owned */
  GSettings *settings;              /* owned */
  RfkUdevNames *names;              /* owned, or NULL */
  GDBusConnection *bus;             /* NULL until connected */
  GCancellable *cancellable;
  guint32 notification_id;          /* replaces_id, so a new one replaces */
  gboolean in_flight;               /* a Notify() call awaits its reply */
  GVariant *queued;                 /* (sss) summary, body, icon to send */
  GHashTable *owned_elsewhere;      /* keys of radios hard-blocked only
                                     * because another owner has them */
  GHashTable *pending;              /* radio label -> GINT(hard) */
  GPtrArray *pending_order;         /* radio labels in event order */
  guint collect_id;
};

G_DEFINE_FINAL_TYPE (RfkNotifier, rfk_notifier, G_TYPE_OBJECT)

static char *
join_labels (GPtrArray *labels)
{
  g_ptr_array_add (labels, NULL);
  /* TRANSLATORS: separates radio names in a list. */
  return g_strjoinv (_(", "), (char **) labels->pdata);
}

static void send_queued (RfkNotifier *self);

static void
notify_done_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GVariant) reply = NULL;
  RfkNotifier *self;

  reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), result,
                                         &error);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;  /* disposed */
  self = RFK_NOTIFIER (user_data);
  self->in_flight = FALSE;
  if (reply != NULL)
    g_variant_get (reply, "(u)", &self->notification_id);
  else
    g_warning ("Cannot show notification: %s", error->message);
  send_queued (self);
}

static void
send_queued (RfkNotifier *self)
{
  g_autoptr (GVariant) queued = NULL;
  GVariantBuilder hints;
  const char *summary, *body, *icon;

  if (self->in_flight || self->bus == NULL || self->queued == NULL)
    return;
  queued = g_steal_pointer (&self->queued);
  g_variant_get (queued, "(&s&s&s)", &summary, &body, &icon);
  g_variant_builder_init (&hints, G_VARIANT_TYPE ("a{sv}"));
  g_variant_builder_add (&hints, "{sv}", "category",
                         g_variant_new_string ("device"));
  g_variant_builder_add (&hints, "{sv}", "desktop-entry",
                         g_variant_new_string (APP_ID));
  self->in_flight = TRUE;
  g_dbus_connection_call (self->bus, "org.freedesktop.Notifications",
                          "/org/freedesktop/Notifications",
                          "org.freedesktop.Notifications", "Notify",
                          g_variant_new ("(susssasa{sv}i)",
                                         g_get_application_name (),
                                         self->notification_id, icon,
                                         summary, body, NULL, &hints, -1),
                          G_VARIANT_TYPE ("(u)"), G_DBUS_CALL_FLAGS_NONE,
                          NOTIFY_TIMEOUT_MS, self->cancellable,
                          notify_done_cb, self);
}

/* Shows (or replaces) our notification; never waits for the daemon. */
static void
rfk_notifier_show (RfkNotifier *self, const char *summary, const char *body,
                   const char *icon)
{
  g_clear_pointer (&self->queued, g_variant_unref);
  self->queued = g_variant_ref_sink (g_variant_new ("(sss)", summary, body,
                                                    icon));
  send_queued (self);
}

static void
bus_ready_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GError) error = NULL;
  GDBusConnection *bus = g_bus_get_finish (result, &error);
  RfkNotifier *self;

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  self = RFK_NOTIFIER (user_data);
  if (bus == NULL)
    {
      g_warning ("Cannot show notifications: %s", error->message);
      return;
    }
  self->bus = bus;
  send_queued (self);
}

/* Another program (a key, gsd, `rfkill unblock all`) ended airplane mode
 * and the manager switched the radios that were off before off again. */
static void
on_airplane_ended_elsewhere (RfkManager *manager, RfkNotifier *self)
{
  if (!g_settings_get_boolean (self->settings, "notifications"))
    return;
  rfk_notifier_show (self, _("Airplane mode is off"),
                     _("Another program turned the radios on. Those that "
                       "were off before airplane mode are off again."),
                     "network-wireless-symbolic");
}

static void
show_pending (RfkNotifier *self)
{
  g_autoptr(GPtrArray) off = g_ptr_array_new ();
  g_autoptr(GPtrArray) on = g_ptr_array_new ();
  g_autoptr(GString) body = g_string_new (NULL);
  const char *summary;
  const char *icon;

  for (guint i = 0; i < self->pending_order->len; i++)
    {
      const char *label = g_ptr_array_index (self->pending_order, i);

      if (GPOINTER_TO_INT (g_hash_table_lookup (self->pending, label)))
        g_ptr_array_add (off, (gpointer) label);
      else
        g_ptr_array_add (on, (gpointer) label);
    }

  if (off->len > 0 && on->len == 0)
    {
      summary = _("Hardware switch: radios off");
      icon = "network-wireless-hardware-disabled-symbolic";
    }
  else if (on->len > 0 && off->len == 0)
    {
      summary = _("Hardware switch: radios on");
      icon = "network-wireless-symbolic";
    }
  else
    {
      summary = _("Hardware switch changed");
      icon = "network-wireless-hardware-disabled-symbolic";
    }

  if (off->len > 0)
    {
      g_autofree char *list = join_labels (off);
      /* TRANSLATORS: %s lists radios, e.g. "Wi-Fi (phy0), Bluetooth (hci0)". */
      g_string_append_printf (body, _("Turned off: %s"), list);
    }
  if (on->len > 0)
    {
      g_autofree char *list = join_labels (on);
      if (body->len > 0)
        g_string_append_c (body, '\n');
      /* TRANSLATORS: %s lists radios, e.g. "Wi-Fi (phy0), Bluetooth (hci0)". */
      g_string_append_printf (body, _("Turned on: %s"), list);
    }

  rfk_notifier_show (self, summary, body->str, icon);
}

static gboolean
collect_done (gpointer user_data)
{
  RfkNotifier *self = user_data;

  self->collect_id = 0;
  if (self->pending_order->len > 0 &&
      g_settings_get_boolean (self->settings, "notifications"))
    show_pending (self);
  g_hash_table_remove_all (self->pending);
  g_ptr_array_set_size (self->pending_order, 0);
  return G_SOURCE_REMOVE;
}

/* A hard block with only NOT_OWNER is not a switch the user flipped. */
static gboolean
blocked_elsewhere (const RfkDevice *device)
{
  return device->hard && device->hard_reasons == RFK_HARD_REASON_NOT_OWNER;
}

static void
on_device_seen (RfkManager *manager, RfkDevice *device, RfkNotifier *self)
{
  g_autofree char *key = rfk_device_dup_key (device);

  if (blocked_elsewhere (device))
    g_hash_table_add (self->owned_elsewhere, g_steal_pointer (&key));
  else if (device->hard)
    g_hash_table_remove (self->owned_elsewhere, key);
}

static void
on_hardware_switch_changed (RfkManager *manager, RfkDevice *device,
                            gboolean hard, RfkNotifier *self)
{
  g_autofree char *label = NULL;
  g_autofree char *key = rfk_device_dup_key (device);
  gboolean was_elsewhere = g_hash_table_remove (self->owned_elsewhere, key);

  if (blocked_elsewhere (device))
    {
      g_hash_table_add (self->owned_elsewhere, g_steal_pointer (&key));
      return;
    }
  /* Released by its other owner, not by a switch. */
  if (!hard && was_elsewhere)
    return;
  if (!g_settings_get_boolean (self->settings, "notifications"))
    return;

  /* The name the menu shows: "Bluetooth — Intel AX200 Bluetooth (hci0)". */
  label = self->names != NULL
            ? rfk_radio_facts_label (rfk_udev_names_lookup (self->names, device))
            : rfk_radio_label (device);
  if (g_hash_table_contains (self->pending, label))
    {
      /* Flipped twice within the window: the last state wins, and
       * g_hash_table_insert() keeps the stored key. */
      g_hash_table_insert (self->pending, label, GINT_TO_POINTER (hard));
    }
  else
    {
      char *owned = g_steal_pointer (&label);

      g_ptr_array_add (self->pending_order, owned);
      g_hash_table_insert (self->pending, owned, GINT_TO_POINTER (hard));
    }

  if (self->collect_id == 0)
    self->collect_id = g_timeout_add (COLLECT_MS, collect_done, self);
}

static void
rfk_notifier_dispose (GObject *object)
{
  RfkNotifier *self = RFK_NOTIFIER (object);

  if (self->manager != NULL)
    g_signal_handlers_disconnect_by_data (self->manager, self);
  g_clear_handle_id (&self->collect_id, g_source_remove);
  /* Replies still on their way find a cancelled call, not us. */
  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  g_clear_object (&self->bus);
  g_clear_pointer (&self->queued, g_variant_unref);
  g_clear_object (&self->settings);
  g_clear_object (&self->names);
  g_clear_object (&self->manager);
  G_OBJECT_CLASS (rfk_notifier_parent_class)->dispose (object);
}

static void
rfk_notifier_finalize (GObject *object)
{
  RfkNotifier *self = RFK_NOTIFIER (object);

  g_hash_table_unref (self->pending);
  g_hash_table_unref (self->owned_elsewhere);
  g_ptr_array_unref (self->pending_order);
  G_OBJECT_CLASS (rfk_notifier_parent_class)->finalize (object);
}

static void
rfk_notifier_class_init (RfkNotifierClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = rfk_notifier_dispose;
  G_OBJECT_CLASS (klass)->finalize = rfk_notifier_finalize;
}

static void
rfk_notifier_init (RfkNotifier *self)
{
  /* The array owns the labels; the table borrows them as keys. */
  self->pending_order = g_ptr_array_new_with_free_func (g_free);
  self->pending = g_hash_table_new (g_str_hash, g_str_equal);
  self->owned_elsewhere = g_hash_table_new_full (g_str_hash, g_str_equal,
                                                 g_free, NULL);
}

RfkNotifier *
rfk_notifier_new (RfkManager *manager, GSettings *settings, RfkUdevNames *names)
{
  RfkNotifier *self = g_object_new (RFK_TYPE_NOTIFIER, NULL);

  self->manager = g_object_ref (manager);
  self->settings = g_object_ref (settings);
  self->names = names != NULL ? g_object_ref (names) : NULL;
  self->cancellable = g_cancellable_new ();
  g_bus_get (G_BUS_TYPE_SESSION, self->cancellable, bus_ready_cb, self);
  g_signal_connect (manager, "airplane-mode-ended-elsewhere",
                    G_CALLBACK (on_airplane_ended_elsewhere), self);
  g_signal_connect (manager, "device-added",
                    G_CALLBACK (on_device_seen), self);
  g_signal_connect (manager, "hardware-switch-changed",
                    G_CALLBACK (on_hardware_switch_changed), self);
  return self;
}

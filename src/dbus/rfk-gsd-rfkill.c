/*
 * rfk-gsd-rfkill.c: gsd's rfkill name and interface, when nobody else
 * serves them and the user asked for it.
 */
#include "config.h"

#include "rfk-gsd-rfkill.h"

#define KEY "serve-gnome-rfkill"

struct _RfkGsdRfkill
{
  GObject parent_instance;

  RfkDBusService *service;      /* owned */
  GDBusConnection *connection;  /* owned */
  GSettings *settings;          /* owned */
  GDBusInterfaceInfo *interface;
  guint watch_id;               /* watching the name: the key is on */
  guint own_id;                 /* asking for or holding the name */
};

G_DEFINE_FINAL_TYPE (RfkGsdRfkill, rfk_gsd_rfkill, G_TYPE_OBJECT)

static void
stop_serving (RfkGsdRfkill *self)
{
  if (self->own_id == 0)
    return;
  /* The object first: whoever sees the name go finds no object left. */
  rfk_dbus_service_remove_object (self->service, RFK_GSD_RFKILL_PATH);
  g_bus_unown_name (self->own_id);
  self->own_id = 0;
}

static void
on_name_lost (GDBusConnection *connection, const char *name,
              gpointer user_data)
{
  RfkGsdRfkill *self = user_data;

  /* Someone had it first, or took it over: theirs until it is free. */
  g_debug ("%s is served by another program", name);
  stop_serving (self);
}

static void
on_name_acquired (GDBusConnection *connection, const char *name,
                  gpointer user_data)
{
  g_debug ("Serving %s", name);
}

static void
on_name_vanished (GDBusConnection *connection, const char *name,
                  gpointer user_data)
{
  RfkGsdRfkill *self = user_data;
  g_autoptr (GError) error = NULL;

  if (self->own_id != 0)
    return;
  /* The object first, so that the name never comes without it. */
  if (!rfk_dbus_service_add_object (self->service, RFK_GSD_RFKILL_PATH,
                                    self->interface, &error))
    {
      g_warning ("Cannot serve %s: %s", name, error->message);
      return;
    }
  self->own_id = g_bus_own_name_on_connection (
    connection, name,
    G_BUS_NAME_OWNER_FLAGS_ALLOW_REPLACEMENT
      | G_BUS_NAME_OWNER_FLAGS_DO_NOT_QUEUE,
    on_name_acquired, on_name_lost, self, NULL);
}

static void
apply_key (RfkGsdRfkill *self)
{
  gboolean wanted = g_settings_get_boolean (self->settings, KEY);

  if (wanted && self->watch_id == 0)
    self->watch_id = g_bus_watch_name_on_connection (
      self->connection, RFK_GSD_RFKILL_NAME, G_BUS_NAME_WATCHER_FLAGS_NONE,
      NULL, on_name_vanished, self, NULL);
  else if (!wanted && self->watch_id != 0)
    {
      g_bus_unwatch_name (self->watch_id);
      self->watch_id = 0;
      stop_serving (self);
    }
}

static void
on_key_changed (GSettings *settings, const char *key, RfkGsdRfkill *self)
{
  apply_key (self);
}

static void
rfk_gsd_rfkill_dispose (GObject *object)
{
  RfkGsdRfkill *self = RFK_GSD_RFKILL (object);

  if (self->settings != NULL)
    g_signal_handlers_disconnect_by_data (self->settings, self);
  if (self->watch_id != 0)
    g_bus_unwatch_name (self->watch_id);
  self->watch_id = 0;
  stop_serving (self);
  g_clear_pointer (&self->interface, g_dbus_interface_info_unref);
  g_clear_object (&self->settings);
  g_clear_object (&self->connection);
  g_clear_object (&self->service);
  G_OBJECT_CLASS (rfk_gsd_rfkill_parent_class)->dispose (object);
}

static void
rfk_gsd_rfkill_class_init (RfkGsdRfkillClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = rfk_gsd_rfkill_dispose;
}

static void
rfk_gsd_rfkill_init (RfkGsdRfkill *self)
{
}

RfkGsdRfkill *
rfk_gsd_rfkill_new (RfkDBusService *service, GDBusConnection *connection,
                    GSettings *settings)
{
  RfkGsdRfkill *self = g_object_new (RFK_TYPE_GSD_RFKILL, NULL);

  self->service = g_object_ref (service);
  self->connection = g_object_ref (connection);
  self->settings = g_object_ref (settings);
  self->interface = rfk_dbus_service_load_interface (
    RFK_GSD_RFKILL_NAME ".xml", RFK_GSD_RFKILL_NAME);
  g_signal_connect (settings, "changed::" KEY, G_CALLBACK (on_key_changed),
                    self);
  apply_key (self);
  return self;
}

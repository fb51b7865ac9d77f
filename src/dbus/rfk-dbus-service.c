/*
 * rfk-dbus-service.c: the session D-Bus API's object: the objects it
 * exports and their PropertiesChanged, mirrored from the model.  Property
 * values live in rfk-dbus-properties.c, requests in rfk-dbus-methods.c.
 */
#include "config.h"

#include "rfk-dbus-service-private.h"

#include "rfk-chassis.h"
#include "rfk-dbus-resources.h"
#include "rfk-remote.h"

#define RESOURCE_DIR "/io/github/rfkill_applet/RfkillApplet/dbus/"

/* One object we serve: its registration and the values last announced. */
typedef struct {
  char *path;
  GDBusInterfaceInfo *interface;
  guint registration_id;
  GHashTable *announced;  /* property name -> GVariant */
} Exported;

G_DEFINE_FINAL_TYPE (RfkDBusService, rfk_dbus_service, G_TYPE_OBJECT)

static void
exported_free (Exported *exported)
{
  g_free (exported->path);
  g_dbus_interface_info_unref (exported->interface);
  g_hash_table_unref (exported->announced);
  g_free (exported);
}

GDBusInterfaceInfo *
rfk_dbus_service_load_interface (const char *file, const char *name)
{
  g_autofree char *path = g_strconcat (RESOURCE_DIR, file, NULL);
  g_autoptr (GBytes) xml = NULL;
  g_autoptr (GDBusNodeInfo) node = NULL;
  g_autoptr (GError) error = NULL;
  GDBusInterfaceInfo *interface;

  /* Both are compiled into the binary: a failure is a build bug. */
  /* Through the resource itself: a static library's unreferenced
   * constructor would not be linked in. */
  xml = g_resource_lookup_data (rfk_dbus_get_resource (), path,
                                G_RESOURCE_LOOKUP_FLAGS_NONE, &error);
  g_assert_no_error (error);
  node = g_dbus_node_info_new_for_xml (g_bytes_get_data (xml, NULL), &error);
  g_assert_no_error (error);
  interface = g_dbus_node_info_lookup_interface (node, name);
  g_assert (interface != NULL);
  g_dbus_interface_info_cache_build (interface);
  return g_dbus_interface_info_ref (interface);
}


/* Announces what changed since the last announcement, per object: one
 * PropertiesChanged with the new values only. */
static void
announce (RfkDBusService *self, Exported *exported)
{
  GDBusPropertyInfo **properties = exported->interface->properties;
  GVariantBuilder changed;
  gboolean any = FALSE;

  g_variant_builder_init (&changed, G_VARIANT_TYPE ("a{sv}"));
  for (guint i = 0; properties != NULL && properties[i] != NULL; i++)
    {
      const char *name = properties[i]->name;
      GVariant *value = g_variant_ref_sink (
        rfk_dbus_property_get (&self->model, name));
      GVariant *before = g_hash_table_lookup (exported->announced, name);

      if (before != NULL && g_variant_equal (before, value))
        {
          g_variant_unref (value);
          continue;
        }
      /* The first values are the baseline, not a change. */
      if (before != NULL)
        {
          g_variant_builder_add (&changed, "{sv}", name, value);
          any = TRUE;
        }
      g_hash_table_insert (exported->announced, (gpointer) name, value);
    }
  if (any && self->connection != NULL && exported->registration_id != 0)
    g_dbus_connection_emit_signal (self->connection, NULL, exported->path,
                                   "org.freedesktop.DBus.Properties",
                                   "PropertiesChanged",
                                   g_variant_new ("(sa{sv}as)",
                                                  exported->interface->name,
                                                  &changed, NULL),
                                   NULL);
  else
    g_variant_builder_clear (&changed);
}

static void
sync_cb (gpointer user_data)
{
  RfkDBusService *self = user_data;

  for (guint i = 0; is_attached (self) && i < self->exported->len; i++)
    announce (self, g_ptr_array_index (self->exported, i));
}

static void
schedule_sync (RfkDBusService *self)
{
  rfk_sync_throttle_queue (self->throttle);
}

static guint
register_object (RfkDBusService *self, Exported *exported, GError **error)
{
  return g_dbus_connection_register_object (self->connection, exported->path,
                                            exported->interface,
                                            _rfk_dbus_service_vtable (),
                                            self, NULL, error);
}

static Exported *
exported_new (const char *path, GDBusInterfaceInfo *interface)
{
  Exported *exported = g_new0 (Exported, 1);

  exported->path = g_strdup (path);
  exported->interface = g_dbus_interface_info_ref (interface);
  exported->announced = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
                                               (GDestroyNotify) g_variant_unref);
  return exported;
}

gboolean
rfk_dbus_service_add_object (RfkDBusService *self, const char *path,
                             GDBusInterfaceInfo *interface, GError **error)
{
  Exported *exported;

  g_return_val_if_fail (RFK_IS_DBUS_SERVICE (self), FALSE);
  g_return_val_if_fail (self->connection != NULL, FALSE);

  exported = exported_new (path, interface);
  exported->registration_id = register_object (self, exported, error);
  if (exported->registration_id == 0)
    {
      exported_free (exported);
      return FALSE;
    }
  g_ptr_array_add (self->exported, exported);
  if (is_attached (self))
    announce (self, exported);  /* its baseline */
  return TRUE;
}

static void
unregister (RfkDBusService *self, Exported *exported)
{
  if (exported->registration_id != 0 && self->connection != NULL)
    g_dbus_connection_unregister_object (self->connection,
                                         exported->registration_id);
  exported->registration_id = 0;
}

void
rfk_dbus_service_remove_object (RfkDBusService *self, const char *path)
{
  g_return_if_fail (RFK_IS_DBUS_SERVICE (self));

  for (guint i = 1; i < self->exported->len; i++)
    {
      Exported *exported = g_ptr_array_index (self->exported, i);

      if (g_str_equal (exported->path, path))
        {
          unregister (self, exported);
          g_ptr_array_remove_index (self->exported, i);
          return;
        }
    }
}

gboolean
rfk_dbus_service_export (RfkDBusService *self, GDBusConnection *connection,
                         GError **error)
{
  GDBusInterfaceInfo *interface;
  Exported *exported;

  g_return_val_if_fail (RFK_IS_DBUS_SERVICE (self), FALSE);
  g_return_val_if_fail (self->connection == NULL, FALSE);

  self->connection = g_object_ref (connection);
  interface = rfk_dbus_service_load_interface (RFK_DBUS_INTERFACE ".xml",
                                               RFK_DBUS_INTERFACE);
  exported = exported_new (RFK_DBUS_PATH, interface);
  g_dbus_interface_info_unref (interface);
  exported->registration_id = register_object (self, exported, error);
  if (exported->registration_id == 0)
    {
      exported_free (exported);
      g_clear_object (&self->connection);
      return FALSE;
    }
  g_ptr_array_insert (self->exported, 0, exported);
  return TRUE;
}

void
rfk_dbus_service_unexport (RfkDBusService *self)
{
  g_return_if_fail (RFK_IS_DBUS_SERVICE (self));

  for (guint i = 0; i < self->exported->len; i++)
    unregister (self, g_ptr_array_index (self->exported, i));
  g_ptr_array_set_size (self->exported, 0);
  g_clear_object (&self->connection);
}

/* gsd reads the chassis once at start; so do we, without blocking. */
static void
chassis_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *chassis = rfk_chassis_lookup_finish (result, &error);
  RfkDBusService *self;

  /* Cancelled: we are gone.  Any other failure was logged: the chassis
   * stays unknown. */
  if (error != NULL)
    return;
  self = RFK_DBUS_SERVICE (user_data);
  if (chassis != NULL)
    self->model.should_show = rfk_chassis_shows_airplane_mode (chassis);
  schedule_sync (self);
}

static void
on_settings_changed (GSettings *settings, const char *key,
                     RfkDBusService *self)
{
  schedule_sync (self);
}

void
rfk_dbus_service_attach (RfkDBusService *self, RfkManager *manager,
                         RfkSettings *settings)
{
  static const char *const manager_signals[] = {
    "device-added", "device-removed", "device-changed",
    "airplane-mode-changed", "airplane-light-changed",
    "airplane-error-changed", "state-changed",
  };

  g_return_if_fail (RFK_IS_DBUS_SERVICE (self));
  g_return_if_fail (!is_attached (self));

  self->model.manager = g_object_ref (manager);
  self->model.settings = g_object_ref (settings);
  for (gsize i = 0; i < G_N_ELEMENTS (manager_signals); i++)
    g_signal_connect_swapped (manager, manager_signals[i],
                              G_CALLBACK (schedule_sync), self);
  g_signal_connect_swapped (settings, "led-changed",
                            G_CALLBACK (schedule_sync), self);
  if (rfk_manager_get_history (manager) != NULL)
    g_signal_connect_object (rfk_manager_get_history (manager), "changed",
                             G_CALLBACK (schedule_sync), self,
                             G_CONNECT_SWAPPED);
  /* airplane-radio-types changes what counts without another signal. */
  g_signal_connect (rfk_settings_get_gsettings (settings), "changed",
                    G_CALLBACK (on_settings_changed), self);
  rfk_chassis_lookup_async (self->cancellable, chassis_cb, self);
  rfk_sync_throttle_sync_now (self->throttle);  /* the baseline */
}

static void
rfk_dbus_service_dispose (GObject *object)
{
  RfkDBusService *self = RFK_DBUS_SERVICE (object);

  g_cancellable_cancel (self->cancellable);
  if (self->connection != NULL)
    rfk_dbus_service_unexport (self);
  rfk_sync_throttle_cancel (self->throttle);
  if (self->model.manager != NULL)
    {
      g_signal_handlers_disconnect_by_data (self->model.manager, self);
      if (rfk_manager_get_history (self->model.manager) != NULL)
        g_signal_handlers_disconnect_by_data (
          rfk_manager_get_history (self->model.manager), self);
    }
  if (self->model.settings != NULL)
    {
      g_signal_handlers_disconnect_by_data (self->model.settings, self);
      g_signal_handlers_disconnect_by_data (
        rfk_settings_get_gsettings (self->model.settings), self);
    }
  g_clear_object (&self->model.manager);
  g_clear_object (&self->model.settings);
  G_OBJECT_CLASS (rfk_dbus_service_parent_class)->dispose (object);
}

static void
rfk_dbus_service_finalize (GObject *object)
{
  RfkDBusService *self = RFK_DBUS_SERVICE (object);

  g_ptr_array_unref (self->exported);
  g_clear_object (&self->cancellable);
  g_clear_object (&self->throttle);
  g_clear_pointer (&self->model.radios, rfk_dbus_radios_free);
  G_OBJECT_CLASS (rfk_dbus_service_parent_class)->finalize (object);
}

static void
rfk_dbus_service_class_init (RfkDBusServiceClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = rfk_dbus_service_dispose;
  G_OBJECT_CLASS (klass)->finalize = rfk_dbus_service_finalize;
}

static void
rfk_dbus_service_init (RfkDBusService *self)
{
  self->exported = g_ptr_array_new_with_free_func ((GDestroyNotify) exported_free);
  self->cancellable = g_cancellable_new ();
  /*
   * Many events in one read (a switch, an `unblock all`) are one signal:
   * one sync per main-loop turn (no quiet spell to wait for).  After the
   * menu's, which waits at G_PRIORITY_DEFAULT_IDLE: the menu is what the
   * user is looking at, and with 64 radios sending Radios costs half a
   * millisecond (GDBus writes it value by value).
   */
  self->throttle = rfk_sync_throttle_new (G_PRIORITY_LOW, 0, 0, 0, sync_cb,
                                          self);
  /* Unknown chassis: shown, as gsd does. */
  self->model.should_show = TRUE;
  self->model.radios = rfk_dbus_radios_new ();
}

RfkDBusService *
rfk_dbus_service_new (GApplication *app)
{
  RfkDBusService *self = g_object_new (RFK_TYPE_DBUS_SERVICE, NULL);

  self->app = app;
  return self;
}

/* rfk-chassis.c: hostnamed's Chassis, read once and without blocking. */
#include "config.h"

#include "rfk-chassis.h"

#define HOSTNAMED_NAME "org.freedesktop.hostname1"
/* hostnamed is started on demand: give it time to come up. */
#define HOSTNAMED_TIMEOUT_MS 10000

/* No reply has no chassis; a reply without a string chassis has a NULL
 * one (not an error: the caller keeps what it assumed). */
static void
chassis_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  g_autoptr (GError) error = NULL;
  g_autoptr (GVariant) reply = NULL;
  g_autoptr (GVariant) chassis = NULL;

  reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), result,
                                         &error);
  if (reply == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        g_debug ("No chassis from %s: %s", HOSTNAMED_NAME, error->message);
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  g_variant_get (reply, "(v)", &chassis);
  g_task_return_pointer (task,
                         g_variant_is_of_type (chassis, G_VARIANT_TYPE_STRING)
                           ? g_variant_dup_string (chassis, NULL)
                           : NULL,
                         g_free);
}

static void
system_bus_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  g_autoptr (GError) error = NULL;
  g_autoptr (GDBusConnection) bus = g_bus_get_finish (result, &error);
  GCancellable *cancellable;

  if (bus == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        g_debug ("No system bus for the chassis: %s", error->message);
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  /* Read before the call: its arguments are evaluated in no set order,
   * and the last one takes the task. */
  cancellable = g_task_get_cancellable (task);
  g_dbus_connection_call (bus, HOSTNAMED_NAME, "/org/freedesktop/hostname1",
                          "org.freedesktop.DBus.Properties", "Get",
                          g_variant_new ("(ss)", HOSTNAMED_NAME, "Chassis"),
                          G_VARIANT_TYPE ("(v)"), G_DBUS_CALL_FLAGS_NONE,
                          HOSTNAMED_TIMEOUT_MS, cancellable,
                          chassis_cb, g_steal_pointer (&task));
}

void
rfk_chassis_lookup_async (GCancellable *cancellable,
                          GAsyncReadyCallback callback, gpointer user_data)
{
  GTask *task = g_task_new (NULL, cancellable, callback, user_data);

  g_task_set_source_tag (task, rfk_chassis_lookup_async);
  g_bus_get (G_BUS_TYPE_SYSTEM, cancellable, system_bus_cb, task);
}

char *
rfk_chassis_lookup_finish (GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

gboolean
rfk_chassis_shows_airplane_mode (const char *chassis)
{
  static const char *const hidden[] = { "desktop", "server", "vm",
                                        "container" };

  for (gsize i = 0; chassis != NULL && i < G_N_ELEMENTS (hidden); i++)
    if (g_str_equal (chassis, hidden[i]))
      return FALSE;
  return TRUE;
}

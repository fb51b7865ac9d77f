/*
 * rfk-applet-remote.c: `rfkill-applet --airplane` carried out by the
 * running applet (rfk-remote.h), so the CLI and the applet never both
 * write the restore list.
 */
#include "config.h"

#include "rfk-applet-remote.h"

#include <glib/gi18n.h>

#include "rfk-remote.h"
#include "rfk-transport.h"

static void
set_done_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GDBusMethodInvocation) invocation = user_data;
  RfkManager *manager = RFK_MANAGER (source);
  GError *error = NULL;

  if (!rfk_manager_set_airplane_mode_finish (manager, result, &error))
    {
      g_dbus_method_invocation_take_error (g_steal_pointer (&invocation),
                                           error);
      return;
    }
  g_dbus_method_invocation_return_value (
    g_steal_pointer (&invocation),
    g_variant_new ("(b)", rfk_manager_get_airplane_mode (manager)));
}

static void
method_call_cb (GDBusConnection *connection, const char *sender,
                const char *object_path, const char *interface_name,
                const char *method_name, GVariant *parameters,
                GDBusMethodInvocation *invocation, gpointer user_data)
{
  RfkManager *manager = user_data;
  const char *action, *device;
  gboolean enable;

  g_variant_get (parameters, "(&s&s)", &action, &device);
  if (g_strcmp0 (device, rfk_manager_get_device_path (manager)) != 0)
    {
      g_dbus_method_invocation_return_error (invocation, G_DBUS_ERROR,
                                             G_DBUS_ERROR_INVALID_ARGS,
                                             _("The applet runs on %s, not "
                                               "on %s"),
                                             rfk_manager_get_device_path (
                                               manager),
                                             device);
      return;
    }
  if (g_str_equal (action, "on"))
    enable = TRUE;
  else if (g_str_equal (action, "off"))
    enable = FALSE;
  else if (g_str_equal (action, "toggle"))
    enable = !rfk_manager_get_airplane_mode (manager);
  else
    {
      g_dbus_method_invocation_return_error (invocation, G_DBUS_ERROR,
                                             G_DBUS_ERROR_INVALID_ARGS,
                                             _("Invalid value “%s” for "
                                               "--airplane: use on, off or "
                                               "toggle"), action);
      return;
    }
  rfk_manager_set_airplane_mode_async (manager, enable, NULL, set_done_cb,
                                       g_object_ref (invocation));
}

guint
rfk_applet_remote_export (GDBusConnection *connection, RfkManager *manager,
                          GError **error)
{
  static const GDBusInterfaceVTable vtable = { method_call_cb, NULL, NULL };
  g_autoptr (GDBusNodeInfo) node = g_dbus_node_info_new_for_xml (
    RFK_REMOTE_XML, error);

  if (node == NULL)
    return 0;
  /* The manager outlives the registration (rfk-applet.c unregisters
   * first), so it is not referenced here. */
  return g_dbus_connection_register_object (connection, RFK_REMOTE_PATH,
                                            node->interfaces[0], &vtable,
                                            manager, NULL, error);
}

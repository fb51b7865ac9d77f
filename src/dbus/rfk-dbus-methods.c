/*
 * rfk-dbus-methods.c: what a client asks of the objects we serve: our
 * API's methods and property reads and writes, each request carried out
 * in its turn (rfk-in-order.h) and answered with the manager's reason.
 */
#include "config.h"

#include <glib/gi18n.h>

#include "rfk-dbus-caller.h"
#include "rfk-dbus-service-private.h"
#include "rfk-in-order.h"
#include "rfk-remote.h"

static gboolean
ready_or_fail (RfkDBusService *self, GDBusMethodInvocation *invocation)
{
  const GError *error;

  if (is_attached (self)
      && rfk_manager_get_state (self->model.manager) == RFK_MANAGER_STATE_READY)
    return TRUE;
  error = is_attached (self) ? rfk_manager_get_error (self->model.manager)
                             : NULL;
  g_dbus_method_invocation_return_dbus_error (
    invocation, RFK_DBUS_ERROR_NOT_READY,
    error != NULL ? error->message : _("The rfkill device is not available"));
  return FALSE;
}

/* The request about to start is the caller's (the history names it). */
static void
name_caller (RfkManager *manager, GDBusConnection *connection,
             const char *sender)
{
  g_autofree char *by = NULL;
  RfkCause cause = rfk_dbus_caller_lookup (connection, sender, &by);

  rfk_manager_name_next_request (manager, cause, by);
}

static void
name_request (RfkManager *manager, GDBusMethodInvocation *invocation)
{
  name_caller (manager, g_dbus_method_invocation_get_connection (invocation),
               g_dbus_method_invocation_get_sender (invocation));
}

/* Methods answer when the kernel confirmed, with the manager's reason
 * otherwise.  An invocation is owned by whoever returns it: handed to the
 * async callback, never referenced twice. */
static void
return_error (GDBusMethodInvocation *invocation, const GError *error)
{
  g_dbus_method_invocation_return_dbus_error (invocation,
                                              RFK_DBUS_ERROR_FAILED,
                                              error->message);
}

/* Identical airplane requests in a row are joined by the manager, not
 * here: every door gets the same rule (RULES.md). */
static void
airplane_done_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GDBusMethodInvocation *invocation = user_data;
  g_autoptr (GError) error = NULL;

  if (!rfk_manager_set_airplane_mode_finish (RFK_MANAGER (source), result,
                                             &error))
    return_error (invocation, error);
  else
    g_dbus_method_invocation_return_value (invocation, NULL);
}

/* ToggleAirplaneMode answers with the state it asked for. */
static void
toggle_done_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GDBusMethodInvocation *invocation = user_data;
  g_autoptr (GError) error = NULL;
  gboolean enabled;

  if (!rfk_manager_toggle_airplane_mode_finish (RFK_MANAGER (source), result,
                                                &enabled, &error))
    return_error (invocation, error);
  else
    g_dbus_method_invocation_return_value (invocation,
                                           g_variant_new ("(b)", enabled));
}

static void
radio_done_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GDBusMethodInvocation *invocation = user_data;
  g_autoptr (GError) error = NULL;

  if (!rfk_manager_set_blocked_finish (RFK_MANAGER (source), result, &error))
    return_error (invocation, error);
  else
    g_dbus_method_invocation_return_value (invocation, NULL);
}

static gboolean
quit_idle_cb (gpointer user_data)
{
  g_application_quit (G_APPLICATION (user_data));
  return G_SOURCE_REMOVE;
}

/* A method call waiting for its turn (rfk-in-order.h). */
typedef struct {
  RfkDBusService *self;
  GDBusMethodInvocation *invocation;  /* returned once, by the call */
} PendingCall;

static void
pending_call_free (PendingCall *call)
{
  g_object_unref (call->self);
  g_free (call);
}

static void carry_out (RfkDBusService *self,
                       GDBusMethodInvocation *invocation);

static gboolean
carry_out_cb (gpointer user_data)
{
  PendingCall *call = user_data;

  carry_out (call->self, call->invocation);
  return G_SOURCE_REMOVE;
}

static void
method_call_cb (GDBusConnection *connection, const char *sender,
                const char *object_path, const char *interface_name,
                const char *method_name, GVariant *parameters,
                GDBusMethodInvocation *invocation, gpointer user_data)
{
  RfkDBusService *self = user_data;
  PendingCall *call;

  if (g_str_equal (method_name, "Quit"))
    {
      g_dbus_method_invocation_return_value (invocation, NULL);
      /* After the reply is on its way. */
      g_idle_add_full (G_PRIORITY_DEFAULT_IDLE, quit_idle_cb,
                       g_object_ref (self->app), g_object_unref);
      return;
    }
  call = g_new0 (PendingCall, 1);
  call->self = g_object_ref (self);
  call->invocation = invocation;
  rfk_in_order (carry_out_cb, call, (GDestroyNotify) pending_call_free);
}

static void
carry_out (RfkDBusService *self, GDBusMethodInvocation *invocation)
{
  const char *method_name = g_dbus_method_invocation_get_method_name (
    invocation);
  GVariant *parameters = g_dbus_method_invocation_get_parameters (invocation);
  RfkManager *manager = self->model.manager;

  if (!ready_or_fail (self, invocation))
    return;

  if (g_str_equal (method_name, "SetAirplaneMode"))
    {
      gboolean enable;

      g_variant_get (parameters, "(b)", &enable);
      name_request (manager, invocation);
      rfk_manager_set_airplane_mode_async (manager, enable, NULL,
                                           airplane_done_cb, invocation);
    }
  else if (g_str_equal (method_name, "ToggleAirplaneMode"))
    {
      name_request (manager, invocation);
      rfk_manager_toggle_airplane_mode_async (manager, NULL, toggle_done_cb,
                                              invocation);
    }
  else if (g_str_equal (method_name, "SetRadioBlocked"))
    {
      guint32 idx;
      gboolean blocked;

      g_variant_get (parameters, "(ub)", &idx, &blocked);
      if (rfk_manager_lookup (manager, idx) == NULL)
        {
          g_autofree char *message =
            g_strdup_printf (_("No radio has index %u"), idx);

          g_dbus_method_invocation_return_dbus_error (
            invocation, RFK_DBUS_ERROR_NO_SUCH_RADIO, message);
          return;
        }
      name_request (manager, invocation);
      rfk_manager_set_blocked_async (manager, idx, blocked, NULL,
                                     radio_done_cb, invocation);
    }
  else if (g_str_equal (method_name, "RemoveAirplaneException"))
    {
      g_autoptr (GError) error = NULL;
      guint32 idx;

      g_variant_get (parameters, "(u)", &idx);
      if (rfk_manager_remove_exception (manager, idx, &error))
        g_dbus_method_invocation_return_value (invocation, NULL);
      else
        {
          g_autofree char *message =
            g_strdup_printf (_("No radio has index %u"), idx);

          g_dbus_method_invocation_return_dbus_error (
            invocation, RFK_DBUS_ERROR_NO_SUCH_RADIO, message);
        }
    }
  else
    g_dbus_method_invocation_return_error (invocation, G_DBUS_ERROR,
                                           G_DBUS_ERROR_UNKNOWN_METHOD,
                                           _("No method %s"), method_name);
}

static GVariant *
get_property_cb (GDBusConnection *connection, const char *sender,
                 const char *object_path, const char *interface_name,
                 const char *property_name, GError **error,
                 gpointer user_data)
{
  RfkDBusService *self = user_data;
  GVariant *value = NULL;

  if (is_attached (self))
    value = rfk_dbus_property_get (&self->model, property_name);
  if (value == NULL)
    g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_FAILED,
                 _("The applet is starting"));
  return value;
}

/* A property write waiting for its turn. */
typedef struct {
  RfkDBusService *self;
  char *name;
  GVariant *value;
  GDBusConnection *connection;
  char *sender;
} PendingWrite;

static void
pending_write_free (PendingWrite *write)
{
  g_object_unref (write->self);
  g_free (write->name);
  g_variant_unref (write->value);
  g_object_unref (write->connection);
  g_free (write->sender);
  g_free (write);
}

static gboolean
write_cb (gpointer user_data)
{
  PendingWrite *write = user_data;
  g_autoptr (GError) error = NULL;

  /* Answered already: the request's own outcome is told as for the
   * other doors, in PropertiesChanged and, on failure, the log. */
  if (!is_attached (write->self))
    return G_SOURCE_REMOVE;
  name_caller (write->self->model.manager, write->connection,
               write->sender);
  if (!rfk_dbus_property_set (&write->self->model, write->name,
                              write->value, &error))
    g_message ("Cannot set %s: %s", write->name, error->message);
  return G_SOURCE_REMOVE;
}

static gboolean
set_property_cb (GDBusConnection *connection, const char *sender,
                 const char *object_path, const char *interface_name,
                 const char *property_name, GVariant *value, GError **error,
                 gpointer user_data)
{
  /* The writes that switch radios, on our object and gsd's. */
  static const char *const requests[] = {
    "AirplaneMode", "BluetoothAirplaneMode", "WwanAirplaneMode", NULL,
  };
  RfkDBusService *self = user_data;

  if (!is_attached (self))
    {
      g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_FAILED,
                   _("The applet is starting"));
      return FALSE;
    }
  /* A request: carried out in its turn (rfk-in-order.h).  The value's
   * type was checked by GDBus against the published interface. */
  if (g_strv_contains (requests, property_name)
      && g_variant_is_of_type (value, G_VARIANT_TYPE_BOOLEAN))
    {
      PendingWrite *write = g_new0 (PendingWrite, 1);

      write->self = g_object_ref (self);
      write->name = g_strdup (property_name);
      write->value = g_variant_ref (value);
      write->connection = g_object_ref (connection);
      write->sender = g_strdup (sender);
      rfk_in_order (write_cb, write, (GDestroyNotify) pending_write_free);
      return TRUE;
    }
  return rfk_dbus_property_set (&self->model, property_name, value, error);
}

const GDBusInterfaceVTable *
_rfk_dbus_service_vtable (void)
{
  static const GDBusInterfaceVTable vtable = {
    method_call_cb, get_property_cb, set_property_cb
  };

  return &vtable;
}

/* rfk-cli-airplane.c: --airplane on|off|toggle, confirmed by the kernel. */
#include "config.h"

#include "rfk-cli.h"

#include <glib/gi18n.h>
#include <stdio.h>
#include <sys/stat.h>

#include "rfk-cli-common.h"
#include "rfk-nm-radios.h"
#include "rfk-remote.h"
#include "rfk-state-file.h"
#include "rfk-transport.h"

typedef struct {
  GMainLoop *loop;
  gboolean enabled;  /* the state asked for */
  GError *error;
} Wait;

gboolean
rfk_cli_airplane_from_string (const char *string, RfkCliAirplane *out)
{
  static const struct { const char *name; RfkCliAirplane value; } table[] = {
    { "on", RFK_CLI_AIRPLANE_ON },
    { "off", RFK_CLI_AIRPLANE_OFF },
    { "toggle", RFK_CLI_AIRPLANE_TOGGLE },
  };

  for (guint i = 0; string != NULL && i < G_N_ELEMENTS (table); i++)
    if (g_str_equal (string, table[i].name))
      {
        *out = table[i].value;
        return TRUE;
      }
  return FALSE;
}

static void
done_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Wait *wait = user_data;

  /* For "on" and "off" too: every airplane request carries its state. */
  rfk_manager_toggle_airplane_mode_finish (RFK_MANAGER (source), result,
                                           &wait->enabled, &wait->error);
  g_main_loop_quit (wait->loop);
}

typedef enum {
  ASKED_NOBODY,   /* no applet (or not on our device): do it ourselves */
  ASKED_DONE,
  ASKED_FAILED,
} Asked;

/* Errors that mean "no applet to ask here": nobody owns the name, or an
 * applet without this API.  Not NotReady: that applet is there, starting
 * (at login the CLI may run first) or waiting for its device, and will
 * write the list itself; see ask_applet(). */
static gboolean
means_nobody (const GError *error)
{
  static const GDBusError nobody[] = {
    G_DBUS_ERROR_SERVICE_UNKNOWN, G_DBUS_ERROR_NAME_HAS_NO_OWNER,
    G_DBUS_ERROR_UNKNOWN_METHOD, G_DBUS_ERROR_UNKNOWN_OBJECT,
    G_DBUS_ERROR_UNKNOWN_INTERFACE, G_DBUS_ERROR_UNKNOWN_PROPERTY,
    G_DBUS_ERROR_INVALID_ARGS,
  };

  for (gsize i = 0; i < G_N_ELEMENTS (nobody); i++)
    if (g_error_matches (error, G_DBUS_ERROR, nobody[i]))
      return TRUE;
  return FALSE;
}

static gboolean
is_not_ready (const GError *error)
{
  g_autofree char *name = g_dbus_error_get_remote_error (error);

  return g_strcmp0 (name, RFK_DBUS_ERROR_NOT_READY) == 0;
}

/* Whether the applet's device is ours: the same character device
 * (st_rdev: /dev/rfkill, /dev/./rfkill and a symlink to it are one), or
 * the same socket file (st_dev and st_ino).  Only when one of them cannot
 * be looked at does the spelling decide. */
static gboolean
same_device (const char *ours, const char *theirs)
{
  struct stat a, b;

  if (stat (ours, &a) < 0 || stat (theirs, &b) < 0)
    return g_strcmp0 (ours, theirs) == 0;
  if ((a.st_mode & S_IFMT) != (b.st_mode & S_IFMT))
    return FALSE;
  if (S_ISCHR (a.st_mode))
    return a.st_rdev == b.st_rdev;
  return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

static GVariant *
call_applet (GDBusConnection *bus, const char *interface, const char *method,
             GVariant *parameters, const GVariantType *reply_type,
             GError **error)
{
  return g_dbus_connection_call_sync (bus, APP_ID, RFK_DBUS_PATH, interface,
                                      method, parameters, reply_type,
                                      G_DBUS_CALL_FLAGS_NO_AUTO_START,
                                      RFK_REMOTE_TIMEOUT_MS, NULL, error);
}

/* How long an applet that answers NotReady is given to get ready: it
 * opens the device within a second of login; longer, it is waiting for a
 * device that is not there, and the user is told. */
#define NOT_READY_WAIT_MS 10000
#define NOT_READY_RETRY_MS 200

/* The airplane-mode call, again while the applet says NotReady. */
static GVariant *
call_airplane (GDBusConnection *bus, RfkCliAirplane action, GError **error)
{
  gint64 give_up = g_get_monotonic_time ()
                   + NOT_READY_WAIT_MS * G_TIME_SPAN_MILLISECOND;

  for (;;)
    {
      g_autoptr (GError) local_error = NULL;
      GVariant *reply;

      if (action == RFK_CLI_AIRPLANE_TOGGLE)
        reply = call_applet (bus, RFK_DBUS_INTERFACE, "ToggleAirplaneMode",
                             NULL, G_VARIANT_TYPE ("(b)"), &local_error);
      else
        reply = call_applet (bus, RFK_DBUS_INTERFACE, "SetAirplaneMode",
                             g_variant_new ("(b)",
                                            action == RFK_CLI_AIRPLANE_ON),
                             G_VARIANT_TYPE_UNIT, &local_error);
      if (reply != NULL)
        return reply;
      if (!is_not_ready (local_error))
        {
          g_propagate_error (error, g_steal_pointer (&local_error));
          return NULL;
        }
      if (g_get_monotonic_time () >= give_up)
        {
          g_dbus_error_strip_remote_error (local_error);
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_INITIALIZED,
                       g_dngettext (GETTEXT_PACKAGE,
                                    "the running applet is still not ready "
                                    "after %d second (%s)",
                                    "the running applet is still not ready "
                                    "after %d seconds (%s)",
                                    NOT_READY_WAIT_MS / 1000),
                       NOT_READY_WAIT_MS / 1000, local_error->message);
          return NULL;
        }
      g_usleep (NOT_READY_RETRY_MS * 1000);
    }
}

/* Asks the running applet (rfk-remote.h) to do it. */
static Asked
ask_applet (const char *device_path, RfkCliAirplane action,
            gboolean *out_enabled, GError **error)
{
  g_autoptr (GDBusConnection) bus = NULL;
  g_autoptr (GVariant) device = NULL;
  g_autoptr (GVariant) reply = NULL;
  g_autoptr (GError) local_error = NULL;

  /* Never start a bus (dbus-launch) just to find nobody on it. */
  if (g_getenv ("DBUS_SESSION_BUS_ADDRESS") == NULL)
    {
      g_autofree char *socket = g_build_filename (g_get_user_runtime_dir (),
                                                  "bus", NULL);

      if (!g_file_test (socket, G_FILE_TEST_EXISTS))
        return ASKED_NOBODY;
    }
  bus = g_bus_get_sync (G_BUS_TYPE_SESSION, NULL, NULL);
  if (bus == NULL)
    return ASKED_NOBODY;

  /* An applet on another device is none of our business. */
  reply = call_applet (bus, "org.freedesktop.DBus.Properties", "Get",
                       g_variant_new ("(ss)", RFK_DBUS_INTERFACE,
                                      "DevicePath"),
                       G_VARIANT_TYPE ("(v)"), &local_error);
  if (reply == NULL && means_nobody (local_error))
    return ASKED_NOBODY;
  if (reply == NULL)
    {
      g_dbus_error_strip_remote_error (local_error);
      g_propagate_error (error, g_steal_pointer (&local_error));
      return ASKED_FAILED;
    }
  g_variant_get (reply, "(v)", &device);
  if (!g_variant_is_of_type (device, G_VARIANT_TYPE_STRING)
      || !same_device (device_path, g_variant_get_string (device, NULL)))
    return ASKED_NOBODY;
  g_clear_pointer (&reply, g_variant_unref);

  reply = call_airplane (bus, action, &local_error);
  if (reply != NULL)
    {
      if (action == RFK_CLI_AIRPLANE_TOGGLE)
        g_variant_get (reply, "(b)", out_enabled);
      else
        *out_enabled = action == RFK_CLI_AIRPLANE_ON;
      return ASKED_DONE;
    }
  if (means_nobody (local_error))
    return ASKED_NOBODY;
  g_dbus_error_strip_remote_error (local_error);
  g_propagate_error (error, g_steal_pointer (&local_error));
  return ASKED_FAILED;
}

static int
report (RfkCliAirplane action, gboolean enable, const GError *error)
{
  if (error != NULL && action == RFK_CLI_AIRPLANE_TOGGLE)
    return rfk_cli_fail (_("Cannot switch airplane mode: %s"),
                         error->message);
  if (error != NULL)
    return rfk_cli_fail (enable ? _("Cannot turn airplane mode on: %s")
                                : _("Cannot turn airplane mode off: %s"),
                         error->message);
  printf ("%s\n", enable ? _("Airplane mode is on.")
                         : _("Airplane mode is off."));
  return 0;
}

int
rfk_cli_airplane (const char *device_path, RfkCliAirplane action)
{
  g_autoptr (RfkManager) manager = NULL;
  g_autoptr (GDBusConnection) system_bus = NULL;
  g_autoptr (RfkNmRadios) nm_radios = NULL;
  g_autoptr (GMainLoop) loop = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (RfkStateLock) lock = NULL;
  g_autoptr (RfkHistory) history = NULL;
  Wait wait = { 0 };
  gboolean enable = action == RFK_CLI_AIRPLANE_ON;
  int status;

  if (device_path == NULL)
    device_path = RFK_DEFAULT_DEVICE;
  switch (ask_applet (device_path, action, &enable, &error))
    {
    case ASKED_DONE:
      return report (action, enable, NULL);
    case ASKED_FAILED:
      return report (action, enable, error);
    case ASKED_NOBODY:
      break;
    }

  /* Nobody else writes the list while we read, decide and write it: an
   * applet starting meanwhile waits for us (rfk-state-file.h). */
  lock = rfk_state_file_lock (&error);
  if (lock == NULL)
    return rfk_cli_fail ("%s", error->message);
  manager = rfk_cli_open_manager (device_path, FALSE);
  if (manager == NULL)
    return 1;
  /* With no applet to ask, the changes are ours to put in the history. */
  history = rfk_history_new ();
  if (!rfk_history_load (history, &error))
    {
      g_warning ("%s", error->message);
      g_clear_error (&error);
    }
  rfk_manager_set_history (manager, history);

  /* NetworkManager follows, as with the applet (rfk-nm-radios.h). */
  system_bus = g_bus_get_sync (G_BUS_TYPE_SYSTEM, NULL, NULL);
  if (system_bus != NULL)
    nm_radios = rfk_nm_radios_new (manager, system_bus);
  loop = g_main_loop_new (NULL, FALSE);
  wait.loop = loop;
  /* The same entry points as the applet's doors (RULES.md). */
  rfk_manager_name_next_request (manager, RFK_CAUSE_CLI, NULL);
  if (action == RFK_CLI_AIRPLANE_TOGGLE)
    rfk_manager_toggle_airplane_mode_async (manager, NULL, done_cb, &wait);
  else
    rfk_manager_set_airplane_mode_async (manager, enable, NULL, done_cb,
                                         &wait);
  g_main_loop_run (loop);
  if (action == RFK_CLI_AIRPLANE_TOGGLE)
    enable = wait.enabled;
  if (nm_radios != NULL)
    rfk_nm_radios_flush (nm_radios, 5000);
  /* The manager hands what its last sweep held to the history as it
   * goes; then the history is written. */
  g_clear_object (&nm_radios);
  g_clear_object (&manager);
  if (!rfk_history_flush (history, &error))
    {
      g_warning ("%s", error->message);
      g_clear_error (&error);
    }

  status = report (RFK_CLI_AIRPLANE_ON, enable, wait.error);
  g_clear_error (&wait.error);
  return status;
}

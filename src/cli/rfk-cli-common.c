/* rfk-cli-common.c: opening the model and reporting, for CLI actions. */
#include "config.h"

#include "rfk-cli-common.h"

#include <glib/gi18n.h>
#include <stdio.h>

#include "rfk-device.h"
#include "rfk-preferences.h"

int
rfk_cli_fail (const char *format, ...)
{
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  fprintf (stderr, "%s: %s\n", g_get_prgname (), message);
  return 1;
}

static void
state_changed_cb (RfkManager *manager, GMainLoop *loop)
{
  if (rfk_manager_get_state (manager) != RFK_MANAGER_STATE_STARTING)
    g_main_loop_quit (loop);
}

/* The applet's airplane-radio-types, so both agree on what counts.
 * Without the installed schema (running from the build tree): all. */
static void
apply_settings (RfkManager *manager)
{
  g_autoptr (GSettings) settings = rfk_preferences_open (NULL);

  if (settings != NULL)
    rfk_manager_set_airplane_types (manager,
                                    rfk_preferences_get_airplane_types (
                                      settings));
}

RfkManager *
rfk_cli_open_manager (const char *device_path, gboolean read_only)
{
  g_autoptr (RfkManager) manager = rfk_manager_new (device_path);
  g_autoptr (GMainLoop) loop = g_main_loop_new (NULL, FALSE);
  gulong handler;

  apply_settings (manager);
  rfk_manager_set_read_only (manager, read_only);
  handler = g_signal_connect (manager, "state-changed",
                              G_CALLBACK (state_changed_cb), loop);
  rfk_manager_start (manager);
  /* A char device is ready at once; a socket after its ADDs. */
  if (rfk_manager_get_state (manager) == RFK_MANAGER_STATE_STARTING)
    g_main_loop_run (loop);
  g_signal_handler_disconnect (manager, handler);

  if (rfk_manager_get_state (manager) != RFK_MANAGER_STATE_READY)
    {
      const GError *error = rfk_manager_get_error (manager);

      rfk_cli_fail ("%s", error ? error->message
                                : _("The rfkill device is not available"));
      return NULL;
    }
  return g_steal_pointer (&manager);
}

void
rfk_cli_print_json (JsonBuilder *builder)
{
  g_autoptr (JsonGenerator) generator = json_generator_new ();
  g_autoptr (JsonNode) root = json_builder_get_root (builder);
  g_autofree char *text = NULL;

  json_generator_set_root (generator, root);
  json_generator_set_pretty (generator, TRUE);
  text = json_generator_to_data (generator, NULL);
  printf ("%s\n", text);
}

/* rfk-cli-airplane.c: --airplane on|off|toggle, confirmed by the kernel. */
#include "config.h"

#include "rfk-cli.h"

#include <glib/gi18n.h>
#include <stdio.h>

#include "rfk-cli-common.h"

typedef struct {
  GMainLoop *loop;
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

  rfk_manager_set_airplane_mode_finish (RFK_MANAGER (source), result,
                                        &wait->error);
  g_main_loop_quit (wait->loop);
}

int
rfk_cli_airplane (const char *device_path, RfkCliAirplane action)
{
  g_autoptr (RfkManager) manager = rfk_cli_open_manager (device_path);
  g_autoptr (GMainLoop) loop = NULL;
  Wait wait = { 0 };
  gboolean enable;

  if (manager == NULL)
    return 1;

  enable = action == RFK_CLI_AIRPLANE_ON
           || (action == RFK_CLI_AIRPLANE_TOGGLE
               && !rfk_manager_get_airplane_mode (manager));
  loop = g_main_loop_new (NULL, FALSE);
  wait.loop = loop;
  rfk_manager_set_airplane_mode_async (manager, enable, NULL, done_cb, &wait);
  g_main_loop_run (loop);

  if (wait.error != NULL)
    {
      g_autoptr (GError) error = g_steal_pointer (&wait.error);

      return rfk_cli_fail (enable ? _("Cannot turn airplane mode on: %s")
                                  : _("Cannot turn airplane mode off: %s"),
                           error->message);
    }
  printf ("%s\n", enable ? _("Airplane mode is on.")
                         : _("Airplane mode is off."));
  return 0;
}

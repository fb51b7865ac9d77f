/*
 * main.c: rfkill-applet's entry point.  An action option runs the CLI;
 * without one, the tray applet starts.
 */
#include "config.h"

#include <glib/gi18n.h>
#include <locale.h>
#include <stdio.h>

#include "cli/rfk-cli.h"
#include "rfk-applet.h"
#include "rfk-state-file.h"

/* Exit status for a bad command line, as documented in the man page. */
#define EXIT_USAGE 2

static int
usage_error (GOptionContext *context, const char *message)
{
  fprintf (stderr, "%s: %s\n", g_get_prgname (), message);
  fprintf (stderr, _("Try “%s --help” for more information.\n"),
           g_get_prgname ());
  return EXIT_USAGE;
}

int
main (int argc, char **argv)
{
  g_autofree char *device = NULL;
  g_autofree char *airplane = NULL;
  gboolean list = FALSE, json = FALSE, version = FALSE, take_light = FALSE;
  gboolean history = FALSE;
  g_autoptr (GOptionContext) context = NULL;
  g_autoptr (GError) error = NULL;
  RfkCliAirplane action;
  int status;
  const GOptionEntry entries[] = {
    { "device", 'd', 0, G_OPTION_ARG_FILENAME, &device,
      N_("Use PATH instead of /dev/rfkill (a device or a SOCK_SEQPACKET "
         "socket)"), N_("PATH") },
    { "list", 'l', 0, G_OPTION_ARG_NONE, &list,
      N_("List the radios and airplane mode, then exit"), NULL },
    { "json", 'j', 0, G_OPTION_ARG_NONE, &json,
      N_("With --list or --history, print JSON"), NULL },
    { "history", 0, 0, G_OPTION_ARG_NONE, &history,
      N_("Show the last radio changes and what made them, then exit"),
      NULL },
    { "airplane", 'a', 0, G_OPTION_ARG_STRING, &airplane,
      N_("Turn airplane mode on, off or toggle it, then exit"),
      N_("on|off|toggle") },
    { "take-back-light", 0, 0, G_OPTION_ARG_NONE, &take_light,
      N_("Take the airplane-mode light back from the program that holds "
         "it (needs CAP_NET_ADMIN), then exit"), NULL },
    { "version", 'V', 0, G_OPTION_ARG_NONE, &version,
      N_("Print the version and exit"), NULL },
    { NULL }
  };

  setlocale (LC_ALL, "");
  bindtextdomain (GETTEXT_PACKAGE, LOCALEDIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);
  g_set_prgname ("rfkill-applet");

  context = g_option_context_new (NULL);
  g_option_context_set_summary (context,
                                _("Tray applet and command for radios and "
                                  "airplane mode."));
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  g_option_context_set_translation_domain (context, GETTEXT_PACKAGE);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    return usage_error (context, error->message);

  if (argc > 1)
    {
      g_autofree char *message =
        g_strdup_printf (_("Unexpected argument “%s”"), argv[1]);

      return usage_error (context, message);
    }
  if (version)
    {
      printf ("rfkill-applet %s\n", PACKAGE_VERSION);
      return 0;
    }
  if (json && !list && !history)
    return usage_error (context, _("--json needs --list or --history"));
  if (history && (list || airplane != NULL || take_light))
    return usage_error (context,
                        _("--history cannot be combined with --list, "
                          "--airplane or --take-back-light"));
  if (list && airplane != NULL)
    return usage_error (context,
                        _("--list and --airplane cannot be combined"));
  if (take_light && (list || airplane != NULL))
    return usage_error (context,
                        _("--take-back-light cannot be combined with "
                          "--list or --airplane"));
  if (airplane != NULL && !rfk_cli_airplane_from_string (airplane, &action))
    {
      g_autofree char *message =
        g_strdup_printf (_("Invalid value “%s” for --airplane: use on, off "
                           "or toggle"), airplane);

      return usage_error (context, message);
    }
  if (device != NULL && *device == '\0')
    return usage_error (context, _("--device needs a path"));

  if (list)
    status = rfk_cli_list (device, json);
  else if (history)
    status = rfk_cli_history (json);
  else if (airplane != NULL)
    status = rfk_cli_airplane (device, action);
  else if (take_light)
    status = rfk_cli_take_back_light (device);
  else
    status = rfk_applet_run (device, argc, argv);
  /* A manager may outlive its caller (a request in flight at SIGTERM, a
   * NetworkManager call the CLI still waits for): the state saved so far
   * reaches the disk before we exit, whoever still holds it. */
  rfk_state_file_wait_durable ();
  return status;
}

/*
 * rfk-applet.c: the GtkApplication that puts it together.
 *
 * One instance per session: GApplication owns APP_ID on the session bus,
 * and a second launch only activates the first (no second icon).
 */
#include "config.h"

#include <glib-unix.h>
#include <glib/gi18n.h>
#include <gtk/gtk.h>
#include <libnotify/notify.h>

#include "rfk-applet.h"
#include "rfk-applet-remote.h"
#include "rfk-indicator.h"
#include "rfk-manager.h"
#include "rfk-menu.h"
#include "rfk-nm-radios.h"
#include "rfk-notifier.h"
#include "rfk-settings.h"

typedef struct
{
  char *device_path;
  RfkManager *manager;
  RfkSettings *settings;
  RfkMenu *menu;
  RfkIndicator *indicator;
  RfkNotifier *notifier;
  RfkNmRadios *nm_radios;
  GDBusConnection *bus;   /* where the remote interface is exported */
  guint remote_id;
  guint sigterm_id;
  guint sigint_id;
  int status;
} RfkApplet;

static void
rfk_applet_clear (RfkApplet *applet)
{
  if (applet->remote_id != 0)
    g_dbus_connection_unregister_object (applet->bus, applet->remote_id);
  applet->remote_id = 0;
  g_clear_object (&applet->bus);
  g_clear_handle_id (&applet->sigterm_id, g_source_remove);
  g_clear_handle_id (&applet->sigint_id, g_source_remove);
  g_clear_object (&applet->nm_radios);
  g_clear_object (&applet->notifier);
  g_clear_object (&applet->indicator);
  g_clear_object (&applet->menu);
  g_clear_object (&applet->settings);
  g_clear_object (&applet->manager);
  g_clear_pointer (&applet->device_path, g_free);
}

/* Logout sends SIGTERM: leave through Quit, so that shutdown runs. */
static gboolean
on_terminate (gpointer user_data)
{
  g_application_quit (G_APPLICATION (user_data));
  return G_SOURCE_CONTINUE;
}

static void
on_activate (GApplication *app, RfkApplet *applet)
{
  g_autoptr(GError) error = NULL;

  /* Activated again by a second launch: we are already in the tray. */
  if (applet->indicator != NULL)
    return;

  applet->manager = rfk_manager_new (applet->device_path);
  applet->settings = rfk_settings_new (applet->manager, &error);
  if (applet->settings == NULL)
    {
      g_printerr ("rfkill-applet: %s\n", error->message);
      applet->status = 1;
      return;
    }
  applet->menu = rfk_menu_new (app, applet->manager, applet->settings);
  applet->indicator = rfk_indicator_new (applet->manager, applet->menu);
  applet->notifier = rfk_notifier_new (applet->manager,
                                       rfk_settings_get_gsettings (applet->settings));
  applet->nm_radios = rfk_nm_radios_new (applet->manager, NULL);
  rfk_manager_start (applet->manager);

  /* `rfkill-applet --airplane` asks us rather than writing itself. */
  applet->bus = g_application_get_dbus_connection (app);
  if (applet->bus != NULL)
    {
      g_object_ref (applet->bus);
      applet->remote_id = rfk_applet_remote_export (applet->bus,
                                                    applet->manager,
                                                    &error);
      if (applet->remote_id == 0)
        g_warning ("%s", error->message);
    }

  /* No window keeps a tray applet alive; this hold does, until Quit. */
  g_application_hold (app);
  applet->sigterm_id = g_unix_signal_add (SIGTERM, on_terminate, app);
  applet->sigint_id = g_unix_signal_add (SIGINT, on_terminate, app);
}

static void
on_shutdown (GApplication *app, RfkApplet *applet)
{
  /* Drop the indicator before GTK goes away, and let the LED controller
   * close its fd so the kernel applies its default rule again. */
  rfk_applet_clear (applet);
  if (notify_is_initted ())
    notify_uninit ();
}

int
rfk_applet_run (const char *device_path, int argc, char **argv)
{
  g_autoptr(GtkApplication) app = NULL;
  RfkApplet applet = { 0 };
  int status;

  /* Run from the build tree (tests, demos): catalogs are not installed. */
  if (g_getenv ("RFKILL_APPLET_LOCALEDIR") != NULL)
    bindtextdomain (GETTEXT_PACKAGE, g_getenv ("RFKILL_APPLET_LOCALEDIR"));
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");

  g_set_application_name (_("Airplane Mode"));
  applet.device_path = g_strdup (device_path);

  app = gtk_application_new (APP_ID, G_APPLICATION_DEFAULT_FLAGS);
  g_signal_connect (app, "activate", G_CALLBACK (on_activate), &applet);
  g_signal_connect (app, "shutdown", G_CALLBACK (on_shutdown), &applet);

  status = g_application_run (G_APPLICATION (app), argc, argv);
  rfk_applet_clear (&applet);
  return status != 0 ? status : applet.status;
}

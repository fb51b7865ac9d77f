/*
 * rfk-applet.c: the application that puts it together.
 *
 * One instance per session: GApplication owns APP_ID on the session bus,
 * and a second launch only activates the first (no second icon), which
 * then tells the user it is already running.  The D-Bus API
 * (rfk-dbus-service.h) is exported before the name is owned.
 */
#include "config.h"

#include <glib-unix.h>
#include <glib/gi18n.h>
#include <gtk/gtk.h>

#include "rfk-applet.h"
#include "rfk-app-notice.h"
#include "rfk-dbus-service.h"
#include "rfk-gsd-rfkill.h"
#include "rfk-tray-item.h"
#include "rfk-led-controller.h"
#include "rfk-manager.h"
#include "rfk-menu.h"
#include "rfk-nm-radios.h"
#include "rfk-notifier.h"
#include "rfk-settings.h"
#include "rfk-sleep-watch.h"
#include "rfk-udev-names.h"

typedef struct
{
  char *device_path;
  RfkManager *manager;
  RfkSettings *settings;
  RfkMenu *menu;
  RfkTrayItem *tray_item;
  RfkNotifier *notifier;
  RfkNmRadios *nm_radios;
  RfkSleepWatch *sleep_watch;
  RfkDBusService *service;  /* from dbus_register until shutdown */
  RfkGsdRfkill *gsd_rfkill;
  RfkAppNotice *notice;
  guint sigterm_id;
  guint sigint_id;
  gboolean have_display;  /* gtk_init_check(), before the bus */
  int status;
} RfkApplet;

static void
rfk_applet_clear (RfkApplet *applet)
{
  g_clear_object (&applet->notice);
  g_clear_object (&applet->gsd_rfkill);
  g_clear_object (&applet->service);
  g_clear_handle_id (&applet->sigterm_id, g_source_remove);
  g_clear_handle_id (&applet->sigint_id, g_source_remove);
  g_clear_object (&applet->sleep_watch);
  g_clear_object (&applet->nm_radios);
  g_clear_object (&applet->notifier);
  g_clear_object (&applet->tray_item);
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

/* The history of radio changes (rfk-history.h), kept across restarts.
 * A file that cannot be read is said, and the history starts from what
 * could be. */
static void
keep_history (RfkManager *manager)
{
  g_autoptr (RfkHistory) history = rfk_history_new ();
  g_autoptr (GError) error = NULL;

  if (!rfk_history_load (history, &error))
    g_warning ("%s", error->message);
  rfk_history_set_autosave (history, TRUE);
  rfk_manager_set_history (manager, history);
}

static void
on_activate (GApplication *app, RfkApplet *applet)
{
  g_autoptr(GError) error = NULL;

  if (applet->status != 0)
    return;  /* startup failed and said why */
  /* Activated again by a second launch: say so, visibly. */
  if (applet->tray_item != NULL)
    {
      if (applet->notice != NULL)
        rfk_app_notice_already_running (applet->notice);
      return;
    }

  applet->manager = rfk_manager_new (applet->device_path);
  keep_history (applet->manager);
  applet->settings = rfk_settings_new (applet->manager, &error);
  if (applet->settings == NULL)
    {
      g_printerr ("rfkill-applet: %s\n", error->message);
      applet->status = 1;
      return;
    }
  applet->menu = rfk_menu_new (app, applet->manager, applet->settings);
  /* The LED's hardware-switch rule is the icon's, laptop switches told
   * apart from radios by the same udev facts. */
  rfk_led_controller_set_platform_switch_func (
    rfk_settings_get_led_controller (applet->settings),
    rfk_udev_names_is_platform_switch, rfk_menu_get_names (applet->menu));
  applet->tray_item = rfk_tray_item_new (applet->manager, applet->menu);
  applet->notifier = rfk_notifier_new (app, applet->manager,
                                       rfk_settings_get_gsettings (applet->settings),
                                       rfk_menu_get_names (applet->menu));
  /* Disconnected when the notifier goes: a request may answer later. */
  g_signal_connect_object (applet->menu, "action-failed",
                           G_CALLBACK (rfk_notifier_tell_failure),
                           applet->notifier, G_CONNECT_SWAPPED);
  applet->nm_radios = rfk_nm_radios_new (applet->manager, NULL);
  /* The resume guard (RULES.md): radios off before sleep stay off. */
  applet->sleep_watch = rfk_sleep_watch_new (NULL);
  g_signal_connect_object (applet->sleep_watch, "prepare-for-sleep",
                           G_CALLBACK (rfk_manager_prepare_for_sleep),
                           applet->manager, G_CONNECT_SWAPPED);
  rfk_manager_start (applet->manager);

  /* Clients and `rfkill-applet --airplane` go through the model from now
   * on (no call is dispatched before the main loop runs). */
  if (applet->service != NULL)
    {
      GDBusConnection *bus = g_application_get_dbus_connection (app);

      rfk_dbus_service_attach (applet->service, applet->manager,
                               applet->settings);
      applet->gsd_rfkill = rfk_gsd_rfkill_new (
        applet->service, bus, rfk_settings_get_gsettings (applet->settings));
      applet->notice = rfk_app_notice_new (app, bus);
      g_signal_connect_object (applet->notice, "action-failed",
                               G_CALLBACK (rfk_notifier_tell_failure),
                               applet->notifier, G_CONNECT_SWAPPED);
    }

  /* No window keeps a tray applet alive; this hold does, until Quit. */
  g_application_hold (app);
  applet->sigterm_id = g_unix_signal_add (SIGTERM, on_terminate, app);
  applet->sigint_id = g_unix_signal_add (SIGINT, on_terminate, app);
}

static void
on_shutdown (GApplication *app, RfkApplet *applet)
{
  /* Drop the tray item before GTK goes away, and let the LED controller
   * close its fd so the kernel applies its default rule again. */
  rfk_applet_clear (applet);
}

/*
 * A GApplication that exports our API in dbus_register, i.e. before it
 * asks for its name: a client that sees the name always finds the API.
 *
 * Not a GtkApplication: that one is for windows (app menus, the session
 * manager, window tracking), and a tray applet has none; the bench saw it
 * start 3-4 ms later, to no use here.
 */
#define RFK_TYPE_APPLICATION (rfk_application_get_type ())
G_DECLARE_FINAL_TYPE (RfkApplication, rfk_application, RFK, APPLICATION,
                      GApplication)

struct _RfkApplication
{
  GApplication parent_instance;
  RfkApplet *applet;
};

G_DEFINE_FINAL_TYPE (RfkApplication, rfk_application, G_TYPE_APPLICATION)

/* Only in the primary instance: a second launch that has no display
 * still activates the first. */
static void
rfk_application_startup (GApplication *app)
{
  RfkApplet *applet = RFK_APPLICATION (app)->applet;

  G_APPLICATION_CLASS (rfk_application_parent_class)->startup (app);
  if (!applet->have_display)
    {
      g_printerr ("rfkill-applet: %s\n",
                  _("cannot open the display (is DISPLAY or WAYLAND_DISPLAY set?)"));
      applet->status = 1;
    }
}

static gboolean
rfk_application_dbus_register (GApplication *app, GDBusConnection *bus,
                               const char *object_path, GError **error)
{
  RfkApplet *applet = RFK_APPLICATION (app)->applet;
  g_autoptr (RfkDBusService) service = rfk_dbus_service_new (app);

  if (!G_APPLICATION_CLASS (rfk_application_parent_class)
         ->dbus_register (app, bus, object_path, error))
    return FALSE;
  if (!rfk_dbus_service_export (service, bus, error))
    return FALSE;
  g_set_object (&applet->service, service);
  return TRUE;
}

/* Also when the name turned out to be taken (a second launch). */
static void
rfk_application_dbus_unregister (GApplication *app, GDBusConnection *bus,
                                 const char *object_path)
{
  RfkApplet *applet = RFK_APPLICATION (app)->applet;

  g_clear_object (&applet->notice);
  g_clear_object (&applet->gsd_rfkill);
  if (applet->service != NULL)
    rfk_dbus_service_unexport (applet->service);
  g_clear_object (&applet->service);
  G_APPLICATION_CLASS (rfk_application_parent_class)
    ->dbus_unregister (app, bus, object_path);
}

static void
rfk_application_class_init (RfkApplicationClass *klass)
{
  GApplicationClass *app_class = G_APPLICATION_CLASS (klass);

  app_class->startup = rfk_application_startup;
  app_class->dbus_register = rfk_application_dbus_register;
  app_class->dbus_unregister = rfk_application_dbus_unregister;
}

static void
rfk_application_init (RfkApplication *self)
{
}

int
rfk_applet_run (const char *device_path, int argc, char **argv)
{
  g_autoptr(RfkApplication) app = NULL;
  RfkApplet applet = { 0 };
  int status;

  /* Run from the build tree (tests, demos): catalogs are not installed. */
  if (g_getenv ("RFKILL_APPLET_LOCALEDIR") != NULL)
    bindtextdomain (GETTEXT_PACKAGE, g_getenv ("RFKILL_APPLET_LOCALEDIR"));
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");

  g_set_application_name (_("Airplane Mode"));
  applet.device_path = g_strdup (device_path);

  app = g_object_new (RFK_TYPE_APPLICATION, "application-id", APP_ID,
                      "flags", G_APPLICATION_DEFAULT_FLAGS, NULL);
  app->applet = &applet;
  g_signal_connect (app, "activate", G_CALLBACK (on_activate), &applet);
  g_signal_connect (app, "shutdown", G_CALLBACK (on_shutdown), &applet);

  /*
   * GTK starts (display, theme: ~10 ms) while the GDBus worker thread
   * connects to the session bus, which GApplication then finds done: the
   * item is on the bus ~3 ms sooner (the bench's startup figure).  A
   * second launch opens the display for nothing, and is gone at once.
   */
  g_bus_get (G_BUS_TYPE_SESSION, NULL, NULL, NULL);
  applet.have_display = gtk_init_check (NULL, NULL);

  status = g_application_run (G_APPLICATION (app), argc, argv);
  rfk_applet_clear (&applet);
  return status != 0 ? status : applet.status;
}

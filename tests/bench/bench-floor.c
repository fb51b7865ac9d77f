/*
 * bench-floor.c: the cheapest tray program there can be, as the bench's
 * baseline.  One ayatana indicator with a three-item GTK menu, then
 * gtk_main(): whatever GTK, ayatana and dbusmenu cost at startup, in
 * memory and while idle, this pays too.  The applet is judged by its
 * ratio to this program measured in the same run, not by absolute times.
 */
#include <gtk/gtk.h>
#include <libayatana-appindicator/app-indicator.h>

int
main (int argc, char **argv)
{
  static const char *const labels[] = { "First", "Second", "Quit" };
  g_autoptr (GDBusConnection) bus = NULL;
  g_autoptr (GError) error = NULL;
  AppIndicator *indicator;
  GtkWidget *menu;

  /*
   * As the applet does, the session bus connects while GTK starts and is
   * there before the indicator is made.  ayatana (0.5.92 to 0.5.94) asks
   * for the bus and watches the watcher's name at the same time; if the
   * name's owner comes back first, it makes the watcher's proxy on no
   * connection ("g_dbus_proxy_new: assertion 'G_IS_DBUS_CONNECTION
   * (connection)' failed") and never registers.  The floor did that once
   * in seven smoke runs here.
   */
  g_bus_get (G_BUS_TYPE_SESSION, NULL, NULL, NULL);
  gtk_init (&argc, &argv);
  bus = g_bus_get_sync (G_BUS_TYPE_SESSION, NULL, &error);
  if (bus == NULL)
    {
      g_printerr ("bench-floor: no session bus: %s\n", error->message);
      return 1;
    }

  menu = gtk_menu_new ();
  for (gsize i = 0; i < G_N_ELEMENTS (labels); i++)
    gtk_menu_shell_append (GTK_MENU_SHELL (menu),
                           gtk_menu_item_new_with_label (labels[i]));
  gtk_widget_show_all (menu);

  indicator = app_indicator_new ("rfk-bench-floor", "network-wireless-symbolic",
                                 APP_INDICATOR_CATEGORY_HARDWARE);
  app_indicator_set_menu (indicator, GTK_MENU (menu));
  app_indicator_set_status (indicator, APP_INDICATOR_STATUS_ACTIVE);

  gtk_main ();
  g_object_unref (indicator);
  return 0;
}

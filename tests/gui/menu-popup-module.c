/*
 * menu-popup-module.c: a GTK module (GTK_MODULES) for gui-a11y.  It pops
 * up the applet's own GtkMenu, as a tray that shows GTK menus does (an
 * XEmbed tray, through libayatana's GtkStatusIcon fallback), so that
 * AT-SPI sees the menu and the keyboard can walk it.  A hidden menu is
 * not in the accessibility tree at all (GTK lists visible windows only),
 * and the tests' StatusNotifierWatcher reads the dbusmenu instead.
 *
 * Test-only: never installed, loaded only by gui-a11y's applet.
 */
#include <gtk/gtk.h>

#define POLL_MS 200
/* The menu is built with its items before the first sync; a menu with
 * fewer children is not the applet's yet. */
#define MIN_ITEMS 4

/* The tray menu: a toplevel popup holding a GtkMenu with no attach
 * widget (submenus are attached to their items). */
static GtkMenu *
find_tray_menu (void)
{
  g_autoptr(GList) toplevels = gtk_window_list_toplevels ();

  for (GList *l = toplevels; l != NULL; l = l->next)
    {
      GtkWidget *child = gtk_bin_get_child (GTK_BIN (l->data));
      g_autoptr(GList) items = NULL;

      if (!GTK_IS_MENU (child)
          || gtk_menu_get_attach_widget (GTK_MENU (child)) != NULL)
        continue;
      items = gtk_container_get_children (GTK_CONTAINER (child));
      if (g_list_length (items) >= MIN_ITEMS)
        return GTK_MENU (child);
    }
  return NULL;
}

/* Until the menu is up; the test closes nothing.  gtk_menu_popup() gives
 * up without a word when it cannot grab the pointer and keyboard (the
 * X server still busy with the applet's first windows, on a loaded
 * machine): the menu stays hidden, so it is popped up again until it is
 * visible. */
static gboolean
popup_cb (gpointer user_data)
{
  GtkMenu *menu = find_tray_menu ();

  if (menu == NULL)
    return G_SOURCE_CONTINUE;
  if (gtk_widget_get_visible (GTK_WIDGET (menu)))
    {
      g_message ("menu-popup-module: the menu is up");
      return G_SOURCE_REMOVE;
    }
  /* gtk_menu_popup_at_pointer() wants a trigger event to grab with;
   * there is none here, and the old call grabs without one. */
  G_GNUC_BEGIN_IGNORE_DEPRECATIONS
  gtk_menu_popup (menu, NULL, NULL, NULL, NULL, 0, GDK_CURRENT_TIME);
  G_GNUC_END_IGNORE_DEPRECATIONS
  if (!gtk_widget_get_visible (GTK_WIDGET (menu)))
    g_message ("menu-popup-module: the menu did not come up; again soon");
  return G_SOURCE_CONTINUE;
}

G_MODULE_EXPORT void
gtk_module_init (gint *argc, gchar ***argv)
{
  g_timeout_add (POLL_MS, popup_cb, NULL);
}

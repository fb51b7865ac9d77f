/* rfk-menu-items.c: GTK menu items as dbusmenu exports them. */
#include "config.h"

#include "rfk-menu-items.h"

/*
 * A label that is text, not a mnemonic: kernel names have underscores
 * (tpacpi_bluetooth_sw).  Turning use-underline off is not enough: the
 * dbusmenu exporter sends the label as it is and panels read a single
 * "_" as a mnemonic.  So the item keeps use-underline and every "_" is
 * doubled, which GTK and dbusmenu clients alike show as one "_".
 */
char *
rfk_menu_item_label_for_text (const char *text)
{
  GString *out = g_string_new (NULL);

  for (const char *p = text; *p != '\0'; p++)
    {
      if (*p == '_')
        g_string_append_c (out, '_');
      g_string_append_c (out, *p);
    }
  return g_string_free (out, FALSE);
}

/* GTK notifies (and dbusmenu sends) a label even when it is unchanged. */
void
rfk_menu_item_set_label (GtkWidget *item, const char *label)
{
  if (g_strcmp0 (gtk_menu_item_get_label (GTK_MENU_ITEM (item)), label) != 0)
    gtk_menu_item_set_label (GTK_MENU_ITEM (item), label);
}

/* A message as an item's label: every "_" shown as it is. */
void
rfk_menu_item_set_text (GtkWidget *item, const char *text)
{
  g_autofree char *label = rfk_menu_item_label_for_text (text);

  rfk_menu_item_set_label (item, label);
}

/*
 * An item that says what is wrong ("No permission to switch radios", a
 * corrupt restore list, the light's trouble).  It is sensitive although
 * activating it does nothing: GTK's keyboard navigation skips an
 * insensitive item, and so do screen readers (no focus ever lands on
 * it) and most tray hosts reading the dbusmenu ("enabled": false is
 * drawn greyed out and passed over by the arrow keys).  A status there
 * would be read by nobody who cannot see it.  Its labels go through
 * rfk_menu_item_set_text(): a path has underscores.
 */
GtkWidget *
rfk_menu_item_new_status (void)
{
  return gtk_menu_item_new_with_mnemonic ("");
}

void
rfk_menu_item_set_sensitive (GtkWidget *item, gboolean sensitive)
{
  if (gtk_widget_get_sensitive (item) != !!sensitive)
    gtk_widget_set_sensitive (item, sensitive);
}

void
rfk_menu_item_set_visible (GtkWidget *item, gboolean visible)
{
  if (gtk_widget_get_visible (item) != !!visible)
    gtk_widget_set_visible (item, visible);
}

/* gtk_menu_reorder_child() moves the GTK child only: dbusmenu's GTK
 * parser follows a menu's inserts and removals, not reorders. */
void
rfk_menu_item_move (GtkMenu *menu, GtkWidget *item, int position)
{
  g_object_ref (item);
  gtk_container_remove (GTK_CONTAINER (menu), item);
  gtk_menu_shell_insert (GTK_MENU_SHELL (menu), item, position);
  g_object_unref (item);
}

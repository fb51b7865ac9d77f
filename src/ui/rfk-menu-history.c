/*
 * rfk-menu-history.c: "Recent changes", the last few radio changes and
 * what made each one (rfk-history.h), newest first.  Read only: the
 * whole history is `rfkill-applet --history`.
 */
#include "config.h"

#include <glib/gi18n.h>

#include "rfk-menu-private.h"

/* Enough to answer "what just happened", short enough for a menu. */
#define SHOWN 5

GtkWidget *
_rfk_menu_build_history_submenu (RfkMenu *self)
{
  GtkWidget *item = gtk_menu_item_new_with_mnemonic (_("_Recent changes"));
  GtkWidget *submenu = gtk_menu_new ();

  for (guint i = 0; i < SHOWN; i++)
    {
      /* Not sensitive: a line to read, nothing to click. */
      self->history_items[i] = gtk_menu_item_new_with_label ("");
      gtk_widget_set_sensitive (self->history_items[i], FALSE);
      gtk_menu_shell_append (GTK_MENU_SHELL (submenu),
                             self->history_items[i]);
    }
  gtk_menu_item_set_submenu (GTK_MENU_ITEM (item), submenu);
  return item;
}

/* "14:03 Bluetooth (hci0): on → off, by the menu"; the date too when it
 * was not today. */
static char *
entry_text (const RfkHistoryEntry *entry, GDateTime *now)
{
  g_autoptr (GDateTime) when = g_date_time_new_from_unix_local (
    entry->time_us / G_USEC_PER_SEC);
  g_autofree char *summary = rfk_history_entry_dup_summary (entry);
  g_autofree char *time = NULL;

  if (when == NULL)
    return g_steal_pointer (&summary);
  time = g_date_time_get_day_of_year (when)
             == g_date_time_get_day_of_year (now)
           && g_date_time_get_year (when) == g_date_time_get_year (now)
           ? g_date_time_format (when, "%H:%M")
           /* TRANSLATORS: a change's date and time in "Recent changes",
            * for one before today (g_date_time_format()) */
           : g_date_time_format (when, _("%b %e, %H:%M"));
  return g_strdup_printf ("%s %s", time, summary);
}

void
_rfk_menu_sync_history (RfkMenu *self)
{
  RfkHistory *history = rfk_manager_get_history (self->manager);
  GPtrArray *entries = history != NULL ? rfk_history_get_entries (history)
                                       : NULL;
  guint n = entries != NULL ? MIN (entries->len, SHOWN) : 0;
  g_autoptr (GDateTime) now = g_date_time_new_now_local ();

  rfk_menu_item_set_visible (self->history_item, history != NULL);
  for (guint i = 0; i < SHOWN; i++)
    {
      GtkWidget *item = self->history_items[i];
      g_autofree char *text = NULL;

      if (i < n)
        text = entry_text (entries->pdata[entries->len - 1 - i], now);
      else if (i == 0)
        text = g_strdup (_("No changes yet"));
      rfk_menu_item_set_visible (item, text != NULL);
      if (text != NULL)
        rfk_menu_item_set_text (item, text);
    }
}

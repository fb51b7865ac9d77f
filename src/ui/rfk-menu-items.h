/*
 * rfk-menu-items.h: GTK menu items as the tray's menu needs them, seen
 * through libdbusmenu's exporter: labels that are text and not mnemonics,
 * and changes made only when something changed (GTK notifies, and
 * dbusmenu sends, every set even of the same value).
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* Every set_*() leaves an item alone that already has the value. */

/* text as a label that shows every "_" as it is (see the .c). */
char *rfk_menu_item_label_for_text (const char *text);

void rfk_menu_item_set_label (GtkWidget *item, const char *label);
/* A message as an item's label: every "_" shown as it is. */
void rfk_menu_item_set_text (GtkWidget *item, const char *text);
void rfk_menu_item_set_sensitive (GtkWidget *item, gboolean sensitive);
void rfk_menu_item_set_visible (GtkWidget *item, gboolean visible);

/* An item that says what is wrong; set its text with set_text(). */
GtkWidget *rfk_menu_item_new_status (void);

/* Moves item to position in menu, in a way dbusmenu follows. */
void rfk_menu_item_move (GtkMenu *menu, GtkWidget *item, int position);

G_END_DECLS

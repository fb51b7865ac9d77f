/*
 * rfk-status-item.h: our StatusNotifierItem, published over GDBus, with
 * its menu exported by libdbusmenu.
 *
 * The item says ItemIsMenu, for hosts that honour it.  Hosts that call
 * Activate or ContextMenu anyway (bookworm's LXQt, MATE, Plasma and
 * Cinnamon panels call Activate on a left click) get the GTK menu popped
 * up by us, on X11.  The middle click (SecondaryActivate) activates one
 * menu item.
 *
 * It registers with org.kde.StatusNotifierWatcher whenever a watcher
 * appears (a panel that restarts gets the item again); "registered" says
 * whether the current watcher took it, and is notified (FALSE) as well
 * when no watcher is there, or one vanished or refused the item.
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define RFK_TYPE_STATUS_ITEM (rfk_status_item_get_type ())
G_DECLARE_FINAL_TYPE (RfkStatusItem, rfk_status_item, RFK, STATUS_ITEM,
                      GObject)

/* The item for menu, as id (also the tooltip's title: title) in category
 * "Hardware"; passive until set active.  secondary is the menu item the
 * middle click activates (may be NULL). */
RfkStatusItem *rfk_status_item_new (const char *id, const char *title,
                                    GtkMenu *menu, GtkWidget *secondary);

/* Where hosts look for icon names first (IconThemePath). */
void rfk_status_item_set_icon_theme_path (RfkStatusItem *self,
                                          const char *path);

/* One NewIcon (and NewToolTip) per call: callers set it on real change. */
void rfk_status_item_set_icon (RfkStatusItem *self, const char *name,
                               const char *description);

/* Active or Passive (panels hide a passive item); NewStatus on change. */
void rfk_status_item_set_active (RfkStatusItem *self, gboolean active);

/* TRUE while a watcher has the item. */
gboolean rfk_status_item_get_registered (RfkStatusItem *self);

G_END_DECLS

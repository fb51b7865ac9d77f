/*
 * rfk-xembed-icon.h: the icon for trays without a StatusNotifierWatcher.
 *
 * An XEmbed tray (i3bar, stalonetray, older panels) shows a GtkStatusIcon;
 * the tray item puts one up while no watcher has our item, as ayatana did
 * before us.  Left and right click pop up the menu, middle click
 * activates the secondary item.
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define RFK_TYPE_XEMBED_ICON (rfk_xembed_icon_get_type ())
G_DECLARE_FINAL_TYPE (RfkXembedIcon, rfk_xembed_icon, RFK, XEMBED_ICON,
                      GObject)

/* Shown at once; gone with the object.  secondary may be NULL. */
RfkXembedIcon *rfk_xembed_icon_new (const char *title, GtkMenu *menu,
                                    GtkWidget *secondary);

void rfk_xembed_icon_set_icon (RfkXembedIcon *self, const char *name,
                               const char *description);

G_END_DECLS

/*
 * rfk-menu.h: the indicator's menu, a view of the manager.
 *
 *   [x] Airplane mode
 *   ---------------------
 *   [x] Wi-Fi (phy0)          one check item per radio, by type then name
 *   [ ] Bluetooth (hci0) — blocked: hardware switch   (insensitive)
 *   ---------------------
 *   Airplane-mode light  >    radio items, one per LED rule
 *   [x] Notifications         bound to GSettings
 *   [x] Start at login        XDG autostart override
 *   Quit
 *
 * Items are created once and updated in place; every model signal only
 * marks the menu dirty, and one idle callback syncs it: at most once per
 * main-loop turn and at most ten times a second, so an event storm costs
 * a few D-Bus updates, not one per event.
 */
#pragma once

#include <gtk/gtk.h>

#include "rfk-manager.h"
#include "rfk-settings.h"

G_BEGIN_DECLS

#define RFK_TYPE_MENU (rfk_menu_get_type ())
G_DECLARE_FINAL_TYPE (RfkMenu, rfk_menu, RFK, MENU, GObject)

RfkMenu *rfk_menu_new (GApplication *app, RfkManager *manager,
                       RfkSettings *settings);

GtkMenu *rfk_menu_get_menu (RfkMenu *self);
/* The "Airplane mode" item: the indicator's middle-click target. */
GtkWidget *rfk_menu_get_airplane_item (RfkMenu *self);


G_END_DECLS

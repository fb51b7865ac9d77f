/*
 * rfk-menu.h: the tray item's menu, a view of the manager.
 *
 *   [x] Airplane mode
 *   ---------------------
 *   [x] Wi-Fi — Intel Wi-Fi 6 AX200 (wlp2s0)   one check item per radio,
 *   [ ] Bluetooth (hci0) — blocked: hardware switch   by type then name
 *   ---------------------                       (shown with laptop switches)
 *   Laptop switches                             (insensitive heading)
 *   [x] Wi-Fi switch (laptop, ideapad_wlan)
 *   ---------------------
 *   Airplane mode turns off >  check items, one per radio type present
 *   Airplane-mode light  >    radio items, one per LED rule
 *   [x] Notifications         bound to GSettings
 *   [x] Start at login        XDG autostart override
 *   Quit
 *
 * Items are created once and updated in place; every model signal only
 * marks the menu dirty, and one idle callback syncs it: at most once per
 * main-loop turn and at most ten times a second, so an event storm costs
 * a few D-Bus updates, not one per event.
 *
 * A user's action that fails ("Cannot turn airplane mode on") is logged
 * and emitted as "action-failed"; the applet tells the user.
 */
#pragma once

#include <gtk/gtk.h>

#include "rfk-manager.h"
#include "rfk-settings.h"
#include "rfk-udev-names.h"

G_BEGIN_DECLS

#define RFK_TYPE_MENU (rfk_menu_get_type ())
G_DECLARE_FINAL_TYPE (RfkMenu, rfk_menu, RFK, MENU, GObject)

RfkMenu *rfk_menu_new (GApplication *app, RfkManager *manager,
                       RfkSettings *settings);

GtkMenu *rfk_menu_get_menu (RfkMenu *self);
/* The "Airplane mode" item: the tray item's middle-click target. */
GtkWidget *rfk_menu_get_airplane_item (RfkMenu *self);
/* A tray item's middle click: activates item (that target) if it is
 * shown and sensitive, marked so that the history says "a middle
 * click".  The menu's own rules, e.g. rfk-in-order, apply. */
void rfk_menu_middle_click (GtkWidget *item);
/* What udev says about each radio, as the menu shows it. */
RfkUdevNames *rfk_menu_get_names (RfkMenu *self);


G_END_DECLS

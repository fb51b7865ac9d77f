/*
 * rfk-tray-item.h: the tray icon (our StatusNotifierItem with its
 * dbusmenu, rfk-status-item.h; an XEmbed icon while no watcher has it).
 * The icon shows the model's state; middle-click toggles airplane mode
 * through the menu's item.
 */
#pragma once

#include <gtk/gtk.h>

#include "rfk-icon-theme.h"
#include "rfk-manager.h"
#include "rfk-menu.h"

G_BEGIN_DECLS

/* The state the icon shows for the manager's current model; names (may
 * be NULL) tells laptop switches from radios. */
RfkIconState rfk_tray_item_state_for (RfkManager *manager,
                                      RfkUdevNames *names);

/* FALSE (passive: panels hide it) while there is no radio to switch. */
gboolean rfk_tray_item_active_for (RfkManager *manager);

/* The accessible description of the state's icon, translated; for the
 * no-radios icon, why there is nothing to switch (the manager's state). */
const char *rfk_tray_item_icon_description (RfkManager *manager,
                                            RfkIconState state);

#define RFK_TYPE_TRAY_ITEM (rfk_tray_item_get_type ())
G_DECLARE_FINAL_TYPE (RfkTrayItem, rfk_tray_item, RFK, TRAY_ITEM, GObject)

RfkTrayItem *rfk_tray_item_new (RfkManager *manager, RfkMenu *menu);

G_END_DECLS

/*
 * rfk-indicator.h: the tray icon (libayatana-appindicator, i.e. a
 * StatusNotifierItem with a dbusmenu).  The icon shows the model's state;
 * middle-click toggles airplane mode through the menu's item.
 */
#pragma once

#include <gtk/gtk.h>
#include <libayatana-appindicator/app-indicator.h>

#include "rfk-icon-theme.h"
#include "rfk-manager.h"
#include "rfk-menu.h"

G_BEGIN_DECLS

typedef enum {
  RFK_ICON_RADIOS_ON,
  RFK_ICON_AIRPLANE_MODE,
  RFK_ICON_HARDWARE_SWITCH, /* a switch holds the radios airplane mode
                               counts (rfk-hardware-airplane.h) */
  RFK_ICON_NO_SUPPORT,      /* no /dev/rfkill, or no radio at all */
  RFK_ICON_COUNT
} RfkIconState;

/* The state the icon shows for the manager's current model; names (may
 * be NULL) tells laptop switches from radios. */
RfkIconState rfk_indicator_state_for (RfkManager *manager,
                                      RfkUdevNames *names);

/* Passive (hidden by panels) while there is no radio to switch. */
AppIndicatorStatus rfk_indicator_status_for (RfkManager *manager);

/* The theme's name for the state if the theme has it, else ours. */
const char *rfk_indicator_icon_name (RfkIconState state, RfkIconTheme *theme);

#define RFK_TYPE_INDICATOR (rfk_indicator_get_type ())
G_DECLARE_FINAL_TYPE (RfkIndicator, rfk_indicator, RFK, INDICATOR, GObject)

RfkIndicator *rfk_indicator_new (RfkManager *manager, RfkMenu *menu);

G_END_DECLS

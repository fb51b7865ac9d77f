/*
 * rfk-hardware-airplane.h: whether a hardware switch holds airplane mode,
 * which is when the tray shows the hardware-switch icon.
 *
 * Not "some radio is hard-blocked": a BIOS that disables the WWAN card
 * for good, or ideapad_laptop's hard block on models without a switch
 * (the Wi-Fi card itself is on), would keep the icon on forever.  The
 * rule, per radio type that airplane mode counts and that is present:
 *
 *  - the type's radios decide: every one of them is hard-blocked by a
 *    switch (a V1 kernel gives no reason: a hard block is a switch; a
 *    NOT_OWNER block alone is not a switch);
 *  - a type with no radio but laptop switches (a card that drops off the
 *    bus while the switch is off) is held when each switch is blocked.
 *
 * A switch holds airplane mode when every counted type present is held,
 * like gsd's HardwareAirplaneMode (every radio hard-blocked), but over
 * the counted types only and with laptop switches told apart from radios.
 */
#pragma once

#include <glib.h>

#include "rfk-device.h"
#include "rfk-manager.h"

G_BEGIN_DECLS

typedef struct {
  guint type;              /* RfkType */
  gboolean hard_by_switch; /* see rfk_device_hard_by_switch() */
  gboolean platform_switch; /* RFK_RADIO_ROLE_PLATFORM_SWITCH */
} RfkSwitchRadio;

/* counted_types: bit (1 << RfkType) per type, as the manager's mask. */
gboolean rfk_hardware_airplane_mode (const RfkSwitchRadio *radios,
                                     gsize n_radios,
                                     guint32 counted_types);

/* Whether a device is a laptop's own switch for its type rather than a
 * radio (RFK_RADIO_ROLE_PLATFORM_SWITCH: udev tells, rfk-radio-names.h). */
typedef gboolean (*RfkPlatformSwitchFunc) (const RfkDevice *device,
                                           gpointer user_data);

/* The rule over the manager's radios and counted types, for the tray icon
 * and the LED alike.  is_switch NULL: every device counts as a radio. */
gboolean rfk_switch_holds_airplane_mode (RfkManager *manager,
                                         RfkPlatformSwitchFunc is_switch,
                                         gpointer user_data);

G_END_DECLS

/*
 * rfk-led-rule.h: the rules a user can pick for the airplane light (the
 * kernel's airplane-mode LED), and what each asks for given the radios.
 *
 * Pure: no fd, no signal.  rfk-led-controller.h (src/system) applies a
 * rule to the kernel's indicator.
 */
#pragma once

#include "rfk-hardware-airplane.h"
#include "rfk-manager.h"

G_BEGIN_DECLS

typedef enum {
  RFK_LED_RULE_KERNEL,          /* kernel default: every radio blocked */
  RFK_LED_RULE_AIRPLANE_MODE,   /* our airplane mode (counted types only) */
  RFK_LED_RULE_WLAN_BLOCKED,    /* every Wi-Fi radio blocked */
  RFK_LED_RULE_HARDWARE_SWITCH, /* a switch holds airplane mode, as the
                                 * tray icon says (rfk-hardware-airplane.h) */
  RFK_LED_RULE_NEVER,           /* always dark */
  RFK_LED_RULE_COUNT
} RfkLedRule;

/* Names as used in GSettings and on the command line. */
const char *rfk_led_rule_to_string (RfkLedRule rule);
gboolean rfk_led_rule_from_string (const char *string, RfkLedRule *out_rule);

/* The LED state the rule asks for, given the manager's current model;
 * is_switch as for rfk_switch_holds_airplane_mode(). */
gboolean rfk_led_rule_evaluate (RfkLedRule rule, RfkManager *manager,
                                RfkPlatformSwitchFunc is_switch,
                                gpointer user_data);

G_END_DECLS

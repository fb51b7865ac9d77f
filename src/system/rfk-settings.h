/*
 * rfk-settings.h: the user's preferences (GSettings) applied to the core.
 *
 * Keys (schema APP_ID): "notifications" (read by the notifier and bound to
 * the menu), "airplane-radio-types" and "keep-radio-states" (pushed into
 * the manager; the latter also bound to the menu) and "led-rule" (applied
 * with the LED controller).
 */
#pragma once

#include <gio/gio.h>

#include "rfk-led-controller.h"
#include "rfk-manager.h"

G_BEGIN_DECLS

#define RFK_TYPE_SETTINGS (rfk_settings_get_type ())
G_DECLARE_FINAL_TYPE (RfkSettings, rfk_settings, RFK, SETTINGS, GObject)

/* NULL with an error naming the schema when it is not installed
 * (rfk_preferences_open()). */
RfkSettings *rfk_settings_new (RfkManager *manager, GError **error);

GSettings *rfk_settings_get_gsettings (RfkSettings *self);
RfkLedController *rfk_settings_get_led_controller (RfkSettings *self);

/* Stores the rule and applies it; on failure the previous rule stays in
 * force and "led-changed" still fires so views show the truth. */
gboolean rfk_settings_choose_led_rule (RfkSettings *self, RfkLedRule rule,
                                       GError **error);

/* The last reason applying the rule failed, NULL if it worked. */
const char *rfk_settings_get_led_error (RfkSettings *self);


G_END_DECLS

/* Signals: "led-changed" () the rule in force or its status changed. */

/*
 * rfk-preferences.h: the user's preferences (GSettings schema APP_ID) as
 * the core understands them, in one place for the applet and the CLI.
 *
 * "airplane-radio-types" is a <flags> key whose values are 1 << RfkType
 * ("all" is 1 << RFK_TYPE_ALL), "led-rule" an <enum> key numbered like
 * RfkLedRule; GSettings itself refuses names it does not know.
 */
#pragma once

#include <gio/gio.h>

#include "rfk-led-rule.h"

G_BEGIN_DECLS

/* The schema, or NULL with an error naming it when it is not installed
 * (e.g. running from the build tree without GSETTINGS_SCHEMA_DIR).  The
 * one place that opens it: the applet through rfk_settings_new(), the
 * CLI directly. */
GSettings *rfk_preferences_open (GError **error);

/* Flags of airplane-radio-types to a manager type mask: "all", or no
 * type at all, is every type, including ones newer than this program. */
guint32 rfk_preferences_flags_to_mask (guint flags);
/* The same rule for type names ("wifi" and other aliases accepted,
 * unknown names ignored). */
guint32 rfk_preferences_types_to_mask (const char *const *types);

guint32 rfk_preferences_get_airplane_types (GSettings *settings);
RfkLedRule rfk_preferences_get_led_rule (GSettings *settings);
void rfk_preferences_set_led_rule (GSettings *settings, RfkLedRule rule);

G_END_DECLS

/* rfk-preferences.c: GSettings keys to core values, once. */
#include "config.h"

#include "rfk-preferences.h"

#include <glib/gi18n.h>

#include "rfk-device.h"
#include "rfk-airplane-policy.h"

GSettings *
rfk_preferences_open (GError **error)
{
  GSettingsSchemaSource *source = g_settings_schema_source_get_default ();
  g_autoptr (GSettingsSchema) schema = NULL;

  /* g_settings_new() aborts on a missing schema; say what is missing,
   * and how to provide it. */
  if (source != NULL)
    schema = g_settings_schema_source_lookup (source, APP_ID, TRUE);
  if (schema == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                   _("GSettings schema %s is not installed (install the "
                     "applet, or set GSETTINGS_SCHEMA_DIR)"), APP_ID);
      return NULL;
    }
  return g_settings_new_full (schema, NULL, NULL);
}

guint32
rfk_preferences_flags_to_mask (guint flags)
{
  if (flags == 0 || (flags & (1u << RFK_TYPE_ALL)))
    return RFK_AIRPLANE_TYPES_ALL;
  return flags;
}

guint32
rfk_preferences_types_to_mask (const char *const *types)
{
  return rfk_preferences_flags_to_mask (
    rfk_type_flags_from_names (types, NULL));
}

guint32
rfk_preferences_get_airplane_types (GSettings *settings)
{
  return rfk_preferences_flags_to_mask (
    g_settings_get_flags (settings, "airplane-radio-types"));
}

RfkLedRule
rfk_preferences_get_led_rule (GSettings *settings)
{
  int rule = g_settings_get_enum (settings, "led-rule");

  return rule >= 0 && rule < RFK_LED_RULE_COUNT ? rule : RFK_LED_RULE_KERNEL;
}

void
rfk_preferences_set_led_rule (GSettings *settings, RfkLedRule rule)
{
  g_return_if_fail (rule < RFK_LED_RULE_COUNT);
  g_settings_set_enum (settings, "led-rule", rule);
}

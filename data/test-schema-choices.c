/*
 * test-schema-choices.c: the GSettings schema offers exactly the names the
 * core understands, so a value that validates in gsettings never fails in
 * the applet, and no rule or radio type is missing from the schema.
 */
#include <gio/gio.h>

#include "rfk-device.h"
#include "rfk-led-rule.h"

static GSettingsSchema *schema;

static GStrv
choices (const char *key_name)
{
  g_autoptr(GSettingsSchemaKey) key = g_settings_schema_get_key (schema, key_name);
  g_autoptr(GVariant) range = g_settings_schema_key_get_range (key);
  g_autofree char *kind = NULL;
  g_autoptr(GVariant) values = NULL;

  g_variant_get (range, "(sv)", &kind, &values);
  g_assert_cmpstr (kind, ==, "enum");
  return g_variant_dup_strv (values, NULL);
}

static void
test_led_rules (void)
{
  g_auto(GStrv) names = choices ("led-rule");

  g_assert_cmpuint (g_strv_length (names), ==, RFK_LED_RULE_COUNT);
  for (guint i = 0; names[i] != NULL; i++)
    {
      RfkLedRule rule;

      g_assert_true (rfk_led_rule_from_string (names[i], &rule));
      g_assert_cmpstr (rfk_led_rule_to_string (rule), ==, names[i]);
    }
  for (guint rule = 0; rule < RFK_LED_RULE_COUNT; rule++)
    g_assert_true (g_strv_contains ((const char *const *) names,
                                    rfk_led_rule_to_string (rule)));
}

static void
test_radio_types (void)
{
  g_auto(GStrv) names = choices ("airplane-radio-types");

  for (guint i = 0; names[i] != NULL; i++)
    {
      RfkType type;

      g_assert_true (rfk_type_from_string (names[i], &type));
      g_assert_cmpstr (rfk_type_to_string (type), ==, names[i]);
    }
  for (guint type = 0; type < RFK_TYPE_COUNT; type++)
    g_assert_true (g_strv_contains ((const char *const *) names,
                                    rfk_type_to_string (type)));
}

int
main (int argc, char **argv)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GSettingsSchemaSource) source = NULL;

  g_test_init (&argc, &argv, NULL);
  g_assert_nonnull (g_getenv ("GSETTINGS_SCHEMA_DIR"));
  source = g_settings_schema_source_new_from_directory (
    g_getenv ("GSETTINGS_SCHEMA_DIR"), NULL, TRUE, &error);
  g_assert_no_error (error);
  schema = g_settings_schema_source_lookup (source, APP_ID, FALSE);
  g_assert_nonnull (schema);

  g_test_add_func ("/schema/led-rule", test_led_rules);
  g_test_add_func ("/schema/airplane-radio-types", test_radio_types);
  return g_test_run ();
}

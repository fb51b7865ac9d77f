/*
 * test-schema-choices.c: the GSettings schema offers exactly the names the
 * core understands, so a value that validates in gsettings never fails in
 * the applet, and no rule or radio type is missing from the schema.
 */
#include <gio/gio.h>

#include "rfk-device.h"
#include "rfk-led-rule.h"
#include "rfk-preferences.h"

#define G_SETTINGS_ENABLE_BACKEND
#include <gio/gsettingsbackend.h>

static GSettingsSchema *schema;

static GStrv
choices (const char *key_name, const char *want_kind)
{
  g_autoptr(GSettingsSchemaKey) key = g_settings_schema_get_key (schema, key_name);
  g_autoptr(GVariant) range = g_settings_schema_key_get_range (key);
  g_autofree char *kind = NULL;
  g_autoptr(GVariant) values = NULL;

  g_variant_get (range, "(sv)", &kind, &values);
  g_assert_cmpstr (kind, ==, want_kind);
  return g_variant_dup_strv (values, NULL);
}

static void
test_led_rules (void)
{
  g_auto(GStrv) names = choices ("led-rule", "enum");

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
  g_auto(GStrv) names = choices ("airplane-radio-types", "flags");

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

/* The numbers behind the names are the core's: 1 << type for the flags,
 * RfkLedRule for the enum (read back through a memory backend). */
static void
test_numbers_are_the_cores (void)
{
  g_autoptr(GSettingsBackend) backend = g_memory_settings_backend_new ();
  g_autoptr(GSettings) settings = g_settings_new_full (schema, backend, NULL);

  for (guint type = 0; type < RFK_TYPE_COUNT; type++)
    {
      const char *names[] = { rfk_type_to_string (type), NULL };

      g_assert_true (g_settings_set_strv (settings, "airplane-radio-types",
                                          names));
      g_assert_cmphex (g_settings_get_flags (settings, "airplane-radio-types"),
                       ==, 1u << type);
    }
  g_assert_cmphex (rfk_preferences_get_airplane_types (settings), ==,
                   1u << RFK_TYPE_NFC);
  g_settings_reset (settings, "airplane-radio-types");
  g_assert_cmphex (rfk_preferences_get_airplane_types (settings), ==,
                   RFK_AIRPLANE_TYPES_ALL);
  for (guint rule = 0; rule < RFK_LED_RULE_COUNT; rule++)
    {
      g_autofree char *name = NULL;

      rfk_preferences_set_led_rule (settings, rule);
      name = g_settings_get_string (settings, "led-rule");
      g_assert_cmpstr (name, ==, rfk_led_rule_to_string (rule));
      g_assert_cmpint (rfk_preferences_get_led_rule (settings), ==, rule);
    }
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
  g_test_add_func ("/schema/numbers-are-the-cores", test_numbers_are_the_cores);
  return g_test_run ();
}

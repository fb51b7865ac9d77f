/*
 * rfk-dbus-properties.c: property values of the D-Bus API and writes.
 *
 * The gsd-style booleans follow gsd's rfkill plugin: "airplane mode" of a
 * set of radios is "at least one, and none unblocked"; "hardware airplane
 * mode" is "at least one, and all hard-blocked"; "has" is "at least one".
 * Our AirplaneMode is the manager's (counted types only), so the menu,
 * the CLI and every client read the same value.
 */
#include "config.h"

#include <glib/gi18n.h>

#include "rfk-dbus-properties.h"

#include "rfk-preferences.h"

/* What a set of radios looks like, gsd's way. */
typedef struct {
  guint present;
  guint blocked;       /* soft or hard */
  guint hard_blocked;
} Tally;

typedef gboolean (*RadioFilter) (const RfkDBusModel *model, guint type);

static gboolean
is_counted (const RfkDBusModel *model, guint type)
{
  return rfk_airplane_policy_counts (
    rfk_manager_get_airplane_types (model->manager), type);
}

static gboolean
is_bluetooth (const RfkDBusModel *model, guint type)
{
  return type == RFK_TYPE_BLUETOOTH;
}

static gboolean
is_wwan (const RfkDBusModel *model, guint type)
{
  return type == RFK_TYPE_WWAN;
}

static Tally
tally (const RfkDBusModel *model, RadioFilter filter)
{
  GPtrArray *devices = rfk_manager_get_devices (model->manager);
  Tally t = { 0 };

  for (guint i = 0; devices != NULL && i < devices->len; i++)
    {
      const RfkDevice *d = g_ptr_array_index (devices, i);

      if (!filter (model, d->type))
        continue;
      t.present++;
      t.blocked += rfk_device_is_blocked (d);
      t.hard_blocked += d->hard;
    }
  return t;
}

static GVariant *
all_blocked (const RfkDBusModel *model, RadioFilter filter)
{
  Tally t = tally (model, filter);

  return g_variant_new_boolean (t.present > 0 && t.blocked == t.present);
}

static GVariant *
all_hard_blocked (const RfkDBusModel *model, RadioFilter filter)
{
  Tally t = tally (model, filter);

  return g_variant_new_boolean (t.present > 0
                                && t.hard_blocked == t.present);
}

static GVariant *
any_present (const RfkDBusModel *model, RadioFilter filter)
{
  return g_variant_new_boolean (tally (model, filter).present > 0);
}

static GVariant *
get_airplane_mode (const RfkDBusModel *model)
{
  return g_variant_new_boolean (rfk_manager_get_airplane_mode (model->manager));
}

static GVariant *
get_should_show (const RfkDBusModel *model)
{
  return g_variant_new_boolean (model->should_show);
}

static GVariant *
get_radios (const RfkDBusModel *model)
{
  return rfk_dbus_radios_get (model->radios,
                              rfk_manager_get_devices (model->manager));
}

/* History: the last changes, oldest first (rfk-history.h). */
static GVariant *
get_history (const RfkDBusModel *model)
{
  RfkHistory *history = rfk_manager_get_history (model->manager);
  GPtrArray *entries = history != NULL ? rfk_history_get_entries (history)
                                       : NULL;
  GVariantBuilder builder;

  g_variant_builder_init (&builder, G_VARIANT_TYPE ("aa{sv}"));
  for (guint i = 0; entries != NULL && i < entries->len; i++)
    {
      const RfkHistoryEntry *e = entries->pdata[i];
      g_autofree char *summary = rfk_history_entry_dup_summary (e);

      g_variant_builder_open (&builder, G_VARIANT_TYPE ("a{sv}"));
      g_variant_builder_add (&builder, "{sv}", "time",
                             g_variant_new_int64 (e->time_us));
      g_variant_builder_add (&builder, "{sv}", "name",
                             g_variant_new_string (e->name));
      g_variant_builder_add (&builder, "{sv}", "type",
                             g_variant_new_string (rfk_type_to_name (e->type)));
      g_variant_builder_add (&builder, "{sv}", "key",
                             g_variant_new_string (e->key));
      g_variant_builder_add (&builder, "{sv}", "from",
                             g_variant_new_string (
                               rfk_radio_state_to_string (e->from)));
      g_variant_builder_add (&builder, "{sv}", "to",
                             g_variant_new_string (
                               rfk_radio_state_to_string (e->to)));
      g_variant_builder_add (&builder, "{sv}", "cause",
                             g_variant_new_string (
                               rfk_cause_to_string (e->cause)));
      g_variant_builder_add (&builder, "{sv}", "by",
                             g_variant_new_string (e->by != NULL ? e->by
                                                                 : ""));
      g_variant_builder_add (&builder, "{sv}", "summary",
                             g_variant_new_string (summary));
      g_variant_builder_close (&builder);
    }
  return g_variant_builder_end (&builder);
}

static GSettings *
gsettings (const RfkDBusModel *model)
{
  return rfk_settings_get_gsettings (model->settings);
}

static GVariant *
get_airplane_types (const RfkDBusModel *model)
{
  g_auto (GStrv) types = g_settings_get_strv (gsettings (model),
                                              "airplane-radio-types");

  return g_variant_new_strv ((const char *const *) types, -1);
}

static GVariant *
error_string (const GError *error)
{
  return g_variant_new_string (error != NULL ? error->message : "");
}

static GVariant *
get_airplane_error (const RfkDBusModel *model)
{
  return error_string (rfk_manager_get_airplane_error (model->manager));
}

static GVariant *
get_led_rule (const RfkDBusModel *model)
{
  return g_variant_new_string (
    rfk_led_rule_to_string (rfk_preferences_get_led_rule (gsettings (model))));
}

static GVariant *
get_led_status (const RfkDBusModel *model)
{
  RfkLedController *leds = rfk_settings_get_led_controller (model->settings);

  if (rfk_led_controller_is_pending (leds))
    return g_variant_new_string ("pending");
  switch (rfk_led_controller_get_status (leds))
    {
    case RFK_AIRPLANE_LIGHT_OWNED:
      return g_variant_new_string ("owned");
    case RFK_AIRPLANE_LIGHT_UNSUPPORTED:
      return g_variant_new_string ("unsupported");
    case RFK_AIRPLANE_LIGHT_BUSY:
      return g_variant_new_string ("busy");
    case RFK_AIRPLANE_LIGHT_UNKNOWN:
    default:
      return g_variant_new_string ("kernel");
    }
}

static GVariant *
get_led_error (const RfkDBusModel *model)
{
  const char *error = rfk_settings_get_led_error (model->settings);

  return g_variant_new_string (error != NULL ? error : "");
}

static GVariant *
get_airplane_light (const RfkDBusModel *model)
{
  return g_variant_new_boolean (
    rfk_manager_get_airplane_light (model->manager));
}

static GVariant *
get_device_path (const RfkDBusModel *model)
{
  return g_variant_new_string (rfk_manager_get_device_path (model->manager));
}

static GVariant *
get_device_state (const RfkDBusModel *model)
{
  static const char *const names[] = {
    [RFK_MANAGER_STATE_STARTING] = "starting",
    [RFK_MANAGER_STATE_READY] = "ready",
    [RFK_MANAGER_STATE_NO_DEVICE] = "no-device",
    [RFK_MANAGER_STATE_NO_PERMISSION] = "no-permission",
    [RFK_MANAGER_STATE_FAILED] = "failed",
  };
  RfkManagerState state = rfk_manager_get_state (model->manager);

  return g_variant_new_string (state < G_N_ELEMENTS (names) ? names[state]
                                                            : "failed");
}

static GVariant *
get_device_error (const RfkDBusModel *model)
{
  return error_string (rfk_manager_get_error (model->manager));
}

/* Writes. */

static void
set_done_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GError) error = NULL;

  if (!rfk_manager_set_airplane_mode_finish (RFK_MANAGER (source), result,
                                             &error))
    g_warning ("%s", error->message);
}

static gboolean
set_airplane_mode (const RfkDBusModel *model, GVariant *value,
                   GError **error)
{
  rfk_manager_set_airplane_mode_async (model->manager,
                                       g_variant_get_boolean (value), NULL,
                                       set_done_cb, NULL);
  return TRUE;
}

static void
type_done_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GError) error = NULL;

  if (!rfk_manager_set_type_blocked_finish (RFK_MANAGER (source), result,
                                            &error))
    g_warning ("%s", error->message);
}

/* Like gsd's CHANGE_ALL for one type, radio by radio through the manager's
 * request queue, so that the model sees them as the user's own changes.
 * The manager judges each radio by where the requests still in flight
 * leave it: a quick second write is never lost. */
static gboolean
set_all_of_type (const RfkDBusModel *model, guint type, GVariant *value)
{
  rfk_manager_set_type_blocked_async (model->manager, type,
                                      g_variant_get_boolean (value), NULL,
                                      type_done_cb, NULL);
  return TRUE;
}

static gboolean
set_bluetooth (const RfkDBusModel *model, GVariant *value, GError **error)
{
  return set_all_of_type (model, RFK_TYPE_BLUETOOTH, value);
}

static gboolean
set_wwan (const RfkDBusModel *model, GVariant *value, GError **error)
{
  return set_all_of_type (model, RFK_TYPE_WWAN, value);
}

static gboolean
set_airplane_types (const RfkDBusModel *model, GVariant *value,
                    GError **error)
{
  g_autofree const char **types = g_variant_get_strv (value, NULL);
  const char *unknown;
  guint flags = rfk_type_flags_from_names (types, &unknown);

  if (unknown != NULL)
    {
      g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_INVALID_ARGS,
                   _("Unknown radio type “%s”"), unknown);
      return FALSE;
    }
  /* The schema's flags are 1 << type (data/…gschema.xml). */
  g_settings_set_flags (gsettings (model), "airplane-radio-types", flags);
  return TRUE;
}

static gboolean
set_led_rule (const RfkDBusModel *model, GVariant *value, GError **error)
{
  const char *name = g_variant_get_string (value, NULL);
  g_autoptr (GError) apply_error = NULL;
  RfkLedRule rule;

  if (!rfk_led_rule_from_string (name, &rule))
    {
      g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_INVALID_ARGS,
                   _("Unknown airplane-mode light rule “%s”"), name);
      return FALSE;
    }
  /* A rule the kernel cannot apply is stored all the same, as from the
   * menu: LedStatus and LedError say why it is not in force. */
  if (!rfk_settings_choose_led_rule (model->settings, rule, &apply_error))
    g_debug ("%s", apply_error->message);
  return TRUE;
}

typedef GVariant *(*Getter) (const RfkDBusModel *model);
typedef gboolean (*Setter) (const RfkDBusModel *model, GVariant *value,
                            GError **error);

/* One row per property; the gsd-style triples use a filter. */
static const struct {
  const char *name;
  Getter get;
  GVariant *(*get_filtered) (const RfkDBusModel *, RadioFilter);
  RadioFilter filter;
  Setter set;
} properties[] = {
  { "AirplaneMode", get_airplane_mode, NULL, NULL, set_airplane_mode },
  { "HardwareAirplaneMode", NULL, all_hard_blocked, is_counted, NULL },
  { "HasAirplaneMode", NULL, any_present, is_counted, NULL },
  { "ShouldShowAirplaneMode", get_should_show, NULL, NULL, NULL },
  { "BluetoothAirplaneMode", NULL, all_blocked, is_bluetooth, set_bluetooth },
  { "BluetoothHardwareAirplaneMode", NULL, all_hard_blocked, is_bluetooth,
    NULL },
  { "BluetoothHasAirplaneMode", NULL, any_present, is_bluetooth, NULL },
  { "WwanAirplaneMode", NULL, all_blocked, is_wwan, set_wwan },
  { "WwanHardwareAirplaneMode", NULL, all_hard_blocked, is_wwan, NULL },
  { "WwanHasAirplaneMode", NULL, any_present, is_wwan, NULL },
  { "Radios", get_radios, NULL, NULL, NULL },
  { "History", get_history, NULL, NULL, NULL },
  { "AirplaneRadioTypes", get_airplane_types, NULL, NULL,
    set_airplane_types },
  { "AirplaneModeError", get_airplane_error, NULL, NULL, NULL },
  { "LedRule", get_led_rule, NULL, NULL, set_led_rule },
  { "LedStatus", get_led_status, NULL, NULL, NULL },
  { "LedError", get_led_error, NULL, NULL, NULL },
  { "AirplaneLight", get_airplane_light, NULL, NULL, NULL },
  { "DevicePath", get_device_path, NULL, NULL, NULL },
  { "DeviceState", get_device_state, NULL, NULL, NULL },
  { "DeviceError", get_device_error, NULL, NULL, NULL },
};

GVariant *
rfk_dbus_property_get (const RfkDBusModel *model, const char *name)
{
  for (gsize i = 0; i < G_N_ELEMENTS (properties); i++)
    if (g_str_equal (properties[i].name, name))
      return properties[i].get != NULL
               ? properties[i].get (model)
               : properties[i].get_filtered (model, properties[i].filter);
  return NULL;
}

gboolean
rfk_dbus_property_set (const RfkDBusModel *model, const char *name,
                       GVariant *value, GError **error)
{
  for (gsize i = 0; i < G_N_ELEMENTS (properties); i++)
    if (g_str_equal (properties[i].name, name) && properties[i].set != NULL)
      return properties[i].set (model, value, error);
  g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_PROPERTY_READ_ONLY,
               _("Property “%s” cannot be written"), name);
  return FALSE;
}

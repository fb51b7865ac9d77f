/* rfk-settings.c: GSettings keys applied to the manager and the LEDs. */
#include "config.h"

#include "rfk-settings.h"

#include "rfk-preferences.h"

struct _RfkSettings
{
  GObject parent_instance;

  RfkManager *manager;       /* owned */
  GSettings *settings;       /* owned */
  RfkLedController *leds;    /* owned */
  char *led_error;           /* why the chosen rule is not in force */
};

G_DEFINE_FINAL_TYPE (RfkSettings, rfk_settings, G_TYPE_OBJECT)

enum { SIGNAL_LED_CHANGED, N_SIGNALS };
static guint signals[N_SIGNALS];

static void
apply_airplane_types (RfkSettings *self)
{
  rfk_manager_set_airplane_types (self->manager,
                                  rfk_preferences_get_airplane_types (self->settings));
}

static void
apply_keep_radio_states (RfkSettings *self)
{
  rfk_manager_set_keep_radio_states (self->manager,
                                     g_settings_get_boolean (self->settings,
                                                             "keep-radio-states"));
}

static gboolean
apply_led_rule (RfkSettings *self, GError **error)
{
  /* An <enum> key: GSettings never hands out a name we do not know. */
  RfkLedRule rule = rfk_preferences_get_led_rule (self->settings);
  g_autoptr(GError) local_error = NULL;

  if (rule != rfk_led_controller_get_rule (self->leds) ||
      self->led_error != NULL)
    {
      rfk_led_controller_set_rule (self->leds, rule, &local_error);
    }

  g_clear_pointer (&self->led_error, g_free);
  if (local_error != NULL)
    self->led_error = g_strdup (local_error->message);
  g_signal_emit (self, signals[SIGNAL_LED_CHANGED], 0);

  if (local_error != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&local_error));
      return FALSE;
    }
  return TRUE;
}

static void
on_settings_changed (GSettings *settings, const char *key, RfkSettings *self)
{
  g_autoptr(GError) error = NULL;

  if (g_str_equal (key, "airplane-radio-types"))
    apply_airplane_types (self);
  else if (g_str_equal (key, "keep-radio-states"))
    apply_keep_radio_states (self);
  else if (g_str_equal (key, "led-rule") && !apply_led_rule (self, &error))
    g_warning ("%s", error->message);
}

static void
on_manager_state_changed (RfkManager *manager, RfkSettings *self)
{
  g_autoptr(GError) error = NULL;

  /* The device may appear after we started: try the chosen rule again. */
  if (rfk_manager_get_state (manager) == RFK_MANAGER_STATE_READY &&
      self->led_error != NULL && !apply_led_rule (self, &error))
    g_debug ("%s", error->message);
}

static void
on_leds_status_changed (RfkSettings *self)
{
  const GError *error = rfk_led_controller_get_error (self->leds);

  /* Taking the light may be answered later (over a socket): the reason
   * shown is always the controller's latest. */
  if (!rfk_led_controller_is_pending (self->leds))
    {
      g_clear_pointer (&self->led_error, g_free);
      if (error != NULL)
        self->led_error = g_strdup (error->message);
    }
  g_signal_emit (self, signals[SIGNAL_LED_CHANGED], 0);
}

gboolean
rfk_settings_choose_led_rule (RfkSettings *self, RfkLedRule rule,
                              GError **error)
{
  g_return_val_if_fail (RFK_IS_SETTINGS (self), FALSE);
  g_return_val_if_fail (rule < RFK_LED_RULE_COUNT, FALSE);

  /* Setting the key only fires "changed" when the value differs; apply
   * directly so choosing the same rule again retries it. */
  g_signal_handlers_block_by_func (self->settings, on_settings_changed, self);
  rfk_preferences_set_led_rule (self->settings, rule);
  g_signal_handlers_unblock_by_func (self->settings, on_settings_changed, self);
  return apply_led_rule (self, error);
}

const char *
rfk_settings_get_led_error (RfkSettings *self)
{
  return self->led_error;
}

GSettings *
rfk_settings_get_gsettings (RfkSettings *self)
{
  return self->settings;
}

RfkLedController *
rfk_settings_get_led_controller (RfkSettings *self)
{
  return self->leds;
}

static void
rfk_settings_dispose (GObject *object)
{
  RfkSettings *self = RFK_SETTINGS (object);

  if (self->manager != NULL)
    g_signal_handlers_disconnect_by_data (self->manager, self);
  if (self->settings != NULL)
    g_signal_handlers_disconnect_by_data (self->settings, self);
  if (self->leds != NULL)
    g_signal_handlers_disconnect_by_data (self->leds, self);
  g_clear_object (&self->leds);
  g_clear_object (&self->settings);
  g_clear_object (&self->manager);
  g_clear_pointer (&self->led_error, g_free);
  G_OBJECT_CLASS (rfk_settings_parent_class)->dispose (object);
}

static void
rfk_settings_class_init (RfkSettingsClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = rfk_settings_dispose;
  signals[SIGNAL_LED_CHANGED] =
    g_signal_new ("led-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void
rfk_settings_init (RfkSettings *self)
{
}

RfkSettings *
rfk_settings_new (RfkManager *manager, GError **error)
{
  g_autoptr(GSettings) settings = NULL;
  g_autoptr(GError) led_error = NULL;
  g_autoptr(RfkLoginSession) session = NULL;
  RfkSettings *self;

  g_return_val_if_fail (RFK_IS_MANAGER (manager), NULL);

  settings = rfk_preferences_open (error);
  if (settings == NULL)
    return NULL;

  self = g_object_new (RFK_TYPE_SETTINGS, NULL);
  self->manager = g_object_ref (manager);
  self->settings = g_steal_pointer (&settings);
  self->leds = rfk_led_controller_new (manager);
  /* With two users on one seat the LED follows the session in front. */
  session = rfk_login_session_new (NULL);
  rfk_led_controller_set_login_session (self->leds, session);

  g_signal_connect (self->settings, "changed",
                    G_CALLBACK (on_settings_changed), self);
  g_signal_connect (manager, "state-changed",
                    G_CALLBACK (on_manager_state_changed), self);
  /* Ownership can be lost or regained behind our back (device re-added). */
  g_signal_connect_swapped (self->leds, "status-changed",
                            G_CALLBACK (on_leds_status_changed), self);
  apply_airplane_types (self);
  apply_keep_radio_states (self);
  if (!apply_led_rule (self, &led_error))
    g_debug ("%s", led_error->message);

  return self;
}

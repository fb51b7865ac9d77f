/*
 * rfk-led-rule.c: the airplane light's rules, their names, and what each
 * asks for.
 */
#include "config.h"

#include "rfk-led-rule.h"

static const char *const rule_names[RFK_LED_RULE_COUNT] = {
  [RFK_LED_RULE_KERNEL] = "kernel",
  [RFK_LED_RULE_AIRPLANE_MODE] = "airplane-mode",
  [RFK_LED_RULE_WLAN_BLOCKED] = "wlan-blocked",
  [RFK_LED_RULE_HARDWARE_SWITCH] = "hardware-switch",
  [RFK_LED_RULE_NEVER] = "never",
};

const char *
rfk_led_rule_to_string (RfkLedRule rule)
{
  return rule < RFK_LED_RULE_COUNT ? rule_names[rule] : NULL;
}

gboolean
rfk_led_rule_from_string (const char *string, RfkLedRule *out_rule)
{
  for (guint i = 0; string != NULL && i < RFK_LED_RULE_COUNT; i++)
    if (g_str_equal (string, rule_names[i]))
      {
        if (out_rule)
          *out_rule = i;
        return TRUE;
      }
  return FALSE;
}

/* At least one radio (of type, or any with RFK_TYPE_ALL), all blocked. */
static gboolean
all_blocked (RfkManager *manager, guint type)
{
  GPtrArray *devices = rfk_manager_get_devices (manager);
  guint seen = 0;

  for (guint i = 0; i < devices->len; i++)
    {
      RfkDevice *device = g_ptr_array_index (devices, i);

      if (type != RFK_TYPE_ALL && device->type != type)
        continue;
      seen++;
      if (!rfk_device_is_blocked (device))
        return FALSE;
    }
  return seen > 0;
}

gboolean
rfk_led_rule_evaluate (RfkLedRule rule, RfkManager *manager,
                       RfkPlatformSwitchFunc is_switch, gpointer user_data)
{
  g_return_val_if_fail (RFK_IS_MANAGER (manager), FALSE);

  switch (rule)
    {
    case RFK_LED_RULE_KERNEL:
      return all_blocked (manager, RFK_TYPE_ALL);
    case RFK_LED_RULE_AIRPLANE_MODE:
      return rfk_manager_get_airplane_mode (manager);
    case RFK_LED_RULE_WLAN_BLOCKED:
      return all_blocked (manager, RFK_TYPE_WLAN);
    case RFK_LED_RULE_HARDWARE_SWITCH:
      /* Not "some radio is hard-blocked": a WWAN card the BIOS keeps off
       * would light it for good (rfk-hardware-airplane.h). */
      return rfk_switch_holds_airplane_mode (manager, is_switch, user_data);
    case RFK_LED_RULE_NEVER:
    case RFK_LED_RULE_COUNT:
    default:
      return FALSE;
    }
}

/* rfk-hardware-airplane.c: whether a hardware switch holds airplane mode. */
#include "config.h"

#include "rfk-hardware-airplane.h"

#include "rfk-airplane-policy.h"

/* What one counted type says: held, not held, or absent. */
typedef enum { TYPE_ABSENT, TYPE_FREE, TYPE_HELD } TypeVerdict;

static TypeVerdict
type_verdict (const RfkSwitchRadio *radios, gsize n_radios, guint type)
{
  gboolean radio_seen = FALSE, radio_free = FALSE;
  gboolean switch_seen = FALSE, switch_free = FALSE;

  for (gsize i = 0; i < n_radios; i++)
    {
      if (radios[i].type != type)
        continue;
      if (radios[i].platform_switch)
        {
          switch_seen = TRUE;
          switch_free |= !radios[i].hard_by_switch;
        }
      else
        {
          radio_seen = TRUE;
          radio_free |= !radios[i].hard_by_switch;
        }
    }
  /* The radios themselves are the truth where they exist: a laptop
   * switch that reports a block its radio does not feel is wrong. */
  if (radio_seen)
    return radio_free ? TYPE_FREE : TYPE_HELD;
  if (switch_seen)
    return switch_free ? TYPE_FREE : TYPE_HELD;
  return TYPE_ABSENT;
}

gboolean
rfk_hardware_airplane_mode (const RfkSwitchRadio *radios, gsize n_radios,
                            guint32 counted_types)
{
  gboolean any_held = FALSE;

  /* Types beyond the mask's width (newer kernels) count under "all". */
  for (gsize i = 0; i < n_radios; i++)
    {
      guint type = radios[i].type;
      gboolean seen_before = FALSE;

      if (!rfk_airplane_policy_counts (counted_types, type))
        continue;
      for (gsize j = 0; j < i && !seen_before; j++)
        seen_before = radios[j].type == type;
      if (seen_before)
        continue;
      switch (type_verdict (radios, n_radios, type))
        {
        case TYPE_FREE:
          return FALSE;
        case TYPE_HELD:
          any_held = TRUE;
          break;
        case TYPE_ABSENT:
        default:
          break;
        }
    }
  return any_held;
}

gboolean
rfk_switch_holds_airplane_mode (RfkManager *manager,
                                RfkPlatformSwitchFunc is_switch,
                                gpointer user_data)
{
  GPtrArray *devices;
  g_autofree RfkSwitchRadio *radios = NULL;

  g_return_val_if_fail (RFK_IS_MANAGER (manager), FALSE);

  devices = rfk_manager_get_devices (manager);
  if (devices == NULL || devices->len == 0)
    return FALSE;
  radios = g_new0 (RfkSwitchRadio, devices->len);
  for (guint i = 0; i < devices->len; i++)
    {
      const RfkDevice *device = g_ptr_array_index (devices, i);

      radios[i].type = device->type;
      radios[i].hard_by_switch = rfk_device_hard_by_switch (device);
      radios[i].platform_switch = is_switch != NULL && is_switch (device, user_data);
    }
  return rfk_hardware_airplane_mode (radios, devices->len,
                                     rfk_manager_get_airplane_types (manager));
}

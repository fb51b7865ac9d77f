/* rfk-radio-label.c: how the applet names a radio to the user. */
#include "config.h"

#include <glib/gi18n.h>

#include "rfk-radio-label.h"

char *
rfk_radio_label (const RfkDevice *device)
{
  /* TRANSLATORS: a radio in the menu: its type, then the kernel's name for
   * it, e.g. "Wi-Fi (phy0)" or "Bluetooth (hci0)". */
  return g_strdup_printf (_("%s (%s)"), rfk_type_to_label (device->type),
                          device->name);
}

char *
rfk_radio_menu_label (const RfkDevice *device, const RfkRadioFacts *facts)
{
  g_autofree char *label = facts != NULL ? rfk_radio_facts_label (facts)
                                         : rfk_radio_label (device);
  g_autofree char *reasons = NULL;

  if (!device->hard)
    return g_steal_pointer (&label);

  /* V1-only kernels report a hard block without a reason. */
  reasons = rfk_hard_reasons_to_label (device->hard_reasons);
  if (reasons == NULL || *reasons == '\0')
    /* TRANSLATORS: a radio that is hard-blocked for an unknown reason. */
    return g_strdup_printf (_("%s — blocked"), label);

  /* TRANSLATORS: a hard-blocked radio and why, e.g.
   * "Wi-Fi (phy0) — blocked: hardware switch". */
  return g_strdup_printf (_("%s — blocked: %s"), label, reasons);
}

/* rfk-radio-names.c: what a radio is and what to call it. */
#include "config.h"

#include "rfk-radio-names.h"

#include <glib/gi18n.h>
#include <string.h>

#include "rfk-device.h"

/* Parents that are the firmware, not a radio: laptop drivers register
 * their rfkill devices on their platform device (ideapad_acpi,
 * thinkpad_acpi, asus-nb-wmi, hp-wmi), on an ACPI device (dell-rbtn,
 * toshiba_bluetooth) or on a WMI device. */
static const char *const firmware_subsystems[] = {
  "platform", "acpi", "wmi", "pnp",
};

/* Platform drivers that power one real radio chip (GPS or Bluetooth on
 * boards without a laptop firmware): the switch is the radio. */
static const char *const radio_power_drivers[] = {
  "rfkill_gpio",
};

/* Words after which a vendor name is its legal form: "Intel Corporation",
 * "Realtek Semiconductor Co., Ltd.", "Broadcom Inc. and subsidiaries". */
static const char *const legal_words[] = {
  "corporation", "corp", "inc", "incorporated", "co", "ltd", "limited",
  "llc", "gmbh", "ag", "semiconductor", "semiconductors", "technology",
  "technologies", "electronics", "international", "communications",
  "and", "group",
};

/* Trailing words that say nothing the type label does not already say:
 * "RTL8822CE 802.11ac PCIe Wireless Network Adapter". */
static const char *const generic_words[] = {
  "wireless", "network", "adapter", "controller", "interface", "pcie",
  "pci", "usb", "card", "module", "device",
};

static gboolean
in_table (const char *const *table, gsize n, const char *word)
{
  for (gsize i = 0; i < n; i++)
    if (g_ascii_strcasecmp (table[i], word) == 0)
      return TRUE;
  return FALSE;
}

static gboolean
is_set (const char *s)
{
  return s != NULL && *s != '\0';
}

RfkRadioRole
rfk_radio_facts_role (const RfkRadioFacts *facts)
{
  g_return_val_if_fail (facts != NULL, RFK_RADIO_ROLE_RADIO);

  if (!is_set (facts->parent_subsystem) ||
      !in_table (firmware_subsystems, G_N_ELEMENTS (firmware_subsystems),
                 facts->parent_subsystem))
    return RFK_RADIO_ROLE_RADIO;
  if (is_set (facts->parent_driver) &&
      in_table (radio_power_drivers, G_N_ELEMENTS (radio_power_drivers),
                facts->parent_driver))
    return RFK_RADIO_ROLE_RADIO;
  return RFK_RADIO_ROLE_PLATFORM_SWITCH;
}

/* The word without the punctuation that legal forms carry ("Co.,"). */
static char *
bare_word (const char *word)
{
  GString *out = g_string_new (NULL);

  for (const char *p = word; *p != '\0'; p++)
    if (*p != ',' && *p != '.')
      g_string_append_c (out, *p);
  return g_string_free (out, FALSE);
}

static char *
short_vendor (const char *vendor)
{
  g_auto(GStrv) words = g_strsplit (vendor, " ", -1);
  g_autoptr(GPtrArray) kept = g_ptr_array_new ();

  for (gsize i = 0; words[i] != NULL; i++)
    {
      g_autofree char *bare = bare_word (words[i]);

      if (*bare == '\0')
        continue;
      /* The first word is the name even if it looks legal ("AG"). */
      if (kept->len > 0 && in_table (legal_words, G_N_ELEMENTS (legal_words), bare))
        break;
      g_ptr_array_add (kept, words[i]);
    }
  if (kept->len == 0)
    return NULL;
  g_ptr_array_add (kept, NULL);
  {
    g_autofree char *joined = g_strjoinv (" ", (char **) kept->pdata);

    /* "Broadcom," before "and subsidiaries". */
    return g_strdup (g_strchomp (g_strdelimit (joined, ",", ' ')));
  }
}

/* Codenames in brackets and parenthesised notes go: "Wi-Fi 6E(802.11ax)
 * AX210/AX1675* 2x2 [Typhoon Peak]" is "Wi-Fi 6E AX210/AX1675* 2x2". */
static char *
without_brackets (const char *model)
{
  GString *out = g_string_new (NULL);
  int depth = 0;

  for (const char *p = model; *p != '\0'; p++)
    {
      if (*p == '[' || *p == '(')
        {
          depth++;
          if (out->len > 0 && out->str[out->len - 1] != ' ')
            g_string_append_c (out, ' ');
          continue;
        }
      if ((*p == ']' || *p == ')') && depth > 0)
        {
          depth--;
          continue;
        }
      if (depth == 0)
        g_string_append_c (out, *p);
    }
  return g_string_free (out, FALSE);
}

static char *
short_model (const char *model)
{
  g_autofree char *plain = without_brackets (model);
  g_auto(GStrv) words = g_strsplit (plain, " ", -1);
  g_autoptr(GPtrArray) kept = g_ptr_array_new ();

  for (gsize i = 0; words[i] != NULL; i++)
    if (*words[i] != '\0')
      g_ptr_array_add (kept, words[i]);
  while (kept->len > 0 &&
         in_table (generic_words, G_N_ELEMENTS (generic_words),
                   g_ptr_array_index (kept, kept->len - 1)))
    g_ptr_array_set_size (kept, kept->len - 1);
  if (kept->len == 0)
    return NULL;
  g_ptr_array_add (kept, NULL);
  return g_strjoinv (" ", (char **) kept->pdata);
}

static gboolean
starts_with_word (const char *text, const char *word)
{
  gsize len = strlen (word);

  return g_ascii_strncasecmp (text, word, len) == 0 &&
         (text[len] == '\0' || text[len] == ' ');
}

char *
rfk_radio_hardware_name (const char *vendor, const char *model)
{
  g_autofree char *v = is_set (vendor) ? short_vendor (vendor) : NULL;
  g_autofree char *m = is_set (model) ? short_model (model) : NULL;

  if (m == NULL)
    return g_steal_pointer (&v);
  /* The vendor only once: hwdb models sometimes start with it. */
  if (v == NULL || starts_with_word (m, v))
    return g_steal_pointer (&m);
  return g_strdup_printf ("%s %s", v, m);
}

char *
rfk_radio_facts_label (const RfkRadioFacts *facts)
{
  const char *type = rfk_type_to_label (facts->type);
  const char *interface = is_set (facts->interface) ? facts->interface
                                                    : facts->name;
  g_autofree char *hardware = NULL;

  g_return_val_if_fail (facts->name != NULL, NULL);

  if (rfk_radio_facts_role (facts) == RFK_RADIO_ROLE_PLATFORM_SWITCH)
    /* TRANSLATORS: a laptop's own switch for a radio type, not a radio:
     * the type ("Wi-Fi"), then the kernel's name for the switch, e.g.
     * "Wi-Fi switch (laptop, ideapad_wlan)". */
    return g_strdup_printf (_("%s switch (laptop, %s)"), type, facts->name);

  hardware = rfk_radio_hardware_name (facts->vendor, facts->model);
  if (hardware != NULL)
    /* TRANSLATORS: a radio: its type, the adapter's vendor and model,
     * and its network interface, e.g.
     * "Wi-Fi — Intel Wi-Fi 6 AX200 (wlp2s0)". */
    return g_strdup_printf (_("%s — %s (%s)"), type, hardware, interface);
  /* TRANSLATORS: a radio in the menu: its type, then the kernel's name for
   * it, e.g. "Wi-Fi (phy0)" or "Bluetooth (hci0)". */
  return g_strdup_printf (_("%s (%s)"), type, interface);
}

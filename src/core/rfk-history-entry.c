/* rfk-history-entry.c: one change of the history, its words and labels. */
#include "config.h"

#include "rfk-history.h"

#include <glib/gi18n.h>

#include "rfk-device.h"

static const char *const cause_names[RFK_CAUSE_COUNT] = {
  [RFK_CAUSE_OTHER] = "other",
  [RFK_CAUSE_APPLET] = "applet",
  [RFK_CAUSE_MENU] = "menu",
  [RFK_CAUSE_MIDDLE_CLICK] = "middle-click",
  [RFK_CAUSE_NOTIFICATION] = "notification",
  [RFK_CAUSE_CLI] = "cli",
  [RFK_CAUSE_DBUS] = "dbus",
  [RFK_CAUSE_AIRPLANE_MODE] = "airplane-mode",
  [RFK_CAUSE_RESUME] = "resume",
  [RFK_CAUSE_KEY] = "key",
  [RFK_CAUSE_SWITCH] = "switch",
  [RFK_CAUSE_HOTPLUG] = "hotplug",
  [RFK_CAUSE_NETWORKMANAGER] = "networkmanager",
};

static const char *const state_names[] = {
  [RFK_RADIO_ON] = "on",
  [RFK_RADIO_OFF] = "off",
  [RFK_RADIO_HARD_BLOCKED] = "hard-blocked",
};

const char *
rfk_cause_to_string (RfkCause cause)
{
  g_return_val_if_fail (cause < RFK_CAUSE_COUNT, "other");
  return cause_names[cause];
}

gboolean
rfk_cause_from_string (const char *string, RfkCause *out_cause)
{
  for (guint i = 0; string != NULL && i < RFK_CAUSE_COUNT; i++)
    if (g_str_equal (string, cause_names[i]))
      {
        *out_cause = i;
        return TRUE;
      }
  return FALSE;
}

const char *
rfk_radio_state_to_string (RfkRadioState state)
{
  g_return_val_if_fail (state < G_N_ELEMENTS (state_names), "on");
  return state_names[state];
}

gboolean
rfk_radio_state_from_string (const char *string, RfkRadioState *out_state)
{
  for (guint i = 0; string != NULL && i < G_N_ELEMENTS (state_names); i++)
    if (g_str_equal (string, state_names[i]))
      {
        *out_state = i;
        return TRUE;
      }
  return FALSE;
}

RfkRadioState
rfk_radio_state_of (gboolean soft, gboolean hard)
{
  return hard ? RFK_RADIO_HARD_BLOCKED : soft ? RFK_RADIO_OFF : RFK_RADIO_ON;
}

const char *
rfk_radio_state_to_label (RfkRadioState state)
{
  switch (state)
    {
    case RFK_RADIO_ON:
      /* TRANSLATORS: a radio's state in the history: "off → on" */
      return C_("radio state", "on");
    case RFK_RADIO_OFF:
      return C_("radio state", "off");
    case RFK_RADIO_HARD_BLOCKED:
    default:
      return C_("radio state", "blocked by hardware");
    }
}

RfkHistoryEntry *
rfk_history_entry_copy (const RfkHistoryEntry *entry)
{
  RfkHistoryEntry *copy = g_memdup2 (entry, sizeof *entry);

  copy->name = g_strdup (entry->name);
  copy->key = g_strdup (entry->key);
  copy->by = g_strdup (entry->by);
  return copy;
}

void
rfk_history_entry_free (RfkHistoryEntry *entry)
{
  if (entry == NULL)
    return;
  g_free (entry->name);
  g_free (entry->key);
  g_free (entry->by);
  g_free (entry);
}

char *
rfk_history_entry_dup_cause_label (const RfkHistoryEntry *entry)
{
  switch (entry->cause)
    {
    case RFK_CAUSE_APPLET:
      return g_strdup (_("this applet"));
    case RFK_CAUSE_MENU:
      return g_strdup (_("the menu"));
    case RFK_CAUSE_MIDDLE_CLICK:
      return g_strdup (_("a middle click"));
    case RFK_CAUSE_NOTIFICATION:
      return g_strdup (_("a notification"));
    case RFK_CAUSE_CLI:
      return g_strdup (_("the command line"));
    case RFK_CAUSE_DBUS:
      /* TRANSLATORS: %s is a process name, e.g. "gnome-shell" */
      return entry->by != NULL ? g_strdup_printf (_("%s over D-Bus"),
                                                  entry->by)
                               : g_strdup (_("a program over D-Bus"));
    case RFK_CAUSE_AIRPLANE_MODE:
      return g_strdup (_("airplane mode"));
    case RFK_CAUSE_RESUME:
      return g_strdup (_("resume"));
    case RFK_CAUSE_KEY:
      /* TRANSLATORS: every radio switched at once, as the airplane key,
       * `rfkill block all` and gnome-settings-daemon do alike */
      return g_strdup (_("the airplane key or a program switching every "
                         "radio"));
    case RFK_CAUSE_SWITCH:
      return g_strdup (_("a hardware switch"));
    case RFK_CAUSE_HOTPLUG:
      return g_strdup (_("a restore when plugged in"));
    case RFK_CAUSE_NETWORKMANAGER:
      return g_strdup ("NetworkManager");
    case RFK_CAUSE_OTHER:
    default:
      return g_strdup (_("another program"));
    }
}

char *
rfk_history_entry_dup_radio_label (const RfkHistoryEntry *entry)
{
  return g_strdup_printf ("%s (%s)", rfk_type_to_label (entry->type),
                          entry->name);
}

char *
rfk_history_entry_dup_summary (const RfkHistoryEntry *entry)
{
  g_autofree char *radio = rfk_history_entry_dup_radio_label (entry);
  g_autofree char *cause = rfk_history_entry_dup_cause_label (entry);

  /* TRANSLATORS: "Bluetooth (hci0): on → off, by the menu"; the states
   * are "on", "off" or "blocked by hardware", the cause one of "the
   * menu", "gnome-shell over D-Bus", "another program"... */
  return g_strdup_printf (_("%s: %s → %s, by %s"), radio,
                          rfk_radio_state_to_label (entry->from),
                          rfk_radio_state_to_label (entry->to), cause);
}

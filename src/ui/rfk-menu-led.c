/*
 * rfk-menu-led.c: the "Airplane-mode light" submenu, one radio item per
 * rule, what keeps the light from its rule, and a rule the kernel refused.
 */
#include "config.h"

#include <glib/gi18n.h>

#include "rfk-menu-private.h"

/* The LED rules as the menu offers them, in menu order. */
static const struct
{
  RfkLedRule rule;
  const char *label;
} led_rules[] = {
  { RFK_LED_RULE_KERNEL, N_("Kernel default") },
  { RFK_LED_RULE_AIRPLANE_MODE, N_("Follow airplane mode") },
  { RFK_LED_RULE_WLAN_BLOCKED, N_("When Wi-Fi is off") },
  { RFK_LED_RULE_HARDWARE_SWITCH, N_("When a hardware switch is off") },
  { RFK_LED_RULE_NEVER, N_("Always off") },
};
G_STATIC_ASSERT (G_N_ELEMENTS (led_rules) == RFK_MENU_N_LED_RULES);

/* The LED rule's name as the menu shows it. */
static const char *
led_rule_label (RfkLedRule rule)
{
  for (gsize i = 0; i < G_N_ELEMENTS (led_rules); i++)
    if (led_rules[i].rule == rule)
      return _(led_rules[i].label);
  return NULL;
}

static void
report_led_failure (RfkMenu *self, RfkLedRule rule, const GError *error)
{
  /* TRANSLATORS: %s is a light rule, e.g. "Follow airplane mode" */
  g_autofree char *what = g_strdup_printf (_("Cannot set the airplane-mode "
                                             "light to “%s”"),
                                           led_rule_label (rule));

  _rfk_menu_report_failure (self, what, error);
}

static void
on_led_toggled (GtkCheckMenuItem *item, RfkMenu *self)
{
  RfkLedRule rule = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (item),
                                                         "rfk-rule"));
  RfkLedController *leds = rfk_settings_get_led_controller (self->settings);
  g_autoptr(GError) error = NULL;

  /* Radio items toggle twice per click: the old one off, the new one on. */
  if (!gtk_check_menu_item_get_active (item))
    return;
  self->led_asked = 0;
  if (!rfk_settings_choose_led_rule (self->settings, rule, &error))
    report_led_failure (self, rule, error);
  else if (rfk_led_controller_is_pending (leds))
    /* The kernel answers later (_rfk_menu_on_led_changed()). */
    self->led_asked = rule + 1;
  /* "led-changed" queued a sync that shows the rule really in force. */
}

/* What keeps the light from following its rule, or NULL. */
static char *
led_trouble (RfkMenu *self)
{
  RfkLedController *leds = rfk_settings_get_led_controller (self->settings);
  RfkAirplaneLightStatus status = rfk_led_controller_get_status (leds);
  const char *error = rfk_settings_get_led_error (self->settings);
  const char *holder = rfk_led_controller_get_holder (leds);

  if (status == RFK_AIRPLANE_LIGHT_UNSUPPORTED)
    return g_strdup (_("Not supported by this kernel"));
  if (status == RFK_AIRPLANE_LIGHT_BUSY && holder != NULL)
    /* TRANSLATORS: %s is a program, as "gnome-shell (process 1234)" */
    return g_strdup_printf (_("Controlled by %s"), holder);
  if (status == RFK_AIRPLANE_LIGHT_BUSY)
    return g_strdup (_("Controlled by another program"));
  if (error != NULL)
    return g_strdup (error);
  if (rfk_led_controller_get_error (leds) != NULL)
    return g_strdup (rfk_led_controller_get_error (leds)->message);
  return NULL;
}

/* The kernel has answered a rule the user chose: told if it failed. */
void
_rfk_menu_on_led_changed (RfkMenu *self)
{
  RfkLedController *leds = rfk_settings_get_led_controller (self->settings);
  RfkLedRule asked = self->led_asked - 1;
  g_autofree char *trouble = NULL;
  g_autoptr(GError) error = NULL;

  if (self->led_asked == 0 || rfk_led_controller_is_pending (leds))
    return;
  self->led_asked = 0;
  if (rfk_led_controller_get_rule (leds) == asked)
    return;
  trouble = led_trouble (self);
  error = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_FAILED,
                               trouble != NULL
                                 ? trouble
                                 : _("The light stays as it was"));
  report_led_failure (self, asked, error);
}

void
_rfk_menu_sync_leds (RfkMenu *self)
{
  RfkLedController *leds = rfk_settings_get_led_controller (self->settings);
  RfkLedRule in_force = rfk_led_controller_get_rule (leds);
  RfkAirplaneLightStatus status = rfk_led_controller_get_status (leds);
  g_autofree char *reason = led_trouble (self);

  for (gsize i = 0; i < G_N_ELEMENTS (led_rules); i++)
    {
      _rfk_menu_set_active_quietly (self->led_items[i],
                                    led_rules[i].rule == in_force,
                                    on_led_toggled);
      /* Only the kernel's own rule works without the indicator ops. */
      rfk_menu_item_set_sensitive (self->led_items[i],
                                   status != RFK_AIRPLANE_LIGHT_UNSUPPORTED ||
                                   led_rules[i].rule == RFK_LED_RULE_KERNEL);
    }

  if (reason != NULL)
    rfk_menu_item_set_text (self->led_status_item, reason);
  rfk_menu_item_set_visible (self->led_separator, reason != NULL);
  rfk_menu_item_set_visible (self->led_status_item, reason != NULL);
}

GtkWidget *
_rfk_menu_build_led_submenu (RfkMenu *self)
{
  GtkWidget *item = gtk_menu_item_new_with_mnemonic (_("Airplane-mode _light"));
  GtkWidget *submenu = gtk_menu_new ();
  GSList *group = NULL;

  for (gsize i = 0; i < G_N_ELEMENTS (led_rules); i++)
    {
      /* A translation may hold a "_" too: no label is a mnemonic. */
      g_autofree char *label =
        rfk_menu_item_label_for_text (_(led_rules[i].label));
      GtkWidget *radio = gtk_radio_menu_item_new_with_mnemonic (group, label);

      group = gtk_radio_menu_item_get_group (GTK_RADIO_MENU_ITEM (radio));
      g_object_set_data (G_OBJECT (radio), "rfk-rule",
                         GUINT_TO_POINTER (led_rules[i].rule));
      gtk_menu_shell_append (GTK_MENU_SHELL (submenu), radio);
      self->led_items[i] = radio;
    }
  /* Connect after building: the first item starts active. */
  for (gsize i = 0; i < G_N_ELEMENTS (led_rules); i++)
    g_signal_connect (self->led_items[i], "toggled",
                      G_CALLBACK (on_led_toggled), self);

  self->led_separator = gtk_separator_menu_item_new ();
  self->led_status_item = rfk_menu_item_new_status ();
  gtk_menu_shell_append (GTK_MENU_SHELL (submenu), self->led_separator);
  gtk_menu_shell_append (GTK_MENU_SHELL (submenu), self->led_status_item);
  gtk_widget_show_all (submenu);
  gtk_widget_hide (self->led_separator);
  gtk_widget_hide (self->led_status_item);

  gtk_menu_item_set_submenu (GTK_MENU_ITEM (item), submenu);
  return item;
}

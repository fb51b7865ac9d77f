/*
 * test-radio-names.c: names people recognise, from the facts udev gives.
 *
 * The facts are those of real machines: the parents are where each
 * driver registers its rfkill device (iwlwifi and ath9k: the ieee80211
 * phy; btusb: the hci; ideapad_laptop: its VPC2004:00 platform device;
 * thinkpad_acpi: the thinkpad_acpi platform device; dell-rbtn: the
 * DELLABCE:00 ACPI device; hp-wmi: the hp-wmi platform device;
 * rfkill-gpio: its own platform device), and the vendor and model
 * strings are those of systemd's hwdb (20-pci-vendor-model.hwdb,
 * 20-usb-vendor-model.hwdb in Debian bookworm's udev).
 */
#include "config.h"

#include "rfk-device.h"
#include "rfk-radio-names.h"

typedef struct {
  const char *what;
  RfkRadioFacts facts;
  RfkRadioRole role;
  const char *label;
} Case;

static const Case cases[] = {
  { "Intel AX200 on PCI (a ThinkPad T14)",
    { RFK_TYPE_WLAN, "phy0", "ieee80211", NULL, "wlp2s0",
      "Intel Corporation", "Wi-Fi 6 AX200" },
    RFK_RADIO_ROLE_RADIO, "Wi-Fi — Intel Wi-Fi 6 AX200 (wlp2s0)" },
  { "Intel 8265 (codename-free model with a slash)",
    { RFK_TYPE_WLAN, "phy0", "ieee80211", NULL, "wlp58s0",
      "Intel Corporation", "Wireless 8265 / 8275" },
    RFK_RADIO_ROLE_RADIO, "Wi-Fi — Intel Wireless 8265 / 8275 (wlp58s0)" },
  { "Realtek PCIe card: legal form and generic words go",
    { RFK_TYPE_WLAN, "phy0", "ieee80211", NULL, "wlp3s0",
      "Realtek Semiconductor Co., Ltd.",
      "RTL8822CE 802.11ac PCIe Wireless Network Adapter" },
    RFK_RADIO_ROLE_RADIO, "Wi-Fi — Realtek RTL8822CE 802.11ac (wlp3s0)" },
  { "Intel AX210: a codename in brackets and a note in parentheses",
    { RFK_TYPE_WLAN, "phy0", "ieee80211", NULL, "wlo1",
      "Intel Corporation",
      "Wi-Fi 6E(802.11ax) AX210/AX1675* 2x2 [Typhoon Peak]" },
    RFK_RADIO_ROLE_RADIO, "Wi-Fi — Intel Wi-Fi 6E AX210/AX1675* 2x2 (wlo1)" },
  { "USB dongle whose hwdb knows only the vendor",
    { RFK_TYPE_WLAN, "phy1", "ieee80211", NULL, "wlx00e04c0a1b2c",
      "Realtek Semiconductor Corp.", NULL },
    RFK_RADIO_ROLE_RADIO, "Wi-Fi — Realtek (wlx00e04c0a1b2c)" },
  { "interface known, no hardware database entry (SDIO)",
    { RFK_TYPE_WLAN, "phy0", "ieee80211", NULL, "wlan0", NULL, NULL },
    RFK_RADIO_ROLE_RADIO, "Wi-Fi (wlan0)" },
  { "btusb on an Intel AX200's USB side",
    { RFK_TYPE_BLUETOOTH, "hci0", "bluetooth", NULL, "hci0",
      "Intel Corp.", "AX200 Bluetooth" },
    RFK_RADIO_ROLE_RADIO, "Bluetooth — Intel AX200 Bluetooth (hci0)" },
  { "btusb, Intel 8087:0a2b: a model of generic words only",
    { RFK_TYPE_BLUETOOTH, "hci0", "bluetooth", NULL, "hci0",
      "Intel Corp.", "Bluetooth wireless interface" },
    RFK_RADIO_ROLE_RADIO, "Bluetooth — Intel Bluetooth (hci0)" },
  { "Broadcom: 'Inc. and subsidiaries'",
    { RFK_TYPE_WLAN, "phy0", "ieee80211", NULL, "wlp3s0",
      "Broadcom Inc. and subsidiaries", "BCM4360 802.11ac Wireless Network Adapter" },
    RFK_RADIO_ROLE_RADIO, "Wi-Fi — Broadcom BCM4360 802.11ac (wlp3s0)" },
  { "ideapad_laptop on its VPC2004:00 platform device",
    { RFK_TYPE_WLAN, "ideapad_wlan", "platform", "ideapad_acpi", NULL,
      NULL, NULL },
    RFK_RADIO_ROLE_PLATFORM_SWITCH, "Wi-Fi switch (laptop, ideapad_wlan)" },
  { "thinkpad_acpi's Bluetooth switch",
    { RFK_TYPE_BLUETOOTH, "tpacpi_bluetooth_sw", "platform", "thinkpad_acpi",
      NULL, NULL, NULL },
    RFK_RADIO_ROLE_PLATFORM_SWITCH,
    "Bluetooth switch (laptop, tpacpi_bluetooth_sw)" },
  { "thinkpad_acpi's WWAN switch",
    { RFK_TYPE_WWAN, "tpacpi_wwan_sw", "platform", "thinkpad_acpi",
      NULL, NULL, NULL },
    RFK_RADIO_ROLE_PLATFORM_SWITCH,
    "Mobile broadband switch (laptop, tpacpi_wwan_sw)" },
  { "dell-rbtn on its ACPI device",
    { RFK_TYPE_WLAN, "dell-rbtn", "acpi", "dell-rbtn", NULL, NULL, NULL },
    RFK_RADIO_ROLE_PLATFORM_SWITCH, "Wi-Fi switch (laptop, dell-rbtn)" },
  { "hp-wmi",
    { RFK_TYPE_WLAN, "hp-wifi", "platform", "hp-wmi", NULL, NULL, NULL },
    RFK_RADIO_ROLE_PLATFORM_SWITCH, "Wi-Fi switch (laptop, hp-wifi)" },
  { "asus-nb-wmi",
    { RFK_TYPE_WLAN, "asus-wlan", "platform", "asus-nb-wmi", NULL, NULL, NULL },
    RFK_RADIO_ROLE_PLATFORM_SWITCH, "Wi-Fi switch (laptop, asus-wlan)" },
  { "rfkill-gpio powers a GPS chip: a radio, not a laptop switch",
    { RFK_TYPE_GPS, "bcm4751", "platform", "rfkill_gpio", NULL, NULL, NULL },
    RFK_RADIO_ROLE_RADIO, "GPS (bcm4751)" },
  { "udev knows nothing: today's label",
    { RFK_TYPE_WLAN, "phy0", NULL, NULL, NULL, NULL, NULL },
    RFK_RADIO_ROLE_RADIO, "Wi-Fi (phy0)" },
  { "an empty interface is no interface",
    { RFK_TYPE_BLUETOOTH, "hci1", "bluetooth", NULL, "", "", "" },
    RFK_RADIO_ROLE_RADIO, "Bluetooth (hci1)" },
};

static void
test_case (gconstpointer data)
{
  const Case *c = data;
  g_autofree char *label = rfk_radio_facts_label (&c->facts);

  g_assert_cmpint (rfk_radio_facts_role (&c->facts), ==, c->role);
  g_assert_cmpstr (label, ==, c->label);
}

static void
test_hardware_name (void)
{
  g_autofree char *none = rfk_radio_hardware_name (NULL, NULL);
  g_autofree char *vendor_in_model =
    rfk_radio_hardware_name ("Intel Corporation", "Intel Dual Band Wireless-AC 8260");
  g_autofree char *model_only = rfk_radio_hardware_name (NULL, "Wi-Fi 6 AX201");
  g_autofree char *legal_first = rfk_radio_hardware_name ("AG", "Widget 2");
  g_autofree char *only_generic =
    rfk_radio_hardware_name ("Qualcomm Atheros", "Wireless Network Adapter");

  g_assert_null (none);
  g_assert_cmpstr (vendor_in_model, ==, "Intel Dual Band Wireless-AC 8260");
  g_assert_cmpstr (model_only, ==, "Wi-Fi 6 AX201");
  g_assert_cmpstr (legal_first, ==, "AG Widget 2");
  /* A model that says nothing falls back to the vendor. */
  g_assert_cmpstr (only_generic, ==, "Qualcomm Atheros");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *path = g_strdup_printf ("/radio-names/%zu", i);

      g_test_add_data_func (path, &cases[i], test_case);
    }
  g_test_add_func ("/radio-names/hardware-name", test_hardware_name);
  return g_test_run ();
}

/*
 * test-hardware-airplane.c: when a hardware switch holds airplane mode
 * (the tray's hardware-switch icon), on the layouts of real laptops.
 */
#include "config.h"

#include "rfk-airplane-policy.h"
#include "rfk-hardware-airplane.h"

#define ALL RFK_AIRPLANE_TYPES_ALL
#define BIT(t) (1u << (t))

enum { OFF = FALSE, HARD = TRUE };
enum { RADIO = FALSE, SWITCH = TRUE };

static gboolean
holds (const RfkSwitchRadio *radios, gsize n, guint32 counted)
{
  return rfk_hardware_airplane_mode (radios, n, counted);
}

/* A ThinkPad's slider: iwlwifi's phy0, btusb's hci0 and every tpacpi
 * switch go hard-blocked together. */
static void
test_thinkpad_slider (void)
{
  RfkSwitchRadio on[] = {
    { RFK_TYPE_WLAN, OFF, RADIO }, { RFK_TYPE_BLUETOOTH, OFF, RADIO },
    { RFK_TYPE_BLUETOOTH, OFF, SWITCH }, { RFK_TYPE_WWAN, OFF, SWITCH },
  };
  RfkSwitchRadio off[] = {
    { RFK_TYPE_WLAN, HARD, RADIO }, { RFK_TYPE_BLUETOOTH, HARD, RADIO },
    { RFK_TYPE_BLUETOOTH, HARD, SWITCH }, { RFK_TYPE_WWAN, HARD, SWITCH },
  };

  g_assert_false (holds (on, G_N_ELEMENTS (on), ALL));
  g_assert_true (holds (off, G_N_ELEMENTS (off), ALL));
}

/* The BIOS disabled the WWAN card: tpacpi_wwan_sw is hard-blocked for
 * good, Wi-Fi and Bluetooth work.  No icon, whatever the WWAN says. */
static void
test_wwan_disabled_in_bios (void)
{
  RfkSwitchRadio radios[] = {
    { RFK_TYPE_WLAN, OFF, RADIO }, { RFK_TYPE_BLUETOOTH, OFF, RADIO },
    { RFK_TYPE_BLUETOOTH, OFF, SWITCH }, { RFK_TYPE_WWAN, HARD, SWITCH },
  };
  /* The same with the modem's own rfkill device present. */
  RfkSwitchRadio with_modem[] = {
    { RFK_TYPE_WLAN, OFF, RADIO }, { RFK_TYPE_WWAN, HARD, RADIO },
    { RFK_TYPE_WWAN, HARD, SWITCH },
  };

  g_assert_false (holds (radios, G_N_ELEMENTS (radios), ALL));
  g_assert_false (holds (with_modem, G_N_ELEMENTS (with_modem), ALL));
  /* Airplane mode counting only the WWAN: then it is the switch's. */
  g_assert_true (holds (radios, G_N_ELEMENTS (radios), BIT (RFK_TYPE_WWAN)));
}

/* ideapad_laptop on a model without a slider reports ideapad_wlan
 * hard-blocked while the Wi-Fi card (phy0) is on and working. */
static void
test_ideapad_false_hard_block (void)
{
  RfkSwitchRadio radios[] = {
    { RFK_TYPE_WLAN, HARD, SWITCH }, { RFK_TYPE_WLAN, OFF, RADIO },
    { RFK_TYPE_BLUETOOTH, OFF, SWITCH }, { RFK_TYPE_BLUETOOTH, OFF, RADIO },
  };
  /* Even counting Wi-Fi only: the card is on. */
  g_assert_false (holds (radios, G_N_ELEMENTS (radios), ALL));
  g_assert_false (holds (radios, G_N_ELEMENTS (radios), BIT (RFK_TYPE_WLAN)));
}

/* An Eee PC whose Wi-Fi card leaves the PCI bus while the switch is off:
 * only the laptop's switch is left to say so. */
static void
test_card_gone_with_switch (void)
{
  RfkSwitchRadio radios[] = {
    { RFK_TYPE_WLAN, HARD, SWITCH },
  };
  RfkSwitchRadio bt_still_on[] = {
    { RFK_TYPE_WLAN, HARD, SWITCH }, { RFK_TYPE_BLUETOOTH, OFF, RADIO },
  };

  g_assert_true (holds (radios, G_N_ELEMENTS (radios), ALL));
  g_assert_false (holds (bt_still_on, G_N_ELEMENTS (bt_still_on), ALL));
  /* Bluetooth stays on in flight: the switch holds what is counted. */
  g_assert_true (holds (bt_still_on, G_N_ELEMENTS (bt_still_on),
                        BIT (RFK_TYPE_WLAN)));
}

/* A switch that only cuts Wi-Fi while airplane mode counts Bluetooth
 * too: radios are still on, so no icon (the menu names the block). */
static void
test_partial_switch (void)
{
  RfkSwitchRadio radios[] = {
    { RFK_TYPE_WLAN, HARD, RADIO }, { RFK_TYPE_WLAN, OFF, RADIO },
    { RFK_TYPE_BLUETOOTH, HARD, RADIO },
  };

  /* Two Wi-Fi cards, one on. */
  g_assert_false (holds (radios, G_N_ELEMENTS (radios), ALL));
  g_assert_false (holds (radios, G_N_ELEMENTS (radios), BIT (RFK_TYPE_WLAN)));
  g_assert_true (holds (radios, G_N_ELEMENTS (radios), BIT (RFK_TYPE_BLUETOOTH)));
}

static void
test_nothing_counted (void)
{
  RfkSwitchRadio radios[] = { { RFK_TYPE_WLAN, HARD, RADIO } };

  g_assert_false (holds (NULL, 0, ALL));
  /* Counted types with no radio present: no switch holds anything. */
  g_assert_false (holds (radios, G_N_ELEMENTS (radios), BIT (RFK_TYPE_WWAN)));
  g_assert_true (holds (radios, G_N_ELEMENTS (radios), ALL));
}

/* Types a newer kernel adds count under "all", and only there. */
static void
test_unknown_type (void)
{
  RfkSwitchRadio radios[] = {
    { RFK_TYPE_WLAN, HARD, RADIO }, { 40, OFF, RADIO },
  };

  g_assert_false (holds (radios, G_N_ELEMENTS (radios), ALL));
  g_assert_true (holds (radios, G_N_ELEMENTS (radios), BIT (RFK_TYPE_WLAN)));
}

static void
test_hard_by_switch (void)
{
  RfkDevice signal = { .hard = TRUE, .hard_reasons = RFK_HARD_REASON_SIGNAL };
  RfkDevice v1 = { .hard = TRUE, .hard_reasons = 0 };
  RfkDevice not_owner = { .hard = TRUE,
                          .hard_reasons = RFK_HARD_REASON_NOT_OWNER };
  RfkDevice both = { .hard = TRUE, .hard_reasons = RFK_HARD_REASON_SIGNAL |
                                                   RFK_HARD_REASON_NOT_OWNER };
  RfkDevice soft = { .soft = TRUE };

  g_assert_true (rfk_device_hard_by_switch (&signal));
  g_assert_true (rfk_device_hard_by_switch (&v1));
  g_assert_false (rfk_device_hard_by_switch (&not_owner));
  g_assert_true (rfk_device_hard_by_switch (&both));
  g_assert_false (rfk_device_hard_by_switch (&soft));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/hardware-airplane/thinkpad-slider", test_thinkpad_slider);
  g_test_add_func ("/hardware-airplane/wwan-disabled-in-bios",
                   test_wwan_disabled_in_bios);
  g_test_add_func ("/hardware-airplane/ideapad-false-hard-block",
                   test_ideapad_false_hard_block);
  g_test_add_func ("/hardware-airplane/card-gone-with-switch",
                   test_card_gone_with_switch);
  g_test_add_func ("/hardware-airplane/partial-switch", test_partial_switch);
  g_test_add_func ("/hardware-airplane/nothing-counted", test_nothing_counted);
  g_test_add_func ("/hardware-airplane/unknown-type", test_unknown_type);
  g_test_add_func ("/hardware-airplane/hard-by-switch", test_hard_by_switch);
  return g_test_run ();
}

/*
 * test-requests.c: requests that follow one another before the kernel
 * answered, through the D-Bus API's properties (the same table serves
 * our interface and gsd's), and radios whose driver refuses a block.
 */
#include <gio/gio.h>
#include <string.h>

#include "rfk-dbus-properties.h"
#include "rfk-device.h"
#include "rfk-manager-private.h"
#include "test-util.h"

#define BT RFK_TYPE_BLUETOOTH
#define WLAN RFK_TYPE_WLAN

static void
start_laptop (Fixture *f)
{
  fake_rfkill_add (f->fake, WLAN, NULL);
  fake_rfkill_add (f->fake, BT, NULL);
  fixture_listen (f);
  f->manager = fixture_start_manager (f);
}

static void
set_property (Fixture *f, const char *name, gboolean value)
{
  RfkDBusModel model = { .manager = f->manager };
  /* Owned, as GDBus hands it to the property setter. */
  g_autoptr (GVariant) variant = g_variant_ref_sink (
    g_variant_new_boolean (value));
  g_autoptr (GError) error = NULL;

  g_assert_true (rfk_dbus_property_set (&model, name, variant, &error));
  g_assert_no_error (error);
}

static gboolean
get_property (Fixture *f, const char *name)
{
  RfkDBusModel model = { .manager = f->manager };
  g_autoptr (GVariant) value = rfk_dbus_property_get (&model, name);

  return g_variant_get_boolean (value);
}

static gboolean
no_request_left (gpointer data)
{
  return ((RfkManager *) data)->requests == NULL;
}

static void
settle (Fixture *f)
{
  g_assert_true (test_wait_for (no_request_left, f->manager, 3000));
  test_settle (30);
}

/* BluetoothAirplaneMode true, then false before the kernel's answer
 * reached us: the second is judged against where the first leaves
 * Bluetooth (blocked), so it unblocks it again. */
static void
test_bluetooth_on_then_off_at_once (Fixture *f, gconstpointer data)
{
  start_laptop (f);
  set_property (f, "BluetoothAirplaneMode", TRUE);
  set_property (f, "BluetoothAirplaneMode", FALSE);
  settle (f);
  g_assert_cmpstr (fixture_soft_states (f), ==, "phy0=on hci0=on");
  g_assert_false (get_property (f, "BluetoothAirplaneMode"));
}

/* AirplaneMode false, then BluetoothAirplaneMode true at once: airplane
 * mode ends for every radio, then Bluetooth goes off again. */
static void
test_airplane_off_then_bluetooth_on_at_once (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;

  start_laptop (f);
  g_assert_true (test_set_airplane (f->manager, TRUE, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (fixture_soft_states (f), ==, "phy0=off hci0=off");

  set_property (f, "AirplaneMode", FALSE);
  set_property (f, "BluetoothAirplaneMode", TRUE);
  settle (f);
  g_assert_cmpstr (fixture_soft_states (f), ==, "phy0=on hci0=off");
  g_assert_true (get_property (f, "BluetoothAirplaneMode"));
  g_assert_false (get_property (f, "AirplaneMode"));
  /* Airplane mode ended: its list is done with. */
  g_assert_false (test_store_is_active ());
}

/* A Wi-Fi switch whose driver refuses soft blocks: the kernel restores
 * its state and sends nothing.  Airplane mode goes on for the others,
 * the refusal names the radio, and off brings the others back. */
static void
test_refusing_radio_is_named_and_left_out (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  guint32 slider;

  fake_rfkill_add (f->fake, WLAN, "phy0");
  fake_rfkill_add (f->fake, BT, "hci0");
  slider = fake_rfkill_add (f->fake, WLAN, "acme-slider");
  fake_rfkill_set_refuses_soft (f->fake, slider, TRUE);
  fixture_listen (f);
  f->manager = fixture_start_manager (f);
  rfk_manager_set_confirm_timeout (f->manager, 300);

  g_assert_false (test_set_airplane (f->manager, TRUE, &error));
  g_assert_nonnull (error);
  g_assert_cmpstr (error->message, ==,
                   "acme-slider (Wi-Fi) did not turn off");
  g_clear_error (&error);
  g_assert_cmpstr (fixture_soft_states (f), ==,
                   "phy0=off hci0=off acme-slider=on");
  g_assert_true (rfk_manager_get_airplane_mode (f->manager));
  g_assert_true (rfk_manager_lookup (f->manager, slider)->refused);
  g_assert_true (test_store_is_active ());

  /* The CLI is a program of its own, and the applet restarts: the
   * refusal outlives the process that saw it. */
  g_clear_object (&f->manager);
  f->manager = fixture_start_manager (f);
  g_assert_true (rfk_manager_lookup (f->manager, slider)->refused);
  g_assert_true (rfk_manager_get_airplane_mode (f->manager));
  g_assert_true (test_store_is_active ());

  g_assert_true (test_set_airplane (f->manager, FALSE, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (fixture_soft_states (f), ==,
                   "phy0=on hci0=on acme-slider=on");
  g_assert_false (rfk_manager_get_airplane_mode (f->manager));
  g_assert_false (test_store_is_active ());

  /* It counts again once it changes. */
  fake_rfkill_set_soft (f->fake, slider, TRUE);
  test_settle (50);
  g_assert_false (rfk_manager_lookup (f->manager, slider)->refused);
  g_clear_object (&f->manager);
  f->manager = fixture_start_manager (f);
  g_assert_false (rfk_manager_lookup (f->manager, slider)->refused);
}

/* Airplane off while a switch holds the Wi-Fi card and the other radio
 * refuses to turn on: the answer names both reasons, the refusal is not
 * dropped for the switch. */
static void
test_refusal_and_switch_are_both_told (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  guint32 card, slider;

  card = fake_rfkill_add (f->fake, WLAN, "phy0");
  slider = fake_rfkill_add (f->fake, WLAN, "acme-slider");
  fixture_listen (f);
  f->manager = fixture_start_manager (f);
  rfk_manager_set_confirm_timeout (f->manager, 300);
  g_assert_true (test_set_airplane (f->manager, TRUE, &error));
  g_assert_no_error (error);

  fake_rfkill_set_refuses_soft (f->fake, slider, TRUE);
  fake_rfkill_set_hard (f->fake, card, TRUE, RFK_HARD_BLOCK_SIGNAL);
  test_settle (50);
  g_assert_false (test_set_airplane (f->manager, FALSE, &error));
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message,
                            "acme-slider (Wi-Fi) did not turn on"));
  g_assert_nonnull (strstr (error->message, "a hardware switch blocks"));
  g_assert_true (rfk_manager_lookup (f->manager, slider)->refused);
  /* The list is spent all the same. */
  g_assert_false (test_store_is_active ());
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) \
  g_test_add ("/requests/" path, Fixture, NULL, fixture_setup, func, \
              fixture_teardown)
  ADD ("bluetooth-on-then-off-at-once", test_bluetooth_on_then_off_at_once);
  ADD ("airplane-off-then-bluetooth-on-at-once",
       test_airplane_off_then_bluetooth_on_at_once);
  ADD ("refusing-radio-is-named-and-left-out",
       test_refusing_radio_is_named_and_left_out);
  ADD ("refusal-and-switch-are-both-told",
       test_refusal_and_switch_are_both_told);
#undef ADD
  return g_test_run ();
}

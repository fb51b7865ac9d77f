/*
 * test-requests.c: requests that follow one another before the kernel
 * answered, through the manager's entry points and the D-Bus API's
 * properties (the same table serves our interface and gsd's), as the
 * doors send them, and radios whose driver refuses a block.  Each is
 * judged by the state the earlier ones leave (RULES.md, "Order").
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

/* What each caller was told. */
typedef struct {
  guint done;
  guint failed;        /* airplane callers told an error */
  guint radio_failed;  /* radio callers told an error ("Superseded") */
  guint toggled_on;  /* toggles that asked for "on" */
  char *last_error;
} Outcomes;

static void
airplane_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Outcomes *o = user_data;
  g_autoptr (GError) error = NULL;
  gboolean enabled = FALSE;

  o->done++;
  if (!rfk_manager_toggle_airplane_mode_finish (RFK_MANAGER (source), result,
                                                &enabled, &error))
    {
      o->failed++;
      g_free (o->last_error);
      o->last_error = g_strdup (error->message);
    }
  else if (enabled)
    o->toggled_on++;
}

static void
radio_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Outcomes *o = user_data;
  g_autoptr (GError) error = NULL;

  o->done++;
  if (!rfk_manager_set_blocked_finish (RFK_MANAGER (source), result, &error))
    o->radio_failed++;
}

static void
outcomes_clear (Outcomes *o)
{
  g_clear_pointer (&o->last_error, g_free);
}

/* Every request answered: calls callers in all. */
static void
settle_calls (Fixture *f, Outcomes *o, guint calls)
{
  settle (f);
  g_assert_cmpuint (o->done, ==, calls);
}

#define TOGGLE(f, o) \
  rfk_manager_toggle_airplane_mode_async ((f)->manager, NULL, airplane_cb, o)

/* Toggle, Wi-Fi on, toggle, all in flight: Wi-Fi on in airplane mode
 * is an exception, so airplane mode holds for Bluetooth and the second
 * toggle ends it, bringing Bluetooth back and leaving Wi-Fi alone. */
static void
test_toggle_radio_on_toggle (Fixture *f, gconstpointer data)
{
  Outcomes o = { 0 };

  start_laptop (f);
  TOGGLE (f, &o);
  rfk_manager_set_blocked_async (f->manager, 0, FALSE, NULL, radio_cb, &o);
  g_assert_true (rfk_manager_lookup (f->manager, 0)->exception);
  TOGGLE (f, &o);
  settle_calls (f, &o, 3);
  g_assert_cmpstr (fixture_soft_states (f), ==, "phy0=on hci0=on");
  g_assert_false (rfk_manager_get_airplane_mode (f->manager));
  /* The first toggle is superseded by the second (RULES.md, "Order"). */
  g_assert_cmpuint (o.toggled_on, ==, 0);
  g_assert_cmpuint (o.failed, ==, 1);
  g_assert_cmpstr (o.last_error, ==, "Superseded by a newer airplane-mode request");
  outcomes_clear (&o);
}

/* Toggle, Wi-Fi on (an exception), Bluetooth on, toggle: Bluetooth is
 * the last radio airplane mode has, so turning it on ends airplane mode
 * (no exception then), and the second toggle starts it again, for
 * Bluetooth only. */
static void
test_toggle_all_on_toggle (Fixture *f, gconstpointer data)
{
  Outcomes o = { 0 };

  start_laptop (f);
  TOGGLE (f, &o);
  rfk_manager_set_blocked_async (f->manager, 0, FALSE, NULL, radio_cb, &o);
  rfk_manager_set_blocked_async (f->manager, 1, FALSE, NULL, radio_cb, &o);
  g_assert_false (rfk_manager_lookup (f->manager, 1)->exception);
  TOGGLE (f, &o);
  settle_calls (f, &o, 4);
  g_assert_cmpstr (fixture_soft_states (f), ==, "phy0=on hci0=off");
  g_assert_true (rfk_manager_get_airplane_mode (f->manager));
  g_assert_cmpuint (o.toggled_on, ==, 2);
  outcomes_clear (&o);
}

/* The same with gsd's BluetoothAirplaneMode=false in between (GNOME
 * Shell's Bluetooth switch): Bluetooth becomes the exception. */
static void
test_toggle_bluetooth_property_toggle (Fixture *f, gconstpointer data)
{
  Outcomes o = { 0 };

  start_laptop (f);
  TOGGLE (f, &o);
  set_property (f, "BluetoothAirplaneMode", FALSE);
  g_assert_true (rfk_manager_lookup (f->manager, 1)->exception);
  TOGGLE (f, &o);
  settle_calls (f, &o, 2);
  g_assert_cmpstr (fixture_soft_states (f), ==, "phy0=on hci0=on");
  g_assert_false (rfk_manager_get_airplane_mode (f->manager));
  outcomes_clear (&o);
}

/* Toggle, Wi-Fi on (an exception), Bluetooth on (the last radio: it
 * ends airplane mode), airplane on: the last one finds Bluetooth on and
 * blocks it again; the first airplane request is not joined across the
 * radio requests. */
static void
test_airplane_on_after_radio_requests (Fixture *f, gconstpointer data)
{
  Outcomes o = { 0 };

  start_laptop (f);
  TOGGLE (f, &o);
  rfk_manager_set_blocked_async (f->manager, 0, FALSE, NULL, radio_cb, &o);
  rfk_manager_set_blocked_async (f->manager, 1, FALSE, NULL, radio_cb, &o);
  rfk_manager_set_airplane_mode_async (f->manager, TRUE, NULL, airplane_cb,
                                       &o);
  settle_calls (f, &o, 4);
  g_assert_cmpstr (fixture_soft_states (f), ==, "phy0=on hci0=off");
  g_assert_true (rfk_manager_get_airplane_mode (f->manager));
  outcomes_clear (&o);
}

/* Two quick toggles (two middle clicks, or the menu item then a middle
 * click) end where they began; so do two quick clicks on a radio. */
static void
test_two_toggles_undo (Fixture *f, gconstpointer data)
{
  Outcomes o = { 0 };

  start_laptop (f);
  TOGGLE (f, &o);
  TOGGLE (f, &o);
  rfk_manager_toggle_blocked_async (f->manager, 1, NULL, radio_cb, &o);
  rfk_manager_toggle_blocked_async (f->manager, 1, NULL, radio_cb, &o);
  settle_calls (f, &o, 4);
  g_assert_cmpstr (fixture_soft_states (f), ==, "phy0=on hci0=on");
  g_assert_false (rfk_manager_get_airplane_mode (f->manager));
  g_assert_false (test_store_is_active ());
  outcomes_clear (&o);
}

/* SetAirplaneMode(true) waiting, then GNOME Settings writes
 * AirplaneMode=true: both ask for the same, so both succeed. */
static void
test_identical_requests_both_succeed (Fixture *f, gconstpointer data)
{
  Outcomes o = { 0 };

  start_laptop (f);
  rfk_manager_set_airplane_mode_async (f->manager, TRUE, NULL, airplane_cb,
                                       &o);
  set_property (f, "AirplaneMode", TRUE);
  rfk_manager_set_airplane_mode_async (f->manager, TRUE, NULL, airplane_cb,
                                       &o);
  settle_calls (f, &o, 2);
  g_assert_cmpuint (o.failed, ==, 0);
  g_assert_cmpstr (fixture_soft_states (f), ==, "phy0=off hci0=off");
  g_assert_true (test_store_is_active ());
  outcomes_clear (&o);
}

/* The same state asked for again after another request came in between
 * is planned anew, and the earlier callers get its outcome, not
 * "Superseded". */
static void
test_same_state_after_another_request (Fixture *f, gconstpointer data)
{
  Outcomes o = { 0 };

  start_laptop (f);
  rfk_manager_set_airplane_mode_async (f->manager, TRUE, NULL, airplane_cb,
                                       &o);
  /* Wi-Fi on: an exception; Bluetooth on, the last radio: no exception,
   * airplane mode ends. */
  rfk_manager_set_blocked_async (f->manager, 0, FALSE, NULL, radio_cb, &o);
  rfk_manager_set_blocked_async (f->manager, 1, FALSE, NULL, radio_cb, &o);
  rfk_manager_set_airplane_mode_async (f->manager, TRUE, NULL, airplane_cb,
                                       &o);
  settle_calls (f, &o, 4);
  g_assert_cmpuint (o.failed, ==, 0);
  /* The radio request for Bluetooth is taken over by the newer one. */
  g_assert_cmpuint (o.radio_failed, ==, 1);
  g_assert_cmpstr (fixture_soft_states (f), ==, "phy0=on hci0=off");
  g_assert_true (rfk_manager_get_airplane_mode (f->manager));
  outcomes_clear (&o);
}

/* The same radio asked for the same state twice, by two callers (a
 * menu click and a D-Bus client): neither is told "Superseded". */
static void
test_identical_radio_requests_both_succeed (Fixture *f, gconstpointer data)
{
  Outcomes o = { 0 };

  start_laptop (f);
  rfk_manager_set_blocked_async (f->manager, 0, TRUE, NULL, radio_cb, &o);
  rfk_manager_set_blocked_async (f->manager, 0, TRUE, NULL, radio_cb, &o);
  set_property (f, "BluetoothAirplaneMode", TRUE);
  rfk_manager_set_blocked_async (f->manager, 1, TRUE, NULL, radio_cb, &o);
  settle_calls (f, &o, 3);
  g_assert_cmpuint (o.radio_failed, ==, 0);
  g_assert_cmpstr (fixture_soft_states (f), ==, "phy0=off hci0=off");
  outcomes_clear (&o);
}

/* Every radio was off before airplane mode: "off" restores them off, and
 * airplane mode still holds, so a second "off" right after is a request
 * of its own (it unblocks every radio), not a join. */
static void
test_second_off_is_not_joined_while_held (Fixture *f, gconstpointer data)
{
  Outcomes o = { 0 };

  fake_rfkill_add (f->fake, WLAN, NULL);
  fake_rfkill_add (f->fake, BT, NULL);
  fake_rfkill_set_soft (f->fake, 0, TRUE);
  fake_rfkill_set_soft (f->fake, 1, TRUE);
  fixture_listen (f);
  f->manager = fixture_start_manager (f);
  rfk_manager_set_airplane_mode_async (f->manager, TRUE, NULL, airplane_cb,
                                       &o);
  settle_calls (f, &o, 1);
  g_assert_true (test_store_is_active ());

  rfk_manager_set_airplane_mode_async (f->manager, FALSE, NULL, airplane_cb,
                                       &o);
  rfk_manager_set_airplane_mode_async (f->manager, FALSE, NULL, airplane_cb,
                                       &o);
  settle_calls (f, &o, 3);
  g_assert_cmpstr (o.last_error, ==, NULL);
  g_assert_cmpstr (fixture_soft_states (f), ==, "phy0=on hci0=on");
  outcomes_clear (&o);
}

/* A flood of identical requests joins the one in flight: one list saved,
 * every caller answered, and past the bound a clear error. */
static void
test_flood_of_identical_requests_is_bounded (Fixture *f, gconstpointer data)
{
  Outcomes o = { 0 };
  guint n = RFK_MAX_JOINED + 10;

  start_laptop (f);
  for (guint i = 0; i < n; i++)
    rfk_manager_set_airplane_mode_async (f->manager, TRUE, NULL,
                                         airplane_cb, &o);
  settle_calls (f, &o, n);
  /* The first and RFK_MAX_JOINED joined; the rest were told "busy". */
  g_assert_cmpuint (o.failed, ==, n - 1 - RFK_MAX_JOINED);
  g_assert_nonnull (o.last_error);
  g_assert_cmpstr (fixture_soft_states (f), ==, "phy0=off hci0=off");
  g_assert_true (rfk_manager_get_airplane_mode (f->manager));
  outcomes_clear (&o);
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
  ADD ("back-to-back/toggle-radio-on-toggle", test_toggle_radio_on_toggle);
  ADD ("back-to-back/toggle-all-on-toggle", test_toggle_all_on_toggle);
  ADD ("back-to-back/toggle-bluetooth-property-toggle",
       test_toggle_bluetooth_property_toggle);
  ADD ("back-to-back/airplane-on-after-radio-requests",
       test_airplane_on_after_radio_requests);
  ADD ("back-to-back/two-toggles-undo", test_two_toggles_undo);
  ADD ("back-to-back/identical-requests-both-succeed",
       test_identical_requests_both_succeed);
  ADD ("back-to-back/same-state-after-another-request",
       test_same_state_after_another_request);
  ADD ("back-to-back/identical-radio-requests-both-succeed",
       test_identical_radio_requests_both_succeed);
  ADD ("back-to-back/second-off-is-not-joined-while-held",
       test_second_off_is_not_joined_while_held);
  ADD ("back-to-back/flood-of-identical-requests-is-bounded",
       test_flood_of_identical_requests_is_bounded);
#undef ADD
  return g_test_run ();
}

/*
 * test-back-to-back.c: requests sent one after the other before the
 * kernel answered any, through the manager's entry points and the D-Bus
 * property table (our object's and gsd's), as the doors send them.  Each
 * is judged by the state the earlier ones leave (RULES.md, "Order"); the
 * scenarios are the ones found by hand at the doors.
 */
#include <gio/gio.h>

#include "rfk-dbus-properties.h"
#include "rfk-manager-private.h"
#include "test-util.h"

#define BT RFK_TYPE_BLUETOOTH
#define WLAN RFK_TYPE_WLAN

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
  g_autoptr (GVariant) variant = g_variant_ref_sink (
    g_variant_new_boolean (value));
  g_autoptr (GError) error = NULL;

  g_assert_true (rfk_dbus_property_set (&model, name, variant, &error));
  g_assert_no_error (error);
}

static gboolean
no_request_left (gpointer data)
{
  return ((RfkManager *) data)->requests == NULL;
}

static void
settle (Fixture *f, Outcomes *o, guint calls)
{
  g_assert_true (test_wait_for (no_request_left, f->manager, 3000));
  test_settle (30);
  g_assert_cmpuint (o->done, ==, calls);
}

#define TOGGLE(f, o) \
  rfk_manager_toggle_airplane_mode_async ((f)->manager, NULL, airplane_cb, o)

/* Toggle, Wi-Fi on, toggle: Wi-Fi on ends the first airplane mode, so
 * the second toggle turns it on again. */
static void
test_toggle_radio_on_toggle (Fixture *f, gconstpointer data)
{
  Outcomes o = { 0 };

  start_laptop (f);
  TOGGLE (f, &o);
  rfk_manager_set_blocked_async (f->manager, 0, FALSE, NULL, radio_cb, &o);
  TOGGLE (f, &o);
  settle (f, &o, 3);
  g_assert_cmpstr (fixture_soft_states (f), ==, "phy0=off hci0=off");
  g_assert_true (rfk_manager_get_airplane_mode (f->manager));
  g_assert_cmpuint (o.toggled_on, ==, 2);
  outcomes_clear (&o);
}

/* The same with gsd's BluetoothAirplaneMode=false in between. */
static void
test_toggle_bluetooth_property_toggle (Fixture *f, gconstpointer data)
{
  Outcomes o = { 0 };

  start_laptop (f);
  TOGGLE (f, &o);
  set_property (f, "BluetoothAirplaneMode", FALSE);
  TOGGLE (f, &o);
  settle (f, &o, 2);
  g_assert_cmpstr (fixture_soft_states (f), ==, "phy0=off hci0=off");
  g_assert_true (rfk_manager_get_airplane_mode (f->manager));
  outcomes_clear (&o);
}

/* Toggle, radio 0 off, radio 0 on, airplane on: the last one finds Wi-Fi
 * on and blocks it again; the first airplane request is not joined
 * across the radio requests. */
static void
test_airplane_on_after_radio_requests (Fixture *f, gconstpointer data)
{
  Outcomes o = { 0 };

  start_laptop (f);
  TOGGLE (f, &o);
  rfk_manager_set_blocked_async (f->manager, 0, TRUE, NULL, radio_cb, &o);
  rfk_manager_set_blocked_async (f->manager, 0, FALSE, NULL, radio_cb, &o);
  rfk_manager_set_airplane_mode_async (f->manager, TRUE, NULL, airplane_cb,
                                       &o);
  settle (f, &o, 4);
  g_assert_cmpstr (fixture_soft_states (f), ==, "phy0=off hci0=off");
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
  settle (f, &o, 4);
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
  settle (f, &o, 2);
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
  rfk_manager_set_blocked_async (f->manager, 1, FALSE, NULL, radio_cb, &o);
  rfk_manager_set_airplane_mode_async (f->manager, TRUE, NULL, airplane_cb,
                                       &o);
  settle (f, &o, 3);
  g_assert_cmpuint (o.failed, ==, 0);
  /* The radio request for one radio is taken over by the newer one. */
  g_assert_cmpuint (o.radio_failed, ==, 1);
  g_assert_cmpstr (fixture_soft_states (f), ==, "phy0=off hci0=off");
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
  settle (f, &o, 3);
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
  settle (f, &o, 1);
  g_assert_true (test_store_is_active ());

  rfk_manager_set_airplane_mode_async (f->manager, FALSE, NULL, airplane_cb,
                                       &o);
  rfk_manager_set_airplane_mode_async (f->manager, FALSE, NULL, airplane_cb,
                                       &o);
  settle (f, &o, 3);
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
  settle (f, &o, n);
  /* The first and RFK_MAX_JOINED joined; the rest were told "busy". */
  g_assert_cmpuint (o.failed, ==, n - 1 - RFK_MAX_JOINED);
  g_assert_nonnull (o.last_error);
  g_assert_cmpstr (fixture_soft_states (f), ==, "phy0=off hci0=off");
  g_assert_true (rfk_manager_get_airplane_mode (f->manager));
  outcomes_clear (&o);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) \
  g_test_add ("/back-to-back/" path, Fixture, NULL, fixture_setup, func, \
              fixture_teardown)
  ADD ("toggle-radio-on-toggle", test_toggle_radio_on_toggle);
  ADD ("toggle-bluetooth-property-toggle",
       test_toggle_bluetooth_property_toggle);
  ADD ("airplane-on-after-radio-requests",
       test_airplane_on_after_radio_requests);
  ADD ("two-toggles-undo", test_two_toggles_undo);
  ADD ("identical-requests-both-succeed",
       test_identical_requests_both_succeed);
  ADD ("same-state-after-another-request",
       test_same_state_after_another_request);
  ADD ("identical-radio-requests-both-succeed",
       test_identical_radio_requests_both_succeed);
  ADD ("second-off-is-not-joined-while-held",
       test_second_off_is_not_joined_while_held);
  ADD ("flood-of-identical-requests-is-bounded",
       test_flood_of_identical_requests_is_bounded);
#undef ADD
  return g_test_run ();
}

/*
 * test-led.c: the airplane-mode LED rules and the indicator ownership,
 * against the fake-rfkill program (its own process, like the kernel, so
 * the controller's synchronous ACQUIRE gets its answer).
 */
#include <gio/gio.h>
#include <glib/gstdio.h>
#include <string.h>

#include "rfk-led-controller.h"
#include "test-util.h"

typedef struct {
  Fixture f;
  FakeProcess *fp;
  RfkManager *manager;
} LedFixture;

static void
led_setup (LedFixture *lf, gconstpointer data)
{
  const char *const stock[] = { "--stock", NULL };

  fixture_setup (&lf->f, NULL);
  lf->fp = fake_process_start (&lf->f, "wlan,wlan,bluetooth",
                               data != NULL ? stock : NULL);
  lf->manager = fixture_start_manager (&lf->f);
}

static void
led_teardown (LedFixture *lf, gconstpointer data)
{
  g_clear_object (&lf->manager);
  fake_process_stop (lf->fp);
  fixture_teardown (&lf->f, NULL);
}

/* Polls the fake until its indicator reads expected ("lit owned"). */
static gboolean
indicator_is (LedFixture *lf, const char *expected)
{
  for (guint i = 0; i < 200; i++)
    {
      g_autofree char *now = fake_process_command (lf->fp, "indicator");

      if (g_str_equal (now, expected))
        return TRUE;
      test_settle (10);
    }
  return FALSE;
}

static gboolean
not_pending (gpointer data)
{
  return !rfk_led_controller_is_pending (data);
}

/* set_rule() and, over a socket, the kernel's answer that comes later:
 * TRUE once the rule is in force, FALSE with the controller's reason. */
static gboolean
choose (RfkLedController *led, RfkLedRule rule, GError **error)
{
  if (!rfk_led_controller_set_rule (led, rule, error))
    return FALSE;
  g_assert_true (test_wait_for (not_pending, led, 5000));
  if (rule != RFK_LED_RULE_KERNEL
      && rfk_led_controller_get_status (led) != RFK_AIRPLANE_LIGHT_OWNED)
    {
      g_assert_nonnull (rfk_led_controller_get_error (led));
      g_propagate_error (error,
                         g_error_copy (rfk_led_controller_get_error (led)));
      return FALSE;
    }
  return TRUE;
}

static void
soft (LedFixture *lf, guint idx, gboolean blocked)
{
  g_autofree char *command = g_strdup_printf ("soft %u %s", idx,
                                              blocked ? "on" : "off");
  g_free (fake_process_command (lf->fp, command));
  test_settle (30);
}

static void
test_rule_names (void)
{
  RfkLedRule rule;

  for (guint i = 0; i < RFK_LED_RULE_COUNT; i++)
    {
      g_assert_true (rfk_led_rule_from_string (rfk_led_rule_to_string (i),
                                               &rule));
      g_assert_cmpint (rule, ==, i);
    }
  g_assert_cmpstr (rfk_led_rule_to_string (RFK_LED_RULE_WLAN_BLOCKED), ==,
                   "wlan-blocked");
  g_assert_false (rfk_led_rule_from_string ("disco", &rule));
  g_assert_null (rfk_led_rule_to_string (RFK_LED_RULE_COUNT));
}

static gboolean
idx0_is_switch (const RfkDevice *device, gpointer user_data)
{
  return device->idx == 0;
}

static void
test_rules_evaluate_the_model (LedFixture *lf, gconstpointer data)
{
  RfkManager *m = lf->manager;

  g_assert_false (rfk_led_rule_evaluate (RFK_LED_RULE_KERNEL, m, NULL, NULL));
  g_assert_false (rfk_led_rule_evaluate (RFK_LED_RULE_WLAN_BLOCKED, m, NULL, NULL));

  /* Both Wi-Fi cards off, Bluetooth on. */
  soft (lf, 0, TRUE);
  soft (lf, 1, TRUE);
  g_assert_true (rfk_led_rule_evaluate (RFK_LED_RULE_WLAN_BLOCKED, m, NULL, NULL));
  g_assert_false (rfk_led_rule_evaluate (RFK_LED_RULE_KERNEL, m, NULL, NULL));
  g_assert_false (rfk_led_rule_evaluate (RFK_LED_RULE_AIRPLANE_MODE, m, NULL, NULL));
  g_assert_false (rfk_led_rule_evaluate (RFK_LED_RULE_HARDWARE_SWITCH, m, NULL, NULL));

  /* A switch holds Bluetooth, but Wi-Fi is off by software only: the
   * tray shows no hardware switch, and neither does this rule (a card
   * the BIOS keeps off would otherwise light it for good). */
  g_free (fake_process_command (lf->fp, "hard 2 on signal"));
  test_settle (30);
  g_assert_false (rfk_led_rule_evaluate (RFK_LED_RULE_HARDWARE_SWITCH, m, NULL, NULL));
  g_assert_true (rfk_led_rule_evaluate (RFK_LED_RULE_KERNEL, m, NULL, NULL));
  g_assert_true (rfk_led_rule_evaluate (RFK_LED_RULE_AIRPLANE_MODE, m, NULL, NULL));
  g_assert_false (rfk_led_rule_evaluate (RFK_LED_RULE_NEVER, m, NULL, NULL));

  g_free (fake_process_command (lf->fp, "hard 0 on signal"));
  g_free (fake_process_command (lf->fp, "hard 1 on signal"));
  test_settle (30);
  g_assert_true (rfk_led_rule_evaluate (RFK_LED_RULE_HARDWARE_SWITCH, m, NULL, NULL));

  /* Radio 0 as a laptop's Wi-Fi switch that reports no block while the
   * card (radio 1) is held: the card decides, as for the tray icon. */
  g_free (fake_process_command (lf->fp, "hard 0 off"));
  test_settle (30);
  g_assert_false (rfk_led_rule_evaluate (RFK_LED_RULE_HARDWARE_SWITCH, m, NULL, NULL));
  g_assert_true (rfk_led_rule_evaluate (RFK_LED_RULE_HARDWARE_SWITCH, m,
                                        idx0_is_switch, NULL));
}

static void
test_patched_kernel_lights_led_for_airplane_mode (LedFixture *lf,
                                                  gconstpointer data)
{
  g_autoptr (RfkLedController) led = rfk_led_controller_new (lf->manager);
  g_autoptr (GError) error = NULL;
  g_autofree char *writes_before = NULL, *writes_after = NULL;

  g_assert_cmpint (rfk_led_controller_get_status (led), ==,
                   RFK_AIRPLANE_LIGHT_UNKNOWN);
  g_assert_true (choose (led,
                                              RFK_LED_RULE_AIRPLANE_MODE,
                                              &error));
  g_assert_no_error (error);
  g_assert_cmpint (rfk_led_controller_get_status (led), ==,
                   RFK_AIRPLANE_LIGHT_OWNED);
  g_assert_cmpint (rfk_led_controller_get_rule (led), ==,
                   RFK_LED_RULE_AIRPLANE_MODE);
  g_assert_true (indicator_is (lf, "dark owned"));

  g_assert_true (test_set_airplane (lf->manager, TRUE, &error));
  g_assert_true (indicator_is (lf, "lit owned"));
  /* The manager hears our LED through the kernel's op 5 events. */
  test_settle (30);
  g_assert_true (rfk_manager_get_airplane_light (lf->manager));

  /* Radio changes that do not change the rule's value write nothing. */
  writes_before = fake_process_command (lf->fp, "writes");
  g_free (fake_process_command (lf->fp, "switch on"));
  g_free (fake_process_command (lf->fp, "switch off"));
  test_settle (50);
  writes_after = fake_process_command (lf->fp, "writes");
  g_assert_cmpstr (writes_before, ==, writes_after);

  g_assert_true (test_set_airplane (lf->manager, FALSE, &error));
  g_assert_true (indicator_is (lf, "dark owned"));
}

static void
test_never_keeps_it_dark (LedFixture *lf, gconstpointer data)
{
  g_autoptr (RfkLedController) led = rfk_led_controller_new (lf->manager);
  g_autoptr (GError) error = NULL;

  g_free (fake_process_command (lf->fp, "switch on"));
  g_assert_true (indicator_is (lf, "lit kernel"));  /* default rule */
  g_assert_true (choose (led, RFK_LED_RULE_NEVER,
                                              &error));
  g_assert_true (indicator_is (lf, "dark owned"));

  /* Back to the kernel: closing our fd restores its default rule. */
  g_assert_true (choose (led, RFK_LED_RULE_KERNEL,
                                              &error));
  g_assert_cmpint (rfk_led_controller_get_status (led), ==,
                   RFK_AIRPLANE_LIGHT_UNKNOWN);
  g_assert_true (indicator_is (lf, "lit kernel"));
}

static void
test_second_owner_is_busy (LedFixture *lf, gconstpointer data)
{
  g_autoptr (RfkLedController) first = rfk_led_controller_new (lf->manager);
  g_autoptr (RfkLedController) second = NULL;
  g_autoptr (GError) error = NULL;

  g_assert_true (choose (first,
                                              RFK_LED_RULE_WLAN_BLOCKED,
                                              &error));
  /* Another applet (here: another controller) wants the LED too. */
  second = rfk_led_controller_new (lf->manager);
  g_assert_false (choose (second, RFK_LED_RULE_NEVER,
                                               &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_BUSY);
  g_assert_nonnull (strstr (error->message, lf->f.socket_path));
  g_assert_cmpint (rfk_led_controller_get_status (second), ==,
                   RFK_AIRPLANE_LIGHT_BUSY);
  g_assert_cmpint (rfk_led_controller_get_rule (second), ==,
                   RFK_LED_RULE_KERNEL);
  g_assert_nonnull (rfk_led_controller_get_error (second));
  g_clear_error (&error);

  /* The first one still drives it. */
  soft (lf, 0, TRUE);
  soft (lf, 1, TRUE);
  g_assert_true (indicator_is (lf, "lit owned"));

  /* Once the first lets go, the kernel's rule is back (Bluetooth is on:
   * dark), and the second may take over. */
  g_clear_object (&first);
  g_assert_true (indicator_is (lf, "dark kernel"));
  g_assert_true (choose (second, RFK_LED_RULE_NEVER,
                                              &error));
  g_assert_no_error (error);
  g_assert_true (indicator_is (lf, "dark owned"));
}

static gboolean
is_owned (gpointer data)
{
  return rfk_led_controller_get_status (data) == RFK_AIRPLANE_LIGHT_OWNED;
}

static gboolean
is_not_owned (gpointer data)
{
  return rfk_led_controller_get_status (data) != RFK_AIRPLANE_LIGHT_OWNED;
}

static void
test_rule_survives_the_device_going_away (LedFixture *lf, gconstpointer d)
{
  g_autoptr (RfkLedController) led = rfk_led_controller_new (lf->manager);
  g_autoptr (GError) error = NULL;

  g_assert_true (choose (led, RFK_LED_RULE_NEVER,
                                              &error));
  /* The relay (or module) goes away and comes back with every radio
   * off, so the kernel's own rule would light the LED. */
  fake_process_stop (lf->fp);
  lf->fp = NULL;
  g_assert_true (test_wait_for (is_not_owned, led, 3000));
  g_assert_nonnull (rfk_led_controller_get_error (led));
  lf->fp = fake_process_start (&lf->f, "wlan", NULL);
  g_free (fake_process_command (lf->fp, "switch on"));

  /* The user's rule is taken up again once the manager is back. */
  g_assert_true (test_wait_for (is_owned, led, 5000));
  g_assert_cmpint (rfk_led_controller_get_rule (led), ==,
                   RFK_LED_RULE_NEVER);
  g_assert_true (indicator_is (lf, "dark owned"));
}

static void
test_stock_kernel_is_unsupported (LedFixture *lf, gconstpointer data)
{
  g_autoptr (RfkLedController) led = rfk_led_controller_new (lf->manager);
  g_autoptr (GError) error = NULL;

  g_assert_false (choose (led,
                                               RFK_LED_RULE_AIRPLANE_MODE,
                                               &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED);
  g_assert_nonnull (strstr (error->message, "rfkill-airplane"));
  g_assert_cmpint (rfk_led_controller_get_status (led), ==,
                   RFK_AIRPLANE_LIGHT_UNSUPPORTED);
  /* The previous rule stays in force. */
  g_assert_cmpint (rfk_led_controller_get_rule (led), ==,
                   RFK_LED_RULE_KERNEL);
  /* Stock kernels send no indicator events either. */
  g_assert_true (indicator_is (lf, "dark kernel"));
}

/* Taking the light never blocks the main loop: the fake kernel here runs
 * on the same main context, so it can only answer ACQUIRE if set_rule()
 * returns first (a poll() for the answer would wait for nothing). */
static void
test_taking_the_light_never_blocks (Fixture *f, gconstpointer data)
{
  g_autoptr (RfkLedController) led = NULL;
  g_autoptr (GError) error = NULL;
  gboolean owned;

  fake_rfkill_add (f->fake, RFK_TYPE_WLAN, NULL);
  fixture_listen (f);
  f->manager = fixture_start_manager (f);
  led = rfk_led_controller_new (f->manager);

  g_assert_true (rfk_led_controller_set_rule (led, RFK_LED_RULE_NEVER,
                                              &error));
  g_assert_no_error (error);
  g_assert_true (rfk_led_controller_is_pending (led));
  g_assert_true (test_wait_for (not_pending, led, 3000));
  g_assert_cmpint (rfk_led_controller_get_status (led), ==,
                   RFK_AIRPLANE_LIGHT_OWNED);
  g_assert_cmpint (rfk_led_controller_get_rule (led), ==, RFK_LED_RULE_NEVER);
  fake_rfkill_get_indicator (f->fake, &owned);
  g_assert_true (owned);
}

/* A main loop busy for longer than the peer's time limit (the applet
 * builds its menu right after asking; valgrind or a loaded machine makes
 * that take seconds) must not turn answers already waiting on the socket
 * into a timeout. */
static void
test_busy_main_loop_is_no_timeout (LedFixture *lf, gconstpointer data)
{
  g_autoptr (RfkLedController) led = rfk_led_controller_new (lf->manager);
  g_autoptr (GError) error = NULL;

  g_assert_true (rfk_led_controller_set_rule (led, RFK_LED_RULE_NEVER,
                                              &error));
  g_assert_no_error (error);
  g_usleep ((RFK_LED_STATUS_TIMEOUT_MS + 500) * G_TIME_SPAN_MILLISECOND);
  g_assert_true (test_wait_for (not_pending, led, 5000));
  g_assert_no_error (rfk_led_controller_get_error (led));
  g_assert_cmpint (rfk_led_controller_get_status (led), ==,
                   RFK_AIRPLANE_LIGHT_OWNED);
  g_assert_true (indicator_is (lf, "dark owned"));
}

/* A peer that never answers is still given up on. */
static void
test_silent_peer_times_out (Fixture *f, gconstpointer data)
{
  g_autoptr (RfkLedController) led = NULL;
  g_autoptr (GError) error = NULL;

  fake_rfkill_add (f->fake, RFK_TYPE_WLAN, NULL);
  fixture_listen (f);
  f->manager = fixture_start_manager (f);
  led = rfk_led_controller_new (f->manager);
  /* Like a hung relay: the list ends, ACQUIRE is never answered. */
  fake_rfkill_set_responsive (f->fake, FALSE);
  g_assert_true (rfk_led_controller_set_rule (led, RFK_LED_RULE_NEVER,
                                              &error));
  g_assert_no_error (error);
  g_assert_true (test_wait_for (not_pending, led,
                                RFK_LED_STATUS_TIMEOUT_MS + 3000));
  g_assert_error (rfk_led_controller_get_error (led), G_IO_ERROR,
                  G_IO_ERROR_TIMED_OUT);
  g_assert_cmpint (rfk_led_controller_get_rule (led), ==, RFK_LED_RULE_KERNEL);
}

/* Fast user switching: a fake logind on a private bus (GTestDBus), with
 * the parts of org.freedesktop.login1 the applet uses: Manager.GetSession
 * resolving "auto" to the caller's session, and that session's "Active"
 * property with its PropertiesChanged signal.  The other user's applet
 * is a second controller on the same fake kernel: the kernel's ownership
 * of the indicator is per open file, whoever opened it. */
#define LOGIND_NAME "org.freedesktop.login1"
#define SESSION_PATH "/org/freedesktop/login1/session/_32"

static const char logind_xml[] =
  "<node>"
  " <interface name='org.freedesktop.login1.Manager'>"
  "  <method name='GetSession'>"
  "   <arg name='session_id' type='s' direction='in'/>"
  "   <arg name='object_path' type='o' direction='out'/>"
  "  </method>"
  " </interface>"
  " <interface name='org.freedesktop.login1.Session'>"
  "  <property name='Active' type='b' access='read'/>"
  " </interface>"
  "</node>";

typedef struct {
  LedFixture lf;
  GTestDBus *dbus;
  GDBusConnection *bus;
  GDBusNodeInfo *info;
  guint manager_id, session_id, name_id;
  gboolean active;
  gboolean by_invalidation;  /* signal "Active" as invalidated, no value */
  RfkLoginSession *session;
} SessionFixture;

static void
logind_method (GDBusConnection *bus, const char *sender, const char *path,
               const char *iface, const char *method, GVariant *params,
               GDBusMethodInvocation *invocation, gpointer user_data)
{
  const char *id;

  g_variant_get (params, "(&s)", &id);
  if (g_str_equal (id, "auto"))
    g_dbus_method_invocation_return_value (invocation,
                                           g_variant_new ("(o)", SESSION_PATH));
  else
    g_dbus_method_invocation_return_dbus_error (
      invocation, "org.freedesktop.login1.NoSuchSession", "No such session");
}

static GVariant *
logind_get_property (GDBusConnection *bus, const char *sender,
                     const char *path, const char *iface, const char *name,
                     GError **error, gpointer user_data)
{
  SessionFixture *sf = user_data;

  return g_variant_new_boolean (sf->active);
}

static const GDBusInterfaceVTable manager_vtable = { logind_method, NULL, NULL };
static const GDBusInterfaceVTable session_vtable = { NULL, logind_get_property,
                                                     NULL };

/* logind switching the seat to (active) or away from (!active) us. */
static void
logind_set_active (SessionFixture *sf, gboolean active)
{
  g_autoptr (GVariantBuilder) changed =
    g_variant_builder_new (G_VARIANT_TYPE ("a{sv}"));
  const char *const invalidated[] = { "Active", NULL };

  sf->active = active;
  if (!sf->by_invalidation)
    g_variant_builder_add (changed, "{sv}", "Active",
                           g_variant_new_boolean (active));
  g_dbus_connection_emit_signal (
    sf->bus, NULL, SESSION_PATH, "org.freedesktop.DBus.Properties",
    "PropertiesChanged",
    g_variant_new ("(sa{sv}^as)", "org.freedesktop.login1.Session", changed,
                   sf->by_invalidation ? invalidated : invalidated + 1),
    NULL);
}

static gboolean
session_ready (gpointer data)
{
  return rfk_login_session_is_ready (data);
}

static void
session_setup (SessionFixture *sf, gconstpointer data)
{
  led_setup (&sf->lf, NULL);
  sf->dbus = g_test_dbus_new (G_TEST_DBUS_NONE);
  g_test_dbus_up (sf->dbus);
  sf->bus = g_bus_get_sync (G_BUS_TYPE_SESSION, NULL, NULL);
  g_assert_nonnull (sf->bus);
  sf->active = TRUE;
  if (data == NULL)  /* data: "no logind", nobody owns the name */
    {
      sf->info = g_dbus_node_info_new_for_xml (logind_xml, NULL);
      sf->manager_id = g_dbus_connection_register_object (
        sf->bus, "/org/freedesktop/login1", sf->info->interfaces[0],
        &manager_vtable, sf, NULL, NULL);
      sf->session_id = g_dbus_connection_register_object (
        sf->bus, SESSION_PATH, sf->info->interfaces[1], &session_vtable, sf,
        NULL, NULL);
      sf->name_id = g_bus_own_name_on_connection (
        sf->bus, LOGIND_NAME, G_BUS_NAME_OWNER_FLAGS_NONE, NULL, NULL, NULL,
        NULL);
      test_settle (50);
    }
  sf->session = rfk_login_session_new (sf->bus);
  g_assert_true (test_wait_for (session_ready, sf->session, 5000));
}

static void
session_teardown (SessionFixture *sf, gconstpointer data)
{
  g_clear_object (&sf->session);
  if (sf->name_id != 0)
    g_bus_unown_name (sf->name_id);
  if (sf->session_id != 0)
    g_dbus_connection_unregister_object (sf->bus, sf->session_id);
  if (sf->manager_id != 0)
    g_dbus_connection_unregister_object (sf->bus, sf->manager_id);
  g_clear_pointer (&sf->info, g_dbus_node_info_unref);
  g_clear_object (&sf->bus);
  g_test_dbus_down (sf->dbus);
  g_clear_object (&sf->dbus);
  led_teardown (&sf->lf, NULL);
}

static gboolean
in_background (gpointer data)
{
  return rfk_led_controller_is_in_background (data);
}

static gboolean
in_front (gpointer data)
{
  return !rfk_led_controller_is_in_background (data);
}

/* Our applet, following the fake session, with rule in force. */
static RfkLedController *
applet_in_session (SessionFixture *sf, RfkLedRule rule)
{
  RfkLedController *led = rfk_led_controller_new (sf->lf.manager);
  g_autoptr (GError) error = NULL;

  rfk_led_controller_set_login_session (led, sf->session);
  g_assert_cmpstr (rfk_login_session_get_object_path (sf->session), ==,
                   sf->name_id != 0 ? SESSION_PATH : NULL);
  g_assert_true (choose (led, rule, &error));
  g_assert_no_error (error);
  return led;
}

/* The other user's session comes to the front: ours goes to the
 * background. */
static void
switch_away (SessionFixture *sf, RfkLedController *ours)
{
  logind_set_active (sf, FALSE);
  g_assert_true (test_wait_for (in_background, ours, 3000));
}

/* The other user's applet: a second controller on the same fake kernel,
 * with rule in force. */
static RfkLedController *
their_applet (SessionFixture *sf, RfkLedRule rule)
{
  RfkLedController *led = rfk_led_controller_new (sf->lf.manager);
  g_autoptr (GError) error = NULL;

  g_assert_true (choose (led, rule, &error));
  g_assert_no_error (error);
  return led;
}

static void
test_switching_away_hands_the_led_over (SessionFixture *sf,
                                        gconstpointer data)
{
  g_autoptr (RfkLedController) ours = applet_in_session (sf,
                                                         RFK_LED_RULE_NEVER);
  g_autoptr (RfkLedController) theirs = NULL;

  g_assert_true (indicator_is (&sf->lf, "dark owned"));

  /* The other user comes to the front: we let go, and the kernel's own
   * rule is back until their applet takes the LED. */
  switch_away (sf, ours);
  g_assert_true (indicator_is (&sf->lf, "dark kernel"));
  g_assert_cmpint (rfk_led_controller_get_status (ours), ==,
                   RFK_AIRPLANE_LIGHT_UNKNOWN);
  g_assert_null (rfk_led_controller_get_error (ours));
  g_assert_cmpint (rfk_led_controller_get_rule (ours), ==, RFK_LED_RULE_NEVER);

  /* Their applet gets it (before: EACCES, our fd still held it). */
  theirs = their_applet (sf, RFK_LED_RULE_WLAN_BLOCKED);
  soft (&sf->lf, 0, TRUE);
  soft (&sf->lf, 1, TRUE);
  g_assert_true (indicator_is (&sf->lf, "lit owned"));

  /* Back to us: they let go when they hear of it, we take it again with
   * our rule. */
  g_clear_object (&theirs);
  logind_set_active (sf, TRUE);
  g_assert_true (test_wait_for (is_owned, ours, 3000));
  g_assert_false (rfk_led_controller_is_in_background (ours));
  g_assert_cmpint (rfk_led_controller_get_rule (ours), ==, RFK_LED_RULE_NEVER);
  g_assert_true (indicator_is (&sf->lf, "dark owned"));
}

/* Both applets hear of the switch at once; ours may ask before theirs has
 * let go, and gets EACCES: it keeps asking for a while. */
static void
test_coming_back_waits_for_the_other_applet (SessionFixture *sf,
                                             gconstpointer data)
{
  g_autoptr (RfkLedController) ours = applet_in_session (sf,
                                                         RFK_LED_RULE_NEVER);
  g_autoptr (RfkLedController) theirs = NULL;

  sf->by_invalidation = TRUE;  /* logind may also just invalidate it */
  switch_away (sf, ours);
  theirs = their_applet (sf, RFK_LED_RULE_WLAN_BLOCKED);

  logind_set_active (sf, TRUE);
  g_assert_true (test_wait_for (in_front, ours, 3000));
  test_settle (500);
  g_assert_cmpint (rfk_led_controller_get_status (theirs), ==,
                   RFK_AIRPLANE_LIGHT_OWNED);
  g_assert_cmpint (rfk_led_controller_get_status (ours), !=,
                   RFK_AIRPLANE_LIGHT_OWNED);

  g_clear_object (&theirs);
  g_assert_true (test_wait_for (is_owned, ours, RFK_LED_TAKE_BACK_MS));
  g_assert_true (indicator_is (&sf->lf, "dark owned"));
}

static void
test_rule_chosen_in_the_background_waits (SessionFixture *sf,
                                          gconstpointer data)
{
  g_autoptr (RfkLedController) ours = applet_in_session (sf,
                                                         RFK_LED_RULE_NEVER);
  g_autoptr (GError) error = NULL;

  switch_away (sf, ours);
  /* Not taken now: the LED belongs to the session in front. */
  g_assert_true (rfk_led_controller_set_rule (ours, RFK_LED_RULE_AIRPLANE_MODE,
                                              &error));
  g_assert_no_error (error);
  g_assert_false (rfk_led_controller_is_pending (ours));
  g_assert_true (test_set_airplane (sf->lf.manager, TRUE, &error));
  test_settle (100);
  g_assert_true (indicator_is (&sf->lf, "lit kernel"));

  logind_set_active (sf, TRUE);
  g_assert_true (test_wait_for (is_owned, ours, 3000));
  g_assert_cmpint (rfk_led_controller_get_rule (ours), ==,
                   RFK_LED_RULE_AIRPLANE_MODE);
  g_assert_true (indicator_is (&sf->lf, "lit owned"));
}

/* Back in front, but the device does not even open for us (logind has
 * not given this session /dev/rfkill again): once the time to take the
 * light back is up, the controller says why the rule is not in force,
 * rather than showing it chosen with the kernel's rule lighting the LED. */
static void
test_take_back_that_cannot_open_says_why (SessionFixture *sf,
                                          gconstpointer data)
{
  g_autoptr (RfkLedController) ours = applet_in_session (sf,
                                                         RFK_LED_RULE_NEVER);
  g_autofree char *away = g_strconcat (sf->lf.f.socket_path, ".away", NULL);
  const GError *error;

  switch_away (sf, ours);
  g_assert_no_errno (g_rename (sf->lf.f.socket_path, away));
  logind_set_active (sf, TRUE);
  g_assert_true (test_wait_for (in_front, ours, 3000));
  test_settle (RFK_LED_TAKE_BACK_MS + 500);
  g_assert_no_errno (g_rename (away, sf->lf.f.socket_path));

  g_assert_cmpint (rfk_led_controller_get_status (ours), !=,
                   RFK_AIRPLANE_LIGHT_OWNED);
  g_assert_true (indicator_is (&sf->lf, "dark kernel"));
  error = rfk_led_controller_get_error (ours);
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, sf->lf.f.socket_path));
  g_assert_cmpint (rfk_led_controller_get_rule (ours), ==, RFK_LED_RULE_NEVER);
}

/* No logind (or no session): nothing ever takes the LED away. */
static void
test_without_logind_the_led_stays (SessionFixture *sf, gconstpointer data)
{
  g_autoptr (RfkLedController) ours = applet_in_session (sf, RFK_LED_RULE_NEVER);

  g_assert_true (rfk_login_session_get_active (sf->session));
  g_assert_false (rfk_led_controller_is_in_background (ours));
  g_assert_cmpint (rfk_led_controller_get_status (ours), ==,
                   RFK_AIRPLANE_LIGHT_OWNED);
  g_assert_true (indicator_is (&sf->lf, "dark owned"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/led/rule-names", test_rule_names);
#define ADD(path, func, stock) \
  g_test_add ("/led/" path, LedFixture, stock, led_setup, func, led_teardown)
  ADD ("rules-evaluate-the-model", test_rules_evaluate_the_model, NULL);
  ADD ("patched-kernel-lights-led-for-airplane-mode",
       test_patched_kernel_lights_led_for_airplane_mode, NULL);
  ADD ("never-keeps-it-dark", test_never_keeps_it_dark, NULL);
  ADD ("second-owner-is-busy", test_second_owner_is_busy, NULL);
  ADD ("rule-survives-the-device-going-away",
       test_rule_survives_the_device_going_away, NULL);
  ADD ("stock-kernel-is-unsupported", test_stock_kernel_is_unsupported,
       "stock");
  ADD ("busy-main-loop-is-no-timeout", test_busy_main_loop_is_no_timeout,
       NULL);
#undef ADD
  g_test_add ("/led/taking-the-light-never-blocks", Fixture, NULL,
              fixture_setup, test_taking_the_light_never_blocks,
              fixture_teardown);
  g_test_add ("/led/silent-peer-times-out", Fixture, NULL,
              fixture_setup, test_silent_peer_times_out, fixture_teardown);
#define ADD(path, func, no_logind) \
  g_test_add ("/led/session/" path, SessionFixture, no_logind, \
              session_setup, func, session_teardown)
  ADD ("switching-away-hands-the-led-over",
       test_switching_away_hands_the_led_over, NULL);
  ADD ("coming-back-waits-for-the-other-applet",
       test_coming_back_waits_for_the_other_applet, NULL);
  ADD ("rule-chosen-in-the-background-waits",
       test_rule_chosen_in_the_background_waits, NULL);
  ADD ("take-back-that-cannot-open-says-why",
       test_take_back_that_cannot_open_says_why, NULL);
  ADD ("without-logind-the-led-stays", test_without_logind_the_led_stays,
       "no logind");
#undef ADD
  return g_test_run ();
}

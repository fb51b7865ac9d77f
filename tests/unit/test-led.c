/*
 * test-led.c: the airplane-mode LED rules and the indicator ownership,
 * against the fake-rfkill program (its own process, like the kernel, so
 * the controller's synchronous ACQUIRE gets its answer).
 */
#include <gio/gio.h>
#include <string.h>

#include "rfk-led-rule.h"
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
  return g_test_run ();
}

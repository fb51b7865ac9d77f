/*
 * test-resume.c: the resume guard on the fake kernel, where the property
 * test (test-rules.c) cannot look: the signals the user is told by, the
 * window's clock, airplane mode not blinking, and hard blocks.
 */
#include <gio/gio.h>
#include <string.h>

#include "rfk-device.h"
#include "rfk-manager-testing.h"
#include "test-util.h"

#define BT RFK_TYPE_BLUETOOTH
#define WLAN RFK_TYPE_WLAN

/* Wi-Fi on, Bluetooth the user switched off. */
static void
setup (Fixture *f, guint window_ms)
{
  RfkManagerTiming timing = {
    .sweep_ms = 500, .ended_settle_ms = 500, .flap_quiet_ms = 20,
    .confirm_ms = 5000, .resume_ms = window_ms,
  };

  fake_rfkill_add_device (f->fake, WLAN, "phy0", "pci",
                          "pci0000:00/0000:00:14.3");
  fake_rfkill_add_device (f->fake, BT, "hci0", "usb",
                          "pci0000:00/0000:00:14.0/usb1/1-10/1-10:1.0");
  fake_rfkill_set_soft (f->fake, 1, TRUE);
  fixture_listen (f);
  f->manager = fixture_start_manager (f);
  rfk_manager_set_timing (f->manager, &timing);
  g_assert_cmpstr (fixture_soft_states (f), ==, "phy0=on hci0=off");
  g_free (test_take_log (f));
}

/* The guard switched nothing off, and said nothing. */
static void
assert_not_kept_off (Fixture *f)
{
  g_autofree char *log = test_take_log (f);

  g_assert_null (strstr (log, "kept off"));
}

static void
suspend_and_resume (Fixture *f)
{
  rfk_manager_prepare_for_sleep (f->manager, TRUE);
  rfk_manager_prepare_for_sleep (f->manager, FALSE);
}

/* BlueZ powers the adapter at resume: off again, said once; a second
 * time, off again silently; a third time, left on and said so. */
static void
test_kept_off_then_gives_up (Fixture *f, gconstpointer data)
{
  g_autofree char *log = NULL;

  setup (f, 0);
  suspend_and_resume (f);
  for (guint i = 0; i < 3; i++)
    {
      fake_rfkill_set_soft (f->fake, 1, FALSE);
      test_settle (100);
    }
  log = test_take_log (f);
  g_assert_nonnull (strstr (log, "kept off hci0"));
  g_assert_null (strstr (strstr (log, "kept off hci0") + 1, "kept off"));
  g_assert_nonnull (strstr (log, "left on hci0"));
  g_assert_cmpstr (fixture_soft_states (f), ==, "phy0=on hci0=on");
}

/* In airplane mode, a driver turning one radio on at resume is undone
 * without airplane mode ever going off: no "off" for the tray, the
 * D-Bus property or the light, and the list stays for "off". */
static void
test_airplane_mode_does_not_blink (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *log = NULL;

  setup (f, 0);
  g_assert_true (test_set_airplane (f->manager, TRUE, &error));
  g_free (test_take_log (f));
  suspend_and_resume (f);
  fake_rfkill_set_soft (f->fake, 1, FALSE);
  test_settle (200);
  log = test_take_log (f);
  g_assert_nonnull (strstr (log, "kept off hci0"));
  g_assert_null (strstr (log, "airplane off"));
  g_assert_true (rfk_manager_get_airplane_mode (f->manager));
  g_assert_true (test_store_is_active ());
  g_assert_cmpstr (fixture_soft_states (f), ==, "phy0=off hci0=off");
  g_assert_true (test_set_airplane (f->manager, FALSE, &error));
  g_assert_cmpstr (fixture_soft_states (f), ==, "phy0=on hci0=off");
}

/* The window is over: what turns radios on then is not resume's. */
static void
test_window_ends (Fixture *f, gconstpointer data)
{
  setup (f, 50);
  suspend_and_resume (f);
  test_settle (150);
  fake_rfkill_set_soft (f->fake, 1, FALSE);
  test_settle (100);
  g_assert_cmpstr (fixture_soft_states (f), ==, "phy0=on hci0=on");
  assert_not_kept_off (f);
}

/* A hardware switch is never fought: its flips are followed, and only
 * the soft state the user had is restored. */
static void
test_hard_blocks_are_left_alone (Fixture *f, gconstpointer data)
{
  setup (f, 0);
  suspend_and_resume (f);
  fake_rfkill_set_hard (f->fake, 0, TRUE, RFK_HARD_REASON_SIGNAL);
  test_settle (100);
  fake_rfkill_set_hard (f->fake, 0, FALSE, 0);
  test_settle (100);
  g_assert_cmpstr (fixture_soft_states (f), ==, "phy0=on hci0=off");
  assert_not_kept_off (f);
}

/* Without the setting, or without a sleep, nothing is kept off. */
static void
test_setting_off (Fixture *f, gconstpointer data)
{
  setup (f, 0);
  rfk_manager_set_keep_radio_states (f->manager, FALSE);
  suspend_and_resume (f);
  fake_rfkill_set_soft (f->fake, 1, FALSE);
  test_settle (100);
  g_assert_cmpstr (fixture_soft_states (f), ==, "phy0=on hci0=on");
  assert_not_kept_off (f);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
#define ADD(path, func) \
  g_test_add ("/resume/" path, Fixture, NULL, fixture_setup, func, \
              fixture_teardown)
  ADD ("kept-off-then-gives-up", test_kept_off_then_gives_up);
  ADD ("airplane-mode-does-not-blink", test_airplane_mode_does_not_blink);
  ADD ("window-ends", test_window_ends);
  ADD ("hard-blocks-are-left-alone", test_hard_blocks_are_left_alone);
  ADD ("setting-off", test_setting_off);
  return g_test_run ();
}

/*
 * test-ui-units.c: the applet's pure parts, without a display: radio
 * labels, the airplane-types setting, icon choice and the autostart
 * override file.  Part of the unit suite, so it also runs under ASan.
 */
#include "config.h"

#include <glib/gstdio.h>
#include <string.h>

#include "rfk-autostart.h"
#include "rfk-indicator.h"
#include "rfk-radio-label.h"
#include "rfk-preferences.h"
#include "rfk-settings.h"

static void
test_radio_labels (void)
{
  RfkDevice wifi = { .idx = 0, .type = RFK_TYPE_WLAN, .name = (char *) "phy0" };
  RfkDevice bt = { .idx = 1, .type = RFK_TYPE_BLUETOOTH, .hard = TRUE,
                   .hard_reasons = RFK_HARD_REASON_SIGNAL,
                   .name = (char *) "hci0" };
  RfkDevice v1 = { .idx = 2, .type = RFK_TYPE_WWAN, .hard = TRUE,
                   .name = (char *) "wwan0" };
  RfkDevice odd = { .idx = 3, .type = 200, .name = (char *) "x" };
  RfkDevice ideapad = { .idx = 4, .type = RFK_TYPE_WLAN, .hard = TRUE,
                        .hard_reasons = RFK_HARD_REASON_SIGNAL,
                        .name = (char *) "ideapad_wlan" };
  RfkRadioFacts ideapad_facts = { .type = RFK_TYPE_WLAN, .name = "ideapad_wlan",
                                  .parent_subsystem = "platform",
                                  .parent_driver = "ideapad_acpi" };
  g_autofree char *a = rfk_radio_menu_label (&wifi, NULL);
  g_autofree char *b = rfk_radio_menu_label (&bt, NULL);
  g_autofree char *c = rfk_radio_menu_label (&v1, NULL);
  g_autofree char *f = rfk_radio_menu_label (&ideapad, &ideapad_facts);
  g_autofree char *d = rfk_radio_label (&odd);
  g_autofree char *e = rfk_radio_label (&bt);

  g_assert_cmpstr (a, ==, "Wi-Fi (phy0)");
  g_assert_cmpstr (b, ==, "Bluetooth (hci0) — blocked: hardware switch");
  /* V1 kernels: hard without a reason. */
  g_assert_cmpstr (c, ==, "Mobile broadband (wwan0) — blocked");
  g_assert_cmpstr (d, ==, "Unknown radio (x)");
  /* With udev's facts: the name for people, then the reason. */
  g_assert_cmpstr (f, ==,
                   "Wi-Fi switch (laptop, ideapad_wlan) — blocked: hardware switch");
  /* Notifications name the radio without the reason. */
  g_assert_cmpstr (e, ==, "Bluetooth (hci0)");
}

static void
test_types_to_mask (void)
{
  const char *all[] = { "all", NULL };
  const char *wifi[] = { "wlan", NULL };
  const char *two[] = { "wifi", "bluetooth", NULL };
  const char *junk[] = { "no-such-type", NULL };
  const char *some_junk[] = { "junk", "wwan", NULL };
  const char *none[] = { NULL };

  g_assert_cmphex (rfk_preferences_types_to_mask (all), ==, G_MAXUINT32);
  g_assert_cmphex (rfk_preferences_types_to_mask (wifi), ==, 1u << RFK_TYPE_WLAN);
  g_assert_cmphex (rfk_preferences_types_to_mask (two), ==,
                   (1u << RFK_TYPE_WLAN) | (1u << RFK_TYPE_BLUETOOTH));
  g_assert_cmphex (rfk_preferences_types_to_mask (some_junk), ==, 1u << RFK_TYPE_WWAN);
  /* Nothing usable must not mean "airplane mode switches nothing". */
  g_assert_cmphex (rfk_preferences_types_to_mask (junk), ==, G_MAXUINT32);
  g_assert_cmphex (rfk_preferences_types_to_mask (none), ==, G_MAXUINT32);
  g_assert_cmphex (rfk_preferences_types_to_mask (NULL), ==, G_MAXUINT32);
}

static void
test_icon_names (void)
{
  /* Without a theme to ask, our own (installed) names; all distinct. */
  for (guint i = 0; i < RFK_ICON_COUNT; i++)
    {
      const char *name = rfk_indicator_icon_name (i, NULL);

      g_assert_true (g_str_has_prefix (name, APP_ID "-"));
      g_assert_true (g_str_has_suffix (name, "-symbolic"));
      for (guint j = 0; j < i; j++)
        g_assert_cmpstr (name, !=, rfk_indicator_icon_name (j, NULL));
    }
}

/* Passive (hidden by panels) while nothing can be switched; active when
 * radios may be there but cannot be read, so the menu can say why. */
static void
test_status (void)
{
  g_autofree char *dir = g_dir_make_tmp ("rfk-status-XXXXXX", NULL);
  g_autofree char *missing = g_build_filename (dir, "no-rfkill", NULL);
  g_autoptr(RfkManager) manager = rfk_manager_new (missing);

  g_assert_cmpint (rfk_indicator_status_for (manager), ==,
                   APP_INDICATOR_STATUS_PASSIVE);
  rfk_manager_start (manager);
  g_assert_cmpint (rfk_manager_get_state (manager), ==, RFK_MANAGER_STATE_NO_DEVICE);
  g_assert_cmpint (rfk_indicator_status_for (manager), ==,
                   APP_INDICATOR_STATUS_PASSIVE);
  /* The icon without radios, in case a panel shows passive items. */
  g_assert_cmpint (rfk_indicator_state_for (manager, NULL), ==, RFK_ICON_NO_SUPPORT);
  g_clear_object (&manager);
  g_rmdir (dir);
}

static void
test_autostart (void)
{
  g_autofree char *path = rfk_autostart_dup_override_path ();
  g_autoptr(GKeyFile) keyfile = g_key_file_new ();
  g_autoptr(GError) error = NULL;

  g_assert_true (g_str_has_prefix (path, g_get_user_config_dir ()));
  g_assert_true (g_str_has_suffix (path, "/autostart/" APP_ID ".desktop"));

  /* No override: the system entry starts us. */
  g_assert_true (rfk_autostart_get_enabled ());

  g_assert_true (rfk_autostart_set_enabled (FALSE, &error));
  g_assert_no_error (error);
  g_assert_false (rfk_autostart_get_enabled ());
  g_assert_true (g_key_file_load_from_file (keyfile, path, G_KEY_FILE_NONE, &error));
  g_assert_no_error (error);
  g_assert_true (g_key_file_get_boolean (keyfile, "Desktop Entry", "Hidden", NULL));

  /* Off twice is still off; on removes the file; on twice is fine. */
  g_assert_true (rfk_autostart_set_enabled (FALSE, &error));
  g_assert_true (rfk_autostart_set_enabled (TRUE, &error));
  g_assert_no_error (error);
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
  g_assert_true (rfk_autostart_get_enabled ());
  g_assert_true (rfk_autostart_set_enabled (TRUE, &error));
  g_assert_no_error (error);

  /* A user's own override that GNOME-disables us counts as off. */
  g_assert_true (g_file_set_contents (path,
                                      "[Desktop Entry]\nType=Application\n"
                                      "Name=x\nExec=x\n"
                                      "X-GNOME-Autostart-enabled=false\n",
                                      -1, NULL));
  g_assert_false (rfk_autostart_get_enabled ());
  g_unlink (path);
}

static void
test_autostart_error (void)
{
  g_autofree char *dir = g_build_filename (g_get_user_config_dir (), "autostart", NULL);
  g_autoptr(GError) error = NULL;

  /* autostart/ is a file: the error names the path, state is unchanged. */
  g_mkdir_with_parents (g_get_user_config_dir (), 0700);
  g_rmdir (dir);
  g_assert_true (g_file_set_contents (dir, "", 0, NULL));
  g_assert_false (rfk_autostart_set_enabled (FALSE, &error));
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, dir));
  g_assert_true (rfk_autostart_get_enabled ());
  g_unlink (dir);
}

int
main (int argc, char **argv)
{
  g_autofree char *home = g_dir_make_tmp ("rfk-ui-units-XXXXXX", NULL);
  g_autofree char *config = g_build_filename (home, "config", NULL);
  int status;

  /* Labels are compared in English. */
  g_setenv ("LANGUAGE", "C", TRUE);
  g_setenv ("XDG_CONFIG_HOME", config, TRUE);
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/ui/radio-labels", test_radio_labels);
  g_test_add_func ("/ui/airplane-types", test_types_to_mask);
  g_test_add_func ("/ui/icon-names", test_icon_names);
  g_test_add_func ("/ui/status", test_status);
  g_test_add_func ("/ui/autostart", test_autostart);
  g_test_add_func ("/ui/autostart-error", test_autostart_error);
  status = g_test_run ();

  g_rmdir (config);
  g_rmdir (home);
  return status;
}

/*
 * test-ui-units.c: the applet's pure parts, without a display: radio
 * labels, the airplane-types setting, icon choice, the D-Bus API's Radios
 * value and the autostart override file.  Part of the unit suite, so it also runs under ASan.
 */
#include "config.h"

#include <glib/gstdio.h>
#include <string.h>

#include "rfk-autostart.h"
#include "rfk-dbus-radios.h"
#include "rfk-icon-theme.h"
#include "rfk-tray-item.h"
#include "rfk-radio-label.h"
#include "rfk-preferences.h"
#include "rfk-settings.h"
#include "test-util.h"

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

/* One entry of Radios, by its keys as the interface XML documents them. */
static void
assert_radio_entry (GVariant *radios, gsize i, guint32 idx, const char *type,
                    const char *name, gboolean soft, gboolean hard,
                    const char *reasons)
{
  g_autoptr(GVariant) entry = g_variant_get_child_value (radios, i);
  g_autoptr(GVariant) why = g_variant_lookup_value (entry, "reasons",
                                                    G_VARIANT_TYPE ("as"));
  g_autofree const char **why_list = g_variant_get_strv (why, NULL);
  g_autofree char *why_text = g_strjoinv (",", (char **) why_list);
  guint32 u;
  const char *s;
  gboolean b;

  g_assert_true (g_variant_lookup (entry, "index", "u", &u));
  g_assert_cmpuint (u, ==, idx);
  g_assert_true (g_variant_lookup (entry, "type", "&s", &s));
  g_assert_cmpstr (s, ==, type);
  g_assert_true (g_variant_lookup (entry, "name", "&s", &s));
  g_assert_cmpstr (s, ==, name);
  g_assert_true (g_variant_lookup (entry, "soft", "b", &b));
  g_assert_cmpint (b, ==, soft);
  g_assert_true (g_variant_lookup (entry, "hard", "b", &b));
  g_assert_cmpint (b, ==, hard);
  g_assert_cmpstr (why_text, ==, reasons);
}

/* The same GVariant instance: the entry was kept, not built again.  Only
 * for arrays not yet serialised (g_variant_equal() serialises). */
static gboolean
same_entry (GVariant *a, gsize i, GVariant *b, gsize j)
{
  g_autoptr(GVariant) x = g_variant_get_child_value (a, i);
  g_autoptr(GVariant) y = g_variant_get_child_value (b, j);

  return x == y;
}

/* Radios follows every change, keeps unchanged radios' entries and
 * forgets radios that are gone, also when a new radio takes the index. */
static void
test_dbus_radios (void)
{
  RfkDevice wifi = { .idx = 0, .type = RFK_TYPE_WLAN, .name = (char *) "phy0" };
  RfkDevice bt = { .idx = 1, .type = RFK_TYPE_BLUETOOTH, .hard = TRUE,
                   .hard_reasons = RFK_HARD_REASON_SIGNAL,
                   .name = (char *) "hci0" };
  RfkDevice other = { .idx = 0, .type = RFK_TYPE_WLAN, .name = (char *) "phy7" };
  g_autoptr(RfkDBusRadios) radios = rfk_dbus_radios_new ();
  g_autoptr(GPtrArray) devices = g_ptr_array_new ();
  g_autoptr(GVariant) first = NULL, blocked = NULL, reused = NULL;
  g_autoptr(GVariant) without_bt = NULL, bt_back = NULL, none = NULL;

  g_ptr_array_add (devices, &wifi);
  g_ptr_array_add (devices, &bt);
  first = g_variant_ref_sink (rfk_dbus_radios_get (radios, devices));
  g_assert_cmpstr (g_variant_get_type_string (first), ==, "aa{sv}");
  g_assert_cmpuint (g_variant_n_children (first), ==, 2);
  assert_radio_entry (first, 0, 0, "wlan", "phy0", FALSE, FALSE, "");
  assert_radio_entry (first, 1, 1, "bluetooth", "hci0", FALSE, TRUE, "signal");

  wifi.soft = TRUE;
  blocked = g_variant_ref_sink (rfk_dbus_radios_get (radios, devices));
  assert_radio_entry (blocked, 0, 0, "wlan", "phy0", TRUE, FALSE, "");
  g_assert_false (same_entry (first, 0, blocked, 0));
  g_assert_true (same_entry (first, 1, blocked, 1));

  /* Another radio under a freed index is not the old one's entry. */
  devices->pdata[0] = &other;
  reused = g_variant_ref_sink (rfk_dbus_radios_get (radios, devices));
  assert_radio_entry (reused, 0, 0, "wlan", "phy7", FALSE, FALSE, "");

  g_ptr_array_remove_index (devices, 1);
  without_bt = g_variant_ref_sink (rfk_dbus_radios_get (radios, devices));
  g_assert_cmpuint (g_variant_n_children (without_bt), ==, 1);
  /* Gone means forgotten: back again, its entry is built anew. */
  g_ptr_array_add (devices, &bt);
  bt_back = g_variant_ref_sink (rfk_dbus_radios_get (radios, devices));
  assert_radio_entry (bt_back, 1, 1, "bluetooth", "hci0", FALSE, TRUE, "signal");
  g_assert_false (same_entry (reused, 1, bt_back, 1));

  g_ptr_array_set_size (devices, 0);
  none = g_variant_ref_sink (rfk_dbus_radios_get (radios, devices));
  g_assert_cmpuint (g_variant_n_children (none), ==, 0);
  g_assert_cmpstr (g_variant_get_type_string (none), ==, "aa{sv}");
  /* Last: comparing serialises, after which children are new instances. */
  g_assert_false (g_variant_equal (first, blocked));
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

/* Every name the applet publishes (tray item and notifications) is one
 * of ours, distinct per state, and installed: data/icons is what
 * `meson install` copies to $datadir/icons (data/meson.build).  The file
 * must show it is SVG early on, as gdk-pixbuf guesses the format from
 * its first bytes and gives up otherwise. */
static void
test_icon_names (void)
{
  const char *icons_dir = g_getenv ("RFK_ICONS_DIR");

  g_assert_nonnull (icons_dir);
  for (guint i = 0; i < RFK_ICON_COUNT; i++)
    {
      const char *name = rfk_icon_name (i);
      g_autofree char *relative = rfk_icon_relative_path (name);
      g_autofree char *path = g_build_filename (icons_dir, relative, NULL);
      g_autofree char *contents = NULL;
      g_autoptr(GError) error = NULL;

      g_assert_true (g_str_has_prefix (name, APP_ID "-"));
      /* Symbolic icons are drawn dark where a panel does not recolour. */
      g_assert_false (g_str_has_suffix (name, "-symbolic"));
      for (guint j = 0; j < i; j++)
        g_assert_cmpstr (name, !=, rfk_icon_name (j));
      g_test_message ("%s: %s", name, path);
      g_file_get_contents (path, &contents, NULL, &error);
      g_assert_no_error (error);
      contents[MIN (strlen (contents), 256)] = '\0';
      g_assert_nonnull (strstr (contents, "<svg"));
    }
}

/* IconThemePath: the data directory that has our icons (the build tree's
 * under `meson devenv`), else where they were installed. */
static void
test_icon_theme_dir (void)
{
  g_autofree char *root = g_dir_make_tmp ("rfk-icons-XXXXXX", NULL);
  g_autofree char *empty = g_build_filename (root, "empty", NULL);
  g_autofree char *ours = g_build_filename (root, "ours", NULL);
  g_autofree char *relative = rfk_icon_relative_path (rfk_icon_name (RFK_ICON_RADIOS_ON));
  g_autofree char *icon = g_build_filename (ours, "icons", relative, NULL);
  g_autofree char *icon_parent = g_path_get_dirname (icon);
  g_autofree char *expected = g_build_filename (ours, "icons", NULL);
  const char *const data_dirs[] = { empty, ours, NULL };
  const char *const none[] = { empty, NULL };
  g_autofree char *found = NULL, *fallback = NULL;

  g_assert_no_errno (g_mkdir_with_parents (icon_parent, 0755));
  g_assert_true (g_file_set_contents (icon, "<svg/>", -1, NULL));
  found = rfk_icon_theme_dir (data_dirs, "/installed/icons");
  g_assert_cmpstr (found, ==, expected);
  fallback = rfk_icon_theme_dir (none, "/installed/icons");
  g_assert_cmpstr (fallback, ==, "/installed/icons");

  test_rm_rf (root);
}

/* Passive (hidden by panels) while nothing can be switched; active when
 * radios may be there but cannot be read, so the menu can say why. */
static void
test_status (void)
{
  g_autofree char *dir = g_dir_make_tmp ("rfk-status-XXXXXX", NULL);
  g_autofree char *missing = g_build_filename (dir, "no-rfkill", NULL);
  g_autoptr(RfkManager) manager = rfk_manager_new (missing);

  g_assert_false (rfk_tray_item_active_for (manager));
  rfk_manager_start (manager);
  g_assert_cmpint (rfk_manager_get_state (manager), ==, RFK_MANAGER_STATE_NO_DEVICE);
  g_assert_false (rfk_tray_item_active_for (manager));
  /* The icon without radios, in case a panel shows passive items. */
  g_assert_cmpint (rfk_tray_item_state_for (manager, NULL), ==, RFK_ICON_NO_SUPPORT);
  g_clear_object (&manager);
  g_rmdir (dir);
}

/* The no-radios icon says why, as the menu's status line does; it said
 * "No radios to switch" whatever the reason. */
static void
test_icon_descriptions (void)
{
  g_autofree char *dir = g_dir_make_tmp ("rfk-desc-XXXXXX", NULL);
  g_autofree char *missing = g_build_filename (dir, "no-rfkill", NULL);
  g_autoptr(RfkManager) manager = rfk_manager_new (missing);

  g_assert_cmpstr (rfk_tray_item_icon_description (manager,
                                                   RFK_ICON_NO_SUPPORT),
                   ==, "Looking for radios…");
  rfk_manager_start (manager);
  g_assert_cmpint (rfk_manager_get_state (manager), ==,
                   RFK_MANAGER_STATE_NO_DEVICE);
  g_assert_cmpstr (rfk_tray_item_icon_description (manager,
                                                   RFK_ICON_NO_SUPPORT),
                   ==, "No rfkill support on this system");
  g_assert_cmpstr (rfk_tray_item_icon_description (manager,
                                                   RFK_ICON_AIRPLANE_MODE),
                   ==, "Airplane mode is on");
  g_clear_object (&manager);

  /* A directory is no rfkill device: the manager failed. */
  manager = rfk_manager_new (dir);
  rfk_manager_start (manager);
  g_assert_cmpint (rfk_manager_get_state (manager), ==,
                   RFK_MANAGER_STATE_FAILED);
  g_assert_cmpstr (rfk_tray_item_icon_description (manager,
                                                   RFK_ICON_NO_SUPPORT),
                   ==, "Cannot read the radio switches");
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
  g_test_add_func ("/ui/dbus-radios", test_dbus_radios);
  g_test_add_func ("/ui/icon-names", test_icon_names);
  g_test_add_func ("/ui/icon-theme-dir", test_icon_theme_dir);
  g_test_add_func ("/ui/status", test_status);
  g_test_add_func ("/ui/icon-descriptions", test_icon_descriptions);
  g_test_add_func ("/ui/autostart", test_autostart);
  g_test_add_func ("/ui/autostart-error", test_autostart_error);
  status = g_test_run ();

  g_rmdir (config);
  g_rmdir (home);
  return status;
}

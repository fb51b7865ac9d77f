/*
 * test-policy.c: rfk-airplane-policy.c as a pure function: radios and a
 * restore list in, a plan out.  No fake kernel, no files.
 */
#include <gio/gio.h>
#include <string.h>

#include "rfk-airplane-policy.h"
#include "rfk-device.h"
#include "rfk-protocol.h"

#define BT RFK_TYPE_BLUETOOTH
#define WLAN RFK_TYPE_WLAN

/* idx 0 wlan on, 1 wlan off, 2 bluetooth on */
static RfkPolicyRadio laptop[] = {
  { .idx = 0, .type = WLAN, .writing = -1, .key = "wlan:pci-a",
    .name_key = "wlan:phy0" },
  { .idx = 1, .type = WLAN, .soft = TRUE, .writing = -1, .key = "wlan:pci-b",
    .name_key = "wlan:phy1" },
  { .idx = 2, .type = BT, .writing = -1, .key = "bluetooth:usb-c",
    .name_key = "bluetooth:hci0" },
};

static void
block_all (RfkPolicyRadio *radios, guint n)
{
  for (guint i = 0; i < n; i++)
    radios[i].soft = TRUE;
}

/* The laptop in our airplane mode: radios, a copy of laptop[], all
 * blocked; the list returned remembers each as it was before. */
static RfkAirplaneStore *
laptop_in_airplane_mode (RfkPolicyRadio radios[3])
{
  RfkAirplaneStore *list = rfk_airplane_store_new ();

  memcpy (radios, laptop, sizeof laptop);
  block_all (radios, 3);
  list->active = TRUE;
  rfk_airplane_store_remember (list, "wlan:pci-a", FALSE);
  rfk_airplane_store_remember (list, "wlan:pci-b", TRUE);
  rfk_airplane_store_remember (list, "bluetooth:usb-c", FALSE);
  return list;
}

/* "op:idx-or-type:soft" for each write, space-separated. */
static char *
writes_string (const RfkAirplanePlan *plan)
{
  GString *s = g_string_new (NULL);

  for (guint i = 0; i < plan->writes->len; i++)
    {
      const RfkPolicyWrite *w = &g_array_index (plan->writes, RfkPolicyWrite,
                                                i);

      if (s->len > 0)
        g_string_append_c (s, ' ');
      if (w->op == RFK_OP_CHANGE_ALL)
        g_string_append_printf (s, "all:%s:%d",
                                rfk_type_to_string (w->type), w->soft);
      else
        g_string_append_printf (s, "one:%u:%d", w->idx, w->soft);
    }
  return g_string_free (s, FALSE);
}

static char *
expect_string (const RfkAirplanePlan *plan)
{
  GString *s = g_string_new (NULL);

  for (guint i = 0; i < plan->expect->len; i++)
    {
      const RfkPolicyExpect *e = &g_array_index (plan->expect,
                                                 RfkPolicyExpect, i);

      g_string_append_printf (s, "%s%u=%d", s->len ? " " : "", e->idx,
                              e->soft);
    }
  return g_string_free (s, FALSE);
}

static gboolean
remembered (const RfkAirplaneStore *store, const char *key)
{
  gboolean soft = -1;

  g_assert_true (rfk_airplane_store_lookup (store, key, &soft));
  return soft;
}

static void
test_on_remembers_and_sets_global_state (void)
{
  g_autoptr (RfkAirplaneStore) empty = rfk_airplane_store_new ();
  g_autoptr (RfkAirplanePlan) plan = NULL;
  g_autofree char *writes = NULL, *expect = NULL;

  plan = rfk_airplane_policy_plan (RFK_POLICY_ON, laptop, 3, empty,
                                   RFK_AIRPLANE_TYPES_ALL);
  g_assert_no_error (plan->error);
  g_assert_nonnull (plan->save);
  g_assert_true (plan->save->active);
  g_assert_false (remembered (plan->save, "wlan:pci-a"));
  g_assert_true (remembered (plan->save, "wlan:pci-b"));
  g_assert_false (remembered (plan->save, "bluetooth:usb-c"));
  writes = writes_string (plan);
  expect = expect_string (plan);
  /* wlan:pci-b stays off afterwards, so not the "all" global state
   * (resetting it would flash pci-b): one CHANGE_ALL per type. */
  g_assert_cmpstr (writes, ==,
                   "all:wlan:1 all:bluetooth:1 all:uwb:1 all:wimax:1 "
                   "all:wwan:1 all:gps:1 all:fm:1 all:nfc:1");
  g_assert_cmpstr (expect, ==, "0=1 2=1");
}

static void
test_on_with_every_radio_on_sets_the_keys_state (void)
{
  RfkPolicyRadio radios[3];
  g_autoptr (RfkAirplaneStore) empty = rfk_airplane_store_new ();
  g_autoptr (RfkAirplanePlan) plan = NULL;
  g_autofree char *writes = NULL;

  memcpy (radios, laptop, sizeof radios);
  radios[1].soft = FALSE;
  plan = rfk_airplane_policy_plan (RFK_POLICY_ON, radios, 3, empty,
                                   RFK_AIRPLANE_TYPES_ALL);
  writes = writes_string (plan);
  /* Also the global state KEY_RFKILL toggles from. */
  g_assert_cmpstr (writes, ==, "all:all:1");
}

static void
test_on_with_some_types_writes_per_type (void)
{
  g_autoptr (RfkAirplaneStore) empty = rfk_airplane_store_new ();
  g_autoptr (RfkAirplanePlan) plan = NULL;
  g_autofree char *writes = NULL;

  plan = rfk_airplane_policy_plan (RFK_POLICY_ON, laptop, 3, empty,
                                   1u << WLAN);
  writes = writes_string (plan);
  g_assert_cmpstr (writes, ==, "all:wlan:1");
  g_assert_false (rfk_airplane_store_lookup (plan->save, "bluetooth:usb-c",
                                             NULL));
}

static void
test_on_replaces_a_stale_list (void)
{
  g_autoptr (RfkAirplaneStore) stale = rfk_airplane_store_new ();
  g_autoptr (RfkAirplanePlan) plan = NULL;

  /* From an airplane mode that somebody ended while we were away. */
  stale->active = TRUE;
  rfk_airplane_store_remember (stale, "wlan:pci-a", TRUE);
  rfk_airplane_store_remember (stale, "bluetooth:usb-c", FALSE);
  plan = rfk_airplane_policy_plan (RFK_POLICY_ON, laptop, 3, stale,
                                   RFK_AIRPLANE_TYPES_ALL);
  g_assert_false (remembered (plan->save, "wlan:pci-a"));
}

static void
test_on_keeps_the_list_while_airplane_mode_holds (void)
{
  RfkPolicyRadio radios[3];
  g_autoptr (RfkAirplaneStore) list = laptop_in_airplane_mode (radios);
  g_autoptr (RfkAirplanePlan) plan = NULL;
  g_autofree char *writes = NULL;

  plan = rfk_airplane_policy_plan (RFK_POLICY_ON, radios, 3, list,
                                   RFK_AIRPLANE_TYPES_ALL);
  g_assert_null (plan->save);  /* nothing new to remember */
  writes = writes_string (plan);
  g_assert_cmpstr (writes, ==, "");
}

static void
test_on_counts_unblocks_in_flight (void)
{
  RfkPolicyRadio radios[3];
  gboolean soft;
  g_autoptr (RfkAirplaneStore) list = laptop_in_airplane_mode (radios);
  g_autoptr (RfkAirplanePlan) plan = NULL;
  g_autofree char *expect = NULL;

  /* Off was asked for and not yet confirmed: wlan:pci-a and Bluetooth
   * are still reported blocked but are being unblocked. */
  radios[0].writing = FALSE;
  radios[2].writing = FALSE;
  plan = rfk_airplane_policy_plan (RFK_POLICY_ON, radios, 3, list,
                                   RFK_AIRPLANE_TYPES_ALL);
  expect = expect_string (plan);
  g_assert_cmpstr (expect, ==, "0=1 2=1");
  /* Off comes first: by then airplane mode no longer holds, so the new
   * list holds where off leaves each radio (requests take effect in the
   * order they came), here what the old list restores. */
  g_assert_nonnull (plan->save);
  g_assert_true (plan->save->active);
  g_assert_true (rfk_airplane_store_lookup (plan->save, "wlan:pci-a", &soft));
  g_assert_false (soft);
  g_assert_true (rfk_airplane_store_lookup (plan->save, "wlan:pci-b", &soft));
  g_assert_true (soft);
  g_assert_true (rfk_airplane_store_lookup (plan->save, "bluetooth:usb-c",
                                            &soft));
  g_assert_false (soft);
}

static void
test_off_restores_without_flashing (void)
{
  RfkPolicyRadio radios[3];
  g_autoptr (RfkAirplaneStore) list = laptop_in_airplane_mode (radios);
  g_autoptr (RfkAirplanePlan) plan = NULL;
  g_autofree char *writes = NULL, *expect = NULL;

  plan = rfk_airplane_policy_plan (RFK_POLICY_OFF, radios, 3, list,
                                   RFK_AIRPLANE_TYPES_ALL);
  writes = writes_string (plan);
  expect = expect_string (plan);
  /* Wi-Fi one by one (pci-b stays off, so no CHANGE_ALL wlan);
   * Bluetooth and the types without radios by CHANGE_ALL. */
  g_assert_cmpstr (writes, ==,
                   "one:0:0 all:bluetooth:0 all:uwb:0 all:wimax:0 all:wwan:0 "
                   "all:gps:0 all:fm:0 all:nfc:0");
  g_assert_cmpstr (expect, ==, "0=0 2=0");
}

static void
test_off_all_on_is_one_change_all (void)
{
  RfkPolicyRadio radios[3];
  g_autoptr (RfkAirplaneStore) list = rfk_airplane_store_new ();
  g_autoptr (RfkAirplanePlan) plan = NULL;
  g_autofree char *writes = NULL;

  memcpy (radios, laptop, sizeof radios);
  block_all (radios, 3);
  list->active = TRUE;
  rfk_airplane_store_remember (list, "wlan:pci-a", FALSE);
  /* Saved by an older version: by name. */
  rfk_airplane_store_remember (list, "wlan:phy1", FALSE);
  plan = rfk_airplane_policy_plan (RFK_POLICY_OFF, radios, 3, list,
                                   RFK_AIRPLANE_TYPES_ALL);
  writes = writes_string (plan);
  g_assert_cmpstr (writes, ==, "all:all:0");
}

static void
test_off_under_a_hardware_switch_fails (void)
{
  RfkPolicyRadio radios[3];
  g_autoptr (RfkAirplaneStore) empty = rfk_airplane_store_new ();
  g_autoptr (RfkAirplanePlan) plan = NULL;

  memcpy (radios, laptop, sizeof radios);
  for (guint i = 0; i < 3; i++)
    radios[i].hard = TRUE;
  plan = rfk_airplane_policy_plan (RFK_POLICY_OFF, radios, 3, empty,
                                   RFK_AIRPLANE_TYPES_ALL);
  g_assert_error (plan->error, G_IO_ERROR, G_IO_ERROR_BUSY);
  g_assert_cmpuint (plan->writes->len, ==, 0);
}

static void
test_off_when_not_in_airplane_mode_does_nothing (void)
{
  g_autoptr (RfkAirplaneStore) empty = rfk_airplane_store_new ();
  g_autoptr (RfkAirplanePlan) plan = NULL;

  plan = rfk_airplane_policy_plan (RFK_POLICY_OFF, laptop, 3, empty,
                                   RFK_AIRPLANE_TYPES_ALL);
  g_assert_no_error (plan->error);
  g_assert_cmpuint (plan->writes->len, ==, 0);
  g_assert_null (plan->save);
}

static void
test_ended_elsewhere_reblocks_the_ones_off_before (void)
{
  g_autoptr (RfkAirplaneStore) list = rfk_airplane_store_new ();
  g_autoptr (RfkAirplanePlan) plan = NULL;
  RfkPolicyRadio radios[3];
  g_autofree char *writes = NULL;

  memcpy (radios, laptop, sizeof radios);
  radios[1].soft = FALSE;  /* `rfkill unblock all` */
  list->active = TRUE;
  rfk_airplane_store_remember (list, "wlan:pci-a", FALSE);
  rfk_airplane_store_remember (list, "wlan:pci-b", TRUE);
  plan = rfk_airplane_policy_plan (RFK_POLICY_ENDED_ELSEWHERE, radios, 3,
                                   list, RFK_AIRPLANE_TYPES_ALL);
  writes = writes_string (plan);
  g_assert_cmpstr (writes, ==, "one:1:1");
  g_assert_nonnull (plan->save);
  g_assert_false (plan->save->active);
}

static void
test_types_changed_remembers_newly_counted (void)
{
  RfkPolicyRadio radios[3];
  g_autoptr (RfkAirplaneStore) list = rfk_airplane_store_new ();
  g_autoptr (RfkAirplanePlan) plan = NULL;
  g_autofree char *expect = NULL;

  /* Wi-Fi only was counted; Bluetooth, on, counts now. */
  memcpy (radios, laptop, sizeof radios);
  radios[0].soft = TRUE;
  list->active = TRUE;
  rfk_airplane_store_remember (list, "wlan:pci-a", FALSE);
  rfk_airplane_store_remember (list, "wlan:pci-b", TRUE);
  plan = rfk_airplane_policy_plan (RFK_POLICY_TYPES_CHANGED, radios, 3, list,
                                   RFK_AIRPLANE_TYPES_ALL);
  expect = expect_string (plan);
  g_assert_cmpstr (expect, ==, "2=1");
  g_assert_false (remembered (plan->save, "bluetooth:usb-c"));
  g_assert_false (remembered (plan->save, "wlan:pci-a"));
}

static void
test_radios_added_are_blocked_not_remembered (void)
{
  RfkPolicyRadio radios[4];
  g_autoptr (RfkAirplaneStore) list = rfk_airplane_store_new ();
  g_autoptr (RfkAirplanePlan) plan = NULL;
  g_autofree char *expect = NULL;

  memcpy (radios, laptop, sizeof laptop);
  block_all (radios, 3);
  radios[3] = (RfkPolicyRadio) { .idx = 7, .type = RFK_TYPE_WWAN,
                                 .writing = -1, .key = "wwan:usb-d",
                                 .name_key = "wwan:wwan0" };
  list->active = TRUE;
  plan = rfk_airplane_policy_plan (RFK_POLICY_RADIOS_ADDED, radios, 4, list,
                                   RFK_AIRPLANE_TYPES_ALL);
  expect = expect_string (plan);
  g_assert_cmpstr (expect, ==, "7=1");
  g_assert_null (plan->save);

  /* Not in airplane mode (no list): nothing to enforce. */
  list->active = FALSE;
  g_clear_pointer (&plan, rfk_airplane_plan_free);
  plan = rfk_airplane_policy_plan (RFK_POLICY_RADIOS_ADDED, radios, 4, list,
                                   RFK_AIRPLANE_TYPES_ALL);
  g_assert_cmpuint (plan->writes->len + plan->expect->len, ==, 0);
}

static void
test_in_force (void)
{
  RfkPolicyRadio radios[3];

  memcpy (radios, laptop, sizeof radios);
  g_assert_false (rfk_airplane_policy_in_force (radios, 3,
                                                RFK_AIRPLANE_TYPES_ALL));
  radios[0].hard = TRUE;
  radios[2].writing = TRUE;
  g_assert_true (rfk_airplane_policy_in_force (radios, 3,
                                               RFK_AIRPLANE_TYPES_ALL));
  g_assert_false (rfk_airplane_policy_in_force (radios, 3, 1u << 6));
  g_assert_false (rfk_airplane_policy_in_force (NULL, 0,
                                                RFK_AIRPLANE_TYPES_ALL));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/policy/on-remembers-and-sets-global-state",
                   test_on_remembers_and_sets_global_state);
  g_test_add_func ("/policy/on-with-every-radio-on-sets-the-keys-state",
                   test_on_with_every_radio_on_sets_the_keys_state);
  g_test_add_func ("/policy/on-with-some-types-writes-per-type",
                   test_on_with_some_types_writes_per_type);
  g_test_add_func ("/policy/on-replaces-a-stale-list",
                   test_on_replaces_a_stale_list);
  g_test_add_func ("/policy/on-keeps-the-list-while-airplane-mode-holds",
                   test_on_keeps_the_list_while_airplane_mode_holds);
  g_test_add_func ("/policy/on-counts-unblocks-in-flight",
                   test_on_counts_unblocks_in_flight);
  g_test_add_func ("/policy/off-restores-without-flashing",
                   test_off_restores_without_flashing);
  g_test_add_func ("/policy/off-all-on-is-one-change-all",
                   test_off_all_on_is_one_change_all);
  g_test_add_func ("/policy/off-under-a-hardware-switch-fails",
                   test_off_under_a_hardware_switch_fails);
  g_test_add_func ("/policy/off-when-not-in-airplane-mode-does-nothing",
                   test_off_when_not_in_airplane_mode_does_nothing);
  g_test_add_func ("/policy/ended-elsewhere-reblocks-the-ones-off-before",
                   test_ended_elsewhere_reblocks_the_ones_off_before);
  g_test_add_func ("/policy/types-changed-remembers-newly-counted",
                   test_types_changed_remembers_newly_counted);
  g_test_add_func ("/policy/radios-added-are-blocked-not-remembered",
                   test_radios_added_are_blocked_not_remembered);
  g_test_add_func ("/policy/in-force", test_in_force);
  return g_test_run ();
}

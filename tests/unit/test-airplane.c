/*
 * test-airplane.c: airplane mode in the real world, on the fake kernel.
 *
 * Each test is one way a real system breaks the promise "each radio
 * comes back as it was when airplane mode ends": changes while no
 * program of ours runs, re-plugged and renumbered cards, the kernel's
 * global state, the airplane key, other programs, systemd-rfkill,
 * settings changed midway, races and a corrupt list.
 */
#include <gio/gio.h>
#include <glib/gstdio.h>
#include <string.h>

#include "rfk-device.h"
#include "test-util.h"

#define BT RFK_TYPE_BLUETOOTH
#define WLAN RFK_TYPE_WLAN

/* Slots on a laptop's buses, as sysfs names them. */
#define SLOT_WIFI "pci0000:00/0000:00:14.3"
#define SLOT_WIFI2 "pci0000:00/0000:00:1c.0/0000:03:00.0"
#define SLOT_BT "pci0000:00/0000:00:14.0/usb1/1-10/1-10:1.0"

/* The applet quits (logout, crash); the fake kernel goes on. */
static void
stop_manager (Fixture *f)
{
  g_clear_object (&f->manager);
  test_settle (20);
}

static void
restart_manager (Fixture *f)
{
  f->manager = fixture_start_manager (f);
  g_ptr_array_set_size (f->log, 0);
}

/* Wi-Fi on, a second Wi-Fi card the user switched off, Bluetooth on; all
 * on bus devices, as on a real laptop. */
static void
setup_laptop (Fixture *f)
{
  fake_rfkill_add_device (f->fake, WLAN, "phy0", "pci", SLOT_WIFI);
  fake_rfkill_add_device (f->fake, WLAN, "phy1", "pci", SLOT_WIFI2);
  fake_rfkill_add_device (f->fake, BT, "hci0", "usb", SLOT_BT);
  fake_rfkill_set_soft (f->fake, 1, TRUE);
  fixture_listen (f);
  restart_manager (f);
  g_assert_cmpstr (fixture_soft_states (f), ==, "phy0=on phy1=off hci0=on");
}

static void
airplane (Fixture *f, gboolean enabled)
{
  g_autoptr (GError) error = NULL;

  g_assert_true (test_set_airplane (f->manager, enabled, &error));
  g_assert_no_error (error);
  g_assert_cmpint (rfk_manager_get_airplane_mode (f->manager), ==, enabled);
}

#define ENDED_ELSEWHERE "airplane ended elsewhere"

/* Airplane mode ended by another program (the key, gsd, `rfkill unblock
 * all`) on setup_laptop()'s radios: over, the card that was off before
 * off again, the list dropped, and the manager said so.  Returns how
 * many times it said so since the log was last taken. */
static guint
assert_ended_elsewhere (Fixture *f)
{
  g_autofree char *log = NULL;
  guint said = 0;

  g_assert_false (rfk_manager_get_airplane_mode (f->manager));
  g_assert_cmpstr (fixture_soft_states (f), ==, "phy0=on phy1=off hci0=on");
  g_assert_false (test_store_is_active ());
  log = test_take_log (f);
  for (const char *p = strstr (log, ENDED_ELSEWHERE); p != NULL;
       p = strstr (p + 1, ENDED_ELSEWHERE))
    said++;
  g_assert_cmpuint (said, >, 0);
  return said;
}

static guint32
idx_of (Fixture *f, const char *name)
{
  GPtrArray *radios = fake_rfkill_get_radios (f->fake);

  for (guint i = 0; i < radios->len; i++)
    if (g_str_equal (((FakeRadio *) radios->pdata[i])->name, name))
      return ((FakeRadio *) radios->pdata[i])->idx;
  g_assert_not_reached ();
}

/* Deliver 1: the applet was not running for some of the changes. */
static void
test_stale_memory_is_not_restored (Fixture *f, gconstpointer data)
{
  setup_laptop (f);
  airplane (f, TRUE);
  stop_manager (f);

  /* Without the applet: `rfkill unblock all` from a TTY, then the user
   * switches Bluetooth off for good. */
  for (guint32 i = 0; i < 3; i++)
    fake_rfkill_set_soft (f->fake, i, FALSE);
  fake_rfkill_set_soft (f->fake, idx_of (f, "hci0"), TRUE);

  restart_manager (f);
  g_assert_false (rfk_manager_get_airplane_mode (f->manager));
  /* What happened meanwhile was the user's: nothing blocked again. */
  g_assert_cmpstr (fixture_soft_states (f), ==, "phy0=on phy1=on hci0=off");

  airplane (f, TRUE);
  airplane (f, FALSE);
  /* Today's states, not the ones from the first airplane mode. */
  g_assert_cmpstr (fixture_soft_states (f), ==, "phy0=on phy1=on hci0=off");
}

/* Deliver 1: cards re-plugged during airplane mode come back renumbered
 * (cfg80211 never reuses a phy number). */
static void
test_renumbered_radios_are_recognised (Fixture *f, gconstpointer data)
{
  setup_laptop (f);
  airplane (f, TRUE);

  fake_rfkill_readd_as (f->fake, idx_of (f, "phy0"), "phy3");
  fake_rfkill_readd_as (f->fake, idx_of (f, "hci0"), "hci1");
  fake_rfkill_readd_as (f->fake, idx_of (f, "phy1"), "phy4");
  test_settle (50);
  g_assert_true (rfk_manager_get_airplane_mode (f->manager));
  g_assert_cmpstr (fixture_soft_states (f), ==, "phy3=off hci1=off phy4=off");

  airplane (f, FALSE);
  /* Known by their slots: the card that was off before stays off. */
  g_assert_cmpstr (fixture_soft_states (f), ==, "phy3=on hci1=on phy4=off");
}

/* Deliver 1, with virtual radios: mac80211_hwsim reloaded during
 * airplane mode.  Its cards are devices/virtual/mac80211_hwsim/hwsimN,
 * numbered from 0 again on each load, under new phy numbers. */
static void
test_reloaded_virtual_radios_are_recognised (Fixture *f, gconstpointer data)
{
  guint32 phy0, phy1;

  phy0 = fake_rfkill_add_device (f->fake, WLAN, "phy0", "mac80211_hwsim",
                                 "virtual/mac80211_hwsim/hwsim0");
  phy1 = fake_rfkill_add_device (f->fake, WLAN, "phy1", "mac80211_hwsim",
                                 "virtual/mac80211_hwsim/hwsim1");
  fake_rfkill_set_soft (f->fake, phy1, TRUE);
  fixture_listen (f);
  restart_manager (f);
  airplane (f, TRUE);

  fake_rfkill_del (f->fake, phy0);
  fake_rfkill_del (f->fake, phy1);
  fake_rfkill_add_device (f->fake, WLAN, "phy2", "mac80211_hwsim",
                          "virtual/mac80211_hwsim/hwsim0");
  fake_rfkill_add_device (f->fake, WLAN, "phy3", "mac80211_hwsim",
                          "virtual/mac80211_hwsim/hwsim1");
  test_settle (50);
  g_assert_cmpstr (fixture_soft_states (f), ==, "phy2=off phy3=off");

  airplane (f, FALSE);
  g_assert_cmpstr (fixture_soft_states (f), ==, "phy2=on phy3=off");
}

/* A Dell laptop's airplane-mode slider (dell-rbtn) is a wlan rfkill on
 * an ACPI device whose driver refuses every soft block.  Airplane mode
 * leaves it out: it can neither block it nor wait for it. */
static void
test_dell_slider_is_left_out (Fixture *f, gconstpointer data)
{
  guint32 slider;

  fake_rfkill_add_device (f->fake, WLAN, "phy0", "pci", SLOT_WIFI);
  fake_rfkill_add_device (f->fake, BT, "hci0", "usb", SLOT_BT);
  slider = fake_rfkill_add_device (f->fake, WLAN, "dell-rbtn", "acpi",
                                   "LNXSYSTM:00/LNXSYBUS:00/DELLABCE:00");
  fake_rfkill_set_refuses_soft (f->fake, slider, TRUE);
  fixture_listen (f);
  restart_manager (f);

  airplane (f, TRUE);
  g_assert_cmpstr (fixture_soft_states (f), ==,
                   "phy0=off hci0=off dell-rbtn=on");
  airplane (f, FALSE);
  g_assert_cmpstr (fixture_soft_states (f), ==,
                   "phy0=on hci0=on dell-rbtn=on");
}

/* Deliver 1: two cards swap phy numbers across a reboot. */
static void
test_cards_that_swap_names_are_recognised (Fixture *f, gconstpointer data)
{
  setup_laptop (f);
  airplane (f, TRUE);
  stop_manager (f);

  /* Reboot: the second card is probed first this time, and
   * systemd-rfkill restores each radio's saved state (blocked). */
  fake_rfkill_del (f->fake, idx_of (f, "phy0"));
  fake_rfkill_del (f->fake, idx_of (f, "phy1"));
  fake_rfkill_del (f->fake, idx_of (f, "hci0"));
  fake_rfkill_add_device (f->fake, WLAN, "phy0", "pci", SLOT_WIFI2);
  fake_rfkill_add_device (f->fake, WLAN, "phy1", "pci", SLOT_WIFI);
  fake_rfkill_add_device (f->fake, BT, "hci0", "usb", SLOT_BT);
  for (guint i = 0; i < 3; i++)
    fake_rfkill_set_soft (f->fake,
                          ((FakeRadio *) fake_rfkill_get_radios (f->fake)
                             ->pdata[i])->idx, TRUE);
  g_assert_cmpstr (fixture_soft_states (f), ==, "phy0=off phy1=off hci0=off");

  restart_manager (f);
  g_assert_true (rfk_manager_get_airplane_mode (f->manager));
  airplane (f, FALSE);
  /* phy1 is now the card in SLOT_WIFI, which was on. */
  g_assert_cmpstr (fixture_soft_states (f), ==, "phy0=off phy1=on hci0=on");
}

/* Deliver 2: the kernel's global state says "blocked", so a radio that
 * appears while no program of ours runs comes up blocked. */
static void
test_radio_appearing_without_us_comes_up_blocked (Fixture *f,
                                                  gconstpointer data)
{
  g_autofree char *log = NULL;

  setup_laptop (f);
  airplane (f, TRUE);
  g_assert_true (fake_rfkill_get_global (f->fake, WLAN));
  g_assert_true (fake_rfkill_get_global (f->fake, RFK_TYPE_WWAN));
  stop_manager (f);

  fake_rfkill_add_device (f->fake, RFK_TYPE_WWAN, "wwan0", "usb",
                          "pci0000:00/0000:00:14.0/usb1/1-6/1-6:1.0");
  g_assert_cmpstr (fixture_soft_states (f), ==,
                   "phy0=off phy1=off hci0=off wwan0=off");

  restart_manager (f);
  g_assert_true (rfk_manager_get_airplane_mode (f->manager));
  airplane (f, FALSE);
  g_assert_cmpstr (fixture_soft_states (f), ==, "phy0=on phy1=off hci0=on wwan0=on");
  /* Leaving never flashed the card that was off before. */
  log = test_take_log (f);
  g_assert_null (strstr (log, "phy1 soft=0"));
  /* Global states are back where no radio stays off. */
  g_assert_false (fake_rfkill_get_global (f->fake, BT));
  g_assert_false (fake_rfkill_get_global (f->fake, RFK_TYPE_WWAN));
}

/* Deliver 3: KEY_RFKILL through rfkill-input, from airplane mode off
 * (after one of ours, which left a radio off). */
static void
test_airplane_key_enters_then_leaves (Fixture *f, gconstpointer data)
{
  setup_laptop (f);
  airplane (f, TRUE);
  airplane (f, FALSE);
  fake_rfkill_press_airplane_key (f->fake);
  test_settle (50);
  g_assert_true (rfk_manager_get_airplane_mode (f->manager));
  g_assert_true (test_store_is_active ());

  fake_rfkill_press_airplane_key (f->fake);
  test_settle (100);
  /* The card that was off before the first press is off again. */
  g_assert_cmpuint (assert_ended_elsewhere (f), ==, 1);
}

/* A flood of flips, as a driver or a script makes it, each in its own
 * read: the manager decides (remembers, restores) only once the changes
 * have been quiet for 20 ms (FLAP_QUIET_MS), by the state the flood left.
 * Here it left every radio off: airplane mode holds, and ending it brings
 * the radios back as they were before the flood, not as some flip had
 * them. */
static void
test_flood_of_flips_ends_as_the_flood_left_it (Fixture *f, gconstpointer data)
{
  guint32 phy0, hci0;

  setup_laptop (f);
  phy0 = idx_of (f, "phy0");
  hci0 = idx_of (f, "hci0");
  for (guint i = 0; i < 30; i++)
    {
      fake_rfkill_set_soft (f->fake, phy0, TRUE);
      fake_rfkill_set_soft (f->fake, hci0, TRUE);
      test_settle (2);
      fake_rfkill_set_soft (f->fake, hci0, FALSE);
      fake_rfkill_set_soft (f->fake, phy0, FALSE);
      test_settle (2);
    }
  fake_rfkill_set_soft (f->fake, hci0, TRUE);
  fake_rfkill_set_soft (f->fake, phy0, TRUE);
  test_settle (100);
  g_assert_true (rfk_manager_get_airplane_mode (f->manager));
  g_assert_true (test_store_is_active ());
  g_assert_cmpstr (fixture_soft_states (f), ==, "phy0=off phy1=off hci0=off");

  airplane (f, FALSE);
  test_settle (50);
  g_assert_cmpstr (fixture_soft_states (f), ==, "phy0=on phy1=off hci0=on");
}

/* Deliver 3, as a real kernel delivers it: `rfkill block all` or the
 * key wakes us after its first CHANGE, and the rest of the switch comes
 * in later reads.  Bluetooth, switched first (it is first in the
 * kernel's list once the Wi-Fi cards were re-plugged), was on before
 * airplane mode and must come back on. */
static void
test_airplane_mode_entered_over_several_reads (Fixture *f, gconstpointer data)
{
  g_autofree char *log = NULL;

  setup_laptop (f);
  /* Our own airplane mode, on and off: nobody else's doing. */
  airplane (f, TRUE);
  airplane (f, FALSE);
  fake_rfkill_set_soft (f->fake, idx_of (f, "hci0"), TRUE);
  test_settle (50);
  g_assert_false (rfk_manager_get_airplane_mode (f->manager));
  fake_rfkill_set_soft (f->fake, idx_of (f, "phy0"), TRUE);
  test_settle (50);
  g_assert_true (rfk_manager_get_airplane_mode (f->manager));
  g_assert_true (test_store_is_active ());
  /* Said once, for the sweep of another program only. */
  log = test_take_log (f);
  g_assert_nonnull (strstr (log, "airplane entered elsewhere"));
  g_assert_null (strstr (strstr (log, "airplane entered elsewhere") + 1,
                         "airplane entered elsewhere"));

  fake_rfkill_set_soft (f->fake, idx_of (f, "hci0"), FALSE);
  fake_rfkill_set_soft (f->fake, idx_of (f, "phy0"), FALSE);
  fake_rfkill_set_soft (f->fake, idx_of (f, "phy1"), FALSE);
  test_settle (100);
  g_assert_false (rfk_manager_get_airplane_mode (f->manager));
  g_assert_cmpstr (fixture_soft_states (f), ==, "phy0=on phy1=off hci0=on");
}

/* A radio switched off by hand long before airplane mode stays off
 * after it: only the sweep's own CHANGEs count as "on before". */
static void
test_radio_off_before_the_sweep_stays_off (Fixture *f, gconstpointer data)
{
  setup_laptop (f);
  fake_rfkill_set_soft (f->fake, idx_of (f, "hci0"), TRUE);
  test_settle (700);  /* longer than a sweep: a separate decision */
  fake_rfkill_set_soft (f->fake, idx_of (f, "phy0"), TRUE);
  test_settle (50);
  g_assert_true (rfk_manager_get_airplane_mode (f->manager));

  for (guint32 i = 0; i < 3; i++)
    fake_rfkill_set_soft (f->fake, i, FALSE);
  test_settle (100);
  g_assert_cmpstr (fixture_soft_states (f), ==, "phy0=on phy1=off hci0=off");
}

/* Deliver 3: in our own airplane mode, with every radio on before, the
 * first press leaves it.  (With a radio that stays off, the second press
 * does: see block_targets() in rfk-airplane-policy.c.) */
static void
test_airplane_key_leaves_our_airplane_mode (Fixture *f, gconstpointer data)
{
  setup_laptop (f);
  fake_rfkill_set_soft (f->fake, idx_of (f, "phy1"), FALSE);
  test_settle (30);
  airplane (f, TRUE);

  fake_rfkill_press_airplane_key (f->fake);
  test_settle (100);
  g_assert_false (rfk_manager_get_airplane_mode (f->manager));
  g_assert_cmpstr (fixture_soft_states (f), ==, "phy0=on phy1=on hci0=on");

  /* And the next press enters it again. */
  fake_rfkill_press_airplane_key (f->fake);
  test_settle (50);
  g_assert_true (rfk_manager_get_airplane_mode (f->manager));
}

/* Airplane mode ended by the user's own radio requests (Bluetooth on
 * from the menu, an exception; then Wi-Fi, the last radios, which ends
 * it; then Bluetooth off): the key's next press starts airplane mode
 * again, although airplane on blocked "all" (every radio was on).  Our
 * kernel module clears the key's state without moving a radio; a stock
 * kernel cannot, and the press turns every radio on instead (README). */
static void
test_airplane_key_after_a_radio_request (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  gboolean stock = GPOINTER_TO_INT (data);

  fake_rfkill_set_stock (f->fake, stock);
  setup_laptop (f);
  fake_rfkill_set_soft (f->fake, idx_of (f, "phy1"), FALSE);
  test_settle (30);
  airplane (f, TRUE);
  g_assert_true (fake_rfkill_get_global (f->fake, RFK_TYPE_ALL));
  g_assert_true (test_set_blocked (f->manager, idx_of (f, "hci0"), FALSE,
                                   &error));
  g_assert_true (rfk_manager_get_airplane_mode (f->manager));
  g_assert_true (test_set_type_blocked (f->manager, RFK_TYPE_WLAN, FALSE,
                                        &error));
  g_assert_true (test_set_blocked (f->manager, idx_of (f, "hci0"), TRUE,
                                   &error));
  g_assert_no_error (error);
  test_settle (30);
  g_assert_false (rfk_manager_get_airplane_mode (f->manager));
  g_assert_cmpstr (fixture_soft_states (f), ==, "phy0=on phy1=on hci0=off");

  /* Later than the 500 ms in which the setup's change and the press
   * would count as one sweep ("phy1 was off before"). */
  test_settle (600);
  fake_rfkill_press_airplane_key (f->fake);
  test_settle (100);
  if (stock)
    g_assert_cmpstr (fixture_soft_states (f), ==, "phy0=on phy1=on hci0=on");
  else
    {
      g_assert_cmpstr (fixture_soft_states (f), ==,
                       "phy0=off phy1=off hci0=off");
      g_assert_true (rfk_manager_get_airplane_mode (f->manager));
      /* Leaving it brings back what the press found, but for the
       * exception: the key switches every radio, and the engine restores
       * only the radios on the list (RULES.md). */
      fake_rfkill_press_airplane_key (f->fake);
      test_settle (100);
      g_assert_cmpstr (fixture_soft_states (f), ==,
                       "phy0=on phy1=on hci0=on");
    }
}

/* Deliver 4: gsd's CHANGE_ALL or `rfkill unblock all` while we run. */
static void
test_other_program_ends_airplane_mode (Fixture *f, gconstpointer data)
{
  setup_laptop (f);
  airplane (f, TRUE);
  g_ptr_array_set_size (f->log, 0);

  for (guint32 i = 0; i < 3; i++)
    fake_rfkill_set_soft (f->fake, i, FALSE);
  test_settle (100);

  g_assert_cmpuint (assert_ended_elsewhere (f), ==, 1);
}

/* Deliver 4, as a real kernel or a relay delivers it: the key's switch
 * or `rfkill unblock all` wakes us after the first CHANGE, so the rest
 * comes in later reads.  That is still airplane mode ended elsewhere. */
static void
test_other_program_ends_airplane_mode_over_several_reads (Fixture *f,
                                                          gconstpointer data)
{
  setup_laptop (f);
  airplane (f, TRUE);
  g_ptr_array_set_size (f->log, 0);

  for (guint32 i = 0; i < 3; i++)
    {
      fake_rfkill_set_soft (f->fake, i, FALSE);
      test_settle (50);
    }
  test_settle (100);

  assert_ended_elsewhere (f);
}

/* Deliver 4: a user who unblocks a single radio by hand is left alone,
 * and the list, no longer true, is dropped. */
static void
test_one_radio_unblocked_by_hand_is_left_alone (Fixture *f,
                                                gconstpointer data)
{
  g_autofree char *log = NULL;

  setup_laptop (f);
  airplane (f, TRUE);
  g_ptr_array_set_size (f->log, 0);

  fake_rfkill_set_soft (f->fake, idx_of (f, "hci0"), FALSE);
  test_settle (1000);

  g_assert_false (rfk_manager_get_airplane_mode (f->manager));
  g_assert_cmpstr (fixture_soft_states (f), ==, "phy0=off phy1=off hci0=on");
  g_assert_false (test_store_is_active ());
  log = test_take_log (f);
  g_assert_null (strstr (log, ENDED_ELSEWHERE));
}

/* Deliver 4: at start, a remembered airplane mode no longer in force is
 * dropped, and nothing is blocked again. */
static void
test_start_drops_airplane_mode_no_longer_in_force (Fixture *f,
                                                    gconstpointer data)
{
  setup_laptop (f);
  airplane (f, TRUE);
  stop_manager (f);
  /* `rfkill unblock 0` on a TTY while the applet is not running. */
  fake_rfkill_set_soft (f->fake, idx_of (f, "phy0"), FALSE);

  restart_manager (f);
  g_assert_false (rfk_manager_get_airplane_mode (f->manager));
  g_assert_false (test_store_is_active ());
  g_assert_cmpstr (fixture_soft_states (f), ==, "phy0=on phy1=off hci0=off");

  /* Not in airplane mode: "off" leaves every radio as the user set it. */
  airplane (f, FALSE);
  g_assert_cmpstr (fixture_soft_states (f), ==, "phy0=on phy1=off hci0=off");
}

/* Deliver 5: systemd-rfkill restores a hot-plugged radio's saved state
 * after udev; that is not the end of airplane mode. */
static void
test_systemd_rfkill_restore_keeps_the_list (Fixture *f, gconstpointer data)
{
  guint32 dongle;
  g_autofree char *log = NULL;

  setup_laptop (f);
  airplane (f, TRUE);
  g_ptr_array_set_size (f->log, 0);

  dongle = fake_rfkill_add_device (f->fake, BT, "hci1", "usb",
                                   "pci0000:00/0000:00:14.0/usb1/1-2/1-2:1.0");
  test_settle (30);
  /* Its saved state was "unblocked". */
  fake_rfkill_set_soft (f->fake, dongle, FALSE);
  test_settle (100);

  g_assert_true (rfk_manager_get_airplane_mode (f->manager));
  g_assert_true (test_store_is_active ());
  g_assert_cmpstr (fixture_soft_states (f), ==,
                   "phy0=off phy1=off hci0=off hci1=off");
  log = test_take_log (f);
  g_assert_null (strstr (log, "airplane off"));

  airplane (f, FALSE);
  g_assert_cmpstr (fixture_soft_states (f), ==, "phy0=on phy1=off hci0=on hci1=on");
}

/* Deliver 1: airplane-radio-types changed while airplane mode is on. */
static void
test_types_changed_during_airplane_mode (Fixture *f, gconstpointer data)
{
  setup_laptop (f);
  rfk_manager_set_airplane_types (f->manager, 1u << WLAN);
  airplane (f, TRUE);
  g_assert_cmpstr (fixture_soft_states (f), ==, "phy0=off phy1=off hci0=on");

  /* Now Bluetooth counts too: it goes off and is remembered. */
  rfk_manager_set_airplane_types (f->manager, RFK_AIRPLANE_TYPES_ALL);
  test_settle (100);
  g_assert_true (rfk_manager_get_airplane_mode (f->manager));
  g_assert_cmpstr (fixture_soft_states (f), ==, "phy0=off phy1=off hci0=off");

  /* And back to Wi-Fi only: airplane mode still holds. */
  rfk_manager_set_airplane_types (f->manager, 1u << WLAN);
  test_settle (30);
  g_assert_true (rfk_manager_get_airplane_mode (f->manager));
  g_assert_true (test_store_is_active ());

  airplane (f, FALSE);
  g_assert_cmpstr (fixture_soft_states (f), ==, "phy0=on phy1=off hci0=on");
}

typedef struct {
  guint done;
  gboolean ok[2];
  GError *error[2];
} Race;

static void
race_cb (GObject *source, GAsyncResult *res, gpointer data)
{
  Race *race = data;
  guint i = race->done++;

  race->ok[i] = rfk_manager_set_airplane_mode_finish (RFK_MANAGER (source),
                                                      res, &race->error[i]);
}

static gboolean
race_done (gpointer data)
{
  return ((Race *) data)->done == 2;
}

/* Deliver 1: off, then on again before the kernel confirmed the off. */
static void
test_off_then_on_before_confirmation (Fixture *f, gconstpointer data)
{
  Race race = { 0 };

  setup_laptop (f);
  airplane (f, TRUE);

  rfk_manager_set_airplane_mode_async (f->manager, FALSE, NULL, race_cb,
                                       &race);
  rfk_manager_set_airplane_mode_async (f->manager, TRUE, NULL, race_cb,
                                       &race);
  g_assert_true (test_wait_for (race_done, &race, 6000));
  /* The off was superseded; the on holds for every radio. */
  g_assert_error (race.error[0], G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_no_error (race.error[1]);
  g_assert_true (race.ok[1]);
  test_settle (50);
  g_assert_cmpstr (fixture_soft_states (f), ==, "phy0=off phy1=off hci0=off");
  g_assert_true (rfk_manager_get_airplane_mode (f->manager));
  g_clear_error (&race.error[0]);

  airplane (f, FALSE);
  g_assert_cmpstr (fixture_soft_states (f), ==, "phy0=on phy1=off hci0=on");
}

/* Deliver 6: a corrupt list is kept for inspection and reported; it never
 * turns into "unblock everything". */
static void
test_corrupt_store_is_kept_and_reported (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_path_get_dirname (f->state_file);
  g_autoptr (GDir) listing = NULL;
  const char *name;
  gboolean kept = FALSE;

  setup_laptop (f);
  airplane (f, TRUE);
  stop_manager (f);
  g_assert_true (g_file_set_contents (f->state_file, "[radios\ngarbage", -1,
                                      NULL));

  restart_manager (f);
  g_assert_nonnull (rfk_manager_get_airplane_error (f->manager));
  g_assert_nonnull (strstr (rfk_manager_get_airplane_error (f->manager)
                              ->message, "corrupt"));
  listing = g_dir_open (dir, 0, NULL);
  while ((name = g_dir_read_name (listing)) != NULL)
    if (g_str_has_prefix (name, "airplane-mode.ini.corrupt-"))
      {
        g_autofree char *path = g_build_filename (dir, name, NULL);
        g_autofree char *contents = NULL;

        g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
        g_assert_cmpstr (contents, ==, "[radios\ngarbage");
        kept = TRUE;
      }
  g_assert_true (kept);

  g_assert_false (test_set_airplane (f->manager, FALSE, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
  g_assert_cmpstr (fixture_soft_states (f), ==, "phy0=off phy1=off hci0=off");

  /* Also for the next process (the CLI, a restart). */
  stop_manager (f);
  restart_manager (f);
  g_assert_nonnull (rfk_manager_get_airplane_error (f->manager));
  g_clear_error (&error);
  g_assert_false (test_set_airplane (f->manager, FALSE, &error));
  g_assert_cmpstr (fixture_soft_states (f), ==, "phy0=off phy1=off hci0=off");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) \
  g_test_add ("/airplane/" path, Fixture, NULL, fixture_setup, func, \
              fixture_teardown)
  ADD ("stale-memory-is-not-restored", test_stale_memory_is_not_restored);
  ADD ("renumbered-radios-are-recognised",
       test_renumbered_radios_are_recognised);
  ADD ("reloaded-virtual-radios-are-recognised",
       test_reloaded_virtual_radios_are_recognised);
  ADD ("dell-slider-is-left-out", test_dell_slider_is_left_out);
  ADD ("cards-that-swap-names-are-recognised",
       test_cards_that_swap_names_are_recognised);
  ADD ("radio-appearing-without-us-comes-up-blocked",
       test_radio_appearing_without_us_comes_up_blocked);
  ADD ("airplane-key-enters-then-leaves",
       test_airplane_key_enters_then_leaves);
  ADD ("airplane-mode-entered-over-several-reads",
       test_airplane_mode_entered_over_several_reads);
  ADD ("flood-of-flips-ends-as-the-flood-left-it",
       test_flood_of_flips_ends_as_the_flood_left_it);
  ADD ("radio-off-before-the-sweep-stays-off",
       test_radio_off_before_the_sweep_stays_off);
  ADD ("airplane-key-leaves-our-airplane-mode",
       test_airplane_key_leaves_our_airplane_mode);
  g_test_add ("/airplane/airplane-key-after-a-radio-request", Fixture,
              GINT_TO_POINTER (FALSE), fixture_setup,
              test_airplane_key_after_a_radio_request, fixture_teardown);
  g_test_add ("/airplane/airplane-key-after-a-radio-request-stock", Fixture,
              GINT_TO_POINTER (TRUE), fixture_setup,
              test_airplane_key_after_a_radio_request, fixture_teardown);
  ADD ("other-program-ends-airplane-mode",
       test_other_program_ends_airplane_mode);
  ADD ("other-program-ends-airplane-mode-over-several-reads",
       test_other_program_ends_airplane_mode_over_several_reads);
  ADD ("one-radio-unblocked-by-hand-is-left-alone",
       test_one_radio_unblocked_by_hand_is_left_alone);
  ADD ("start-drops-airplane-mode-no-longer-in-force",
       test_start_drops_airplane_mode_no_longer_in_force);
  ADD ("systemd-rfkill-restore-keeps-the-list",
       test_systemd_rfkill_restore_keeps_the_list);
  ADD ("types-changed-during-airplane-mode",
       test_types_changed_during_airplane_mode);
  ADD ("off-then-on-before-confirmation",
       test_off_then_on_before_confirmation);
  ADD ("corrupt-store-is-kept-and-reported",
       test_corrupt_store_is_kept_and_reported);
#undef ADD
  return g_test_run ();
}

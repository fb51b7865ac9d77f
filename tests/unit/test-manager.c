/*
 * test-manager.c: RfkManager against the fake kernel, scenario by
 * scenario, the way users live through them.
 */
#include <gio/gio.h>
#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rfk-device.h"
#include "rfk-event.h"
#include "rfk-manager-private.h"
#include "test-util.h"

#define BT RFK_TYPE_BLUETOOTH
#define WLAN RFK_TYPE_WLAN

static void
send_event (Fixture *f, guint32 idx, guint8 type, guint8 op, gboolean soft,
            gboolean hard, gsize size)
{
  guint8 buf[256] = { 0 };
  RfkEvent event = { .idx = idx, .type = type, .op = op, .soft = soft,
                     .hard = hard };

  g_assert_cmpuint (size, <=, sizeof buf);
  rfk_event_encode (&event, buf);
  /* Bytes past the V1 fields: reasons, then garbage a newer kernel
   * might send. */
  for (gsize i = RFK_EVENT_SIZE_V1; i < size; i++)
    buf[i] = 0xa0 + (i & 0xf);
  fake_rfkill_send_raw (f->fake, buf, size);
}

static void
write_sysfs_name (Fixture *f, guint32 idx, const char *name)
{
  g_autofree char *dir = g_strdup_printf ("%s/rfkill%u", f->sysfs_dir, idx);
  g_autofree char *path = g_build_filename (dir, "name", NULL);

  g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
  g_assert_true (g_file_set_contents (path, name, -1, NULL));
}

/* Starts the manager on the radios added so far and drops what it
 * reported while starting: the log holds only what the test does. */
static void
start_quietly (Fixture *f)
{
  fixture_listen (f);
  f->manager = fixture_start_manager (f);
  g_ptr_array_set_size (f->log, 0);
}

/* ---- the event stream ------------------------------------------------- */

static void
test_radios_appear_with_sysfs_names (Fixture *f, gconstpointer data)
{
  GPtrArray *devices;
  RfkDevice *d;
  g_autofree char *key = NULL;
  g_autofree char *log = NULL;

  fake_rfkill_add (f->fake, BT, NULL);
  fake_rfkill_add (f->fake, WLAN, "phy1");
  fake_rfkill_add (f->fake, WLAN, "phy0");
  fixture_listen (f);
  f->manager = fixture_start_manager (f);
  /* A type from a newer kernel, with a name in sysfs. */
  write_sysfs_name (f, 3, "future0");
  send_event (f, 3, 42, RFK_OP_ADD, FALSE, FALSE, RFK_EVENT_SIZE_EXT);
  test_settle (50);

  devices = rfk_manager_get_devices (f->manager);
  g_assert_cmpuint (devices->len, ==, 4);
  /* Sorted by type, then name; idx stays the kernel's. */
  d = devices->pdata[0];
  g_assert_cmpstr (d->name, ==, "phy0");
  g_assert_cmpuint (d->idx, ==, 2);
  g_assert_cmpstr (((RfkDevice *) devices->pdata[1])->name, ==, "phy1");
  g_assert_cmpstr (((RfkDevice *) devices->pdata[2])->name, ==, "hci0");
  d = devices->pdata[3];
  g_assert_cmpuint (d->type, ==, 42);
  g_assert_null (rfk_type_to_string (d->type));
  key = rfk_device_dup_key (d);
  g_assert_cmpstr (key, ==, "type42:future0");
  g_assert_true (rfk_manager_lookup (f->manager, 0) == devices->pdata[2]);
  g_assert_null (rfk_manager_lookup (f->manager, 4));

  log = test_take_log (f);
  g_assert_cmpstr (log, ==,
                   "added 0 hci0 soft=0 hard=0\n"
                   "added 1 phy1 soft=0 hard=0\n"
                   "added 2 phy0 soft=0 hard=0\n"
                   "state ready\n"
                   "added 3 future0 soft=0 hard=0");
}

static void
test_radio_without_sysfs_entry_is_named_by_idx (Fixture *f,
                                                gconstpointer data)
{
  g_setenv ("RFKILL_SYSFS_ROOT", "/nonexistent", TRUE);
  fake_rfkill_add (f->fake, WLAN, NULL);
  fixture_listen (f);
  f->manager = fixture_start_manager (f);
  g_assert_cmpstr (rfk_manager_lookup (f->manager, 0)->name, ==, "rfkill0");
}

static void
test_v1_kernel_gives_no_reasons (Fixture *f, gconstpointer data)
{
  RfkDevice *d;

  fake_rfkill_set_v1 (f->fake, TRUE);
  fake_rfkill_add (f->fake, WLAN, NULL);
  fake_rfkill_set_hard (f->fake, 0, TRUE, RFK_HARD_BLOCK_SIGNAL);
  fixture_listen (f);
  f->manager = fixture_start_manager (f);

  d = rfk_manager_lookup (f->manager, 0);
  g_assert_true (d->hard);
  g_assert_cmpuint (d->hard_reasons, ==, 0);
  /* No reason given: a hard block is taken for a switch. */
  g_assert_true (rfk_manager_get_hardware_blocked (f->manager));
}

static void
test_extended_events_carry_reasons (Fixture *f, gconstpointer data)
{
  RfkDevice *d;

  fake_rfkill_add (f->fake, WLAN, NULL);
  fake_rfkill_set_hard (f->fake, 0, TRUE, RFK_HARD_BLOCK_NOT_OWNER);
  fixture_listen (f);
  f->manager = fixture_start_manager (f);

  d = rfk_manager_lookup (f->manager, 0);
  g_assert_true (d->hard);
  g_assert_cmpuint (d->hard_reasons, ==, RFK_HARD_BLOCK_NOT_OWNER);
  /* Owned elsewhere is not a switch. */
  g_assert_false (rfk_manager_get_hardware_blocked (f->manager));

  fake_rfkill_set_hard (f->fake, 0, TRUE,
                        RFK_HARD_BLOCK_NOT_OWNER | RFK_HARD_BLOCK_SIGNAL);
  test_settle (20);
  g_assert_cmpuint (d->hard_reasons, ==,
                    RFK_HARD_BLOCK_NOT_OWNER | RFK_HARD_BLOCK_SIGNAL);
  g_assert_true (rfk_manager_get_hardware_blocked (f->manager));
}

static void
test_short_and_oversize_reads (Fixture *f, gconstpointer data)
{
  RfkManagerStats stats;
  RfkDevice *d;
  guint8 tiny[7] = { 5, 0, 0, 0, WLAN, RFK_OP_ADD, 1 };
  g_autofree char *log = NULL;

  start_quietly (f);

  fake_rfkill_send_raw (f->fake, tiny, 1);
  fake_rfkill_send_raw (f->fake, tiny, sizeof tiny);
  /* A future kernel's 40-byte event and a 200-byte monster (truncated
   * by the read, still decoded). */
  send_event (f, 7, WLAN, RFK_OP_ADD, TRUE, TRUE, 40);
  send_event (f, 8, BT, RFK_OP_ADD, FALSE, FALSE, 200);
  test_settle (30);

  rfk_manager_get_stats (f->manager, &stats);
  g_assert_cmpuint (stats.short_reads, ==, 2);
  /* the two ADDs, and the indicator state the manager asked for */
  g_assert_cmpuint (stats.events, ==, 3);
  g_assert_null (rfk_manager_lookup (f->manager, 5));
  d = rfk_manager_lookup (f->manager, 7);
  g_assert_nonnull (d);
  g_assert_true (d->soft && d->hard);
  g_assert_cmpuint (d->hard_reasons, ==, 0xa8);  /* byte 8 as sent */
  g_assert_nonnull (rfk_manager_lookup (f->manager, 8));
  log = test_take_log (f);
  g_assert_cmpstr (log, ==,
                   "added 7 rfkill7 soft=1 hard=1\n"
                   "airplane on\n"
                   "added 8 rfkill8 soft=0 hard=0\n"
                   "airplane off");
}

static void
test_unknown_op_is_ignored (Fixture *f, gconstpointer data)
{
  RfkManagerStats stats;
  g_autofree char *log = NULL;

  fake_rfkill_add (f->fake, WLAN, NULL);
  start_quietly (f);

  send_event (f, 0, WLAN, 77, TRUE, TRUE, 9);
  /* CHANGE_ALL is a request, never an event: also ignored. */
  send_event (f, 0, WLAN, RFK_OP_CHANGE_ALL, TRUE, TRUE, 9);
  test_settle (30);

  rfk_manager_get_stats (f->manager, &stats);
  g_assert_cmpuint (stats.unknown_ops, ==, 2);
  g_assert_false (rfk_manager_lookup (f->manager, 0)->soft);
  log = test_take_log (f);
  g_assert_cmpstr (log, ==, "");
}

static void
test_add_for_known_idx_replaces_it (Fixture *f, gconstpointer data)
{
  RfkDevice *d;
  g_autofree char *log = NULL;

  fake_rfkill_add (f->fake, WLAN, NULL);
  start_quietly (f);

  send_event (f, 0, BT, RFK_OP_ADD, TRUE, FALSE, 9);
  test_settle (30);

  d = rfk_manager_lookup (f->manager, 0);
  g_assert_cmpuint (d->type, ==, BT);
  g_assert_true (d->soft);
  g_assert_cmpuint (rfk_manager_get_devices (f->manager)->len, ==, 1);
  log = test_take_log (f);
  g_assert_cmpstr (log, ==,
                   "removed 0 phy0\n"
                   "added 0 phy0 soft=1 hard=0\n"
                   "airplane on");
}

static void
test_del_or_change_of_unknown_idx_is_ignored (Fixture *f, gconstpointer data)
{
  RfkManagerStats stats;
  g_autofree char *log = NULL;

  fake_rfkill_add (f->fake, WLAN, NULL);
  start_quietly (f);

  send_event (f, 77, WLAN, RFK_OP_DEL, FALSE, FALSE, 8);
  send_event (f, 78, WLAN, RFK_OP_CHANGE, TRUE, FALSE, 8);
  test_settle (30);
  rfk_manager_get_stats (f->manager, &stats);
  /* the ADD, the indicator state the manager asked for, and the two */
  g_assert_cmpuint (stats.events, ==, 4);
  g_assert_cmpuint (rfk_manager_get_devices (f->manager)->len, ==, 1);
  log = test_take_log (f);
  g_assert_cmpstr (log, ==, "");
}

static void
test_hot_unplug_and_replug_gets_new_idx (Fixture *f, gconstpointer data)
{
  guint32 idx;
  g_autofree char *log = NULL;

  fake_rfkill_add (f->fake, BT, NULL);
  start_quietly (f);

  idx = fake_rfkill_readd (f->fake, 0);
  g_assert_cmpuint (idx, ==, 1);
  test_settle (30);
  g_assert_null (rfk_manager_lookup (f->manager, 0));
  g_assert_cmpstr (rfk_manager_lookup (f->manager, 1)->name, ==, "hci0");
  log = test_take_log (f);
  g_assert_cmpstr (log, ==, "removed 0 hci0\nadded 1 hci0 soft=0 hard=0");
}

static void
test_airplane_light_events (Fixture *f, gconstpointer data)
{
  g_autofree char *log = NULL;

  fake_rfkill_add (f->fake, WLAN, NULL);
  fixture_listen (f);
  f->manager = fixture_start_manager (f);
  g_assert_false (rfk_manager_get_airplane_light (f->manager));
  g_ptr_array_set_size (f->log, 0);

  /* Kernel default rule: lit when every radio is blocked. */
  fake_rfkill_set_soft (f->fake, 0, TRUE);
  test_settle (30);
  g_assert_true (rfk_manager_get_airplane_light (f->manager));
  fake_rfkill_set_soft (f->fake, 0, FALSE);
  test_settle (30);
  g_assert_false (rfk_manager_get_airplane_light (f->manager));
  log = test_take_log (f);
  g_assert_cmpstr (log, ==,
                   "changed 0 phy0 soft=1 hard=0\nairplane on\n"
                   "light lit\n"
                   "airplane entered elsewhere\n"
                   "changed 0 phy0 soft=0 hard=0\nairplane off\n"
                   "light dark\n"
                   /* another program went in and out of airplane mode */
                   "airplane ended elsewhere");
}

/* ---- airplane mode ---------------------------------------------------- */

static void
setup_laptop (Fixture *f)
{
  /* Two Wi-Fi cards, one the user switched off, and Bluetooth. */
  fake_rfkill_add (f->fake, WLAN, NULL);
  fake_rfkill_add (f->fake, WLAN, NULL);
  fake_rfkill_add (f->fake, BT, NULL);
  fake_rfkill_set_soft (f->fake, 1, TRUE);
  start_quietly (f);
}

static void
test_airplane_mode_restores_each_radio (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *log = NULL;

  setup_laptop (f);
  g_assert_false (rfk_manager_get_airplane_mode (f->manager));

  g_assert_true (test_set_airplane (f->manager, TRUE, &error));
  g_assert_no_error (error);
  g_assert_true (rfk_manager_get_airplane_mode (f->manager));
  g_assert_cmpstr (fixture_soft_states (f), ==, "phy0=off phy1=off hci0=off");
  g_assert_true (g_file_test (f->state_file, G_FILE_TEST_EXISTS));
  g_assert_true (test_store_is_active ());
  /* One CHANGE_ALL per type: it also sets the kernel's global states. */
  g_assert_cmpuint (fake_rfkill_get_n_writes (f->fake), ==, 8);

  g_assert_true (test_set_airplane (f->manager, FALSE, &error));
  g_assert_no_error (error);
  g_assert_false (rfk_manager_get_airplane_mode (f->manager));
  /* The Wi-Fi card that was off before stays off. */
  g_assert_cmpstr (fixture_soft_states (f), ==, "phy0=on phy1=off hci0=on");
  g_assert_false (test_store_is_active ());
  /* phy0 by CHANGE (phy1 stays off, so the Wi-Fi global state stays
   * "blocked"), then one CHANGE_ALL for each other type: Bluetooth comes
   * on with it and the global states are back to "unblocked". */
  g_assert_cmpuint (fake_rfkill_get_n_writes (f->fake), ==, 8 + 1 + 7);

  /* Announced once each way: no flapping while radios go one by one. */
  log = test_take_log (f);
  g_assert_cmpstr (log, ==,
                   "changed 0 phy0 soft=1 hard=0\n"
                   "changed 2 hci0 soft=1 hard=0\n"
                   "airplane on\n"
                   "light lit\n"
                   "changed 0 phy0 soft=0 hard=0\n"
                   "airplane off\n"
                   "light dark\n"
                   "changed 2 hci0 soft=0 hard=0");
}

static void
test_radio_hot_plugged_during_airplane_mode_is_remembered (Fixture *f,
                                                           gconstpointer d)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *log = NULL;
  guint32 bt, wwan;

  setup_laptop (f);
  g_assert_true (test_set_airplane (f->manager, TRUE, &error));
  g_assert_no_error (error);
  g_ptr_array_set_size (f->log, 0);

  /* The Bluetooth dongle is unplugged and plugged back in: new idx, and
   * its driver brings it up unblocked.  So is the Wi-Fi card that was
   * off before airplane mode.  And a modem nobody saw before appears. */
  fake_rfkill_del (f->fake, 2);
  bt = fake_rfkill_add_full (f->fake, BT, "hci0", FALSE);
  fake_rfkill_del (f->fake, 1);
  fake_rfkill_add_full (f->fake, WLAN, "phy1", FALSE);
  wwan = fake_rfkill_add_full (f->fake, RFK_TYPE_WWAN, NULL, FALSE);
  test_settle (50);

  /* All kept off, and airplane mode never dropped in between. */
  g_assert_cmpstr (fixture_soft_states (f), ==,
                   "phy0=off hci0=off phy1=off wwan0=off");
  g_assert_true (rfk_manager_get_airplane_mode (f->manager));
  log = test_take_log (f);
  g_assert_null (strstr (log, "airplane"));
  g_assert_nonnull (rfk_manager_lookup (f->manager, bt));
  g_assert_nonnull (rfk_manager_lookup (f->manager, wwan));

  g_assert_true (test_set_airplane (f->manager, FALSE, &error));
  g_assert_no_error (error);
  /* Recognised by type and name: Bluetooth back on, the Wi-Fi card that
   * was off before stays off, the newcomer gets the state it came with. */
  g_assert_cmpstr (fixture_soft_states (f), ==, "phy0=on hci0=on phy1=off wwan0=on");
}

static void
test_hardware_switch_flipped_while_in_airplane_mode (Fixture *f,
                                                     gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *log = NULL;

  setup_laptop (f);
  g_assert_true (test_set_airplane (f->manager, TRUE, &error));
  g_ptr_array_set_size (f->log, 0);

  fake_rfkill_set_switch (f->fake, TRUE);
  test_settle (30);
  g_assert_true (rfk_manager_get_hardware_blocked (f->manager));
  fake_rfkill_set_switch (f->fake, FALSE);
  test_settle (30);
  g_assert_false (rfk_manager_get_hardware_blocked (f->manager));

  /* Still airplane mode: the radios stay soft-blocked. */
  g_assert_true (rfk_manager_get_airplane_mode (f->manager));
  g_assert_cmpstr (fixture_soft_states (f), ==, "phy0=off phy1=off hci0=off");
  log = test_take_log (f);
  g_assert_cmpstr (log, ==,
                   "changed 0 phy0 soft=1 hard=1\n"
                   "hardware-switch phy0 on\n"
                   "changed 1 phy1 soft=1 hard=1\n"
                   "hardware-switch phy1 on\n"
                   "changed 2 hci0 soft=1 hard=1\n"
                   "hardware-switch hci0 on\n"
                   "changed 0 phy0 soft=1 hard=0\n"
                   "hardware-switch phy0 off\n"
                   "changed 1 phy1 soft=1 hard=0\n"
                   "hardware-switch phy1 off\n"
                   "changed 2 hci0 soft=1 hard=0\n"
                   "hardware-switch hci0 off");

  g_assert_true (test_set_airplane (f->manager, FALSE, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (fixture_soft_states (f), ==, "phy0=on phy1=off hci0=on");
}

static void
test_hardware_switch_alone_means_airplane_mode (Fixture *f,
                                                gconstpointer data)
{
  g_autoptr (GError) error = NULL;

  setup_laptop (f);
  fake_rfkill_set_switch (f->fake, TRUE);
  test_settle (30);
  g_assert_true (rfk_manager_get_airplane_mode (f->manager));

  /* Turning it off cannot beat the switch: say so, write nothing. */
  g_assert_false (test_set_airplane (f->manager, FALSE, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_BUSY);
  g_assert_nonnull (strstr (error->message, "hardware switch"));
  g_assert_cmpuint (fake_rfkill_get_n_writes (f->fake), ==, 0);

  fake_rfkill_set_switch (f->fake, FALSE);
  test_settle (30);
  g_assert_false (rfk_manager_get_airplane_mode (f->manager));
  g_assert_cmpstr (fixture_soft_states (f), ==, "phy0=on phy1=off hci0=on");
}

static void
test_other_program_unblocks_during_airplane_mode (Fixture *f,
                                                  gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  guint writes;

  setup_laptop (f);
  g_assert_true (test_set_airplane (f->manager, TRUE, &error));
  writes = fake_rfkill_get_n_writes (f->fake);
  g_ptr_array_set_size (f->log, 0);

  /* "rfkill unblock 0" from a terminal: airplane mode is over.  We do
   * not fight it and forget the restore list. */
  fake_rfkill_set_soft (f->fake, 0, FALSE);
  test_settle (30);
  g_assert_false (rfk_manager_get_airplane_mode (f->manager));
  /* The rest of an "unblock all" may still come; the list goes once
   * the manager's wait for it (500 ms) is over. */
  test_settle (700);
  g_assert_false (test_store_is_active ());

  /* And a radio plugged in now is left alone. */
  fake_rfkill_add_full (f->fake, BT, "hci1", FALSE);
  test_settle (30);
  g_assert_cmpuint (fake_rfkill_get_n_writes (f->fake), ==, writes);
  g_assert_cmpstr (fixture_soft_states (f), ==,
                   "phy0=on phy1=off hci0=off hci1=on");
}

static void
test_restart_during_airplane_mode (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (RfkManager) second = NULL;

  setup_laptop (f);
  g_assert_true (test_set_airplane (f->manager, TRUE, &error));
  /* The applet crashes (or the CLI exits); another process starts. */
  g_clear_object (&f->manager);
  test_settle (20);

  second = fixture_start_manager (f);
  g_assert_true (rfk_manager_get_airplane_mode (second));
  g_assert_true (test_set_airplane (second, FALSE, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (fixture_soft_states (f), ==, "phy0=on phy1=off hci0=on");
}

static void
test_only_configured_types_count (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;

  setup_laptop (f);
  rfk_manager_set_airplane_types (f->manager, 1u << WLAN);
  g_assert_cmpuint (rfk_manager_get_airplane_types (f->manager), ==,
                    1u << WLAN);

  g_assert_true (test_set_airplane (f->manager, TRUE, &error));
  g_assert_no_error (error);
  /* Bluetooth headphones keep playing in airplane mode. */
  g_assert_cmpstr (fixture_soft_states (f), ==, "phy0=off phy1=off hci0=on");
  g_assert_true (rfk_manager_get_airplane_mode (f->manager));

  g_assert_true (test_set_airplane (f->manager, FALSE, &error));
  g_assert_cmpstr (fixture_soft_states (f), ==, "phy0=on phy1=off hci0=on");
}

static void
test_airplane_mode_without_radios_fails (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;

  fixture_listen (f);
  f->manager = fixture_start_manager (f);
  g_assert_false (rfk_manager_get_airplane_mode (f->manager));
  g_assert_false (test_set_airplane (f->manager, TRUE, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  g_assert_nonnull (strstr (error->message, f->socket_path));
}

static void
test_unsaveable_state_blocks_nothing (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_path_get_dirname (f->state_file);
  g_autofree char *parent = g_path_get_dirname (dir);

  setup_laptop (f);
  /* A file where the state directory should be: cannot save. */
  g_assert_cmpint (g_mkdir_with_parents (parent, 0700), ==, 0);
  g_assert_true (g_file_set_contents (dir, "x", 1, NULL));
  g_assert_false (test_set_airplane (f->manager, TRUE, &error));
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, dir));
  /* Reported where the user sees it, not only in the journal. */
  g_assert_nonnull (rfk_manager_get_airplane_error (f->manager));
  g_assert_cmpstr (fixture_soft_states (f), ==, "phy0=on phy1=off hci0=on");
  g_assert_cmpuint (fake_rfkill_get_n_writes (f->fake), ==, 0);
}

/* ---- single radios and coexistence ------------------------------------ */

static void
test_never_rewrites_states_it_did_not_change (Fixture *f, gconstpointer d)
{
  g_autoptr (GError) error = NULL;

  setup_laptop (f);
  /* Already in that state: success without a write. */
  g_assert_true (test_set_blocked (f->manager, 1, TRUE, &error));
  g_assert_no_error (error);
  /* Not in airplane mode: "off" touches nothing (phy1 stays off). */
  g_assert_true (test_set_airplane (f->manager, FALSE, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (fake_rfkill_get_n_writes (f->fake), ==, 0);
  g_assert_cmpstr (fixture_soft_states (f), ==, "phy0=on phy1=off hci0=on");

  g_assert_true (test_set_blocked (f->manager, 2, TRUE, &error));
  g_assert_cmpuint (fake_rfkill_get_n_writes (f->fake), ==, 1);
  g_assert_cmpstr (fixture_soft_states (f), ==, "phy0=on phy1=off hci0=off");
}

typedef struct {
  guint done;
  GError *first_error;
  gboolean second_ok;
} Supersede;

static void
first_cb (GObject *source, GAsyncResult *res, gpointer data)
{
  Supersede *s = data;

  g_assert_false (rfk_manager_set_blocked_finish (RFK_MANAGER (source), res,
                                                  &s->first_error));
  s->done++;
}

static void
second_cb (GObject *source, GAsyncResult *res, gpointer data)
{
  Supersede *s = data;
  g_autoptr (GError) error = NULL;

  s->second_ok = rfk_manager_set_blocked_finish (RFK_MANAGER (source), res,
                                                 &error);
  g_assert_no_error (error);
  s->done++;
}

static gboolean
both_done (gpointer data)
{
  return ((Supersede *) data)->done == 2;
}

static void
test_newer_request_supersedes_pending_one (Fixture *f, gconstpointer data)
{
  Supersede s = { 0 };

  setup_laptop (f);
  /* The user clicks "Wi-Fi off" and, before the kernel answered, "on". */
  rfk_manager_set_blocked_async (f->manager, 0, TRUE, NULL, first_cb, &s);
  rfk_manager_set_blocked_async (f->manager, 0, FALSE, NULL, second_cb, &s);
  g_assert_true (test_wait_for (both_done, &s, 3000));

  g_assert_error (s.first_error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&s.first_error);
  g_assert_true (s.second_ok);
  g_assert_cmpstr (fixture_soft_states (f), ==, "phy0=on phy1=off hci0=on");
  g_assert_false (rfk_manager_lookup (f->manager, 0)->soft);
}

static void
airplane_first_cb (GObject *source, GAsyncResult *res, gpointer data)
{
  Supersede *s = data;

  g_assert_false (rfk_manager_set_airplane_mode_finish (RFK_MANAGER (source),
                                                        res,
                                                        &s->first_error));
  s->done++;
}

static void
airplane_second_cb (GObject *source, GAsyncResult *res, gpointer data)
{
  Supersede *s = data;
  g_autoptr (GError) error = NULL;

  s->second_ok = rfk_manager_set_airplane_mode_finish (RFK_MANAGER (source),
                                                       res, &error);
  g_assert_no_error (error);
  s->done++;
}

static void
test_airplane_toggled_twice_quickly (Fixture *f, gconstpointer data)
{
  Supersede s = { 0 };

  setup_laptop (f);
  /* A double click: on, and off again before the kernel answered.  The
   * blocks already written still land; off must undo them. */
  rfk_manager_set_airplane_mode_async (f->manager, TRUE, NULL,
                                       airplane_first_cb, &s);
  rfk_manager_set_airplane_mode_async (f->manager, FALSE, NULL,
                                       airplane_second_cb, &s);
  g_assert_true (test_wait_for (both_done, &s, 3000));
  g_assert_error (s.first_error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&s.first_error);
  g_assert_true (s.second_ok);
  test_settle (30);
  g_assert_cmpstr (fixture_soft_states (f), ==, "phy0=on phy1=off hci0=on");
  g_assert_false (rfk_manager_get_airplane_mode (f->manager));
  g_assert_false (test_store_is_active ());
}

static void
test_cancelled_request_reports_cancelled (Fixture *f, gconstpointer data)
{
  g_autoptr (GCancellable) cancellable = g_cancellable_new ();
  Supersede s = { 0 };

  setup_laptop (f);
  fake_rfkill_set_responsive (f->fake, FALSE);
  rfk_manager_set_blocked_async (f->manager, 0, TRUE, cancellable, first_cb,
                                 &s);
  g_cancellable_cancel (cancellable);
  /* One callback is expected: starting the count at 1 makes both_done()
   * mean "the first one came". */
  s.done = 1;
  g_assert_true (test_wait_for (both_done, &s, 3000));
  g_assert_error (s.first_error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&s.first_error);
  /* A second completion (the confirm timeout, or the kernel's late
   * answer, finishing the request again) would come later: wait past the
   * manager's 5 s confirm timeout and count again. */
  test_settle (5500);
  g_assert_cmpuint (s.done, ==, 2);
  g_assert_null (s.first_error);
}

static void
test_kernel_that_never_confirms_times_out (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;

  setup_laptop (f);
  fake_rfkill_set_responsive (f->fake, FALSE);
  /* One second: the message counts it as one (ngettext), not "1 seconds". */
  rfk_manager_set_confirm_timeout (f->manager, 1000);
  g_assert_false (test_set_blocked (f->manager, 0, TRUE, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT);
  g_assert_nonnull (strstr (error->message, f->socket_path));
  g_assert_true (g_str_has_suffix (error->message, " within 1 second"));
}

static void
test_write_rejected_by_kernel_is_reported (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;

  /* The kernel rejects CHANGE for types it does not know (EINVAL): a
   * radio announced by a newer relay than the kernel behind it. */
  fixture_listen (f);
  f->manager = fixture_start_manager (f);
  send_event (f, 0, 42, RFK_OP_ADD, FALSE, FALSE, RFK_EVENT_SIZE_EXT);
  test_settle (50);
  g_assert_false (test_set_blocked (f->manager, 0, TRUE, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, f->socket_path));
  g_assert_false (rfk_manager_lookup (f->manager, 0)->soft);
}

static void
test_unknown_idx_request_fails (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;

  setup_laptop (f);
  g_assert_false (test_set_blocked (f->manager, 99, TRUE, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  g_assert_cmpuint (fake_rfkill_get_n_writes (f->fake), ==, 0);
}

/* ---- the device itself ------------------------------------------------ */

static gboolean
is_ready (gpointer data)
{
  return rfk_manager_get_state (data) == RFK_MANAGER_STATE_READY;
}

static gboolean
is_no_device (gpointer data)
{
  return rfk_manager_get_state (data) == RFK_MANAGER_STATE_NO_DEVICE;
}

static void
test_device_missing_then_appearing (Fixture *f, gconstpointer data)
{
  const GError *error;

  fake_rfkill_add (f->fake, WLAN, NULL);
  f->manager = rfk_manager_new (f->socket_path);
  rfk_manager_start (f->manager);

  g_assert_cmpint (rfk_manager_get_state (f->manager), ==,
                   RFK_MANAGER_STATE_NO_DEVICE);
  error = rfk_manager_get_error (f->manager);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  g_assert_nonnull (strstr (error->message, f->socket_path));
  g_assert_cmpuint (rfk_manager_get_devices (f->manager)->len, ==, 0);

  /* Waiting costs nothing: no timer, no idle, just the directory
   * watch.  Count what the main loop dispatches in 300 ms. */
  {
    gint64 end = g_get_monotonic_time () + 300 * 1000;
    guint dispatched = 0;

    while (g_get_monotonic_time () < end)
      {
        if (g_main_context_iteration (NULL, FALSE))
          dispatched++;
        else
          g_usleep (1000);
      }
    g_assert_cmpuint (dispatched, <, 5);
  }

  /* The module gets loaded: the node appears, the manager notices. */
  fixture_listen (f);
  g_assert_true (test_wait_for (is_ready, f->manager, 3000));
  g_assert_null (rfk_manager_get_error (f->manager));
  g_assert_cmpuint (rfk_manager_get_devices (f->manager)->len, ==, 1);
}

static void
test_device_goes_away_and_comes_back (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *log = NULL;

  setup_laptop (f);
  g_clear_pointer (&f->fake, fake_rfkill_free);
  g_assert_true (test_wait_for (is_no_device, f->manager, 3000));
  g_assert_cmpuint (rfk_manager_get_devices (f->manager)->len, ==, 0);
  g_assert_false (test_set_airplane (f->manager, TRUE, &error));
  g_assert_nonnull (error);
  g_clear_error (&error);

  f->fake = fake_rfkill_new (f->sysfs_dir);
  fake_rfkill_add (f->fake, BT, NULL);
  fixture_listen (f);
  g_assert_true (test_wait_for (is_ready, f->manager, 3000));
  g_assert_cmpuint (rfk_manager_get_devices (f->manager)->len, ==, 1);
  log = test_take_log (f);
  g_assert_nonnull (strstr (log, "removed 2 hci0\n"));
  g_assert_nonnull (strstr (log, "state no-device\n"));
  g_assert_nonnull (strstr (log, "added 0 hci0 soft=0 hard=0\nstate ready"));
}

static void
test_relay_vanishing_is_an_error_not_a_crash (Fixture *f, gconstpointer d)
{
  g_autoptr (GError) error = NULL;

  setup_laptop (f);
  /* The peer is gone before the manager noticed: the request fails at
   * once with the cause (EPIPE) and the path, then the manager waits for
   * the device to come back.  (Linux raises no SIGPIPE for SEQPACKET;
   * the transport still sends with MSG_NOSIGNAL for other kinds.) */
  g_clear_pointer (&f->fake, fake_rfkill_free);
  g_assert_false (test_set_blocked (f->manager, 0, TRUE, &error));
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, f->socket_path));
  g_assert_nonnull (strstr (error->message, g_strerror (EPIPE)));
  g_assert_true (test_wait_for (is_no_device, f->manager, 3000));
}

static void
test_permission_denied_names_the_udev_rule (Fixture *f, gconstpointer data)
{
  pid_t pid;
  int status;

  fake_rfkill_add (f->fake, WLAN, NULL);
  fixture_listen (f);
  /* connect() needs write permission on the socket.  Root ignores it,
   * so as root the check runs in a child that became "nobody". */
  g_assert_cmpint (g_chmod (f->dir, 0755), ==, 0);
  g_assert_cmpint (g_chmod (f->socket_path, 0), ==, 0);

  pid = fork ();
  g_assert_cmpint (pid, >=, 0);
  if (pid == 0)
    {
      g_autoptr (RfkManager) manager = NULL;
      const GError *error;

      if (geteuid () == 0 && (setgid (65534) < 0 || setuid (65534) < 0))
        _exit (10);
      manager = rfk_manager_new (f->socket_path);
      rfk_manager_start (manager);
      if (rfk_manager_get_state (manager) != RFK_MANAGER_STATE_NO_PERMISSION)
        _exit (11);
      error = rfk_manager_get_error (manager);
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED)
          || strstr (error->message, f->socket_path) == NULL
          || strstr (error->message, "uaccess") == NULL
          || strstr (error->message, "/dev/rfkill") == NULL)
        _exit (12);
      _exit (0);
    }
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  g_assert_true (WIFEXITED (status));
  g_assert_cmpint (WEXITSTATUS (status), ==, 0);
}

/* --list needs no write access, like util-linux rfkill: a character
 * device is opened O_RDONLY.  (Root ignores file modes, so the test looks
 * at the open flags; /dev/ptmx is a character device anyone may open and
 * that has nothing to read, like /dev/rfkill without radios.) */
static void
test_read_only_manager_opens_the_device_read_only (Fixture *f,
                                                   gconstpointer data)
{
  g_autoptr (RfkManager) manager = NULL;
  int flags;

  if (!g_file_test ("/dev/ptmx", G_FILE_TEST_EXISTS))
    {
      g_test_skip ("no /dev/ptmx");
      return;
    }
  manager = rfk_manager_new ("/dev/ptmx");
  rfk_manager_set_read_only (manager, TRUE);
  rfk_manager_start (manager);
  g_assert_cmpint (rfk_manager_get_state (manager), ==,
                   RFK_MANAGER_STATE_READY);
  g_assert_cmpint (manager->fd, >=, 0);
  flags = fcntl (manager->fd, F_GETFL);
  g_assert_cmpint (flags & O_ACCMODE, ==, O_RDONLY);
  g_assert_cmpuint (rfk_manager_get_devices (manager)->len, ==, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) \
  g_test_add ("/manager/" path, Fixture, NULL, fixture_setup, func, \
              fixture_teardown)
  ADD ("radios-appear-with-their-sysfs-names",
       test_radios_appear_with_sysfs_names);
  ADD ("radio-without-sysfs-entry-is-named-by-idx",
       test_radio_without_sysfs_entry_is_named_by_idx);
  ADD ("v1-kernel-gives-no-reasons", test_v1_kernel_gives_no_reasons);
  ADD ("extended-events-carry-reasons", test_extended_events_carry_reasons);
  ADD ("short-and-oversize-reads", test_short_and_oversize_reads);
  ADD ("unknown-op-is-ignored", test_unknown_op_is_ignored);
  ADD ("add-for-known-idx-replaces-it", test_add_for_known_idx_replaces_it);
  ADD ("del-or-change-of-unknown-idx-is-ignored",
       test_del_or_change_of_unknown_idx_is_ignored);
  ADD ("hot-unplug-and-replug-gets-new-idx",
       test_hot_unplug_and_replug_gets_new_idx);
  ADD ("airplane-light-events", test_airplane_light_events);
  ADD ("airplane-mode-restores-each-radio",
       test_airplane_mode_restores_each_radio);
  ADD ("radio-hot-plugged-during-airplane-mode-is-remembered",
       test_radio_hot_plugged_during_airplane_mode_is_remembered);
  ADD ("hardware-switch-flipped-while-in-airplane-mode",
       test_hardware_switch_flipped_while_in_airplane_mode);
  ADD ("hardware-switch-alone-means-airplane-mode",
       test_hardware_switch_alone_means_airplane_mode);
  ADD ("other-program-unblocks-during-airplane-mode",
       test_other_program_unblocks_during_airplane_mode);
  ADD ("restart-during-airplane-mode", test_restart_during_airplane_mode);
  ADD ("only-configured-types-count", test_only_configured_types_count);
  ADD ("airplane-mode-without-radios-fails",
       test_airplane_mode_without_radios_fails);
  ADD ("unsaveable-state-blocks-nothing",
       test_unsaveable_state_blocks_nothing);
  ADD ("never-rewrites-states-it-did-not-change",
       test_never_rewrites_states_it_did_not_change);
  ADD ("newer-request-supersedes-pending-one",
       test_newer_request_supersedes_pending_one);
  ADD ("airplane-toggled-twice-quickly",
       test_airplane_toggled_twice_quickly);
  ADD ("cancelled-request-reports-cancelled",
       test_cancelled_request_reports_cancelled);
  ADD ("kernel-that-never-confirms-times-out",
       test_kernel_that_never_confirms_times_out);
  ADD ("write-rejected-by-kernel-is-reported",
       test_write_rejected_by_kernel_is_reported);
  ADD ("unknown-idx-request-fails", test_unknown_idx_request_fails);
  ADD ("device-missing-then-appearing", test_device_missing_then_appearing);
  ADD ("device-goes-away-and-comes-back",
       test_device_goes_away_and_comes_back);
  ADD ("relay-vanishing-is-an-error-not-a-crash",
       test_relay_vanishing_is_an_error_not_a_crash);
  ADD ("read-only-manager-opens-the-device-read-only",
       test_read_only_manager_opens_the_device_read_only);
  ADD ("permission-denied-names-the-udev-rule",
       test_permission_denied_names_the_udev_rule);
#undef ADD
  return g_test_run ();
}

/*
 * test-history.c: the history of radio changes (rfk-history.h): the file
 * two processes share, its bounds and its bad forms; and the causes the
 * gui suite's doors (tests/gui/test-history.py) cannot reach: resume,
 * NetworkManager, airplane mode's own writes, and a sweep that is not
 * the key.
 */
#include <gio/gio.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>

#include "rfk-device.h"
#include "rfk-history.h"
#include "rfk-state-file.h"
#include "rfk-manager-testing.h"
#include "test-util.h"

#define WLAN RFK_TYPE_WLAN
#define BT RFK_TYPE_BLUETOOTH

static RfkHistoryEntry *
entry_at (gint64 time_us, const char *name, RfkCause cause)
{
  RfkHistoryEntry *e = g_new0 (RfkHistoryEntry, 1);

  e->time_us = time_us;
  e->name = g_strdup (name);
  e->type = WLAN;
  e->key = g_strdup_printf ("wlan:%s", name);
  e->from = RFK_RADIO_ON;
  e->to = RFK_RADIO_OFF;
  e->cause = cause;
  e->by = cause == RFK_CAUSE_DBUS ? g_strdup ("gnome-shell") : NULL;
  return e;
}

static RfkHistory *
reread (void)
{
  RfkHistory *history = rfk_history_new ();
  g_autoptr (GError) error = NULL;

  g_assert_true (rfk_history_read (history, &error));
  g_assert_no_error (error);
  return history;
}

/* 150 changes keep the newest 100, in order, on disk (0600) too. */
static void
test_bounded (Fixture *f, gconstpointer data)
{
  g_autoptr (RfkHistory) history = rfk_history_new ();
  g_autoptr (RfkHistory) again = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *path = rfk_history_dup_path ();
  GPtrArray *entries;
  GStatBuf st;

  for (guint i = 0; i < 150; i++)
    {
      g_autofree char *name = g_strdup_printf ("phy%u", i);

      rfk_history_add (history, entry_at (1000 + i, name, RFK_CAUSE_MENU));
    }
  entries = rfk_history_get_entries (history);
  g_assert_cmpuint (entries->len, ==, RFK_HISTORY_MAX);
  g_assert_cmpstr (((RfkHistoryEntry *) entries->pdata[0])->name, ==,
                   "phy50");
  g_assert_true (rfk_history_flush (history, &error));
  g_assert_no_error (error);
  g_assert_cmpint (g_stat (path, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 0777, ==, 0600);

  again = reread ();
  entries = rfk_history_get_entries (again);
  g_assert_cmpuint (entries->len, ==, RFK_HISTORY_MAX);
  for (guint i = 0; i < entries->len; i++)
    {
      RfkHistoryEntry *e = entries->pdata[i];
      g_autofree char *name = g_strdup_printf ("phy%u", 50 + i);

      g_assert_cmpstr (e->name, ==, name);
      g_assert_cmpint (e->time_us, ==, 1050 + i);
      g_assert_cmpint (e->cause, ==, RFK_CAUSE_MENU);
      g_assert_cmpint (e->from, ==, RFK_RADIO_ON);
      g_assert_cmpint (e->to, ==, RFK_RADIO_OFF);
    }
}

/* The applet and the CLI each add to the one file: neither loses what
 * the other wrote, and the merge is by time. */
static void
test_two_writers_merge (Fixture *f, gconstpointer data)
{
  g_autoptr (RfkHistory) applet = rfk_history_new ();
  g_autoptr (RfkHistory) cli = rfk_history_new ();
  g_autoptr (RfkHistory) seen = NULL;
  g_autoptr (GError) error = NULL;
  const char *order[] = { "a1", "c1", "a2", "c2", "a3" };
  GPtrArray *entries;

  g_assert_true (rfk_history_load (applet, &error));
  g_assert_true (rfk_history_load (cli, &error));
  rfk_history_add (applet, entry_at (10, "a1", RFK_CAUSE_DBUS));
  rfk_history_add (cli, entry_at (20, "c1", RFK_CAUSE_CLI));
  g_assert_true (rfk_history_flush (applet, &error));
  rfk_history_add (applet, entry_at (30, "a2", RFK_CAUSE_MENU));
  rfk_history_add (cli, entry_at (40, "c2", RFK_CAUSE_CLI));
  g_assert_true (rfk_history_flush (cli, &error));
  rfk_history_add (applet, entry_at (50, "a3", RFK_CAUSE_KEY));
  g_assert_true (rfk_history_flush (applet, &error));
  g_assert_no_error (error);

  seen = reread ();
  entries = rfk_history_get_entries (seen);
  g_assert_cmpuint (entries->len, ==, G_N_ELEMENTS (order));
  for (guint i = 0; i < entries->len; i++)
    g_assert_cmpstr (((RfkHistoryEntry *) entries->pdata[i])->name, ==,
                     order[i]);
  g_assert_cmpstr (((RfkHistoryEntry *) entries->pdata[0])->by, ==,
                   "gnome-shell");
  /* The applet's own copy is the merge too. */
  g_assert_cmpuint (rfk_history_get_entries (applet)->len, ==, 5);
}

/* Runs the main loop for ms: the applet's autosave timer and the
 * replies of its worker thread are dispatched there. */
static void
spin (guint ms)
{
  gint64 until = g_get_monotonic_time () + ms * G_TIME_SPAN_MILLISECOND;

  while (g_get_monotonic_time () < until)
    g_main_context_iteration (NULL, FALSE), g_usleep (1000);
}

static char *
names (GPtrArray *entries)
{
  GString *s = g_string_new (NULL);

  for (guint i = 0; i < entries->len; i++)
    g_string_append_printf (s, "%s%s", i ? " " : "",
                            ((RfkHistoryEntry *) entries->pdata[i])->name);
  return g_string_free (s, FALSE);
}

static char *
names_on_disk (void)
{
  g_autoptr (RfkHistory) seen = reread ();

  return names (rfk_history_get_entries (seen));
}

/* An autosaving history whose save of FIRST is in flight in its worker
 * thread, waiting for the state lock that this thread holds: the lock
 * is returned.  The autosave timer is 500 ms; 900 ms leaves it room. */
static RfkStateLock *
save_in_flight (RfkHistory *history, const char *first)
{
  g_autoptr (GError) error = NULL;
  RfkStateLock *lock;

  g_assert_true (rfk_history_load (history, &error));
  rfk_history_set_autosave (history, TRUE);
  lock = rfk_state_file_lock (&error);
  g_assert_nonnull (lock);
  rfk_history_add (history, entry_at (10, first, RFK_CAUSE_MENU));
  spin (900);
  return lock;
}

/* The applet's autosave writes (and fsyncs) from a worker thread: while
 * another holder keeps the state lock, and so the save waits, the main
 * loop goes on and nothing is written; once the lock is free, the file
 * gets what waited and what was added meanwhile, once each. */
static void
test_autosave_off_main_thread (Fixture *f, gconstpointer data)
{
  g_autoptr (RfkHistory) history = rfk_history_new ();
  g_autofree char *path = rfk_history_dup_path ();
  g_autofree char *seen = NULL;
  RfkStateLock *lock = save_in_flight (history, "a1");
  gint64 deadline;

  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
  rfk_history_add (history, entry_at (20, "a2", RFK_CAUSE_MENU));
  spin (100);
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
  rfk_state_lock_release (lock);
  deadline = g_get_monotonic_time () + 10 * G_TIME_SPAN_SECOND;
  do
    {
      spin (50);
      g_clear_pointer (&seen, g_free);
      if (g_file_test (path, G_FILE_TEST_EXISTS))
        seen = names_on_disk ();
    }
  while (g_strcmp0 (seen, "a1 a2") != 0 && g_get_monotonic_time () < deadline);
  g_assert_cmpstr (seen, ==, "a1 a2");
  g_clear_pointer (&seen, g_free);
  seen = names (rfk_history_get_entries (history));
  g_assert_cmpstr (seen, ==, "a1 a2");
}

/* A synchronous flush (the CLI's, the applet's end) while an autosave
 * waits in its thread: it waits for that save and writes the rest after
 * it, nothing lost and nothing twice.  So does the last unref. */
static void
test_flush_waits_for_autosave (Fixture *f, gconstpointer data)
{
  RfkHistory *history = rfk_history_new ();
  g_autoptr (GError) error = NULL;
  g_autofree char *seen = NULL;
  RfkStateLock *lock = save_in_flight (history, "a1");

  rfk_history_add (history, entry_at (20, "a2", RFK_CAUSE_MENU));
  rfk_state_lock_release (lock);
  g_assert_true (rfk_history_flush (history, &error));
  g_assert_no_error (error);
  seen = names_on_disk ();
  g_assert_cmpstr (seen, ==, "a1 a2");
  g_clear_pointer (&seen, g_free);
  seen = names (rfk_history_get_entries (history));
  g_assert_cmpstr (seen, ==, "a1 a2");

  /* One more save in flight, one more entry behind it, then the end. */
  lock = rfk_state_file_lock (&error);
  rfk_history_add (history, entry_at (30, "a3", RFK_CAUSE_MENU));
  spin (900);
  rfk_history_add (history, entry_at (40, "a4", RFK_CAUSE_MENU));
  rfk_state_lock_release (lock);
  g_object_unref (history);
  g_clear_pointer (&seen, g_free);
  seen = names_on_disk ();
  g_assert_cmpstr (seen, ==, "a1 a2 a3 a4");
  spin (200);  /* the worker's late reply finds nothing to do */
}

/* Reading the file while an autosave is in flight: that save's entries
 * are in neither the file nor the unsaved list until it is applied, so
 * the read waits for it and does not lose them. */
static void
test_read_waits_for_autosave (Fixture *f, gconstpointer data)
{
  g_autoptr (RfkHistory) history = rfk_history_new ();
  g_autoptr (GError) error = NULL;
  g_autofree char *seen = NULL;

  rfk_state_lock_release (save_in_flight (history, "a1"));
  g_assert_true (rfk_history_read (history, &error));
  g_assert_no_error (error);
  seen = names (rfk_history_get_entries (history));
  g_assert_cmpstr (seen, ==, "a1");
}

static void
write_file (const char *contents)
{
  g_autofree char *path = rfk_history_dup_path ();
  g_autofree char *dir = g_path_get_dirname (path);
  g_autoptr (GError) error = NULL;

  g_assert_cmpint (g_mkdir_with_parents (dir, 0700), ==, 0);
  g_assert_true (g_file_set_contents (path, contents, -1, &error));
}

static guint
count_corrupt_copies (void)
{
  g_autofree char *path = rfk_history_dup_path ();
  g_autofree char *dir = g_path_get_dirname (path);
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;
  guint n = 0;

  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    n += g_str_has_prefix (name, "history.ini.corrupt-");
  return n;
}

/* A corrupt file: a reader says so and leaves it; the applet moves it
 * aside, says where, and starts empty. */
static void
test_corrupt (Fixture *f, gconstpointer data)
{
  g_autoptr (RfkHistory) reader = rfk_history_new ();
  g_autoptr (RfkHistory) applet = rfk_history_new ();
  g_autoptr (GError) error = NULL;
  g_autofree char *path = rfk_history_dup_path ();

  write_file ("[change 1\ntime=1\n");
  g_assert_false (rfk_history_read (reader, &error));
  g_assert_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_PARSE);
  g_assert_nonnull (strstr (error->message, "is corrupt"));
  g_assert_true (g_file_test (path, G_FILE_TEST_EXISTS));
  g_assert_cmpuint (count_corrupt_copies (), ==, 0);
  g_clear_error (&error);

  g_assert_false (rfk_history_load (applet, &error));
  g_assert_nonnull (strstr (error->message, "history.ini.corrupt-"));
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
  g_assert_cmpuint (count_corrupt_copies (), ==, 1);
  g_assert_cmpuint (rfk_history_get_entries (applet)->len, ==, 0);
}

/* Entries that make no sense are left out and counted; the rest stay. */
static void
test_bad_entries_skipped (Fixture *f, gconstpointer data)
{
  g_autoptr (RfkHistory) history = rfk_history_new ();
  g_autoptr (GError) error = NULL;
  GPtrArray *entries;

  write_file ("[change 1]\ntime=5\nradio=phy0\ntype=wlan\nkey=wlan:phy0\n"
              "from=on\nto=off\ncause=menu\n"
              "[change 2]\ntime=6\nradio=hci0\ntype=bluetooth\nkey=bt\n"
              "from=on\nto=sideways\ncause=menu\n"
              "[change 3]\ntime=-7\nradio=hci0\ntype=bluetooth\nkey=bt\n"
              "from=on\nto=off\ncause=menu\n"
              "[change 4]\ntime=8\nradio=hci0\ntype=bluetooth\nkey=bt\n"
              "from=off\nto=on\ncause=gremlins\n"
              "[change 5]\ntime=9\nradio=nfc0\ntype=8\nkey=nfc:nfc0\n"
              "from=hard-blocked\nto=on\ncause=switch\n");
  g_assert_false (rfk_history_read (history, &error));
  g_assert_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE);
  g_assert_nonnull (strstr (error->message, "3 entries"));
  entries = rfk_history_get_entries (history);
  g_assert_cmpuint (entries->len, ==, 2);
  g_assert_cmpstr (((RfkHistoryEntry *) entries->pdata[0])->name, ==, "phy0");
  g_assert_cmpint (((RfkHistoryEntry *) entries->pdata[1])->type, ==,
                   RFK_TYPE_NFC);
  g_assert_cmpint (((RfkHistoryEntry *) entries->pdata[1])->from, ==,
                   RFK_RADIO_HARD_BLOCKED);
}

/* Something else in the file's place is not ours to replace: the flush
 * fails and keeps what it could not write for the next one. */
static void
test_not_a_file (Fixture *f, gconstpointer data)
{
  g_autoptr (RfkHistory) history = rfk_history_new ();
  g_autoptr (GError) error = NULL;
  g_autofree char *path = rfk_history_dup_path ();

  g_assert_cmpint (g_mkdir_with_parents (path, 0700), ==, 0);
  rfk_history_add (history, entry_at (1, "phy0", RFK_CAUSE_MENU));
  g_assert_false (rfk_history_flush (history, &error));
  g_assert_nonnull (error);
  g_assert_true (g_file_test (path, G_FILE_TEST_IS_DIR));
  g_clear_error (&error);
  g_assert_cmpint (g_rmdir (path), ==, 0);
  g_assert_true (rfk_history_flush (history, &error));
  g_assert_no_error (error);
  g_object_unref (history);
  history = reread ();
  g_assert_cmpuint (rfk_history_get_entries (history)->len, ==, 1);
}

/* ---- causes, on the fake kernel ---------------------------------------- */

static RfkHistory *
start_with_history (Fixture *f)
{
  RfkManagerTiming timing = {
    .sweep_ms = 100, .ended_settle_ms = 100, .flap_quiet_ms = 20,
    .confirm_ms = 5000, .resume_ms = 2000, .hotplug_ms = 0,
  };
  RfkHistory *history = rfk_history_new ();

  fake_rfkill_add (f->fake, WLAN, "phy0");
  fake_rfkill_add (f->fake, BT, "hci0");
  fixture_listen (f);
  f->manager = fixture_start_manager (f);
  rfk_manager_set_timing (f->manager, &timing);
  rfk_manager_set_history (f->manager, history);
  return history;
}

typedef struct {
  RfkHistory *history;
  guint n;
} Count;

static gboolean
has_n (gpointer data)
{
  Count *c = data;

  return rfk_history_get_entries (c->history)->len >= c->n;
}

/* "name:from>to:cause" for each entry from start, joined by spaces. */
static char *
causes (RfkHistory *history, guint start, guint n)
{
  GPtrArray *entries = rfk_history_get_entries (history);
  Count c = { history, start + n };
  GString *s = g_string_new (NULL);

  g_assert_true (test_wait_for (has_n, &c, 3000));
  test_settle (250);  /* nothing more should come */
  for (guint i = start; i < entries->len; i++)
    {
      RfkHistoryEntry *e = entries->pdata[i];

      g_string_append_printf (s, "%s%s:%s>%s:%s", s->len > 0 ? " " : "",
                              e->name, rfk_radio_state_to_string (e->from),
                              rfk_radio_state_to_string (e->to),
                              rfk_cause_to_string (e->cause));
    }
  return g_string_free (s, FALSE);
}

/* After resume, a driver turning a radio on is resume's, and so is the
 * guard switching it off again; later, the same is another program's. */
static void
test_resume_cause (Fixture *f, gconstpointer data)
{
  g_autoptr (RfkHistory) history = start_with_history (f);
  g_autoptr (GError) error = NULL;
  g_autofree char *first = NULL;
  g_autofree char *later = NULL;

  g_assert_true (test_set_blocked (f->manager, 1, TRUE, &error));
  g_free (causes (history, 0, 1));
  rfk_manager_prepare_for_sleep (f->manager, TRUE);
  rfk_manager_prepare_for_sleep (f->manager, FALSE);
  fake_rfkill_set_soft (f->fake, 1, FALSE);
  first = causes (history, 1, 2);
  g_assert_cmpstr (first, ==, "hci0:off>on:resume hci0:on>off:resume");
  test_settle (2100);  /* the window is over */
  fake_rfkill_set_soft (f->fake, 1, FALSE);
  later = causes (history, 3, 1);
  g_assert_cmpstr (later, ==, "hci0:off>on:other");
}

/* The key pressed soon after resume is still the key: every radio, of
 * two types, at once.  The system suite saw it named "resume". */
static void
test_key_in_resume_window (Fixture *f, gconstpointer data)
{
  g_autoptr (RfkHistory) history = start_with_history (f);
  g_autofree char *key = NULL;

  rfk_manager_prepare_for_sleep (f->manager, TRUE);
  rfk_manager_prepare_for_sleep (f->manager, FALSE);
  fake_rfkill_press_airplane_key (f->fake);
  key = causes (history, 0, 2);
  g_assert_cmpstr (key, ==, "phy0:on>off:key hci0:on>off:key");
}

/* NetworkManager switching Wi-Fi off on its own: its; the same change
 * with no word from it: another program's. */
static void
test_networkmanager_cause (Fixture *f, gconstpointer data)
{
  g_autoptr (RfkHistory) history = start_with_history (f);
  g_autofree char *nm = NULL;
  g_autofree char *other = NULL;

  rfk_manager_note_networkmanager (f->manager, 1u << WLAN, FALSE);
  fake_rfkill_set_soft (f->fake, 0, TRUE);
  nm = causes (history, 0, 1);
  g_assert_cmpstr (nm, ==, "phy0:on>off:networkmanager");
  test_settle (2100);
  fake_rfkill_set_soft (f->fake, 0, FALSE);
  other = causes (history, 1, 1);
  g_assert_cmpstr (other, ==, "phy0:off>on:other");
}

/* Another program blocking every radio of one type only is no key, even
 * with every radio off afterwards; every radio of two types is, also
 * when airplane mode's list changes one of them back at once. */
static void
test_key_needs_two_types (Fixture *f, gconstpointer data)
{
  g_autoptr (RfkHistory) history = start_with_history (f);
  g_autoptr (GError) error = NULL;
  g_autofree char *one = NULL;
  g_autofree char *both = NULL;

  guint32 phy1 = fake_rfkill_add (f->fake, WLAN, "phy1");

  test_settle (100);
  g_assert_true (test_set_blocked (f->manager, 1, TRUE, &error));
  g_free (causes (history, 0, 1));
  /* `rfkill block wlan` */
  fake_rfkill_set_soft (f->fake, 0, TRUE);
  fake_rfkill_set_soft (f->fake, phy1, TRUE);
  one = causes (history, 1, 2);
  g_assert_cmpstr (one, ==, "phy0:on>off:other phy1:on>off:other");
  /* rfkill-input blocks first: every radio is, so nothing changes. */
  fake_rfkill_press_airplane_key (f->fake);
  test_settle (300);
  fake_rfkill_press_airplane_key (f->fake);
  both = causes (history, 3, 4);
  /* Airplane mode had begun (every radio off): the key ended it, and
   * the list puts Bluetooth back as it was. */
  g_assert_cmpstr (both, ==,
                   "phy0:off>on:key hci0:off>on:key phy1:off>on:key "
                   "hci0:on>off:airplane-mode");
}

/* Radios there when the manager started were not plugged in just now:
 * another program's change at once is its own; a radio plugged in and
 * changed at once is a restore. */
static void
test_hotplug_only_after_start (Fixture *f, gconstpointer data)
{
  g_autoptr (RfkHistory) history = start_with_history (f);
  RfkManagerTiming timing = {
    .sweep_ms = 100, .ended_settle_ms = 100, .flap_quiet_ms = 20,
    .confirm_ms = 5000, .resume_ms = 2000, .hotplug_ms = 3000,
  };
  g_autofree char *at_start = NULL;
  g_autofree char *plugged = NULL;
  guint32 phy1;

  rfk_manager_set_timing (f->manager, &timing);
  fake_rfkill_set_soft (f->fake, 0, TRUE);
  at_start = causes (history, 0, 1);
  g_assert_cmpstr (at_start, ==, "phy0:on>off:other");
  phy1 = fake_rfkill_add (f->fake, WLAN, "phy1");
  test_settle (50);
  fake_rfkill_set_soft (f->fake, phy1, TRUE);
  plugged = causes (history, 1, 1);
  g_assert_cmpstr (plugged, ==, "phy1:on>off:hotplug");
}

/* Airplane mode ended by another program: the radios it restores as off
 * are airplane mode's own doing. */
static void
test_airplane_mode_cause (Fixture *f, gconstpointer data)
{
  g_autoptr (RfkHistory) history = start_with_history (f);
  g_autoptr (GError) error = NULL;
  g_autofree char *log = NULL;

  g_assert_true (test_set_blocked (f->manager, 1, TRUE, &error));
  rfk_manager_name_next_request (f->manager, RFK_CAUSE_DBUS, "gnome-shell");
  g_assert_true (test_set_airplane (f->manager, TRUE, &error));
  g_free (causes (history, 0, 2));
  /* `rfkill unblock all` */
  fake_rfkill_set_soft (f->fake, 0, FALSE);
  fake_rfkill_set_soft (f->fake, 1, FALSE);
  log = causes (history, 2, 3);
  g_assert_cmpstr (log, ==,
                   "phy0:off>on:key hci0:off>on:key hci0:on>off:airplane-mode");
  g_assert_cmpstr (((RfkHistoryEntry *) rfk_history_get_entries (history)
                      ->pdata[1])->by, ==, "gnome-shell");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
#define ADD(path, fn) \
  g_test_add ("/history/" path, Fixture, NULL, fixture_setup, fn, \
              fixture_teardown)
  ADD ("bounded", test_bounded);
  ADD ("two-writers-merge", test_two_writers_merge);
  ADD ("autosave-off-main-thread", test_autosave_off_main_thread);
  ADD ("flush-waits-for-autosave", test_flush_waits_for_autosave);
  ADD ("read-waits-for-autosave", test_read_waits_for_autosave);
  ADD ("corrupt", test_corrupt);
  ADD ("bad-entries-skipped", test_bad_entries_skipped);
  ADD ("not-a-file", test_not_a_file);
  ADD ("cause/resume", test_resume_cause);
  ADD ("cause/key-in-resume-window", test_key_in_resume_window);
  ADD ("cause/networkmanager", test_networkmanager_cause);
  ADD ("cause/key-needs-two-types", test_key_needs_two_types);
  ADD ("cause/airplane-mode", test_airplane_mode_cause);
  ADD ("cause/hotplug-only-after-start", test_hotplug_only_after_start);
  return g_test_run ();
}

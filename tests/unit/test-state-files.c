/*
 * test-state-files.c: the restore list and the refusals on disk, when the
 * disk or another program does not play along (issue 27): something
 * else at the list's path, corruptions in quick succession, a marker
 * that cannot be saved, another writer holding the lock, and what the
 * refusals file costs and reveals.
 */
#include <errno.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fail-io.h"
#include "rfk-device.h"
#include "rfk-refusals.h"
#include "test-util.h"

#define BT RFK_TYPE_BLUETOOTH
#define WLAN RFK_TYPE_WLAN
#define KEY "wlan:acme-slider"
#define LAPTOP "phy0=on phy1=off hci0=on"
#define ALL_OFF "phy0=off phy1=off hci0=off"

/* Wi-Fi on, a second card the user switched off, Bluetooth on. */
static void
laptop (Fixture *f)
{
  fake_rfkill_add_device (f->fake, WLAN, "phy0", "pci", "0000:00:14.3");
  fake_rfkill_add_device (f->fake, WLAN, "phy1", "pci", "0000:03:00.0");
  fake_rfkill_add_device (f->fake, BT, "hci0", "usb", "1-10:1.0");
  fake_rfkill_set_soft (f->fake, 1, TRUE);
  fixture_listen (f);
}

static void
restart (Fixture *f)
{
  g_clear_object (&f->manager);
  f->manager = fixture_start_manager (f);
}

static char *
state_dir (Fixture *f)
{
  return g_path_get_dirname (f->state_file);
}

static char *
refusals_path (Fixture *f)
{
  g_autofree char *dir = state_dir (f);

  return g_build_filename (dir, "refused-radios.ini", NULL);
}

static int
compare_strings (gconstpointer a, gconstpointer b)
{
  return g_strcmp0 (*(char **) a, *(char **) b);
}

/* The contents of every PATH.corrupt-* next to path, sorted. */
static GPtrArray *
corrupt_copies (const char *path)
{
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *base = g_path_get_basename (path);
  g_autofree char *prefix = g_strconcat (base, ".corrupt-", NULL);
  g_autoptr (GDir) listing = g_dir_open (dir, 0, NULL);
  GPtrArray *copies = g_ptr_array_new_with_free_func (g_free);
  const char *name;

  while (listing != NULL && (name = g_dir_read_name (listing)) != NULL)
    if (g_str_has_prefix (name, prefix))
      {
        g_autofree char *copy = g_build_filename (dir, name, NULL);
        char *contents = NULL;

        g_assert_true (g_file_get_contents (copy, &contents, NULL, NULL));
        g_ptr_array_add (copies, contents);
      }
  g_ptr_array_sort (copies, compare_strings);
  return copies;
}

static void
write_file (const char *path, const char *contents)
{
  g_autofree char *dir = g_path_get_dirname (path);

  g_assert_cmpint (g_mkdir_with_parents (dir, 0700), ==, 0);
  g_assert_true (g_file_set_contents (path, contents, -1, NULL));
}

static void
assert_off_refused (Fixture *f)
{
  g_autoptr (GError) error = NULL;

  g_assert_false (test_set_airplane (f->manager, FALSE, &error));
  g_assert_nonnull (error);
  g_assert_cmpstr (fixture_soft_states (f), ==, ALL_OFF);
}

/* ---- something else at the list's path -------------------------------- */

/* Not ours, not a list, not corrupt: said, and never moved. */
static void
test_directory_at_the_list_path (Fixture *f, gconstpointer data)
{
  g_autoptr (GPtrArray) copies = NULL;
  g_autoptr (GError) error = NULL;

  laptop (f);
  g_assert_cmpint (g_mkdir_with_parents (f->state_file, 0700), ==, 0);
  restart (f);
  g_assert_nonnull (rfk_manager_get_airplane_error (f->manager));
  g_assert_nonnull (strstr (rfk_manager_get_airplane_error (f->manager)
                              ->message, "not a regular file"));
  g_assert_false (test_set_airplane (f->manager, FALSE, &error));
  g_assert_nonnull (strstr (error->message, "not a regular file"));
  g_assert_true (g_file_test (f->state_file, G_FILE_TEST_IS_DIR));
  copies = corrupt_copies (f->state_file);
  g_assert_cmpuint (copies->len, ==, 0);
  g_assert_cmpstr (fixture_soft_states (f), ==, LAPTOP);
}

/* In a child: a FIFO opened for reading as the old code did waits for a
 * writer that never comes, so the test would hang instead of failing. */
static void
test_fifo_at_the_list_path (Fixture *f, gconstpointer data)
{
  g_autoptr (GPtrArray) copies = NULL;
  g_autofree char *dir = state_dir (f);
  struct stat st;

  if (!g_test_subprocess ())
    {
      g_test_trap_subprocess (NULL, 10 * G_USEC_PER_SEC,
                              G_TEST_SUBPROCESS_INHERIT_STDERR);
      g_test_trap_assert_passed ();
      return;
    }
  laptop (f);
  g_assert_cmpint (g_mkdir_with_parents (dir, 0700), ==, 0);
  g_assert_cmpint (mkfifo (f->state_file, 0600), ==, 0);
  restart (f);
  g_assert_nonnull (rfk_manager_get_airplane_error (f->manager));
  g_assert_nonnull (strstr (rfk_manager_get_airplane_error (f->manager)
                              ->message, "not a regular file"));
  g_assert_cmpint (lstat (f->state_file, &st), ==, 0);
  g_assert_true (S_ISFIFO (st.st_mode));
  copies = corrupt_copies (f->state_file);
  g_assert_cmpuint (copies->len, ==, 0);
}

/* ---- corruptions -------------------------------------------------------- */

/* Two within a second: each copy is kept, neither over the other. */
static void
test_two_corrupt_lists_in_one_second (Fixture *f, gconstpointer data)
{
  g_autoptr (GPtrArray) copies = NULL;
  g_autoptr (GError) error = NULL;

  laptop (f);
  restart (f);
  g_assert_true (test_set_airplane (f->manager, TRUE, &error));
  write_file (f->state_file, "[radios\nfirst");
  restart (f);
  write_file (f->state_file, "[radios\nsecond");
  restart (f);

  copies = corrupt_copies (f->state_file);
  g_assert_cmpuint (copies->len, ==, 2);
  g_assert_cmpstr (g_ptr_array_index (copies, 0), ==, "[radios\nfirst");
  g_assert_cmpstr (g_ptr_array_index (copies, 1), ==, "[radios\nsecond");
  assert_off_refused (f);
}

static void
test_two_corrupt_refusals_in_one_second (Fixture *f, gconstpointer data)
{
  g_autofree char *path = refusals_path (f);
  g_autoptr (GPtrArray) copies = NULL;

  write_file (path, "[refused\nfirst");
  rfk_refusals_set (KEY, TRUE, TRUE);
  write_file (path, "[refused\nsecond");
  rfk_refusals_set (KEY, TRUE, TRUE);

  copies = corrupt_copies (path);
  g_assert_cmpuint (copies->len, ==, 2);
  g_assert_cmpstr (g_ptr_array_index (copies, 0), ==, "[refused\nfirst");
  g_assert_cmpstr (g_ptr_array_index (copies, 1), ==, "[refused\nsecond");
  g_assert_true (rfk_refusals_lookup (KEY, TRUE));
}

/* The list is moved aside but the marker cannot be saved (disk full):
 * this run still knows, and "off" still refuses instead of turning every
 * radio on. */
static void
test_unsaved_marker_still_refuses_off (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;

  laptop (f);
  restart (f);
  g_assert_true (test_set_airplane (f->manager, TRUE, &error));
  g_assert_cmpstr (fixture_soft_states (f), ==, ALL_OFF);
  g_clear_object (&f->manager);
  write_file (f->state_file, "[radios\ngarbage");

  fail_io_fail_rename_to ("airplane-mode.ini");
  restart (f);
  g_assert_nonnull (rfk_manager_get_airplane_error (f->manager));
  assert_off_refused (f);
  assert_off_refused (f);  /* and again: nothing was forgotten */
  fail_io_reset ();
}

/* ---- the lock ------------------------------------------------------------ */

/* Another program (a CLI) holds the lock for ms: a child process, so
 * that its flock() is not ours.  Returns its pid once it holds it. */
static pid_t
hold_lock_elsewhere (Fixture *f, guint ms)
{
  g_autofree char *dir = state_dir (f);
  g_autofree char *path = g_build_filename (dir, "airplane-mode.ini.lock",
                                            NULL);
  int ready[2];
  pid_t pid;
  char c;

  g_assert_cmpint (g_mkdir_with_parents (dir, 0700), ==, 0);
  g_assert_cmpint (pipe (ready), ==, 0);
  pid = fork ();
  g_assert_cmpint (pid, >=, 0);
  if (pid == 0)
    {
      int fd = open (path, O_RDWR | O_CREAT, 0600);

      if (fd < 0 || flock (fd, LOCK_EX) < 0 || write (ready[1], "x", 1) != 1)
        _exit (1);
      usleep (ms * 1000);
      _exit (0);
    }
  close (ready[1]);
  g_assert_cmpint (read (ready[0], &c, 1), ==, 1);
  close (ready[0]);
  return pid;
}

static void
reap (pid_t pid)
{
  int status;

  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  g_assert_true (WIFEXITED (status) && WEXITSTATUS (status) == 0);
}

static void
test_applet_waits_for_the_lock (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  gint64 start;
  pid_t pid;

  laptop (f);
  restart (f);
  pid = hold_lock_elsewhere (f, 600);
  start = g_get_monotonic_time ();
  g_assert_true (test_set_airplane (f->manager, TRUE, &error));
  g_assert_cmpint (g_get_monotonic_time () - start, >=,
                   400 * G_TIME_SPAN_MILLISECOND);
  reap (pid);
  g_assert_true (test_store_is_active ());
}

static void
test_refusals_wait_for_the_lock (Fixture *f, gconstpointer data)
{
  gint64 start;
  pid_t pid;

  pid = hold_lock_elsewhere (f, 600);
  start = g_get_monotonic_time ();
  rfk_refusals_set (KEY, TRUE, TRUE);
  g_assert_cmpint (g_get_monotonic_time () - start, >=,
                   400 * G_TIME_SPAN_MILLISECOND);
  reap (pid);
  g_assert_true (rfk_refusals_lookup (KEY, TRUE));
}

/* ---- the refusals file ------------------------------------------------- */

/* As private and as durable as the restore list. */
static void
test_refusals_are_private_and_on_disk (Fixture *f, gconstpointer data)
{
  g_autofree char *path = refusals_path (f);
  struct stat st;

  umask (022);
  rfk_refusals_set (KEY, TRUE, TRUE);
  g_assert_cmpint (stat (path, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 0777, ==, 0600);
  g_assert_cmpuint (fail_io_count_fsyncs (path), >=, 1);
  fail_io_reset ();
}

/* The list's contents reach the disk before it replaces the old one, so
 * no worker, and no exit before it ran, stands between a save and a
 * power loss (the list was renamed first and fsynced later, by a worker
 * that a manager outliving main() never waited for). */
static void
test_list_on_disk_before_it_replaces_the_old (Fixture *f,
                                              gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  guint renames, fsynced;

  laptop (f);
  restart (f);
  g_assert_true (test_set_airplane (f->manager, TRUE, &error));
  g_assert_true (test_set_airplane (f->manager, FALSE, &error));
  renames = fail_io_count_renames (f->state_file, &fsynced);
  g_assert_cmpuint (renames, >=, 2);
  g_assert_cmpuint (fsynced, ==, renames);
  fail_io_reset ();
}

/* Radios plugged in one after another: the file, which did not change,
 * is not read again for each (it was read twice per radio). */
static void
test_refusals_read_once_for_many_radios (Fixture *f, gconstpointer data)
{
  g_autofree char *path = refusals_path (f);
  g_autofree char *dir = state_dir (f);
  char buf[4096] __attribute__ ((aligned (__alignof__ (struct inotify_event))));
  guint opens = 0;
  gssize n;
  int fd;

  write_file (path, "[refused]\nwlan:elsewhere=blocked\n");
  fixture_listen (f);
  restart (f);
  fd = inotify_init1 (IN_NONBLOCK | IN_CLOEXEC);
  g_assert_cmpint (fd, >=, 0);
  /* With the closes: inotify merges identical events in a row. */
  g_assert_cmpint (inotify_add_watch (fd, dir, IN_OPEN | IN_CLOSE), >=, 0);
  for (guint i = 0; i < 4; i++)
    {
      g_autofree char *name = g_strdup_printf ("phy%u", i);
      g_autofree char *slot = g_strdup_printf ("0000:0%u:00.0", i + 1);

      fake_rfkill_add_device (f->fake, WLAN, name, "pci", slot);
    }
  test_settle (100);
  g_assert_cmpuint (rfk_manager_get_devices (f->manager)->len, ==, 4);
  while ((n = read (fd, buf, sizeof buf)) > 0)
    for (char *p = buf; p < buf + n;)
      {
        struct inotify_event *event = (struct inotify_event *) p;

        if ((event->mask & IN_OPEN) && event->len > 0
            && g_str_equal (event->name, "refused-radios.ini"))
          opens++;
        p += sizeof *event + event->len;
      }
  close (fd);
  g_assert_cmpuint (opens, <=, 1);
}

/* The cache in memory follows another program's write. */
static void
test_refusals_follow_another_writer (Fixture *f, gconstpointer data)
{
  g_autofree char *path = refusals_path (f);
  g_autofree char *tmp = g_strconcat (path, ".other", NULL);

  rfk_refusals_set (KEY, TRUE, TRUE);
  g_assert_true (rfk_refusals_lookup (KEY, TRUE));
  /* Another process forgets it: a new file renamed over ours. */
  write_file (tmp, "[refused]\n");
  g_assert_cmpint (g_rename (tmp, path), ==, 0);
  g_assert_false (rfk_refusals_lookup (KEY, TRUE));
  write_file (tmp, "[refused]\nwlan:acme-slider=unblocked\n");
  g_assert_cmpint (g_rename (tmp, path), ==, 0);
  g_assert_true (rfk_refusals_lookup (KEY, FALSE));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  /* What is said about a broken file is checked in test-refusals.c; here
   * only what is done with it counts, old wording or new. */
  g_log_set_always_fatal (G_LOG_FATAL_MASK | G_LOG_LEVEL_CRITICAL);

#define ADD(path, func) \
  g_test_add ("/state-files/" path, Fixture, NULL, fixture_setup, func, \
              fixture_teardown)
  ADD ("directory-at-the-list-path", test_directory_at_the_list_path);
  ADD ("fifo-at-the-list-path", test_fifo_at_the_list_path);
  ADD ("two-corrupt-lists-in-one-second",
       test_two_corrupt_lists_in_one_second);
  ADD ("two-corrupt-refusals-in-one-second",
       test_two_corrupt_refusals_in_one_second);
  ADD ("unsaved-marker-still-refuses-off",
       test_unsaved_marker_still_refuses_off);
  ADD ("applet-waits-for-the-lock", test_applet_waits_for_the_lock);
  ADD ("refusals-wait-for-the-lock", test_refusals_wait_for_the_lock);
  ADD ("refusals-are-private-and-on-disk",
       test_refusals_are_private_and_on_disk);
  ADD ("list-on-disk-before-it-replaces-the-old",
       test_list_on_disk_before_it_replaces_the_old);
  ADD ("refusals-read-once-for-many-radios",
       test_refusals_read_once_for_many_radios);
  ADD ("refusals-follow-another-writer",
       test_refusals_follow_another_writer);
#undef ADD
  return g_test_run ();
}

/*
 * test-flood.c: a session-bus client switching airplane mode on and off
 * as fast as it can (issue 27, "no bound under a flood").
 *
 * Each save used to keep the new file open until a single fsync worker
 * reached it: 2,000 requests under a 1,024-fd limit left 990 fds open and
 * 860 requests failed with EMFILE.  Here 10,000 requests run under a
 * limit of 256; the process must stay at a small fixed number of fds,
 * every request must end in success or "superseded", and the list on
 * disk must say what the last request asked for.
 */
#include <gio/gio.h>
#include <sys/resource.h>

#include "rfk-device.h"
#include "test-util.h"

#define N_REQUESTS 10000
#define MAX_FDS 64

typedef struct {
  guint done;
  guint failed;         /* anything but success or superseded */
  char *first_failure;
} Tally;

static void
done_cb (GObject *source, GAsyncResult *result, gpointer data)
{
  Tally *tally = data;
  g_autoptr (GError) error = NULL;

  tally->done++;
  if (rfk_manager_set_airplane_mode_finish (RFK_MANAGER (source), result,
                                            &error)
      || g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  tally->failed++;
  if (tally->first_failure == NULL)
    tally->first_failure = g_strdup (error->message);
}

static guint
count_fds (void)
{
  g_autoptr (GDir) dir = g_dir_open ("/proc/self/fd", 0, NULL);
  guint n = 0;

  g_assert_nonnull (dir);
  while (g_dir_read_name (dir) != NULL)
    n++;
  return n;
}

static gboolean
all_done (gpointer data)
{
  return ((Tally *) data)->done == N_REQUESTS;
}

static void
test_alternating_requests_keep_fds_bounded (Fixture *f, gconstpointer data)
{
  struct rlimit limit = { 256, 256 };
  Tally tally = { 0 };
  guint max_fds = 0;

  g_assert_cmpint (setrlimit (RLIMIT_NOFILE, &limit), ==, 0);
  fake_rfkill_add_device (f->fake, RFK_TYPE_WLAN, "phy0", "pci",
                          "0000:00:14.3");
  fake_rfkill_add_device (f->fake, RFK_TYPE_WLAN, "phy1", "pci",
                          "0000:03:00.0");
  fake_rfkill_add_device (f->fake, RFK_TYPE_BLUETOOTH, "hci0", "usb",
                          "1-10:1.0");
  fake_rfkill_set_soft (f->fake, 1, TRUE);
  fixture_listen (f);
  f->manager = fixture_start_manager (f);

  /* As D-Bus delivers them: a few per main-loop turn, the kernel's
   * answers in between. */
  for (guint i = 0; i < N_REQUESTS; i++)
    {
      rfk_manager_set_airplane_mode_async (f->manager, i % 2 == 0, NULL,
                                           done_cb, &tally);
      if (i % 8 == 7)
        {
          while (g_main_context_iteration (NULL, FALSE))
            ;
          max_fds = MAX (max_fds, count_fds ());
        }
    }
  g_assert_true (test_wait_for (all_done, &tally, 100000));
  max_fds = MAX (max_fds, count_fds ());
  g_test_message ("%u requests, %u failed, at most %u fds open",
                  tally.done, tally.failed, max_fds);
  g_assert_cmpstr (tally.first_failure, ==, NULL);
  g_assert_cmpuint (tally.failed, ==, 0);
  g_assert_cmpuint (max_fds, <=, MAX_FDS);

  /* The last request was "off": the list is forgotten on disk, and the
   * radios are as they were before the first "on". */
  g_assert_false (rfk_manager_get_airplane_mode (f->manager));
  g_assert_false (test_store_is_active ());
  g_assert_cmpstr (fixture_soft_states (f), ==, "phy0=on phy1=off hci0=on");
  g_free (tally.first_failure);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add ("/flood/alternating-requests-keep-fds-bounded", Fixture, NULL,
              fixture_setup, test_alternating_requests_keep_fds_bounded,
              fixture_teardown);
  return g_test_run ();
}

/*
 * test-fake.c: the fake kernel itself behaves like net/rfkill/core.c, as
 * seen by a raw client on a socketpair (the other suites rely on it).
 */
#include <errno.h>
#include <glib/gstdio.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fake-rfkill.h"
#include "rfk-device.h"
#include "rfk-event.h"

typedef struct {
  FakeRfkill *fake;
  int fd;
} Raw;

/* Lets the fake (on the default main context) handle what we sent. */
static void
pump (void)
{
  for (guint i = 0; i < 20; i++)
    g_main_context_iteration (NULL, FALSE);
}

static void
raw_setup (Raw *r, gconstpointer data)
{
  r->fake = fake_rfkill_new (NULL);
}

static void
raw_teardown (Raw *r, gconstpointer data)
{
  if (r->fd > 0)
    close (r->fd);
  fake_rfkill_free (r->fake);
}

/* Next packet, or -1 if none is queued.  Returns its size. */
static gssize
next_packet (int fd, guint8 *buf, gsize size)
{
  struct pollfd pfd = { .fd = fd, .events = POLLIN };

  pump ();
  if (poll (&pfd, 1, 0) <= 0)
    return -1;
  return recv (fd, buf, size, MSG_DONTWAIT);
}

static RfkEvent
next_event (int fd, gsize expected_size)
{
  guint8 buf[64];
  gssize n = next_packet (fd, buf, sizeof buf);
  RfkEvent e;

  g_assert_cmpint (n, ==, expected_size);
  g_assert_true (rfk_event_decode (buf, n, &e));
  return e;
}

static int
next_status (int fd)
{
  guint8 buf[64];
  gssize n = next_packet (fd, buf, sizeof buf);
  int err = -1;

  if (!rfk_status_decode (buf, n, &err))
    g_error ("expected a status packet, got %zd bytes (op %d)", n,
             n > 5 ? buf[5] : -1);
  return err;
}

/* The status packet a socket peer sends after the initial ADDs. */
static void
end_of_list (int fd)
{
  g_assert_cmpint (next_status (fd), ==, 0);
}

static void
no_more_packets (int fd)
{
  guint8 buf[64];

  g_assert_cmpint (next_packet (fd, buf, sizeof buf), ==, -1);
}

/* The socket form of RFKILL_IOCTL_AIRPLANE_MODE_EVENTS (rfk-protocol.h). */
static void
ask_indicator_events (int fd)
{
  guint8 buf[RFK_IOCTL_PACKET_SIZE];
  gsize size = rfk_ioctl_packet_encode (RFK_IOC_AIRPLANE_MODE_EVENTS, buf);

  g_assert_cmpint (send (fd, buf, size, 0), ==, size);
  pump ();
}

static int
request (int fd, RfkEvent event, gsize size)
{
  guint8 buf[RFK_EVENT_SIZE_EXT];

  rfk_event_encode_ext (&event, buf);
  g_assert_cmpint (send (fd, buf, size, 0), ==, size);
  pump ();
  return 0;
}

static void
test_connect_sends_one_add_per_radio (Raw *r, gconstpointer data)
{
  RfkEvent e;

  fake_rfkill_add (r->fake, RFK_TYPE_WLAN, NULL);
  fake_rfkill_add (r->fake, RFK_TYPE_BLUETOOTH, NULL);
  fake_rfkill_set_hard (r->fake, 1, TRUE, RFK_HARD_BLOCK_SIGNAL);
  r->fd = fake_rfkill_connect_pair (r->fake);

  e = next_event (r->fd, RFK_EVENT_SIZE_EXT);
  g_assert_cmpuint (e.op, ==, RFK_OP_ADD);
  g_assert_cmpuint (e.idx, ==, 0);
  g_assert_cmpuint (e.type, ==, RFK_TYPE_WLAN);
  e = next_event (r->fd, RFK_EVENT_SIZE_EXT);
  g_assert_cmpuint (e.idx, ==, 1);
  g_assert_true (e.hard);
  g_assert_cmpuint (e.hard_reasons, ==, RFK_HARD_BLOCK_SIGNAL);
  end_of_list (r->fd);
  no_more_packets (r->fd);
  g_assert_cmpuint (fake_rfkill_get_n_clients (r->fake), ==, 1);
}

static void
test_v1_events_are_8_bytes (Raw *r, gconstpointer data)
{
  fake_rfkill_set_v1 (r->fake, TRUE);
  fake_rfkill_add (r->fake, RFK_TYPE_WLAN, NULL);
  r->fd = fake_rfkill_connect_pair (r->fake);
  next_event (r->fd, RFK_EVENT_SIZE_V1);
  end_of_list (r->fd);
}

static void
test_change_all_sets_type_and_default (Raw *r, gconstpointer data)
{
  RfkEvent e;

  fake_rfkill_add (r->fake, RFK_TYPE_WLAN, NULL);
  fake_rfkill_add (r->fake, RFK_TYPE_BLUETOOTH, NULL);
  fake_rfkill_add (r->fake, RFK_TYPE_WLAN, NULL);
  r->fd = fake_rfkill_connect_pair (r->fake);
  for (guint i = 0; i < 3; i++)
    next_event (r->fd, RFK_EVENT_SIZE_EXT);
  end_of_list (r->fd);

  request (r->fd, rfk_event_change_all (RFK_TYPE_WLAN, TRUE),
           RFK_EVENT_SIZE_V1);
  /* Events for both Wi-Fi radios, none for Bluetooth, then the status. */
  e = next_event (r->fd, RFK_EVENT_SIZE_EXT);
  g_assert_cmpuint (e.idx, ==, 0);
  g_assert_true (e.soft);
  e = next_event (r->fd, RFK_EVENT_SIZE_EXT);
  g_assert_cmpuint (e.idx, ==, 2);
  g_assert_cmpint (next_status (r->fd), ==, 0);
  no_more_packets (r->fd);

  /* A Wi-Fi radio plugged in now starts blocked, Bluetooth does not. */
  e = (RfkEvent) { 0 };
  fake_rfkill_add (r->fake, RFK_TYPE_WLAN, NULL);
  e = next_event (r->fd, RFK_EVENT_SIZE_EXT);
  g_assert_cmpuint (e.op, ==, RFK_OP_ADD);
  g_assert_true (e.soft);
  fake_rfkill_add (r->fake, RFK_TYPE_BLUETOOTH, NULL);
  e = next_event (r->fd, RFK_EVENT_SIZE_EXT);
  g_assert_false (e.soft);

  /* Already in that state: no event, still success. */
  request (r->fd, rfk_event_change_all (RFK_TYPE_WLAN, TRUE),
           RFK_EVENT_SIZE_V1);
  g_assert_cmpint (next_status (r->fd), ==, 0);
  no_more_packets (r->fd);
}

static void
test_change_matches_idx_and_type (Raw *r, gconstpointer data)
{
  RfkEvent e;

  fake_rfkill_add (r->fake, RFK_TYPE_WLAN, NULL);
  r->fd = fake_rfkill_connect_pair (r->fake);
  next_event (r->fd, RFK_EVENT_SIZE_EXT);
  end_of_list (r->fd);

  /* Wrong type for that idx, or an idx nobody has: accepted, no-op. */
  request (r->fd, rfk_event_change (0, RFK_TYPE_BLUETOOTH, TRUE),
           RFK_EVENT_SIZE_V1);
  g_assert_cmpint (next_status (r->fd), ==, 0);
  request (r->fd, rfk_event_change (9, RFK_TYPE_WLAN, TRUE),
           RFK_EVENT_SIZE_V1);
  g_assert_cmpint (next_status (r->fd), ==, 0);
  no_more_packets (r->fd);
  g_assert_false (fake_rfkill_lookup (r->fake, 0)->soft);

  /* RFKILL_TYPE_ALL matches any type; 7 bytes ("hard" left out) do. */
  request (r->fd, rfk_event_change (0, RFK_TYPE_ALL, TRUE),
           RFK_WRITE_SIZE_MIN);
  e = next_event (r->fd, RFK_EVENT_SIZE_EXT);
  g_assert_cmpuint (e.op, ==, RFK_OP_CHANGE);
  g_assert_true (e.soft);
  /* Every radio is blocked now, so the default rule lit the indicator,
   * but this client never asked for op 5: it hears nothing of it. */
  g_assert_cmpint (next_status (r->fd), ==, 0);
  no_more_packets (r->fd);
  g_assert_true (fake_rfkill_get_indicator (r->fake, NULL));
}

/* Our module: op 5 only to a client that asked (the ioctl, or ACQUIRE),
 * starting with the current state; others get the in-tree stream. */
static void
test_indicator_events_only_when_asked (Raw *r, gconstpointer data)
{
  int asker, owner;
  RfkEvent e;

  fake_rfkill_add (r->fake, RFK_TYPE_WLAN, NULL);
  r->fd = fake_rfkill_connect_pair (r->fake);
  asker = fake_rfkill_connect_pair (r->fake);
  owner = fake_rfkill_connect_pair (r->fake);
  for (guint i = 0; i < 3; i++)
    {
      int fd = i == 0 ? r->fd : i == 1 ? asker : owner;

      next_event (fd, RFK_EVENT_SIZE_EXT);
      end_of_list (fd);
    }

  ask_indicator_events (asker);
  e = next_event (asker, RFK_EVENT_SIZE_EXT);
  g_assert_cmpuint (e.op, ==, RFK_OP_INDICATOR_CHANGE);
  g_assert_cmpuint (e.type, ==, RFK_TYPE_ALL);
  g_assert_false (e.soft);  /* the radio is on: dark */
  g_assert_cmpint (next_status (asker), ==, 0);
  /* Asking again changes nothing. */
  ask_indicator_events (asker);
  g_assert_cmpint (next_status (asker), ==, 0);
  no_more_packets (asker);
  g_assert_cmpuint (fake_rfkill_get_n_writes (r->fake), ==, 0);

  /* ACQUIRE asks too: the owner needs the state it starts from. */
  request (owner, rfk_event_indicator_acquire (), RFK_EVENT_SIZE_V1);
  e = next_event (owner, RFK_EVENT_SIZE_EXT);
  g_assert_cmpuint (e.op, ==, RFK_OP_INDICATOR_CHANGE);
  g_assert_false (e.soft);
  g_assert_cmpint (next_status (owner), ==, 0);
  request (owner, rfk_event_indicator_change (TRUE), RFK_EVENT_SIZE_V1);
  e = next_event (owner, RFK_EVENT_SIZE_EXT);
  g_assert_true (e.op == RFK_OP_INDICATOR_CHANGE && e.soft);
  g_assert_cmpint (next_status (owner), ==, 0);
  e = next_event (asker, RFK_EVENT_SIZE_EXT);
  g_assert_true (e.op == RFK_OP_INDICATOR_CHANGE && e.soft);

  /* The plain client: its own refused ACQUIRE does not ask either. */
  request (r->fd, rfk_event_indicator_acquire (), RFK_EVENT_SIZE_V1);
  g_assert_cmpint (next_status (r->fd), ==, EACCES);
  close (owner);
  pump ();
  e = next_event (asker, RFK_EVENT_SIZE_EXT);
  g_assert_true (e.op == RFK_OP_INDICATOR_CHANGE && !e.soft);
  fake_rfkill_set_soft (r->fake, 0, TRUE);
  e = next_event (r->fd, RFK_EVENT_SIZE_EXT);
  g_assert_cmpuint (e.op, ==, RFK_OP_CHANGE);
  no_more_packets (r->fd);
  close (asker);
}

static void
test_bad_requests_get_einval (Raw *r, gconstpointer data)
{
  RfkEvent add = { .idx = 5, .type = RFK_TYPE_WLAN, .op = RFK_OP_ADD };
  RfkEvent odd = { .op = 42 };

  r->fd = fake_rfkill_connect_pair (r->fake);
  end_of_list (r->fd);
  request (r->fd, rfk_event_change (0, RFK_TYPE_WLAN, TRUE), 6);
  g_assert_cmpint (next_status (r->fd), ==, EINVAL);
  request (r->fd, add, RFK_EVENT_SIZE_V1);
  g_assert_cmpint (next_status (r->fd), ==, EINVAL);
  request (r->fd, odd, RFK_EVENT_SIZE_V1);
  g_assert_cmpint (next_status (r->fd), ==, EINVAL);
  request (r->fd, rfk_event_change_all (200, TRUE), RFK_EVENT_SIZE_V1);
  g_assert_cmpint (next_status (r->fd), ==, EINVAL);
  g_assert_cmpuint (fake_rfkill_get_n_writes (r->fake), ==, 4);
}

static void
test_indicator_has_one_owner (Raw *r, gconstpointer data)
{
  int other;
  RfkEvent e;
  gboolean owned;

  fake_rfkill_add (r->fake, RFK_TYPE_WLAN, NULL);
  r->fd = fake_rfkill_connect_pair (r->fake);
  other = fake_rfkill_connect_pair (r->fake);
  next_event (r->fd, RFK_EVENT_SIZE_EXT);
  next_event (other, RFK_EVENT_SIZE_EXT);
  end_of_list (r->fd);
  end_of_list (other);
  ask_indicator_events (other);
  next_event (other, RFK_EVENT_SIZE_EXT);  /* the state: dark */
  g_assert_cmpint (next_status (other), ==, 0);

  request (r->fd, rfk_event_indicator_acquire (), RFK_EVENT_SIZE_V1);
  next_event (r->fd, RFK_EVENT_SIZE_EXT);  /* the state it starts from */
  g_assert_cmpint (next_status (r->fd), ==, 0);
  /* Acquiring twice is fine for the owner, refused for the other fd. */
  request (r->fd, rfk_event_indicator_acquire (), RFK_EVENT_SIZE_V1);
  g_assert_cmpint (next_status (r->fd), ==, 0);
  request (other, rfk_event_indicator_acquire (), RFK_EVENT_SIZE_V1);
  g_assert_cmpint (next_status (other), ==, EACCES);
  request (other, rfk_event_indicator_change (TRUE), RFK_EVENT_SIZE_V1);
  g_assert_cmpint (next_status (other), ==, EACCES);

  /* The owner lights it: every client that asked hears op 5. */
  request (r->fd, rfk_event_indicator_change (TRUE), RFK_EVENT_SIZE_V1);
  e = next_event (r->fd, RFK_EVENT_SIZE_EXT);
  g_assert_cmpuint (e.op, ==, RFK_OP_INDICATOR_CHANGE);
  g_assert_cmpuint (e.idx, ==, 0);
  g_assert_cmpuint (e.type, ==, RFK_TYPE_ALL);
  g_assert_true (e.soft);
  g_assert_cmpint (next_status (r->fd), ==, 0);
  e = next_event (other, RFK_EVENT_SIZE_EXT);
  g_assert_true (e.soft);
  g_assert_true (fake_rfkill_get_indicator (r->fake, &owned));
  g_assert_true (owned);

  /* The owner goes away: the default rule (radio on: dark) is back. */
  close (r->fd);
  r->fd = -1;
  pump ();
  e = next_event (other, RFK_EVENT_SIZE_EXT);
  g_assert_cmpuint (e.op, ==, RFK_OP_INDICATOR_CHANGE);
  g_assert_false (e.soft);
  g_assert_false (fake_rfkill_get_indicator (r->fake, &owned));
  g_assert_false (owned);
  request (other, rfk_event_indicator_acquire (), RFK_EVENT_SIZE_V1);
  g_assert_cmpint (next_status (other), ==, 0);
  close (other);
}

static void
test_stock_kernel_rejects_indicator_ops (Raw *r, gconstpointer data)
{
  fake_rfkill_set_stock (r->fake, TRUE);
  fake_rfkill_add (r->fake, RFK_TYPE_WLAN, NULL);
  r->fd = fake_rfkill_connect_pair (r->fake);
  next_event (r->fd, RFK_EVENT_SIZE_EXT);
  end_of_list (r->fd);

  request (r->fd, rfk_event_indicator_acquire (), RFK_EVENT_SIZE_V1);
  g_assert_cmpint (next_status (r->fd), ==, EINVAL);
  request (r->fd, rfk_event_indicator_change (TRUE), RFK_EVENT_SIZE_V1);
  g_assert_cmpint (next_status (r->fd), ==, EINVAL);
  /* It knows no such ioctl (ENOTTY, as since 6.8). */
  ask_indicator_events (r->fd);
  g_assert_cmpint (next_status (r->fd), ==, ENOTTY);
  /* And it never announces the indicator. */
  fake_rfkill_set_soft (r->fake, 0, TRUE);
  next_event (r->fd, RFK_EVENT_SIZE_EXT);  /* the CHANGE */
  no_more_packets (r->fd);
}

static void
test_sysfs_stand_in (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("rfk-fake-XXXXXX", &error);
  g_autofree char *sysfs = g_build_filename (dir, "sys", NULL);
  g_autofree char *name_file = g_build_filename (sysfs, "rfkill1", "name",
                                                 NULL);
  g_autofree char *hard_file = g_build_filename (sysfs, "rfkill1", "hard",
                                                 NULL);
  g_autofree char *contents = NULL;
  FakeRfkill *fake = fake_rfkill_new (sysfs);

  fake_rfkill_add (fake, RFK_TYPE_WLAN, NULL);
  fake_rfkill_add (fake, RFK_TYPE_BLUETOOTH, "hci7");
  g_assert_true (g_file_get_contents (name_file, &contents, NULL, NULL));
  g_assert_cmpstr (contents, ==, "hci7\n");
  g_clear_pointer (&contents, g_free);
  fake_rfkill_set_hard (fake, 1, TRUE, RFK_HARD_BLOCK_SIGNAL);
  g_assert_true (g_file_get_contents (hard_file, &contents, NULL, NULL));
  g_assert_cmpstr (contents, ==, "1\n");

  fake_rfkill_del (fake, 1);
  g_assert_false (g_file_test (name_file, G_FILE_TEST_EXISTS));
  fake_rfkill_free (fake);
  g_rmdir (sysfs);
  g_rmdir (dir);
}


/* The kernel sends a CHANGE only when a state really changed: a write
 * that changes nothing is answered, and says nothing. */
static void
test_write_that_changes_nothing_is_silent (Raw *r, gconstpointer data)
{
  fake_rfkill_add (r->fake, RFK_TYPE_WLAN, NULL);
  r->fd = fake_rfkill_connect_pair (r->fake);
  next_event (r->fd, RFK_EVENT_SIZE_EXT);
  end_of_list (r->fd);

  request (r->fd, rfk_event_change (0, RFK_TYPE_WLAN, FALSE),
           RFK_EVENT_SIZE_V1);
  g_assert_cmpint (next_status (r->fd), ==, 0);
  request (r->fd, rfk_event_change_all (RFK_TYPE_ALL, FALSE),
           RFK_EVENT_SIZE_V1);
  g_assert_cmpint (next_status (r->fd), ==, 0);
  no_more_packets (r->fd);
}

/* RFKILL_IOCTL_NOINPUT: while that fd is open, rfkill-input leaves the
 * airplane key alone; closing it gives the key back. */
static void
test_noinput_stops_the_key_until_closed (Raw *r, gconstpointer data)
{
  guint8 buf[RFK_IOCTL_PACKET_SIZE];
  gsize size = rfk_ioctl_packet_encode (RFK_IOC_NOINPUT, buf);

  fake_rfkill_add (r->fake, RFK_TYPE_WLAN, NULL);
  r->fd = fake_rfkill_connect_pair (r->fake);
  next_event (r->fd, RFK_EVENT_SIZE_EXT);
  end_of_list (r->fd);
  g_assert_cmpint (send (r->fd, buf, size, 0), ==, size);
  g_assert_cmpint (next_status (r->fd), ==, 0);

  fake_rfkill_press_airplane_key (r->fake);
  g_assert_false (fake_rfkill_lookup (r->fake, 0)->soft);
  no_more_packets (r->fd);

  close (r->fd);
  r->fd = 0;
  pump ();
  fake_rfkill_press_airplane_key (r->fake);
  g_assert_true (fake_rfkill_lookup (r->fake, 0)->soft);
}

/* A driver that refuses soft blocks (the "refuse" command): the kernel
 * restores the state and says nothing; the key cannot switch it either. */
static void
test_refusing_radio_keeps_its_state (Raw *r, gconstpointer data)
{
  gboolean quit;
  g_autofree char *reply = NULL;

  fake_rfkill_add (r->fake, RFK_TYPE_WLAN, "acme-slider");
  reply = fake_rfkill_command (r->fake, "refuse 0 on", &quit);
  g_assert_cmpstr (reply, ==, "ok\n");
  r->fd = fake_rfkill_connect_pair (r->fake);
  next_event (r->fd, RFK_EVENT_SIZE_EXT);
  end_of_list (r->fd);

  request (r->fd, rfk_event_change (0, RFK_TYPE_WLAN, TRUE),
           RFK_EVENT_SIZE_V1);
  g_assert_cmpint (next_status (r->fd), ==, 0);
  request (r->fd, rfk_event_change_all (RFK_TYPE_WLAN, TRUE),
           RFK_EVENT_SIZE_V1);
  g_assert_cmpint (next_status (r->fd), ==, 0);
  fake_rfkill_press_airplane_key (r->fake);
  no_more_packets (r->fd);
  g_assert_false (fake_rfkill_lookup (r->fake, 0)->soft);

  /* Its own switch still moves it. */
  g_assert_true (fake_rfkill_set_soft (r->fake, 0, TRUE));
  g_assert_true (next_event (r->fd, RFK_EVENT_SIZE_EXT).soft);
}

static void
test_control_commands (void)
{
  FakeRfkill *fake = fake_rfkill_new (NULL);
  gboolean quit;
  char *reply;

  reply = fake_rfkill_command (fake, "add wifi", &quit);
  g_assert_cmpstr (reply, ==, "0\nok\n");
  g_free (reply);
  reply = fake_rfkill_command (fake, "  hard 0   on  not-owner ", &quit);
  g_assert_cmpstr (reply, ==, "ok\n");
  g_free (reply);
  reply = fake_rfkill_command (fake, "list", &quit);
  g_assert_cmpstr (reply, ==, "0 wlan phy0 0 1 2\nok\n");
  g_free (reply);
  reply = fake_rfkill_command (fake, "readd 0", &quit);
  g_assert_cmpstr (reply, ==, "1\nok\n");
  g_free (reply);
  reply = fake_rfkill_command (fake, "soft 7 on", &quit);
  g_assert_cmpstr (reply, ==, "error: no radio 7\n");
  g_free (reply);
  /* No kernel registers a radio of a type it does not know. */
  reply = fake_rfkill_command (fake, "add 42", &quit);
  g_assert_cmpstr (reply, ==, "error: a kernel has no radio of type 42\n");
  g_free (reply);
  reply = fake_rfkill_command (fake, "refuse 7 on", &quit);
  g_assert_cmpstr (reply, ==, "error: no radio 7\n");
  g_free (reply);
  reply = fake_rfkill_command (fake, "hard 1 sideways", &quit);
  g_assert_true (g_str_has_prefix (reply, "error: usage: hard"));
  g_free (reply);
  g_assert_false (quit);
  reply = fake_rfkill_command (fake, "quit", &quit);
  g_assert_true (quit);
  g_free (reply);
  fake_rfkill_free (fake);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) \
  g_test_add ("/fake/" path, Raw, NULL, raw_setup, func, raw_teardown)
  ADD ("connect-sends-one-add-per-radio",
       test_connect_sends_one_add_per_radio);
  ADD ("v1-events-are-8-bytes", test_v1_events_are_8_bytes);
  ADD ("change-all-sets-type-and-default",
       test_change_all_sets_type_and_default);
  ADD ("change-matches-idx-and-type", test_change_matches_idx_and_type);
  ADD ("bad-requests-get-einval", test_bad_requests_get_einval);
  ADD ("indicator-has-one-owner", test_indicator_has_one_owner);
  ADD ("indicator-events-only-when-asked",
       test_indicator_events_only_when_asked);
  ADD ("stock-kernel-rejects-indicator-ops",
       test_stock_kernel_rejects_indicator_ops);
  ADD ("write-that-changes-nothing-is-silent",
       test_write_that_changes_nothing_is_silent);
  ADD ("noinput-stops-the-key-until-closed",
       test_noinput_stops_the_key_until_closed);
  ADD ("refusing-radio-keeps-its-state",
       test_refusing_radio_keeps_its_state);
#undef ADD
  g_test_add_func ("/fake/sysfs-stand-in", test_sysfs_stand_in);
  g_test_add_func ("/fake/control-commands", test_control_commands);
  return g_test_run ();
}

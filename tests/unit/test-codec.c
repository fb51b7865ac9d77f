/* test-codec.c: the event codec, type table and restore store. */
#include <glib/gstdio.h>
#include <linux/rfkill.h>
#include <locale.h>
#include <string.h>

#include "rfk-airplane-store.h"
#include "rfk-device.h"
#include "rfk-event.h"

static void
test_decode_v1 (void)
{
  /* idx 3 (host endian), type wlan, op CHANGE, soft 1, hard 0 */
  guint8 buf[8] = { 0 };
  guint32 idx = 3;
  RfkEvent e;

  memcpy (buf, &idx, 4);
  buf[4] = 1; buf[5] = 2; buf[6] = 1; buf[7] = 0;
  g_assert_true (rfk_event_decode (buf, sizeof buf, &e));
  g_assert_cmpuint (e.idx, ==, 3);
  g_assert_cmpuint (e.type, ==, 1);
  g_assert_cmpuint (e.op, ==, RFK_OP_CHANGE);
  g_assert_true (e.soft);
  g_assert_false (e.hard);
  g_assert_false (e.has_reasons);
  g_assert_cmpuint (e.hard_reasons, ==, 0);
}

static void
test_decode_extended_and_future_sizes (void)
{
  guint8 buf[RFK_EVENT_SIZE_MAX];
  RfkEvent e;

  memset (buf, 0x5a, sizeof buf);
  buf[6] = 2;  /* any non-zero byte is "blocked" */
  buf[7] = 0;
  buf[8] = RFK_HARD_BLOCK_SIGNAL | RFK_HARD_BLOCK_NOT_OWNER;
  g_assert_true (rfk_event_decode (buf, 9, &e));
  g_assert_true (e.has_reasons);
  g_assert_cmpuint (e.hard_reasons, ==, 3);
  g_assert_true (e.soft);
  g_assert_false (e.hard);
  g_assert_cmpuint (e.idx, ==, 0x5a5a5a5a);

  /* A longer event from a newer kernel: same fields, rest ignored. */
  g_assert_true (rfk_event_decode (buf, sizeof buf, &e));
  g_assert_cmpuint (e.hard_reasons, ==, 3);
}

static void
test_short_reads_are_rejected (void)
{
  guint8 buf[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
  RfkEvent e = { .idx = 99 };

  for (gsize len = 0; len < RFK_EVENT_SIZE_V1; len++)
    g_assert_false (rfk_event_decode (buf, len, &e));
  g_assert_false (rfk_event_decode (NULL, 8, &e));
  g_assert_cmpuint (e.idx, ==, 99);  /* untouched */
}

static void
test_encode_requests (void)
{
  guint8 buf[RFK_EVENT_SIZE_EXT];
  RfkEvent e, back;

  e = rfk_event_change (7, RFK_TYPE_BLUETOOTH, TRUE);
  g_assert_cmpuint (rfk_event_encode (&e, buf), ==, 8);
  g_assert_true (rfk_event_decode (buf, 8, &back));
  g_assert_cmpuint (back.idx, ==, 7);
  g_assert_cmpuint (back.type, ==, RFK_TYPE_BLUETOOTH);
  g_assert_cmpuint (back.op, ==, 2);
  g_assert_cmpuint (buf[6], ==, 1);
  g_assert_cmpuint (buf[7], ==, 0);

  e = rfk_event_change_all (RFK_TYPE_WWAN, FALSE);
  rfk_event_encode (&e, buf);
  g_assert_cmpuint (buf[4], ==, RFK_TYPE_WWAN);
  g_assert_cmpuint (buf[5], ==, 3);
  g_assert_cmpuint (buf[6], ==, 0);

  /* The indicator ops share their numbers with the kernel module. */
  e = rfk_event_indicator_acquire ();
  rfk_event_encode (&e, buf);
  g_assert_cmpuint (buf[5], ==, 4);
  g_assert_cmpuint (RFK_OP_INDICATOR_ACQUIRE, ==,
                    RFKILL_OP_AIRPLANE_MODE_INDICATOR_ACQUIRE);
  e = rfk_event_indicator_change (TRUE);
  rfk_event_encode (&e, buf);
  g_assert_cmpuint (buf[5], ==, 5);
  g_assert_cmpuint (buf[6], ==, 1);

  e = (RfkEvent) { .idx = 1, .hard = TRUE, .hard_reasons = 2 };
  g_assert_cmpuint (rfk_event_encode_ext (&e, buf), ==, 9);
  g_assert_true (rfk_event_decode (buf, 9, &back));
  g_assert_cmpuint (back.hard_reasons, ==, 2);
}

static void
test_ioctl_numbers (void)
{
  /* rfk-protocol.h spells these out for older headers; the system's
   * <linux/rfkill.h> (5.11+) is the authority. */
  g_assert_cmphex (RFK_IOCTL_NOINPUT, ==, RFKILL_IOCTL_NOINPUT);
  g_assert_cmphex (RFK_IOCTL_MAX_SIZE, ==, RFKILL_IOCTL_MAX_SIZE);
  g_assert_cmphex (RFK_IOC_MAGIC, ==, RFKILL_IOC_MAGIC);
  /* The MAX_SIZE ioctl's argument is the event size we ask for. */
  g_assert_cmpuint (RFK_EVENT_SIZE_V1, ==, RFKILL_EVENT_SIZE_V1);
  g_assert_cmpuint (RFK_EVENT_SIZE_EXT, ==, sizeof (struct rfkill_event_ext));
  /* Ours (rfkill-airplane.h): _IO('R', 0x41), far from upstream's; no
   * system header has it, so the number is the one the module's uapi
   * header promises. */
  g_assert_cmphex (RFK_IOCTL_AIRPLANE_MODE_EVENTS, ==, 0x5241);
}

static void
test_ioctl_packets (void)
{
  guint8 buf[RFK_IOCTL_PACKET_SIZE];
  guint8 nr = 0;
  int err;

  g_assert_cmpuint (rfk_ioctl_packet_encode (RFK_IOC_AIRPLANE_MODE_EVENTS,
                                             buf), ==, 4);
  g_assert_true (rfk_ioctl_packet_decode (buf, sizeof buf, &nr));
  g_assert_cmpuint (nr, ==, 0x41);
  /* Not a status packet, and shorter than any write. */
  g_assert_false (rfk_status_decode (buf, sizeof buf, &err));
  g_assert_cmpuint (sizeof buf, <, RFK_WRITE_SIZE_MIN);
  g_assert_false (rfk_ioctl_packet_decode (buf, 3, &nr));
  buf[3] = 1;
  g_assert_false (rfk_ioctl_packet_decode (buf, sizeof buf, &nr));
}

static void
test_status_packets (void)
{
  guint8 buf[RFK_STATUS_SIZE];
  int err = -1;

  rfk_status_encode (13, buf);
  g_assert_true (rfk_status_decode (buf, sizeof buf, &err));
  g_assert_cmpint (err, ==, 13);
  rfk_status_encode (0, buf);
  g_assert_true (rfk_status_decode (buf, sizeof buf, &err));
  g_assert_cmpint (err, ==, 0);
  g_assert_false (rfk_status_decode (buf, 3, &err));
  buf[1] = 'X';
  g_assert_false (rfk_status_decode (buf, sizeof buf, &err));
}

static void
test_type_table (void)
{
  RfkType t;

  g_assert_cmpstr (rfk_type_to_string (RFK_TYPE_WLAN), ==, "wlan");
  g_assert_cmpstr (rfk_type_to_string (RFK_TYPE_NFC), ==, "nfc");
  g_assert_null (rfk_type_to_string (RFK_TYPE_COUNT));
  g_assert_true (rfk_type_from_string ("wifi", &t));
  g_assert_cmpint (t, ==, RFK_TYPE_WLAN);
  g_assert_true (rfk_type_from_string ("BT", &t));
  g_assert_cmpint (t, ==, RFK_TYPE_BLUETOOTH);
  g_assert_true (rfk_type_from_string ("wwan", &t));
  g_assert_cmpint (t, ==, RFK_TYPE_WWAN);
  g_assert_false (rfk_type_from_string ("toaster", &t));
  g_assert_cmpstr (rfk_type_to_label (RFK_TYPE_WLAN), ==, "Wi-Fi");
  g_assert_cmpstr (rfk_type_to_label (200), ==, "Unknown radio");
  g_assert_cmpstr (rfk_op_to_string (RFK_OP_CHANGE_ALL), ==, "CHANGE_ALL");
  g_assert_null (rfk_op_to_string (6));
}

static void
test_reason_labels (void)
{
  g_autofree char *none = rfk_hard_reasons_to_label (0);
  g_autofree char *both = rfk_hard_reasons_to_label (3);
  g_autofree char *future = rfk_hard_reasons_to_label (0x80);

  g_assert_cmpstr (none, ==, "");
  g_assert_cmpstr (both, ==, "hardware switch, not owner");
  g_assert_cmpstr (future, ==, "unknown reason");
}

static void
test_device_key_and_blocked (void)
{
  RfkDevice d = { .idx = 4, .type = RFK_TYPE_WLAN, .name = "phy0" };
  g_autofree char *key = rfk_device_dup_key (&d);

  g_assert_cmpstr (key, ==, "wlan:phy0");
  g_assert_false (rfk_device_is_blocked (&d));
  d.hard = TRUE;
  g_assert_true (rfk_device_is_blocked (&d));
}

/* ---- store ------------------------------------------------------------ */

static char *state_home;

static void
test_store_round_trip (void)
{
  g_autoptr (RfkAirplaneStore) store = rfk_airplane_store_new ();
  g_autoptr (RfkAirplaneStore) back = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *path = rfk_airplane_store_dup_path ();
  gboolean soft;

  g_assert_true (g_str_has_prefix (path, state_home));
  g_assert_true (g_str_has_suffix (path, "/rfkill-applet/airplane-mode.ini"));

  /* Nothing saved yet: an empty store, not an error. */
  back = rfk_airplane_store_load (&error);
  g_assert_no_error (error);
  g_assert_false (back->active);
  g_clear_pointer (&back, rfk_airplane_store_free);

  store->active = TRUE;
  rfk_airplane_store_remember (store, "wlan:phy0", FALSE);
  /* Driver names may hold anything a key file would choke on. */
  rfk_airplane_store_remember (store, "bluetooth:My [BT]=dongle #1", TRUE);
  g_assert_true (rfk_airplane_store_save (store, &error));
  g_assert_no_error (error);

  back = rfk_airplane_store_load (&error);
  g_assert_no_error (error);
  g_assert_true (back->active);
  g_assert_true (rfk_airplane_store_lookup (back, "wlan:phy0", &soft));
  g_assert_false (soft);
  g_assert_true (rfk_airplane_store_lookup (back,
                                            "bluetooth:My [BT]=dongle #1",
                                            &soft));
  g_assert_true (soft);
  g_assert_false (rfk_airplane_store_lookup (back, "wlan:phy1", NULL));
  g_assert_cmpuint (g_hash_table_size (back->radios), ==, 2);
}

static void
test_store_corrupt_file_is_an_error_naming_it (void)
{
  g_autofree char *path = rfk_airplane_store_dup_path ();
  g_autoptr (GError) error = NULL;
  RfkAirplaneStore *store;

  g_assert_true (g_file_set_contents (path,
                                      "[radios]\nwlan:phy0=maybe\n", -1,
                                      NULL));
  store = rfk_airplane_store_load (&error);
  g_assert_null (store);
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, path));
  g_assert_nonnull (strstr (error->message, "maybe"));
  g_clear_error (&error);

  g_assert_true (g_file_set_contents (path, "not a key file", -1, NULL));
  store = rfk_airplane_store_load (&error);
  g_assert_null (store);
  g_assert_nonnull (strstr (error->message, path));
}

int
main (int argc, char **argv)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = NULL;
  int ret;

  setlocale (LC_ALL, "C");
  g_test_init (&argc, &argv, NULL);
  dir = g_dir_make_tmp ("rfk-codec-XXXXXX", &error);
  g_assert_no_error (error);
  state_home = g_build_filename (dir, "state", NULL);
  g_setenv ("XDG_STATE_HOME", state_home, TRUE);

  g_test_add_func ("/codec/decode-v1", test_decode_v1);
  g_test_add_func ("/codec/decode-extended-and-future-sizes",
                   test_decode_extended_and_future_sizes);
  g_test_add_func ("/codec/short-reads-are-rejected",
                   test_short_reads_are_rejected);
  g_test_add_func ("/codec/encode-requests", test_encode_requests);
  g_test_add_func ("/codec/ioctl-numbers", test_ioctl_numbers);
  g_test_add_func ("/codec/status-packets", test_status_packets);
  g_test_add_func ("/codec/ioctl-packets", test_ioctl_packets);
  g_test_add_func ("/device/type-table", test_type_table);
  g_test_add_func ("/device/reason-labels", test_reason_labels);
  g_test_add_func ("/device/key-and-blocked", test_device_key_and_blocked);
  g_test_add_func ("/store/round-trip", test_store_round_trip);
  g_test_add_func ("/store/corrupt-file-is-an-error-naming-it",
                   test_store_corrupt_file_is_an_error_naming_it);
  ret = g_test_run ();

  {
    g_autofree char *path = rfk_airplane_store_dup_path ();
    g_autofree char *sub = g_path_get_dirname (path);

    g_unlink (path);
    g_rmdir (sub);
    g_rmdir (state_home);
    g_rmdir (dir);
  }
  g_free (state_home);
  return ret;
}

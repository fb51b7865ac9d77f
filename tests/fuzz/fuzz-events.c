/*
 * fuzz-events.c: libFuzzer target over the event decoder and the model.
 *
 * Input: byte 0 picks the airplane-mode types (0xff: all, else a mask of
 * its bits), then operations, each an op byte and its arguments:
 *   op % 4 == 0:  u8 length | bytes   one read() from the device, fed to
 *                                     the manager and the decoder
 *   op % 4 == 1:  u8 idx | u8 blocked  rfk_manager_set_blocked_async()
 *   op % 4 == 2:  u8 enabled           rfk_manager_set_airplane_mode_async()
 *   op % 4 == 3:  u8 errno             a write-status packet
 * The manager writes into a socketpair whose other end is drained and
 * discarded, so requests complete only by the events the input feeds.
 * After every operation the model is checked against an independent
 * recomputation, airplane mode included (a radio counts as blocked while
 * airplane mode's own enforcement claims it), and whenever the radios
 * changed the airplane policy is driven directly on them with a restore
 * list drawn from the input, its plans checked against the rules it
 * promises (policy-oracle.c).  At the end every request must complete
 * exactly once.  fuzz-policy.c fuzzes the policy alone, much faster.
 */
#include <glib.h>
#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "policy-oracle.h"
#include "rfk-event.h"
#include "rfk-led-rule.h"
#include "rfk-manager-private.h"
#include "rfk-protocol.h"

typedef struct {
  gint64 added;
  gint64 removed;
  guint started;
  guint completed;
} Counts;

static void
blocked_done (GObject *source, GAsyncResult *result, gpointer data)
{
  g_autoptr (GError) error = NULL;

  rfk_manager_set_blocked_finish (RFK_MANAGER (source), result, &error);
  ((Counts *) data)->completed++;
}

static void
airplane_done (GObject *source, GAsyncResult *result, gpointer data)
{
  g_autoptr (GError) error = NULL;

  rfk_manager_set_airplane_mode_finish (RFK_MANAGER (source), result,
                                        &error);
  ((Counts *) data)->completed++;
}

static void
on_added (RfkManager *m, RfkDevice *d, Counts *c)
{
  c->added++;
}

static void
on_removed (RfkManager *m, RfkDevice *d, Counts *c)
{
  /* Still valid in the handler, and no longer looked up by idx. */
  if (d->name == NULL || rfk_manager_lookup (m, d->idx) == d)
    abort ();
  c->removed++;
}

static void
check_decoder (const guint8 *buf, gsize len)
{
  RfkEvent event;
  guint8 again[RFK_EVENT_SIZE_EXT];
  gboolean ok = rfk_event_decode (buf, len, &event);

  if (ok != (len >= RFK_EVENT_SIZE_V1))
    abort ();
  if (!ok)
    return;
  if (event.has_reasons != (len >= RFK_EVENT_SIZE_EXT))
    abort ();
  /* Re-encoding gives the same fields (booleans normalised). */
  rfk_event_encode_ext (&event, again);
  if (memcmp (again, buf, 6) != 0 || again[6] != (buf[6] != 0)
      || again[7] != (buf[7] != 0)
      || (event.has_reasons && again[8] != buf[8]))
    abort ();
}

/* Some devices taken for laptop switches, so that both branches of the
 * hardware-switch rule run. */
static gboolean
odd_idx_is_switch (const RfkDevice *device, gpointer user_data)
{
  return device->idx % 2 == 1;
}

static void
check_model (RfkManager *manager, guint32 mask, const Counts *counts)
{
  GPtrArray *devices = rfk_manager_get_devices (manager);
  guint counted = 0, blocked = 0;
  gboolean hardware = FALSE;

  if (counts->added - counts->removed != (gint64) devices->len)
    abort ();
  for (guint i = 0; i < devices->len; i++)
    {
      RfkDevice *d = g_ptr_array_index (devices, i);

      if (rfk_manager_lookup (manager, d->idx) != d || d->name == NULL)
        abort ();
      if (i > 0)
        {
          RfkDevice *prev = g_ptr_array_index (devices, i - 1);

          if (prev->type > d->type
              || (prev->type == d->type && strcmp (prev->name, d->name) > 0))
            abort ();
        }
      if (!d->hard && d->hard_reasons != 0)
        abort ();
      /* An exception stays as the user left it, so airplane mode does
       * not count it (RULES.md, "Exceptions"). */
      if (!d->exception
          && (mask == RFK_AIRPLANE_TYPES_ALL
              || (d->type < 32 && (mask & (1u << d->type)))))
        {
          Request *claim = g_hash_table_lookup (manager->claims,
                                                GUINT_TO_POINTER (d->idx));

          counted++;
          blocked += d->soft || d->hard
                     || (claim != NULL && claim->kind == REQUEST_ENFORCE);
        }
      if (d->hard && (d->hard_reasons == 0 || (d->hard_reasons & 1)))
        hardware = TRUE;
    }
  if (rfk_manager_get_airplane_mode (manager)
      != (counted > 0 && blocked == counted))
    abort ();
  if (rfk_manager_get_hardware_blocked (manager) != hardware)
    abort ();
  for (guint rule = 0; rule < RFK_LED_RULE_COUNT; rule++)
    {
      (void) rfk_led_rule_evaluate (rule, manager, NULL, NULL);
      (void) rfk_led_rule_evaluate (rule, manager, odd_idx_is_switch, NULL);
    }
}

/* What the policy saw of one radio: everything its RfkPolicyRadio and
 * keys are made from. */
typedef struct {
  guint32 idx;
  guint8 type;
  gboolean soft, hard;
  int writing;
  const char *name, *device_path;  /* borrowed, compared by content */
} Seen;

static int
writing_of (RfkManager *manager, const RfkDevice *d)
{
  gpointer value;

  if (g_hash_table_lookup_extended (manager->inflight,
                                    GUINT_TO_POINTER (d->idx), NULL, &value))
    return GPOINTER_TO_INT (value) - 1;
  return -1;
}

/* Are the policy's inputs what they were at the last check?  The mask
 * and the restore list drawn from the input are fixed for an input, so
 * the plans would be the same and need no second check.  seen holds
 * copies of the names: a removed device's strings are freed. */
static gboolean
policy_inputs_unchanged (RfkManager *manager, GArray *seen)
{
  GPtrArray *devices = rfk_manager_get_devices (manager);
  gboolean same = seen->len == devices->len;

  for (guint i = 0; same && i < devices->len; i++)
    {
      const RfkDevice *d = g_ptr_array_index (devices, i);
      const Seen *s = &g_array_index (seen, Seen, i);

      same = s->idx == d->idx && s->type == d->type && s->soft == d->soft
             && s->hard == d->hard && s->writing == writing_of (manager, d)
             && g_strcmp0 (s->name, d->name) == 0
             && g_strcmp0 (s->device_path, d->bus_device) == 0;
    }
  if (same)
    return TRUE;
  g_array_set_size (seen, 0);
  for (guint i = 0; i < devices->len; i++)
    {
      const RfkDevice *d = g_ptr_array_index (devices, i);
      Seen s = { d->idx, d->type, d->soft, d->hard, writing_of (manager, d),
                 g_strdup (d->name), g_strdup (d->bus_device) };

      g_array_append_val (seen, s);
    }
  return FALSE;
}

static void
seen_clear (gpointer data)
{
  Seen *s = data;

  g_free ((char *) s->name);
  g_free ((char *) s->device_path);
}

/* The promises of rfk-airplane-policy.h, for every event, on the
 * manager's radios and a restore list drawn from the input, whenever
 * those radios changed. */
static void
check_policy (RfkManager *manager, guint32 mask, const guint8 *data,
              gsize size, GArray *seen)
{
  GPtrArray *devices = rfk_manager_get_devices (manager);
  g_autoptr (GArray) radios = NULL;
  g_autoptr (GPtrArray) keys = NULL;
  g_autoptr (RfkAirplaneStore) store = NULL;

  if (policy_inputs_unchanged (manager, seen))
    return;
  radios = g_array_new (FALSE, TRUE, sizeof (RfkPolicyRadio));
  keys = g_ptr_array_new_with_free_func (g_free);
  store = rfk_airplane_store_new ();
  store->active = data[size / 2] & 1;
  for (guint i = 0; i < devices->len; i++)
    {
      RfkDevice *d = g_ptr_array_index (devices, i);
      RfkPolicyRadio r = { .idx = d->idx, .type = d->type, .soft = d->soft,
                           .hard = d->hard,
                           .writing = writing_of (manager, d) };
      guint8 bits = data[(i * 7 + 3) % size];

      r.key = rfk_device_dup_key (d);
      r.name_key = rfk_device_dup_name_key (d);
      g_ptr_array_add (keys, (char *) r.key);
      g_ptr_array_add (keys, (char *) r.name_key);
      if (bits & 1)
        rfk_airplane_store_remember (store, r.key, (bits >> 1) & 1);
      g_array_append_val (radios, r);
    }

  policy_oracle_check_all ((RfkPolicyRadio *) radios->data, radios->len,
                           store, mask);
}

/* What the history kept of the changes: bounded, each a change, and a
 * switch's only where a hard block came or went. */
static void
check_history (RfkHistory *history)
{
  GPtrArray *entries = rfk_history_get_entries (history);

  if (entries->len > RFK_HISTORY_MAX)
    abort ();
  for (guint i = 0; i < entries->len; i++)
    {
      const RfkHistoryEntry *e = entries->pdata[i];
      gboolean hard_changed = (e->from == RFK_RADIO_HARD_BLOCKED)
                              != (e->to == RFK_RADIO_HARD_BLOCKED);

      if (e->from == e->to || e->cause >= RFK_CAUSE_COUNT
          || (e->cause == RFK_CAUSE_SWITCH) != hard_changed
          || e->name == NULL || e->key == NULL)
        abort ();
    }
}

int LLVMFuzzerTestOneInput (const guint8 *data, size_t size);

static void
drain (int fd)
{
  guint8 buf[64];

  while (recv (fd, buf, sizeof buf, MSG_DONTWAIT) > 0)
    ;
}

static void
log_nothing (const char *domain, GLogLevelFlags level, const char *message,
             gpointer data)
{
  /* Warnings (e.g. a hot-plug block that failed) are expected here. */
  if (level & (G_LOG_LEVEL_ERROR | G_LOG_LEVEL_CRITICAL))
    abort ();
}

int
LLVMFuzzerTestOneInput (const guint8 *data, size_t size)
{
  static char *state_file;
  g_autoptr (GCancellable) cancellable = NULL;
  g_autoptr (RfkHistory) history = NULL;
  RfkManager *manager;
  Counts counts = { 0 };
  g_autoptr (GArray) seen = g_array_new (FALSE, FALSE, sizeof (Seen));
  guint32 mask;
  gsize pos = 1;
  int fds[2];

  if (state_file == NULL)
    {
      /* run-fuzz.sh points this at tmpfs: the store fsyncs, and on a
       * disk that is the whole cost of an input (5x slower here).  Run
       * by hand, the target still prefers tmpfs. */
      const char *given = g_getenv ("RFK_FUZZ_STATE_DIR");
      g_autofree char *dir = given ? g_strdup (given)
                                   : g_strdup ("/dev/shm/rfk-fuzz-XXXXXX");

      if (given == NULL && g_mkdtemp (dir) == NULL)
        {
          g_free (dir);
          dir = g_dir_make_tmp ("rfk-fuzz-XXXXXX", NULL);
        }

      if (dir == NULL)
        abort ();
      /* No real sysfs names; a private restore list. */
      g_setenv ("RFKILL_SYSFS_ROOT", "/nonexistent/rfkill-fuzz", TRUE);
      g_setenv ("XDG_STATE_HOME", dir, TRUE);
      state_file = g_build_filename (dir, "rfkill-applet",
                                     "airplane-mode.ini", NULL);
      g_log_set_default_handler (log_nothing, NULL);
    }
  if (size < 1)
    return 0;
  g_array_set_clear_func (seen, seen_clear);
  /* Matches no radio list, not even an empty one: the first is checked. */
  g_array_append_val (seen, ((Seen) { .idx = G_MAXUINT32 }));
  g_unlink (state_file);  /* every input starts from scratch */

  if (socketpair (AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0,
                  fds) < 0)
    abort ();
  cancellable = g_cancellable_new ();
  mask = data[0] == 0xff ? RFK_AIRPLANE_TYPES_ALL : data[0];
  manager = rfk_manager_new ("/nonexistent/rfkill-fuzz/dev");
  g_signal_connect (manager, "device-added", G_CALLBACK (on_added), &counts);
  g_signal_connect (manager, "device-removed", G_CALLBACK (on_removed),
                    &counts);
  rfk_manager_set_airplane_types (manager, mask);
  /* In memory only: never flushed to disk. */
  history = rfk_history_new ();
  rfk_manager_set_history (manager, history);
  rfk_manager_adopt_fd (manager, fds[0], TRUE);
  rfk_manager_feed_ready (manager);

  while (pos < size)
    {
      guint8 op = data[pos++];
      guint8 arg = pos < size ? data[pos] : 0;

      switch (op % 4)
        {
        case 0:
          {
            gsize len = pos < size ? MIN ((gsize) data[pos], size - pos - 1)
                                   : 0;
            const guint8 *packet = data + pos + 1;

            pos += 1 + len;
            check_decoder (packet, MIN (len, size));
            rfk_manager_feed (manager, packet, len);
            break;
          }
        case 1:
          {
            guint8 blocked = pos + 1 < size ? data[pos + 1] : 0;

            pos += 2;
            counts.started++;
            rfk_manager_set_blocked_async (manager, arg % 8, blocked & 1,
                                           cancellable, blocked_done,
                                           &counts);
            break;
          }
        case 2:
          pos += 1;
          counts.started++;
          rfk_manager_set_airplane_mode_async (manager, arg & 1,
                                               cancellable, airplane_done,
                                               &counts);
          break;
        default:
          {
            guint8 status[RFK_STATUS_SIZE];

            pos += 1;
            rfk_status_encode (arg, status);
            rfk_manager_feed (manager, status, sizeof status);
            break;
          }
        }
      drain (fds[1]);
      check_model (manager, mask, &counts);
      check_policy (manager, mask, data, size, seen);
    }

  /* Whatever is still waiting for the kernel ends now, exactly once. */
  g_cancellable_cancel (cancellable);
  for (guint i = 0; i < 1000 && counts.completed < counts.started; i++)
    g_main_context_iteration (NULL, FALSE);
  if (counts.completed != counts.started)
    abort ();
  while (g_main_context_iteration (NULL, FALSE))
    ;

  g_object_unref (manager);  /* hands over what its last sweep held */
  check_history (history);
  close (fds[1]);
  return 0;
}

/*
 * rfk-manager-resume.c: RfkManager keeps the radios the user had off
 * off across suspend (the "keep-radio-states" setting).
 *
 * At resume, drivers, BlueZ, blueman's power manager and sleep scripts
 * turn radios on, and a USB Bluetooth adapter re-enumerates and comes
 * back under a new index in its type's global state.  systemd-rfkill
 * does not help: it restores a saved state only when a device is added,
 * so a radio that stays present across resume is left to its driver.
 *
 * So: at logind's PrepareForSleep(true) the stable keys of the radios
 * that are off are remembered; from then until RESUME_WINDOW_MS after
 * PrepareForSleep(false), a radio on that list that another program or
 * a driver turns on (or that comes back on under any index) is switched
 * off again.  A program that turns it on again gets one retry, then the
 * guard gives up and says so.  It never undoes:
 *  - a request of ours: a caller's request for a radio (or a type, or
 *    airplane mode, which names every radio) takes it off the list;
 *  - a hardware switch: only soft states are written;
 *  - airplane mode ended elsewhere (the key, `rfkill unblock all`): a
 *    batch of another program's that turns every counted radio on while
 *    our airplane mode holds is the user's, and ends the guard's watch.
 * Decisions wait for the end of the batch, like rfk-manager-others.c's,
 * and until then the radios count as off, so airplane mode does not
 * blink.  What is remembered lives in memory only: a restart forgets it.
 */
#include "config.h"

#include "rfk-manager-private.h"

/* Long enough for USB re-enumeration, BlueZ's AutoEnable and blueman's
 * power manager after resume (they act within a few seconds); short
 * enough that a user who turns a radio on by other means a minute
 * later is not overruled. */
#define RESUME_WINDOW_MS 20000
/* The guard's writes per radio per resume: the first, and one retry. */
#define MAX_TRIES 2

void
rfk_manager_resume_init (RfkManager *self)
{
  self->keep_radio_states = TRUE;
  self->asleep_off = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                            NULL);
  self->resume_on = g_array_new (FALSE, FALSE, sizeof (RfkResumePending));
  self->timing.resume_ms = RESUME_WINDOW_MS;
}

void
rfk_manager_resume_end_watch (RfkManager *self)
{
  self->resume_watch = FALSE;
  g_clear_handle_id (&self->resume_source, g_source_remove);
  g_hash_table_remove_all (self->asleep_off);
  g_array_set_size (self->resume_on, 0);
}

void
rfk_manager_resume_dispose (RfkManager *self)
{
  rfk_manager_resume_end_watch (self);
}

void
rfk_manager_resume_finalize (RfkManager *self)
{
  g_hash_table_unref (self->asleep_off);
  g_array_unref (self->resume_on);
}

void
rfk_manager_resume_set_keep (RfkManager *self, gboolean keep)
{
  self->keep_radio_states = keep != FALSE;
  if (!self->keep_radio_states)
    rfk_manager_resume_end_watch (self);
}

static gboolean
window_over (gpointer data)
{
  RfkManager *self = data;

  self->resume_source = 0;
  rfk_manager_resume_end_watch (self);
  return G_SOURCE_REMOVE;
}

void
rfk_manager_resume_sleep (RfkManager *self, gboolean sleeping)
{
  /* For the history, with the guard or without it. */
  if (!sleeping)
    self->resumed_us = g_get_monotonic_time ();
  if (!self->keep_radio_states || self->read_only
      || self->state != RFK_MANAGER_STATE_READY)
    return;
  if (!sleeping)
    {
      /* The window runs from resume; without a sleep before, there is
       * nothing to keep. */
      if (!self->resume_watch)
        return;
      g_clear_handle_id (&self->resume_source, g_source_remove);
      if (self->timing.resume_ms > 0)
        self->resume_source = g_timeout_add (self->timing.resume_ms,
                                             window_over, self);
      return;
    }
  rfk_manager_resume_end_watch (self);
  /* Where our requests in flight leave them: a click just before the
   * lid closed counts. */
  for (guint i = 0; i < self->sorted->len; i++)
    {
      RfkDevice *device = g_ptr_array_index (self->sorted, i);

      if (rfk_manager_soft_leaves (self, device))
        g_hash_table_insert (self->asleep_off, rfk_device_dup_key (device),
                             GUINT_TO_POINTER (1));
    }
  self->resume_watch = g_hash_table_size (self->asleep_off) > 0;
}

/* ---- what callers ask ------------------------------------------------ */

void
rfk_manager_resume_forget (RfkManager *self, RfkDevice *device)
{
  g_autofree char *key = NULL;

  if (!self->resume_watch)
    return;
  key = rfk_device_dup_key (device);
  g_hash_table_remove (self->asleep_off, key);
}

void
rfk_manager_resume_forget_type (RfkManager *self, guint type)
{
  for (guint i = 0; self->resume_watch && i < self->sorted->len; i++)
    {
      RfkDevice *device = g_ptr_array_index (self->sorted, i);

      if (device->type == type)
        rfk_manager_resume_forget (self, device);
    }
}

void
rfk_manager_resume_forget_all (RfkManager *self)
{
  if (self->resume_watch)
    rfk_manager_resume_end_watch (self);
}

/* ---- what others do -------------------------------------------------- */

static gboolean
on_the_list (RfkManager *self, RfkDevice *device)
{
  g_autofree char *key = NULL;

  if (!self->resume_watch)
    return FALSE;
  key = rfk_device_dup_key (device);
  return g_hash_table_contains (self->asleep_off, key);
}

static void
note_on (RfkManager *self, RfkDevice *device, gboolean changed)
{
  RfkResumePending pending = { device->idx, self->airplane_mode };

  if (!on_the_list (self, device))
    return;
  g_array_append_val (self->resume_on, pending);
  self->resume_changed_in_batch |= changed;
}

void
rfk_manager_resume_radio_added (RfkManager *self, RfkDevice *device)
{
  if (!device->soft)
    note_on (self, device, FALSE);
}

void
rfk_manager_resume_radio_changed (RfkManager *self, RfkDevice *device,
                                  gboolean soft_before, gboolean ours)
{
  if (soft_before && !device->soft && !ours)
    note_on (self, device, TRUE);
}

void
rfk_manager_resume_radio_removed (RfkManager *self, guint32 idx)
{
  for (guint i = self->resume_on->len; i > 0; i--)
    if (g_array_index (self->resume_on, RfkResumePending, i - 1).idx == idx)
      g_array_remove_index (self->resume_on, i - 1);
}

/* Our airplane mode holds (the list is active) and the batch turned
 * every counted radio on: the key or `rfkill unblock all`, the user's. */
static gboolean
airplane_ended_by_user (RfkManager *self)
{
  g_autoptr (RfkAirplaneStore) store = NULL;

  if (!self->resume_changed_in_batch || self->n_counted_soft_only > 0)
    return FALSE;
  store = rfk_manager_list_load (self, NULL);
  return store != NULL && store->active && store->corrupt_copy == NULL;
}

void
rfk_manager_resume_batch_end (RfkManager *self)
{
  g_autoptr (GArray) pending = NULL;
  Request *request = NULL;

  if (self->resume_on->len == 0)
    {
      self->resume_changed_in_batch = FALSE;
      return;
    }
  pending = self->resume_on;
  self->resume_on = g_array_new (FALSE, FALSE, sizeof (RfkResumePending));
  if (airplane_ended_by_user (self))
    {
      rfk_manager_resume_end_watch (self);
      goto done;
    }
  for (guint i = 0; i < pending->len; i++)
    {
      guint32 idx = g_array_index (pending, RfkResumePending, i).idx;
      RfkDevice *device = rfk_manager_device_at (self, idx);
      g_autofree char *key = NULL;
      guint tries;

      /* Gone, off again, or already kept off (a newcomer in airplane
       * mode, rfk-manager-others.c). */
      if (device == NULL || device->soft
          || rfk_manager_soft_leaves (self, device)
          || !on_the_list (self, device))
        continue;
      key = rfk_device_dup_key (device);
      tries = GPOINTER_TO_UINT (g_hash_table_lookup (self->asleep_off,
                                                     key)) - 1;
      if (tries >= MAX_TRIES)
        {
          g_hash_table_remove (self->asleep_off, key);
          g_signal_emit (self, rfk_manager_signals[SIGNAL_RADIO_KEPT_OFF], 0,
                         device, TRUE);
          continue;
        }
      g_hash_table_insert (self->asleep_off, g_steal_pointer (&key),
                           GUINT_TO_POINTER (tries + 2));
      if (request == NULL)
        {
          request = rfk_request_new (self, REQUEST_ENFORCE, NULL, NULL,
                                     NULL, NULL);
          request->cause = RFK_CAUSE_RESUME;
        }
      if (!rfk_request_want (request, device, TRUE))
        {
          request = NULL;  /* finished with the write's error */
          break;
        }
      if (tries == 0)
        g_signal_emit (self, rfk_manager_signals[SIGNAL_RADIO_KEPT_OFF], 0,
                       device, FALSE);
    }
  if (request != NULL)
    rfk_request_commit (request);
done:
  self->resume_changed_in_batch = FALSE;
  /* Radios we now keep off count as blocked already; the others count
   * as what they are. */
  rfk_manager_update_airplane_mode (self);
}

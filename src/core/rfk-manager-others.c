/*
 * rfk-manager-others.c: RfkManager notices what other programs do.
 *
 *  - every counted radio came on in one batch (gsd's CHANGE_ALL,
 *    `rfkill unblock all`, the airplane key): airplane mode ended
 *    elsewhere; the radios that were off before go off again, once;
 *  - only some came on: a user switched radios by hand; they are left
 *    alone and the list, no longer true, is dropped;
 *  - a radio plugged in during airplane mode that its saved state
 *    (systemd-rfkill) turns on right away is kept off, once, if the
 *    others are still off once the batch is read (a sweep that turns
 *    every radio on ends airplane mode instead);
 *  - every counted radio went off in one batch: airplane mode began
 *    elsewhere (the key, `rfkill block all`); the states from before the
 *    batch become the list, so leaving restores them.
 */
#include "config.h"

#include "rfk-manager-private.h"

#include "rfk-state-file.h"

static void
keep_newcomer_off (RfkManager *self, RfkDevice *device)
{
  g_autoptr (RfkStateLock) lock = NULL;
  g_autoptr (RfkAirplaneStore) store = NULL;
  g_autoptr (RfkAirplanePlan) plan = NULL;

  store = rfk_manager_list_load_active (self, &lock);
  if (store == NULL)
    return;
  plan = rfk_manager_list_plan (self, RFK_POLICY_RADIOS_ADDED, store, FALSE);
  rfk_manager_list_enforce (self, plan);
}

static gboolean
ours_to_watch (RfkManager *self, RfkDevice *device)
{
  return self->state == RFK_MANAGER_STATE_READY && self->airplane_ops == 0
         && rfk_airplane_policy_takes_part (self->airplane_types, device);
}

/* Only after the initial ADDs: what happened while we were not running
 * is not ours to undo. */
void
rfk_manager_airplane_radio_added (RfkManager *self, RfkDevice *device)
{
  g_autoptr (RfkAirplaneStore) store = NULL;

  if (!ours_to_watch (self, device) || !rfk_manager_others_blocked (self, device))
    return;
  /* Only our airplane mode keeps newcomers off. */
  store = rfk_manager_list_load (self, NULL);
  if (store == NULL || !store->active || store->corrupt_copy != NULL)
    return;
  /* The kernel started it blocked (the global state we set); its saved
   * state may still turn it on (systemd-rfkill, after udev). */
  g_hash_table_add (self->newcomers, GUINT_TO_POINTER (device->idx));
  if (!device->soft)
    keep_newcomer_off (self, device);
}

/* How far apart the CHANGEs of one sweep (`rfkill block all`, the key,
 * gsd's CHANGE_ALL) may arrive.  The kernel switches every radio in one
 * go, but wakes us after the first; the radios it switched first must
 * not be remembered as "off before airplane mode". */
#define SWEEP_MS 500

void
rfk_manager_airplane_radio_changed (RfkManager *self, RfkDevice *device,
                                    gboolean soft_before, gboolean ours)
{
  gpointer key = GUINT_TO_POINTER (device->idx);

  /* What we wrote ourselves is no one else's sweep. */
  if (soft_before != device->soft && !ours)
    {
      gint64 now = g_get_monotonic_time ();

      self->others_in_batch = TRUE;
      /* One batch is never split into two sweeps. */
      if (!self->sweep_in_batch
          && now - self->sweep_last_change
               > self->timing.sweep_ms * G_TIME_SPAN_MILLISECOND)
        g_hash_table_remove_all (self->sweep_before);  /* a new sweep */
      self->sweep_in_batch = TRUE;
      self->sweep_last_change = now;
      if (!g_hash_table_contains (self->sweep_before, key))
        g_hash_table_insert (self->sweep_before, key,
                             GINT_TO_POINTER (soft_before + 1));
    }
  /* Our own request turning it on is the user's, not its saved state.
   * Whether the others are still off is known at the batch's end: the
   * rest of the batch may be `rfkill unblock all` turning them on too. */
  if (soft_before && !device->soft
      && g_hash_table_remove (self->newcomers, key) && !ours)
    g_array_append_val (self->newcomers_on, device->idx);
}

static void
keep_newcomers_off (RfkManager *self)
{
  g_autoptr (GArray) pending = self->newcomers_on;

  /* Decided now: from here they count as what they are. */
  self->newcomers_on = g_array_new (FALSE, FALSE, sizeof (guint32));
  for (guint i = 0; i < pending->len; i++)
    {
      RfkDevice *device =
        rfk_manager_device_at (self, g_array_index (pending, guint32, i));

      if (device != NULL && !device->soft && ours_to_watch (self, device)
          && rfk_manager_others_blocked (self, device))
        {
          keep_newcomer_off (self, device);
          break;
        }
    }
}

/* The newcomers turned on in this batch whose airplane mode still holds
 * for the others are kept off (one plan blocks them all).  Called while
 * the batch is still open: if they are not kept off, airplane mode ends
 * by another program's doing, which the batch's end decides about. */
void
rfk_manager_airplane_batch_newcomers (RfkManager *self)
{
  if (self->newcomers_on->len > 0)
    {
      keep_newcomers_off (self);
      /* Radios we now keep off count as blocked already. */
      rfk_manager_update_airplane_mode (self);
    }
}

/* No counted radio is held off by software alone (a switch may hold
 * some: software cannot undo that). */
static gboolean
every_counted_radio_on (RfkManager *self)
{
  return self->n_counted_soft_only == 0;
}

static void
ended_elsewhere (RfkManager *self)
{
  g_autoptr (RfkStateLock) lock = NULL;
  g_autoptr (RfkAirplaneStore) store = NULL;
  g_autoptr (RfkAirplanePlan) plan = NULL;

  store = rfk_manager_list_load_active (self, &lock);
  if (store == NULL)
    return;
  g_hash_table_remove_all (self->newcomers);
  /* Every radio is on, or long enough without change: what ended it is
   * known now, and the history has it before anyone is told. */
  rfk_manager_history_flush (self);
  if (!every_counted_radio_on (self))
    {
      g_autoptr (RfkAirplaneStore) empty = rfk_airplane_store_new ();

      rfk_manager_list_save (self, empty);  /* switched by hand: left alone */
      return;
    }
  plan = rfk_manager_list_plan (self, RFK_POLICY_ENDED_ELSEWHERE, store,
                                FALSE);
  rfk_manager_list_enforce (self, plan);
  g_signal_emit (self, rfk_manager_signals[SIGNAL_AIRPLANE_ENDED_ELSEWHERE],
                 0);
}

static void
entered_elsewhere (RfkManager *self)
{
  g_autoptr (RfkStateLock) lock = NULL;
  g_autoptr (RfkAirplaneStore) store = NULL;
  g_autoptr (RfkAirplanePlan) plan = NULL;

  if (!rfk_manager_list_lock_or_warn (self, &lock))
    return;
  store = rfk_manager_list_load (self, NULL);
  if (store == NULL || store->active)
    return;
  plan = rfk_manager_list_plan (self, RFK_POLICY_ON, store, TRUE);
  /* Remember only: the kernel already blocked them. */
  if (plan->save != NULL)
    rfk_manager_list_save (self, plan->save);
  /* Every radio is off: what did it is known now (see ended_elsewhere). */
  rfk_manager_history_flush (self);
  g_signal_emit (self,
                 rfk_manager_signals[SIGNAL_AIRPLANE_ENTERED_ELSEWHERE], 0);
}

/* How long the rest of an "everything on" may take to arrive before a
 * partial one counts as radios switched by hand. */
#define ENDED_SETTLE_MS 500

static gboolean
ended_settled (gpointer data)
{
  RfkManager *self = data;

  self->ended_settle_source = 0;
  if (self->state == RFK_MANAGER_STATE_READY && self->airplane_ops == 0
      && !self->airplane_mode)
    {
      ended_elsewhere (self);
      rfk_manager_update_airplane_mode (self);
    }
  return G_SOURCE_REMOVE;
}

/*
 * Airplane mode flipping again within FLAP_QUIET_MS of the last decision
 * is no user's doing (the key is rate-limited by rfkill-input, and hands
 * are slower): a driver, a script or a relay is flooding the kernel with
 * changes.  Deciding on every flip would load, plan and save the list
 * dozens of times a second, for states that last a few milliseconds; the
 * decision waits until the changes have been quiet that long, and then
 * goes by the state the burst left, as for a single batch.
 */
#define FLAP_QUIET_MS 20

void
rfk_manager_airplane_init_timing (RfkManager *self)
{
  self->timing.sweep_ms = SWEEP_MS;
  self->timing.ended_settle_ms = ENDED_SETTLE_MS;
  self->timing.flap_quiet_ms = FLAP_QUIET_MS;
  self->timing.confirm_ms = 5000;
}

static gboolean
flap_settled (gpointer data)
{
  RfkManager *self = data;
  gint64 now = g_get_monotonic_time ();
  gint64 quiet_until = self->sweep_last_change
                       + self->timing.flap_quiet_ms * G_GINT64_CONSTANT (1000);

  self->flap_source = 0;
  if (now < quiet_until)
    {
      self->flap_source = g_timeout_add (MAX (1, (quiet_until - now) / 1000),
                                         flap_settled, self);
      return G_SOURCE_REMOVE;
    }
  if (self->state == RFK_MANAGER_STATE_READY && self->airplane_ops == 0)
    {
      self->last_decision_us = now;
      if (!self->airplane_mode)
        ended_elsewhere (self);  /* every radio on, or switched by hand */
      else if (g_hash_table_size (self->sweep_before) > 0)
        entered_elsewhere (self);
      rfk_manager_update_airplane_mode (self);
    }
  return G_SOURCE_REMOVE;
}

void
rfk_manager_airplane_cancel_settle (RfkManager *self)
{
  g_clear_handle_id (&self->ended_settle_source, g_source_remove);
  g_clear_handle_id (&self->flap_source, g_source_remove);
}

static gboolean
flapping (RfkManager *self)
{
  return self->flap_source != 0
         || g_get_monotonic_time () - self->last_decision_us
              < self->timing.flap_quiet_ms * G_GINT64_CONSTANT (1000);
}

void
rfk_manager_airplane_batch_end (RfkManager *self)
{
  gboolean ended = self->ended_in_batch, entered = self->entered_in_batch;
  gboolean swept = self->sweep_in_batch;

  self->ended_in_batch = self->entered_in_batch = FALSE;
  self->sweep_in_batch = FALSE;
  /* Our own requests alone: what they do to airplane mode was decided
   * when they came (rfk_manager_airplane_request_begin ()). */
  if (!self->others_in_batch)
    ended = entered = FALSE;
  self->others_in_batch = FALSE;
  if (self->state == RFK_MANAGER_STATE_READY && self->airplane_ops == 0)
    {
      gboolean settling = self->ended_settle_source != 0;

      if ((ended || entered || self->flap_source != 0) && flapping (self))
        {
          /* The deferred decision covers what the settle would do. */
          g_clear_handle_id (&self->ended_settle_source, g_source_remove);
          if (self->flap_source == 0)
            self->flap_source = g_timeout_add (self->timing.flap_quiet_ms,
                                               flap_settled, self);
        }
      else if ((ended || settling) && !self->airplane_mode)
        {
          self->last_decision_us = g_get_monotonic_time ();
          if (every_counted_radio_on (self))
            {
              rfk_manager_airplane_cancel_settle (self);
              ended_elsewhere (self);
            }
          else if (!settling)
            self->ended_settle_source =
              g_timeout_add (self->timing.ended_settle_ms,
                             ended_settled, self);
        }
      else if (entered && self->airplane_mode && swept
               && g_hash_table_size (self->sweep_before) > 0)
        {
          self->last_decision_us = g_get_monotonic_time ();
          rfk_manager_airplane_cancel_settle (self);
          entered_elsewhere (self);
        }
      else if (settling && self->airplane_mode)
        rfk_manager_airplane_cancel_settle (self);
    }
  /* sweep_before lives on for the rest of the sweep. */
  /* Radios we now keep off count as blocked already. */
  rfk_manager_update_airplane_mode (self);
}

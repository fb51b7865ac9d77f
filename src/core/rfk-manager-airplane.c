/*
 * rfk-manager-airplane.c: RfkManager carries out airplane-mode plans.
 *
 * The decisions are rfk-airplane-policy.c's; this file feeds it the
 * model and the restore list, saves the list before anything is blocked
 * (if we crash halfway, the list is there) and hands the writes to a
 * request.  It also notices what other programs do:
 *  - every counted radio came on in one batch (gsd's CHANGE_ALL,
 *    `rfkill unblock all`, the airplane key): airplane mode ended
 *    elsewhere; the radios that were off before go off again, once;
 *  - only some came on: a user switched radios by hand; they are left
 *    alone and the list, no longer true, is dropped;
 *  - a radio plugged in during airplane mode that its saved state
 *    (systemd-rfkill) turns on right away is kept off, once;
 *  - every counted radio went off in one batch: airplane mode began
 *    elsewhere (the key, `rfkill block all`); the states from before the
 *    batch become the list, so leaving restores them.
 */
#include "config.h"

#include "rfk-manager-private.h"

#include <glib/gi18n.h>

#include "rfk-state-file.h"

typedef struct {
  GArray *radios;     /* RfkPolicyRadio */
  GPtrArray *strings; /* owns the keys */
} PolicyInput;

static void
policy_input_clear (PolicyInput *input)
{
  g_clear_pointer (&input->radios, g_array_unref);
  g_clear_pointer (&input->strings, g_ptr_array_unref);
}
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (PolicyInput, policy_input_clear)

/* The model as the policy sees it; with before_batch, soft states as
 * they were before the current batch of events. */
static void
policy_input_init (PolicyInput *input, RfkManager *self,
                   gboolean before_batch)
{
  input->radios = g_array_sized_new (FALSE, FALSE, sizeof (RfkPolicyRadio),
                                     self->sorted->len);
  input->strings = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < self->sorted->len; i++)
    {
      RfkDevice *device = g_ptr_array_index (self->sorted, i);
      gpointer key = GUINT_TO_POINTER (device->idx);
      gpointer value;
      RfkPolicyRadio radio;

      if (!rfk_device_takes_part (device))
        continue;  /* airplane mode cannot block it: not the policy's */
      radio = (RfkPolicyRadio) {
        .idx = device->idx, .type = device->type, .soft = device->soft,
        .hard = device->hard, .writing = -1,
      };

      if (g_hash_table_lookup_extended (self->inflight, key, NULL, &value))
        radio.writing = GPOINTER_TO_INT (value) - 1;
      if (before_batch
          && g_hash_table_lookup_extended (self->sweep_before, key, NULL,
                                           &value))
        {
          radio.soft = GPOINTER_TO_INT (value) - 1;
          radio.writing = -1;
        }
      radio.key = rfk_device_dup_key (device);
      radio.name_key = rfk_device_dup_name_key (device);
      g_ptr_array_add (input->strings, (char *) radio.key);
      g_ptr_array_add (input->strings, (char *) radio.name_key);
      g_array_append_val (input->radios, radio);
    }
}

static void
set_airplane_error (RfkManager *self, GError *error)
{
  if (error == NULL && self->airplane_error == NULL)
    return;
  if (error != NULL && self->airplane_error != NULL
      && g_strcmp0 (error->message, self->airplane_error->message) == 0)
    {
      g_error_free (error);
      return;
    }
  g_clear_error (&self->airplane_error);
  self->airplane_error = error;
  g_signal_emit (self, rfk_manager_signals[SIGNAL_AIRPLANE_ERROR_CHANGED], 0);
}

/*
 * Every decision that reads the list and may write it holds the state
 * lock (rfk-state-file.h) from the read to the write, as the CLI does, so
 * that neither decides on a list the other is replacing.  A reader
 * (--list) writes nothing and takes none.  It is held for the load, the
 * plan and the save, not while the kernel answers.
 */
static gboolean
lock_list (RfkManager *self, RfkStateLock **out_lock, GError **error)
{
  *out_lock = NULL;
  if (self->read_only)
    return TRUE;
  *out_lock = rfk_state_file_lock (error);
  return *out_lock != NULL;
}

/* For decisions no caller waits for: said, and left to the next event. */
static gboolean
lock_list_or_warn (RfkManager *self, RfkStateLock **out_lock)
{
  g_autoptr (GError) error = NULL;

  if (lock_list (self, out_lock, &error))
    return TRUE;
  g_warning ("%s", error->message);
  return FALSE;
}

/* A list we cannot parse is moved aside for inspection, and a marker
 * takes its place: until airplane mode is turned on again, turning it
 * off refuses, rather than turning every radio on.  A marker that cannot
 * be saved is kept in memory instead: without it, the next "off" would
 * find no list at all and turn every radio on. */
static void
keep_corrupt_store (RfkManager *self, const char *path)
{
  g_autoptr (RfkAirplaneStore) marker = rfk_airplane_store_new ();
  g_autoptr (RfkAirplaneStore) again = NULL;
  g_autoptr (RfkStateLock) lock = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *copy = NULL;

  /* Moving it is a write: under the lock, and only if it is still the
   * corrupt file (the caller may have read it without the lock). */
  if (!lock_list_or_warn (self, &lock))
    return;
  again = rfk_airplane_store_load (&error);
  if (again != NULL || error->domain != G_KEY_FILE_ERROR)
    return;
  g_clear_error (&error);
  copy = rfk_state_file_quarantine (path, &error);
  if (copy == NULL)
    {
      g_warning (_("Cannot move %s aside: %s"), path, error->message);
      return;  /* still corrupt, so still reported */
    }
  marker->active = TRUE;
  marker->corrupt_copy = g_strdup (copy);
  if (!rfk_airplane_store_save (marker, &error))
    {
      g_warning ("%s", error->message);
      g_free (self->unrecorded_copy);
      self->unrecorded_copy = g_steal_pointer (&copy);
    }
}

static GError *
corrupt_error (const RfkAirplaneStore *store)
{
  return g_error_new (G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                      _("The list of radios to restore was corrupt and is "
                        "kept as %s; no radio was changed.  Turn radios on "
                        "one by one, or turn airplane mode on to start a "
                        "new list."), store->corrupt_copy);
}

/* The restore list, or NULL with error set (and shown to the user). */
static RfkAirplaneStore *
load_store (RfkManager *self, GError **error)
{
  g_autoptr (GError) local_error = NULL;
  RfkAirplaneStore *store = rfk_airplane_store_load (&local_error);

  /* A reader (--list) says so and moves nothing. */
  if (store == NULL && local_error->domain == G_KEY_FILE_ERROR
      && self->read_only)
    {
      g_autofree char *path = rfk_airplane_store_dup_path ();
      GError *corrupt = g_error_new (G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                                     _("The list of radios to restore, %s, "
                                       "is corrupt; airplane mode cannot be "
                                       "turned off from it (%s)"),
                                     path, local_error->message);

      set_airplane_error (self, g_error_copy (corrupt));
      g_propagate_error (error, corrupt);
      return NULL;
    }
  if (store == NULL && local_error->domain == G_KEY_FILE_ERROR)
    {
      g_autofree char *path = rfk_airplane_store_dup_path ();

      keep_corrupt_store (self, path);
      store = rfk_airplane_store_load (NULL);
    }
  /* The marker we could not save, as if it were on disk; an active list
   * there is a new one, saved since by another program. */
  if (store != NULL && self->unrecorded_copy != NULL)
    {
      if (store->active && store->corrupt_copy == NULL)
        g_clear_pointer (&self->unrecorded_copy, g_free);
      else if (store->corrupt_copy == NULL)
        {
          store->active = TRUE;
          store->corrupt_copy = g_strdup (self->unrecorded_copy);
        }
    }
  if (store == NULL)
    {
      set_airplane_error (self, g_error_copy (local_error));
      g_propagate_error (error, g_steal_pointer (&local_error));
      return NULL;
    }
  set_airplane_error (self, store->corrupt_copy ? corrupt_error (store)
                                                : NULL);
  return store;
}

static void
save_store (RfkManager *self, const RfkAirplaneStore *store)
{
  g_autoptr (GError) error = NULL;

  /* A failure only leaves a stale list behind, which the next decision
   * recognises as such. */
  if (!rfk_airplane_store_save (store, &error))
    g_warning ("%s", error->message);
}

static RfkAirplanePlan *
plan_now (RfkManager *self, RfkPolicyEvent event,
          const RfkAirplaneStore *store, gboolean before_batch)
{
  g_auto (PolicyInput) input = { NULL };

  policy_input_init (&input, self, before_batch);
  return rfk_airplane_policy_plan (event,
                                   (RfkPolicyRadio *) input.radios->data,
                                   input.radios->len, store,
                                   self->airplane_types);
}

/* Carries out a plan of ours that no caller waits for. */
static void
enforce (RfkManager *self, const RfkAirplanePlan *plan)
{
  Request *request;

  if (plan->save != NULL)
    save_store (self, plan->save);
  if (plan->writes->len == 0 && plan->expect->len == 0)
    return;
  request = rfk_request_new (self, REQUEST_ENFORCE, NULL, NULL, NULL, NULL);
  if (rfk_request_apply_plan (request, plan))
    rfk_request_commit (request);
}

void
rfk_manager_airplane_start (RfkManager *self, Request *request,
                            gboolean enabled)
{
  g_autoptr (RfkStateLock) lock = NULL;
  g_autoptr (RfkAirplaneStore) store = NULL;
  g_autoptr (RfkAirplanePlan) plan = NULL;
  GError *error = NULL;

  /* Ours decides what a deferred decision about others would have. */
  g_clear_handle_id (&self->flap_source, g_source_remove);
  if (!lock_list (self, &lock, &error))
    {
      set_airplane_error (self, g_error_copy (error));
      rfk_request_finish (request, error);  /* blocked nothing */
      return;
    }
  store = load_store (self, &error);
  if (store == NULL)
    {
      rfk_request_finish (request, error);
      return;
    }
  if (!enabled && store->corrupt_copy != NULL)
    {
      rfk_request_finish (request, corrupt_error (store));
      return;
    }
  plan = plan_now (self, enabled ? RFK_POLICY_ON : RFK_POLICY_OFF, store,
                   FALSE);
  if (plan->error != NULL)
    {
      rfk_request_finish (request, g_steal_pointer (&plan->error));
      return;
    }
  /* Off forgets the list only once the kernel confirmed every radio. */
  if (enabled && plan->save != NULL)
    {
      if (!rfk_airplane_store_save (plan->save, &error))
        {
          rfk_request_finish (request, error);  /* blocked nothing */
          return;
        }
      g_clear_pointer (&self->unrecorded_copy, g_free);
      set_airplane_error (self, NULL);
    }
  if (rfk_request_apply_plan (request, plan))
    rfk_request_commit (request);
}

void
rfk_manager_airplane_finished (RfkManager *self, RequestKind kind)
{
  g_autoptr (RfkAirplaneStore) empty = rfk_airplane_store_new ();
  g_autoptr (RfkStateLock) lock = NULL;

  if (kind == REQUEST_AIRPLANE_OFF && lock_list_or_warn (self, &lock))
    {
      save_store (self, empty);  /* restored: forget */
      g_hash_table_remove_all (self->newcomers);
    }
}

/* Whatever happened while none of our programs ran belongs to the user:
 * a list whose airplane mode no longer holds is dropped, nothing is
 * blocked again. */
void
rfk_manager_airplane_on_ready (RfkManager *self)
{
  g_autoptr (RfkStateLock) lock = NULL;
  g_autoptr (RfkAirplaneStore) store = load_store (self, NULL);
  g_autoptr (RfkAirplaneStore) empty = NULL;

  /* A reader (--list) changes nothing, the list included; nor does a
   * start that finds nothing to drop (not even the lock file). */
  if (store == NULL || !store->active || store->corrupt_copy != NULL
      || self->read_only || rfk_manager_compute_airplane_mode (self, NULL))
    return;
  if (!lock_list_or_warn (self, &lock))
    return;
  /* Decided again under the lock: another writer may have been first. */
  g_clear_pointer (&store, rfk_airplane_store_free);
  store = load_store (self, NULL);
  if (store == NULL || !store->active || store->corrupt_copy != NULL)
    return;
  empty = rfk_airplane_store_new ();
  save_store (self, empty);
}

/* Airplane mode holds for every counted radio but device. */
static gboolean
holds_for_others (RfkManager *self, RfkDevice *device)
{
  guint unblocked;

  rfk_manager_compute_airplane_mode (self, &unblocked);
  return unblocked == (rfk_device_is_blocked (device) ? 0 : 1);
}

static void
keep_newcomer_off (RfkManager *self, RfkDevice *device)
{
  g_autoptr (RfkStateLock) lock = NULL;
  g_autoptr (RfkAirplaneStore) store = NULL;
  g_autoptr (RfkAirplanePlan) plan = NULL;

  if (!lock_list_or_warn (self, &lock))
    return;
  store = load_store (self, NULL);
  if (store == NULL || !store->active || store->corrupt_copy != NULL)
    return;
  plan = plan_now (self, RFK_POLICY_RADIOS_ADDED, store, FALSE);
  enforce (self, plan);
}

static gboolean
ours_to_watch (RfkManager *self, RfkDevice *device)
{
  return self->state == RFK_MANAGER_STATE_READY && self->airplane_ops == 0
         && rfk_airplane_policy_counts (self->airplane_types, device->type)
         && rfk_device_takes_part (device);
}

/* Only after the initial ADDs: what happened while we were not running
 * is not ours to undo. */
void
rfk_manager_airplane_radio_added (RfkManager *self, RfkDevice *device)
{
  g_autoptr (RfkAirplaneStore) store = NULL;

  if (!ours_to_watch (self, device) || !holds_for_others (self, device))
    return;
  /* Only our airplane mode keeps newcomers off. */
  store = load_store (self, NULL);
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
  /* Our own request turning it on is the user's, not its saved state. */
  if (soft_before && !device->soft
      && g_hash_table_remove (self->newcomers, key) && !ours
      && ours_to_watch (self, device) && holds_for_others (self, device))
    keep_newcomer_off (self, device);
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

  if (!lock_list_or_warn (self, &lock))
    return;
  store = load_store (self, NULL);
  if (store == NULL || !store->active || store->corrupt_copy != NULL)
    return;
  g_hash_table_remove_all (self->newcomers);
  if (!every_counted_radio_on (self))
    {
      g_autoptr (RfkAirplaneStore) empty = rfk_airplane_store_new ();

      save_store (self, empty);  /* switched by hand: left alone */
      return;
    }
  plan = plan_now (self, RFK_POLICY_ENDED_ELSEWHERE, store, FALSE);
  enforce (self, plan);
  g_signal_emit (self, rfk_manager_signals[SIGNAL_AIRPLANE_ENDED_ELSEWHERE],
                 0);
}

static void
entered_elsewhere (RfkManager *self)
{
  g_autoptr (RfkStateLock) lock = NULL;
  g_autoptr (RfkAirplaneStore) store = NULL;
  g_autoptr (RfkAirplanePlan) plan = NULL;

  if (!lock_list_or_warn (self, &lock))
    return;
  store = load_store (self, NULL);
  if (store == NULL || store->active)
    return;
  plan = plan_now (self, RFK_POLICY_ON, store, TRUE);
  /* Remember only: the kernel already blocked them. */
  if (plan->save != NULL)
    save_store (self, plan->save);
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

/* Airplane mode by where our writes in flight leave the radios. */
gboolean
rfk_manager_airplane_wanted (RfkManager *self)
{
  g_auto (PolicyInput) input = { NULL };

  policy_input_init (&input, self, FALSE);
  return rfk_airplane_policy_in_force ((RfkPolicyRadio *) input.radios->data,
                                       input.radios->len,
                                       self->airplane_types);
}

void
rfk_manager_airplane_forget_list (RfkManager *self)
{
  g_autoptr (RfkStateLock) lock = NULL;
  g_autoptr (RfkAirplaneStore) store = NULL;
  g_autoptr (RfkAirplaneStore) empty = NULL;

  if (!lock_list_or_warn (self, &lock))
    return;
  store = load_store (self, NULL);
  if (store == NULL || !store->active || store->corrupt_copy != NULL)
    return;
  empty = rfk_airplane_store_new ();
  save_store (self, empty);
  g_hash_table_remove_all (self->newcomers);
}

gboolean
rfk_manager_airplane_request_begin (RfkManager *self)
{
  return rfk_manager_airplane_wanted (self);
}

/* A request of ours that switches a radio on while airplane mode holds
 * ends it by hand, at once: a request after it (even "off") goes by
 * that, whenever the kernel's answers come. */
void
rfk_manager_airplane_request_end (RfkManager *self, gboolean held_before)
{
  if (held_before && !rfk_manager_airplane_wanted (self))
    rfk_manager_airplane_forget_list (self);
}

void
rfk_manager_airplane_drop_stale (RfkManager *self)
{
  guint unblocked;

  if (self->airplane_ops > 0
      || rfk_manager_compute_airplane_mode (self, &unblocked)
      || unblocked == 0)
    return;
  rfk_manager_airplane_forget_list (self);
}

/* The counted types changed while airplane mode held: it still holds,
 * now for the new types too, and the list keeps every radio it had. */
void
rfk_manager_airplane_types_changed (RfkManager *self)
{
  g_autoptr (RfkStateLock) lock = NULL;
  g_autoptr (RfkAirplaneStore) store = NULL;
  g_autoptr (RfkAirplanePlan) plan = NULL;

  if (self->state != RFK_MANAGER_STATE_READY || self->airplane_ops > 0
      || !self->airplane_mode)
    return;
  if (!lock_list_or_warn (self, &lock))
    return;
  store = load_store (self, NULL);
  if (store == NULL || !store->active || store->corrupt_copy != NULL)
    return;
  plan = plan_now (self, RFK_POLICY_TYPES_CHANGED, store, FALSE);
  enforce (self, plan);
}

/*
 * rfk-manager-airplane.c: RfkManager carries out airplane-mode requests.
 *
 * The decisions are rfk-airplane-policy.c's; this file feeds it the
 * model and the restore list (rfk-manager-list.c), saves the list before
 * anything is blocked (if we crash halfway, the list is there) and hands
 * the writes to a request.  What other programs do is
 * rfk-manager-others.c's.
 */
#include "config.h"

#include "rfk-manager-private.h"

#include "rfk-state-file.h"

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
  if (!rfk_manager_list_lock (self, &lock, &error))
    {
      rfk_manager_list_set_error (self, g_error_copy (error));
      rfk_request_finish (request, error);  /* blocked nothing */
      return;
    }
  store = rfk_manager_list_load (self, &error);
  if (store == NULL)
    {
      rfk_request_finish (request, error);
      return;
    }
  if (!enabled && store->corrupt_copy != NULL)
    {
      rfk_request_finish (request, rfk_manager_list_corrupt_error (store));
      return;
    }
  plan = rfk_manager_list_plan (self,
                                enabled ? RFK_POLICY_ON : RFK_POLICY_OFF,
                                store, FALSE);
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
      rfk_manager_list_set_error (self, NULL);
    }
  if (rfk_request_apply_plan (request, plan))
    rfk_request_commit (request);
}

void
rfk_manager_airplane_finished (RfkManager *self, RequestKind kind)
{
  g_autoptr (RfkAirplaneStore) empty = rfk_airplane_store_new ();
  g_autoptr (RfkStateLock) lock = NULL;

  if (kind == REQUEST_AIRPLANE_OFF
      && rfk_manager_list_lock_or_warn (self, &lock))
    {
      rfk_manager_list_save (self, empty);  /* restored: forget */
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
  g_autoptr (RfkAirplaneStore) store = rfk_manager_list_load (self, NULL);
  g_autoptr (RfkAirplaneStore) empty = NULL;

  /* A reader (--list) changes nothing, the list included; nor does a
   * start that finds nothing to drop (not even the lock file). */
  if (store == NULL || !store->active || store->corrupt_copy != NULL
      || self->read_only || rfk_manager_compute_airplane_mode (self, NULL))
    return;
  if (!rfk_manager_list_lock_or_warn (self, &lock))
    return;
  /* Decided again under the lock: another writer may have been first. */
  g_clear_pointer (&store, rfk_airplane_store_free);
  store = rfk_manager_list_load (self, NULL);
  if (store == NULL || !store->active || store->corrupt_copy != NULL)
    return;
  empty = rfk_airplane_store_new ();
  rfk_manager_list_save (self, empty);
}

void
rfk_manager_airplane_forget_list (RfkManager *self)
{
  g_autoptr (RfkStateLock) lock = NULL;
  g_autoptr (RfkAirplaneStore) store = NULL;
  g_autoptr (RfkAirplaneStore) empty = NULL;

  store = rfk_manager_list_load_active (self, &lock);
  if (store == NULL)
    return;
  empty = rfk_airplane_store_new ();
  rfk_manager_list_save (self, empty);
  g_hash_table_remove_all (self->newcomers);
}

/* RULES.md, "Exceptions".  Only while the list is active: radios the
 * user switched off one by one are no airplane mode to keep.  Never the
 * last radios that take part: airplane mode would be left with no radio,
 * so turning them on ends it, as it always did. */
void
rfk_manager_airplane_spare (RfkManager *self, GPtrArray *devices)
{
  g_autoptr (RfkAirplaneStore) store = NULL;
  guint turning_on = 0;

  if (self->read_only || !rfk_manager_airplane_wanted (self))
    return;
  for (guint i = 0; i < devices->len; i++)
    {
      RfkDevice *device = g_ptr_array_index (devices, i);

      if (rfk_airplane_policy_takes_part (self->airplane_types, device)
          && rfk_manager_soft_leaves (self, device))
        turning_on++;
    }
  if (turning_on == 0 || turning_on >= self->n_counted)
    return;
  /* The list as the requests in flight leave it: an "off" in flight has
   * forgotten it, though it is on disk until the kernel confirms. */
  if (rfk_requests_has_kind (self, REQUEST_AIRPLANE_OFF))
    return;
  store = rfk_manager_list_load (self, NULL);
  if (store == NULL || !store->active || store->corrupt_copy != NULL)
    return;
  for (guint i = 0; i < devices->len; i++)
    {
      RfkDevice *device = g_ptr_array_index (devices, i);

      if (rfk_airplane_policy_takes_part (self->airplane_types, device)
          && rfk_manager_soft_leaves (self, device))
        rfk_manager_mark_exception (self, device, TRUE);
    }
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
  store = rfk_manager_list_load_active (self, &lock);
  if (store == NULL)
    return;
  plan = rfk_manager_list_plan (self, RFK_POLICY_TYPES_CHANGED, store, FALSE);
  rfk_manager_list_enforce (self, plan);
}

/*
 * rfk-manager-list.c: RfkManager's restore list, and plans made from it.
 *
 * Loads and saves the list (rfk-airplane-store.h) under the state lock,
 * moves a corrupt one aside, feeds the model and the list to
 * rfk-airplane-policy.c, and carries out a plan of ours that no caller
 * waits for.  The two users, rfk-manager-airplane.c (requests) and
 * rfk-manager-others.c (what other programs do), decide when.
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

      /* Airplane mode cannot block it: not the policy's.  An exception
       * is, so that no write of a whole type reaches it. */
      if (!rfk_device_takes_part (device) && !device->exception)
        continue;
      radio = (RfkPolicyRadio) {
        .idx = device->idx, .type = device->type, .soft = device->soft,
        .hard = device->hard, .writing = -1, .spared = device->exception,
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

void
rfk_manager_list_set_error (RfkManager *self, GError *error)
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
gboolean
rfk_manager_list_lock (RfkManager *self, RfkStateLock **out_lock,
                       GError **error)
{
  *out_lock = NULL;
  if (self->read_only)
    return TRUE;
  *out_lock = rfk_state_file_lock (error);
  return *out_lock != NULL;
}

/* For decisions no caller waits for: said, and left to the next event. */
gboolean
rfk_manager_list_lock_or_warn (RfkManager *self, RfkStateLock **out_lock)
{
  g_autoptr (GError) error = NULL;

  if (rfk_manager_list_lock (self, out_lock, &error))
    return TRUE;
  g_warning ("%s", error->message);
  return FALSE;
}

/* For decisions about an airplane mode in force that no caller waits
 * for: the lock taken (said when it cannot be) and the list loaded, if it
 * is active and intact; NULL otherwise, and there is nothing to do. */
RfkAirplaneStore *
rfk_manager_list_load_active (RfkManager *self, RfkStateLock **out_lock)
{
  RfkAirplaneStore *store;

  if (!rfk_manager_list_lock_or_warn (self, out_lock))
    return NULL;
  store = rfk_manager_list_load (self, NULL);
  if (store != NULL && (!store->active || store->corrupt_copy != NULL))
    g_clear_pointer (&store, rfk_airplane_store_free);
  return store;
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
  if (!rfk_manager_list_lock_or_warn (self, &lock))
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

GError *
rfk_manager_list_corrupt_error (const RfkAirplaneStore *store)
{
  return g_error_new (G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                      _("The list of radios to restore was corrupt and is "
                        "kept as %s; no radio was changed.  Turn radios on "
                        "one by one, or turn airplane mode on to start a "
                        "new list."), store->corrupt_copy);
}

/* The restore list, or NULL with error set (and shown to the user). */
RfkAirplaneStore *
rfk_manager_list_load (RfkManager *self, GError **error)
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

      rfk_manager_list_set_error (self, g_error_copy (corrupt));
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
      rfk_manager_list_set_error (self, g_error_copy (local_error));
      g_propagate_error (error, g_steal_pointer (&local_error));
      return NULL;
    }
  rfk_manager_list_set_error (self, store->corrupt_copy
                                    ? rfk_manager_list_corrupt_error (store)
                                    : NULL);
  return store;
}

void
rfk_manager_list_save (RfkManager *self, const RfkAirplaneStore *store)
{
  g_autoptr (GError) error = NULL;

  /* A failure only leaves a stale list behind, which the next decision
   * recognises as such. */
  if (!rfk_airplane_store_save (store, &error))
    g_warning ("%s", error->message);
}

RfkAirplanePlan *
rfk_manager_list_plan (RfkManager *self, RfkPolicyEvent event,
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
void
rfk_manager_list_enforce (RfkManager *self, const RfkAirplanePlan *plan)
{
  Request *request;

  if (plan->save != NULL)
    rfk_manager_list_save (self, plan->save);
  if (plan->writes->len == 0 && plan->expect->len == 0)
    return;
  request = rfk_request_new (self, REQUEST_ENFORCE, NULL, NULL, NULL, NULL);
  if (rfk_request_apply_plan (request, plan))
    rfk_request_commit (request);
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

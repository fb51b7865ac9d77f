/*
 * rfk-manager.c: the public face of RfkManager: the GObject, its signals,
 * its state, and the entry point for each request.
 *
 * The other jobs live next door (rfk-manager-private.h says which file
 * owns what): the model, events, the connection, requests, the restore
 * list, airplane mode and what other programs do.
 */
#include "config.h"

#include "rfk-manager.h"
#include "rfk-manager-private.h"

#include <glib/gi18n.h>
#include <unistd.h>

#include "rfk-identity.h"
#include "rfk-refusals.h"
#include "rfk-state-file.h"
#include "rfk-transport.h"

#define signals rfk_manager_signals

G_DEFINE_FINAL_TYPE (RfkManager, rfk_manager, G_TYPE_OBJECT)

/* ---- state ------------------------------------------------------------ */

void
rfk_manager_set_state (RfkManager *self, RfkManagerState state,
                       GError *error)
{
  gboolean changed = self->state != state;

  g_clear_error (&self->error);
  self->error = error;
  self->state = state;
  if (changed && state == RFK_MANAGER_STATE_READY)
    rfk_manager_airplane_on_ready (self);
  if (changed || error != NULL)
    g_signal_emit (self, signals[SIGNAL_STATE_CHANGED], 0);
}

/* ---- GObject ---------------------------------------------------------- */

static void
rfk_manager_dispose (GObject *object)
{
  rfk_manager_connection_dispose (RFK_MANAGER (object));
  rfk_manager_airplane_cancel_settle (RFK_MANAGER (object));
  rfk_manager_resume_dispose (RFK_MANAGER (object));
  rfk_manager_history_dispose (RFK_MANAGER (object));
  G_OBJECT_CLASS (rfk_manager_parent_class)->dispose (object);
}

static void
rfk_manager_finalize (GObject *object)
{
  RfkManager *self = RFK_MANAGER (object);

  rfk_requests_free_all (self);
  /* main() waits for this too: a manager may outlive it. */
  rfk_state_file_wait_durable ();
  if (self->fd >= 0)
    close (self->fd);
  g_ptr_array_unref (self->sorted);
  g_hash_table_unref (self->devices);
  g_hash_table_unref (self->claims);
  g_hash_table_unref (self->inflight);
  g_hash_table_unref (self->written);
  g_hash_table_unref (self->sweep_before);
  g_hash_table_unref (self->newcomers);
  g_array_unref (self->newcomers_on);
  rfk_manager_resume_finalize (self);
  rfk_manager_history_finalize (self);
  g_clear_error (&self->error);
  g_clear_error (&self->airplane_error);
  g_free (self->unrecorded_copy);
  g_free (self->device_path);
  G_OBJECT_CLASS (rfk_manager_parent_class)->finalize (object);
}

static guint
add_signal (RfkManagerClass *klass, const char *name, guint n_params, ...)
{
  GType types[2];
  va_list args;

  va_start (args, n_params);
  for (guint i = 0; i < n_params; i++)
    types[i] = va_arg (args, GType);
  va_end (args);
  return g_signal_newv (name, G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                        NULL, NULL, NULL, NULL, G_TYPE_NONE, n_params,
                        types);
}

static void
rfk_manager_class_init (RfkManagerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = rfk_manager_dispose;
  object_class->finalize = rfk_manager_finalize;

  signals[SIGNAL_DEVICE_ADDED] =
    add_signal (klass, "device-added", 1, G_TYPE_POINTER);
  signals[SIGNAL_DEVICE_REMOVED] =
    add_signal (klass, "device-removed", 1, G_TYPE_POINTER);
  signals[SIGNAL_DEVICE_CHANGED] =
    add_signal (klass, "device-changed", 1, G_TYPE_POINTER);
  signals[SIGNAL_HARDWARE_SWITCH_CHANGED] =
    add_signal (klass, "hardware-switch-changed", 2, G_TYPE_POINTER,
                G_TYPE_BOOLEAN);
  signals[SIGNAL_AIRPLANE_MODE_CHANGED] =
    add_signal (klass, "airplane-mode-changed", 1, G_TYPE_BOOLEAN);
  signals[SIGNAL_AIRPLANE_ENDED_ELSEWHERE] =
    add_signal (klass, "airplane-mode-ended-elsewhere", 0);
  signals[SIGNAL_AIRPLANE_ENTERED_ELSEWHERE] =
    add_signal (klass, "airplane-mode-entered-elsewhere", 0);
  signals[SIGNAL_RADIO_KEPT_OFF] =
    add_signal (klass, "radio-kept-off", 2, G_TYPE_POINTER, G_TYPE_BOOLEAN);
  signals[SIGNAL_AIRPLANE_LIGHT_CHANGED] =
    add_signal (klass, "airplane-light-changed", 1, G_TYPE_BOOLEAN);
  signals[SIGNAL_AIRPLANE_ERROR_CHANGED] =
    add_signal (klass, "airplane-error-changed", 0);
  signals[SIGNAL_STATE_CHANGED] = add_signal (klass, "state-changed", 0);
}

/* The connection lost the device: every request fails, what we wrote
 * is forgotten with it, and the radios go (the state follows). */
static void
connection_closed (RfkManager *self, const GError *reason)
{
  rfk_requests_fail_all (self, reason->message);
  rfk_manager_writes_forget_all (self);
  rfk_manager_remove_all_devices (self);
}

static const RfkManagerHooks hooks = {
  .packet = rfk_manager_process,
  .batch_end = rfk_manager_batch_end,
  .state = rfk_manager_set_state,
  .closed = connection_closed,
  .airplane_done = rfk_manager_airplane_finished,
  .refused = rfk_manager_airplane_drop_stale,
  .airplane_ended = rfk_manager_connection_reset_key,
};

static void
rfk_manager_init (RfkManager *self)
{
  self->hooks = &hooks;
  self->fd = -1;
  self->devices =
    g_hash_table_new_full (NULL, NULL, NULL,
                           (GDestroyNotify) rfk_manager_device_free);
  self->sorted = g_ptr_array_new ();
  self->claims = g_hash_table_new (NULL, NULL);
  self->inflight = g_hash_table_new (NULL, NULL);
  self->written = g_hash_table_new (NULL, NULL);
  self->sweep_before = g_hash_table_new (NULL, NULL);
  self->newcomers = g_hash_table_new (NULL, NULL);
  self->newcomers_on = g_array_new (FALSE, FALSE, sizeof (guint32));
  self->airplane_types = RFK_AIRPLANE_TYPES_ALL;
  rfk_manager_airplane_init_timing (self);
  rfk_manager_resume_init (self);
  rfk_manager_history_init (self);
  g_queue_init (&self->status_waiters);
}

/* ---- public API ------------------------------------------------------- */

RfkManager *
rfk_manager_new (const char *device_path)
{
  RfkManager *self = g_object_new (RFK_TYPE_MANAGER, NULL);

  self->device_path = g_strdup (device_path ? device_path
                                            : RFK_DEFAULT_DEVICE);
  return self;
}

void
rfk_manager_set_read_only (RfkManager *self, gboolean read_only)
{
  g_return_if_fail (RFK_IS_MANAGER (self));
  g_return_if_fail (self->fd < 0);
  self->read_only = read_only;
}

void
rfk_manager_start (RfkManager *self)
{
  g_return_if_fail (RFK_IS_MANAGER (self));

  if (self->fd >= 0)
    return;
  rfk_manager_try_open (self);
}

const char *
rfk_manager_state_describe (RfkManagerState state)
{
  switch (state)
    {
    case RFK_MANAGER_STATE_STARTING:
      return _("Looking for radios…");
    case RFK_MANAGER_STATE_READY:
      return _("No radios");
    case RFK_MANAGER_STATE_NO_DEVICE:
      return _("No rfkill support on this system");
    case RFK_MANAGER_STATE_NO_PERMISSION:
      return _("No permission to switch radios");
    case RFK_MANAGER_STATE_FAILED:
    default:
      return _("Cannot read the radio switches");
    }
}

RfkManagerState
rfk_manager_get_state (RfkManager *self)
{
  g_return_val_if_fail (RFK_IS_MANAGER (self), RFK_MANAGER_STATE_FAILED);
  return self->state;
}

const GError *
rfk_manager_get_error (RfkManager *self)
{
  g_return_val_if_fail (RFK_IS_MANAGER (self), NULL);
  return self->error;
}

const char *
rfk_manager_get_device_path (RfkManager *self)
{
  g_return_val_if_fail (RFK_IS_MANAGER (self), NULL);
  return self->device_path;
}

GPtrArray *
rfk_manager_get_devices (RfkManager *self)
{
  g_return_val_if_fail (RFK_IS_MANAGER (self), NULL);
  return self->sorted;
}

void
rfk_manager_set_history (RfkManager *self, RfkHistory *history)
{
  g_return_if_fail (RFK_IS_MANAGER (self));
  g_return_if_fail (history == NULL || RFK_IS_HISTORY (history));

  g_set_object (&self->history, history);
}

RfkHistory *
rfk_manager_get_history (RfkManager *self)
{
  g_return_val_if_fail (RFK_IS_MANAGER (self), NULL);
  return self->history;
}

void
rfk_manager_name_next_request (RfkManager *self, RfkCause cause,
                               const char *by)
{
  g_return_if_fail (RFK_IS_MANAGER (self));

  self->next_cause = cause;
  g_free (self->next_by);
  self->next_by = g_strdup (by);
}

void
rfk_manager_note_networkmanager (RfkManager *self, guint32 type_mask,
                                 gboolean enabled)
{
  g_return_if_fail (RFK_IS_MANAGER (self));

  self->nm_changed_us = g_get_monotonic_time ();
  self->nm_types = type_mask;
  self->nm_enabled = enabled;
}

void
rfk_manager_set_keep_radio_states (RfkManager *self, gboolean keep)
{
  g_return_if_fail (RFK_IS_MANAGER (self));
  rfk_manager_resume_set_keep (self, keep);
}

gboolean
rfk_manager_get_keep_radio_states (RfkManager *self)
{
  g_return_val_if_fail (RFK_IS_MANAGER (self), FALSE);
  return self->keep_radio_states;
}

void
rfk_manager_prepare_for_sleep (RfkManager *self, gboolean sleeping)
{
  g_return_if_fail (RFK_IS_MANAGER (self));
  rfk_manager_resume_sleep (self, sleeping);
}

RfkDevice *
rfk_manager_lookup (RfkManager *self, guint32 idx)
{
  g_return_val_if_fail (RFK_IS_MANAGER (self), NULL);
  return rfk_manager_device_at (self, idx);
}

void
rfk_manager_get_stats (RfkManager *self, RfkManagerStats *out_stats)
{
  g_return_if_fail (RFK_IS_MANAGER (self));
  *out_stats = self->stats;
}

gboolean
rfk_manager_check_ready (RfkManager *self, GTask *task)
{
  if (self->state == RFK_MANAGER_STATE_READY)
    return TRUE;
  if (self->error != NULL)
    g_task_return_error (task, g_error_copy (self->error));
  else
    g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_NOT_INITIALIZED,
                             _("%s is not open yet"), self->device_path);
  return FALSE;
}

gboolean
rfk_manager_get_airplane_mode (RfkManager *self)
{
  g_return_val_if_fail (RFK_IS_MANAGER (self), FALSE);
  return self->airplane_mode;
}

gboolean
rfk_manager_get_airplane_mode_wanted (RfkManager *self)
{
  g_return_val_if_fail (RFK_IS_MANAGER (self), FALSE);
  return rfk_manager_airplane_wanted (self);
}

/*
 * Every door that asks for airplane mode comes here (RULES.md, "Order"):
 * the menu, the middle click, our D-Bus methods and properties, gsd's
 * object and the CLI.  A request for the state the newest request in
 * flight is already reaching joins it when carrying it out again would
 * change nothing, so identical callers all succeed and a flood of them
 * writes and saves nothing more.  Once any other
 * request came in between, the state the earlier ones leave may differ,
 * so it is planned anew; callers of an older request for the same state
 * then wait for the new one instead of being told "Superseded".
 */
static void
request_airplane (RfkManager *self, gboolean enabled,
                  GCancellable *cancellable, GAsyncReadyCallback callback,
                  gpointer user_data)
{
  RequestKind kind = enabled ? REQUEST_AIRPLANE_ON : REQUEST_AIRPLANE_OFF;
  g_autoptr (GPtrArray) handover = NULL;
  Request *request;
  GTask *task;

  /* Airplane mode names every radio: the user has the last word. */
  rfk_manager_resume_forget_all (self);
  if (self->state != RFK_MANAGER_STATE_READY || self->n_counted == 0)
    {
      g_autoptr (GTask) failed = g_task_new (self, cancellable, callback,
                                             user_data);

      g_task_set_source_tag (failed, rfk_manager_set_airplane_mode_async);
      if (rfk_manager_check_ready (self, failed))
        g_task_return_new_error (failed, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                                 _("There is no radio on %s to switch"),
                                 self->device_path);
      return;
    }

  /* "On" again changes nothing; "off" again does only while airplane
   * mode, as the first leaves it, no longer holds (else it unblocks every
   * radio the first one restored as off). */
  request = cancellable == NULL ? rfk_requests_joinable (self, kind) : NULL;
  if (request != NULL && (enabled || !rfk_manager_airplane_wanted (self)))
    {
      task = g_task_new (self, NULL, callback, user_data);
      g_task_set_source_tag (task, rfk_manager_set_airplane_mode_async);
      g_task_set_task_data (task, GINT_TO_POINTER (enabled), NULL);
      if (request->joined->len >= RFK_MAX_JOINED)
        {
          g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_BUSY,
                                   _("Too many callers are already waiting "
                                     "for this airplane-mode change"));
          g_object_unref (task);
          return;
        }
      g_ptr_array_add (request->joined, task);
      return;
    }

  handover = g_ptr_array_new_with_free_func (g_object_unref);
  /* Off came before: its list is spent, whatever the kernel answered. */
  if (rfk_requests_supersede_airplane (self, kind, handover))
    rfk_manager_airplane_forget_list (self);
  request = rfk_request_new (self, kind, cancellable, callback, user_data,
                             rfk_manager_set_airplane_mode_async);
  g_task_set_task_data (request->task, GINT_TO_POINTER (enabled), NULL);
  while (handover->len > 0)
    g_ptr_array_add (request->joined,
                     g_ptr_array_steal_index (handover, 0));
  rfk_manager_airplane_start (self, request, enabled);
  rfk_requests_adopt_orphans (self);
}

void
rfk_manager_set_airplane_mode_async (RfkManager *self, gboolean enabled,
                                     GCancellable *cancellable,
                                     GAsyncReadyCallback callback,
                                     gpointer user_data)
{
  g_return_if_fail (RFK_IS_MANAGER (self));
  request_airplane (self, enabled != FALSE, cancellable, callback,
                    user_data);
}

gboolean
rfk_manager_set_airplane_mode_finish (RfkManager *self, GAsyncResult *result,
                                      GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

/* Judged at arrival by what the earlier requests leave: two quick
 * toggles, from any doors, end where they began. */
void
rfk_manager_toggle_airplane_mode_async (RfkManager *self,
                                        GCancellable *cancellable,
                                        GAsyncReadyCallback callback,
                                        gpointer user_data)
{
  g_return_if_fail (RFK_IS_MANAGER (self));
  request_airplane (self, !rfk_manager_airplane_wanted (self), cancellable,
                    callback, user_data);
}

gboolean
rfk_manager_toggle_airplane_mode_finish (RfkManager *self,
                                         GAsyncResult *result,
                                         gboolean *out_enabled,
                                         GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  if (!g_task_propagate_boolean (G_TASK (result), error))
    return FALSE;
  if (out_enabled != NULL)
    *out_enabled = GPOINTER_TO_INT (g_task_get_task_data (G_TASK (result)));
  return TRUE;
}

const GError *
rfk_manager_get_airplane_error (RfkManager *self)
{
  g_return_val_if_fail (RFK_IS_MANAGER (self), NULL);
  return self->airplane_error;
}

gboolean
rfk_manager_remove_exception (RfkManager *self, guint32 idx, GError **error)
{
  RfkDevice *device;

  g_return_val_if_fail (RFK_IS_MANAGER (self), FALSE);
  device = rfk_manager_lookup (self, idx);
  if (device == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                   _("There is no radio with index %u"), idx);
      return FALSE;
    }
  if (!device->exception)
    return TRUE;
  rfk_manager_mark_exception (self, device, FALSE);
  /* It takes part again: while airplane mode holds it is remembered and
   * blocked like a radio of a type just counted. */
  rfk_manager_airplane_types_changed (self);
  rfk_manager_update_airplane_mode (self);
  return TRUE;
}

void
rfk_manager_set_airplane_types (RfkManager *self, guint32 type_mask)
{
  g_return_if_fail (RFK_IS_MANAGER (self));
  if (self->airplane_types == type_mask)
    return;
  self->airplane_types = type_mask;
  rfk_manager_retally (self);
  rfk_manager_airplane_types_changed (self);
  rfk_manager_update_airplane_mode (self);
}

guint32
rfk_manager_get_airplane_types (RfkManager *self)
{
  g_return_val_if_fail (RFK_IS_MANAGER (self), 0);
  return self->airplane_types;
}

gboolean
rfk_manager_get_hardware_blocked (RfkManager *self)
{
  g_return_val_if_fail (RFK_IS_MANAGER (self), FALSE);
  return self->n_switch_blocked > 0;
}

gboolean
rfk_manager_get_airplane_light (RfkManager *self)
{
  g_return_val_if_fail (RFK_IS_MANAGER (self), FALSE);
  return self->airplane_light;
}

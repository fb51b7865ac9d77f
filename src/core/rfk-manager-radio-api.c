/*
 * rfk-manager-radio-api.c: RfkManager's public entry points for one
 * radio and for every radio of one type.  Each checks that the manager
 * is ready, then hands a request to rfk-manager-requests.c; airplane
 * mode's entry points are in rfk-manager.c.
 */
#include "config.h"

#include "rfk-manager.h"
#include "rfk-manager-private.h"

#include <glib/gi18n.h>

void
rfk_manager_set_blocked_async (RfkManager *self, guint32 idx,
                               gboolean blocked, GCancellable *cancellable,
                               GAsyncReadyCallback callback,
                               gpointer user_data)
{
  RfkDevice *device;
  Request *request;
  gboolean held;

  g_return_if_fail (RFK_IS_MANAGER (self));

  device = rfk_manager_lookup (self, idx);
  if (self->state != RFK_MANAGER_STATE_READY || device == NULL)
    {
      g_autoptr (GTask) task = g_task_new (self, cancellable, callback,
                                           user_data);

      g_task_set_source_tag (task, rfk_manager_set_blocked_async);
      if (rfk_manager_check_ready (self, task))
        g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                                 _("There is no radio with index %u"), idx);
      return;
    }

  rfk_manager_resume_forget (self, device);
  if (!blocked)
    {
      g_autoptr (GPtrArray) one = g_ptr_array_new ();

      g_ptr_array_add (one, device);
      rfk_manager_airplane_spare (self, one);
    }
  held = rfk_manager_airplane_request_begin (self);
  request = rfk_request_new (self, REQUEST_SET_BLOCKED, cancellable,
                             callback, user_data,
                             rfk_manager_set_blocked_async);
  if (rfk_request_want (request, device, blocked != FALSE))
    rfk_request_commit (request);
  rfk_manager_airplane_request_end (self, held);
}

/* A menu click: the opposite of where the earlier requests leave the
 * radio, so that a quick second click undoes the first. */
void
rfk_manager_toggle_blocked_async (RfkManager *self, guint32 idx,
                                  GCancellable *cancellable,
                                  GAsyncReadyCallback callback,
                                  gpointer user_data)
{
  RfkDevice *device;

  g_return_if_fail (RFK_IS_MANAGER (self));
  device = rfk_manager_lookup (self, idx);
  rfk_manager_set_blocked_async (self, idx,
                                 device != NULL && !rfk_manager_soft_leaves (self, device),
                                 cancellable, callback, user_data);
}

gboolean
rfk_manager_set_blocked_finish (RfkManager *self, GAsyncResult *result,
                                GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

void
rfk_manager_set_type_blocked_async (RfkManager *self, guint type,
                                    gboolean blocked,
                                    GCancellable *cancellable,
                                    GAsyncReadyCallback callback,
                                    gpointer user_data)
{
  /* A copy: a failed write finishes the request, whose callback may
   * change the model under the loop. */
  g_autoptr (GPtrArray) devices = NULL;
  Request *request;
  gboolean held;

  g_return_if_fail (RFK_IS_MANAGER (self));

  if (self->state != RFK_MANAGER_STATE_READY)
    {
      g_autoptr (GTask) task = g_task_new (self, cancellable, callback,
                                           user_data);

      g_task_set_source_tag (task, rfk_manager_set_type_blocked_async);
      rfk_manager_check_ready (self, task);
      return;
    }

  rfk_manager_resume_forget_type (self, type);
  devices = g_ptr_array_new ();
  for (guint i = 0; i < self->sorted->len; i++)
    if (((RfkDevice *) g_ptr_array_index (self->sorted, i))->type == type)
      g_ptr_array_add (devices, g_ptr_array_index (self->sorted, i));
  if (!blocked)
    rfk_manager_airplane_spare (self, devices);
  held = rfk_manager_airplane_request_begin (self);
  request = rfk_request_new (self, REQUEST_SET_TYPE, cancellable, callback,
                             user_data, rfk_manager_set_type_blocked_async);
  for (guint i = 0; i < devices->len; i++)
    {
      RfkDevice *device = g_ptr_array_index (devices, i);

      if (!rfk_request_want (request, device, blocked != FALSE))
        {
          request = NULL;  /* finished with the write's error */
          break;
        }
    }
  if (request != NULL)
    rfk_request_commit (request);
  rfk_manager_airplane_request_end (self, held);
}

gboolean
rfk_manager_set_type_blocked_finish (RfkManager *self, GAsyncResult *result,
                                     GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

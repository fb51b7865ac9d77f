/*
 * rfk-manager-requests.c: RfkManager's pending writes.
 *
 * A request completes when the kernel's confirming event comes in, not
 * when write() returns, because another program may change the same
 * radio in between.  Every radio is claimed by at most one request: a
 * newer request for it takes the radio over from the older one, whose
 * write may still land (so what we wrote stays known, rfk-manager-writes.c,
 * until the kernel reports that state).  A newer request is judged by
 * that state, the one the requests before it leave, never by the one the
 * kernel last confirmed: requests take effect in the order they came
 * (RULES.md).
 */
#include "config.h"

#include "rfk-manager-private.h"

#include <glib/gi18n.h>

#include "rfk-transport.h"

/* A relay that never sends status packets must not make us hoard. */
#define MAX_STATUS_WAITERS 64

static gboolean
request_is_live (RfkManager *self, Request *request)
{
  return g_list_find (self->requests, request) != NULL;
}

static Request *
request_lookup_id (RfkManager *self, guint id)
{
  for (GList *l = self->requests; l != NULL; l = l->next)
    if (((Request *) l->data)->id == id)
      return l->data;
  return NULL;
}

static void
request_release_claims (Request *request)
{
  RfkManager *self = request->self;
  GHashTableIter iter;
  gpointer key;

  g_hash_table_iter_init (&iter, request->wanted);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    if (g_hash_table_lookup (self->claims, key) == request)
      g_hash_table_remove (self->claims, key);
  g_hash_table_remove_all (request->wanted);
}

static void
request_free (Request *request)
{
  g_clear_handle_id (&request->timeout_source, g_source_remove);
  if (request->cancel_source != NULL)
    {
      g_source_destroy (request->cancel_source);
      g_clear_pointer (&request->cancel_source, g_source_unref);
    }
  g_clear_object (&request->task);
  g_free (request->by);
  g_ptr_array_unref (request->joined);
  g_hash_table_unref (request->wanted);
  g_free (request);
}

static void
task_return (GTask *task, const GError *error)
{
  if (error != NULL)
    g_task_return_error (task, g_error_copy (error));
  else
    g_task_return_boolean (task, TRUE);
}

/* Completes request; takes error.  Re-derives state since claims moved. */
void
rfk_request_finish (Request *request, GError *error)
{
  RfkManager *self = request->self;
  RequestKind kind = request->kind;

  if (!request_is_live (self, request))
    {
      g_clear_error (&error);
      return;
    }
  /* The callback may drop the caller's last reference to us. */
  g_object_ref (self);
  self->requests = g_list_remove (self->requests, request);
  request_release_claims (request);
  /* Stale status waiters are recognised by request_is_live(). */
  if (kind == REQUEST_AIRPLANE_ON || kind == REQUEST_AIRPLANE_OFF)
    self->airplane_ops--;

  /* Radios that refused are left out: the others are restored, so the
   * list is spent all the same. */
  if (kind == REQUEST_AIRPLANE_OFF && (error == NULL || request->refused))
    {
      const char *stay_off = _("Radios stay off: a hardware switch blocks "
                               "them");

      self->hooks->airplane_done (self, kind);
      /* Still held with every radio restored as it was (all of them off
       * before airplane mode) is no failure; held by a switch is. */
      if (rfk_manager_compute_airplane_mode (self, NULL)
          && self->n_counted > self->n_counted_on + self->n_counted_soft_only)
        {
          /* A refusal keeps its message and code, after the switch. */
          if (error != NULL)
            g_prefix_error (&error, "%s; ", stay_off);
          else
            error = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_BUSY,
                                         stay_off);
        }
    }

  if (request->task != NULL || request->joined->len > 0)
    {
      /* Callbacks run from here may send new requests: this one is no
       * longer live, so none of them can join it. */
      if (request->task != NULL)
        task_return (request->task, error);
      for (guint i = 0; i < request->joined->len; i++)
        task_return (request->joined->pdata[i], error);
      g_clear_error (&error);
    }
  /* Superseded by the user's own request: nothing went wrong. */
  else if (error != NULL
           && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      g_warning (_("Keeping a hot-plugged radio off failed: %s"),
                 error->message);
      g_error_free (error);
    }
  else
    g_clear_error (&error);

  request_free (request);
  rfk_manager_update_airplane_mode (self);
  g_object_unref (self);
}

/* The kernel will not confirm what request wrote (it timed out or the
 * write was refused): stop expecting those states. */
static void
request_forget_inflight (Request *request)
{
  GHashTableIter iter;
  gpointer key;

  g_hash_table_iter_init (&iter, request->wanted);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    rfk_manager_writes_forget (request->self, GPOINTER_TO_UINT (key));
}

/* A socket peer that has not even answered our writes is hung: that is
 * the device's fault, not the radios'. */
static gboolean
request_awaits_status (Request *request)
{
  RfkManager *self = request->self;

  for (GList *l = self->status_waiters.head; l != NULL; l = l->next)
    if (GPOINTER_TO_UINT (l->data) == request->id)
      return TRUE;
  return FALSE;
}

static int
compare_idx (gconstpointer a, gconstpointer b)
{
  guint ia = GPOINTER_TO_UINT (a), ib = GPOINTER_TO_UINT (b);

  return ia < ib ? -1 : ia > ib;
}

/* The kernel took our writes but the radios still waited for did not
 * change: their drivers refused (the kernel then restores the old state
 * and sends no event).  Each is named, and left out until it changes. */
static GError *
request_refusal_error (Request *request)
{
  RfkManager *self = request->self;
  g_autoptr (GPtrArray) lines = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GList) keys = g_hash_table_get_keys (request->wanted);
  g_autofree char *message = NULL;

  keys = g_list_sort (keys, compare_idx);
  for (GList *l = keys; l != NULL; l = l->next)
    {
      RfkDevice *device = g_hash_table_lookup (self->devices, l->data);
      gboolean soft = GPOINTER_TO_INT (g_hash_table_lookup (request->wanted,
                                                            l->data)) - 1;

      if (device == NULL)
        continue;
      rfk_manager_mark_refused (self, device, soft);
      g_ptr_array_add (lines, rfk_device_dup_refusal (device));
    }
  g_ptr_array_add (lines, NULL);
  request->refused = TRUE;
  message = g_strjoinv ("; ", (char **) lines->pdata);
  return g_error_new_literal (G_IO_ERROR, G_IO_ERROR_TIMED_OUT, message);
}

static gboolean
request_timeout_cb (gpointer user_data)
{
  Request *request = user_data;
  RfkManager *self = request->self;
  GError *error;

  request->timeout_source = 0;
  request_forget_inflight (request);
  if (request_awaits_status (request))
    error = g_error_new (G_IO_ERROR, G_IO_ERROR_TIMED_OUT,
                         g_dngettext (GETTEXT_PACKAGE,
                                      "%s did not confirm the change within "
                                      "%d second",
                                      "%s did not confirm the change within "
                                      "%d seconds",
                                      MAX (1, self->timing.confirm_ms / 1000)),
                         self->device_path,
                         (int) MAX (1, self->timing.confirm_ms / 1000));
  else
    error = request_refusal_error (request);
  g_object_ref (self);
  rfk_request_finish (request, error);
  self->hooks->refused (self);
  g_object_unref (self);
  return G_SOURCE_REMOVE;
}

static gboolean
request_cancelled_cb (GCancellable *cancellable, gpointer user_data)
{
  Request *request = user_data;
  GError *error = NULL;

  g_cancellable_set_error_if_cancelled (cancellable, &error);
  rfk_request_finish (request, error);
  return G_SOURCE_REMOVE;
}

Request *
rfk_request_new (RfkManager *self, RequestKind kind,
                 GCancellable *cancellable, GAsyncReadyCallback callback,
                 gpointer user_data, gpointer source_tag)
{
  Request *request = g_new0 (Request, 1);

  request->self = self;
  request->id = ++self->next_request_id;
  request->kind = kind;
  request->wanted = g_hash_table_new (NULL, NULL);
  request->joined = g_ptr_array_new_with_free_func (g_object_unref);
  if (kind != REQUEST_ENFORCE && kind != REQUEST_ORPHANS)
    {
      request->task = g_task_new (self, cancellable, callback, user_data);
      g_task_set_source_tag (request->task, source_tag);
      self->newest_caller_request = request->id;
      /* The door named for it, once: the next is named anew. */
      request->cause = self->next_cause;
      request->by = g_steal_pointer (&self->next_by);
      self->next_cause = RFK_CAUSE_APPLET;
    }
  else
    request->cause = kind == REQUEST_ENFORCE ? RFK_CAUSE_AIRPLANE_MODE
                                             : RFK_CAUSE_APPLET;
  if (cancellable != NULL)
    {
      request->cancel_source = g_cancellable_source_new (cancellable);
      g_source_set_callback (request->cancel_source,
                             G_SOURCE_FUNC (request_cancelled_cb), request,
                             NULL);
      g_source_attach (request->cancel_source, NULL);
    }
  if (kind == REQUEST_AIRPLANE_ON || kind == REQUEST_AIRPLANE_OFF)
    self->airplane_ops++;
  self->requests = g_list_prepend (self->requests, request);
  return request;
}

/* A caller moves to the newer request for the same state: nothing went
 * wrong for it.  One with a cancellable stays, since its cancellation is
 * tied to the request it made. */
static gboolean
hand_over (Request *request, GPtrArray *handover)
{
  if (request->task != NULL
      && g_task_get_cancellable (request->task) != NULL)
    return FALSE;
  if (request->task != NULL)
    g_ptr_array_add (handover, g_steal_pointer (&request->task));
  while (request->joined->len > 0)
    g_ptr_array_add (handover,
                     g_ptr_array_steal_index (request->joined, 0));
  return TRUE;
}

/* request now waits for idx to reach soft; an older claim on idx is
 * superseded. */
static void
request_claim (Request *request, guint32 idx, gboolean soft)
{
  RfkManager *self = request->self;
  gpointer key = GUINT_TO_POINTER (idx);
  Request *previous = g_hash_table_lookup (self->claims, key);

  if (previous != NULL && previous != request)
    {
      RfkDevice *device = g_hash_table_lookup (self->devices, key);
      gboolean same = GPOINTER_TO_INT (g_hash_table_lookup (previous->wanted,
                                                            key)) - 1
                      == soft;

      g_hash_table_remove (previous->wanted, key);
      g_hash_table_remove (self->claims, key);
      /* A request for one radio is undone by the newer one, unless both
       * ask the same: then its caller waits for the newer one.  A request
       * for several (airplane mode, a type) took effect for this radio
       * too; it goes on waiting for the others and completes as done. */
      if (previous->kind == REQUEST_SET_BLOCKED && same
          && hand_over (previous, request->joined))
        rfk_request_finish (previous,
                            g_error_new_literal (G_IO_ERROR,
                                                 G_IO_ERROR_CANCELLED,
                                                 "handed over"));
      else if (previous->kind == REQUEST_SET_BLOCKED)
        rfk_request_finish (previous,
                            g_error_new (G_IO_ERROR, G_IO_ERROR_CANCELLED,
                                         _("Superseded by a newer request "
                                           "for %s"),
                                         device ? device->name : "?"));
      else if (g_hash_table_size (previous->wanted) == 0
               && previous->timeout_source != 0)
        rfk_request_finish (previous, NULL);
      else
        /* A radio our enforcement kept off counted as off: no more. */
        rfk_manager_update_airplane_mode (self);
    }
  g_hash_table_insert (request->wanted, key, GINT_TO_POINTER (soft + 1));
  g_hash_table_insert (self->claims, key, request);
}

/* Sends one request.  FALSE if it failed (request finished with it). */
static gboolean
request_write (Request *request, const RfkEvent *event)
{
  RfkManager *self = request->self;
  GError *error = NULL;
  const char *type = rfk_type_to_name (event->type);

  if (!rfk_transport_write (self->fd, self->device_path, event, &error))
    {
      request_forget_inflight (request);
      rfk_request_finish (request, error);
      return FALSE;
    }
  /* Like util-linux rfkill: every change we make is on the record. */
  if (event->op == RFK_OP_CHANGE_ALL)
    g_info ("%s every %s radio on %s", event->soft ? "Blocked"
                                                   : "Unblocked",
            event->type == RFK_TYPE_ALL ? "kind of" : type,
            self->device_path);
  else
    g_info ("%s idx %u (%s) on %s", event->soft ? "Blocked" : "Unblocked",
            event->idx, type, self->device_path);
  if (self->is_socket)
    {
      g_queue_push_tail (&self->status_waiters,
                         GUINT_TO_POINTER (request->id));
      if (g_queue_get_length (&self->status_waiters) > MAX_STATUS_WAITERS)
        g_queue_pop_head (&self->status_waiters);
    }
  return TRUE;
}

/* Asks for one radio's soft state.  Writes only if it differs, so we
 * never rewrite a state somebody else set.  FALSE if request finished. */
gboolean
rfk_request_want (Request *request, RfkDevice *device, gboolean soft)
{
  RfkManager *self = request->self;
  gpointer key = GUINT_TO_POINTER (device->idx);
  gpointer pending;
  gboolean in_flight, expected;
  RfkEvent event;

  /* With a write in flight the state will still move: compare with
   * where it is going, not with what the kernel reported last. */
  in_flight = g_hash_table_lookup_extended (self->inflight, key, NULL,
                                            &pending);
  expected = in_flight ? GPOINTER_TO_INT (pending) - 1 : device->soft;
  if (!in_flight && device->soft == soft)
    return TRUE;

  request_claim (request, device->idx, soft);
  if (expected == soft)
    return TRUE;  /* already asked for: wait for the kernel's event */

  event = rfk_event_change (device->idx, device->type, soft);
  if (!request_write (request, &event))
    return FALSE;
  rfk_manager_writes_note (self, device->idx, soft);
  return TRUE;
}

/* Claims every radio the plan expects, then sends its writes in order.
 * FALSE if a write failed (request finished with the error). */
gboolean
rfk_request_apply_plan (Request *request, const RfkAirplanePlan *plan)
{
  RfkManager *self = request->self;

  for (guint i = 0; i < plan->expect->len; i++)
    {
      const RfkPolicyExpect *e = &g_array_index (plan->expect,
                                                 RfkPolicyExpect, i);

      request_claim (request, e->idx, e->soft);
      rfk_manager_writes_note (self, e->idx, e->soft);
    }
  for (guint i = 0; i < plan->writes->len; i++)
    {
      const RfkPolicyWrite *w = &g_array_index (plan->writes,
                                                RfkPolicyWrite, i);
      RfkEvent event = w->op == RFK_OP_CHANGE_ALL
                         ? rfk_event_change_all (w->type, w->soft)
                         : rfk_event_change (w->idx, w->type, w->soft);

      if (!request_is_live (self, request))
        return FALSE;
      if (!request_write (request, &event))
        return FALSE;
    }
  return request_is_live (self, request);
}

/* Writes of a request that was superseded as a whole (an airplane
 * request by the next) may still land, and nobody waits for them any
 * more: the airplane request now sent waits for them too, so that a
 * radio that refuses is found out whichever request wrote to it. */
static void
request_adopt_orphans (Request *request)
{
  RfkManager *self = request->self;
  GHashTableIter iter;
  gpointer key, value;

  g_hash_table_iter_init (&iter, self->inflight);
  while (g_hash_table_iter_next (&iter, &key, &value))
    if (!g_hash_table_contains (self->claims, key)
        && g_hash_table_contains (self->devices, key))
      {
        g_hash_table_insert (request->wanted, key, value);
        g_hash_table_insert (self->claims, key, request);
      }
}

/* Call after the last want: finishes at once if nothing was written,
 * otherwise starts the confirmation timeout. */
void
rfk_request_commit (Request *request)
{
  if (!request_is_live (request->self, request))
    return;
  if (request->kind == REQUEST_AIRPLANE_ON
      || request->kind == REQUEST_AIRPLANE_OFF)
    request_adopt_orphans (request);
  if (g_hash_table_size (request->wanted) == 0)
    {
      rfk_request_finish (request, NULL);
      return;
    }
  request->timeout_source = g_timeout_add (request->self->timing.confirm_ms,
                                           request_timeout_cb, request);
}

/* The kernel reported idx's state (or its removal when device is NULL). */
void
rfk_requests_check_confirmed (RfkManager *self, guint32 idx,
                              RfkDevice *device)
{
  gpointer key = GUINT_TO_POINTER (idx);
  Request *request = g_hash_table_lookup (self->claims, key);
  gpointer wanted;

  rfk_manager_writes_reported (self, idx, device);
  if (request == NULL)
    return;
  wanted = g_hash_table_lookup (request->wanted, key);
  if (device != NULL && GPOINTER_TO_INT (wanted) - 1 != device->soft)
    return;
  g_hash_table_remove (request->wanted, key);
  g_hash_table_remove (self->claims, key);
  if (g_hash_table_size (request->wanted) == 0)
    rfk_request_finish (request, NULL);
}

/* A socket peer answered our oldest unanswered write. */
void
rfk_requests_status (RfkManager *self, int status)
{
  guint id = GPOINTER_TO_UINT (g_queue_pop_head (&self->status_waiters));
  Request *request = id != 0 ? request_lookup_id (self, id) : NULL;

  if (status == 0 || request == NULL)
    return;
  request_forget_inflight (request);
  rfk_request_finish (request,
                      rfk_transport_error_new (self->device_path,
                                               RFK_TRANSPORT_WRITE, status));
}

void
rfk_requests_fail_all (RfkManager *self, const char *message)
{
  while (self->requests != NULL)
    rfk_request_finish (self->requests->data,
                        g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CLOSED,
                                             message));
  g_queue_clear (&self->status_waiters);
}

gboolean
rfk_requests_supersede_airplane (RfkManager *self, RequestKind kind,
                                 GPtrArray *handover)
{
  GList *l = self->requests;
  gboolean was_off = FALSE;

  while (l != NULL)
    {
      Request *request = l->data;
      GError *error;

      l = l->next;
      if (request->kind != REQUEST_AIRPLANE_ON
          && request->kind != REQUEST_AIRPLANE_OFF)
        continue;
      was_off |= request->kind == REQUEST_AIRPLANE_OFF;
      if (request->kind == kind && hand_over (request, handover))
        error = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CANCELLED,
                                     "handed over");  /* told to nobody */
      else
        error = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CANCELLED,
                                     _("Superseded by a newer "
                                       "airplane-mode request"));
      rfk_request_finish (request, error);
      l = self->requests;  /* the list changed under us */
    }
  return was_off;
}

gboolean
rfk_requests_has_kind (RfkManager *self, RequestKind kind)
{
  for (GList *l = self->requests; l != NULL; l = l->next)
    if (((Request *) l->data)->kind == kind)
      return TRUE;
  return FALSE;
}

Request *
rfk_requests_joinable (RfkManager *self, RequestKind kind)
{
  Request *request = request_lookup_id (self, self->newest_caller_request);

  return request != NULL && request->kind == kind ? request : NULL;
}

void
rfk_requests_adopt_orphans (RfkManager *self)
{
  Request *request = rfk_request_new (self, REQUEST_ORPHANS, NULL, NULL,
                                      NULL, NULL);

  request_adopt_orphans (request);
  rfk_request_commit (request);  /* at once if there were none */
}

/* Finalize: tasks hold a reference to us, so only requests without a
 * task can be left; drop them without emitting anything. */
void
rfk_requests_free_all (RfkManager *self)
{
  g_list_free_full (g_steal_pointer (&self->requests),
                    (GDestroyNotify) request_free);
  g_queue_clear (&self->status_waiters);
}

/*
 * rfk-manager-events.c: what /dev/rfkill tells RfkManager, decoded and
 * applied to the model (rfk-manager-model.c), a batch at a time.
 *
 * A batch is one drain of the fd: decisions about other programs wait
 * for its end (rfk-manager-others.c), because `rfkill unblock all`
 * arrives as one CHANGE per radio.
 */
#include "config.h"

#include "rfk-manager-private.h"

#include "rfk-identity.h"
#include "rfk-exceptions.h"
#include "rfk-refusals.h"
#include "rfk-transport.h"

/* A radio leaves the table; a request waiting for it learns so. */
void
rfk_manager_remove_device (RfkManager *self, RfkDevice *device)
{
  guint32 idx = device->idx;

  rfk_manager_tally (self, device, -1);
  g_ptr_array_remove (self->sorted, device);
  g_hash_table_steal (self->devices, GUINT_TO_POINTER (idx));
  g_hash_table_remove (self->newcomers, GUINT_TO_POINTER (idx));
  g_hash_table_remove (self->sweep_before, GUINT_TO_POINTER (idx));
  rfk_manager_resume_radio_removed (self, idx);
  g_signal_emit (self, rfk_manager_signals[SIGNAL_DEVICE_REMOVED], 0, device);
  rfk_manager_device_free (device);
  rfk_requests_check_confirmed (self, idx, NULL);
}

void
rfk_manager_remove_all_devices (RfkManager *self)
{
  while (self->sorted->len > 0)
    rfk_manager_remove_device (self,
                               g_ptr_array_index (self->sorted,
                                                  self->sorted->len - 1));
  /* A device that comes back may reuse these indices (a relay). */
  g_array_set_size (self->newcomers_on, 0);
  g_array_set_size (self->resume_on, 0);
  rfk_manager_update_airplane_mode (self);
}

static void
apply_state (RfkDevice *device, const RfkEvent *event)
{
  device->soft = event->soft;
  device->hard = event->hard;
  /* V1 kernels have no reasons; a cleared hard block has none. */
  device->hard_reasons = event->hard && event->has_reasons
                           ? event->hard_reasons : 0;
}

/* What earlier runs knew of the radio, by its stable key.  A radio that
 * refused and has not changed since is still left out; one that changed
 * takes part again.  An exception stays one until the user removes it. */
static void
recall (RfkManager *self, RfkDevice *device)
{
  g_autofree char *key = rfk_device_dup_key (device);

  if (rfk_refusals_lookup (key, device->soft))
    {
      device->refused = TRUE;
      device->refused_soft = !device->soft;
    }
  else if (!self->read_only)
    rfk_refusals_set (key, FALSE, FALSE);
  device->exception = rfk_exceptions_lookup (key);
}

static void
handle_add (RfkManager *self, const RfkEvent *event)
{
  RfkDevice *device = g_hash_table_lookup (self->devices,
                                           GUINT_TO_POINTER (event->idx));

  /* The kernel reuses indexes only after DEL, but a relay may resend. */
  if (device != NULL)
    rfk_manager_remove_device (self, device);

  device = g_new0 (RfkDevice, 1);
  device->idx = event->idx;
  device->type = event->type;
  device->name = rfk_identity_read_name (event->idx);
  device->bus_device = rfk_identity_read_bus_device (event->idx);
  device->switch_only = rfk_device_name_is_switch_only (device->name);
  /* Plugged in now, not found at start: only then is a change soon
   * after a restore as it was plugged in. */
  if (self->state == RFK_MANAGER_STATE_READY)
    device->added_us = g_get_monotonic_time ();
  apply_state (device, event);
  recall (self, device);
  g_hash_table_insert (self->devices, GUINT_TO_POINTER (device->idx),
                       device);
  rfk_manager_insert_sorted (self->sorted, device);
  rfk_manager_tally (self, device, 1);

  g_signal_emit (self, rfk_manager_signals[SIGNAL_DEVICE_ADDED], 0, device);
  self->others_in_batch = TRUE;
  rfk_manager_airplane_radio_added (self, device);
  rfk_manager_resume_radio_added (self, device);
  rfk_manager_update_airplane_mode (self);
}

static void
handle_change (RfkManager *self, const RfkEvent *event)
{
  RfkDevice *device = g_hash_table_lookup (self->devices,
                                           GUINT_TO_POINTER (event->idx));
  RfkDevice before;
  gboolean ours;

  if (device == NULL)
    return;  /* raced with DEL, or never announced: nothing to update */

  before = *device;
  apply_state (device, event);
  if (before.soft == device->soft && before.hard == device->hard
      && before.hard_reasons == device->hard_reasons)
    return;
  /* A radio that refused takes part again once it changes. */
  if (device->refused && !self->read_only)
    {
      g_autofree char *key = rfk_device_dup_key (device);

      rfk_refusals_set (key, FALSE, FALSE);
    }
  device->refused = FALSE;
  rfk_manager_tally (self, &before, -1);
  rfk_manager_tally (self, device, 1);

  g_signal_emit (self, rfk_manager_signals[SIGNAL_DEVICE_CHANGED], 0, device);
  if (before.hard != device->hard)
    {
      self->others_in_batch = TRUE;
      g_signal_emit (self,
                     rfk_manager_signals[SIGNAL_HARDWARE_SWITCH_CHANGED], 0,
                     device, device->hard);
    }
  /* The handlers may have removed it (they should not, but be safe). */
  device = g_hash_table_lookup (self->devices, GUINT_TO_POINTER (event->idx));
  ours = device != NULL
         && rfk_manager_writes_take_ours (self, event->idx, device->soft);
  if (device != NULL)
    {
      rfk_manager_history_note (self, device, &before, ours);
      rfk_requests_check_confirmed (self, event->idx, device);
      device = g_hash_table_lookup (self->devices,
                                    GUINT_TO_POINTER (event->idx));
    }
  if (device != NULL)
    {
      rfk_manager_airplane_radio_changed (self, device, before.soft, ours);
      rfk_manager_resume_radio_changed (self, device, before.soft, ours);
    }
  rfk_manager_update_airplane_mode (self);
}

static void
handle_event (RfkManager *self, const RfkEvent *event)
{
  RfkDevice *device;

  switch (event->op)
    {
    case RFK_OP_ADD:
      handle_add (self, event);
      break;
    case RFK_OP_DEL:
      device = g_hash_table_lookup (self->devices,
                                    GUINT_TO_POINTER (event->idx));
      if (device != NULL)
        {
          rfk_manager_remove_device (self, device);
          rfk_manager_update_airplane_mode (self);
        }
      break;
    case RFK_OP_CHANGE:
      handle_change (self, event);
      break;
    case RFK_OP_INDICATOR_CHANGE:
      /* Only because we asked (rfk-manager-connection.c); the first
       * one, right after asking, carries the current state. */
      if (self->airplane_light != event->soft)
        {
          self->airplane_light = event->soft;
          g_signal_emit (self,
                         rfk_manager_signals[SIGNAL_AIRPLANE_LIGHT_CHANGED],
                         0, self->airplane_light);
        }
      break;
    default:
      /* CHANGE_ALL is never sent to readers; newer ops are not ours. */
      self->stats.unknown_ops++;
      return;
    }
  self->stats.events++;
}

/* One read()/packet; the batch it belongs to ends with batch_end(). */
void
rfk_manager_process (RfkManager *self, const guint8 *buf, gsize len)
{
  RfkEvent event;
  int status;

  self->in_batch = TRUE;
  if (rfk_event_decode (buf, len, &event))
    {
      handle_event (self, &event);
      return;
    }
  if (self->is_socket && rfk_status_decode (buf, len, &status))
    {
      /* The end of the list is always errno 0; an error answers
       * something we sent (a peer without list ends refuses the ioctl
       * packet of the op-5 opt-in with EINVAL). */
      if (status != 0 || !rfk_manager_connection_take_list_end (self))
        rfk_requests_status (self, status);
      return;
    }
  self->stats.short_reads++;
}

void
rfk_manager_batch_end (RfkManager *self)
{
  if (!self->in_batch)
    return;
  rfk_manager_airplane_batch_newcomers (self);
  rfk_manager_resume_batch_end (self);
  /* What the batch end itself changes is ours, not another program's. */
  self->in_batch = FALSE;
  rfk_manager_airplane_batch_end (self);
}

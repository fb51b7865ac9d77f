/*
 * rfk-manager-model.c: RfkManager's table of radios and what is derived
 * from it: the tallies, airplane mode, radios left out after refusing.
 *
 * Every ADD, DEL and CHANGE updates the tallies, so that no event has to
 * walk every radio.
 */
#include "config.h"

#include "rfk-manager-private.h"

#include "rfk-exceptions.h"
#include "rfk-refusals.h"

/* Filled in by rfk-manager.c's class_init; kept here, at the bottom,
 * so that every file that emits reads it without calling up. */
guint rfk_manager_signals[N_SIGNALS];

void
rfk_manager_device_free (RfkDevice *device)
{
  g_free (device->name);
  g_free (device->bus_device);
  g_free (device);
}

static int
compare_devices (gconstpointer a, gconstpointer b)
{
  const RfkDevice *da = *(RfkDevice **) a;
  const RfkDevice *db = *(RfkDevice **) b;
  int r;

  if (da->type != db->type)
    return da->type < db->type ? -1 : 1;
  r = g_strcmp0 (da->name, db->name);
  if (r != 0)
    return r;
  return da->idx < db->idx ? -1 : da->idx > db->idx;
}

void
rfk_manager_insert_sorted (GPtrArray *sorted, RfkDevice *device)
{
  guint lo = 0, hi = sorted->len;

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;

      if (compare_devices (&sorted->pdata[mid], &device) <= 0)
        lo = mid + 1;
      else
        hi = mid;
    }
  g_ptr_array_insert (sorted, lo, device);
}

RfkDevice *
rfk_manager_device_at (RfkManager *self, guint32 idx)
{
  return g_hash_table_lookup (self->devices, GUINT_TO_POINTER (idx));
}

/* The radio is claimed by airplane mode's own enforcement
 * (rfk-manager-requests.c). */
static gboolean
claimed_by_enforcement (RfkManager *self, guint32 idx)
{
  Request *claim = g_hash_table_lookup (self->claims,
                                        GUINT_TO_POINTER (idx));

  return claim != NULL && claim->kind == REQUEST_ENFORCE;
}

static gboolean
enforcement_claims_any (RfkManager *self)
{
  GHashTableIter iter;
  gpointer claim;

  g_hash_table_iter_init (&iter, self->claims);
  while (g_hash_table_iter_next (&iter, NULL, &claim))
    if (((Request *) claim)->kind == REQUEST_ENFORCE)
      return TRUE;
  return FALSE;
}

/* A newcomer another program turned on in this batch waits for the
 * batch's end to learn whether it is kept off (rfk-manager-others.c);
 * until then it counts as off, so airplane mode does not blink. */
static gboolean
newcomer_on_pending (RfkManager *self, guint32 idx)
{
  for (guint i = 0; i < self->newcomers_on->len; i++)
    if (g_array_index (self->newcomers_on, guint32, i) == idx)
      return TRUE;
  return FALSE;
}

/* The resume guard decides about it at the batch's end, and it came on
 * while airplane mode held: until then it counts as off, for the same
 * reason (rfk-manager-resume.c). */
static gboolean
resume_pending (RfkManager *self, guint32 idx)
{
  for (guint i = 0; i < self->resume_on->len; i++)
    {
      RfkResumePending *p = &g_array_index (self->resume_on,
                                            RfkResumePending, i);

      if (p->idx == idx)
        return p->held;
    }
  return FALSE;
}

/* Radios being blocked by airplane mode's own enforcement already count
 * as blocked, so a hot-plugged radio does not make airplane mode blink
 * off and on; so do the ones waiting for the batch's end. */
static gboolean
counts_blocked (RfkManager *self, RfkDevice *device, gboolean with_resume)
{
  return rfk_device_is_blocked (device)
         || claimed_by_enforcement (self, device->idx)
         || newcomer_on_pending (self, device->idx)
         || (with_resume && resume_pending (self, device->idx));
}

/* The newcomers are decided before the resume guard, by the radios as
 * they are: the guard's pending ones count as on there. */
gboolean
rfk_manager_others_blocked (RfkManager *self, RfkDevice *device)
{
  for (guint i = 0; i < self->sorted->len; i++)
    {
      RfkDevice *other = g_ptr_array_index (self->sorted, i);

      if (other != device
          && rfk_airplane_policy_takes_part (self->airplane_types, other)
          && !counts_blocked (self, other, FALSE))
        return FALSE;
    }
  return TRUE;
}

gboolean
rfk_manager_soft_leaves (RfkManager *self, RfkDevice *device)
{
  gpointer value;

  if (g_hash_table_lookup_extended (self->inflight,
                                    GUINT_TO_POINTER (device->idx), NULL,
                                    &value))
    return GPOINTER_TO_INT (value) - 1;
  return device->soft;
}

void
rfk_manager_tally (RfkManager *self, const RfkDevice *device, int sign)
{
  if (rfk_device_hard_by_switch (device))
    self->n_switch_blocked += sign;
  if (!rfk_airplane_policy_takes_part (self->airplane_types, device))
    return;
  self->n_counted += sign;
  if (!device->soft && !device->hard)
    self->n_counted_on += sign;
  else if (device->soft && !device->hard)
    self->n_counted_soft_only += sign;
}

void
rfk_manager_retally (RfkManager *self)
{
  self->n_counted = self->n_counted_on = self->n_counted_soft_only = 0;
  self->n_switch_blocked = 0;
  for (guint i = 0; i < self->sorted->len; i++)
    rfk_manager_tally (self, g_ptr_array_index (self->sorted, i), 1);
}

gboolean
rfk_manager_compute_airplane_mode (RfkManager *self, guint *out_unblocked)
{
  guint unblocked = self->n_counted_on;

  /* Radios our enforcement is blocking count as blocked already, and so
   * do newcomers and radios the resume guard watches, waiting for the
   * batch's end.  They live only while a radio is being kept off, so
   * walking the radios then costs nothing worth a tally. */
  if (unblocked > 0 && (enforcement_claims_any (self)
                        || self->newcomers_on->len > 0
                        || self->resume_on->len > 0))
    {
      unblocked = 0;
      for (guint i = 0; i < self->sorted->len; i++)
        {
          RfkDevice *device = g_ptr_array_index (self->sorted, i);

          if (rfk_airplane_policy_takes_part (self->airplane_types, device)
              && !counts_blocked (self, device, TRUE))
            unblocked++;
        }
    }
  if (out_unblocked)
    *out_unblocked = unblocked;
  return self->n_counted > 0 && unblocked == 0;
}

/* ---- derived state ---------------------------------------------------- */

void
rfk_manager_update_airplane_mode (RfkManager *self)
{
  guint unblocked;
  gboolean enabled = rfk_manager_compute_airplane_mode (self, &unblocked);

  if (enabled == self->airplane_mode)
    return;
  self->airplane_mode = enabled;
  /*
   * Airplane mode is over with a radio on, however it ended: the key's
   * next press must start it again.  The key toggles from the kernel's
   * state of "all", which airplane on may have blocked, and which only
   * our kernel module can clear without unblocking every radio.  Not
   * when the last radio merely went away.
   */
  if (!enabled && unblocked > 0 && self->state == RFK_MANAGER_STATE_READY)
    self->hooks->airplane_ended (self);

  /* Not ours: decided at the end of the batch (rfk-manager-others.c).
   * Not when the last radio merely went away (it may come back). */
  if (self->in_batch && self->airplane_ops == 0
      && self->state == RFK_MANAGER_STATE_READY)
    {
      if (!enabled && unblocked > 0)
        self->ended_in_batch = TRUE;
      else if (enabled)
        self->entered_in_batch = TRUE;
    }
  g_signal_emit (self, rfk_manager_signals[SIGNAL_AIRPLANE_MODE_CHANGED], 0,
                 enabled);
}

void
rfk_manager_mark_refused (RfkManager *self, RfkDevice *device,
                          gboolean soft)
{
  g_autofree char *key = rfk_device_dup_key (device);

  rfk_manager_tally (self, device, -1);
  device->refused = TRUE;
  device->refused_soft = soft;
  rfk_manager_tally (self, device, 1);
  /* For the next run of the CLI or the applet, until it changes. */
  if (!self->read_only)
    rfk_refusals_set (key, TRUE, device->soft);
  g_signal_emit (self, rfk_manager_signals[SIGNAL_DEVICE_CHANGED], 0, device);
}

void
rfk_manager_mark_exception (RfkManager *self, RfkDevice *device,
                            gboolean exception)
{
  g_autofree char *key = rfk_device_dup_key (device);

  if (device->exception == exception)
    return;
  rfk_manager_tally (self, device, -1);
  device->exception = exception;
  rfk_manager_tally (self, device, 1);
  /* For every later airplane mode, of the applet or the CLI. */
  if (!self->read_only)
    rfk_exceptions_set (key, exception);
  g_signal_emit (self, rfk_manager_signals[SIGNAL_DEVICE_CHANGED], 0, device);
}

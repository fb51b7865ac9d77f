/* rfk-sync-throttle.c: one idle sync per quiet spell, a timed one per
 * burst (the rules are in the header). */
#include "config.h"

#include "rfk-sync-throttle.h"

struct _RfkSyncThrottle
{
  GObject parent_instance;

  int priority;
  gint64 quiet_us;
  gint64 max_delay_us;
  gint64 min_interval_us;
  RfkSyncFunc sync;
  gpointer user_data;         /* not owned */

  guint source_id;            /* pending sync, 0 if none */
  gboolean source_is_idle;    /* it is the idle sync after a quiet spell */
  gint64 last_change_us;      /* monotonic time of the last change */
  gint64 pending_since_us;    /* when the pending sync was asked for */
  gint64 last_sync_us;        /* monotonic time of the last sync */
};

G_DEFINE_FINAL_TYPE (RfkSyncThrottle, rfk_sync_throttle, G_TYPE_OBJECT)

static gboolean
sync_cb (gpointer user_data)
{
  RfkSyncThrottle *self = user_data;

  self->source_id = 0;
  self->last_sync_us = g_get_monotonic_time ();
  self->sync (self->user_data);
  return G_SOURCE_REMOVE;
}

/* When the pending sync of a burst is due (monotonic µs). */
static gint64
burst_sync_due (RfkSyncThrottle *self)
{
  gint64 due = self->last_change_us + self->quiet_us;

  due = MIN (due, self->pending_since_us + self->max_delay_us);
  return MAX (due, self->last_sync_us + self->min_interval_us);
}

static gboolean sync_after_burst (gpointer user_data);

static void
wait_for_burst_end (RfkSyncThrottle *self, gint64 now)
{
  gint64 wait_ms = (burst_sync_due (self) - now + 999) / 1000;

  self->source_is_idle = FALSE;
  self->source_id = g_timeout_add_full (self->priority, MAX (wait_ms, 1),
                                        sync_after_burst, self, NULL);
}

/* Runs when the burst looked over; it may have gone on since. */
static gboolean
sync_after_burst (gpointer user_data)
{
  RfkSyncThrottle *self = user_data;
  gint64 now = g_get_monotonic_time ();

  if (now < burst_sync_due (self))
    {
      wait_for_burst_end (self, now);
      return G_SOURCE_REMOVE;
    }
  return sync_cb (self);
}

void
rfk_sync_throttle_queue (RfkSyncThrottle *self)
{
  gint64 now;
  gboolean after_quiet;

  g_return_if_fail (RFK_IS_SYNC_THROTTLE (self));

  now = g_get_monotonic_time ();
  /* Only the quiet spell decides: the time since the last sync does not,
   * or a lone change that comes soon after a slow sync (a busy machine)
   * would wait for a whole quiet window. */
  after_quiet = now - self->last_change_us >= self->quiet_us;
  self->last_change_us = now;
  if (after_quiet)
    {
      /* An idle sync still to run shows this change too. */
      if (self->source_id != 0 && self->source_is_idle)
        return;
      /* The first change after a quiet spell is shown at once, even if
       * the last burst's trailing sync is still waiting: that sync would
       * hold this change back for a whole quiet window. */
      g_clear_handle_id (&self->source_id, g_source_remove);
      self->pending_since_us = now;
      self->source_is_idle = TRUE;
      self->source_id = g_idle_add_full (self->priority, sync_cb, self, NULL);
      return;
    }
  if (self->source_id != 0)
    return;
  self->pending_since_us = now;
  wait_for_burst_end (self, now);
}

void
rfk_sync_throttle_sync_now (RfkSyncThrottle *self)
{
  g_return_if_fail (RFK_IS_SYNC_THROTTLE (self));

  g_clear_handle_id (&self->source_id, g_source_remove);
  sync_cb (self);
}

void
rfk_sync_throttle_cancel (RfkSyncThrottle *self)
{
  g_return_if_fail (RFK_IS_SYNC_THROTTLE (self));

  g_clear_handle_id (&self->source_id, g_source_remove);
}

static void
rfk_sync_throttle_dispose (GObject *object)
{
  RfkSyncThrottle *self = RFK_SYNC_THROTTLE (object);

  g_clear_handle_id (&self->source_id, g_source_remove);
  G_OBJECT_CLASS (rfk_sync_throttle_parent_class)->dispose (object);
}

static void
rfk_sync_throttle_class_init (RfkSyncThrottleClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = rfk_sync_throttle_dispose;
}

static void
rfk_sync_throttle_init (RfkSyncThrottle *self)
{
}

RfkSyncThrottle *
rfk_sync_throttle_new (int priority, guint quiet_ms, guint max_delay_ms,
                       guint min_interval_ms, RfkSyncFunc sync,
                       gpointer user_data)
{
  RfkSyncThrottle *self;

  g_return_val_if_fail (sync != NULL, NULL);

  self = g_object_new (RFK_TYPE_SYNC_THROTTLE, NULL);
  self->priority = priority;
  self->quiet_us = quiet_ms * G_TIME_SPAN_MILLISECOND;
  self->max_delay_us = max_delay_ms * G_TIME_SPAN_MILLISECOND;
  self->min_interval_us = min_interval_ms * G_TIME_SPAN_MILLISECOND;
  self->sync = sync;
  self->user_data = user_data;
  return self;
}

/*
 * rfk-sync-throttle.h: when a view catches up with the model.
 *
 * A view (the tray menu, our D-Bus properties) is told of every change
 * but shows the model as a whole, so many changes are one sync.  The
 * owner calls rfk_sync_throttle_queue() on each change; the throttle calls
 * its sync function later, from the main loop, at the priority given:
 *
 * - A change after a quiet spell of quiet_ms is shown at once, from an
 *   idle callback, so that a click or a hardware switch shows without
 *   delay.  One idle sync covers every change made before it runs.
 * - A change that follows another within quiet_ms is part of a burst (a
 *   driver or a script flipping radios): the sync waits until the model
 *   has been quiet that long, but never longer than max_delay_ms after the
 *   first change it waits for, and syncs are min_interval_ms apart at
 *   least within a burst.
 *
 * quiet_ms 0 never sees a burst: every change is shown by the next idle
 * sync, one per main-loop turn.  Disposing of the throttle (or cancel())
 * drops a pending sync without running it.
 */
#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

#define RFK_TYPE_SYNC_THROTTLE (rfk_sync_throttle_get_type ())
G_DECLARE_FINAL_TYPE (RfkSyncThrottle, rfk_sync_throttle, RFK, SYNC_THROTTLE,
                      GObject)

/* Brings the view up to date with the model. */
typedef void (*RfkSyncFunc) (gpointer user_data);

/* sync (user_data) is called with no reference taken: the owner cancels
 * the throttle (or drops it) before user_data goes away. */
RfkSyncThrottle *rfk_sync_throttle_new (int priority, guint quiet_ms,
                                        guint max_delay_ms,
                                        guint min_interval_ms,
                                        RfkSyncFunc sync, gpointer user_data);

/* The model changed: a sync is due, now or after the burst. */
void rfk_sync_throttle_queue (RfkSyncThrottle *self);

/* Syncs now, in place of any pending sync. */
void rfk_sync_throttle_sync_now (RfkSyncThrottle *self);

/* Drops the pending sync, if any. */
void rfk_sync_throttle_cancel (RfkSyncThrottle *self);

G_END_DECLS

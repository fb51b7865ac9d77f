/*
 * rfk-sleep-watch.h: logind's PrepareForSleep, for the resume guard.
 *
 * logind sends PrepareForSleep(true) on org.freedesktop.login1.Manager
 * before the system suspends or hibernates, and PrepareForSleep(false)
 * once it is back.  The guard needs nothing done before sleep that could
 * be cut short (it only remembers radios in memory), so no delay
 * inhibitor is taken.
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

#define RFK_TYPE_SLEEP_WATCH (rfk_sleep_watch_get_type ())
G_DECLARE_FINAL_TYPE (RfkSleepWatch, rfk_sleep_watch, RFK, SLEEP_WATCH,
                      GObject)

/* Listens on bus, or on the system bus when bus is NULL (looked up in the
 * background; without one, nothing is ever signalled). */
RfkSleepWatch *rfk_sleep_watch_new (GDBusConnection *bus);

/*
 * Signals:
 *  "prepare-for-sleep" (gboolean sleeping)  TRUE before sleep, FALSE
 *                                            after resume
 */

G_END_DECLS

/*
 * rfk-notifier.h: desktop notifications when a hardware switch blocks or
 * unblocks radios, and when another program ends airplane mode (then the
 * radios that were off before are off again), and when a radio is kept
 * off after resume (with a "Keep It On" button).  Our own soft changes
 * never notify.  Radios flipped by
 * one switch are named in one notification, and a later flip replaces the
 * earlier notification instead of stacking a new one.  A user's action
 * that failed is told too, under an id of its own (failures replace
 * failures).
 */
#pragma once

#include <gio/gio.h>

#include "rfk-manager.h"
#include "rfk-udev-names.h"

G_BEGIN_DECLS

#define RFK_TYPE_NOTIFIER (rfk_notifier_get_type ())
G_DECLARE_FINAL_TYPE (RfkNotifier, rfk_notifier, RFK, NOTIFIER, GObject)

/* app: the application that sends them (it must outlive the notifier);
 * settings: its GSettings ("notifications" key); names: the radios'
 * names for people, as the menu shows them (NULL: the kernel's names). */
RfkNotifier *rfk_notifier_new (GApplication *app, RfkManager *manager,
                               GSettings *settings, RfkUdevNames *names);

/* A user's action failed: action ("Cannot turn airplane mode on") is the
 * summary, reason the body.  One notification for failures, replaced by
 * the next failure; shown whatever the "notifications" setting says. */
void rfk_notifier_tell_failure (RfkNotifier *self, const char *action,
                                const char *reason);

G_END_DECLS

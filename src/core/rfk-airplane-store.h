/*
 * rfk-airplane-store.h: what airplane mode must restore, on disk.
 *
 * Turning airplane mode on records every counted radio's soft state,
 * keyed by its stable identity (rfk_device_dup_key) so a radio re-added
 * under a new kernel index or name is still recognised.  The file lives in
 * $XDG_STATE_HOME/rfkill-applet/ so the CLI and the applet share it and it
 * survives restarts and crashes.  It is re-read for every decision, never
 * cached, because another process may have changed it.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  gboolean active;      /* airplane mode was turned on by us */
  GHashTable *radios;   /* char *key -> GINT_TO_POINTER (soft_before + 1) */
  /* Where a list we could not parse was moved; while set, the list is
   * unknown and airplane mode must not be turned off from it. */
  char *corrupt_copy;
} RfkAirplaneStore;

/* $XDG_STATE_HOME/rfkill-applet/airplane-mode.ini, read each call. */
char *rfk_airplane_store_dup_path (void);

RfkAirplaneStore *rfk_airplane_store_new (void);
void rfk_airplane_store_free (RfkAirplaneStore *store);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RfkAirplaneStore, rfk_airplane_store_free)

/* A missing file is an empty store.  An unreadable or corrupt one is an
 * error naming the path (G_KEY_FILE_ERROR when corrupt); callers must
 * never act as if it were empty. */
RfkAirplaneStore *rfk_airplane_store_load (GError **error);
/* Atomic (write temp file + rename): every reader, and a restart after a
 * crash, sees the new list on return.  On disk (fsync) shortly after,
 * from a worker thread, so that airplane mode does not wait for the disk;
 * see the comment in rfk-airplane-store.c for what a power loss in that
 * window means. */
gboolean rfk_airplane_store_save (const RfkAirplaneStore *store,
                                  GError **error);
/* Waits until every list saved so far is on disk; FALSE if an fsync
 * failed (already logged).  For a program about to exit. */
gboolean rfk_airplane_store_wait_durable (void);

void rfk_airplane_store_remember (RfkAirplaneStore *store, const char *key,
                                  gboolean soft_blocked);
/* FALSE if the radio is not remembered. */
gboolean rfk_airplane_store_lookup (const RfkAirplaneStore *store,
                                    const char *key,
                                    gboolean *out_soft_blocked);
void rfk_airplane_store_clear (RfkAirplaneStore *store);

/* An exclusive flock() on a lock file next to the list, for a program
 * that reads, decides and writes it while the applet is not running (the
 * applet is the only writer otherwise).  Waits for the lock; returns the
 * fd to close() to release it, or -1 with error. */
int rfk_airplane_store_lock (GError **error);

G_END_DECLS

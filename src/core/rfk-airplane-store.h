/*
 * rfk-airplane-store.h: what airplane mode must restore, on disk.
 *
 * Turning airplane mode on records every counted radio's soft state,
 * keyed by its stable identity (rfk_device_dup_key) so a radio re-added
 * under a new kernel index or name is still recognised.  The file lives in
 * $XDG_STATE_HOME/rfkill-applet/ (rfk-state-file.h) so the CLI and the
 * applet share it and it survives restarts and crashes.  It is re-read
 * for every decision, never cached, because another process may have
 * changed it.
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
 * error naming the path (G_KEY_FILE_ERROR when corrupt, and only for a
 * regular file: see rfk_state_file_load()); callers must never act as if
 * it were empty.  Changes nothing on disk. */
RfkAirplaneStore *rfk_airplane_store_load (GError **error);
/* Atomic, its contents on disk on return (rfk_state_file_write()).  A
 * writer holds rfk_state_file_lock() from its load to its save. */
gboolean rfk_airplane_store_save (const RfkAirplaneStore *store,
                                  GError **error);

void rfk_airplane_store_remember (RfkAirplaneStore *store, const char *key,
                                  gboolean soft_blocked);
/* FALSE if the radio is not remembered. */
gboolean rfk_airplane_store_lookup (const RfkAirplaneStore *store,
                                    const char *key,
                                    gboolean *out_soft_blocked);
void rfk_airplane_store_clear (RfkAirplaneStore *store);

G_END_DECLS

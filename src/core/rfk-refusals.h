/*
 * rfk-refusals.h: radios whose driver refused our last change, on disk.
 *
 * A radio the kernel did not confirm a write for is left out of airplane
 * mode until its state next changes (RULES.md).  The CLI runs as a
 * program of its own, and the applet restarts, so the fact is kept next
 * to the restore list (rfk-state-file.h: 0600, fsynced, written under
 * the state lock): keyed by the radio's stable identity, with the soft
 * state it stayed in.  Found again with that same state, the radio has
 * not changed since and is still left out; found in another, it changed
 * and takes part again.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* $XDG_STATE_HOME/rfkill-applet/refused-radios.ini */
char *rfk_refusals_dup_path (void);

/* Whether key refused while its soft state was soft_stayed.  Changes
 * nothing on disk: a corrupt file is said once and counts as nothing
 * refused; it is moved aside by the next rfk_refusals_set() only. */
gboolean rfk_refusals_lookup (const char *key, gboolean soft_stayed);

/* Records (refused) or forgets (!refused) key, under the state lock;
 * failures are logged: the worst outcome is one more wait for the
 * timeout. */
void rfk_refusals_set (const char *key, gboolean refused,
                       gboolean soft_stayed);

/* For tests: how many times the file was read since the start. */
guint rfk_refusals_get_reads (void);

G_END_DECLS

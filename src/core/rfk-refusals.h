/*
 * rfk-refusals.h: radios whose driver refused our last change, on disk.
 *
 * A radio the kernel did not confirm a write for is left out of airplane
 * mode until its state next changes (RULES.md).  The CLI runs as a
 * program of its own, and the applet restarts, so the fact is kept next
 * to the restore list: keyed by the radio's stable identity, with the
 * soft state it stayed in.  Found again with that same state, the radio
 * has not changed since and is still left out; found in another, it
 * changed and takes part again.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* $XDG_STATE_HOME/rfkill-applet/refused-radios.ini */
char *rfk_refusals_dup_path (void);

/* Whether key refused while its soft state was soft_stayed. */
gboolean rfk_refusals_lookup (const char *key, gboolean soft_stayed);

/* Records (refused) or forgets (!refused) key; failures are logged:
 * the worst outcome is one more wait for the timeout. */
void rfk_refusals_set (const char *key, gboolean refused,
                       gboolean soft_stayed);

G_END_DECLS

/*
 * rfk-exceptions.h: radios airplane mode leaves alone, on disk.
 *
 * A radio the user turns on while airplane mode holds becomes an
 * exception (RULES.md): it stays as the user leaves it, now and in every
 * later airplane mode, until the user removes the exception.  The CLI
 * and the applet both decide airplane mode, and the fact outlives a
 * restart, so it is kept on disk by the radio's stable identity (a USB
 * adapter keeps it under a new index), next to the restore list
 * (rfk-radio-marks.h).
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* $XDG_STATE_HOME/rfkill-applet/airplane-exceptions.ini */
char *rfk_exceptions_dup_path (void);

gboolean rfk_exceptions_lookup (const char *key);

/* Records or removes key; FALSE (logged) if the file cannot be written,
 * and then the exception lasts only as long as this process. */
gboolean rfk_exceptions_set (const char *key, gboolean exception);

G_END_DECLS

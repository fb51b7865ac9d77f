/*
 * rfk-radio-marks.h: a fact about some radios, kept on disk by stable key.
 *
 * Two facts outlive one run of the applet or the CLI, and both programs
 * need them: which radios refused our last change (rfk-refusals.h) and
 * which ones stay as the user left them in airplane mode
 * (rfk-exceptions.h).  Each is one small key file next to the restore
 * list (rfk-state-file.h: 0600, fsynced, written under the state lock),
 * one group, one string per radio.  This module reads, caches and writes
 * such a file, and says once when one is corrupt or unreadable.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _RfkRadioMarksCache RfkRadioMarksCache;

typedef struct {
  const char *file_name;   /* in $XDG_STATE_HOME/rfkill-applet */
  const char *group;
  /* What the file is, for messages, untranslated (N_()): "the list of
   * radios that refused a change". */
  const char *what;
  RfkRadioMarksCache *cache; /* NULL until first used */
} RfkRadioMarks;

char *rfk_radio_marks_dup_path (RfkRadioMarks *marks);

/* key's value, or NULL.  Changes nothing on disk: a corrupt file is said
 * once and counts as empty; it is moved aside by the next set only. */
char *rfk_radio_marks_lookup (RfkRadioMarks *marks, const char *key);

/* Sets key to value, or forgets it (value NULL), under the state lock.
 * Failures are logged and FALSE: a fact that cannot be kept is lost at
 * the next start, nothing worse. */
gboolean rfk_radio_marks_set (RfkRadioMarks *marks, const char *key,
                              const char *value);

/* For tests: how many times the file was read since the start. */
guint rfk_radio_marks_get_reads (RfkRadioMarks *marks);

G_END_DECLS

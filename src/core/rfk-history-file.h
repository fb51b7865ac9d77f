/*
 * rfk-history-file.h: history.ini, the file behind RfkHistory.
 *
 * One group per change, numbered oldest first ([change 1] ...), with the
 * words rfk_cause_to_string() and rfk_radio_state_to_string() give.
 * Nothing here keeps state: RfkHistory (rfk-history.c) decides when to
 * read and write, and may call rfk_history_file_save() from a worker
 * thread.
 */
#pragma once

#include "rfk-history.h"

G_BEGIN_DECLS

/* Drops the oldest entries past RFK_HISTORY_MAX. */
void rfk_history_trim (GPtrArray *entries);

/* The file's entries, oldest first.  NULL with error only when it cannot
 * be read at all (left alone: maybe not ours).  A corrupt file is moved
 * aside when set_aside (call with the state lock held) and gives none,
 * and entries that make no sense are left out: both with error set too,
 * for the caller to say. */
GPtrArray *rfk_history_file_load (const char *path, gboolean set_aside,
                                  GError **error);

/* Under the state lock: reads the file, adds copies of added, keeps the
 * newest RFK_HISTORY_MAX by time and writes the result
 * (rfk_state_file_write(): fsynced, renamed).  Returns what it wrote,
 * oldest first, or NULL with error.  Any thread; it touches nothing but
 * the file and its arguments. */
GPtrArray *rfk_history_file_save (const char *path, const GPtrArray *added,
                                  GError **error);

G_END_DECLS

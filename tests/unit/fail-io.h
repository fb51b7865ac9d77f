/*
 * fail-io.h: a test's own fsync() and rename(), in place of libc's.
 *
 * Linked into a test executable, these definitions take the place of
 * libc's for our code and for GLib (g_rename()), so a test can see what
 * reached the disk and make one save fail the way a full disk does,
 * without root or a special filesystem.
 */
#pragma once

#include <glib.h>

/* Forgets what was fsynced and stops failing. */
void fail_io_reset (void);

/* rename() onto a path ending in suffix fails with ENOSPC (NULL: none). */
void fail_io_fail_rename_to (const char *suffix);

/* How many fsync() calls were made on a file whose path (as
 * /proc/self/fd shows it) starts with prefix. */
guint fail_io_count_fsyncs (const char *prefix);

/* How many files were renamed onto path, and of those how many had been
 * fsynced (under their old name) before: only those survive a power
 * loss whole. */
guint fail_io_count_renames (const char *path, guint *out_fsynced_before);

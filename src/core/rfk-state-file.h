/*
 * rfk-state-file.h: our files in $XDG_STATE_HOME/rfkill-applet/.
 *
 * The restore list (airplane-mode.ini) and the refusals
 * (refused-radios.ini) are read, written, locked and kept aside when
 * corrupt through this one module, so that where they live, who may read
 * them (0600), what survives a power loss and what a corrupt file becomes
 * are decided once.
 *
 * The lock: the applet and the CLI both read a file, decide and write it
 * back.  Every writer holds the lock from before its read to after its
 * write, so two of them never decide on the same old contents.  Readers
 * that write nothing (`--list`) take no lock: a write is a rename, so a
 * reader sees the old file or the new one, never half of one.
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* $XDG_STATE_HOME/rfkill-applet/name, from the environment at each call
 * (tests change it), ~/.local/state when unset or relative. */
char *rfk_state_file_dup_path (const char *name);

/* The file parsed.  Errors: G_FILE_ERROR_NOENT when missing; a
 * G_KEY_FILE_ERROR only for a regular file we read and could not parse
 * (corrupt); G_IO_ERROR_NOT_REGULAR_FILE for a directory, FIFO or other
 * in its place (never corrupt: not ours to move); otherwise the errno.
 * Messages give the cause; callers name the file.  Changes nothing on
 * disk, whatever it finds. */
GKeyFile *rfk_state_file_load (const char *path, GError **error);

/* Replaces path with data: a 0600 temporary file next to it, fsynced,
 * renamed over path; the directory is fsynced soon after (see
 * rfk_state_file_wait_durable()).  Every reader sees the new file on
 * return, and a power loss leaves the old file or the new one, whole.
 * Keeps no file descriptor open past the return.  Errors give the cause;
 * callers name the file. */
gboolean rfk_state_file_write (const char *path, const char *data,
                               gsize length, GError **error);

/* Moves a corrupt regular file at path aside to a name of its own
 * (PATH.corrupt-STAMP[-N]), never over an earlier copy.  Returns that
 * name, or NULL with error (G_IO_ERROR_NOT_REGULAR_FILE for anything but
 * a regular file, which is left where it is).  Call with the lock held. */
char *rfk_state_file_quarantine (const char *path, GError **error);

/* Waits until every rename done so far is on disk (the directory
 * fsynced).  FALSE if an fsync failed (already logged).  main() calls it
 * before returning, whoever still holds a manager. */
gboolean rfk_state_file_wait_durable (void);

/* The lock over every state file: an exclusive flock() on
 * rfkill-applet/airplane-mode.ini.lock (the name older CLIs use too).
 * Recursive within a thread, so the CLI can hold it around a manager
 * that takes it again.  Two threads exclude each other as two processes
 * do.  Waits for another holder to release it: the applet's main loop
 * too, while a CLI holds it, which happens only when no applet serves
 * the CLI's device, for one request.  NULL with error when the lock file
 * cannot be opened. */
typedef struct _RfkStateLock RfkStateLock;
RfkStateLock *rfk_state_file_lock (GError **error);
void rfk_state_lock_release (RfkStateLock *lock);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RfkStateLock, rfk_state_lock_release)

/* For tests: whether this thread holds the lock. */
gboolean rfk_state_file_is_locked (void);

G_END_DECLS

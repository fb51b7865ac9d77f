/*
 * rfk-history.h: the last radio changes, and what made each one.
 *
 * "Who turned my radio on?" is a question users spend days on: a sleep
 * script, a driver reloaded hours later, an Fn key that re-plugs the
 * adapter.  RfkManager tells each change it sees, with its cause as far
 * as it can be told (rfk-manager-history.c says how), and this object
 * keeps the last RFK_HISTORY_MAX of them, in memory and in
 * $XDG_STATE_HOME/rfkill-applet/history.ini (rfk-state-file.h: 0600,
 * written under the state lock).
 *
 * The applet and the CLI (when no applet serves it) both add to the one
 * file: a flush merges what is on disk with what this process added, by
 * time, and keeps the newest RFK_HISTORY_MAX.
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

#define RFK_HISTORY_MAX 100

/* What made a change.  The first group are our own doors; the names
 * rfk_cause_to_string() gives are the file's and the API's words. */
typedef enum {
  RFK_CAUSE_OTHER,         /* another program: nothing better is known */
  RFK_CAUSE_APPLET,        /* ours, without a door named */
  RFK_CAUSE_MENU,
  RFK_CAUSE_MIDDLE_CLICK,
  RFK_CAUSE_NOTIFICATION,  /* a notification's button */
  RFK_CAUSE_CLI,
  RFK_CAUSE_DBUS,          /* a D-Bus caller; "by" names its process */
  RFK_CAUSE_AIRPLANE_MODE, /* ours, no caller: airplane mode's own rules */
  RFK_CAUSE_RESUME,        /* during the resume window, or its guard */
  RFK_CAUSE_KEY,           /* every radio at once: the airplane key, or
                            * `rfkill block all`, gsd's airplane mode */
  RFK_CAUSE_SWITCH,        /* a hardware switch */
  RFK_CAUSE_HOTPLUG,       /* restored as it was plugged in */
  RFK_CAUSE_NETWORKMANAGER,
  RFK_CAUSE_COUNT
} RfkCause;

const char *rfk_cause_to_string (RfkCause cause);
gboolean rfk_cause_from_string (const char *string, RfkCause *out_cause);

/* A radio as a change found and left it. */
typedef enum {
  RFK_RADIO_ON,
  RFK_RADIO_OFF,           /* soft-blocked */
  RFK_RADIO_HARD_BLOCKED,  /* hard-blocked, whatever its soft state */
} RfkRadioState;

RfkRadioState rfk_radio_state_of (gboolean soft, gboolean hard);
const char *rfk_radio_state_to_string (RfkRadioState state);
gboolean rfk_radio_state_from_string (const char *string,
                                      RfkRadioState *out_state);
/* "on", "off", "blocked by hardware", translated. */
const char *rfk_radio_state_to_label (RfkRadioState state);

typedef struct {
  gint64 time_us;        /* wall clock, µs since the epoch */
  char *name;            /* the kernel's name ("hci0") */
  guint8 type;           /* RfkType */
  char *key;             /* stable key (rfk_device_dup_key()) */
  RfkRadioState from;
  RfkRadioState to;
  RfkCause cause;
  char *by;              /* a process name, or NULL */
} RfkHistoryEntry;

RfkHistoryEntry *rfk_history_entry_copy (const RfkHistoryEntry *entry);
void rfk_history_entry_free (RfkHistoryEntry *entry);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RfkHistoryEntry, rfk_history_entry_free)
/* The cause for a person: "the menu", "gnome-shell over D-Bus",
 * translated. */
char *rfk_history_entry_dup_cause_label (const RfkHistoryEntry *entry);

/* "Bluetooth (hci0)", as rfk_radio_label() names a radio present. */
char *rfk_history_entry_dup_radio_label (const RfkHistoryEntry *entry);
/* "Bluetooth (hci0): on → off, by the menu", translated. */
char *rfk_history_entry_dup_summary (const RfkHistoryEntry *entry);

#define RFK_TYPE_HISTORY (rfk_history_get_type ())
G_DECLARE_FINAL_TYPE (RfkHistory, rfk_history, RFK, HISTORY, GObject)

/* Empty; rfk_history_load() reads the file. */
RfkHistory *rfk_history_new (void);
char *rfk_history_dup_path (void);

/* Reads the file.  Missing is no error.  A corrupt one is moved aside
 * (its new name in the error) and the history starts empty; entries
 * that make no sense are skipped, with a warning.  Either way FALSE with
 * error, and the history stays usable. */
gboolean rfk_history_load (RfkHistory *self, GError **error);
/* The same for a reader that writes nothing (`--history`): no lock, and
 * a corrupt file is only said (NULL entries are kept: FALSE). */
gboolean rfk_history_read (RfkHistory *self, GError **error);

/* Adds entry (taken) at the end, dropping the oldest past
 * RFK_HISTORY_MAX; "changed" is emitted.  With autosave (the applet),
 * the file is written half a second later, once per burst, by a worker
 * thread, so that the disk never holds up the main loop; "changed" is
 * emitted again when the merge comes back. */
void rfk_history_add (RfkHistory *self, RfkHistoryEntry *entry);
void rfk_history_set_autosave (RfkHistory *self, gboolean autosave);

/* Writes what was added since the last flush, merged with the file,
 * under the state lock; the history becomes the merge.  TRUE when there
 * was nothing to write.  An autosave in flight is waited for first, so
 * call it without holding the state lock. */
gboolean rfk_history_flush (RfkHistory *self, GError **error);

/* RfkHistoryEntry *, oldest first; owned by self. */
GPtrArray *rfk_history_get_entries (RfkHistory *self);

G_END_DECLS

/*
 * rfk-manager.h: the model of every radio behind /dev/rfkill.
 *
 * The manager owns the device fd.  Everybody else sees parsed state and
 * signals, never raw bytes.  Derived state (airplane mode, hardware
 * switch, indicator) is computed here and nowhere else.
 */
#pragma once

#include <gio/gio.h>

#include "rfk-airplane-policy.h"
#include "rfk-device.h"
#include "rfk-history.h"

G_BEGIN_DECLS

#define RFK_TYPE_MANAGER (rfk_manager_get_type ())
G_DECLARE_FINAL_TYPE (RfkManager, rfk_manager, RFK, MANAGER, GObject)

typedef enum {
  RFK_MANAGER_STATE_STARTING,      /* not opened yet */
  RFK_MANAGER_STATE_READY,         /* fd open, initial ADDs received */
  RFK_MANAGER_STATE_NO_DEVICE,     /* no /dev/rfkill: waiting for it */
  RFK_MANAGER_STATE_NO_PERMISSION, /* EACCES: see get_error() */
  RFK_MANAGER_STATE_FAILED,        /* other error: see get_error() */
} RfkManagerState;

/* device_path: NULL for /dev/rfkill; may name a SOCK_SEQPACKET socket. */
RfkManager *rfk_manager_new (const char *device_path);

/* Before start: open a device read-only, for listing (writes then fail,
 * as for util-linux `rfkill` without write access). */
void rfk_manager_set_read_only (RfkManager *self, gboolean read_only);

/*
 * Opens the device; on failure the manager keeps retrying as it appears
 * (inotify on the parent directory, no polling).  A char device is READY
 * before this returns (the kernel queues the ADDs inside open()); a socket
 * becomes READY when its peer's status packet ends the initial ADDs (or
 * after a second without events, for a peer that sends none).  Writes to
 * a socket are answered by status packets (rfk-protocol.h).
 */
void rfk_manager_start (RfkManager *self);

RfkManagerState rfk_manager_get_state (RfkManager *self);
/* What a person reads while no radio is listed, translated ("Looking for
 * radios…", "No rfkill support on this system", ...): the menu's status
 * line and the tray item's description say the same. */
const char *rfk_manager_state_describe (RfkManagerState state);
/* Describes NO_DEVICE / NO_PERMISSION / FAILED; NULL when ready. */
const GError *rfk_manager_get_error (RfkManager *self);
const char *rfk_manager_get_device_path (RfkManager *self);

/* Devices sorted by type then name; container owned by the manager. */
GPtrArray *rfk_manager_get_devices (RfkManager *self);
RfkDevice *rfk_manager_lookup (RfkManager *self, guint32 idx);

/* Block or unblock one radio.  Completes once the kernel confirmed it. */
void rfk_manager_set_blocked_async (RfkManager *self, guint32 idx,
                                    gboolean blocked,
                                    GCancellable *cancellable,
                                    GAsyncReadyCallback callback,
                                    gpointer user_data);
gboolean rfk_manager_set_blocked_finish (RfkManager *self,
                                         GAsyncResult *result,
                                         GError **error);
/* The opposite of the state the requests before this one leave the
 * radio in (a menu click).  Finish with rfk_manager_set_blocked_finish. */
void rfk_manager_toggle_blocked_async (RfkManager *self, guint32 idx,
                                       GCancellable *cancellable,
                                       GAsyncReadyCallback callback,
                                       gpointer user_data);

/* Every radio of type (gsd's BluetoothAirplaneMode, WwanAirplaneMode),
 * in one request: each radio is judged by the state the requests before
 * this one leave it in.  Completes once the kernel confirmed them all
 * (at once when there is nothing to change). */
void rfk_manager_set_type_blocked_async (RfkManager *self, guint type,
                                         gboolean blocked,
                                         GCancellable *cancellable,
                                         GAsyncReadyCallback callback,
                                         gpointer user_data);
gboolean rfk_manager_set_type_blocked_finish (RfkManager *self,
                                              GAsyncResult *result,
                                              GError **error);

/*
 * Airplane mode: on when at least one radio of the counted types exists
 * and all of them are blocked.  Turning it on remembers every radio's soft
 * state (by stable identity, persisted under $XDG_STATE_HOME/rfkill-applet/)
 * and sets the kernel's global state of the counted types, so radios that
 * appear later come up blocked; turning it off restores them.  Completes
 * when the kernel confirmed.  The policy is rfk-airplane-policy.h.
 */
gboolean rfk_manager_get_airplane_mode (RfkManager *self);
/* What airplane mode will be once our writes in flight are done: what
 * a toggle toggles from. */
gboolean rfk_manager_get_airplane_mode_wanted (RfkManager *self);
void rfk_manager_set_airplane_mode_async (RfkManager *self, gboolean enabled,
                                          GCancellable *cancellable,
                                          GAsyncReadyCallback callback,
                                          gpointer user_data);
gboolean rfk_manager_set_airplane_mode_finish (RfkManager *self,
                                               GAsyncResult *result,
                                               GError **error);
/* The opposite of airplane mode as the requests before this one leave it
 * (rfk_manager_get_airplane_mode_wanted()); out_enabled: the state it
 * asked for.  These two and set_airplane_mode are the one way in for
 * every door (RULES.md): identical requests in a row join. */
void rfk_manager_toggle_airplane_mode_async (RfkManager *self,
                                             GCancellable *cancellable,
                                             GAsyncReadyCallback callback,
                                             gpointer user_data);
gboolean rfk_manager_toggle_airplane_mode_finish (RfkManager *self,
                                                  GAsyncResult *result,
                                                  gboolean *out_enabled,
                                                  GError **error);

/* Why the restore list cannot be used (corrupt: moved aside and named;
 * unreadable), NULL when fine.  See "airplane-error-changed". */
const GError *rfk_manager_get_airplane_error (RfkManager *self);

/* Bit (1 << RfkType) per counted type; default: every type.  Changed
 * while airplane mode holds, the radios now counted are blocked too. */
/* Ends the exception of radio idx (RULES.md, "Exceptions"): it takes
 * part in airplane mode again, and while airplane mode holds it is
 * remembered and blocked like the others.  TRUE also when it was none. */
gboolean rfk_manager_remove_exception (RfkManager *self, guint32 idx,
                                       GError **error);

void rfk_manager_set_airplane_types (RfkManager *self, guint32 type_mask);
guint32 rfk_manager_get_airplane_types (RfkManager *self);

/*
 * The resume guard (RULES.md, "Suspend and resume"): radios that are off
 * when the system goes to sleep stay off after it wakes, whoever turns
 * them on in the first seconds (a driver, BlueZ, a sleep script), unless
 * a caller asks for them.  On by default; the "keep-radio-states"
 * setting.  Feed it logind's PrepareForSleep: TRUE before sleep, FALSE
 * after resume.  "radio-kept-off" tells what it did.
 */
void rfk_manager_set_keep_radio_states (RfkManager *self, gboolean keep);
gboolean rfk_manager_get_keep_radio_states (RfkManager *self);
void rfk_manager_prepare_for_sleep (RfkManager *self, gboolean sleeping);
/* TRUE while any radio is hard-blocked by a switch (SIGNAL reason). */
gboolean rfk_manager_get_hardware_blocked (RfkManager *self);

/*
 * The history (rfk-history.h): with one set, every radio change the
 * manager sees is added to it, with what made it, once its sweep is over
 * (rfk-manager-history.c).  Doors name themselves just before they
 * start a request: the next caller's request made is theirs (by: a
 * process name, or NULL).  A request nobody named is the applet's.
 */
void rfk_manager_set_history (RfkManager *self, RfkHistory *history);
RfkHistory *rfk_manager_get_history (RfkManager *self);
void rfk_manager_name_next_request (RfkManager *self, RfkCause cause,
                                    const char *by);
/* NetworkManager switched its own switch for these types (bits 1 << type)
 * on or off without our asking: Wi-Fi or WWAN changes that way close to
 * now are its. */
void rfk_manager_note_networkmanager (RfkManager *self, guint32 type_mask,
                                      gboolean enabled);

/* Counters of what the reader dropped, for diagnostics and tests. */
typedef struct {
  guint64 events;      /* events decoded and applied */
  guint64 short_reads; /* reads shorter than the V1 event: ignored */
  guint64 unknown_ops; /* ops we do not know: ignored */
} RfkManagerStats;
void rfk_manager_get_stats (RfkManager *self, RfkManagerStats *out_stats);

/* Last state of the airplane light (the laptop's airplane-mode LED) the
 * kernel announced (op 5 event); FALSE until one arrives.  Who drives it
 * lives in rfk-led-controller.h (src/system). */
gboolean rfk_manager_get_airplane_light (RfkManager *self);

G_END_DECLS

/*
 * Signals:
 *  "device-added"            (RfkDevice *device)
 *  "device-removed"          (RfkDevice *device)  still valid in handlers
 *  "device-changed"          (RfkDevice *device)  soft/hard/reasons changed
 *  "hardware-switch-changed" (RfkDevice *device, gboolean hard)
 *                            hard state flipped after the initial ADD
 *  "airplane-mode-changed"   (gboolean enabled)
 *  "airplane-mode-ended-elsewhere" ()  another program turned every
 *                            radio on; the ones off before are off again
 *  "airplane-mode-entered-elsewhere" ()  another program (or the key)
 *                            turned every radio off; the states from
 *                            before are the list, for airplane mode off
 *  "radio-kept-off"          (RfkDevice *device, gboolean gave_up)
 *                            after resume, another program turned on a
 *                            radio that was off: switched off again (once
 *                            per radio and resume), or, gave_up, left on
 *                            because it was turned on again after a retry
 *  "airplane-light-changed"  (gboolean lit)
 *  "airplane-error-changed"  ()  see rfk_manager_get_airplane_error()
 *  "state-changed"           ()  see rfk_manager_get_state()
 */

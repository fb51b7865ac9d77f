/*
 * rfk-manager-private.h: RfkManager's internals, shared by the files it
 * is split into.  Not for the UI; tests' seams are rfk-manager-testing.h.
 *
 *   rfk-manager.c             the GObject, state, signals, the public
 *                             API but for ...
 *   rfk-manager-radio-api.c   ... the entry points for a radio or a type
 *   rfk-manager-model.c       the table of radios, tallies, airplane mode,
 *                             the signal ids
 *   rfk-manager-events.c      decoding events into the model, batches
 *   rfk-manager-connection.c  open, watch, read the fd
 *   rfk-manager-requests.c    pending writes, confirmation, supersession
 *   rfk-manager-writes.c      what we wrote that the kernel has yet to
 *                             report
 *   rfk-manager-list.c        the restore list on disk, plans made from it
 *   rfk-manager-airplane.c    carries out airplane-mode requests
 *   rfk-manager-others.c      what other programs do: sweeps, airplane
 *                             mode entered or ended elsewhere, newcomers
 *   rfk-manager-resume.c      radios the user had off stay off across
 *                             suspend
 *   rfk-manager-history.c     what made each change, for the history
 *   rfk-manager-testing.c     the seams of rfk-manager-testing.h
 *
 * Each field of the struct below is written by the file its section
 * names; any of them may read it.
 *
 * Calls go one way, down this order: rfk-manager-radio-api.c,
 * rfk-manager.c; events; the others, the resume guard, airplane mode;
 * the list; requests; at the bottom the model, our writes, the history
 * and the connection.  A file reports up through RfkManagerHooks or a signal,
 * never by calling a file above it (src/README.md: no circles).
 *
 * Single-threaded: everything runs on the main context the manager was
 * started from.
 */
#pragma once

#include "rfk-airplane-policy.h"
#include "rfk-airplane-store.h"
#include "rfk-event.h"
#include "rfk-history.h"
#include "rfk-manager.h"
#include "rfk-manager-testing.h"
#include "rfk-state-file.h"

G_BEGIN_DECLS

typedef struct _Request Request;

/* A radio the resume guard watches that came on in this batch.  It
 * counts as off until the end of the batch only if airplane mode held
 * when it came on: otherwise counting it off could make airplane mode
 * seem to begin (rfk-manager-resume.c). */
typedef struct {
  guint32 idx;
  gboolean held;
} RfkResumePending;

typedef enum {
  REQUEST_SET_BLOCKED,
  REQUEST_SET_TYPE,       /* every radio of one type (gsd's properties) */
  REQUEST_AIRPLANE_ON,
  REQUEST_AIRPLANE_OFF,
  REQUEST_ENFORCE,        /* ours, no caller: keep airplane mode holding */
  REQUEST_ORPHANS,        /* ours, no caller: writes nobody waits for */
} RequestKind;

/* How the files RfkManager is made of report back to the ones above
 * them, so that no file calls up into one that uses it (src/README.md:
 * no circles).  rfk-manager.c fills them in. */
typedef struct {
  /* rfk-manager-connection.c: a packet read, the end of one drain, the
   * connection's state, and the device gone (before the state says why). */
  void (*packet) (RfkManager *self, const guint8 *buf, gsize len);
  void (*batch_end) (RfkManager *self);
  void (*state) (RfkManager *self, RfkManagerState state, GError *error);
  void (*closed) (RfkManager *self, const GError *reason);
  /* rfk-manager-requests.c: an airplane request is over (its list is
   * spent); radios refused a request, so the list may no longer hold. */
  void (*airplane_done) (RfkManager *self, RequestKind kind);
  void (*refused) (RfkManager *self);
  /* rfk-manager-model.c: airplane mode ended with a radio on. */
  void (*airplane_ended) (RfkManager *self);
} RfkManagerHooks;

struct _RfkManager
{
  GObject parent_instance;

  /* ---- rfk-manager.c: what it was made with, and its state. */
  char *device_path;      /* /dev/rfkill, or a fake kernel's socket */
  gboolean read_only;     /* opened for listing only: no writes */
  RfkManagerState state;
  GError *error;
  guint32 airplane_types; /* the types airplane mode counts */
  RfkManagerTiming timing;
  const RfkManagerHooks *hooks;

  /* ---- rfk-manager-connection.c: the fd. */
  int fd;                 /* -1 while not open */
  gboolean is_socket;
  guint read_source;
  guint settle_source;
  gboolean awaiting_list_end; /* sockets: next status ends the ADDs */
  GFileMonitor *monitor;  /* only while waiting for the device */

  /* ---- rfk-manager-model.c: the radios and what is derived from them
   * (rfk-manager-events.c adds radios and notes the light and stats).
   * devices owns the RfkDevice; sorted borrows them. */
  GHashTable *devices;    /* GUINT_TO_POINTER (idx) -> RfkDevice */
  GPtrArray *sorted;      /* by type, then name */
  /* Tallies over the model, kept up to date on every ADD, DEL and CHANGE
   * (and recounted when airplane_types changes), so that no event has to
   * walk every radio (rfk_manager_tally()). */
  guint n_counted;        /* radios of a type airplane mode counts */
  guint n_counted_on;     /* ... neither soft- nor hard-blocked */
  guint n_counted_soft_only; /* ... soft-blocked and not hard-blocked */
  guint n_switch_blocked; /* any type: hard-blocked by a switch */
  gboolean airplane_mode; /* last value announced */
  gboolean airplane_light;/* the kernel's airplane-mode LED (op 5) */
  RfkManagerStats stats;

  /* ---- rfk-manager-events.c: the current batch, one drain of the fd.
   * Decisions about other programs wait for its end, because `rfkill
   * unblock all` arrives as one CHANGE per radio. */
  gboolean in_batch;
  /* The batch holds a change that is not ours (another program's, a
   * switch's, a radio added): only then are airplane-mode decisions
   * about other programs taken.  Ours alone ending airplane mode is the
   * user's request, which no decision may undo.  rfk-manager-others.c
   * clears it once it has decided. */
  gboolean others_in_batch;

  /* ---- rfk-manager-others.c: what other programs do.
   * The soft states from before the current sweep: changes that follow
   * one another within SWEEP_MS, however many reads they take (the key's
   * switch wakes us after its first CHANGE). */
  GHashTable *sweep_before;   /* idx -> GINT (soft before the sweep + 1) */
  gint64 sweep_last_change;   /* monotonic µs of the sweep's last change */
  gboolean sweep_in_batch;    /* the current batch already swept */
  /* Airplane mode flapping under other programs' changes (a storm): a
   * decision about them within FLAP_QUIET_MS of the last one waits until
   * their changes have been quiet that long, and is taken once. */
  gint64 last_decision_us;    /* the last entered/ended decision */
  guint flap_source;          /* the deferred decision, 0 if none */
  /* Set by rfk-manager-model.c when airplane mode flips in a batch with
   * changes of others in it. */
  gboolean ended_in_batch;    /* airplane mode ended, not by us */
  gboolean entered_in_batch;  /* airplane mode began, not by us */
  /* Airplane mode ended elsewhere but not every counted radio is on yet:
   * the rest of `rfkill unblock all` or of the key's switch may come in
   * later reads (the kernel wakes us after the first CHANGE).  Decided
   * when every counted radio is on, or when this one-shot timeout says
   * the user switched radios by hand. */
  guint ended_settle_source;
  /* idx set: plugged in during airplane mode (a radio removed leaves it;
   * rfk-manager-airplane.c empties it when the list is spent). */
  GHashTable *newcomers;
  /* idx list: newcomers another program turned on in this batch, kept
   * off at its end if the rest of the batch left the others off. */
  GArray *newcomers_on;

  /* ---- rfk-manager-resume.c: the resume guard. */
  gboolean keep_radio_states; /* the setting */
  /* From PrepareForSleep(true) to the end of the window after resume:
   * stable key -> GUINT (the guard's writes so far + 1) of the radios
   * that were off. */
  gboolean resume_watch;
  GHashTable *asleep_off;
  guint resume_source;        /* ends the window */
  /* RfkResumePending list: radios on asleep_off that came on in this
   * batch, decided at its end. */
  GArray *resume_on;
  gboolean resume_changed_in_batch; /* one came on by a CHANGE, not ADD */

  /* ---- rfk-manager.c: what callers tell it for the history.
   * rfk-manager-requests.c takes next_cause and next_by into the next
   * caller's request and resets them. */
  RfkHistory *history;        /* NULL: nobody keeps one */
  RfkCause next_cause;        /* the door of the next caller's request */
  char *next_by;              /* ... and its process, or NULL */
  gint64 nm_changed_us;       /* NetworkManager changed its switch */
  guint32 nm_types;           /* ... of these types */
  gboolean nm_enabled;        /* ... to on */

  /* ---- rfk-manager-history.c: what made each change. */
  GPtrArray *history_notes;   /* this sweep's changes, in order */
  guint history_source;       /* the sweep is over */
  gint64 resumed_us;          /* the last resume (rfk-manager-resume.c) */

  /* ---- rfk-manager-list.c: the restore list. */
  GError *airplane_error;     /* the restore list is corrupt/unreadable */
  /* A corrupt list moved aside whose marker could not be saved: the list
   * is unknown all the same, so this process remembers it, until
   * airplane mode is turned on again (rfk-manager-airplane.c). */
  char *unrecorded_copy;

  /* ---- rfk-manager-requests.c: pending writes.  Every idx is claimed
   * by at most one request: a newer request for the same radio
   * supersedes.  rfk-manager-connection.c queues the status of the op-5
   * opt-in it sends. */
  GList *requests;        /* Request *, live ones */
  GHashTable *claims;     /* GUINT_TO_POINTER (idx) -> Request * */
  GQueue status_waiters;  /* sockets: request id per write awaiting status */
  guint next_request_id;
  /* The newest request a caller made (radio, type or airplane mode): an
   * airplane request joins one in flight only while it is this one. */
  guint newest_caller_request;
  guint airplane_ops;     /* airplane requests in flight */

  /* ---- rfk-manager-writes.c: what we wrote, until the kernel reports
   * it (rfk-manager.c makes and frees the tables).  What we last wrote
   * per radio: a superseded request's write still lands, so it must be
   * known. */
  GHashTable *inflight;   /* GUINT_TO_POINTER (idx) -> GINT (soft + 1) */
  /* Our state-changing writes per idx not yet seen as events, coded as
   * rfk_manager_writes_note() says. */
  GHashTable *written;
};

struct _Request
{
  RfkManager *self;
  guint id;               /* never reused, unlike the pointer */
  RequestKind kind;
  GTask *task;            /* NULL for REQUEST_ENFORCE */
  GHashTable *wanted;     /* idx -> GINT_TO_POINTER (soft + 1) */
  guint timeout_source;
  GSource *cancel_source;
  gboolean refused;       /* timed out on radios that refused */
  /* Its door, for the history: a caller's is named by
   * rfk_manager_name_next_request(); ours say which rule made them. */
  RfkCause cause;
  char *by;               /* the caller's process, or NULL */
  /* Callers of the same airplane change who came after the first, or
   * whose request a newer one for the same state took over: each gets
   * this request's outcome (GTask *, owned). */
  GPtrArray *joined;
};

/* How many callers may wait on one airplane request besides its own; the
 * next identical one is refused with G_IO_ERROR_BUSY (RULES.md). */
#define RFK_MAX_JOINED 1024

enum {
  SIGNAL_DEVICE_ADDED,
  SIGNAL_DEVICE_REMOVED,
  SIGNAL_DEVICE_CHANGED,
  SIGNAL_HARDWARE_SWITCH_CHANGED,
  SIGNAL_AIRPLANE_MODE_CHANGED,
  SIGNAL_AIRPLANE_ENDED_ELSEWHERE,
  SIGNAL_AIRPLANE_ENTERED_ELSEWHERE,
  SIGNAL_RADIO_KEPT_OFF,
  SIGNAL_AIRPLANE_LIGHT_CHANGED,
  SIGNAL_AIRPLANE_ERROR_CHANGED,
  SIGNAL_STATE_CHANGED,
  N_SIGNALS
};
extern guint rfk_manager_signals[N_SIGNALS];

/* rfk-manager.c */
void rfk_manager_set_state (RfkManager *self, RfkManagerState state,
                            GError *error);
/* TRUE if ready; else returns the manager's error on task. */
gboolean rfk_manager_check_ready (RfkManager *self, GTask *task);

/* rfk-manager-model.c */
void rfk_manager_device_free (RfkDevice *device);
/* rfk_manager_lookup() without the type check, for the files below it. */
RfkDevice *rfk_manager_device_at (RfkManager *self, guint32 idx);
void rfk_manager_insert_sorted (GPtrArray *sorted, RfkDevice *device);
/* device did not reach soft: leave it out until it next changes. */
/* Makes device an exception or ends it, on disk too; the tallies follow,
 * airplane mode is the caller's to update. */
void rfk_manager_mark_exception (RfkManager *self, RfkDevice *device,
                                 gboolean exception);
void rfk_manager_mark_refused (RfkManager *self, RfkDevice *device,
                               gboolean soft);
void rfk_manager_update_airplane_mode (RfkManager *self);
/* Adds (sign 1) or takes out (sign -1) device's share of the tallies. */
void rfk_manager_tally (RfkManager *self, const RfkDevice *device, int sign);
void rfk_manager_retally (RfkManager *self);
gboolean rfk_manager_compute_airplane_mode (RfkManager *self,
                                            guint *out_unblocked);
/* Every counted radio but device is blocked, or being blocked by our
 * enforcement (radios the resume guard has yet to decide about count as
 * what they are). */
gboolean rfk_manager_others_blocked (RfkManager *self, RfkDevice *device);
/* The radio's soft state as the requests in flight leave it. */
gboolean rfk_manager_soft_leaves (RfkManager *self, RfkDevice *device);

/* rfk-manager-events.c */
void rfk_manager_remove_device (RfkManager *self, RfkDevice *device);
void rfk_manager_remove_all_devices (RfkManager *self);
void rfk_manager_process (RfkManager *self, const guint8 *buf, gsize len);
void rfk_manager_batch_end (RfkManager *self);

/* rfk-manager-connection.c */
void rfk_manager_try_open (RfkManager *self);
void rfk_manager_close_device (RfkManager *self, GError *reason);
void rfk_manager_connection_dispose (RfkManager *self);
/* The status packet that ends a socket peer's initial ADDs: TRUE if buf
 * was that one. */
gboolean rfk_manager_connection_take_list_end (RfkManager *self);
/* The airplane key's next press blocks every radio again
 * (RFKILL_IOCTL_AIRPLANE_MODE_KEY_RESET); a kernel without our module
 * or a peer without it says no, which changes nothing. */
void rfk_manager_connection_reset_key (RfkManager *self);

/* rfk-manager-requests.c.  rfk_request_* act on one request,
 * rfk_requests_* on the manager's requests as a whole. */
Request *rfk_request_new (RfkManager *self, RequestKind kind,
                          GCancellable *cancellable,
                          GAsyncReadyCallback callback, gpointer user_data,
                          gpointer source_tag);
gboolean rfk_request_want (Request *request, RfkDevice *device,
                           gboolean soft);
gboolean rfk_request_apply_plan (Request *request,
                                 const RfkAirplanePlan *plan);
void rfk_request_commit (Request *request);
void rfk_request_finish (Request *request, GError *error);
void rfk_requests_check_confirmed (RfkManager *self, guint32 idx,
                                   RfkDevice *device);
void rfk_requests_status (RfkManager *self, int status);
void rfk_requests_fail_all (RfkManager *self, const char *message);
/* Requests of another airplane change are superseded as a whole.  The
 * callers of one for the same state (kind) move to handover, to be given
 * the newer request's outcome; the others are told "Superseded".  TRUE if
 * one of them was "off". */
gboolean rfk_requests_supersede_airplane (RfkManager *self, RequestKind kind,
                                          GPtrArray *handover);
/* The airplane request of kind that a new identical one may join: live,
 * and no caller's request came after it.  NULL if none. */
/* Some live request is of kind. */
gboolean rfk_requests_has_kind (RfkManager *self, RequestKind kind);
Request *rfk_requests_joinable (RfkManager *self, RequestKind kind);
/* Writes still in flight that no request waits for any more (their
 * request was superseded and the next one failed at once) get a request
 * of their own, so that a radio that refuses is still found out. */
void rfk_requests_adopt_orphans (RfkManager *self);
void rfk_requests_free_all (RfkManager *self);

/* rfk-manager-writes.c */
void rfk_manager_writes_note (RfkManager *self, guint32 idx, gboolean soft);
/* TRUE if the kernel reporting idx in state soft is the next of our
 * writes to land (then it is taken off). */
gboolean rfk_manager_writes_take_ours (RfkManager *self, guint32 idx,
                                       gboolean soft);
void rfk_manager_writes_reported (RfkManager *self, guint32 idx,
                                  RfkDevice *device);
void rfk_manager_writes_forget (RfkManager *self, guint32 idx);
void rfk_manager_writes_forget_all (RfkManager *self);

/* rfk-manager-list.c.  Decisions that read the list and may write it
 * hold the state lock from the read to the write (rfk-state-file.h). */
gboolean rfk_manager_list_lock (RfkManager *self, RfkStateLock **out_lock,
                                GError **error);
/* For decisions no caller waits for: a failure is said, and left to the
 * next event. */
gboolean rfk_manager_list_lock_or_warn (RfkManager *self,
                                        RfkStateLock **out_lock);
/* The restore list, or NULL with error set (and shown to the user). */
RfkAirplaneStore *rfk_manager_list_load (RfkManager *self, GError **error);
/* Under the lock (a failure is said), the list if it is active and
 * intact; NULL otherwise: nothing to do. */
RfkAirplaneStore *rfk_manager_list_load_active (RfkManager *self,
                                                RfkStateLock **out_lock);
void rfk_manager_list_save (RfkManager *self, const RfkAirplaneStore *store);
void rfk_manager_list_set_error (RfkManager *self, GError *error);
GError *rfk_manager_list_corrupt_error (const RfkAirplaneStore *store);
/* The policy's plan for event on the model (soft states from before the
 * sweep with before_batch) and store. */
RfkAirplanePlan *rfk_manager_list_plan (RfkManager *self,
                                        RfkPolicyEvent event,
                                        const RfkAirplaneStore *store,
                                        gboolean before_batch);
/* Carries out a plan of ours that no caller waits for. */
void rfk_manager_list_enforce (RfkManager *self, const RfkAirplanePlan *plan);
/* Airplane mode as our writes in flight will leave it. */
gboolean rfk_manager_airplane_wanted (RfkManager *self);

/* rfk-manager-airplane.c */
void rfk_manager_airplane_start (RfkManager *self, Request *request,
                                 gboolean enabled);
void rfk_manager_airplane_finished (RfkManager *self, RequestKind kind);
void rfk_manager_airplane_on_ready (RfkManager *self);
void rfk_manager_airplane_types_changed (RfkManager *self);
/* After a refusal: a list whose airplane mode no longer holds while a
 * radio is on is dropped, as when the user switched radios by hand. */
void rfk_manager_airplane_drop_stale (RfkManager *self);
/* The list is spent: an active one is replaced by an empty one. */
void rfk_manager_airplane_forget_list (RfkManager *self);
/* Around a request for single radios: begin returns what end needs. */
/* Radios a request is about to turn on: while airplane mode holds with
 * the list active, they become exceptions (RULES.md). */
void rfk_manager_airplane_spare (RfkManager *self, GPtrArray *devices);
gboolean rfk_manager_airplane_request_begin (RfkManager *self);
void rfk_manager_airplane_request_end (RfkManager *self,
                                       gboolean held_before);

/* rfk-manager-others.c */
void rfk_manager_airplane_radio_added (RfkManager *self, RfkDevice *device);
void rfk_manager_airplane_radio_changed (RfkManager *self,
                                         RfkDevice *device,
                                         gboolean soft_before,
                                         gboolean ours);
void rfk_manager_airplane_batch_newcomers (RfkManager *self);
void rfk_manager_airplane_batch_end (RfkManager *self);
void rfk_manager_airplane_cancel_settle (RfkManager *self);
void rfk_manager_airplane_init_timing (RfkManager *self);

/* rfk-manager-history.c */
void rfk_manager_history_init (RfkManager *self);
void rfk_manager_history_dispose (RfkManager *self);
void rfk_manager_history_finalize (RfkManager *self);
/* device changed from before; ours: one of our writes landed (before
 * the request it belongs to is told). */
void rfk_manager_history_note (RfkManager *self, const RfkDevice *device,
                               const RfkDevice *before, gboolean ours);
/* The sweep is over: what it held goes to the history. */
void rfk_manager_history_flush (RfkManager *self);

/* rfk-manager-resume.c; rfk-manager.c's public methods call the first
 * three. */
void rfk_manager_resume_set_keep (RfkManager *self, gboolean keep);
void rfk_manager_resume_sleep (RfkManager *self, gboolean sleeping);
void rfk_manager_resume_end_watch (RfkManager *self);
void rfk_manager_resume_init (RfkManager *self);
void rfk_manager_resume_dispose (RfkManager *self);
void rfk_manager_resume_finalize (RfkManager *self);
/* A caller's request names these radios: the guard leaves them alone. */
void rfk_manager_resume_forget (RfkManager *self, RfkDevice *device);
void rfk_manager_resume_forget_type (RfkManager *self, guint type);
void rfk_manager_resume_forget_all (RfkManager *self);
void rfk_manager_resume_radio_added (RfkManager *self, RfkDevice *device);
void rfk_manager_resume_radio_changed (RfkManager *self, RfkDevice *device,
                                       gboolean soft_before, gboolean ours);
void rfk_manager_resume_radio_removed (RfkManager *self, guint32 idx);
/* Called while the batch is still open, after the newcomers. */
void rfk_manager_resume_batch_end (RfkManager *self);

G_END_DECLS

/*
 * rfk-manager.c: the model of every radio behind /dev/rfkill.
 *
 * Single-threaded: everything runs on the main context the manager was
 * started from.  Writes complete when the kernel's confirming event comes
 * in, not when write() returns, because another program may change the
 * same radio in between.
 */
#include "config.h"

#include "rfk-manager.h"
#include "rfk-manager-private.h"

#include <errno.h>
#include <glib-unix.h>
#include <glib/gi18n.h>
#include <unistd.h>

#include "rfk-airplane-store.h"
#include "rfk-event.h"
#include "rfk-transport.h"

/* How long the kernel may take to confirm a change. */
#define CONFIRM_TIMEOUT_MS 5000
/* A socket peer sends its ADDs after accept(), not before connect()
 * returns, so for sockets "initial ADDs done" means quiet this long. */
/* For a socket peer that never marks the end of its initial ADDs. */
#define SOCKET_SETTLE_MS 1000
/* A relay that never sends status packets must not make us hoard. */
#define MAX_STATUS_WAITERS 64

typedef struct _Request Request;

struct _RfkManager
{
  GObject parent_instance;

  char *device_path;
  RfkManagerState state;
  GError *error;

  int fd;                 /* -1 while not open */
  gboolean is_socket;
  guint read_source;
  guint settle_source;
  gboolean awaiting_list_end; /* sockets: next status ends the ADDs */
  GFileMonitor *monitor;  /* only while waiting for the device */

  /* The model.  devices owns the RfkDevice; sorted borrows them. */
  GHashTable *devices;    /* GUINT_TO_POINTER (idx) -> RfkDevice */
  GPtrArray *sorted;      /* by type, then name */
  guint32 airplane_types;
  gboolean airplane_mode; /* last value announced */
  gboolean indicator;
  RfkManagerStats stats;

  /* Pending writes.  Every idx is claimed by at most one request: a newer
   * request for the same radio supersedes the older one. */
  GList *requests;        /* Request *, live ones */
  GHashTable *claims;     /* GUINT_TO_POINTER (idx) -> Request * */
  /* What we last wrote per radio until the kernel reports that state:
   * a superseded request's write still lands, so it must be known. */
  GHashTable *inflight;   /* GUINT_TO_POINTER (idx) -> GINT (soft + 1) */
  GQueue status_waiters;  /* sockets: request id per write awaiting status */
  guint next_request_id;
  guint airplane_ops;     /* airplane requests in flight */
};

typedef enum {
  REQUEST_SET_BLOCKED,
  REQUEST_AIRPLANE_ON,
  REQUEST_AIRPLANE_OFF,
  REQUEST_ENFORCE,        /* block a radio hot-plugged in airplane mode */
} RequestKind;

struct _Request
{
  RfkManager *self;
  guint id;               /* never reused, unlike the pointer */
  RequestKind kind;
  GTask *task;            /* NULL for REQUEST_ENFORCE */
  GHashTable *wanted;     /* idx -> GINT_TO_POINTER (soft + 1) */
  guint timeout_source;
  GSource *cancel_source;
};

enum {
  SIGNAL_DEVICE_ADDED,
  SIGNAL_DEVICE_REMOVED,
  SIGNAL_DEVICE_CHANGED,
  SIGNAL_HARDWARE_SWITCH_CHANGED,
  SIGNAL_AIRPLANE_MODE_CHANGED,
  SIGNAL_INDICATOR_CHANGED,
  SIGNAL_STATE_CHANGED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (RfkManager, rfk_manager, G_TYPE_OBJECT)

static void try_open (RfkManager *self);
static void update_airplane_mode (RfkManager *self);

/* ---- devices ---------------------------------------------------------- */

static void
device_free (RfkDevice *device)
{
  g_free (device->name);
  g_free (device);
}

static char *
read_sysfs_name (guint32 idx)
{
  const char *root = g_getenv ("RFKILL_SYSFS_ROOT");
  g_autofree char *dir = g_strdup_printf ("rfkill%u", idx);
  g_autofree char *path = NULL;
  g_autofree char *contents = NULL;

  if (root == NULL || *root == '\0')
    root = "/sys/class/rfkill";
  path = g_build_filename (root, dir, "name", NULL);
  if (!g_file_get_contents (path, &contents, NULL, NULL))
    return g_steal_pointer (&dir);  /* vanished already: keep the idx */
  g_strchomp (contents);
  if (*contents == '\0' || !g_utf8_validate (contents, -1, NULL))
    return g_steal_pointer (&dir);
  return g_steal_pointer (&contents);
}

static int
compare_devices (gconstpointer a, gconstpointer b)
{
  const RfkDevice *da = *(RfkDevice **) a;
  const RfkDevice *db = *(RfkDevice **) b;
  int r;

  if (da->type != db->type)
    return da->type < db->type ? -1 : 1;
  r = g_strcmp0 (da->name, db->name);
  if (r != 0)
    return r;
  return da->idx < db->idx ? -1 : da->idx > db->idx;
}

static void
insert_sorted (GPtrArray *sorted, RfkDevice *device)
{
  guint lo = 0, hi = sorted->len;

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;

      if (compare_devices (&sorted->pdata[mid], &device) <= 0)
        lo = mid + 1;
      else
        hi = mid;
    }
  g_ptr_array_insert (sorted, lo, device);
}

static gboolean
type_counts (RfkManager *self, guint type)
{
  if (self->airplane_types == RFK_AIRPLANE_TYPES_ALL)
    return TRUE;
  return type < 32 && (self->airplane_types & (1u << type)) != 0;
}

/* Radios being blocked by REQUEST_ENFORCE already count as blocked, so
 * a hot-plugged radio does not make airplane mode blink off and on. */
static gboolean
device_counts_blocked (RfkManager *self, RfkDevice *device)
{
  Request *claim;

  if (rfk_device_is_blocked (device))
    return TRUE;
  claim = g_hash_table_lookup (self->claims, GUINT_TO_POINTER (device->idx));
  return claim != NULL && claim->kind == REQUEST_ENFORCE;
}

static gboolean
compute_airplane_mode (RfkManager *self, guint *out_unblocked)
{
  guint counted = 0, unblocked = 0;

  for (guint i = 0; i < self->sorted->len; i++)
    {
      RfkDevice *device = g_ptr_array_index (self->sorted, i);

      if (!type_counts (self, device->type))
        continue;
      counted++;
      if (!device_counts_blocked (self, device))
        unblocked++;
    }
  if (out_unblocked)
    *out_unblocked = unblocked;
  return counted > 0 && unblocked == 0;
}

static RfkAirplaneStore *
load_store_or_empty (void)
{
  g_autoptr (GError) error = NULL;
  RfkAirplaneStore *store = rfk_airplane_store_load (&error);

  if (store == NULL)
    {
      g_warning ("%s", error->message);
      store = rfk_airplane_store_new ();
    }
  return store;
}

/* ---- requests --------------------------------------------------------- */

static gboolean
request_is_live (RfkManager *self, Request *request)
{
  return g_list_find (self->requests, request) != NULL;
}

static Request *
request_lookup_id (RfkManager *self, guint id)
{
  for (GList *l = self->requests; l != NULL; l = l->next)
    if (((Request *) l->data)->id == id)
      return l->data;
  return NULL;
}

static void
request_release_claims (Request *request)
{
  RfkManager *self = request->self;
  GHashTableIter iter;
  gpointer key;

  g_hash_table_iter_init (&iter, request->wanted);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    if (g_hash_table_lookup (self->claims, key) == request)
      g_hash_table_remove (self->claims, key);
  g_hash_table_remove_all (request->wanted);
}

/* Completes request; takes error.  Re-derives state since claims moved. */
static void
request_finish (Request *request, GError *error)
{
  RfkManager *self = request->self;

  if (!request_is_live (self, request))
    {
      g_clear_error (&error);
      return;
    }
  /* The callback may drop the caller's last reference to us. */
  g_object_ref (self);
  self->requests = g_list_remove (self->requests, request);
  request_release_claims (request);
  g_clear_handle_id (&request->timeout_source, g_source_remove);
  if (request->cancel_source != NULL)
    {
      g_source_destroy (request->cancel_source);
      g_clear_pointer (&request->cancel_source, g_source_unref);
    }
  /* Stale status waiters are recognised by request_is_live(). */
  if (request->kind == REQUEST_AIRPLANE_ON
      || request->kind == REQUEST_AIRPLANE_OFF)
    self->airplane_ops--;

  if (request->kind == REQUEST_AIRPLANE_OFF && error == NULL)
    {
      g_autoptr (RfkAirplaneStore) store = rfk_airplane_store_new ();
      g_autoptr (GError) save_error = NULL;

      /* Restored: forget.  A failure only leaves a stale list behind. */
      if (!rfk_airplane_store_save (store, &save_error))
        g_warning ("%s", save_error->message);
      if (compute_airplane_mode (self, NULL))
        error = g_error_new (G_IO_ERROR, G_IO_ERROR_BUSY,
                             _("Radios stay off: a hardware switch blocks "
                               "them"));
    }

  if (request->task != NULL)
    {
      if (error != NULL)
        g_task_return_error (request->task, error);
      else
        g_task_return_boolean (request->task, TRUE);
      g_clear_object (&request->task);
    }
  else if (error != NULL)
    {
      g_warning (_("Keeping a hot-plugged radio off failed: %s"),
                 error->message);
      g_error_free (error);
    }

  g_hash_table_unref (request->wanted);
  g_free (request);
  update_airplane_mode (self);
  g_object_unref (self);
}

/* The kernel will not confirm what request wrote (it timed out or the
 * write was refused): stop expecting those states. */
static void
request_forget_inflight (Request *request)
{
  GHashTableIter iter;
  gpointer key;

  g_hash_table_iter_init (&iter, request->wanted);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    g_hash_table_remove (request->self->inflight, key);
}

static gboolean
request_timeout_cb (gpointer user_data)
{
  Request *request = user_data;

  request->timeout_source = 0;
  request_forget_inflight (request);
  request_finish (request,
                  g_error_new (G_IO_ERROR, G_IO_ERROR_TIMED_OUT,
                               _("%s did not confirm the change within "
                                 "%d seconds"),
                               request->self->device_path,
                               CONFIRM_TIMEOUT_MS / 1000));
  return G_SOURCE_REMOVE;
}

static gboolean
request_cancelled_cb (GCancellable *cancellable, gpointer user_data)
{
  Request *request = user_data;
  GError *error = NULL;

  g_cancellable_set_error_if_cancelled (cancellable, &error);
  request_finish (request, error);
  return G_SOURCE_REMOVE;
}

static Request *
request_new (RfkManager *self, RequestKind kind, GCancellable *cancellable,
             GAsyncReadyCallback callback, gpointer user_data,
             gpointer source_tag)
{
  Request *request = g_new0 (Request, 1);

  request->self = self;
  request->id = ++self->next_request_id;
  request->kind = kind;
  request->wanted = g_hash_table_new (NULL, NULL);
  if (kind != REQUEST_ENFORCE)
    {
      request->task = g_task_new (self, cancellable, callback, user_data);
      g_task_set_source_tag (request->task, source_tag);
    }
  if (cancellable != NULL)
    {
      request->cancel_source = g_cancellable_source_new (cancellable);
      g_source_set_callback (request->cancel_source,
                             G_SOURCE_FUNC (request_cancelled_cb), request,
                             NULL);
      g_source_attach (request->cancel_source, NULL);
    }
  if (kind == REQUEST_AIRPLANE_ON || kind == REQUEST_AIRPLANE_OFF)
    self->airplane_ops++;
  self->requests = g_list_prepend (self->requests, request);
  return request;
}

/* Asks for one radio's soft state.  Writes only if it differs, so we
 * never rewrite a state somebody else set.  FALSE if request finished. */
static gboolean
request_want (Request *request, RfkDevice *device, gboolean soft)
{
  RfkManager *self = request->self;
  gpointer key = GUINT_TO_POINTER (device->idx);
  Request *previous;
  RfkEvent event;
  GError *error = NULL;

  gpointer pending;
  gboolean in_flight, expected;

  /* With a write in flight the state will still move: compare with
   * where it is going, not with what the kernel reported last. */
  in_flight = g_hash_table_lookup_extended (self->inflight, key, NULL,
                                            &pending);
  expected = in_flight ? GPOINTER_TO_INT (pending) - 1 : device->soft;
  if (!in_flight && device->soft == soft)
    return TRUE;

  previous = g_hash_table_lookup (self->claims, key);
  if (previous != NULL && previous != request)
    {
      g_hash_table_remove (previous->wanted, key);
      g_hash_table_remove (self->claims, key);
      request_finish (previous,
                      g_error_new (G_IO_ERROR, G_IO_ERROR_CANCELLED,
                                   _("Superseded by a newer request for "
                                     "%s"), device->name));
    }
  g_hash_table_insert (request->wanted, key, GINT_TO_POINTER (soft + 1));
  g_hash_table_insert (self->claims, key, request);
  if (expected == soft)
    return TRUE;  /* already asked for: wait for the kernel's event */

  event = rfk_event_change (device->idx, device->type, soft);
  if (!rfk_transport_write (self->fd, self->device_path, &event, &error))
    {
      request_finish (request, error);
      return FALSE;
    }
  /* Like util-linux rfkill: every change we make is on the record. */
  g_info ("%s %s (%s, idx %u) on %s", soft ? "Blocked" : "Unblocked",
          device->name, rfk_type_to_string (device->type)
                          ? rfk_type_to_string (device->type) : "unknown",
          device->idx, self->device_path);
  g_hash_table_insert (self->inflight, key, GINT_TO_POINTER (soft + 1));
  if (self->is_socket)
    {
      g_queue_push_tail (&self->status_waiters,
                         GUINT_TO_POINTER (request->id));
      if (g_queue_get_length (&self->status_waiters) > MAX_STATUS_WAITERS)
        g_queue_pop_head (&self->status_waiters);
    }
  return TRUE;
}

/* Call after the last request_want(): finishes at once if nothing was
 * written, otherwise starts the confirmation timeout. */
static void
request_commit (Request *request)
{
  if (!request_is_live (request->self, request))
    return;
  if (g_hash_table_size (request->wanted) == 0)
    {
      request_finish (request, NULL);
      return;
    }
  request->timeout_source = g_timeout_add (CONFIRM_TIMEOUT_MS,
                                           request_timeout_cb, request);
}

/* The kernel reported idx's state (or its removal when device is NULL). */
static void
request_check_confirmed (RfkManager *self, guint32 idx, RfkDevice *device)
{
  gpointer key = GUINT_TO_POINTER (idx);
  Request *request = g_hash_table_lookup (self->claims, key);
  gpointer wanted;

  if (device == NULL
      || GPOINTER_TO_INT (g_hash_table_lookup (self->inflight, key)) - 1
         == device->soft)
    g_hash_table_remove (self->inflight, key);

  if (request == NULL)
    return;
  wanted = g_hash_table_lookup (request->wanted, key);
  if (device != NULL && GPOINTER_TO_INT (wanted) - 1 != device->soft)
    return;
  g_hash_table_remove (request->wanted, key);
  g_hash_table_remove (self->claims, key);
  if (g_hash_table_size (request->wanted) == 0)
    request_finish (request, NULL);
}

static void
fail_all_requests (RfkManager *self, const char *message)
{
  while (self->requests != NULL)
    request_finish (self->requests->data,
                    g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CLOSED,
                                         message));
  g_queue_clear (&self->status_waiters);
}

/* ---- derived state ---------------------------------------------------- */

static void
update_airplane_mode (RfkManager *self)
{
  guint unblocked;
  gboolean enabled = compute_airplane_mode (self, &unblocked);

  if (enabled == self->airplane_mode)
    return;
  self->airplane_mode = enabled;

  /* Somebody else (rfkill unblock, a key, another applet) switched a
   * radio back on: airplane mode is over, forget the restore list rather
   * than fight them.  Not while our own request runs, and not when the
   * last radio merely went away (it may come back). */
  if (!enabled && unblocked > 0 && self->airplane_ops == 0
      && self->state == RFK_MANAGER_STATE_READY)
    {
      g_autoptr (RfkAirplaneStore) store = load_store_or_empty ();
      g_autoptr (GError) error = NULL;

      if (store->active)
        {
          rfk_airplane_store_clear (store);
          if (!rfk_airplane_store_save (store, &error))
            g_warning ("%s", error->message);
        }
    }
  g_signal_emit (self, signals[SIGNAL_AIRPLANE_MODE_CHANGED], 0, enabled);
}

/* A radio appeared while airplane mode is on (by our restore list): keep
 * it off and remember how it came, so turning airplane mode off gives it
 * back.  Only after the initial ADDs: what happened while we were not
 * running is not ours to undo. */
static void
enforce_airplane_mode (RfkManager *self, RfkDevice *device)
{
  g_autoptr (RfkAirplaneStore) store = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *key = NULL;
  guint unblocked;
  Request *request;

  if (self->state != RFK_MANAGER_STATE_READY || self->airplane_ops > 0
      || !type_counts (self, device->type) || device->soft)
    return;

  /* Airplane mode holds for everything but the newcomer. */
  compute_airplane_mode (self, &unblocked);
  if (unblocked != (rfk_device_is_blocked (device) ? 0 : 1))
    return;

  store = load_store_or_empty ();
  if (!store->active)
    return;
  key = rfk_device_dup_key (device);
  if (!rfk_airplane_store_lookup (store, key, NULL))
    {
      rfk_airplane_store_remember (store, key, FALSE);
      if (!rfk_airplane_store_save (store, &error))
        {
          g_warning ("%s", error->message);
          return;  /* without the record we could not restore it */
        }
    }

  request = request_new (self, REQUEST_ENFORCE, NULL, NULL, NULL, NULL);
  if (request_want (request, device, TRUE))
    request_commit (request);
}

/* ---- events ----------------------------------------------------------- */

static void
remove_device (RfkManager *self, RfkDevice *device)
{
  guint32 idx = device->idx;

  g_ptr_array_remove (self->sorted, device);
  g_hash_table_steal (self->devices, GUINT_TO_POINTER (idx));
  g_signal_emit (self, signals[SIGNAL_DEVICE_REMOVED], 0, device);
  device_free (device);
  request_check_confirmed (self, idx, NULL);
}

static void
apply_state (RfkDevice *device, const RfkEvent *event)
{
  device->soft = event->soft;
  device->hard = event->hard;
  /* V1 kernels have no reasons; a cleared hard block has none. */
  device->hard_reasons = event->hard && event->has_reasons
                           ? event->hard_reasons : 0;
}

static void
handle_add (RfkManager *self, const RfkEvent *event)
{
  RfkDevice *device = g_hash_table_lookup (self->devices,
                                           GUINT_TO_POINTER (event->idx));

  /* The kernel reuses indexes only after DEL, but a relay may resend. */
  if (device != NULL)
    remove_device (self, device);

  device = g_new0 (RfkDevice, 1);
  device->idx = event->idx;
  device->type = event->type;
  device->name = read_sysfs_name (event->idx);
  apply_state (device, event);
  g_hash_table_insert (self->devices, GUINT_TO_POINTER (device->idx),
                       device);
  insert_sorted (self->sorted, device);

  g_signal_emit (self, signals[SIGNAL_DEVICE_ADDED], 0, device);
  enforce_airplane_mode (self, device);
  update_airplane_mode (self);
}

static void
handle_change (RfkManager *self, const RfkEvent *event)
{
  RfkDevice *device = g_hash_table_lookup (self->devices,
                                           GUINT_TO_POINTER (event->idx));
  RfkDevice before;

  if (device == NULL)
    return;  /* raced with DEL, or never announced: nothing to update */

  before = *device;
  apply_state (device, event);
  if (before.soft == device->soft && before.hard == device->hard
      && before.hard_reasons == device->hard_reasons)
    return;

  g_signal_emit (self, signals[SIGNAL_DEVICE_CHANGED], 0, device);
  if (before.hard != device->hard)
    g_signal_emit (self, signals[SIGNAL_HARDWARE_SWITCH_CHANGED], 0, device,
                   device->hard);
  /* The handlers may have removed it (they should not, but be safe). */
  device = g_hash_table_lookup (self->devices, GUINT_TO_POINTER (event->idx));
  if (device != NULL)
    request_check_confirmed (self, event->idx, device);
  update_airplane_mode (self);
}

static void
handle_event (RfkManager *self, const RfkEvent *event)
{
  RfkDevice *device;

  switch (event->op)
    {
    case RFK_OP_ADD:
      handle_add (self, event);
      break;
    case RFK_OP_DEL:
      device = g_hash_table_lookup (self->devices,
                                    GUINT_TO_POINTER (event->idx));
      if (device != NULL)
        {
          remove_device (self, device);
          update_airplane_mode (self);
        }
      break;
    case RFK_OP_CHANGE:
      handle_change (self, event);
      break;
    case RFK_OP_INDICATOR_CHANGE:
      if (self->indicator != event->soft)
        {
          self->indicator = event->soft;
          g_signal_emit (self, signals[SIGNAL_INDICATOR_CHANGED], 0,
                         self->indicator);
        }
      break;
    default:
      /* CHANGE_ALL is never sent to readers; newer ops are not ours. */
      self->stats.unknown_ops++;
      return;
    }
  self->stats.events++;
}

static void set_state (RfkManager *self, RfkManagerState state,
                       GError *error);

void
rfk_manager_feed (RfkManager *self, const guint8 *buf, gsize len)
{
  RfkEvent event;
  int status;

  g_return_if_fail (RFK_IS_MANAGER (self));

  if (rfk_event_decode (buf, len, &event))
    {
      handle_event (self, &event);
      return;
    }
  if (self->is_socket && rfk_status_decode (buf, len, &status))
    {
      /* The peer sends this one before it reads anything from us, so it
       * cannot be the answer to a request. */
      if (self->awaiting_list_end)
        {
          self->awaiting_list_end = FALSE;
          if (self->settle_source != 0)
            {
              g_clear_handle_id (&self->settle_source, g_source_remove);
              set_state (self, RFK_MANAGER_STATE_READY, NULL);
            }
          return;
        }
      guint id = GPOINTER_TO_UINT (g_queue_pop_head (&self->status_waiters));
      Request *request = id != 0 ? request_lookup_id (self, id) : NULL;

      if (status != 0 && request != NULL)
        request_forget_inflight (request);
      if (status != 0 && request != NULL)
        request_finish (request,
                        rfk_transport_error_new (self->device_path,
                                                 RFK_TRANSPORT_WRITE, status));
      return;
    }
  self->stats.short_reads++;
}

/* ---- device lifecycle ------------------------------------------------- */

static void
set_state (RfkManager *self, RfkManagerState state, GError *error)
{
  gboolean changed = self->state != state;

  g_clear_error (&self->error);
  self->error = error;
  self->state = state;
  if (changed || error != NULL)
    g_signal_emit (self, signals[SIGNAL_STATE_CHANGED], 0);
}

void
rfk_manager_feed_ready (RfkManager *self)
{
  g_return_if_fail (RFK_IS_MANAGER (self));
  set_state (self, RFK_MANAGER_STATE_READY, NULL);
}

void
rfk_manager_adopt_fd (RfkManager *self, int fd, gboolean is_socket)
{
  g_return_if_fail (RFK_IS_MANAGER (self));
  g_return_if_fail (self->fd < 0);
  self->fd = fd;
  self->is_socket = is_socket;
}

static void
monitor_changed_cb (GFileMonitor *monitor, GFile *file, GFile *other,
                    GFileMonitorEvent event, gpointer user_data)
{
  RfkManager *self = user_data;
  g_autofree char *basename = g_path_get_basename (self->device_path);
  g_autofree char *name = g_file_get_basename (file);
  g_autofree char *other_name = other ? g_file_get_basename (other) : NULL;

  if (event == G_FILE_MONITOR_EVENT_DELETED
      || event == G_FILE_MONITOR_EVENT_MOVED_OUT)
    return;
  if (g_strcmp0 (name, basename) != 0
      && g_strcmp0 (other_name, basename) != 0)
    return;
  if (self->fd < 0)
    try_open (self);
}

/* Waits for the device node (udev creates it, then fixes its mode) or a
 * socket to appear: inotify on the parent directory, no polling. */
static void
wait_for_device (RfkManager *self)
{
  g_autofree char *dirname = NULL;
  g_autoptr (GFile) dir = NULL;
  g_autoptr (GError) error = NULL;

  if (self->monitor != NULL)
    return;
  dirname = g_path_get_dirname (self->device_path);
  dir = g_file_new_for_path (dirname);
  self->monitor = g_file_monitor_directory (dir, G_FILE_MONITOR_WATCH_MOVES,
                                            NULL, &error);
  if (self->monitor == NULL)
    {
      g_warning (_("Cannot watch %s for %s to appear: %s"), dirname,
                 self->device_path, error->message);
      return;
    }
  g_signal_connect (self->monitor, "changed",
                    G_CALLBACK (monitor_changed_cb), self);
}

static void
close_device (RfkManager *self, GError *reason)
{
  RfkManagerState state = RFK_MANAGER_STATE_NO_DEVICE;

  g_clear_handle_id (&self->read_source, g_source_remove);
  g_clear_handle_id (&self->settle_source, g_source_remove);
  if (self->fd >= 0)
    {
      close (self->fd);
      self->fd = -1;
    }
  fail_all_requests (self, reason->message);
  g_hash_table_remove_all (self->inflight);
  while (self->sorted->len > 0)
    remove_device (self, g_ptr_array_index (self->sorted,
                                            self->sorted->len - 1));
  update_airplane_mode (self);

  if (g_error_matches (reason, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED))
    state = RFK_MANAGER_STATE_NO_PERMISSION;
  else if (!g_error_matches (reason, G_IO_ERROR, G_IO_ERROR_NOT_FOUND)
           && !g_error_matches (reason, G_IO_ERROR,
                                G_IO_ERROR_CONNECTION_REFUSED)
           && !g_error_matches (reason, G_IO_ERROR, G_IO_ERROR_CLOSED))
    state = RFK_MANAGER_STATE_FAILED;
  set_state (self, state, reason);
  wait_for_device (self);
}

static gboolean
settle_cb (gpointer user_data)
{
  RfkManager *self = user_data;

  self->settle_source = 0;
  set_state (self, RFK_MANAGER_STATE_READY, NULL);
  return G_SOURCE_REMOVE;
}

static void
arm_settle (RfkManager *self)
{
  g_clear_handle_id (&self->settle_source, g_source_remove);
  self->settle_source = g_timeout_add (SOCKET_SETTLE_MS, settle_cb, self);
}

/* Reads until EAGAIN.  FALSE if the device went away (already handled). */
static gboolean
drain (RfkManager *self)
{
  guint8 buf[RFK_EVENT_SIZE_MAX];

  for (;;)
    {
      gssize n = rfk_transport_read (self->fd, buf);

      if (n > 0)
        {
          rfk_manager_feed (self, buf, n);
          if (self->fd < 0)
            return FALSE;  /* a handler stopped us */
          if (self->settle_source != 0)
            arm_settle (self);
          continue;
        }
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
        return TRUE;

      close_device (self,
                    n == 0 ? g_error_new (G_IO_ERROR, G_IO_ERROR_CLOSED,
                                          _("%s was closed by the other "
                                            "end"), self->device_path)
                           : rfk_transport_error_new (self->device_path,
                                                      RFK_TRANSPORT_READ,
                                                      errno));
      return FALSE;
    }
}

static gboolean
readable_cb (int fd, GIOCondition condition, gpointer user_data)
{
  RfkManager *self = user_data;

  if (!drain (self))
    {
      self->read_source = 0;  /* close_device() removed us already */
      return G_SOURCE_REMOVE;
    }
  if (condition & (G_IO_HUP | G_IO_ERR))
    {
      self->read_source = 0;
      close_device (self, g_error_new (G_IO_ERROR, G_IO_ERROR_CLOSED,
                                       _("%s was closed by the other end"),
                                       self->device_path));
      return G_SOURCE_REMOVE;
    }
  return G_SOURCE_CONTINUE;
}

static void
try_open (RfkManager *self)
{
  g_autoptr (GError) error = NULL;
  int fd;

  fd = rfk_transport_open (self->device_path, &self->is_socket, &error);
  if (fd < 0)
    {
      close_device (self, g_steal_pointer (&error));
      return;
    }
  g_clear_object (&self->monitor);
  self->fd = fd;
  self->read_source = g_unix_fd_add (fd, G_IO_IN | G_IO_HUP | G_IO_ERR,
                                     readable_cb, self);
  set_state (self, RFK_MANAGER_STATE_STARTING, NULL);

  /* The kernel queues one ADD per radio inside open(); a socket peer
   * sends them once it accepted us, then a status packet to say so. */
  self->awaiting_list_end = self->is_socket;
  if (self->is_socket)
    arm_settle (self);
  if (!drain (self))
    return;
  if (!self->is_socket)
    set_state (self, RFK_MANAGER_STATE_READY, NULL);
}

/* ---- GObject ---------------------------------------------------------- */

static void
rfk_manager_dispose (GObject *object)
{
  RfkManager *self = RFK_MANAGER (object);

  g_clear_handle_id (&self->read_source, g_source_remove);
  g_clear_handle_id (&self->settle_source, g_source_remove);
  g_clear_object (&self->monitor);
  G_OBJECT_CLASS (rfk_manager_parent_class)->dispose (object);
}

static void
rfk_manager_finalize (GObject *object)
{
  RfkManager *self = RFK_MANAGER (object);

  /* Tasks hold a reference, so only internal requests without a task
   * can be left; drop them without emitting anything. */
  for (GList *l = self->requests; l != NULL; l = l->next)
    {
      Request *request = l->data;

      g_clear_handle_id (&request->timeout_source, g_source_remove);
      g_hash_table_unref (request->wanted);
      g_free (request);
    }
  g_list_free (self->requests);
  g_queue_clear (&self->status_waiters);
  if (self->fd >= 0)
    close (self->fd);
  g_ptr_array_unref (self->sorted);
  g_hash_table_unref (self->devices);
  g_hash_table_unref (self->claims);
  g_hash_table_unref (self->inflight);
  g_clear_error (&self->error);
  g_free (self->device_path);
  G_OBJECT_CLASS (rfk_manager_parent_class)->finalize (object);
}

static void
rfk_manager_class_init (RfkManagerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = rfk_manager_dispose;
  object_class->finalize = rfk_manager_finalize;

  signals[SIGNAL_DEVICE_ADDED] =
    g_signal_new ("device-added", G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_POINTER);
  signals[SIGNAL_DEVICE_REMOVED] =
    g_signal_new ("device-removed", G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_POINTER);
  signals[SIGNAL_DEVICE_CHANGED] =
    g_signal_new ("device-changed", G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_POINTER);
  signals[SIGNAL_HARDWARE_SWITCH_CHANGED] =
    g_signal_new ("hardware-switch-changed", G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 2, G_TYPE_POINTER, G_TYPE_BOOLEAN);
  signals[SIGNAL_AIRPLANE_MODE_CHANGED] =
    g_signal_new ("airplane-mode-changed", G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_BOOLEAN);
  signals[SIGNAL_INDICATOR_CHANGED] =
    g_signal_new ("indicator-changed", G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_BOOLEAN);
  signals[SIGNAL_STATE_CHANGED] =
    g_signal_new ("state-changed", G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void
rfk_manager_init (RfkManager *self)
{
  self->fd = -1;
  self->devices = g_hash_table_new_full (NULL, NULL, NULL,
                                         (GDestroyNotify) device_free);
  self->sorted = g_ptr_array_new ();
  self->claims = g_hash_table_new (NULL, NULL);
  self->inflight = g_hash_table_new (NULL, NULL);
  self->airplane_types = RFK_AIRPLANE_TYPES_ALL;
  g_queue_init (&self->status_waiters);
}

/* ---- public API ------------------------------------------------------- */

RfkManager *
rfk_manager_new (const char *device_path)
{
  RfkManager *self = g_object_new (RFK_TYPE_MANAGER, NULL);

  self->device_path = g_strdup (device_path ? device_path
                                            : RFK_DEFAULT_DEVICE);
  return self;
}

void
rfk_manager_start (RfkManager *self)
{
  g_return_if_fail (RFK_IS_MANAGER (self));

  if (self->fd >= 0)
    return;
  try_open (self);
}

RfkManagerState
rfk_manager_get_state (RfkManager *self)
{
  g_return_val_if_fail (RFK_IS_MANAGER (self), RFK_MANAGER_STATE_FAILED);
  return self->state;
}

const GError *
rfk_manager_get_error (RfkManager *self)
{
  g_return_val_if_fail (RFK_IS_MANAGER (self), NULL);
  return self->error;
}

const char *
rfk_manager_get_device_path (RfkManager *self)
{
  g_return_val_if_fail (RFK_IS_MANAGER (self), NULL);
  return self->device_path;
}

GPtrArray *
rfk_manager_get_devices (RfkManager *self)
{
  g_return_val_if_fail (RFK_IS_MANAGER (self), NULL);
  return self->sorted;
}

RfkDevice *
rfk_manager_lookup (RfkManager *self, guint32 idx)
{
  g_return_val_if_fail (RFK_IS_MANAGER (self), NULL);
  return g_hash_table_lookup (self->devices, GUINT_TO_POINTER (idx));
}

void
rfk_manager_get_stats (RfkManager *self, RfkManagerStats *out_stats)
{
  g_return_if_fail (RFK_IS_MANAGER (self));
  *out_stats = self->stats;
}

static gboolean
check_ready (RfkManager *self, GTask *task)
{
  if (self->state == RFK_MANAGER_STATE_READY)
    return TRUE;
  if (self->error != NULL)
    g_task_return_error (task, g_error_copy (self->error));
  else
    g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_NOT_INITIALIZED,
                             _("%s is not open yet"), self->device_path);
  return FALSE;
}

void
rfk_manager_set_blocked_async (RfkManager *self, guint32 idx,
                               gboolean blocked, GCancellable *cancellable,
                               GAsyncReadyCallback callback,
                               gpointer user_data)
{
  RfkDevice *device;
  Request *request;

  g_return_if_fail (RFK_IS_MANAGER (self));

  device = rfk_manager_lookup (self, idx);
  if (self->state != RFK_MANAGER_STATE_READY || device == NULL)
    {
      g_autoptr (GTask) task = g_task_new (self, cancellable, callback,
                                           user_data);

      g_task_set_source_tag (task, rfk_manager_set_blocked_async);
      if (check_ready (self, task))
        g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                                 _("There is no radio with index %u"), idx);
      return;
    }

  request = request_new (self, REQUEST_SET_BLOCKED, cancellable, callback,
                         user_data, rfk_manager_set_blocked_async);
  if (request_want (request, device, blocked != FALSE))
    request_commit (request);
}

gboolean
rfk_manager_set_blocked_finish (RfkManager *self, GAsyncResult *result,
                                GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

gboolean
rfk_manager_get_airplane_mode (RfkManager *self)
{
  g_return_val_if_fail (RFK_IS_MANAGER (self), FALSE);
  return self->airplane_mode;
}

/* Requests of another airplane change are superseded as a whole. */
static void
supersede_airplane_requests (RfkManager *self)
{
  GList *l = self->requests;

  while (l != NULL)
    {
      Request *request = l->data;

      l = l->next;
      if (request->kind == REQUEST_AIRPLANE_ON
          || request->kind == REQUEST_AIRPLANE_OFF)
        {
          request_finish (request,
                          g_error_new_literal (G_IO_ERROR,
                                               G_IO_ERROR_CANCELLED,
                                               _("Superseded by a newer "
                                                 "airplane-mode request")));
          l = self->requests;  /* the list changed under us */
        }
    }
}

static void
airplane_on (RfkManager *self, Request *request)
{
  g_autoptr (RfkAirplaneStore) store = load_store_or_empty ();
  g_autoptr (GPtrArray) targets = g_ptr_array_new ();
  g_autoptr (GError) error = NULL;

  for (guint i = 0; i < self->sorted->len; i++)
    {
      RfkDevice *device = g_ptr_array_index (self->sorted, i);

      if (type_counts (self, device->type) && !device->soft)
        g_ptr_array_add (targets, device);
    }

  /* Already off everywhere (by us or anybody): nothing to remember. */
  if (targets->len > 0)
    {
      /* A list from an airplane mode still in force is extended, not
       * replaced: its radios are blocked now, and we must not remember
       * them as "off before". */
      if (!store->active)
        rfk_airplane_store_clear (store);
      store->active = TRUE;
      for (guint i = 0; i < self->sorted->len; i++)
        {
          RfkDevice *device = g_ptr_array_index (self->sorted, i);
          g_autofree char *key = rfk_device_dup_key (device);

          if (type_counts (self, device->type)
              && !rfk_airplane_store_lookup (store, key, NULL))
            rfk_airplane_store_remember (store, key, device->soft);
        }
      /* Save before blocking anything: if we crash halfway, the list is
       * there.  If we cannot save, block nothing. */
      if (!rfk_airplane_store_save (store, &error))
        {
          request_finish (request, g_steal_pointer (&error));
          return;
        }
    }

  for (guint i = 0; i < targets->len; i++)
    if (!request_want (request, g_ptr_array_index (targets, i), TRUE))
      return;
  request_commit (request);
}

static void
airplane_off (RfkManager *self, Request *request)
{
  g_autoptr (RfkAirplaneStore) store = load_store_or_empty ();
  g_autoptr (GPtrArray) devices = g_ptr_array_copy (self->sorted, NULL,
                                                    NULL);

  gboolean switchable = FALSE;

  /* Not in airplane mode and nothing to restore: leave every radio as
   * its owner set it. */
  if (!self->airplane_mode && !store->active)
    {
      request_commit (request);
      return;
    }

  /* Without a restore list, airplane off means radios on, but only where
   * a soft unblock can help: under a hardware switch write nothing. */
  for (guint i = 0; i < devices->len && !store->active; i++)
    {
      RfkDevice *device = g_ptr_array_index (devices, i);

      if (type_counts (self, device->type) && !device->hard)
        switchable = TRUE;
    }
  if (!store->active && !switchable)
    {
      request_finish (request,
                      g_error_new (G_IO_ERROR, G_IO_ERROR_BUSY,
                                   _("Radios stay off: a hardware switch "
                                     "blocks them")));
      return;
    }

  for (guint i = 0; i < devices->len; i++)
    {
      RfkDevice *device = g_ptr_array_index (devices, i);
      g_autofree char *key = rfk_device_dup_key (device);
      gboolean soft = FALSE;  /* radios we never saw: airplane off = on */

      if (!type_counts (self, device->type))
        continue;
      if (store->active)
        rfk_airplane_store_lookup (store, key, &soft);
      else if (device->hard)
        continue;
      if (!request_want (request, device, soft))
        return;
    }
  request_commit (request);
}

void
rfk_manager_set_airplane_mode_async (RfkManager *self, gboolean enabled,
                                     GCancellable *cancellable,
                                     GAsyncReadyCallback callback,
                                     gpointer user_data)
{
  Request *request;
  guint counted = 0;

  g_return_if_fail (RFK_IS_MANAGER (self));

  for (guint i = 0; i < self->sorted->len; i++)
    if (type_counts (self, ((RfkDevice *) self->sorted->pdata[i])->type))
      counted++;

  if (self->state != RFK_MANAGER_STATE_READY || counted == 0)
    {
      g_autoptr (GTask) task = g_task_new (self, cancellable, callback,
                                           user_data);

      g_task_set_source_tag (task, rfk_manager_set_airplane_mode_async);
      if (check_ready (self, task))
        g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                                 _("There is no radio on %s to switch"),
                                 self->device_path);
      return;
    }

  supersede_airplane_requests (self);
  request = request_new (self, enabled ? REQUEST_AIRPLANE_ON
                                       : REQUEST_AIRPLANE_OFF,
                         cancellable, callback, user_data,
                         rfk_manager_set_airplane_mode_async);
  if (enabled)
    airplane_on (self, request);
  else
    airplane_off (self, request);
}

gboolean
rfk_manager_set_airplane_mode_finish (RfkManager *self, GAsyncResult *result,
                                      GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

void
rfk_manager_set_airplane_types (RfkManager *self, guint32 type_mask)
{
  g_return_if_fail (RFK_IS_MANAGER (self));
  self->airplane_types = type_mask;
  update_airplane_mode (self);
}

guint32
rfk_manager_get_airplane_types (RfkManager *self)
{
  g_return_val_if_fail (RFK_IS_MANAGER (self), 0);
  return self->airplane_types;
}

gboolean
rfk_manager_get_hardware_blocked (RfkManager *self)
{
  g_return_val_if_fail (RFK_IS_MANAGER (self), FALSE);

  for (guint i = 0; i < self->sorted->len; i++)
    {
      RfkDevice *device = g_ptr_array_index (self->sorted, i);

      /* V1 kernels give no reason; a hard block then is a switch. */
      if (device->hard && (device->hard_reasons == 0
                           || (device->hard_reasons & RFK_HARD_BLOCK_SIGNAL)))
        return TRUE;
    }
  return FALSE;
}

gboolean
rfk_manager_get_indicator (RfkManager *self)
{
  g_return_val_if_fail (RFK_IS_MANAGER (self), FALSE);
  return self->indicator;
}

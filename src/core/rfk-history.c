/* rfk-history.c: the last radio changes, in memory, and when they are
 * saved (rfk-history-file.c writes them). */
#include "config.h"

#include "rfk-history.h"

#include "rfk-history-file.h"
#include "rfk-state-file.h"

#define FILE_NAME "history.ini"
#define AUTOSAVE_MS 500

/*
 * Saving.
 *
 * A save reads the file under the state lock, adds what this process
 * added since, and writes the merge, fsynced.  On a busy disk that
 * fsync alone can take a tenth of a second, and the applet saves half a
 * second after each burst of radio changes: on the main thread, it held
 * back the next radio event and its menu update for as long.  So the
 * applet's saves (autosave) run in a worker thread, one at a time, and
 * touch nothing of the object there; their outcome is applied on the
 * main thread.  A synchronous flush (the CLI, the applet's end) first
 * waits for the save in flight and applies its outcome itself.
 */
typedef struct
{
  RfkHistory *owner;    /* main thread only; unset once applied */
  char *path;           /* found on the main thread: it reads the environment */
  GPtrArray *added;     /* what this save adds: the unsaved entries */
  GMutex lock;          /* guards the three below, set by the worker */
  GCond finished;
  gboolean done;
  GPtrArray *written;   /* the file as written, or NULL and error */
  GError *error;
} SaveJob;

static void
save_job_clear (SaveJob *job)
{
  g_clear_pointer (&job->path, g_free);
  g_clear_pointer (&job->added, g_ptr_array_unref);
  g_clear_pointer (&job->written, g_ptr_array_unref);
  g_clear_error (&job->error);
  g_mutex_clear (&job->lock);
  g_cond_clear (&job->finished);
}

static void
save_job_unref (SaveJob *job)
{
  g_atomic_rc_box_release_full (job, (GDestroyNotify) save_job_clear);
}

struct _RfkHistory
{
  GObject parent_instance;
  GPtrArray *entries;   /* RfkHistoryEntry *, oldest first */
  GPtrArray *unsaved;   /* copies of what was added since the last flush */
  gboolean autosave;
  guint save_source;
  SaveJob *job;         /* the autosave in flight, or NULL */
};

G_DEFINE_FINAL_TYPE (RfkHistory, rfk_history, G_TYPE_OBJECT)

enum { SIGNAL_CHANGED, N_SIGNALS };
static guint signals[N_SIGNALS];

char *
rfk_history_dup_path (void)
{
  return rfk_state_file_dup_path (FILE_NAME);
}

static void wait_for_save (RfkHistory *self);

static gboolean
load (RfkHistory *self, gboolean read_only, GError **error)
{
  g_autoptr (RfkStateLock) lock = NULL;
  g_autofree char *path = rfk_history_dup_path ();
  g_autoptr (GError) local = NULL;
  GPtrArray *read;

  g_return_val_if_fail (RFK_IS_HISTORY (self), FALSE);
  /* A save in flight holds entries that are neither in the file yet nor
   * in unsaved: once it is applied, the file has them. */
  wait_for_save (self);
  /* Moving a corrupt file aside is a write: under the lock. */
  if (!read_only)
    {
      lock = rfk_state_file_lock (error);
      if (lock == NULL)
        return FALSE;
    }
  read = rfk_history_file_load (path, !read_only, &local);
  if (read != NULL)
    {
      g_ptr_array_unref (self->entries);
      self->entries = read;
      /* What this process added and has not written stays. */
      for (guint i = 0; i < self->unsaved->len; i++)
        g_ptr_array_add (self->entries,
                         rfk_history_entry_copy (self->unsaved->pdata[i]));
      rfk_history_trim (self->entries);
    }
  if (local != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&local));
      return FALSE;
    }
  return TRUE;
}

gboolean
rfk_history_load (RfkHistory *self, GError **error)
{
  return load (self, FALSE, error);
}

gboolean
rfk_history_read (RfkHistory *self, GError **error)
{
  return load (self, TRUE, error);
}

static void schedule_autosave (RfkHistory *self);

/* Main thread: the save's outcome becomes the history. */
static void
apply_save (RfkHistory *self, SaveJob *job)
{
  job->owner = NULL;
  g_clear_pointer (&self->job, save_job_unref);
  if (job->written == NULL)
    {
      /* Kept for the next save, ahead of what came since.  The worker
       * is done with them. */
      GPtrArray *unsaved = g_steal_pointer (&job->added);

      g_ptr_array_extend_and_steal (unsaved, g_steal_pointer (&self->unsaved));
      rfk_history_trim (unsaved);
      self->unsaved = unsaved;
      return;
    }
  g_ptr_array_unref (self->entries);
  self->entries = g_steal_pointer (&job->written);
  /* What was added while it was saved: in the next save. */
  for (guint i = 0; i < self->unsaved->len; i++)
    g_ptr_array_add (self->entries,
                     rfk_history_entry_copy (self->unsaved->pdata[i]));
  rfk_history_trim (self->entries);
  g_signal_emit (self, signals[SIGNAL_CHANGED], 0);
}

/* Main thread: waits for the save in flight, if any, and applies it.
 * Its error, if any, is left to the caller's own save to meet again. */
static void
wait_for_save (RfkHistory *self)
{
  SaveJob *job = self->job;

  if (job == NULL)
    return;
  /* The worker waits for the state lock: this thread must not hold it. */
  g_warn_if_fail (!rfk_state_file_is_locked ());
  g_mutex_lock (&job->lock);
  while (!job->done)
    g_cond_wait (&job->finished, &job->lock);
  g_mutex_unlock (&job->lock);
  apply_save (self, job);
}

static void
save_in_thread (GTask *task, gpointer source, gpointer data,
                GCancellable *cancellable)
{
  SaveJob *job = data;
  GError *error = NULL;
  GPtrArray *written = rfk_history_file_save (job->path, job->added, &error);

  g_mutex_lock (&job->lock);
  job->written = written;
  job->error = error;
  job->done = TRUE;
  g_cond_signal (&job->finished);
  g_mutex_unlock (&job->lock);
  g_task_return_boolean (task, TRUE);
}

static void
save_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  SaveJob *job = g_task_get_task_data (G_TASK (result));
  RfkHistory *self = job->owner;

  if (self == NULL)
    return;  /* a synchronous flush applied it */
  if (job->error != NULL)
    g_warning ("%s", job->error->message);
  apply_save (self, job);
  /* What was added while it ran (its autosave found it busy) goes in the
   * next save.  After a failure, the next change tries again. */
  if (job->error == NULL && self->unsaved->len > 0)
    schedule_autosave (self);
}

static void
start_save (RfkHistory *self)
{
  g_autoptr (GTask) task = g_task_new (NULL, NULL, save_done, NULL);
  SaveJob *job = g_atomic_rc_box_new0 (SaveJob);

  g_mutex_init (&job->lock);
  g_cond_init (&job->finished);
  job->owner = self;
  job->path = rfk_history_dup_path ();
  job->added = g_steal_pointer (&self->unsaved);
  self->unsaved = g_ptr_array_new_with_free_func (
    (GDestroyNotify) rfk_history_entry_free);
  self->job = g_atomic_rc_box_acquire (job);
  g_task_set_source_tag (task, start_save);
  g_task_set_task_data (task, job, (GDestroyNotify) save_job_unref);
  g_task_run_in_thread (task, save_in_thread);
}

gboolean
rfk_history_flush (RfkHistory *self, GError **error)
{
  g_autofree char *path = rfk_history_dup_path ();
  GPtrArray *written;

  g_return_val_if_fail (RFK_IS_HISTORY (self), FALSE);
  g_clear_handle_id (&self->save_source, g_source_remove);
  wait_for_save (self);
  if (self->unsaved->len == 0)
    return TRUE;
  written = rfk_history_file_save (path, self->unsaved, error);
  if (written == NULL)
    return FALSE;
  g_ptr_array_unref (self->entries);
  self->entries = written;
  g_ptr_array_set_size (self->unsaved, 0);
  g_signal_emit (self, signals[SIGNAL_CHANGED], 0);
  return TRUE;
}

static gboolean
autosave_cb (gpointer user_data)
{
  RfkHistory *self = user_data;

  self->save_source = 0;
  /* One save at a time: the one in flight schedules the next. */
  if (self->job == NULL && self->unsaved->len > 0)
    start_save (self);
  return G_SOURCE_REMOVE;
}

static void
schedule_autosave (RfkHistory *self)
{
  if (self->autosave && self->save_source == 0)
    self->save_source = g_timeout_add (AUTOSAVE_MS, autosave_cb, self);
}

void
rfk_history_add (RfkHistory *self, RfkHistoryEntry *entry)
{
  g_return_if_fail (RFK_IS_HISTORY (self));
  g_ptr_array_add (self->unsaved, rfk_history_entry_copy (entry));
  g_ptr_array_add (self->entries, entry);
  rfk_history_trim (self->entries);
  /* A flood adds more than the file keeps: only the newest matter. */
  if (self->unsaved->len > RFK_HISTORY_MAX)
    g_ptr_array_remove_range (self->unsaved, 0,
                              self->unsaved->len - RFK_HISTORY_MAX);
  schedule_autosave (self);
  g_signal_emit (self, signals[SIGNAL_CHANGED], 0);
}

void
rfk_history_set_autosave (RfkHistory *self, gboolean autosave)
{
  g_return_if_fail (RFK_IS_HISTORY (self));
  self->autosave = autosave;
}

GPtrArray *
rfk_history_get_entries (RfkHistory *self)
{
  g_return_val_if_fail (RFK_IS_HISTORY (self), NULL);
  return self->entries;
}

RfkHistory *
rfk_history_new (void)
{
  return g_object_new (RFK_TYPE_HISTORY, NULL);
}

static void
rfk_history_dispose (GObject *object)
{
  RfkHistory *self = RFK_HISTORY (object);

  /* What is still unsaved is written now, not lost with the process,
   * after the save in flight. */
  if (self->save_source != 0 || self->job != NULL)
    {
      g_autoptr (GError) error = NULL;

      if (!rfk_history_flush (self, &error))
        g_warning ("%s", error->message);
    }
  G_OBJECT_CLASS (rfk_history_parent_class)->dispose (object);
}

static void
rfk_history_finalize (GObject *object)
{
  RfkHistory *self = RFK_HISTORY (object);

  g_ptr_array_unref (self->entries);
  g_ptr_array_unref (self->unsaved);
  G_OBJECT_CLASS (rfk_history_parent_class)->finalize (object);
}

static void
rfk_history_class_init (RfkHistoryClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = rfk_history_dispose;
  object_class->finalize = rfk_history_finalize;
  /* An entry was added, or the file was merged in. */
  signals[SIGNAL_CHANGED] = g_signal_new ("changed", G_TYPE_FROM_CLASS (klass),
                                          G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                                          NULL, G_TYPE_NONE, 0);
}

static void
rfk_history_init (RfkHistory *self)
{
  GDestroyNotify free_entry = (GDestroyNotify) rfk_history_entry_free;

  self->entries = g_ptr_array_new_with_free_func (free_entry);
  self->unsaved = g_ptr_array_new_with_free_func (free_entry);
}

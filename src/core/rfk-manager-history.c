/*
 * rfk-manager-history.c: what made each radio change (rfk-history.h).
 *
 * The kernel says what changed, never who changed it.  What we can tell:
 *
 *   - our own writes are recognised (rfk_manager_writes_take_ours()), and the
 *     request that made them carries its door: the menu, a middle click,
 *     a notification, the CLI, a D-Bus caller named by its process, or
 *     our own rules (airplane mode, the resume guard);
 *   - a hard block that comes or goes is a hardware switch's;
 *   - a change soon after resume (the guard's window) is resume's: a
 *     driver, BlueZ or a sleep script;
 *   - a change within HOTPLUG_MS of the radio's arrival is a restore as
 *     it was plugged in (systemd-rfkill, TLP): udev starts them for the
 *     new device, which takes a moment, never seconds;
 *   - every radio of at least two types switched the same way in one
 *     sweep is the airplane key: the kernel's rfkill-input switches them
 *     all.  `rfkill block all` and gnome-settings-daemon's airplane mode
 *     send the very same events, so the name says so (README,
 *     "History");
 *   - Wi-Fi or WWAN switched within NM_MS of NetworkManager switching its
 *     own switch the same way (rfk-nm-radios.c tells that from its
 *     WirelessEnabled following another program's block), when we did
 *     not ask it to, is NetworkManager's;
 *   - anything else is "another program".
 *
 * The last two need the whole sweep, so changes nobody claims wait until
 * the sweep is over (timing.sweep_ms without a change), and every change
 * waits with them, so that the history keeps the kernel's order.
 */
#include "config.h"

#include "rfk-manager-private.h"

#define HOTPLUG_MS 3000
#define NM_MS 2000
/* A radio that never stops changing (a flapping driver) makes a sweep
 * that never ends: past this many changes it is handed over as it is. */
#define MAX_NOTES (2 * RFK_HISTORY_MAX)

typedef struct {
  RfkHistoryEntry *entry;
  gint64 mono_us;        /* when it came, on the monotonic clock */
  guint32 idx;
  gboolean soft;         /* the soft state it left */
  /* Another program's, or resume's: the sweep may still show the key or
   * NetworkManager, which say more. */
  gboolean unclaimed;
} Note;

static void
note_free (Note *note)
{
  rfk_history_entry_free (note->entry);
  g_free (note);
}

void
rfk_manager_history_init (RfkManager *self)
{
  self->next_cause = RFK_CAUSE_APPLET;
  self->timing.hotplug_ms = HOTPLUG_MS;
  self->history_notes = g_ptr_array_new_with_free_func (
    (GDestroyNotify) note_free);
}

void
rfk_manager_history_dispose (RfkManager *self)
{
  /* What the sweep held back is still worth keeping. */
  if (self->history_source != 0)
    rfk_manager_history_flush (self);
  g_clear_object (&self->history);
}

void
rfk_manager_history_finalize (RfkManager *self)
{
  g_ptr_array_unref (self->history_notes);
  g_free (self->next_by);
}

static gboolean
noted (RfkManager *self, guint32 idx)
{
  for (guint i = 0; i < self->history_notes->len; i++)
    if (((Note *) self->history_notes->pdata[i])->idx == idx)
      return TRUE;
  return FALSE;
}

/* Radios of at least two types went to soft in unclaimed changes of this
 * sweep, and every other radio that can be is there, or was changed by us
 * in the sweep (airplane mode restoring its list after the key). */
static gboolean
looks_like_the_key (RfkManager *self, gboolean soft)
{
  guint32 types = 0;
  guint changed = 0;

  for (guint i = 0; i < self->history_notes->len; i++)
    {
      Note *note = self->history_notes->pdata[i];

      if (!note->unclaimed)
        continue;
      if (note->soft != soft || note->entry->from == RFK_RADIO_HARD_BLOCKED
          || note->entry->to == RFK_RADIO_HARD_BLOCKED)
        return FALSE;
      changed++;
      types |= 1u << MIN (note->entry->type, 31);
    }
  if (changed < 2 || (types & (types - 1)) == 0)
    return FALSE;
  for (guint i = 0; i < self->sorted->len; i++)
    {
      RfkDevice *device = g_ptr_array_index (self->sorted, i);

      if (!device->switch_only && !device->hard && device->soft != soft
          && !noted (self, device->idx))
        return FALSE;
    }
  return TRUE;
}

static gboolean
networkmanager_did (RfkManager *self, const Note *note)
{
  guint type = note->entry->type;

  return self->nm_changed_us != 0 && type < 32
         && (self->nm_types & (1u << type)) && note->soft == !self->nm_enabled
         && ABS (note->mono_us - self->nm_changed_us)
              <= NM_MS * G_TIME_SPAN_MILLISECOND;
}

/* The sweep is over: its changes go to the history, in order. */
void
rfk_manager_history_flush (RfkManager *self)
{
  gboolean key = FALSE;

  g_clear_handle_id (&self->history_source, g_source_remove);
  if (self->history_notes->len == 0)
    return;
  /* The key's sweep goes one way: the first unclaimed change says which,
   * and looks_like_the_key() checks the others against it. */
  for (guint i = 0; i < self->history_notes->len; i++)
    {
      Note *note = self->history_notes->pdata[i];

      if (note->unclaimed)
        {
          key = looks_like_the_key (self, note->soft);
          break;
        }
    }
  for (guint i = 0; i < self->history_notes->len; i++)
    {
      Note *note = self->history_notes->pdata[i];

      if (note->unclaimed && key)
        note->entry->cause = RFK_CAUSE_KEY;
      else if (note->unclaimed && networkmanager_did (self, note))
        note->entry->cause = RFK_CAUSE_NETWORKMANAGER;
      if (self->history != NULL)
        rfk_history_add (self->history, g_steal_pointer (&note->entry));
    }
  g_ptr_array_set_size (self->history_notes, 0);
}

static gboolean
sweep_over_cb (gpointer user_data)
{
  RfkManager *self = user_data;

  self->history_source = 0;
  rfk_manager_history_flush (self);
  return G_SOURCE_REMOVE;
}

static gboolean
within (gint64 then_us, gint64 now_us, guint ms)
{
  return then_us != 0 && now_us - then_us <= ms * G_TIME_SPAN_MILLISECOND;
}

/* Who made a change nobody of ours claims, where that shows at once. */
static RfkCause
cause_of_theirs (RfkManager *self, const RfkDevice *device,
                 const RfkDevice *before, gint64 now_us)
{
  if (before->hard != device->hard)
    return RFK_CAUSE_SWITCH;
  /* A window of 0 lasts until the guard's ends (tests end it). */
  if (self->timing.resume_ms > 0
        ? within (self->resumed_us, now_us, self->timing.resume_ms)
        : self->resume_watch && self->resumed_us != 0)
    return RFK_CAUSE_RESUME;
  if (self->timing.hotplug_ms > 0
      && within (device->added_us, now_us, self->timing.hotplug_ms))
    return RFK_CAUSE_HOTPLUG;
  return RFK_CAUSE_OTHER;
}

void
rfk_manager_history_note (RfkManager *self, const RfkDevice *device,
                          const RfkDevice *before, gboolean ours)
{
  /* Ours: the request that claims the radio made the write.  One that
   * was taken over by a newer request is that one's now. */
  Request *claim = ours ? g_hash_table_lookup (self->claims,
                                               GUINT_TO_POINTER (device->idx))
                        : NULL;
  RfkHistoryEntry *entry;
  Note *note;
  gint64 now_us = g_get_monotonic_time ();

  if (self->history == NULL)
    return;
  entry = g_new0 (RfkHistoryEntry, 1);
  entry->time_us = g_get_real_time ();
  entry->name = g_strdup (device->name);
  entry->type = device->type;
  entry->key = rfk_device_dup_key (device);
  entry->from = rfk_radio_state_of (before->soft, before->hard);
  entry->to = rfk_radio_state_of (device->soft, device->hard);
  if (entry->from == entry->to)
    {
      rfk_history_entry_free (entry);  /* only the reasons changed */
      return;
    }
  /* A hard block that came or went is the switch's, whatever soft
   * state of ours landed in the same event. */
  if (claim != NULL && before->hard == device->hard)
    {
      entry->cause = claim->cause;
      entry->by = g_strdup (claim->by);
    }
  else if (ours && before->hard == device->hard)
    entry->cause = RFK_CAUSE_APPLET;
  else
    entry->cause = cause_of_theirs (self, device, before, now_us);

  note = g_new0 (Note, 1);
  note->entry = entry;
  note->mono_us = now_us;
  note->idx = device->idx;
  note->soft = device->soft;
  /* The key pressed soon after resume is still the key. */
  note->unclaimed = !ours && (entry->cause == RFK_CAUSE_OTHER
                              || entry->cause == RFK_CAUSE_RESUME);
  g_ptr_array_add (self->history_notes, note);
  if (self->history_notes->len >= MAX_NOTES)
    {
      rfk_manager_history_flush (self);
      return;
    }

  g_clear_handle_id (&self->history_source, g_source_remove);
  if (self->timing.sweep_ms > 0)
    self->history_source = g_timeout_add (self->timing.sweep_ms,
                                          sweep_over_cb, self);
  else
    self->history_source = g_idle_add (sweep_over_cb, self);
}

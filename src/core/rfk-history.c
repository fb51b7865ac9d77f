/* rfk-history.c: the last radio changes, in memory and on disk. */
#include "config.h"

#include "rfk-history.h"

#include <glib/gi18n.h>
#include <stdlib.h>

#include "rfk-device.h"
#include "rfk-state-file.h"

#define FILE_NAME "history.ini"
#define AUTOSAVE_MS 500

/* A group per change, numbered oldest first: [change 1] ... */
#define GROUP_PREFIX "change "

static const char *const cause_names[RFK_CAUSE_COUNT] = {
  [RFK_CAUSE_OTHER] = "other",
  [RFK_CAUSE_APPLET] = "applet",
  [RFK_CAUSE_MENU] = "menu",
  [RFK_CAUSE_MIDDLE_CLICK] = "middle-click",
  [RFK_CAUSE_NOTIFICATION] = "notification",
  [RFK_CAUSE_CLI] = "cli",
  [RFK_CAUSE_DBUS] = "dbus",
  [RFK_CAUSE_AIRPLANE_MODE] = "airplane-mode",
  [RFK_CAUSE_RESUME] = "resume",
  [RFK_CAUSE_KEY] = "key",
  [RFK_CAUSE_SWITCH] = "switch",
  [RFK_CAUSE_HOTPLUG] = "hotplug",
  [RFK_CAUSE_NETWORKMANAGER] = "networkmanager",
};

static const char *const state_names[] = {
  [RFK_RADIO_ON] = "on",
  [RFK_RADIO_OFF] = "off",
  [RFK_RADIO_HARD_BLOCKED] = "hard-blocked",
};

const char *
rfk_cause_to_string (RfkCause cause)
{
  g_return_val_if_fail (cause < RFK_CAUSE_COUNT, "other");
  return cause_names[cause];
}

gboolean
rfk_cause_from_string (const char *string, RfkCause *out_cause)
{
  for (guint i = 0; string != NULL && i < RFK_CAUSE_COUNT; i++)
    if (g_str_equal (string, cause_names[i]))
      {
        *out_cause = i;
        return TRUE;
      }
  return FALSE;
}

RfkRadioState
rfk_radio_state_of (gboolean soft, gboolean hard)
{
  return hard ? RFK_RADIO_HARD_BLOCKED : soft ? RFK_RADIO_OFF : RFK_RADIO_ON;
}

const char *
rfk_radio_state_to_string (RfkRadioState state)
{
  g_return_val_if_fail (state < G_N_ELEMENTS (state_names), "on");
  return state_names[state];
}

static gboolean
radio_state_from_string (const char *string, RfkRadioState *out_state)
{
  for (guint i = 0; string != NULL && i < G_N_ELEMENTS (state_names); i++)
    if (g_str_equal (string, state_names[i]))
      {
        *out_state = i;
        return TRUE;
      }
  return FALSE;
}

const char *
rfk_radio_state_to_label (RfkRadioState state)
{
  switch (state)
    {
    case RFK_RADIO_ON:
      /* TRANSLATORS: a radio's state in the history: "off → on" */
      return C_("radio state", "on");
    case RFK_RADIO_OFF:
      return C_("radio state", "off");
    case RFK_RADIO_HARD_BLOCKED:
    default:
      return C_("radio state", "blocked by hardware");
    }
}

RfkHistoryEntry *
rfk_history_entry_copy (const RfkHistoryEntry *entry)
{
  RfkHistoryEntry *copy = g_memdup2 (entry, sizeof *entry);

  copy->name = g_strdup (entry->name);
  copy->key = g_strdup (entry->key);
  copy->by = g_strdup (entry->by);
  return copy;
}

void
rfk_history_entry_free (RfkHistoryEntry *entry)
{
  if (entry == NULL)
    return;
  g_free (entry->name);
  g_free (entry->key);
  g_free (entry->by);
  g_free (entry);
}

char *
rfk_history_entry_dup_cause_label (const RfkHistoryEntry *entry)
{
  switch (entry->cause)
    {
    case RFK_CAUSE_APPLET:
      return g_strdup (_("this applet"));
    case RFK_CAUSE_MENU:
      return g_strdup (_("the menu"));
    case RFK_CAUSE_MIDDLE_CLICK:
      return g_strdup (_("a middle click"));
    case RFK_CAUSE_NOTIFICATION:
      return g_strdup (_("a notification"));
    case RFK_CAUSE_CLI:
      return g_strdup (_("the command line"));
    case RFK_CAUSE_DBUS:
      /* TRANSLATORS: %s is a process name, e.g. "gnome-shell" */
      return entry->by != NULL ? g_strdup_printf (_("%s over D-Bus"),
                                                  entry->by)
                               : g_strdup (_("a program over D-Bus"));
    case RFK_CAUSE_AIRPLANE_MODE:
      return g_strdup (_("airplane mode"));
    case RFK_CAUSE_RESUME:
      return g_strdup (_("resume"));
    case RFK_CAUSE_KEY:
      /* TRANSLATORS: every radio switched at once, as the airplane key,
       * `rfkill block all` and gnome-settings-daemon do alike */
      return g_strdup (_("the airplane key or a program switching every "
                         "radio"));
    case RFK_CAUSE_SWITCH:
      return g_strdup (_("a hardware switch"));
    case RFK_CAUSE_HOTPLUG:
      return g_strdup (_("a restore when plugged in"));
    case RFK_CAUSE_NETWORKMANAGER:
      return g_strdup ("NetworkManager");
    case RFK_CAUSE_OTHER:
    default:
      return g_strdup (_("another program"));
    }
}

char *
rfk_history_entry_dup_radio_label (const RfkHistoryEntry *entry)
{
  return g_strdup_printf ("%s (%s)", rfk_type_to_label (entry->type),
                          entry->name);
}

char *
rfk_history_entry_dup_summary (const RfkHistoryEntry *entry)
{
  g_autofree char *radio = rfk_history_entry_dup_radio_label (entry);
  g_autofree char *cause = rfk_history_entry_dup_cause_label (entry);

  /* TRANSLATORS: "Bluetooth (hci0): on → off, by the menu"; the states
   * are "on", "off" or "blocked by hardware", the cause one of "the
   * menu", "gnome-shell over D-Bus", "another program"... */
  return g_strdup_printf (_("%s: %s → %s, by %s"), radio,
                          rfk_radio_state_to_label (entry->from),
                          rfk_radio_state_to_label (entry->to), cause);
}

struct _RfkHistory
{
  GObject parent_instance;
  GPtrArray *entries;   /* RfkHistoryEntry *, oldest first */
  GPtrArray *unsaved;   /* copies of what was added since the last flush */
  gboolean autosave;
  guint save_source;
};

G_DEFINE_FINAL_TYPE (RfkHistory, rfk_history, G_TYPE_OBJECT)

enum { SIGNAL_CHANGED, N_SIGNALS };
static guint signals[N_SIGNALS];

char *
rfk_history_dup_path (void)
{
  return rfk_state_file_dup_path (FILE_NAME);
}

static void
trim (GPtrArray *entries)
{
  if (entries->len > RFK_HISTORY_MAX)
    g_ptr_array_remove_range (entries, 0, entries->len - RFK_HISTORY_MAX);
}

/* One group, or FALSE if it makes no sense. */
static gboolean
entry_from_group (GKeyFile *file, const char *group, RfkHistoryEntry *entry)
{
  g_autofree char *time = g_key_file_get_string (file, group, "time", NULL);
  g_autofree char *type = g_key_file_get_string (file, group, "type", NULL);
  g_autofree char *from = g_key_file_get_string (file, group, "from", NULL);
  g_autofree char *to = g_key_file_get_string (file, group, "to", NULL);
  g_autofree char *cause = g_key_file_get_string (file, group, "cause", NULL);
  RfkType known;
  guint64 number;

  if (time == NULL || !g_ascii_string_to_unsigned (time, 10, 1, G_MAXINT64,
                                                   &number, NULL))
    return FALSE;
  entry->time_us = (gint64) number;
  if (type != NULL && rfk_type_from_string (type, &known))
    entry->type = known;
  else if (type != NULL && g_ascii_string_to_unsigned (type, 10, 0, 255,
                                                       &number, NULL))
    entry->type = number;
  else
    return FALSE;
  if (!radio_state_from_string (from, &entry->from)
      || !radio_state_from_string (to, &entry->to)
      || !rfk_cause_from_string (cause, &entry->cause))
    return FALSE;
  entry->name = g_key_file_get_string (file, group, "radio", NULL);
  entry->key = g_key_file_get_string (file, group, "key", NULL);
  entry->by = g_key_file_get_string (file, group, "by", NULL);
  return entry->name != NULL && entry->key != NULL;
}

static gint
by_group_number (gconstpointer a, gconstpointer b)
{
  const char *ga = *(const char *const *) a, *gb = *(const char *const *) b;
  guint64 na = g_ascii_strtoull (ga + strlen (GROUP_PREFIX), NULL, 10);
  guint64 nb = g_ascii_strtoull (gb + strlen (GROUP_PREFIX), NULL, 10);

  return na < nb ? -1 : na > nb;
}

/* The file's entries, oldest first; NULL and error when it cannot be
 * read.  *out_skipped counts groups that made no sense. */
static GPtrArray *
read_file (const char *path, guint *out_skipped, GError **error)
{
  g_autoptr (GKeyFile) file = NULL;
  g_autoptr (GError) local = NULL;
  g_auto (GStrv) groups = NULL;
  GPtrArray *entries;
  gsize n = 0;

  *out_skipped = 0;
  entries = g_ptr_array_new_with_free_func (
    (GDestroyNotify) rfk_history_entry_free);
  file = rfk_state_file_load (path, &local);
  if (file == NULL)
    {
      if (g_error_matches (local, G_FILE_ERROR, G_FILE_ERROR_NOENT))
        return entries;
      g_propagate_error (error, g_steal_pointer (&local));
      g_ptr_array_unref (entries);
      return NULL;
    }
  groups = g_key_file_get_groups (file, &n);
  qsort (groups, n, sizeof (char *), by_group_number);
  for (gsize i = 0; i < n; i++)
    {
      RfkHistoryEntry entry = { 0 };

      if (g_str_has_prefix (groups[i], GROUP_PREFIX)
          && entry_from_group (file, groups[i], &entry))
        g_ptr_array_add (entries, g_memdup2 (&entry, sizeof entry));
      else
        {
          g_free (entry.name);
          g_free (entry.key);
          g_free (entry.by);
          (*out_skipped)++;
        }
    }
  trim (entries);
  return entries;
}

/* The file's entries, oldest first.  NULL with error only when it cannot
 * be read at all (left alone: maybe not ours).  A corrupt file is moved
 * aside and gives none, and entries that make no sense are left out:
 * both with error set too, for the caller to say. */
static GPtrArray *
load_file (const char *path, gboolean set_aside, GError **error)
{
  g_autoptr (GError) local = NULL;
  guint skipped;
  GPtrArray *read = read_file (path, &skipped, &local);

  if (read == NULL)
    {
      g_autofree char *copy = NULL;

      if (local->domain != G_KEY_FILE_ERROR)
        {
          g_set_error (error, local->domain, local->code,
                       _("The radio history, %s, cannot be read: %s"), path,
                       local->message);
          return NULL;
        }
      if (!set_aside)
        {
          g_set_error (error, G_KEY_FILE_ERROR, local->code,
                       _("The radio history, %s, is corrupt (%s)"), path,
                       local->message);
          return NULL;
        }
      copy = rfk_state_file_quarantine (path, NULL);
      g_set_error (error, G_KEY_FILE_ERROR, local->code,
                   _("The radio history, %s, is corrupt (%s): it starts "
                     "again empty; the old file is kept as %s."),
                   path, local->message,
                   copy != NULL ? copy : _("(it could not be moved)"));
      return g_ptr_array_new_with_free_func (
        (GDestroyNotify) rfk_history_entry_free);
    }
  if (skipped > 0)
    g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
                 ngettext ("The radio history, %s, has %u entry that makes "
                           "no sense: it was left out.",
                           "The radio history, %s, has %u entries that "
                           "make no sense: they were left out.", skipped),
                 path, skipped);
  return read;
}

static gboolean
load (RfkHistory *self, gboolean read_only, GError **error)
{
  g_autoptr (RfkStateLock) lock = NULL;
  g_autofree char *path = rfk_history_dup_path ();
  g_autoptr (GError) local = NULL;
  GPtrArray *read;

  g_return_val_if_fail (RFK_IS_HISTORY (self), FALSE);
  /* Moving a corrupt file aside is a write: under the lock. */
  if (!read_only)
    {
      lock = rfk_state_file_lock (error);
      if (lock == NULL)
        return FALSE;
    }
  read = load_file (path, !read_only, &local);
  if (read != NULL)
    {
      g_ptr_array_unref (self->entries);
      self->entries = read;
      /* What this process added and has not written stays. */
      for (guint i = 0; i < self->unsaved->len; i++)
        g_ptr_array_add (self->entries,
                         rfk_history_entry_copy (self->unsaved->pdata[i]));
      trim (self->entries);
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

static void
write_group (GKeyFile *file, guint number, const RfkHistoryEntry *entry)
{
  g_autofree char *group = g_strdup_printf (GROUP_PREFIX "%u", number);
  const char *type = rfk_type_to_string (entry->type);
  char buf[32];

  g_snprintf (buf, sizeof buf, "%" G_GINT64_FORMAT, entry->time_us);
  g_key_file_set_string (file, group, "time", buf);
  g_key_file_set_string (file, group, "radio", entry->name);
  if (type != NULL)
    g_key_file_set_string (file, group, "type", type);
  else
    {
      g_snprintf (buf, sizeof buf, "%u", entry->type);
      g_key_file_set_string (file, group, "type", buf);
    }
  g_key_file_set_string (file, group, "key", entry->key);
  g_key_file_set_string (file, group, "from",
                         rfk_radio_state_to_string (entry->from));
  g_key_file_set_string (file, group, "to",
                         rfk_radio_state_to_string (entry->to));
  g_key_file_set_string (file, group, "cause",
                         rfk_cause_to_string (entry->cause));
  if (entry->by != NULL)
    g_key_file_set_string (file, group, "by", entry->by);
}

static gint
by_time (gconstpointer a, gconstpointer b)
{
  const RfkHistoryEntry *ea = *(RfkHistoryEntry *const *) a;
  const RfkHistoryEntry *eb = *(RfkHistoryEntry *const *) b;

  return ea->time_us < eb->time_us ? -1 : ea->time_us > eb->time_us;
}

gboolean
rfk_history_flush (RfkHistory *self, GError **error)
{
  g_autoptr (RfkStateLock) lock = NULL;
  g_autoptr (GKeyFile) file = NULL;
  g_autoptr (GError) problem = NULL;
  g_autofree char *path = rfk_history_dup_path ();
  g_autofree char *data = NULL;
  GPtrArray *merged;
  gsize length;

  g_return_val_if_fail (RFK_IS_HISTORY (self), FALSE);
  g_clear_handle_id (&self->save_source, g_source_remove);
  if (self->unsaved->len == 0)
    return TRUE;
  lock = rfk_state_file_lock (error);
  if (lock == NULL)
    return FALSE;
  /* Another process may have added to the file since we read it.  One we
   * cannot read is no file of ours to replace. */
  merged = load_file (path, TRUE, &problem);
  if (merged == NULL)
    {
      g_propagate_error (error, g_steal_pointer (&problem));
      return FALSE;
    }
  if (problem != NULL)
    g_warning ("%s", problem->message);
  for (guint i = 0; i < self->unsaved->len; i++)
    g_ptr_array_add (merged,
                     rfk_history_entry_copy (self->unsaved->pdata[i]));
  /* Stable: equal times keep the order they were added in. */
  g_ptr_array_sort (merged, by_time);
  trim (merged);
  g_ptr_array_unref (self->entries);
  self->entries = merged;
  file = g_key_file_new ();
  for (guint i = 0; i < self->entries->len; i++)
    write_group (file, i + 1, self->entries->pdata[i]);
  data = g_key_file_to_data (file, &length, NULL);
  if (!rfk_state_file_write (path, data, length, error))
    {
      g_prefix_error (error, _("The radio history, %s, cannot be saved: "),
                      path);
      return FALSE;
    }
  g_ptr_array_set_size (self->unsaved, 0);
  g_signal_emit (self, signals[SIGNAL_CHANGED], 0);
  return TRUE;
}

static gboolean
autosave_cb (gpointer user_data)
{
  RfkHistory *self = user_data;
  g_autoptr (GError) error = NULL;

  self->save_source = 0;
  if (!rfk_history_flush (self, &error))
    g_warning ("%s", error->message);
  return G_SOURCE_REMOVE;
}

void
rfk_history_add (RfkHistory *self, RfkHistoryEntry *entry)
{
  g_return_if_fail (RFK_IS_HISTORY (self));
  g_ptr_array_add (self->unsaved, rfk_history_entry_copy (entry));
  g_ptr_array_add (self->entries, entry);
  trim (self->entries);
  /* A flood adds more than the file keeps: only the newest matter. */
  if (self->unsaved->len > RFK_HISTORY_MAX)
    g_ptr_array_remove_range (self->unsaved, 0,
                              self->unsaved->len - RFK_HISTORY_MAX);
  if (self->autosave && self->save_source == 0)
    self->save_source = g_timeout_add (AUTOSAVE_MS, autosave_cb, self);
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

  /* What is still unsaved is written now, not lost with the process. */
  if (self->save_source != 0)
    autosave_cb (self);
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

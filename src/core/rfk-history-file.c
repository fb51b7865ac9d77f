/* rfk-history-file.c: history.ini, read and written (rfk-history-file.h). */
#include "config.h"

#include "rfk-history-file.h"

#include <glib/gi18n.h>
#include <stdlib.h>

#include "rfk-device.h"
#include "rfk-state-file.h"

/* A group per change, numbered oldest first: [change 1] ... */
#define GROUP_PREFIX "change "


void
rfk_history_trim (GPtrArray *entries)
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
  if (!rfk_radio_state_from_string (from, &entry->from)
      || !rfk_radio_state_from_string (to, &entry->to)
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
  rfk_history_trim (entries);
  return entries;
}

GPtrArray *
rfk_history_file_load (const char *path, gboolean set_aside, GError **error)
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

GPtrArray *
rfk_history_file_save (const char *path, const GPtrArray *added,
                       GError **error)
{
  g_autoptr (RfkStateLock) lock = NULL;
  g_autoptr (GKeyFile) file = NULL;
  g_autoptr (GError) problem = NULL;
  g_autoptr (GPtrArray) merged = NULL;
  g_autofree char *data = NULL;
  gsize length;

  lock = rfk_state_file_lock (error);
  if (lock == NULL)
    return NULL;
  /* Another process may have added to the file since we read it.  One we
   * cannot read is no file of ours to replace. */
  merged = rfk_history_file_load (path, TRUE, &problem);
  if (merged == NULL)
    {
      g_propagate_error (error, g_steal_pointer (&problem));
      return NULL;
    }
  if (problem != NULL)
    g_warning ("%s", problem->message);
  for (guint i = 0; i < added->len; i++)
    g_ptr_array_add (merged, rfk_history_entry_copy (added->pdata[i]));
  /* Stable: equal times keep the order they were added in. */
  g_ptr_array_sort (merged, by_time);
  rfk_history_trim (merged);
  file = g_key_file_new ();
  for (guint i = 0; i < merged->len; i++)
    write_group (file, i + 1, merged->pdata[i]);
  data = g_key_file_to_data (file, &length, NULL);
  if (!rfk_state_file_write (path, data, length, error))
    {
      g_prefix_error (error, _("The radio history, %s, cannot be saved: "),
                      path);
      return NULL;
    }
  return g_steal_pointer (&merged);
}

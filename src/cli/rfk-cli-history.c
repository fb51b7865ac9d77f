/* rfk-cli-history.c: --history [--json], the last radio changes. */
#include "config.h"

#include "rfk-cli.h"

#include <glib/gi18n.h>
#include <json-glib/json-glib.h>
#include <stdio.h>

#include "rfk-cli-common.h"
#include "rfk-history.h"

/* ISO 8601 in UTC with µs, for scripts; NULL for a time out of range. */
static char *
iso_time (gint64 time_us)
{
  g_autoptr (GDateTime) utc = g_date_time_new_from_unix_utc (
    time_us / G_USEC_PER_SEC);
  g_autoptr (GDateTime) exact = NULL;

  if (utc == NULL)
    return NULL;
  exact = g_date_time_add (utc, time_us % G_USEC_PER_SEC);
  return exact != NULL ? g_date_time_format (exact, "%Y-%m-%dT%H:%M:%S.%fZ")
                       : NULL;
}

static void
add_string (JsonBuilder *builder, const char *member, const char *value)
{
  json_builder_set_member_name (builder, member);
  if (value != NULL)
    json_builder_add_string_value (builder, value);
  else
    json_builder_add_null_value (builder);
}

static void
print_json (GPtrArray *entries)
{
  g_autoptr (JsonBuilder) builder = json_builder_new ();

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "history");
  json_builder_begin_array (builder);
  for (guint i = 0; i < entries->len; i++)
    {
      const RfkHistoryEntry *e = entries->pdata[i];
      g_autofree char *time = iso_time (e->time_us);

      json_builder_begin_object (builder);
      add_string (builder, "time", time);
      json_builder_set_member_name (builder, "time-us");
      json_builder_add_int_value (builder, e->time_us);
      add_string (builder, "device", e->name);
      add_string (builder, "type", rfk_type_to_name (e->type));
      add_string (builder, "key", e->key);
      add_string (builder, "from", rfk_radio_state_to_string (e->from));
      add_string (builder, "to", rfk_radio_state_to_string (e->to));
      add_string (builder, "cause", rfk_cause_to_string (e->cause));
      add_string (builder, "by", e->by);
      json_builder_end_object (builder);
    }
  json_builder_end_array (builder);
  json_builder_end_object (builder);

  rfk_cli_print_json (builder);
}

/* "2026-12-06 14:03:12  Bluetooth (hci0): on → off, by the menu", oldest
 * first, in local time. */
static void
print_text (GPtrArray *entries)
{
  if (entries->len == 0)
    printf ("%s\n", _("No radio changes yet."));
  for (guint i = 0; i < entries->len; i++)
    {
      const RfkHistoryEntry *e = entries->pdata[i];
      g_autoptr (GDateTime) when = g_date_time_new_from_unix_local (
        e->time_us / G_USEC_PER_SEC);
      g_autofree char *time = when != NULL
                                ? g_date_time_format (when,
                                                      "%Y-%m-%d %H:%M:%S")
                                : g_strdup ("?");
      g_autofree char *summary = rfk_history_entry_dup_summary (e);

      printf ("%s  %s\n", time, summary);
    }
}

int
rfk_cli_history (gboolean json)
{
  g_autoptr (RfkHistory) history = rfk_history_new ();
  g_autoptr (GError) error = NULL;
  int status = 0;

  /* Entries that make no sense are said and left out; a file that
   * cannot be read at all is said and fails. */
  if (!rfk_history_read (history, &error))
    {
      rfk_cli_fail ("%s", error->message);
      if (!g_error_matches (error, G_KEY_FILE_ERROR,
                            G_KEY_FILE_ERROR_INVALID_VALUE))
        return 1;
      status = 1;
    }
  if (json)
    print_json (rfk_history_get_entries (history));
  else
    print_text (rfk_history_get_entries (history));
  return fflush (stdout) == 0 ? status : 1;
}
